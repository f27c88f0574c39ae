/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The replay backend (UMAD_BACKEND=replay, UMAD_REPLAY=FILE): the host's
 * CAs and ports are rebuilt from a capture, and each request is answered
 * with the answer recorded for the same request (class, method, attribute,
 * modifier, DR path or destination LID, payload where it matters; repeats in
 * recorded order; never the TID), carrying the request's TID as it went out
 * (its upper half the agent's hi_tid, replay_register).  A request with no
 * recorded answer times out as on the wire.
 *
 * The capture is indexed (backends/replay_index.h): requests as keys,
 * answers as where their MADs lie in the file, read back when asked for
 * through a window that grows while the reading goes along the file (as it
 * does when a tool asks again what it asked when recorded).  So the file is
 * read once to load, and only the index stays in memory: much less than
 * the file, which also holds the requests, the packet headers and the
 * pcapng framing.  A stream (a pipe), which cannot be read twice, has the
 * answers' MADs copied into the index instead.
 *
 * A port is a mad_queue: a descriptor that poll(2) reports readable when
 * umad_recv() has something, without a thread.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/backend.h"
#include "base/errbuf.h"
#include "backends/replay_index.h"
#include "backends/soft_port.h"
#include "base/mad_layout.h"
#include "pcap/capture_meta.h"
#include "pcap/ib_packet.h"
#include "pcap/pcapng_reader.h"

/* The longest key make_key() builds: the header's fields, a LID, a MAD's payload. */
#define KEY_MAX		(2 * MAD_SIZE)

struct local_port {
	char ca[UMAD_CA_NAME_LEN];
	int portnum;
	uint16_t lid;
	uint8_t node_type;
	__be64 node_guid, sys_guid, port_guid;
};

static struct replay_index *recorded;
/* The capture file, to read answers back from (-1 for a stream: answers are kept). */
static int capture_fd = -1;
static char capture_path[256];
/* The part of the file read last, window_len bytes from window_at; the next read's size. */
static uint8_t *window;
static uint64_t window_at;
static size_t window_len, window_next;
static int capture_changed;
static struct umad_err changed_why;	/* why, set with capture_changed */
#define WINDOW_MIN	4096u
#define WINDOW_MAX	(256u << 10)
/* About what a request and its answer take of a capture, to size the index. */
#define REQUEST_BYTES	1024
static struct local_port *locals;
static size_t n_locals;
/* The index, and which recorded answer comes next, are shared by all ports. */
static pthread_mutex_t answers_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long unmatched;
static char unmatched_text[4096];

/* --- request keys ------------------------------------------------------- */

/* What identifies a request; the TID never does. */
static size_t make_key(const uint8_t *mad, size_t len, uint16_t dlid, uint8_t *key)
{
	size_t k = 0, n;

	if (len < MAD_HDR_SIZE)
		return 0;
	/* Base version, class, class version, method. */
	memcpy(key + k, mad, MAD_OFF_STATUS);
	k += MAD_OFF_STATUS;
	/* Attribute id, reserved, modifier. */
	memcpy(key + k, mad + MAD_OFF_ATTR_ID, MAD_HDR_SIZE - MAD_OFF_ATTR_ID);
	k += MAD_HDR_SIZE - MAD_OFF_ATTR_ID;
	if (mad_class(mad) == UMAD_CLASS_SUBN_DIRECTED_ROUTE && len >= MAD_SIZE) {
		uint8_t hops = mad[SMP_OFF_HOP_CNT] < UMAD_SMP_MAX_HOPS ? mad[SMP_OFF_HOP_CNT] :
			       UMAD_SMP_MAX_HOPS - 1;

		key[k++] = hops;
		/* DrSLID, DrDLID. */
		memcpy(key + k, mad + SMP_OFF_DR_SLID, SMP_OFF_DR_DLID + sizeof(__be16) - SMP_OFF_DR_SLID);
		k += SMP_OFF_DR_DLID + sizeof(__be16) - SMP_OFF_DR_SLID;
		/* The initial path's hops (its first byte is not used). */
		memcpy(key + k, mad + SMP_OFF_INITIAL_PATH + 1, hops);
		k += hops;
	} else {
		put_be16(key + k, dlid);
		k += sizeof(dlid);
	}
	if (mad_class_is_smp(mad_class(mad))) {
		/* SMPs: the payload matters for Set (M_Key left out: captures may be redacted). */
		if (mad_method(mad) == UMAD_METHOD_SET && len >= SMP_OFF_DATA + SMP_DATA_SIZE) {
			memcpy(key + k, mad + SMP_OFF_DATA, SMP_DATA_SIZE);
			k += SMP_DATA_SIZE;
		}
	} else {
		n = (len > MAD_SIZE ? MAD_SIZE : len) - MAD_HDR_SIZE;
		memcpy(key + k, mad + MAD_HDR_SIZE, n);
		k += n;
	}
	return k;
}

/* --- loading the capture -------------------------------------------------- */

/* A request seen going out, whose answer (or timeout) is still to come. */
/* A request is answered by its own writer's records: a process's, in a file of many. */
struct open_request {
	uint64_t writer;
	int iface;
	uint32_t tid;
	uint32_t request;	/* in the index */
};

#define MAX_OPEN 65536
static struct open_request *open_reqs;
static size_t n_open, cap_open;

/* Room for one more request waiting for its answer (grown as needed: most captures need few). */
static int make_room_for_open(void)
{
	struct open_request *grown;
	size_t cap;

	if (n_open < cap_open)
		return 1;
	cap = cap_open ? 2 * cap_open : 64;
	grown = realloc(open_reqs, cap * sizeof(*grown));
	if (!grown)
		return 0;
	open_reqs = grown;
	cap_open = cap;
	return 1;
}

/*
 * The host port of a capture interface named "CA:PORT"; an interface without
 * such a name (classic pcap, ibdump) is port 1 of CA "replayN", N its index.
 */
static struct local_port *local_for(const char *iface_name, int iface)
{
	char ca[UMAD_CA_NAME_LEN], unnamed[UMAD_CA_NAME_LEN + 8];
	const char *colon = strrchr(iface_name, ':');
	size_t i, n;
	int port;

	if (!colon) {
		snprintf(unnamed, sizeof(unnamed), "replay%d:1", iface);
		iface_name = unnamed;
		colon = strrchr(iface_name, ':');
	}
	n = (size_t)(colon - iface_name);
	if (n == 0 || n >= sizeof(ca))
		return NULL;
	memcpy(ca, iface_name, n);
	ca[n] = '\0';
	port = atoi(colon + 1);
	for (i = 0; i < n_locals; i++)
		if (!strcmp(locals[i].ca, ca) && locals[i].portnum == port)
			return &locals[i];
	{
		struct local_port *grown = realloc(locals, (n_locals + 1) * sizeof(*grown));

		if (!grown)
			return NULL;
		locals = grown;
	}
	memset(&locals[n_locals], 0, sizeof(locals[0]));
	snprintf(locals[n_locals].ca, sizeof(locals[0].ca), "%s", ca);
	locals[n_locals].portnum = port;
	locals[n_locals].node_type = port == 0 ? NODE_TYPE_SWITCH : NODE_TYPE_CA;
	return &locals[n_locals++];
}

/* A recorded answer that arrived in RMPP segments, being put back together. */
static struct {
	int active, iface;
	uint64_t writer;
	uint32_t tid;
	uint32_t answer;	/* in the index */
	size_t head;
} reassembly;

/* Append segment 'seg' of 'count' (after the first) to the answer being reassembled. */
static void append_segment(const uint8_t *mad, size_t len, unsigned seg, unsigned count)
{
	struct replay_answer *a = replay_index_answer(recorded, reassembly.answer);
	size_t head = reassembly.head, part = MAD_SIZE - head;
	uint8_t *grown;

	if (len < MAD_SIZE)
		return;
	if (seg == count) {
		uint32_t paylen = get_be32(mad + RMPP_OFF_PAYLEN);

		if (paylen >= head - RMPP_HDR_END && paylen - (head - RMPP_HDR_END) <= part)
			part = paylen - (head - RMPP_HDR_END);
		reassembly.active = 0;
	}
	grown = realloc(a->owned, a->len + part);
	if (!grown)
		return;
	memcpy(grown + a->len, mad + head, part);
	a->owned = grown;
	a->len += (uint32_t)part;
}

/* Everything load() kept. */
static void forget_capture(void)
{
	replay_index_free(recorded);
	recorded = NULL;
	if (capture_fd >= 0)
		close(capture_fd);
	capture_fd = -1;
	free(window);
	window = NULL;
	window_at = 0;
	window_len = window_next = 0;
	capture_changed = 0;
	free(locals);
	locals = NULL;
	n_locals = 0;
	n_open = 0;
	memset(&reassembly, 0, sizeof(reassembly));
}

/* A capture being loaded: where the reading is, and what it has to tell once read. */
struct loading {
	const char *path;
	struct capture_reader *r;
	/* The host port of the interface last seen: most captures have one. */
	int last_iface;
	char last_name[UMAD_CA_NAME_LEN + 16];
	size_t last_local;
	unsigned long records;		/* read, MADs or not */
	int loaded;			/* MADs of a host port */
	int no_memory;
	int no_mad;			/* the file held no MAD at all: why says why */
	struct umad_err why;		/* why the reading stopped, or why no MAD */
	unsigned long bad;		/* comments that do not read */
	struct umad_err first_bad;	/* the first of them: "record N: why" */
};

/*
 * The metadata of a record; a comment that does not parse counts as none
 * (the first such is reported once the file is read).
 */
static void read_meta(struct loading *ld, const struct capture_record *rec,
		      struct capture_meta *meta)
{
	if (capture_meta_parse(rec->comment, meta, ld->bad ? NULL : &ld->first_bad) == 0)
		return;
	memset(meta, 0, sizeof(*meta));
	if (!ld->bad++)
		umad_err_prefix(&ld->first_bad, -EINVAL, "record %lu: ", ld->records);
}

/* Does the record say its request timed out? */
static int timed_out(const struct capture_meta *meta)
{
	return capture_meta_has(meta, CAPTURE_META_TIMEOUT) && meta->timeout;
}

/*
 * Open the capture at path and make the index: 0, or -errno with why in
 * err.  A file's answers are read back from it; a stream's (or one that
 * cannot be had again) kept.
 */
static int load_open(struct loading *ld, struct umad_err *err)
{
	struct stat st;

	ld->r = capture_open(ld->path, err);
	if (!ld->r)
		return -EINVAL;
	recorded = replay_index_new();
	if (!recorded) {
		capture_close(ld->r);
		ld->r = NULL;
		return umad_err_set(err, -ENOMEM, "%s: out of memory", ld->path);
	}
	capture_fd = capture_reopen(ld->r);
	snprintf(capture_path, sizeof(capture_path), "%s", ld->path);
	/*
	 * A request and its answer take about a kilobyte of a capture (two
	 * packets of a MAD each, their comments, the framing): room for that
	 * many saves growing the index while it loads.  Only a hint.
	 */
	if (capture_fd >= 0 && fstat(capture_fd, &st) == 0 && st.st_size > 0)
		(void)replay_index_expect(recorded, (size_t)(st.st_size / REQUEST_BYTES));
	return 0;
}

/* The host port of the record's interface, or NULL (a name that is no "CA:PORT", no memory). */
static struct local_port *record_port(struct loading *ld, const struct capture_record *rec)
{
	struct local_port *lp;

	/* The name is compared too: a new section numbers its interfaces anew. */
	if (rec->iface == ld->last_iface && !strcmp(rec->iface_name, ld->last_name))
		return &locals[ld->last_local];
	lp = local_for(rec->iface_name, rec->iface);
	if (!lp)
		return NULL;
	/* A name too long to keep is looked up every time. */
	ld->last_iface = strlen(rec->iface_name) < sizeof(ld->last_name) ? rec->iface : -1;
	if (ld->last_iface >= 0)
		strcpy(ld->last_name, rec->iface_name);
	ld->last_local = (size_t)(lp - locals);
	return lp;
}

/* A request the host sent (mad, len bytes, to dlid): indexed, its answer awaited. */
static void note_request(struct loading *ld, const struct capture_record *rec,
			 const uint8_t *mad, size_t len, uint16_t dlid, uint32_t tid)
{
	struct open_request *o;
	uint8_t key[KEY_MAX];
	size_t key_len;
	int64_t id;

	if (mad_method_is_response(mad_method(mad)) || n_open >= MAX_OPEN || !make_room_for_open())
		return;
	o = &open_reqs[n_open];
	key_len = make_key(mad, len, dlid, key);
	id = key_len ? replay_index_request(recorded, key, key_len, 1) : -1;
	if (id == -ENOMEM)
		ld->no_memory = 1;
	if (id < 0)
		return;
	o->writer = rec->writer;
	o->iface = rec->iface;
	o->tid = tid;
	o->request = (uint32_t)id;
	n_open++;
}

/* The local node answers NodeInfo at hop 0: what the host's CA looks like. */
static void note_local_node(struct local_port *lp, const uint8_t *mad, size_t len)
{
	const uint8_t *ni = mad + SMP_OFF_DATA;

	if (mad_class(mad) != UMAD_CLASS_SUBN_DIRECTED_ROUTE ||
	    mad_method(mad) != UMAD_METHOD_GET_RESP || mad[SMP_OFF_HOP_CNT] != 0 ||
	    mad_attr_id(mad) != UMAD_SM_ATTR_NODE_INFO || len < SMP_OFF_DATA + SMP_DATA_SIZE ||
	    lp->node_guid)
		return;
	lp->node_type = (uint8_t)mad_get(ni, NI_NODE_TYPE);
	/* Kept big-endian, as the umad structs want them. */
	lp->sys_guid = htobe64(mad_get(ni, NI_SYS_IMAGE_GUID));
	lp->node_guid = htobe64(mad_get(ni, NI_NODE_GUID));
	lp->port_guid = htobe64(mad_get(ni, NI_PORT_GUID));
}

/*
 * The answer a record (its MAD at off in the packet, len bytes) gives, in
 * a: a timeout, or where the MAD is (left in the file, or kept packed; the
 * first of many segments grows on its own, so it is copied).  0, or
 * -ENOMEM.
 */
static int make_answer(const struct capture_record *rec, const struct capture_meta *meta,
		       size_t off, size_t len, int first_of_many, struct replay_answer *a)
{
	const uint8_t *mad = rec->packet + off;

	a->slid = get_be16(rec->packet + LRH_OFF_SLID);
	a->sl = rec->packet[LRH_OFF_SL_LNH] >> LRH_SL_SHIFT;
	if (timed_out(meta)) {
		a->timeout = 1;
		return 0;
	}
	/* One packet carries one MAD; segments are put together as they come. */
	a->len = (uint32_t)(len < MAD_SIZE ? len : MAD_SIZE);
	/* The DETH ends where the MAD starts. */
	a->src_qp = get_be24(rec->packet + off - IB_DETH_LEN + DETH_OFF_SRC_QP);
	a->tid = get_be32(mad + MAD_OFF_TID_LOW);
	if (!first_of_many && capture_fd >= 0)
		a->at = rec->packet_at + off;
	else if (!first_of_many)
		return (a->kept = replay_index_keep(recorded, mad, a->len)) ? 0 : -ENOMEM;
	else if (!(a->owned = malloc(a->len)))
		return -ENOMEM;
	else
		memcpy(a->owned, mad, a->len);
	return 0;
}

/*
 * A record that came in (its MAD at off in the packet, len bytes): the
 * answer (or timeout) of the request of its writer, interface and TID that
 * is awaited, or the next segment of the answer being put together.
 */
static void note_answer(struct loading *ld, const struct capture_record *rec,
			const struct capture_meta *meta, size_t off, size_t len)
{
	const uint8_t *mad = rec->packet + off;
	uint32_t tid = get_be32(mad + MAD_OFF_TID_LOW);
	int first_of_many;
	size_t i;

	if (capture_meta_has(meta, CAPTURE_META_SEGMENT) && meta->segment > 1) {
		if (reassembly.active && reassembly.writer == rec->writer &&
		    reassembly.iface == rec->iface && reassembly.tid == tid)
			append_segment(mad, len, meta->segment, meta->segments);
		return;
	}
	first_of_many = capture_meta_has(meta, CAPTURE_META_SEGMENT) && meta->segments > 1;
	reassembly.active = 0;
	for (i = n_open; i-- > 0;) {
		struct open_request *o = &open_reqs[i];
		struct replay_answer a = { 0 };
		int64_t id;

		if (o->writer != rec->writer || o->iface != rec->iface || o->tid != tid)
			continue;
		id = make_answer(rec, meta, off, len, first_of_many, &a);
		if (id == 0)
			id = replay_index_add_answer(recorded, o->request, &a);
		if (id < 0) {
			free(a.owned);
			ld->no_memory = 1;
			return;
		}
		if (first_of_many) {
			reassembly.active = 1;
			reassembly.writer = rec->writer;
			reassembly.iface = rec->iface;
			reassembly.tid = tid;
			reassembly.answer = (uint32_t)id;
			reassembly.head = mad_rmpp_header_len(mad_class(mad));
		}
		*o = open_reqs[--n_open];
		return;
	}
}

/* One record read: what it tells of the host, a request, or an answer. */
static void load_record(struct loading *ld, const struct capture_record *rec)
{
	enum pcapng_direction direction = capture_direction(rec);
	struct capture_meta meta;
	struct local_port *lp;
	const uint8_t *mad;
	uint16_t slid;
	size_t len;

	ld->records++;
	lp = record_port(ld, rec);
	mad = lp ? capture_mad(rec, &len) : NULL;
	if (!mad)
		return;
	ld->loaded++;
	if (direction == PCAPNG_DIR_OUTBOUND) {
		slid = get_be16(rec->packet + LRH_OFF_SLID);
		if (!lp->lid && slid != LID_PERMISSIVE)
			lp->lid = slid;
		note_request(ld, rec, mad, len, get_be16(rec->packet + LRH_OFF_DLID),
			     get_be32(mad + MAD_OFF_TID_LOW));
		return;
	}
	if (direction != PCAPNG_DIR_INBOUND)
		return;
	/* Only what came in says anything replay uses (a timeout, a segment). */
	read_meta(ld, rec, &meta);
	note_local_node(lp, mad, len);
	if (!mad_method_is_response(mad_method(mad)) && !timed_out(&meta))
		return;	/* an unsolicited request: not an answer */
	note_answer(ld, rec, &meta, (size_t)(mad - rec->packet), len);
}

/*
 * Once the reading stopped (got, as capture_next returned): 0, or -errno
 * when the capture cannot be answered from.  What a person should know is
 * added to err a line each, on success too, the reason last on failure.
 */
static int load_verdict(const struct loading *ld, int got, struct umad_err *err)
{
	if (ld->no_memory) {
		umad_err_add(err, "%s: out of memory after %d MADs", ld->path, ld->loaded);
		return -ENOMEM;
	}
	/* A capture cut short (a copy interrupted, a disk full): what came before is good. */
	if (got < 0 && !ld->loaded) {
		umad_err_add(err, "%s", umad_err_text(&ld->why));
		return -EINVAL;
	}
	if (got < 0)
		umad_err_add(err, "%s: answering from the %d MADs before it",
			     umad_err_text(&ld->why), ld->loaded);
	if (ld->bad)
		umad_err_add(err, "%s: %lu record(s) with a comment that does not read, taken "
			     "without their metadata; the first: %s", ld->path, ld->bad,
			     umad_err_text(&ld->first_bad));
	if (!ld->loaded && ld->no_mad) {
		umad_err_add(err, "%s", umad_err_text(&ld->why));
		return -EINVAL;
	}
	if (!ld->loaded || !n_locals) {
		umad_err_add(err, "%s holds no MAD of any umad port", ld->path);
		return -EINVAL;
	}
	return 0;
}

/*
 * Load the capture at path: 0, or -errno.  What a person should know is
 * added to err a line each, on success too (answers cut short, comments
 * that do not read), the reason last on failure.
 */
static int load(const char *path, struct umad_err *err)
{
	struct loading ld = { .path = path, .last_iface = -1 };
	struct umad_err why = UMAD_ERR_INIT;
	struct capture_record rec;
	int got = 0, r;

	r = load_open(&ld, &why);
	if (r < 0) {
		umad_err_add(err, "%s", umad_err_text(&why));
		forget_capture();
		return r;
	}
	while (!ld.no_memory && (got = capture_next(ld.r, &rec, &ld.why)) == 1)
		load_record(&ld, &rec);
	/* Why there is no MAD at all, while the reader knows what it read. */
	if (!ld.loaded && got == 0)
		ld.no_mad = capture_why_no_mad(ld.r, &ld.why);
	capture_close(ld.r);
	free(open_reqs);
	open_reqs = NULL;
	cap_open = 0;
	r = load_verdict(&ld, got, err);
	if (r < 0)
		forget_capture();
	return r;
}

/* What the library gave at init: the debug level that asks for the end's list. */
static const struct umad_backend_host *library;

/* The backend's start: where what the capture's load has to tell is told. */
static int replay_init(const struct umad_backend_host *host)
{
	const char *path = getenv("UMAD_REPLAY");
	struct umad_err err = UMAD_ERR_INIT;
	int r;

	library = host;
	if (!path || !*path)
		r = umad_err_set(&err, -EINVAL, "set UMAD_REPLAY to the capture file to answer from");
	else
		r = load(path, &err);
	umad_err_print("replay", &err);
	return r;
}

static void replay_fini(void)
{
	soft_port_close_all();
	forget_capture();
	if (unmatched && library && library->debug_level() >= 1) {
		struct umad_err list = UMAD_ERR_INIT;

		umad_err_set(&list, 0, "%lu request(s) had no recorded answer:\n%s", unmatched,
			     unmatched_text);
		umad_err_print("replay", &list);
	}
	unmatched = 0;
	unmatched_text[0] = '\0';
}

/* --- the host ------------------------------------------------------------- */

static int replay_for_each_ca(umad_ca_visit_fn visit, void *arg)
{
	size_t i, j;
	int r;

	for (i = 0; i < n_locals; i++) {
		for (j = 0; j < i && strcmp(locals[j].ca, locals[i].ca); j++)
			;
		if (j < i)
			continue;	/* already visited */
		r = visit(locals[i].ca, arg);
		if (r)
			return r;
	}
	return 0;
}

static int fill_port(const struct local_port *lp, umad_port_t *port)
{
	int r = umad_backend_port_init(port, lp->ca, lp->portnum, 1);

	if (r < 0)
		return r;
	port->base_lid = lp->lid == LID_PERMISSIVE ? 0 : lp->lid;
	port->state = PORT_STATE_ACTIVE;
	port->phys_state = PHYS_STATE_LINKUP;
	port->rate = 10;	/* Gb/s: what 4x SDR gives, as any recorded rate is unknown */
	port->gid_prefix = htobe64(GID_PREFIX_LINK_LOCAL);
	port->port_guid = lp->port_guid;
	snprintf(port->link_layer, sizeof(port->link_layer), "InfiniBand");
	port->pkeys[0] = PKEY_DEFAULT;
	return 0;
}

/* umad_backend_ca_add_port's filler: arg is the local_port. */
static int fill_ca_port(void *arg, const char *ca_name, int portnum, umad_port_t *port)
{
	(void)ca_name, (void)portnum;
	return fill_port(arg, port);
}

static struct local_port *find_local(const char *ca, int portnum)
{
	size_t i;

	for (i = 0; i < n_locals; i++)
		if (!strcmp(locals[i].ca, ca) && locals[i].portnum == portnum)
			return &locals[i];
	return NULL;
}

static int replay_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	struct local_port *lp = find_local(ca_name, portnum);

	return lp ? fill_port(lp, port) : -ENOENT;
}

