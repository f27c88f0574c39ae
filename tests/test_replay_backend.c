/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The replay backend (backends/replay.c) driven directly, on a capture of
 * a few thousand DR requests and their answers, more than one read-back
 * window of them: answers read back from the file are those recorded
 * (with the asker's TID) asked in recorded order, in reverse, repeated;
 * the same capture from a pipe (answers kept in memory) answers the same;
 * a file written over or cut short after loading gives one message and
 * timeouts from then on, never bytes that are not the recorded answer.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/backend.h"
#include "base/mad_wire.h"
#include "pcap/ib_packet.h"
#include "pcap/pcapng_writer.h"

extern const struct umad_backend umad_backend_replay;

/* The one libibumad call the backend makes (its debug level, for the exit report). */
int umad_debug(int level);
int umad_debug(int level)
{
	(void)level;
	return 0;
}

#define REQUESTS	3000
#define APP_TID		0xabc0000000ull

static char path[64];

/* Request i: a DR SubnGet(PortInfo) along a path of its own. */
static void request(uint8_t *mad, size_t i, uint64_t tid)
{
	memset(mad, 0, MAD_SIZE);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be64(mad + MAD_OFF_TID, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_PORT_INFO);
	put_be32(mad + MAD_OFF_ATTR_MOD, (uint32_t)(i % 36 + 1));
	mad[SMP_OFF_HOP_CNT] = 3;
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
	mad[SMP_OFF_INITIAL_PATH + 1] = 1;	/* out of the CA's port 1 */
	mad[SMP_OFF_INITIAL_PATH + 2] = (uint8_t)(i % 200 + 1);
	mad[SMP_OFF_INITIAL_PATH + 3] = (uint8_t)(i / 200 + 1);
}

/* Its recorded answer: bytes of its own in the data. */
static void response(uint8_t *mad, size_t i, uint64_t tid)
{
	size_t k;

	request(mad, i, tid);
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	put_be16(mad + MAD_OFF_STATUS, UMAD_SMP_DIRECTION);
	for (k = 0; k < SMP_DATA_SIZE; k++)
		mad[SMP_OFF_DATA + k] = (uint8_t)(i * 7 + k);
	put_be32(mad + SMP_OFF_DATA, (uint32_t)i);
}

/* The capture: each request sent from port rp0:1 (LID 1), then its answer received. */
static void write_capture(void)
{
	struct ib_packet_ends out = { .outbound = 1, .local_lid = 1, .local_qp = QP0_SMI };
	struct ib_packet_ends in = { .outbound = 0, .local_lid = 1, .local_qp = QP0_SMI };
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX];
	struct pcapng_writer *w;
	struct ib_user_mad hdr;
	struct umad_err err = UMAD_ERR_INIT;
	size_t i;
	int n;

	memset(&hdr, 0, sizeof(hdr));
	hdr.addr.lid = htobe16(LID_PERMISSIVE);
	unlink(path);
	w = pcapng_create(path, "libumad test", &err);
	if (!w)
		fail_msg("%s", umad_err_text(&err));
	assert_int_equal(pcapng_add_interface(w, "rp0:1", "test port"), 0);
	for (i = 0; i < REQUESTS; i++) {
		request(mad, i, i + 1);
		n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &out);
		assert_true(n > 0);
		assert_int_equal(pcapng_write_ib(w, 0, 1700000000000000000ull + 2 * i,
						 PCAPNG_DIR_OUTBOUND, pkt, (size_t)n,
						 "agent=0 status=0", 0), 0);
		response(mad, i, i + 1);
		n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &in);
		assert_true(n > 0);
		assert_int_equal(pcapng_write_ib(w, 0, 1700000000000000001ull + 2 * i,
						 PCAPNG_DIR_INBOUND, pkt, (size_t)n,
						 "agent=0 status=0", 0), 0);
	}
	assert_int_equal(pcapng_close(w), 0);
}

static int make_path(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/umad-replay-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_capture();
	return 0;
}

