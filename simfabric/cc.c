/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The congestion control agent (cc.h).  Layouts as IBA Annex A10 gives
 * them and libibmad decodes them (ibccquery, ibccconfig, opensm's
 * congestion control manager are the clients); the fields are mad_layout.h's.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mad_layout.h"
#include "simfabric/arena.h"
#include "simfabric/attr_table.h"
#include "simfabric/cc.h"

#define CCT_ENTRIES	(SIM_CC_CCT_BLOCKS * CC_CCT_PER_BLOCK)
#define MAX_LOG_EVENTS	CC_LOG_SWITCH_EVENTS	/* the larger of the two logs */
#define LOG_PORT_BITS	MAD_FIELD_BITS(CCLS_PORT_MAP)	/* PortMap: ports 1..254 */

/* ClassPortInfo: the trap destination (TrapGID to TrapQ_Key), the part a Set changes. */
#define CPI_TRAP	MAD_FIELD(MAD_FIELD_BYTE(CPI_TRAP_GID), 0, \
				  MAD_FIELD_END(CPI_TRAP_Q_KEY) - MAD_FIELD_START(CPI_TRAP_GID))
#define CPI_TRAP_SIZE	MAD_FIELD_SIZE(CPI_TRAP)

struct cc_event {
	uint16_t slid, dlid, remote_lid, local_lid;
	uint32_t local_qp, remote_qp, timestamp;
	uint8_t sl, service_type;
};

/* What one agent keeps: a switch's only one, or each port's of a CA or router. */
struct cc_agent {
	/* CongestionKeyInfo. */
	uint64_t key;
	uint16_t lease_period, violations;
	uint8_t protect;
	uint64_t lease_deadline_ns;		/* 0: the lease timer does not run */
	uint8_t trap[CPI_TRAP_SIZE];		/* ClassPortInfo's Trap* fields, as set */
	/* CongestionLog since it was last read. */
	uint16_t log_counter, log_event_map;
	uint8_t log_port_map[LOG_PORT_BITS / 8];
	unsigned n_events, first_event;		/* a ring of the latest MAX_LOG_EVENTS */
	struct cc_event events[MAX_LOG_EVENTS];
	/* CACongestionSetting, CongestionControlTable. */
	uint16_t port_control, ca_control_map;
	struct {
		uint16_t ccti_timer;
		uint8_t ccti_increase, trigger_threshold, ccti_min;
	} ca[CC_CA_ENTRIES];
	uint16_t ccti_limit;
	uint16_t cct[CCT_ENTRIES];
};

/* A switch's SwitchCongestionSetting. */
struct cc_switch {
	uint32_t control_map;			/* the parts ever set */
	uint8_t victim_mask[MAD_FIELD_SIZE(SCS_VICTIM_MASK)];
	uint8_t credit_mask[MAD_FIELD_SIZE(SCS_CREDIT_MASK)];
	uint8_t threshold, packet_size, cs_threshold;
	uint16_t cs_return_delay, marking_rate;
};

/* node->cc: one allocation holding the agents and, for a switch, its port elements. */
struct sim_cc {
	struct cc_switch sw;
	uint8_t (*port_setting)[CC_PORT_SETTING_SIZE];	/* switches: num_ports + 1, wire form */
	unsigned n_agents;
	struct cc_agent agent[];		/* switches: [0]; others: [port] */
};

static const struct cc_agent default_agent;
static const struct cc_switch default_switch;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The free-running Timestamp: 1.024 us units, 32 bits. */
static uint32_t timestamp(void)
{
	return (uint32_t)(now_ns() >> 10);
}

/* --- the state ------------------------------------------------------------------ */

static unsigned agents_of(const struct sim_node *n)
{
	return n->type == NODE_TYPE_SWITCH ? 1u : n->num_ports + 1u;
}

/* The node's state, allocated with the defaults on first need; NULL on ENOMEM. */
static struct sim_cc *cc_state(struct sim_node *n)
{
	unsigned agents = agents_of(n);
	size_t size = sizeof(struct sim_cc) + agents * sizeof(struct cc_agent);
	struct sim_cc *cc;

