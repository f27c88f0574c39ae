/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/umad.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_types.h>

#include "cli/kfs_query.h"
#include "base/mad_layout.h"

/* A umad port of the host, opened for the queries when first needed. */
struct query_port {
	int portid;		/* -1: not open yet */
	uint32_t smi_agent, pma_agent;
};

struct kfs_query {
	struct query_port ports[KFS_MAX_UMADS];
	uint64_t tid;
	size_t hdr_size;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
};

int kfs_query_new(struct kfs *k)
{
	int i;

	k->query = calloc(1, sizeof(*k->query));
	if (!k->query)
		return -ENOMEM;
	for (i = 0; i < KFS_MAX_UMADS; i++)
		k->query->ports[i].portid = -1;
	k->query->tid = (uint64_t)time(NULL) << 24;
	return 0;
}

void kfs_query_free(struct kfs *k)
{
	int i;

	if (!k->query)
		return;
	for (i = 0; i < KFS_MAX_UMADS; i++)
		if (k->query->ports[i].portid >= 0)
			k->be->close_port(k->query->ports[i].portid);
	free(k->query);
	k->query = NULL;
}

static int register_client(struct kfs *k, int portid, uint8_t qpn, uint8_t mgmt_class,
			   uint32_t *agent)
{
	struct umad_agent_req req = {
		.qpn = qpn, .mgmt_class = mgmt_class, .mgmt_class_version = 1,
	};

	return k->be->register_agent(portid, &req, agent);
}

/* Port u open with its two client agents: the port, or NULL with *err. */
static struct query_port *port_of(struct kfs *k, int u, int *err)
{
	struct query_port *p = &k->query->ports[u];
	int open_errno = 0, r;

	if (p->portid >= 0)
		return p;
	r = k->be->open_port(k->cas[k->umads[u].ca].name, k->umads[u].port, &k->query->hdr_size,
			     &open_errno);
	if (r < 0) {
		*err = open_errno ? -open_errno : r;
		return NULL;
	}
	p->portid = r;
	if (k->query->hdr_size != sizeof(struct ib_user_mad) ||
	    (r = register_client(k, p->portid, QP0_SMI, UMAD_CLASS_SUBN_DIRECTED_ROUTE,
				 &p->smi_agent)) < 0 ||
	    (r = register_client(k, p->portid, QP1_GSI, UMAD_CLASS_PERF_MGMT, &p->pma_agent)) < 0) {
		k->be->close_port(p->portid);
		p->portid = -1;
		*err = r < 0 ? r : -EPROTO;
		return NULL;
	}
	if (k->be->watch_fd)
		k->be->watch_fd(p->portid);
	return p;
}

