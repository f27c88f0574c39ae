/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The public libibumad API: argument checks, rdma-core's return conventions,
 * and one call into the selected backend per operation.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/backend.h"
#include "internal.h"
#include "base/mad_wire.h"
#include "tap.h"

atomic_int umad_debug_level;
atomic_size_t umad_hdr_size = UMAD_HDR_SIZE_OLD;

/* The backend, or NULL with *err set to why not. */
static const struct umad_backend *backend_or_error(int *err)
{
	const struct umad_backend *be = umad_selected_backend();

	if (!be)
		*err = umad_backend_error();
	return be;
}

int umad_init(void)
{
	int err = 0;

	UMAD_DEBUG("umad_init");
	/* rdma-core never fails here; we do only when UMAD_BACKEND is unusable. */
	return backend_or_error(&err) ? 0 : umad_fail(err);
}

int umad_done(void)
{
	UMAD_DEBUG("umad_done");
	umad_tap_sync();	/* what was captured is in the file when this returns */
	return 0;
}

/* --- CAs and ports ------------------------------------------------------ */

/* The backend and the resolved CA name a call works on; 0 or the call's -errno, also in errno. */
static int prepare(const char *ca_name, int *portnum, const struct umad_backend **be,
		   char **name)
{
	int r = 0;

	*be = backend_or_error(&r);
	if (!*be)
		return umad_fail(r);
	*name = umad_resolve_ca_name(ca_name, portnum, 0);
	return *name ? 0 : umad_fail(-ENODEV);
}

int umad_get_ca(const char *ca_name, umad_ca_t *ca)
{
	const struct umad_backend *be;
	char *name = NULL;
	int r;

	UMAD_DEBUG("ca_name %s", ca_name ? ca_name : "(null)");
	if (!ca)
		return umad_fail(-EINVAL);
	r = prepare(ca_name, NULL, &be, &name);
	if (r < 0)
		return r;
	r = umad_ca_fetch(name, ca);
	free(name);
	return r < 0 ? umad_fail(r) : r;
}

int umad_release_ca(umad_ca_t *ca)
{
	int i;

	if (!ca)
		return umad_fail(-ENODEV);
	UMAD_DEBUG("ca_name %s", ca->ca_name);
	for (i = 0; i <= ca->numports && i < UMAD_CA_MAX_PORTS; i++) {
		if (!ca->ports[i])
			continue;
		umad_backend_port_clear(ca->ports[i]);
		free(ca->ports[i]);
		ca->ports[i] = NULL;
	}
	return 0;
}

int umad_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	const struct umad_backend *be;
	char *name = NULL;
	int r = 0;

	UMAD_DEBUG("ca_name %s portnum %d", ca_name ? ca_name : "(null)", portnum);
	if (!port)
		return umad_fail(-EINVAL);
	r = prepare(ca_name, &portnum, &be, &name);
	if (r < 0)
		return r;
	r = be->get_port(name, portnum, port);
	free(name);
	return r < 0 ? umad_fail(r) : r;
}

int umad_release_port(umad_port_t *port)
{
	if (!port)
		return umad_fail(-ENODEV);
	UMAD_DEBUG("port %s:%d", port->ca_name, port->portnum);
	umad_backend_port_clear(port);
	return 0;
}

int umad_get_ca_portguids(const char *ca_name, __be64 *portguids, int max)
{
	umad_ca_t ca;
	char *name = NULL;
	int i, n;

	UMAD_DEBUG("ca name %s max port guids %d", ca_name ? ca_name : "(null)", max);
	if (!backend_or_error(&n))
		return umad_fail(n);
	name = umad_resolve_ca_name(ca_name, NULL, 0);
	if (!name)
		return umad_fail(-ENODEV);
	n = umad_get_ca(name, &ca);
	free(name);
	if (n < 0) {
		errno = -n;
		return -1;	/* rdma-core's value, kept: callers test for < 0 */
	}
	if (!portguids) {
		n = 0;
	} else if (ca.numports + 1 > max) {
		n = -ENOMEM;
	} else {
		for (i = 0; i <= ca.numports; i++)
			portguids[i] = ca.ports[i] ? ca.ports[i]->port_guid : 0;
		n = ca.numports + 1;
	}
	umad_release_ca(&ca);
	return n < 0 ? umad_fail(n) : n;
}

