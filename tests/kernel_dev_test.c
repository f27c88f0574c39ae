/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * `umad kernel`'s umadN and issmN files against ib_umad's semantics, driven
 * by plain open/read/write/poll/ioctl as a program that never loads
 * libibumad would: tests/kernel_dev.sh serves a host at MOUNT and runs
 *
 *   kernel_dev_test MOUNT umad NODES    the umad file (NODES: the fabric's)
 *   kernel_dev_test MOUNT issm          the issm file (on a fresh host: an
 *                                       open of it stops the built-in SM)
 *
 * What the kernel does (drivers/infiniband/core/user_mad.c) is said at each
 * case.  A check that fails is printed and counted; the status is 1 then.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/umad.h>

#include "backends/sysfs_layout.h"
#include "base/mad_layout.h"
#include "base/mad_wire.h"
#include "base/umad_ioctl.h"
#include "tests/kernel_dev_util.h"

/* ib_umad's two header layouts: without (ABI 5's) and with the P_Key index. */
#define HDR_OLD		offsetof(struct ib_user_mad, addr.pkey_index)
#define HDR_NEW		sizeof(struct ib_user_mad)
_Static_assert(HDR_OLD == 56 && HDR_NEW == 64, "ib_umad's header layouts");
/* ib_umad's limits: agents per open file; REGISTER_AGENT2's known flags. */
#define MAX_AGENTS	32
#define REG_FLAGS_CAP	UMAD_USER_RMPP
/* A unicast LID no port of the tests' fabrics has: requests to it time out. */
#define LID_NOBODY	0x0bad
/* A vendor class (range 1: no OUI) for unsolicited requests between the host's own files. */
#define VENDOR_CLASS	UMAD_CLASS_VENDOR_RANGE1_START
/* How long a MAD the fabric answers may take, and how long a blocked call is watched. */
#define ANSWER_MS	5000
#define BLOCKED_MS	200

static struct kd_host host;
static unsigned n_nodes;

/* An open umadN and the header size it speaks. */
struct dev {
	int fd;
	size_t hdr;
};

static const uint64_t no_methods[2];
static const uint64_t get_method[2] = { UINT64_C(1) << UMAD_METHOD_GET, 0 };

/* Open umad0 with flags, in the new layout when pkey is set (ENABLE_PKEY). 0 or -1. */
static int dev_open(struct dev *d, int flags, int pkey)
{
	char path[PATH_MAX];

	kd_dev_path(&host, SYSFS_UMAD_NAME, 0, path, sizeof(path));
	d->fd = open(path, O_RDWR | O_CLOEXEC | flags);
	d->hdr = HDR_OLD;
	if (d->fd < 0) {
		CHECK(d->fd >= 0, "open %s: %s", path, strerror(errno));
		return -1;
	}
	if (pkey) {
		CHECK_EQ(ioctl(d->fd, IB_USER_MAD_ENABLE_PKEY), 0);
		d->hdr = HDR_NEW;
	}
	return 0;
}

static void dev_close(struct dev *d)
{
	if (d->fd >= 0)
		CHECK_EQ(close(d->fd), 0);
	d->fd = -1;
}

/* REGISTER_AGENT: the agent id, or -errno. */
static int reg1(struct dev *d, uint8_t qpn, uint8_t mgmt_class, uint8_t version, uint8_t rmpp,
		const uint64_t methods[2])
{
	struct ib_user_mad_reg_req req = {
		.qpn = qpn, .mgmt_class = mgmt_class, .mgmt_class_version = version,
		.rmpp_version = rmpp,
	};

	memcpy(req.method_mask, methods, sizeof(req.method_mask));
	return ioctl(d->fd, IB_USER_MAD_REGISTER_AGENT, &req) < 0 ? -errno : (int)req.id;
}

/* REGISTER_AGENT2: the agent id, or -errno; *flags: what the device wrote back. */
static int reg2(struct dev *d, uint32_t qpn, uint8_t mgmt_class, uint8_t version, uint32_t oui,
		uint32_t *flags, const uint64_t methods[2])
{
	struct ib_user_mad_reg_req2 req = {
		.qpn = qpn, .mgmt_class = mgmt_class, .mgmt_class_version = version,
		.flags = *flags, .oui = oui,
		.method_mask = { methods[0], methods[1] },
	};
	int r = ioctl(d->fd, IB_USER_MAD_REGISTER_AGENT2, &req) < 0 ? -errno : (int)req.id;

	*flags = req.flags;
	return r;
}

/* Where a MAD is sent: LID, QP, Q_Key, SL; how long its answer may take. */
struct dest {
	uint16_t lid;
	uint32_t qpn, qkey;
	uint8_t sl;
	uint32_t timeout_ms, retries;
};

static const struct dest to_own_sma = { .lid = LID_PERMISSIVE, .qpn = QP0_SMI,
					.timeout_ms = 1000 };

/* write(2) a MAD of mad_len bytes from agent in d's layout: write's result. */
static ssize_t dev_send(struct dev *d, uint32_t agent, const uint8_t *mad, size_t mad_len,
			const struct dest *to)
{
	uint8_t buf[HDR_NEW + MAD_SIZE];
	struct ib_user_mad hdr;

	memset(&hdr, 0, sizeof(hdr));
	hdr.agent_id = agent;
	hdr.timeout_ms = to->timeout_ms;
	hdr.retries = to->retries;
	hdr.addr.qpn = htobe32(to->qpn);
	hdr.addr.qkey = htobe32(to->qkey);
	hdr.addr.lid = htobe16(to->lid);
	hdr.addr.sl = to->sl;
	memcpy(buf, &hdr, d->hdr);
	memcpy(buf + d->hdr, mad, mad_len);
	return write(d->fd, buf, d->hdr + mad_len);
}

/* The header at the start of buf, in d's layout (the P_Key index 0 in the old one). */
static struct ib_user_mad header_of(const struct dev *d, const uint8_t *buf)
{
	struct ib_user_mad hdr;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(&hdr, buf, d->hdr);
	return hdr;
}

/* poll(2) for POLLIN up to ms: 1 when readable. */
static int readable(struct dev *d, int ms)
{
	struct pollfd p = { .fd = d->fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Wait for the next MAD (poll) and read it into buf (size bytes): read's result. */
static ssize_t dev_recv(struct dev *d, uint8_t *buf, size_t size)
{
	if (!readable(d, ANSWER_MS)) {
		CHECK(0, "nothing to read on umad0 within %d ms", ANSWER_MS);
		errno = ETIMEDOUT;
		return -1;
	}
	return read(d->fd, buf, size);
}

/* A whole answer of one MAD to a DR SMP Get of attr_id with tid, from the host's own port. */
static void check_smp_answer(const struct dev *d, const uint8_t *buf, ssize_t n, int agent,
			     uint16_t attr_id, uint32_t tid)
{
	struct ib_user_mad hdr = header_of(d, buf);
	const uint8_t *mad = buf + d->hdr;

	CHECK_EQ(n, (ssize_t)(d->hdr + MAD_SIZE));
	if (n < (ssize_t)(d->hdr + MAD_SIZE))
		return;
	CHECK_EQ(hdr.length, d->hdr + MAD_SIZE);
	CHECK_EQ(hdr.agent_id, agent);
	CHECK_EQ(hdr.status, 0);
	CHECK_EQ(mad[MAD_OFF_BASE_VERSION], UMAD_BASE_VERSION);
	CHECK_EQ(mad_class(mad), UMAD_CLASS_SUBN_DIRECTED_ROUTE);
	CHECK_EQ(mad_method(mad), UMAD_METHOD_GET_RESP);
	CHECK_EQ(mad_attr_id(mad), attr_id);
	CHECK_EQ(kd_tid_low(mad), tid);
	CHECK(mad_status(mad) & UMAD_SMP_DIRECTION, "status 0x%x", mad_status(mad));
}

/* Open umad0 (the new layout when pkey is set) with an SMP agent of mgmt_class: its id, or -1. */
static int open_smp_agent(struct dev *d, int pkey, uint8_t mgmt_class)
{
	int agent;

	if (dev_open(d, 0, pkey) < 0)
		return -1;
	agent = reg1(d, QP0_SMI, mgmt_class, SMP_CLASS_VERSION, 0, no_methods);
	CHECK(agent >= 0, "REGISTER_AGENT: %s", strerror(-agent));
	if (agent < 0)
		dev_close(d);
	return agent < 0 ? -1 : agent;
}

/* Ask the host's own SMA for NodeInfo (tid): the write is checked. */
static void send_node_info(struct dev *d, int agent, uint32_t tid)
{
	uint8_t mad[MAD_SIZE];

	kd_dr_smp_get(mad, UMAD_SM_ATTR_NODE_INFO, 0, tid);
	CHECK_EQ(dev_send(d, (uint32_t)agent, mad, sizeof(mad), &to_own_sma), d->hdr + MAD_SIZE);
}

/* Read the answer to send_node_info(tid) when it comes, and check it. */
static void recv_node_info(struct dev *d, int agent, uint32_t tid)
{
	uint8_t buf[HDR_NEW + MAD_SIZE];

	check_smp_answer(d, buf, dev_recv(d, buf, sizeof(buf)), agent, UMAD_SM_ATTR_NODE_INFO,
			 tid);
}

/* The host port's CapabilityMask as its SMA answers a PortInfo Get. */
static long long smp_cap_mask(void)
{
	uint8_t mad[MAD_SIZE], buf[HDR_NEW + MAD_SIZE];
	long long cap = -1;
	struct dev d;
	int agent = open_smp_agent(&d, 1, UMAD_CLASS_SUBN_DIRECTED_ROUTE);
	ssize_t n;

	if (agent < 0)
		return -1;
	kd_dr_smp_get(mad, UMAD_SM_ATTR_PORT_INFO, (uint32_t)host.port, 0x500);
	CHECK_EQ(dev_send(&d, (uint32_t)agent, mad, sizeof(mad), &to_own_sma), HDR_NEW + MAD_SIZE);
	n = dev_recv(&d, buf, sizeof(buf));
	check_smp_answer(&d, buf, n, agent, UMAD_SM_ATTR_PORT_INFO, 0x500);
	if (n == (ssize_t)sizeof(buf))
		cap = (long long)mad_get(buf + HDR_NEW + SMP_OFF_DATA, PI_CAPABILITY_MASK);
	dev_close(&d);
	return cap;
}

/* --- the blocking calls the threads make ------------------------------------------------ */

struct read_call {
	int fd;
	uint8_t buf[HDR_NEW + MAD_SIZE];
};

static int do_read(struct kd_blocked *b)
{
	struct read_call *rc = b->arg;

	return (int)read(rc->fd, rc->buf, sizeof(rc->buf));
}

struct send_call {
	struct dev *d;
	uint32_t agent;
	uint8_t mad[MAD_SIZE];
};

static int do_send(struct kd_blocked *b)
{
	struct send_call *sc = b->arg;

	return (int)dev_send(sc->d, sc->agent, sc->mad, sizeof(sc->mad), &to_own_sma);
}

struct poll_call {
	struct pollfd p;
};

static int do_poll(struct kd_blocked *b)
{
	struct poll_call *pc = b->arg;

	return poll(&pc->p, 1, 2 * ANSWER_MS);
}

static int do_issm_open(struct kd_blocked *b)
{
	return open(b->arg, O_RDWR | O_CLOEXEC);
}

/* --- umad: the cases ------------------------------------------------------------------- */

/*
 * Both header layouts: 56 bytes (the MAD at the P_Key index's place) until
 * ENABLE_PKEY, 64 after it; REGISTER_AGENT2 switches to 64 by itself.
 * ENABLE_PKEY may be repeated until an agent is registered, and fails with
 * EINVAL after (ib_umad_enable_pkey: file->already_used).
 */
static void case_layouts(void)
{
	int before = kd_failures, pkey, v2;

	for (v2 = 0; v2 <= 1; v2++) {
		for (pkey = 0; pkey <= 1; pkey++) {
			uint8_t mad[MAD_SIZE], buf[HDR_NEW + MAD_SIZE];
			uint32_t tid = 0x100 + (uint32_t)(v2 * 2 + pkey), flags = 0;
			struct ib_user_mad hdr;
			struct dev d;
			int agent;
			ssize_t n;

			if ((v2 && pkey) || dev_open(&d, 0, pkey) < 0)
				continue;
			if (pkey)
				CHECK_EQ(ioctl(d.fd, IB_USER_MAD_ENABLE_PKEY), 0);
			agent = v2 ? reg2(&d, QP0_SMI, UMAD_CLASS_SUBN_DIRECTED_ROUTE,
					  SMP_CLASS_VERSION, 0, &flags, no_methods)
				   : reg1(&d, QP0_SMI, UMAD_CLASS_SUBN_DIRECTED_ROUTE,
					  SMP_CLASS_VERSION, 0, no_methods);
			CHECK_EQ(agent, 0);
			if (v2)
				d.hdr = HDR_NEW;
			CHECK_ERRNO(ioctl(d.fd, IB_USER_MAD_ENABLE_PKEY), EINVAL);
			kd_dr_smp_get(mad, UMAD_SM_ATTR_NODE_INFO, 0, tid);
			CHECK_EQ(dev_send(&d, (uint32_t)agent, mad, sizeof(mad), &to_own_sma),
				 d.hdr + MAD_SIZE);
			memset(buf, 0xa5, sizeof(buf));
			n = dev_recv(&d, buf, sizeof(buf));
			check_smp_answer(&d, buf, n, agent, UMAD_SM_ATTR_NODE_INFO, tid);
			CHECK_EQ(mad_get(buf + d.hdr + SMP_OFF_DATA, NI_NODE_GUID), host.node_guid);
			hdr = header_of(&d, buf);
			if (d.hdr == HDR_NEW)
				CHECK_EQ(hdr.addr.pkey_index, 0);
			/* The old layout's MAD starts where the new one has its P_Key index. */
			if (d.hdr == HDR_OLD)
				CHECK_EQ(buf[HDR_OLD + MAD_OFF_CLASS], UMAD_CLASS_SUBN_DIRECTED_ROUTE);
			dev_close(&d);
		}
	}
	kd_case_done("header layouts: 56 bytes, 64 after ENABLE_PKEY or REGISTER_AGENT2; "
		     "ENABLE_PKEY after a registration is EINVAL", before);
}

/*
 * ib_umad_reg_agent/_agent2 and ib_umad_unreg_agent: QPN 0 or 1 (EINVAL);
 * REGISTER_AGENT2's unknown flags fail with EINVAL and the known ones
 * (IB_USER_MAD_REG_FLAGS_CAP) written back; an OUI over 24 bits is EINVAL;
 * 32 agents an open file, the lowest free id first, ENOMEM past them;
 * unregistering an id not registered or past 32 is EINVAL; a request
 * another open file's agent already receives is EINVAL; other ioctls ENOTTY.
 */
static void case_registration(void)
{
	int before = kd_failures, i, id;
	struct dev d, d2, d3;
	uint32_t flags, bad_id;

	if (dev_open(&d, 0, 0) < 0)
		return;
	CHECK_NEG(reg1(&d, 2, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, 0, no_methods), EINVAL);
	flags = 0;
	CHECK_NEG(reg2(&d, 2, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, 0, &flags, no_methods),
		  EINVAL);
	flags = UMAD_USER_RMPP | 0x80000000u;
	CHECK_NEG(reg2(&d, QP1_GSI, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, 0, &flags,
		       no_methods), EINVAL);
	CHECK_EQ(flags, REG_FLAGS_CAP);
	flags = 0;
	CHECK_NEG(reg2(&d, QP1_GSI, UMAD_CLASS_VENDOR_RANGE2_START, 1, 0x01001405, &flags,
		       get_method), EINVAL);
	/* Nothing was registered: the layout may still change. */
	CHECK_EQ(ioctl(d.fd, IB_USER_MAD_ENABLE_PKEY), 0);

	for (i = 0; i < MAX_AGENTS; i++)
		CHECK_EQ(reg1(&d, QP1_GSI, 0, 0, 0, no_methods), i);
	CHECK_NEG(reg1(&d, QP1_GSI, 0, 0, 0, no_methods), ENOMEM);
	flags = 0;
	CHECK_NEG(reg2(&d, QP1_GSI, 0, 0, 0, &flags, no_methods), ENOMEM);
	bad_id = 5;
	CHECK_EQ(ioctl(d.fd, IB_USER_MAD_UNREGISTER_AGENT, &bad_id), 0);
	CHECK_ERRNO(ioctl(d.fd, IB_USER_MAD_UNREGISTER_AGENT, &bad_id), EINVAL);
	bad_id = MAX_AGENTS;
	CHECK_ERRNO(ioctl(d.fd, IB_USER_MAD_UNREGISTER_AGENT, &bad_id), EINVAL);
	bad_id = UINT32_MAX;
	CHECK_ERRNO(ioctl(d.fd, IB_USER_MAD_UNREGISTER_AGENT, &bad_id), EINVAL);
	CHECK_EQ(reg1(&d, QP1_GSI, 0, 0, 0, no_methods), 5);
	CHECK_ERRNO(ioctl(d.fd, _IO(IB_IOCTL_MAGIC, 0x7f)), ENOTTY);
	dev_close(&d);

	/* One receiver per (class, version, method) on a port, whichever file registers it. */
	if (dev_open(&d2, 0, 1) == 0 && dev_open(&d3, 0, 1) == 0) {
		CHECK_EQ(reg1(&d2, QP1_GSI, VENDOR_CLASS, 1, 0, get_method), 0);
		CHECK_NEG(reg1(&d3, QP1_GSI, VENDOR_CLASS, 1, 0, get_method), EINVAL);
		id = reg1(&d3, QP1_GSI, VENDOR_CLASS, 2, 0, get_method);
		CHECK_EQ(id, 0);
		dev_close(&d2);
		dev_close(&d3);
	}
	kd_case_done("REGISTER_AGENT, REGISTER_AGENT2, UNREGISTER_AGENT: the kernel's checks "
		     "and errno values", before);
}

/*
 * ib_umad_write: shorter than the header and an RMPP header (36 bytes) is
 * EINVAL, an agent id past 32 EINVAL, one not registered EIO, a request
 * whose TID an outstanding one of the file has EINVAL (is_duplicate).
 */
static void case_write_errors(void)
{
	int before = kd_failures, pkey;

	for (pkey = 0; pkey <= 1; pkey++) {
		uint8_t mad[MAD_SIZE], buf[HDR_NEW + MAD_SIZE];
		struct dest nobody = { .lid = LID_NOBODY, .qpn = QP0_SMI, .timeout_ms = 3000 };
		struct ib_user_mad hdr;
		struct dev d;
		int agent = open_smp_agent(&d, pkey, UMAD_CLASS_SUBN_LID_ROUTED);

		if (agent < 0)
			continue;
		kd_lid_smp_get(mad, 0x200);
		memset(&hdr, 0, sizeof(hdr));
		memcpy(buf, &hdr, d.hdr);
		memcpy(buf + d.hdr, mad, sizeof(mad));
		CHECK_ERRNO(write(d.fd, buf, d.hdr + RMPP_HDR_END - 1), EINVAL);
		CHECK_ERRNO(write(d.fd, buf, d.hdr - 1), EINVAL);
		CHECK_ERRNO(dev_send(&d, MAX_AGENTS, mad, sizeof(mad), &nobody), EINVAL);
		CHECK_ERRNO(dev_send(&d, 7, mad, sizeof(mad), &nobody), EIO);
		CHECK_EQ(dev_send(&d, (uint32_t)agent, mad, sizeof(mad), &nobody),
			 d.hdr + MAD_SIZE);
		CHECK_ERRNO(dev_send(&d, (uint32_t)agent, mad, sizeof(mad), &nobody), EINVAL);
		dev_close(&d);
	}
	kd_case_done("write: short (EINVAL), agent id past 32 (EINVAL), agent not registered "
		     "(EIO), duplicate TID (EINVAL)", before);
}

/*
 * ib_umad_read: shorter than the header is EINVAL; nothing queued with
 * O_NONBLOCK (at open or set later with fcntl) is EAGAIN; a buffer too
 * short for a MAD that is not RMPP is EINVAL and the MAD stays queued.
 */
static void case_read_errors(void)
{
	int before = kd_failures, pkey;

	for (pkey = 0; pkey <= 1; pkey++) {
		uint8_t buf[HDR_NEW + MAD_SIZE];
		struct dev d, nb;
		int agent = open_smp_agent(&d, pkey, UMAD_CLASS_SUBN_DIRECTED_ROUTE);

		if (agent < 0)
			continue;
		CHECK_ERRNO(read(d.fd, buf, d.hdr - 1), EINVAL);
		if (pkey)
			CHECK_ERRNO(read(d.fd, buf, HDR_OLD), EINVAL);
		CHECK_EQ(fcntl(d.fd, F_SETFL, fcntl(d.fd, F_GETFL) | O_NONBLOCK), 0);
		CHECK_ERRNO(read(d.fd, buf, sizeof(buf)), EAGAIN);
		CHECK_EQ(fcntl(d.fd, F_SETFL, fcntl(d.fd, F_GETFL) & ~O_NONBLOCK), 0);
		if (dev_open(&nb, O_NONBLOCK, pkey) == 0) {
			CHECK_ERRNO(read(nb.fd, buf, sizeof(buf)), EAGAIN);
			dev_close(&nb);
		}
		send_node_info(&d, agent, 0x300);
		CHECK(readable(&d, ANSWER_MS), "no answer");
		CHECK_ERRNO(read(d.fd, buf, d.hdr + MAD_SIZE - 1), EINVAL);
		CHECK(readable(&d, 0), "the MAD did not stay queued");
		recv_node_info(&d, agent, 0x300);
		dev_close(&d);
	}
	kd_case_done("read: shorter than the header (EINVAL), O_NONBLOCK with nothing (EAGAIN), "
		     "a MAD longer than the buffer (EINVAL, stays queued)", before);
}

/*
 * A blocking read sleeps until a MAD is queued (wait_event_interruptible):
 * here the answer to a request another thread writes meanwhile.  A signal
 * whose handler has no SA_RESTART ends it with EINTR, and a read so
 * interrupted takes nothing: the next MAD goes to the next read.
 */
static void case_blocking_read(void)
{
	struct read_call rc;
	struct send_call wc;
	struct kd_blocked b, w;
	uint64_t sent_ns;
	struct dev d;
	int before = kd_failures, agent = open_smp_agent(&d, 1, UMAD_CLASS_SUBN_DIRECTED_ROUTE);

	if (agent < 0)
		return;
	rc.fd = d.fd;

	kd_blocked_start(&b, do_read, &rc);
	kd_blocked_wait_in(&b, SYS_read, ANSWER_MS);
	kd_sleep_ms(BLOCKED_MS);
	CHECK(!kd_blocked_done(&b), "the read returned with nothing queued");
	/* From another thread: the write must not wait for the read (the file is a stream). */
	kd_dr_smp_get(wc.mad, UMAD_SM_ATTR_NODE_INFO, 0, 0x400);
	wc.d = &d;
	wc.agent = (uint32_t)agent;
	sent_ns = kd_now_ns();
	kd_blocked_start(&w, do_send, &wc);
	if (kd_blocked_join(&w, ANSWER_MS) < 0) {
		fprintf(stderr, "FAIL: a write waits for a read of the same file in another "
			"thread: the file is not a stream (ib_umad's are)\n");
		exit(1);
	}
	CHECK_EQ(w.result, (int)(d.hdr + MAD_SIZE));
	if (kd_blocked_join(&b, ANSWER_MS) < 0)
		exit(1);
	check_smp_answer(&d, rc.buf, b.result, agent, UMAD_SM_ATTR_NODE_INFO, 0x400);
	CHECK(b.done_ns >= sent_ns, "the read returned before the request was sent");
	kd_case_done("a blocking read sleeps until an answer arrives", before);

	before = kd_failures;
	kd_blocked_start(&b, do_read, &rc);
	kd_blocked_wait_in(&b, SYS_read, ANSWER_MS);
	kd_blocked_signal(&b);
	if (kd_blocked_join(&b, ANSWER_MS) < 0)
		exit(1);
	CHECK_EQ(b.result, -1);
	CHECK_EQ(b.err, EINTR);
	send_node_info(&d, agent, 0x401);
	recv_node_info(&d, agent, 0x401);
	CHECK(!readable(&d, 0), "more than the one answer queued");
	dev_close(&d);
	kd_case_done("a signal (no SA_RESTART) ends a blocking read with EINTR; it takes nothing",
		     before);
}

/*
 * close(2) of a descriptor another thread is reading: the race is the case
 * under test, so the system call is made past ThreadSanitizer's tracking
 * of descriptors (its close interceptor).
 */
static int close_under_reader(int fd)
{
	return (int)syscall(SYS_close, fd);
}

/*
 * close(2) while another thread is blocked in read(2) on the same file:
 * the read holds its own reference to the open file, so close only drops
 * the descriptor.  ib_umad_close (agents unregistered, queue dropped) runs
 * when the read returns, and until then the file is whole: its agents keep
 * their registrations and receive, and the blocked read returns the first
 * MAD that reaches one of them, here a request another file sends to the
 * host's own LID after the close.  With nothing arriving, a signal ends it.
 */
static void case_close_while_reading(void)
{
	int before = kd_failures, receiver, sender, i, reg = -1;
	struct dev d1, d2, d3;
	struct read_call rc;
	struct kd_blocked b;
	uint8_t mad[MAD_SIZE];
	struct dest to_self = { .lid = (uint16_t)host.lid, .qpn = QP1_GSI, .qkey = UMAD_QKEY };
	struct ib_user_mad hdr;

	if (dev_open(&d1, 0, 1) < 0 || dev_open(&d2, 0, 1) < 0 || dev_open(&d3, 0, 1) < 0)
		return;
	receiver = reg1(&d1, QP1_GSI, VENDOR_CLASS, 1, 0, get_method);
	sender = reg1(&d2, QP1_GSI, 0, 0, 0, no_methods);
	CHECK_EQ(receiver, 0);
	CHECK_EQ(sender, 0);
	rc.fd = d1.fd;
	kd_blocked_start(&b, do_read, &rc);
	kd_blocked_wait_in(&b, SYS_read, ANSWER_MS);
	CHECK_EQ(close_under_reader(d1.fd), 0);
	kd_sleep_ms(BLOCKED_MS);
	CHECK(!kd_blocked_done(&b), "the read returned when another thread closed its file "
	      "(result %d, %s)", b.result, strerror(b.err));
	/* The closed file's agent still holds its registration. */
	CHECK_NEG(reg1(&d3, QP1_GSI, VENDOR_CLASS, 1, 0, get_method), EINVAL);
	kd_vendor_get(mad, VENDOR_CLASS, 0x600);
	CHECK_EQ(dev_send(&d2, (uint32_t)sender, mad, sizeof(mad), &to_self), d2.hdr + MAD_SIZE);
	if (kd_blocked_join(&b, ANSWER_MS) < 0)
		exit(1);
	CHECK_EQ(b.result, (int)(HDR_NEW + MAD_SIZE));
	hdr = header_of(&d1, rc.buf);
	CHECK_EQ(hdr.agent_id, receiver);
	CHECK_EQ(hdr.status, 0);
	CHECK_EQ(be16toh(hdr.addr.lid), host.lid);
	CHECK_EQ(mad_class(rc.buf + HDR_NEW), VENDOR_CLASS);
	CHECK_EQ(mad_method(rc.buf + HDR_NEW), UMAD_METHOD_GET);
	CHECK_EQ(kd_tid_low(rc.buf + HDR_NEW), 0x600);
	/* Now the file is released (a FUSE release comes after the read returns: a moment). */
	for (i = 0; i < 100 && (reg = reg1(&d3, QP1_GSI, VENDOR_CLASS, 1, 0, get_method)) < 0; i++)
		kd_sleep_ms(20);
	CHECK_EQ(reg, 0);
	kd_case_done("close while another thread reads: the read gets what arrives after", before);

	before = kd_failures;
	if (dev_open(&d1, 0, 1) < 0)
		return;
	rc.fd = d1.fd;
	kd_blocked_start(&b, do_read, &rc);
	kd_blocked_wait_in(&b, SYS_read, ANSWER_MS);
	CHECK_EQ(close_under_reader(d1.fd), 0);
	kd_sleep_ms(BLOCKED_MS);
	CHECK(!kd_blocked_done(&b), "the read returned when another thread closed its file");
	kd_blocked_signal(&b);
	if (kd_blocked_join(&b, ANSWER_MS) < 0)
		exit(1);
	CHECK_EQ(b.result, -1);
	CHECK_EQ(b.err, EINTR);
	dev_close(&d2);
	dev_close(&d3);
	kd_case_done("close while another thread reads: nothing arrives, a signal ends it", before);
}

/*
 * ib_umad_poll: POLLOUT (and POLLWRNORM) always, POLLIN (and POLLRDNORM)
 * while a MAD is queued; a poll asleep is woken when one arrives.
 */
static void case_poll(void)
{
	const short all = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
	struct pollfd p;
	struct poll_call pc;
	struct kd_blocked b;
	uint64_t sent_ns;
	struct dev d;
	int before = kd_failures, agent = open_smp_agent(&d, 1, UMAD_CLASS_SUBN_DIRECTED_ROUTE);

	if (agent < 0)
		return;
	p = (struct pollfd){ .fd = d.fd, .events = all };
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLOUT | POLLWRNORM);
	send_node_info(&d, agent, 0x700);
	CHECK(readable(&d, ANSWER_MS), "no answer");
	p.revents = 0;
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, all);
	recv_node_info(&d, agent, 0x700);
	p.revents = 0;
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLOUT | POLLWRNORM);

	pc.p = (struct pollfd){ .fd = d.fd, .events = POLLIN };
	kd_blocked_start(&b, do_poll, &pc);
	kd_blocked_wait_in(&b, SYS_poll, ANSWER_MS);
	kd_sleep_ms(BLOCKED_MS);
	CHECK(!kd_blocked_done(&b), "poll returned with nothing queued");
	sent_ns = kd_now_ns();
	send_node_info(&d, agent, 0x701);
	if (kd_blocked_join(&b, ANSWER_MS) < 0)
		exit(1);
	CHECK_EQ(b.result, 1);
	CHECK_EQ(pc.p.revents, POLLIN);
	CHECK(b.done_ns >= sent_ns, "poll returned before the request was sent");
	recv_node_info(&d, agent, 0x701);
	dev_close(&d);
	kd_case_done("poll: POLLOUT always, POLLIN while queued, woken by an arrival", before);
}

