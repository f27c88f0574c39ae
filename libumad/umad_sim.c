/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libumad-sim (infiniband/umad_sim.h): finds the sim backend module that
 * libibumad.so.3 loaded into this process and calls its control table.
 * libc and libdl only, like libibumad.so.3.
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

#include "backends/sim_control.h"

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
	if (c && c->abi == UMAD_SIM_CONTROL_ABI)
		control = c;
	/* The module is loaded with RTLD_NODELETE: the table outlives this reference. */
	dlclose(handle);
}

static const struct umad_sim_control *get_control(void)
{
	pthread_once(&control_once, find_control);
	return control;
}

int umad_sim_link_down(const char *node, unsigned port)
{
	const struct umad_sim_control *c = get_control();

	return c ? c->link(node, port, 0) : -ENODEV;
}

int umad_sim_link_up(const char *node, unsigned port)
{
	const struct umad_sim_control *c = get_control();

	return c ? c->link(node, port, 1) : -ENODEV;
}

int umad_sim_node_down(const char *node)
{
	const struct umad_sim_control *c = get_control();

	return c ? c->node(node, 0) : -ENODEV;
}

int umad_sim_node_up(const char *node)
{
	const struct umad_sim_control *c = get_control();

	return c ? c->node(node, 1) : -ENODEV;
}

int umad_sim_drop_rate(const char *node, unsigned port, double rate, uint64_t seed)
{
	const struct umad_sim_control *c = get_control();

	return c ? c->drop(node, port, rate, seed) : -ENODEV;
}

int umad_sim_add_errors(const char *node, unsigned port, const char *counter, uint64_t count)
{
	const struct umad_sim_control *c = get_control();

	return c ? c->counter(node, port, counter, count) : -ENODEV;
}

int umad_sim_send_trap(const char *node, unsigned port, unsigned trap_number)
{
	const struct umad_sim_control *c = get_control();

	return c ? c->trap(node, port, trap_number) : -ENODEV;
}

int umad_sim_delay(const char *node, unsigned port, unsigned delay_us)
{
	const struct umad_sim_control *c = get_control();

	if (!c)
		return -ENODEV;
	/* Here as well as in the fabric: a module or server of another build may not know the limit. */
	if (delay_us > UMAD_SIM_MAX_DELAY_US)
		return -EINVAL;
	return c->delay(node, port, delay_us);
}