int umad_get_issm_path(const char *ca_name, int portnum, char path[], int max)
{
	const struct umad_backend *be;
	char *name = NULL;
	int r = 0;

	UMAD_DEBUG("ca %s port %d", ca_name ? ca_name : "(null)", portnum);
	if (!path || max <= 0)
		return umad_fail(-EINVAL);
	r = prepare(ca_name, &portnum, &be, &name);
	if (r < 0)
		return r;
	r = be->get_issm_path(name, portnum, path, (size_t)max);
	free(name);
	return r < 0 ? umad_fail(r) : r;
}

static int open_port(const char *ca_name, int portnum, int enforce_smi)
{
	const struct umad_backend *be;
	size_t hdr_size = UMAD_HDR_SIZE_NEW;
	int fd, open_errno = 0, r = 0;
	char *name = NULL;

	UMAD_DEBUG("ca %s port %d", ca_name ? ca_name : "(null)", portnum);
	be = backend_or_error(&r);
	if (!be)
		return umad_fail(r);
	if (be->open_precheck && (r = be->open_precheck()) < 0)
		return umad_fail(r);
	name = umad_resolve_ca_name(ca_name, &portnum, enforce_smi);
	if (!name)
		return umad_fail(-ENODEV);
	fd = be->open_port(name, portnum, &hdr_size, &open_errno);
	if (fd >= 0) {
		atomic_store(&umad_hdr_size, hdr_size);
		UMAD_DEBUG("opened %s port %d fd %d", name, portnum, fd);
		if (umad_tap_on()) {
			umad_port_t info;
			int have_info = be->get_port(name, portnum, &info) == 0;

			umad_tap_port_opened(fd, name, portnum, have_info ? &info : NULL);
			if (have_info)
				umad_backend_port_clear(&info);
		}
	} else if (fd == -EIO && open_errno) {
		UMAD_DEBUG("open %s port %d failed: %s", name, portnum, strerror(open_errno));
	}
	free(name);
	if (fd == -EIO && open_errno)
		errno = open_errno;	/* rdma-core's convention: -EIO, errno says why */
	else if (fd < 0)
		umad_fail(fd);
	return fd;
}

int umad_open_port(const char *ca_name, int portnum)
{
	return open_port(ca_name, portnum, 0);
}

int umad_open_smi_port(const char *ca_name, int portnum)
{
	return open_port(ca_name, portnum, 1);
}

int umad_close_port(int portid)
{
	const struct umad_backend *be;
	int r = 0;

	be = backend_or_error(&r);
	if (!be)
		return umad_fail(r);
	umad_tap_port_closed(portid);
	r = be->close_port(portid);
	UMAD_DEBUG("closed fd %d: %d", portid, r);
	return r < 0 ? umad_fail(r) : r;
}

/* --- The umad buffer ---------------------------------------------------- */

size_t umad_size(void)
{
	return atomic_load(&umad_hdr_size);
}

static int new_abi(void)
{
	return umad_size() == UMAD_HDR_SIZE_NEW;
}

void *umad_get_mad(void *umad)
{
	return (uint8_t *)umad + umad_size();
}

int umad_status(void *umad)
{
	return umad ? (int)((struct ib_user_mad *)umad)->status : umad_fail(-EINVAL);
}

ib_mad_addr_t *umad_get_mad_addr(void *umad)
{
	if (!umad) {
		errno = EINVAL;
		return NULL;
	}
	return &((struct ib_user_mad *)umad)->addr;
}

int umad_set_grh(void *umad, void *mad_addr)
{
	struct ib_user_mad *mad = umad;
	const struct ib_mad_addr *addr = mad_addr;

	if (!mad)
		return umad_fail(-EINVAL);
	if (!addr) {
		mad->addr.grh_present = 0;
		return 0;
	}
	mad->addr.grh_present = 1;
	mad->addr.ib_gid = addr->ib_gid;
	/* The caller's flow label is in host order. */
	mad->addr.flow_label = htobe32((uint32_t)addr->flow_label);
	mad->addr.hop_limit = addr->hop_limit;
	mad->addr.traffic_class = addr->traffic_class;
	return 0;
}

int umad_set_addr_net(void *umad, __be16 dlid, __be32 dqp, int sl, __be32 qkey)
{
	struct ib_user_mad *mad = umad;

	if (!mad)
		return umad_fail(-EINVAL);
	mad->addr.qpn = dqp;
	mad->addr.lid = dlid;
	mad->addr.qkey = qkey;
	mad->addr.sl = (uint8_t)sl;
	return 0;
}