static int replay_get_ca(const char *ca_name, umad_ca_t *ca)
{
	size_t i;
	int r;

	umad_backend_ca_init(ca, ca_name);
	for (i = 0; i < n_locals; i++) {
		struct local_port *lp = &locals[i];

		if (strcmp(lp->ca, ca_name) || lp->portnum < 0 || lp->portnum >= UMAD_CA_MAX_PORTS)
			continue;
		ca->node_type = lp->node_type;
		ca->node_guid = lp->node_guid;
		ca->system_guid = lp->sys_guid;
		r = umad_backend_ca_add_port(ca, lp->portnum, fill_ca_port, lp);
		if (r < 0)
			return r;
	}
	/* No such CA, or one whose recorded NodeInfo gave no node type: nothing kept. */
	if (!ca->node_type) {
		umad_backend_free_ca_ports(ca);
		return -ENOENT;
	}
	snprintf(ca->ca_type, sizeof(ca->ca_type), "replay");
	return 0;
}

static int replay_get_issm_path(const char *ca_name, int portnum, char *path, size_t max)
{
	if (!find_local(ca_name, portnum))
		return -EINVAL;
	/* Nothing to claim in a replay; any process may open it. */
	snprintf(path, max, "/dev/null");
	return 0;
}

/* --- ports ---------------------------------------------------------------- */

