/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The built-in SM's bring-up (simfabric/subnet_up.h) and the LIDs the
 * topology reader takes from a file: LIDs unique, kept from the file,
 * aligned to the LMC, assigned in file order; every route a shortest one
 * (walked through the LFTs from every CA to every LID and checked against
 * hop counts found here by a search of their own), balanced over
 * equal-cost ports, rerouted around a link taken down; multicast trees
 * that deliver to each member once; ports, SM LID and SMInfo as an SM
 * leaves them; the same result on every run.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/fabric.h"
#include "simfabric/port_state.h"
#include "simfabric/route.h"
#include "simfabric/sma.h"
#include "simfabric/subnet_up.h"
#include "simfabric/topology.h"

#define SM_STATE_MASTER_VALUE	3	/* SMInfo:SMState MASTER, as the spec numbers it */

/* --- building fabrics ------------------------------------------------------------ */

static struct sim_fabric *parse_ok(const char *text)
{
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse(text, "test.net", &errors);

	if (!f)
		fail_msg("unexpected errors:\n%s", umad_err_text(&errors));
	assert_int_equal(errors.count, 0);
	return f;
}

/* The reader's messages for a file that must be refused. */
static char *parse_fails(const char *text)
{
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse(text, "test.net", &errors);

	assert_null(f);
	assert_true(errors.count > 0);
	return strdup(umad_err_text(&errors));
}

static void expect_error(const char *text, const char *message)
{
	char *errors = parse_fails(text);

	if (!strstr(errors, message))
		fail_msg("expected \"%s\" in:\n%s", message, errors);
	free(errors);
}

/* A text buffer that grows. */
struct text {
	char *s;
	size_t len, cap;
};

static void __attribute__((format(printf, 2, 3))) add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (t->s && (size_t)n < t->cap - t->len)
			break;
		t->cap = (t->cap + (size_t)n + 1) * 2;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	t->len += (size_t)n;
}

/*
 * A fat tree of k-port switches as scripts/gen-fattree writes it (the same
 * names and order): 2 levels, k leaves "L*" of k/2 HCAs and k/2 spines
 * "S*"; 3 levels, k pods of k/2 edge "E*" and k/2 aggregation "A*"
 * switches, and (k/2)^2 cores "C*".
 */
static char *fat_tree(unsigned k, unsigned levels)
{
	struct text t = { 0 };
	unsigned half = k / 2, l, h, u, s, p, e, a, c;

	if (levels == 2) {
		for (l = 1; l <= k; l++) {
			add(&t, "Switch\t%u \"L%u\"\n", k, l);
			for (h = 1; h <= half; h++)
				add(&t, "[%u]\t\"H%u\"[1]\n", h, (l - 1) * half + h);
			for (u = 1; u <= half; u++)
				add(&t, "[%u]\t\"S%u\"[%u]\n", half + u, u, l);
			add(&t, "\n");
		}
		for (s = 1; s <= half; s++) {
			add(&t, "Switch\t%u \"S%u\"\n", k, s);
			for (l = 1; l <= k; l++)
				add(&t, "[%u]\t\"L%u\"[%u]\n", l, l, half + s);
			add(&t, "\n");
		}
		for (l = 1; l <= k; l++)
			for (h = 1; h <= half; h++)
				add(&t, "Hca\t1 \"H%u\"\n[1]\t\"L%u\"[%u]\n\n", (l - 1) * half + h, l, h);
		return t.s;
	}
	for (p = 1; p <= k; p++) {
		for (e = 1; e <= half; e++) {
			add(&t, "Switch\t%u \"E%u_%u\"\n", k, p, e);
			for (h = 1; h <= half; h++)
				add(&t, "[%u]\t\"H%u\"[1]\n", h, ((p - 1) * half + e - 1) * half + h);
			for (a = 1; a <= half; a++)
				add(&t, "[%u]\t\"A%u_%u\"[%u]\n", half + a, p, a, e);
			add(&t, "\n");
		}
		for (a = 1; a <= half; a++) {
			add(&t, "Switch\t%u \"A%u_%u\"\n", k, p, a);
			for (e = 1; e <= half; e++)
				add(&t, "[%u]\t\"E%u_%u\"[%u]\n", e, p, e, half + a);
			for (c = 1; c <= half; c++)
				add(&t, "[%u]\t\"C%u_%u\"[%u]\n", half + c, a, c, p);
			add(&t, "\n");
		}
	}
	for (a = 1; a <= half; a++)
		for (c = 1; c <= half; c++) {
			add(&t, "Switch\t%u \"C%u_%u\"\n", k, a, c);
			for (p = 1; p <= k; p++)
				add(&t, "[%u]\t\"A%u_%u\"[%u]\n", p, p, a, half + c);
			add(&t, "\n");
		}
	for (p = 1; p <= k; p++)
		for (e = 1; e <= half; e++)
			for (h = 1; h <= half; h++)
				add(&t, "Hca\t1 \"H%u\"\n[1]\t\"E%u_%u\"[%u]\n\n",
				    ((p - 1) * half + e - 1) * half + h, p, e, h);
	return t.s;
}

static struct sim_fabric *fat_tree_fabric(unsigned k, unsigned levels)
{
	char *text = fat_tree(k, levels);
	struct sim_fabric *f = parse_ok(text);

	free(text);
	return f;
}

static struct sim_node *node(struct sim_fabric *f, const char *name)
{
	struct sim_node *n = sim_fabric_find(f, name);

	if (!n)
		fail_msg("no node %s", name);
	return n;
}

static struct sim_port *port_of(struct sim_fabric *f, const char *name, unsigned num)
{
	return &node(f, name)->ports[num];
}

static void bring_up(struct sim_fabric *f, struct sim_port *sm)
{
	struct umad_err errors = UMAD_ERR_INIT;
	int r = sim_subnet_bring_up(f, sm, &errors);

	if (r)
		fail_msg("bring-up: %d %s", r, umad_err_text(&errors));
	assert_int_equal(errors.count, 0);
}

/* The ports that carry LIDs, one after the other: a switch's port 0, a CA's ports. */
#define for_each_lid_port(f, i, num, p)                                                    \
	for ((i) = 0; (i) < (f)->n_nodes; (i)++)                                          \
		for ((num) = (f)->nodes[i]->type == NODE_TYPE_SWITCH ? 0 : 1;             \
		     (num) <= ((f)->nodes[i]->type == NODE_TYPE_SWITCH ? 0u : (f)->nodes[i]->num_ports) && \
		     ((p) = &(f)->nodes[i]->ports[num]);                                   \
		     (num)++)

/* --- checks shared by the tests --------------------------------------------------- */

/* No two ports share a LID; every LID is aligned to its port's LMC; returns the LIDs in use. */
static unsigned check_lids_unique(struct sim_fabric *f)
{
	static const struct sim_port *owner[LID_MCAST_START];
	const struct sim_port *p;
	unsigned num, l, used = 0;
	size_t i;

	memset(owner, 0, sizeof(owner));
	for_each_lid_port(f, i, num, p) {
		if (!p->lid)
			continue;
		assert_int_equal(p->lid % (1u << p->lmc), 0);
		assert_true(p->lid + (1u << p->lmc) - 1 < LID_MCAST_START);
		for (l = p->lid; l < p->lid + (1u << p->lmc); l++) {
			if (owner[l])
				fail_msg("LID %u of %s[%u] is also %s[%u]'s", l, p->node->name, p->num,
					 owner[l]->node->name, owner[l]->num);
			owner[l] = p;
			used++;
		}
	}
	return used;
}

