/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the simulated fabric's MAD handling, as an agent
 * reaches it: agent registrations with arbitrary fields, then sends of
 * arbitrary umad headers and MAD bytes of any length through the sim
 * backend's send (the kernel's rules, directed and LID routing, the SMA),
 * each followed by receives into buffers of arbitrary sizes, whose every
 * byte is read.  The port is closed with whatever is still queued or
 * waiting for its timeout.  One fabric (the embedded default) serves the
 * whole run, so state an input leaves (a port disabled, a LID set) is
 * met by the next ones.
 *
 * Each send's MAD also goes straight to the PMA of a node of a second copy
 * of the default fabric (as PerfMgt class, whatever class it had; the node
 * and the arrival port picked by the address's LID and SL), which must
 * answer in place with a GetResp or stay silent; then the address's Q_Key
 * raises one of that port's error counters, so that the saturating widths
 * are met too.  And it goes, as a congestion control MAD, to the CC agent
 * of a node of a third copy (the node and a port, maybe one it lacks,
 * picked by the send's agent id and retries byte), after a congestion
 * event logged there when the address's last byte says so; the same rule
 * holds, and its keys, settings and logs persist across inputs.
 *
 * Each send's MAD goes to the built-in SA as well (sim_sa_process on a
 * fabric of its own: the default topology with LIDs and routes, a fresh
 * SA per input), with the SA's header forced on when the send asks for
 * it, from a requester the send picks (a MAD longer than one, as a
 * GetMulti's request of several RMPP segments comes); optionally its data is also handed
 * to sim_sa_notice as a notice.  The SA's answers are read whole and their
 * lengths checked against their AttributeOffset.
 *
 * And each send's MAD goes to a node of a fourth copy, whose nodes are
 * Mellanox's and whose links run FDR10 (picked as the CC agent's): as a
 * MAD of Mellanox's vendor class to its agent, and as a MlnxExtPortInfo
 * SMP (its method and modifier as sent) to its SMA, so that Sets persist.
 *
 * Sources: tests/fuzz/fuzz_sim_mad.c backends/sim.c backends/soft_port.c
 *   base/mad_rules.c backends/mad_queue.c backends/runtime_dir.c
 *   simfabric/fabric.c simfabric/topology.c simfabric/port_state.c
 *   simfabric/sma.c simfabric/pma.c simfabric/cc.c simfabric/mlnx.c simfabric/route.c
 *   simfabric/sa*.c backends/sysfs_writer.c, with glib-2.0 ("make fuzz"
 *   builds and runs it).
 *
 * Input: a byte choosing the host port, a byte with the number of
 * registrations (each 28 bytes: qpn, class, version, rmpp version, flags,
 * legacy, OUI[3], method mask[16], pad[3]), then sends until the input
 * ends (each: agent id, timeout, retries, receive buffer size / 8, MAD
 * length[2], umad address[20], then the MAD bytes).  The timeout byte's
 * bits above the two the timeout uses steer the SA: bit 2 forces an SA
 * header (base and class version, class), bit 3 also raises the data as a
 * notice, bits 4-7 pick the requester among the fabric's end ports.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/backend.h"
#include "tests/fuzz/backend_host.h"
#include "base/mad_wire.h"
#include "simfabric/cc.h"
#include "simfabric/mlnx.h"
#include "simfabric/pma.h"
#include "simfabric/sa.h"
#include "simfabric/sma.h"
#include "simfabric/topology.h"

extern const struct umad_backend umad_backend_sim;

#define MAX_MAD 4096
#define REG_BYTES 28
#define SEND_HEAD 26

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int started;
static struct sim_fabric *mlnx_fabric;	/* Mellanox's nodes, FDR10 links */
static struct sim_fabric *pma_fabric;	/* the PMA's own copy of the default fabric */
static struct sim_fabric *cc_fabric;	/* the CC agents' copy */

static void free_cc_fabric(void)
{
	sim_fabric_free(cc_fabric);
}

static void free_mlnx_fabric(void)
{
	sim_fabric_free(mlnx_fabric);
}

/* The SA's fabric: the default topology, every end port given a LID, switches routed. */
static struct sim_fabric *sa_fabric;
static struct sim_port *end_ports[16];
static unsigned n_end_ports;

/* The port of switch `sw` that leads towards node `to` (breadth-first), or 0. */
static unsigned toward(struct sim_node *sw, struct sim_node *to)
{
	struct sim_node *queue[64];
	unsigned first[64], head = 0, tail = 0, i, p;

	if (sw == to)
		return 0;
	for (p = 1; p <= sw->num_ports; p++) {
		struct sim_port *peer = sw->ports[p].peer;

		if (peer && tail < 64) {
			if (peer->node == to)
				return p;
			first[tail] = p;
			queue[tail++] = peer->node;
		}
	}
	while (head < tail) {
		struct sim_node *n = queue[head];
		unsigned via = first[head++];

		if (n->type != NODE_TYPE_SWITCH)
			continue;
		for (p = 1; p <= n->num_ports; p++) {
			struct sim_port *peer = n->ports[p].peer;
			int seen = 0;

			if (!peer)
				continue;
			if (peer->node == to)
				return via;
			for (i = 0; i < tail; i++)
				seen |= queue[i] == peer->node;
			if (!seen && peer->node != sw && tail < 64) {
				first[tail] = via;
				queue[tail++] = peer->node;
			}
		}
	}
	return 0;
}

static void sa_fabric_init(void)
{
	uint16_t lid = 1;
	size_t i;
	unsigned p, k;

	sa_fabric = sim_topology_parse(sim_default_topology, "default", NULL);
	if (!sa_fabric)
		return;
	for (i = 0; i < sa_fabric->n_nodes; i++) {
		struct sim_node *n = sa_fabric->nodes[i];

		for (p = n->type == NODE_TYPE_SWITCH ? 0 : 1;
		     p <= (n->type == NODE_TYPE_SWITCH ? 0u : n->num_ports); p++) {
			struct sim_port *port = &n->ports[p];

			if (n->type != NODE_TYPE_SWITCH && !port->peer)
				continue;
			port->lid = lid;
			port->lmc = n->type == NODE_TYPE_SWITCH ? 0 : 1;
			lid = (uint16_t)(lid + (1u << port->lmc));
			sim_fabric_lid_changed(sa_fabric, port, 0, 0);
			if (n_end_ports < 16)
				end_ports[n_end_ports++] = port;
		}
	}
	for (i = 0; i < sa_fabric->n_nodes; i++) {
		struct sim_switch *sw = sa_fabric->nodes[i]->sw;

		if (!sw)
			continue;
		sw->lft = malloc(SIM_LFT_CAP);
		if (!sw->lft)
			continue;
		memset(sw->lft, SIM_LFT_NO_ROUTE, SIM_LFT_CAP);
		sw->lft_top = lid;
		for (k = 0; k < n_end_ports; k++) {
			unsigned lids = 1u << end_ports[k]->lmc, l;
			unsigned port = toward(sa_fabric->nodes[i], end_ports[k]->node);

			for (l = 0; l < lids; l++)
				sw->lft[end_ports[k]->lid + l] = (uint8_t)port;
		}
	}
}

static volatile unsigned sa_sink;

static void sa_mcast_changed(void *arg, uint16_t mlid, struct sim_port *const *members, size_t n)
{
	size_t i;

	(void)arg;
	for (i = 0; i < n; i++)
		sa_sink += members[i]->lid + mlid;
}

static void sa_send_report(void *arg, uint16_t lid, uint32_t qpn, const uint8_t *mad)
{
	size_t i;

	(void)arg;
	for (i = 0; i < MAD_SIZE; i++)
		sa_sink += mad[i];
	sa_sink += lid + qpn;
}

/* One MAD to the SA, as the send's head byte `steer` says. */
static void sa_feed(struct sim_sa *sa, const uint8_t *bytes, size_t len, uint8_t steer,
		    const uint8_t *addr)
{
	static uint8_t req[MAX_MAD + MAD_SIZE];
	struct sim_sa_requester from;
	uint8_t *resp = NULL;
	size_t resp_len = 0, i, len_req = len < MAD_SIZE ? MAD_SIZE : len;
	int r;

	memset(req, 0, MAD_SIZE);
	memcpy(req, bytes, len);
	if (steer & 0x04) {
		req[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
		req[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
		req[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	}
	from.port = n_end_ports ? end_ports[(steer >> 4) % n_end_ports] : NULL;
	from.lid = from.port ? from.port->lid : 0;
	/* Every so often a requester known only by a LID from the input. */
	if ((steer >> 4) == 0xf) {
		from.port = NULL;
		from.lid = (uint16_t)(addr[0] << 8 | addr[1]);
	}
	from.qpn = (uint32_t)addr[2] << 16 | (uint32_t)addr[3] << 8 | addr[4];
	from.pkey = PKEY_DEFAULT;
	r = sim_sa_process(sa, &from, req, len_req, &resp, &resp_len);
	if (r == 1) {
		uint16_t offset = get_be16(resp + SA_OFF_ATTR_OFFSET);

		if (resp_len < SA_HDR_END)
			abort();
		/* Tables and GetMulti's PathRecords: whole records; anything else one MAD. */
		if ((mad_method(resp) == UMAD_SA_METHOD_GET_TABLE_RESP ||
		     mad_method(resp) == UMAD_SA_METHOD_GET_MULTI_RESP) && mad_status(resp) == 0) {
			if (offset ? (resp_len - SA_HDR_END) % (offset * SA_ATTR_OFFSET_UNIT) != 0
				   : resp_len != SA_HDR_END)
				abort();
		} else if (resp_len != MAD_SIZE) {
			abort();
		}
		/* The buffer holds at least a MAD, whatever the answer's length. */
		for (i = 0; i < (resp_len > MAD_SIZE ? resp_len : MAD_SIZE); i++)
			sa_sink += resp[i];
		free(resp);
	} else if (r != 0 && r != -ENOMEM) {
		abort();
	}
	if ((steer & 0x08) && len >= SA_HDR_END + NOTICE_SMP_SIZE)
		sa_sink += sim_sa_notice(sa, bytes + SA_HDR_END);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("UMAD_SIM_TOPOLOGY");
	unsetenv("UMAD_SIM_HOST");
	unsetenv("UMAD_SIM_SYSFS");
	unsetenv("UMAD_SIM_CA_NAME");
	started = umad_backend_sim.init(&fuzz_host) == 0;
	if (started)
		atexit(umad_backend_sim.fini);
	pma_fabric = sim_topology_parse(sim_default_topology, "default", NULL);
	if (!pma_fabric)
		abort();
	sa_fabric_init();
	cc_fabric = sim_topology_parse(sim_default_topology, "default", NULL);
	if (!cc_fabric)
		abort();
	atexit(free_cc_fabric);
	mlnx_fabric = sim_topology_parse(
		"vendid=0x2c9\n"
		"devid=0xd2f0\n"
		"Switch 3 \"S1\"\n"
		"[1] \"H1\"[1] # 4xFDR10\n"
		"[2] \"H1\"[2] # 4xQDR\n"
		"\n"
		"devid=0x101b\n"
		"fwver=20.31.1014\n"
		"Hca 2 \"H1\"\n"
		"[1] \"S1\"[1] # 4xFDR10\n"
		"[2] \"S1\"[2] # 4xQDR\n", "mlnx", NULL);
	if (!mlnx_fabric)
		abort();
	atexit(free_mlnx_fabric);
	return 0;
}

/* The MAD to a PMA: answered in place as a GetResp, or left alone. */
static void to_pma(const struct ib_user_mad *hdr, const uint8_t *mad, size_t len)
{
	uint8_t buf[MAD_SIZE] = { 0 }, before[MAD_SIZE];
	struct sim_node *n = pma_fabric->nodes[be16toh(hdr->addr.lid) % pma_fabric->n_nodes];
	unsigned port = hdr->addr.sl % (n->num_ports + 1u);

	memcpy(buf, mad, len < MAD_SIZE ? len : MAD_SIZE);
	buf[MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT;
	memcpy(before, buf, MAD_SIZE);
	if (sim_pma_process(pma_fabric, n, port, buf)) {
		if (mad_method(buf) != UMAD_METHOD_GET_RESP || mad_tid(buf) != mad_tid(before) ||
		    mad_attr_id(buf) != mad_attr_id(before))
			abort();
	} else if (memcmp(buf, before, MAD_SIZE)) {
		abort();	/* silence changes nothing */
	}
	if (sim_pma_counter_add(&n->ports[port],
				(enum sim_pma_counter)(hdr->addr.qkey % (SIM_PMA_N_COUNTERS + 1)),
				(uint64_t)be32toh(hdr->addr.qkey) << (hdr->addr.qkey & 31)) == -ENOMEM)
		abort();
}

/*
 * An agent's verdict on a MAD it had in place (before: as it came): a
 * GetResp to the same request, whose every byte is read (their sum), or
 * silence, which changes nothing.
 */
static unsigned judge(int answered, const uint8_t *mad, const uint8_t *before)
{
	unsigned sum = 0;
	size_t i;

	if (answered) {
		if (mad_method(mad) != UMAD_METHOD_GET_RESP || mad_tid(mad) != mad_tid(before) ||
		    mad_attr_id(mad) != mad_attr_id(before))
			abort();
		for (i = 0; i < MAD_SIZE; i++)
			sum += mad[i];
	} else if (memcmp(mad, before, MAD_SIZE)) {
		abort();	/* silence changes nothing */
	}
	return sum;
}

/*
 * The MAD as a CC MAD to a node of cc_fabric, through a port that may not
 * exist (s: the send's head bytes choose): answered in place as a GetResp
 * whose every byte is read, or left alone.
 */
static unsigned cc_agent(const uint8_t *s, const uint8_t *bytes, size_t len)
{
	uint8_t mad[MAD_SIZE] = { 0 }, before[MAD_SIZE];
	struct sim_node *n;
	unsigned port;

	n = cc_fabric->nodes[s[0] % cc_fabric->n_nodes];
	port = s[2] % (n->num_ports + 2u);
	memcpy(mad, bytes, len < MAD_SIZE ? len : MAD_SIZE);
	mad[MAD_OFF_CLASS] = UMAD_CLASS_CONG_MGMT;
	if (s[25] & 1)
		sim_cc_log_switch_event(n, port, get_be16(s + 8), get_be16(s + 10), s[12]);
	else if (s[25] & 2)
		sim_cc_log_ca_event(n, port, get_be24(s + 8), get_be24(s + 11), s[14], s[15],
				    get_be16(s + 16));
	memcpy(before, mad, MAD_SIZE);
	return judge(sim_cc_process(cc_fabric, n, port, mad), mad, before);
}

/*
 * The MAD to a node of mlnx_fabric (s picks it, and its port): as a MAD of
 * the vendor class, then as a MlnxExtPortInfo SMP.  Each is answered in
 * place as a GetResp whose every byte is read, or left alone.
 */
static unsigned mlnx_agents(const uint8_t *s, const uint8_t *bytes, size_t len)
{
	struct sim_node *n = mlnx_fabric->nodes[s[0] % mlnx_fabric->n_nodes];
	unsigned port = n->type == NODE_TYPE_SWITCH ? 0 : 1 + s[2] % n->num_ports, sum = 0, k;
	uint8_t mad[MAD_SIZE], before[MAD_SIZE];

	for (k = 0; k < 2; k++) {
		memset(mad, 0, MAD_SIZE);
		memcpy(mad, bytes, len < MAD_SIZE ? len : MAD_SIZE);
		if (k == 0) {
			mad[MAD_OFF_CLASS] = MLNX_VS_CLASS;
		} else {
			mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_LID_ROUTED;
			put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_MLNX_EXT_PORT_INFO);
		}
		memcpy(before, mad, MAD_SIZE);
		sum += judge(k == 0 ? sim_mlnx_vs_process(n, port, mad)
				    : sim_sma_process(mlnx_fabric, n, port, mad, NULL), mad, before);
	}
	return sum;
}

/* Read what the port has, into a buffer of `room` bytes after the header; sum every byte. */
static unsigned drain(int fd, size_t room)
{
	static uint8_t buf[sizeof(struct ib_user_mad) + MAX_MAD];
	unsigned sum = 0;
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		size_t i, len = sizeof(struct ib_user_mad) + (room < MAX_MAD ? room : MAX_MAD);

		n = umad_backend_sim.recv(fd, buf, len);
		if (n == -ENOSPC) {
			/* The header says how much the message needs: take it whole. */
			const struct ib_user_mad *h = (const void *)buf;

			if (h->length > sizeof(buf))
				abort();	/* a message larger than anything sent */
			n = umad_backend_sim.recv(fd, buf, sizeof(buf));
		}
		if (n < 0)
			break;
		if ((size_t)n > sizeof(buf))
			abort();
		for (i = 0; i < (size_t)n; i++)
			sum += buf[i];
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t umad[sizeof(struct ib_user_mad) + MAX_MAD];
	struct ib_user_mad *hdr = (struct ib_user_mad *)umad;
	size_t hdr_size = 0, at = 2;
	int open_errno = 0, fd, n_regs, i;
	volatile unsigned sink = 0;
	static const struct sim_sa_hooks sa_hooks = { sa_mcast_changed, sa_send_report, NULL };
	struct sim_sa *sa = NULL;

	if (!started || size < 2)
		return 0;
	fd = umad_backend_sim.open_port("sim0", 1 + (data[0] & 1), &hdr_size, &open_errno);
	if (fd < 0)
		return 0;
	if (sa_fabric && n_end_ports)
		sa = sim_sa_new(sa_fabric, end_ports[0], &sa_hooks);
	n_regs = data[1] % 5;
	for (i = 0; i < n_regs && at + REG_BYTES <= size; i++, at += REG_BYTES) {
		const uint8_t *r = data + at;
		struct umad_agent_req req = {
			.qpn = r[0] % 3, .mgmt_class = r[1], .mgmt_class_version = r[2],
			.rmpp_version = r[3], .flags = r[4], .legacy = r[5] & 1,
			.oui = (uint32_t)r[6] << 16 | (uint32_t)r[7] << 8 | r[8],
		};
		uint32_t id;

		memcpy(req.method_mask, r + 9, 16);
		umad_backend_sim.register_agent(fd, &req, &id);
	}
	while (at + SEND_HEAD <= size) {
		const uint8_t *s = data + at;
		size_t mad_len = ((size_t)s[4] << 8 | s[5]) % (MAX_MAD + 1), avail;

		at += SEND_HEAD;
		avail = size - at < mad_len ? size - at : mad_len;
		memset(umad, 0, sizeof(struct ib_user_mad) + mad_len);
		memcpy(&hdr->addr, s + 6, 20);
		hdr->agent_id = s[0] % 40;
		hdr->timeout_ms = s[1] % 4;		/* short: nothing waits long */
		hdr->retries = s[2] % 3;
		memcpy(umad + sizeof(struct ib_user_mad), data + at, avail);
		sink += cc_agent(s, data + at, avail);
		sink += mlnx_agents(s, data + at, avail);
		at += avail;
		to_pma(hdr, umad + sizeof(struct ib_user_mad), mad_len);
		umad_backend_sim.send(fd, umad, sizeof(struct ib_user_mad) + mad_len);
		if (sa)
			sa_feed(sa, umad + sizeof(struct ib_user_mad), mad_len, s[1], s + 6);
		if (umad_backend_sim.pending(fd) < 0)
			abort();
		sink += drain(fd, (size_t)s[3] * 8);
	}
	umad_backend_sim.close_port(fd);
	sim_sa_free(sa);
	(void)sink;
	return 0;
}
