/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the tests of `umad kernel`'s device files share (kernel_dev_test.c
 * drives the files with system calls, kernel_dev_lib.c through this
 * library's kernel backend): checks that count failures and go on, the
 * served host as its sysfs files show it, the MADs they send (a
 * directed-route SMP to the host's own port, an SA GetTable), and a
 * thread whose blocking call the checks watch.
 */
#ifndef TESTS_KERNEL_DEV_UTIL_H
#define TESTS_KERNEL_DEV_UTIL_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <infiniband/umad.h>

/* --- checks: each failure is printed and counted; the program fails at the end --- */

extern int kd_failures;

#define CHECK(cond, ...) do { if (!(cond)) { kd_failures++; \
	fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { kd_failures++; \
		fprintf(stderr, "FAIL %s:%d: %s is %lld, expected %s (%lld)\n", __FILE__, __LINE__, \
			#a, a_, #b, b_); } } while (0)
/* A call that must fail with -1 and errno e (a system call) or return -e (the library). */
#define CHECK_ERRNO(call, e) do { errno = 0; long long r_ = (long long)(call); int err_ = errno; \
	if (r_ != -1 || err_ != (e)) { kd_failures++; \
		fprintf(stderr, "FAIL %s:%d: %s returned %lld (errno %d %s), expected -1 with %s\n", \
			__FILE__, __LINE__, #call, r_, err_, strerror(err_), #e); } } while (0)
#define CHECK_NEG(call, e) do { long long r_ = (long long)(call); if (r_ != -(e)) { \
	kd_failures++; fprintf(stderr, "FAIL %s:%d: %s returned %lld, expected -%s\n", \
			       __FILE__, __LINE__, #call, r_, #e); } } while (0)

/* "ok: what" once the checks of a case are done, with how many failed in it. */
void kd_case_done(const char *what, int failures_before);

/* --- the served host --------------------------------------------------------------- */

struct kd_host {
	char root[PATH_MAX];		/* the mount: root/sys, root/dev/infiniband */
	char ca[UMAD_CA_NAME_LEN];	/* umad0's device and port */
	int port;
	unsigned lid, sm_lid, sm_sl;
	uint64_t node_guid;
};

/* Read umad0's device and port and what its sysfs files say.  0, or -1 after saying why. */
int kd_host_load(struct kd_host *h, const char *root);
/* A file of the host's port (lid, cap_mask...) as a number; -1 when unreadable. */
long long kd_port_value(const struct kd_host *h, const char *file);
/* root/dev/infiniband/NAME, with NAME formatted from fmt and n (umad%d, issm%d). */
void kd_dev_path(const struct kd_host *h, const char *fmt, int n, char *path, size_t size);

/* --- MADs ------------------------------------------------------------------------------ */

/* A directed-route SMP Get of attr to the host's own port (no hops): MAD_SIZE bytes. */
void kd_dr_smp_get(uint8_t *mad, uint16_t attr_id, uint32_t attr_mod, uint32_t tid);
/* A LID-routed SMP Get of NodeInfo: for a LID nobody has, whose request times out. */
void kd_lid_smp_get(uint8_t *mad, uint32_t tid);
/* An SA GetTable of every NodeRecord (ComponentMask 0), in one MAD. */
void kd_sa_node_table(uint8_t *mad, uint32_t tid);
/* A vendor (range 1) class Get: an unsolicited request an agent registered for receives. */
void kd_vendor_get(uint8_t *mad, uint8_t mgmt_class, uint32_t tid);
/* The low 32 bits of a TID (the kernel writes its agent's bits into the high ones). */
uint32_t kd_tid_low(const uint8_t *mad);
/*
 * Check a GetTable response of NodeRecords (len bytes from the MAD header):
 * the SA's answer, whole, with n_nodes records, one of them node_guid's.
 */
void kd_check_node_table(const uint8_t *mad, size_t len, unsigned n_nodes, uint64_t node_guid);

/* --- a thread blocked in a call the checks watch -------------------------------------- */

struct kd_blocked {
	pthread_t thread;
	int (*call)(struct kd_blocked *b);	/* the blocking call: its result */
	void *arg;
	int result, err;			/* the call's result and errno */
	volatile int done;			/* set (with a barrier) when it returned */
	volatile pid_t tid;			/* the thread's, once it runs */
	uint64_t done_ns;
};

/* Start call in a thread of its own; its SIGUSR1 handler interrupts it (no SA_RESTART). */
void kd_blocked_start(struct kd_blocked *b, int (*call)(struct kd_blocked *b), void *arg);
/*
 * Wait until the thread sleeps in system call nr (SYS_read, SYS_openat...)
 * as /proc shows it: 0, or -1 after timeout_ms (a failure is counted).
 */
int kd_blocked_wait_in(struct kd_blocked *b, long nr, int timeout_ms);
/* Has it returned yet? */
int kd_blocked_done(const struct kd_blocked *b);
/* Wait for it up to timeout_ms; 0, or -1 (it did not return: the program cannot go on). */
int kd_blocked_join(struct kd_blocked *b, int timeout_ms);
/* Send it SIGUSR1. */
void kd_blocked_signal(struct kd_blocked *b);
/* Install the handler that makes SIGUSR1 interrupt blocking calls. */
void kd_signal_setup(void);

uint64_t kd_now_ns(void);
void kd_sleep_ms(int ms);

#endif /* TESTS_KERNEL_DEV_UTIL_H */
