/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The live fabric described (simfabric/describe.h): the growing text;
 * show's lines, its filter and the counters, drops and lost MADs it
 * reports; JSON that a strict reader accepts, strings escaped; dump in
 * ibnetdiscover's format loaded back by the topology reader into the same
 * fabric (default, widths and speeds of every kind, LMCs, routers, an
 * enhanced port 0, nodes discovery does not reach, ibsim's examples and
 * the topology fuzz corpus when present, fat trees), with ibnetdiscover's
 * node order, and links that are down left out; Graphviz with a node per
 * node and an edge per cable.
 *
 * Also a helper for tests/describe_tools.sh:
 *   test_describe --print show|json|dump|dot TOPOLOGY|- [none]
 *   test_describe --roundtrip TOPOLOGY|-
 * (the fabric as the built-in SM brings it up, or as the file leaves it with "none").
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/describe.h"
#include "simfabric/fabric.h"
#include "simfabric/net.h"
#include "simfabric/pma.h"
#include "simfabric/port_state.h"
#include "simfabric/subnet_up.h"
#include "simfabric/topology.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif
#define IBSIM_EXAMPLES "/usr/share/doc/ibsim-utils/net-examples"

/* --- fabrics ---------------------------------------------------------------------- */

static struct sim_fabric *parse_ok(const char *text)
{
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse(text, "test.net", &errors);

	if (!f)
		fail_msg("unexpected errors:\n%s", umad_err_text(&errors));
	assert_int_equal(errors.count, 0);
	return f;
}

static void bring_up(struct sim_fabric *f)
{
	struct umad_err errors = UMAD_ERR_INIT;
	int r = sim_subnet_bring_up(f, sim_subnet_sm_site(f), &errors);

	if (r < 0)
		fail_msg("bring-up: %d %s", r, umad_err_text(&errors));
	assert_int_equal(errors.count, 0);
}

static struct sim_fabric *default_up(void)
{
	struct sim_fabric *f = parse_ok(sim_default_topology);

	bring_up(f);
	return f;
}

static struct sim_node *node(const struct sim_fabric *f, const char *name)
{
	struct sim_node *n = sim_fabric_find(f, name);

	if (!n)
		fail_msg("no node %s", name);
	return n;
}

/* Every width, speed and extended speed; LMC 2 from the file; a router pair; an enhanced port 0. */
static const char rates_topology[] =
	"Switch 8 \"sw1\" enhanced port 0\n"
	"[1] \"h1\"[1] # 4xQDR\n"
	"[2] \"h2\"[1] # 12xDDR\n"
	"[3] \"sw2\"[3] # 4xFDR\n"
	"[4] \"h3\"[2] # 1xEDR\n"
	"[5] \"rt1\"[1]\n"
	"\n"
	"Switch 4 \"sw2\" \"second switch\"\n"
	"[3] \"sw1\"[3] # 4xFDR\n"
	"[1] \"h4\"[1] # 8xHDR\n"
	"[2] \"h4\"[2] # 2xSDR\n"
	"\n"
	"Hca 2 \"h1\"\n"
	"[1] \"sw1\"[1] # lid 8 lmc 2 \"sw1\" lid 1 4xQDR\n"
	"\n"
	"Hca 1 \"h2\" \"desc with spaces\"\n"
	"[1] \"sw1\"[2] # 12xDDR\n"
	"\n"
	"Ca 2 \"h3\"\n"
	"[2] \"sw1\"[4] # 1xEDR\n"
	"\n"
	"Hca 2 \"h4\"\n"
	"[1] \"sw2\"[1] # 8xHDR\n"
	"[2] \"sw2\"[2] # 2xSDR\n"
	"\n"
	"Rt 2 \"rt1\"\n"
	"[1] \"sw1\"[5]\n"
	"[2] \"rt2\"[1]\n"
	"\n"
	"Rt 1 \"rt2\"\n"
	"[1] \"rt1\"[2]\n";

/* Two subnets joined by a CA with a port in each: discovery from "a" port 1 reaches only "b". */
static const char split_topology[] =
	"Hca 2 \"a\"\n"
	"[1] \"b\"[1]\n"
	"[2] \"sw\"[1]\n"
	"\n"
	"Hca 1 \"b\"\n"
	"[1] \"a\"[1]\n"
	"\n"
	"Switch 4 \"sw\"\n"
	"[1] \"a\"[2]\n"
	"[2] \"c\"[1]\n"
	"\n"
	"Hca 1 \"c\"\n"
	"[1] \"sw\"[2]\n";

/* A fat tree of k-port switches in ibsim's format, as scripts/gen-fattree writes it (2 levels). */
static char *fat_tree(unsigned k)
{
	struct sim_text t = SIM_TEXT_INIT;
	unsigned half = k / 2, l, h, u, s;

	for (l = 1; l <= k; l++) {
		sim_text_printf(&t, "Switch\t%u \"L%u\"\n", k, l);
		for (h = 1; h <= half; h++)
			sim_text_printf(&t, "[%u]\t\"H%u\"[1]\n", h, (l - 1) * half + h);
		for (u = 1; u <= half; u++)
			sim_text_printf(&t, "[%u]\t\"S%u\"[%u]\n", half + u, u, l);
		sim_text_printf(&t, "\n");
	}
	for (s = 1; s <= half; s++) {
		sim_text_printf(&t, "Switch\t%u \"S%u\"\n", k, s);
		for (l = 1; l <= k; l++)
			sim_text_printf(&t, "[%u]\t\"L%u\"[%u]\n", l, l, half + s);
		sim_text_printf(&t, "\n");
	}
	for (l = 1; l <= k; l++)
		for (h = 1; h <= half; h++)
			sim_text_printf(&t, "Hca\t1 \"H%u\"\n[1]\t\"L%u\"[%u]\n\n", (l - 1) * half + h, l, h);
	assert_int_equal(t.err, 0);
	return sim_text_steal(&t);
}

/* --- helpers ------------------------------------------------------------------------ */

static char *describe(int (*fn)(const struct sim_fabric *, const struct sim_describe_opts *,
				struct sim_text *),
		      const struct sim_fabric *f, const struct sim_describe_opts *o)
{
	struct sim_text t = SIM_TEXT_INIT;
	int r = fn(f, o, &t);

	if (r < 0)
		fail_msg("describe: %d", r);
	return sim_text_steal(&t);
}

