/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Scenario files (simfabric/scenario.h): every command and its arguments,
 * comments, blank lines, quoted node names and CRLF lines; each error as
 * "FILE:LINE: message" (several in one file, a cap on their number);
 * steps written back and read again; files; the run through a table of
 * operations (a fake that records them), stopping where one fails and
 * refusing to start without an operation; the check against a fabric;
 * and each command applied to a real fabric and net through the fault API.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/describe.h"
#include "simfabric/fabric.h"
#include "simfabric/net.h"
#include "simfabric/pma.h"
#include "simfabric/scenario.h"
#include "simfabric/topology.h"

static struct sim_scenario *parse_ok(const char *text)
{
	struct sim_scenario *sc = NULL;
	struct umad_err errors = UMAD_ERR_INIT;
	int r = sim_scenario_parse(text, strlen(text), "t.scn", &sc, &errors);

	if (r < 0)
		fail_msg("unexpected %d:\n%s", r, umad_err_text(&errors));
	assert_int_equal(errors.count, 0);
	assert_non_null(sc);
	return sc;
}

/* The messages for a file that must be refused (-EINVAL, no scenario). */
static char *parse_fails(const char *text, size_t len)
{
	struct sim_scenario *sc = (struct sim_scenario *)&sc;	/* must be cleared */
	struct umad_err errors = UMAD_ERR_INIT;

	assert_int_equal(sim_scenario_parse(text, len, "t.scn", &sc, &errors), -EINVAL);
	assert_null(sc);
	assert_true(errors.count > 0);
	return strdup(umad_err_text(&errors));
}

static void expect_error(const char *text, const char *message)
{
	char *errors = parse_fails(text, strlen(text));

	if (!strstr(errors, message))
		fail_msg("expected \"%s\" in:\n%s", message, errors);
	free(errors);
}