static int replay_open_port(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno)
{
	struct local_port *lp = find_local(ca_name, portnum);
	int fd;

	if (!lp)
		return -EINVAL;
	fd = soft_port_open(lp, lp->node_type == NODE_TYPE_SWITCH, (unsigned)portnum, lp,
			    open_errno);
	if (fd >= 0)
		*hdr_size = MAD_RULES_HDR_SIZE;
	return fd;
}

static pthread_mutex_t unmatched_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_unmatched(const uint8_t *mad)
{
	size_t used;

	pthread_mutex_lock(&unmatched_lock);
	used = strlen(unmatched_text);
	unmatched++;
	if (used < sizeof(unmatched_text) - 100)
		snprintf(unmatched_text + used, sizeof(unmatched_text) - used,
			 "  class 0x%02x method 0x%02x attribute 0x%04x modifier 0x%08x\n",
			 mad_class(mad), mad_method(mad), mad_attr_id(mad), mad_attr_mod(mad));
	pthread_mutex_unlock(&unmatched_lock);
}

/*
 * The MAD of an answer left in the capture file, read back through the
 * window (under answers_lock): reading along the file, each read goes twice
 * as far ahead as the last, up to WINDOW_MAX; elsewhere, one page.  NULL
 * when the file no longer holds what was loaded (cut short, or rewritten:
 * the MAD read back must carry the TID recorded).
 */
