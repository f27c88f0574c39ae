/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* What the tests of umad kernel's device files share (see kernel_dev_util.h). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/sysfs_layout.h"
#include "base/mad_layout.h"
#include "base/mad_wire.h"
#include "tests/kernel_dev_util.h"

int kd_failures;

void kd_case_done(const char *what, int failures_before)
{
	printf("%s: %s\n", kd_failures == failures_before ? "ok" : "FAILED", what);
	fflush(stdout);
}

uint64_t kd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void kd_sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* --- the served host --------------------------------------------------------------- */

/* The first line of a file, without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static long long read_number(const char *path)
{
	char line[128];

	return read_line(path, line, sizeof(line)) < 0 ? -1 : strtoll(line, NULL, 0);
}

long long kd_port_value(const struct kd_host *h, const char *file)
{
	char path[PATH_MAX];

	if (sysfs_path(path, sizeof(path), "%s/%s/%s/%s/%s/%d/%s", h->root, SYSFS_DIR,
		       SYSFS_CLASS_DIR, h->ca, SYS_CA_PORTS_DIR, h->port, file) < 0)
		return -1;
	return read_number(path);
}

void kd_dev_path(const struct kd_host *h, const char *fmt, int n, char *path, size_t size)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, n);
	snprintf(path, size, "%s/%s/%s", h->root, SYSFS_DEV_DIR, name);
}

/* NodeGUID as sysfs writes it: four groups of four hex digits. */
static int parse_guid(const char *text, uint64_t *guid)
{
	unsigned a, b, c, d;

	if (sscanf(text, "%4x:%4x:%4x:%4x", &a, &b, &c, &d) != 4)
		return -1;
	*guid = (uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d;
	return 0;
}

int kd_host_load(struct kd_host *h, const char *root)
{
	char path[PATH_MAX], line[128];
	long long lid, sm_lid, sm_sl;

	memset(h, 0, sizeof(*h));
	snprintf(h->root, sizeof(h->root), "%s", root);
	snprintf(path, sizeof(path), "%s/%s/%s/" SYSFS_UMAD_NAME "/%s", root, SYSFS_DIR,
		 SYSFS_MAD_CLASS_DIR, 0, SYS_IB_MAD_DEV);
	if (read_line(path, h->ca, sizeof(h->ca)) < 0) {
		fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s/%s/" SYSFS_UMAD_NAME "/%s", root, SYSFS_DIR,
		 SYSFS_MAD_CLASS_DIR, 0, SYS_IB_MAD_PORT);
	h->port = (int)read_number(path);
	snprintf(path, sizeof(path), "%s/%s/%s/%s/%s", root, SYSFS_DIR, SYSFS_CLASS_DIR, h->ca,
		 SYS_CA_NODE_GUID);
	lid = kd_port_value(h, SYS_PORT_LID);
	sm_lid = kd_port_value(h, SYS_PORT_SMLID);
	sm_sl = kd_port_value(h, SYS_PORT_SMSL);
	if (h->port <= 0 || read_line(path, line, sizeof(line)) < 0 ||
	    parse_guid(line, &h->node_guid) < 0 || lid <= 0 || sm_lid <= 0 || sm_sl < 0) {
		fprintf(stderr, "%s: umad0 is not a port with a LID and an SM (port %d, LID %lld, "
			"SM LID %lld)\n", root, h->port, lid, sm_lid);
		return -1;
	}
	h->lid = (unsigned)lid;
	h->sm_lid = (unsigned)sm_lid;
	h->sm_sl = (unsigned)sm_sl;
	return 0;
}

/* --- MADs ------------------------------------------------------------------------------ */

static void mad_header(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version, uint8_t method,
		       uint16_t attr_id, uint32_t attr_mod, uint32_t tid)
{
	memset(mad, 0, MAD_SIZE);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = mgmt_class;
	mad[MAD_OFF_CLASS_VERSION] = class_version;
	mad[MAD_OFF_METHOD] = method;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, attr_id);
	put_be32(mad + MAD_OFF_ATTR_MOD, attr_mod);
}

void kd_dr_smp_get(uint8_t *mad, uint16_t attr_id, uint32_t attr_mod, uint32_t tid)
{
	mad_header(mad, UMAD_CLASS_SUBN_DIRECTED_ROUTE, SMP_CLASS_VERSION, UMAD_METHOD_GET,
		   attr_id, attr_mod, tid);
	mad[SMP_OFF_HOP_PTR] = 0;
	mad[SMP_OFF_HOP_CNT] = 0;
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
}

void kd_lid_smp_get(uint8_t *mad, uint32_t tid)
{
	mad_header(mad, UMAD_CLASS_SUBN_LID_ROUTED, SMP_CLASS_VERSION, UMAD_METHOD_GET,
		   UMAD_SM_ATTR_NODE_INFO, 0, tid);
}

