/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The shared fabric's framing: messages cut into datagrams and put together again (fabric_proto.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "simfabric/fabric_proto.h"
#include "simfabric/fault.h"

void fp_port_fill(struct fp_port *v, struct sim_port *p)
{
	const struct sim_port *m = sim_mgmt_port(p->node, p->num);
	unsigned i, x10 = sim_port_rate_x10(p);

	memset(v, 0, sizeof(*v));
	v->valid = 1;
	v->capmask = p->capmask;
	v->rate_x10 = x10 ? x10 : 25;
	v->lid = m->lid;
	v->sm_lid = m->sm_lid;
	v->lmc = m->lmc;
	v->sm_sl = m->sm_sl;
	v->state = p->state;
	v->phys_state = p->phys_state;
	v->width_active = p->width_active;
	v->gid_prefix = m->gid_prefix;
	v->guid = p->guid;
	snprintf(v->width_name, sizeof(v->width_name), "%s",
		 p->width_active ? sim_width_name(p->width_active) : "1X");
	snprintf(v->speed_name, sizeof(v->speed_name), "%s", sim_speed_name(p));
	for (i = 0; i < SIM_PKEY_TABLE_SIZE; i++)
		v->pkeys[i] = sim_port_pkey(p, i);
}

void fp_node_fill(struct fp_node *v, const struct sim_node *n)
{
	memset(v, 0, sizeof(*v));
	v->node_guid = n->node_guid;
	v->sys_guid = n->sys_guid;
	v->type = (uint32_t)n->type;
	v->num_ports = n->num_ports;
	snprintf(v->desc, sizeof(v->desc), "%s", n->desc);
	snprintf(v->name, sizeof(v->name), "%s", n->name);
}

size_t fp_min_body(uint32_t type)
{
	switch (type) {
	case FP_HELLO:		return sizeof(struct fp_hello);
	case FP_HELLO_OK:	return sizeof(struct fp_hello_ok);
	case FP_RC:		return sizeof(struct fp_rc);
	case FP_GET_CA:		return sizeof(struct fp_host);
	case FP_CA:		return sizeof(struct fp_node);
	case FP_OPEN:		return sizeof(struct fp_host);
	case FP_CLOSE:		return sizeof(struct fp_handle);
	case FP_REGISTER:	return sizeof(struct fp_register);
	case FP_UNREGISTER:	return sizeof(struct fp_register);
	case FP_SEND:		return sizeof(struct fp_send) + MAD_HDR_SIZE;
	case FP_RESULT:		return sizeof(struct fp_result);
	case FP_ISSM:		return sizeof(struct fp_issm);
	case FP_CONTROL:	return SIM_FAULT_WIRE_MIN;
	case FP_TEXT:		return sizeof(struct fp_text);
	case FP_TEXT_REPLY:	return 0 + 1;	/* a NUL at least */
	case FP_DELIVER:	return sizeof(struct fp_deliver) + MAD_HDR_SIZE;
	case FP_NODE_CHANGED:	return sizeof(struct fp_host);
	case FP_KICK:		return sizeof(uint32_t);
	case FP_MAP:		return sizeof(struct fp_map);
	case FP_MAPPED:		return sizeof(struct fp_mapped);
	case FP_NOTE_CHANGED:	return sizeof(struct fp_note);
	default:		return 0;
	}
}

