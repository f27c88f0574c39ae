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
	v->vendor_id = n->vendor_id;
	v->revision = n->revision;
	v->device_id = n->device_id;
	v->fw = n->fw;
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
	case FP_EVENTS:		return sizeof(struct fp_events);
	case FP_DOORBELL:	return sizeof(uint32_t);
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

/*
 * On a stream: send what is left of a datagram (frame and parts, of which
 * w->dgram_sent bytes went before).  1 when it all went, 0 when the socket
 * took no more, -errno.
 */
static int send_on_stream(int fd, struct fp_writer *w, const struct fp_frame *frame,
			  const struct iovec *parts, int n_parts, int flags)
{
	struct iovec iov[3];
	struct msghdr msg = { .msg_iov = iov };
	size_t skip = w->dgram_sent, total = sizeof(*frame);
	int i;

	for (i = 0; i < n_parts; i++)
		total += parts[i].iov_len;
	while (w->dgram_sent < total) {
		const struct iovec all[3] = {
			{ (void *)frame, sizeof(*frame) },
			n_parts > 0 ? parts[0] : (struct iovec){ 0 },
			n_parts > 1 ? parts[1] : (struct iovec){ 0 },
		};
		ssize_t n;

		skip = w->dgram_sent;
		msg.msg_iovlen = 0;
		for (i = 0; i < 3; i++) {
			if (skip >= all[i].iov_len) {
				skip -= all[i].iov_len;
				continue;
			}
			iov[msg.msg_iovlen].iov_base = (uint8_t *)all[i].iov_base + skip;
			iov[msg.msg_iovlen++].iov_len = all[i].iov_len - skip;
			skip = 0;
		}
		n = sendmsg(fd, &msg, flags | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		w->dgram_sent += (size_t)n;
	}
	w->dgram_sent = 0;
	return 1;
}

int fp_writer_send(int fd, struct fp_writer *w, int flags)
{
	const size_t room = FP_DATAGRAM_MAX - sizeof(struct fp_frame);
	size_t total = w->head_len + w->tail_len;
	struct fp_frame frame = { .type = w->type };
	int r;

	if (total > FP_MESSAGE_MAX)
		return -EMSGSIZE;
	if (w->stream && w->pass_fd >= 0)
		return -EINVAL;
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
		frame.len = (uint32_t)n;
		if (w->stream) {
			/* A datagram begun is finished before anything else goes on the stream. */
			r = send_on_stream(fd, w, &frame, parts, n_parts, flags);
			if (r == 0 && w->dgram_sent)
				w->started = 1;
			if (r <= 0)
				return r;
		} else {
			r = send_datagram(fd, &frame, parts, n_parts, w->started ? -1 : w->pass_fd,
					  flags);
			if (r == -EAGAIN || r == -EWOULDBLOCK)
				return 0;
			if (r < 0)
				return r;
		}
		w->started = 1;
		w->off = end;
	}
	return 1;
}

int fp_send_on(int fd, int stream, uint32_t type, const void *head, size_t head_len,
	       const void *tail, size_t tail_len, int pass_fd, int flags)
{
	struct fp_writer w;
	int r;

	fp_writer_init(&w, type, head, head_len, tail, tail_len, pass_fd);
	w.stream = stream;
	r = fp_writer_send(fd, &w, flags);
	/* Once a message is begun, it is finished: the rest waits for room. */
	if (r == 0 && w.started)
		r = fp_writer_send(fd, &w, flags & ~MSG_DONTWAIT);
	return r < 0 ? r : r == 0 ? -EAGAIN : 0;
}

int fp_send_message2(int fd, uint32_t type, const void *head, size_t head_len, const void *tail,
		     size_t tail_len, int pass_fd, int flags)
{
	return fp_send_on(fd, 0, type, head, head_len, tail, tail_len, pass_fd, flags);
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
	int stream = r->stream;

	free(r->buf);
	free(r->ahead);
	if (r->passed_fd >= 0)
		close(r->passed_fd);
	fp_reader_init(r);
	r->stream = stream;
}

