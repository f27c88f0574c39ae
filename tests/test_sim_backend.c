/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend through the public API, as opensm and the diags use it:
 * the host's CA and ports with kernel-like values that follow what an SM
 * sets, the issm file and CapabilityMask.IsSM, a descriptor that polls
 * readable exactly when a MAD is waiting, timeouts as the kernel reports
 * them, the kernel's registration rules, and many threads on one port.
 * The process attaches at Hca1 of the embedded default fabric.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

#define MAD_LEN 256
#define IS_SM 0x2u

struct msg {
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_LEN];
};

static uint8_t *mad_of(struct msg *m)
{
	return umad_get_mad(m->buf);
}

/* A directed-route SMP; path is the list of ports out of each hop ("" for the host itself). */
static void dr_smp(struct msg *m, uint8_t method, uint16_t attr, uint32_t mod, const char *path,
		   uint32_t tid)
{
	uint8_t *mad = mad_of(m);
	int hops = 0;

	memset(m->buf, 0, sizeof(m->buf));
	umad_set_addr(m->buf, 0xffff, 0, 0, 0);
	mad[0] = 1;
	mad[1] = 0x81;
	mad[2] = 1;
	mad[3] = method;
	mad[12] = (uint8_t)(tid >> 24);
	mad[13] = (uint8_t)(tid >> 16);
	mad[14] = (uint8_t)(tid >> 8);
	mad[15] = (uint8_t)tid;
	mad[16] = (uint8_t)(attr >> 8);
	mad[17] = (uint8_t)attr;
	mad[20] = (uint8_t)(mod >> 24);
	mad[21] = (uint8_t)(mod >> 16);
	mad[22] = (uint8_t)(mod >> 8);
	mad[23] = (uint8_t)mod;
	memset(mad + 32, 0xff, 4);
	while (*path) {
		char *end;

		mad[128 + ++hops] = (uint8_t)strtoul(path, &end, 10);
		path = *end ? end + 1 : end;
	}
	mad[7] = (uint8_t)hops;
}

static int open_smp_port(int *agent)
{
	int fd = umad_open_port("sim0", 1);

	assert_true(fd >= 0);
	*agent = umad_register(fd, 0x81, 1, 0, NULL);
	assert_true(*agent >= 0);
	return fd;
}

/* Send and wait for the answer (or the timeout); the umad status. */
static int round_trip(int fd, int agent, struct msg *m, int timeout_ms, int retries)
{
	int len = MAD_LEN;

	assert_int_equal(umad_send(fd, agent, m->buf, MAD_LEN, timeout_ms, retries), 0);
	assert_int_equal(umad_recv(fd, m->buf, &len, -1), agent);
	return umad_status(m->buf);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms);
}

/* --- what the host looks like ------------------------------------------------ */

static void test_cas_and_ports(void **state)
{
	char names[4][UMAD_CA_NAME_LEN];
	__be64 guids[4];
	umad_ca_t ca;
	umad_port_t port;

	(void)state;
	assert_int_equal(umad_get_cas_names(names, 4), 1);
	assert_string_equal(names[0], "sim0");
	assert_int_equal(umad_get_ca("sim0", &ca), 0);
	assert_int_equal(ca.numports, 2);
	assert_int_equal(be64toh(ca.node_guid), 0x100000);
	assert_int_equal(be64toh(ca.system_guid), 0x100000);
	assert_int_equal(ca.node_type, 1);
	assert_non_null(ca.ports[1]);
	assert_non_null(ca.ports[2]);
	assert_int_equal(umad_release_ca(&ca), 0);
	assert_int_equal(umad_get_ca_portguids("sim0", guids, 4), 3);
	assert_int_equal(be64toh(guids[1]), 0x100001);
	assert_int_equal(be64toh(guids[2]), 0x100002);

	assert_int_equal(umad_get_port("sim0", 1, &port), 0);
	assert_int_equal(port.portnum, 1);
	assert_int_equal(port.state, 2);		/* Init: no SM yet */
	assert_int_equal(port.phys_state, 5);		/* LinkUp */
	assert_int_equal(port.rate, 10);		/* 4X SDR */
	assert_int_equal(port.base_lid, 0);
	assert_int_equal(be64toh(port.port_guid), 0x100001);
	assert_int_equal(be64toh(port.gid_prefix), 0xfe80000000000000ull);
	assert_string_equal(port.link_layer, "InfiniBand");
	assert_int_equal(port.pkeys[0], 0xffff);
	umad_release_port(&port);
	assert_int_equal(umad_get_port("sim0", 2, &port), 0);
	assert_int_equal(port.state, 1);		/* not cabled */
	assert_int_equal(port.phys_state, 2);
	umad_release_port(&port);
	/* The default CA and port: the first active one, as rdma-core chooses. */
	assert_int_equal(umad_get_port(NULL, 0, &port), 0);
	assert_string_equal(port.ca_name, "sim0");
	assert_int_equal(port.portnum, 1);
	umad_release_port(&port);

	assert_true(umad_get_port("sim0", 3, &port) < 0);
	assert_true(umad_get_ca("mlx5_0", &ca) < 0);
	assert_true(umad_open_port("sim0", 3) < 0);
	assert_true(umad_open_port("nosuch", 1) < 0);
}