int umad_set_addr(void *umad, int dlid, int dqp, int sl, int qkey)
{
	UMAD_DEBUG("umad %p dlid %u dqp %d sl %d qkey %x", umad, dlid, dqp, sl, qkey);
	return umad_set_addr_net(umad, htobe16((uint16_t)dlid), htobe32((uint32_t)dqp),
				 sl, htobe32((uint32_t)qkey));
}

/* The old (ABI 5) header has no pkey_index: there the MAD starts in its place. */
int umad_set_pkey(void *umad, int pkey_index)
{
	struct ib_user_mad *mad = umad;

	if (!mad)
		return umad_fail(-EINVAL);
	if (new_abi())
		mad->addr.pkey_index = (uint16_t)pkey_index;
	return 0;
}

int umad_get_pkey(void *umad)
{
	struct ib_user_mad *mad = umad;

	if (!mad)
		return umad_fail(-EINVAL);
	return new_abi() ? mad->addr.pkey_index : 0;
}

/* --- I/O ---------------------------------------------------------------- */

int umad_get_fd(int portid)
{
	const struct umad_backend *be = umad_selected_backend();

	UMAD_DEBUG("fd %d", portid);
	/* The caller may poll it from now on: a lazy backend must signal it for every MAD. */
	if (be && be->watch_fd)
		be->watch_fd(portid);
	return portid;
}

/* 0 when readable, -ETIMEDOUT (errno too), or -EIO with poll's errno. */
static int wait_readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	if (n == 1)
		return 0;
	if (n == 0)
		return umad_fail(-ETIMEDOUT);
	return -EIO;
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* wait_readable() through the backend's wait() when it has one (it signals the fd lazily). */
static int wait_port(const struct umad_backend *be, int fd, int timeout_ms)
{
	int r;

	if (!be->wait)
		return wait_readable(fd, timeout_ms);
	r = be->wait(fd, timeout_ms);
	if (r == 0 || r == -ETIMEDOUT)
		return r < 0 ? umad_fail(r) : r;
	errno = -r;
	return -EIO;
}

int umad_poll(int portid, int timeout_ms)
{
	const struct umad_backend *be;
	int r = 0;

	UMAD_DEBUG("fd %d timeout %d", portid, timeout_ms);
	/* No backend, no port: as for a poll error, -EIO and errno says why. */
	be = backend_or_error(&r);
	if (!be) {
		errno = -r;
		return -EIO;
	}
	return wait_port(be, portid, timeout_ms);
}

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	struct ib_user_mad *mad = umad;
	const struct umad_backend *be;
	uint64_t ticket;
	size_t hdr, total;
	ssize_t n;
	int r = 0, sent;

	UMAD_DEBUG("fd %d agentid %d umad %p timeout %d", portid, agentid, umad, timeout_ms);
	if (!mad || length < 0)
		return umad_fail(-EINVAL);
	be = backend_or_error(&r);
	if (!be) {
		errno = -r;
		return -EIO;
	}
	errno = 0;
	mad->timeout_ms = (uint32_t)timeout_ms;
	mad->retries = (uint32_t)retries;
	mad->agent_id = (uint32_t)agentid;
	if (atomic_load(&umad_debug_level) > 1)
		umad_dump(mad);

	hdr = umad_size();
	total = hdr + (size_t)length;
	ticket = umad_tap_send_begin(portid, mad, hdr, (size_t)length, mad->agent_id,
				     umad_tap_on() && be->hi_tid ? be->hi_tid(portid, mad->agent_id) : 0,
				     mad->timeout_ms, mad->retries);
	n = be->send(portid, mad, total);
	sent = n >= 0 && (size_t)n == total;
	umad_tap_send_done(ticket, sent);
	if (sent)
		return 0;
	UMAD_DEBUG("send of %zu bytes returned %zd", total, n);
	errno = n < 0 ? (int)-n : EIO;
	return -EIO;
}

void umad_resent(int portid, const void *umad, size_t len)
{
	const struct ib_user_mad *mad = umad;
	size_t hdr = umad_size();

	/* Its TID is as on the wire already: no hi_tid to put in. */
	if (umad_tap_on() && len >= hdr)
		umad_tap_send_done(umad_tap_send_begin(portid, mad, hdr, len - hdr, mad->agent_id, 0,
						       mad->timeout_ms, mad->retries), 1);
}

int umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
	struct ib_user_mad *mad = umad;
	const struct umad_backend *be;
	size_t hdr = umad_size();
	ssize_t n;
	int r = 0;

	UMAD_DEBUG("fd %d umad %p timeout %d", portid, umad, timeout_ms);
	if (!mad || !length || *length < 0)
		return umad_fail(-EINVAL);
	be = backend_or_error(&r);
	if (!be)
		return umad_fail(r);
	if (be->wait) {
		/*
		 * What is queued already needs no wait; the wait is announced to
		 * the senders.  A wake-up that finds nothing (another thread of
		 * the port took the MAD first) waits again for the time left, so
		 * that a timed receive ends with a MAD or ETIMEDOUT.
		 */
		uint64_t deadline = timeout_ms > 0 ? monotonic_ms() + (uint64_t)timeout_ms : 0;
		int left = timeout_ms;

		n = be->recv(portid, mad, hdr + (size_t)*length);
		while (n == -EAGAIN && left) {
			r = wait_port(be, portid, left);
			if (r < 0)
				return r;	/* errno set by wait_port() */
			n = be->recv(portid, mad, hdr + (size_t)*length);
			if (n == -EAGAIN && timeout_ms > 0) {
				uint64_t now = monotonic_ms();

				left = now < deadline ? (int)(deadline - now) : 0;
				if (!left)
					return umad_fail(-ETIMEDOUT);
			}
		}
	} else {
		if (timeout_ms && !(be->pending && be->pending(portid) > 0)) {
			r = wait_readable(portid, timeout_ms);
			if (r < 0)
				return r;	/* errno set by wait_readable() */
		}
		n = be->recv(portid, mad, hdr + (size_t)*length);
	}
	if (n >= 0) {
		*length = (size_t)n > hdr ? (int)((size_t)n - hdr) : 0;
		UMAD_DEBUG("mad received by agent %u length %zd", mad->agent_id, n);
		umad_tap_received(portid, mad, hdr, (size_t)*length);
		return (int)mad->agent_id;
	}
	/*
	 * Only ENOSPC reports a length (the header was written with the size
	 * the whole message needs); rdma-core also overwrote *length from stale
	 * buffer contents on EAGAIN and other errors.
	 */
	if (n == -ENOSPC)
		*length = (int)(mad->length - hdr);
	return umad_fail((int)n);
}

/* --- Agents ------------------------------------------------------------- */

static void copy_method_mask(uint64_t dst[2], const long *method_mask)
{
	if (method_mask)
		memcpy(dst, method_mask, 16);
	else
		memset(dst, 0, 16);
}

/* The API's classes are ints: only those that fit a MAD's class byte are classes at all. */
static int is_smi_class(int mgmt_class)
{
	return (unsigned)mgmt_class <= UINT8_MAX && mad_class_is_smp((uint8_t)mgmt_class);
}

static int is_vendor_range2(int mgmt_class)
{
	return (unsigned)mgmt_class <= UINT8_MAX && mad_class_is_vendor_range2((uint8_t)mgmt_class);
}

/* rdma-core returns -EPERM (-1) for any failed registration, with errno set. */
static int register_legacy(int portid, struct umad_agent_req *req)
{
	const struct umad_backend *be;
	uint32_t id = 0;
	int r = 0;

	be = backend_or_error(&r);
	if (!be) {
		errno = -r;
		return -EPERM;
	}
	req->legacy = 1;
	r = be->register_agent(portid, req, &id);
	if (r < 0) {
		UMAD_DEBUG("fd %d: register class 0x%x failed: %s", portid, req->mgmt_class,
			   strerror(-r));
		errno = -r;
		return -EPERM;
	}
	UMAD_DEBUG("fd %d: registered class 0x%x as agent %u", portid, req->mgmt_class, id);
	umad_tap_agent(portid, id, req->qpn);
	return (int)id;
}

int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
		  long method_mask[16 / sizeof(long)])
{
	struct umad_agent_req req = {
		.qpn = is_smi_class(mgmt_class) ? QP0_SMI : QP1_GSI,
		.mgmt_class = (uint8_t)mgmt_class,
		.mgmt_class_version = (uint8_t)mgmt_version,
		.rmpp_version = rmpp_version,
		.oui = UMAD_OPENIB_OUI,
	};

	UMAD_DEBUG("fd %d mgmt_class %d mgmt_version %d rmpp_version %d", portid,
		   mgmt_class, mgmt_version, rmpp_version);
	copy_method_mask(req.method_mask, method_mask);
	return register_legacy(portid, &req);
}

