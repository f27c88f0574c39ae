/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A test's preload: before an unmodified tool's main() runs, raise error
 * counters on its process's simulated fabric through libumad-sim, as an
 * in-process test would.  UMAD_TEST_INJECT="NODE PORT COUNTER COUNT[;...]".
 * A failure is printed and makes the tool's process exit with status 99, so
 * that a test never passes on an injection that did not happen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad_sim.h>

__attribute__((constructor)) static void inject(void)
{
	const char *spec = getenv("UMAD_TEST_INJECT");
	char node[128], counter[128];
	unsigned port;
	unsigned long long count;
	int used, r;

	while (spec && *spec) {
		if (sscanf(spec, " %127s %u %127s %llu%n", node, &port, counter, &count, &used) != 4) {
			fprintf(stderr, "inject_errors: cannot parse UMAD_TEST_INJECT at '%s'\n", spec);
			exit(99);
		}
		r = umad_sim_add_errors(node, port, counter, count);
		if (r < 0) {
			fprintf(stderr, "inject_errors: %s %u %s: %s\n", node, port, counter,
				strerror(-r));
			exit(99);
		}
		spec += used;
		spec += strspn(spec, "; ");
	}
}
