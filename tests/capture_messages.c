/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * capture_messages FILE: the messages of a capture, one line each, RMPP
 * segments joined, for tests that compare what one program sent with what
 * another received:
 *
 *   DIR TID CLASS METHOD ATTR LENGTH DATA
 *
 * DIR is "out" (sent) or "in" (received), TID, CLASS, METHOD and ATTR in
 * hexadecimal, LENGTH the message's length as umad saw it, DATA the bytes
 * after the class's headers up to LENGTH, in hexadecimal ("-" when none).
 * Timeouts are left out.  Exit 1 with a message on a bad file.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mad_wire.h"
#include "pcap/capture_meta.h"
#include "pcap/pcapng_reader.h"

#define MAX_PARTS 64		/* messages being joined at once */

struct part {
	int used;
	enum pcapng_direction dir;
	uint64_t tid;
	uint8_t head[MAD_SIZE];	/* the first segment, for its headers */
	uint8_t *data;		/* the payload after the class's headers, joined */
	size_t have, want;	/* bytes joined; the message's length minus its headers */
	uint32_t length, next;	/* the message's length; the segment expected next */
};

static struct part parts[MAX_PARTS];

static size_t header_len(const uint8_t *mad)
{
	return mad_class_is_rmpp(mad_class(mad)) ? mad_rmpp_header_len(mad_class(mad)) : MAD_HDR_SIZE;
}

static void print_message(enum pcapng_direction dir, const uint8_t *mad, uint32_t length,
			  const uint8_t *data, size_t n)
{
	size_t i;

	printf("%s 0x%016" PRIx64 " 0x%02x 0x%02x 0x%04x %u ",
	       dir == PCAPNG_DIR_OUTBOUND ? "out" : "in", get_be64(mad + MAD_OFF_TID), mad_class(mad),
	       mad_method(mad), mad_attr_id(mad), length);
	for (i = 0; i < n; i++)
		printf("%02x", data[i]);
	printf("%s\n", n ? "" : "-");
}

static struct part *find_part(enum pcapng_direction dir, uint64_t tid)
{
	size_t i;

	for (i = 0; i < MAX_PARTS; i++)
		if (parts[i].used && parts[i].dir == dir && parts[i].tid == tid)
			return &parts[i];
	return NULL;
}

static struct part *free_part(void)
{
	size_t i;

	for (i = 0; i < MAX_PARTS; i++)
		if (!parts[i].used)
			return &parts[i];
	return NULL;
}

/* One segment of a message: 0, or -1 with a message. */
static int join(enum pcapng_direction dir, const uint8_t *mad, size_t mad_len,
		const struct capture_meta *m)
{
	uint64_t tid = get_be64(mad + MAD_OFF_TID);
	size_t head = header_len(mad), chunk;
	struct part *p = find_part(dir, tid);

	if (m->segment == 1) {
		if (p || !(p = free_part()) || m->length < head) {
			fprintf(stderr, "capture_messages: segment 1 of TID 0x%016" PRIx64
				" cannot start a message here\n", tid);
			return -1;
		}
		memset(p, 0, sizeof(*p));
		p->used = 1;
		p->dir = dir;
		p->tid = tid;
		p->length = m->length;
		p->want = m->length - head;
		p->next = 1;
		memcpy(p->head, mad, mad_len < MAD_SIZE ? mad_len : MAD_SIZE);
		p->data = malloc(p->want ? p->want : 1);
		if (!p->data)
			return -1;
	}
	if (!p || m->segment != p->next || mad_len < head) {
		fprintf(stderr, "capture_messages: segment %u of TID 0x%016" PRIx64 " out of order\n",
			m->segment, tid);
		return -1;
	}
	chunk = mad_len - head;
	if (chunk > p->want - p->have)
		chunk = p->want - p->have;
	memcpy(p->data + p->have, mad + head, chunk);
	p->have += chunk;
	p->next++;
	if (m->segment == m->segments) {
		print_message(dir, p->head, p->length, p->data, p->have);
		free(p->data);
		memset(p, 0, sizeof(*p));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct capture_record rec;
	struct capture_reader *r;
	struct umad_err err = UMAD_ERR_INIT;
	int n;

	if (argc != 2) {
		fprintf(stderr, "usage: capture_messages FILE\n");
		return 2;
	}
	r = capture_open(argv[1], &err);
	if (!r) {
		fprintf(stderr, "capture_messages: %s\n", umad_err_text(&err));
		return 1;
	}
	while ((n = capture_next(r, &rec, &err)) == 1) {
		struct capture_meta m;
		size_t mad_len, len;
		const uint8_t *mad = capture_mad(&rec, &mad_len);
		enum pcapng_direction dir = capture_direction(&rec);

		if (!mad || capture_meta_parse(rec.comment, &m, &err) < 0 ||
		    !capture_meta_has(&m, CAPTURE_META_LENGTH)) {
			umad_err_set(&err, -EINVAL, "%s: packet %" PRIu64 ": no MAD or no length",
				     argv[1], rec.packet_id);
			n = -1;
			break;
		}
		if (capture_meta_has(&m, CAPTURE_META_TIMEOUT) && m.timeout)
			continue;
		if (capture_meta_has(&m, CAPTURE_META_SEGMENT)) {
			if (join(dir, mad, mad_len, &m) < 0) {
				n = -1;
				break;
			}
			continue;
		}
		len = m.length < mad_len ? m.length : mad_len;
		print_message(dir, mad, m.length, mad + header_len(mad),
			      len > header_len(mad) ? len - header_len(mad) : 0);
	}
	if (n < 0 && *umad_err_text(&err))
		fprintf(stderr, "capture_messages: %s\n", umad_err_text(&err));
	capture_close(r);
	return n < 0 ? 1 : 0;
}
