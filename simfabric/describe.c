/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The live fabric as text (describe.h): show, JSON, ibnetdiscover's
 * format, Graphviz.  Everything here reads the model and appends to a
 * struct sim_text; nothing is kept between calls.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simfabric/describe.h"
#include "simfabric/identity.h"
#include "simfabric/subnet_up.h"
#include "simfabric/net.h"
#include "simfabric/pma.h"

static void text_c(struct sim_text *t, char c)
{
	sim_text_append(t, &c, 1);
}

static void text_s(struct sim_text *t, const char *s)
{
	sim_text_append(t, s, strlen(s));
}

/* --- names -------------------------------------------------------------------- */

const char *sim_port_state_name(unsigned state)
{
	switch (state) {
	case PORT_STATE_NOCHANGE: return "NoChange";
	case PORT_STATE_DOWN: return "Down";
	case PORT_STATE_INIT: return "Init";
	case PORT_STATE_ARMED: return "Armed";
	case PORT_STATE_ACTIVE: return "Active";
	default: return "?";
	}
}

const char *sim_phys_state_name(unsigned phys_state)
{
	switch (phys_state) {
	case PHYS_STATE_SLEEP: return "Sleep";
	case PHYS_STATE_POLLING: return "Polling";
	case PHYS_STATE_DISABLED: return "Disabled";
	case PHYS_STATE_TRAINING: return "PortConfigurationTraining";
	case PHYS_STATE_LINKUP: return "LinkUp";
	default: return "?";
	}
}

const char *sim_node_type_name(enum node_type type)
{
	switch (type) {
	case NODE_TYPE_CA: return "CA";
	case NODE_TYPE_SWITCH: return "Switch";
	case NODE_TYPE_ROUTER: return "Router";
	default: return "?";
	}
}

/* --- strings in the outputs' quoting ------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and what lies beyond Unicode are not UTF-8. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string: quotes, backslashes and control bytes escaped; non-UTF-8 bytes as \u00XX. */
static void json_str(struct sim_text *t, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, len;

	text_c(t, '"');
	while (i < n) {
		unsigned c = u[i];

		if (c == '"' || c == '\\') {
			text_c(t, '\\');
			text_c(t, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': text_s(t, "\\n"); break;
			case '\t': text_s(t, "\\t"); break;
			case '\r': text_s(t, "\\r"); break;
			default: sim_text_printf(t, "\\u%04x", c); break;
			}
			i++;
		} else if ((len = utf8_len(u + i, n - i)) > 0) {
			sim_text_append(t, s + i, len);
			i += len;
		} else {
			sim_text_printf(t, "\\u%04x", c);
			i++;
		}
	}
	text_c(t, '"');
}

/* For a person, in double quotes: quotes and backslashes escaped, control bytes as \xNN. */
static void show_str(struct sim_text *t, const char *s)
{
	text_c(t, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			text_c(t, '\\');
			text_c(t, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			sim_text_printf(t, "\\x%02x", c);
		} else {
			text_c(t, (char)c);
		}
	}
	text_c(t, '"');
}

/*
 * Inside a Graphviz label: quotes and backslashes escaped (a backslash
 * would start an escape such as \N), control bytes and bytes that are not
 * UTF-8 (dot refuses them) as '?'.
 */
static void dot_chars(struct sim_text *t, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, len;

	while (i < n) {
		unsigned c = u[i];

		if (c == '"' || c == '\\') {
			text_c(t, '\\');
			text_c(t, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			text_c(t, '?');
			i++;
		} else if ((len = utf8_len(u + i, n - i)) > 0) {
			sim_text_append(t, s + i, len);
			i += len;
		} else {
			text_c(t, '?');
			i++;
		}
	}
}

/*
 * A NodeDescription in ibnetdiscover's quotes.  Its format has no escapes
 * (ibnetdiscover prints the bytes as they are, and a quote or a line break
 * in them breaks its readers): a double quote becomes ', a control byte ?.
 */
static void dump_str(struct sim_text *t, const char *s)
{
	text_c(t, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"')
			text_c(t, '\'');
		else if (c < 0x20 || c == 0x7f)
			text_c(t, '?');
		else
			text_c(t, (char)c);
	}
	text_c(t, '"');
}

/* --- what the outputs share ---------------------------------------------------- */

/* The node's own LID: a switch's port 0's, else the first port that has one (0: none). */
static const struct sim_port *node_lid_port(const struct sim_node *n)
{
	unsigned p;

	if (n->type == NODE_TYPE_SWITCH)
		return &n->ports[0];
	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].lid)
			return &n->ports[p];
	return &n->ports[1];
}

