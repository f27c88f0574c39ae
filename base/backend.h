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
 *     the library prints nothing for them except init's failure, so a
 *     backend with more to tell (what is wrong in a file it reads) carries
 *     it up in a struct umad_err (errbuf.h) and prints it once, where it
 *     starts, in the operation that failed when its -errno cannot say why
 *     (a send), or where it reports an event, with umad_err_print;
 *   - operations may be called from any thread at any time, concurrently,
 *     including send() while another thread blocks in recv()/poll on the
 *     same port, so a backend protects its own state;
 *   - string and buffer arguments belong to the caller and are valid for
 *     the call only: a backend copies what it keeps;
 *   - a "portid" is a real file descriptor owned by the backend from
 *     open_port() until close_port(): the public API returns it from
 *     umad_open_port(), and poll(2)/select(2)/epoll(7) on it must report
 *     POLLIN exactly when recv() has a MAD to return (a backend with
 *     wait() need do so only once umad_get_fd() handed it out, see
 *     there).  Closing a port while
 *     another thread still uses it is the application's race, as with
 *     close(2); a backend must not crash on it but may fail the call.
 *
 * Adding a backend: write backends/NAME.c defining
 *     const struct umad_backend umad_backend_NAME = { ... };
 * and add one row to UMAD_BACKENDS in libumad/dispatch.c.  A backend linked
 * into libibumad.so.3 (libc only) is a BUILTIN row and its file joins the
 * list in backends/local.mk; one needing other libraries is a MODULE row,
 * built as backend-NAME.so into the module directory (its block in
 * backends/local.mk), and libibumad.so.3 stays libc-only.  The loader
 * refuses a module whose abi is not UMAD_BACKEND_ABI or that leaves a
 * mandatory operation NULL, with a message.  backends/loopback.c is the
 * smallest complete backend, to start from.
 */
#ifndef UMAD_BASE_BACKEND_H
#define UMAD_BASE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <infiniband/umad.h>

/*
 * Bumped whenever struct umad_backend changes; modules built for another
 * value are refused.  abi stays the first member in every version, so that
 * the loader can read it from any module.
 */
#define UMAD_BACKEND_ABI 5

/* Filling and freeing what get_ca() and get_port() return. */
#include "base/ca_port.h"

/*
 * A REGISTER_AGENT request in backend-neutral form (the kernel's reg_req2
 * fields).  The API builds it; register_agent may change flags only.
 */
struct umad_agent_req {
	uint8_t qpn;			/* 0 (SMI) or 1 (GSI) */
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint8_t rmpp_version;
	uint32_t flags;			/* UMAD_USER_RMPP ...; on -EINVAL the supported flags */
	uint64_t method_mask[2];	/* bit n = method n may be received */
	uint32_t oui;			/* vendor range 2 classes: host order, low 24 bits */
	/*
	 * 1 for umad_register() and umad_register_oui(), and for the retry of
	 * umad_register2() described at register_agent: the kernel's old
	 * REGISTER_AGENT call, which carries no flags and whose OUI is not
	 * range-checked.  The kernel backend picks the ioctl by it; backends
	 * enforcing the kernel's rules (base/mad_rules.c) check those
	 * fields only when it is 0.  Other backends may ignore it.
	 */
	int legacy;
};

/* Called once per CA by for_each_ca(); a non-zero return stops the walk and is returned. */
typedef int (*umad_ca_visit_fn)(const char *ca_name, void *arg);

/*
 * The operations.  "Mandatory" ones must be set: the loader refuses a
 * module without them.  Unless stated, an operation takes no lock of the
 * API's and may be called concurrently with any other, on the same port too.
 */
/*
 * What the library hands a backend at init, for good: what the backend would
 * otherwise reach up into the API layer for (a backend is a layer below
 * it and calls nothing of it).
 */
struct umad_backend_host {
	/* The process's umad_debug() level, as it is at the call. */
	int (*debug_level)(void);

	/*
	 * For a backend that resends a request with retries itself when its
	 * timeout expires, as the kernel's MAD layer does: to call for each
	 * resend as it goes out (umad: its header and MAD, len bytes, the TID
	 * as on the wire; from any thread of the backend's), so that the
	 * capture records it as a request on the wire.  NULL: nobody records.
	 */
	void (*resent)(int portid, const void *umad, size_t len);
};

struct umad_backend {
	unsigned abi;			/* UMAD_BACKEND_ABI; always the first member */
	const char *name;		/* as written in UMAD_BACKEND; mandatory */
	const char *description;	/* one line, for people; may be NULL */

	/*
	 * Optional.  Called once, before any other operation, under the
	 * selection's pthread_once: no other operation runs concurrently.
	 * Returns 0 or -errno; on failure the library prints that the backend
	 * failed to start (the backend prints the details first), every API
	 * call fails with that error, and fini is not called.  host stays
	 * valid for good.
	 */
	int (*init)(const struct umad_backend_host *host);

	/*
	 * Optional.  Called once at process exit (atexit) after a successful
	 * init.  Other threads may still be running and calling in; a
	 * backend frees nothing they could be using.
	 */
	void (*fini)(void);

	/*
	 * Mandatory.  Visit the InfiniBand devices (node type CA, switch or
	 * router) in the backend's natural order (the kernel's: readdir
	 * order).  ca_name is valid during the visit only.  Returns 0, the
	 * visitor's non-zero value, or -ENOENT when the host has no device
	 * class at all (the API then reports rdma-core's fallback "mthca0";
	 * a backend with an empty but existing device list returns 0).
	 */
	int (*for_each_ca)(umad_ca_visit_fn visit, void *arg);

