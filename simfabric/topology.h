/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Reading a fabric description: ibsim's net format, which is also what
 * ibnetdiscover prints.  Nothing is silently ignored: every problem is
 * reported as "file:line: message", and a file with any error yields no
 * fabric at all.
 */
#ifndef SIMFABRIC_TOPOLOGY_H
#define SIMFABRIC_TOPOLOGY_H

#include <stddef.h>

#include "base/errbuf.h"
#include "simfabric/fabric.h"

/*
 * The longest node id, in bytes, a module prefix and its '@' included: what
 * a scenario, `umad fabric` and a shared fabric's requests can name.  A
 * description is at most a NodeDescription's SIM_DESC_LEN bytes.
 */
#define SIM_TOPOLOGY_MAX_ID 255

/* The fabric used when no file is given: 2 switches joined by two links, 4 HCAs. */
extern const char sim_default_topology[];

/*
 * Parse a topology from a file (path) or from text in memory (name is then
 * used in messages).  On success the fabric; on failure NULL, with every
 * error added to err as a line "file:line: message" (umad_err_add: the
 * first SIM_TOPOLOGY_MAX_ERRORS kept, then "... and N more errors").  An
 * error in an included file follows how that file was reached, as
 * compilers tell it: "In file included from B:2," and "from A:5:" lines,
 * innermost first, unless the error before it was in the same file.
 */
#define SIM_TOPOLOGY_MAX_ERRORS UMAD_ERR_LINES
struct sim_fabric *sim_topology_load(const char *path, struct umad_err *err);
struct sim_fabric *sim_topology_parse(const char *text, const char *name, struct umad_err *err);

/* How to load: both optional. */
struct sim_topology_options {
	/*
	 * Told how far the load got: progress(arg, done, total) in bytes of
	 * the file named, every so many lines, and once done == total.
	 */
	void (*progress)(void *arg, size_t done, size_t total);
	void *arg;
	/* The fabric made in this arena (arena.h), not on the heap. */
	struct sim_arena *arena;
};
struct sim_fabric *sim_topology_load_opts(const char *path, struct umad_err *err,
					  const struct sim_topology_options *opts);
struct sim_fabric *sim_topology_parse_opts(const char *text, const char *name,
					   struct umad_err *err,
					   const struct sim_topology_options *opts);

#endif /* SIMFABRIC_TOPOLOGY_H */
