/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A statically linked program that reaches the umad device as Go, Rust or
 * a static binary does: no libibumad, only system calls (through syscall(),
 * no libc wrapper between it and the kernel).  It reads the ABI version,
 * opens umadN, switches to the P_Key header, registers an agent for
 * directed-route SMPs with REGISTER_AGENT2, sends a hop-0 SubnGet(NodeInfo)
 * and prints what came back:
 *
 *   abi_version 5
 *   agent N
 *   NodeGUID 0x... PortGUID 0x... NodeType N
 *   tid sent 0x... received 0x...
 *
 * Usage: kernel_static_probe [DEVDIR [ABIFILE]] (default /dev/infiniband/umad0
 * and the sysfs file).  Exit status 0 when the answer is the request's,
 * 1 otherwise (the message says which step failed).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/umad.h>
#include <infiniband/umad_sm.h>

#include "base/mad_layout.h"
#include "base/mad_wire.h"
#include "base/umad_ioctl.h"

#define REPLY_WAIT_MS	5000
/* The low half of the TID is the requester's; the kernel owns the high half. */
#define PROBE_TID_LOW	0x5eed1234u

static int sys_open(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags);
}

static int fail(const char *what)
{
	fprintf(stderr, "kernel_static_probe: %s: %s\n", what, strerror(errno));
	return 1;
}

static int read_abi_version(const char *file)
{
	char text[16] = "";
	int fd = sys_open(file, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return fail(file);
	n = syscall(SYS_read, fd, text, sizeof(text) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return fail(file);
	text[n] = '\0';
	printf("abi_version %s", text);
	return 0;
}

/* Hop 0: the SMP goes to the local port's SMA and straight back, permissive LIDs both ends. */
static void build_request(uint8_t *buf, uint32_t agent)
{
	struct ib_user_mad *hdr = (struct ib_user_mad *)buf;
	uint8_t *mad = buf + sizeof(*hdr);

	memset(buf, 0, sizeof(*hdr) + MAD_SIZE);
	hdr->agent_id = agent;
	hdr->timeout_ms = REPLY_WAIT_MS / 5;
	hdr->retries = 3;
	hdr->length = sizeof(*hdr) + MAD_SIZE;
	hdr->addr.qpn = htonl(QP0_SMI);
	hdr->addr.lid = htons(LID_PERMISSIVE);
	hdr->addr.pkey_index = 0;
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	mad[MAD_OFF_CLASS_VERSION] = SMP_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be32(mad + MAD_OFF_TID_LOW, PROBE_TID_LOW);
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_NODE_INFO);
	mad[SMP_OFF_HOP_PTR] = 0;
	mad[SMP_OFF_HOP_CNT] = 0;
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
}

static int check_reply(const uint8_t *buf, long n, uint32_t agent)
{
	const struct ib_user_mad *hdr = (const struct ib_user_mad *)buf;
	const uint8_t *mad = buf + sizeof(*hdr), *ni = mad + SMP_OFF_DATA;

	if (n != (long)(sizeof(*hdr) + MAD_SIZE)) {
		fprintf(stderr, "kernel_static_probe: read %ld bytes, expected %zu\n", n,
			sizeof(*hdr) + MAD_SIZE);
		return 1;
	}
	if (hdr->status || hdr->agent_id != agent || mad[MAD_OFF_METHOD] != UMAD_METHOD_GET_RESP ||
	    get_be32(mad + MAD_OFF_TID_LOW) != PROBE_TID_LOW ||
	    get_be16(mad + MAD_OFF_ATTR_ID) != UMAD_SM_ATTR_NODE_INFO) {
		fprintf(stderr, "kernel_static_probe: not the answer: status %" PRIu32 " agent %" PRIu32
			" method 0x%02x tid 0x%016" PRIx64 " attribute 0x%04x\n", hdr->status,
			hdr->agent_id, mad[MAD_OFF_METHOD], get_be64(mad + MAD_OFF_TID),
			get_be16(mad + MAD_OFF_ATTR_ID));
		return 1;
	}
	printf("NodeGUID 0x%016" PRIx64 " PortGUID 0x%016" PRIx64 " NodeType %" PRIu64 "\n",
	       mad_get(ni, NI_NODE_GUID), mad_get(ni, NI_PORT_GUID), mad_get(ni, NI_NODE_TYPE));
	printf("tid sent 0x%016" PRIx64 " received 0x%016" PRIx64 "\n", (uint64_t)PROBE_TID_LOW,
	       get_be64(mad + MAD_OFF_TID));
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/infiniband/umad0";
	const char *abi = argc > 2 ? argv[2] : IB_UMAD_ABI_DIR "/" IB_UMAD_ABI_FILE;
	struct ib_user_mad_reg_req2 req;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct timespec wait = { REPLY_WAIT_MS / 1000, REPLY_WAIT_MS % 1000 * 1000000L };
	struct pollfd pfd;
	uint32_t agent;
	long n;
	int fd, r;

	if (read_abi_version(abi))
		return 1;
	fd = sys_open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(dev);
	if (syscall(SYS_ioctl, fd, IB_USER_MAD_ENABLE_PKEY) < 0)
		return fail("IB_USER_MAD_ENABLE_PKEY");
	memset(&req, 0, sizeof(req));
	req.qpn = QP0_SMI;
	req.mgmt_class = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	req.mgmt_class_version = SMP_CLASS_VERSION;
	if (syscall(SYS_ioctl, fd, IB_USER_MAD_REGISTER_AGENT2, &req) < 0)
		return fail("IB_USER_MAD_REGISTER_AGENT2");
	agent = req.id;
	printf("agent %" PRIu32 "\n", agent);
	build_request(buf, agent);
	n = syscall(SYS_write, fd, buf, sizeof(buf));
	if (n != (long)sizeof(buf))
		return fail("write");
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	r = (int)syscall(SYS_ppoll, &pfd, 1, &wait, NULL, 0);
	if (r <= 0) {
		if (r == 0)
			errno = ETIMEDOUT;
		return fail("poll");
	}
	n = syscall(SYS_read, fd, buf, sizeof(buf));
	if (n < 0)
		return fail("read");
	r = check_reply(buf, n, agent);
	if (syscall(SYS_ioctl, fd, IB_USER_MAD_UNREGISTER_AGENT, &agent) < 0)
		r = fail("IB_USER_MAD_UNREGISTER_AGENT");
	syscall(SYS_close, fd);
	return r;
}
