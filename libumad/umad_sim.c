/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libumad-sim (infiniband/umad_sim.h): finds the sim backend module that
 * libibumad.so.3 loaded into this process, and hands its control table
 * each call as a fault request (base/fault_req.h), which the module
 * checks and carries out.  libc and libdl only, like libibumad.so.3.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sim.h>

#include "base/fault_req.h"
#include "base/sim_control.h"

_Static_assert(UMAD_SIM_MAX_DELAY_US == SIM_FAULT_MAX_DELAY_US,
	       "the public delay limit is the one the fault requests take");

static const struct umad_sim_control *control;
static pthread_once_t control_once = PTHREAD_ONCE_INIT;

static void find_control(void)
{
	const char *dir = getenv("UMAD_MODULE_DIR");
	char path[PATH_MAX];
	const struct umad_sim_control *c;
	void *handle;

	/* The library loads its backend on first use; the module is then resident. */
	if (umad_init() < 0)
		return;
	if (snprintf(path, sizeof(path), "%s/backend-sim.so", dir && *dir ? dir : UMAD_MODULE_DIR)
	    >= (int)sizeof(path))
		return;
	handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!handle)
		return;		/* another backend runs this process */
	c = dlsym(handle, UMAD_SIM_CONTROL_SYMBOL);
	if (c && c->abi == UMAD_SIM_CONTROL_ABI && c->req_size == sizeof(struct sim_fault_req))
		control = c;
	/* The module is loaded with RTLD_NODELETE: the table outlives this reference. */
	dlclose(handle);
}

static const struct umad_sim_control *get_control(void)
{
	pthread_once(&control_once, find_control);
	return control;
}

/* A request (its names apart), named and carried out by the module. */
static int send_fault(struct sim_fault_req rq, const char *node, const char *counter)
{
	const struct umad_sim_control *c = get_control();
	int r;

	if (!c)
		return -ENODEV;
	r = sim_fault_req_names(&rq, node, counter);
	return r < 0 ? r : c->apply(&rq);
}

int umad_sim_link_down(const char *node, unsigned port)
{
	return send_fault((struct sim_fault_req){ .op = SIM_FAULT_LINK, .port = port, .up = 0 }, node, NULL);
}

int umad_sim_link_up(const char *node, unsigned port)
{
	return send_fault((struct sim_fault_req){ .op = SIM_FAULT_LINK, .port = port, .up = 1 }, node, NULL);
}

int umad_sim_node_down(const char *node)
{
	int r = send_fault((struct sim_fault_req){ .op = SIM_FAULT_NODE, .up = 0 }, node, NULL);

	/* umad_sim_node_down(NULL) has always said "no such node", where the others say -EINVAL. */
	return r == -EINVAL && !node ? -ENOENT : r;
}

int umad_sim_node_up(const char *node)
{
	int r = send_fault((struct sim_fault_req){ .op = SIM_FAULT_NODE, .up = 1 }, node, NULL);

	return r == -EINVAL && !node ? -ENOENT : r;
}

int umad_sim_drop_rate(const char *node, unsigned port, double rate, uint64_t seed)
{
	return send_fault((struct sim_fault_req){ .op = SIM_FAULT_DROP, .port = port, .rate = rate,
					     .seed = seed }, node, NULL);
}

int umad_sim_add_errors(const char *node, unsigned port, const char *counter, uint64_t count)
{
	return send_fault((struct sim_fault_req){ .op = SIM_FAULT_COUNTER, .port = port, .count = count },
		     node, counter);
}

int umad_sim_send_trap(const char *node, unsigned port, unsigned trap_number)
{
	return send_fault((struct sim_fault_req){ .op = SIM_FAULT_TRAP, .port = port, .trap = trap_number },
		     node, NULL);
}

int umad_sim_delay(const char *node, unsigned port, unsigned delay_us)
{
	return send_fault((struct sim_fault_req){ .op = SIM_FAULT_DELAY, .port = port,
					     .delay_ns = (uint64_t)delay_us * 1000u }, node, NULL);
}
