/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The capture tap (UMAD_CAPTURE) through the public API, on the loopback
 * test module: what reaches the file, its mode, redaction, timeouts, and a
 * capturing process killed with SIGKILL.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <pcap/pcap.h>

#include <infiniband/umad.h>
#include "base/mad_wire.h"
#include "pcap/capture_meta.h"
#include "pcap/pcapng_reader.h"
#include "tests/capture_writers.h"
#include "tests/child.h"

#if !defined(TEST_MODULE_DIR) || !defined(REPLAY_MODULE_DIR)
#error "TEST_MODULE_DIR and REPLAY_MODULE_DIR must name the module directories"
#endif

#define ERF_HDR 16
#define MAD_IN_PACKET (IB_LRH_LEN + IB_BTH_LEN + IB_DETH_LEN)
#define MAD_AT (ERF_HDR + MAD_IN_PACKET)
/* The umad buffers here: the header, then the MAD. */
#define UMAD_HDR 64
#define ATTR_PORT_COUNTERS 0x0012	/* PerfMgt */
/* An attribute the loopback module answers by reusing the request's buffer at once. */
#define ATTR_LOOPBACK_REUSE 0xff7f

static char path[128];
static const uint8_t mkey[MAD_KEY_SIZE] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

/* The common header of a MAD: class, class version, method, attribute. */
static void set_mad_hdr(uint8_t *mad, uint8_t mgmt_class, uint8_t version, uint8_t method,
			uint16_t attr)
{
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = mgmt_class;
	mad[MAD_OFF_CLASS_VERSION] = version;
	mad[MAD_OFF_METHOD] = method;
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
}

static int make_path(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/umad-tap-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);	/* the tap creates it */
	return 0;
}

static int remove_path(void **state)
{
	(void)state;
	unlink(path);
	unsetenv("UMAD_CAPTURE_REDACT");
	return 0;
}

/* A MAD of class mgmt_class (Get of attr) through the loopback port, out and back. */
static int send_and_receive(int fd, int agent, uint8_t mgmt_class, uint16_t attr, size_t len,
			    uint32_t status)
{
	uint8_t buf[UMAD_HDR + MAD_SIZE] = { 0 };
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	uint8_t *mad = buf + UMAD_HDR;
	static uint8_t tid;
	int got = MAD_SIZE;

	mad[MAD_OFF_TID_LOW + 3] = ++tid;	/* each request its own transaction */
	set_mad_hdr(mad, mgmt_class, 1, UMAD_METHOD_GET, attr);
	if (mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE) {
		mad[SMP_OFF_HOP_CNT] = 1;
		memcpy(mad + SMP_OFF_MKEY, mkey, MAD_KEY_SIZE);
		put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
		put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
		umad_set_addr(buf, LID_PERMISSIVE, QP0_SMI, 0, 0);
	} else {
		umad_set_addr(buf, 2, QP1_GSI, 0, UMAD_QKEY);
	}
	umad->status = status;
	CHECK_EQ(umad_send(fd, agent, buf, (int)len, 100, 0), 0);
	CHECK_EQ(umad_recv(fd, buf, &got, 1000), agent);
	CHECK_EQ(got, (int)len);
	return 0;
}