	if (n->cc)
		return n->cc;
	if (n->type == NODE_TYPE_SWITCH)
		size += (n->num_ports + 1u) * (size_t)CC_PORT_SETTING_SIZE;
	cc = sim_mem_calloc(n, 1, size);
	if (!cc)
		return NULL;
	cc->n_agents = agents;
	if (n->type == NODE_TYPE_SWITCH)
		cc->port_setting = (void *)&cc->agent[agents];
	n->cc = cc;
	return cc;
}

/* The agent a MAD arriving through in_port reaches (read-only defaults when unset), or NULL. */
static const struct cc_agent *agent_of(const struct sim_node *n, unsigned in_port)
{
	unsigned i = n->type == NODE_TYPE_SWITCH ? 0 : in_port;

	if (n->type != NODE_TYPE_SWITCH && (in_port < 1 || in_port > n->num_ports))
		return NULL;
	return n->cc ? &n->cc->agent[i] : &default_agent;
}

/* The same agent, writable (allocating the state); NULL on ENOMEM. */
static struct cc_agent *agent_for_set(struct sim_node *n, unsigned in_port)
{
	struct sim_cc *cc = cc_state(n);

	if (!cc)
		return NULL;
	return &cc->agent[n->type == NODE_TYPE_SWITCH ? 0 : in_port];
}

/* --- a request ------------------------------------------------------------------- */

/* How a request is answered: with a status (0 success) or not at all. */
#define CC_SILENT	(-1)

struct cc_request {
	struct sim_node *node;
	unsigned in_port;
	const struct cc_agent *agent;	/* as it is before a Set */
	int set;
	uint32_t mod;
	uint8_t *data;			/* the attribute data, answered in place */
};

/* The agent to change, allocated on this first Set; NULL on ENOMEM. */
static struct cc_agent *writable(struct cc_request *r)
{
	struct cc_agent *a = agent_for_set(r->node, r->in_port);

	if (a)
		r->agent = a;
	return a;
}

/* --- ClassPortInfo ------------------------------------------------------------------ */

static int class_port_info(void *request)
{
	struct cc_request *r = request;
	const struct sim_port *m = sim_mgmt_port(r->node, r->in_port);
	uint8_t *d = r->data;

	if (r->mod)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		struct cc_agent *a = writable(r);

		if (!a)
			return CC_SILENT;	/* out of memory: as a lost packet */
		memcpy(a->trap, MAD_AT(d, CPI_TRAP), CPI_TRAP_SIZE);
	}
	memset(d, 0, CC_DATA_SIZE);
	mad_set(d, CPI_BASE_VERSION, UMAD_BASE_VERSION);
	mad_set(d, CPI_CLASS_VERSION, CC_CLASS_VERSION);
	/* CapabilityMask 0: no traps, no Notice; CapabilityMask2 0. */
	mad_set(d, CPI_RESP_TIME_VALUE, m->resp_time_value);
	memcpy(MAD_AT(d, CPI_TRAP), r->agent->trap, CPI_TRAP_SIZE);
	return 0;
}

/* --- CongestionInfo, CongestionKeyInfo --------------------------------------------- */

static int congestion_info(void *request)
{
	struct cc_request *r = request;

	if (r->mod)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	memset(r->data, 0, CC_DATA_SIZE);
	/* CongestionInfo 0: no credit starvation (switches), no QP/SL-based choice (CAs). */
	mad_set(r->data, CCI_CONGESTION_INFO, 0);
	/* ControlTableCap: CA ports have a CongestionControlTable. */
	mad_set(r->data, CCI_CONTROL_TABLE_CAP, r->node->type == NODE_TYPE_CA ? SIM_CC_CCT_BLOCKS : 0);
	return 0;
}

static void encode_key_info(const struct cc_agent *a, uint8_t *d)
{
	memset(d, 0, CC_DATA_SIZE);
	mad_set(d, CCK_CC_KEY, a->key);
	mad_set(d, CCK_PROTECT_BIT, a->protect);
	mad_set(d, CCK_LEASE_PERIOD, a->lease_period);
	mad_set(d, CCK_VIOLATIONS, a->violations);
}