/* A link data can use: up and Active at both ends. */
static int usable(const struct sim_port *p)
{
	return sim_port_link_up(p) && p->state == PORT_STATE_ACTIVE &&
	       p->peer->state == PORT_STATE_ACTIVE;
}

/*
 * Links from CA port `from` to every switch (UINT32_MAX: none), found by a
 * plain breadth-first search over usable links; end nodes do not forward.
 */
static unsigned *bfs_hops(struct sim_fabric *f, const struct sim_port *from)
{
	unsigned *hops = malloc(f->n_nodes * sizeof(*hops));
	struct sim_node **queue = malloc(f->n_nodes * sizeof(*queue));
	size_t head = 0, tail = 0, i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++)
		hops[i] = UINT32_MAX;
	if (usable(from) && from->peer->node->type == NODE_TYPE_SWITCH) {
		hops[from->peer->node->index] = 1;
		queue[tail++] = from->peer->node;
	}
	while (head < tail) {
		struct sim_node *n = queue[head++];

		for (p = 1; p <= n->num_ports; p++) {
			struct sim_node *far;

			if (!usable(&n->ports[p]))
				continue;
			far = n->ports[p].peer->node;
			if (far->type != NODE_TYPE_SWITCH || hops[far->index] != UINT32_MAX)
				continue;
			hops[far->index] = hops[n->index] + 1;
			queue[tail++] = far;
		}
	}
	free(queue);
	return hops;
}

/* The fewest links from `from` to port `to` (a switch's port 0 or a CA port), or UINT32_MAX. */
static unsigned shortest(const unsigned *hops, const struct sim_port *from, const struct sim_port *to)
{
	if (to->node->type == NODE_TYPE_SWITCH)
		return hops[to->node->index];
	if (usable(from) && from->peer == to)
		return 1;	/* two CAs cabled together */
	if (!usable(to) || to->peer->node->type != NODE_TYPE_SWITCH ||
	    hops[to->peer->node->index] == UINT32_MAX)
		return UINT32_MAX;
	return hops[to->peer->node->index] + 1;
}

/*
 * Follow the LFTs from port `from` to dlid: the links crossed, or -1 when
 * the packet is lost; *end_port is the port that answers to dlid.
 */
static int walk(struct sim_fabric *f, struct sim_port *from, uint16_t dlid,
		struct sim_port **end_port)
{
	struct sim_node *n = from->node;
	unsigned at = from->num, hops = 0;

	(void)f;
	for (;;) {
		struct sim_port *here = n->type == NODE_TYPE_SWITCH ? &n->ports[0] : &n->ports[at];
		unsigned egress;

		if (here->lid && dlid >= here->lid && dlid < here->lid + (1u << here->lmc)) {
			*end_port = here;
			return (int)hops;
		}
		if (n->type == NODE_TYPE_SWITCH) {
			if (dlid > n->sw->lft_top)
				return -1;
			egress = sim_switch_lft_get(n->sw, dlid);
		} else {
			if (hops)
				return -1;
			egress = at;
		}
		if (egress == 0 || egress > n->num_ports || !sim_port_link_up(&n->ports[egress]) ||
		    hops > UMAD_SMP_MAX_HOPS)
			return -1;
		at = n->ports[egress].peer->num;
		n = n->ports[egress].peer->node;
		hops++;
	}
}

/*
 * From every CA port with a LID to every LID of every port (CAs and
 * switches): the LFTs deliver to that port, by a shortest path, and
 * sim_route_lid agrees on where it arrives.
 */
static void check_all_routes(struct sim_fabric *f)
{
	struct sim_port *from, *to;
	unsigned fnum, tnum, l;
	size_t i, j;

	for_each_lid_port(f, i, fnum, from) {
		unsigned *hops;

		if (from->node->type == NODE_TYPE_SWITCH || !from->lid ||
		    from->state != PORT_STATE_ACTIVE)
			continue;
		hops = bfs_hops(f, from);
		for_each_lid_port(f, j, tnum, to) {
			if (!to->lid || to == from)
				continue;
			for (l = 0; l < 1u << to->lmc; l++) {
				uint16_t dlid = (uint16_t)(to->lid + l);
				struct sim_port *end = NULL;
				struct sim_hop_end e;
				int h = walk(f, from, dlid, &end);
				unsigned want = shortest(hops, from, to);

				if (want == UINT32_MAX) {
					assert_int_equal(h, -1);
					continue;
				}
				if (h < 0 || end != to)
					fail_msg("%s[%u] -> LID %u (%s[%u]): %s", from->node->name, from->num,
						 dlid, to->node->name, to->num, h < 0 ? "lost" : "elsewhere");
				if ((unsigned)h != want)
					fail_msg("%s[%u] -> LID %u: %d hops, the shortest is %u",
						 from->node->name, from->num, dlid, h, want);
				assert_int_equal(sim_route_lid(f, from->node, from->num, dlid, &e), 0);
				assert_ptr_equal(e.node, to->node);
			}
		}
		free(hops);
	}
}

/* Every port an SM reaches as bring-up leaves it. */
static void check_ports_up(struct sim_fabric *f, uint16_t sm_lid)
{
	size_t i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		for (p = n->type == NODE_TYPE_SWITCH ? 0 : 1; p <= n->num_ports; p++) {
			struct sim_port *port = &n->ports[p];
			struct sim_port *m = sim_mgmt_port(n, p);

			if (p && !port->peer) {
				assert_int_equal(port->state, PORT_STATE_DOWN);
				continue;
			}
			assert_int_equal(port->state, PORT_STATE_ACTIVE);
			assert_int_not_equal(m->lid, 0);
			assert_int_equal(m->sm_lid, sm_lid);
			assert_int_equal(m->m_key, 0);
			assert_int_equal(port->subnet_timeout, 18);
			assert_int_equal(port->client_reregister, 0);
			if (p) {
				assert_int_equal(port->neighbor_mtu,
						 port->mtu_cap < port->peer->mtu_cap ? port->mtu_cap :
										      port->peer->mtu_cap);
				assert_int_equal(port->op_vls, port->vl_cap < port->peer->vl_cap ?
								       port->vl_cap : port->peer->vl_cap);
			}
		}
		if (n->sw)
			assert_int_equal(n->sw->port_state_change, 0);
	}
}

/* --- the tests ------------------------------------------------------------------------ */

/*
 * The default fabric: LIDs in file order (Switch1, Switch2, Hca1..4), every
 * cabled port Active, the SM's LID everywhere, SMInfo MASTER at Hca1.
 */
