/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* pcapng blocks (little-endian) around ERF type 21 InfiniBand records. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "capture_file.h"
#include "ib_packet.h"
#include "pcapng_format.h"
#include "pcapng_writer.h"

/* Longest comment kept; longer ones are cut (they are one line of key=value). */
#define MAX_COMMENT	1024
#define BLOCK_MAX	(64 + ERF_HDR_LEN + IB_MAD_PACKET_MAX + 8192 + MAX_COMMENT + 64)

/*
 * The kernel stops a killed writer only between pages of the file, so no
 * block crosses a page boundary: the gap before one is a filler block of a
 * type reserved for local use, which readers (Wireshark, libpcap) skip.  A
 * write(2) of many pages can then stop anywhere and still end on a block.
 */
#define FILE_PAGE	4096
#define FILLER_TYPE	0x80000d1bu	/* pcapng: types with the top bit are for local use */
#define FILLER_MIN	12		/* type, length, trailing length */
/*
 * Blocks are gathered and written BATCH_SIZE at a time, each write ending
 * on a multiple of BATCH_SIZE in the file: the kernel then caches the file
 * in large folios, and a byte costs it much less than in small writes at
 * unaligned offsets.  The batch has room beyond the boundary for a filler
 * and a block.
 */
#define BATCH_SIZE	(64 * FILE_PAGE)
#define BATCH_ROOM	(BATCH_SIZE + FILE_PAGE + BLOCK_MAX)	/* the most the batch holds */
#define BATCH_FIRST	(4 * FILE_PAGE + BLOCK_MAX)		/* what it starts with */
#define ALIGNED_UNIT	(16 * FILE_PAGE)	/* pcapng_flush_aligned's */

struct pcapng_writer {
	int fd;
	int n_interfaces;
	int batching;
	uint64_t offset;		/* bytes written to the file */
	size_t batch_len;		/* gathered after offset */
	size_t batch_cap;		/* allocated; grows up to BATCH_ROOM as the capture does */
	uint8_t *batch;
	uint8_t block[BLOCK_MAX];	/* one block is assembled here, then written at once */
};

struct block {
	uint8_t *p;
	size_t len, max;
};

