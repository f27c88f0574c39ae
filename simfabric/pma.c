/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The PMA: Get and Set of the performance management attributes of every
 * port (a switch's port 0 too), answered from the model.
 *
 * What is counted.  The traffic counters (sim_port xmit/rcv data and
 * packets) are raised by the router for every packet that crosses a link,
 * on every VL: PortXmitData and the rest count all VLs, so the SMPs on VL15
 * are in them as the spec defines these counters.  Every simulated packet is
 * a UD SEND_ONLY on SL 0 (SMPs included: their LRH carries SL 0), so the
 * per-SL attributes report all traffic under SL 0, the per-opcode ones under
 * that opcode; the router does not tell VL15 from the data VLs yet, so the
 * per-VL attributes report it all under VL 0.  Link-level flow control is
 * not simulated: its counters stay 0.  The error counters rise only through
 * sim_pma_counter_add (the fault API).
 *
 * Widths.  Every count is kept in 64 bits and never goes back; a Set that
 * clears a counter records the count it had (its zero), and a read reports
 * the count since then, saturated to the field's width as the spec says
 * (a counter stops at all ones).  PortCounters is the narrow view of
 * PortCountersExtended's counters: clearing through either clears both.
 * The zeros, the error counts and a sample's state are allocated per port
 * only when first needed, so an idle port carries three NULL pointers.
 *
 * PortSelect.  A switch answers for any of its ports, and for 0xFF
 * (AllPortSelect, advertised by switches only) with the sum over its ports
 * 1..N, and port 0 too when it is an enhanced port 0: the ports perfquery
 * reads when it emulates AllPortSelect itself.  A CA or router answers for
 * any of its ports 1..N, whichever port the MAD arrived through, so that
 * perfquery's emulation of AllPortSelect (PortSelect 1..N, all sent to one
 * port's LID) sums the node's ports.  PortSelect 0 names the arrival port
 * (perfquery sends 0 when given a LID and no port); 0xFF (not advertised:
 * ibqueryerrors reads no per-port lines from a CA that offers it) and ports
 * beyond N are invalid attribute values.
 *
 * Samples.  Simulated time does not pass between MADs: a Set of
 * PortSamplesControl starts a sample at once (SampleStart and
 * SampleInterval are kept and reported, not waited for), and the first Get
 * of PortSamplesResult ends it, reporting what the selected counters
 * counted in between.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mad_layout.h"
#include "simfabric/arena.h"
#include "simfabric/attr_table.h"
#include "simfabric/pma.h"

/* Counters derived from the traffic counts (and PortXmitWait), each cleared on its own. */
enum traffic {
	T_XMIT_DATA, T_RCV_DATA, T_XMIT_PKTS, T_RCV_PKTS,
	T_UCAST_XMIT, T_UCAST_RCV, T_MCAST_XMIT, T_MCAST_RCV,
	T_XMIT_DATA_SL0, T_RCV_DATA_SL0,
	T_OP_RCV_PKTS, T_OP_RCV_DATA,
	T_VL_OP_PKTS0, T_VL_OP_DATA0, T_VL_XMIT_WAIT0,
	T_N
};

/* The counters a field can show: the error counters, the traffic ones, or a constant 0. */
#define C_TRAFFIC(t)	(SIM_PMA_N_COUNTERS + (t))
#define C_ZERO		(SIM_PMA_N_COUNTERS + T_N)

struct sim_pma_zero {
	uint64_t at[T_N];			/* the source's count when last cleared */
};

struct sim_pma_errors {
	uint64_t raw[SIM_PMA_N_COUNTERS];	/* everything ever raised */
	uint64_t zero[SIM_PMA_N_COUNTERS];	/* raw when last cleared */
};

struct sim_pma_samples {
	uint64_t base[PMA_SAMPLE_COUNTERS];	/* the counts when the sample started */
	uint32_t result[PMA_SAMPLE_COUNTERS];
	uint16_t select[PMA_SAMPLE_COUNTERS];
	uint32_t start, interval;
	uint16_t tag;
	uint8_t status, port_select;
};

static const char *const counter_names[SIM_PMA_N_COUNTERS] = {
	[SIM_PMA_SYMBOL_ERRORS] = "SymbolErrorCounter",
	[SIM_PMA_LINK_ERROR_RECOVERY] = "LinkErrorRecoveryCounter",
	[SIM_PMA_LINK_DOWNED] = "LinkDownedCounter",
	[SIM_PMA_RCV_ERRORS] = "PortRcvErrors",
	[SIM_PMA_RCV_REMOTE_PHYS_ERRORS] = "PortRcvRemotePhysicalErrors",
	[SIM_PMA_RCV_SWITCH_RELAY_ERRORS] = "PortRcvSwitchRelayErrors",
	[SIM_PMA_XMIT_DISCARDS] = "PortXmitDiscards",
	[SIM_PMA_XMIT_CONSTRAINT_ERRORS] = "PortXmitConstraintErrors",
	[SIM_PMA_RCV_CONSTRAINT_ERRORS] = "PortRcvConstraintErrors",
	[SIM_PMA_LOCAL_LINK_INTEGRITY_ERRORS] = "LocalLinkIntegrityErrors",
	[SIM_PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = "ExcessiveBufferOverrunErrors",
	[SIM_PMA_VL15_DROPPED] = "VL15Dropped",
	[SIM_PMA_XMIT_WAIT] = "PortXmitWait",
	[SIM_PMA_QP1_DROPPED] = "QP1Dropped",
	[SIM_PMA_LOCAL_PHYSICAL_ERRORS] = "PortLocalPhysicalErrors",
	[SIM_PMA_MALFORMED_PACKET_ERRORS] = "PortMalformedPacketErrors",
	[SIM_PMA_BUFFER_OVERRUN_ERRORS] = "PortBufferOverrunErrors",
	[SIM_PMA_DLID_MAPPING_ERRORS] = "PortDLIDMappingErrors",
	[SIM_PMA_VL_MAPPING_ERRORS] = "PortVLMappingErrors",
	[SIM_PMA_LOOPING_ERRORS] = "PortLoopingErrors",
	[SIM_PMA_INACTIVE_DISCARDS] = "PortInactiveDiscards",
	[SIM_PMA_NEIGHBOR_MTU_DISCARDS] = "PortNeighborMTUDiscards",
	[SIM_PMA_SW_LIFETIME_LIMIT_DISCARDS] = "PortSwLifetimeLimitDiscards",
	[SIM_PMA_SW_HOQ_LIFETIME_LIMIT_DISCARDS] = "PortSwHOQLifetimeLimitDiscards",
};

/* The traffic counters PortCounters and PortCountersExtended show, by their names there. */
static const char *const traffic_names[] = {
	"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts",
	"PortUnicastXmitPkts", "PortUnicastRcvPkts", "PortMulticastXmitPkts",
	"PortMulticastRcvPkts",
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* --- the counters ---------------------------------------------------------------- */

static uint64_t err_raw(const struct sim_port *p, enum sim_pma_counter c)
{
	return p->pma_errors ? p->pma_errors->raw[c] : 0;
}

/* The count a traffic counter derives from, since the fabric started. */
static uint64_t traffic_source(const struct sim_port *p, enum traffic t)
{
	switch (t) {
	case T_XMIT_DATA:
	case T_XMIT_DATA_SL0:
		return p->xmit_data;
	case T_RCV_DATA:
	case T_RCV_DATA_SL0:
	case T_OP_RCV_DATA:
	case T_VL_OP_DATA0:
		return p->rcv_data;
	case T_XMIT_PKTS:
		return p->xmit_pkts;
	case T_RCV_PKTS:
	case T_OP_RCV_PKTS:
	case T_VL_OP_PKTS0:
		return p->rcv_pkts;
	case T_UCAST_XMIT:
		return p->xmit_pkts - p->xmit_mcast_pkts;
	case T_UCAST_RCV:
		return p->rcv_pkts - p->rcv_mcast_pkts;
	case T_MCAST_XMIT:
		return p->xmit_mcast_pkts;
	case T_MCAST_RCV:
		return p->rcv_mcast_pkts;
	case T_VL_XMIT_WAIT0:
		return err_raw(p, SIM_PMA_XMIT_WAIT);
	case T_N:
		break;
	}
	return 0;
}

/* What counter c (C_*) shows now: its count since it was last cleared. */
static uint64_t counter_value(const struct sim_port *p, unsigned c)
{
	if (c < SIM_PMA_N_COUNTERS)
		return p->pma_errors ? p->pma_errors->raw[c] - p->pma_errors->zero[c] : 0;
	if (c < C_ZERO) {
		enum traffic t = (enum traffic)(c - SIM_PMA_N_COUNTERS);

		return traffic_source(p, t) - (p->pma_zero ? p->pma_zero->at[t] : 0);
	}
	return 0;
}

/* Clearing a traffic counter that is not 0 needs the port's zeros: allocate them first. */
static int need_zeros(struct sim_port *p, unsigned c)
{
	if (c < SIM_PMA_N_COUNTERS || c >= C_ZERO || p->pma_zero || !counter_value(p, c))
		return 0;
	p->pma_zero = sim_mem_calloc(p, 1, sizeof(*p->pma_zero));
	return p->pma_zero ? 0 : -ENOMEM;
}

static void counter_clear(struct sim_port *p, unsigned c)
{
	if (c < SIM_PMA_N_COUNTERS) {
		if (p->pma_errors)
			p->pma_errors->zero[c] = p->pma_errors->raw[c];
	} else if (c < C_ZERO && p->pma_zero) {
		enum traffic t = (enum traffic)(c - SIM_PMA_N_COUNTERS);

		p->pma_zero->at[t] = traffic_source(p, t);
	}
}

int sim_pma_counter_add(struct sim_port *p, enum sim_pma_counter c, uint64_t n)
{
	struct sim_pma_errors *e;

	if ((unsigned)c >= SIM_PMA_N_COUNTERS)
		return -EINVAL;
	if (!n)
		return 0;
	if (!p->pma_errors) {
		p->pma_errors = sim_mem_calloc(p, 1, sizeof(*p->pma_errors));
		if (!p->pma_errors)
			return -ENOMEM;
	}
	e = p->pma_errors;
	e->raw[c] = add_sat(e->raw[c], n);
	/* The details say why PortRcvErrors or PortXmitDiscards rose. */
	if (c >= SIM_PMA_LOCAL_PHYSICAL_ERRORS && c <= SIM_PMA_LOOPING_ERRORS)
		e->raw[SIM_PMA_RCV_ERRORS] = add_sat(e->raw[SIM_PMA_RCV_ERRORS], n);
	else if (c >= SIM_PMA_INACTIVE_DISCARDS && c <= SIM_PMA_SW_HOQ_LIFETIME_LIMIT_DISCARDS)
		e->raw[SIM_PMA_XMIT_DISCARDS] = add_sat(e->raw[SIM_PMA_XMIT_DISCARDS], n);
	return 0;
}

uint64_t sim_pma_counter_get(const struct sim_port *p, enum sim_pma_counter c)
{
	return (unsigned)c < SIM_PMA_N_COUNTERS ? counter_value(p, c) : 0;
}

const char *sim_pma_counter_name(enum sim_pma_counter c)
{
	return (unsigned)c < SIM_PMA_N_COUNTERS ? counter_names[c] : NULL;
}

int sim_pma_counter_by_name(const char *name)
{
	unsigned c;

	if (!name)
		return -1;
	for (c = 0; c < SIM_PMA_N_COUNTERS; c++)
		if (!strcasecmp(name, counter_names[c]))
			return (int)c;
	/* perfquery prints libibmad's name for this one. */
	if (!strcasecmp(name, "PortMalformedPktErrors"))
		return SIM_PMA_MALFORMED_PACKET_ERRORS;
	return -1;
}

const char *sim_pma_traffic_counter(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(traffic_names) / sizeof(traffic_names[0]); i++)
		if (!strcasecmp(name, traffic_names[i]))
			return traffic_names[i];
	return NULL;
}

/* --- attribute layouts ------------------------------------------------------------- */

/* A counter field of an attribute: where (mad_layout.h), what it shows, its CounterSelect bit. */
struct pma_field {
	mad_field_t field;
	uint8_t ctr;		/* C_* */
	uint8_t sel;		/* bit of the select word (CounterSelect, then CounterSelect2) */
};

#define F(f, c, s)		{ (f), (c), (s) }
#define FT(f, t, s)		{ (f), C_TRAFFIC(t), (s) }
#define SEL2(n)			(16 + (n))	/* CounterSelect2 bit n */

static const struct pma_field port_counters[] = {
	F(PC_SYMBOL_ERRORS, SIM_PMA_SYMBOL_ERRORS, 0),
	F(PC_LINK_ERROR_RECOVERY, SIM_PMA_LINK_ERROR_RECOVERY, 1),
	F(PC_LINK_DOWNED, SIM_PMA_LINK_DOWNED, 2),
	F(PC_RCV_ERRORS, SIM_PMA_RCV_ERRORS, 3),
	F(PC_RCV_REMOTE_PHYS_ERRORS, SIM_PMA_RCV_REMOTE_PHYS_ERRORS, 4),
	F(PC_RCV_SWITCH_RELAY_ERRORS, SIM_PMA_RCV_SWITCH_RELAY_ERRORS, 5),
	F(PC_XMIT_DISCARDS, SIM_PMA_XMIT_DISCARDS, 6),
	F(PC_XMIT_CONSTRAINT_ERRORS, SIM_PMA_XMIT_CONSTRAINT_ERRORS, 7),
	F(PC_RCV_CONSTRAINT_ERRORS, SIM_PMA_RCV_CONSTRAINT_ERRORS, 8),
	F(PC_LOCAL_LINK_INTEGRITY_ERRORS, SIM_PMA_LOCAL_LINK_INTEGRITY_ERRORS, 9),
	F(PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS, SIM_PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS, 10),
	F(PC_QP1_DROPPED, SIM_PMA_QP1_DROPPED, SEL2(1)),
	F(PC_VL15_DROPPED, SIM_PMA_VL15_DROPPED, 11),
	FT(PC_XMIT_DATA, T_XMIT_DATA, 12),
	FT(PC_RCV_DATA, T_RCV_DATA, 13),
	FT(PC_XMIT_PKTS, T_XMIT_PKTS, 14),
	FT(PC_RCV_PKTS, T_RCV_PKTS, 15),
	F(PC_XMIT_WAIT, SIM_PMA_XMIT_WAIT, SEL2(0)),
};

/* CounterSelect2 selects the error counters, in PortCounters' order. */
static const struct pma_field port_counters_ext[] = {
	FT(PCE_XMIT_DATA, T_XMIT_DATA, 0),
	FT(PCE_RCV_DATA, T_RCV_DATA, 1),
	FT(PCE_XMIT_PKTS, T_XMIT_PKTS, 2),
	FT(PCE_RCV_PKTS, T_RCV_PKTS, 3),
	FT(PCE_UNICAST_XMIT_PKTS, T_UCAST_XMIT, 4),
	FT(PCE_UNICAST_RCV_PKTS, T_UCAST_RCV, 5),
	FT(PCE_MULTICAST_XMIT_PKTS, T_MCAST_XMIT, 6),
	FT(PCE_MULTICAST_RCV_PKTS, T_MCAST_RCV, 7),
	F(PCE_SYMBOL_ERRORS, SIM_PMA_SYMBOL_ERRORS, SEL2(0)),
	F(PCE_LINK_ERROR_RECOVERY, SIM_PMA_LINK_ERROR_RECOVERY, SEL2(1)),
	F(PCE_LINK_DOWNED, SIM_PMA_LINK_DOWNED, SEL2(2)),
	F(PCE_RCV_ERRORS, SIM_PMA_RCV_ERRORS, SEL2(3)),
	F(PCE_RCV_REMOTE_PHYS_ERRORS, SIM_PMA_RCV_REMOTE_PHYS_ERRORS, SEL2(4)),
	F(PCE_RCV_SWITCH_RELAY_ERRORS, SIM_PMA_RCV_SWITCH_RELAY_ERRORS, SEL2(5)),
	F(PCE_XMIT_DISCARDS, SIM_PMA_XMIT_DISCARDS, SEL2(6)),
	F(PCE_XMIT_CONSTRAINT_ERRORS, SIM_PMA_XMIT_CONSTRAINT_ERRORS, SEL2(7)),
	F(PCE_RCV_CONSTRAINT_ERRORS, SIM_PMA_RCV_CONSTRAINT_ERRORS, SEL2(8)),
	F(PCE_LOCAL_LINK_INTEGRITY_ERRORS, SIM_PMA_LOCAL_LINK_INTEGRITY_ERRORS, SEL2(9)),
	F(PCE_EXCESSIVE_BUFFER_OVERRUN_ERRORS, SIM_PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS, SEL2(10)),
	F(PCE_VL15_DROPPED, SIM_PMA_VL15_DROPPED, SEL2(11)),
	F(PCE_XMIT_WAIT, SIM_PMA_XMIT_WAIT, SEL2(12)),
	F(PCE_QP1_DROPPED, SIM_PMA_QP1_DROPPED, SEL2(13)),
};

static const struct pma_field rcv_error_details[] = {
	F(PRED_LOCAL_PHYSICAL_ERRORS, SIM_PMA_LOCAL_PHYSICAL_ERRORS, 0),
	F(PRED_MALFORMED_PACKET_ERRORS, SIM_PMA_MALFORMED_PACKET_ERRORS, 1),
	F(PRED_BUFFER_OVERRUN_ERRORS, SIM_PMA_BUFFER_OVERRUN_ERRORS, 2),
	F(PRED_DLID_MAPPING_ERRORS, SIM_PMA_DLID_MAPPING_ERRORS, 3),
	F(PRED_VL_MAPPING_ERRORS, SIM_PMA_VL_MAPPING_ERRORS, 4),
	F(PRED_LOOPING_ERRORS, SIM_PMA_LOOPING_ERRORS, 5),
};

static const struct pma_field xmit_discard_details[] = {
	F(PXDD_INACTIVE_DISCARDS, SIM_PMA_INACTIVE_DISCARDS, 0),
	F(PXDD_NEIGHBOR_MTU_DISCARDS, SIM_PMA_NEIGHBOR_MTU_DISCARDS, 1),
	F(PXDD_SW_LIFETIME_LIMIT_DISCARDS, SIM_PMA_SW_LIFETIME_LIMIT_DISCARDS, 2),
	F(PXDD_SW_HOQ_LIFETIME_LIMIT_DISCARDS, SIM_PMA_SW_HOQ_LIFETIME_LIMIT_DISCARDS, 3),
};

static const struct pma_field op_rcv_counters[] = {
	FT(PORC_OP_RCV_PKTS, T_OP_RCV_PKTS, 0),
	FT(PORC_OP_RCV_DATA, T_OP_RCV_DATA, 1),
};

static const struct pma_field flow_ctl_counters[] = {
	F(PFCC_XMIT_FLOW_PKTS, C_ZERO, 0),
	F(PFCC_RCV_FLOW_PKTS, C_ZERO, 1),
};

/* The per-VL and per-SL arrays: entry 0 (VL 0, SL 0) carries the traffic, the rest are 0. */
static const struct pma_field vl_op_packets[] = { FT(PVL_OP_PACKETS0, T_VL_OP_PKTS0, 0) };
static const struct pma_field vl_op_data[] = { FT(PVL_OP_DATA0, T_VL_OP_DATA0, 0) };
static const struct pma_field vl_xmit_wait[] = { FT(PVL_XMIT_WAIT0, T_VL_XMIT_WAIT0, 0) };
static const struct pma_field xmit_data_sl[] = { FT(PSL_XMIT_DATA0, T_XMIT_DATA_SL0, 0) };
static const struct pma_field rcv_data_sl[] = { FT(PSL_RCV_DATA0, T_RCV_DATA_SL0, 0) };

/* A counters attribute (its row's detail): which counters its fields are. */
struct pma_counter_attr {
	mad_field_t sel2;		/* CounterSelect2, where it has one (0: none) */
	uint8_t by_opcode;		/* counts only packets of the OpCode field's opcode */
	const struct pma_field *fields;
	size_t n_fields;
};

#define A(sel2, op, tbl)	{ (sel2), (op), (tbl), sizeof(tbl) / sizeof((tbl)[0]) }

static const struct pma_counter_attr pc_attr = A(PC_COUNTER_SELECT2, 0, port_counters);
static const struct pma_counter_attr pce_attr = A(PCE_COUNTER_SELECT2, 0, port_counters_ext);
static const struct pma_counter_attr rcv_error_details_attr = A(0, 0, rcv_error_details);
static const struct pma_counter_attr xmit_discard_details_attr = A(0, 0, xmit_discard_details);
static const struct pma_counter_attr op_rcv_attr = A(0, 1, op_rcv_counters);
static const struct pma_counter_attr flow_ctl_attr = A(0, 0, flow_ctl_counters);
static const struct pma_counter_attr vl_op_packets_attr = A(0, 1, vl_op_packets);
static const struct pma_counter_attr vl_op_data_attr = A(0, 1, vl_op_data);
static const struct pma_counter_attr vl_xmit_flow_ctl_attr = { 0, 0, NULL, 0 };	/* 2-bit fields, all 0 */
static const struct pma_counter_attr vl_xmit_wait_attr = A(0, 0, vl_xmit_wait);
static const struct pma_counter_attr xmit_data_sl_attr = A(0, 0, xmit_data_sl);
static const struct pma_counter_attr rcv_data_sl_attr = A(0, 0, rcv_data_sl);

/* The most fields one attribute has (PortCountersExtended's). */
#define MAX_FIELDS	(sizeof(port_counters_ext) / sizeof(port_counters_ext[0]))
_Static_assert(sizeof(port_counters) / sizeof(port_counters[0]) <= MAX_FIELDS,
	       "every attribute's fields fit the sums");

/* Counters stop at all ones. */
static void put_field(uint8_t *d, const struct pma_field *f, uint64_t v)
{
	uint64_t max = mad_field_max(f->field);

	mad_set(d, f->field, v > max ? max : v);
}

/* --- the requests ------------------------------------------------------------------ */

struct pma_request {
	struct sim_node *node;
	unsigned in_port;
	int set;
	uint8_t *d;		/* the attribute data, answered in place */
	const struct sim_attr *row;	/* the attribute's row of the table */
};

/* The ports PortSelect names, [*first, *last]; -1 when it names none this PMA answers for. */
static int port_range(const struct pma_request *r, unsigned port_select, unsigned *first,
		      unsigned *last)
{
	const struct sim_node *n = r->node;

	if (n->type == NODE_TYPE_SWITCH) {
		if (port_select == PMA_PORT_SELECT_ALL) {
			*first = n->sw->enhanced_port0 ? 0 : 1;
			*last = n->num_ports;
			return 0;
		}
		if (port_select > n->num_ports)
			return -1;
	} else {
		if (port_select == 0)
			port_select = r->in_port;	/* "this port", as the SMA reads port 0 */
		if (port_select > n->num_ports)
			return -1;
	}
	*first = *last = port_select;
	return 0;
}

/* Does the PMA of this node offer PortSelect 0xFF? */
static int all_port_select(const struct sim_node *n)
{
	return n->type == NODE_TYPE_SWITCH;
}

static int class_port_info(void *request)
{
	struct pma_request *r = request;
	uint8_t *d = r->d;
	uint16_t cap = PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT | PMA_CAP_QP1_DROPPED;
	uint8_t resp_time = sim_mgmt_port(r->node, r->in_port)->resp_time_value;

	if (all_port_select(r->node))
		cap |= PMA_CAP_ALL_PORT_SELECT;
	memset(d, 0, PMA_DATA_SIZE);
	mad_set(d, CPI_BASE_VERSION, UMAD_BASE_VERSION);
	mad_set(d, CPI_CLASS_VERSION, PMA_CLASS_VERSION);
	mad_set(d, CPI_CAPABILITY_MASK, cap);
	mad_set(d, CPI_CAPABILITY_MASK2, PMA_CAP2_ADDL_PORT_COUNTERS_EXT);
	mad_set(d, CPI_RESP_TIME_VALUE, resp_time);
	return UMAD_STATUS_SUCCESS;
}

static int counters(struct pma_request *r, const struct pma_counter_attr *a)
{
	uint8_t *d = r->d;
	uint64_t op_code = mad_get(d, PMA_OP_CODE), port_select = mad_get(d, PMA_PORT_SELECT);
	uint64_t sel1 = mad_get(d, PMA_COUNTER_SELECT), sel2 = a->sel2 ? mad_get(d, a->sel2) : 0;
	uint64_t sel = sel1 | sel2 << SEL2(0), sum[MAX_FIELDS] = { 0 };
	unsigned first, last, i, k;
	int counted = !a->by_opcode || op_code == BTH_OPCODE_UD_SEND_ONLY;

	if (port_range(r, (unsigned)port_select, &first, &last) < 0)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set && counted) {
		/* Allocate first, so that a Set either clears everything it selects or nothing. */
		for (i = first; i <= last; i++)
			for (k = 0; k < a->n_fields; k++)
				if ((sel >> a->fields[k].sel & 1) &&
				    need_zeros(&r->node->ports[i], a->fields[k].ctr) < 0)
					return UMAD_STATUS_BUSY;
		for (i = first; i <= last; i++)
			for (k = 0; k < a->n_fields; k++)
				if (sel >> a->fields[k].sel & 1)
					counter_clear(&r->node->ports[i], a->fields[k].ctr);
	}
	for (i = first; counted && i <= last; i++)
		for (k = 0; k < a->n_fields; k++)
			sum[k] = add_sat(sum[k], counter_value(&r->node->ports[i], a->fields[k].ctr));
	/* The response repeats OpCode, PortSelect and the selects; everything else is counters. */
	memset(d, 0, PMA_DATA_SIZE);
	mad_set(d, PMA_OP_CODE, op_code);
	mad_set(d, PMA_PORT_SELECT, port_select);
	mad_set(d, PMA_COUNTER_SELECT, sel1);
	if (a->sel2)
		mad_set(d, a->sel2, sel2);
	for (k = 0; k < a->n_fields; k++)
		put_field(d, &a->fields[k], sum[k]);
	return UMAD_STATUS_SUCCESS;
}

/* --- samples ----------------------------------------------------------------------- */

/* The sample's state lives with the PMA: a switch's port 0, or the CA port. */
static struct sim_port *samples_port(const struct pma_request *r)
{
	return &r->node->ports[r->node->type == NODE_TYPE_SWITCH ? 0 : r->in_port];
}

/* What a CounterSelect value counts, summed over the ports, never cleared. */
static uint64_t sample_count(const struct pma_request *r, unsigned first, unsigned last,
			     uint16_t select)
{
	uint64_t v = 0;
	unsigned i;

	for (i = first; i <= last; i++) {
		const struct sim_port *p = &r->node->ports[i];

		switch (select) {
		case PMA_SAMPLE_XMIT_DATA: v = add_sat(v, p->xmit_data); break;
		case PMA_SAMPLE_RCV_DATA: v = add_sat(v, p->rcv_data); break;
		case PMA_SAMPLE_XMIT_PKTS: v = add_sat(v, p->xmit_pkts); break;
		case PMA_SAMPLE_RCV_PKTS: v = add_sat(v, p->rcv_pkts); break;
		case PMA_SAMPLE_XMIT_WAIT: v = add_sat(v, err_raw(p, SIM_PMA_XMIT_WAIT)); break;
		default: break;	/* optional counters: none offered */
		}
	}
	return v;
}

static int samples_control(void *request)
{
	struct pma_request *r = request;
	uint8_t *d = r->d;
	struct sim_port *sp = samples_port(r);
	struct sim_pma_samples *s;
	unsigned first, last, i;
	uint8_t port_select = (uint8_t)mad_get(d, PMA_PORT_SELECT);
	uint8_t op_code = (uint8_t)mad_get(d, PMA_OP_CODE);

	if (port_range(r, port_select, &first, &last) < 0)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	if (r->set) {
		if (!sp->pma_samples && !(sp->pma_samples = sim_mem_calloc(sp, 1, sizeof(*sp->pma_samples))))
			return UMAD_STATUS_BUSY;
		s = sp->pma_samples;
		s->port_select = port_select;
		s->start = (uint32_t)mad_get(d, PSC_SAMPLE_START);
		s->interval = (uint32_t)mad_get(d, PSC_SAMPLE_INTERVAL);
		s->tag = (uint16_t)mad_get(d, PSC_TAG);
		for (i = 0; i < PMA_SAMPLE_COUNTERS; i++) {
			s->select[i] = (uint16_t)mad_get_elem(d, PSC_COUNTER_SELECT0, i);
			s->base[i] = sample_count(r, first, last, s->select[i]);
			s->result[i] = 0;
		}
		s->status = PMA_SAMPLE_STATUS_RUNNING;
	}
	s = sp->pma_samples;
	memset(d, 0, PMA_DATA_SIZE);
	mad_set(d, PMA_OP_CODE, op_code);
	mad_set(d, PMA_PORT_SELECT, s ? s->port_select : port_select);
	mad_set(d, PSC_TICK, 0);
	mad_set(d, PSC_COUNTER_WIDTH, PSC_COUNTER_WIDTH_32);
	/* CounterMask0..9 and 10..14 lie in two runs. */
	for (i = 0; i < PMA_SAMPLE_COUNTERS; i++) {
		if (i < PSC_MASKS_IN_FIRST_RUN)
			mad_set_elem(d, PSC_COUNTER_MASK0, i, PSC_MASK_PORT);
		else
			mad_set_elem(d, PSC_COUNTER_MASK10, i - PSC_MASKS_IN_FIRST_RUN, PSC_MASK_PORT);
	}
	if (s) {
		mad_set(d, PSC_SAMPLE_STATUS, s->status);
		mad_set(d, PSC_SAMPLE_START, s->start);
		mad_set(d, PSC_SAMPLE_INTERVAL, s->interval);
		mad_set(d, PSC_TAG, s->tag);
		for (i = 0; i < PMA_SAMPLE_COUNTERS; i++)
			mad_set_elem(d, PSC_COUNTER_SELECT0, i, s->select[i]);
	} else {
		/* Before any sample: the mandatory counters in the first five slots. */
		mad_set(d, PSC_SAMPLE_STATUS, PMA_SAMPLE_STATUS_DONE);
		for (i = 0; i < PMA_SAMPLE_XMIT_WAIT; i++)
			mad_set_elem(d, PSC_COUNTER_SELECT0, i, PMA_SAMPLE_XMIT_DATA + i);
	}
	return UMAD_STATUS_SUCCESS;
}

static int samples_result(void *request)
{
	struct pma_request *r = request;
	uint8_t *d = r->d;
	struct sim_pma_samples *s = samples_port(r)->pma_samples;
	unsigned first, last, i;

	memset(d, 0, PMA_DATA_SIZE);
	if (!s) {
		mad_set(d, PSR_SAMPLE_STATUS, PMA_SAMPLE_STATUS_DONE);
		return UMAD_STATUS_SUCCESS;
	}
	if (s->status != PMA_SAMPLE_STATUS_DONE) {
		/* This read ends the sample (simulated time passes only when looked at). */
		if (port_range(r, s->port_select, &first, &last) == 0) {
			for (i = 0; i < PMA_SAMPLE_COUNTERS; i++) {
				uint64_t v = sample_count(r, first, last, s->select[i]) - s->base[i];

				s->result[i] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
			}
		}
		s->status = PMA_SAMPLE_STATUS_DONE;
	}
	mad_set(d, PSR_TAG, s->tag);
	mad_set(d, PSR_SAMPLE_STATUS, s->status);
	for (i = 0; i < PMA_SAMPLE_COUNTERS; i++)
		mad_set_elem(d, PSR_COUNTER0, i, s->result[i]);
	return UMAD_STATUS_SUCCESS;
}

/* --- dispatch ---------------------------------------------------------------------- */

/*
 * PortExtendedSpeedsCounters, on ports that run extended speeds: the link
 * layer's bit errors are not simulated, so every counter reads 0 and a Set
 * (a reset) leaves them so.
 */
static int ext_speeds_counters(void *request)
{
	struct pma_request *r = request;
	uint8_t *d = r->d;
	uint64_t port_select = mad_get(d, PESC_PORT_SELECT), select = mad_get(d, PESC_COUNTER_SELECT);
	unsigned first, last, i;

	if (port_select == PMA_PORT_SELECT_ALL ||
	    port_range(r, (unsigned)port_select, &first, &last) < 0)
		return UMAD_STATUS_INVALID_ATTR_VALUE;
	for (i = first; i <= last; i++)
		if (!r->node->ports[i].ext_supported)
			return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	memset(d, 0, PMA_DATA_SIZE);
	mad_set(d, PESC_PORT_SELECT, port_select);
	mad_set(d, PESC_COUNTER_SELECT, select);
	return 0;
}

/* A counters attribute: its row's detail says which counters its fields are. */
static int counters_row(void *request)
{
	struct pma_request *r = request;

	return counters(r, r->row->detail);
}

SIM_ATTR_FIELD_LIST(class_port_info_fields, CLASS_PORT_INFO);
SIM_ATTR_FIELD_LIST(samples_control_fields, PORT_SAMPLES_CONTROL);
SIM_ATTR_FIELD_LIST(samples_result_fields, PORT_SAMPLES_RESULT);
SIM_ATTR_FIELD_LIST(ext_speeds_counters_fields, PORT_EXT_SPEEDS_COUNTERS);
SIM_ATTR_FIELD_LIST(port_counters_fields, PORT_COUNTERS);
SIM_ATTR_FIELD_LIST(port_counters_ext_fields, PORT_COUNTERS_EXT);
SIM_ATTR_FIELD_LIST(rcv_error_details_fields, PORT_RCV_ERROR_DETAILS);
SIM_ATTR_FIELD_LIST(xmit_discard_details_fields, PORT_XMIT_DISCARD_DETAILS);
SIM_ATTR_FIELD_LIST(op_rcv_counters_fields, PORT_OP_RCV_COUNTERS);
SIM_ATTR_FIELD_LIST(flow_ctl_counters_fields, PORT_FLOW_CTL_COUNTERS);
SIM_ATTR_FIELD_LIST(vl_sl_counters_fields, PORT_VL_SL_COUNTERS);

/* A row of a counters attribute, which its detail describes. */
#define COUNTERS(id, name, fields, detail) \
	{ (id), 1, (name), SIM_ATTR_FIELDS(fields), NULL, counters_row, &(detail) }

/*
 * What the PMA answers.  The counters' field lists follow PMA_HEAD
 * (mad_layout.h); PortVLXmitFlowCtlUpdateErrors' 2-bit fields have none.
 */
static const struct sim_attr pma_attrs[] = {
	COUNTERS(PMA_ATTR_PORT_COUNTERS, "PortCounters", port_counters_fields, pc_attr),
	COUNTERS(PMA_ATTR_PORT_COUNTERS_EXT, "PortCountersExtended", port_counters_ext_fields, pce_attr),
	{ UMAD_ATTR_CLASS_PORT_INFO, 0, "ClassPortInfo", SIM_ATTR_FIELDS(class_port_info_fields),
	  NULL, class_port_info, NULL },
	{ PMA_ATTR_PORT_SAMPLES_CONTROL, 1, "PortSamplesControl",
	  SIM_ATTR_FIELDS(samples_control_fields), NULL, samples_control, NULL },
	{ PMA_ATTR_PORT_SAMPLES_RESULT, 0, "PortSamplesResult",
	  SIM_ATTR_FIELDS(samples_result_fields), NULL, samples_result, NULL },
	{ PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS, 1, "PortExtendedSpeedsCounters",
	  SIM_ATTR_FIELDS(ext_speeds_counters_fields), NULL, ext_speeds_counters, NULL },
	COUNTERS(PMA_ATTR_PORT_RCV_ERROR_DETAILS, "PortRcvErrorDetails", rcv_error_details_fields, rcv_error_details_attr),
	COUNTERS(PMA_ATTR_PORT_XMIT_DISCARD_DETAILS, "PortXmitDiscardDetails",
		 xmit_discard_details_fields, xmit_discard_details_attr),
	COUNTERS(PMA_ATTR_PORT_OP_RCV_COUNTERS, "PortOpRcvCounters", op_rcv_counters_fields, op_rcv_attr),
	COUNTERS(PMA_ATTR_PORT_FLOW_CTL_COUNTERS, "PortFlowCtlCounters", flow_ctl_counters_fields, flow_ctl_attr),
	COUNTERS(PMA_ATTR_PORT_VL_OP_PACKETS, "PortVLOpPackets", vl_sl_counters_fields, vl_op_packets_attr),
	COUNTERS(PMA_ATTR_PORT_VL_OP_DATA, "PortVLOpData", vl_sl_counters_fields, vl_op_data_attr),
	{ PMA_ATTR_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS, 1, "PortVLXmitFlowCtlUpdateErrors", NULL, 0,
	  NULL, counters_row, &vl_xmit_flow_ctl_attr },
	COUNTERS(PMA_ATTR_PORT_VL_XMIT_WAIT_COUNTERS, "PortVLXmitWaitCounters",
		 vl_sl_counters_fields, vl_xmit_wait_attr),
	COUNTERS(PMA_ATTR_PORT_XMIT_DATA_SL, "PortXmitDataSL", vl_sl_counters_fields, xmit_data_sl_attr),
	COUNTERS(PMA_ATTR_PORT_RCV_DATA_SL, "PortRcvDataSL", vl_sl_counters_fields, rcv_data_sl_attr),
};

const struct sim_attr *sim_pma_attrs(size_t *n)
{
	*n = SIM_ATTR_N(pma_attrs);
	return pma_attrs;
}

/* A Get or Set through the table: what the row says first, then its handler. */
static int answer(struct pma_request *r, uint16_t attr_id)
{
	r->row = sim_attr_take(pma_attrs, SIM_ATTR_N(pma_attrs), attr_id, r->node, r->set);
	return r->row ? r->row->answer(r) : UMAD_STATUS_ATTR_NOT_SUPPORTED;
}

int sim_pma_process(struct sim_fabric *f, struct sim_node *node, unsigned in_port, uint8_t *mad)
{
	struct pma_request r = { .node = node, .in_port = in_port, .d = mad + PMA_OFF_DATA };
	uint8_t method = mad_method(mad);
	int status;

	(void)f;
	if (mad_class(mad) != UMAD_CLASS_PERF_MGMT || mad[MAD_OFF_BASE_VERSION] != UMAD_BASE_VERSION ||
	    mad[MAD_OFF_CLASS_VERSION] != PMA_CLASS_VERSION || mad_method_is_response(method) ||
	    in_port > node->num_ports || (in_port == 0 && node->type != NODE_TYPE_SWITCH))
		return 0;	/* port 0 is a switch's alone */
	if (method == UMAD_METHOD_GET || method == UMAD_METHOD_SET) {
		r.set = method == UMAD_METHOD_SET;
		status = answer(&r, mad_attr_id(mad));
	} else {
		status = UMAD_STATUS_METHOD_NOT_SUPPORTED;
	}
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	put_be16(mad + MAD_OFF_STATUS, (uint16_t)status);
	return 1;
}