static size_t lines_of(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* --- parsing -------------------------------------------------------------------------- */

static void test_every_command(void **state)
{
	struct sim_scenario *sc = parse_ok(
		"# a fault test\n"
		"0 link down sw1 3\n"
		"\n"
		"100 drop S-0002 1 0.25 seed=7\n"
		"  100\tnode down H-0003   # the same time is fine\n"
		"300 counter S-0001 2 SymbolErrorCounter 5\n"
		"400 trap H-0001 1 144\n"
		"500 link up sw1 3\n"
		"600 delay sw1 3 2000\n"
		"700 drop \"node1 HCA-1\" 1 1\n"
		"800 delay sw1 4 3ms\n"
		"900 counter sw1 0 portrcverrors 18446744073709551615\n"
		"31536000000 drop sw1 2 0\n");
	const struct sim_scenario_step *s = sc->steps;

	(void)state;
	assert_string_equal(sc->name, "t.scn");
	assert_int_equal(sc->n_steps, 11);
	assert_int_equal(s[0].at_ms, 0);
	assert_int_equal(s[0].req.op, SIM_FAULT_LINK);
	assert_int_equal(s[0].req.up, 0);
	assert_string_equal(s[0].req.node, "sw1");
	assert_int_equal(s[0].req.port, 3);
	assert_int_equal(s[0].line, 2);

	assert_int_equal(s[1].req.op, SIM_FAULT_DROP);
	assert_int_equal(s[1].at_ms, 100);
	assert_string_equal(s[1].req.node, "S-0002");
	assert_int_equal(s[1].req.port, 1);
	assert_true(s[1].req.rate == 0.25);
	assert_int_equal(s[1].req.seed, 7);
	assert_int_equal(s[1].line, 4);

	assert_int_equal(s[2].req.op, SIM_FAULT_NODE);
	assert_int_equal(s[2].at_ms, 100);
	assert_int_equal(s[2].req.up, 0);
	assert_string_equal(s[2].req.node, "H-0003");

	assert_int_equal(s[3].req.op, SIM_FAULT_COUNTER);
	assert_int_equal(sim_pma_counter_by_name(s[3].req.counter), SIM_PMA_SYMBOL_ERRORS);
	assert_int_equal(s[3].req.count, 5);
	assert_int_equal(s[3].req.port, 2);

	assert_int_equal(s[4].req.op, SIM_FAULT_TRAP);
	assert_int_equal(s[4].req.trap, TRAP_CAPABILITY_CHANGE);
	assert_int_equal(s[4].req.port, 1);

	assert_int_equal(s[5].req.op, SIM_FAULT_LINK);
	assert_int_equal(s[5].req.up, 1);

	assert_int_equal(s[6].req.op, SIM_FAULT_DELAY);
	assert_int_equal(s[6].req.delay_ns, 2000 * 1000ull);	/* microseconds by default */

	assert_string_equal(s[7].req.node, "node1 HCA-1");
	assert_true(s[7].req.rate == 1.0);
	assert_int_equal(s[7].req.seed, 0);

	assert_int_equal(s[8].req.delay_ns, 3000000ull);
	assert_int_equal(sim_pma_counter_by_name(s[9].req.counter), SIM_PMA_RCV_ERRORS);	/* names in any case */
	assert_string_equal(s[9].req.counter, "PortRcvErrors");	/* kept as the PMA names it */
	assert_int_equal(s[9].req.port, 0);
	assert_int_equal(s[9].req.count, UINT64_MAX);
	assert_int_equal(s[10].at_ms, SIM_SCENARIO_MAX_MS);
	assert_true(s[10].req.rate == 0.0);
	sim_scenario_free(sc);
}

static void test_words(void **state)
{
	struct sim_scenario *sc = parse_ok(
		"0 link down \"a \\\"quoted\\\" \\\\ name\" 1\r\n"
		"1 node up \"#not a comment\"\r\n"
		"2 node up a#b # but this is one\n"
		"3 drop x 1 .5 seed=0x10\n"
		"4 drop x 1 0.123456789\n"
		"5 delay x 2 0\n"
		"6 delay x 2 15ns\n"
		"7 delay x 2 60000ms\n"
		"8 delay x 2 00000000000000000000000000000000000000001ms\n"	/* zeros: no length */
		"9 delay x 2 60000000\n"
		"   # indented comment\n"
		"\t\n");

	(void)state;
	assert_int_equal(sc->n_steps, 10);
	assert_string_equal(sc->steps[0].req.node, "a \"quoted\" \\ name");
	assert_int_equal(sc->steps[0].req.port, 1);
	assert_string_equal(sc->steps[1].req.node, "#not a comment");
	assert_string_equal(sc->steps[2].req.node, "a#b");
	assert_true(sc->steps[3].req.rate == 0.5);
	assert_int_equal(sc->steps[3].req.seed, 16);
	assert_true(sc->steps[4].req.rate == 0.123456789);
	assert_int_equal(sc->steps[5].req.delay_ns, 0);
	assert_int_equal(sc->steps[6].req.delay_ns, 15);
	assert_int_equal(sc->steps[7].req.delay_ns, SIM_FAULT_MAX_DELAY_NS);
	assert_int_equal(sc->steps[8].req.delay_ns, 1000000);
	assert_int_equal(sc->steps[9].req.delay_ns, (uint64_t)SIM_FAULT_MAX_DELAY_US * 1000u);
	sim_scenario_free(sc);
	/* Nothing but comments: a scenario of no steps. */
	sc = parse_ok("# nothing\n\n");
	assert_int_equal(sc->n_steps, 0);
	sim_scenario_free(sc);
	sc = parse_ok("");
	assert_int_equal(sc->n_steps, 0);
	sim_scenario_free(sc);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("0 link down sw1 3\n5 explode sw1\n",
		     "t.scn:2: unknown command \"explode\" (link, node, drop, delay, counter or trap)");
	expect_error("x link down sw1 3\n", "t.scn:1: bad time \"x\": milliseconds, a decimal number");
	expect_error("-1 link down sw1 3\n", "t.scn:1: bad time \"-1\"");
	expect_error("0x10 link down sw1 3\n", "t.scn:1: bad time \"0x10\"");
	expect_error("31536000001 link down sw1 3\n", "t.scn:1: bad time \"31536000001\"");
	expect_error("99999999999999999999999 link down sw1 3\n", "t.scn:1: bad time");
	expect_error("10\n", "t.scn:1: a time and no command");
	expect_error("# c\n0 link down sw1\n", "t.scn:2: link: missing arguments (link up|down NODE PORT)");
	expect_error("0 link down sw1 3 4\n", "t.scn:1: link: too many arguments");
	expect_error("0 link sideways sw1 3\n", "t.scn:1: link: expected up or down, not \"sideways\"");
	expect_error("0 link down sw1 0\n", "t.scn:1: link: port 0 has no link (ports 1..254)");
	expect_error("0 link down sw1 255\n", "t.scn:1: link: bad port \"255\": a number 0..254");
	expect_error("0 link down sw1 three\n", "t.scn:1: link: bad port \"three\"");
	expect_error("0 node down\n", "t.scn:1: node: missing arguments (node up|down NODE)");
	expect_error("200 link up a 1\n100 link down a 1\n",
		     "t.scn:2: time goes backwards: 100 ms after 200 ms at line 1");
	expect_error("0 drop sw1 1 1.5\n", "t.scn:1: drop: rate 1.5 out of range 0..1");
	expect_error("0 drop sw1 1 1.000000001\n", "t.scn:1: drop: rate 1.000000001 out of range 0..1");
	expect_error("0 drop sw1 1 12345678901234567890\n", "out of range 0..1");
	expect_error("0 drop sw1 1 -0.5\n", "t.scn:1: drop: bad rate \"-0.5\"");
	expect_error("0 drop sw1 1 0.1234567891\n", "t.scn:1: drop: bad rate \"0.1234567891\": 0..1, at most 9 decimals");
	expect_error("0 drop sw1 1 1e-3\n", "t.scn:1: drop: bad rate \"1e-3\"");
	expect_error("0 drop sw1 1 .\n", "t.scn:1: drop: bad rate \".\"");
	expect_error("0 drop sw1 1 0.5 seed=x\n", "t.scn:1: drop: expected seed=N (a number), not \"seed=x\"");
	expect_error("0 drop sw1 1 0.5 rng=4\n", "t.scn:1: drop: expected seed=N");
	expect_error("0 delay sw1 1 5s\n", "t.scn:1: delay: bad delay \"5s\"");
	expect_error("0 delay sw1 1 60001ms\n",
		     "t.scn:1: delay: 60001ms is longer than a minute (at most 60000000 microseconds)\n");
	expect_error("0 delay sw1 1 60000001\n",
		     "t.scn:1: delay: 60000001 is longer than a minute (at most 60000000 microseconds)\n");
	expect_error("0 delay sw1 1 60000000001ns\n", "t.scn:1: delay: 60000000001ns is longer than a minute");
	expect_error("0 delay sw1 1 100000000000000000000000000000000us\n",
		     "t.scn:1: delay: 100000000000000000000000000000000us is longer than a minute");
	expect_error("0 delay sw1 1 100000000000000000000000000000000s\n", "t.scn:1: delay: bad delay");
	expect_error("0 counter sw1 1 Bogus 5\n", "t.scn:1: counter: unknown counter \"Bogus\"");
	expect_error("0 counter sw1 1 SymbolErrorCounter 0\n", "t.scn:1: counter: bad count \"0\": a number, 1 or more");
	expect_error("0 counter sw1 1 SymbolErrorCounter 18446744073709551616\n", "counter: bad count");
	expect_error("0 trap sw1 1 99\n", "t.scn:1: trap: \"99\" is not a trap the fabric sends (128, 129, 130, 131, 144 or 145)");
	expect_error("0 trap sw1 1 65664\n", "t.scn:1: trap: \"65664\" is not a trap");
	expect_error("0 node down \"open\n", "t.scn:1: a quoted word has no closing quote");
	expect_error("0 node down \"a\\n\"\n", "t.scn:1: unknown escape in a quoted word");
	expect_error("0 node down \"a\"b\n", "t.scn:1: a quoted word must be followed by a blank");
	expect_error("0 node down a\"b\"\n", "t.scn:1: a quote inside a word");
	expect_error("0 node down \"\"\n", "t.scn:1: node: the node is empty");
}

static void test_error_lines(void **state)
{
	char long_word[1200], *errors, *text;
	size_t i;

	(void)state;
	/* Every bad line is reported, each at its own line; good lines in between count. */
	text = "0 link down a 1\nbad\n\n5 node up b\n7 frob\n";
	errors = parse_fails(text, strlen(text));
	assert_string_equal(errors, "t.scn:2: bad time \"bad\": milliseconds, a decimal number 0..31536000000\n"
				    "t.scn:5: unknown command \"frob\" (link, node, drop, delay, counter or trap)\n");
	free(errors);
	/* A NUL byte (the length says where the text ends). */
	errors = parse_fails("0 node up a\n1 node\0 up b\n", 25);
	assert_string_equal(errors, "t.scn:2: a NUL byte: a scenario is text\n");
	free(errors);
	/* A word too long. */
	memset(long_word, 'n', sizeof(long_word));
	memcpy(long_word, "0 node up ", 10);
	long_word[sizeof(long_word) - 1] = '\0';
	errors = parse_fails(long_word, strlen(long_word));
	assert_string_equal(errors, "t.scn:1: a word longer than 1023 bytes\n");
	free(errors);
	/*
	 * A node longer than the longest node id (256 to 1023 bytes, a word
	 * the splitter takes): said so, with the limit, not left for a shared
	 * fabric's request to refuse as something else.
	 */
	{
		static const size_t lengths[] = { 256, 1023 };
		char text[1100];
		struct sim_scenario *sc;

		for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
			int n = snprintf(text, sizeof(text), "0 link down %.*s 1\n", (int)lengths[i],
					 long_word + 10);

			errors = parse_fails(text, (size_t)n);
			assert_string_equal(errors, "t.scn:1: link: node \"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...\" "
						    "is longer than 255 bytes, the longest node id\n");
			free(errors);
		}
		snprintf(text, sizeof(text), "0 delay \"%.255s\" 1 5\n", long_word + 10);
		sc = parse_ok(text);
		assert_int_equal(strlen(sc->steps[0].req.node), SIM_TOPOLOGY_MAX_ID);
		sim_scenario_free(sc);
	}
	/* At most SIM_SCENARIO_MAX_ERRORS messages, then how many more. */
	text = calloc(30, 8);
	for (i = 0; i < 30; i++)
		strcat(text, "bogus\n");
	errors = parse_fails(text, strlen(text));
	assert_int_equal(lines_of(errors), SIM_SCENARIO_MAX_ERRORS + 1);
	assert_non_null(strstr(errors, "t.scn:20: bad time"));
	assert_null(strstr(errors, "t.scn:21:"));
	assert_non_null(strstr(errors, "... and 10 more errors\n"));
	free(errors);
	free(text);
}