int fp_reader_read_ahead(struct fp_reader *r)
{
	if (!r->ahead)
		r->ahead = malloc(FP_READ_AHEAD);
	return r->ahead ? 0 : -ENOMEM;
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

/* A datagram's frame, read whole, against what came before it: 0, or -errno. */
static int take_frame(struct fp_reader *r, const struct fp_frame *frame, size_t piece)
{
	if (!r->in_message)
		r->type = frame->type;
	else if (frame->type != r->type)
		return -EPROTO;
	if ((frame->flags & ~FP_MORE) || frame->len != piece)
		return -EPROTO;
	return 0;
}

/* The datagram just read ends the message (1), or more follows (0, or 0 with a slice read). */
static int datagram_done(struct fp_reader *r, uint32_t frame_flags, size_t stop, int flags,
			 int *again)
{
	*again = 0;
	if (frame_flags & FP_MORE) {
		r->in_message = 1;
		*again = !(r->len >= stop && (flags & MSG_DONTWAIT));
		return 0;
	}
	r->in_message = 0;
	if (!fp_min_body(r->type) || r->len < fp_min_body(r->type))
		return -EPROTO;
	return 1;
}

/*
 * Room for len more bytes of the message: at least twice the room there
 * was, so that a long message is copied a few times as it grows, not once
 * for each datagram.
 */
static int grow(struct fp_reader *r, size_t len)
{
	size_t want = r->len + len;

	if (want > r->cap) {
		uint8_t *grown;

		if (r->cap && want < 2 * r->cap)
			want = 2 * r->cap;
		grown = realloc(r->buf, want);
		if (!grown)
			return -ENOMEM;
		r->buf = grown;
		r->cap = want;
	}
	return 0;
}

/* Up to len bytes of a stream: how many (> 0), 0 when none is there yet, or -errno (-ECONNRESET: closed). */
static ssize_t recv_some(int fd, void *buf, size_t len, int flags)
{
	for (;;) {
		ssize_t n = recv(fd, buf, len, flags);

		if (n > 0)
			return n;
		if (n == 0)
			return -ECONNRESET;
		if (errno != EINTR)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	}
}

/*
 * recv_some through r's read-ahead: what it holds first; a short want
 * fills it from the socket; a long one (a large piece) is read straight
 * into place.
 */
static ssize_t take_some(int fd, struct fp_reader *r, void *buf, size_t len, int flags)
{
	size_t n;

	if (!r->ahead)
		return recv_some(fd, buf, len, flags);
	if (!fp_reader_buffered(r)) {
		ssize_t got;

		if (len >= FP_READ_AHEAD)
			return recv_some(fd, buf, len, flags);
		got = recv_some(fd, r->ahead, FP_READ_AHEAD, flags);
		if (got <= 0)
			return got;
		r->ahead_off = 0;
		r->ahead_len = (size_t)got;
	}
	n = r->ahead_len - r->ahead_off;
	if (n > len)
		n = len;
	memcpy(buf, r->ahead + r->ahead_off, n);
	r->ahead_off += n;
	return (ssize_t)n;
}

/* fp_recv_message on a stream: frames and pieces read as they come, in as many calls as it takes. */
static int recv_stream(int fd, struct fp_reader *r, int flags)
{
	size_t stop;
	ssize_t n;
	int again, v;

	if (!r->in_message && !r->frame_got && !r->piece_left)
		r->len = 0;
	stop = r->slice ? r->len + r->slice : SIZE_MAX;
	for (;;) {
		if (r->frame_got < sizeof(r->frame)) {
			n = take_some(fd, r, (uint8_t *)&r->frame + r->frame_got,
				      sizeof(r->frame) - r->frame_got, flags);
			if (n <= 0)
				return (int)n;
			r->frame_got += (size_t)n;
			if (r->frame_got < sizeof(r->frame))
				continue;
			if (r->frame.len > FP_DATAGRAM_MAX - sizeof(r->frame))
				return -EPROTO;
			v = take_frame(r, &r->frame, r->frame.len);
			/* Refused before its piece is read: a stream's reader holds no more than the limit. */
			if (v == 0 && r->len + r->frame.len > r->max)
				v = -EMSGSIZE;
			if (v == 0)
				v = grow(r, r->frame.len);
			if (v < 0)
				return v;
			r->piece_left = r->frame.len;
		}
		while (r->piece_left) {
			n = take_some(fd, r, r->buf + r->len, r->piece_left, flags);
			if (n <= 0)
				return (int)n;
			r->len += (size_t)n;
			r->piece_left -= (size_t)n;
		}
		r->frame_got = 0;
		v = datagram_done(r, r->frame.flags, stop, flags, &again);
		if (v != 0 || !again)
			return v;
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
	int again, v;

	if (r->stream)
		return recv_stream(fd, r, flags);
	if (!r->in_message)
		r->len = 0;
	stop = r->slice ? r->len + r->slice : SIZE_MAX;
	for (;;) {
		v = grow(r, FP_DATAGRAM_MAX);
		if (v < 0)
			return v;
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
		v = take_frame(r, &frame, (size_t)n - sizeof(frame));
		if (v < 0)
			return v;
		r->len += (size_t)n - sizeof(frame);
		if (r->len > r->max)
			return -EMSGSIZE;
		v = datagram_done(r, frame.flags, stop, flags, &again);
		if (v != 0 || !again)
			return v;
	}
}