/* The LID a port answers to: a switch's ports share port 0's. */
static uint16_t port_lid(const struct sim_port *p)
{
	return p->node->type == NODE_TYPE_SWITCH ? p->node->ports[0].lid : p->lid;
}

/* "0x.." as sim_fabric_find() reads it: 1 and the GUID, or 0 for a name. */
static int filter_guid(const char *filter, uint64_t *guid)
{
	char *end;

	if (strncmp(filter, "0x", 2) && strncmp(filter, "0X", 2))
		return 0;
	if (!filter[2])
		return 0;
	errno = 0;
	*guid = strtoull(filter + 2, &end, 16);
	return !*end && !errno;
}

/* Does opts->node select n?  Every node when there is no filter. */
static int selected(const struct sim_node *n, const struct sim_describe_opts *o)
{
	uint64_t guid;
	unsigned p;

	if (!o || !o->node)
		return 1;
	if (!strcmp(n->name, o->node) || !strcmp(n->desc, o->node))
		return 1;
	if (!filter_guid(o->node, &guid))
		return 0;
	if (n->node_guid == guid)
		return 1;
	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].guid == guid)
			return 1;
	return 0;
}

static int check_args(const struct sim_fabric *f, const struct sim_describe_opts *o,
		      struct sim_text *out)
{
	size_t i;

	if (!f || !out)
		return -EINVAL;
	if (!o || !o->node)
		return 0;
	for (i = 0; i < f->n_nodes; i++)
		if (selected(f->nodes[i], o))
			return 0;
	return -ENOENT;
}

/* The packet-drop rate of a port in millionths (rounded), from the fault's threshold. */
static uint64_t drop_millionths(const struct sim_link_fault *lf)
{
	return ((uint64_t)lf->drop_threshold * 1000000u + (1u << 31)) >> 32;
}

/* A rate in millionths as a decimal fraction ("0.25", "1"), whatever the locale. */
static void rate_str(struct sim_text *t, uint64_t millionths)
{
	unsigned frac = (unsigned)(millionths % 1000000u);
	char digits[8];
	int n;

	if (!frac) {
		sim_text_printf(t, "%" PRIu64, millionths / 1000000u);
		return;
	}
	n = snprintf(digits, sizeof(digits), "%06u", frac);
	while (n > 0 && digits[n - 1] == '0')
		n--;
	sim_text_printf(t, "%" PRIu64 ".%.*s", millionths / 1000000u, n, digits);
}

struct fabric_counts {
	size_t cables, links_up, failed;
};

static struct fabric_counts count_links(const struct sim_fabric *f)
{
	struct fabric_counts c = { 0, 0, 0 };
	size_t i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++) {
		const struct sim_node *n = f->nodes[i];

		for (p = 1; p <= n->num_ports; p++) {
			const struct sim_port *port = &n->ports[p], *peer = port->peer;

			/* Each cable once: from its end that comes first. */
			if (!peer || peer->node->index < n->index ||
			    (peer->node == n && peer->num < p))
				continue;
			c.cables++;
			c.links_up += sim_port_link_up(port) != 0;
			c.failed += port->failed || peer->failed;
		}
	}
	return c;
}

/* --- show ------------------------------------------------------------------------ */

