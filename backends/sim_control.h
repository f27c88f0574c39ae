/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the sim backend module offers libumad-sim (infiniband/umad_sim.h):
 * a table of operations, exported as UMAD_SIM_CONTROL_SYMBOL and found in
 * the loaded module.  Each takes the fabric lock and returns 0 or -errno.
 */
#ifndef BACKENDS_SIM_CONTROL_H
#define BACKENDS_SIM_CONTROL_H

#include <stdint.h>

#define UMAD_SIM_CONTROL_ABI	2	/* 2: delay */
#define UMAD_SIM_CONTROL_SYMBOL	"umad_sim_control"

struct umad_sim_control {
	unsigned abi;
	int (*link)(const char *node, unsigned port, int up);
	int (*node)(const char *node, int up);
	int (*drop)(const char *node, unsigned port, double rate, uint64_t seed);
	int (*counter)(const char *node, unsigned port, const char *counter, uint64_t count);
	int (*trap)(const char *node, unsigned port, unsigned number);
	int (*delay)(const char *node, unsigned port, unsigned delay_us);
};

#endif /* BACKENDS_SIM_CONTROL_H */