static void test_default_fabric(void **state)
{
	struct sim_fabric *f = parse_ok(sim_default_topology);
	struct sim_port *sm = port_of(f, "Hca1", 1);
	static const char *const order[] = { "Switch1", "Switch2", "Hca1", "Hca2", "Hca3", "Hca4" };
	uint8_t mad[MAD_SIZE] = { 0 };
	size_t i;

	(void)state;
	/* Power-on: no LIDs, links trained to Init; a switch has news for the SM. */
	assert_int_equal(sm->lid, 0);
	assert_int_equal(sm->state, PORT_STATE_INIT);
	node(f, "Switch2")->sw->port_state_change = 1;
	bring_up(f, sm);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct sim_node *n = node(f, order[i]);

		assert_int_equal(sim_mgmt_port(n, 1)->lid, i + 1);
		assert_int_equal(sim_subnet_port_lid(&n->ports[1]), i + 1);
		assert_int_equal(sim_mgmt_port(n, 1)->lmc, 0);
	}
	/* The HCAs' second ports have no cable: no LID, Down. */
	assert_int_equal(port_of(f, "Hca1", 2)->lid, 0);
	assert_int_equal(port_of(f, "Hca1", 2)->state, PORT_STATE_DOWN);
	check_ports_up(f, 3);
	assert_true(sm->capmask & PORT_CAP_IS_SM);
	assert_false(port_of(f, "Hca2", 1)->capmask & PORT_CAP_IS_SM);
	assert_int_equal(node(f, "Hca1")->sminfo.state, SM_STATE_MASTER_VALUE);
	assert_int_equal(node(f, "Hca1")->sminfo.guid, sm->guid);
	assert_ptr_equal(sim_subnet_master(f), sm);
	assert_int_equal(node(f, "Switch1")->sw->lft_top, 6);
	assert_int_equal(node(f, "Switch1")->sw->lft_len, LFT_PER_BLOCK);
	/* The LID index follows: LID 5 is Hca3's port 1. */
	{
		uint8_t num = 0;

		assert_ptr_equal(sim_fabric_node_by_lid(f, 5, &num), node(f, "Hca3"));
		assert_int_equal(num, 1);
	}
	check_all_routes(f);

	/* The SMA answers SMInfo at the SM's node: MASTER. */
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_LID_ROUTED;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_SM_INFO);
	{
		uint16_t slid = 0;

		/* LID-routed from Hca4 to the SM's LID and back. */
		assert_int_equal(sim_smp_round_trip(f, port_of(f, "Hca4", 1), 3, mad, &slid, NULL), 1);
		assert_int_equal(slid, 3);
		assert_int_equal(get_be16(mad + MAD_OFF_STATUS), 0);
		assert_int_equal(mad[SMP_OFF_DATA + 20] & 0xf, SM_STATE_MASTER_VALUE);
		assert_int_equal(get_be64(mad + SMP_OFF_DATA), sm->guid);
	}
	sim_fabric_free(f);
}

/* Real ibnetdiscover output (Debian's, after opensm ran on ibsim): its LIDs are kept. */
static const char ibnetdiscover_2sw[] =
	"#\n"
	"# Topology file: generated on Tue Nov 24 09:33:18 2026\n"
	"#\n"
	"# Initiated from node 0000000000200000 port 0000000000200000\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x200001\n"
	"switchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 5 4xSDR\n"
	"[2]\t\"H-0000000000100003\"[2](100005) \t\t# \"Hca2\" lid 6 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x200000\n"
	"switchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 2 4xSDR\n"
	"[2]\t\"H-0000000000100000\"[2](100002) \t\t# \"Hca1\" lid 4 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100003\n"
	"caguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 5 lmc 0 \"Switch2\" lid 3 4xSDR\n"
	"[2](100005) \t\"S-0000000000200001\"[2]\t\t# lid 6 lmc 0 \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"vendid=0x0\n"
	"devid=0x0\n"
	"sysimgguid=0x100000\n"
	"caguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 0 \"Switch1\" lid 1 4xSDR\n"
	"[2](100002) \t\"S-0000000000200000\"[2]\t\t# lid 4 lmc 0 \"Switch1\" lid 1 4xSDR\n";

/* The same run with opensm -l 2 on a 2-level fat tree of 4-port switches (first records). */
static const char ibnetdiscover_lmc2[] =
	"Switch\t4 \"S-0000000000200003\"\t\t# \"L4\" base port 0 lid 16 lmc 0\n"
	"[1]\t\"H-000000000010000c\"[1](10000d) \t\t# \"H7\" lid 40 4xSDR\n"
	"[2]\t\"H-000000000010000e\"[1](10000f) \t\t# \"H8\" lid 44 4xSDR\n"
	"[3]\t\"S-0000000000200004\"[4]\t\t# \"S1\" lid 17 4xSDR\n"
	"\n"
	"Switch\t4 \"S-0000000000200004\"\t\t# \"S1\" base port 0 lid 17 lmc 0\n"
	"[4]\t\"S-0000000000200003\"[3]\t\t# \"L4\" lid 16 4xSDR\n"
	"\n"
	"caguid=0x10000e\n"
	"Ca\t1 \"H-000000000010000e\"\t\t# \"H8\"\n"
	"[1](10000f) \t\"S-0000000000200003\"[2]\t\t# lid 44 lmc 2 \"L4\" lid 16 4xSDR\n"
	"\n"
	"caguid=0x10000c\n"
	"Ca\t1 \"H-000000000010000c\"\t\t# \"H7\"\n"
	"[1](10000d) \t\"S-0000000000200003\"[1]\t\t# lid 40 lmc 2 \"L4\" lid 16 4xSDR\n";

static void test_file_lids_kept(void **state)
{
	struct sim_fabric *f = parse_ok(ibnetdiscover_2sw);
	struct sim_node *h1 = node(f, "H-0000000000100000"), *h2 = node(f, "H-0000000000100003");

	(void)state;
	/* The reader records them. */
	assert_int_equal(node(f, "S-0000000000200000")->ports[0].file_lid, 1);
	assert_int_equal(node(f, "S-0000000000200001")->ports[0].file_lid, 3);
	assert_int_equal(h1->ports[1].file_lid, 2);
	assert_int_equal(h1->ports[2].file_lid, 4);
	assert_int_equal(h2->ports[1].file_lid, 5);
	assert_int_equal(h2->ports[2].file_lid, 6);
	/* ... and bring-up keeps them, wherever the SM is. */
	bring_up(f, &h2->ports[2]);
	assert_int_equal(node(f, "S-0000000000200000")->ports[0].lid, 1);
	assert_int_equal(node(f, "S-0000000000200001")->ports[0].lid, 3);
	assert_int_equal(h1->ports[1].lid, 2);
	assert_int_equal(h1->ports[2].lid, 4);
	assert_int_equal(h2->ports[1].lid, 5);
	assert_int_equal(h2->ports[2].lid, 6);
	check_ports_up(f, 6);
	check_all_routes(f);
	sim_fabric_free(f);

	/* Two CAs cabled together, as ibnetdiscover prints them: a space before the far GUID. */
	f = parse_ok("Ca\t1 \"H-a\"\t\t# \"a\"\n"
		     "[1](10) \t\"H-b\"[1] (20) \t\t# lid 1 lmc 0 \"b\" lid 2 4xSDR\n"
		     "\n"
		     "Ca\t1 \"H-b\"\t\t# \"b\"\n"
		     "[1](20) \t\"H-a\"[1] (10) \t\t# lid 2 lmc 0 \"a\" lid 1 4xSDR\n");
	assert_ptr_equal(port_of(f, "H-a", 1)->peer, port_of(f, "H-b", 1));
	bring_up(f, port_of(f, "H-b", 1));
	assert_int_equal(port_of(f, "H-a", 1)->lid, 1);
	assert_int_equal(port_of(f, "H-b", 1)->lid, 2);
	assert_int_equal(port_of(f, "H-a", 1)->state, PORT_STATE_ACTIVE);
	assert_int_equal(port_of(f, "H-a", 1)->sm_lid, 2);
	check_all_routes(f);
	sim_fabric_free(f);

	f = parse_ok(ibnetdiscover_lmc2);
	bring_up(f, port_of(f, "H-000000000010000c", 1));
	assert_int_equal(port_of(f, "H-000000000010000c", 1)->lid, 40);
	assert_int_equal(port_of(f, "H-000000000010000c", 1)->lmc, 2);
	assert_int_equal(port_of(f, "H-000000000010000e", 1)->lid, 44);
	assert_int_equal(port_of(f, "H-000000000010000e", 1)->lmc, 2);
	assert_int_equal(port_of(f, "S-0000000000200003", 0)->lid, 16);
	assert_int_equal(port_of(f, "S-0000000000200003", 0)->lmc, 0);
	assert_int_equal(port_of(f, "S-0000000000200004", 0)->lid, 17);
	check_lids_unique(f);
	check_all_routes(f);
	sim_fabric_free(f);
}