static void show_port(struct sim_text *t, const struct sim_port *p)
{
	const struct sim_node *n = p->node;
	unsigned c, errors = 0;

	sim_text_printf(t, "  [%u] %s/%s", p->num, sim_port_state_name(p->state),
			sim_phys_state_name(p->phys_state));
	if (sim_port_link_up(p))
		sim_text_printf(t, " %s %s", sim_width_name(p->width_active), sim_speed_name(p));
	if (n->type != NODE_TYPE_SWITCH) {
		if (p->lid)
			sim_text_printf(t, " lid %u lmc %u", p->lid, p->lmc);
		sim_text_printf(t, " guid 0x%016" PRIx64, p->guid);
	}
	if (p->peer) {
		text_s(t, " -> ");
		show_str(t, p->peer->node->name);
		sim_text_printf(t, "[%u]", p->peer->num);
		if (port_lid(p->peer))
			sim_text_printf(t, " lid %u", port_lid(p->peer));
		if (p->failed || p->peer->failed)
			text_s(t, " (link failed)");
	} else {
		text_s(t, " (no cable)");
	}
	text_c(t, '\n');
	for (c = 0; c < SIM_PMA_N_COUNTERS; c++) {
		uint64_t v = sim_pma_counter_get(p, (enum sim_pma_counter)c);

		if (!v)
			continue;
		sim_text_printf(t, "%s%s %" PRIu64, errors++ ? ", " : "      errors: ",
				sim_pma_counter_name((enum sim_pma_counter)c), v);
	}
	if (errors)
		text_c(t, '\n');
	if (p->fault && p->fault->drop_threshold) {
		text_s(t, "      drops: rate ");
		rate_str(t, drop_millionths(p->fault));
		sim_text_printf(t, ", %" PRIu64 " dropped\n", p->fault->dropped);
	}
}

static void show_node(struct sim_text *t, const struct sim_node *n, int all_ports)
{
	const struct sim_port *m = node_lid_port(n);
	unsigned p;

	sim_text_printf(t, "%s ", sim_node_type_name(n->type));
	show_str(t, n->name);
	if (strcmp(n->name, n->desc)) {
		text_s(t, " desc ");
		show_str(t, n->desc);
	}
	sim_text_printf(t, " guid 0x%016" PRIx64, n->node_guid);
	if (n->type == NODE_TYPE_SWITCH)
		sim_text_printf(t, " lid %u lmc %u, %s port 0", m->lid, m->lmc,
				n->sw->enhanced_port0 ? "enhanced" : "base");
	sim_text_printf(t, ", %u port%s\n", n->num_ports, n->num_ports == 1 ? "" : "s");
	for (p = 1; p <= n->num_ports; p++)
		if (all_ports || n->ports[p].peer)
			show_port(t, &n->ports[p]);
}

int sim_describe_show(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		      struct sim_text *out)
{
	struct fabric_counts c;
	size_t i;
	int r = check_args(f, opts, out);

	if (r < 0)
		return r;
	c = count_links(f);
	sim_text_printf(out, "Fabric: %zu nodes (%zu switches, %zu CAs, %zu routers), %zu cables, "
			"%zu links up, %zu failed\n", f->n_nodes, f->n_switches, f->n_cas,
			f->n_routers, c.cables, c.links_up, c.failed);
	if (opts && opts->net) {
		const struct sim_net *net = opts->net;

		sim_text_printf(out, "Lost MADs: %" PRIu64 " without a route, %" PRIu64
				" refused by a P_Key, %" PRIu64 " by a Q_Key, %" PRIu64
				" without a taker; %" PRIu64 " traps sent, %u unrepressed\n",
				net->lost_no_route, net->lost_pkey, net->lost_qkey,
				net->lost_no_taker, net->traps_sent, net->n_pending);
	}
	for (i = 0; i < f->n_nodes; i++)
		if (selected(f->nodes[i], opts))
			show_node(out, f->nodes[i], opts && opts->all_ports);
	return out->err;
}

/* --- JSON -------------------------------------------------------------------------- */

static void json_guid(struct sim_text *t, const char *key, uint64_t guid)
{
	sim_text_printf(t, "\"%s\": \"0x%016" PRIx64 "\"", key, guid);
}