void kd_sa_node_table(uint8_t *mad, uint32_t tid)
{
	mad_header(mad, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_SA_METHOD_GET_TABLE,
		   UMAD_SA_ATTR_NODE_REC, 0, tid);
	mad[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
}

void kd_vendor_get(uint8_t *mad, uint8_t mgmt_class, uint32_t tid)
{
	mad_header(mad, mgmt_class, 1, UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO, 0, tid);
}

uint32_t kd_tid_low(const uint8_t *mad)
{
	return get_be32(mad + MAD_OFF_TID_LOW);
}

void kd_check_node_table(const uint8_t *mad, size_t len, unsigned n_nodes, uint64_t node_guid)
{
	size_t rec_size = (size_t)get_be16(mad + SA_OFF_ATTR_OFFSET) * SA_ATTR_OFFSET_UNIT;
	unsigned found = 0, n = 0;
	size_t at;

	CHECK_EQ(mad_class(mad), UMAD_CLASS_SUBN_ADM);
	CHECK_EQ(mad_method(mad), UMAD_SA_METHOD_GET_TABLE_RESP);
	CHECK_EQ(mad_status(mad), UMAD_STATUS_SUCCESS);
	CHECK(mad[RMPP_OFF_FLAGS] & UMAD_RMPP_FLAG_ACTIVE, "RMPP flags 0x%x", mad[RMPP_OFF_FLAGS]);
	CHECK(rec_size >= SA_NODE_REC_SIZE, "AttributeOffset %zu bytes", rec_size);
	if (rec_size < SA_NODE_REC_SIZE || len < SA_HDR_END)
		return;
	CHECK_EQ((len - SA_HDR_END) % rec_size, 0);
	for (at = SA_HDR_END; at + rec_size <= len; at += rec_size, n++) {
		const uint8_t *rec = mad + at;

		found += mad_get(MAD_AT(rec, NR_NODE_INFO), NI_NODE_GUID) == node_guid;
	}
	CHECK_EQ(n, n_nodes);
	CHECK_EQ(found, 1);
}

/* --- a thread blocked in a call the checks watch -------------------------------------- */

static void on_sigusr1(int sig)
{
	(void)sig;
}

void kd_signal_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;	/* no SA_RESTART: the call fails with EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

static void *blocked_main(void *arg)
{
	struct kd_blocked *b = arg;
	int r;

	__atomic_store_n(&b->tid, gettid(), __ATOMIC_RELEASE);
	errno = 0;
	r = b->call(b);
	b->err = errno;
	b->result = r;
	b->done_ns = kd_now_ns();
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

void kd_blocked_start(struct kd_blocked *b, int (*call)(struct kd_blocked *b), void *arg)
{
	b->call = call;
	b->arg = arg;
	b->result = b->err = 0;
	b->done = 0;
	b->tid = 0;
	if (pthread_create(&b->thread, NULL, blocked_main, b) != 0) {
		fprintf(stderr, "FAIL: cannot start a thread\n");
		exit(1);
	}
}

/* The system call a thread of this process is in, and its state ('S': asleep); -1 if unknown. */
static long thread_syscall(pid_t tid, char *state)
{
	char path[64], line[256];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "re");
	*state = '?';
	if (f) {
		if (fgets(line, sizeof(line), f) && strrchr(line, ')'))
			*state = strrchr(line, ')')[2];
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(line, sizeof(line), f) || sscanf(line, "%ld", &nr) != 1)
			nr = -1;
		fclose(f);
	}
	return nr;
}

int kd_blocked_wait_in(struct kd_blocked *b, long nr, int timeout_ms)
{
	uint64_t until = kd_now_ns() + (uint64_t)timeout_ms * 1000000u;
	char state = '?';
	long in = -1;

	while (kd_now_ns() < until && !kd_blocked_done(b)) {
		pid_t tid = __atomic_load_n(&b->tid, __ATOMIC_ACQUIRE);

		if (tid && (in = thread_syscall(tid, &state)) == nr && state == 'S')
			return 0;
		kd_sleep_ms(2);
	}
	kd_failures++;
	fprintf(stderr, "FAIL: the thread is not asleep in system call %ld (%s; in %ld, state %c)\n",
		nr, kd_blocked_done(b) ? "it returned" : "timed out", in, state);
	return -1;
}

int kd_blocked_done(const struct kd_blocked *b)
{
	return __atomic_load_n(&b->done, __ATOMIC_ACQUIRE);
}

int kd_blocked_join(struct kd_blocked *b, int timeout_ms)
{
	uint64_t until = kd_now_ns() + (uint64_t)timeout_ms * 1000000u;

	while (!kd_blocked_done(b) && kd_now_ns() < until)
		kd_sleep_ms(5);
	if (!kd_blocked_done(b)) {
		kd_failures++;
		fprintf(stderr, "FAIL: a blocked call did not return within %d ms\n", timeout_ms);
		return -1;
	}
	pthread_join(b->thread, NULL);
	return 0;
}

void kd_blocked_signal(struct kd_blocked *b)
{
	pthread_kill(b->thread, SIGUSR1);
}