/*
 * LIDs the file leaves out: the lowest free ones in file order, aligned to
 * the LMC (the largest the file gives a CA: 2 here), around the file's.
 */
static void test_assigned_lids(void **state)
{
	struct sim_fabric *f = parse_ok(
		"Switch 8 \"S1\" lid 5\n"			/* ibsim's header words */
		"[1] \"H1\"[1]\n"
		"[2] \"H2\"[1] # \"h2\" lid 8 4xSDR\n"
		"[3] \"H3\"[1]\n"
		"[4] \"S2\"[1]\n"
		"\n"
		"Switch 8 \"S2\" # \"s2\" base port 0 lid 1 lmc 0\n"
		"[1] \"S1\"[4]\n"
		"[2] \"H4\"[1]\n"
		"\n"
		"Hca 1 \"H1\"\n"
		"[1] \"S1\"[1]\n"
		"\n"
		"Hca 1 \"H2\"\n"
		"[1](100) \"S1\"[2] # lid 8 lmc 2 \"S1\" lid 5 4xSDR\n"
		"\n"
		"Hca 1 \"H3\"\n"
		"[1] \"S1\"[3]\n"
		"\n"
		"Hca 1 \"H4\"\n"
		"[1] \"S2\"[2]\n");

	(void)state;
	assert_int_equal(port_of(f, "S1", 0)->file_lid, 5);
	assert_int_equal(port_of(f, "H2", 1)->file_lid, 8);
	assert_int_equal(port_of(f, "H2", 1)->file_lmc, 2);
	bring_up(f, port_of(f, "H1", 1));
	/*
	 * Kept: S1 5, S2 1, H2 8-11.  Then in file order the lowest free blocks
	 * of 4: not 4-7 (S1 holds 5), so H1 12, H3 16, H4 20.
	 */
	assert_int_equal(port_of(f, "S1", 0)->lid, 5);
	assert_int_equal(port_of(f, "S2", 0)->lid, 1);
	assert_int_equal(port_of(f, "H2", 1)->lid, 8);
	assert_int_equal(port_of(f, "H1", 1)->lid, 12);
	assert_int_equal(port_of(f, "H1", 1)->lmc, 2);
	assert_int_equal(port_of(f, "H3", 1)->lid, 16);
	assert_int_equal(port_of(f, "H4", 1)->lid, 20);
	assert_int_equal(check_lids_unique(f), 2 + 4 * 4);
	check_all_routes(f);
	sim_fabric_free(f);

	/* The options' LMC overrides; switches stay at LMC 0 and fill the gaps. */
	f = parse_ok(sim_default_topology);
	{
		struct sim_subnet_options opt = { .lmc = 1 };
		struct umad_err errors = UMAD_ERR_INIT;

		assert_int_equal(sim_subnet_bring_up_with(f, port_of(f, "Hca1", 1), &opt, &errors), 0);
		assert_int_equal(errors.count, 0);
	}
	assert_int_equal(port_of(f, "Switch1", 0)->lid, 1);
	assert_int_equal(port_of(f, "Switch2", 0)->lid, 2);
	assert_int_equal(port_of(f, "Hca1", 1)->lid, 4);
	assert_int_equal(port_of(f, "Hca4", 1)->lid, 10);
	assert_int_equal(port_of(f, "Hca4", 1)->lmc, 1);
	check_lids_unique(f);
	check_all_routes(f);
	sim_fabric_free(f);
}

/* The file's LIDs that cannot all hold: refused with the lines that say so. */
static void test_file_lid_errors(void **state)
{
	static const char tail[] =
		"\n"
		"Hca 1 \"H1\"\n"
		"[1] \"S\"[1]\n"
		"\n"
		"Hca 1 \"H2\"\n"
		"[1] \"S\"[2]\n";
	char text[1024];

	(void)state;
	/* The switch's line and the CA's own disagree. */
	expect_error("Switch 4 \"S\"\n"
		     "[1] \"H1\"[1] # \"h1\" lid 4 4xSDR\n"
		     "\n"
		     "Hca 1 \"H1\"\n"
		     "[1] \"S\"[1] # lid 5 lmc 0 \"S\" lid 0 4xSDR\n",
		     "test.net:5: conflicting LIDs for \"H1\"[1]: 5 here, 4 at test.net:2");
	/* Two ports, one LID. */
	snprintf(text, sizeof(text), "Switch 4 \"S\"\n[1] \"H1\"[1] # \"h1\" lid 7 4xSDR\n"
		 "[2] \"H2\"[1] # \"h2\" lid 7 4xSDR\n%s", tail);
	expect_error(text, "test.net:3: LID 7 of \"H2\"[1]: LID 7 is already \"H1\"[1]'s (test.net:2)");
	/* Overlapping LMC ranges: H1 8-11, H2 10. */
	snprintf(text, sizeof(text), "Switch 4 \"S\"\n[1] \"H1\"[1]\n[2] \"H2\"[1] # \"h2\" lid 10 4xSDR\n"
		 "\nHca 1 \"H1\"\n[1] \"S\"[1] # lid 8 lmc 2 \"S\" lid 1 4xSDR\n"
		 "\nHca 1 \"H2\"\n[1] \"S\"[2]\n");
	expect_error(text, "LIDs 8..11 of \"H1\"[1]: LID 10 is already \"H2\"[1]'s (test.net:3)");
	/* A switch's LID against a CA's. */
	snprintf(text, sizeof(text), "Switch 4 \"S\" # \"s\" base port 0 lid 2 lmc 0\n"
		 "[1] \"H1\"[1] # \"h1\" lid 2 4xSDR\n[2] \"H2\"[1]\n%s", tail);
	expect_error(text, "LID 2 of \"H1\"[1]: LID 2 is already \"S\"[0]'s (test.net:1)");
	/* Not aligned to the LMC. */
	snprintf(text, sizeof(text), "Switch 4 \"S\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n"
		 "\nHca 1 \"H1\"\n[1] \"S\"[1] # lid 6 lmc 2 \"S\" lid 1 4xSDR\n"
		 "\nHca 1 \"H2\"\n[1] \"S\"[2]\n");
	expect_error(text, "test.net:6: LID 6 of \"H1\"[1] is not a multiple of 4, as its LMC 2 needs");
	/* Not unicast; the last LIDs are fine. */
	snprintf(text, sizeof(text), "Switch 4 \"S\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n"
		 "\nHca 1 \"H1\"\n[1] \"S\"[1] # lid 49024 lmc 7 \"S\" lid 49023 4xSDR\n"
		 "\nHca 1 \"H2\"\n[1] \"S\"[2]\n");
	{
		struct sim_fabric *f = parse_ok(text);

		assert_int_equal(port_of(f, "H1", 1)->file_lid, 49024);
		assert_int_equal(port_of(f, "H1", 1)->file_lmc, 7);
		assert_int_equal(port_of(f, "S", 0)->file_lid, 49023);
		sim_fabric_free(f);
	}
	snprintf(text, sizeof(text), "Switch 4 \"S\" lid 49152\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n%s", tail);
	expect_error(text, "test.net:1: lid 49152 is not a unicast LID (1..49151)");
	snprintf(text, sizeof(text), "Switch 4 \"S\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n"
		 "\nHca 1 \"H1\"\n[1] \"S\"[1] # lid 8 lmc 9 \"S\" lid 1 4xSDR\n"
		 "\nHca 1 \"H2\"\n[1] \"S\"[2]\n");
	expect_error(text, "test.net:6: lmc 9 out of range 0..7");
	/* A base port 0 has LMC 0; an enhanced one may have more. */
	snprintf(text, sizeof(text), "Switch 4 \"S\" lid 4 lmc 1\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n%s", tail);
	expect_error(text, "test.net:1: \"S\"[0] has LMC 1, but a switch's base port 0 has LMC 0");
	snprintf(text, sizeof(text), "Switch 4 \"S\" enhanced port 0 lid 4 lmc 1\n[1] \"H1\"[1]\n"
		 "[2] \"H2\"[1]\n%s", tail);
	{
		struct sim_fabric *f = parse_ok(text);

		assert_int_equal(port_of(f, "S", 0)->file_lid, 4);
		assert_int_equal(port_of(f, "S", 0)->file_lmc, 1);
		sim_fabric_free(f);
	}
	/* Words the header does not know are still refused. */
	expect_error("Switch 4 \"S\" lid\n", "test.net:1: malformed node header: unexpected \"lid\" after the node id");
	expect_error("Switch 4 \"S\" color red\n", "unexpected \"color red\" after the node id");
}