static long ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Wait for the answer to tid on p: its MAD in q->buf after the header.  0 or -errno. */
static int await(struct kfs *k, struct query_port *p, uint64_t tid)
{
	struct kfs_query *q = k->query;
	struct timespec deadline;
	long left;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += KFS_QUERY_TIMEOUT_MS / 1000;
	deadline.tv_nsec += (KFS_QUERY_TIMEOUT_MS % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	for (;;) {
		const struct ib_user_mad *hdr = (const struct ib_user_mad *)q->buf;
		uint16_t status;
		ssize_t n = k->be->recv(p->portid, q->buf, sizeof(q->buf));

		if (n >= (ssize_t)(sizeof(*hdr) + MAD_HDR_SIZE)) {
			/* The lower half: the upper one is the agent's hi_tid, as the kernel sets it. */
			if (get_be32(q->buf + sizeof(*hdr) + MAD_OFF_TID_LOW) != (uint32_t)tid)
				continue;	/* a late answer to an earlier query */
			if (hdr->status)
				return -(int)hdr->status;
			memcpy(&status, q->buf + sizeof(*hdr) + MAD_OFF_STATUS, sizeof(status));
			/* A directed-route answer carries its direction in the status's top bit. */
			return be16toh(status) & ~(uint16_t)UMAD_SMP_DIRECTION ? -EIO : 0;
		}
		if (n >= 0 || n == -ENOSPC || n == -EINVAL)
			return -EPROTO;
		if (n != -EAGAIN)
			return (int)n;
		left = ms_left(&deadline);
		if (left <= 0)
			return -ETIMEDOUT;
		if (k->be->wait) {
			int r = k->be->wait(p->portid, (int)left);

			if (r < 0 && r != -ETIMEDOUT && r != -EINTR)
				return r;
		} else {
			struct pollfd pfd = { .fd = p->portid, .events = POLLIN };

			if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
				return -errno;
		}
	}
}

/* Send a Get of attr from port p's agent, and take its answer. */
static int get(struct kfs *k, struct query_port *p, uint32_t agent, uint32_t qpn, uint16_t lid,
	       uint8_t mgmt_class, uint16_t attr, uint32_t mod, const uint8_t *data,
	       size_t data_off, size_t data_size)
{
	struct kfs_query *q = k->query;
	struct ib_user_mad *hdr = (struct ib_user_mad *)q->buf;
	uint8_t *mad = q->buf + sizeof(*hdr);
	uint64_t tid = ++q->tid, tid_be = htobe64(tid);
	uint16_t attr_be = htobe16(attr);
	uint32_t mod_be = htobe32(mod);
	ssize_t n;

	memset(q->buf, 0, sizeof(q->buf));
	hdr->agent_id = agent;
	hdr->timeout_ms = KFS_QUERY_TIMEOUT_MS;
	hdr->addr.qpn = htobe32(qpn);
	hdr->addr.qkey = htobe32(qpn ? UMAD_QKEY : 0);
	hdr->addr.lid = htobe16(lid);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = mgmt_class;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	memcpy(mad + MAD_OFF_TID, &tid_be, sizeof(tid_be));
	memcpy(mad + MAD_OFF_ATTR_ID, &attr_be, sizeof(attr_be));
	memcpy(mad + MAD_OFF_ATTR_MOD, &mod_be, sizeof(mod_be));
	if (mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE) {
		uint16_t permissive = htobe16(LID_PERMISSIVE);

		memcpy(mad + SMP_OFF_DR_SLID, &permissive, sizeof(permissive));
		memcpy(mad + SMP_OFF_DR_DLID, &permissive, sizeof(permissive));
	}
	if (data)
		memcpy(mad + data_off, data, data_size);
	n = k->be->send(p->portid, q->buf, sizeof(*hdr) + MAD_SIZE);
	if (n < 0)
		return (int)n;
	return await(k, p, tid);
}

int kfs_query_smp(struct kfs *k, int u, uint16_t attr, uint32_t mod, uint8_t data[SMP_DATA_SIZE])
{
	struct query_port *p;
	int r = 0;

	if (u < 0 || u >= k->n_umads)
		return -EINVAL;
	p = port_of(k, u, &r);
	if (!p)
		return r;
	r = get(k, p, p->smi_agent, QP0_SMI, LID_PERMISSIVE, UMAD_CLASS_SUBN_DIRECTED_ROUTE, attr,
		mod, NULL, 0, 0);
	if (r == 0)
		memcpy(data, k->query->buf + sizeof(struct ib_user_mad) + SMP_OFF_DATA,
		       SMP_DATA_SIZE);
	return r;
}

int kfs_query_pma(struct kfs *k, int u, uint16_t lid, uint16_t attr, uint8_t port_select,
		  uint8_t data[PMA_DATA_SIZE])
{
	uint8_t head[PMA_DATA_SIZE] = { 0 };
	struct query_port *p;
	int r = 0;

	if (u < 0 || u >= k->n_umads)
		return -EINVAL;
	if (!lid || lid >= LID_MCAST_START)
		return -EHOSTUNREACH;
	p = port_of(k, u, &r);
	if (!p)
		return r;
	head[MAD_FIELD_BYTE(PMA_PORT_SELECT)] = port_select;
	r = get(k, p, p->pma_agent, QP1_GSI, lid, UMAD_CLASS_PERF_MGMT, attr, 0, head,
		PMA_OFF_DATA, sizeof(head));
	if (r == 0)
		memcpy(data, k->query->buf + sizeof(struct ib_user_mad) + PMA_OFF_DATA,
		       PMA_DATA_SIZE);
	return r;
}