static void test_bad_calls(void **state)
{
	struct sim_scenario *sc = NULL;
	struct umad_err errors = UMAD_ERR_INIT;
	char *line = (char *)"x";
	struct sim_scenario_step s = { 0 };

	(void)state;
	assert_int_equal(sim_scenario_parse("", 0, "n", NULL, &errors), -EINVAL);
	assert_int_equal(errors.count, 0);
	assert_int_equal(sim_scenario_parse(NULL, 0, "n", &sc, NULL), -EINVAL);
	assert_int_equal(sim_scenario_parse("", 0, NULL, &sc, NULL), -EINVAL);
	assert_null(sc);
	assert_int_equal(sim_scenario_parse("", SIM_SCENARIO_MAX_BYTES + 1ul, "big", &sc, &errors), -EFBIG);
	assert_non_null(strstr(umad_err_text(&errors), "big: "));
	assert_non_null(strstr(umad_err_text(&errors), "a scenario holds at most 16 MiB"));
	umad_err_clear(&errors);
	assert_int_equal(sim_scenario_run(NULL, NULL, NULL, NULL), -EINVAL);
	s.req.op = SIM_FAULT_LINK;
	s.req.port = 1;
	assert_int_equal(sim_scenario_format_step(&s, &line), -EINVAL);	/* no node */
	assert_null(line);
	strcpy(s.req.node, "x");
	s.req.op = SIM_FAULT_N_OPS;
	assert_int_equal(sim_scenario_format_step(&s, &line), -EINVAL);
	s.req.op = SIM_FAULT_DROP;
	s.req.port = 1;
	s.req.rate = 2.0;
	assert_int_equal(sim_scenario_format_step(&s, &line), -EINVAL);
	strcpy(s.req.node, "two\nlines");
	s.req.rate = 0.5;
	assert_int_equal(sim_scenario_format_step(&s, &line), -EINVAL);
	/* One byte more than a node id (no room for its NUL): it would not read back. */
	memset(s.req.node, 'n', sizeof(s.req.node));
	assert_int_equal(sim_scenario_format_step(&s, &line), -EINVAL);
	s.req.node[SIM_TOPOLOGY_MAX_ID] = '\0';
	assert_int_equal(sim_scenario_format_step(&s, &line), 0);
	free(line);
	line = NULL;
	assert_null(sim_fault_op_name(SIM_FAULT_N_OPS));
	assert_string_equal(sim_fault_op_name(SIM_FAULT_COUNTER), "counter");
	sim_scenario_free(NULL);
}