/* More LIDs than the unicast range holds: -ENOSPC, a message, and the fabric as it was. */
static void test_out_of_lids(void **state)
{
	struct sim_fabric *f = sim_fabric_new();
	struct sim_node *sw[2];
	struct sim_subnet_options opt = { .lmc = 7 };
	struct umad_err errors = UMAD_ERR_INIT;
	char name[32];
	unsigned i;

	(void)state;
	/* 2 switches of 254 ports, 400 CAs at LMC 7: 51,200 LIDs. */
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "S%u", i);
		sw[i] = sim_fabric_add_node(f, NODE_TYPE_SWITCH, name, 254);
		assert_non_null(sw[i]);
	}
	assert_int_equal(sim_fabric_link(&sw[0]->ports[254], &sw[1]->ports[254]), 0);
	for (i = 0; i < 400; i++) {
		struct sim_node *ca;

		snprintf(name, sizeof(name), "H%u", i);
		ca = sim_fabric_add_node(f, NODE_TYPE_CA, name, 1);
		assert_non_null(ca);
		assert_int_equal(sim_fabric_link(&ca->ports[1], &sw[i % 2]->ports[1 + i / 2]), 0);
	}
	assert_int_equal(sim_subnet_bring_up_with(f, &f->nodes[2]->ports[1], &opt, &errors), -ENOSPC);
	assert_true(errors.count > 0);
	assert_non_null(strstr(umad_err_text(&errors), "the unicast range (1..49151)"));
	umad_err_clear(&errors);
	for (i = 0; i < f->n_nodes; i++) {
		assert_int_equal(sim_mgmt_port(f->nodes[i], 1)->lid, 0);
		assert_int_equal(f->nodes[i]->ports[1].state, PORT_STATE_INIT);
		assert_int_equal(f->nodes[i]->sminfo.state, 0);
	}
	assert_null(sw[0]->sw->lft);
	/* At LMC 6 they fit: 25,600 LIDs. */
	opt.lmc = 6;
	assert_int_equal(sim_subnet_bring_up_with(f, &f->nodes[2]->ports[1], &opt, &errors), 0);
	assert_int_equal(errors.count, 0);
	assert_int_equal(check_lids_unique(f), 2 + 400 * 64);
	/* A switch's external port cannot run the SM. */
	assert_int_equal(sim_subnet_bring_up(f, &sw[0]->ports[1], &errors), -EINVAL);
	assert_true(errors.count > 0);
	umad_err_clear(&errors);
	sim_fabric_free(f);
}

/* Shortest paths from every HCA to every LID, on fat trees and the default fabric. */
static void test_min_hop_routes(void **state)
{
	struct sim_fabric *f;
	char name[16];
	unsigned i;

	(void)state;
	f = fat_tree_fabric(8, 2);
	bring_up(f, port_of(f, "H1", 1));
	assert_int_equal(check_lids_unique(f), 12 + 32);
	check_ports_up(f, port_of(f, "H1", 1)->lid);
	check_all_routes(f);
	sim_fabric_free(f);

	f = fat_tree_fabric(4, 3);
	/* The SM on a core switch this time. */
	bring_up(f, port_of(f, "C1_1", 0));
	assert_int_equal(check_lids_unique(f), 20 + 16);
	check_ports_up(f, port_of(f, "C1_1", 0)->lid);
	assert_true(port_of(f, "C1_1", 0)->capmask & PORT_CAP_IS_SM);
	assert_int_equal(node(f, "C1_1")->sminfo.state, SM_STATE_MASTER_VALUE);
	for (i = 1; i <= 16; i++) {
		snprintf(name, sizeof(name), "H%u", i);
		assert_int_not_equal(port_of(f, name, 1)->lid, 0);
	}
	check_all_routes(f);
	sim_fabric_free(f);

	/* With LMC 2 every LID of every port is routed. */
	f = fat_tree_fabric(4, 3);
	{
		struct sim_subnet_options opt = { .lmc = 2 };

		assert_int_equal(sim_subnet_bring_up_with(f, port_of(f, "H16", 1), &opt, NULL), 0);
	}
	assert_int_equal(check_lids_unique(f), 20 + 16 * 4);
	check_all_routes(f);
	/* The 4 LIDs of H16 leave H1's edge switch by both uplinks. */
	{
		struct sim_switch *e = node(f, "E1_1")->sw;
		uint16_t lid = port_of(f, "H16", 1)->lid;
		unsigned used[5] = { 0 };

		for (i = 0; i < 4; i++)
			used[sim_switch_lft_get(e, (uint16_t)(lid + i))]++;
		assert_int_equal(used[3], 2);
		assert_int_equal(used[4], 2);
	}
	sim_fabric_free(f);
}

/* Equal-cost ports share the LIDs: each carries some, none more than one above another. */
static void test_balancing(void **state)
{
	struct sim_fabric *f = fat_tree_fabric(8, 2);
	char name[16];
	unsigned l, p, lid;

	(void)state;
	bring_up(f, port_of(f, "H1", 1));
	for (l = 1; l <= 8; l++) {
		struct sim_switch *sw;
		unsigned count[9] = { 0 }, lo = UINT32_MAX, hi = 0;

		snprintf(name, sizeof(name), "L%u", l);
		sw = node(f, name)->sw;
		for (lid = 1; lid <= sw->lft_top; lid++) {
			unsigned egress = sim_switch_lft_get(sw, (uint16_t)lid);

			assert_int_not_equal(egress, SIM_LFT_NO_ROUTE);
			count[egress]++;
		}
		/* Ports 5-8 go up to the spines: LIDs of the other 7 leaves and the 4 spines. */
		for (p = 5; p <= 8; p++) {
			lo = count[p] < lo ? count[p] : lo;
			hi = count[p] > hi ? count[p] : hi;
		}
		assert_int_equal(count[5] + count[6] + count[7] + count[8], 7 * 5 + 4);
		assert_true(lo >= 9);
		assert_true(hi - lo <= 1);
		/* Its own CAs straight down, its own LID to port 0. */
		for (p = 1; p <= 4; p++)
			assert_int_equal(count[p], 1);
		assert_int_equal(count[0], 1);
	}
	sim_fabric_free(f);

	/* Parallel links (the default fabric's two between the switches) both carry LIDs. */
	f = parse_ok(sim_default_topology);
	bring_up(f, port_of(f, "Hca1", 1));
	{
		struct sim_switch *sw = node(f, "Switch1")->sw;
		unsigned count[9] = { 0 };

		for (lid = 1; lid <= sw->lft_top; lid++)
			count[sim_switch_lft_get(sw, (uint16_t)lid)]++;
		/* Switch2, Hca3, Hca4 over ports 7 and 8. */
		assert_int_equal(count[7] + count[8], 3);
		assert_true(count[7] >= 1 && count[8] >= 1);
	}
	sim_fabric_free(f);
}

