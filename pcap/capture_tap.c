/* The in-library capture tap (UMAD_CAPTURE): one pcapng file per process. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_tap.h"
#include "ib_packet.h"
#include "pcapng_writer.h"

#define TAP_MAX_PORTS	64	/* open ports followed at once */
#define TAP_MAX_AGENTS	UMAD_CA_MAX_AGENTS
#define TAP_MAX_IFACES	64
#define ETIMEDOUT_STATUS 110	/* the kernel's status for a send that got no answer */

/* Requests waiting for an answer: their packet id goes on the answer (or the timeout) too. */
#define TAP_PENDING 256

struct tap_pending {
	uint32_t tid;			/* low half: the kernel rewrites the upper one */
	uint64_t packet_id;		/* 0: free */
};

struct tap_port {
	int portid;			/* -1: free slot */
	int iface;
	uint16_t lid;
	union umad_gid gid;
	uint16_t pkeys[64];
	unsigned n_pkeys;
	uint8_t agent_qp[TAP_MAX_AGENTS];
	uint32_t psn;
	struct tap_pending pending[TAP_PENDING];
};

struct tap_iface {
	char name[UMAD_CA_NAME_LEN + 8];
};

atomic_int umad_tap_enabled;

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t tap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pcapng_writer *writer;
static int redact;
static uint64_t next_packet_id = 1;
static struct tap_port ports[TAP_MAX_PORTS];
static struct tap_iface ifaces[TAP_MAX_IFACES];
static int n_ifaces;
/* One packet and one comment at a time, under tap_lock: no allocation per MAD. */
#define MAD_SIZE 256
static uint8_t packet[IB_MAD_PACKET_MAX];
static uint8_t mad_copy[MAD_SIZE];
static char comment[256];
static char seg_comment[300];

/* The variable naming the file: UMAD_CAPTURE, or the preload shim's own. */
static const char *capture_variable = "UMAD_CAPTURE";

void umad_tap_use_variable(const char *name)
{
	capture_variable = name;
}

static void start(void)
{
	const char *path = getenv(capture_variable);
	const char *r = getenv("UMAD_CAPTURE_REDACT");
	int i;

	for (i = 0; i < TAP_MAX_PORTS; i++)
		ports[i].portid = -1;
	if (!path || !*path)
		return;
	writer = pcapng_create(path, "libumad capture tap");
	if (!writer) {
		fprintf(stderr, "libumad: %s=%s: cannot create: %s; not capturing\n",
			capture_variable, path, strerror(errno));
		return;
	}
	redact = r && *r && strcmp(r, "0");
	atomic_store(&umad_tap_enabled, 1);
}

int umad_tap_start(void)
{
	pthread_once(&start_once, start);
	return atomic_load(&umad_tap_enabled);
}

static struct tap_port *find_port(int portid)
{
	int i;

	for (i = 0; i < TAP_MAX_PORTS; i++)
		if (ports[i].portid == portid)
			return &ports[i];
	return NULL;
}

/* The pcapng interface for "ca:port", added on first use. */
static int iface_for(const char *ca_name, int portnum)
{
	char name[sizeof(ifaces[0].name)];
	int i, id;

	snprintf(name, sizeof(name), "%s:%d", ca_name, portnum);
	for (i = 0; i < n_ifaces; i++)
		if (!strcmp(ifaces[i].name, name))
			return i;
	if (n_ifaces == TAP_MAX_IFACES)
		return -ENOSPC;
	id = pcapng_add_interface(writer, name, "umad port");
	if (id >= 0)
		snprintf(ifaces[n_ifaces++].name, sizeof(name), "%s", name);
	return id;
}

void umad_tap_port_opened(int portid, const char *ca_name, int portnum, const umad_port_t *info)
{
	struct tap_port *p;
	unsigned i;

	if (!umad_tap_on())
		return;
	pthread_mutex_lock(&tap_lock);
	p = find_port(portid);
	if (!p)
		p = find_port(-1);
	if (p) {
		memset(p, 0, sizeof(*p));
		p->portid = portid;
		p->iface = iface_for(ca_name, portnum);
		p->lid = 0xffff;
		for (i = 0; i < TAP_MAX_AGENTS; i++)
			p->agent_qp[i] = 1;
		if (info) {
			p->lid = info->base_lid ? (uint16_t)info->base_lid : 0xffff;
			p->gid.global.subnet_prefix = info->gid_prefix;
			p->gid.global.interface_id = info->port_guid;
			p->n_pkeys = info->pkeys_size < 64 ? info->pkeys_size : 64;
			for (i = 0; i < p->n_pkeys && info->pkeys; i++)
				p->pkeys[i] = info->pkeys[i];
		}
		if (p->iface < 0)
			p->portid = -1;
	}
	pthread_mutex_unlock(&tap_lock);
}