/*
 * A request with no answer (timeout_ms set, to a LID nobody has): after
 * timeout_ms for each of retries + 1 tries, send_handler queues it back to
 * its agent with status ETIMEDOUT and its MAD header only (24 bytes).
 */
static void case_timeout(void)
{
	int before = kd_failures, pkey;

	for (pkey = 0; pkey <= 1; pkey++) {
		struct dest nobody = { .lid = LID_NOBODY, .qpn = QP0_SMI, .timeout_ms = 100,
				       .retries = 2 };
		uint8_t mad[MAD_SIZE], buf[HDR_NEW + MAD_SIZE];
		uint32_t tid = 0x800 + (uint32_t)pkey;
		struct ib_user_mad hdr;
		uint64_t sent_ns, ms;
		struct dev d;
		int agent = open_smp_agent(&d, pkey, UMAD_CLASS_SUBN_LID_ROUTED);
		ssize_t n;

		if (agent < 0)
			continue;
		kd_lid_smp_get(mad, tid);
		sent_ns = kd_now_ns();
		CHECK_EQ(dev_send(&d, (uint32_t)agent, mad, sizeof(mad), &nobody),
			 d.hdr + MAD_SIZE);
		n = read(d.fd, buf, sizeof(buf));	/* blocking: until the timeout */
		ms = (kd_now_ns() - sent_ns) / 1000000u;
		hdr = header_of(&d, buf);
		CHECK_EQ(n, (ssize_t)(d.hdr + MAD_HDR_SIZE));
		CHECK_EQ(hdr.status, ETIMEDOUT);
		CHECK_EQ(hdr.agent_id, agent);
		CHECK_EQ(mad_class(buf + d.hdr), UMAD_CLASS_SUBN_LID_ROUTED);
		CHECK_EQ(mad_method(buf + d.hdr), UMAD_METHOD_GET);
		CHECK_EQ(mad_attr_id(buf + d.hdr), UMAD_SM_ATTR_NODE_INFO);
		CHECK_EQ(kd_tid_low(buf + d.hdr), tid);
		CHECK(ms >= nobody.timeout_ms * (nobody.retries + 1) - 10 && ms < ANSWER_MS,
		      "timed out after %llu ms", (unsigned long long)ms);
		dev_close(&d);
	}
	kd_case_done("a request without an answer comes back with status ETIMEDOUT and its "
		     "24-byte header, after timeout_ms x (retries + 1)", before);
}