/* After an SM's Set, the next umad_get_port shows it. */
static void test_values_are_live(void **state)
{
	struct msg m;
	umad_port_t port;
	uint8_t *data;
	int agent, fd = open_smp_port(&agent);

	(void)state;
	dr_smp(&m, 0x01, 0x15, 0, "", 1);
	assert_int_equal(round_trip(fd, agent, &m, 100, 0), 0);
	data = mad_of(&m) + 64;
	data[16] = 0x00;
	data[17] = 0x42;		/* LID */
	data[18] = 0x00;
	data[19] = 0x07;		/* MasterSMLID */
	data[32] = (uint8_t)((data[32] & 0xf0) | 3);	/* Armed */
	data[33] &= 0x0f;
	data[34] = 1;			/* LMC */
	{
		struct msg set;

		memcpy(&set, &m, sizeof(set));
		dr_smp(&set, 0x02, 0x15, 0, "", 2);
		memcpy(mad_of(&set) + 64, data, 64);
		assert_int_equal(round_trip(fd, agent, &set, 100, 0), 0);
		assert_int_equal(mad_of(&set)[4] & 0x7f, 0);
	}
	assert_int_equal(umad_get_port("sim0", 1, &port), 0);
	assert_int_equal(port.base_lid, 0x42);
	assert_int_equal(port.lmc, 1);
	assert_int_equal(port.sm_lid, 7);
	assert_int_equal(port.state, 3);
	umad_release_port(&port);
	assert_int_equal(umad_close_port(fd), 0);
}

/* Holding the issm file open is what sets CapabilityMask.IsSM, as the kernel's issm device. */
static uint32_t host_capmask(int fd, int agent)
{
	struct msg m;
	uint8_t *d;

	dr_smp(&m, 0x01, 0x15, 0, "", 3);
	assert_int_equal(round_trip(fd, agent, &m, 100, 0), 0);
	d = mad_of(&m) + 64 + 20;
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

static void test_issm(void **state)
{
	char path[256];
	umad_port_t port;
	int agent, fd = open_smp_port(&agent), issm;

	(void)state;
	assert_int_equal(umad_get_issm_path("sim0", 1, path, sizeof(path)), 0);
	assert_int_equal(host_capmask(fd, agent) & IS_SM, 0);
	/* opensm opens it with a plain open(). */
	issm = open(path, O_RDWR | O_NONBLOCK);
	assert_true(issm >= 0);
	assert_int_equal(host_capmask(fd, agent) & IS_SM, IS_SM);
	assert_int_equal(umad_get_port("sim0", 1, &port), 0);
	assert_int_equal(be32toh(port.capmask) & IS_SM, IS_SM);
	umad_release_port(&port);
	close(issm);
	assert_int_equal(host_capmask(fd, agent) & IS_SM, 0);
	assert_int_equal(umad_get_port("sim0", 1, &port), 0);
	assert_int_equal(be32toh(port.capmask) & IS_SM, 0);
	umad_release_port(&port);
	assert_true(umad_get_issm_path("sim0", 3, path, sizeof(path)) < 0);
	umad_close_port(fd);
}

/* --- the descriptor, answers and timeouts ------------------------------------------ */

static void test_fd_readiness(void **state)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct msg m;
	int agent, fd = open_smp_port(&agent), ep, len;

	(void)state;
	ep = epoll_create1(0);
	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, umad_get_fd(fd), &ev), 0);
	assert_int_equal(umad_get_fd(fd), fd);
	assert_int_equal(readable(fd, 0), 0);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	/* Two answers waiting: readable until both are read, then not. */
	dr_smp(&m, 0x01, 0x11, 0, "1", 10);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	dr_smp(&m, 0x01, 0x11, 0, "1,7", 11);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	assert_int_equal(readable(fd, 0), 1);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 1);
	assert_int_equal(umad_poll(fd, 0), 0);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), agent);
	assert_int_equal(len, MAD_LEN);
	assert_int_equal(mad_of(&m)[15], 10);
	assert_int_equal(readable(fd, 0), 1);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), agent);
	assert_int_equal(mad_of(&m)[15], 11);
	assert_int_equal(readable(fd, 0), 0);
	assert_int_equal(epoll_wait(ep, &out, 1, 0), 0);
	assert_int_equal(umad_poll(fd, 0), -ETIMEDOUT);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 0), -EAGAIN);
	/* A send with no timeout expects no answer, and none comes. */
	dr_smp(&m, 0x01, 0x11, 0, "1", 12);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 0, 0), 0);
	assert_int_equal(readable(fd, 50), 0);
	close(ep);
	umad_close_port(fd);
}