static void json_port(struct sim_text *t, const struct sim_port *p)
{
	unsigned c;

	sim_text_printf(t, "{\"num\": %u, ", p->num);
	json_guid(t, "guid", p->guid);
	sim_text_printf(t, ", \"state\": \"%s\", \"phys_state\": \"%s\", ",
			sim_port_state_name(p->state), sim_phys_state_name(p->phys_state));
	if (sim_port_link_up(p))
		sim_text_printf(t, "\"width\": \"%s\", \"speed\": \"%s\", ",
				sim_width_name(p->width_active), sim_speed_name(p));
	else
		text_s(t, "\"width\": null, \"speed\": null, ");
	sim_text_printf(t, "\"lid\": %u, \"lmc\": %u, \"failed\": %s, \"peer\": ", port_lid(p),
			p->node->type == NODE_TYPE_SWITCH ? p->node->ports[0].lmc : p->lmc,
			p->failed ? "true" : "false");
	if (p->peer) {
		text_s(t, "{\"id\": ");
		json_str(t, p->peer->node->name);
		text_s(t, ", ");
		json_guid(t, "guid", p->peer->node->node_guid);
		text_s(t, ", \"desc\": ");
		json_str(t, p->peer->node->desc);
		sim_text_printf(t, ", \"port\": %u}", p->peer->num);
	} else {
		text_s(t, "null");
	}
	text_s(t, ", \"counters\": {");
	for (c = 0; c < SIM_PMA_N_COUNTERS; c++)
		sim_text_printf(t, "%s\"%s\": %" PRIu64, c ? ", " : "",
				sim_pma_counter_name((enum sim_pma_counter)c),
				sim_pma_counter_get(p, (enum sim_pma_counter)c));
	sim_text_printf(t, "}, \"traffic\": {\"xmit_data\": %" PRIu64 ", \"rcv_data\": %" PRIu64
			", \"xmit_pkts\": %" PRIu64 ", \"rcv_pkts\": %" PRIu64
			", \"xmit_mcast_pkts\": %" PRIu64 ", \"rcv_mcast_pkts\": %" PRIu64 "}",
			p->xmit_data, p->rcv_data, p->xmit_pkts, p->rcv_pkts, p->xmit_mcast_pkts,
			p->rcv_mcast_pkts);
	if (p->fault && p->fault->drop_threshold) {
		text_s(t, ", \"drop\": {\"rate\": ");
		rate_str(t, drop_millionths(p->fault));
		sim_text_printf(t, ", \"dropped\": %" PRIu64 "}", p->fault->dropped);
	} else {
		text_s(t, ", \"drop\": null");
	}
	text_c(t, '}');
}

static void json_node(struct sim_text *t, const struct sim_node *n)
{
	const struct sim_port *m = node_lid_port(n);
	unsigned p, first;

	sim_text_printf(t, "    {\"type\": \"%s\", \"id\": ",
			n->type == NODE_TYPE_SWITCH ? "switch" : n->type == NODE_TYPE_CA ? "ca" : "router");
	json_str(t, n->name);
	text_s(t, ", \"desc\": ");
	json_str(t, n->desc);
	text_s(t, ", ");
	json_guid(t, "guid", n->node_guid);
	text_s(t, ", ");
	json_guid(t, "sys_guid", n->sys_guid);
	sim_text_printf(t, ", \"vendor_id\": %u, \"device_id\": %u, \"lid\": %u, \"lmc\": %u, "
			"\"num_ports\": %u,", n->vendor_id, n->device_id, m->lid, m->lmc,
			n->num_ports);
	if (n->type == NODE_TYPE_SWITCH)
		sim_text_printf(t, " \"enhanced_port0\": %s,",
				n->sw->enhanced_port0 ? "true" : "false");
	text_s(t, "\n     \"ports\": [");
	/* A switch's port 0 too: its state, and the counters of an enhanced port 0. */
	first = n->type == NODE_TYPE_SWITCH ? 0 : 1;
	for (p = first; p <= n->num_ports; p++) {
		text_s(t, p > first ? ",\n       " : "\n       ");
		json_port(t, &n->ports[p]);
	}
	text_s(t, "]}");
}