int umad_register_oui(int portid, int mgmt_class, uint8_t rmpp_version, uint8_t oui[3],
		      long method_mask[16 / sizeof(long)])
{
	struct umad_agent_req req = {
		.qpn = QP1_GSI,
		.mgmt_class = (uint8_t)mgmt_class,
		.mgmt_class_version = 1,
		.rmpp_version = rmpp_version,
	};

	UMAD_DEBUG("fd %d mgmt_class 0x%x rmpp_version %d", portid, mgmt_class, rmpp_version);
	if (!is_vendor_range2(mgmt_class)) {
		UMAD_DEBUG("mgmt class 0x%x not in vendor range 2", mgmt_class);
		return umad_fail(-EINVAL);
	}
	if (!oui)
		return umad_fail(-EINVAL);
	req.oui = (uint32_t)oui[0] << 16 | (uint32_t)oui[1] << 8 | oui[2];
	copy_method_mask(req.method_mask, method_mask);
	return register_legacy(portid, &req);
}

/* Returns 0 or a positive errno, as rdma-core does. */
int umad_register2(int port_fd, struct umad_reg_attr *attr, uint32_t *agent_id)
{
	const struct umad_backend *be;
	struct umad_agent_req req;
	int r = 0;

	if (!attr || !agent_id)
		return umad_fail_positive(EINVAL);
	UMAD_DEBUG("fd %d mgmt_class %u mgmt_class_version %u flags 0x%08x rmpp_version %d",
		   port_fd, attr->mgmt_class, attr->mgmt_class_version, attr->flags,
		   attr->rmpp_version);
	if (is_vendor_range2(attr->mgmt_class) && (attr->oui == 0 || (attr->oui & 0xff000000))) {
		UMAD_DEBUG("invalid oui 0x%x for class 0x%x", attr->oui, attr->mgmt_class);
		return umad_fail_positive(EINVAL);
	}
	be = backend_or_error(&r);
	if (!be)
		return umad_fail_positive(-r);

	req = (struct umad_agent_req){
		.qpn = is_smi_class(attr->mgmt_class) ? QP0_SMI : QP1_GSI,
		.mgmt_class = attr->mgmt_class,
		.mgmt_class_version = attr->mgmt_class_version,
		.rmpp_version = attr->rmpp_version,
		.flags = attr->flags,
		.method_mask = { attr->method_mask[0], attr->method_mask[1] },
		.oui = attr->oui,
	};
	r = be->register_agent(port_fd, &req, agent_id);
	if (r == 0) {
		umad_tap_agent(port_fd, *agent_id, req.qpn);
		return 0;
	}

	/* Kernels before REGISTER_AGENT2 answer ENOTTY or EINVAL: fall back when no flag was asked. */
	if ((r == -ENOTTY || r == -EINVAL) && attr->flags == 0) {
		struct umad_agent_req old = req;

		old.legacy = 1;
		old.flags = 0;
		r = be->register_agent(port_fd, &old, agent_id);
		if (r == 0) {
			umad_tap_agent(port_fd, *agent_id, old.qpn);
			return 0;
		}
	} else if (r == -ENOTTY) {
		attr->flags = 0;	/* no REGISTER_AGENT2 at all: no flag is supported */
	} else if (r == -EINVAL) {
		/* The backend reported the flags it supports; rdma-core zeroed them. */
		attr->flags = req.flags;
	}
	UMAD_DEBUG("fd %d: register2 failed: %s", port_fd, strerror(-r));
	return umad_fail_positive(-r);
}

int umad_unregister(int portid, int agentid)
{
	const struct umad_backend *be;
	int r = 0;

	UMAD_DEBUG("fd %d unregistering agent %d", portid, agentid);
	be = backend_or_error(&r);
	if (!be) {
		errno = -r;
		return -1;
	}
	if (agentid < 0) {
		errno = EINVAL;
		return -1;
	}
	r = be->unregister_agent(portid, (uint32_t)agentid);
	if (r < 0) {
		errno = -r;
		return -1;	/* rdma-core passes ioctl()'s -1/errno through */
	}
	return 0;
}

int umad_debug(int level)
{
	if (level >= 0)
		atomic_store(&umad_debug_level, level);
	return atomic_load(&umad_debug_level);
}
