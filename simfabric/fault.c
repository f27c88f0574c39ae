/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Faults steered from outside (fault.h): what each does to the fabric;
 * the table of kinds and of their arguments; the one text parser, the
 * writer and the splitter of a line into words; the bytes of a request;
 * and where a request lands and whether it may.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mad_wire.h"
#include "simfabric/arena.h"
#include "simfabric/describe.h"
#include "simfabric/fault.h"
#include "simfabric/pma.h"
#include "simfabric/port_state.h"
#include "simfabric/topology.h"

/* Every node a topology may name fits a request. */
_Static_assert(SIM_FAULT_NODE_MAX >= SIM_TOPOLOGY_MAX_ID, "a node id must fit a fault request");

static int set_link(struct sim_port *p, int up)
{
	if (p->num == 0 || p->num > p->node->num_ports)
		return -EINVAL;
	if (!p->peer)
		return -ENOTCONN;
	if (up) {
		p->failed = 0;
		p->peer->failed = 0;
		sim_port_link_fail(p, 0);
	} else {
		sim_port_link_fail(p, 1);
	}
	return 0;
}

/* The switches at both ends of the link whose state changed tell their SM (Trap 128), each once. */
int sim_fault_link(struct sim_net *net, struct sim_port *p, int up)
{
	int r = set_link(p, up);

	if (r < 0)
		return r;
	sim_net_link_trap(net, p->node);
	sim_net_link_trap(net, p->peer->node);
	return 0;
}

int sim_fault_node(struct sim_net *net, struct sim_node *n, int up)
{
	unsigned p;

	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].peer)
			set_link(&n->ports[p], up);
	/* The neighbours' switches notice; the node itself once it is back (down, no SM hears it). */
	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].peer && n->ports[p].peer->node != n)
			sim_net_link_trap(net, n->ports[p].peer->node);
	if (up)
		sim_net_link_trap(net, n);
	return 0;
}

/* The port's fault record, made on first need; NULL on ENOMEM. */
static struct sim_link_fault *port_fault(struct sim_port *p)
{
	if (!p->fault)
		p->fault = sim_mem_calloc(p, 1, sizeof(*p->fault));
	return p->fault;
}

/* A record with neither drops nor a delay goes: the route's per-hop test stays one pointer. */
static void port_fault_tidy(struct sim_port *p)
{
	if (p->fault && !p->fault->drop_threshold && !p->fault->delay_ns) {
		sim_mem_free(p->fault);
		p->fault = NULL;
	}
}

int sim_fault_drop(struct sim_port *p, double rate, uint64_t seed)
{
	struct sim_link_fault *lf;

	if (!(rate >= 0.0 && rate <= 1.0))
		return -EINVAL;
	if (rate == 0.0) {
		if (p->fault)
			p->fault->drop_threshold = 0;
		port_fault_tidy(p);
		return 0;
	}
	lf = port_fault(p);
	if (!lf)
		return -ENOMEM;
	/* A threshold of 2^32 - 1 drops all but one draw in 2^32: rate 1 drops everything. */
	lf->drop_threshold = rate >= 1.0 ? UINT32_MAX : (uint32_t)(rate * 4294967296.0);
	lf->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	return 0;
}

int sim_fault_delay(struct sim_port *p, unsigned delay_us)
{
	struct sim_link_fault *lf;

	if (p->num == 0 || p->num > p->node->num_ports)
		return -EINVAL;	/* a switch's own port leads to no link */
	if (delay_us > SIM_FAULT_MAX_DELAY_US)
		return -EINVAL;
	if (!delay_us) {
		if (p->fault)
			p->fault->delay_ns = 0;
		port_fault_tidy(p);
		return 0;
	}
	lf = port_fault(p);
	if (!lf)
		return -ENOMEM;
	lf->delay_ns = (uint64_t)delay_us * 1000u;
	return 0;
}

int sim_fault_counter(struct sim_net *net, struct sim_port *p, const char *counter, uint64_t n)
{
	int c = sim_pma_counter_by_name(counter);
	uint8_t details[NOTICE_DETAILS_SIZE] = { 0 };
	struct sim_port *m = sim_mgmt_port(p->node, p->num);

	int r;

	if (c < 0)
		return -EINVAL;
	r = sim_pma_counter_add(p, (enum sim_pma_counter)c, n);
	if (r < 0)
		return r;
	/* Past their thresholds these errors are trapped too (the thresholds are zero here). */
	put_be16(details + TRAP129_OFF_LID, m->lid);
	details[TRAP129_OFF_PORT] = (uint8_t)p->num;
	if (c == SIM_PMA_LOCAL_LINK_INTEGRITY_ERRORS)
		sim_net_trap(net, p->node, p->num, TRAP_LINK_INTEGRITY, details);
	else if (c == SIM_PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS)
		sim_net_trap(net, p->node, p->num, TRAP_BUFFER_OVERRUN, details);
	return 0;
}