static void expect_in(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("expected \"%s\" in:\n%s", what, text);
}

static void expect_not_in(const char *text, const char *what)
{
	if (strstr(text, what))
		fail_msg("did not expect \"%s\" in:\n%s", what, text);
}

static size_t count_of(const char *text, const char *what)
{
	size_t n = 0;

	for (; (text = strstr(text, what)) != NULL; text += strlen(what))
		n++;
	return n;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	static char buf[8][512];
	static unsigned next;
	char *b = buf[next++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, sizeof(buf[0]), f, ap);
	va_end(ap);
	return b;
}

/* --- a strict JSON reader (RFC 8259), to read the output back ------------------------ */

struct json {
	const char *s;
	size_t i, n;
	unsigned depth;
	char why[128];
};

static int json_value(struct json *j);

static void json_ws(struct json *j)
{
	while (j->i < j->n && strchr(" \t\r\n", j->s[j->i]))
		j->i++;
}

static int json_fail(struct json *j, const char *why)
{
	if (!j->why[0])
		snprintf(j->why, sizeof(j->why), "%s at byte %zu", why, j->i);
	return -1;
}

static int json_string(struct json *j)
{
	const unsigned char *u = (const unsigned char *)j->s;

	if (j->i >= j->n || j->s[j->i] != '"')
		return json_fail(j, "expected a string");
	for (j->i++; j->i < j->n; j->i++) {
		unsigned c = u[j->i];

		if (c == '"') {
			j->i++;
			return 0;
		}
		if (c < 0x20)
			return json_fail(j, "a control byte in a string");
		if (c == '\\') {
			c = j->i + 1 < j->n ? u[++j->i] : 0;
			if (c == 'u') {
				unsigned k;

				for (k = 1; k <= 4; k++)
					if (j->i + k >= j->n || !strchr("0123456789abcdefABCDEF", j->s[j->i + k]) ||
					    !j->s[j->i + k])
						return json_fail(j, "a bad \\u escape");
				j->i += 4;
			} else if (!c || !strchr("\"\\/bfnrt", (int)c)) {
				return json_fail(j, "a bad escape");
			}
		} else if (c >= 0x80) {
			unsigned len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0, k;

			if (!len || c > 0xf4)
				return json_fail(j, "a byte that is not UTF-8");
			for (k = 1; k < len; k++)
				if (j->i + k >= j->n || (u[j->i + k] & 0xc0) != 0x80)
					return json_fail(j, "a truncated UTF-8 sequence");
			j->i += len - 1;
		}
	}
	return json_fail(j, "an unterminated string");
}

static int json_number(struct json *j)
{
	size_t start = j->i;

	if (j->s[j->i] == '-')
		j->i++;
	if (j->i < j->n && j->s[j->i] == '0')
		j->i++;
	else if (j->i < j->n && j->s[j->i] >= '1' && j->s[j->i] <= '9')
		while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
			j->i++;
	else
		return json_fail(j, "a bad number");
	if (j->i < j->n && j->s[j->i] == '.') {
		j->i++;
		if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9')
			return json_fail(j, "a bad fraction");
		while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
			j->i++;
	}
	return j->i > start ? 0 : -1;
}

static int json_container(struct json *j, char close)
{
	int first = 1;

	if (++j->depth > 64)
		return json_fail(j, "nested too deep");
	j->i++;
	for (;;) {
		json_ws(j);
		if (j->i < j->n && j->s[j->i] == close && first) {
			j->i++;
			break;
		}
		if (close == '}') {
			if (json_string(j) < 0)
				return -1;
			json_ws(j);
			if (j->i >= j->n || j->s[j->i] != ':')
				return json_fail(j, "expected ':'");
			j->i++;
		}
		if (json_value(j) < 0)
			return -1;
		json_ws(j);
		first = 0;
		if (j->i < j->n && j->s[j->i] == ',') {
			j->i++;
			continue;
		}
		if (j->i < j->n && j->s[j->i] == close) {
			j->i++;
			break;
		}
		return json_fail(j, "expected ',' or the end of a container");
	}
	j->depth--;
	return 0;
}

static int json_value(struct json *j)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t k;

	json_ws(j);
	if (j->i >= j->n)
		return json_fail(j, "expected a value");
	switch (j->s[j->i]) {
	case '{': return json_container(j, '}');
	case '[': return json_container(j, ']');
	case '"': return json_string(j);
	default: break;
	}
	for (k = 0; k < 3; k++) {
		if (!strncmp(j->s + j->i, words[k], strlen(words[k]))) {
			j->i += strlen(words[k]);
			return 0;
		}
	}
	return json_number(j);
}

static void expect_json(const char *text)
{
	struct json j = { .s = text, .n = strlen(text) };

	if (json_value(&j) == 0) {
		json_ws(&j);
		if (j.i != j.n)
			json_fail(&j, "text after the document");
	}
	if (j.why[0])
		fail_msg("not JSON: %s:\n%s", j.why, text);
}

/* --- the round trip ------------------------------------------------------------------ */

static const struct sim_node *by_guid(const struct sim_fabric *f, uint64_t guid)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->node_guid == guid)
			return f->nodes[i];
	return NULL;
}

/*
 * Is b (loaded from a's dump) the fabric a is?  Nodes by GUID: type,
 * ports, description, system GUID, vendor and device; each link that is
 * up in a at the same far port, width, speed and extended speed, up in b;
 * no cable in b where a's link is down; port GUIDs; a's LIDs and LMCs as
 * b's file LIDs.  0, or -1 with why.
 */
