/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * pcapng and classic pcap reading for ERF InfiniBand captures.
 *
 * The file is read with read(2) into one buffer, and blocks are handed out
 * where they lie in it: one copy (the kernel's), and no page of the process
 * touched for the first time after the buffer's.  Mapping the file instead
 * costs a page fault per 64 KiB read, which on a virtual machine is several
 * times the copy.  The same code reads a stream (a pipe, a FIFO).
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ib_packet.h"
#include "pcapng_reader.h"

/* Under AddressSanitizer, the buffer outside the block handed out is poisoned. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define READER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define READER_ASAN 1
#endif
#ifdef READER_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)	((void)(p), (void)(n))
#define UNPOISON(p, n)	((void)(p), (void)(n))
#endif

#define BT_SHB	0x0a0d0d0a
#define BT_IDB	0x00000001
#define BT_EPB	0x00000006
#define BT_SPB	0x00000003
#define BYTE_ORDER_MAGIC 0x1a2b3c4d
#define LINKTYPE_ERF 197
#define ERF_TYPE_INFINIBAND 21
#define MAX_BLOCK (16u << 20)
#define MAX_IFACES 1024
/* Large reads, few system calls; small enough that what is read is still in the cache. */
#define READ_BUFFER (256u << 10)

struct iface {
	uint16_t linktype;
	uint64_t ts_per_second;
	char name[64];
};

struct capture_reader {
	int fd;
	char path[256];
	int classic;			/* classic pcap rather than pcapng */
	int swapped;			/* file byte order differs from ours */
	int classic_ns;
	uint32_t classic_linktype;
	long offset;			/* of the block being read, for messages */
	struct iface *ifaces;		/* grown as interface blocks come */
	int n_ifaces, ifaces_cap;
	uint8_t *buf;			/* what was read of the file, buf_cap bytes */
	size_t buf_cap;
	size_t head, tail;		/* buf[head..tail) is read and not yet handed out */
	int read_errno;			/* why read(2) stopped, 0 at the end of the file */
	const uint8_t *body;		/* the block handed out, in buf */
	size_t body_len;
	off_t file_size;		/* of a regular file, or -1: a stream's length is unknown */
	long pos;			/* the file offset of buf[head] */
	long body_at;			/* the file offset of body */
	char comment[1024];
	int other_linktype;		/* the first non-ERF link type seen, or -1 */
};

static void say(char *err, size_t errlen, const struct capture_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "%s: offset %ld: ", r->path, r->offset);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static uint16_t get16(const struct capture_reader *r, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return r->swapped ? __builtin_bswap16(v) : v;
}

static uint32_t get32(const struct capture_reader *r, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return r->swapped ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct capture_reader *r, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return r->swapped ? __builtin_bswap64(v) : v;
}

/* Where reading stands in the file. */
static long position(const struct capture_reader *r)
{
	return r->pos;
}

/*
 * At least n bytes read and not handed out, in buf[head..]: 1, 0 when the
 * file (or a read error, in read_errno) ends them first, -1 out of memory.
 * What was handed out before is gone: blocks are valid until the next call.
 */
static int fill(struct capture_reader *r, size_t n)
{
	size_t have = r->tail - r->head;

	if (have >= n)
		return 1;
	UNPOISON(r->buf, r->buf_cap);
	r->body = NULL;
	if (n > r->buf_cap) {
		size_t cap = n > READ_BUFFER ? n : READ_BUFFER;
		uint8_t *grown = malloc(cap);

		if (!grown)
			return -1;
		if (have)
			memcpy(grown, r->buf + r->head, have);
		free(r->buf);
		r->buf = grown;
		r->buf_cap = cap;
	} else if (r->head) {
		memmove(r->buf, r->buf + r->head, have);
	}
	r->head = 0;
	r->tail = have;
	while (r->tail < n && !r->read_errno) {
		ssize_t got = read(r->fd, r->buf + r->tail, r->buf_cap - r->tail);

		if (got > 0)
			r->tail += (size_t)got;
		else if (got == 0)
			r->read_errno = -1;	/* the end: nothing more will come */
		else if (errno != EINTR)
			r->read_errno = errno;
	}
	POISON(r->buf + r->tail, r->buf_cap - r->tail);
	return r->tail >= n;
}

/* Hand out n bytes that fill() has: at r->body, valid until the next fill(). */
static const uint8_t *take(struct capture_reader *r, size_t n)
{
	const uint8_t *p = r->buf + r->head;

	/* Everything but these n bytes is out of bounds. */
	POISON(r->buf, r->buf_cap);
	UNPOISON(p, n);
	r->body = p;
	r->body_len = n;
	r->body_at = r->pos;
	r->head += n;
	r->pos += (long)n;
	return p;
}

/* Read exactly n bytes: 1, 0 at a clean end (nothing read), -1 when cut short. */
static int read_exact(struct capture_reader *r, void *buf, size_t n)
{
	int got = fill(r, n);
	size_t left;

	if (got == 1) {
		memcpy(buf, take(r, n), n);
		return 1;
	}
	left = r->tail - r->head;
	r->head = r->tail;
	r->pos += (long)left;
	/* A read error is never a clean end. */
	return got == 0 && left == 0 && r->read_errno <= 0 ? 0 : -1;
}

/*
 * The n bytes of a block, at r->body: 1, 0 when the file ends before them
 * (nothing is allocated for a length the file cannot hold, so a tiny file
 * announcing a huge block costs nothing), or -1 out of memory.
 */
static int read_body(struct capture_reader *r, size_t n)
{
	long at = position(r);
	int got;

	if (r->file_size >= 0 && (off_t)n > r->file_size - at)
		return 0;
	got = fill(r, n);
	if (got == 1)
		take(r, n);
	return got;
}

struct capture_reader *capture_open(const char *path, char *err, size_t errlen)
{
	struct capture_reader *r = calloc(1, sizeof(*r));
	uint8_t head[24];
	uint32_t magic;
	struct stat st;
	int got;

	if (!r) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->other_linktype = -1;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(r);
		return NULL;
	}
	/* A FIFO may carry a capture; a directory opens but never reads. */
	if (fstat(r->fd, &st) < 0)
		st.st_mode = 0;
	r->file_size = S_ISREG(st.st_mode) ? st.st_size : -1;
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
		goto fail;
	}
	/* Read from start to end: the kernel may read far ahead. */
	if (S_ISREG(st.st_mode))
		(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	got = fill(r, 4);
	if (got != 1) {
		if (got < 0)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		else if (r->read_errno > 0)
			snprintf(err, errlen, "%s: %s", path, strerror(r->read_errno));
		else
			say(err, errlen, r, "too short to be a capture file (%zu bytes)",
			    r->tail - r->head);
		goto fail;
	}
	/* Looked at, not taken: a pcapng's section header is read by capture_next like any block. */
	memcpy(&magic, r->buf + r->head, 4);
	if (magic == BT_SHB)
		return r;
	r->classic = 1;
	switch (magic) {
	case 0xa1b2c3d4: break;
	case 0xa1b23c4d: r->classic_ns = 1; break;
	case 0xd4c3b2a1: r->swapped = 1; break;
	case 0x4d3cb2a1: r->swapped = 1; r->classic_ns = 1; break;
	default:
		say(err, errlen, r, "not a pcap or pcapng file (magic 0x%08x)", magic);
		goto fail;
	}
	if (read_exact(r, head, 24) != 1) {
		say(err, errlen, r, "truncated pcap file header");
		goto fail;
	}
	r->classic_linktype = get32(r, head + 20) & 0x0fffffff;
	if (r->classic_linktype != LINKTYPE_ERF) {
		const char *name = capture_linktype_name((int)r->classic_linktype);

		say(err, errlen, r, "link type %u%s%s%s is not ERF (197): not an InfiniBand capture "
		    "Wireshark decodes", r->classic_linktype, name ? " (" : "", name ? name : "",
		    name ? ")" : "");
		goto fail;
	}
	r->offset = 24;
	return r;
fail:
	capture_close(r);
	return NULL;
}

