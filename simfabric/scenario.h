/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Scenario files: timed fault commands for repeatable tests, one a line,
 * "AT_MS COMMAND ARGS" (doc/scenario-format.md has the grammar):
 *
 *   0    link down sw1 3
 *   100  drop S-0002 1 0.25 seed=7
 *   300  counter S-0001 2 SymbolErrorCounter 5
 *   500  link up sw1 3
 *
 * Parsing only reads text; nothing here knows a clock.  The caller runs
 * the steps through a table of operations (struct sim_scenario_ops): `umad
 * fabric scenario` sends each to a shared fabric's server, a caller that
 * holds a fabric applies it there (sim_scenario_apply() does one step on a
 * struct sim_net), a test records them in a fake.  Every
 * error is reported as "FILE:LINE: what is wrong"; a file with any error
 * gives no scenario.  No state is shared between calls.
 */
#ifndef SIMFABRIC_SCENARIO_H
#define SIMFABRIC_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "simfabric/fault.h"
#include "simfabric/pma.h"
#include "simfabric/topology.h"

struct sim_net;

enum sim_scenario_cmd {
	SIM_SCENARIO_LINK,	/* link up|down NODE PORT */
	SIM_SCENARIO_NODE,	/* node up|down NODE */
	SIM_SCENARIO_DROP,	/* drop NODE PORT RATE [seed=N] */
	SIM_SCENARIO_DELAY,	/* delay NODE PORT MICROSECONDS (or with ns/us/ms) */
	SIM_SCENARIO_COUNTER,	/* counter NODE PORT NAME COUNT */
	SIM_SCENARIO_TRAP,	/* trap NODE PORT NUMBER */
	SIM_SCENARIO_N_CMDS
};

/* Bounds on what one scenario may hold. */
#define SIM_SCENARIO_MAX_MS	31536000000ull	/* AT_MS: a year */
#define SIM_SCENARIO_MAX_BYTES	(16u << 20)	/* a file's text */
#define SIM_SCENARIO_MAX_STEPS	(1u << 20)
#define SIM_SCENARIO_MAX_ERRORS	20		/* messages kept; the rest are counted */
/* A delay: the fault API's limit, a minute (UMAD_SIM_MAX_DELAY_US, infiniband/umad_sim.h). */
#define SIM_SCENARIO_MAX_DELAY_NS ((uint64_t)UMAD_SIM_MAX_DELAY_US * 1000u)

struct sim_scenario_step {
	uint64_t at_ms;			/* from the start of the run */
	enum sim_scenario_cmd cmd;
	unsigned line;			/* where the file gives it */
	char *node;			/* as written: node id, NodeDescription or 0xGUID;
					 * at most SIM_TOPOLOGY_MAX_ID bytes, the longest node id */
	unsigned port;			/* all commands but node */
	int up;				/* link, node: 1 up, 0 down */
	double rate;			/* drop: 0 (stop dropping) .. 1 */
	uint64_t seed;			/* drop: the generator's seed (0: its default) */
	uint64_t delay_ns;		/* delay: added to each packet leaving the port (0: none) */
	enum sim_pma_counter counter;	/* counter: which one */
	uint64_t count;			/* counter: how much it rises (1 or more) */
	unsigned trap;			/* trap: TRAP_* of mad_wire.h */
};

struct sim_scenario {
	char *name;			/* the file name messages use */
	struct sim_scenario_step *steps;	/* in time order */
	size_t n_steps;
};

/*
 * Parse a scenario from text (len bytes, NUL bytes refused; name is used
 * in messages) or from a file.  0 with *out set (the caller frees it with
 * sim_scenario_free), or -errno with *out NULL and, when errors is not
 * NULL, *errors a malloc'd text of "FILE:LINE: message" lines (at most
 * SIM_SCENARIO_MAX_ERRORS and a count of the rest): -EINVAL for a file
 * with errors, -EFBIG beyond SIM_SCENARIO_MAX_BYTES, -ENOMEM, or what
 * open/read said for a file.  *errors is NULL on success.
 */
int sim_scenario_parse(const char *text, size_t len, const char *name, struct sim_scenario **out,
		       char **errors);
int sim_scenario_load(const char *path, struct sim_scenario **out, char **errors);
void sim_scenario_free(struct sim_scenario *sc);

/* "link", "node"...; NULL out of range. */
const char *sim_scenario_cmd_name(enum sim_scenario_cmd cmd);

/*
 * A step written back as a line of the format (no newline), which parses
 * to the same step: 0 or -ENOMEM, -EINVAL for a step out of range.
 * The result is malloc'd (*line), the caller frees it.
 */
int sim_scenario_format_step(const struct sim_scenario_step *s, char **line);

/*
 * Check every step against a fabric before running, as sim_fault_target
 * (fault.h) checks a fault: the node exists (sim_fabric_find), the port is
 * one of its own (port 0 only for a switch's counter and trap), a link
 * command's port has a cable, a trap the node may send (128 from switches
 * only).  0, or -EINVAL with *errors ("FILE:LINE: ..." as above).
 */
int sim_scenario_check(const struct sim_scenario *sc, const struct sim_fabric *f, char **errors);

/*
 * What a run does at each step, each returning 0 or -errno.  wait_until
 * (optional) returns when at_ms has come (the run starts at 0 and calls
 * it before every step with the step's time).  The others carry out a
 * step; all are given the step, which holds their arguments.
 */
struct sim_scenario_ops {
	int (*wait_until)(void *arg, uint64_t at_ms);
	int (*link)(void *arg, const struct sim_scenario_step *s);
	int (*node)(void *arg, const struct sim_scenario_step *s);
	int (*drop)(void *arg, const struct sim_scenario_step *s);
	int (*delay)(void *arg, const struct sim_scenario_step *s);
	int (*counter)(void *arg, const struct sim_scenario_step *s);
	int (*trap)(void *arg, const struct sim_scenario_step *s);
};

/*
 * Run the steps in order through ops.  Nothing runs when the scenario
 * uses a command ops has no operation for (-EOPNOTSUPP, *failed the first
 * such step).  Otherwise stops at the first operation that fails and
 * returns its -errno, with *failed (when not NULL) its index; 0 when all
 * ran.  -EINVAL for NULL arguments.
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

/* A step as a request of the fault API (its node points into the step), for callers that
 * send it elsewhere, as umad fabric scenario does to a running fabric. */
void sim_scenario_step_request(const struct sim_scenario_step *s, struct sim_fault_req *rq);

#endif /* SIMFABRIC_SCENARIO_H */