/* --- writing back ----------------------------------------------------------------------- */

static void test_format_round_trip(void **state)
{
	static const char text[] =
		"0 link down sw1 3\n"
		"10 node up \"node1 HCA-1\"\n"
		"10 drop \"q\\\"uote\\\\\" 2 0.333333333 seed=18446744073709551615\n"
		"11 drop x 2 1\n"
		"12 drop x 2 0.5\n"
		"20 delay x 1 1500\n"
		"21 delay x 1 7ms\n"
		"22 delay x 1 7ns\n"
		"23 delay x 1 0\n"
		"30 counter \"#x\" 0 PortMalformedPktErrors 3\n"
		"40 trap x 1 129\n";
	static const char *const expect[] = {
		"0 link down sw1 3",
		"10 node up \"node1 HCA-1\"",
		"10 drop \"q\\\"uote\\\\\" 2 0.333333333 seed=18446744073709551615",
		"11 drop x 2 1",
		"12 drop x 2 0.5",
		"20 delay x 1 1500",
		"21 delay x 1 7000",
		"22 delay x 1 7ns",
		"23 delay x 1 0",
		"30 counter \"#x\" 0 PortMalformedPacketErrors 3",
		"40 trap x 1 129",
	};
	struct sim_scenario *sc = parse_ok(text), *again;
	struct sim_text all = SIM_TEXT_INIT;
	size_t i;

	(void)state;
	assert_int_equal(sc->n_steps, sizeof(expect) / sizeof(expect[0]));
	for (i = 0; i < sc->n_steps; i++) {
		char *line = NULL;

		assert_int_equal(sim_scenario_format_step(&sc->steps[i], &line), 0);
		assert_string_equal(line, expect[i]);
		sim_text_printf(&all, "%s\n", line);
		free(line);
	}
	/* Read again, the same steps. */
	again = parse_ok(sim_text_str(&all));
	assert_int_equal(again->n_steps, sc->n_steps);
	for (i = 0; i < sc->n_steps; i++) {
		const struct sim_scenario_step *a = &sc->steps[i], *b = &again->steps[i];

		assert_int_equal(a->at_ms, b->at_ms);
		assert_int_equal(a->req.op, b->req.op);
		assert_string_equal(a->req.node, b->req.node);
		assert_int_equal(a->req.port, b->req.port);
		assert_int_equal(a->req.up, b->req.up);
		assert_true(a->req.rate == b->req.rate);
		assert_int_equal(a->req.seed, b->req.seed);
		assert_int_equal(a->req.delay_ns, b->req.delay_ns);
		assert_string_equal(a->req.counter, b->req.counter);
		assert_int_equal(a->req.count, b->req.count);
		assert_int_equal(a->req.trap, b->req.trap);
		assert_true(sim_fault_same(&a->req, &b->req));
	}
	sim_scenario_free(again);
	sim_scenario_free(sc);
	sim_text_free(&all);
}

