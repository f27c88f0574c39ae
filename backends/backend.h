/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The backend contract: what every libumad backend implements.
 *
 * The public API in libumad/ validates arguments, applies rdma-core's CA and
 * port selection rules and return conventions, and then calls exactly one
 * backend through this table.  A backend only provides primitives:
 * enumeration of the host's devices, a snapshot of one device, and a port
 * that behaves like an open /dev/infiniband/umadN.
 *
 * Conventions, for every operation:
 *   - errors are returned as -errno, never through errno, never by exit();
 *   - operations may be called from any thread at any time, concurrently,
 *     including send() while another thread blocks in recv()/poll on the
 *     same port, so a backend protects its own state;
 *   - a "portid" is a real file descriptor owned by the backend: the public
 *     API returns it from umad_open_port(), and poll(2)/select(2)/epoll(7)
 *     on it must report POLLIN exactly when recv() has a MAD to return.
 *
 * Adding a backend: write backends/NAME.c defining
 *     const struct umad_backend umad_backend_NAME = { ... };
 * and add one row to the table in libumad/dispatch.c.  A backend that needs
 * glib or libpcap is built as a loadable module (backend-NAME.so) exporting
 * that symbol; its table row names the module instead of the symbol, and
 * libibumad.so.3 itself stays libc-only.
 */
#ifndef LIBUMAD_BACKEND_H
#define LIBUMAD_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <infiniband/umad.h>

/* Bumped whenever struct umad_backend changes; modules built for another value are refused. */
#define UMAD_BACKEND_ABI 2

/* Filling and freeing what get_ca() and get_port() return. */
#include "backends/ca_port.h"

/* A REGISTER_AGENT request in backend-neutral form (the kernel's reg_req2 fields). */
struct umad_agent_req {
	uint8_t qpn;			/* 0 (SMI) or 1 (GSI) */
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint8_t rmpp_version;
	uint32_t flags;			/* UMAD_USER_RMPP ...; on -EINVAL the supported flags */
	uint64_t method_mask[2];	/* bit n = method n may be received */
	uint32_t oui;			/* vendor range 2 classes: host order, low 24 bits */
	int legacy;			/* 1: the old REGISTER_AGENT call (no flags) */
};

/* Called once per CA by for_each_ca(); a non-zero return stops the walk and is returned. */
typedef int (*umad_ca_visit_fn)(const char *ca_name, void *arg);

struct umad_backend {
	unsigned abi;			/* UMAD_BACKEND_ABI */
	const char *name;		/* as written in UMAD_BACKEND */
	const char *description;

	/* Once, before any other call; 0 or -errno (the message is printed by the backend). */
	int (*init)(void);
	/* Once, at process exit or umad_done(); may be NULL. */
	void (*fini)(void);

	/*
	 * Devices.  for_each_ca visits the InfiniBand devices (node type CA,
	 * switch or router) in the backend's natural order, the kernel's readdir
	 * order.  It returns 0, the visitor's non-zero value, or -ENOENT when the
	 * host has no device class at all (the API then reports "mthca0").
	 */
	int (*for_each_ca)(umad_ca_visit_fn visit, void *arg);

	/*
	 * Fill *ca for ca_name exactly as rdma-core's get_ca() would from sysfs:
	 * ports[] allocated with malloc (ports[i]->pkeys too), NULL for absent
	 * port numbers.  On error nothing stays allocated.  0 or -errno.
	 */
	int (*get_ca)(const char *ca_name, umad_ca_t *ca);

	/* Fill *port for one port (same allocation rules); 0 or -errno. */
	int (*get_port)(const char *ca_name, int portnum, umad_port_t *port);

	/* Path of the IsSM device of (ca, port); 0 or -errno (-EINVAL: no such umad port). */
	int (*get_issm_path)(const char *ca_name, int portnum, char *path, size_t max);

	/*
	 * Optional: called before the CA and port are resolved, so that a host
	 * that cannot open ports at all fails first with -EOPNOTSUPP, as
	 * rdma-core's ABI version check does.  May be NULL.
	 */
	int (*open_precheck)(void);

	/*
	 * Open (ca, port), already resolved by the caller.  Returns the portid
	 * (a file descriptor) and stores the umad header size the port speaks
	 * (64, or 56 for an ABI 5 kernel without P_Key index support) in
	 * *hdr_size.  -EOPNOTSUPP: unusable ABI; -EINVAL: no umad device for
	 * (ca, port); -EIO with *open_errno set: the device would not open.
	 */
	int (*open_port)(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno);
	/* Close a portid; 0 or -errno. */
	int (*close_port)(int portid);

	/* Register an agent; on success 0 and *agent_id.  -ENOTTY or -EINVAL from a
	 * non-legacy request lets the API retry with legacy = 1 as rdma-core does. */
	int (*register_agent)(int portid, struct umad_agent_req *req, uint32_t *agent_id);
	int (*unregister_agent)(int portid, uint32_t agent_id);

	/*
	 * write(2)/read(2) semantics on the port: whole umad buffers (header of
	 * the port's size, then the MAD).  send returns bytes accepted or -errno;
	 * recv returns bytes stored or -errno (-EAGAIN when nothing is queued,
	 * -ENOSPC after writing a header whose length field gives the size
	 * needed, -EINVAL when the buffer cannot even hold that).  Neither
	 * blocks: the API waits with poll(2) on the portid first.
	 */
	ssize_t (*send)(int portid, const void *umad, size_t len);
	ssize_t (*recv)(int portid, void *umad, size_t len);

	/*
	 * Optional: 1 when recv() would return something now, 0 otherwise.
	 * umad_recv() asks first and skips its poll(2) when there is, which
	 * saves a system call per MAD for backends answering in-process.
	 * May be NULL.
	 */
	int (*pending)(int portid);
};

/* The backend serving this process, selected on first use; NULL if it could not be. */
const struct umad_backend *umad_backend(void);

/* Why umad_backend() is NULL, as -errno (the message was printed once); 0 otherwise. */
int umad_backend_error(void);

/* Comma-separated names of the backends usable in this build, for messages. */
const char *umad_backend_names(void);

#endif /* LIBUMAD_BACKEND_H */
