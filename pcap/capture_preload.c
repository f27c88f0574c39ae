/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libumad-capture.so: an LD_PRELOAD shim that records the MADs of any
 * program linked to any libibumad (rdma-core's on a real cluster, ours,
 * Debian's under ibsim+umad2sim) into UMAD_PRELOAD_CAPTURE, in the same
 * format as the in-library tap.  It wraps the calls that open ports,
 * register agents and move MADs, and learns each port's LID, GID and P_Keys
 * from the library it wraps.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture_tap.h"
#include "base/mad_wire.h"

#define CAPTURE_VARIABLE "UMAD_PRELOAD_CAPTURE"

static struct {
	int (*open_port)(const char *, int);
	int (*open_smi_port)(const char *, int);
	int (*close_port)(int);
	int (*get_port)(const char *, int, umad_port_t *);
	int (*release_port)(umad_port_t *);
	size_t (*size)(void);
	int (*reg)(int, int, int, uint8_t, long *);
	int (*reg_oui)(int, int, uint8_t, uint8_t *, long *);
	int (*reg2)(int, struct umad_reg_attr *, uint32_t *);
	int (*send)(int, int, void *, int, int, int);
	int (*recv)(int, void *, int *, int);
} real;

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	umad_tap_use_variable(CAPTURE_VARIABLE);
	*(void **)&real.open_port = dlsym(RTLD_NEXT, "umad_open_port");
	*(void **)&real.open_smi_port = dlsym(RTLD_NEXT, "umad_open_smi_port");
	*(void **)&real.close_port = dlsym(RTLD_NEXT, "umad_close_port");
	*(void **)&real.get_port = dlsym(RTLD_NEXT, "umad_get_port");
	*(void **)&real.release_port = dlsym(RTLD_NEXT, "umad_release_port");
	*(void **)&real.size = dlsym(RTLD_NEXT, "umad_size");
	*(void **)&real.reg = dlsym(RTLD_NEXT, "umad_register");
	*(void **)&real.reg_oui = dlsym(RTLD_NEXT, "umad_register_oui");
	*(void **)&real.reg2 = dlsym(RTLD_NEXT, "umad_register2");
	*(void **)&real.send = dlsym(RTLD_NEXT, "umad_send");
	*(void **)&real.recv = dlsym(RTLD_NEXT, "umad_recv");
	if (!real.open_port || !real.send || !real.recv || !real.size)
		fprintf(stderr, "libumad: capture shim: no libibumad below the shim; nothing is captured\n");
}

/* True when the wrapped library has fn (looked up on first use). */
#define REAL(fn) (pthread_once(&resolve_once, resolve), real.fn != NULL)

/* Which CA and port the library picked, and what the packets need from it. */
static void port_opened(int fd, const char *ca_name, int portnum)
{
	umad_port_t info;

	if (fd < 0 || !umad_tap_on() || !real.get_port)
		return;
	if (real.get_port(ca_name, portnum, &info) == 0) {
		umad_tap_port_opened(fd, info.ca_name, info.portnum, &info);
		if (real.release_port)
			real.release_port(&info);
	} else {
		umad_tap_port_opened(fd, ca_name ? ca_name : "unknown", portnum, NULL);
	}
}

int umad_open_port(const char *ca_name, int portnum)
{
	int fd = REAL(open_port) ? real.open_port(ca_name, portnum) : -ENOSYS;

	port_opened(fd, ca_name, portnum);
	return fd;
}

int umad_open_smi_port(const char *ca_name, int portnum)
{
	int fd = REAL(open_smi_port) ? real.open_smi_port(ca_name, portnum) : -ENOSYS;

	port_opened(fd, ca_name, portnum);
	return fd;
}

int umad_close_port(int portid)
{
	umad_tap_port_closed(portid);
	return REAL(close_port) ? real.close_port(portid) : -ENOSYS;
}

static unsigned qp_of(int mgmt_class)
{
	return mad_class_is_smp((uint8_t)mgmt_class) ? QP0_SMI : QP1_GSI;
}

int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
		  long method_mask[16 / sizeof(long)])
{
	int id = REAL(reg) ? real.reg(portid, mgmt_class, mgmt_version, rmpp_version,
				      method_mask) : -ENOSYS;

	if (id >= 0)
		umad_tap_agent(portid, (uint32_t)id, qp_of(mgmt_class));
	return id;
}

int umad_register_oui(int portid, int mgmt_class, uint8_t rmpp_version, uint8_t oui[3],
		      long method_mask[16 / sizeof(long)])
{
	int id = REAL(reg_oui) ? real.reg_oui(portid, mgmt_class, rmpp_version, oui,
					      method_mask) : -ENOSYS;

	if (id >= 0)
		umad_tap_agent(portid, (uint32_t)id, QP1_GSI);
	return id;
}

int umad_register2(int port_fd, struct umad_reg_attr *attr, uint32_t *agent_id)
{
	int r = REAL(reg2) ? real.reg2(port_fd, attr, agent_id) : ENOSYS;

	if (r == 0 && attr && agent_id)
		umad_tap_agent(port_fd, *agent_id, qp_of(attr->mgmt_class));
	return r;
}

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	uint64_t ticket = 0;
	int r;

	if (!REAL(send))
		return -EIO;
	if (umad && length >= 0)
		/* The kernel's hi_tid is its own: the TID is recorded as written. */
		ticket = umad_tap_send_begin(portid, umad, real.size(), (size_t)length,
					     (uint32_t)agentid, 0, (uint32_t)timeout_ms,
					     (uint32_t)retries);
	r = real.send(portid, agentid, umad, length, timeout_ms, retries);
	umad_tap_send_done(ticket, r == 0);
	return r;
}

int umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
	int r = REAL(recv) ? real.recv(portid, umad, length, timeout_ms) : -EIO;

	if (r >= 0 && umad && length && *length >= 0)
		umad_tap_received(portid, umad, real.size(), (size_t)*length);
	return r;
}