static const uint8_t *read_back(const struct replay_answer *a)
{
	const uint8_t *bytes;
	ssize_t got = 0;
	size_t size;

	if (capture_changed)
		return NULL;
	if (!(a->at >= window_at && a->at - window_at + a->len <= window_len)) {
		if (!window && !(window = malloc(WINDOW_MAX)))
			return NULL;
		if (window_len && a->at >= window_at && a->at - window_at < window_len + window_next)
			window_next = window_next * 2 > WINDOW_MAX ? WINDOW_MAX : window_next * 2;
		else
			window_next = WINDOW_MIN;
		size = window_next > a->len ? window_next : a->len;
		do
			got = pread(capture_fd, window, size, (off_t)a->at);
		while (got < 0 && errno == EINTR);
		window_at = a->at;
		window_len = got > 0 ? (size_t)got : 0;
	}
	bytes = window + (a->at - window_at);
	if (got >= 0 && a->at - window_at + a->len <= window_len &&
	    get_be32(bytes + MAD_OFF_TID_LOW) == a->tid)
		return bytes;
	capture_changed = 1;
	if (got < 0)
		umad_err_set(&changed_why, 0, "%s: %s; no more answers from it", capture_path,
			     strerror(errno));
	else
		umad_err_set(&changed_why, 0, "%s: changed since it was loaded (cut short or "
			     "written over); no more answers from it", capture_path);
	return NULL;
}