static void test_timeout(void **state)
{
	struct msg m;
	double start, waited;
	int agent, fd = open_smp_port(&agent), len;

	(void)state;
	/* Into an uncabled switch port: lost; after timeout x (retries + 1), one completion. */
	dr_smp(&m, 0x01, 0x11, 0, "1,3", 0x77);
	start = now_ms();
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 40, 2), 0);
	assert_int_equal(readable(fd, 0), 0);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, -1), agent);
	waited = now_ms() - start;
	assert_true(waited >= 119.0);
	assert_int_equal(umad_status(m.buf), ETIMEDOUT);
	assert_int_equal(len, 24);	/* the MAD header of the request */
	assert_int_equal(mad_of(&m)[15], 0x77);
	assert_int_equal(mad_of(&m)[17], 0x11);
	/* Exactly one. */
	assert_int_equal(readable(fd, 150), 0);
	umad_close_port(fd);
}

static uint32_t tid_high(struct msg *m)
{
	const uint8_t *mad = mad_of(m);

	return (uint32_t)mad[8] << 24 | (uint32_t)mad[9] << 16 | (uint32_t)mad[10] << 8 | mad[11];
}

/*
 * The upper half of a request's TID is the kernel's: each agent's own
 * hi_tid, 24 bits, distinct between agents; the answer and a timeout carry
 * it, the low half is the program's.  A response goes out as written.
 */
static void test_hi_tid(void **state)
{
	struct msg m;
	int a1, a2, fd1 = open_smp_port(&a1), fd2 = open_smp_port(&a2), len;
	uint32_t hi1, hi2;

	(void)state;
	dr_smp(&m, 0x01, 0x11, 0, "", 0x55);
	mad_of(&m)[8] = 0xde;			/* the program's own upper half: replaced */
	assert_int_equal(round_trip(fd1, a1, &m, 100, 0), 0);
	hi1 = tid_high(&m);
	assert_int_equal(mad_of(&m)[15], 0x55);
	dr_smp(&m, 0x01, 0x11, 0, "", 0x55);
	assert_int_equal(round_trip(fd2, a2, &m, 100, 0), 0);
	hi2 = tid_high(&m);
	assert_int_equal(mad_of(&m)[15], 0x55);
	assert_true(hi1 != 0 && hi1 <= 0xffffff);
	assert_true(hi2 != 0 && hi2 <= 0xffffff);
	assert_true(hi1 != hi2);
	/* The same agent keeps its hi_tid; a timeout shows it too. */
	dr_smp(&m, 0x01, 0x11, 0, "1,3", 0x56);
	assert_int_equal(round_trip(fd1, a1, &m, 20, 0), ETIMEDOUT);
	assert_int_equal(tid_high(&m), hi1);
	/* A response keeps the upper half it was written with. */
	dr_smp(&m, 0x81, 0x11, 0, "", 0x57);
	mad_of(&m)[8] = 0xab;
	assert_int_equal(umad_send(fd1, a1, m.buf, MAD_LEN, 20, 0), 0);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd1, m.buf, &len, 1000), a1);
	assert_int_equal(umad_status(m.buf), ETIMEDOUT);
	assert_int_equal(tid_high(&m), 0xab000000u);
	/* An agent registered again gets a hi_tid no other agent has. */
	assert_int_equal(umad_unregister(fd2, a2), 0);
	a2 = umad_register(fd2, 0x81, 1, 0, NULL);
	assert_true(a2 >= 0);
	dr_smp(&m, 0x01, 0x11, 0, "", 0x58);
	assert_int_equal(round_trip(fd2, a2, &m, 100, 0), 0);
	assert_true(tid_high(&m) != hi1);
	umad_close_port(fd1);
	umad_close_port(fd2);
}