static int remove_path(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

struct port {
	int fd;
	uint32_t agent;
};

/* The library's side of the contract, as dispatch.c gives it: no debugging, no capture. */
static int no_debug(void)
{
	return 0;
}

static const struct umad_backend_host test_host = { .debug_level = no_debug, .resent = NULL };

/* Load the capture named by 'file' and open its port with a DR agent: 0, or the init's error. */
static int open_replay(const char *file, struct port *p)
{
	struct umad_agent_req req;
	size_t hdr_size = 0;
	int open_errno = 0, r;

	setenv("UMAD_REPLAY", file, 1);
	r = umad_backend_replay.init(&test_host);
	if (r < 0)
		return r;
	p->fd = umad_backend_replay.open_port("rp0", 1, &hdr_size, &open_errno);
	assert_true(p->fd >= 0);
	assert_int_equal(hdr_size, sizeof(struct ib_user_mad));
	memset(&req, 0, sizeof(req));
	req.qpn = QP0_SMI;
	req.mgmt_class = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	req.mgmt_class_version = 1;
	req.legacy = 1;
	assert_int_equal(umad_backend_replay.register_agent(p->fd, &req, &p->agent), 0);
	return 0;
}

static void close_replay(struct port *p)
{
	umad_backend_replay.close_port(p->fd);
	umad_backend_replay.fini();
}

/*
 * Send request i with a TID of the asker's own; the status the answer came
 * back with (0, or ETIMEDOUT for none), and the MAD in mad.
 */
static uint32_t ask(struct port *p, size_t i, uint8_t *mad)
{
	uint8_t umad[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct ib_user_mad *h = (struct ib_user_mad *)umad;
	ssize_t n;

	memset(umad, 0, sizeof(umad));
	h->agent_id = p->agent;
	h->timeout_ms = 5;
	h->addr.lid = htobe16(LID_PERMISSIVE);
	request(umad + sizeof(*h), i, APP_TID + i);
	assert_int_equal(umad_backend_replay.send(p->fd, umad, sizeof(umad)), (ssize_t)sizeof(umad));
	n = umad_backend_replay.recv(p->fd, umad, sizeof(umad));
	if (n == -EAGAIN) {
		/* No answer queued: the request's timeout comes back once it passes. */
		assert_int_equal(umad_backend_replay.wait(p->fd, 2000), 0);
		n = umad_backend_replay.recv(p->fd, umad, sizeof(umad));
	}
	/* An answer is a whole MAD; a timeout gives back the request's header. */
	assert_int_equal(n, h->status ? (ssize_t)(sizeof(*h) + MAD_HDR_SIZE) : (ssize_t)sizeof(umad));
	memset(mad, 0, MAD_SIZE);
	memcpy(mad, umad + sizeof(*h), (size_t)n - sizeof(*h));
	return h->status;
}

/*
 * Request i answered with its recorded answer, carrying the asker's TID as
 * it went out: the lower half the asker's, the upper its agent's hi_tid.
 */
static void expect_answer(struct port *p, size_t i)
{
	uint8_t got[MAD_SIZE], want[MAD_SIZE];
	uint32_t hi_tid;

	assert_int_equal(ask(p, i, got), 0);
	hi_tid = get_be32(got + MAD_OFF_TID);
	assert_true(hi_tid && hi_tid <= 0xffffff && hi_tid != (uint32_t)((APP_TID + i) >> 32));
	response(want, i, (uint64_t)hi_tid << 32 | (uint32_t)(APP_TID + i));
	assert_memory_equal(got, want, MAD_SIZE);
}

/* Every request in recorded order, then in reverse, then every 37th twice. */
static void expect_all_answers(struct port *p)
{
	size_t i;

	for (i = 0; i < REQUESTS; i++)
		expect_answer(p, i);
	for (i = REQUESTS; i-- > 0;)
		expect_answer(p, i);
	for (i = 0; i < REQUESTS; i += 37) {
		expect_answer(p, i);
		expect_answer(p, i);
	}
}

static void test_answers_from_file(void **state)
{
	struct port p;

	(void)state;
	assert_int_equal(open_replay(path, &p), 0);
	expect_all_answers(&p);
	close_replay(&p);
}

/* A child writing the capture into a pipe; its read end's name in name. */
static pid_t feed_pipe(char *name, size_t size, int *read_end)
{
	int fds[2], fd;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[4093];
		ssize_t n;

		close(fds[0]);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			_exit(1);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(fds[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(n == 0 ? 0 : 1);
	}
	close(fds[1]);
	*read_end = fds[0];
	snprintf(name, size, "/proc/self/fd/%d", fds[0]);
	return pid;
}

static void test_answers_from_pipe(void **state)
{
	struct port p;
	char name[64];
	int fd, status;
	pid_t pid;

	(void)state;
	pid = feed_pipe(name, sizeof(name), &fd);
	assert_int_equal(open_replay(name, &p), 0);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_all_answers(&p);
	close_replay(&p);
}

/* Run change() on the file after loading it, and what follows; stderr's text in said. */
static void after_change(void (*change)(void), char *said, size_t size)
{
	uint8_t got[MAD_SIZE];
	uint32_t status[51];
	struct port p;
	char err_path[sizeof(path) + 8];
	int saved, fd, i;
	ssize_t n;

	assert_int_equal(open_replay(path, &p), 0);
	for (i = 0; i < REQUESTS / 2; i++)
		expect_answer(&p, (size_t)i);
	change();
	snprintf(err_path, sizeof(err_path), "%s.err", path);
	fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	/* (A failing assertion must not leave stderr there: the statuses are checked below.) */
	for (i = 0; i < 50; i++)
		status[i] = ask(&p, (size_t)(REQUESTS - 1 - i), got);
	status[50] = ask(&p, 0, got);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, said, size - 1, 0);
	close(fd);
	unlink(err_path);
	said[n > 0 ? n : 0] = '\0';
	/* The rest of the file is gone or another's: no answer, and no more from before either. */
	for (i = 0; i <= 50; i++)
		assert_int_equal(status[i], ETIMEDOUT);
	close_replay(&p);
}

static void cut_in_half(void)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
}

static void write_over_second_half(void)
{
	static uint8_t zeros[64 * 1024];
	struct stat st;
	off_t at;
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	for (at = st.st_size / 2; at < st.st_size; at += (off_t)sizeof(zeros))
		assert_true(pwrite(fd, zeros, sizeof(zeros), at) > 0);
	close(fd);
}

static void test_file_cut_short_after_loading(void **state)
{
	char said[1024];

	(void)state;
	after_change(cut_in_half, said, sizeof(said));
	assert_non_null(strstr(said, path));
	assert_non_null(strstr(said, "changed since it was loaded"));
	/* Said once. */
	assert_null(strstr(strstr(said, "changed") + 1, "changed"));
}

static void test_file_written_over_after_loading(void **state)
{
	char said[1024];

	(void)state;
	after_change(write_over_second_half, said, sizeof(said));
	assert_non_null(strstr(said, "changed since it was loaded"));
	assert_null(strstr(strstr(said, "changed") + 1, "changed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_answers_from_file, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_answers_from_pipe, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_file_cut_short_after_loading, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_file_written_over_after_loading, make_path,
						remove_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