static int congestion_key_info(void *request)
{
	struct cc_request *r = request;
	uint8_t *d = r->data;

	if (r->mod)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		struct cc_agent *a = writable(r);

		if (!a)
			return CC_SILENT;
		a->key = mad_get(d, CCK_CC_KEY);
		a->protect = (uint8_t)mad_get(d, CCK_PROTECT_BIT);
		a->lease_period = (uint16_t)mad_get(d, CCK_LEASE_PERIOD);
		/* Writing 0 clears the violation count; any other value leaves it. */
		if (!mad_get(d, CCK_VIOLATIONS))
			a->violations = 0;
		a->lease_deadline_ns = 0;
	}
	encode_key_info(r->agent, d);
	return 0;
}

/* --- CongestionLog ------------------------------------------------------------------- */

/* Read out and clear the log (it holds what happened since it was last read). */
static int congestion_log(void *request)
{
	struct cc_request *r = request;
	enum node_type type = r->node->type;
	const struct cc_agent *a = r->agent;
	uint8_t *d = r->data;
	unsigned i, shown, skipped;

	if (r->mod)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	memset(d, 0, CC_LOG_DATA_SIZE);
	mad_set(d, CCL_LOG_TYPE, type == NODE_TYPE_SWITCH ? CC_LOG_TYPE_SWITCH : CC_LOG_TYPE_CA);
	mad_set(d, CCL_CONGESTION_FLAGS, a->lease_deadline_ns ? CC_LOG_FLAG_LEASE_ACTIVE : 0);
	/* The latest events the node's kind of log has room for (a CA's holds fewer). */
	shown = type == NODE_TYPE_SWITCH ? CC_LOG_SWITCH_EVENTS : CC_LOG_CA_EVENTS;
	if (shown > a->n_events)
		shown = a->n_events;
	skipped = a->n_events - shown;
	for (i = 0; i < shown; i++) {
		const struct cc_event *e =
			&a->events[(a->first_event + skipped + i) % MAX_LOG_EVENTS];

		/* Event i: the first event's fields, i events further on. */
		if (type == NODE_TYPE_SWITCH) {
			uint8_t *o = d + i * CC_LOG_SWITCH_EVENT_SIZE;

			mad_set(o, CCLSE_SLID, e->slid);
			mad_set(o, CCLSE_DLID, e->dlid);
			mad_set(o, CCLSE_SL, e->sl);
			mad_set(o, CCLSE_TIMESTAMP, e->timestamp);
		} else {
			uint8_t *o = d + i * CC_LOG_CA_EVENT_SIZE;

			mad_set(o, CCLCE_LOCAL_QP, e->local_qp);
			mad_set(o, CCLCE_SL, e->sl);
			mad_set(o, CCLCE_SERVICE_TYPE, e->service_type);
			mad_set(o, CCLCE_REMOTE_QP, e->remote_qp);
			mad_set(o, CCLCE_LOCAL_LID, e->local_lid);
			mad_set(o, CCLCE_REMOTE_LID, e->remote_lid);
			mad_set(o, CCLCE_TIMESTAMP, e->timestamp);
		}
	}
	if (type == NODE_TYPE_SWITCH) {
		mad_set(d, CCLS_LOG_EVENTS_COUNTER, a->log_counter);
		mad_set(d, CCLS_CURRENT_TIME_STAMP, timestamp());
		memcpy(MAD_AT(d, CCLS_PORT_MAP), a->log_port_map, sizeof(a->log_port_map));
	} else {
		mad_set(d, CCLC_THRESHOLD_EVENT_COUNTER, a->log_counter);
		mad_set(d, CCLC_THRESHOLD_EVENT_MAP, a->log_event_map);
		mad_set(d, CCLC_CURRENT_TIME_STAMP, timestamp());
	}
	/* Sent: the next read starts afresh.  A node never logged to has nothing to clear. */
	if (r->node->cc) {
		struct cc_agent *w = writable(r);

		w->log_counter = 0;
		w->log_event_map = 0;
		memset(w->log_port_map, 0, sizeof(w->log_port_map));
		w->n_events = w->first_event = 0;
	}
	return 0;
}

static struct cc_event *log_event(struct cc_agent *a)
{
	struct cc_event *e;

	if (a->log_counter < UINT16_MAX)
		a->log_counter++;
	if (a->n_events < MAX_LOG_EVENTS) {
		e = &a->events[(a->first_event + a->n_events++) % MAX_LOG_EVENTS];
	} else {
		e = &a->events[a->first_event];
		a->first_event = (a->first_event + 1) % MAX_LOG_EVENTS;
	}
	memset(e, 0, sizeof(*e));
	e->timestamp = timestamp();
	return e;
}

