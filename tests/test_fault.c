/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fault module (simfabric/fault.h) as one piece: every kind of its
 * table has a name, help, arguments the one parser reads, and an action,
 * and its example goes through every shape a request takes (words, the
 * request, the text written back, the bytes FP_CONTROL carries, the
 * fabric); the same command reads as the same request whether umad fabric
 * has it as its arguments or a scenario file as a line, old spellings
 * included; bad commands are refused with "CMD: ..." from the parser, and
 * FILE:LINE before it in a scenario; bytes that are not a request are
 * refused.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/describe.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"
#include "simfabric/scenario.h"
#include "simfabric/topology.h"
#include "tests/own_net.h"

#define MAX_WORDS	(SIM_FAULT_MAX_WORDS + 2)

/* A command line split as a scenario line is (quotes, comments), then parsed. */
static int parse_line(const char *line, struct sim_fault_req *rq, struct umad_err *err)
{
	static char words[MAX_WORDS][SIM_FAULT_WORD_MAX];
	const char *argv[MAX_WORDS];
	unsigned total, i;
	int r = sim_fault_split(line, strlen(line), words, MAX_WORDS, &total, err);

	if (r < 0)
		return r;
	for (i = 0; i < total && i < MAX_WORDS; i++)
		argv[i] = words[i];
	return sim_fault_parse((int)total, argv, rq, err);
}

/* The request of a scenario holding the line at time 0, as its only step. */
static void parse_scenario(const char *line, struct sim_fault_req *rq)
{
	struct sim_scenario *sc = NULL;
	struct umad_err errors = UMAD_ERR_INIT;
	char text[512];
	int n = snprintf(text, sizeof(text), "0 %s\n", line);

	if (sim_scenario_parse(text, (size_t)n, "t.scn", &sc, &errors) < 0)
		fail_msg("\"%s\" refused in a scenario:\n%s", line, umad_err_text(&errors));
	assert_int_equal(sc->n_steps, 1);
	*rq = sc->steps[0].req;
	sim_scenario_free(sc);
}

/* --- the table ---------------------------------------------------------------------------- */

/*
 * Each kind: a name that finds it, help, arguments, an action; its example
 * read as words, written back word for word, carried as bytes and back,
 * taken by the fabric.  A kind added to the table is held to all of it.
 */
static void test_every_kind(void **state)
{
	struct own_net *o = *state;
	int op, kinds = 0;

	for (op = SIM_FAULT_LINK; op < SIM_FAULT_N_OPS; op++) {
		const struct sim_fault_op_info *info = sim_fault_op_info((enum sim_fault_op)op);
		struct sim_fault_req rq, back;
		struct sim_text t = SIM_TEXT_INIT;
		uint8_t bytes[SIM_FAULT_WIRE_MAX];
		struct umad_err err = UMAD_ERR_INIT, msg = UMAD_ERR_INIT;
		char usage[128];
		int len;

		assert_non_null(info);
		assert_non_null(info->name);
		assert_int_equal(sim_fault_op_by_name(info->name), op);
		assert_string_equal(sim_fault_op_name((enum sim_fault_op)op), info->name);
		if (!info->help || !info->help[0])
			fail_msg("%s has no help", info->name);
		if (info->args[0] == SIM_FAULT_ARG_END)
			fail_msg("%s has no arguments for the parser", info->name);
		if (!info->apply)
			fail_msg("%s has no action", info->name);
		sim_fault_usage((enum sim_fault_op)op, usage, sizeof(usage));
		assert_int_equal(strncmp(usage, info->name, strlen(info->name)), 0);
		assert_int_equal(usage[strlen(info->name)], ' ');

		if (!info->example || parse_line(info->example, &rq, &err) < 0)
			fail_msg("%s: its example does not parse: %s", info->name, umad_err_text(&err));
		assert_int_equal(rq.op, op);
		assert_int_equal(sim_fault_format(&rq, &t), 0);
		assert_string_equal(sim_text_str(&t), info->example);
		sim_text_free(&t);
		len = sim_fault_encode(&rq, bytes, sizeof(bytes));
		assert_true(len >= SIM_FAULT_WIRE_MIN);
		assert_int_equal(sim_fault_decode(bytes, (size_t)len, &back, &err), 0);
		assert_true(sim_fault_same(&rq, &back));
		if (sim_fault_apply(&o->net, &back, &msg) != 0)
			fail_msg("%s: the default fabric refuses its example: %s", info->name,
				 umad_err_text(&msg));
		kinds++;
	}
	assert_int_equal(kinds, SIM_FAULT_N_OPS - SIM_FAULT_LINK);
	assert_null(sim_fault_op_info(0));
	assert_null(sim_fault_op_info(SIM_FAULT_N_OPS));
	assert_null(sim_fault_op_name(SIM_FAULT_N_OPS));
	assert_int_equal(sim_fault_op_by_name("explode"), -1);
	assert_int_equal(sim_fault_op_by_name(NULL), -1);
	assert_false(sim_fault_changes_ports(SIM_FAULT_N_OPS));
	assert_true(sim_fault_changes_ports(SIM_FAULT_LINK));
	assert_false(sim_fault_changes_ports(SIM_FAULT_DROP));
}

