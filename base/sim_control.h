/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the sim backend module offers libumad-sim (infiniband/umad_sim.h):
 * a table, exported as UMAD_SIM_CONTROL_SYMBOL and found in the loaded
 * module, whose one operation carries out a fault request (the struct of
 * base/fault_req.h, which each public call builds) on this process's
 * fabric or the shared one it is attached at.  It takes the fabric lock
 * and returns 0 or -errno.  A module whose request is of another size is
 * of another build, and is not used.
 */
#ifndef UMAD_BASE_SIM_CONTROL_H
#define UMAD_BASE_SIM_CONTROL_H

#include <stddef.h>

#include "base/fault_req.h"

#define UMAD_SIM_CONTROL_ABI	3	/* 2: delay; 3: one request for every fault */
#define UMAD_SIM_CONTROL_SYMBOL	"umad_sim_control"

struct umad_sim_control {
	unsigned abi;
	size_t req_size;	/* sizeof(struct sim_fault_req) */
	int (*apply)(const struct sim_fault_req *rq);
};

#endif /* UMAD_BASE_SIM_CONTROL_H */
