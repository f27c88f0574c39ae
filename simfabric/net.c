/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fabric's traffic (net.h): routing a MAD to where it is consumed,
 * the receiver's checks, the agent that answers, and the way back.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mad_layout.h"
#include "simfabric/cc.h"
#include "simfabric/net.h"
#include "simfabric/pma.h"
#include "simfabric/identity.h"
#include "simfabric/mlnx.h"
#include "simfabric/route.h"
#include "simfabric/sa.h"
#include "simfabric/subnet_up.h"

/*
 * The receiver's checks of a GMP: its P_Key; then its QP, which must be
 * QP1, where every agent lives (the node's PMA, CC and SA, and the
 * programs', which umad registers there alone: no one takes a MAD on
 * another QP); then QP1's well-known Q_Key.  Lost (and counted) otherwise.
 */
static int gmp_accepted(struct sim_net *net, struct sim_port *at, const struct sim_net_msg *m)
{
	/* Some entry of its table takes the P_Key (IBA 10.9.3). */
	if (sim_port_pkey_find(at, m->pkey) < 0) {
		if (at->p_key_violations < UINT16_MAX)
			at->p_key_violations++;
		net->lost_pkey++;
		return 0;
	}
	if (m->dqpn != QP1_GSI) {
		net->lost_no_taker++;
		return 0;
	}
	if (m->qkey != UMAD_QKEY) {
		if (at->q_key_violations < UINT16_MAX)
			at->q_key_violations++;
		net->lost_qkey++;
		return 0;
	}
	return 1;
}

/*
 * The delay meter (sim_trip_delay_ns) for one MAD's trip, which the ports'
 * faults add to as it crosses them.  A trip may begin inside another (a
 * trap sent while the SMA answers a PortInfo, a Report while the SA
 * answers): the outer trip's reading is kept and given back.
 */
static uint64_t meter_start(void)
{
	uint64_t outer = sim_trip_delay_ns;

	sim_trip_delay_ns = 0;
	return outer;
}

static uint64_t meter_stop(uint64_t outer)
{
	uint64_t delay = sim_trip_delay_ns;

	sim_trip_delay_ns = outer;
	return delay;
}

uint64_t sim_net_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- answers ------------------------------------------------------------------- */

static void reply_init(struct sim_net_reply *reply)
{
	reply->heap = NULL;
	memset(&reply->msg, 0, sizeof(reply->msg));
}

void sim_net_reply_release(struct sim_net_reply *reply)
{
	free(reply->heap);
	reply->heap = NULL;
}

/*
 * Carry an answer from the responder at (node, port) back to the sender
 * of m: routed to m's SLID, which must lead to m's port.
 */
static int route_back(struct sim_net *net, struct sim_node *node, unsigned port,
		      const struct sim_net_msg *m)
{
	struct sim_hop_end back;

	if (!m->slid || sim_route_lid(net->f, node, port, m->slid, &back) < 0 ||
	    sim_mgmt_port(back.node, back.port) != sim_mgmt_port(m->port->node, m->port->num)) {
		net->lost_no_route++;
		return 0;
	}
	return 1;
}

/* Address the answer like the request, reversed. */
static void reply_address(struct sim_net_reply *reply, const struct sim_net_msg *m,
			  struct sim_port *responder)
{
	reply->msg.port = m->port;
	reply->msg.slid = responder->lid;
	reply->msg.dlid = m->slid;
	reply->msg.sqpn = m->dqpn;
	reply->msg.dqpn = m->sqpn;
	reply->msg.qkey = m->qkey;
	reply->msg.pkey = m->pkey;
	reply->msg.sl = m->sl;
}

/* --- the built-in SA ------------------------------------------------------------- */

static int sa_answers(struct sim_net *net, struct sim_port *at, const struct sim_net_msg *m,
		      struct sim_net_reply *reply)
{
	struct sim_sa_requester from = {
		.port = m->port, .lid = m->slid, .qpn = m->sqpn, .pkey = m->pkey,
	};
	uint8_t *resp = NULL;
	size_t resp_len = 0;