/* Every send with a timeout completes exactly once: answers and traps the fabric does not take too. */
static void test_every_timed_send_completes(void **state)
{
	static const uint8_t methods[] = { 0x81, 0x07, 0x86 };	/* GetResp, TrapRepress, ReportResp */
	struct msg m;
	size_t i;
	int agent, fd = open_smp_port(&agent), len;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		dr_smp(&m, methods[i], 0x11, 0, "", 0x100 + (uint32_t)i);
		assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 20, 0), 0);
		len = MAD_LEN;
		assert_int_equal(umad_recv(fd, m.buf, &len, 1000), agent);
		assert_int_equal(umad_status(m.buf), ETIMEDOUT);
		assert_int_equal(mad_of(&m)[3], methods[i]);
		assert_int_equal(mad_of(&m)[15], (uint8_t)(0x100 + i));
		assert_int_equal(readable(fd, 60), 0);		/* once */
	}
	/* A Trap to an SMA: answered, with status "method not supported". */
	dr_smp(&m, 0x05, 0x11, 0, "", 0x1ff);
	assert_int_equal(round_trip(fd, agent, &m, 20, 0), 0);
	assert_int_equal(mad_of(&m)[3], 0x81);
	assert_int_equal(mad_of(&m)[5] & 0x1c, 0x08);
	assert_int_equal(readable(fd, 60), 0);
	/* Without a timeout: no completion at all. */
	dr_smp(&m, 0x81, 0x11, 0, "", 0x200);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 0, 0), 0);
	assert_int_equal(readable(fd, 60), 0);
	umad_close_port(fd);
}

/* What the kernel's write() refuses, refused here too: umad_send gives -EIO with errno. */
static void test_kernel_send_rules(void **state)
{
	uint8_t big[sizeof(struct ib_user_mad) + 4096];
	struct msg m;
	int agent, fd = open_smp_port(&agent), gmp, len;

	(void)state;
	/* Longer than one MAD on an agent the kernel does not do RMPP for. */
	memset(big, 0, sizeof(big));
	dr_smp(&m, 0x01, 0x11, 0, "", 1);
	memcpy(big, m.buf, sizeof(m.buf));
	errno = 0;
	assert_int_equal(umad_send(fd, agent, big, 4096, 10, 0), -EIO);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(umad_send(fd, agent, big, MAD_LEN + 1, 10, 0), -EIO);
	assert_int_equal(readable(fd, 30), 0);
	/* Shorter than a MAD and RMPP header. */
	assert_int_equal(umad_send(fd, agent, m.buf, 35, 10, 0), -EIO);
	assert_int_equal(errno, EINVAL);
	/* A directed route that does not start at this port (C14-9), or has 64 hops. */
	dr_smp(&m, 0x01, 0x11, 0, "2", 2);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 10, 0), -EIO);
	assert_int_equal(errno, EINVAL);
	dr_smp(&m, 0x01, 0x11, 0, "1", 3);
	mad_of(&m)[7] = 64;
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 10, 0), -EIO);
	assert_int_equal(errno, EINVAL);
	/* A request whose TID is still waiting for its answer (it goes nowhere: uncabled port 3). */
	dr_smp(&m, 0x01, 0x11, 0, "1,3", 4);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), 0);
	assert_int_equal(umad_send(fd, agent, m.buf, MAD_LEN, 100, 0), -EIO);
	assert_int_equal(errno, EINVAL);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 1000), agent);
	assert_int_equal(umad_status(m.buf), ETIMEDOUT);
	/* Once it completed, the TID is free again. */
	dr_smp(&m, 0x01, 0x11, 0, "1", 4);
	assert_int_equal(round_trip(fd, agent, &m, 100, 0), 0);
	/* An SMP sent through a GSI agent leaves (on QP1), and is lost. */
	gmp = umad_register(fd, 0x04, 1, 0, NULL);
	assert_true(gmp >= 0);
	dr_smp(&m, 0x01, 0x11, 0, "1", 5);
	assert_int_equal(umad_send(fd, gmp, m.buf, MAD_LEN, 10, 0), 0);
	len = MAD_LEN;
	assert_int_equal(umad_recv(fd, m.buf, &len, 1000), gmp);
	assert_int_equal(umad_status(m.buf), ETIMEDOUT);
	umad_close_port(fd);
}