void umad_tap_port_closed(int portid)
{
	struct tap_port *p;

	if (!atomic_load(&umad_tap_enabled))
		return;
	pthread_mutex_lock(&tap_lock);
	p = find_port(portid);
	if (p)
		p->portid = -1;
	pthread_mutex_unlock(&tap_lock);
}

void umad_tap_agent(int portid, uint32_t agent_id, unsigned qpn)
{
	struct tap_port *p;

	if (!atomic_load(&umad_tap_enabled))
		return;
	pthread_mutex_lock(&tap_lock);
	p = find_port(portid);
	if (p && agent_id < TAP_MAX_AGENTS)
		p->agent_qp[agent_id] = (uint8_t)qpn;
	pthread_mutex_unlock(&tap_lock);
}

void umad_tap_redact(uint8_t *mad, size_t len)
{
	uint16_t attr;

	if (len < 24)
		return;
	attr = (uint16_t)(mad[16] << 8 | mad[17]);
	switch (mad[1]) {
	case 0x01:
	case 0x81:
		if (len >= 32)
			memset(mad + 24, 0, 8);		/* SMP M_Key */
		if (attr == 0x15 && len >= 72)
			memset(mad + 64, 0, 8);		/* PortInfo:M_Key */
		if (attr == 0x20 && len >= 80)
			memset(mad + 72, 0, 8);		/* SMInfo:SM_Key */
		break;
	case 0x03:
		if (len >= 44)
			memset(mad + 36, 0, 8);		/* SA header SM_Key */
		break;
	}
}

/*
 * The packet id of a MAD: a new one for a request going out (remembered by
 * TID), the request's for its answer or timeout coming back, else a new one.
 */