/* A link down: the routes go around it; back up: the resweep brings it into use again. */
static void test_reroute(void **state)
{
	struct sim_fabric *f = fat_tree_fabric(8, 2);
	struct sim_port *up = port_of(f, "L1", 5), *far = up->peer;
	struct sim_switch *l1 = node(f, "L1")->sw;
	unsigned lid, uses = 0;

	(void)state;
	bring_up(f, port_of(f, "H1", 1));
	for (lid = 1; lid <= l1->lft_top; lid++)
		uses += sim_switch_lft_get(l1, (uint16_t)lid) == 5;
	assert_true(uses > 0);
	/* Pull the cable between L1 and S1. */
	sim_port_cable(up, 0, NULL);
	assert_int_equal(sim_subnet_reroute(f), 0);
	for (lid = 1; lid <= l1->lft_top; lid++)
		assert_int_not_equal(sim_switch_lft_get(l1, (uint16_t)lid), 5);
	/* Nobody sends to L1 through S1 either. */
	assert_int_not_equal(sim_switch_lft_get(far->node->sw, port_of(f, "H1", 1)->lid), far->num);
	check_all_routes(f);

	/* Plugged back it trains to Init; the resweep makes it Active and uses it again. */
	sim_port_cable(up, 1, far);
	assert_int_equal(up->state, PORT_STATE_INIT);
	assert_int_equal(sim_subnet_reroute(f), 0);
	assert_int_equal(up->state, PORT_STATE_ACTIVE);
	assert_int_equal(far->state, PORT_STATE_ACTIVE);
	uses = 0;
	for (lid = 1; lid <= l1->lft_top; lid++)
		uses += sim_switch_lft_get(l1, (uint16_t)lid) == 5;
	assert_true(uses > 0);
	check_all_routes(f);
	sim_fabric_free(f);

	/* A port taken Down by an SM's Set trains to Init again: not routed until the resweep. */
	f = parse_ok(sim_default_topology);
	bring_up(f, port_of(f, "Hca1", 1));
	assert_int_equal(sim_port_set_state(port_of(f, "Switch1", 7), PORT_STATE_DOWN), 1);
	assert_int_equal(port_of(f, "Switch1", 7)->state, PORT_STATE_INIT);
	/* Without a resweep: reroute only; keep the SM from configuring by looking. */
	{
		struct sim_switch *sw = node(f, "Switch1")->sw;
		uint8_t state = node(f, "Hca1")->sminfo.state;

		node(f, "Hca1")->sminfo.state = 0;	/* no master: routes only */
		assert_null(sim_subnet_master(f));
		assert_int_equal(sim_subnet_reroute(f), 0);
		for (lid = 1; lid <= sw->lft_top; lid++)
			assert_int_not_equal(sim_switch_lft_get(sw, (uint16_t)lid), 7);
		assert_int_equal(port_of(f, "Switch1", 7)->state, PORT_STATE_INIT);
		node(f, "Hca1")->sminfo.state = state;
		assert_int_equal(sim_subnet_reroute(f), 0);
		assert_int_equal(port_of(f, "Switch1", 7)->state, PORT_STATE_ACTIVE);
	}
	check_all_routes(f);

	/* What an SM changed since in ports it configured stays: a resweep configures what is new. */
	port_of(f, "Switch1", 1)->hoq_life = 5;
	assert_int_equal(sim_subnet_reroute(f), 0);
	assert_int_equal(port_of(f, "Switch1", 1)->hoq_life, 5);

	/* LIDs an SM changed since are kept by the resweep, and routed. */
	{
		struct sim_port *h3 = port_of(f, "Hca3", 1);
		uint16_t old = h3->lid;

		h3->lid = 100;
		assert_int_equal(sim_fabric_lid_changed(f, h3, old, 0), 0);
		assert_int_equal(sim_subnet_reroute(f), 0);
		assert_int_equal(h3->lid, 100);
		assert_int_equal(node(f, "Switch2")->sw->lft_top, 100);
		assert_int_equal(sim_switch_lft_get(node(f, "Switch2")->sw, 100), 1);
		assert_int_equal(sim_switch_lft_get(node(f, "Switch2")->sw, old), SIM_LFT_NO_ROUTE);
		check_all_routes(f);
	}

	/* A CA port cabled after bring-up gets a LID of its own on the resweep; the others keep theirs. */
	{
		uint16_t before = port_of(f, "Hca4", 1)->lid;

		sim_port_cable(port_of(f, "Hca2", 2), 1, port_of(f, "Switch2", 3));
		assert_int_equal(sim_subnet_reroute(f), 0);
		/* The lowest free LID: Hca3's old one. */
		assert_int_equal(port_of(f, "Hca2", 2)->lid, 5);
		assert_int_equal(port_of(f, "Hca2", 2)->state, PORT_STATE_ACTIVE);
		assert_int_equal(port_of(f, "Hca2", 2)->sm_lid, 3);
		assert_int_equal(port_of(f, "Hca4", 1)->lid, before);
		assert_int_equal(port_of(f, "Hca3", 1)->lid, 100);
		check_lids_unique(f);
		check_all_routes(f);
	}
	sim_fabric_free(f);

	/*
	 * A switch first reached by the resweep: its port 0, Active from
	 * power-on, is configured all the same (a LID, the SM's LID).
	 */
	f = parse_ok(sim_default_topology);
	sim_port_cable(port_of(f, "Switch1", 7), 0, NULL);
	sim_port_cable(port_of(f, "Switch1", 8), 0, NULL);
	bring_up(f, port_of(f, "Hca1", 1));
	assert_int_equal(port_of(f, "Switch2", 0)->lid, 0);
	assert_int_equal(port_of(f, "Switch2", 0)->state, PORT_STATE_ACTIVE);
	sim_port_cable(port_of(f, "Switch1", 7), 1, port_of(f, "Switch2", 7));
	assert_int_equal(sim_subnet_reroute(f), 0);
	assert_int_not_equal(port_of(f, "Switch2", 0)->lid, 0);
	assert_int_equal(port_of(f, "Switch2", 0)->sm_lid, port_of(f, "Hca1", 1)->lid);
	assert_int_equal(port_of(f, "Switch2", 0)->subnet_timeout, port_of(f, "Hca1", 1)->subnet_timeout);
	check_lids_unique(f);
	check_all_routes(f);
	sim_fabric_free(f);
}

/*
 * Flood a multicast packet from member `from` along the MFTs: how many
 * copies each port of the fabric receives (counted per port index: node
 * index * 256 + port; a switch's own copy at port 0).
 */