/* Answer a checked request with its recorded answer, or let it time out. */
static int answer(struct soft_port *p, const struct ib_user_mad *hdr,
		  const struct umad_agent_req *agent, uint8_t *mad, size_t mad_len)
{
	uint8_t key[KEY_MAX];
	const struct replay_answer *a = NULL;
	const uint8_t *bytes = NULL;
	size_t key_len;
	int64_t id;
	int r = 0, changed_before, changed_now;

	(void)agent;	/* answers are matched by what was asked, not by whom */
	if (mad_rules_method_is_response(mad_class(mad), mad_method(mad), 0))
		return soft_port_no_answer(p, hdr, mad, 0);	/* our own answers go nowhere */
	key_len = make_key(mad, mad_len, be16toh(hdr->addr.lid), key);
	/*
	 * Repeats take the recorded answers in order; past the last, the last
	 * again.  Answers are queued under the same lock, in the order picked.
	 */
	pthread_mutex_lock(&answers_lock);
	changed_before = capture_changed;
	id = key_len ? replay_index_request(recorded, key, key_len, 0) : -ENOENT;
	if (id >= 0)
		a = replay_index_take(recorded, (uint32_t)id);
	if (a && !a->timeout && hdr->timeout_ms)
		bytes = a->owned ? a->owned : a->kept ? a->kept : read_back(a);
	if (bytes) {
		struct ib_user_mad out;

		memset(&out, 0, sizeof(out));
		out.agent_id = hdr->agent_id;
		out.addr.lid = htobe16(a->slid);
		out.addr.sl = a->sl;
		out.addr.qpn = htobe32(a->src_qp);
		out.addr.qkey = htobe32(a->src_qp != QP0_SMI ? UMAD_QKEY : 0);
		/* The recorded answer, carrying the application's TID. */
		r = mad_queue_push_with_tid(&p->q, &out, bytes, a->len, mad + MAD_OFF_TID);
	} else if (!a || a->timeout || hdr->timeout_ms) {
		/* No answer recorded, a recorded timeout, or a capture that changed under us. */
		if (!a)
			note_unmatched(mad);
		r = soft_port_no_answer(p, hdr, mad, 0);
	}
	/* Told once, by the send that found it, after the lock is let go (never set again). */
	changed_now = capture_changed && !changed_before;
	pthread_mutex_unlock(&answers_lock);
	if (changed_now)
		umad_err_print("replay", &changed_why);
	return r;
}