/*
 * An RMPP message (the SA's NodeRecord table) read with room for the header
 * and its first segment (256 bytes) but not the whole: ENOSPC, the header
 * copied with length = header + the whole message, the message requeued
 * first; with less room than the first segment: EINVAL, nothing copied;
 * with the header's length: the whole message.
 */
static void case_rmpp(void)
{
	int before = kd_failures, pkey;

	for (pkey = 0; pkey <= 1; pkey++) {
		struct dest to_sa = { .lid = (uint16_t)host.sm_lid, .qpn = QP1_GSI,
				      .qkey = UMAD_QKEY, .sl = (uint8_t)host.sm_sl,
				      .timeout_ms = 1000, .retries = 2 };
		uint8_t mad[MAD_SIZE], *buf;
		struct ib_user_mad hdr;
		size_t whole;
		struct dev d;
		int agent;
		ssize_t n;

		if (dev_open(&d, 0, pkey) < 0)
			continue;
		buf = calloc(1, 1 << 16);
		agent = reg1(&d, QP1_GSI, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION,
			     UMAD_RMPP_VERSION, no_methods);
		CHECK_EQ(agent, 0);
		kd_sa_node_table(mad, 0x900);
		CHECK_EQ(dev_send(&d, (uint32_t)agent, mad, sizeof(mad), &to_sa), d.hdr + MAD_SIZE);
		CHECK(readable(&d, ANSWER_MS), "no answer from the SA");

		memset(buf, 0xa5, d.hdr + MAD_SIZE);
		CHECK_ERRNO(read(d.fd, buf, d.hdr + MAD_SIZE - 1), EINVAL);
		CHECK_EQ(buf[0], 0xa5);
		CHECK_ERRNO(read(d.fd, buf, d.hdr + MAD_SIZE), ENOSPC);
		hdr = header_of(&d, buf);
		whole = hdr.length;
		CHECK(whole > d.hdr + MAD_SIZE && whole < (1 << 16), "length %zu", whole);
		CHECK_EQ(hdr.agent_id, agent);
		CHECK_EQ(hdr.status, 0);
		CHECK(readable(&d, 0), "the message did not stay queued");
		CHECK_ERRNO(read(d.fd, buf, whole - 1), ENOSPC);
		if (whole > d.hdr + MAD_SIZE && whole < (1 << 16)) {
			memset(buf, 0, whole);
			n = read(d.fd, buf, whole);
			CHECK_EQ(n, (ssize_t)whole);
			CHECK_EQ(header_of(&d, buf).length, whole);
			CHECK_EQ(kd_tid_low(buf + d.hdr), 0x900);
			kd_check_node_table(buf + d.hdr, whole - d.hdr, n_nodes, host.node_guid);
		}
		CHECK(!readable(&d, 0), "more queued than the one message");
		free(buf);
		dev_close(&d);
	}
	kd_case_done("RMPP: ENOSPC with the whole length for a read of header + 256, EINVAL "
		     "below it, the whole message at that length; both layouts", before);
}

