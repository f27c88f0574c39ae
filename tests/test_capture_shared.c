/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Many processes, one UMAD_CAPTURE file, on the loopback test module: one
 * after another, all at once, with forked children, and with one of them
 * killed with SIGKILL mid-stream.  Every MAD of every process is in the
 * file exactly once (each process numbers its transactions with a tag of
 * its own in the TID's upper bits), in sections of its own writer, and
 * libpcap, tshark and our reader read the file to a clean end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <pcap/pcap.h>

#include <infiniband/umad.h>
#include "base/mad_wire.h"
#include "pcap/pcapng_reader.h"
#include "tests/capture_writers.h"

#ifndef TEST_MODULE_DIR
#error "TEST_MODULE_DIR must name the loopback module's directory"
#endif

#define UMAD_HDR 64
#define ATTR_PORT_COUNTERS 0x0012	/* PerfMgt */
/* A process's tag is the TID's upper 12 bits, its transactions the lower 20. */
#define TAG_SHIFT 20
#define SEQ_MASK ((1u << TAG_SHIFT) - 1)
#define MAX_TAGS 16
#define MAX_SEQ 4096
#define KILLED_TAG 9

static char path[128];

static int make_path(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/umad-shared-cap-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	return 0;
}

static int remove_path(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* One PerfMgt Get with this TID, out and back; 0 or -1. */
static int round_trip(int fd, int agent, uint32_t tid)
{
	uint8_t buf[UMAD_HDR + MAD_SIZE] = { 0 };
	uint8_t *mad = buf + UMAD_HDR;
	int len = MAD_SIZE;

	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be16(mad + MAD_OFF_ATTR_ID, ATTR_PORT_COUNTERS);
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	umad_set_addr(buf, 2, QP1_GSI, 0, UMAD_QKEY);
	if (umad_send(fd, agent, buf, MAD_SIZE, 100, 0) != 0 ||
	    umad_recv(fd, buf, &len, 5000) != agent || len != MAD_SIZE)
		return -1;
	return get_be32(mad + MAD_OFF_TID_LOW) == tid ? 0 : -1;
}

/* A capturing process's port and agent; -1 on failure. */
static int open_port(int *agent)
{
	int fd = umad_open_port(NULL, 0);

	*agent = fd >= 0 ? umad_register(fd, UMAD_CLASS_PERF_MGMT, 1, 0, NULL) : -1;
	return *agent >= 0 ? fd : -1;
}

/* Round trips first..first+n-1 of tag on a port of its own; 0 or -1. */
static int trips(int fd, int agent, unsigned tag, unsigned first, unsigned n)
{
	unsigned i;

	for (i = first; i < first + n; i++)
		if (round_trip(fd, agent, tag << TAG_SHIFT | i) < 0)
			return -1;
	return 0;
}

/*
 * A capturing process of tag: waits for the go byte on go_fd (-1: at
 * once), makes n round trips; with forks > 0, half way it forks that many
 * children, tagged tag+1.., which open ports of their own and make n round
 * trips each (n < 0: until killed) while it makes the rest of its own.
 * Never returns.
 */
static void writer_process(unsigned tag, int n, int forks, int go_fd)
{
	int fd, agent, k, status, ok = 1;
	pid_t kids[4];
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setenv("UMAD_BACKEND", "loopback", 1);
	setenv("UMAD_MODULE_DIR", TEST_MODULE_DIR, 1);
	setenv("UMAD_CAPTURE", path, 1);
	fd = open_port(&agent);
	if (fd < 0)
		_exit(3);
	if (go_fd >= 0 && read(go_fd, &c, 1) != 1)
		_exit(4);
	/* Until killed, a MAD every half millisecond: fewer than MAX_SEQ before the kill. */
	if (n < 0)
		for (k = 0; k < MAX_SEQ; k++) {
			if (round_trip(fd, agent, tag << TAG_SHIFT | (unsigned)k) < 0)
				_exit(5);
			usleep(500);
		}
	if (n < 0)
		_exit(8);
	ok = trips(fd, agent, tag, 0, (unsigned)n / 2) == 0;
	for (k = 0; k < forks && k < 4; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			int kfd, kagent;

			/* The parent's port is its own: the child's MADs go on a port of the child's. */
			kfd = open_port(&kagent);
			_exit(kfd >= 0 && trips(kfd, kagent, tag + 1 + (unsigned)k, 0, (unsigned)n) == 0 &&
			      umad_close_port(kfd) == 0 ? 0 : 6);
		}
		if (kids[k] < 0)
			ok = 0;
	}
	ok = ok && trips(fd, agent, tag, (unsigned)n / 2, (unsigned)n - (unsigned)n / 2) == 0;
	for (k = 0; k < forks && k < 4; k++)
		ok = ok && kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k] &&
		     WIFEXITED(status) && WEXITSTATUS(status) == 0;
	ok = ok && umad_close_port(fd) == 0;
	exit(ok ? 0 : 7);
}