/* --- files ---------------------------------------------------------------------------- */

static void test_load(void **state)
{
	char dir[] = "/tmp/test_scenario-XXXXXX", path[128], missing[160];
	struct sim_scenario *sc = NULL;
	struct umad_err errors = UMAD_ERR_INIT;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.scn", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("0 link down Switch1 7\n1 link frob Switch1 7\n", fp);
	fclose(fp);
	/* Errors name the file. */
	assert_int_equal(sim_scenario_load(path, &sc, &errors), -EINVAL);
	assert_null(sc);
	assert_non_null(strstr(umad_err_text(&errors), path));
	assert_non_null(strstr(umad_err_text(&errors), ":2: link: expected up or down, not \"frob\""));
	umad_err_clear(&errors);
	fp = fopen(path, "w");
	fputs("0 link down Switch1 7\n", fp);
	fclose(fp);
	assert_int_equal(sim_scenario_load(path, &sc, &errors), 0);
	assert_int_equal(errors.count, 0);
	assert_int_equal(sc->n_steps, 1);
	assert_string_equal(sc->name, path);
	sim_scenario_free(sc);
	/* What open says, and what is not a regular file. */
	snprintf(missing, sizeof(missing), "%s/none.scn", dir);
	assert_int_equal(sim_scenario_load(missing, &sc, &errors), -ENOENT);
	assert_null(sc);
	assert_non_null(strstr(umad_err_text(&errors), missing));
	assert_non_null(strstr(umad_err_text(&errors), strerror(ENOENT)));
	umad_err_clear(&errors);
	assert_int_equal(sim_scenario_load(dir, &sc, &errors), -EINVAL);
	assert_non_null(strstr(umad_err_text(&errors), "a directory, not a regular file"));
	umad_err_clear(&errors);
	assert_int_equal(sim_scenario_load(NULL, &sc, &errors), -EINVAL);
	unlink(path);
	rmdir(dir);
}