/* The details trap `number` from port p carries: 0, or -EINVAL for a trap p may not send. */
static int trap_details(struct sim_port *p, unsigned number, uint8_t *details)
{
	struct sim_port *m = sim_mgmt_port(p->node, p->num);

	memset(details, 0, NOTICE_DETAILS_SIZE);
	switch (number) {
	case TRAP_LINK_STATE_CHANGE:
		if (p->node->type != NODE_TYPE_SWITCH)
			return -EINVAL;	/* only switches send it */
		put_be16(details + TRAP128_OFF_LID, m->lid);
		return 0;
	case TRAP_LINK_INTEGRITY:
	case TRAP_BUFFER_OVERRUN:
	case TRAP_FLOW_CONTROL:
		put_be16(details + TRAP129_OFF_LID, m->lid);
		details[TRAP129_OFF_PORT] = (uint8_t)p->num;
		return 0;
	case TRAP_CAPABILITY_CHANGE:
		sim_net_trap144_details(p, details);
		return 0;
	case TRAP_SYS_IMAGE_GUID:
		put_be16(details + TRAP145_OFF_LID, m->lid);
		put_be64(details + TRAP145_OFF_SYS_GUID, p->node->sys_guid);
		return 0;
	default:
		return -EINVAL;
	}
}

int sim_fault_trap(struct sim_net *net, struct sim_port *p, unsigned number)
{
	uint8_t details[NOTICE_DETAILS_SIZE];
	int r = trap_details(p, number, details);

	if (r < 0)
		return r;
	return sim_net_trap(net, p->node, p->num, number, details);
}


/* The traps a port may be asked to send (trap_details makes each). */
static const unsigned traps[] = {
	TRAP_LINK_STATE_CHANGE, TRAP_LINK_INTEGRITY, TRAP_BUFFER_OVERRUN, TRAP_FLOW_CONTROL,
	TRAP_CAPABILITY_CHANGE, TRAP_SYS_IMAGE_GUID,
};
#define N_TRAPS	(sizeof(traps) / sizeof(traps[0]))

static int trap_known(unsigned number)
{
	size_t i;

	for (i = 0; i < N_TRAPS; i++)
		if (traps[i] == number)
			return 1;
	return 0;
}

unsigned sim_fault_delay_us(uint64_t delay_ns)
{
	if (delay_ns > (uint64_t)UINT32_MAX * 1000u)
		return UINT32_MAX;
	return (unsigned)((delay_ns + 999u) / 1000u);
}

/* --- messages ------------------------------------------------------------------------- */

const char *sim_fault_show(const char *word, struct sim_fault_shown *out)
{
	size_t i;

	for (i = 0; word[i] && i < SIM_FAULT_SHOWN; i++)
		out->s[i] = (unsigned char)word[i] < 0x20 || word[i] == 0x7f ? '?' : word[i];
	if (word[i])
		memcpy(out->s + i, "...", sizeof("..."));
	else
		out->s[i] = '\0';
	return out->s;
}

/* --- numbers -------------------------------------------------------------------------- */

#define RATE_DECIMALS	9	/* digits after the point in a drop rate */
#define RATE_SCALE	1000000000u

int sim_fault_parse_u64(const char *s, int hex, uint64_t max, uint64_t *value)
{
	int base = hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	unsigned long long v;
	char *end;

	/* strtoull would take a sign or blanks first: only digits may start it. */
	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || end == s + (base == 16 ? 2 : 0) || v > max)
		return -1;
	*value = v;
	return 0;
}

/*
 * A drop rate, "0", "1", "0.25", ".5": at most RATE_DECIMALS digits after
 * the point, read without strtod (whose decimal point is the locale's).
 * In billionths: 0, -1 when malformed, -2 when above 1.
 */
static int parse_rate(const char *s, uint64_t *billionths)
{
	uint64_t whole = 0, frac = 0;
	unsigned decimals = 0, digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > 10)
			return -2;	/* too large already; keep the digits from overflowing */
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (++decimals > RATE_DECIMALS)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
	}
	if (*s || !digits)
		return -1;
	for (; decimals < RATE_DECIMALS; decimals++)
		frac *= 10;
	if (whole > 1 || (whole == 1 && frac))
		return -2;
	*billionths = whole * RATE_SCALE + frac;
	return 0;
}

/* A delay: a number of microseconds, or with a unit ns, us or ms.  In ns; -1 malformed, -2 too long. */
static int parse_delay(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	};
	char digits[32];
	size_t n = 0, lead = 0, i;
	uint64_t scale = 1000, v;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	if (!n)
		return -1;
	if (s[n]) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(s + n, units[i].unit))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		scale = units[i].ns;
	}
	/* Leading zeros say nothing of the length: only so many digits that matter are. */
	while (lead + 1 < n && s[lead] == '0')
		lead++;
	if (n - lead >= sizeof(digits))
		return -2;
	memcpy(digits, s + lead, n - lead);
	digits[n - lead] = '\0';
	if (sim_fault_parse_u64(digits, 0, SIM_FAULT_MAX_DELAY_NS / scale, &v) < 0)
		return -2;
	*ns = v * scale;
	return 0;
}

/* --- the arguments: each kind's word, field, limits and messages ----------------------- */

/*
 * parse: a word into its field; 0, or -1 with why in err.  format: the
 * field as " word", which parse reads back; -EINVAL when the value has no
 * such word.  check (NULL: any value): whether the field's value is one
 * the fabric takes, for requests that did not come from text; 0, or
 * -EINVAL with why in err.
 */
