/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A fabric of a test's own for cmocka: the embedded default, brought up by
 * the built-in SM (so that the traps a fault sends have somewhere to go),
 * with its net.  own_setup and own_teardown are a test's setup and
 * teardown; *state is the struct own_net.  Include after <cmocka.h>.
 */
#ifndef TESTS_OWN_NET_H
#define TESTS_OWN_NET_H

#include <stdlib.h>

#include "simfabric/net.h"
#include "simfabric/topology.h"

struct own_net {
	struct sim_fabric *f;
	struct sim_net net;
};

static inline int own_setup(void **state)
{
	struct own_net *o = calloc(1, sizeof(*o));
	struct umad_err errors = UMAD_ERR_INIT;

	assert_non_null(o);
	o->f = sim_topology_parse(sim_default_topology, "default", &errors);
	assert_non_null(o->f);
	assert_int_equal(sim_net_init(&o->net, o->f, 1, NULL, NULL, &errors), 0);
	*state = o;
	return 0;
}

static inline int own_teardown(void **state)
{
	struct own_net *o = *state;

	sim_net_fini(&o->net);
	sim_fabric_free(o->f);
	free(o);
	return 0;
}

#endif /* TESTS_OWN_NET_H */