/* --- running ------------------------------------------------------------------------------ */

/* A fake that records what the run asked for, and fails where it is told to. */
struct record {
	struct sim_text log;
	size_t fail_at;		/* the call number to fail (0: none) */
	size_t calls;
};

/* Each step logged as "COMMAND: LINE", the command from the step's request. */
static int rec_fault(void *arg, const struct sim_scenario_step *s)
{
	struct record *r = arg;
	char *line = NULL;

	r->calls++;
	assert_int_equal(sim_scenario_format_step(s, &line), 0);
	sim_text_printf(&r->log, "%s: %s\n", sim_fault_op_name(s->req.op), line);
	free(line);
	return r->calls == r->fail_at ? -EIO : 0;
}

static int rec_wait(void *arg, uint64_t at_ms)
{
	struct record *r = arg;

	sim_text_printf(&r->log, "wait %llu\n", (unsigned long long)at_ms);
	return 0;
}

static const struct sim_scenario_ops rec_ops = { .wait_until = rec_wait, .fault = rec_fault };

static const char run_text[] =
	"0 link down sw1 3\n"
	"0 node down h2\n"
	"100 drop sw1 1 0.25 seed=7\n"
	"250 delay sw1 3 2000\n"
	"300 counter sw1 2 LinkDownedCounter 5\n"
	"400 trap h1 1 144\n"
	"500 link up sw1 3\n";

