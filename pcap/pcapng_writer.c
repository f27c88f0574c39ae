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
#include <time.h>

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

/* A section header or interface block, kept to begin the writer's next section with. */
struct header_block {
	uint64_t at;			/* where it went in the file (offset's counting) */
	uint32_t start, len;		/* in header */
};

struct pcapng_writer {
	int fd;
	int n_interfaces;
	int batching;
	uint64_t offset;		/* where the file ends after our last write */
	size_t batch_len;		/* gathered after offset */
	size_t batch_cap;		/* allocated; grows up to BATCH_ROOM as the capture does */
	uint8_t *batch;
	/*
	 * The section header and interface blocks so far, one after another:
	 * when another process wrote since our last write, our next write
	 * starts a section of its own with those already in the file.
	 */
	uint8_t *header;
	size_t header_len, header_cap;
	struct header_block *headers;
	size_t n_headers, headers_cap, headers_in_file;
	const char *why;		/* what a write refused, for pcapng_error(): a constant */
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

/* How much room the gap left on a page needs before a block of len bytes: 0, or a filler's. */
static size_t filler_before(uint64_t at, size_t len)
{
	size_t left = FILE_PAGE - (size_t)(at % FILE_PAGE);

	/* A gap under FILLER_MIN is only left by a block longer than a page. */
	if ((len > left || (left - len && left - len < FILLER_MIN)) && left >= FILLER_MIN &&
	    left < FILE_PAGE)
		return left;
	return 0;
}

/* A filler block of len bytes (a multiple of 4, at least FILLER_MIN) at f. */
static void put_filler(uint8_t *f, size_t len)
{
	uint32_t type = FILLER_TYPE, total = (uint32_t)len;

	memcpy(f, &type, 4);
	memcpy(f + 4, &total, 4);
	memset(f + 8, 0, len - FILLER_MIN);
	memcpy(f + len - 4, &total, 4);
}

/* Our own blocks' type and total length, at p. */
static uint32_t block_type(const uint8_t *p)
{
	uint32_t type;

	memcpy(&type, p, 4);
	return type;
}

static uint32_t block_len(const uint8_t *p)
{
	uint32_t total;

	memcpy(&total, p + 4, 4);
	return total;
}

/*
 * One block at *at in out (grown as needed), after a filler if the page
 * rule wants one; 0 or -ENOMEM.
 */
static int put_block(uint8_t **out, size_t *len, size_t *cap, uint64_t *at, const uint8_t *p,
		     size_t n)
{
	size_t fill = filler_before(*at, n);

	if (*len + fill + n > *cap) {
		size_t c = *cap ? *cap : BATCH_FIRST;
		uint8_t *grown;

		while (c < *len + fill + n)
			c *= 2;
		grown = realloc(*out, c);
		if (!grown)
			return -ENOMEM;
		*out = grown;
		*cap = c;
	}
	if (fill)
		put_filler(*out + *len, fill);
	memcpy(*out + *len + fill, p, n);
	*len += fill + n;
	*at += fill + n;
	return 0;
}

/*
 * Does the file end with a whole block in our byte order, as ours do even
 * when their writer was killed?  Appended to after anything else, what we
 * write would not be read.  0, or -EBADMSG with why.
 */
static int check_end(struct pcapng_writer *w, uint64_t end)
{
	uint32_t trailing, head[2];

	if (!end)
		return 0;
	if (end % 4 || end < PCAPNG_BLOCK_MIN ||
	    pread(w->fd, &trailing, 4, (off_t)end - 4) != 4 || trailing % 4 ||
	    trailing < PCAPNG_BLOCK_MIN || trailing > end ||
	    pread(w->fd, head, 8, (off_t)(end - trailing)) != 8 || head[1] != trailing) {
		w->why = "it does not end with a whole pcapng block in this machine's byte order "
			 "(cut short, or written by another program): nothing is appended to it";
		return -EBADMSG;
	}
	return 0;
}

/*
 * Another process wrote since our last write, up to end: the file's last
 * section is theirs.  Lay what is gathered out anew from end, behind our
 * section header and the interface blocks already in the file: a section
 * of our own that numbers the interfaces as before.  Fillers go where the
 * pages want them, in our layout as in the batch.  0 or -errno.
 */
static int begin_section_at(struct pcapng_writer *w, uint64_t end)
{
	uint8_t *out = NULL;
	size_t len = 0, cap = 0, i, n, next;
	uint64_t at = end;
	int r = check_end(w, end);

	for (i = 0; !r && i < w->headers_in_file; i++)
		r = put_block(&out, &len, &cap, &at, w->header + w->headers[i].start,
			      w->headers[i].len);
	for (i = 0, next = w->headers_in_file; !r && i < w->batch_len; i += n) {
		n = block_len(w->batch + i);
		if (block_type(w->batch + i) == FILLER_TYPE)
			continue;
		/* A header block yet to be written: it goes where it lands now. */
		if (next < w->n_headers && w->headers[next].at == w->offset + i)
			w->headers[next++].at = at + filler_before(at, n);
		r = put_block(&out, &len, &cap, &at, w->batch + i, n);
	}
	if (r < 0) {
		free(out);
		return r;
	}
	free(w->batch);
	w->batch = out;
	w->batch_len = len;
	w->batch_cap = cap;
	w->offset = end;
	return 0;
}

/*
 * Write what is gathered up to file offset end (after offset), keeping the
 * rest, under the file's write lock; everything when another process wrote
 * in between.  0 or -errno.
 */
static int write_upto(struct pcapng_writer *w, uint64_t end)
{
	size_t n = (size_t)(end - w->offset);
	off_t file_end;
	int r;

	if (!n)
		return 0;
	r = capture_file_lock(w->fd);
	if (r < 0)
		return r;
	file_end = lseek(w->fd, 0, SEEK_END);
	if (file_end < 0) {
		r = -errno;
	} else if ((uint64_t)file_end != w->offset) {
		r = begin_section_at(w, (uint64_t)file_end);
		n = w->batch_len;	/* laid out anew: all of it, no boundary to keep to */
	}
	if (r < 0) {
		capture_file_unlock(w->fd);
		return r;	/* nothing written, everything still gathered */
	}
	r = write_all(w, w->batch, n);
	capture_file_unlock(w->fd);
	/* A write that failed part way: what it did not write is lost, as the error says. */
	memmove(w->batch, w->batch + n, w->batch_len - n);
	w->batch_len -= n;
	while (w->headers_in_file < w->n_headers && w->headers[w->headers_in_file].at < w->offset)
		w->headers_in_file++;
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

/*
 * Where a block of len bytes goes: here, or after a filler up to the next
 * page when it would cross the page boundary or leave a gap too small for a
 * filler.  Blocks longer than a page start on one (and may tear).  Flushes
 * first when the batch cannot take both.  0 or -errno.
 */
static int place(struct pcapng_writer *w, size_t len)
{
	uint64_t boundary = (w->offset / BATCH_SIZE + 1) * BATCH_SIZE;
	size_t fill;
	int r;

	/* What reached the next boundary goes, the block after it stays. */
	if (w->offset + w->batch_len >= boundary) {
		r = write_upto(w, boundary);
		if (r < 0)
			return r;
	}
	/* Only now: a write may have laid the batch out anew. */
	fill = filler_before(w->offset + w->batch_len, len);
	if (w->batch_len + fill + len > BATCH_ROOM) {
		/* A guard: the room beyond the boundary takes any filler and block. */
		r = pcapng_flush(w);
		if (r < 0)
			return r;
		fill = filler_before(w->offset + w->batch_len, len);
	}
	r = reserve(w, fill + len);
	if (r < 0)
		return r;
	if (fill) {
		put_filler(w->batch + w->batch_len, fill);
		w->batch_len += fill;
	}
	return 0;
}

/* Keep a copy of the header block p (section header or interface) for later sections. */
static int keep_header(struct pcapng_writer *w, const uint8_t *p, size_t len, uint64_t at)
{
	if (w->header_len + len > w->header_cap) {
		size_t cap = w->header_cap ? 2 * w->header_cap : 1024;
		uint8_t *grown;

		while (cap < w->header_len + len)
			cap *= 2;
		grown = realloc(w->header, cap);
		if (!grown)
			return -ENOMEM;
		w->header = grown;
		w->header_cap = cap;
	}
	if (w->n_headers == w->headers_cap) {
		size_t cap = w->headers_cap ? 2 * w->headers_cap : 8;
		struct header_block *grown = realloc(w->headers, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		w->headers = grown;
		w->headers_cap = cap;
	}
	w->headers[w->n_headers++] = (struct header_block){ .at = at,
		.start = (uint32_t)w->header_len, .len = (uint32_t)len };
	memcpy(w->header + w->header_len, p, len);
	w->header_len += len;
	return 0;
}

/* One whole block to the file, at its place: gathered, or written at once. */
static int emit(struct pcapng_writer *w, const uint8_t *p, size_t len, int header)
{
	int r;

	if (len > BATCH_ROOM)
		return -EMSGSIZE;	/* cannot happen: blocks are at most BLOCK_MAX */
	r = place(w, len);
	if (r < 0)
		return r;
	if (header) {
		r = keep_header(w, p, len, w->offset + w->batch_len);
		if (r < 0)
			return r;
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
static int finish(struct block *b, struct pcapng_writer *w, int with_options, int header)
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
	return emit(w, b->p, b->len, header);
}

/*
 * A file that is not empty must begin as ours do: a pcapng section header
 * in this machine's byte order.  0, or -EEXIST with why.
 */
static int check_start(int fd, struct umad_err *err)
{
	uint32_t head[3];
	const char *what = "not a pcapng file";

	if (pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head)) {
		if (head[0] == PCAPNG_BT_SHB && head[2] == PCAPNG_BYTE_ORDER_MAGIC)
			return 0;
		if (head[0] == PCAPNG_BT_SHB && head[2] == __builtin_bswap32(PCAPNG_BYTE_ORDER_MAGIC))
			what = "a pcapng file in the other byte order";
		else if (head[0] == PCAP_MAGIC_US || head[0] == PCAP_MAGIC_NS ||
			 head[0] == __builtin_bswap32(PCAP_MAGIC_US) ||
			 head[0] == __builtin_bswap32(PCAP_MAGIC_NS))
			what = "a classic pcap file, not pcapng";
	}
	return umad_err_set(err, -EEXIST,
			    "%s: nothing is appended to it (remove it, or choose another name)", what);
}

/*
 * The writer of fd (or of the -errno in fd), whose file ends at end, with
 * its section header gathered: NULL with errno set and why in err.
 */
static struct pcapng_writer *start_writer(int fd, uint64_t end, const char *application,
					  struct umad_err *err)
{
	struct pcapng_writer *w;
	struct timespec now;
	char who[64];
	struct block b;
	int r;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		umad_err_set(err, -ENOMEM, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->offset = end;
	/* Which process wrote the section, when it began: its sections say the same. */
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(who, sizeof(who), "pid=%ld start=%lld.%09ld", (long)getpid(),
		 (long long)now.tv_sec, now.tv_nsec);
	begin(&b, w, PCAPNG_BT_SHB);
	add_u32(&b, PCAPNG_BYTE_ORDER_MAGIC);
	add_u16(&b, PCAPNG_VERSION_MAJOR);
	add_u16(&b, PCAPNG_VERSION_MINOR);
	add_u32(&b, 0xffffffff);	/* section length: not known in advance */
	add_u32(&b, 0xffffffff);
	if (application)
		add_option(&b, PCAPNG_SHB_USERAPPL, application, strlen(application));
	add_option(&b, PCAPNG_OPT_COMMENT, who, strlen(who));
	r = finish(&b, w, 1, 1);
	if (r < 0) {
		umad_err_set(err, r, "%s", r == -EBADMSG ? w->why : strerror(-r));
		pcapng_discard(w);
		errno = -r;
		return NULL;
	}
	return w;
}

struct pcapng_writer *pcapng_create(const char *path, const char *application,
				    struct umad_err *err)
{
	return start_writer(capture_file_create(path, err), 0, application, err);
}

struct pcapng_writer *pcapng_append(const char *path, const char *application,
				    struct umad_err *err)
{
	struct pcapng_writer probe = { .fd = -1 };
	int created, fd = capture_file_append(path, &created, err), r;
	off_t end;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	/* What the file holds is looked at under the write lock: others write whole blocks. */
	r = capture_file_lock(fd);
	end = r < 0 ? -1 : lseek(fd, 0, SEEK_END);
	if (r == 0 && end < 0)
		r = -errno;
	if (r == 0 && end > 0) {
		r = check_start(fd, err);
		probe.fd = fd;
		if (r == 0 && check_end(&probe, (uint64_t)end) < 0) {
			r = umad_err_set(err, -EBADMSG, "%s", probe.why);
		}
	} else if (r < 0) {
		umad_err_set(err, r, "%s", strerror(-r));
	}
	capture_file_unlock(fd);
	if (r < 0) {
		close(fd);
		errno = -r;
		return NULL;
	}
	return start_writer(fd, (uint64_t)end, application, err);
}

const char *pcapng_error(const struct pcapng_writer *w)
{
	return w->why;
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
	r = finish(&b, w, 1, 1);
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

void pcapng_discard(struct pcapng_writer *w)
{
	if (!w)
		return;
	close(w->fd);
	free(w->batch);
	free(w->header);
	free(w->headers);
	free(w);
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
	free(w->header);
	free(w->headers);
	free(w);
	return r;
}