int sim_cc_log_switch_event(struct sim_node *sw, unsigned port, uint16_t slid, uint16_t dlid,
			    uint8_t sl)
{
	struct cc_agent *a;
	struct cc_event *e;

	if (sw->type != NODE_TYPE_SWITCH || port < 1 || port > sw->num_ports ||
	    port >= LOG_PORT_BITS - 1)
		return -EINVAL;
	a = agent_for_set(sw, 0);
	if (!a)
		return -ENOMEM;
	e = log_event(a);
	e->slid = slid;
	e->dlid = dlid;
	e->sl = (uint8_t)(sl & mad_field_max(CCLSE_SL));
	/* PortMap: bit n for port n, counted from the map's last bit. */
	mad_set(a->log_port_map, MAD_FIELD(0, LOG_PORT_BITS - 1 - port, 1), 1);
	return 0;
}

int sim_cc_log_ca_event(struct sim_node *ca, unsigned port, uint32_t local_qp, uint32_t remote_qp,
			uint8_t sl, uint8_t service_type, uint16_t remote_lid)
{
	struct cc_agent *a;
	struct cc_event *e;

	if (ca->type != NODE_TYPE_CA || port < 1 || port > ca->num_ports)
		return -EINVAL;
	a = agent_for_set(ca, port);
	if (!a)
		return -ENOMEM;
	e = log_event(a);
	e->local_qp = local_qp & IB_QPN_MASK;
	e->remote_qp = remote_qp & IB_QPN_MASK;
	e->sl = (uint8_t)(sl & mad_field_max(CCLCE_SL));
	e->service_type = (uint8_t)(service_type & mad_field_max(CCLCE_SERVICE_TYPE));
	e->local_lid = ca->ports[port].lid;
	e->remote_lid = remote_lid;
	a->log_event_map |= (uint16_t)(1u << e->sl);
	return 0;
}

/* --- switches ---------------------------------------------------------------------- */

static int switch_congestion_setting(void *request)
{
	struct cc_request *r = request;
	const struct cc_switch *s = r->node->cc ? &r->node->cc->sw : &default_switch;
	uint8_t *d = r->data;

	if (r->mod)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		struct sim_cc *cc = cc_state(r->node);
		uint32_t map = (uint32_t)mad_get(d, SCS_CONTROL_MAP);	/* the parts that apply */
		struct cc_switch *w;

		if (!cc)
			return CC_SILENT;
		w = &cc->sw;
		if (map & CC_SWITCH_CTRL_VICTIM_MASK)
			memcpy(w->victim_mask, MAD_AT(d, SCS_VICTIM_MASK), sizeof(w->victim_mask));
		if (map & CC_SWITCH_CTRL_CREDIT_MASK)
			memcpy(w->credit_mask, MAD_AT(d, SCS_CREDIT_MASK), sizeof(w->credit_mask));
		if (map & CC_SWITCH_CTRL_THRESHOLD) {
			w->threshold = (uint8_t)mad_get(d, SCS_THRESHOLD);
			w->packet_size = (uint8_t)mad_get(d, SCS_PACKET_SIZE);
		}
		if (map & CC_SWITCH_CTRL_CS) {
			w->cs_threshold = (uint8_t)mad_get(d, SCS_CS_THRESHOLD);
			w->cs_return_delay = (uint16_t)mad_get(d, SCS_CS_RETURN_DELAY);
		}
		if (map & CC_SWITCH_CTRL_MARKING_RATE)
			w->marking_rate = (uint16_t)mad_get(d, SCS_MARKING_RATE);
		w->control_map |= map & (CC_SWITCH_CTRL_VICTIM_MASK | CC_SWITCH_CTRL_CREDIT_MASK |
					 CC_SWITCH_CTRL_THRESHOLD | CC_SWITCH_CTRL_CS |
					 CC_SWITCH_CTRL_MARKING_RATE);
		s = w;
	}
	memset(d, 0, CC_DATA_SIZE);
	mad_set(d, SCS_CONTROL_MAP, s->control_map);
	memcpy(MAD_AT(d, SCS_VICTIM_MASK), s->victim_mask, sizeof(s->victim_mask));
	memcpy(MAD_AT(d, SCS_CREDIT_MASK), s->credit_mask, sizeof(s->credit_mask));
	mad_set(d, SCS_THRESHOLD, s->threshold);
	mad_set(d, SCS_PACKET_SIZE, s->packet_size);
	mad_set(d, SCS_CS_THRESHOLD, s->cs_threshold);
	mad_set(d, SCS_CS_RETURN_DELAY, s->cs_return_delay);
	mad_set(d, SCS_MARKING_RATE, s->marking_rate);
	return 0;
}