static int same_fabric(const struct sim_fabric *a, const struct sim_fabric *b, char *why, size_t max)
{
	size_t i;
	unsigned p;

	if (a->n_nodes != b->n_nodes) {
		snprintf(why, max, "%zu nodes, then %zu", a->n_nodes, b->n_nodes);
		return -1;
	}
	for (i = 0; i < a->n_nodes; i++) {
		const struct sim_node *na = a->nodes[i], *nb = by_guid(b, na->node_guid);

		if (!nb) {
			snprintf(why, max, "node %s (0x%" PRIx64 ") is gone", na->name, na->node_guid);
			return -1;
		}
		if (na->type != nb->type || na->num_ports != nb->num_ports || strcmp(na->desc, nb->desc) ||
		    na->sys_guid != nb->sys_guid || na->vendor_id != nb->vendor_id ||
		    na->device_id != nb->device_id || na->revision != nb->revision ||
		    memcmp(&na->fw, &nb->fw, sizeof(na->fw)) ||
		    (na->sw && na->sw->enhanced_port0 != nb->sw->enhanced_port0)) {
			snprintf(why, max, "node %s differs (type, ports, desc \"%s\"/\"%s\", system GUID, "
				 "vendor, device, revision, firmware or port 0)", na->name, na->desc, nb->desc);
			return -1;
		}
		if (na->type == NODE_TYPE_SWITCH && na->ports[0].lid &&
		    (nb->ports[0].file_lid != na->ports[0].lid || nb->ports[0].file_lmc != na->ports[0].lmc)) {
			snprintf(why, max, "switch %s: LID %u lmc %u, then %u lmc %u", na->name,
				 na->ports[0].lid, na->ports[0].lmc, nb->ports[0].file_lid,
				 nb->ports[0].file_lmc);
			return -1;
		}
		for (p = 1; p <= na->num_ports; p++) {
			const struct sim_port *pa = &na->ports[p], *pb = &nb->ports[p];

			if (!sim_port_link_up(pa)) {
				if (pb->peer) {
					snprintf(why, max, "%s[%u]: down, then cabled", na->name, p);
					return -1;
				}
				continue;
			}
			if (!pb->peer || !sim_port_link_up(pb) ||
			    pb->peer->node->node_guid != pa->peer->node->node_guid ||
			    pb->peer->num != pa->peer->num) {
				snprintf(why, max, "%s[%u]: the link to %s[%u] is not the same", na->name, p,
					 pa->peer->node->name, pa->peer->num);
				return -1;
			}
			if (pa->width_active != pb->width_active || pa->speed_active != pb->speed_active ||
			    pa->ext_active != pb->ext_active || pa->mlnx_speed_active != pb->mlnx_speed_active) {
				snprintf(why, max, "%s[%u]: %s %s, then %s %s", na->name, p,
					 sim_width_name(pa->width_active), sim_speed_name(pa),
					 sim_width_name(pb->width_active), sim_speed_name(pb));
				return -1;
			}
			if (na->type == NODE_TYPE_SWITCH)
				continue;
			if (pa->guid != pb->guid) {
				snprintf(why, max, "%s[%u]: port GUID 0x%" PRIx64 ", then 0x%" PRIx64,
					 na->name, p, pa->guid, pb->guid);
				return -1;
			}
			if (pa->lid && (pb->file_lid != pa->lid || pb->file_lmc != pa->lmc)) {
				snprintf(why, max, "%s[%u]: LID %u lmc %u, then %u lmc %u", na->name, p,
					 pa->lid, pa->lmc, pb->file_lid, pb->file_lmc);
				return -1;
			}
		}
	}
	return 0;
}

/* The port a dump says it was initiated from, found in fabric b (NULL when none is). */
static const struct sim_port *dump_start(const char *dump, const struct sim_fabric *b)
{
	const char *at = strstr(dump, "# Initiated from node ");
	const struct sim_node *n;
	uint64_t node_guid, port_guid;
	unsigned p;

	if (!at || sscanf(at, "# Initiated from node %" SCNx64 " port %" SCNx64, &node_guid,
			  &port_guid) != 2)
		return NULL;
	n = by_guid(b, node_guid);
	if (!n)
		return NULL;
	if (n->type == NODE_TYPE_SWITCH)
		return &n->ports[0];
	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].guid == port_guid)
			return &n->ports[p];
	return NULL;
}

/*
 * Dump a, load the dump, compare; then, brought up again when a had LIDs
 * (the file keeps them), the reloaded fabric dumps the very same text from
 * the port the first dump started at.  0, or -1 with why.
 */
static int round_trip(const struct sim_fabric *a, char *why, size_t max)
{
	struct sim_text t1 = SIM_TEXT_INIT, t2 = SIM_TEXT_INIT;
	struct sim_describe_opts o = { 0 };
	struct sim_fabric *b;
	struct umad_err errors = UMAD_ERR_INIT;
	int r = -1, had_lids = 0;
	size_t i;

	for (i = 0; i < a->n_nodes; i++)
		had_lids |= a->nodes[i]->ports[a->nodes[i]->type == NODE_TYPE_SWITCH ? 0 : 1].lid != 0;
	if (sim_describe_dump(a, NULL, &t1) < 0) {
		snprintf(why, max, "dump failed");
		goto out;
	}
	b = sim_topology_parse(sim_text_str(&t1), "dump", &errors);
	if (!b) {
		snprintf(why, max, "the dump does not load:\n%s\n%s", umad_err_text(&errors), sim_text_str(&t1));
		goto out;
	}
	if (same_fabric(a, b, why, max) < 0)
		goto free_b;
	if (had_lids && sim_subnet_bring_up(b, sim_subnet_sm_site(b), &errors) < 0) {
		snprintf(why, max, "the reloaded fabric does not come up: %s", umad_err_text(&errors));
		goto free_b;
	}
	/* The default start is the first CA in file order, which the dump's order changed. */
	o.start = dump_start(sim_text_str(&t1), b);
	if (!o.start) {
		snprintf(why, max, "the dump's start port is not in the reloaded fabric");
		goto free_b;
	}
	if (sim_describe_dump(b, &o, &t2) < 0 || strcmp(sim_text_str(&t1), sim_text_str(&t2))) {
		snprintf(why, max, "the reloaded fabric dumps differently:\n%s\n---\n%s",
			 sim_text_str(&t1), sim_text_str(&t2));
		goto free_b;
	}
	r = 0;
free_b:
	sim_fabric_free(b);
out:
	umad_err_clear(&errors);
	sim_text_free(&t1);
	sim_text_free(&t2);
	return r;
}

static void expect_round_trip(const struct sim_fabric *f, const char *what)
{
	char why[8192];

	if (round_trip(f, why, sizeof(why)) < 0)
		fail_msg("%s: %s", what, why);
}

/* --- the text ---------------------------------------------------------------------- */