	/* A Report is the SA's own, on its way to a subscriber (who may sit at the SM's port). */
	if (!net->sm_active || !net->sa || at != sim_mgmt_port(net->sm_port->node, net->sm_port->num) ||
	    mad_method(m->data) == UMAD_METHOD_REPORT)
		return 0;
	if (sim_sa_process(net->sa, &from, m->data, m->len, &resp, &resp_len) != 1)
		return 0;
	if (resp_len < SA_HDR_END) {
		free(resp);
		return 0;
	}
	/*
	 * Tables and GetMulti's answers travel as RMPP (an empty one too: its headers alone), sent
	 * whole as by an agent the kernel does RMPP for; single records do not.
	 */
	if (mad_method(resp) == UMAD_SA_METHOD_GET_TABLE_RESP ||
	    mad_method(resp) == UMAD_SA_METHOD_GET_MULTI_RESP)
		resp[RMPP_OFF_FLAGS] |= UMAD_RMPP_FLAG_ACTIVE;
	reply->heap = resp;
	reply->msg.data = resp;
	reply->msg.len = resp_len;
	return 1;
}

/* --- multicast ------------------------------------------------------------------- */

/* Is port `port` in the switch's MFT entry for mlid? */
static int mft_has(const struct sim_switch *sw, uint16_t mlid, unsigned port)
{
	unsigned idx = (unsigned)mlid - LID_MCAST_START;

	if (!sw->mft || idx >= SIM_MFT_CAP || port >= SIM_MFT_POSITIONS * MFT_PORTS_PER_MASK)
		return 0;
	return (sw->mft[idx][port / 16] >> (port % 16)) & 1;
}

/* Deliver a multicast MAD to the ports it reaches (a switch forwards by its MFT, not back in). */
static int flood(struct sim_net *net, const struct sim_net_msg *m, struct sim_node *node,
		 unsigned in_port, unsigned depth)
{
	struct sim_net_msg copy = *m;
	int taken = 0;
	unsigned p;

	/* Each copy is as late as its own branch made it. */
	copy.delay_ns = sim_trip_delay_ns;
	if (node->type != NODE_TYPE_SWITCH) {
		copy.port = &node->ports[in_port];
		if (copy.port == m->port || !gmp_accepted(net, copy.port, m))
			return 0;
		return net->ep.receive && net->ep.receive(net->ep.arg, &copy);
	}
	if (depth > UMAD_SMP_MAX_HOPS)
		return 0;	/* an MFT loop: the hop limit ends it */
	for (p = 0; p <= node->num_ports; p++) {
		struct sim_node *next = node;
		unsigned arrive = p;
		uint64_t here = sim_trip_delay_ns;

		if (p == in_port || !mft_has(node->sw, m->dlid, p))
			continue;
		if (p == 0) {
			copy.port = &node->ports[0];
			if (net->ep.receive && gmp_accepted(net, copy.port, m))
				taken |= net->ep.receive(net->ep.arg, &copy);
			continue;
		}
		if (sim_route_hop(&next, &arrive, p) == 0)
			taken |= flood(net, m, next, arrive, depth + 1);
		sim_trip_delay_ns = here;
	}
	return taken;
}

static enum sim_net_result send_mcast(struct sim_net *net, const struct sim_net_msg *m)
{
	struct sim_node *node = m->port->node;
	unsigned port = m->port->num;

	if (node->type != NODE_TYPE_SWITCH && sim_route_hop(&node, &port, m->port->num) < 0)
		return SIM_NET_LOST;
	if (node->type != NODE_TYPE_SWITCH)
		return SIM_NET_LOST;	/* two end nodes back to back: no MFT between them */
	return flood(net, m, node, port, 0) ? SIM_NET_DELIVERED : SIM_NET_LOST;
}

/* --- sending --------------------------------------------------------------------- */

static int trap_repressed(struct sim_net *net, const struct sim_net_msg *m);

/* The SMA changed node n: the owner learns it; a switch that owes Trap 128 sends it after. */
static void sma_node_changed(void *arg, struct sim_node *n)
{
	struct sim_net *net = arg;
	unsigned i;

	if (net->sma_hooks && net->sma_hooks->node_changed)
		net->sma_hooks->node_changed(net->sma_hooks->arg, n);
	if (!n->sw || !n->sw->link_trap_owed)
		return;
	for (i = 0; i < net->n_changed; i++)
		if (net->changed[i] == n)
			return;
	/* An SMP changes two nodes at most; a third would keep its debt until the next change. */
	if (net->n_changed < SIM_NET_CHANGED_MAX)
		net->changed[net->n_changed++] = n;
}