int sim_describe_json(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		      struct sim_text *out)
{
	struct fabric_counts c;
	size_t i, shown = 0;
	int r = check_args(f, opts, out);

	if (r < 0)
		return r;
	c = count_links(f);
	sim_text_printf(out, "{\n  \"summary\": {\"nodes\": %zu, \"switches\": %zu, \"cas\": %zu, "
			"\"routers\": %zu, \"cables\": %zu, \"links_up\": %zu, \"failed\": %zu},\n",
			f->n_nodes, f->n_switches, f->n_cas, f->n_routers, c.cables, c.links_up,
			c.failed);
	if (opts && opts->net) {
		const struct sim_net *net = opts->net;

		sim_text_printf(out, "  \"net\": {\"lost_no_route\": %" PRIu64 ", \"lost_pkey\": %"
				PRIu64 ", \"lost_qkey\": %" PRIu64 ", \"lost_no_taker\": %" PRIu64
				", \"traps_sent\": %" PRIu64 ", \"traps_pending\": %u, "
				"\"builtin_sm\": %s},\n", net->lost_no_route, net->lost_pkey,
				net->lost_qkey, net->lost_no_taker, net->traps_sent, net->n_pending,
				net->sm_active ? "true" : "false");
	}
	text_s(out, "  \"nodes\": [");
	for (i = 0; i < f->n_nodes; i++) {
		if (!selected(f->nodes[i], opts))
			continue;
		text_s(out, shown++ ? ",\n" : "\n");
		json_node(out, f->nodes[i]);
	}
	text_s(out, shown ? "\n  ]\n}\n" : "]\n}\n");
	return out->err;
}

/* --- ibnetdiscover's format --------------------------------------------------------- */

static char guid_name_prefix(enum node_type type)
{
	return type == NODE_TYPE_SWITCH ? 'S' : type == NODE_TYPE_CA ? 'H' : 'R';
}

/* "4xQDR": the lanes and the fastest speed the link runs at, extended speeds included. */
static void dump_rate(struct sim_text *t, const struct sim_port *p)
{
	sim_text_printf(t, "%ux%s", sim_width_lanes(p->width_active), sim_speed_name(p));
}

/* A port line: local end, far end, then the comment the reader takes LIDs and the rate from. */
static void dump_port(struct sim_text *t, const struct sim_port *p)
{
	const struct sim_port *q = p->peer;
	const struct sim_node *n = p->node, *far = q->node;
	int is_switch = n->type == NODE_TYPE_SWITCH, far_switch = far->type == NODE_TYPE_SWITCH;

	sim_text_printf(t, "[%u]", p->num);
	if (!is_switch)
		sim_text_printf(t, "(%" PRIx64 ") ", p->guid);
	sim_text_printf(t, "\t\"%c-%016" PRIx64 "\"[%u]", guid_name_prefix(far->type), far->node_guid,
			q->num);
	/* The far end's port GUID when it has its own; after a space from a CA's port. */
	if (!far_switch)
		sim_text_printf(t, "%s(%" PRIx64 ") ", is_switch ? "" : " ", q->guid);
	text_s(t, "\t\t# ");
	if (!is_switch)
		sim_text_printf(t, "lid %u lmc %u ", p->lid, p->lmc);
	dump_str(t, far->desc);
	sim_text_printf(t, " lid %u ", port_lid(q));
	dump_rate(t, p);
	text_c(t, '\n');
}

