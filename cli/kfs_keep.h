/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Keeping the CPUs awake while programs talk to `umad kernel`'s files.
 * Every MAD a program exchanges through them is three FUSE requests
 * (write, poll, read), and each one the program waits for asleep: on a
 * virtual machine whose idle CPUs halt, waking it costs far more than the
 * request.  While requests keep coming, one thread per CPU of this
 * process's spins at SCHED_IDLE priority, so an idle CPU is never halted
 * and a wake-up is a switch of tasks; any other task takes the CPU from it
 * at once.  They sleep again KFS_KEEP_NS after the last request.
 */
#ifndef CLI_KFS_KEEP_H
#define CLI_KFS_KEEP_H

#include <stdint.h>

#define KFS_KEEP_NS	1000000u

struct kfs_keepers;

/* Start the threads (asleep): 0 or -errno.  Call after any fork the process still makes. */
int kfs_keepers_start(struct kfs_keepers **out);
/* A request came: keep the CPUs awake for KFS_KEEP_NS from now (now_ns: CLOCK_MONOTONIC). */
void kfs_keepers_busy(struct kfs_keepers *kp, uint64_t now_ns);
void kfs_keepers_stop(struct kfs_keepers *kp);

#endif /* CLI_KFS_KEEP_H */