static void sma_before_port_read(void *arg, struct sim_port *p)
{
	struct sim_net *net = arg;

	if (net->sma_hooks && net->sma_hooks->before_port_read)
		net->sma_hooks->before_port_read(net->sma_hooks->arg, p);
}

/* The switches the SMP just carried changed send the traps they owe. */
static void send_link_traps(struct sim_net *net)
{
	unsigned i, n = net->n_changed;

	net->n_changed = 0;
	for (i = 0; i < n; i++)
		sim_net_link_trap(net, net->changed[i]);
}

/*
 * SMPs between programs, LID-routed: SMInfo for a port where a real SM runs
 * goes to that SM (the SMA does not answer for it), and an SM's answers
 * travel back to the asker.  1 with *r when the SMP was one of those.
 */
static int program_smp(struct sim_net *net, const struct sim_net_msg *m, enum sim_net_result *r)
{
	struct sim_hop_end dst;
	struct sim_net_msg arrived;
	struct sim_port *at;
	int response = mad_method_is_response(mad_method(m->data));

	if (!response && mad_attr_id(m->data) != UMAD_SM_ATTR_SM_INFO)
		return 0;
	if (sim_route_lid(net->f, m->port->node, m->port->num, m->dlid, &dst) < 0) {
		*r = SIM_NET_LOST;
		return response;	/* a request's loss is the SMA path's to find */
	}
	at = sim_mgmt_port(dst.node, dst.port);
	if (!response && (!(at->capmask & PORT_CAP_IS_SM) || (net->sm_active && at == net->sm_port)))
		return 0;	/* no SM, or the built-in one: the SMA answers */
	arrived = *m;
	arrived.port = at;
	*r = net->ep.receive && net->ep.receive(net->ep.arg, &arrived) ? SIM_NET_DELIVERED
								      : SIM_NET_LOST;
	return 1;
}

/* An SMP request: the SMA at the end of its route answers in place. */
static enum sim_net_result send_smp(struct sim_net *net, const struct sim_net_msg *m,
				    uint8_t *mad, struct sim_net_reply *reply)
{
	uint16_t slid;
	int answered;

	if (mad_method(mad) == UMAD_METHOD_TRAP_REPRESS) {
		trap_repressed(net, m);
		return SIM_NET_LOST;	/* the issuer answers nothing */
	}
	if (mad_class(mad) == UMAD_CLASS_SUBN_LID_ROUTED) {
		enum sim_net_result r;

		if (program_smp(net, m, &r))
			return r;
	}
	if (mad_method_is_response(mad_method(mad)))
		return SIM_NET_LOST;	/* directed-route answers from a program reach no one here */
	answered = sim_smp_round_trip(net->f, m->port, m->dlid, mad, &slid, &net->hooks);
	/* The switches it changed tell their SM, answered or not: the Set was applied. */
	send_link_traps(net);
	if (!answered)
		return SIM_NET_LOST;
	reply->msg = *m;
	reply->msg.slid = slid;
	reply->msg.dlid = m->slid;
	reply->msg.data = mad;
	reply->msg.len = MAD_SIZE;
	return SIM_NET_ANSWERED;
}

int sim_net_sma_answers(uint32_t sqpn, uint32_t dqpn, const uint8_t *mad, size_t len)
{
	uint8_t method = mad_method(mad);

	return len >= MAD_HDR_SIZE && len <= MAD_SIZE && sqpn == QP0_SMI && dqpn == QP0_SMI &&
	       mad_class_is_smp(mad_class(mad)) &&
	       (method == UMAD_METHOD_GET || method == UMAD_METHOD_SET) &&
	       (mad_class(mad) != UMAD_CLASS_SUBN_LID_ROUTED ||
		mad_attr_id(mad) != UMAD_SM_ATTR_SM_INFO);
}