static int capture_session(void)
{
	int fd, perf, smi;

	setenv("UMAD_CAPTURE", path, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	perf = umad_register(fd, UMAD_CLASS_PERF_MGMT, 1, 0, NULL);
	smi = umad_register(fd, UMAD_CLASS_SUBN_DIRECTED_ROUTE, 1, 0, NULL);
	CHECK(perf >= 0 && smi >= 0);
	if (send_and_receive(fd, perf, UMAD_CLASS_PERF_MGMT, ATTR_PORT_COUNTERS, MAD_SIZE, 0) < 0 ||
	    send_and_receive(fd, smi, UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_SM_ATTR_NODE_INFO,
			     MAD_SIZE, 0) < 0 ||
	    /* a timeout's shape */
	    send_and_receive(fd, perf, UMAD_CLASS_PERF_MGMT, ATTR_PORT_COUNTERS, MAD_HDR_SIZE,
			     ETIMEDOUT) < 0)
		return -1;
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

/* The records of the capture file: count, and the MAD bytes of record index 'which'. */
static int read_records(uint8_t *mad_out, int which)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p = pcap_open_offline(path, err);
	int n = 0, r;

	if (!p)
		fail_msg("libpcap: %s", err);
	assert_int_equal(pcap_datalink(p), DLT_ERF);
	while ((r = pcap_next_ex(p, &ph, &data)) == 1) {
		assert_true(ph->caplen >= MAD_AT + MAD_SIZE + IB_ICRC_LEN + IB_VCRC_LEN);
		if (n == which && mad_out)
			memcpy(mad_out, data + MAD_AT, MAD_SIZE);
		n++;
	}
	assert_int_equal(r, PCAP_ERROR_BREAK);	/* a clean end of file, no torn record */
	pcap_close(p);
	return n;
}

static void test_records_and_mode(void **state)
{
	struct child_result res;
	uint8_t mad[MAD_SIZE];
	struct stat st;

	(void)state;
	expect_child_ok(capture_session, "loopback", TEST_MODULE_DIR, &res);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(read_records(mad, 2), 6);
	assert_int_equal(mad_class(mad), UMAD_CLASS_SUBN_DIRECTED_ROUTE);
	assert_memory_equal(mad + SMP_OFF_MKEY, mkey, MAD_KEY_SIZE);	/* kept without redaction */
}

/*
 * Requests on P_Key indexes in turns: three, which with their answers make
 * fewer kinds of comment than the tap keeps formatted, then twelve, which
 * make more, then three again.
 */
#define PKEY_REQUESTS 60

static int pkey_index_of(int request)
{
	return request < 12 || request >= 36 ? request % 3 : request % 12;
}

static int requests_on_pkey_indexes(void)
{
	uint8_t buf[UMAD_HDR + MAD_SIZE], *mad = buf + UMAD_HDR;
	int fd, agent, i, got;

	setenv("UMAD_CAPTURE", path, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	agent = umad_register(fd, UMAD_CLASS_PERF_MGMT, 1, 0, NULL);
	CHECK(agent >= 0);
	for (i = 0; i < PKEY_REQUESTS; i++) {
		memset(buf, 0, sizeof(buf));
		set_mad_hdr(mad, UMAD_CLASS_PERF_MGMT, 1, UMAD_METHOD_GET, ATTR_PORT_COUNTERS);
		put_be32(mad + MAD_OFF_TID_LOW, (uint32_t)i);
		umad_set_addr(buf, 2, QP1_GSI, 0, UMAD_QKEY);
		CHECK_EQ(umad_set_pkey(buf, pkey_index_of(i)), 0);
		CHECK_EQ(umad_send(fd, agent, buf, MAD_SIZE, 100, 0), 0);
		got = MAD_SIZE;
		CHECK_EQ(umad_recv(fd, buf, &got, 1000), agent);
	}
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

/* Every request's comment names its own P_Key index, however the comments take turns. */
static void test_comments_follow_each_mad(void **state)
{
	struct capture_reader *r;
	struct capture_record rec;
	struct capture_meta meta;
	struct child_result res;
	struct umad_err err = UMAD_ERR_INIT;
	int got, requests = 0;

	(void)state;
	expect_child_ok(requests_on_pkey_indexes, "loopback", TEST_MODULE_DIR, &res);
	r = capture_open(path, &err);
	assert_non_null(r);
	while ((got = capture_next(r, &rec, &err)) == 1) {
		if (rec.direction != PCAPNG_DIR_OUTBOUND)
			continue;
		if (capture_meta_parse(rec.comment, &meta, &err) < 0)
			fail_msg("request %d: comment \"%s\": %s", requests, rec.comment, umad_err_text(&err));
		assert_int_equal(meta.have, CAPTURE_META_ALWAYS);
		if (meta.pkey_index != (uint32_t)pkey_index_of(requests))
			fail_msg("request %d: comment \"%s\" says pkey_index %u, not %d", requests,
				 rec.comment, meta.pkey_index, pkey_index_of(requests));
		requests++;
	}
	assert_int_equal(got, 0);
	capture_close(r);
	assert_int_equal(requests, PKEY_REQUESTS);
}

/* MADs through a port while the capture file cannot be created: they go through all the same. */
static int session_with_uncreatable_file(void)
{
	strcpy(path, "/nonexistent-umad-dir/capture.pcapng");
	return capture_session();
}

/*
 * The file is created by the writer thread, after the application has gone
 * on: failing, it says so once, the MADs are unaffected and nothing is
 * written anywhere.
 */
static void test_uncreatable_file(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(session_with_uncreatable_file, "loopback", TEST_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text, "UMAD_CAPTURE=/nonexistent-umad-dir/capture.pcapng: "
						"No such file or directory; not capturing"));
	assert_null(strstr(strstr(res.stderr_text, "not capturing") + 1, "not capturing"));
}

/* The MADs of a capture session, with a deadline: a capture that hangs the program fails. */
static int session_in_time(void)
{
	alarm(20);
	return capture_session();
}

/*
 * What is at UMAD_CAPTURE and is not a regular file is never written, nor
 * even opened (a FIFO with no reader would block the open, and every
 * close and exit behind it): the program says why once and runs on.
 */
static void test_not_regular_files_refused(void **state)
{
	char real[160], sym[128], dir[128];
	struct child_result res;
	struct stat st;
	char saved[128];
	FILE *f;

	(void)state;
	snprintf(saved, sizeof(saved), "%s", path);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_child_ok(session_in_time, "loopback", TEST_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text, ": a FIFO, not a regular file; not capturing"));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(path);

	/* A symbolic link: its target keeps its content and mode. */
	snprintf(real, sizeof(real), "%s.real", saved);
	snprintf(sym, sizeof(sym), "%s", saved);
	f = fopen(real, "w");
	assert_non_null(f);
	fputs("keep me", f);
	fclose(f);
	assert_int_equal(chmod(real, 0644), 0);
	assert_int_equal(symlink(real, sym), 0);
	expect_child_ok(session_in_time, "loopback", TEST_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text, ": a symbolic link, not a regular file; not capturing"));
	assert_int_equal(stat(real, &st), 0);
	assert_int_equal(st.st_size, 7);
	assert_int_equal(st.st_mode & 0777, 0644);
	unlink(sym);
	unlink(real);

	snprintf(dir, sizeof(dir), "%s", saved);
	assert_int_equal(mkdir(dir, 0700), 0);
	expect_child_ok(session_in_time, "loopback", TEST_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text, ": a directory, not a regular file; not capturing"));
	rmdir(dir);

	strcpy(path, "/dev/null");
	expect_child_ok(session_in_time, "loopback", TEST_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text, "UMAD_CAPTURE=/dev/null: a character device"));
	strcpy(path, saved);
}

