/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Filling and freeing the umad_ca_t and umad_port_t that get_ca() and
 * get_port() hand to the caller, once for every backend: the allocation
 * rules of backend.h are kept here and nowhere else.
 */
#ifndef UMAD_BASE_CA_PORT_H
#define UMAD_BASE_CA_PORT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/umad.h>

/* Start a CA: zeroed, named (cut to what umad_ca_t holds), no ports. */
static inline void umad_backend_ca_init(umad_ca_t *ca, const char *ca_name)
{
	memset(ca, 0, sizeof(*ca));
	snprintf(ca->ca_name, sizeof(ca->ca_name), "%s", ca_name);
}

/*
 * Start a port: zeroed, named and numbered, with a zeroed P_Key table of
 * n_pkeys entries (none for 0: the caller allocates it later).  0 or -ENOMEM,
 * with nothing allocated.
 */
static inline int umad_backend_port_init(umad_port_t *port, const char *ca_name, int portnum,
					 unsigned n_pkeys)
{
	memset(port, 0, sizeof(*port));
	snprintf(port->ca_name, sizeof(port->ca_name), "%s", ca_name);
	port->portnum = portnum;
	if (!n_pkeys)
		return 0;
	port->pkeys = calloc(n_pkeys, sizeof(*port->pkeys));
	if (!port->pkeys)
		return -ENOMEM;
	port->pkeys_size = n_pkeys;
	return 0;
}

/* Free what a filled port holds (its P_Key table); the port itself is the caller's. */
static inline void umad_backend_port_clear(umad_port_t *port)
{
	free(port->pkeys);
	port->pkeys = NULL;
	port->pkeys_size = 0;
}

/*
 * Free the ports get_ca() filled in (each malloc'ed with a malloc'ed pkeys
 * table) and clear them: for get_ca's error paths and release_ca.
 */
static inline void umad_backend_free_ca_ports(umad_ca_t *ca)
{
	int i;

	for (i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		if (ca->ports[i])
			umad_backend_port_clear(ca->ports[i]);
		free(ca->ports[i]);
		ca->ports[i] = NULL;
	}
}

/* Fills one port of a CA being built; 0 or -errno, nothing allocated on error. */
typedef int (*umad_port_fill_fn)(void *arg, const char *ca_name, int portnum,
				 umad_port_t *port);

/*
 * Add port portnum (0 .. UMAD_CA_MAX_PORTS - 1) to a CA started with
 * umad_backend_ca_init: allocated, filled by fill(arg, ...), numports raised
 * to cover it.  On error every port of the CA is freed, numports is 0 and
 * the error is returned, so get_ca() can return it as it is.
 */
static inline int umad_backend_ca_add_port(umad_ca_t *ca, int portnum, umad_port_fill_fn fill,
					   void *arg)
{
	umad_port_t *port;
	int r;

	if (portnum < 0 || portnum >= UMAD_CA_MAX_PORTS) {
		r = -EINVAL;
		goto fail;
	}
	port = calloc(1, sizeof(*port));	/* zeroed: a failed fill is freed safely */
	if (!port) {
		r = -ENOMEM;
		goto fail;
	}
	r = fill(arg, ca->ca_name, portnum, port);
	if (r < 0) {
		umad_backend_port_clear(port);
		free(port);
		goto fail;
	}
	if (ca->ports[portnum]) {	/* a port listed twice: the last one counts */
		umad_backend_port_clear(ca->ports[portnum]);
		free(ca->ports[portnum]);
	}
	ca->ports[portnum] = port;
	if (ca->numports < portnum)
		ca->numports = portnum;
	return 0;
fail:
	umad_backend_free_ca_ports(ca);
	ca->numports = 0;
	return r;
}

#endif /* UMAD_BASE_CA_PORT_H */