int sim_net_sma_round_trip(struct sim_fabric *f, struct sim_port *from, uint16_t dlid,
			   uint8_t *mad, const struct sim_sma_hooks *hooks, uint16_t *slid,
			   uint64_t *delay_ns)
{
	uint64_t outer = meter_start();
	int answered = sim_smp_round_trip(f, from, dlid, mad, slid, hooks);

	*delay_ns = meter_stop(outer);
	return answered;
}

/*
 * A firmware agent of the node (PMA, congestion control, a Mellanox
 * device's vendor class) answering in the reply's room.
 */
static int firmware_answers(struct sim_net *net, struct sim_hop_end *dst, const struct sim_net_msg *m,
			    struct sim_net_reply *reply)
{
	uint8_t cls = mad_class(m->data);
	int answered;

	if (cls != UMAD_CLASS_PERF_MGMT && cls != UMAD_CLASS_CONG_MGMT &&
	    !(cls == MLNX_VS_CLASS && sim_node_is_mellanox(dst->node)))
		return 0;
	if (m->len < MAD_SIZE)
		return 0;
	memcpy(reply->inline_mad, m->data, MAD_SIZE);
	if (cls == UMAD_CLASS_PERF_MGMT)
		answered = sim_pma_process(net->f, dst->node, dst->port, reply->inline_mad);
	else if (cls == UMAD_CLASS_CONG_MGMT)
		answered = sim_cc_process(net->f, dst->node, dst->port, reply->inline_mad);
	else
		answered = sim_mlnx_vs_process(dst->node, dst->port, reply->inline_mad);
	if (!answered)
		return 0;
	reply->msg.data = reply->inline_mad;
	reply->msg.len = MAD_SIZE;
	return 1;
}

static enum sim_net_result carry(struct sim_net *net, const struct sim_net_msg *m, uint8_t *mad,
				 struct sim_net_reply *reply)
{
	struct sim_hop_end dst;
	struct sim_port *at;
	struct sim_net_msg arrived;
	int is_response;

	if (m->len < MAD_HDR_SIZE)
		return SIM_NET_LOST;
	/* SMPs travel QP0 to QP0 (on VL15): one sent from QP1 is dropped by the receiver. */
	if (mad_class_is_smp(mad_class(m->data)))
		return m->sqpn == QP0_SMI && m->dqpn == QP0_SMI ? send_smp(net, m, mad, reply)
								 : SIM_NET_LOST;
	if (m->dqpn == QP0_SMI)
		return SIM_NET_LOST;	/* QP0 takes SMPs only */
	if (m->dlid >= LID_MCAST_START && m->dlid != LID_PERMISSIVE)
		return send_mcast(net, m);
	/* GMPs need a LID: none, or the permissive one, reaches nobody. */
	if (!m->dlid || m->dlid == LID_PERMISSIVE ||
	    sim_route_lid(net->f, m->port->node, m->port->num, m->dlid, &dst) < 0) {
		net->lost_no_route++;
		return SIM_NET_LOST;
	}
	at = sim_mgmt_port(dst.node, dst.port);
	if (!gmp_accepted(net, at, m))
		return SIM_NET_LOST;
	is_response = mad_method_is_response(mad_method(m->data));
	if (!is_response &&
	    (firmware_answers(net, &dst, m, reply) || sa_answers(net, at, m, reply))) {
		if (!route_back(net, dst.node, dst.port, m)) {
			sim_net_reply_release(reply);
			return SIM_NET_LOST;
		}
		reply_address(reply, m, at);
		return SIM_NET_ANSWERED;
	}
	arrived = *m;
	arrived.port = at;
	arrived.delay_ns = sim_trip_delay_ns;	/* the way there */
	if (net->ep.receive && net->ep.receive(net->ep.arg, &arrived))
		return SIM_NET_DELIVERED;
	net->lost_no_taker++;
	return SIM_NET_LOST;
}

enum sim_net_result sim_net_send(struct sim_net *net, const struct sim_net_msg *m, uint8_t *mad,
				 struct sim_net_reply *reply)
{
	uint64_t outer = meter_start(), delay;
	enum sim_net_result r;

	reply_init(reply);
	r = carry(net, m, mad, reply);
	delay = meter_stop(outer);
	/* An answer is as late as the way there and back made it. */
	if (r == SIM_NET_ANSWERED)
		reply->msg.delay_ns = delay;
	return r;
}