static void test_run(void **state)
{
	struct sim_scenario *sc = parse_ok(run_text);
	struct record r = { SIM_TEXT_INIT, 0, 0 };
	struct sim_scenario_ops ops = rec_ops;
	size_t failed = 99;

	(void)state;
	assert_int_equal(sim_scenario_run(sc, &ops, &r, &failed), 0);
	assert_int_equal(failed, 99);
	assert_string_equal(sim_text_str(&r.log),
			    "wait 0\nlink: 0 link down sw1 3\n"
			    "wait 0\nnode: 0 node down h2\n"
			    "wait 100\ndrop: 100 drop sw1 1 0.25 seed=7\n"
			    "wait 250\ndelay: 250 delay sw1 3 2000\n"
			    "wait 300\ncounter: 300 counter sw1 2 LinkDownedCounter 5\n"
			    "wait 400\ntrap: 400 trap h1 1 144\n"
			    "wait 500\nlink: 500 link up sw1 3\n");
	/* An operation fails: the run stops there, with its error and its step. */
	sim_text_reset(&r.log);
	r.calls = 0;
	r.fail_at = 3;
	assert_int_equal(sim_scenario_run(sc, &ops, &r, &failed), -EIO);
	assert_int_equal(failed, 2);
	assert_int_equal(r.calls, 3);
	assert_null(strstr(sim_text_str(&r.log), "delay"));
	/* No waiting without wait_until. */
	sim_text_reset(&r.log);
	r.calls = 0;
	r.fail_at = 0;
	ops.wait_until = NULL;
	assert_int_equal(sim_scenario_run(sc, &ops, &r, NULL), 0);
	assert_null(strstr(sim_text_str(&r.log), "wait"));
	assert_int_equal(r.calls, sc->n_steps);
	/* Without an operation for the faults: nothing runs at all. */
	sim_text_reset(&r.log);
	r.calls = 0;
	ops.fault = NULL;
	failed = 99;
	assert_int_equal(sim_scenario_run(sc, &ops, &r, &failed), -EINVAL);
	assert_int_equal(failed, 99);
	assert_int_equal(r.calls, 0);
	assert_string_equal(sim_text_str(&r.log), "");
	sim_text_free(&r.log);
	sim_scenario_free(sc);
}

/* --- against a fabric ---------------------------------------------------------------------- */

static struct sim_fabric *default_fabric(void)
{
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse(sim_default_topology, "default", &errors);

	assert_non_null(f);
	return f;
}

static void test_check(void **state)
{
	struct sim_fabric *f = default_fabric();
	struct sim_scenario *sc;
	struct umad_err errors = UMAD_ERR_INIT;
	char guid[32];

	(void)state;
	snprintf(guid, sizeof(guid), "0x%llx", (unsigned long long)sim_fabric_find(f, "Hca3")->node_guid);
	sc = parse_ok("0 link down Switch1 7\n"
		      "1 counter Switch1 0 SymbolErrorCounter 1\n"
		      "2 trap Switch2 0 128\n"
		      "3 node down Hca4\n");
	assert_int_equal(sim_scenario_check(sc, f, &errors), 0);
	assert_int_equal(errors.count, 0);
	sim_scenario_free(sc);
	/* By GUID too. */
	{
		char text[96];

		snprintf(text, sizeof(text), "0 link down %s 1\n", guid);
		sc = parse_ok(text);
		assert_int_equal(sim_scenario_check(sc, f, &errors), 0);
		sim_scenario_free(sc);
	}
	sc = parse_ok("0 link down Switch9 7\n"
		      "1 link down Switch1 9\n"
		      "2 counter Hca1 0 SymbolErrorCounter 1\n"
		      "3 link up Switch1 3\n"
		      "4 trap Hca1 1 128\n"
		      "5 node up Nobody\n"
		      "6 trap Hca1 1 129\n");
	assert_int_equal(sim_scenario_check(sc, f, &errors), -EINVAL);
	assert_string_equal(umad_err_text(&errors),
			    "t.scn:1: link: no node \"Switch9\" in the fabric (an id, a NodeDescription or a 0xGUID)\n"
			    "t.scn:2: link: \"Switch1\" has ports 1..8, no port 9\n"
			    "t.scn:3: counter: port 0 is a switch's own, and \"Hca1\" is a CA\n"
			    "t.scn:4: link: port 3 of \"Switch1\" has no cable\n"
			    "t.scn:5: trap: only switches send trap 128, and \"Hca1\" is a CA\n"
			    "t.scn:6: node: no node \"Nobody\" in the fabric (an id, a NodeDescription or a 0xGUID)\n");
	umad_err_clear(&errors);
	sim_scenario_free(sc);
	sim_fabric_free(f);
}