/* Every trap the parser takes, a switch may send. */
static void test_traps(void **state)
{
	static const unsigned numbers[] = { 128, 129, 130, 131, 144, 145 };
	struct own_net *o = *state;
	size_t i;

	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		struct sim_fault_req rq;
		struct umad_err err = UMAD_ERR_INIT;
		char line[64];

		snprintf(line, sizeof(line), "trap Switch2 0 %u", numbers[i]);
		assert_int_equal(parse_line(line, &rq, &err), 0);
		assert_int_equal(sim_fault_target(o->f, &rq, NULL, NULL, &err), 0);
	}
}

/* --- one parser: umad fabric's arguments and scenario lines ------------------------------ */

/* A line of a scenario (after its time), and the same command as umad fabric's argv. */
struct same {
	const char *line;
	const char *argv[SIM_FAULT_MAX_WORDS];
};

static void test_cli_and_scenario_agree(void **state)
{
	static const struct same cases[] = {
		{ "link down Switch1 7", { "link", "down", "Switch1", "7" } },
		{ "link up Switch1 007", { "link", "up", "Switch1", "7" } },
		{ "node down \"node1 HCA-1\"", { "node", "down", "node1 HCA-1" } },
		{ "drop Switch1 8 0.25 seed=7", { "drop", "Switch1", "8", "0.25", "seed=7" } },
		/* umad fabric's first spelling of a seed, a bare number, hex too: the same drop. */
		{ "drop Switch1 8 .5 seed=16", { "drop", "Switch1", "8", "0.5", "0x10" } },
		{ "drop Switch1 8 1 seed=0x10", { "drop", "Switch1", "8", "1", "16" } },
		{ "drop Switch1 8 0", { "drop", "Switch1", "8", "0" } },
		{ "delay Switch1 8 3ms", { "delay", "Switch1", "8", "3000" } },
		{ "delay Switch1 8 1500ns # a comment", { "delay", "Switch1", "8", "1500ns" } },
		{ "counter Hca1 1 portmalformedpkterrors 3",
		  { "counter", "Hca1", "1", "PortMalformedPacketErrors", "3" } },
		{ "trap Switch2 0 144", { "trap", "Switch2", "0", "144" } },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_fault_req from_line, from_argv, from_scenario;
		struct umad_err err = UMAD_ERR_INIT;
		int argc = 0;

		while (argc < SIM_FAULT_MAX_WORDS && cases[i].argv[argc])
			argc++;
		if (parse_line(cases[i].line, &from_line, &err) < 0)
			fail_msg("\"%s\": %s", cases[i].line, umad_err_text(&err));
		if (sim_fault_parse(argc, cases[i].argv, &from_argv, &err) < 0)
			fail_msg("argv of \"%s\": %s", cases[i].line, umad_err_text(&err));
		parse_scenario(cases[i].line, &from_scenario);
		if (!sim_fault_same(&from_line, &from_argv) ||
		    !sim_fault_same(&from_line, &from_scenario))
			fail_msg("\"%s\" reads otherwise as arguments or in a scenario", cases[i].line);
	}
}

/* Refused the same way: "CMD: ..." from the parser, FILE:LINE before it in a scenario. */
struct bad {
	const char *argv[SIM_FAULT_MAX_WORDS + 2];	/* one too many, and the NULL after */
	const char *message;
};