/* --- the built-in SM --------------------------------------------------------------- */

static void sa_mcast_changed(void *arg, uint16_t mlid, struct sim_port *const *members, size_t n)
{
	struct sim_net *net = arg;

	sim_subnet_route_mcast(net->f, mlid, members, n);
}

/* A Report from the SA to a subscriber: sent from the SM's port like any GMP. */
static void sa_send_report(void *arg, uint16_t lid, uint32_t qpn, const uint8_t *mad)
{
	struct sim_net *net = arg;
	struct sim_net_msg m = {
		.port = net->sm_port, .slid = net->sm_port->lid, .dlid = lid,
		.sqpn = QP1_GSI, .dqpn = qpn, .qkey = UMAD_QKEY, .pkey = PKEY_DEFAULT,
		.data = mad, .len = MAD_SIZE,
	};
	struct sim_net_reply reply;

	sim_net_send(net, &m, NULL, &reply);
	sim_net_reply_release(&reply);
}

int sim_net_init(struct sim_net *net, struct sim_fabric *f, int builtin_sm,
		 const struct sim_sma_hooks *sma_hooks, const struct sim_net_endpoint_ops *ep,
		 struct umad_err *err)
{
	struct sim_sa_hooks sa_hooks;
	int r;

	memset(net, 0, sizeof(*net));
	net->f = f;
	net->sma_hooks = sma_hooks;
	net->hooks = (struct sim_sma_hooks){
		.before_port_read = sma_before_port_read,
		.node_changed = sma_node_changed,
		.arg = net,
	};
	if (ep)
		net->ep = *ep;
	if (!builtin_sm)
		return 0;
	net->sm_port = sim_subnet_sm_site(f);
	if (!net->sm_port)
		return umad_err_set(err, -ENODEV, "no port for the built-in SM: the fabric has no "
				    "CA with a link and no switch");
	r = sim_subnet_bring_up(f, net->sm_port, err);
	if (r < 0)
		return r;
	sa_hooks.mcast_changed = sa_mcast_changed;
	sa_hooks.send_report = sa_send_report;
	sa_hooks.arg = net;
	net->sa = sim_sa_new(f, net->sm_port, &sa_hooks);
	if (!net->sa)
		return umad_err_set(err, -ENOMEM, "out of memory");
	net->sm_active = 1;
	return 0;
}

void sim_net_fini(struct sim_net *net)
{
	if (net->sa)
		sim_sa_free(net->sa);
	net->sa = NULL;
	net->sm_active = 0;
}

void sim_net_sm_step_aside(struct sim_net *net)
{
	if (!net->sm_active)
		return;
	net->sm_active = 0;
	/* Its port no longer runs an SM: SMInfo there is unsupported again. */
	net->sm_port->capmask &= ~PORT_CAP_IS_SM;
	net->sm_port->node->sminfo.state = SM_STATE_NOT_ACTIVE;
}

/* --- traps ----------------------------------------------------------------------- */

/* An SM brings up what trained to Init: Active, as a sweep after Trap 128 does. */
static void activate_ports(struct sim_fabric *f)
{
	size_t i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++) {
		struct sim_node *n = f->nodes[i];

		for (p = n->type == NODE_TYPE_SWITCH ? 0 : 1; p <= n->num_ports; p++) {
			struct sim_port *port = &n->ports[p];

			if ((p == 0 || sim_port_link_up(port)) &&
			    (port->state == PORT_STATE_INIT || port->state == PORT_STATE_ARMED))
				port->state = PORT_STATE_ACTIVE;
		}
		if (n->sw)
			n->sw->port_state_change = 0;
	}
}

/* The built-in SM takes a trap: resweeps after a link change, and tells the SA's subscribers. */
static void builtin_sm_trap(struct sim_net *net, const uint8_t *notice)
{
	if (mad_get(notice, NTC_TRAP_NUMBER) == TRAP_LINK_STATE_CHANGE) {
		sim_subnet_reroute(net->f);
		activate_ports(net->f);
	}
	if (net->sa)
		sim_sa_notice(net->sa, notice);
}