/* Elements of the block the modifier names; those marked Valid in a Set are stored. */
static int switch_port_congestion_setting(void *request)
{
	struct cc_request *r = request;
	unsigned first = r->mod * CC_PORT_SETTING_PER_BLOCK, i, port;
	struct sim_node *n = r->node;
	uint8_t *d = r->data;

	if (r->mod > n->num_ports / CC_PORT_SETTING_PER_BLOCK)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		struct sim_cc *cc = cc_state(n);

		if (!cc)
			return CC_SILENT;
		for (i = 0, port = first; i < CC_PORT_SETTING_PER_BLOCK && port <= n->num_ports;
		     i++, port++) {
			const uint8_t *e = d + i * CC_PORT_SETTING_SIZE;

			if (!mad_get(e, SPCS_VALID))
				continue;
			/* Kept as the wire has it, reserved bits aside. */
			memcpy(cc->port_setting[port], e, CC_PORT_SETTING_SIZE);
			mad_set(cc->port_setting[port], SPCS_RESERVED, 0);
		}
	}
	memset(d, 0, CC_DATA_SIZE);
	for (i = 0, port = first; n->cc && i < CC_PORT_SETTING_PER_BLOCK && port <= n->num_ports;
	     i++, port++)
		memcpy(d + i * CC_PORT_SETTING_SIZE, n->cc->port_setting[port],
		       CC_PORT_SETTING_SIZE);
	return 0;
}

/* --- CA ports ------------------------------------------------------------------------- */

static int ca_congestion_setting(void *request)
{
	struct cc_request *r = request;
	const struct cc_agent *a;
	uint8_t *d = r->data;
	unsigned sl;

	if (r->mod)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		uint16_t map = (uint16_t)mad_get(d, CACS_CONTROL_MAP);
		struct cc_agent *w = writable(r);

		if (!w)
			return CC_SILENT;
		w->port_control = (uint16_t)(mad_get(d, CACS_PORT_CONTROL) & CACS_PORT_CONTROL_SL_BASED);
		for (sl = 0; sl < CC_CA_ENTRIES; sl++) {
			const uint8_t *e = d + sl * CC_CA_ENTRY_SIZE;	/* SL sl's entry */

			if (!(map & (1u << sl)))
				continue;
			w->ca[sl].ccti_timer = (uint16_t)mad_get(e, CACSE_CCTI_TIMER);
			w->ca[sl].ccti_increase = (uint8_t)mad_get(e, CACSE_CCTI_INCREASE);
			w->ca[sl].trigger_threshold = (uint8_t)mad_get(e, CACSE_TRIGGER_THRESHOLD);
			w->ca[sl].ccti_min = (uint8_t)mad_get(e, CACSE_CCTI_MIN);
		}
		w->ca_control_map |= map;
	}
	a = r->agent;
	memset(d, 0, CC_DATA_SIZE);
	mad_set(d, CACS_PORT_CONTROL, a->port_control);
	mad_set(d, CACS_CONTROL_MAP, a->ca_control_map);
	for (sl = 0; sl < CC_CA_ENTRIES; sl++) {
		uint8_t *e = d + sl * CC_CA_ENTRY_SIZE;

		mad_set(e, CACSE_CCTI_TIMER, a->ca[sl].ccti_timer);
		mad_set(e, CACSE_CCTI_INCREASE, a->ca[sl].ccti_increase);
		mad_set(e, CACSE_TRIGGER_THRESHOLD, a->ca[sl].trigger_threshold);
		mad_set(e, CACSE_CCTI_MIN, a->ca[sl].ccti_min);
	}
	return 0;
}

