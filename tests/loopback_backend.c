/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A test backend module: one CA "loop0" with one port whose MADs come back
 * to the sender.  Built as tests/.libs/backend-sim.so (the symbol name the
 * "sim" table row looks up) so that the module loader, the public I/O calls
 * and the ENOSPC protocol are tested through a real dlopen()ed module.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/backend.h"

#define LOOP_MAX_FDS 1024

/* Peer end of each port's socket pair, indexed by portid. */
static int peer_of[LOOP_MAX_FDS];

static int loop_for_each_ca(umad_ca_visit_fn visit, void *arg)
{
	return visit("loop0", arg);
}

static int fill_port(umad_port_t *port)
{
	memset(port, 0, sizeof(*port));
	strcpy(port->ca_name, "loop0");
	port->portnum = 1;
	port->base_lid = 1;
	port->state = 4;
	port->phys_state = 5;
	port->rate = 100;
	port->port_guid = htobe64(0x1000001);
	port->gid_prefix = htobe64(0xfe80000000000000ULL);
	strcpy(port->link_layer, "InfiniBand");
	port->pkeys = calloc(1, sizeof(*port->pkeys));
	if (!port->pkeys)
		return -ENOMEM;
	port->pkeys[0] = 0xffff;
	port->pkeys_size = 1;
	return 0;
}

static int loop_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	if (strcmp(ca_name, "loop0") || portnum != 1)
		return -ENODEV;
	return fill_port(port);
}

static int loop_get_ca(const char *ca_name, umad_ca_t *ca)
{
	int r;

	if (strcmp(ca_name, "loop0"))
		return -ENOENT;
	memset(ca, 0, sizeof(*ca));
	strcpy(ca->ca_name, "loop0");
	ca->node_type = 1;
	ca->numports = 1;
	ca->node_guid = htobe64(0x1000000);
	ca->ports[1] = malloc(sizeof(umad_port_t));
	if (!ca->ports[1])
		return -ENOMEM;
	r = fill_port(ca->ports[1]);
	if (r < 0) {
		free(ca->ports[1]);
		ca->ports[1] = NULL;
	}
	return r;
}

static int loop_get_issm_path(const char *ca_name, int portnum, char *path, size_t max)
{
	if (strcmp(ca_name, "loop0") || portnum != 1)
		return -EINVAL;
	snprintf(path, max, "/dev/null");
	return 0;
}

static int loop_open_port(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno)
{
	int sv[2];

	if (strcmp(ca_name, "loop0") || portnum != 1)
		return -EINVAL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0) {
		*open_errno = errno;
		return -EIO;
	}
	if (sv[0] >= LOOP_MAX_FDS) {
		close(sv[0]);
		close(sv[1]);
		*open_errno = EMFILE;
		return -EIO;
	}
	peer_of[sv[0]] = sv[1];
	*hdr_size = sizeof(struct ib_user_mad);
	return sv[0];
}

static int known_port(int portid)
{
	return portid >= 0 && portid < LOOP_MAX_FDS && peer_of[portid] > 0;
}

static int loop_close_port(int portid)
{
	if (!known_port(portid))
		return -EBADF;
	close(peer_of[portid]);
	peer_of[portid] = 0;
	return close(portid) < 0 ? -errno : 0;
}

static int loop_register(int portid, struct umad_agent_req *req, uint32_t *agent_id)
{
	if (!known_port(portid))
		return -EBADF;
	if (req->qpn > 1)
		return -EINVAL;
	*agent_id = req->mgmt_class;	/* predictable ids for the tests */
	return 0;
}

static int loop_unregister(int portid, uint32_t agent_id)
{
	(void)agent_id;
	return known_port(portid) ? 0 : -EBADF;
}

static ssize_t loop_send(int portid, const void *umad, size_t len)
{
	struct ib_user_mad *copy;
	ssize_t n;

	if (!known_port(portid))
		return -EBADF;
	if (len < sizeof(struct ib_user_mad) + 24)
		return -EINVAL;
	/* What comes back carries its own length in the header, as the kernel's does. */
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, umad, len);
	copy->length = (uint32_t)len;
	n = write(peer_of[portid], copy, len);
	free(copy);
	/*
	 * Attribute 0xff7f: once the MAD is on its way, its buffer changes, as
	 * when another thread of the application gets the answer first and
	 * frees or reuses the request (opensm does).
	 */
	if (n > 0) {
		uint8_t *mad = (uint8_t *)umad + sizeof(struct ib_user_mad);

		if (mad[16] == 0xff && mad[17] == 0x7f)
			memset(mad, 0xa5, len - sizeof(struct ib_user_mad));
	}
	return n < 0 ? -errno : n;
}

static ssize_t loop_recv(int portid, void *umad, size_t len)
{
	ssize_t need, n;

	if (!known_port(portid))
		return -EBADF;
	need = recv(portid, NULL, 0, MSG_PEEK | MSG_TRUNC);
	if (need < 0)
		return -errno;
	if ((size_t)need > len) {
		/* The kernel's protocol: header copied with the full length, message kept queued. */
		if (len < sizeof(struct ib_user_mad))
			return -EINVAL;
		n = recv(portid, umad, sizeof(struct ib_user_mad), MSG_PEEK);
		return n < 0 ? -errno : -ENOSPC;
	}
	n = read(portid, umad, len);
	return n < 0 ? -errno : n;
}

/* Built a second time as "replay" with a wrong ABI number, to test the refusal. */
#ifdef LOOPBACK_WRONG_ABI
#define LOOPBACK_SYMBOL umad_backend_replay
#define LOOPBACK_ABI (UMAD_BACKEND_ABI + 100)
#define LOOPBACK_NAME "replay"
#else
#define LOOPBACK_SYMBOL umad_backend_sim
#define LOOPBACK_ABI UMAD_BACKEND_ABI
#define LOOPBACK_NAME "sim"
#endif

const struct umad_backend LOOPBACK_SYMBOL = {
	.abi = LOOPBACK_ABI,
	.name = LOOPBACK_NAME,
	.description = "test loopback module",
	.for_each_ca = loop_for_each_ca,
	.get_ca = loop_get_ca,
	.get_port = loop_get_port,
	.get_issm_path = loop_get_issm_path,
	.open_port = loop_open_port,
	.close_port = loop_close_port,
	.register_agent = loop_register,
	.unregister_agent = loop_unregister,
	.send = loop_send,
	.recv = loop_recv,
};