/*
 * The kernel gives every agent a hi_tid, the upper half of its requests'
 * TIDs; here a process has no other to keep apart from, so they are given
 * out in order, 24 bits wide, 0 left out.  Recorded answers never match on
 * the TID, and go back with the request's as it went out.
 */
static int replay_register(int portid, struct umad_agent_req *req, uint32_t *agent_id)
{
	static atomic_uint next_hi_tid;
	struct soft_port *p;
	int r = soft_port_register(portid, req, agent_id);

	if (r < 0)
		return r;
	p = soft_port_get(portid);
	if (p) {
		soft_port_set_hi_tid(p, *agent_id,
				     atomic_fetch_add(&next_hi_tid, 1) % MAD_RULES_HI_TID_MAX + 1);
		soft_port_put(p);
	}
	return 0;
}

static ssize_t replay_send(int portid, const void *umad, size_t len)
{
	return soft_port_send(portid, umad, len, answer);
}

const struct umad_backend umad_backend_replay = {
	.abi = UMAD_BACKEND_ABI,
	.name = "replay",
	.description = "answers from a recorded capture (UMAD_REPLAY)",
	.init = replay_init,
	.fini = replay_fini,
	.for_each_ca = replay_for_each_ca,
	.get_ca = replay_get_ca,
	.get_port = replay_get_port,
	.get_issm_path = replay_get_issm_path,
	.open_port = replay_open_port,
	.close_port = soft_port_close,
	.register_agent = replay_register,
	.unregister_agent = soft_port_unregister,
	.send = replay_send,
	.recv = soft_port_recv,
	.pending = soft_port_pending,
	.wait = soft_port_wait,
	.watch_fd = soft_port_watch_fd,
	.hi_tid = soft_port_hi_tid,
};
