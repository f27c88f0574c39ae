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
#include "pcapng_format.h"
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

#define MAX_BLOCK (16u << 20)
#define MAX_IFACES 1024
/* Large reads, few system calls; small enough that what is read is still in the cache. */
#define READ_BUFFER (256u << 10)

struct iface {
	uint16_t linktype;
	uint32_t snaplen;		/* 0: no limit */
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
	uint32_t classic_snaplen;
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
	unsigned long section;		/* section headers read so far */
	uint64_t writer;		/* the current section's writer (capture_record) */
	int in_packet;			/* messages name the packet (packets) being read */
	/* What the file held, for a file with no MAD to say why. */
	int other_linktype;		/* the first non-ERF link type seen, or -1 */
	int described;			/* interface blocks, in all sections */
	int described_erf;		/* of them ERF */
	unsigned long packets;		/* packet records, numbered as tshark numbers frames */
	unsigned long other_packets;	/* on interfaces of other link types */
	unsigned long ib_link;		/* ERF InfiniBand link-layer records */
	unsigned long mads, not_mads;	/* InfiniBand packets handed out, MADs or not */
};

/* "FILE: offset N: " (and "packet K: " while a packet is read), then the message. */
/* Returns rc: -EBADMSG for a file that contradicts itself, or what else failed. */
static int __attribute__((format(printf, 4, 5)))
say(struct umad_err *err, int rc, const struct capture_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	umad_err_vset(err, rc, fmt, ap);
	va_end(ap);
	if (r->in_packet)
		return umad_err_prefix(err, rc, "%s: offset %ld: packet %lu: ", r->path, r->offset,
				       r->packets);
	return umad_err_prefix(err, rc, "%s: offset %ld: ", r->path, r->offset);
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


struct capture_reader *capture_open(const char *path, struct umad_err *err)
{
	struct capture_reader *r = calloc(1, sizeof(*r));
	uint8_t head[PCAP_FILE_HEADER_LEN];
	uint32_t magic;
	uint16_t major, minor;
	struct stat st;
	int got;

	if (!r) {
		umad_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->other_linktype = -1;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		umad_err_set(err, -errno, "%s: %s", path, strerror(errno));
		free(r);
		return NULL;
	}
	/* A FIFO may carry a capture; a directory opens but never reads. */
	if (fstat(r->fd, &st) < 0)
		st.st_mode = 0;
	r->file_size = S_ISREG(st.st_mode) ? st.st_size : -1;
	if (S_ISDIR(st.st_mode)) {
		umad_err_set(err, -EISDIR, "%s: %s", path, strerror(EISDIR));
		goto fail;
	}
	/* Read from start to end: the kernel may read far ahead. */
	if (S_ISREG(st.st_mode))
		(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	got = fill(r, 4);
	if (got != 1) {
		if (got < 0)
			umad_err_set(err, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
		else if (r->read_errno > 0)
			umad_err_set(err, -r->read_errno, "%s: %s", path, strerror(r->read_errno));
		else
			say(err, -EBADMSG, r, "too short to be a capture file (%zu bytes)",
			    r->tail - r->head);
		goto fail;
	}
	/* Looked at, not taken: a pcapng's section header is read by capture_next like any block. */
	memcpy(&magic, r->buf + r->head, 4);
	if (magic == PCAPNG_BT_SHB)
		return r;
	r->classic = 1;
	switch (magic) {
	case PCAP_MAGIC_US: break;
	case PCAP_MAGIC_NS: r->classic_ns = 1; break;
	case __builtin_bswap32(PCAP_MAGIC_US): r->swapped = 1; break;
	case __builtin_bswap32(PCAP_MAGIC_NS): r->swapped = 1; r->classic_ns = 1; break;
	default:
		say(err, -EBADMSG, r, "not a pcap or pcapng file (magic 0x%08x)", magic);
		goto fail;
	}
	if (read_exact(r, head, sizeof(head)) != 1) {
		say(err, -EBADMSG, r, "truncated pcap file header");
		goto fail;
	}
	major = get16(r, head + 4);
	minor = get16(r, head + 6);
	if (major != PCAP_VERSION_MAJOR) {
		say(err, -EBADMSG, r, "pcap version %u.%u: only version 2 is known", major, minor);
		goto fail;
	}
	r->classic_snaplen = get32(r, head + 16);
	r->classic_linktype = get32(r, head + 20) & PCAP_LINKTYPE_MASK;
	if (r->classic_linktype != PCAPNG_LINKTYPE_ERF) {
		const char *name = capture_linktype_name((int)r->classic_linktype);

		say(err, -EBADMSG, r, "link type %u%s%s%s is not ERF (197): not an InfiniBand capture "
		    "Wireshark decodes", r->classic_linktype, name ? " (" : "", name ? name : "",
		    name ? ")" : "");
		goto fail;
	}
	r->offset = PCAP_FILE_HEADER_LEN;
	return r;
fail:
	capture_close(r);
	return NULL;
}

/*
 * The ERF record in data (caplen bytes, the whole record): the packet
 * fields of rec filled; 1 for an InfiniBand packet, 0 for a link-layer
 * record to skip, -errno with why in err.
 */
static int parse_erf(struct capture_reader *r, const uint8_t *data, uint32_t caplen,
		     struct capture_record *rec, struct umad_err *err)
{
	size_t hdr = ERF_HDR_LEN, rlen, wlen, room, pad, lrh_len;
	int more;
	uint8_t type;

	if (caplen < ERF_HDR_LEN)
		return say(err, -EBADMSG, r, "an ERF record of %u bytes, shorter than its header (%d)", caplen,
			   ERF_HDR_LEN);
	/* Extension headers follow while the "more" bit is set. */
	more = data[ERF_OFF_TYPE] & ERF_TYPE_MORE;
	while (more) {
		if (caplen < hdr + ERF_EXT_LEN)
			return say(err, -EBADMSG, r, "ERF extension headers run past the record's %u bytes",
				   caplen);
		more = data[hdr] & ERF_TYPE_MORE;
		hdr += ERF_EXT_LEN;
	}
	type = data[ERF_OFF_TYPE] & ERF_TYPE_MASK;
	if (type == ERF_TYPE_INFINIBAND_LINK) {
		r->ib_link++;
		return 0;
	}
	if (type != ERF_TYPE_INFINIBAND)
		return say(err, -EBADMSG, r, "an ERF record of type %u%s, not InfiniBand (%d)", type,
			   type == ERF_TYPE_ETH ? " (Ethernet)" : "", ERF_TYPE_INFINIBAND);
	rlen = get_be16(data + ERF_OFF_RLEN);
	wlen = get_be16(data + ERF_OFF_WLEN);
	if (rlen != caplen)
		return say(err, -EBADMSG, r, "the ERF record length %zu disagrees with the %u bytes captured",
			   rlen, caplen);
	room = rlen - hdr;
	if (wlen > room)
		return say(err, -EBADMSG, r, "the ERF record holds %zu bytes of a %zu-byte packet: a MAD needs "
			   "all of it", room, wlen);
	/* Only a record of fixed length may be padded (to 8 bytes). */
	pad = data[ERF_OFF_FLAGS] & ERF_FLAG_VARLEN ? 0 : ERF_PAD_MAX;
	if (room - wlen > pad)
		return say(err, -EBADMSG, r, "the ERF wire length %zu disagrees with the %zu bytes after the "
			   "ERF header", wlen, room);
	if (wlen < IB_LRH_LEN)
		return say(err, -EBADMSG, r, "an InfiniBand packet of %zu bytes, shorter than its LRH", wlen);
	/* What tshark calls "Invalid Packet Length from LRH": the LRH counts up to the ICRC. */
	lrh_len = (size_t)(get_be16(data + hdr + LRH_OFF_PKTLEN) & LRH_PKTLEN_MAX) * IB_WORD_LEN;
	if (lrh_len > wlen)
		return say(err, -EBADMSG, r, "the LRH gives the packet %zu bytes, the ERF record %zu", lrh_len,
			   wlen);
	rec->packet = data + hdr;
	rec->len = wlen;
	return 1;
}

/*
 * A packet of caplen bytes at data, on an interface of linktype whose snap
 * length is snaplen (0: none): its lengths checked, then its ERF record.
 * 1 for an InfiniBand packet in rec (whose other fields the caller fills),
 * 0 to skip, -errno with why in err.
 */
static int parse_packet(struct capture_reader *r, uint32_t linktype, uint32_t snaplen,
			const uint8_t *data, uint32_t caplen, uint32_t origlen,
			struct capture_record *rec, struct umad_err *err)
{
	size_t mad_len;
	int got;

	if (caplen > origlen)
		return say(err, -EBADMSG, r, "%u bytes captured of a packet of %u", caplen, origlen);
	if (snaplen && caplen > snaplen)
		return say(err, -EBADMSG, r, "%u bytes captured, more than the snap length (%u)", caplen,
			   snaplen);
	if (linktype != PCAPNG_LINKTYPE_ERF) {
		r->other_packets++;
		return 0;
	}
	if (caplen < origlen)
		return say(err, -EBADMSG, r, "cut to %u of its %u bytes%s: a MAD needs all of its packet "
			   "(capture without a snap length)", caplen, origlen,
			   caplen == snaplen ? " by the snap length" : "");
	memset(rec, 0, sizeof(*rec));
	rec->iface_name = "";
	rec->comment = "";
	got = parse_erf(r, data, caplen, rec, err);
	if (got == 1) {
		if (capture_mad(rec, &mad_len))
			r->mads++;
		else
			r->not_mads++;
		rec->packet_at = (uint64_t)r->body_at + (uint64_t)(rec->packet - r->body);
	}
	return got;
}

static int next_classic(struct capture_reader *r, struct capture_record *rec, struct umad_err *err)
{
	uint8_t h[PCAP_RECORD_HEADER_LEN];
	uint32_t caplen;
	int got;

	for (;;) {
		r->in_packet = 0;
		got = read_exact(r, h, sizeof(h));
		if (got == 0)
			return 0;
		r->packets++;
		r->in_packet = 1;
		if (got < 0)
			return say(err, -EBADMSG, r, "truncated record header");
		caplen = get32(r, h + 8);
		got = caplen > MAX_BLOCK ? -1 : read_body(r, caplen);
		if (got < 0)
			return say(err, -EBADMSG, r, "record of %u bytes is not plausible", caplen);
		if (!got)
			return say(err, -EBADMSG, r, "truncated record (%u bytes announced)", caplen);
		got = parse_packet(r, r->classic_linktype, r->classic_snaplen, r->body, caplen,
				   get32(r, h + 12), rec, err);
		r->offset += PCAP_RECORD_HEADER_LEN + (long)caplen;
		if (got < 0)
			return got;
		if (got) {
			rec->ts_ns = (uint64_t)get32(r, h) * 1000000000u +
				     (uint64_t)get32(r, h + 4) * (r->classic_ns ? 1 : 1000);
			return 1;
		}
	}
}

/*
 * Walk the options of a block body: calls fn for each, stops at
 * opt_endofopt.  0, or -errno with why in err for an option that runs past the
 * block (only the last one's padding may be missing).
 */
static int read_options(struct capture_reader *r, const uint8_t *p, const uint8_t *end,
			void (*fn)(struct capture_reader *, uint16_t, const uint8_t *, uint16_t, void *),
			void *arg, struct umad_err *err)
{
	while (p < end) {
		uint16_t code, len;
		size_t padded;

		if (end - p < 4)
			return say(err, -EBADMSG, r, "%zu bytes after the last option, too few for another",
				   (size_t)(end - p));
		code = get16(r, p);
		len = get16(r, p + 2);
		padded = (len + 3u) & ~3u;
		if (code == PCAPNG_OPT_END)
			return 0;
		if ((size_t)(end - p) - 4 < len)
			return say(err, -EBADMSG, r, "option %u of %u bytes runs past the end of its block",
				   code, len);
		fn(r, code, p + 4, len, arg);
		if ((size_t)(end - p) - 4 < padded)
			return 0;	/* the last option's padding is missing */
		p += 4 + padded;
	}
	return 0;
}

static void idb_option(struct capture_reader *r, uint16_t code, const uint8_t *v, uint16_t len,
		       void *arg)
{
	struct iface *i = arg;

	(void)r;
	if (code == PCAPNG_IF_NAME) {
		size_t n = len < sizeof(i->name) - 1 ? len : sizeof(i->name) - 1;

		memcpy(i->name, v, n);
		i->name[n] = '\0';
	} else if (code == PCAPNG_IF_TSRESOL && len >= 1) {
		uint8_t res = v[0];
		uint64_t per = 1;
		unsigned k;

		for (k = 0; k < (res & ~PCAPNG_TSRESOL_BINARY) && k < 19; k++)
			per *= (res & PCAPNG_TSRESOL_BINARY) ? 2 : 10;
		i->ts_per_second = per;
	}
}

static void epb_option(struct capture_reader *r, uint16_t code, const uint8_t *v, uint16_t len,
		       void *arg)
{
	struct capture_record *rec = arg;

	if (code == PCAPNG_OPT_COMMENT) {
		size_t n = len < sizeof(r->comment) - 1 ? len : sizeof(r->comment) - 1;

		memcpy(r->comment, v, n);
		r->comment[n] = '\0';
		rec->comment = r->comment;
	} else if (code == PCAPNG_EPB_FLAGS && len == 4) {
		rec->direction = (enum pcapng_direction)(get32(r, v) & PCAPNG_DIR_MASK);
	} else if (code == PCAPNG_EPB_PACKETID && len == 8) {
		rec->packet_id = get64(r, v);
	}
}

/* 64-bit FNV-1a: a section comment's writer id. */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static void shb_option(struct capture_reader *r, uint16_t code, const uint8_t *v, uint16_t len,
		       void *arg)
{
	(void)arg;
	/* The first comment names the writer: the same in each of its sections. */
	if (code == PCAPNG_OPT_COMMENT && !(r->writer & CAPTURE_WRITER_NAMED))
		r->writer = fnv1a(v, len) | CAPTURE_WRITER_NAMED;
}

/* The section header whose first 8 bytes are h: 0, or -errno with why in err. */
static int section_header(struct capture_reader *r, const uint8_t *h, struct umad_err *err)
{
	uint32_t magic, total;
	uint16_t major, minor;

	if (read_exact(r, &magic, 4) != 1)
		return say(err, -EBADMSG, r, "truncated section header");
	if (magic == PCAPNG_BYTE_ORDER_MAGIC)
		r->swapped = 0;
	else if (magic == __builtin_bswap32(PCAPNG_BYTE_ORDER_MAGIC))
		r->swapped = 1;
	else
		return say(err, -EBADMSG, r, "bad byte-order magic 0x%08x", magic);
	r->n_ifaces = 0;	/* interfaces are per section */
	total = get32(r, h + 4);
	if (total < PCAPNG_SHB_MIN || total % 4 || total > MAX_BLOCK)
		return say(err, -EBADMSG, r, "section header of %u bytes", total);
	if (read_body(r, total - PCAPNG_BLOCK_MIN) != 1)
		return say(err, -EBADMSG, r, "truncated section header");
	major = get16(r, r->body);
	minor = get16(r, r->body + 2);
	if (major != PCAPNG_VERSION_MAJOR ||
	    (minor != PCAPNG_VERSION_MINOR && minor != PCAPNG_VERSION_MINOR_ALT))
		return say(err, -EBADMSG, r, "pcapng version %u.%u: only 1.0 (and the older 1.2) are known",
			   major, minor);
	if (get32(r, r->body + total - PCAPNG_BLOCK_MIN - 4) != total)
		return say(err, -EBADMSG, r, "section header lengths at its two ends differ");
	/*
	 * A section without a comment is its own writer's.  Options are only
	 * looked at for that comment: a section header whose options do not
	 * read is taken as it was before they were, without one.
	 */
	r->section++;
	r->writer = r->section;
	(void)read_options(r, r->body + PCAPNG_SHB_MIN - PCAPNG_BLOCK_MIN - 4,
			   r->body + total - PCAPNG_BLOCK_MIN - 4, shb_option, NULL, NULL);
	return 0;
}

/* An interface description block of total bytes, at r->body: 0, or -errno with why in err. */
static int interface_block(struct capture_reader *r, uint32_t total, struct umad_err *err)
{
	struct iface *i;

	if (total < PCAPNG_IDB_MIN || r->n_ifaces == MAX_IFACES)
		return say(err, -EBADMSG, r, "bad or too many interface blocks");
	if (r->n_ifaces == r->ifaces_cap) {
		int cap = r->ifaces_cap ? 2 * r->ifaces_cap : 4;

		i = realloc(r->ifaces, (size_t)cap * sizeof(*i));
		if (!i)
			return say(err, -ENOMEM, r, "%s", strerror(ENOMEM));
		r->ifaces = i;
		r->ifaces_cap = cap;
	}
	i = &r->ifaces[r->n_ifaces++];
	memset(i, 0, sizeof(*i));
	i->linktype = get16(r, r->body);
	i->snaplen = get32(r, r->body + 4);
	i->ts_per_second = 1000000;
	r->described++;
	if (i->linktype == PCAPNG_LINKTYPE_ERF)
		r->described_erf++;
	else if (r->other_linktype < 0)
		r->other_linktype = i->linktype;
	return read_options(r, r->body + 8, r->body + total - PCAPNG_BLOCK_MIN, idb_option, i, err);
}

/*
 * A packet block (enhanced, simple or the obsolete kind) of total bytes at
 * r->body: 1 with an InfiniBand packet in rec, 0 to skip, -errno with why in err.
 */
static int packet_block(struct capture_reader *r, uint32_t type, uint32_t total,
			struct capture_record *rec, struct umad_err *err)
{
	const uint8_t *b = r->body, *end = r->body + total - PCAPNG_BLOCK_MIN, *data;
	uint32_t id, caplen = 0, origlen, room;
	uint64_t ts = 0;
	const struct iface *i;
	int got;

	r->packets++;
	r->in_packet = 1;
	if (total < (type == PCAPNG_BT_SPB ? PCAPNG_SPB_MIN : PCAPNG_EPB_MIN))
		return say(err, -EBADMSG, r, "packet block of %u bytes", total);
	if (type == PCAPNG_BT_SPB) {
		id = 0;
		origlen = get32(r, b);
		data = b + 4;
	} else {
		id = type == PCAPNG_BT_EPB ? get32(r, b) : get16(r, b);
		ts = (uint64_t)get32(r, b + 4) << 32 | get32(r, b + 8);
		caplen = get32(r, b + 12);
		origlen = get32(r, b + 16);
		data = b + 20;
	}
	if (id >= (uint32_t)r->n_ifaces)
		return say(err, -EBADMSG, r, "packet on interface %u, which no interface block described "
			   "before it", id);
	i = &r->ifaces[id];
	room = (uint32_t)(end - data);
	if (type == PCAPNG_BT_SPB)	/* what was kept is what the snap length let through */
		caplen = i->snaplen && i->snaplen < origlen ? i->snaplen : origlen;
	/* caplen is the file's word, so compare without sums that wrap. */
	if (caplen > room)
		return say(err, -EBADMSG, r, "packet of %u bytes in a block of %u", caplen, total);
	got = parse_packet(r, i->linktype, i->snaplen, data, caplen, origlen, rec, err);
	if (got <= 0)
		return got;
	rec->iface = (int)id;
	rec->iface_name = i->name;
	rec->section = r->section;
	rec->writer = r->writer;
	rec->ts_ns = i->ts_per_second == 1000000000u ? ts :
		     ts / i->ts_per_second * 1000000000u +
		     ts % i->ts_per_second * 1000000000u / i->ts_per_second;
	if (type != PCAPNG_BT_SPB && ((caplen + 3u) & ~3u) <= room) {
		got = read_options(r, data + ((caplen + 3u) & ~3u), end, epb_option, rec, err);
		if (got < 0)
			return got;
	}
	return 1;
}

int capture_next(struct capture_reader *r, struct capture_record *rec, struct umad_err *err)
{
	uint8_t h[8];
	uint32_t type, total;
	int got;

	if (r->classic)
		return next_classic(r, rec, err);
	for (;;) {
		r->offset = position(r);
		r->in_packet = 0;
		got = read_exact(r, h, 8);
		if (got == 0)
			return 0;
		if (got < 0)
			return say(err, -EBADMSG, r, "truncated block header");
		memcpy(&type, h, 4);
		if (type == PCAPNG_BT_SHB) {
			got = section_header(r, h, err);
			if (got < 0)
				return got;
			continue;
		}
		type = get32(r, h);
		total = get32(r, h + 4);
		if (total < PCAPNG_BLOCK_MIN || total % 4 || total > MAX_BLOCK)
			return say(err, -EBADMSG, r, "block of type 0x%x has an impossible length %u", type, total);
		got = read_body(r, total - 8);
		if (got < 0)
			return say(err, -ENOMEM, r, "out of memory");
		if (!got)
			return say(err, -EBADMSG, r, "truncated block (%u bytes announced)", total);
		if (get32(r, r->body + total - PCAPNG_BLOCK_MIN) != total)
			return say(err, -EBADMSG, r, "block lengths at its two ends differ");
		if (type == PCAPNG_BT_IDB) {
			got = interface_block(r, total, err);
			if (got < 0)
				return got;
			continue;
		}
		if (type == PCAPNG_BT_EPB || type == PCAPNG_BT_SPB || type == PCAPNG_BT_PB) {
			got = packet_block(r, type, total, rec, err);
			if (got)
				return got;
			continue;
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

/* Append to out (size bytes, a string) what fmt says, cut at the end. */
static void append(char *out, size_t size, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(out + n, size - n, fmt, ap);
	va_end(ap);
}

unsigned long capture_not_mads(const struct capture_reader *r)
{
	return r->packets - r->mads;
}

/* What a file without a MAD held, written into out (size bytes): what capture_why_no_mad tells. */
static void no_mad_text(const struct capture_reader *r, char *out, size_t size)
{
	const char *name = capture_linktype_name(r->other_linktype);
	const char *sep = " (";

	snprintf(out, size, "%s: ", r->path);
	if (!r->classic && !r->described) {
		append(out, size, "no interface block, so no packet: nothing was captured (a "
		       "program that opened no umad port leaves only the section header)");
		return;
	}
	if (!r->classic && !r->described_erf) {
		append(out, size, "no InfiniBand (ERF) interface: link type %d%s%s%s",
		       r->other_linktype, name ? " (" : "", name ? name : "", name ? ")" : "");
		return;
	}
	if (!r->packets) {
		append(out, size, "no packet was captured");
		return;
	}
	append(out, size, "none of its %lu packets is a MAD", r->packets);
	if (r->not_mads) {
		append(out, size, "%s%lu InfiniBand packets not UD to or from QP0 or QP1", sep,
		       r->not_mads);
		sep = ", ";
	}
	if (r->ib_link) {
		append(out, size, "%s%lu InfiniBand link records", sep, r->ib_link);
		sep = ", ";
	}
	if (r->other_packets)
		append(out, size, "%s%lu on interfaces of other link types", sep, r->other_packets);
	if (r->not_mads || r->ib_link || r->other_packets)
		append(out, size, ")");
}

int capture_why_no_mad(const struct capture_reader *r, struct umad_err *why)
{
	char text[512];

	if (r->mads)
		return 0;
	no_mad_text(r, text, sizeof(text));
	umad_err_set(why, 1, "%s", text);
	return 1;
}

/*
 * A MAD travels in a UD SEND to or from QP0 or QP1 (what Wireshark takes
 * for one): LRH, a GRH if the LRH says so and it says a BTH follows, the
 * BTH, the DETH, then the MAD and the two CRCs.
 */
const uint8_t *capture_mad(const struct capture_record *rec, size_t *mad_len)
{
	const uint8_t *p = rec->packet;
	size_t head = IB_LRH_LEN, crcs = IB_ICRC_LEN + IB_VCRC_LEN;
	uint8_t lnh;

	if (rec->len < IB_LRH_LEN)
		return NULL;
	lnh = p[LRH_OFF_SL_LNH] & LRH_LNH_MASK;
	if (lnh == LRH_LNH_GLOBAL) {
		if (rec->len < IB_LRH_LEN + IB_GRH_LEN ||
		    p[IB_LRH_LEN + GRH_OFF_NEXT_HDR] != GRH_NEXT_HDR_BTH)
			return NULL;
		head += IB_GRH_LEN;
	} else if (lnh != LRH_LNH_LOCAL) {
		return NULL;
	}
	if (rec->len < head + IB_BTH_LEN + IB_DETH_LEN + MAD_HDR_SIZE + crcs ||
	    p[head + BTH_OFF_OPCODE] != BTH_OPCODE_UD_SEND_ONLY ||
	    (get_be24(p + head + BTH_OFF_DEST_QP) > QP1_GSI &&
	     get_be24(p + head + IB_BTH_LEN + DETH_OFF_SRC_QP) > QP1_GSI))
		return NULL;
	head += IB_BTH_LEN + IB_DETH_LEN;
	*mad_len = rec->len - head - crcs;
	return p + head;
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