/* One block of 64 entries (the modifier); CCTI_Limit is the table's, in every block. */
static int congestion_control_table(void *request)
{
	struct cc_request *r = request;
	unsigned first = r->mod * CC_CCT_PER_BLOCK, i;
	uint8_t *d = r->data;

	if (r->mod >= SIM_CC_CCT_BLOCKS)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		uint16_t limit = (uint16_t)mad_get(d, CCT_CCTI_LIMIT);	/* the highest valid index */
		struct cc_agent *w;

		if (limit >= CCT_ENTRIES)
			return UMAD_STATUS_INVALID_ATTR_VALUE;
		w = writable(r);
		if (!w)
			return CC_SILENT;
		w->ccti_limit = limit;
		for (i = 0; i < CC_CCT_PER_BLOCK; i++)
			w->cct[first + i] = (uint16_t)mad_get_elem(d, CCT_ENTRY0, i);
	}
	memset(d, 0, CC_DATA_SIZE);
	mad_set(d, CCT_CCTI_LIMIT, r->agent->ccti_limit);
	for (i = 0; i < CC_CCT_PER_BLOCK; i++)
		mad_set_elem(d, CCT_ENTRY0, i, r->agent->cct[first + i]);
	return 0;
}

/* --- Timestamp ------------------------------------------------------------------------ */

static int timestamp_attr(void *request)
{
	struct cc_request *r = request;

	if (r->mod)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	memset(r->data, 0, CC_DATA_SIZE);
	mad_set(r->data, CCTS_TIMESTAMP, timestamp());
	return 0;
}

/* --- the table ------------------------------------------------------------------------ */

/* A log of the switch's or of the CA's kind: routers keep none. */
static int keeps_log(const struct sim_node *n)
{
	return sim_attr_at_switches(n) || sim_attr_at_cas(n);
}

SIM_ATTR_FIELD_LIST(class_port_info_fields, CLASS_PORT_INFO);
SIM_ATTR_FIELD_LIST(congestion_info_fields, CONGESTION_INFO);
SIM_ATTR_FIELD_LIST(congestion_key_info_fields, CONGESTION_KEY_INFO);
SIM_ATTR_FIELD_LIST(congestion_log_fields, CONGESTION_LOG);
SIM_ATTR_FIELD_LIST(switch_setting_fields, SWITCH_CONGESTION_SETTING);
SIM_ATTR_FIELD_LIST(switch_port_setting_fields, SWITCH_PORT_CONGESTION_SETTING);
SIM_ATTR_FIELD_LIST(ca_setting_fields, CA_CONGESTION_SETTING);
SIM_ATTR_FIELD_LIST(control_table_fields, CONGESTION_CONTROL_TABLE);
SIM_ATTR_FIELD_LIST(timestamp_fields, CC_TIMESTAMP);

/* What the CC agent answers (CongestionLog's data begins over the reserved bytes: CC_OFF_LOG_DATA). */
static const struct sim_attr cc_attrs[] = {
	{ CC_ATTR_CLASS_PORT_INFO, 1, "ClassPortInfo", SIM_ATTR_FIELDS(class_port_info_fields),
	  NULL, class_port_info, NULL },
	{ CC_ATTR_CONGESTION_INFO, 0, "CongestionInfo", SIM_ATTR_FIELDS(congestion_info_fields),
	  NULL, congestion_info, NULL },
	{ CC_ATTR_CONGESTION_KEY_INFO, 1, "CongestionKeyInfo",
	  SIM_ATTR_FIELDS(congestion_key_info_fields), NULL, congestion_key_info, NULL },
	{ CC_ATTR_CONGESTION_LOG, 0, "CongestionLog", SIM_ATTR_FIELDS(congestion_log_fields),
	  keeps_log, congestion_log, NULL },
	{ CC_ATTR_SWITCH_CONGESTION_SETTING, 1, "SwitchCongestionSetting",
	  SIM_ATTR_FIELDS(switch_setting_fields), sim_attr_at_switches, switch_congestion_setting, NULL },
	{ CC_ATTR_SWITCH_PORT_CONGESTION_SETTING, 1, "SwitchPortCongestionSetting",
	  SIM_ATTR_FIELDS(switch_port_setting_fields), sim_attr_at_switches, switch_port_congestion_setting,
	  NULL },
	{ CC_ATTR_CA_CONGESTION_SETTING, 1, "CACongestionSetting", SIM_ATTR_FIELDS(ca_setting_fields),
	  sim_attr_at_cas, ca_congestion_setting, NULL },
	{ CC_ATTR_CONGESTION_CONTROL_TABLE, 1, "CongestionControlTable",
	  SIM_ATTR_FIELDS(control_table_fields), sim_attr_at_cas, congestion_control_table, NULL },
	{ CC_ATTR_TIMESTAMP, 0, "Timestamp", SIM_ATTR_FIELDS(timestamp_fields), NULL, timestamp_attr,
	  NULL },
};