static void test_text(void **state)
{
	struct sim_text t = SIM_TEXT_INIT;
	char *s;
	int i;

	(void)state;
	assert_string_equal(sim_text_str(&t), "");
	/* Grows past its first room, keeps every byte. */
	for (i = 0; i < 1000; i++)
		assert_int_equal(sim_text_printf(&t, "%d,", i), 0);
	assert_int_equal(t.len, strlen(t.buf));
	assert_true(t.len > 256);
	assert_true(strncmp(t.buf, "0,1,2,", 6) == 0);
	assert_non_null(strstr(t.buf, ",998,999,"));
	assert_int_equal(sim_text_append(&t, "ab\0cd", 5), 0);
	assert_int_equal(t.buf[t.len - 3], '\0');
	sim_text_reset(&t);
	assert_string_equal(sim_text_str(&t), "");
	assert_int_equal(sim_text_printf(&t, "x%sy", "--"), 0);
	s = sim_text_steal(&t);
	assert_string_equal(s, "x--y");
	assert_null(t.buf);
	free(s);
	/* Stealing an empty text gives an empty string. */
	s = sim_text_steal(&t);
	assert_string_equal(s, "");
	free(s);
	/* An error sticks: later appends fail, and stealing gives nothing. */
	assert_int_equal(sim_text_printf(&t, "kept"), 0);
	t.err = -ENOMEM;
	assert_int_equal(sim_text_printf(&t, "more"), -ENOMEM);
	assert_int_equal(sim_text_append(&t, "more", 4), -ENOMEM);
	assert_string_equal(sim_text_str(&t), "kept");
	assert_null(sim_text_steal(&t));
	assert_null(t.buf);
	sim_text_free(&t);
}

/* --- show ------------------------------------------------------------------------------ */

static void test_show(void **state)
{
	struct sim_fabric *f = default_up();
	struct sim_node *sw1 = node(f, "Switch1"), *hca1 = node(f, "Hca1");
	struct sim_port *h = &hca1->ports[1];
	char *s = describe(sim_describe_show, f, NULL);
	const char *line;

	(void)state;
	expect_in(s, fmt("Fabric: %zu nodes (%zu switches, %zu CAs, %zu routers), %zu cables, "
			 "%zu links up, 0 failed\n", f->n_nodes, f->n_switches, f->n_cas, f->n_routers,
			 f->n_links, f->n_links));
	expect_in(s, fmt("Switch \"Switch1\" guid 0x%016" PRIx64 " lid %u lmc 0, base port 0, 8 ports\n",
			 sw1->node_guid, sw1->ports[0].lid));
	expect_in(s, fmt("CA \"Hca1\" guid 0x%016" PRIx64 ", 2 ports\n", hca1->node_guid));
	expect_in(s, fmt("  [1] Active/LinkUp 4X SDR lid %u lmc 0 guid 0x%016" PRIx64
			 " -> \"Switch1\"[1] lid %u\n", h->lid, h->guid, sw1->ports[0].lid));
	expect_in(s, fmt("  [1] Active/LinkUp 4X SDR -> \"Hca1\"[1] lid %u\n", h->lid));
	/* Ports without a cable only when asked for; no error lines on a clean fabric. */
	expect_not_in(s, "no cable");
	expect_not_in(s, "errors:");
	expect_not_in(s, "Lost MADs");
	/* One line per node, in file order. */
	line = strstr(s, "Switch \"Switch1\"");
	assert_non_null(line);
	assert_true(line < strstr(s, "Switch \"Switch2\""));
	assert_true(strstr(s, "Switch \"Switch2\"") < strstr(s, "CA \"Hca1\""));
	assert_int_equal(count_of(s, "\nCA "), f->n_cas);
	free(s);
	sim_fabric_free(f);
}

static void test_show_filter(void **state)
{
	struct sim_fabric *f = default_up();
	struct sim_node *hca3 = node(f, "Hca3");
	struct sim_describe_opts o = { .node = "Hca3" };
	struct sim_text t = SIM_TEXT_INIT;
	char *s;

	(void)state;
	s = describe(sim_describe_show, f, &o);
	expect_in(s, "CA \"Hca3\"");
	expect_not_in(s, "\"Hca1\"");
	expect_not_in(s, "Switch \"Switch2\"");	/* a neighbour shows as a peer only */
	expect_in(s, "-> \"Switch2\"[1]");
	free(s);
	/* By node GUID, by port GUID, with the ports that have no cable. */
	o.node = fmt("0x%" PRIx64, hca3->node_guid);
	o.all_ports = 1;
	s = describe(sim_describe_show, f, &o);
	expect_in(s, "CA \"Hca3\"");
	expect_in(s, fmt("  [2] Down/Polling guid 0x%016" PRIx64 " (no cable)\n", hca3->ports[2].guid));
	free(s);
	o.node = fmt("0x%" PRIx64, hca3->ports[1].guid);
	s = describe(sim_describe_show, f, &o);
	expect_in(s, "CA \"Hca3\"");
	assert_int_equal(count_of(s, "\nCA "), 1);
	free(s);
	/* Nothing by that name: -ENOENT, and nothing written. */
	o.node = "Hca9";
	assert_int_equal(sim_describe_show(f, &o, &t), -ENOENT);
	assert_int_equal(sim_describe_json(f, &o, &t), -ENOENT);
	assert_int_equal(sim_describe_dot(f, &o, &t), -ENOENT);
	o.node = "0x";
	assert_int_equal(sim_describe_show(f, &o, &t), -ENOENT);
	assert_string_equal(sim_text_str(&t), "");
	assert_int_equal(sim_describe_show(NULL, NULL, &t), -EINVAL);
	assert_int_equal(sim_describe_show(f, NULL, NULL), -EINVAL);
	sim_text_free(&t);
	sim_fabric_free(f);
}