/* The ERF record in data: fills the packet fields of rec; 1 for InfiniBand, 0 to skip. */
static int parse_erf(const uint8_t *data, size_t caplen, struct capture_record *rec)
{
	size_t hdr = 16, wlen;
	int more;

	if (caplen < 16)
		return -1;
	/* Extension headers (8 bytes each) follow while the "more" bit is set. */
	more = data[8] & 0x80;
	while (more) {
		if (caplen < hdr + 8)
			return -1;
		more = data[hdr] & 0x80;
		hdr += 8;
	}
	if ((data[8] & 0x7f) != ERF_TYPE_INFINIBAND)
		return 0;
	wlen = (size_t)data[14] << 8 | data[15];
	rec->packet = data + hdr;
	rec->len = caplen - hdr < wlen ? caplen - hdr : wlen;
	return 1;
}

static int next_classic(struct capture_reader *r, struct capture_record *rec, char *err,
			size_t errlen)
{
	uint8_t h[16];
	uint32_t caplen;
	int got;

	for (;;) {
		got = read_exact(r, h, 16);
		if (got == 0)
			return 0;
		if (got < 0) {
			say(err, errlen, r, "truncated record header");
			return -1;
		}
		caplen = get32(r, h + 8);
		got = caplen > MAX_BLOCK ? -1 : read_body(r, caplen);
		if (got < 0) {
			say(err, errlen, r, "record of %u bytes is not plausible", caplen);
			return -1;
		}
		if (!got) {
			say(err, errlen, r, "truncated record (%u bytes announced)", caplen);
			return -1;
		}
		memset(rec, 0, sizeof(*rec));
		rec->iface_name = "";
		rec->comment = "";
		rec->ts_ns = (uint64_t)get32(r, h) * 1000000000u +
			     (uint64_t)get32(r, h + 4) * (r->classic_ns ? 1 : 1000);
		r->offset += 16 + (long)caplen;
		got = parse_erf(r->body, caplen, rec);
		if (got < 0) {
			say(err, errlen, r, "ERF record shorter than its header");
			return -1;
		}
		if (got) {
			rec->packet_at = (uint64_t)r->body_at + (uint64_t)(rec->packet - r->body);
			return 1;
		}
	}
}