static void add_bytes(struct block *b, const void *data, size_t n)
{
	/* An empty option (opt_endofopt) has no value at all: data may be NULL. */
	if (n && b->len + n <= b->max)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void add_u16(struct block *b, uint16_t v)
{
	add_bytes(b, &v, 2);	/* the section is written in host (little-endian) order */
}

static void add_u32(struct block *b, uint32_t v)
{
	add_bytes(b, &v, 4);
}

static void add_pad(struct block *b)
{
	static const uint8_t zeros[4];

	add_bytes(b, zeros, (4 - b->len % 4) % 4);
}

static void add_option(struct block *b, uint16_t code, const void *value, size_t len)
{
	add_u16(b, code);
	add_u16(b, (uint16_t)len);
	add_bytes(b, value, len);
	add_pad(b);
}

static void begin(struct block *b, struct pcapng_writer *w, uint32_t type)
{
	b->p = w->block;
	b->len = 0;
	b->max = sizeof(w->block);
	add_u32(b, type);
	add_u32(b, 0);		/* total length, patched in finish() */
}

/* All of p, however many calls it takes; 0 or -errno. */
static int write_all(struct pcapng_writer *w, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(w->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		w->offset += (size_t)n;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write what is gathered up to file offset end (after offset), keeping the rest; 0 or -errno. */
static int write_upto(struct pcapng_writer *w, uint64_t end)
{
	size_t n = (size_t)(end - w->offset);
	int r;

	if (!n)
		return 0;
	r = write_all(w, w->batch, n);
	memmove(w->batch, w->batch + n, w->batch_len - n);
	w->batch_len -= n;
	return r;
}

int pcapng_flush_aligned(struct pcapng_writer *w)
{
	uint64_t end = (w->offset + w->batch_len) / ALIGNED_UNIT * ALIGNED_UNIT;

	return end > w->offset ? write_upto(w, end) : 0;
}

int pcapng_flush(struct pcapng_writer *w)
{
	return write_upto(w, w->offset + w->batch_len);
}

/*
 * Room for n more bytes in the batch; 0 or -errno.  It grows as blocks
 * gather: a short capture (most programs send a few hundred MADs) never
 * needs the whole of it.
 */
static int reserve(struct pcapng_writer *w, size_t n)
{
	size_t need = w->batch_len + n, cap = w->batch_cap ? w->batch_cap : BATCH_FIRST;
	uint8_t *grown;

	if (need <= w->batch_cap)
		return 0;
	if (need > BATCH_ROOM)
		return -EMSGSIZE;
	while (cap < need)
		cap *= 2;
	if (cap > BATCH_ROOM)
		cap = BATCH_ROOM;
	grown = realloc(w->batch, cap);
	if (!grown)
		return -ENOMEM;
	w->batch = grown;
	w->batch_cap = cap;
	return 0;
}

/* A filler block of len bytes (a multiple of 4, at least FILLER_MIN) into the batch. */
static void add_filler(struct pcapng_writer *w, size_t len)
{
	uint8_t *f = w->batch + w->batch_len;
	uint32_t type = FILLER_TYPE, total = (uint32_t)len;

	memcpy(f, &type, 4);
	memcpy(f + 4, &total, 4);
	memset(f + 8, 0, len - FILLER_MIN);
	memcpy(f + len - 4, &total, 4);
	w->batch_len += len;
}

/*
 * Where a block of len bytes goes: here, or after a filler up to the next
 * page when it would cross the page boundary or leave a gap too small for a
 * filler.  Blocks longer than a page start on one (and may tear).  Flushes
 * first when the batch cannot take both.  0 or -errno.
 */
static int place(struct pcapng_writer *w, size_t len)
{
	size_t left = FILE_PAGE - (size_t)((w->offset + w->batch_len) % FILE_PAGE);
	uint64_t boundary = (w->offset / BATCH_SIZE + 1) * BATCH_SIZE;
	size_t fill = 0;
	int r;

	/* What reached the next boundary goes, the block after it stays. */
	if (w->offset + w->batch_len >= boundary) {
		r = write_upto(w, boundary);
		if (r < 0)
			return r;
	}
	if (len > left || (left - len && left - len < FILLER_MIN)) {
		if (left >= FILLER_MIN && left < FILE_PAGE)
			fill = left;
		/* A gap under FILLER_MIN is only left by a block longer than a page. */
	}
	if (w->batch_len + fill + len > BATCH_ROOM) {
		/* A guard: the room beyond the boundary takes any filler and block. */
		r = pcapng_flush(w);
		if (r < 0)
			return r;
	}
	r = reserve(w, fill + len);
	if (r < 0)
		return r;
	if (fill)
		add_filler(w, fill);
	return 0;
}

/* One whole block to the file, at its place: gathered, or written at once. */
static int emit(struct pcapng_writer *w, const uint8_t *p, size_t len)
{
	int r = place(w, len);

	if (r < 0)
		return r;
	if (len > BATCH_ROOM - w->batch_len) {
		r = pcapng_flush(w);
		return r < 0 ? r : write_all(w, p, len);
	}
	memcpy(w->batch + w->batch_len, p, len);
	w->batch_len += len;
	return w->batching ? 0 : pcapng_flush(w);
}

void pcapng_set_batching(struct pcapng_writer *w, int on)
{
	if (!on)
		pcapng_flush(w);
	w->batching = on;
}

/* Close the block (end of options, trailing length) and write it in one call. */
static int finish(struct block *b, struct pcapng_writer *w, int with_options)
{
	uint32_t total;

	if (with_options)
		add_option(b, PCAPNG_OPT_END, NULL, 0);
	add_u32(b, 0);
	if (b->len > b->max)
		return -EMSGSIZE;
	total = (uint32_t)b->len;
	memcpy(b->p + 4, &total, 4);
	memcpy(b->p + b->len - 4, &total, 4);
	return emit(w, b->p, b->len);
}

struct pcapng_writer *pcapng_create(const char *path, const char *application, char *err,
				    size_t errlen)
{
	struct pcapng_writer *w = calloc(1, sizeof(*w));
	struct block b;
	int r;

	if (!w) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	w->fd = capture_file_create(path, err, errlen);
	if (w->fd < 0) {
		errno = -w->fd;
		free(w);
		return NULL;
	}
	begin(&b, w, PCAPNG_BT_SHB);
	add_u32(&b, PCAPNG_BYTE_ORDER_MAGIC);
	add_u16(&b, PCAPNG_VERSION_MAJOR);
	add_u16(&b, PCAPNG_VERSION_MINOR);
	add_u32(&b, 0xffffffff);	/* section length: not known in advance */
	add_u32(&b, 0xffffffff);
	if (application)
		add_option(&b, PCAPNG_SHB_USERAPPL, application, strlen(application));
	r = finish(&b, w, application != NULL);
	if (r < 0) {
		snprintf(err, errlen, "%s", strerror(-r));
		close(w->fd);
		free(w->batch);
		free(w);
		errno = -r;
		return NULL;
	}
	return w;
}

int pcapng_add_interface(struct pcapng_writer *w, const char *name, const char *description)
{
	static const uint8_t nanoseconds = 9;
	struct block b;
	int r;

	begin(&b, w, PCAPNG_BT_IDB);
	add_u16(&b, PCAPNG_LINKTYPE_ERF);
	add_u16(&b, 0);
	add_u32(&b, 0);			/* no snapshot limit */
	if (name)
		add_option(&b, PCAPNG_IF_NAME, name, strlen(name));
	if (description)
		add_option(&b, PCAPNG_IF_DESCRIPTION, description, strlen(description));
	add_option(&b, PCAPNG_IF_TSRESOL, &nanoseconds, 1);
	r = finish(&b, w, 1);
	return r < 0 ? r : w->n_interfaces++;
}

int pcapng_add_ib(struct pcapng_writer *w, int id, uint64_t ts_ns, enum pcapng_direction dir,
		  size_t len, const char *comment, uint64_t packet_id, uint8_t **pkt_at)
{
	size_t comment_len = comment ? strnlen(comment, MAX_COMMENT) : 0;
	size_t padded = (ERF_HDR_LEN + len + 3) & ~(size_t)3;
	int with_options = dir != PCAPNG_DIR_UNKNOWN || comment || packet_id;
	uint32_t total, flags = dir;
	uint8_t erf[ERF_HDR_LEN];
	uint64_t erf_ts;
	struct block b;
	int r;

	if (id < 0 || id >= w->n_interfaces || len > 0xffff - ERF_HDR_LEN)
		return -EINVAL;
	/* The block is built where it goes in the batch, so its length comes first. */
	total = (uint32_t)(28 + padded + (dir != PCAPNG_DIR_UNKNOWN ? 8 : 0) +
			   (comment ? 4 + ((comment_len + 3) & ~(size_t)3) : 0) +
			   (packet_id ? 12 : 0) + (with_options ? 4 : 0) + 4);
	if (total > BATCH_ROOM)
		return -EMSGSIZE;	/* cannot happen with one packet and MAX_COMMENT */
	r = place(w, total);
	if (r < 0)
		return r;
	b.p = w->batch + w->batch_len;
	b.len = 0;
	b.max = total;
	add_u32(&b, PCAPNG_BT_EPB);
	add_u32(&b, total);
	add_u32(&b, (uint32_t)id);
	add_u32(&b, (uint32_t)(ts_ns >> 32));
	add_u32(&b, (uint32_t)ts_ns);
	add_u32(&b, (uint32_t)(ERF_HDR_LEN + len));
	add_u32(&b, (uint32_t)(ERF_HDR_LEN + len));

	/* ERF: little-endian 32.32 timestamp, then big-endian lengths. */
	erf_ts = htole64((ts_ns / 1000000000u) << 32 | ((ts_ns % 1000000000u) << 32) / 1000000000u);
	memcpy(erf, &erf_ts, 8);
	erf[ERF_OFF_TYPE] = ERF_TYPE_INFINIBAND;
	erf[ERF_OFF_FLAGS] = ERF_FLAG_VARLEN;
	put_be16(erf + ERF_OFF_RLEN, (uint16_t)(ERF_HDR_LEN + len));
	put_be16(erf + ERF_OFF_LCTR, 0);
	put_be16(erf + ERF_OFF_WLEN, (uint16_t)len);
	add_bytes(&b, erf, sizeof(erf));
	*pkt_at = b.p + b.len;		/* the caller's packet goes here */
	b.len += len;
	add_pad(&b);

	if (dir != PCAPNG_DIR_UNKNOWN)
		add_option(&b, PCAPNG_EPB_FLAGS, &flags, 4);
	if (comment)
		add_option(&b, PCAPNG_OPT_COMMENT, comment, comment_len);
	if (packet_id)
		add_option(&b, PCAPNG_EPB_PACKETID, &packet_id, 8);
	if (with_options)
		add_option(&b, PCAPNG_OPT_END, NULL, 0);
	add_u32(&b, total);
	w->batch_len += total;
	return 0;
}

int pcapng_write_ib(struct pcapng_writer *w, int id, uint64_t ts_ns, enum pcapng_direction dir,
		    const uint8_t *pkt, size_t len, const char *comment, uint64_t packet_id)
{
	uint8_t *at;
	int r = pcapng_add_ib(w, id, ts_ns, dir, len, comment, packet_id, &at);

	if (r < 0)
		return r;
	memcpy(at, pkt, len);
	return w->batching ? 0 : pcapng_flush(w);
}

int pcapng_close(struct pcapng_writer *w)
{
	int r = 0;

	if (!w)
		return -EINVAL;
	r = pcapng_flush(w);
	if (close(w->fd) < 0 && !r)
		r = -errno;
	free(w->batch);
	free(w);
	return r;
}