static uint8_t producer_of(const struct sim_node *n)
{
	switch (n->type) {
	case NODE_TYPE_SWITCH: return NOTICE_PRODUCER_SWITCH;
	case NODE_TYPE_ROUTER: return NOTICE_PRODUCER_ROUTER;
	default: return NOTICE_PRODUCER_CA;
	}
}

/* The time an issuer waits for TrapRepress before sending again: its port's SubnetTimeout. */
static uint64_t trap_resend_ns(const struct sim_port *from)
{
	/* 4.096 us * 2^SubnetTimeout */
	return 4096ULL << (from->subnet_timeout & mad_field_max(PI_SUBNET_TIMEOUT));
}

/* Carry a trap SMP from its issuer to its SM's agent at an attached port: 1 when taken. */
static int deliver_trap(struct sim_net *net, struct sim_node *node, unsigned port,
			const uint8_t *smp)
{
	struct sim_port *from = sim_mgmt_port(node, port);
	struct sim_net_msg m;
	struct sim_hop_end dst;
	uint64_t outer = meter_start(), delay;
	int routed = from->lid && from->sm_lid &&
		     sim_route_lid(net->f, node, port, from->sm_lid, &dst) == 0;

	delay = meter_stop(outer);
	if (!routed) {
		net->lost_no_route++;
		return 0;
	}
	memset(&m, 0, sizeof(m));
	m.port = sim_mgmt_port(dst.node, dst.port);
	m.slid = from->lid;
	m.dlid = from->sm_lid;
	m.sqpn = QP0_SMI;
	m.dqpn = QP0_SMI;
	m.pkey = PKEY_DEFAULT;
	m.data = smp;
	m.len = MAD_SIZE;
	m.delay_ns = delay;
	if (net->ep.receive && net->ep.receive(net->ep.arg, &m))
		return 1;
	net->lost_no_taker++;
	return 0;
}

/* Remember a trap a real SM got, to send it again until it is repressed (the oldest goes first). */
static void trap_pending(struct sim_net *net, struct sim_node *node, unsigned port,
			 const uint8_t *smp)
{
	struct sim_net_trap *t;

	if (net->n_pending == SIM_NET_TRAPS_PENDING) {
		memmove(&net->pending[0], &net->pending[1],
			(SIM_NET_TRAPS_PENDING - 1) * sizeof(net->pending[0]));
		net->n_pending--;
	}
	t = &net->pending[net->n_pending++];
	t->node = node;
	t->port = port;
	t->resends = 0;
	t->due_ns = sim_net_now_ns() + trap_resend_ns(sim_mgmt_port(node, port));
	memcpy(t->smp, smp, MAD_SIZE);
}

void sim_net_tick(struct sim_net *net, uint64_t now_ns)
{
	unsigned i = 0;

	while (i < net->n_pending) {
		struct sim_net_trap *t = &net->pending[i];

		if (t->due_ns > now_ns) {
			i++;
			continue;
		}
		if (t->resends++ < SIM_NET_TRAP_RESENDS && !net->sm_active) {
			deliver_trap(net, t->node, t->port, t->smp);
			t->due_ns = now_ns + trap_resend_ns(sim_mgmt_port(t->node, t->port));
			i++;
			continue;
		}
		net->pending[i] = net->pending[--net->n_pending];
	}
}

/* TrapRepress from the SM: the issuer stops sending that trap.  1 when it was pending. */
static int trap_repressed(struct sim_net *net, const struct sim_net_msg *m)
{
	unsigned i;

	for (i = 0; i < net->n_pending; i++) {
		struct sim_net_trap *t = &net->pending[i];

		if (sim_mgmt_port(t->node, t->port)->lid == m->dlid &&
		    !memcmp(t->smp + MAD_OFF_TID, m->data + MAD_OFF_TID, MAD_TID_SIZE)) {
			net->pending[i] = net->pending[--net->n_pending];
			return 1;
		}
	}
	return 0;
}