static pid_t start_writer(unsigned tag, int n, int forks, int go_fd)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		writer_process(tag, n, forks, go_fd);
	return pid;
}

static void expect_exit_0(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("writer %d ended with status 0x%x", (int)pid, status);
}

/* What the file holds, by tag: how often each transaction went out and came in, and whose. */
struct tally {
	unsigned char out[MAX_TAGS][MAX_SEQ], in[MAX_TAGS][MAX_SEQ];
	uint64_t writer[MAX_TAGS];
	int records;
	struct capture_writers by;
};

static void tally_file(struct tally *t)
{
	struct capture_record rec;
	struct capture_reader *r;
	struct umad_err err = UMAD_ERR_INIT;
	int got;

	memset(t, 0, sizeof(*t));
	r = capture_open(path, &err);
	if (!r)
		fail_msg("%s", umad_err_text(&err));
	while ((got = capture_next(r, &rec, &err)) == 1) {
		size_t len;
		const uint8_t *mad = capture_mad(&rec, &len);
		uint32_t tid;
		unsigned tag, seq;

		assert_non_null(mad);
		tid = get_be32(mad + MAD_OFF_TID_LOW);
		tag = tid >> TAG_SHIFT;
		seq = tid & SEQ_MASK;
		assert_true(tag < MAX_TAGS && seq < MAX_SEQ);
		assert_true(capture_writer_of(&t->by, &rec) >= 0);
		/* A tag's MADs are all of one writer, a writer's all of one tag. */
		if (!t->writer[tag])
			t->writer[tag] = rec.writer;
		else if (t->writer[tag] != rec.writer)
			fail_msg("tag %u: records of two writers", tag);
		if (capture_direction(&rec) == PCAPNG_DIR_OUTBOUND)
			t->out[tag][seq]++;
		else
			t->in[tag][seq]++;
		t->records++;
	}
	if (got < 0)
		fail_msg("our reader: %s", umad_err_text(&err));
	capture_close(r);
}

/* Each of tag's n transactions out once and back once. */
static void expect_whole(const struct tally *t, unsigned tag, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (t->out[tag][i] != 1 || t->in[tag][i] != 1)
			fail_msg("tag %u, transaction %u: %u sent, %u received in the file", tag, i,
				 t->out[tag][i], t->in[tag][i]);
	for (; i < MAX_SEQ; i++)
		if (t->out[tag][i] || t->in[tag][i])
			fail_msg("tag %u, transaction %u: in the file, never made", tag, i);
}

/* libpcap reads every record to a clean end: how many. */
static int libpcap_records(void)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p = pcap_open_offline(path, err);
	int n = 0, r;

	if (!p)
		fail_msg("libpcap: %s", err);
	while ((r = pcap_next_ex(p, &ph, &data)) == 1)
		n++;
	if (r != PCAP_ERROR_BREAK)
		fail_msg("libpcap stops after %d records: %s", n, pcap_geterr(p));
	pcap_close(p);
	return n;
}