/* --- close while others use the port ------------------------------------------------- */

struct closing_port {
	int fd, agent;
	atomic_int stop;
	atomic_long sent, failed_badly;
};

static void *keep_sending(void *arg)
{
	static atomic_uint next_thread;
	struct closing_port *cp = arg;
	struct msg m;
	uint32_t tid = atomic_fetch_add(&next_thread, 1) << 24;	/* TIDs of their own */

	while (!atomic_load(&cp->stop)) {
		int len = MAD_LEN, r;

		tid++;
		dr_smp(&m, 0x01, 0x11, 0, tid % 3 ? "1" : "1,3", tid);
		r = umad_send(cp->fd, cp->agent, m.buf, MAD_LEN, 5, 0);
		/* Once closed: -EIO with errno EBADF, as a closed file's write(). */
		if (r == 0)
			atomic_fetch_add(&cp->sent, 1);
		else if (errno != EBADF)
			atomic_fetch_add(&cp->failed_badly, 1);
		r = umad_recv(cp->fd, m.buf, &len, 0);
		if (r < 0 && r != -EAGAIN && r != -EBADF)
			atomic_fetch_add(&cp->failed_badly, 1);
	}
	return NULL;
}

static void test_close_while_in_use(void **state)
{
	pthread_t threads[4];
	int round, i;

	(void)state;
	for (round = 0; round < 20; round++) {
		struct closing_port cp = { 0 };
		struct msg m;
		int len = MAD_LEN;

		cp.fd = open_smp_port(&cp.agent);
		for (i = 0; i < 4; i++)
			assert_int_equal(pthread_create(&threads[i], NULL, keep_sending, &cp), 0);
		while (atomic_load(&cp.sent) < 50)
			sched_yield();
		assert_int_equal(umad_close_port(cp.fd), 0);
		/* Late calls on the closed port: EBADF, no crash, no hang. */
		dr_smp(&m, 0x01, 0x11, 0, "1", 1);
		assert_int_equal(umad_send(cp.fd, cp.agent, m.buf, MAD_LEN, 5, 0), -EIO);
		assert_int_equal(errno, EBADF);
		assert_int_equal(umad_recv(cp.fd, m.buf, &len, 0), -EBADF);
		assert_true(umad_close_port(cp.fd) < 0);
		assert_true(umad_register(cp.fd, 0x81, 1, 0, NULL) < 0);
		usleep(2000);
		atomic_store(&cp.stop, 1);
		for (i = 0; i < 4; i++)
			pthread_join(threads[i], NULL);
		assert_int_equal(atomic_load(&cp.failed_badly), 0);
	}
}

/* --- registration: the kernel's rules --------------------------------------------- */

static void test_registration(void **state)
{
	long all_methods[16 / sizeof(long)], get_only[16 / sizeof(long)];
	int fd = umad_open_port("sim0", 1), fd2 = umad_open_port("sim0", 1), ids[33], i, a, b;
	struct umad_reg_attr attr = { .mgmt_class = 0x04, .mgmt_class_version = 1 };
	uint32_t id;

	(void)state;
	assert_true(fd >= 0 && fd2 >= 0);
	memset(all_methods, 0xff, sizeof(all_methods));
	memset(get_only, 0, sizeof(get_only));
	get_only[0] = 1 << 1;
	/* Overlapping methods of one class and version: refused, on the same file or another. */
	a = umad_register(fd, 0x81, 1, 0, get_only);
	assert_true(a >= 0);
	assert_true(umad_register(fd, 0x81, 1, 0, all_methods) < 0);
	assert_true(umad_register(fd2, 0x81, 1, 0, get_only) < 0);
	/* Another version, another class, or no methods at all: accepted. */
	b = umad_register(fd2, 0x81, 2, 0, get_only);
	assert_true(b >= 0);
	assert_true(umad_register(fd, 0x01, 1, 0, all_methods) >= 0);
	/* SMPs take no RMPP; an RMPP flag the kernel does not know is refused with the supported ones. */
	assert_true(umad_register(fd, 0x81, 3, 1, NULL) < 0);
	attr.flags = 0x80000000u;
	assert_int_equal(umad_register2(fd, &attr, &id), EINVAL);	/* a positive errno, as rdma-core */
	assert_int_equal(attr.flags, UMAD_USER_RMPP);
	attr.flags = 0;
	assert_int_equal(umad_register2(fd, &attr, &id), 0);
	assert_int_equal(umad_unregister(fd, (int)id), 0);
	assert_true(umad_unregister(fd, (int)id) < 0);
	umad_close_port(fd);
	umad_close_port(fd2);

	/* 32 agents per opened port, then no more. */
	fd = umad_open_port("sim0", 1);
	for (i = 0; i < 32; i++) {
		ids[i] = umad_register(fd, 0x04, 1, 0, NULL);
		assert_int_equal(ids[i], i);
	}
	assert_true(umad_register(fd, 0x04, 1, 0, NULL) < 0);
	assert_int_equal(umad_unregister(fd, ids[5]), 0);
	assert_int_equal(umad_register(fd, 0x04, 1, 0, NULL), 5);
	/* A send through an agent that is not registered fails. */
	assert_int_equal(umad_unregister(fd, ids[7]), 0);
	{
		struct msg m;

		dr_smp(&m, 0x01, 0x11, 0, "", 1);
		assert_true(umad_send(fd, 7, m.buf, MAD_LEN, 10, 0) < 0);
		assert_true(umad_send(fd, 40, m.buf, MAD_LEN, 10, 0) < 0);
	}
	umad_close_port(fd);
}