int sim_net_trap(struct sim_net *net, struct sim_node *node, unsigned port, unsigned number,
		 const uint8_t *details)
{
	struct sim_port *from = sim_mgmt_port(node, port);
	uint8_t notice[NOTICE_SIZE] = { 0 }, mad[MAD_SIZE] = { 0 };
	uint8_t type = number < TRAP_CAPABILITY_CHANGE ? NOTICE_TYPE_URGENT : NOTICE_TYPE_INFO;
	struct sim_hop_end dst;
	struct sim_port *at;
	uint64_t outer;
	int routed;

	mad_set(notice, NTC_IS_GENERIC, 1);
	mad_set(notice, NTC_TYPE, type);
	mad_set(notice, NTC_PRODUCER_TYPE, producer_of(node));
	mad_set(notice, NTC_TRAP_NUMBER, number);
	mad_set(notice, NTC_ISSUER_LID, from->lid);
	/* NoticeToggle stays 0; NoticeCount is the count sent, cut to its 15 bits. */
	mad_set(notice, NTC_COUNT, net->traps_sent);
	if (details)
		memcpy(MAD_AT(notice, NTC_DATA_DETAILS), details, NOTICE_DETAILS_SIZE);
	mad_set(MAD_AT(notice, NTC_ISSUER_GID), GID_PREFIX, from->gid_prefix);
	mad_set(MAD_AT(notice, NTC_ISSUER_GID), GID_GUID,
		node->type == NODE_TYPE_SWITCH ? node->node_guid : from->guid);
	net->traps_sent++;

	/* Where it goes (the trip itself is deliver_trap's: this look's delays are no one's). */
	outer = meter_start();
	routed = from->lid && from->sm_lid &&
		 sim_route_lid(net->f, node, port, from->sm_lid, &dst) == 0;
	meter_stop(outer);
	if (!routed) {
		net->lost_no_route++;
		return -EHOSTUNREACH;
	}
	at = sim_mgmt_port(dst.node, dst.port);
	if (net->sm_active && at == sim_mgmt_port(net->sm_port->node, net->sm_port->num)) {
		builtin_sm_trap(net, notice);
		return 0;
	}
	/* To a real SM: an SMP Trap(Notice) on QP0, which carries the first 64 bytes. */
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_LID_ROUTED;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_TRAP;
	put_be64(mad + MAD_OFF_TID, net->traps_sent);
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_ATTR_NOTICE);
	memcpy(mad + SMP_OFF_DATA, notice, NOTICE_SMP_SIZE);
	if (!deliver_trap(net, node, port, mad))
		return -EHOSTUNREACH;
	trap_pending(net, node, port, mad);
	return 0;
}

int sim_net_link_trap(struct sim_net *net, struct sim_node *n)
{
	uint8_t details[NOTICE_DETAILS_SIZE] = { 0 };

	if (!n->sw || !n->sw->link_trap_owed)
		return 0;
	n->sw->link_trap_owed = 0;
	put_be16(details + TRAP128_OFF_LID, n->ports[0].lid);
	return sim_net_trap(net, n, 0, TRAP_LINK_STATE_CHANGE, details);
}

void sim_net_trap144_details(struct sim_port *p, uint8_t *details)
{
	memset(details, 0, NOTICE_DETAILS_SIZE);
	put_be16(details + TRAP144_OFF_LID, sim_mgmt_port(p->node, p->num)->lid);
	put_be32(details + TRAP144_OFF_CAPMASK, p->capmask);
	put_be16(details + TRAP144_OFF_CAPMASK2, p->capmask2);
}

/* Is lid one of the port's own (its LMC range)? */
static int own_lid(const struct sim_port *m, uint16_t lid)
{
	return m->lid && lid >= m->lid && (unsigned)lid < m->lid + (1u << m->lmc);
}

int sim_net_capmask_changed(struct sim_net *net, struct sim_port *p, uint32_t old_capmask)
{
	uint8_t details[NOTICE_DETAILS_SIZE];
	struct sim_port *m = sim_mgmt_port(p->node, p->num);

	if (p->capmask == old_capmask || !(p->capmask & PORT_CAP_IS_CAPMASK_NOTICE) ||
	    !m->sm_lid || own_lid(m, m->sm_lid))
		return 1;
	sim_net_trap144_details(p, details);
	return sim_net_trap(net, p->node, p->num, TRAP_CAPABILITY_CHANGE, details);
}