/* Records per writer in the capture file, by our reader (libpcap counts all of them). */
static void count_by_writer(struct capture_writers *w)
{
	struct capture_record rec;
	struct capture_reader *r;
	struct umad_err err = UMAD_ERR_INIT;
	int got;

	memset(w, 0, sizeof(*w));
	r = capture_open(path, &err);
	if (!r)
		fail_msg("%s", umad_err_text(&err));
	while ((got = capture_next(r, &rec, &err)) == 1)
		assert_true(capture_writer_of(w, &rec) >= 0);
	if (got < 0)
		fail_msg("%s", umad_err_text(&err));
	capture_close(r);
}

/*
 * Two processes, one UMAD_CAPTURE: the second appends its own section
 * while the first is still capturing, and the first's later MADs go into a
 * section of the first's again.  Nothing is lost, nothing is mixed.
 */
static void test_second_process_appends(void **state)
{
	int ready[2], go[2], status;
	struct child_result res;
	struct capture_writers w;
	char c;
	pid_t first;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	first = fork();
	assert_true(first >= 0);
	if (first == 0) {
		int fd, perf, ok;

		setenv("UMAD_BACKEND", "loopback", 1);
		setenv("UMAD_MODULE_DIR", TEST_MODULE_DIR, 1);
		setenv("UMAD_CAPTURE", path, 1);
		fd = umad_open_port(NULL, 0);
		perf = fd >= 0 ? umad_register(fd, UMAD_CLASS_PERF_MGMT, 1, 0, NULL) : -1;
		ok = perf >= 0 && send_and_receive(fd, perf, UMAD_CLASS_PERF_MGMT, ATTR_PORT_COUNTERS,
						   MAD_SIZE, 0) == 0;
		/* The first round trip is in the file before the second process writes. */
		umad_done();
		c = ok ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		ok = ok && send_and_receive(fd, perf, UMAD_CLASS_PERF_MGMT, ATTR_PORT_COUNTERS,
					    MAD_SIZE, 0) == 0;
		ok = ok && umad_close_port(fd) == 0;
		exit(ok ? 0 : 1);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 'y');
	expect_child_ok(session_in_time, "loopback", TEST_MODULE_DIR, &res);
	assert_null(strstr(res.stderr_text, "libumad:"));
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(first, &status, 0), first);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Two round trips of the first, three of the second, read by libpcap to a clean end. */
	assert_int_equal(read_records(NULL, 0), 4 + 6);
	count_by_writer(&w);
	assert_int_equal(w.writers, 2);
	assert_int_equal(w.sections, 3);	/* first, second, first again */
	assert_int_equal(w.records[0], 4);
	assert_int_equal(w.records[1], 6);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	/* A later process appends too: nothing of the others goes. */
	expect_child_ok(session_in_time, "loopback", TEST_MODULE_DIR, &res);
	assert_null(strstr(res.stderr_text, "not capturing"));
	assert_int_equal(read_records(NULL, 0), 4 + 6 + 6);
	count_by_writer(&w);
	assert_int_equal(w.writers, 3);
}

/* %p in UMAD_CAPTURE: one file per process. */
static void test_pid_in_name(void **state)
{
	char pattern[128], saved[128], want[128];
	struct child_result res;
	pid_t pid;

	(void)state;
	snprintf(saved, sizeof(saved), "%s", path);
	snprintf(pattern, sizeof(pattern), "%.80s-%%p.pcapng", saved);
	snprintf(path, sizeof(path), "%s", pattern);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int r;

		setenv("UMAD_BACKEND", "loopback", 1);
		setenv("UMAD_MODULE_DIR", TEST_MODULE_DIR, 1);
		r = capture_session();
		_exit(r == 0 ? 0 : 1);
	}
	{
		int status;

		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	snprintf(want, sizeof(want), "%.80s-%d.pcapng", saved, (int)pid);
	snprintf(path, sizeof(path), "%s", want);
	assert_int_equal(read_records(NULL, 0), 6);
	unlink(want);
	snprintf(path, sizeof(path), "%s", saved);
	(void)res;
}

static void test_redaction(void **state)
{
	static const uint8_t zeros[MAD_KEY_SIZE];
	struct child_result res;
	uint8_t mad[MAD_SIZE];

	(void)state;
	setenv("UMAD_CAPTURE_REDACT", "1", 1);
	expect_child_ok(capture_session, "loopback", TEST_MODULE_DIR, &res);
	assert_int_equal(read_records(mad, 2), 6);
	assert_int_equal(mad_class(mad), UMAD_CLASS_SUBN_DIRECTED_ROUTE);
	assert_memory_equal(mad + SMP_OFF_MKEY, zeros, MAD_KEY_SIZE);
}