/* --- threads --------------------------------------------------------------------------- */

#define THREADS 4
#define PER_THREAD 2000

struct shared_port {
	int fd, agent;
	int received[THREADS];
	int bad;
};

static void *sender(void *arg)
{
	struct shared_port *sp = arg;
	static int next_index;
	int me = __atomic_fetch_add(&next_index, 1, __ATOMIC_SEQ_CST) % THREADS, i;
	struct msg m;

	for (i = 0; i < PER_THREAD; i++) {
		dr_smp(&m, 0x01, 0x11, 0, i % 2 ? "1,7,2" : "1", (uint32_t)(me << 24 | i));
		if (umad_send(sp->fd, sp->agent, m.buf, MAD_LEN, 1000, 0) != 0)
			__atomic_fetch_add(&sp->bad, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void *receiver(void *arg)
{
	struct shared_port *sp = arg;
	struct msg m;
	int n;

	for (n = 0; n < THREADS * PER_THREAD; n++) {
		int len = MAD_LEN;
		uint8_t *mad = mad_of(&m);

		if (umad_recv(sp->fd, m.buf, &len, 5000) != sp->agent || umad_status(m.buf) ||
		    mad[3] != 0x81 || mad[12] >= THREADS) {
			sp->bad++;
			break;
		}
		sp->received[mad[12]]++;
	}
	return NULL;
}

/* opensm's pattern: several threads send on one port, one thread receives. */
static void test_threads_share_a_port(void **state)
{
	struct shared_port sp = { 0 };
	pthread_t senders[THREADS], rx;
	int i;

	(void)state;
	sp.fd = open_smp_port(&sp.agent);
	assert_int_equal(pthread_create(&rx, NULL, receiver, &sp), 0);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&senders[i], NULL, sender, &sp), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(senders[i], NULL);
	pthread_join(rx, NULL);
	assert_int_equal(sp.bad, 0);
	for (i = 0; i < THREADS; i++)
		assert_int_equal(sp.received[i], PER_THREAD);
	assert_int_equal(readable(sp.fd, 0), 0);
	umad_close_port(sp.fd);
}

static int group_setup(void **state)
{
	(void)state;
	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	/* The power-on state an SM under test starts from: ports Init, no LIDs. */
	setenv("UMAD_SIM_SM", "none", 1);
	unsetenv("UMAD_SIM_TOPOLOGY");
	unsetenv("UMAD_SIM_HOST");
	unsetenv("UMAD_SIM_SYSFS");
	unsetenv("UMAD_CAPTURE");
	return umad_init();
}

static int group_teardown(void **state)
{
	(void)state;
	return umad_done();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cas_and_ports),
		cmocka_unit_test(test_issm),
		cmocka_unit_test(test_fd_readiness),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_hi_tid),
		cmocka_unit_test(test_every_timed_send_completes),
		cmocka_unit_test(test_kernel_send_rules),
		cmocka_unit_test(test_close_while_in_use),
		cmocka_unit_test(test_registration),
		cmocka_unit_test(test_threads_share_a_port),
		/* Last: it changes the host port's LID and state. */
		cmocka_unit_test(test_values_are_live),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