const struct sim_attr *sim_cc_attrs(size_t *n)
{
	*n = SIM_ATTR_N(cc_attrs);
	return cc_attrs;
}

/* --- dispatch --------------------------------------------------------------------------- */

/*
 * The CC_Key check (A10.4.1): it passes when the agent's key is 0 or the
 * MAD carries it; and for Get(CongestionKeyInfo) while CC_KeyProtectBit is
 * 0, so that a manager that lost the key can read it.  A MAD that fails is
 * dropped and counted; with the protect bit set, it starts the lease timer,
 * at whose end (CC_KeyLeasePeriod seconds, 0: never) the bit clears.  A Set
 * of CongestionKeyInfo stops the timer (CongestionLog shows it running).
 */
static int cc_key_passes(struct cc_request *r, const uint8_t *mad, uint16_t attr)
{
	const struct cc_agent *a = r->agent;
	uint64_t key = get_be64(mad + CC_OFF_CC_KEY), now;
	struct cc_agent *w;

	if (!a->key)
		return 1;
	/* A key was set, so the state exists: the agent is writable without allocating. */
	w = writable(r);
	now = now_ns();
	if (w->lease_deadline_ns && now >= w->lease_deadline_ns) {
		w->protect = 0;
		w->lease_deadline_ns = 0;
	}
	if (key == w->key)
		return 1;
	if (!r->set && attr == CC_ATTR_CONGESTION_KEY_INFO && !w->protect)
		return 1;
	if (w->violations < UINT16_MAX)
		w->violations++;
	if (w->protect && w->lease_period && !w->lease_deadline_ns)
		w->lease_deadline_ns = now + (uint64_t)w->lease_period * 1000000000u;
	return 0;
}

int sim_cc_process(struct sim_fabric *f, struct sim_node *node, unsigned in_port, uint8_t *mad)
{
	uint16_t attr = mad_attr_id(mad);
	struct cc_request r = {
		.node = node, .in_port = in_port, .mod = mad_attr_mod(mad),
		/* CongestionLog's data starts early, over the reserved bytes. */
		.data = mad + (attr == CC_ATTR_CONGESTION_LOG ? CC_OFF_LOG_DATA : CC_OFF_DATA),
	};
	uint8_t method = mad_method(mad);
	int status;

	(void)f;
	if (mad_class(mad) != UMAD_CLASS_CONG_MGMT || mad_method_is_response(method) ||
	    method == UMAD_METHOD_TRAP_REPRESS)
		return 0;
	r.agent = agent_of(node, in_port);
	if (!r.agent)
		return 0;
	r.set = method == UMAD_METHOD_SET;
	if (!cc_key_passes(&r, mad, attr))
		return 0;

	if (mad[MAD_OFF_BASE_VERSION] != UMAD_BASE_VERSION ||
	    mad[MAD_OFF_CLASS_VERSION] != CC_CLASS_VERSION) {
		status = UMAD_STATUS_BAD_VERSION;
	} else if (method != UMAD_METHOD_GET && method != UMAD_METHOD_SET) {
		status = UMAD_STATUS_METHOD_NOT_SUPPORTED;
	} else {
		const struct sim_attr *a = sim_attr_take(cc_attrs, SIM_ATTR_N(cc_attrs), attr, node,
							 r.set);

		status = a ? a->answer(&r) : UMAD_STATUS_ATTR_NOT_SUPPORTED;
	}
	if (status == CC_SILENT)
		return 0;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	put_be16(mad + MAD_OFF_STATUS, (uint16_t)status);
	return 1;
}