static int send_datagram(int fd, const struct fp_frame *frame, const struct iovec *parts,
			 int n_parts, int pass_fd, int flags)
{
	struct iovec iov[3];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 1 };
	int i;

	iov[0].iov_base = (void *)frame;
	iov[0].iov_len = sizeof(*frame);
	for (i = 0; i < n_parts; i++)
		iov[msg.msg_iovlen++] = parts[i];
	if (pass_fd >= 0) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	while (sendmsg(fd, &msg, flags | MSG_NOSIGNAL) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

void fp_writer_init(struct fp_writer *w, uint32_t type, const void *head, size_t head_len,
		    const void *tail, size_t tail_len, int pass_fd)
{
	*w = (struct fp_writer){
		.type = type, .head = head, .tail = tail, .head_len = head_len,
		.tail_len = tail_len, .pass_fd = pass_fd,
	};
}

int fp_writer_send(int fd, struct fp_writer *w, int flags)
{
	const size_t room = FP_DATAGRAM_MAX - sizeof(struct fp_frame);
	size_t total = w->head_len + w->tail_len;
	struct fp_frame frame = { .type = w->type };
	int r;

	if (total > FP_MESSAGE_MAX)
		return -EMSGSIZE;
	while (!w->started || w->off < total) {
		size_t n = total - w->off < room ? total - w->off : room;
		size_t off = w->off, end = off + n;
		struct iovec parts[2];
		int n_parts = 0;

		/* The datagram's piece of head, then of tail. */
		if (off < w->head_len) {
			size_t h_end = end < w->head_len ? end : w->head_len;

			parts[n_parts].iov_base = (void *)(w->head + off);
			parts[n_parts++].iov_len = h_end - off;
		}
		if (end > w->head_len) {
			size_t t_off = off > w->head_len ? off - w->head_len : 0;

			parts[n_parts].iov_base = (void *)(w->tail + t_off);
			parts[n_parts++].iov_len = end - w->head_len - t_off;
		}
		frame.flags = end < total ? FP_MORE : 0;
		r = send_datagram(fd, &frame, parts, n_parts, w->started ? -1 : w->pass_fd, flags);
		if (r == -EAGAIN || r == -EWOULDBLOCK)
			return 0;
		if (r < 0)
			return r;
		w->started = 1;
		w->off = end;
	}
	return 1;
}

int fp_send_message2(int fd, uint32_t type, const void *head, size_t head_len, const void *tail,
		     size_t tail_len, int pass_fd, int flags)
{
	struct fp_writer w;
	int r;

	fp_writer_init(&w, type, head, head_len, tail, tail_len, pass_fd);
	r = fp_writer_send(fd, &w, flags);
	/* Once a message is begun, it is finished: the rest waits for room. */
	if (r == 0 && w.started)
		r = fp_writer_send(fd, &w, flags & ~MSG_DONTWAIT);
	return r < 0 ? r : r == 0 ? -EAGAIN : 0;
}

int fp_send_message(int fd, uint32_t type, const void *body, size_t len, int pass_fd, int flags)
{
	return fp_send_message2(fd, type, body, len, NULL, 0, pass_fd, flags);
}

void fp_reader_init(struct fp_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->passed_fd = -1;
	r->max = FP_MESSAGE_MAX;
}

void fp_reader_free(struct fp_reader *r)
{
	free(r->buf);
	if (r->passed_fd >= 0)
		close(r->passed_fd);
	fp_reader_init(r);
}

void fp_reader_shrink(struct fp_reader *r)
{
	uint8_t *smaller;

	if (r->in_message || r->cap <= FP_DATAGRAM_MAX)
		return;
	smaller = realloc(r->buf, FP_DATAGRAM_MAX);
	if (!smaller)
		return;
	r->buf = smaller;
	r->cap = FP_DATAGRAM_MAX;
	r->len = 0;
}

/* Keep a descriptor that came with a datagram: the first of a message only, one at most. */
static void take_passed_fd(struct fp_reader *r, struct msghdr *msg)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t i, n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (r->passed_fd < 0)
				r->passed_fd = fd;
			else
				close(fd);
		}
	}
}

int fp_recv_message(int fd, struct fp_reader *r, int flags)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} control;
	struct fp_frame frame;
	struct iovec iov[2];
	struct msghdr msg;
	ssize_t n;

	size_t stop;

	if (!r->in_message)
		r->len = 0;
	stop = r->slice ? r->len + r->slice : SIZE_MAX;
	for (;;) {
		size_t want = r->len + FP_DATAGRAM_MAX;

		if (want > r->cap) {
			uint8_t *grown = realloc(r->buf, want);

			if (!grown)
				return -ENOMEM;
			r->buf = grown;
			r->cap = want;
		}
		iov[0].iov_base = &frame;
		iov[0].iov_len = sizeof(frame);
		iov[1].iov_base = r->buf + r->len;
		iov[1].iov_len = FP_DATAGRAM_MAX - sizeof(frame);
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = 2;
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		n = recvmsg(fd, &msg, flags | MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		if (msg.msg_controllen)
			take_passed_fd(r, &msg);
		if (n == 0)
			return -ECONNRESET;
		if ((size_t)n < sizeof(frame) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
			return -EPROTO;
		if (!r->in_message)
			r->type = frame.type;
		else if (frame.type != r->type)
			return -EPROTO;
		r->len += (size_t)n - sizeof(frame);
		if (frame.flags & ~FP_MORE)
			return -EPROTO;
		if (r->len > r->max)
			return -EMSGSIZE;
		if (frame.flags & FP_MORE) {
			r->in_message = 1;
			if (r->len >= stop && (flags & MSG_DONTWAIT))
				return 0;
			continue;
		}
		r->in_message = 0;
		if (!fp_min_body(r->type) || r->len < fp_min_body(r->type))
			return -EPROTO;
		return 1;
	}
}
