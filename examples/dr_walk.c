/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Walk the fabric by directed route and print each node's NodeInfo and
 * NodeDescription, using only the libibumad API (and the tree's names of
 * the wire format, base/mad_wire.h).  Runs on any backend; on the
 * simulated fabric:
 *     UMAD_BACKEND=sim examples/dr_walk
 *
 * Breadth-first: every switch found is asked through each of its ports,
 * and a node seen before (same NodeGUID) is not walked again.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/umad.h>

#include "base/mad_wire.h"

#define MAX_NODES	65536
#define MAX_HOPS	(UMAD_SMP_MAX_HOPS - 1)	/* the path's byte 0 is no hop */
#define TIMEOUT_MS	200
#define RETRIES		2

struct node {
	uint64_t guid;
	uint8_t type, num_ports;
	uint8_t path[MAX_HOPS + 1];	/* path[1..hops]: the ports to leave by */
	int hops;
};

static struct node *nodes;
static int n_nodes;

/* One SubnGet by directed route; 0 and data (SMP_DATA_SIZE bytes) or -1. */
static int dr_get(int fd, int agent, const uint8_t *path, int hops, uint16_t attr, uint32_t mod,
		  uint8_t *data)
{
	static uint32_t tid = 1;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	uint8_t *mad = umad_get_mad(umad);
	int len = MAD_SIZE, r;

	memset(buf, 0, sizeof(buf));
	umad_set_addr(umad, LID_PERMISSIVE, QP0_SMI, 0, 0);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	mad[SMP_OFF_HOP_CNT] = (uint8_t)hops;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	tid++;
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
	put_be32(mad + MAD_OFF_ATTR_MOD, mod);
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
	memcpy(mad + SMP_OFF_INITIAL_PATH, path, (size_t)hops + 1);
	if (umad_send(fd, agent, umad, MAD_SIZE, TIMEOUT_MS, RETRIES) < 0)
		return -1;
	r = umad_recv(fd, umad, &len, -1);
	if (r < 0 || umad_status(umad) || (mad_status(mad) & ~UMAD_SMP_DIRECTION))
		return -1;	/* timed out, or the SMA answered with an error status */
	memcpy(data, mad + SMP_OFF_DATA, SMP_DATA_SIZE);
	return 0;
}

static int known(uint64_t guid)
{
	int i;

	for (i = 0; i < n_nodes; i++)
		if (nodes[i].guid == guid)
			return 1;
	return 0;
}

static void print_path(const uint8_t *path, int hops)
{
	int i;

	printf("0");
	for (i = 1; i <= hops; i++)
		printf(",%u", path[i]);
}

/* Ask the node at the end of path for NodeInfo; record and print it if new. */
static void visit(int fd, int agent, const uint8_t *path, int hops)
{
	static const char *const types[] = { "?", "CA", "Switch", "Router" };
	uint8_t info[SMP_DATA_SIZE], desc[SMP_DATA_SIZE];
	struct node *n;
	uint64_t guid;

	if (dr_get(fd, agent, path, hops, UMAD_SM_ATTR_NODE_INFO, 0, info) < 0)
		return;		/* nothing answers there (no cable, or the link is down) */
	guid = get_be64(info + 12);
	if (known(guid) || n_nodes == MAX_NODES)
		return;
	n = &nodes[n_nodes++];
	n->guid = guid;
	n->type = info[2];
	n->num_ports = info[3];
	n->hops = hops;
	memcpy(n->path, path, (size_t)hops + 1);
	if (dr_get(fd, agent, path, hops, UMAD_SM_ATTR_NODE_DESC, 0, desc) < 0)
		memset(desc, 0, sizeof(desc));
	desc[sizeof(desc) - 1] = '\0';
	printf("%-6s guid 0x%016" PRIx64 " ports %-3u vendor 0x%06x device 0x%04x local port %-3u path ",
	       types[n->type < 4 ? n->type : 0], guid, n->num_ports,
	       (unsigned)(info[37] << 16 | info[38] << 8 | info[39]),
	       (unsigned)(info[30] << 8 | info[31]), info[36]);
	print_path(path, hops);
	printf("  \"%s\"\n", (char *)desc);
}

int main(int argc, char **argv)
{
	const char *ca = argc > 1 ? argv[1] : NULL;
	int port = argc > 2 ? atoi(argv[2]) : 0;
	uint8_t path[MAX_HOPS + 1] = { 0 };
	int fd, agent, i, p, switches = 0;

	if (umad_init() < 0) {
		fprintf(stderr, "dr_walk: umad_init failed\n");
		return 1;
	}
	fd = umad_open_port(ca, port);
	if (fd < 0) {
		fprintf(stderr, "dr_walk: cannot open a umad port: %s\n", strerror(-fd));
		return 1;
	}
	agent = umad_register(fd, UMAD_CLASS_SUBN_DIRECTED_ROUTE, SMP_CLASS_VERSION, 0, NULL);
	nodes = calloc(MAX_NODES, sizeof(*nodes));
	if (agent < 0 || !nodes) {
		fprintf(stderr, "dr_walk: cannot register an SMP agent\n");
		return 1;
	}
	visit(fd, agent, path, 0);
	/* The list grows while it is walked: that is the breadth-first queue. */
	for (i = 0; i < n_nodes; i++) {
		struct node n = nodes[i];

		if (n.type != 2 && n.hops > 0)
			continue;	/* only switches forward directed routes */
		if (n.type == 2)
			switches++;
		if (n.hops >= MAX_HOPS)
			continue;
		for (p = 1; p <= n.num_ports; p++) {
			/* From the local CA only its own port leads out. */
			if (n.hops == 0 && n.type != 2) {
				umad_port_t up;

				if (umad_get_port(ca, port, &up) < 0)
					break;
				p = up.portnum;
				umad_release_port(&up);
			}
			memcpy(path, n.path, sizeof(path));
			path[n.hops + 1] = (uint8_t)p;
			visit(fd, agent, path, n.hops + 1);
			if (n.hops == 0 && n.type != 2)
				break;
		}
	}
	printf("%d nodes, %d switches\n", n_nodes, switches);
	free(nodes);
	umad_unregister(fd, agent);
	umad_close_port(fd);
	umad_done();
	return 0;
}