/* Walk the options of a block body: calls fn for each, stops at opt_endofopt. */
static void read_options(struct capture_reader *r, const uint8_t *p, const uint8_t *end,
			 void (*fn)(struct capture_reader *, uint16_t, const uint8_t *, uint16_t, void *),
			 void *arg)
{
	while (p < end && end - p >= 4) {
		uint16_t code = get16(r, p), len = get16(r, p + 2);
		size_t padded = (len + 3u) & ~3u;

		if (code == 0 || (size_t)(end - p) - 4 < len)
			return;
		fn(r, code, p + 4, len, arg);
		if ((size_t)(end - p) - 4 < padded)
			return;		/* the last option's padding is missing */
		p += 4 + padded;
	}
}

static void idb_option(struct capture_reader *r, uint16_t code, const uint8_t *v, uint16_t len,
		       void *arg)
{
	struct iface *i = arg;

	(void)r;
	if (code == 2) {
		size_t n = len < sizeof(i->name) - 1 ? len : sizeof(i->name) - 1;

		memcpy(i->name, v, n);
		i->name[n] = '\0';
	} else if (code == 9 && len >= 1) {
		uint8_t res = v[0];
		uint64_t per = 1;
		unsigned k;

		/* Bit 7: a power of two; else a power of ten. */
		for (k = 0; k < (res & 0x7f) && k < 19; k++)
			per *= (res & 0x80) ? 2 : 10;
		i->ts_per_second = per;
	}
}