static void flood(struct sim_port *from, uint16_t mlid, unsigned *got)
{
	struct { struct sim_node *n; unsigned in; } queue[4096];
	size_t head = 0, tail = 0, steps = 0;
	unsigned entry = mlid - LID_MCAST_START, p;

	if (from->node->type == NODE_TYPE_SWITCH) {
		queue[tail].n = from->node;
		queue[tail++].in = 0;
	} else {
		assert_true(sim_port_link_up(from));
		queue[tail].n = from->peer->node;
		queue[tail++].in = from->peer->num;
	}
	while (head < tail) {
		struct sim_node *n = queue[head].n;
		unsigned in = queue[head++].in;

		assert_true(++steps < 4096);	/* no loop */
		if (n->type != NODE_TYPE_SWITCH) {
			got[n->index * 256 + in]++;
			continue;
		}
		if (!n->sw->mft)
			continue;
		for (p = 0; p <= n->num_ports; p++) {
			if (p == in || !(n->sw->mft[entry][p / 16] >> (p % 16) & 1))
				continue;
			if (p == 0) {
				if (in != 0)
					got[n->index * 256]++;
				continue;
			}
			assert_true(sim_port_link_up(&n->ports[p]));
			queue[tail].n = n->ports[p].peer->node;
			queue[tail++].in = n->ports[p].peer->num;
		}
	}
}

static void test_multicast(void **state)
{
	struct sim_fabric *f = fat_tree_fabric(4, 3);
	static const char *const names[] = { "H1", "H2", "H6", "H11", "H16" };
	struct sim_port *members[7];
	unsigned *got = calloc(f->n_nodes * 256, sizeof(*got));
	uint16_t mlid = LID_MCAST_START + 5;
	size_t i, j, k, n = 0;

	(void)state;
	bring_up(f, port_of(f, "H3", 1));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		members[n++] = port_of(f, names[i], 1);
	members[n++] = port_of(f, "A3_2", 0);	/* a switch may be a member too */
	assert_int_equal(sim_subnet_route_mcast(f, mlid, members, n), 0);
	for (i = 0; i < n; i++) {
		memset(got, 0, f->n_nodes * 256 * sizeof(*got));
		flood(members[i], mlid, got);
		for (k = 0; k < f->n_nodes * 256; k++) {
			unsigned want = 0;

			for (j = 0; j < n; j++)
				if (j != i && k == members[j]->node->index * 256 + members[j]->num)
					want = 1;
			if (got[k] != want)
				fail_msg("from %s[%u]: %s[%zu] got %u copies, expected %u",
					 members[i]->node->name, members[i]->num,
					 f->nodes[k / 256]->name, k % 256, got[k], want);
		}
	}
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->sw && f->nodes[i]->sw->mft)
			assert_true(f->nodes[i]->sw->mft_top >= mlid);
	/* The same members in another order: the same tables. */
	{
		struct sim_fabric *g = fat_tree_fabric(4, 3);
		struct sim_port *rev[6];

		bring_up(g, port_of(g, "H3", 1));
		for (i = 0; i < n; i++)
			rev[n - 1 - i] = &node(g, members[i]->node->name)->ports[members[i]->num];
		assert_int_equal(sim_subnet_route_mcast(g, mlid, rev, n), 0);
		for (i = 0; i < f->n_nodes; i++) {
			struct sim_switch *a = f->nodes[i]->sw, *b = g->nodes[i]->sw;

			if (!a)
				continue;
			if (!a->mft || !b->mft) {
				assert_true(!a->mft && !b->mft);
				continue;
			}
			assert_memory_equal(a->mft[mlid - LID_MCAST_START], b->mft[mlid - LID_MCAST_START],
					    sizeof(a->mft[0]));
		}
		sim_fabric_free(g);
	}
	/* Errors change nothing: a bad MLID, a switch's external port, a member without a link. */
	assert_int_equal(sim_subnet_route_mcast(f, LID_MCAST_START - 1, members, n), -EINVAL);
	assert_int_equal(sim_subnet_route_mcast(f, LID_MCAST_START + SIM_MFT_CAP, members, n), -EINVAL);
	members[n] = port_of(f, "E1_1", 1);
	assert_int_equal(sim_subnet_route_mcast(f, mlid + 1, members, n + 1), -EINVAL);
	sim_port_cable(port_of(f, "H16", 1), 0, NULL);
	assert_int_equal(sim_subnet_route_mcast(f, mlid + 1, members, n), -ENETUNREACH);
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->sw && f->nodes[i]->sw->mft)
			for (j = 0; j < SIM_MFT_POSITIONS; j++)
				assert_int_equal(f->nodes[i]->sw->mft[mlid + 1 - LID_MCAST_START][j], 0);
	/* No members: the entry is cleared everywhere. */
	assert_int_equal(sim_subnet_route_mcast(f, mlid, NULL, 0), 0);
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->sw && f->nodes[i]->sw->mft)
			for (j = 0; j < SIM_MFT_POSITIONS; j++)
				assert_int_equal(f->nodes[i]->sw->mft[mlid - LID_MCAST_START][j], 0);
	free(got);
	sim_fabric_free(f);
}

/* The same file twice: the same LIDs, states and tables. */
static void test_deterministic(void **state)
{
	struct sim_fabric *a = fat_tree_fabric(6, 3), *b = fat_tree_fabric(6, 3);
	size_t i;
	unsigned p;

	(void)state;
	bring_up(a, port_of(a, "H7", 1));
	bring_up(b, port_of(b, "H7", 1));
	assert_int_equal(a->n_nodes, b->n_nodes);
	for (i = 0; i < a->n_nodes; i++) {
		struct sim_node *x = a->nodes[i], *y = b->nodes[i];

		for (p = 0; p <= x->num_ports; p++) {
			assert_int_equal(x->ports[p].lid, y->ports[p].lid);
			assert_int_equal(x->ports[p].lmc, y->ports[p].lmc);
			assert_int_equal(x->ports[p].state, y->ports[p].state);
			assert_int_equal(x->ports[p].sl2vl, y->ports[p].sl2vl);
		}
		if (x->sw) {
			assert_int_equal(x->sw->lft_top, y->sw->lft_top);
			assert_int_equal(x->sw->lft_len, y->sw->lft_len);
			assert_memory_equal(x->sw->lft, y->sw->lft, x->sw->lft_len);
		}
	}
	/* And bringing one up again changes nothing. */
	bring_up(a, port_of(a, "H7", 1));
	for (i = 0; i < a->n_nodes; i++)
		if (a->nodes[i]->sw)
			assert_memory_equal(a->nodes[i]->sw->lft, b->nodes[i]->sw->lft,
					    a->nodes[i]->sw->lft_len);
	check_all_routes(a);
	sim_fabric_free(a);
	sim_fabric_free(b);
}

