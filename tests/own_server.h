/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A shared fabric's server in a process of its own, for a test: in a fresh
 * private directory (dir/s/socket), killed with the test if it dies first.
 */
#ifndef TESTS_OWN_SERVER_H
#define TESTS_OWN_SERVER_H

#include <sys/resource.h>
#include <sys/types.h>

#include "simfabric/fabric_server.h"

struct own_server {
	char dir[40], path[64];
	pid_t pid;
};

/*
 * Start it with opts, allowed that many descriptors (0: as many as this
 * process), on that CPU (-1: anywhere); returns once its socket is there
 * (it may not listen yet: a connect is refused until it does).
 */
void own_server_start(struct own_server *o, const struct fabric_server_options *opts,
		      rlim_t descriptors, int cpu);
/* Kill it and remove its directory. */
void own_server_stop(struct own_server *o);

#endif /* TESTS_OWN_SERVER_H */
