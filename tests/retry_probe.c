/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad_send()'s retries as a program sees them, through libibumad's API
 * (so that any libibumad, on any backend, can run it):
 *
 *   retry_probe [--drop NODE PORT RATE SEED] [--threads T]
 *               smp|pma N TIMEOUT_MS RETRIES DLID
 *
 * sends N requests, each with its own TID (T threads sharing them out,
 * one agent), to LID DLID: a LID-routed SMP NodeInfo Get (smp) or a PMA
 * ClassPortInfo Get (pma), with TIMEOUT_MS and RETRIES, at most WINDOW
 * outstanding at a time (so that on a busy machine an answer is late only
 * by what one window costs, not by the whole burst ahead of it); reads
 * until every one has completed, and for a timeout more.  --drop first sets a drop rate on a port of the fabric through
 * libumad-sim (UMAD_BACKEND=sim only).
 *
 * Prints "answered A timedout B of N", then one line "timeout 0xLOW" per
 * request that timed out (its TID's lower half, as written).  Exits 0
 * when every request completed exactly once -- its answer or its
 * timeout, never both, never twice, nothing for a TID not sent, nothing
 * after they all completed -- and 1 otherwise (why on stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sim.h>

#include "base/mad_wire.h"

#define TID_HIGH	0x7e700000u	/* the upper half written; the kernel may replace it */
#define MAX_THREADS	16
#define WINDOW		64		/* requests outstanding at most */

struct msg {
	struct ib_user_mad hdr;
	uint8_t mad[MAD_SIZE];
};

static struct {
	int fd, agent, smp, n, timeout_ms, retries, threads;
	uint16_t dlid;
	int send_failed;
	sem_t window;			/* a send takes a place, its completion gives it back */
} run;

static int fail(const char *what)
{
	fprintf(stderr, "retry_probe: %s\n", what);
	return 1;
}

static void request(struct msg *m, uint32_t tid_low)
{
	memset(m, 0, sizeof(*m));
	m->mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	m->mad[MAD_OFF_CLASS_VERSION] = 1;
	m->mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be32(m->mad + MAD_OFF_TID, TID_HIGH);
	put_be32(m->mad + MAD_OFF_TID_LOW, tid_low);
	if (run.smp) {
		umad_set_addr(m, run.dlid, QP0_SMI, 0, 0);
		m->mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_LID_ROUTED;
		put_be16(m->mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_NODE_INFO);
	} else {
		umad_set_addr(m, run.dlid, QP1_GSI, 0, UMAD_QKEY);
		m->mad[MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT;
		put_be16(m->mad + MAD_OFF_ATTR_ID, UMAD_ATTR_CLASS_PORT_INFO);
	}
}

/* Thread k sends the requests whose number is k modulo the thread count. */
static void *sender(void *arg)
{
	int k = (int)(intptr_t)arg, i;
	struct msg m;

	for (i = k; i < run.n; i += run.threads) {
		while (sem_wait(&run.window) < 0)
			;
		request(&m, (uint32_t)i + 1);
		if (umad_send(run.fd, run.agent, &m, MAD_SIZE, run.timeout_ms, run.retries) < 0) {
			fprintf(stderr, "retry_probe: umad_send: %s\n", strerror(errno));
			__atomic_store_n(&run.send_failed, 1, __ATOMIC_SEQ_CST);
			break;
		}
	}
	return NULL;
}

static int usage(void)
{
	return fail("usage: retry_probe [--drop NODE PORT RATE SEED] [--threads T] "
		    "smp|pma N TIMEOUT_MS RETRIES DLID");
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_THREADS];
	char *done;
	struct msg m;
	int i = 1, t, left, answered = 0, timedout = 0, len, r, status = 0;

	run.threads = 1;
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--drop") && i + 4 < argc) {
			r = umad_sim_drop_rate(argv[i + 1], (unsigned)atoi(argv[i + 2]),
					       atof(argv[i + 3]), strtoull(argv[i + 4], NULL, 0));
			if (r < 0) {
				fprintf(stderr, "retry_probe: umad_sim_drop_rate: %s\n", strerror(-r));
				return 1;
			}
			i += 4;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			run.threads = atoi(argv[++i]);
		} else {
			return usage();
		}
	}
	if (argc - i != 5 || run.threads < 1 || run.threads > MAX_THREADS)
		return usage();
	run.smp = !strcmp(argv[i], "smp");
	if (!run.smp && strcmp(argv[i], "pma"))
		return usage();
	run.n = atoi(argv[i + 1]);
	run.timeout_ms = atoi(argv[i + 2]);
	run.retries = atoi(argv[i + 3]);
	run.dlid = (uint16_t)strtoul(argv[i + 4], NULL, 0);
	if (run.n < 1 || run.timeout_ms < 1 || run.retries < 0 || !run.dlid)
		return usage();
	done = calloc((size_t)run.n, 1);
	if (!done)
		return fail("out of memory");
	if (sem_init(&run.window, 0, WINDOW) < 0)
		return fail("sem_init failed");
	if (umad_init() < 0)
		return fail("umad_init failed");
	run.fd = umad_open_port(NULL, 0);
	if (run.fd < 0)
		return fail("umad_open_port failed");
	run.agent = umad_register(run.fd, run.smp ? UMAD_CLASS_SUBN_LID_ROUTED : UMAD_CLASS_PERF_MGMT,
				  1, 0, NULL);
	if (run.agent < 0)
		return fail("umad_register failed");
	for (t = 0; t < run.threads; t++)
		if (pthread_create(&threads[t], NULL, sender, (void *)(intptr_t)t))
			return fail("pthread_create failed");
	/* Every request completes within its whole timeout; a wide margin for a busy machine. */
	left = run.n;
	while (left > 0) {
		uint32_t low;

		len = MAD_SIZE;
		r = umad_recv(run.fd, &m, &len,
			      run.timeout_ms * (run.retries + 1) + 30000);
		if (r < 0) {
			fprintf(stderr, "retry_probe: %d requests never completed: %s\n", left,
				strerror(errno));
			status = 1;
			break;
		}
		low = get_be32(m.mad + MAD_OFF_TID_LOW);
		if (low < 1 || low > (uint32_t)run.n) {
			fprintf(stderr, "retry_probe: a MAD for a TID never sent: 0x%08" PRIx32 "\n",
				low);
			status = 1;
			continue;
		}
		if (done[low - 1]) {
			fprintf(stderr, "retry_probe: request 0x%08" PRIx32 " completed twice "
				"(status %u)\n", low, m.hdr.status);
			status = 1;
			continue;
		}
		done[low - 1] = 1;
		left--;
		sem_post(&run.window);
		if (m.hdr.status == ETIMEDOUT) {
			done[low - 1] = 2;
			timedout++;
		} else if (m.hdr.status == 0 &&
			   m.mad[MAD_OFF_METHOD] == UMAD_METHOD_GET_RESP) {
			answered++;
		} else {
			fprintf(stderr, "retry_probe: request 0x%08" PRIx32 " ended with status %u, "
				"method 0x%02x\n", low, m.hdr.status, m.mad[MAD_OFF_METHOD]);
			status = 1;
		}
	}
	/* Senders still waiting for a place, after a receive gave up: let them end. */
	for (i = 0; i < left; i++)
		sem_post(&run.window);
	for (t = 0; t < run.threads; t++)
		pthread_join(threads[t], NULL);
	if (run.send_failed)
		status = 1;
	/*
	 * A late answer, or a resend's, is dropped once its request completed:
	 * the last resends went out a timeout before, their answers are due.
	 */
	len = MAD_SIZE;
	r = umad_recv(run.fd, &m, &len, run.timeout_ms + 100);
	if (r >= 0) {
		fprintf(stderr, "retry_probe: a MAD after every request completed: TID 0x%016"
			PRIx64 ", status %u\n", get_be64(m.mad + MAD_OFF_TID), m.hdr.status);
		status = 1;
	}
	printf("answered %d timedout %d of %d\n", answered, timedout, run.n);
	for (i = 0; i < run.n; i++)
		if (done[i] == 2)
			printf("timeout 0x%08x\n", i + 1);
	umad_close_port(run.fd);
	free(done);
	return status;
}
