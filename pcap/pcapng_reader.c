/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* pcapng and classic pcap reading for ERF InfiniBand captures. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ib_packet.h"
#include "pcapng_reader.h"

#define BT_SHB	0x0a0d0d0a
#define BT_IDB	0x00000001
#define BT_EPB	0x00000006
#define BT_SPB	0x00000003
#define BYTE_ORDER_MAGIC 0x1a2b3c4d
#define LINKTYPE_ERF 197
#define ERF_TYPE_INFINIBAND 21
#define MAX_BLOCK (16u << 20)
#define MAX_IFACES 1024
#define READ_BUFFER (256u << 10)

struct iface {
	uint16_t linktype;
	uint64_t ts_per_second;
	char name[64];
};

struct capture_reader {
	FILE *f;
	char path[256];
	int classic;			/* classic pcap rather than pcapng */
	int swapped;			/* file byte order differs from ours */
	int classic_ns;
	uint32_t classic_linktype;
	long offset;			/* of the block being read, for messages */
	struct iface *ifaces;		/* grown as interface blocks come */
	int n_ifaces, ifaces_cap;
	uint8_t *block;
	size_t block_cap;
	off_t file_size;		/* of a regular file, or -1: a stream's length is unknown */
	uint8_t magic[4];		/* read to tell the format, read again by the first block */
	size_t magic_left;		/* bytes of magic still to be read again */
	long pos;			/* bytes of the file read so far */
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

/* Where reading stands in the file (counted here: ftell costs a system call per call). */
static long position(const struct capture_reader *r)
{
	return r->pos;
}

/* Read exactly n bytes: 1, 0 at a clean end (nothing read), -1 when cut short. */
static int read_exact(struct capture_reader *r, void *buf, size_t n)
{
	size_t again = r->magic_left < n ? r->magic_left : n, got;

	if (!n)
		return 1;	/* an empty record: buf may be the still unallocated block */
	/* A stream cannot rewind: the format's magic is handed out again from memory. */
	memcpy(buf, r->magic + sizeof(r->magic) - r->magic_left, again);
	r->magic_left -= again;
	got = again + fread((uint8_t *)buf + again, 1, n - again, r->f);
	r->pos += (long)got;
	if (got == n)
		return 1;
	return got == 0 && feof(r->f) ? 0 : -1;
}

static int grow(struct capture_reader *r, size_t n)
{
	uint8_t *p;

	if (n <= r->block_cap)
		return 0;
	p = realloc(r->block, n);
	if (!p)
		return -ENOMEM;
	r->block = p;
	r->block_cap = n;
	return 0;
}

/*
 * Read the n bytes of a block into r->block: 1, 0 when the file ends before
 * them (nothing is allocated for a length the file cannot hold, so a tiny
 * file announcing a huge block costs nothing), or -1 out of memory.
 */
static int read_body(struct capture_reader *r, size_t n)
{
	long at = position(r);

	if (r->file_size >= 0 && (off_t)n > r->file_size - at)
		return 0;
	if (grow(r, n) < 0)
		return -1;
	return read_exact(r, r->block, n) == 1;
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
	r->f = fopen(path, "rb");
	if (!r->f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(r);
		return NULL;
	}
	/* Captures are read from start to end: large reads, fewer system calls. */
	setvbuf(r->f, NULL, _IOFBF, READ_BUFFER);
	/* A FIFO may carry a capture; a directory opens but never reads. */
	if (fstat(fileno(r->f), &st) < 0)
		st.st_mode = 0;
	r->file_size = S_ISREG(st.st_mode) ? st.st_size : -1;
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
		goto fail;
	}
	got = read_exact(r, head, 4);
	if (got != 1) {
		if (got < 0 && ferror(r->f))
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		else
			say(err, errlen, r, "too short to be a capture file (%ld bytes)",
			    position(r));
		goto fail;
	}
	memcpy(&magic, head, 4);
	if (magic == BT_SHB) {
		/* pcapng: the section header is read by capture_next like any block. */
		memcpy(r->magic, head, sizeof(r->magic));
		r->magic_left = sizeof(r->magic);
		r->pos = 0;
		return r;
	}
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
	if (read_exact(r, head + 4, 20) != 1) {
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
	fclose(r->f);
	free(r);
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
		got = parse_erf(r->block, caplen, rec);
		if (got < 0) {
			say(err, errlen, r, "ERF record shorter than its header");
			return -1;
		}
		if (got)
			return 1;
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
		if (get32(r, r->block + total - 12) != total) {
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
			i->linktype = get16(r, r->block);
			i->ts_per_second = 1000000;
			read_options(r, r->block + 8, r->block + total - 12, idb_option, i);
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
			id = get32(r, r->block);
			caplen = get32(r, r->block + 12);
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
			ts = (uint64_t)get32(r, r->block + 4) << 32 | get32(r, r->block + 8);
			rec->ts_ns = i->ts_per_second == 1000000000u ? ts :
				     ts / i->ts_per_second * 1000000000u +
				     ts % i->ts_per_second * 1000000000u / i->ts_per_second;
			got = parse_erf(r->block + 20, caplen, rec);
			if (got < 0) {
				say(err, errlen, r, "ERF record shorter than its header");
				return -1;
			}
			if (!got)
				continue;
			if (((caplen + 3u) & ~3u) <= total - 32)
				read_options(r, r->block + 20 + ((caplen + 3u) & ~3u),
					     r->block + total - 12, epb_option, rec);
			return 1;
		}
		/* Other blocks (name resolution, statistics, ...) carry nothing we need. */
	}
}

void capture_close(struct capture_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r->block);
	free(r->ifaces);
	free(r);
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