static void epb_option(struct capture_reader *r, uint16_t code, const uint8_t *v, uint16_t len,
		       void *arg)
{
	struct capture_record *rec = arg;

	if (code == 1) {
		size_t n = len < sizeof(r->comment) - 1 ? len : sizeof(r->comment) - 1;

		memcpy(r->comment, v, n);
		r->comment[n] = '\0';
		rec->comment = r->comment;
	} else if (code == 2 && len == 4) {
		rec->direction = (enum pcapng_direction)(get32(r, v) & PCAPNG_DIR_MASK);
	} else if (code == 5 && len == 8) {
		rec->packet_id = get64(r, v);
	}
}

int capture_next(struct capture_reader *r, struct capture_record *rec, char *err, size_t errlen)
{
	uint8_t h[8];
	uint32_t type, total;
	int got;

	if (r->classic)
		return next_classic(r, rec, err, errlen);
	for (;;) {
		r->offset = position(r);
		got = read_exact(r, h, 8);
		if (got == 0)
			return 0;
		if (got < 0) {
			say(err, errlen, r, "truncated block header");
			return -1;
		}
		memcpy(&type, h, 4);
		if (type == BT_SHB) {
			uint32_t magic;

			if (read_exact(r, &magic, 4) != 1) {
				say(err, errlen, r, "truncated section header");
				return -1;
			}
			if (magic == BYTE_ORDER_MAGIC)
				r->swapped = 0;
			else if (magic == __builtin_bswap32(BYTE_ORDER_MAGIC))
				r->swapped = 1;
			else {
				say(err, errlen, r, "bad byte-order magic 0x%08x", magic);
				return -1;
			}
			r->n_ifaces = 0;	/* interfaces are per section */
			total = get32(r, h + 4);
			if (total < 28 || total % 4 || total > MAX_BLOCK) {
				say(err, errlen, r, "section header of %u bytes", total);
				return -1;
			}
			if (read_body(r, total - 12) != 1) {
				say(err, errlen, r, "truncated section header");
				return -1;
			}
			continue;
		}
		type = get32(r, h);
		total = get32(r, h + 4);
		if (total < 12 || total % 4 || total > MAX_BLOCK) {
			say(err, errlen, r, "block of type 0x%x has an impossible length %u", type, total);
			return -1;
		}
		got = read_body(r, total - 8);
		if (got < 0) {
			say(err, errlen, r, "out of memory");
			return -1;
		}
		if (!got) {
			say(err, errlen, r, "truncated block (%u bytes announced)", total);
			return -1;
		}
		if (get32(r, r->body + total - 12) != total) {
			say(err, errlen, r, "block lengths at its two ends differ");
			return -1;
		}
		if (type == BT_IDB) {
			struct iface *i;

			if (total < 20 || r->n_ifaces == MAX_IFACES) {
				say(err, errlen, r, "bad or too many interface blocks");
				return -1;
			}
			if (r->n_ifaces == r->ifaces_cap) {
				int cap = r->ifaces_cap ? 2 * r->ifaces_cap : 4;

				i = realloc(r->ifaces, (size_t)cap * sizeof(*i));
				if (!i) {
					say(err, errlen, r, "%s", strerror(ENOMEM));
					return -1;
				}
				r->ifaces = i;
				r->ifaces_cap = cap;
			}
			i = &r->ifaces[r->n_ifaces++];
			memset(i, 0, sizeof(*i));
			i->linktype = get16(r, r->body);
			i->ts_per_second = 1000000;
			read_options(r, r->body + 8, r->body + total - 12, idb_option, i);
			continue;
		}
		if (type == BT_EPB) {
			uint32_t id, caplen;
			uint64_t ts;
			const struct iface *i;

			if (total < 32) {
				say(err, errlen, r, "packet block of %u bytes", total);
				return -1;
			}
			id = get32(r, r->body);
			caplen = get32(r, r->body + 12);
			if (id >= (uint32_t)r->n_ifaces) {
				say(err, errlen, r, "packet on interface %u, which was never described", id);
				return -1;
			}
			/* total >= 32 here; caplen is the file's word, so compare without sums that wrap. */
			if (caplen > total - 32) {
				say(err, errlen, r, "packet of %u bytes in a block of %u", caplen, total);
				return -1;
			}
			i = &r->ifaces[id];
			if (i->linktype != LINKTYPE_ERF) {
				if (r->other_linktype < 0)
					r->other_linktype = i->linktype;
				continue;
			}
			memset(rec, 0, sizeof(*rec));
			rec->iface = (int)id;
			rec->iface_name = i->name;
			rec->comment = "";
			ts = (uint64_t)get32(r, r->body + 4) << 32 | get32(r, r->body + 8);
			rec->ts_ns = i->ts_per_second == 1000000000u ? ts :
				     ts / i->ts_per_second * 1000000000u +
				     ts % i->ts_per_second * 1000000000u / i->ts_per_second;
			got = parse_erf(r->body + 20, caplen, rec);
			if (got < 0) {
				say(err, errlen, r, "ERF record shorter than its header");
				return -1;
			}
			if (!got)
				continue;
			if (((caplen + 3u) & ~3u) <= total - 32)
				read_options(r, r->body + 20 + ((caplen + 3u) & ~3u),
					     r->body + total - 12, epb_option, rec);
			rec->packet_at = (uint64_t)r->body_at + (uint64_t)(rec->packet - r->body);
			return 1;
		}
		/* Other blocks (name resolution, statistics, ...) carry nothing we need. */
	}
}

