/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for scenario files (simfabric/scenario.h) and the fault
 * module's parser under them (simfabric/fault.h): the input is parsed as a
 * file's text.  Of a scenario that comes back, every step is written back
 * and must parse to the same step, and its request must cross as bytes
 * (sim_fault_encode, sim_fault_decode) unchanged (else abort); the steps are
 * checked against the default fabric and, when they fit it, applied to it
 * (the built-in SM up, through the fault API) the first few, after which
 * the fabric is described (show, JSON, dot, dump) and its dump must load
 * back.  Messages are read to their end, so that over-reads show.
 *
 * Sources: tests/fuzz/fuzz_scenario.c and the fabric's (fuzz_simfabric_sources), with glib-2.0
 *   ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simfabric/describe.h"
#include "simfabric/net.h"
#include "simfabric/scenario.h"
#include "simfabric/topology.h"
#include "tests/fuzz/read_all.h"

#define MAX_APPLIED 32	/* steps applied to the fabric, so that one input stays quick */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_step(const struct sim_scenario_step *a, const struct sim_scenario_step *b)
{
	return a->at_ms == b->at_ms && sim_fault_same(&a->req, &b->req);
}

/* Each step written back reads as itself, and its request's bytes read as it too. */
static void rewrite(const struct sim_scenario *sc)
{
	size_t i;

	for (i = 0; i < sc->n_steps; i++) {
		struct sim_scenario *again = NULL;
		struct sim_fault_req back;
		uint8_t bytes[SIM_FAULT_WIRE_MAX];
		struct umad_err errors = UMAD_ERR_INIT;
		char *line = NULL;
		int len;

		if (sim_scenario_format_step(&sc->steps[i], &line) < 0)
			abort();
		if (sim_scenario_parse(line, strlen(line), "again", &again, &errors) < 0 ||
		    again->n_steps != 1 || !same_step(&sc->steps[i], &again->steps[0])) {
			fprintf(stderr, "step %zu does not read back: %s\n%s", i, line,
				umad_err_text(&errors));
			abort();
		}
		len = sim_fault_encode(&sc->steps[i].req, bytes, sizeof(bytes));
		if (len < SIM_FAULT_WIRE_MIN ||
		    sim_fault_decode(bytes, (size_t)len, &back, NULL) < 0 ||
		    !sim_fault_same(&back, &sc->steps[i].req)) {
			fprintf(stderr, "step %zu does not cross as bytes: %s\n", i, line);
			abort();
		}
		sim_scenario_free(again);
		free(line);
	}
}

static unsigned describe_all(const struct sim_fabric *f)
{
	struct sim_text t = SIM_TEXT_INIT;
	struct sim_fabric *back;
	struct umad_err errors = UMAD_ERR_INIT;
	unsigned sink = 0;

	if (sim_describe_show(f, NULL, &t) < 0 || sim_describe_json(f, NULL, &t) < 0 ||
	    sim_describe_dot(f, NULL, &t) < 0)
		abort();
	sink += sum_string(sim_text_str(&t));
	sim_text_reset(&t);
	if (sim_describe_dump(f, NULL, &t) < 0)
		abort();
	back = sim_topology_parse(sim_text_str(&t), "dump", &errors);
	if (!back) {
		fprintf(stderr, "the dump does not load:\n%s\n%s", umad_err_text(&errors), sim_text_str(&t));
		abort();
	}
	sink += (unsigned)back->n_nodes;
	sim_fabric_free(back);
	sim_text_free(&t);
	return sink;
}

static unsigned apply(const struct sim_scenario *sc)
{
	struct sim_fabric *f = sim_topology_parse(sim_default_topology, "default", NULL);
	struct sim_net net;
	struct umad_err errors = UMAD_ERR_INIT, net_errors = UMAD_ERR_INIT;
	unsigned sink = 0;
	size_t i;

	if (!f)
		abort();
	if (sim_scenario_check(sc, f, &errors) == 0 &&
	    sim_net_init(&net, f, 1, NULL, NULL, &net_errors) == 0) {
		for (i = 0; i < sc->n_steps && i < MAX_APPLIED; i++)
			sink += (unsigned)sim_scenario_apply(&net, &sc->steps[i]);
		sink += describe_all(f);
		sim_net_fini(&net);
	}
	sink += sum_string(umad_err_text(&errors));
	sim_fabric_free(f);
	return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_scenario *sc = NULL;
	struct umad_err errors = UMAD_ERR_INIT;
	volatile unsigned sink = 0;

	if (sim_scenario_parse((const char *)data, size, "fuzz.scn", &sc, &errors) == 0) {
		rewrite(sc);
		sink += apply(sc);
		sim_scenario_free(sc);
	}
	sink += sum_string(umad_err_text(&errors));
	(void)sink;
	return 0;
}