/*
 * A request whose buffer changes as soon as it is sent (attribute 0xff7f on
 * the loopback: another thread took the answer and reused it), and a send
 * that fails (too short for the backend).
 */
static int reused_and_failed_sends(void)
{
	uint8_t buf[UMAD_HDR + MAD_SIZE] = { 0 };
	uint8_t *mad = buf + UMAD_HDR;
	int fd, agent, got = MAD_SIZE;

	setenv("UMAD_CAPTURE", path, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	agent = umad_register(fd, UMAD_CLASS_PERF_MGMT, 1, 0, NULL);
	CHECK(agent >= 0);
	CHECK_EQ(umad_send(fd, agent, buf, 10, 100, 0), -EIO);
	CHECK_EQ(errno, EINVAL);
	set_mad_hdr(mad, UMAD_CLASS_PERF_MGMT, 1, UMAD_METHOD_GET, ATTR_LOOPBACK_REUSE);
	put_be32(mad + MAD_OFF_TID_LOW, 0x42);
	umad_set_addr(buf, 2, QP1_GSI, 0, UMAD_QKEY);
	CHECK_EQ(umad_send(fd, agent, buf, MAD_SIZE, 100, 0), 0);
	CHECK_EQ(mad[0], 0xa5);		/* the backend did reuse it */
	CHECK_EQ(umad_recv(fd, buf, &got, 1000), agent);
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

static void test_send_captured_as_given(void **state)
{
	struct child_result res;
	uint8_t out[MAD_SIZE], in[MAD_SIZE];

	(void)state;
	expect_child_ok(reused_and_failed_sends, "loopback", TEST_MODULE_DIR, &res);
	/* The failed send is not there: the request and its echo only. */
	assert_int_equal(read_records(out, 0), 2);
	read_records(in, 1);
	assert_int_equal(mad_class(out), UMAD_CLASS_PERF_MGMT);
	assert_int_equal(get_be32(out + MAD_OFF_TID_LOW), 0x42);
	assert_int_equal(mad_attr_id(out), ATTR_LOOPBACK_REUSE);
	assert_memory_equal(out, in, MAD_SIZE);
}

/*
 * Opensm's way with threads: on each port one thread sends requests from a
 * few buffers while another takes the answers (the loopback's echoes) and
 * at once scribbles over the request's buffer, as a freed and reused one.
 */
#define PAIRS 2
#define PAIR_MADS 4000
#define PAIR_BUFS 8

struct pair {
	int index, fd, agent;
	atomic_int failed;
	uint8_t bufs[PAIR_BUFS][UMAD_HDR + MAD_SIZE];
	sem_t free_bufs;
	char failure[256];
};

/* The bytes after the MAD header of request seq on pair: known to the checks. */
static uint8_t payload_byte(int pair, uint32_t seq, int at)
{
	return (uint8_t)(seq * 7 + (uint32_t)at + (uint32_t)pair * 13);
}

static void pair_fail(struct pair *p, const char *what, uint32_t seq)
{
	if (!atomic_exchange(&p->failed, 1))	/* the first failure is told */
		snprintf(p->failure, sizeof(p->failure), "pair %d MAD %u: %s", p->index, seq, what);
}

static void *pair_sender(void *arg)
{
	struct pair *p = arg;
	uint32_t seq;
	int i;

	for (seq = 0; seq < PAIR_MADS && !p->failed; seq++) {
		uint8_t *buf = p->bufs[seq % PAIR_BUFS], *mad = buf + UMAD_HDR;

		sem_wait(&p->free_bufs);
		memset(buf, 0, UMAD_HDR);
		set_mad_hdr(mad, UMAD_CLASS_PERF_MGMT, 1, UMAD_METHOD_GET, ATTR_PORT_COUNTERS);
		/* The TID's low half: the pair, then the sequence number. */
		put_be32(mad + MAD_OFF_TID_LOW, (uint32_t)p->index << 24 | seq);
		for (i = MAD_HDR_SIZE; i < (int)MAD_SIZE; i++)
			mad[i] = payload_byte(p->index, seq, i);
		umad_set_addr(buf, 2, QP1_GSI, 0, UMAD_QKEY);
		if (umad_send(p->fd, p->agent, buf, MAD_SIZE, 100, 0) != 0)
			pair_fail(p, "umad_send failed", seq);
	}
	return NULL;
}

static void *pair_receiver(void *arg)
{
	struct pair *p = arg;
	uint8_t buf[UMAD_HDR + MAD_SIZE];
	uint32_t n, seq;

	for (n = 0; n < PAIR_MADS && !p->failed; n++) {
		int got = MAD_SIZE;

		if (umad_recv(p->fd, buf, &got, 5000) != p->agent || got != (int)MAD_SIZE) {
			pair_fail(p, "umad_recv failed", n);
			break;
		}
		seq = get_be24(buf + UMAD_HDR + MAD_OFF_TID_LOW + 1);
		/* The request's buffer is done with: reused at once. */
		memset(p->bufs[seq % PAIR_BUFS] + UMAD_HDR, 0xa5, MAD_SIZE);
		sem_post(&p->free_bufs);
	}
	/* A sender waiting for a buffer after a failure sees it and stops. */
	for (n = 0; p->failed && n < PAIR_BUFS; n++)
		sem_post(&p->free_bufs);
	return NULL;
}

static struct pair pairs[PAIRS];

static int threads_sending_and_receiving(void)
{
	pthread_t threads[PAIRS][2];
	int i;

	setenv("UMAD_CAPTURE", path, 1);
	for (i = 0; i < PAIRS; i++) {
		struct pair *p = &pairs[i];

		p->index = i;
		p->fd = umad_open_port(NULL, 0);
		CHECK(p->fd >= 0);
		p->agent = umad_register(p->fd, UMAD_CLASS_PERF_MGMT, 1, 0, NULL);
		CHECK(p->agent >= 0);
		CHECK_EQ(sem_init(&p->free_bufs, 0, PAIR_BUFS), 0);
	}
	for (i = 0; i < PAIRS; i++) {
		CHECK_EQ(pthread_create(&threads[i][0], NULL, pair_sender, &pairs[i]), 0);
		CHECK_EQ(pthread_create(&threads[i][1], NULL, pair_receiver, &pairs[i]), 0);
	}
	for (i = 0; i < PAIRS; i++) {
		pthread_join(threads[i][0], NULL);
		pthread_join(threads[i][1], NULL);
	}
	for (i = 0; i < PAIRS; i++) {
		if (pairs[i].failed) {
			snprintf(child_failure, sizeof(child_failure), "%s", pairs[i].failure);
			return -1;
		}
		CHECK_EQ(umad_close_port(pairs[i].fd), 0);
	}
	return 0;
}

static void test_threads_reusing_buffers(void **state)
{
	static uint8_t sent[PAIRS][PAIR_MADS], answered[PAIRS][PAIR_MADS];
	struct capture_reader *r;
	struct capture_record rec;
	struct child_result res;
	struct umad_err err = UMAD_ERR_INIT;
	int n = 0, got, i;

	(void)state;
	expect_child_ok(threads_sending_and_receiving, "loopback", TEST_MODULE_DIR, &res);
	r = capture_open(path, &err);
	if (!r)
		fail_msg("%s", umad_err_text(&err));
	while ((got = capture_next(r, &rec, &err)) == 1) {
		const uint8_t *mad = rec.packet + MAD_IN_PACKET;
		int pair = mad[MAD_OFF_TID_LOW];
		uint32_t seq = get_be24(mad + MAD_OFF_TID_LOW + 1);

		assert_true(rec.len >= MAD_IN_PACKET + MAD_SIZE);
		assert_true(pair < PAIRS && seq < PAIR_MADS);
		for (i = MAD_HDR_SIZE; i < (int)MAD_SIZE; i++)
			if (mad[i] != payload_byte(pair, seq, i))
				fail_msg("record %d (pair %d MAD %u, direction %d): byte %d is 0x%02x",
					 n, pair, seq, rec.direction, i, mad[i]);
		if (rec.direction == PCAPNG_DIR_OUTBOUND) {
			assert_false(sent[pair][seq]);
			sent[pair][seq] = 1;
		} else {
			/* Its request is in the file before it. */
			assert_int_equal(rec.direction, PCAPNG_DIR_INBOUND);
			assert_true(sent[pair][seq]);
			assert_false(answered[pair][seq]);
			answered[pair][seq] = 1;
		}
		n++;
	}
	if (got < 0)
		fail_msg("%s", umad_err_text(&err));
	capture_close(r);
	assert_int_equal(n, 2 * PAIRS * PAIR_MADS);
}

static void test_tshark_view(void **state)
{
	/* Direction, the MAD, the metadata; requests come back as themselves on the loopback. */
	static const char *const expected[][3] = {
		{ "0", "PERF (PortCounters)", "agent=4 status=0" },
		{ "1", "PERF (PortCounters)", "agent=4 status=0" },
		{ "0", "SubnGet(NodeInfo)", "agent=129 status=0" },
		{ "1", "SubnGet(NodeInfo)", "qpn=0" },
		{ "0", "PERF (PortCounters)", "status=110 timeout_ms=100 retries=0 qpn=1 qkey=0x80010000 lid=2 sl=0 path_bits=0 pkey_index=0 grh=0 length=24|5" },
		{ "1", "PERF (PortCounters)", "timeout=1|5" },	/* packet id of frame 5 */
	};
	struct child_result res;
	char cmd[384], line[512];
	FILE *out;
	int i = 0;

	(void)state;
	if (access("/usr/bin/tshark", X_OK) != 0)
		skip();		/* installed by scripts/install-deps; CI has it */
	expect_child_ok(capture_session, "loopback", TEST_MODULE_DIR, &res);
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -E separator='|' -e frame.p2p_dir -e _ws.col.Info "
		 "-e frame.comment -e frame.packet_id 2>/dev/null", path);
	out = popen(cmd, "r");
	assert_non_null(out);
	while (fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		if (i < 6 && (strncmp(line, expected[i][0], 1) || !strstr(line, expected[i][1]) ||
			      !strstr(line, expected[i][2]) || strstr(line, "Malformed")))
			fail_msg("frame %d: tshark says '%s', expected %s|...%s...|...%s...", i + 1,
				 line, expected[i][0], expected[i][1], expected[i][2]);
		i++;
	}
	assert_int_equal(pclose(out), 0);
	assert_int_equal(i, 6);
}

/* An SA GetTableResp of 1000 bytes (56 of headers, 944 of records): five segments. */
static int rmpp_session(void)
{
	uint8_t buf[UMAD_HDR + 1000] = { 0 };
	uint8_t *mad = buf + UMAD_HDR;
	int fd, agent, got = 1000, i;

	setenv("UMAD_CAPTURE", path, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	agent = umad_register(fd, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_RMPP_VERSION, NULL);
	CHECK(agent >= 0);
	set_mad_hdr(mad, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_SA_METHOD_GET_TABLE_RESP,
		    UMAD_SA_ATTR_PATH_REC);
	put_be32(mad + MAD_OFF_TID_LOW, 0x77);
	mad[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
	mad[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
	mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	for (i = SA_HDR_END; i < 1000; i++)
		mad[i] = (uint8_t)(i / 200);	/* which segment each byte belongs in */
	umad_set_addr(buf, 1, QP1_GSI, 0, UMAD_QKEY);
	CHECK_EQ(umad_send(fd, agent, buf, 1000, 0, 0), 0);
	CHECK_EQ(umad_recv(fd, buf, &got, 1000), agent);
	CHECK_EQ(got, 1000);
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

/* A long SMP, which no kernel RMPP carries (the loopback module accepts it all the same). */
static int long_smp_session(void)
{
	uint8_t buf[UMAD_HDR + 4096] = { 0 };
	uint8_t *mad = buf + UMAD_HDR;
	int fd, agent, got = 4096;

	setenv("UMAD_CAPTURE", path, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	agent = umad_register(fd, UMAD_CLASS_SUBN_DIRECTED_ROUTE, 1, 0, NULL);
	CHECK(agent >= 0);
	set_mad_hdr(mad, UMAD_CLASS_SUBN_DIRECTED_ROUTE, 1, UMAD_METHOD_GET, UMAD_SM_ATTR_NODE_INFO);
	put_be32(mad + MAD_OFF_TID_LOW, 0x55);
	/* The M_Key, whose third byte sits where an RMPP header's flags would: "Active". */
	memcpy(mad + SMP_OFF_MKEY, mkey, MAD_KEY_SIZE);
	mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
	umad_set_addr(buf, LID_PERMISSIVE, QP0_SMI, 0, 0);
	CHECK_EQ(umad_send(fd, agent, buf, 4096, 0, 0), 0);
	CHECK_EQ(umad_recv(fd, buf, &got, 1000), agent);
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

/* Only RMPP classes with the Active flag become segments; anything else is one MAD, untouched. */
static void test_long_smp_is_one_packet(void **state)
{
	struct child_result res;
	uint8_t mad[MAD_SIZE], key[MAD_KEY_SIZE];

	(void)state;
	memcpy(key, mkey, MAD_KEY_SIZE);
	key[RMPP_OFF_FLAGS - SMP_OFF_MKEY] = UMAD_RMPP_FLAG_ACTIVE;
	expect_child_ok(long_smp_session, "loopback", TEST_MODULE_DIR, &res);
	assert_int_equal(read_records(mad, 0), 2);	/* out and back, one packet each */
	assert_int_equal(mad_class(mad), UMAD_CLASS_SUBN_DIRECTED_ROUTE);
	assert_memory_equal(mad + SMP_OFF_MKEY, key, MAD_KEY_SIZE);
	assert_int_equal(get_be16(mad + SMP_OFF_DR_SLID), LID_PERMISSIVE);
	assert_int_equal(read_records(mad, 1), 2);
	assert_memory_equal(mad + SMP_OFF_MKEY, key, MAD_KEY_SIZE);
}

static void test_rmpp_segments(void **state)
{
	/*
	 * Payload length as the kernel writes it: 5 * 220 - 56 bytes of padding
	 * in the first segment, 220 - 56 in the last, 0 between.
	 */
	static const char *const expected[] = {
		"0x01,0x03,0x00000001,0x00000414,1/5", "0x01,0x01,0x00000002,0x00000000,2/5",
		"0x01,0x01,0x00000003,0x00000000,3/5", "0x01,0x01,0x00000004,0x00000000,4/5",
		"0x01,0x05,0x00000005,0x000000a4,5/5",
	};
	struct child_result res;
	char cmd[448], line[512];
	FILE *out;
	int i = 0;

	(void)state;
	if (access("/usr/bin/tshark", X_OK) != 0)
		skip();
	expect_child_ok(rmpp_session, "loopback", TEST_MODULE_DIR, &res);
	/* Type DATA, flags (Active|First, Active, Active|Last), segment, payload length. */
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -E separator=, -e infiniband.rmpp.rmpptype "
		 "-e infiniband.rmpp.rmppflags -e infiniband.rmpp.segmentnumber "
		 "-e infiniband.rmpp.payloadlength -e frame.comment -e _ws.col.Info "
		 "-Y 'frame.p2p_dir == 0' "
		 "2>/dev/null", path);
	out = popen(cmd, "r");
	assert_non_null(out);
	while (fgets(line, sizeof(line), out)) {
		const char *seg = strstr(line, "segment=");

		line[strcspn(line, "\n")] = '\0';
		/* The four RMPP fields, then the segment=N/M of the comment. */
		if (i < 5) {
			char want[64];
			int n = 0, commas = 0;

			while (line[n] && commas < 4)
				commas += line[n++] == ',';
			snprintf(want, sizeof(want), "%.*s%.*s", n, line,
				 seg ? (int)strcspn(seg + 8, ",") : 1, seg ? seg + 8 : "?");
			if (strstr(line, "Malformed") || !strstr(line, "SubnAdmGetTableResp"))
				fail_msg("segment %d not decoded as SubnAdmGetTableResp: '%s'", i + 1,
					 line);
			if (strcmp(want, expected[i]))
				fail_msg("segment %d: '%s' (from '%s'), expected '%s'", i + 1, want, line,
					 expected[i]);
		}
		i++;
	}
	assert_int_equal(pclose(out), 0);
	assert_int_equal(i, 5);
}

/*
 * Capture a GetTable request and its 1000-byte answer (five segments on the
 * wire), then replay the file with the replay module: the answer comes back
 * whole, with the replaying program's TID.
 */
static void fill_sa(uint8_t *mad, uint8_t method, uint8_t tid)
{
	set_mad_hdr(mad, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, method, UMAD_SA_ATTR_PATH_REC);
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	mad[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
}

static int capture_sa_exchange(void)
{
	uint8_t buf[UMAD_HDR + 1000] = { 0 }, *mad = buf + UMAD_HDR;
	int fd, agent, got, i;

	setenv("UMAD_CAPTURE", path, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	agent = umad_register(fd, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_RMPP_VERSION, NULL);
	fill_sa(mad, UMAD_SA_METHOD_GET_TABLE, 0x42);		/* the request goes out... */
	umad_set_addr(buf, 1, QP1_GSI, 0, UMAD_QKEY);
	CHECK_EQ(umad_send(fd, agent, buf, MAD_SIZE, 0, 0), 0);
	got = 1000;
	CHECK_EQ(umad_recv(fd, buf, &got, 1000), agent);	/* (its loopback echo) */
	memset(mad, 0, 1000);
	fill_sa(mad, UMAD_SA_METHOD_GET_TABLE_RESP, 0x42);	/* ...and its answer comes back */
	mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	for (i = SA_HDR_END; i < 1000; i++)
		mad[i] = (uint8_t)i;
	CHECK_EQ(umad_send(fd, agent, buf, 1000, 0, 0), 0);
	got = 1000;
	CHECK_EQ(umad_recv(fd, buf, &got, 1000), agent);
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

static int replay_sa_exchange(void)
{
	uint8_t buf[UMAD_HDR + 1000] = { 0 }, *mad = buf + UMAD_HDR;
	int fd, agent, got = MAD_SIZE, i;

	setenv("UMAD_REPLAY", path, 1);
	setenv("UMAD_MODULE_DIR", REPLAY_MODULE_DIR, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	agent = umad_register(fd, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_RMPP_VERSION, NULL);
	CHECK(agent >= 0);
	fill_sa(mad, UMAD_SA_METHOD_GET_TABLE, 0x99);		/* our own TID */
	umad_set_addr(buf, 1, QP1_GSI, 0, UMAD_QKEY);
	CHECK_EQ(umad_send(fd, agent, buf, MAD_SIZE, 100, 0), 0);
	CHECK_EQ(umad_recv(fd, buf, &got, 1000), -ENOSPC);	/* the kernel's length protocol */
	CHECK_EQ(got, 1000);
	CHECK_EQ(umad_recv(fd, buf, &got, 0), agent);
	CHECK_EQ(mad_method(mad), UMAD_SA_METHOD_GET_TABLE_RESP);
	CHECK_EQ(get_be32(mad + MAD_OFF_TID_LOW), 0x99);
	for (i = SA_HDR_END; i < 1000; i++)
		CHECK_EQ(mad[i], (uint8_t)i);
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

static void test_rmpp_replayed_whole(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(capture_sa_exchange, "loopback", TEST_MODULE_DIR, &res);
	expect_child_ok(replay_sa_exchange, "replay", REPLAY_MODULE_DIR, &res);
}

/* Capturing into path: a port with a PerfMgt agent; -1 if it cannot be opened. */
static int open_capturing_port(int *agent)
{
	int fd;

	setenv("UMAD_CAPTURE", path, 1);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	*agent = umad_register(fd, UMAD_CLASS_PERF_MGMT, 1, 0, NULL);
	return fd;
}

/* Capture until killed. */
static int capture_forever(void)
{
	int agent, fd = open_capturing_port(&agent);

	if (fd < 0)
		return -1;
	for (;;)
		if (send_and_receive(fd, agent, UMAD_CLASS_PERF_MGMT, ATTR_PORT_COUNTERS, MAD_SIZE, 0) < 0)
			return -1;
}

/* A few MADs, then nothing: no close, no exit, until killed. */
static int capture_few_then_idle(void)
{
	int agent, i, fd = open_capturing_port(&agent);

	if (fd < 0)
		return -1;
	usleep(50 * 1000);	/* the writer is asleep by now: the MADs must wake it */
	for (i = 0; i < 5; i++)
		if (send_and_receive(fd, agent, UMAD_CLASS_PERF_MGMT, ATTR_PORT_COUNTERS, MAD_SIZE, 0) < 0)
			return -1;
	for (;;)
		pause();
}

/* A MAD and its answer every 2 ms, until killed: a slow, steady flow. */
static int capture_steadily(void)
{
	int agent, fd = open_capturing_port(&agent);

	if (fd < 0)
		return -1;
	for (;;) {
		if (send_and_receive(fd, agent, UMAD_CLASS_PERF_MGMT, ATTR_PORT_COUNTERS, MAD_SIZE, 0) < 0)
			return -1;
		usleep(2000);
	}
}

/* The records in the capture file so far, however it ends (it may be being written); 0 before it exists. */
static int records_so_far(void)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p = pcap_open_offline(path, err);
	int n = 0;

	if (!p)
		return 0;
	while (pcap_next_ex(p, &ph, &data) == 1)
		n++;
	pcap_close(p);
	return n;
}

/*
 * Run capture(), which never returns, in a child on the sim backend; kill
 * it with SIGKILL once the file holds at least want records, or after
 * KILL_DEADLINE_MS (a slow machine, valgrind) if it never does.  Returns
 * the records in the file.
 */
#define KILL_DEADLINE_MS 30000
static int records_after_sigkill(int (*capture)(void), int want)
{
	pid_t pid;
	int status;
	unsigned waited;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* capture_forever never ends: it dies with this program, should a check fail first. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setenv("UMAD_BACKEND", "loopback", 1);
		setenv("UMAD_MODULE_DIR", TEST_MODULE_DIR, 1);
		_exit(capture() < 0 ? 1 : 0);
	}
	for (waited = 0; waited < KILL_DEADLINE_MS && records_so_far() < want; waited += 10)
		usleep(10 * 1000);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	return read_records(NULL, -1);
}

/*
 * The writer thread, asleep until the first record, wakes for it and puts
 * MADs in the file on its own, though the ring is far from full and nobody
 * syncs: a killed process's last quiet stretch is in the file.
 */
static void test_idle_process_killed_has_its_mads(void **state)
{
	(void)state;
	assert_int_equal(records_after_sigkill(capture_few_then_idle, 10), 10);
}

static void test_sigkill_leaves_whole_records(void **state)
{
	(void)state;
	assert_true(records_after_sigkill(capture_forever, 11) > 10);
}

/*
 * While MADs flow, however slowly, the writer does not keep them to itself
 * for long (it catches the file up every 10 ms): the newest record in the
 * file of a process killed mid-flow is at most a tenth of a second old.
 */
static void test_steady_flow_reaches_the_file(void **state)
{
	struct capture_reader *r;
	struct capture_record rec;
	struct timespec killed;
	uint64_t newest = 0, killed_ns;
	struct umad_err err = UMAD_ERR_INIT;
	int got, n = 0;

	(void)state;
	assert_true(records_after_sigkill(capture_steadily, 500) > 10);
	clock_gettime(CLOCK_REALTIME, &killed);
	killed_ns = (uint64_t)killed.tv_sec * 1000000000u + (uint64_t)killed.tv_nsec;
	r = capture_open(path, &err);
	assert_non_null(r);
	while ((got = capture_next(r, &rec, &err)) == 1) {
		newest = rec.ts_ns > newest ? rec.ts_ns : newest;
		n++;
	}
	assert_int_equal(got, 0);
	capture_close(r);
	if (killed_ns - newest > 100000000u)
		fail_msg("%d records, the newest %.1f ms before the kill", n,
			 (double)(killed_ns - newest) / 1e6);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, make_path, remove_path)
	const struct CMUnitTest tests[] = {
		T(test_records_and_mode),
		T(test_uncreatable_file),
		T(test_not_regular_files_refused),
		T(test_second_process_appends),
		T(test_pid_in_name),
		T(test_comments_follow_each_mad),
		T(test_redaction),
		T(test_send_captured_as_given),
		T(test_threads_reusing_buffers),
		T(test_tshark_view),
		T(test_rmpp_segments),
		T(test_long_smp_is_one_packet),
		T(test_rmpp_replayed_whole),
		T(test_idle_process_killed_has_its_mads),
		T(test_sigkill_leaves_whole_records),
		T(test_steady_flow_reaches_the_file),
	};

	return cmocka_run_group_tests_name("capture tap", tests, NULL, NULL);
}