static void dump_node(struct sim_text *t, const struct sim_node *n)
{
	unsigned p;

	/* A blank line before each record (a record ends at one), none after the last. */
	sim_text_printf(t, "\nvendid=0x%x\ndevid=0x%x\n", n->vendor_id, n->device_id);
	/* What ibnetdiscover cannot know, where the file gave it, so that a dump loads back whole. */
	if (n->revision)
		sim_text_printf(t, "revid=0x%x\n", n->revision);
	if (sim_fw_given(&n->fw))
		sim_text_printf(t, "fwver=%u.%u.%u\n", n->fw.major, n->fw.minor, n->fw.sub_minor);
	sim_text_printf(t, "sysimgguid=0x%" PRIx64 "\n", n->sys_guid);
	switch (n->type) {
	case NODE_TYPE_SWITCH:
		sim_text_printf(t, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", n->node_guid,
				n->ports[0].guid);
		sim_text_printf(t, "Switch\t%u \"S-%016" PRIx64 "\"\t\t# ", n->num_ports, n->node_guid);
		dump_str(t, n->desc);
		sim_text_printf(t, " %s port 0 lid %u lmc %u\n",
				n->sw->enhanced_port0 ? "enhanced" : "base", n->ports[0].lid,
				n->ports[0].lmc);
		break;
	case NODE_TYPE_CA:
	case NODE_TYPE_ROUTER:
	default:
		sim_text_printf(t, "%s=0x%" PRIx64 "\n%s\t%u \"%c-%016" PRIx64 "\"\t\t# ",
				n->type == NODE_TYPE_CA ? "caguid" : "rtguid", n->node_guid,
				n->type == NODE_TYPE_CA ? "Ca" : "Rt", n->num_ports,
				guid_name_prefix(n->type), n->node_guid);
		dump_str(t, n->desc);
		text_c(t, '\n');
		break;
	}
	for (p = 1; p <= n->num_ports; p++)
		if (sim_port_link_up(&n->ports[p]))
			dump_port(t, &n->ports[p]);
}

/* Is p a port of f that discovery can start from (a switch's port 0 or any port 1..N)? */
static int start_port_of(const struct sim_fabric *f, const struct sim_port *p)
{
	const struct sim_node *n = p->node;

	return n && n->index < f->n_nodes && f->nodes[n->index] == n && p->num <= n->num_ports &&
	       p == &n->ports[p->num] && (p->num || n->type == NODE_TYPE_SWITCH);
}

/*
 * Where ibnetdiscover would run from when the caller does not say: where
 * the built-in SM would sit, else (no link anywhere) the first node.
 */
static const struct sim_port *default_start(const struct sim_fabric *f)
{
	const struct sim_port *p = sim_subnet_sm_site(f);

	if (p)
		return p;
	return f->n_nodes ? &f->nodes[0]->ports[1] : NULL;
}

/*
 * The nodes in the order discovery finds them, breadth first: a switch is
 * left through each of its ports in turn, a CA or router only through the
 * port it was reached at (they pass no SMP on).  Fills order
 * (n_nodes entries), returns how many were reached.
 */
static size_t discover(const struct sim_fabric *f, const struct sim_port *start, size_t *order,
		       unsigned *entry, uint8_t *seen)
{
	size_t head = 0, tail = 0;

	if (!start)
		return 0;
	seen[start->node->index] = 1;
	order[tail] = start->node->index;
	entry[tail++] = start->num;
	while (head < tail) {
		const struct sim_node *n = f->nodes[order[head]];
		unsigned first = entry[head], last = entry[head], p;

		head++;
		if (n->type == NODE_TYPE_SWITCH) {
			first = 1;
			last = n->num_ports;
		}
		for (p = first; p <= last; p++) {
			const struct sim_port *q = n->ports[p].peer;

			if (!sim_port_link_up(&n->ports[p]) || seen[q->node->index])
				continue;
			seen[q->node->index] = 1;
			order[tail] = q->node->index;
			entry[tail++] = q->num;
		}
	}
	return tail;
}

int sim_describe_dump(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		      struct sim_text *out)
{
	static const enum node_type types[] = { NODE_TYPE_SWITCH, NODE_TYPE_CA, NODE_TYPE_ROUTER };
	const struct sim_port *start;
	size_t *order, reached, i, k;
	unsigned *entry;
	uint8_t *seen;

	if (!f || !out || (opts && opts->node))
		return -EINVAL;
	if (opts && opts->start && !start_port_of(f, opts->start))
		return -EINVAL;
	start = opts && opts->start ? opts->start : default_start(f);
	order = calloc(f->n_nodes + 1, sizeof(*order));
	entry = calloc(f->n_nodes + 1, sizeof(*entry));
	seen = calloc(f->n_nodes + 1, 1);
	if (!order || !entry || !seen) {
		free(order);
		free(entry);
		free(seen);
		return -ENOMEM;
	}
	reached = discover(f, start, order, entry, seen);
	text_s(out, "#\n# Topology file: generated by libumad's simulator from the live fabric\n#\n");
	if (start)
		sim_text_printf(out, "# Initiated from node %016" PRIx64 " port %016" PRIx64 "\n",
				start->node->node_guid,
				start->node->type == NODE_TYPE_SWITCH ? start->node->node_guid
								      : start->guid);
	for (k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		/* ibnetdiscover lists each type in the reverse of the order it found them. */
		for (i = reached; i-- > 0;)
			if (f->nodes[order[i]]->type == types[k])
				dump_node(out, f->nodes[order[i]]);
		for (i = 0; i < f->n_nodes; i++)
			if (!seen[i] && f->nodes[i]->type == types[k])
				dump_node(out, f->nodes[i]);
	}
	free(order);
	free(entry);
	free(seen);
	return out->err;
}

