/* pcapng blocks (little-endian) around ERF type 21 InfiniBand records. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ib_packet.h"
#include "pcapng_writer.h"

#define BT_SHB	0x0a0d0d0a
#define BT_IDB	0x00000001
#define BT_EPB	0x00000006
#define BYTE_ORDER_MAGIC 0x1a2b3c4d

#define OPT_END		0
#define OPT_COMMENT	1
#define SHB_USERAPPL	4
#define IF_NAME		2
#define IF_DESCRIPTION	3
#define IF_TSRESOL	9
#define EPB_FLAGS	2
#define EPB_PACKETID	5

#define ERF_TYPE_INFINIBAND 21
#define ERF_FLAG_VARLEN	0x04
#define ERF_HDR_LEN	16

/* Longest comment kept; longer ones are cut (they are one line of key=value). */
#define MAX_COMMENT	1024
#define BLOCK_MAX	(64 + ERF_HDR_LEN + IB_MAD_PACKET_MAX + 8192 + MAX_COMMENT + 64)

#define FILE_PAGE	4096

struct pcapng_writer {
	int fd;
	int n_interfaces;
	int batching;
	uint64_t offset;		/* bytes written to the file */
	size_t batch_len;		/* gathered after offset, all within offset's page */
	uint8_t batch[FILE_PAGE];
	uint8_t block[BLOCK_MAX];	/* one block is assembled here, then written at once */
};

struct block {
	uint8_t *p;
	size_t len, max;
};

static void add_bytes(struct block *b, const void *data, size_t n)
{
	if (b->len + n <= b->max)
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

static int write_all(struct pcapng_writer *w, const uint8_t *p, size_t len)
{
	ssize_t n;

	do {
		n = write(w->fd, p, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	w->offset += len;
	return 0;
}

int pcapng_flush(struct pcapng_writer *w)
{
	int r = 0;

	if (w->batch_len)
		r = write_all(w, w->batch, w->batch_len);
	w->batch_len = 0;
	return r;
}

/* One whole block to the file: at once, or gathered (see the header). */
static int emit(struct pcapng_writer *w, const uint8_t *p, size_t len)
{
	uint64_t at;
	int r;

	if (!w->batching)
		return write_all(w, p, len);
	at = w->offset + w->batch_len;
	if (w->batch_len && at + len > (w->offset / FILE_PAGE + 1) * FILE_PAGE) {
		r = pcapng_flush(w);
		if (r < 0)
			return r;
		at = w->offset;
	}
	if (at / FILE_PAGE != (at + len - 1) / FILE_PAGE)
		return write_all(w, p, len);	/* across a page boundary: alone */
	memcpy(w->batch + w->batch_len, p, len);
	w->batch_len += len;
	return 0;
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
		add_option(b, OPT_END, NULL, 0);
	add_u32(b, 0);
	if (b->len > b->max)
		return -EMSGSIZE;
	total = (uint32_t)b->len;
	memcpy(b->p + 4, &total, 4);
	memcpy(b->p + b->len - 4, &total, 4);
	return emit(w, b->p, b->len);
}

struct pcapng_writer *pcapng_create(const char *path, const char *application)
{
	struct pcapng_writer *w = calloc(1, sizeof(*w));
	struct block b;
	int r;

	if (!w)
		return NULL;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		free(w);
		return NULL;
	}
	begin(&b, w, BT_SHB);
	add_u32(&b, BYTE_ORDER_MAGIC);
	add_u16(&b, 1);			/* version 1.0 */
	add_u16(&b, 0);
	add_u32(&b, 0xffffffff);	/* section length: not known in advance */
	add_u32(&b, 0xffffffff);
	if (application)
		add_option(&b, SHB_USERAPPL, application, strlen(application));
	r = finish(&b, w, application != NULL);
	if (r < 0) {
		close(w->fd);
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

	begin(&b, w, BT_IDB);
	add_u16(&b, PCAPNG_LINKTYPE_ERF);
	add_u16(&b, 0);
	add_u32(&b, 0);			/* no snapshot limit */
	if (name)
		add_option(&b, IF_NAME, name, strlen(name));
	if (description)
		add_option(&b, IF_DESCRIPTION, description, strlen(description));
	add_option(&b, IF_TSRESOL, &nanoseconds, 1);
	r = finish(&b, w, 1);
	return r < 0 ? r : w->n_interfaces++;
}

int pcapng_write_ib(struct pcapng_writer *w, int id, uint64_t ts_ns, enum pcapng_direction dir,
		    const uint8_t *pkt, size_t len, const char *comment, uint64_t packet_id)
{
	uint8_t erf[ERF_HDR_LEN];
	uint64_t erf_ts;
	uint32_t flags = dir;
	struct block b;

	if (id < 0 || id >= w->n_interfaces || len > 0xffff - ERF_HDR_LEN)
		return -EINVAL;
	begin(&b, w, BT_EPB);
	add_u32(&b, (uint32_t)id);
	add_u32(&b, (uint32_t)(ts_ns >> 32));
	add_u32(&b, (uint32_t)ts_ns);
	add_u32(&b, (uint32_t)(ERF_HDR_LEN + len));
	add_u32(&b, (uint32_t)(ERF_HDR_LEN + len));

	/* ERF: little-endian 32.32 timestamp, then big-endian lengths. */
	erf_ts = htole64((ts_ns / 1000000000u) << 32 | ((ts_ns % 1000000000u) << 32) / 1000000000u);
	memcpy(erf, &erf_ts, 8);
	erf[8] = ERF_TYPE_INFINIBAND;
	erf[9] = ERF_FLAG_VARLEN;
	erf[10] = (uint8_t)((ERF_HDR_LEN + len) >> 8);
	erf[11] = (uint8_t)(ERF_HDR_LEN + len);
	erf[12] = erf[13] = 0;
	erf[14] = (uint8_t)(len >> 8);
	erf[15] = (uint8_t)len;
	add_bytes(&b, erf, sizeof(erf));
	add_bytes(&b, pkt, len);
	add_pad(&b);

	if (dir != PCAPNG_DIR_UNKNOWN)
		add_option(&b, EPB_FLAGS, &flags, 4);
	if (comment)
		add_option(&b, OPT_COMMENT, comment, strnlen(comment, MAX_COMMENT));
	if (packet_id)
		add_option(&b, EPB_PACKETID, &packet_id, 8);
	return finish(&b, w, dir != PCAPNG_DIR_UNKNOWN || comment || packet_id);
}

int pcapng_close(struct pcapng_writer *w)
{
	int r = 0;

	if (!w)
		return -EINVAL;
	r = pcapng_flush(w);
	if (close(w->fd) < 0 && !r)
		r = -errno;
	free(w);
	return r;
}