/* Counters, drops and a failed link show; the lost MADs come from the net. */
static void test_show_faults(void **state)
{
	struct sim_fabric *f = default_up();
	struct sim_node *sw1 = node(f, "Switch1");
	struct sim_port *p7 = &sw1->ports[7];
	struct sim_link_fault lf = { 0 };
	struct sim_net net;
	struct sim_describe_opts o = { .net = &net, .node = "Switch1" };
	char *s;

	(void)state;
	memset(&net, 0, sizeof(net));
	net.f = f;
	net.lost_no_route = 3;
	net.lost_qkey = 2;
	net.traps_sent = 5;
	assert_int_equal(sim_pma_counter_add(p7, SIM_PMA_SYMBOL_ERRORS, 7), 0);
	assert_int_equal(sim_pma_counter_add(p7, SIM_PMA_LOOPING_ERRORS, 2), 0);	/* and PortRcvErrors */
	lf.drop_threshold = 1u << 30;	/* a quarter of the draws */
	lf.dropped = 9;
	p7->fault = &lf;
	sim_port_link_fail(&sw1->ports[8], 1);
	s = describe(sim_describe_show, f, &o);
	p7->fault = NULL;
	expect_in(s, "Lost MADs: 3 without a route, 0 refused by a P_Key, 2 by a Q_Key, 0 without a taker; "
		     "5 traps sent, 0 unrepressed\n");
	expect_in(s, "Fabric: 6 nodes (2 switches, 4 CAs, 0 routers), 6 cables, 5 links up, 1 failed\n");
	expect_in(s, fmt("  [7] Active/LinkUp 4X SDR -> \"Switch2\"[7] lid %u\n"
			 "      errors: SymbolErrorCounter 7, PortRcvErrors 2, PortLoopingErrors 2\n"
			 "      drops: rate 0.25, 9 dropped\n", node(f, "Switch2")->ports[0].lid));
	expect_in(s, fmt("  [8] Down/Polling -> \"Switch2\"[8] lid %u (link failed)\n",
			 node(f, "Switch2")->ports[0].lid));
	free(s);
	sim_fabric_free(f);
}

/* Descriptions with quotes, backslashes, control bytes and bytes that are not UTF-8. */
static const char odd_desc[] = "a \"q\" \\ b\x01\tc\xff\xc3\xa9";

static void test_escaping(void **state)
{
	struct sim_fabric *f = default_up();
	struct sim_node *hca2 = node(f, "Hca2");
	struct sim_describe_opts o = { 0 };
	struct sim_fabric *g;
	struct umad_err errors = UMAD_ERR_INIT;
	char *s;

	(void)state;
	snprintf(hca2->desc, sizeof(hca2->desc), "%s", odd_desc);
	s = describe(sim_describe_show, f, NULL);
	expect_in(s, "CA \"Hca2\" desc \"a \\\"q\\\" \\\\ b\\x01\\x09c\xff\xc3\xa9\" guid");
	free(s);
	s = describe(sim_describe_json, f, NULL);
	expect_json(s);
	expect_in(s, "\"desc\": \"a \\\"q\\\" \\\\ b\\u0001\\tc\\u00ff\xc3\xa9\"");
	free(s);
	s = describe(sim_describe_dot, f, NULL);
	expect_in(s, "label=\"Hca2\\na \\\"q\\\" \\\\ b??c?\xc3\xa9\\n0x");
	free(s);
	/* ibnetdiscover's format has no escapes: ' for ", ? for control bytes; it loads back. */
	s = describe(sim_describe_dump, f, &o);
	expect_in(s, "Ca\t2 \"H-0000000000100003\"\t\t# \"a 'q' \\ b??c\xff\xc3\xa9\"\n");
	g = sim_topology_parse(s, "dump", &errors);
	if (!g)
		fail_msg("%s", umad_err_text(&errors));
	assert_string_equal(node(g, "H-0000000000100003")->desc, "a 'q' \\ b??c\xff\xc3\xa9");
	sim_fabric_free(g);
	free(s);
	sim_fabric_free(f);
}

/* --- JSON ----------------------------------------------------------------------------- */

static void test_json(void **state)
{
	struct sim_fabric *f = default_up();
	struct sim_node *sw1 = node(f, "Switch1"), *hca1 = node(f, "Hca1");
	struct sim_net net;
	struct sim_describe_opts o = { .net = &net };
	char *s, *port;

	(void)state;
	memset(&net, 0, sizeof(net));
	net.lost_pkey = 4;
	assert_int_equal(sim_pma_counter_add(&hca1->ports[1], SIM_PMA_LINK_DOWNED, 3), 0);
	hca1->ports[1].xmit_pkts = 11;
	s = describe(sim_describe_json, f, &o);
	expect_json(s);
	expect_in(s, fmt("\"summary\": {\"nodes\": 6, \"switches\": 2, \"cas\": 4, \"routers\": 0, "
			 "\"cables\": %zu, \"links_up\": %zu, \"failed\": 0}", f->n_links, f->n_links));
	expect_in(s, "\"net\": {\"lost_no_route\": 0, \"lost_pkey\": 4,");
	expect_in(s, fmt("{\"type\": \"switch\", \"id\": \"Switch1\", \"desc\": \"Switch1\", "
			 "\"guid\": \"0x%016" PRIx64 "\", \"sys_guid\": \"0x%016" PRIx64 "\", "
			 "\"vendor_id\": 0, \"device_id\": 0, \"lid\": %u, \"lmc\": 0, \"num_ports\": 8, "
			 "\"enhanced_port0\": false,", sw1->node_guid, sw1->sys_guid, sw1->ports[0].lid));
	assert_int_equal(count_of(s, "{\"type\": "), f->n_nodes);
	/* Every port of every node: switches' port 0 too. */
	assert_int_equal(count_of(s, "{\"num\": "), 2 * 9 + 4 * 2);
	port = strstr(s, fmt("{\"num\": 1, \"guid\": \"0x%016" PRIx64 "\"", hca1->ports[1].guid));
	assert_non_null(port);
	expect_in(port, fmt("\"state\": \"Active\", \"phys_state\": \"LinkUp\", \"width\": \"4X\", "
			    "\"speed\": \"SDR\", \"lid\": %u, \"lmc\": 0, \"failed\": false, "
			    "\"peer\": {\"id\": \"Switch1\", \"guid\": \"0x%016" PRIx64 "\", "
			    "\"desc\": \"Switch1\", \"port\": 1}, \"counters\": {\"SymbolErrorCounter\": 0, "
			    "\"LinkErrorRecoveryCounter\": 0, \"LinkDownedCounter\": 3,",
			    hca1->ports[1].lid, sw1->node_guid));
	expect_in(port, "\"traffic\": {\"xmit_data\": 0, \"rcv_data\": 0, \"xmit_pkts\": 11,");
	expect_in(port, "\"drop\": null}");
	/* Port 2 has no cable. */
	expect_in(s, fmt("{\"num\": 2, \"guid\": \"0x%016" PRIx64 "\", \"state\": \"Down\", "
			 "\"phys_state\": \"Polling\", \"width\": null, \"speed\": null, \"lid\": 0, "
			 "\"lmc\": 0, \"failed\": false, \"peer\": null,", hca1->ports[2].guid));
	free(s);
	/* A filter keeps one node; the document stays whole. */
	o.node = "Switch2";
	o.net = NULL;
	s = describe(sim_describe_json, f, &o);
	expect_json(s);
	assert_int_equal(count_of(s, "{\"type\": "), 1);
	expect_not_in(s, "\"net\"");
	free(s);
	sim_fabric_free(f);
}