/* --- Graphviz ----------------------------------------------------------------------- */

static void dot_node(struct sim_text *t, const struct sim_node *n)
{
	unsigned p, lids = 0;

	sim_text_printf(t, "\tn%zu [shape=%s, label=\"", n->index,
			n->type == NODE_TYPE_SWITCH ? "box" : n->type == NODE_TYPE_CA ? "ellipse"
										 : "hexagon");
	dot_chars(t, n->name);
	if (strcmp(n->name, n->desc)) {
		text_s(t, "\\n");
		dot_chars(t, n->desc);
	}
	sim_text_printf(t, "\\n0x%016" PRIx64, n->node_guid);
	if (n->type == NODE_TYPE_SWITCH) {
		sim_text_printf(t, "\\nlid %u", n->ports[0].lid);
	} else {
		for (p = 1; p <= n->num_ports; p++) {
			const struct sim_port *port = &n->ports[p];

			if (!port->lid)
				continue;
			if (n->num_ports == 1)
				sim_text_printf(t, "\\nlid %u", port->lid);
			else
				sim_text_printf(t, "%sport %u lid %u", lids ? ", " : "\\n", p, port->lid);
			lids++;
		}
	}
	text_s(t, "\"];\n");
}

static void dot_edge(struct sim_text *t, const struct sim_port *p)
{
	const struct sim_port *q = p->peer;

	sim_text_printf(t, "\tn%zu -- n%zu [taillabel=\"%u\", headlabel=\"%u\", ", p->node->index,
			q->node->index, p->num, q->num);
	if (sim_port_link_up(p))
		sim_text_printf(t, "label=\"%s %s\"];\n", sim_width_name(p->width_active),
				sim_speed_name(p));
	else
		text_s(t, "label=\"down\", style=dashed, color=red, fontcolor=red];\n");
}

int sim_describe_dot(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		     struct sim_text *out)
{
	uint8_t *shown;
	size_t i;
	unsigned p;
	int r = check_args(f, opts, out);

	if (r < 0)
		return r;
	/* Which nodes to draw: those selected and, with a filter, their neighbours. */
	shown = calloc(f->n_nodes + 1, 1);
	if (!shown)
		return -ENOMEM;
	for (i = 0; i < f->n_nodes; i++) {
		const struct sim_node *n = f->nodes[i];

		if (!selected(n, opts))
			continue;
		shown[i] = 1;
		for (p = 1; p <= n->num_ports; p++)
			if (n->ports[p].peer)
				shown[n->ports[p].peer->node->index] = 1;
	}
	text_s(out, "graph fabric {\n\tnode [fontsize=10];\n\tedge [fontsize=9];\n");
	for (i = 0; i < f->n_nodes; i++)
		if (shown[i])
			dot_node(out, f->nodes[i]);
	for (i = 0; i < f->n_nodes; i++) {
		const struct sim_node *n = f->nodes[i];

		for (p = 1; p <= n->num_ports; p++) {
			const struct sim_port *port = &n->ports[p], *peer = port->peer;

			if (!peer || peer->node->index < i || (peer->node == n && peer->num < p))
				continue;	/* each cable once, from its first end */
			if (selected(n, opts) || selected(peer->node, opts))
				dot_edge(out, port);
		}
	}
	text_s(out, "}\n");
	free(shown);
	return out->err;
}