static uint64_t packet_id_for(struct tap_port *p, int outbound, int timeout, const uint8_t *mad,
			      size_t len)
{
	struct tap_pending *slot;
	uint32_t tid;
	int response;

	if (len < 16)
		return next_packet_id++;
	tid = (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 | (uint32_t)mad[14] << 8 | mad[15];
	response = mad[3] & 0x80;
	/* Slots by TID: tools number their transactions, so neighbours rarely collide. */
	slot = &p->pending[(tid ^ (tid >> 8)) % TAP_PENDING];
	if (outbound && !response) {
		slot->tid = tid;
		slot->packet_id = next_packet_id++;
		return slot->packet_id;
	}
	if (!outbound && (response || timeout) && slot->packet_id && slot->tid == tid) {
		uint64_t id = slot->packet_id;

		slot->packet_id = 0;
		return id;
	}
	return next_packet_id++;
}

/* Append "key=value" (decimal, or 0x-hex) to comment at *len: no printf per MAD. */
static void put_field(size_t *len, const char *key, uint64_t value, int hex)
{
	char digits[24];
	int n = 0;

	if (*len + 32 + strlen(key) >= sizeof(comment))
		return;
	if (*len)
		comment[(*len)++] = ' ';
	while (*key)
		comment[(*len)++] = *key++;
	comment[(*len)++] = '=';
	if (hex) {
		comment[(*len)++] = '0';
		comment[(*len)++] = 'x';
	}
	do {
		digits[n++] = "0123456789abcdef"[value % (hex ? 16 : 10)];
		value /= hex ? 16 : 10;
	} while (value);
	while (n)
		comment[(*len)++] = digits[--n];
	comment[*len] = '\0';
}

/* The umad metadata as one line of key=value, which Wireshark shows as the packet comment. */
static void format_comment(const struct ib_user_mad *h, size_t mad_len, int timeout)
{
	size_t len = 0;

	put_field(&len, "agent", h->agent_id, 0);
	put_field(&len, "status", h->status, 0);
	put_field(&len, "timeout_ms", h->timeout_ms, 0);
	put_field(&len, "retries", h->retries, 0);
	put_field(&len, "qpn", be32toh(h->addr.qpn), 0);
	put_field(&len, "qkey", be32toh(h->addr.qkey), 1);
	put_field(&len, "lid", be16toh(h->addr.lid), 0);
	put_field(&len, "sl", h->addr.sl, 0);
	put_field(&len, "path_bits", h->addr.path_bits, 0);
	put_field(&len, "pkey_index", h->addr.pkey_index, 0);
	put_field(&len, "grh", h->addr.grh_present, 0);
	put_field(&len, "length", mad_len, 0);
	if (timeout)
		put_field(&len, "timeout", 1, 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One 256-byte MAD from mad_copy onto the wire and into the file. Lock held. */
static void write_segment(struct tap_port *p, const struct ib_user_mad *hdr,
			  struct ib_packet_ends *ends, uint64_t id)
{
	int n;

	if (redact)
		umad_tap_redact(mad_copy, MAD_SIZE);
	ends->psn = p->psn++;
	n = ib_packet_build(packet, sizeof(packet), hdr, mad_copy, MAD_SIZE, ends);
	if (n > 0)
		pcapng_write_ib(writer, p->iface, now_ns(),
				ends->outbound ? PCAPNG_DIR_OUTBOUND : PCAPNG_DIR_INBOUND, packet,
				(size_t)n, seg_comment[0] ? seg_comment : comment, id);
}

/*
 * A message longer than one MAD (reassembled by the kernel's RMPP) goes into
 * the file as the segments the wire carried: each repeats the headers and
 * carries the next part of the data, with RMPP type DATA, segment numbers
 * from 1, First/Last flags and the payload lengths the kernel puts there.
 */
static void write_rmpp_segments(struct tap_port *p, const struct ib_user_mad *hdr,
				struct ib_packet_ends *ends, uint64_t id, const uint8_t *mad,
				size_t mad_len)
{
	size_t head = ib_rmpp_header_len(mad[1]), seg_size = MAD_SIZE - head;
	size_t data_len = mad_len - head, count = (data_len + seg_size - 1) / seg_size;
	size_t pad = count * seg_size - data_len, i, part;
	uint32_t paylen;

	for (i = 0; i < count; i++) {
		part = i + 1 < count ? seg_size : data_len - i * seg_size;
		memset(mad_copy, 0, MAD_SIZE);
		memcpy(mad_copy, mad, head);
		memcpy(mad_copy + head, mad + head + i * seg_size, part);
		if (!mad_copy[24])
			mad_copy[24] = 1;			/* RMPP version */
		mad_copy[25] = 1;				/* DATA */
		mad_copy[26] = (uint8_t)((mad_copy[26] & 0xf8) | 0x01 |	/* Active */
					 (i == 0 ? 0x02 : 0) | (i + 1 == count ? 0x04 : 0));
		mad_copy[27] = 0;
		mad_copy[28] = (uint8_t)((i + 1) >> 24);
		mad_copy[29] = (uint8_t)((i + 1) >> 16);
		mad_copy[30] = (uint8_t)((i + 1) >> 8);
		mad_copy[31] = (uint8_t)(i + 1);
		paylen = i + 1 == count ? (uint32_t)(MAD_SIZE - 36 - pad) :
			 i == 0 ? (uint32_t)(count * (MAD_SIZE - 36) - pad) : 0;
		mad_copy[32] = (uint8_t)(paylen >> 24);
		mad_copy[33] = (uint8_t)(paylen >> 16);
		mad_copy[34] = (uint8_t)(paylen >> 8);
		mad_copy[35] = (uint8_t)paylen;
		snprintf(seg_comment, sizeof(seg_comment), "%s segment=%zu/%zu", comment, i + 1,
			 count);
		write_segment(p, hdr, ends, id);
	}
	seg_comment[0] = '\0';
}

void umad_tap_mad(int portid, int outbound, const struct ib_user_mad *umad, size_t hdr_size,
		  size_t mad_len)
{
	const uint8_t *mad = (const uint8_t *)umad + hdr_size;
	struct ib_packet_ends ends;
	struct ib_user_mad hdr;
	struct tap_port *p;
	uint64_t id;
	int timeout;

	if (!atomic_load(&umad_tap_enabled))
		return;
	/* The header as the port speaks it: an ABI 5 header has no pkey_index. */
	memset(&hdr, 0, sizeof(hdr));
	memcpy(&hdr, umad, hdr_size < sizeof(hdr) ? hdr_size : sizeof(hdr));
	if (hdr_size < sizeof(hdr))
		hdr.addr.pkey_index = 0;
	timeout = !outbound && hdr.status == ETIMEDOUT_STATUS;

	pthread_mutex_lock(&tap_lock);
	p = find_port(portid);
	if (!p)
		goto out;
	ends = (struct ib_packet_ends){
		.outbound = outbound,
		.local_lid = p->lid,
		.local_qp = hdr.agent_id < TAP_MAX_AGENTS ? p->agent_qp[hdr.agent_id] : 1,
		.pkey = hdr.addr.pkey_index < p->n_pkeys ? p->pkeys[hdr.addr.pkey_index] : 0xffff,
		.local_gid = p->gid,
	};
	format_comment(&hdr, mad_len, timeout);
	id = packet_id_for(p, outbound, timeout, mad, mad_len);
	if (mad_len <= MAD_SIZE) {
		/*
		 * On the wire a MAD is never shorter than 256 bytes (the kernel
		 * pads it), and a timed-out send comes back with only its header.
		 */
		memset(mad_copy, 0, MAD_SIZE);
		memcpy(mad_copy, mad, mad_len);
		write_segment(p, &hdr, &ends, id);
	} else {
		write_rmpp_segments(p, &hdr, &ends, id, mad, mad_len);
	}
out:
	pthread_mutex_unlock(&tap_lock);
}