/* The whole rates fabric and an empty-handed one read back as JSON too. */
static void test_json_fabrics(void **state)
{
	struct sim_fabric *f = parse_ok(rates_topology);
	char *s;

	(void)state;
	s = describe(sim_describe_json, f, NULL);
	expect_json(s);
	expect_in(s, "\"width\": \"8X\", \"speed\": \"HDR\"");
	expect_in(s, "\"type\": \"router\"");
	expect_in(s, "\"enhanced_port0\": true");
	free(s);
	bring_up(f);
	s = describe(sim_describe_json, f, NULL);
	expect_json(s);
	free(s);
	sim_fabric_free(f);
}

/* --- dump ------------------------------------------------------------------------------ */

static void test_dump_format(void **state)
{
	struct sim_fabric *f = default_up();
	struct sim_node *sw1 = node(f, "Switch1"), *sw2 = node(f, "Switch2"), *hca1 = node(f, "Hca1");
	char *s = describe(sim_describe_dump, f, NULL);
	const char *sw1_at, *sw2_at, *hca1_at, *hca4_at;

	(void)state;
	assert_true(strncmp(s, "#\n# Topology file: ", 19) == 0);
	expect_in(s, fmt("# Initiated from node %016" PRIx64 " port %016" PRIx64 "\n\nvendid=0x0\n",
			 hca1->node_guid, hca1->ports[1].guid));
	expect_in(s, fmt("\nvendid=0x0\ndevid=0x0\nsysimgguid=0x%" PRIx64 "\nswitchguid=0x%" PRIx64
			 "(%" PRIx64 ")\nSwitch\t8 \"S-%016" PRIx64 "\"\t\t# \"Switch1\" base port 0 "
			 "lid %u lmc 0\n", sw1->sys_guid, sw1->node_guid, sw1->node_guid,
			 sw1->node_guid, sw1->ports[0].lid));
	expect_in(s, fmt("[1]\t\"H-%016" PRIx64 "\"[1](%" PRIx64 ") \t\t# \"Hca1\" lid %u 4xSDR\n",
			 hca1->node_guid, hca1->ports[1].guid, hca1->ports[1].lid));
	expect_in(s, fmt("[7]\t\"S-%016" PRIx64 "\"[7]\t\t# \"Switch2\" lid %u 4xSDR\n",
			 sw2->node_guid, sw2->ports[0].lid));
	expect_in(s, fmt("caguid=0x%" PRIx64 "\nCa\t2 \"H-%016" PRIx64 "\"\t\t# \"Hca1\"\n"
			 "[1](%" PRIx64 ") \t\"S-%016" PRIx64 "\"[1]\t\t# lid %u lmc 0 \"Switch1\" lid %u 4xSDR\n",
			 hca1->node_guid, hca1->node_guid, hca1->ports[1].guid, sw1->node_guid,
			 hca1->ports[1].lid, sw1->ports[0].lid));
	/* Ports without a link are not listed; no blank line at the end. */
	expect_not_in(s, "\n[2](");
	assert_int_not_equal(s[strlen(s) - 2], '\n');
	/* Switches, then CAs, each in the reverse of the order discovery from Hca1 finds them. */
	sw1_at = strstr(s, "# \"Switch1\" base");
	sw2_at = strstr(s, "# \"Switch2\" base");
	hca1_at = strstr(s, "\t\t# \"Hca1\"\n");
	hca4_at = strstr(s, "\t\t# \"Hca4\"\n");
	assert_true(sw2_at && sw1_at && hca4_at && hca1_at);
	assert_true(sw2_at < sw1_at && sw1_at < hca4_at && hca4_at < hca1_at);
	free(s);
	sim_fabric_free(f);
}

/* From a switch's port 0 the order changes; a filter or a foreign start port is refused. */
static void test_dump_start(void **state)
{
	struct sim_fabric *f = default_up(), *g = default_up();
	struct sim_node *sw2 = node(f, "Switch2");
	struct sim_describe_opts o = { .start = &sw2->ports[0] };
	struct sim_text t = SIM_TEXT_INIT;
	char *s;

	(void)state;
	s = describe(sim_describe_dump, f, &o);
	expect_in(s, fmt("# Initiated from node %016" PRIx64 " port %016" PRIx64 "\n", sw2->node_guid,
			 sw2->node_guid));
	/* Discovery from Switch2: Switch2, Hca3, Hca4, Switch1, Hca1, Hca2; listed backwards by type. */
	assert_true(strstr(s, "# \"Switch1\" base") < strstr(s, "# \"Switch2\" base"));
	assert_true(strstr(s, "\t\t# \"Hca2\"\n") < strstr(s, "\t\t# \"Hca1\"\n"));
	assert_true(strstr(s, "\t\t# \"Hca1\"\n") < strstr(s, "\t\t# \"Hca4\"\n"));
	assert_true(strstr(s, "\t\t# \"Hca4\"\n") < strstr(s, "\t\t# \"Hca3\"\n"));
	free(s);
	o.start = &node(g, "Switch2")->ports[0];
	assert_int_equal(sim_describe_dump(f, &o, &t), -EINVAL);
	o.start = &node(f, "Hca1")->ports[0];	/* a CA has no port 0 */
	assert_int_equal(sim_describe_dump(f, &o, &t), -EINVAL);
	o.start = NULL;
	o.node = "Hca1";
	assert_int_equal(sim_describe_dump(f, &o, &t), -EINVAL);
	assert_int_equal(sim_describe_dump(NULL, NULL, &t), -EINVAL);
	assert_string_equal(sim_text_str(&t), "");
	sim_text_free(&t);
	sim_fabric_free(g);
	sim_fabric_free(f);
}

