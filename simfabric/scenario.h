/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Scenario files: timed fault commands for repeatable tests, one a line,
 * "AT_MS COMMAND ARGS" (doc/scenario-format.md has the grammar; the
 * command and its arguments are the fault module's, read by
 * sim_fault_parse as `umad fabric` reads its arguments):
 *
 *   0    link down sw1 3
 *   100  drop S-0002 1 0.25 seed=7
 *   300  counter S-0001 2 SymbolErrorCounter 5
 *   500  link up sw1 3
 *
 * Parsing only reads text; nothing here knows a clock.  The caller runs
 * the steps through a table of operations (struct sim_scenario_ops): `umad
 * fabric scenario` sends each request to a shared fabric's server, a
 * caller that holds a fabric applies it there (sim_scenario_apply() does
 * one step on a struct sim_net), a test records them in a fake.  Every
 * error is reported as "FILE:LINE: what is wrong"; a file with any error
 * gives no scenario.  No state is shared between calls.
 */
#ifndef SIMFABRIC_SCENARIO_H
#define SIMFABRIC_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "simfabric/fault.h"

struct sim_net;

/* Bounds on what one scenario may hold. */
#define SIM_SCENARIO_MAX_MS	31536000000ull	/* AT_MS: a year */
#define SIM_SCENARIO_MAX_BYTES	(16u << 20)	/* a file's text */
#define SIM_SCENARIO_MAX_STEPS	(1u << 20)
#define SIM_SCENARIO_MAX_ERRORS	UMAD_ERR_LINES	/* messages kept; the rest are counted */

/* A line: when, where, and the fault it asks for (sim_fault_parse read the rest of it). */
struct sim_scenario_step {
	uint64_t at_ms;			/* from the start of the run */
	unsigned line;			/* where the file gives it */
	struct sim_fault_req req;
};

struct sim_scenario {
	char *name;			/* the file name messages use */
	struct sim_scenario_step *steps;	/* in time order */
	size_t n_steps;
};

/*
 * Parse a scenario from text (len bytes, NUL bytes refused; name is used
 * in messages) or from a file.  0 with *out set (the caller frees it with
 * sim_scenario_free), or -errno with *out NULL and every error added to
 * err as a line "FILE:LINE: message" (umad_err_add: the first
 * SIM_SCENARIO_MAX_ERRORS kept, then a count of the rest): -EINVAL for a
 * file with errors, -EFBIG beyond SIM_SCENARIO_MAX_BYTES, -ENOMEM, or what
 * open/read said for a file.  Nothing is told for NULL arguments, and
 * -ENOMEM adds no line of its own.
 */
int sim_scenario_parse(const char *text, size_t len, const char *name, struct sim_scenario **out,
		       struct umad_err *err);
int sim_scenario_load(const char *path, struct sim_scenario **out, struct umad_err *err);
void sim_scenario_free(struct sim_scenario *sc);

/*
 * A step written back as a line of the format (no newline), which parses
 * to the same step (sim_fault_format after the time): 0 or -ENOMEM,
 * -EINVAL for a step out of range.  The result is malloc'd (*line), the
 * caller frees it.
 */
int sim_scenario_format_step(const struct sim_scenario_step *s, char **line);

/*
 * Check every step against a fabric before running, as sim_fault_target
 * (fault.h) checks a fault: the node exists (sim_fabric_find), the port is
 * one of its own (port 0 only for a switch's counter and trap), a link
 * command's port has a cable, a trap the node may send (128 from switches
 * only).  0, or -EINVAL with the errors in err ("FILE:LINE: ..." as above).
 */
int sim_scenario_check(const struct sim_scenario *sc, const struct sim_fabric *f,
		       struct umad_err *err);

/*
 * What a run does at each step, each returning 0 or -errno.  wait_until
 * (optional) returns when at_ms has come (the run starts at 0 and calls
 * it before every step with the step's time).  fault carries out a step's
 * request.
 */
struct sim_scenario_ops {
	int (*wait_until)(void *arg, uint64_t at_ms);
	int (*fault)(void *arg, const struct sim_scenario_step *s);
};

/*
 * Run the steps in order through ops.  Stops at the first operation that
 * fails and returns its -errno, with *failed (when not NULL) its index; 0
 * when all ran.  -EINVAL for NULL arguments (ops->fault too): nothing runs.
 */
int sim_scenario_run(const struct sim_scenario *sc, const struct sim_scenario_ops *ops, void *arg,
		     size_t *failed);

/*
 * Carry out one step on a fabric through sim_fault_apply (fault.h), the
 * fabric lock held by the caller; a delay in whole microseconds, rounded
 * up.  0, or -ENOENT (no such node), -EINVAL (NULL arguments, a port it
 * does not have or that the command may not name, a trap it may not
 * send), -ENOTCONN (link: no cable), or what the fault call returned.
 */
int sim_scenario_apply(struct sim_net *net, const struct sim_scenario_step *s);

#endif /* SIMFABRIC_SCENARIO_H */