/* Each command on a fabric the built-in SM brought up, through the fault API. */
static void test_apply(void **state)
{
	struct sim_fabric *f = default_fabric();
	struct sim_node *sw1, *hca2, *hca3;
	struct sim_scenario *sc;
	struct sim_net net;
	struct umad_err errors = UMAD_ERR_INIT;
	uint64_t traps;
	size_t i;

	(void)state;
	assert_int_equal(sim_net_init(&net, f, 1, NULL, NULL, &errors), 0);
	sw1 = sim_fabric_find(f, "Switch1");
	hca2 = sim_fabric_find(f, "Hca2");
	hca3 = sim_fabric_find(f, "Hca3");
	sc = parse_ok("0 link down Switch1 7\n"
		      "1 node down Hca2\n"
		      "2 drop Switch1 8 0.5 seed=3\n"
		      "3 counter Hca3 1 SymbolErrorCounter 4\n"
		      "4 trap Switch1 0 128\n"
		      "5 delay Switch1 8 10\n"
		      "6 link down Switch1 5\n"
		      "7 link down Switch1 9\n"
		      "8 link down Nobody 1\n");
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[0]), 0);
	assert_false(sim_port_link_up(&sw1->ports[7]));
	assert_true(sw1->ports[7].failed);
	assert_true(sim_port_link_up(&sw1->ports[8]));
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[1]), 0);
	assert_false(sim_port_link_up(&hca2->ports[1]));
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[2]), 0);
	assert_non_null(sw1->ports[8].fault);
	assert_int_equal(sw1->ports[8].fault->drop_threshold, 1u << 31);
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[3]), 0);
	assert_int_equal(sim_pma_counter_get(&hca3->ports[1], SIM_PMA_SYMBOL_ERRORS), 4);
	traps = net.traps_sent;
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[4]), 0);
	assert_true(net.traps_sent > traps);
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[5]), 0);
	assert_int_equal(sw1->ports[8].fault->delay_ns, 10 * 1000ull);	/* microseconds */
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[6]), -ENOTCONN);
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[7]), -EINVAL);
	assert_int_equal(sim_scenario_apply(&net, &sc->steps[8]), -ENOENT);
	assert_int_equal(sim_scenario_apply(NULL, &sc->steps[0]), -EINVAL);
	/* And back up. */
	sim_scenario_free(sc);
	sc = parse_ok("10 link up Switch1 7\n11 node up Hca2\n12 drop Switch1 8 0\n13 delay Switch1 8 0\n");
	for (i = 0; i < sc->n_steps; i++)
		assert_int_equal(sim_scenario_apply(&net, &sc->steps[i]), 0);
	assert_true(sim_port_link_up(&sw1->ports[7]));
	assert_true(sim_port_link_up(&hca2->ports[1]));
	assert_null(sw1->ports[8].fault);
	sim_scenario_free(sc);
	sim_net_fini(&net);
	sim_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_bad_calls),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