static void test_round_trip_default(void **state)
{
	struct sim_fabric *f = parse_ok(sim_default_topology);

	(void)state;
	/* Before an SM (LIDs 0, ignored by the reader) and after. */
	expect_round_trip(f, "default, no SM");
	bring_up(f);
	expect_round_trip(f, "default");
	sim_fabric_free(f);
}

static void test_round_trip_rates(void **state)
{
	struct sim_fabric *f = parse_ok(rates_topology);
	struct sim_text t = SIM_TEXT_INIT;

	(void)state;
	bring_up(f);
	expect_round_trip(f, "widths, speeds, LMC, routers");
	assert_int_equal(sim_describe_dump(f, NULL, &t), 0);
	expect_in(sim_text_str(&t), "# \"sw1\" enhanced port 0 lid ");
	expect_in(sim_text_str(&t), " 8xHDR\n");
	expect_in(sim_text_str(&t), " 2xSDR\n");
	expect_in(sim_text_str(&t), " 12xDDR\n");
	expect_in(sim_text_str(&t), " 1xEDR\n");
	expect_in(sim_text_str(&t), " 4xFDR\n");
	expect_in(sim_text_str(&t), fmt("# lid %u lmc 2 \"sw1\"", node(f, "h1")->ports[1].lid));
	/* Router to router: the far end's GUID after a space, as between CAs. */
	expect_in(sim_text_str(&t), fmt("[2](%" PRIx64 ") \t\"R-%016" PRIx64 "\"[1] (%" PRIx64 ") \t\t# ",
					node(f, "rt1")->ports[2].guid, node(f, "rt2")->node_guid,
					node(f, "rt2")->ports[1].guid));
	sim_text_free(&t);
	sim_fabric_free(f);
}

/* Mellanox nodes: FDR10 links, and the revision and firmware a file gave, load back from a dump. */
static void test_round_trip_mellanox(void **state)
{
	struct sim_fabric *f = parse_ok(
		"vendid=0x2c9\n"
		"devid=0xd2f0\n"
		"Switch 3 \"S1\"\n"
		"[1] \"H1\"[1] # 4xFDR10\n"
		"[2] \"H2\"[1] # 4xQDR\n"
		"\n"
		"devid=0x101b\n"
		"revid=0xa1\n"
		"fwver=20.28.1002\n"
		"Hca 1 \"H1\"\n"
		"[1] \"S1\"[1] # 4xFDR10\n"
		"\n"
		"devid=0x101b\n"
		"Hca 1 \"H2\"\n"
		"[1] \"S1\"[2] # 4xQDR\n");
	struct sim_text t = SIM_TEXT_INIT;

	(void)state;
	bring_up(f);
	expect_round_trip(f, "Mellanox nodes");
	assert_int_equal(sim_describe_dump(f, NULL, &t), 0);
	expect_in(sim_text_str(&t), "\ndevid=0x101b\nrevid=0xa1\nfwver=20.28.1002\nsysimgguid=");
	expect_in(sim_text_str(&t), " 4xFDR10\n");
	/* Nothing where the file said nothing. */
	assert_null(strstr(strstr(sim_text_str(&t), "fwver=") + 1, "fwver="));
	sim_text_free(&t);
	sim_fabric_free(f);
}

/* Nodes that discovery does not reach are dumped too, after the others of their type. */
static void test_round_trip_unreached(void **state)
{
	struct sim_fabric *f = parse_ok(split_topology);
	struct sim_text t = SIM_TEXT_INIT;
	const char *s;

	(void)state;
	expect_round_trip(f, "two subnets");
	assert_int_equal(sim_describe_dump(f, NULL, &t), 0);
	s = sim_text_str(&t);
	/* From a[1]: a then b; then c, which only the switch reaches. */
	assert_true(strstr(s, "\t\t# \"b\"\n") < strstr(s, "\t\t# \"a\"\n"));
	assert_true(strstr(s, "\t\t# \"a\"\n") < strstr(s, "\t\t# \"c\"\n"));
	assert_true(strstr(s, "# \"sw\" base") < strstr(s, "\t\t# \"b\"\n"));
	sim_text_free(&t);
	sim_fabric_free(f);
}

/* A link taken down is left out at both ends; the dump loads as the fabric is now. */
static void test_dump_link_down(void **state)
{
	struct sim_fabric *f = default_up(), *g;
	struct sim_node *sw1 = node(f, "Switch1"), *hca2 = node(f, "Hca2");
	struct umad_err errors = UMAD_ERR_INIT;
	char *s;

	(void)state;
	sim_port_link_fail(&sw1->ports[2], 1);
	sim_port_link_fail(&sw1->ports[8], 1);
	s = describe(sim_describe_dump, f, NULL);
	expect_not_in(s, fmt("\"H-%016" PRIx64 "\"[1]", hca2->node_guid));
	expect_not_in(s, "\n[8]\t");
	assert_int_equal(count_of(s, "\n[7]\t"), 2);
	/* Hca2 is still listed, without ports. */
	expect_in(s, fmt("Ca\t2 \"H-%016" PRIx64 "\"\t\t# \"Hca2\"\n", hca2->node_guid));
	g = sim_topology_parse(s, "dump", &errors);
	if (!g)
		fail_msg("%s\n%s", umad_err_text(&errors), s);
	assert_null(node(g, fmt("0x%" PRIx64, hca2->node_guid))->ports[1].peer);
	assert_int_equal(g->n_links, f->n_links - 2);
	sim_fabric_free(g);
	free(s);
	expect_round_trip(f, "two links down");
	sim_fabric_free(f);
}

static void test_round_trip_fat_trees(void **state)
{
	static const unsigned ks[] = { 2, 4, 8, 12 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		char *text = fat_tree(ks[i]);
		struct sim_fabric *f = parse_ok(text);

		bring_up(f);
		expect_round_trip(f, fmt("fat tree k=%u", ks[i]));
		sim_fabric_free(f);
		free(text);
	}
}