/* --- issm ---------------------------------------------------------------------------- */

static int cap_is_sm(long long cap)
{
	return cap >= 0 && (cap & PORT_CAP_IS_SM);
}

/* IsSM as sysfs's cap_mask and the port's SMA show it: 1, 0, or -1 if they disagree. */
static int is_sm(void)
{
	int sysfs = cap_is_sm(kd_port_value(&host, SYS_PORT_CAPMASK));
	int smp = cap_is_sm(smp_cap_mask());

	CHECK_EQ(sysfs, smp);
	return sysfs == smp ? sysfs : -1;
}

/* Wait until IsSM is want (an issm device is handed on or closed in another thread). */
static int is_sm_becomes(int want)
{
	int i, now = -1;

	for (i = 0; i < 100 && (now = is_sm()) != want; i++)
		kd_sleep_ms(20);
	return now;
}

/*
 * ib_umad_sm_open/close: an open sets the port's IsSM and holds the device
 * (a semaphore); a second open with O_NONBLOCK fails with EAGAIN, without
 * it sleeps until the holder closes, or until a signal (EINTR); a close
 * clears IsSM and hands the device on.  The file has no read, write or
 * ioctl (EINVAL, EINVAL, ENOTTY).
 */
static void case_issm(void)
{
	char path[PATH_MAX];
	int before = kd_failures, fd1, fd, pipe_up[2], pipe_end[2];
	struct kd_blocked b;
	char byte;
	pid_t child;

	kd_dev_path(&host, SYSFS_ISSM_NAME, 0, path, sizeof(path));
	CHECK_EQ(is_sm(), 0);
	fd1 = open(path, O_RDWR | O_CLOEXEC);
	CHECK(fd1 >= 0, "open %s: %s", path, strerror(errno));
	CHECK_EQ(is_sm(), 1);
	CHECK_ERRNO(read(fd1, &byte, 1), EINVAL);
	CHECK_ERRNO(write(fd1, "x", 1), EINVAL);
	CHECK_ERRNO(ioctl(fd1, IB_USER_MAD_ENABLE_PKEY), ENOTTY);
	CHECK_ERRNO(open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK), EAGAIN);
	kd_case_done("issm: an open sets IsSM (sysfs and PortInfo); a second with O_NONBLOCK is "
		     "EAGAIN; no read, write or ioctl", before);

	before = kd_failures;
	kd_blocked_start(&b, do_issm_open, path);
	kd_blocked_wait_in(&b, SYS_openat, ANSWER_MS);
	kd_blocked_signal(&b);
	if (kd_blocked_join(&b, ANSWER_MS) < 0)
		exit(1);
	CHECK_EQ(b.result, -1);
	CHECK_EQ(b.err, EINTR);
	CHECK_EQ(is_sm(), 1);
	kd_case_done("issm: a signal (no SA_RESTART) ends an open waiting for it with EINTR",
		     before);

	before = kd_failures;
	kd_blocked_start(&b, do_issm_open, path);
	kd_blocked_wait_in(&b, SYS_openat, ANSWER_MS);
	kd_sleep_ms(BLOCKED_MS);
	CHECK(!kd_blocked_done(&b), "a second open did not wait");
	CHECK_EQ(close(fd1), 0);
	if (kd_blocked_join(&b, ANSWER_MS) < 0)
		exit(1);
	fd = b.result;
	CHECK(fd >= 0, "the waiting open failed: %s", strerror(b.err));
	CHECK_EQ(is_sm_becomes(1), 1);
	CHECK_ERRNO(open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK), EAGAIN);
	kd_case_done("issm: an open waits until the holder (another thread) closes", before);

	/* Another process waits its turn, gets it when this one closes, and lets go at exit. */
	before = kd_failures;
	if (pipe(pipe_up) < 0 || pipe(pipe_end) < 0)
		exit(1);
	child = fork();
	if (child == 0) {
		int held;

		/* Not this process's copy of the parent's file: the parent's close must free it. */
		close(fd);
		held = open(path, O_RDWR | O_CLOEXEC);
		close(pipe_end[1]);
		byte = held >= 0 ? 'y' : 'n';
		if (write(pipe_up[1], &byte, 1) != 1 || read(pipe_end[0], &byte, 1) < 0)
			_exit(1);
		_exit(0);	/* the exit closes it */
	}
	close(pipe_up[1]);
	close(pipe_end[0]);
	{
		struct pollfd p = { .fd = pipe_up[0], .events = POLLIN };

		CHECK_EQ(poll(&p, 1, BLOCKED_MS), 0);
		CHECK_EQ(close(fd), 0);
		CHECK_EQ(poll(&p, 1, ANSWER_MS), 1);
		CHECK(read(pipe_up[0], &byte, 1) == 1 && byte == 'y', "the other process's open "
		      "failed");
	}
	CHECK_EQ(is_sm_becomes(1), 1);
	CHECK_ERRNO(open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK), EAGAIN);
	close(pipe_end[1]);
	waitpid(child, NULL, 0);
	close(pipe_up[0]);
	CHECK_EQ(is_sm_becomes(0), 0);
	/* Free again: the interrupted open took no place in the line. */
	fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	CHECK_EQ(is_sm(), 1);
	if (fd >= 0)
		close(fd);
	CHECK_EQ(is_sm_becomes(0), 0);
	kd_case_done("issm: an open in another process waits, gets it at the close; its exit "
		     "clears IsSM", before);
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "umad") && strcmp(argv[2], "issm")) ||
	    (!strcmp(argv[2], "umad") && argc < 4)) {
		fprintf(stderr, "usage: %s MOUNT umad NODES | MOUNT issm\n", argv[0]);
		return 2;
	}
	if (kd_host_load(&host, argv[1]) < 0)
		return 1;
	kd_signal_setup();
	if (!strcmp(argv[2], "umad")) {
		n_nodes = (unsigned)atoi(argv[3]);
		case_layouts();
		case_registration();
		case_write_errors();
		case_read_errors();
		case_blocking_read();
		case_close_while_reading();
		case_poll();
		case_timeout();
		case_rmpp();
	} else {
		case_issm();
	}
	if (kd_failures)
		fprintf(stderr, "%d check(s) failed\n", kd_failures);
	return kd_failures ? 1 : 0;
}