void capture_close(struct capture_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	UNPOISON(r->buf, r->buf_cap);
	free(r->buf);
	free(r->ifaces);
	free(r);
}

int capture_reopen(const struct capture_reader *r)
{
	int fd;

	if (r->file_size < 0)
		return -ESPIPE;
	fd = fcntl(r->fd, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

int capture_other_linktype(const struct capture_reader *r)
{
	return r->other_linktype;
}

const char *capture_linktype_name(int linktype)
{
	static const struct { int type; const char *name; } names[] = {
		{ 0, "BSD loopback" }, { 1, "Ethernet" }, { 101, "raw IP" },
		{ 113, "Linux cooked" }, { 197, "ERF" }, { 220, "USB Linux" },
		{ 247, "InfiniBand, which Wireshark does not decode" },
		{ 276, "Linux cooked v2" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == linktype)
			return names[i].name;
	return NULL;
}

const uint8_t *capture_mad(const struct capture_record *rec, size_t *mad_len)
{
	size_t head = IB_LRH_LEN + IB_BTH_LEN + IB_DETH_LEN, crcs = IB_ICRC_LEN + IB_VCRC_LEN;

	if (rec->len >= 2 && (rec->packet[LRH_OFF_SL_LNH] & LRH_LNH_MASK) == LRH_LNH_GLOBAL)
		head += IB_GRH_LEN;
	if (rec->len < head + MAD_HDR_SIZE + crcs)
		return NULL;
	*mad_len = rec->len - head - crcs;
	return rec->packet + head;
}

enum pcapng_direction capture_direction(const struct capture_record *rec)
{
	const uint8_t *mad;
	size_t len;
	uint8_t method;

	if (rec->direction == PCAPNG_DIR_INBOUND || rec->direction == PCAPNG_DIR_OUTBOUND)
		return rec->direction;
	mad = capture_mad(rec, &len);
	method = mad ? mad_method(mad) : 0;
	if (mad_method_is_response(method) || method == UMAD_METHOD_TRAP_REPRESS)
		return PCAPNG_DIR_INBOUND;
	return PCAPNG_DIR_OUTBOUND;
}