/* Each file of a directory that loads (and comes up when it can) dumps and loads back. */
static unsigned round_trip_dir(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		struct umad_err errors = UMAD_ERR_INIT;
		char path[1024];
		struct sim_fabric *f;

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = sim_topology_load(path, &errors);
		umad_err_clear(&errors);
		if (!f)
			continue;	/* the corpus holds files with errors too */
		if (sim_subnet_sm_site(f) && sim_subnet_bring_up(f, sim_subnet_sm_site(f), &errors) < 0) {
			umad_err_clear(&errors);
			sim_fabric_free(f);
			continue;
		}
		expect_round_trip(f, path);
		sim_fabric_free(f);
		n++;
	}
	closedir(d);
	return n;
}

static void test_round_trip_files(void **state)
{
	unsigned n;

	(void)state;
	n = round_trip_dir(TOP_SRCDIR "/tests/fuzz/corpus/topology", "");
	/* default, fattree6 and ibnetdiscover load (errors and includes do not from memory). */
	assert_true(n >= 3);
	n = round_trip_dir(IBSIM_EXAMPLES, "net");
	if (!n)
		print_message("(ibsim's examples are not installed: " IBSIM_EXAMPLES ")\n");
}

/* --- dot --------------------------------------------------------------------------------- */

static void test_dot(void **state)
{
	struct sim_fabric *f = parse_ok(rates_topology);
	struct sim_node *sw1 = node(f, "sw1"), *h1 = node(f, "h1"), *h4 = node(f, "h4");
	struct sim_describe_opts o = { 0 };
	char *s;

	(void)state;
	bring_up(f);
	sim_port_link_fail(&sw1->ports[4], 1);
	s = describe(sim_describe_dot, f, NULL);
	assert_true(strncmp(s, "graph fabric {\n", 15) == 0);
	assert_int_equal(s[strlen(s) - 2], '}');
	assert_int_equal(count_of(s, "shape=box"), f->n_switches);
	assert_int_equal(count_of(s, "shape=ellipse"), f->n_cas);
	assert_int_equal(count_of(s, "shape=hexagon"), f->n_routers);
	assert_int_equal(count_of(s, " -- "), f->n_links);
	assert_int_equal(count_of(s, "style=dashed, color=red"), 1);
	expect_in(s, fmt("\tn%zu -- n%zu [taillabel=\"4\", headlabel=\"2\", label=\"down\", style=dashed",
			 sw1->index, node(f, "h3")->index));
	expect_in(s, fmt("\tn%zu -- n%zu [taillabel=\"1\", headlabel=\"1\", label=\"4X QDR\"];\n",
			 sw1->index, h1->index));
	expect_in(s, fmt("\tn%zu [shape=box, label=\"sw1\\n0x%016" PRIx64 "\\nlid %u\"];\n", sw1->index,
			 sw1->node_guid, sw1->ports[0].lid));
	expect_in(s, fmt("\tn%zu [shape=ellipse, label=\"h4\\n0x%016" PRIx64 "\\nport 1 lid %u, port 2 lid %u\"];\n",
			 h4->index, h4->node_guid, h4->ports[1].lid, h4->ports[2].lid));
	expect_in(s, "label=\"sw2\\nsecond switch\\n0x");
	free(s);
	/* A filter: the node, its neighbours, and its cables only. */
	o.node = "h4";
	s = describe(sim_describe_dot, f, &o);
	assert_int_equal(count_of(s, "shape="), 2);
	assert_int_equal(count_of(s, " -- "), 2);
	free(s);
	sim_fabric_free(f);
}

/* --- the helper for the shell test ------------------------------------------------------ */

static struct sim_fabric *load_for_cli(const char *path, int sm)
{
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = strcmp(path, "-") ? sim_topology_load(path, &errors)
						 : sim_topology_parse(sim_default_topology, "default", &errors);

	if (!f) {
		fprintf(stderr, "%s", umad_err_text(&errors));
		umad_err_clear(&errors);
		return NULL;
	}
	if (sm && sim_subnet_bring_up(f, sim_subnet_sm_site(f), &errors) < 0) {
		fprintf(stderr, "bring-up: %s\n", umad_err_text(&errors));
		umad_err_clear(&errors);
		sim_fabric_free(f);
		return NULL;
	}
	return f;
}

static int cli(int argc, char **argv)
{
	struct sim_text t = SIM_TEXT_INIT;
	struct sim_fabric *f;
	int r = -EINVAL;

	if (argc >= 4 && !strcmp(argv[1], "--print")) {
		f = load_for_cli(argv[3], !(argc > 4 && !strcmp(argv[4], "none")));
		if (!f)
			return 1;
		if (!strcmp(argv[2], "show"))
			r = sim_describe_show(f, NULL, &t);
		else if (!strcmp(argv[2], "json"))
			r = sim_describe_json(f, NULL, &t);
		else if (!strcmp(argv[2], "dump"))
			r = sim_describe_dump(f, NULL, &t);
		else if (!strcmp(argv[2], "dot"))
			r = sim_describe_dot(f, NULL, &t);
		fputs(sim_text_str(&t), stdout);
		sim_text_free(&t);
		sim_fabric_free(f);
		if (r < 0)
			fprintf(stderr, "%s: %s\n", argv[2], strerror(-r));
		return r < 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--roundtrip")) {
		static char why[1 << 16];

		f = load_for_cli(argv[2], 1);
		if (!f)
			return 1;
		r = round_trip(f, why, sizeof(why));
		if (r < 0)
			fprintf(stderr, "%s: %s\n", argv[2], why);
		sim_fabric_free(f);
		return r < 0;
	}
	fprintf(stderr, "usage: %s [--print show|json|dump|dot TOPOLOGY|- [none] | --roundtrip TOPOLOGY|-]\n",
		argv[0]);
	return 2;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_show),
		cmocka_unit_test(test_show_filter),
		cmocka_unit_test(test_show_faults),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_fabrics),
		cmocka_unit_test(test_dump_format),
		cmocka_unit_test(test_dump_start),
		cmocka_unit_test(test_round_trip_default),
		cmocka_unit_test(test_round_trip_rates),
		cmocka_unit_test(test_round_trip_mellanox),
		cmocka_unit_test(test_round_trip_unreached),
		cmocka_unit_test(test_dump_link_down),
		cmocka_unit_test(test_round_trip_fat_trees),
		cmocka_unit_test(test_round_trip_files),
		cmocka_unit_test(test_dot),
	};

	if (argc > 1)
		return cli(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