struct arg_type {
	const char *metavar;	/* in the usage */
	int optional;		/* may be left out (the last arguments only) */
	int (*parse)(const char *word, struct sim_fault_req *rq, struct umad_err *err);
	int (*format)(struct sim_text *t, const struct sim_fault_req *rq);
	int (*check)(const struct sim_fault_req *rq, struct umad_err *err);
};

static int parse_up_down(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;

	if (!strcmp(word, "up"))
		rq->up = 1;
	else if (!strcmp(word, "down"))
		rq->up = 0;
	else
		return umad_err_set(err, -1, "expected up or down, not \"%s\"",
				    sim_fault_show(word, &shown));
	return 0;
}

static int format_up_down(struct sim_text *t, const struct sim_fault_req *rq)
{
	return sim_text_printf(t, " %s", rq->up ? "up" : "down");
}

static int parse_node(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;

	if (!word[0])
		return umad_err_set(err, -1, "the node is empty");
	if (strlen(word) > SIM_FAULT_NODE_MAX)
		return umad_err_set(err, -1,
				    "node \"%s\" is longer than %d bytes, the longest node id",
				    sim_fault_show(word, &shown), SIM_FAULT_NODE_MAX);
	strcpy(rq->node, word);
	return 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A node as a word: quoted (with \" and \\) when it would not read back bare. */
static int format_node(struct sim_text *t, const struct sim_fault_req *rq)
{
	const char *node = rq->node, *c;
	int quote = node[0] == '#';

	if (!node[0] || !memchr(node, '\0', sizeof(rq->node)) || strchr(node, '\n'))
		return -EINVAL;
	for (c = node; *c && !quote; c++)
		quote = is_blank(*c) || *c == '"' || *c == '\\';
	sim_text_append(t, " ", 1);
	if (!quote)
		return sim_text_append(t, node, strlen(node));
	sim_text_append(t, "\"", 1);
	for (c = node; *c; c++) {
		if (*c == '"' || *c == '\\')
			sim_text_append(t, "\\", 1);
		sim_text_append(t, c, 1);
	}
	return sim_text_append(t, "\"", 1);
}

static int parse_port(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;
	uint64_t v;

	if (sim_fault_parse_u64(word, 0, SIM_MAX_PORTS, &v) < 0)
		return umad_err_set(err, -1, "bad port \"%s\": a number 0..%d",
				    sim_fault_show(word, &shown), SIM_MAX_PORTS);
	rq->port = (unsigned)v;
	return 0;
}

static int format_port(struct sim_text *t, const struct sim_fault_req *rq)
{
	if (rq->port > SIM_MAX_PORTS)
		return -EINVAL;
	return sim_text_printf(t, " %u", rq->port);
}

static int parse_link_port(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	if (parse_port(word, rq, err) < 0)
		return -1;
	if (rq->port == 0)
		return umad_err_set(err, -1, "port 0 has no link (ports 1..%d)", SIM_MAX_PORTS);
	return 0;
}

static int format_link_port(struct sim_text *t, const struct sim_fault_req *rq)
{
	return rq->port ? format_port(t, rq) : -EINVAL;
}

static int parse_rate_word(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;
	uint64_t v;
	int r = parse_rate(word, &v);

	if (r == -2)
		return umad_err_set(err, -1, "rate %s out of range 0..1",
				    sim_fault_show(word, &shown));
	if (r < 0)
		return umad_err_set(err, -1, "bad rate \"%s\": 0..1, at most %d decimals",
				    sim_fault_show(word, &shown), RATE_DECIMALS);
	rq->rate = (double)v / RATE_SCALE;
	return 0;
}

static int check_rate(const struct sim_fault_req *rq, struct umad_err *err)
{
	if (!(rq->rate >= 0.0 && rq->rate <= 1.0))
		return umad_err_set(err, -EINVAL, "rate %g out of range 0..1", rq->rate);
	return 0;
}

/* In billionths, the digits after the point without the zeros that end them. */
static int format_rate(struct sim_text *t, const struct sim_fault_req *rq)
{
	uint64_t billionths;
	char digits[16];
	int n;

	if (check_rate(rq, NULL) < 0)
		return -EINVAL;
	billionths = (uint64_t)(rq->rate * RATE_SCALE + 0.5);
	if (billionths % RATE_SCALE == 0)
		return sim_text_printf(t, " %" PRIu64, billionths / RATE_SCALE);
	n = snprintf(digits, sizeof(digits), "%0*" PRIu64, RATE_DECIMALS, billionths % RATE_SCALE);
	while (n > 0 && digits[n - 1] == '0')
		n--;
	return sim_text_printf(t, " %" PRIu64 ".%.*s", billionths / RATE_SCALE, n, digits);
}

/* seed=N, or N bare as umad fabric first took it; decimal or 0x hex either way. */
static int parse_seed(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;
	const char *n = strncmp(word, "seed=", 5) ? word : word + 5;

	if (sim_fault_parse_u64(n, 1, UINT64_MAX, &rq->seed) < 0)
		return umad_err_set(err, -1, "expected seed=N (a number), not \"%s\"",
				    sim_fault_show(word, &shown));
	return 0;
}

static int format_seed(struct sim_text *t, const struct sim_fault_req *rq)
{
	return rq->seed ? sim_text_printf(t, " seed=%" PRIu64, rq->seed) : 0;
}

static int parse_delay_word(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;
	int r = parse_delay(word, &rq->delay_ns);

	if (r == -2)
		return umad_err_set(err, -1, "%s is longer than a minute (at most %u microseconds)",
				    sim_fault_show(word, &shown), SIM_FAULT_MAX_DELAY_US);
	if (r < 0)
		return umad_err_set(err, -1,
				    "bad delay \"%s\": microseconds, or a number with ns, us or ms",
				    sim_fault_show(word, &shown));
	return 0;
}

static int check_delay(const struct sim_fault_req *rq, struct umad_err *err)
{
	uint64_t ns = rq->delay_ns;

	if (ns > SIM_FAULT_MAX_DELAY_NS)
		return umad_err_set(err, -EINVAL,
				    "a delay of %" PRIu64 " %s is longer than a minute (at most %u microseconds)",
				    ns % 1000u ? ns : ns / 1000u, ns % 1000u ? "ns" : "microseconds",
				    SIM_FAULT_MAX_DELAY_US);
	return 0;
}

/* Microseconds, the unit a bare number has, unless there are nanoseconds too. */
static int format_delay(struct sim_text *t, const struct sim_fault_req *rq)
{
	if (check_delay(rq, NULL) < 0)
		return -EINVAL;
	if (rq->delay_ns % 1000 == 0)
		return sim_text_printf(t, " %" PRIu64, rq->delay_ns / 1000);
	return sim_text_printf(t, " %" PRIu64 "ns", rq->delay_ns);
}

/*
 * A COUNTER that names no error counter: a traffic counter (PortXmitData...)
 * is counted from the packets the port carries and cannot be raised; any
 * other name is unknown.  umad --help lists the error counters.
 */
static int counter_refused(const char *word, int rc, struct umad_err *err)
{
	const char *traffic = sim_pma_traffic_counter(word);
	const char *example = sim_pma_counter_name(SIM_PMA_SYMBOL_ERRORS);
	struct sim_fault_shown shown;

	if (traffic)
		return umad_err_set(err, rc, "%s counts the traffic through the port, and cannot "
				    "be raised: COUNTER is an error counter, e.g. %s (umad --help "
				    "lists them)", traffic, example);
	return umad_err_set(err, rc, "unknown counter \"%s\": COUNTER is an error counter, e.g. "
			    "%s (umad --help lists them)", sim_fault_show(word, &shown), example);
}

static int check_counter(const struct sim_fault_req *rq, struct umad_err *err)
{
	if (!rq->counter[0])
		return umad_err_set(err, -EINVAL, "no counter named");
	if (!memchr(rq->counter, '\0', sizeof(rq->counter)))
		return umad_err_set(err, -EINVAL, "a counter name longer than %d bytes",
				    SIM_FAULT_COUNTER_MAX);
	if (sim_pma_counter_by_name(rq->counter) < 0)
		return counter_refused(rq->counter, -EINVAL, err);
	return 0;
}

/* Any case, and the other names the PMA knows; kept as the PMA names it. */
static int parse_counter(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	int c = sim_pma_counter_by_name(word);

	if (c < 0)
		return counter_refused(word, -1, err);
	snprintf(rq->counter, sizeof(rq->counter), "%s",
		 sim_pma_counter_name((enum sim_pma_counter)c));
	return 0;
}

static int format_counter(struct sim_text *t, const struct sim_fault_req *rq)
{
	if (check_counter(rq, NULL) < 0)
		return -EINVAL;
	return sim_text_printf(t, " %s",
			       sim_pma_counter_name((enum sim_pma_counter)sim_pma_counter_by_name(rq->counter)));
}

static int parse_count(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;

	if (sim_fault_parse_u64(word, 0, UINT64_MAX, &rq->count) < 0 || !rq->count)
		return umad_err_set(err, -1, "bad count \"%s\": a number, 1 or more",
				    sim_fault_show(word, &shown));
	return 0;
}

static int format_count(struct sim_text *t, const struct sim_fault_req *rq)
{
	return rq->count ? sim_text_printf(t, " %" PRIu64, rq->count) : -EINVAL;
}

static int parse_trap(const char *word, struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_fault_shown shown;
	char list[64] = "";
	size_t i, n = 0;
	uint64_t v;

	if (sim_fault_parse_u64(word, 0, UINT16_MAX, &v) == 0 && trap_known((unsigned)v)) {
		rq->trap = (unsigned)v;
		return 0;
	}
	for (i = 0; i < N_TRAPS && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u",
				      !i ? "" : i + 1 < N_TRAPS ? ", " : " or ", traps[i]);
	return umad_err_set(err, -1, "\"%s\" is not a trap the fabric sends (%s)",
			    sim_fault_show(word, &shown), list);
}

static int check_trap(const struct sim_fault_req *rq, struct umad_err *err)
{
	if (!trap_known(rq->trap))
		return umad_err_set(err, -EINVAL, "no trap %u (128-131, 144 or 145)", rq->trap);
	return 0;
}

static int format_trap(struct sim_text *t, const struct sim_fault_req *rq)
{
	return trap_known(rq->trap) ? sim_text_printf(t, " %u", rq->trap) : -EINVAL;
}

static const struct arg_type arg_types[SIM_FAULT_N_ARGS] = {
	[SIM_FAULT_ARG_UP_DOWN] = { "up|down", 0, parse_up_down, format_up_down, NULL },
	[SIM_FAULT_ARG_NODE] = { "NODE", 0, parse_node, format_node, NULL },
	[SIM_FAULT_ARG_PORT] = { "PORT", 0, parse_port, format_port, NULL },
	[SIM_FAULT_ARG_LINK_PORT] = { "PORT", 0, parse_link_port, format_link_port, NULL },
	[SIM_FAULT_ARG_RATE] = { "RATE", 0, parse_rate_word, format_rate, check_rate },
	[SIM_FAULT_ARG_SEED] = { "seed=N", 1, parse_seed, format_seed, NULL },
	[SIM_FAULT_ARG_DELAY] = { "DELAY", 0, parse_delay_word, format_delay, check_delay },
	[SIM_FAULT_ARG_COUNTER] = { "COUNTER", 0, parse_counter, format_counter, check_counter },
	[SIM_FAULT_ARG_COUNT] = { "COUNT", 0, parse_count, format_count, NULL },
	[SIM_FAULT_ARG_TRAP] = { "NUMBER", 0, parse_trap, format_trap, check_trap },
};

/* --- the kinds ---------------------------------------------------------------------------- */

static int apply_link(struct sim_net *net, struct sim_node *n, struct sim_port *p,
		      const struct sim_fault_req *rq)
{
	(void)n;
	return sim_fault_link(net, p, rq->up);
}

static int apply_node(struct sim_net *net, struct sim_node *n, struct sim_port *p,
		      const struct sim_fault_req *rq)
{
	(void)p;
	return sim_fault_node(net, n, rq->up);
}

static int apply_drop(struct sim_net *net, struct sim_node *n, struct sim_port *p,
		      const struct sim_fault_req *rq)
{
	(void)net;
	(void)n;
	return sim_fault_drop(p, rq->rate, rq->seed);
}

static int apply_delay(struct sim_net *net, struct sim_node *n, struct sim_port *p,
		       const struct sim_fault_req *rq)
{
	(void)net;
	(void)n;
	return sim_fault_delay(p, sim_fault_delay_us(rq->delay_ns));
}

static int apply_counter(struct sim_net *net, struct sim_node *n, struct sim_port *p,
			 const struct sim_fault_req *rq)
{
	(void)n;
	return sim_fault_counter(net, p, rq->counter, rq->count);
}

/* A trap this port may send: made and thrown away, trap_details being the one list of them. */
static int check_trap_port(struct sim_port *p, const struct sim_fault_req *rq, struct umad_err *err)
{
	uint8_t scratch[NOTICE_DETAILS_SIZE];
	struct sim_fault_shown name;

	if (trap_details(p, rq->trap, scratch) == 0)
		return 0;
	if (rq->trap == TRAP_LINK_STATE_CHANGE)
		return umad_err_set(err, -EINVAL, "only switches send trap %u, and \"%s\" is a %s",
				    rq->trap, sim_fault_show(rq->node, &name),
				    sim_node_type_name(p->node->type));
	return check_trap(rq, err);
}

static int apply_trap(struct sim_net *net, struct sim_node *n, struct sim_port *p,
		      const struct sim_fault_req *rq)
{
	(void)n;
	return sim_fault_trap(net, p, rq->trap);
}

static const struct sim_fault_op_info ops[SIM_FAULT_N_OPS] = {
	[SIM_FAULT_LINK] = {
		.name = "link",
		.args = { SIM_FAULT_ARG_UP_DOWN, SIM_FAULT_ARG_NODE, SIM_FAULT_ARG_LINK_PORT },
		.flags = SIM_FAULT_CABLE | SIM_FAULT_CHANGES_PORTS,
		.help = "a port's link down at both ends (Trap 128), or up again",
		.example = "link down Switch1 7",
		.apply = apply_link,
	},
	[SIM_FAULT_NODE] = {
		.name = "node",
		.args = { SIM_FAULT_ARG_UP_DOWN, SIM_FAULT_ARG_NODE },
		.flags = SIM_FAULT_WHOLE_NODE | SIM_FAULT_CHANGES_PORTS,
		.help = "every link of a node down, as if it lost power, or up again",
		.example = "node down Hca2",
		.apply = apply_node,
	},
	[SIM_FAULT_DROP] = {
		.name = "drop",
		.args = { SIM_FAULT_ARG_NODE, SIM_FAULT_ARG_LINK_PORT, SIM_FAULT_ARG_RATE,
			  SIM_FAULT_ARG_SEED },
		.help = "drop packets leaving a port at RATE (0 to 1; 0 stops), seeded",
		.example = "drop Switch1 8 0.25 seed=7",
		.apply = apply_drop,
	},
	[SIM_FAULT_DELAY] = {
		.name = "delay",
		.args = { SIM_FAULT_ARG_NODE, SIM_FAULT_ARG_LINK_PORT, SIM_FAULT_ARG_DELAY },
		.help = "hold packets leaving a port DELAY microseconds (or ns, us, ms)",
		.example = "delay Switch1 8 1500ns",
		.apply = apply_delay,
	},
	[SIM_FAULT_COUNTER] = {
		.name = "counter",
		.args = { SIM_FAULT_ARG_NODE, SIM_FAULT_ARG_PORT, SIM_FAULT_ARG_COUNTER,
			  SIM_FAULT_ARG_COUNT },
		.flags = SIM_FAULT_PORT0,
		.help = "raise a port's error counter (its PortCounters name) by COUNT",
		.example = "counter Hca1 1 SymbolErrorCounter 5",
		.apply = apply_counter,
	},
	[SIM_FAULT_TRAP] = {
		.name = "trap",
		.args = { SIM_FAULT_ARG_NODE, SIM_FAULT_ARG_PORT, SIM_FAULT_ARG_TRAP },
		.flags = SIM_FAULT_PORT0 | SIM_FAULT_CHANGES_PORTS,
		.help = "send a trap (128-131, 144, 145) from a port to its SM",
		.example = "trap Switch2 0 128",
		.check = check_trap_port,
		.apply = apply_trap,
	},
};

const struct sim_fault_op_info *sim_fault_op_info(enum sim_fault_op op)
{
	return op >= SIM_FAULT_LINK && op < SIM_FAULT_N_OPS ? &ops[op] : NULL;
}

const char *sim_fault_op_name(enum sim_fault_op op)
{
	const struct sim_fault_op_info *info = sim_fault_op_info(op);

	return info ? info->name : NULL;
}

int sim_fault_op_by_name(const char *name)
{
	int op;

	for (op = SIM_FAULT_LINK; name && op < SIM_FAULT_N_OPS; op++)
		if (!strcmp(name, ops[op].name))
			return op;
	return -1;
}

int sim_fault_changes_ports(enum sim_fault_op op)
{
	const struct sim_fault_op_info *info = sim_fault_op_info(op);

	return info && (info->flags & SIM_FAULT_CHANGES_PORTS);
}

void sim_fault_usage(enum sim_fault_op op, char *buf, size_t max)
{
	const struct sim_fault_op_info *info = sim_fault_op_info(op);
	size_t n, i;

	if (!max)
		return;
	buf[0] = '\0';
	if (!info)
		return;
	n = (size_t)snprintf(buf, max, "%s", info->name);
	for (i = 0; info->args[i] && n < max; i++) {
		const struct arg_type *a = &arg_types[info->args[i]];

		n += (size_t)snprintf(buf + n, max - n, a->optional ? " [%s]" : " %s", a->metavar);
	}
}

/* --- text ---------------------------------------------------------------------------------- */

/* "link, node, drop, delay, counter or trap" */
static void op_names(char *buf, size_t max)
{
	size_t n = 0;
	int op;

	buf[0] = '\0';
	for (op = SIM_FAULT_LINK; op < SIM_FAULT_N_OPS && n < max; op++)
		n += (size_t)snprintf(buf + n, max - n, "%s%s",
				      op == SIM_FAULT_LINK ? "" : op + 1 < SIM_FAULT_N_OPS ? ", " : " or ",
				      ops[op].name);
}

int sim_fault_parse(int argc, const char *const *argv, struct sim_fault_req *rq,
		    struct umad_err *err)
{
	const struct sim_fault_op_info *info;
	struct sim_fault_shown shown;
	char usage[128], msg[256];
	unsigned n_args, required = 0, i;
	int op;

	memset(rq, 0, sizeof(*rq));
	if (argc < 1 || !argv || !argv[0])
		return umad_err_set(err, -EINVAL, "no command");
	op = sim_fault_op_by_name(argv[0]);
	if (op < 0) {
		op_names(msg, sizeof(msg));
		return umad_err_set(err, -EINVAL, "unknown command \"%s\" (%s)",
				    sim_fault_show(argv[0], &shown), msg);
	}
	info = &ops[op];
	for (n_args = 0; info->args[n_args]; n_args++)
		required += !arg_types[info->args[n_args]].optional;
	sim_fault_usage((enum sim_fault_op)op, usage, sizeof(usage));
	if ((unsigned)argc - 1 < required)
		return umad_err_set(err, -EINVAL, "%s: missing arguments (%s)", info->name, usage);
	if ((unsigned)argc - 1 > n_args)
		return umad_err_set(err, -EINVAL, "%s: too many arguments (%s)", info->name, usage);
	rq->op = (enum sim_fault_op)op;
	for (i = 0; i + 1 < (unsigned)argc; i++) {
		if (arg_types[info->args[i]].parse(argv[i + 1], rq, err) < 0) {
			memset(rq, 0, sizeof(*rq));
			return umad_err_prefix(err, -EINVAL, "%s: ", info->name);
		}
	}
	return 0;
}

int sim_fault_split(const char *s, size_t len, char (*words)[SIM_FAULT_WORD_MAX],
		    unsigned max_words, unsigned *total, struct umad_err *err)
{
	size_t i = 0;

	*total = 0;
	for (;;) {
		char *out;
		size_t n = 0;

		while (i < len && is_blank(s[i]))
			i++;
		if (i == len || s[i] == '#')
			return 0;
		out = *total < max_words ? words[*total] : NULL;
		if (s[i] == '"') {
			for (i++; i < len && s[i] != '"'; i++) {
				char c = s[i];

				if (c == '\\') {
					if (i + 1 == len || (s[i + 1] != '"' && s[i + 1] != '\\'))
						return umad_err_set(err, -EINVAL,
								    "unknown escape in a quoted word: only \\\" and \\\\");
					c = s[++i];
				}
				if (n + 1 >= SIM_FAULT_WORD_MAX)
					return umad_err_set(err, -EINVAL, "a word longer than %d bytes",
							    SIM_FAULT_WORD_MAX - 1);
				if (out)
					out[n] = c;
				n++;
			}
			if (i == len)
				return umad_err_set(err, -EINVAL, "a quoted word has no closing quote");
			i++;
			if (i < len && !is_blank(s[i]))
				return umad_err_set(err, -EINVAL,
						    "a quoted word must be followed by a blank or the end of the line");
		} else {
			for (; i < len && !is_blank(s[i]); i++) {
				if (s[i] == '"')
					return umad_err_set(err, -EINVAL,
							    "a quote inside a word (quote the whole word)");
				if (n + 1 >= SIM_FAULT_WORD_MAX)
					return umad_err_set(err, -EINVAL, "a word longer than %d bytes",
							    SIM_FAULT_WORD_MAX - 1);
				if (out)
					out[n] = s[i];
				n++;
			}
		}
		if (out)
			out[n] = '\0';
		(*total)++;
	}
}

int sim_fault_format(const struct sim_fault_req *rq, struct sim_text *t)
{
	const struct sim_fault_op_info *info = rq ? sim_fault_op_info(rq->op) : NULL;
	struct sim_text line = SIM_TEXT_INIT;
	size_t i;
	int r = 0;

	if (!info || !t)
		return -EINVAL;
	sim_text_append(&line, info->name, strlen(info->name));
	for (i = 0; info->args[i] && r == 0; i++) {
		r = arg_types[info->args[i]].format(&line, rq);
		r = r == -EINVAL ? r : 0;	/* -ENOMEM sticks in line.err */
	}
	/* All or nothing: t is left as it was when the request has no line. */
	if (r == 0)
		r = line.err ? line.err : sim_text_append(t, sim_text_str(&line), line.len);
	sim_text_free(&line);
	return r;
}

int sim_fault_same(const struct sim_fault_req *a, const struct sim_fault_req *b)
{
	return a->op == b->op && !strncmp(a->node, b->node, sizeof(a->node)) &&
	       a->port == b->port && a->up == b->up && a->rate == b->rate && a->seed == b->seed &&
	       a->delay_ns == b->delay_ns && !strncmp(a->counter, b->counter, sizeof(a->counter)) &&
	       a->count == b->count && a->trap == b->trap;
}

/* --- bytes ------------------------------------------------------------------------------ */


static void put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t get_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

int sim_fault_encode(const struct sim_fault_req *rq, uint8_t *buf, size_t max)
{
	size_t node = strnlen(rq->node, sizeof(rq->node));
	size_t counter = strnlen(rq->counter, sizeof(rq->counter));
	size_t len = SIM_FAULT_WIRE_FIXED + node + 1 + counter + 1;
	uint64_t rate;

	if (node == sizeof(rq->node) || counter == sizeof(rq->counter) || len > max)
		return -EINVAL;
	memset(buf, 0, SIM_FAULT_WIRE_FIXED);
	buf[SIM_FAULT_WIRE_OFF_VERSION] = SIM_FAULT_WIRE_VERSION;
	buf[SIM_FAULT_WIRE_OFF_UP] = rq->up != 0;
	put_le32(buf + SIM_FAULT_WIRE_OFF_OP, (uint32_t)rq->op);
	put_le32(buf + SIM_FAULT_WIRE_OFF_PORT, rq->port);
	put_le32(buf + SIM_FAULT_WIRE_OFF_TRAP, rq->trap);
	memcpy(&rate, &rq->rate, sizeof(rate));
	put_le64(buf + SIM_FAULT_WIRE_OFF_RATE, rate);
	put_le64(buf + SIM_FAULT_WIRE_OFF_SEED, rq->seed);
	put_le64(buf + SIM_FAULT_WIRE_OFF_DELAY, rq->delay_ns);
	put_le64(buf + SIM_FAULT_WIRE_OFF_COUNT, rq->count);
	memcpy(buf + SIM_FAULT_WIRE_FIXED, rq->node, node + 1);
	memcpy(buf + SIM_FAULT_WIRE_FIXED + node + 1, rq->counter, counter + 1);
	return (int)len;
}

/* A name of at most size - 1 bytes and its NUL at *at in buf[0..len); its length with the NUL, or 0. */
static size_t wire_name(const uint8_t *buf, size_t len, size_t at, char *out, size_t size)
{
	size_t room = len - at < size ? len - at : size;
	const uint8_t *nul = memchr(buf + at, '\0', room);

	if (!nul)
		return 0;
	memcpy(out, buf + at, (size_t)(nul - (buf + at)) + 1);
	return (size_t)(nul - (buf + at)) + 1;
}

int sim_fault_decode(const uint8_t *buf, size_t len, struct sim_fault_req *rq,
		     struct umad_err *err)
{
	size_t node, counter;
	uint64_t rate;

	memset(rq, 0, sizeof(*rq));
	if (len < SIM_FAULT_WIRE_MIN)
		return umad_err_set(err, -EINVAL, "a fault request of %zu bytes, less than its %d",
				    len, SIM_FAULT_WIRE_MIN);
	if (buf[SIM_FAULT_WIRE_OFF_VERSION] != SIM_FAULT_WIRE_VERSION)
		return umad_err_set(err, -EINVAL,
				    "a fault request of version %u; this fabric reads version %u",
				    buf[SIM_FAULT_WIRE_OFF_VERSION], SIM_FAULT_WIRE_VERSION);
	node = wire_name(buf, len, SIM_FAULT_WIRE_FIXED, rq->node, sizeof(rq->node));
	counter = node ? wire_name(buf, len, SIM_FAULT_WIRE_FIXED + node, rq->counter,
				   sizeof(rq->counter)) : 0;
	if (!node || !counter || SIM_FAULT_WIRE_FIXED + node + counter != len ||
	    buf[SIM_FAULT_WIRE_OFF_UP] > 1 || buf[SIM_FAULT_WIRE_OFF_PAD] || buf[SIM_FAULT_WIRE_OFF_PAD + 1]) {
		memset(rq, 0, sizeof(*rq));
		return umad_err_set(err, -EINVAL, "a malformed fault request (%zu bytes)", len);
	}
	rq->op = (enum sim_fault_op)get_le32(buf + SIM_FAULT_WIRE_OFF_OP);
	rq->up = buf[SIM_FAULT_WIRE_OFF_UP];
	rq->port = get_le32(buf + SIM_FAULT_WIRE_OFF_PORT);
	rq->trap = get_le32(buf + SIM_FAULT_WIRE_OFF_TRAP);
	rate = get_le64(buf + SIM_FAULT_WIRE_OFF_RATE);
	memcpy(&rq->rate, &rate, sizeof(rate));
	rq->seed = get_le64(buf + SIM_FAULT_WIRE_OFF_SEED);
	rq->delay_ns = get_le64(buf + SIM_FAULT_WIRE_OFF_DELAY);
	rq->count = get_le64(buf + SIM_FAULT_WIRE_OFF_COUNT);
	return 0;
}

/* --- on a fabric ---------------------------------------------------------------------- */

int sim_fault_target(const struct sim_fabric *f, const struct sim_fault_req *rq,
		     struct sim_node **np, struct sim_port **pp, struct umad_err *err)
{
	const struct sim_fault_op_info *info;
	struct sim_fault_shown name;
	struct sim_node *n;
	struct sim_port *p;
	size_t i;
	int r;

	if (!f || !rq)
		return -EINVAL;
	if (!rq->node[0])
		return umad_err_set(err, -EINVAL, "no node named");
	if (!memchr(rq->node, '\0', sizeof(rq->node)))
		return umad_err_set(err, -ENOENT, "a node name longer than %d bytes names no node",
				    SIM_FAULT_NODE_MAX);
	n = sim_fabric_find(f, rq->node);
	if (!n)
		return umad_err_set(err, -ENOENT, "'%s' names no node of the fabric",
				    sim_fault_show(rq->node, &name));
	info = sim_fault_op_info(rq->op);
	if (!info)
		return umad_err_set(err, -EINVAL, "unknown fault operation %d", (int)rq->op);
	if (np)
		*np = n;
	if (info->flags & SIM_FAULT_WHOLE_NODE)
		return 0;
	sim_fault_show(rq->node, &name);
	if (rq->port > n->num_ports)
		return umad_err_set(err, -EINVAL, "\"%s\" has ports 1..%u, no port %u", name.s,
				    n->num_ports, rq->port);
	if (rq->port == 0 && n->type != NODE_TYPE_SWITCH)
		return umad_err_set(err, -EINVAL, "port 0 is a switch's own, and \"%s\" is a %s",
				    name.s, sim_node_type_name(n->type));
	if (rq->port == 0 && !(info->flags & SIM_FAULT_PORT0))
		return umad_err_set(err, -EINVAL, "port 0 of \"%s\" is the switch's own, with no link",
				    name.s);
	p = &n->ports[rq->port];
	if ((info->flags & SIM_FAULT_CABLE) && !p->peer)
		return umad_err_set(err, -ENOTCONN, "port %u of \"%s\" has no cable", rq->port,
				    name.s);
	for (i = 0; info->args[i]; i++) {
		const struct arg_type *a = &arg_types[info->args[i]];

		if (a->check && (r = a->check(rq, err)) < 0)
			return r;
	}
	if (info->check && (r = info->check(p, rq, err)) < 0)
		return r;
	if (pp)
		*pp = p;
	return 0;
}

int sim_fault_apply(struct sim_net *net, const struct sim_fault_req *rq, struct umad_err *err)
{
	struct sim_node *n = NULL;
	struct sim_port *p = NULL;
	int r;

	if (!net || !net->f || !rq)
		return -EINVAL;
	r = sim_fault_target(net->f, rq, &n, &p, err);
	if (r < 0)
		return r;
	return ops[rq->op].apply(net, n, p, rq);
}
