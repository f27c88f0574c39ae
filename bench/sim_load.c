/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * How long the simulated fabric takes to come up: reading a topology file
 * (sim_topology_load) and configuring it as the built-in SM does
 * (sim_subnet_bring_up), each the median of a few runs, and the peak RSS.
 * Usage: sim_load FILE [RUNS]   (RUNS: 5 by default)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "simfabric/subnet_up.h"
#include "simfabric/topology.h"

static double clock_s(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wall time; and CPU time, which other load on the machine disturbs less. */
static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 5, i;
	double *load_s, *up_s, *load_cpu, *up_cpu;
	struct rusage ru;
	size_t n_nodes = 0, n_switches = 0, n_cas = 0;
	unsigned top = 0;

	if (argc < 2 || runs < 1) {
		fprintf(stderr, "usage: sim_load FILE [RUNS]\n");
		return 2;
	}
	load_s = calloc((size_t)runs, sizeof(*load_s));
	up_s = calloc((size_t)runs, sizeof(*up_s));
	load_cpu = calloc((size_t)runs, sizeof(*load_cpu));
	up_cpu = calloc((size_t)runs, sizeof(*up_cpu));
	if (!load_s || !up_s || !load_cpu || !up_cpu)
		return 1;
	for (i = 0; i < runs; i++) {
		struct umad_err errors = UMAD_ERR_INIT;
		struct sim_fabric *f;
		double t0 = now(), c0 = cpu(), t1, c1;
		int r;

		f = sim_topology_load(argv[1], &errors);
		t1 = now();
		c1 = cpu();
		if (!f) {
			fprintf(stderr, "sim_load: %s",
				errors.count ? umad_err_text(&errors) : "cannot load\n");
			return 1;
		}
		r = sim_subnet_bring_up(f, sim_subnet_sm_site(f), &errors);
		up_s[i] = now() - t1;
		up_cpu[i] = cpu() - c1;
		load_s[i] = t1 - t0;
		load_cpu[i] = c1 - c0;
		if (r < 0) {
			fprintf(stderr, "sim_load: bring-up: %s\n",
				errors.count ? umad_err_text(&errors) : "failed");
			sim_fabric_free(f);
			return 1;
		}
		n_nodes = f->n_nodes;
		n_switches = f->n_switches;
		n_cas = f->n_cas;
		for (size_t k = 0; k < f->n_nodes; k++)
			if (f->nodes[k]->sw)
				top = f->nodes[k]->sw->lft_top;
		sim_fabric_free(f);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%s: %zu nodes (%zu switches, %zu CAs), LinearFDBTop %u\n", argv[1], n_nodes,
	       n_switches, n_cas, top);
	printf("  wall: load %.3f s, bring-up %.3f s, together %.3f s (medians of %d runs)\n",
	       median(load_s, runs), median(up_s, runs), median(load_s, runs) + median(up_s, runs),
	       runs);
	printf("  CPU:  load %.3f s, bring-up %.3f s, together %.3f s; peak RSS %.1f MB\n",
	       median(load_cpu, runs), median(up_cpu, runs),
	       median(load_cpu, runs) + median(up_cpu, runs), (double)ru.ru_maxrss / 1024);
	free(load_s);
	free(up_s);
	free(load_cpu);
	free(up_cpu);
	return 0;
}
