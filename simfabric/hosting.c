/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The owner of a fabric and of the programs attached to it (hosting.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/mad_rules.h"
#include "base/mad_wire.h"
#include "simfabric/hosting.h"

#define MAX_AGENTS	UMAD_CA_MAX_AGENTS	/* per opened port, as the kernel's */
#define MAX_ISSM	(SIM_HOSTING_MAX_HOSTS * (SIM_MAX_PORTS + 1))

/* A port a program opened, and the agents it registered there. */
struct opened_port {
	struct sim_port *port;		/* NULL: the handle is free */
	uint32_t host;
	struct umad_agent_req agents[MAX_AGENTS];
	uint8_t agent_used[MAX_AGENTS];
	uint32_t hi_tid[MAX_AGENTS];
};

struct sim_attachment {
	struct sim_hosting *h;
	const struct sim_attachment_ops *ops;
	void *owner;
	int active;
	struct sim_node *hosts[SIM_HOSTING_MAX_HOSTS];
	unsigned n_hosts;
	struct opened_port *ports;	/* by handle */
	unsigned n_ports;
	struct sim_port *issm[MAX_ISSM];	/* the issm devices it holds */
	unsigned n_issm;
	struct sim_attachment *next;
};

/* A request a program's agent took, whose response goes back to the sender. */
struct waiting_request {
	struct sim_port *port;		/* the sender's */
	struct sim_attachment *a;
	uint32_t host;
	uint8_t mgmt_class;
	uint8_t tid[MAD_TID_SIZE];
	uint64_t deadline_ns;
};

struct sim_hosting {
	struct sim_fabric *fabric;
	struct sim_net net;
	struct sim_sma_hooks hooks;
	struct sim_attachment *attachments;
	unsigned *issm_holders;		/* by port: how many programs hold its issm device */
	size_t n_port_slots;
	struct waiting_request *waiting;
	unsigned n_waiting, waiting_room;
	uint32_t next_hi_tid;		/* where the search for a free hi_tid starts */
};

/* --- IsSM ---------------------------------------------------------------------------- */

/* A port's slot in issm_holders: its node's index and number. */
static size_t port_slot(const struct sim_port *p)
{
	return (size_t)p->node->index * (SIM_MAX_PORTS + 1) + p->num;
}

static void refresh_is_sm(struct sim_hosting *h, struct sim_port *p);

/* The built-in SM stops; its port's IsSM is worked out again at once. */
static void step_aside(struct sim_hosting *h)
{
	struct sim_port *was = h->net.sm_port;

	if (!h->net.sm_active)
		return;
	sim_net_sm_step_aside(&h->net);
	if (was)
		refresh_is_sm(h, was);
}

/*
 * Port p's IsSM, worked out whenever what it depends on changes (a program
 * takes or leaves its issm device, the built-in SM steps aside), so that
 * it is always current where the SMA, or a client on the mapped fabric,
 * reads it.
 */
static void refresh_is_sm(struct sim_hosting *h, struct sim_port *p)
{
	int held = h->issm_holders[port_slot(p)] > 0;
	uint32_t old = p->capmask;

	if (held && h->net.sm_active)
		step_aside(h);
	if (held || (h->net.sm_active && p == h->net.sm_port))
		p->capmask |= PORT_CAP_IS_SM;
	else
		p->capmask &= ~PORT_CAP_IS_SM;
	sim_net_capmask_changed(&h->net, p, old);	/* Trap 144, as the SMA sends it */
}

int sim_hosting_issm(struct sim_attachment *a, uint32_t host, uint32_t port, int held)
{
	struct sim_hosting *h = a->h;
	struct sim_port *p;
	unsigned i;

	if (!sim_attachment_port_valid(a, host, port))
		return -EINVAL;
	p = &a->hosts[host]->ports[port];
	for (i = 0; i < a->n_issm && a->issm[i] != p; i++)
		;
	if ((i < a->n_issm) == !!held)
		return 0;
	if (held) {
		a->issm[a->n_issm++] = p;
		h->issm_holders[port_slot(p)]++;
	} else {
		a->issm[i] = a->issm[--a->n_issm];
		h->issm_holders[port_slot(p)]--;
	}
	refresh_is_sm(h, p);
	return 0;
}

/* --- what the fabric calls back -------------------------------------------------------- */

/* The programs attached at node n (every node: NULL) learn that it changed. */
static void tell_changed(struct sim_hosting *h, const struct sim_node *n)
{
	struct sim_attachment *a;
	uint32_t i;

	for (a = h->attachments; a; a = a->next)
		for (i = 0; a->active && i < a->n_hosts; i++)
			if ((!n || a->hosts[i] == n) && a->ops->node_changed)
				a->ops->node_changed(a->owner, i);
}

void sim_hosting_node_changed(struct sim_hosting *h, struct sim_node *n)
{
	tell_changed(h, n);
	sim_net_link_trap(&h->net, n);
}

static void hook_node_changed(void *arg, struct sim_node *n)
{
	tell_changed(arg, n);
}

/* Before a PortInfo of a port programs are attached at is read, they may tell their issm devices. */
static void hook_before_port_read(void *arg, struct sim_port *p)
{
	struct sim_hosting *h = arg;
	struct sim_attachment *a;
	unsigned i;

	if (!p->node->attached)
		return;
	for (a = h->attachments; a; a = a->next)
		for (i = 0; a->ops->before_port_read && i < a->n_hosts; i++)
			if (a->hosts[i] == p->node)
				a->ops->before_port_read(a->owner, i, p->num);
}

/* Requests whose sender stopped waiting for them go. */
static void forget_expired(struct sim_hosting *h, uint64_t now)
{
	unsigned i;

	for (i = 0; i < h->n_waiting; i++)
		if (h->waiting[i].deadline_ns < now)
			h->waiting[i--] = h->waiting[--h->n_waiting];
}

/* The waits of a program's requests from port p (any port: NULL) are over. */
static void forget_waiting(struct sim_hosting *h, const struct sim_attachment *a,
			   const struct sim_port *p)
{
	unsigned i;

	for (i = 0; i < h->n_waiting; i++)
		if (h->waiting[i].a == a && (!p || h->waiting[i].port == p))
			h->waiting[i--] = h->waiting[--h->n_waiting];
}

unsigned sim_hosting_waiting(const struct sim_hosting *h)
{
	return h->n_waiting;
}

/* A response: back to the program whose request, handed to an agent, waits for it. */
static int receive_response(struct sim_hosting *h, const struct sim_net_msg *m)
{
	unsigned i;

	forget_expired(h, sim_net_now_ns());
	for (i = 0; i < h->n_waiting; i++) {
		struct waiting_request w = h->waiting[i];

		if (w.port != m->port || w.mgmt_class != mad_class(m->data) ||
		    memcmp(w.tid, m->data + MAD_OFF_TID, MAD_TID_SIZE))
			continue;
		h->waiting[i] = h->waiting[--h->n_waiting];
		return w.a->active ? w.a->ops->deliver(w.a->owner, w.host, m) : 0;
	}
	return 0;
}

/* A MAD reached a port and no agent of the fabric took it: a program's agent there, by the kernel's rules. */
static int receive(void *arg, const struct sim_net_msg *m)
{
	struct sim_hosting *h = arg;
	struct sim_attachment *a;
	unsigned i, k;

	if (m->len < MAD_HDR_SIZE)
		return 0;
	if (mad_rules_method_is_response(mad_class(m->data), mad_method(m->data),
					 mad_attr_mod(m->data)))
		return receive_response(h, m);
	for (a = h->attachments; a; a = a->next) {
		if (!a->active)
			continue;
		for (i = 0; i < a->n_ports; i++) {
			struct opened_port *op = &a->ports[i];

			if (op->port != m->port)
				continue;
			for (k = 0; k < MAX_AGENTS; k++)
				if (op->agent_used[k] &&
				    mad_rules_agent_receives(&op->agents[k], m->dqpn, m->data, m->len))
					return a->ops->deliver(a->owner, op->host, m);
		}
	}
	return 0;
}

/* --- the hosting ---------------------------------------------------------------------- */

int sim_hosting_new(struct sim_fabric *fabric, int builtin_sm, struct sim_hosting **out,
		    struct umad_err *err)
{
	struct sim_hosting *h = calloc(1, sizeof(*h));
	struct sim_net_endpoint_ops ep = { .receive = receive };
	int r;

	if (!h)
		return umad_err_set(err, -ENOMEM, "out of memory");
	h->fabric = fabric;
	h->next_hi_tid = 1;
	h->hooks = (struct sim_sma_hooks){
		.arg = h,
		.before_port_read = hook_before_port_read,
		.node_changed = hook_node_changed,
	};
	ep.arg = h;
	h->n_port_slots = (size_t)fabric->n_nodes * (SIM_MAX_PORTS + 1);
	h->issm_holders = calloc(h->n_port_slots ? h->n_port_slots : 1, sizeof(*h->issm_holders));
	if (!h->issm_holders) {
		free(h);
		return umad_err_set(err, -ENOMEM, "out of memory");
	}
	r = sim_net_init(&h->net, fabric, builtin_sm, &h->hooks, &ep, err);
	if ((r == -ENOSPC || r == -ENODEV) && builtin_sm) {
		/* More ports than unicast LIDs, or nowhere for an SM: as if no SM came. */
		umad_err_prefix(err, r, "the built-in SM cannot bring the fabric up, so it stays "
				"as it powers up: ");
		sim_net_fini(&h->net);
		r = sim_net_init(&h->net, fabric, 0, &h->hooks, &ep, err);
	}
	if (r < 0) {
		umad_err_prefix(err, r, "cannot bring the fabric up: ");
		sim_net_fini(&h->net);
		free(h->issm_holders);
		free(h->waiting);
		free(h);
		return r;
	}
	*out = h;
	return 0;
}

void sim_hosting_free(struct sim_hosting *h)
{
	if (!h)
		return;
	while (h->attachments)
		sim_hosting_detach(h->attachments);
	sim_net_fini(&h->net);
	sim_fabric_free(h->fabric);
	free(h->issm_holders);
	free(h->waiting);
	free(h);
}

struct sim_fabric *sim_hosting_fabric(const struct sim_hosting *h)
{
	return h->fabric;
}

struct sim_net *sim_hosting_net(struct sim_hosting *h)
{
	return &h->net;
}

void sim_hosting_tick(struct sim_hosting *h, uint64_t now_ns)
{
	if (h->net.n_pending)
		sim_net_tick(&h->net, now_ns);
}

uint64_t sim_hosting_next_due(const struct sim_hosting *h)
{
	uint64_t first = 0;
	unsigned i;

	for (i = 0; i < h->net.n_pending; i++)
		if (!first || h->net.pending[i].due_ns < first)
			first = h->net.pending[i].due_ns;
	return first;
}

int sim_hosting_control(struct sim_hosting *h, const struct sim_fault_req *rq,
			struct umad_err *err)
{
	int r = sim_fault_apply(&h->net, rq, err);

	if (r == 0 && sim_fault_changes_ports(rq->op))
		tell_changed(h, NULL);
	return r;
}

/* --- programs ------------------------------------------------------------------------- */

int sim_hosting_attach(struct sim_hosting *h, const char *const *names, unsigned n,
		       const struct sim_attachment_ops *ops, void *owner,
		       struct sim_attachment **out, struct umad_err *err)
{
	struct sim_attachment *a;
	unsigned i, j;

	if (n > SIM_HOSTING_MAX_HOSTS)
		return umad_err_set(err, -EINVAL, "at most %d nodes", SIM_HOSTING_MAX_HOSTS);
	a = calloc(1, sizeof(*a));
	if (!a)
		return umad_err_set(err, -ENOMEM, "out of memory");
	a->h = h;
	a->ops = ops;
	a->owner = owner;
	a->active = 1;
	a->n_hosts = n ? n : 1;
	for (i = 0; i < a->n_hosts; i++) {
		a->hosts[i] = n ? sim_fabric_find(h->fabric, names[i])
				: sim_fabric_default_host(h->fabric);
		if (!a->hosts[i]) {
			free(a);
			if (n)
				return umad_err_set(err, -ENODEV, "'%s' names no node of the fabric",
						    names[i]);
			return umad_err_set(err, -ENODEV, "the fabric has no node to attach at");
		}
		for (j = 0; j < i; j++)
			if (a->hosts[j] == a->hosts[i]) {
				umad_err_set(err, -EINVAL, "%s is attached at twice", a->hosts[i]->name);
				free(a);
				return -EINVAL;
			}
	}
	for (i = 0; i < a->n_hosts; i++)
		a->hosts[i]->attached++;
	a->next = h->attachments;
	h->attachments = a;
	*out = a;
	return 0;
}

void sim_hosting_detach(struct sim_attachment *a)
{
	struct sim_hosting *h;
	struct sim_attachment **at;
	unsigned i;

	if (!a)
		return;
	h = a->h;
	for (at = &h->attachments; *at && *at != a; at = &(*at)->next)
		;
	if (*at)
		*at = a->next;
	for (i = 0; i < a->n_hosts; i++)
		a->hosts[i]->attached--;
	for (i = 0; i < a->n_issm; i++) {
		h->issm_holders[port_slot(a->issm[i])]--;
		refresh_is_sm(h, a->issm[i]);
	}
	forget_waiting(h, a, NULL);
	free(a->ports);
	free(a);
}

void sim_attachment_set_active(struct sim_attachment *a, int active)
{
	a->active = active;
}

unsigned sim_attachment_n_hosts(const struct sim_attachment *a)
{
	return a->n_hosts;
}

struct sim_node *sim_attachment_node(const struct sim_attachment *a, uint32_t host)
{
	return host < a->n_hosts ? a->hosts[host] : NULL;
}

int sim_attachment_port_valid(const struct sim_attachment *a, uint32_t host, uint32_t port)
{
	return host < a->n_hosts &&
	       sim_host_port_valid((uint32_t)a->hosts[host]->type, a->hosts[host]->num_ports, port);
}

int sim_hosting_view(struct sim_attachment *a, uint32_t host, struct fp_node *node,
		     struct fp_port *ports)
{
	struct sim_node *n;
	unsigned i;

	if (host >= a->n_hosts)
		return -ENOENT;
	n = a->hosts[host];
	fp_node_fill(node, n);
	for (i = 0; i <= SIM_MAX_PORTS; i++) {
		if (i > n->num_ports || !sim_attachment_port_valid(a, host, i)) {
			memset(&ports[i], 0, sizeof(ports[i]));
			continue;
		}
		fp_port_fill(&ports[i], &n->ports[i]);
	}
	return 0;
}

static struct opened_port *opened(struct sim_attachment *a, uint32_t handle)
{
	return handle < a->n_ports && a->ports[handle].port ? &a->ports[handle] : NULL;
}

int sim_hosting_open(struct sim_attachment *a, uint32_t host, uint32_t port)
{
	struct opened_port *grown;
	unsigned i;

	if (!sim_attachment_port_valid(a, host, port))
		return -EINVAL;
	for (i = 0; i < a->n_ports && a->ports[i].port; i++)
		;
	if (i == a->n_ports) {
		if (a->n_ports >= SIM_HOSTING_MAX_OPEN)
			return -EMFILE;
		grown = realloc(a->ports, (a->n_ports + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		a->ports = grown;
		a->n_ports++;
	}
	memset(&a->ports[i], 0, sizeof(a->ports[i]));
	a->ports[i].port = &a->hosts[host]->ports[port];
	a->ports[i].host = host;
	return (int)i;
}

int sim_hosting_close(struct sim_attachment *a, uint32_t handle)
{
	struct opened_port *op = opened(a, handle);
	unsigned i;
	int others = 0;

	if (!op)
		return -EBADF;
	for (i = 0; i < a->n_ports; i++)
		others += &a->ports[i] != op && a->ports[i].port == op->port;
	if (!others)
		forget_waiting(a->h, a, op->port);
	op->port = NULL;
	return 0;
}

/* Would an agent on port p clash with one another program registered on the same port? */
static int clashes(const struct sim_attachment *self, const struct sim_port *p,
		   const struct umad_agent_req *req)
{
	const struct sim_attachment *a;
	unsigned i, k;

	for (a = self->h->attachments; a; a = a->next) {
		if (a == self || !a->active)
			continue;
		for (i = 0; i < a->n_ports; i++)
			for (k = 0; a->ports[i].port == p && k < MAX_AGENTS; k++)
				if (a->ports[i].agent_used[k] &&
				    mad_rules_registrations_conflict(&a->ports[i].agents[k], req))
					return 1;
	}
	return 0;
}

/* Does an agent of any program have this hi_tid? */
static int hi_tid_taken(const struct sim_hosting *h, uint32_t hi_tid)
{
	const struct sim_attachment *a;
	unsigned i, k;

	for (a = h->attachments; a; a = a->next)
		for (i = 0; i < a->n_ports; i++)
			for (k = 0; k < MAX_AGENTS; k++)
				if (a->ports[i].agent_used[k] && a->ports[i].hi_tid[k] == hi_tid)
					return 1;
	return 0;
}

/*
 * The next free hi_tid, given out cyclically in 24 bits as the kernel does,
 * 0 left out; 0 only when every one is taken.
 */
static uint32_t alloc_hi_tid(struct sim_hosting *h)
{
	uint32_t i;

	for (i = 0; i < MAD_RULES_HI_TID_MAX; i++) {
		uint32_t v = h->next_hi_tid;

		h->next_hi_tid = v % MAD_RULES_HI_TID_MAX + 1;
		if (!hi_tid_taken(h, v))
			return v;
	}
	return 0;
}

int sim_hosting_register(struct sim_attachment *a, uint32_t handle, uint32_t agent_id,
			 const struct umad_agent_req *req, struct umad_err *err)
{
	struct opened_port *op = opened(a, handle);
	uint32_t hi_tid;

	if (!op)
		return -EBADF;
	if (agent_id >= MAX_AGENTS)
		return -EINVAL;
	if (clashes(a, op->port, req))
		return umad_err_set(err, -EINVAL,
				    "another process has an agent for the same MADs there");
	op->agent_used[agent_id] = 0;	/* its old hi_tid is free again */
	hi_tid = alloc_hi_tid(a->h);
	if (!hi_tid)
		return umad_err_set(err, -ENOMEM, "every hi_tid is taken by an agent");
	op->agents[agent_id] = *req;
	op->agent_used[agent_id] = 1;
	op->hi_tid[agent_id] = hi_tid;
	/* A real SM's SA (a server of Gets) retires the built-in one. */
	if (a->h->net.sm_active && req->mgmt_class == UMAD_CLASS_SUBN_ADM &&
	    ((req->method_mask[0] >> UMAD_METHOD_GET) & 1))
		step_aside(a->h);
	return (int)hi_tid;
}

int sim_hosting_unregister(struct sim_attachment *a, uint32_t handle, uint32_t agent_id)
{
	struct opened_port *op = opened(a, handle);

	if (!op || agent_id >= MAX_AGENTS)
		return -EINVAL;
	op->agent_used[agent_id] = 0;
	return 0;
}

/* Room for one more waiting request: 0, or -ENOMEM (the response is then not routed back). */
static int make_room(struct sim_hosting *h)
{
	struct waiting_request *grown;
	unsigned room;

	if (h->n_waiting < h->waiting_room)
		return 0;
	room = h->waiting_room ? h->waiting_room * 2 : 64;
	grown = realloc(h->waiting, room * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	h->waiting = grown;
	h->waiting_room = room;
	return 0;
}

int sim_hosting_send(struct sim_attachment *a, const struct sim_hosting_send *q, uint8_t *mad,
		     const uint8_t *whole, size_t len, struct sim_net_reply *reply,
		     enum sim_net_result *result)
{
	struct sim_hosting *h = a->h;
	struct opened_port *op = opened(a, q->handle);
	struct sim_net_msg m;

	if (!op)
		return -EBADF;
	m = (struct sim_net_msg){
		.port = op->port,
		.slid = sim_mgmt_port(op->port->node, op->port->num)->lid,
		.dlid = q->dlid,
		.sqpn = q->sqpn,
		.dqpn = q->dqpn,
		.qkey = q->qkey,
		.pkey = sim_port_pkey(op->port, q->pkey_index % SIM_PKEY_TABLE_SIZE),
		.sl = q->sl,
		.data = len > MAD_SIZE && whole ? whole : mad,
		.len = len,
	};
	/* Traps a real SM has not repressed go again while programs talk to the fabric. */
	if (h->net.n_pending)
		sim_net_tick(&h->net, sim_net_now_ns());
	*result = sim_net_send(&h->net, &m, mad, reply);
	if (*result == SIM_NET_DELIVERED && q->wait_ms &&
	    !mad_rules_method_is_response(mad_class(mad), mad_method(mad), mad_attr_mod(mad))) {
		struct waiting_request w = {
			.port = op->port, .a = a, .host = op->host, .mgmt_class = mad_class(mad),
			.deadline_ns = sim_net_now_ns() + (uint64_t)q->wait_ms * 1000000u,
		};

		memcpy(w.tid, mad + MAD_OFF_TID, MAD_TID_SIZE);
		/*
		 * Requests nobody answers must not pile up: at the bound the
		 * expired go, and past it the response is not routed back (the
		 * sender times out, as if it were lost).
		 */
		if (h->n_waiting >= SIM_HOSTING_MAX_WAITING)
			forget_expired(h, sim_net_now_ns());
		if (h->n_waiting < SIM_HOSTING_MAX_WAITING && make_room(h) == 0)
			h->waiting[h->n_waiting++] = w;
	}
	return 0;
}