/* tshark decodes every section of the file without an error: its frame count, or -1 without tshark. */
static int tshark_frames(void)
{
	char cmd[512];
	FILE *f;
	int n = 0, c, status;

	if (system("command -v tshark > /dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "tshark -r '%s' -T fields -e frame.number", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	status = pclose(f);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("tshark -r fails on the capture (status 0x%x)", status);
	return n;
}

static void expect_readers_agree(const struct tally *t)
{
	int frames;

	assert_int_equal(libpcap_records(), t->records);
	frames = tshark_frames();
	if (frames >= 0)
		assert_int_equal(frames, t->records);
	else
		print_message("no tshark: the file is read by libpcap and our reader only\n");
}

/* Three processes one after another: three sections, each whole. */
static void test_serial_writers(void **state)
{
	struct tally *t = calloc(1, sizeof(*t));
	unsigned tag;

	(void)state;
	assert_non_null(t);
	for (tag = 1; tag <= 3; tag++)
		expect_exit_0(start_writer(tag, 50, 0, -1));
	tally_file(t);
	for (tag = 1; tag <= 3; tag++)
		expect_whole(t, tag, 50);
	assert_int_equal(t->by.writers, 3);
	assert_int_equal(t->by.sections, 3);
	expect_readers_agree(t);
	free(t);
}

/*
 * Four processes at once, one of them forking two children half way:
 * every MAD of the six exactly once, each process's in sections of its
 * own writer.
 */
#define AT_ONCE 4
#define TRIPS 2000
static void test_concurrent_writers_and_children(void **state)
{
	struct tally *t = calloc(1, sizeof(*t));
	pid_t pids[AT_ONCE];
	int go[2], i;
	unsigned tag;

	(void)state;
	assert_non_null(t);
	assert_int_equal(pipe(go), 0);
	/* Tags 1, 2, 3, and 4 with its children 5 and 6. */
	for (i = 0; i < AT_ONCE; i++)
		pids[i] = start_writer((unsigned)i + 1, TRIPS, i == AT_ONCE - 1 ? 2 : 0, go[0]);
	/* All of them at once, ports open. */
	assert_int_equal(write(go[1], "gggg", AT_ONCE), AT_ONCE);
	for (i = 0; i < AT_ONCE; i++)
		expect_exit_0(pids[i]);
	close(go[0]);
	close(go[1]);
	tally_file(t);
	for (tag = 1; tag <= AT_ONCE + 2; tag++)
		expect_whole(t, tag, TRIPS);
	assert_int_equal(t->by.writers, AT_ONCE + 2);
	assert_true(t->by.sections >= t->by.writers);
	print_message("%d records in %d sections of %d writers\n", t->records, t->by.sections,
		      t->by.writers);
	expect_readers_agree(t);
	free(t);
}

/*
 * One writer killed with SIGKILL while three others write: the file reads
 * to a clean end, with every MAD of the three, and of the killed one each
 * transaction at most once.
 */
static void test_killed_writer_among_others(void **state)
{
	struct tally *t = calloc(1, sizeof(*t));
	pid_t pids[3], victim;
	int go[2], i, status;
	unsigned tag;

	(void)state;
	assert_non_null(t);
	assert_int_equal(pipe(go), 0);
	victim = start_writer(KILLED_TAG, -1, 0, go[0]);
	for (i = 0; i < 3; i++)
		pids[i] = start_writer((unsigned)i + 1, TRIPS, 0, go[0]);
	assert_int_equal(write(go[1], "gggg", 4), 4);
	/* Half way through the others' MADs, or so. */
	usleep(200 * 1000);
	assert_int_equal(kill(victim, SIGKILL), 0);
	assert_int_equal(waitpid(victim, &status, 0), victim);
	assert_true(WIFSIGNALED(status));
	for (i = 0; i < 3; i++)
		expect_exit_0(pids[i]);
	close(go[0]);
	close(go[1]);
	tally_file(t);
	for (tag = 1; tag <= 3; tag++)
		expect_whole(t, tag, TRIPS);
	for (i = 0; i < MAX_SEQ; i++)
		assert_true(t->out[KILLED_TAG][i] <= 1 && t->in[KILLED_TAG][i] <= 1);
	expect_readers_agree(t);
	free(t);
}

static off_t size_of(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? st.st_size : -1;
}

/* Another program writes after the end of the capture file. */
static void tear_the_end(void)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "tear", 4), 4);
	close(fd);
}

/*
 * One capturing process in a child, to read what it says on stderr: 0 when
 * it ran.  With tear set, another program writes after the end of the file
 * while the process has it open.
 */
static int one_writer_saying(char *said, size_t size, int tear)
{
	int err[2], go[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(err), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(err[1], 2);
		writer_process(1, 5, 0, tear ? go[0] : -1);
	}
	if (tear) {
		/* Once the file holds the process's section header, before its first MAD. */
		while (size_of(path) <= 0)
			usleep(1000);
		tear_the_end();
		assert_int_equal(write(go[1], "g", 1), 1);
	}
	close(go[0]);
	close(go[1]);
	close(err[1]);
	n = read(err[0], said, size - 1);
	said[n > 0 ? n : 0] = '\0';
	close(err[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * What is not a capture of ours is never appended to, nor changed: a
 * non-pcapng file, a capture that ends in a torn block.  The program says
 * why and runs on.
 */
static void test_foreign_files_kept(void **state)
{
	char said[4096];
	int fd;

	(void)state;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello, world\n", 13), 13);
	close(fd);
	assert_int_equal(one_writer_saying(said, sizeof(said), 0), 0);
	assert_non_null(strstr(said, "not a pcapng file: nothing is appended to it"));
	assert_int_equal(size_of(path), 13);
	unlink(path);

	/* A whole capture, then cut three bytes short, as a failed copy leaves it. */
	assert_int_equal(one_writer_saying(said, sizeof(said), 0), 0);
	assert_int_equal(said[0], '\0');
	assert_int_equal(truncate(path, size_of(path) - 3), 0);
	assert_int_equal(one_writer_saying(said, sizeof(said), 0), 0);
	assert_non_null(strstr(said, "does not end with a whole pcapng block"));
	unlink(path);

	/* Torn by another program while a process captures: it stops writing, and says why. */
	assert_int_equal(one_writer_saying(said, sizeof(said), 1), 0);
	assert_non_null(strstr(said, "cannot write: it does not end with a whole pcapng block"));
	assert_non_null(strstr(said, "the capture is incomplete"));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, make_path, remove_path)
	const struct CMUnitTest tests[] = {
		T(test_serial_writers),
		T(test_concurrent_writers_and_children),
		T(test_killed_writer_among_others),
		T(test_foreign_files_kept),
	};

	return cmocka_run_group_tests_name("capture shared by processes", tests, NULL, NULL);
}