static void test_refused(void **state)
{
	static const struct bad cases[] = {
		{ { "explode", "Switch1" },
		  "unknown command \"explode\" (link, node, drop, delay, counter or trap)" },
		{ { "link", "down", "Switch1" }, "link: missing arguments (link up|down NODE PORT)" },
		{ { "link", "down", "Switch1", "7", "8" },
		  "link: too many arguments (link up|down NODE PORT)" },
		{ { "link", "sideways", "Switch1", "7" }, "link: expected up or down, not \"sideways\"" },
		{ { "link", "down", "Switch1", "0" }, "link: port 0 has no link (ports 1..254)" },
		{ { "node", "up", "" }, "node: the node is empty" },
		{ { "drop", "Switch1", "8", "1.5" }, "drop: rate 1.5 out of range 0..1" },
		{ { "drop", "Switch1", "8", "1e-3" }, "drop: bad rate \"1e-3\": 0..1, at most 9 decimals" },
		{ { "drop", "Switch1", "8", "0.5", "seed=x" },
		  "drop: expected seed=N (a number), not \"seed=x\"" },
		{ { "drop", "Switch1", "8", "0.5", "0.25" },
		  "drop: expected seed=N (a number), not \"0.25\"" },
		{ { "drop", "Switch1", "8", "0.5", "1", "2" },
		  "drop: too many arguments (drop NODE PORT RATE [seed=N])" },
		{ { "delay", "Switch1", "8", "60000001" },
		  "delay: 60000001 is longer than a minute (at most 60000000 microseconds)" },
		{ { "delay", "Switch1", "8", "5s" },
		  "delay: bad delay \"5s\": microseconds, or a number with ns, us or ms" },
		{ { "counter", "Hca1", "1", "Bogus", "1" },
		  "counter: unknown counter \"Bogus\": COUNTER is an error counter, e.g. "
		  "SymbolErrorCounter (umad --help lists them)" },
		/* A traffic counter is a PortCounters name too, but the fabric counts it itself. */
		{ { "counter", "Hca1", "1", "portxmitdata", "1" },
		  "counter: PortXmitData counts the traffic through the port, and cannot be raised: "
		  "COUNTER is an error counter, e.g. SymbolErrorCounter (umad --help lists them)" },
		{ { "counter", "Hca1", "1", "SymbolErrorCounter", "0" },
		  "counter: bad count \"0\": a number, 1 or more" },
		{ { "trap", "Switch1", "0", "0x80" },
		  "trap: \"0x80\" is not a trap the fabric sends (128, 129, 130, 131, 144 or 145)" },
		{ { "trap", "Switch1", "255", "128" }, "trap: bad port \"255\": a number 0..254" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_fault_req rq;
		struct sim_text line = SIM_TEXT_INIT;
		struct sim_scenario *sc = NULL;
		struct umad_err err = UMAD_ERR_INIT;
		struct umad_err errors = UMAD_ERR_INIT;
		char want[320];
		int argc;

		memset(&rq, 0xa5, sizeof(rq));
		for (argc = 0; cases[i].argv[argc]; argc++)
			sim_text_printf(&line, argc ? " \"%s\"" : "%s", cases[i].argv[argc]);
		assert_int_equal(sim_fault_parse(argc, cases[i].argv, &rq, &err), -EINVAL);
		assert_string_equal(umad_err_text(&err), cases[i].message);
		assert_int_equal(rq.op, 0);	/* nothing half-read is left */
		assert_string_equal(rq.node, "");
		/* The same words in a scenario, at its line 2. */
		sim_text_printf(&line, "\n");
		snprintf(want, sizeof(want), "0 node up a\n5 %s", sim_text_str(&line));
		assert_int_equal(sim_scenario_parse(want, strlen(want), "t.scn", &sc, &errors), -EINVAL);
		assert_null(sc);
		snprintf(want, sizeof(want), "t.scn:2: %s\n", cases[i].message);
		assert_string_equal(umad_err_text(&errors), want);
		umad_err_clear(&errors);
		sim_text_free(&line);
	}
}

/* A node as long as a node id may be, and one byte more, from either side. */
static void test_node_length(void **state)
{
	struct umad_err err = UMAD_ERR_INIT;
	char node[SIM_FAULT_NODE_MAX + 2];
	const char *argv[] = { "node", "down", node };
	struct sim_fault_req rq;

	(void)state;
	memset(node, 'n', sizeof(node) - 1);
	node[sizeof(node) - 1] = '\0';
	assert_int_equal(sim_fault_parse(3, argv, &rq, &err), -EINVAL);
	assert_string_equal(umad_err_text(&err), "node: node \"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...\" is longer "
				 "than 255 bytes, the longest node id");
	node[SIM_FAULT_NODE_MAX] = '\0';
	assert_int_equal(sim_fault_parse(3, argv, &rq, &err), 0);
	assert_string_equal(rq.node, node);
	/* libumad-sim's names: a node longer names none, a counter longer is none. */
	node[SIM_FAULT_NODE_MAX] = 'n';
	assert_int_equal(sim_fault_req_names(&rq, node, NULL), -ENOENT);
	assert_int_equal(sim_fault_req_names(&rq, "Hca1", node), -EINVAL);
	assert_int_equal(sim_fault_req_names(&rq, NULL, NULL), 0);
	assert_string_equal(rq.node, "");
}

/* More words than the caller kept are counted as too many, never read. */
static void test_words_not_kept(void **state)
{
	const char *argv[SIM_FAULT_MAX_WORDS] = { "trap", "Switch1", "0", "128" };
	struct sim_fault_req rq;
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	assert_int_equal(sim_fault_parse(40, argv, &rq, &err), -EINVAL);
	assert_string_equal(umad_err_text(&err), "trap: too many arguments (trap NODE PORT NUMBER)");
	assert_int_equal(sim_fault_parse(0, argv, &rq, &err), -EINVAL);
	assert_string_equal(umad_err_text(&err), "no command");
	assert_int_equal(sim_fault_parse(1, NULL, &rq, NULL), -EINVAL);
}

/* --- bytes --------------------------------------------------------------------------------- */

static void test_bytes_refused(void **state)
{
	struct sim_fault_req rq = { .op = SIM_FAULT_COUNTER, .node = "Hca1", .port = 1,
				    .counter = "SymbolErrorCounter", .count = 2 }, back;
	uint8_t b[SIM_FAULT_WIRE_MAX + 1], bad[SIM_FAULT_WIRE_MAX + 1];
	struct umad_err err = UMAD_ERR_INIT;
	int len = sim_fault_encode(&rq, b, sizeof(b));

	(void)state;
	assert_int_equal(len, SIM_FAULT_WIRE_FIXED + 5 + 19);
	assert_int_equal(sim_fault_decode(b, (size_t)len, &back, &err), 0);
	assert_true(sim_fault_same(&rq, &back));
	/* Short, long, another version, a name without its NUL, a flag not 0 or 1. */
	assert_int_equal(sim_fault_decode(b, SIM_FAULT_WIRE_MIN - 1, &back, &err), -EINVAL);
	assert_string_equal(umad_err_text(&err), "a fault request of 49 bytes, less than its 50");
	assert_int_equal(sim_fault_decode(b, (size_t)len - 1, &back, &err), -EINVAL);
	assert_string_equal(umad_err_text(&err), "a malformed fault request (71 bytes)");
	memcpy(bad, b, (size_t)len);
	bad[len] = 0;
	assert_int_equal(sim_fault_decode(bad, (size_t)len + 1, &back, &err), -EINVAL);
	bad[0] = SIM_FAULT_WIRE_VERSION + 1;
	assert_int_equal(sim_fault_decode(bad, (size_t)len, &back, &err), -EINVAL);
	assert_string_equal(umad_err_text(&err), "a fault request of version 2; this fabric reads version 1");
	memcpy(bad, b, (size_t)len);
	bad[1] = 2;
	assert_int_equal(sim_fault_decode(bad, (size_t)len, &back, &err), -EINVAL);
	memcpy(bad, b, (size_t)len);
	memset(bad + SIM_FAULT_WIRE_FIXED, 'x', SIM_FAULT_NODE_MAX + 1);
	memset(bad + SIM_FAULT_WIRE_FIXED + SIM_FAULT_NODE_MAX + 1, 0, 2);
	assert_int_equal(sim_fault_decode(bad, SIM_FAULT_WIRE_FIXED + SIM_FAULT_NODE_MAX + 3, &back,
					  &err), -EINVAL);
	assert_string_equal(back.node, "");
	/* The longest names fit exactly. */
	memset(rq.node, 'n', SIM_FAULT_NODE_MAX);
	rq.node[SIM_FAULT_NODE_MAX] = '\0';
	memset(rq.counter, 'c', SIM_FAULT_COUNTER_MAX);
	rq.counter[SIM_FAULT_COUNTER_MAX] = '\0';
	assert_int_equal(sim_fault_encode(&rq, b, SIM_FAULT_WIRE_MAX), SIM_FAULT_WIRE_MAX);
	assert_int_equal(sim_fault_decode(b, SIM_FAULT_WIRE_MAX, &back, &err), 0);
	assert_true(sim_fault_same(&rq, &back));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_kind, own_setup, own_teardown),
		cmocka_unit_test_setup_teardown(test_traps, own_setup, own_teardown),
		cmocka_unit_test(test_cli_and_scenario_agree),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_node_length),
		cmocka_unit_test(test_words_not_kept),
		cmocka_unit_test(test_bytes_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