	/*
	 * Mandatory.  Fill *ca for ca_name as rdma-core's get_ca() would from
	 * sysfs.  The API has zeroed *ca.  ports[i] for each port number
	 * present (0 for a switch's management port), NULL otherwise, each
	 * allocated with malloc() and its pkeys with malloc(); numports the
	 * highest.  They become the caller's, freed by umad_release_ca().
	 * On error nothing stays allocated and ports[] is all NULL.  0 or
	 * -errno (-ENOENT: no such CA).
	 */
	int (*get_ca)(const char *ca_name, umad_ca_t *ca);

	/*
	 * Mandatory.  Fill *port for one port of ca_name; *port is the
	 * caller's and not zeroed.  pkeys is malloc()'ed and becomes the
	 * caller's, freed by umad_release_port().  On error nothing stays
	 * allocated.  0 or -errno.
	 */
	int (*get_port)(const char *ca_name, int portnum, umad_port_t *port);

	/*
	 * Mandatory.  Write the path of the IsSM device of (ca, port) into
	 * path (max bytes, always terminated, truncated like snprintf).
	 * 0 or -errno (-EINVAL: no such umad port).
	 */
	int (*get_issm_path)(const char *ca_name, int portnum, char *path, size_t max);

	/*
	 * Optional; for the kernel backend.  Called by umad_open_port() before
	 * the CA and port are resolved, so that a host whose ib_umad cannot be
	 * used fails with -EOPNOTSUPP before any -ENODEV, as rdma-core's ABI
	 * version check does.  Backends that can always open leave it NULL.
	 */
	int (*open_precheck)(void);

	/*
	 * Mandatory.  Open (ca, port), already resolved by the API.  Returns
	 * the portid (a file descriptor the API polls but never reads, writes
	 * or closes itself).  -EINVAL: no umad device for (ca, port);
	 * -EOPNOTSUPP: the host cannot open ports at all.
	 *
	 * *hdr_size: the size of the umad header the port speaks, set by the
	 * API to 64 (sizeof(struct ib_user_mad)) before the call.  Only the
	 * kernel backend changes it, to 56 for an ABI 5 kernel that will not
	 * carry the P_Key index; umad_size() then reports it process-wide, as
	 * rdma-core does.
	 *
	 * *open_errno: set it and return -EIO when the device would not open
	 * (rdma-core's umad_open_port() returns -EIO with errno from open(2),
	 * so an open error must not be confused with the -EINVAL above).
	 */
	int (*open_port)(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno);

	/*
	 * Mandatory.  Close a portid: its agents are unregistered, queued MADs
	 * dropped and the descriptor closed.  0 or -errno.
	 */
	int (*close_port)(int portid);

	/*
	 * Mandatory.  Register an agent on portid; on success 0 and *agent_id,
	 * the id recv() reports for the MADs it receives.  -EINVAL from a
	 * request with flags sets req->flags to the flags supported.  -ENOTTY
	 * or -EINVAL from a request with legacy = 0 and no flags makes the API
	 * retry it with legacy = 1, as rdma-core falls back from
	 * REGISTER_AGENT2 on old kernels.
	 */
	int (*register_agent)(int portid, struct umad_agent_req *req, uint32_t *agent_id);

	/* Mandatory.  Unregister an agent of portid; 0 or -errno. */
	int (*unregister_agent)(int portid, uint32_t agent_id);

	/*
	 * Mandatory.  write(2)/read(2) semantics on the port: whole umad
	 * buffers (header of the port's size, then the MAD).  send returns the
	 * bytes accepted or -errno.  Once the MAD can be answered, another
	 * thread may receive the answer and reuse the request's buffer, even
	 * before send returns: a backend copies what it needs first, as the
	 * kernel's write(2) does.  recv returns the bytes stored or -errno:
	 * -EAGAIN when nothing is queued; -ENOSPC after writing a header whose
	 * length field gives the size the whole message needs (the message
	 * stays queued); -EINVAL when the buffer cannot even hold that header.
	 * Neither blocks: the API waits with poll(2) on the portid first.
	 */
	ssize_t (*send)(int portid, const void *umad, size_t len);
	ssize_t (*recv)(int portid, void *umad, size_t len);

	/*
	 * Optional: 1 when recv() would return something now, 0 otherwise.
	 * For a backend without wait(), umad_recv() asks first and skips its
	 * poll(2) when there is, which saves a system call per MAD for
	 * backends answering in-process.
	 */
	int (*pending)(int portid);

	/*
	 * Optional, together: for backends that answer in-process and would
	 * rather not signal the portid for every MAD.  With them, the portid
	 * needs to be readable only while someone may be blocked on it:
	 *
	 * wait: block until recv() has something or timeout_ms passes
	 * (negative: for ever).  umad_recv() and umad_poll() call it instead
	 * of poll(2) on the portid, and umad_recv() tries recv() before it.
	 * 0 when recv() has something (or the portid is not the backend's:
	 * then as poll(2) judges it), -ETIMEDOUT, or -errno of poll(2).  No
	 * wake-up may be lost to a MAD queued by another thread meanwhile.
	 *
	 * watch_fd: umad_get_fd() handed the portid to the application, which
	 * may poll it itself (opensm's and ibacm's loops do): from then on,
	 * for good, it must follow the rule above for every MAD.
	 */
	int (*wait)(int portid, int timeout_ms);
	void (*watch_fd)(int portid);

	/*
	 * Optional: the upper TID half the backend gives the requests of an
	 * agent of portid, as the kernel rewrites it (a response and a
	 * TrapRepress keep theirs), or 0 when the backend does not know it
	 * (the kernel backend: the kernel keeps it to itself).  The capture
	 * then records the TID as it goes on the wire.
	 */
	uint32_t (*hi_tid)(int portid, uint32_t agent_id);
};

#endif /* UMAD_BASE_BACKEND_H */
