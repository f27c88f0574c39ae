/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * DR SMP round trips per second through the public libibumad API: SubnGet
 * (NodeInfo) to the node at the end of a directed path, one at a time, as
 * discovery tools do.  Links against whichever libibumad.so.3 is loaded, so
 * the same binary measures libumad's sim backend and ibsim+umad2sim.
 * It prints the rate, and when the round trips began and ended on
 * CLOCK_MONOTONIC, which is the machine's: the span of several run at once.
 * START, when given, is the wall-clock time (seconds since the epoch, as
 * bash's EPOCHREALTIME) at which the round trips begin, once the port is
 * open: clients started one after another then run at once.
 * Usage: dr_rtt COUNT [PATH [START]]   (PATH like 0,1,7: default 0,1)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/umad.h>

#define MAD_LEN 256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 10000, i, failed = 0;
	const char *path_text = argc > 2 ? argv[2] : "0,1";
	double start_at = argc > 3 ? strtod(argv[3], NULL) : 0;
	uint8_t path[64] = { 0 }, buf[sizeof(struct ib_user_mad) + MAD_LEN];
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	uint8_t *mad;
	int fd, agent, hops = 0, len;
	const char *s = path_text;
	double start, elapsed;

	while (*s && hops < 63) {
		path[hops] = (uint8_t)strtoul(s, (char **)&s, 10);
		if (*s == ',')
			s++;
		hops++;
	}
	hops--;	/* path[0] is the local node */
	if (umad_init() < 0 || (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, 0x81, 1, 0, NULL)) < 0) {
		fprintf(stderr, "dr_rtt: cannot open a port and register an SMP agent\n");
		return 1;
	}
	/* Only now: before a port is open, umad_size() is the old ABI's 56. */
	mad = umad_get_mad(umad);
	if (start_at > 0) {
		struct timespec at = { .tv_sec = (time_t)start_at };

		at.tv_nsec = (long)((start_at - (double)at.tv_sec) * 1e9);
		/* A time already past returns at once: a late client just starts late. */
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
	}
	start = now();
	for (i = 0; i < count; i++) {
		memset(buf, 0, sizeof(buf));
		umad_set_addr(umad, 0xffff, 0, 0, 0);
		mad[0] = 1;
		mad[1] = 0x81;
		mad[2] = 1;
		mad[3] = 0x01;
		mad[7] = (uint8_t)hops;
		memcpy(mad + 12, &i, 4);	/* TID */
		mad[17] = 0x11;			/* NodeInfo */
		mad[32] = mad[33] = mad[34] = mad[35] = 0xff;
		memcpy(mad + 128, path, (size_t)hops + 1);
		len = MAD_LEN;
		if (umad_send(fd, agent, umad, MAD_LEN, 1000, 0) < 0 ||
		    umad_recv(fd, umad, &len, 5000) < 0 || umad_status(umad))
			failed++;
	}
	elapsed = now() - start;
	printf("%ld DR SMP round trips (%d hops) in %.3f s: %.0f per second, %.2f us each, %ld failed, "
	       "from %.6f to %.6f s\n", count, hops, elapsed, (double)count / elapsed,
	       elapsed * 1e6 / (double)count, failed, start, start + elapsed);
	umad_close_port(fd);
	umad_done();
	return failed ? 1 : 0;
}