/* SL2VL, VL arbitration when asked for, P_Keys, switch port values. */
static void test_port_values(void **state)
{
	struct sim_fabric *f = parse_ok(sim_default_topology);
	struct sim_subnet_options opt = { .lmc = -1, .sm_sl = 1, .sm_priority = 5, .vl_arb = 1 };
	struct sim_port *sw_to_ca = port_of(f, "Switch1", 1), *sw_to_sw = port_of(f, "Switch1", 7);
	unsigned sl;

	(void)state;
	/* An SM had set P_Keys before: a fresh bring-up leaves the default table. */
	port_of(f, "Hca1", 1)->pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	assert_int_equal(sim_subnet_bring_up_with(f, port_of(f, "Hca1", 1), &opt, NULL), 0);
	assert_null(port_of(f, "Hca1", 1)->pkeys);
	assert_int_equal(sim_port_pkey(port_of(f, "Hca1", 1), 0), PKEY_DEFAULT);
	assert_int_equal(port_of(f, "Hca3", 1)->sm_sl, 1);
	assert_int_equal(port_of(f, "Switch2", 0)->sm_sl, 1);
	assert_int_equal(node(f, "Hca1")->sminfo.priority, 5);
	/* VL0-7 operational: SL i on VL i % 8. */
	for (sl = 0; sl < 16; sl++)
		assert_int_equal(sim_sl2vl_vl(port_of(f, "Hca2", 1)->sl2vl, sl), sl % 8);
	assert_non_null(sw_to_sw->vlarb);
	assert_int_equal(sw_to_sw->vlarb[0][3][0], 3);
	assert_int_equal(sw_to_sw->vlarb[0][3][1], 64);
	assert_int_equal(sw_to_sw->vlarb[0][8][1], 0);	/* the low table holds 8 entries */
	assert_int_equal(sw_to_sw->vlarb[2][0][1], 0);	/* high-priority table empty */
	assert_null(port_of(f, "Switch1", 0)->vlarb);	/* base port 0: none */
	assert_int_equal(sw_to_ca->hoq_life, 16);
	assert_int_equal(sw_to_sw->hoq_life, 18);
	assert_int_equal(sw_to_ca->partition_enforcement, 0xc);
	assert_int_equal(sw_to_sw->partition_enforcement, 0);
	sim_fabric_free(f);

	/* Fewer VLs at one end: both run the smaller set, and SL2VL follows. */
	f = parse_ok(sim_default_topology);
	port_of(f, "Hca3", 1)->vl_cap = 2;	/* VL0-1 */
	/* An SM had given one input port a table of its own: the bring-up sets every one. */
	assert_int_equal(sim_port_sl2vl_set(port_of(f, "Switch2", 1), 5, 0), 0);
	assert_non_null(port_of(f, "Switch2", 1)->sl2vl_in);
	bring_up(f, port_of(f, "Hca1", 1));
	assert_int_equal(port_of(f, "Hca3", 1)->op_vls, 2);
	assert_int_equal(port_of(f, "Switch2", 1)->op_vls, 2);
	for (sl = 0; sl < 16; sl++)
		assert_int_equal(sim_sl2vl_vl(sim_port_sl2vl(port_of(f, "Switch2", 1), 5), sl), sl % 2);
	/* Without the option no VL arbitration table is written. */
	assert_null(port_of(f, "Switch2", 1)->vlarb);
	sim_fabric_free(f);
}

/* The LFT holds whole blocks up to the highest written; the SMA grows it and reads past it. */
static void test_lft_blocks(void **state)
{
	struct sim_fabric *f = parse_ok(sim_default_topology);
	struct sim_node *sw = node(f, "Switch1");
	uint8_t mad[MAD_SIZE];
	unsigned i;

	(void)state;
	bring_up(f, port_of(f, "Hca1", 1));
	assert_int_equal(sw->sw->lft_len, LFT_PER_BLOCK);
	/* LinearForwardingTable Set of block 100 (LIDs 6400-6463), directed to Switch1. */
	memset(mad, 0, sizeof(mad));
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_LID_ROUTED;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_SET;
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_LINEAR_FT);
	put_be32(mad + MAD_OFF_ATTR_MOD, 100);
	for (i = 0; i < SMP_DATA_SIZE; i++)
		mad[SMP_OFF_DATA + i] = (uint8_t)(i % 8 + 1);
	assert_int_equal(sim_sma_process(f, sw, 0, mad, NULL), 1);
	assert_int_equal(get_be16(mad + MAD_OFF_STATUS), 0);
	assert_int_equal(sw->sw->lft_len, 101 * LFT_PER_BLOCK);
	assert_int_equal(sim_switch_lft_get(sw->sw, 6400 + 9), 2);
	/* What bring-up wrote is still there; what lies between is no route. */
	assert_true(sim_switch_lft_get(sw->sw, 5) == 7 || sim_switch_lft_get(sw->sw, 5) == 8);
	assert_int_equal(sim_switch_lft_get(sw->sw, 100), SIM_LFT_NO_ROUTE);
	assert_int_equal(sim_switch_lft_get(sw->sw, 101 * LFT_PER_BLOCK), SIM_LFT_NO_ROUTE);
	/* A Get past the end answers "no route" and allocates nothing. */
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be32(mad + MAD_OFF_ATTR_MOD, 500);
	assert_int_equal(sim_sma_process(f, sw, 0, mad, NULL), 1);
	for (i = 0; i < SMP_DATA_SIZE; i++)
		assert_int_equal(mad[SMP_OFF_DATA + i], SIM_LFT_NO_ROUTE);
	assert_int_equal(sw->sw->lft_len, 101 * LFT_PER_BLOCK);
	/* The last block LinearFDBCap allows, and none beyond. */
	assert_int_equal(sim_switch_lft_reserve(sw->sw, SIM_LFT_CAP), 0);
	assert_int_equal(sw->sw->lft_len, SIM_LFT_CAP);
	assert_int_equal(sim_switch_lft_reserve(sw->sw, SIM_LFT_CAP + 1), -EINVAL);

	/* A table its user allocated whole, without lft_len, holds LinearFDBCap entries. */
	free(sw->sw->lft);
	sw->sw->lft = malloc(SIM_LFT_CAP);
	assert_non_null(sw->sw->lft);
	memset(sw->sw->lft, SIM_LFT_NO_ROUTE, SIM_LFT_CAP);
	sw->sw->lft_len = 0;
	sw->sw->lft[40000] = 3;
	assert_int_equal(sim_switch_lft_len(sw->sw), SIM_LFT_CAP);
	assert_int_equal(sim_switch_lft_get(sw->sw, 40000), 3);
	assert_int_equal(sim_switch_lft_reserve(sw->sw, 64), 0);
	assert_int_equal(sim_switch_lft_get(sw->sw, 40000), 3);
	put_be32(mad + MAD_OFF_ATTR_MOD, 40000 / SMP_DATA_SIZE);
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	assert_int_equal(sim_sma_process(f, sw, 0, mad, NULL), 1);
	assert_int_equal(mad[SMP_OFF_DATA + 40000 % SMP_DATA_SIZE], 3);
	/* Bring-up cuts it down to what LinearFDBTop needs. */
	bring_up(f, port_of(f, "Hca1", 1));
	assert_int_equal(sw->sw->lft_len, LFT_PER_BLOCK);
	assert_int_equal(sim_switch_lft_get(sw->sw, 40000), SIM_LFT_NO_ROUTE);
	sim_fabric_free(f);
}

/* A generated 3-level fat tree: every HCA a LID of its own, LinearFDBTop on every switch. */
static void test_generated_fat_tree(void **state)
{
	struct sim_fabric *f = fat_tree_fabric(12, 3);
	size_t i;

	(void)state;
	/* 12 pods of 6 edge and 6 aggregation switches, 36 cores, 432 HCAs. */
	assert_int_equal(f->n_switches, 180);
	assert_int_equal(f->n_cas, 432);
	bring_up(f, port_of(f, "H1", 1));
	assert_int_equal(check_lids_unique(f), 180 + 432);
	for (i = 0; i < f->n_nodes; i++) {
		if (!f->nodes[i]->sw)
			continue;
		assert_int_equal(f->nodes[i]->sw->lft_top, 612);
		assert_int_equal(f->nodes[i]->sw->lft_len, 640);
	}
	check_ports_up(f, 181);
	check_all_routes(f);
	sim_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_fabric),
		cmocka_unit_test(test_file_lids_kept),
		cmocka_unit_test(test_assigned_lids),
		cmocka_unit_test(test_file_lid_errors),
		cmocka_unit_test(test_out_of_lids),
		cmocka_unit_test(test_min_hop_routes),
		cmocka_unit_test(test_balancing),
		cmocka_unit_test(test_reroute),
		cmocka_unit_test(test_multicast),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_port_values),
		cmocka_unit_test(test_lft_blocks),
		cmocka_unit_test(test_generated_fat_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
