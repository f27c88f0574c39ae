/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The template backend: the smallest complete implementation of backend.h,
 * to copy when adding one.  One CA "loop0" with one port; every MAD sent on
 * a port comes back on it, as if the fabric had answered with the request.
 *
 * Each port is an AF_UNIX datagram socket connected to itself: the socket
 * is the portid, poll(2) on it is POLLIN exactly when a MAD is queued, and
 * the kernel keeps the queue, its locking and message boundaries, so this
 * backend has no state and no lock of its own.
 *
 * Selected by UMAD_BACKEND=loopback; make check builds it as the module
 * .libs/backend-loopback.so (see its block in backends/local.mk and its row
 * in libumad/dispatch.c).
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/backend.h"

#define LOOP_CA "loop0"
#define LOOP_PORT 1

static int is_loop_port(const char *ca_name, int portnum)
{
	return !strcmp(ca_name, LOOP_CA) && portnum == LOOP_PORT;
}

/* A descriptor of ours is a datagram socket (anything else: -EBADF or -ENOTSOCK). */
static int check_portid(int portid)
{
	int type;
	socklen_t len = sizeof(type);

	if (getsockopt(portid, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return -errno;
	return type == SOCK_DGRAM ? 0 : -EBADF;
}

/* --- devices ---------------------------------------------------------------- */

static int loop_for_each_ca(umad_ca_visit_fn visit, void *arg)
{
	return visit(LOOP_CA, arg);
}

/* Also umad_port_fill_fn for get_ca; arg unused. */
static int fill_port(void *arg, const char *ca_name, int portnum, umad_port_t *port)
{
	int r = umad_backend_port_init(port, ca_name, portnum, 1);

	(void)arg;
	if (r < 0)
		return r;
	port->base_lid = 1;
	port->state = 4;		/* Active */
	port->phys_state = 5;		/* LinkUp */
	port->rate = 100;
	port->port_guid = htobe64(0x1000001);
	port->gid_prefix = htobe64(0xfe80000000000000ULL);
	snprintf(port->link_layer, sizeof(port->link_layer), "InfiniBand");
	port->pkeys[0] = 0xffff;	/* the default partition */
	return 0;
}

static int loop_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	if (!is_loop_port(ca_name, portnum))
		return -ENODEV;
	return fill_port(NULL, ca_name, portnum, port);
}

static int loop_get_ca(const char *ca_name, umad_ca_t *ca)
{
	if (strcmp(ca_name, LOOP_CA))
		return -ENOENT;
	umad_backend_ca_init(ca, ca_name);
	ca->node_type = 1;		/* CA */
	ca->node_guid = htobe64(0x1000000);
	return umad_backend_ca_add_port(ca, LOOP_PORT, fill_port, NULL);
}

static int loop_get_issm_path(const char *ca_name, int portnum, char *path, size_t max)
{
	if (!is_loop_port(ca_name, portnum))
		return -EINVAL;
	snprintf(path, max, "/dev/null");	/* no SM to claim the port from */
	return 0;
}

/* --- ports ------------------------------------------------------------------ */

static int loop_open_port(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(addr);
	int fd;

	(void)hdr_size;		/* the 64-byte header the API set is what we speak */
	if (!is_loop_port(ca_name, portnum))
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*open_errno = errno;
		return -EIO;
	}
	/* An address of its own (a bare family: autobind), then connected to it: writes come back. */
	if (bind(fd, (struct sockaddr *)&addr, sizeof(sa_family_t)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&addr, &len) < 0 ||
	    connect(fd, (struct sockaddr *)&addr, len) < 0) {
		*open_errno = errno;
		close(fd);
		return -EIO;
	}
	return fd;
}

static int loop_close_port(int portid)
{
	int r = check_portid(portid);

	if (r < 0)
		return r;
	return close(portid) < 0 ? -errno : 0;
}

static int loop_register(int portid, struct umad_agent_req *req, uint32_t *agent_id)
{
	int r = check_portid(portid);

	if (r < 0)
		return r;
	if (req->qpn > 1)
		return -EINVAL;
	*agent_id = req->mgmt_class;	/* the echo goes back to the class that sent it */
	return 0;
}

static int loop_unregister(int portid, uint32_t agent_id)
{
	(void)agent_id;
	return check_portid(portid);
}

static ssize_t loop_send(int portid, const void *umad, size_t len)
{
	const struct ib_user_mad *hdr = umad;
	struct ib_user_mad echo;
	struct iovec iov[2];
	ssize_t n = check_portid(portid);

	if (n < 0)
		return n;
	if (len < sizeof(*hdr) + 24)	/* a header and a MAD's common header */
		return -EINVAL;
	/* What comes back carries its own length in the header, as the kernel's does. */
	echo = *hdr;
	echo.length = (uint32_t)len;
	iov[0] = (struct iovec){ .iov_base = &echo, .iov_len = sizeof(echo) };
	iov[1] = (struct iovec){ .iov_base = (uint8_t *)umad + sizeof(echo),
				 .iov_len = len - sizeof(echo) };
	n = writev(portid, iov, 2);
	return n < 0 ? -errno : n;
}

static ssize_t loop_recv(int portid, void *umad, size_t len)
{
	ssize_t need, n = check_portid(portid);

	if (n < 0)
		return n;
	need = recv(portid, NULL, 0, MSG_PEEK | MSG_TRUNC);
	if (need < 0)
		return -errno;
	if ((size_t)need > len) {
		/* The kernel's protocol: the header with the full length, the MAD kept queued. */
		if (len < sizeof(struct ib_user_mad))
			return -EINVAL;
		n = recv(portid, umad, sizeof(struct ib_user_mad), MSG_PEEK);
		return n < 0 ? -errno : -ENOSPC;
	}
	n = recv(portid, umad, len, 0);
	return n < 0 ? -errno : n;
}

const struct umad_backend umad_backend_loopback = {
	.abi = UMAD_BACKEND_ABI,
	.name = "loopback",
	.description = "template backend: one port whose MADs come back to it",
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
