/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * This library's kernel backend on `umad kernel`'s files: tests/kernel_dev.sh
 * serves a host at MOUNT and runs, with UMAD_BACKEND=kernel,
 * UMAD_SYSFS_ROOT=MOUNT/sys and UMAD_DEV_DIR=MOUNT/dev/infiniband,
 *
 *   kernel_dev_lib MOUNT NODES
 *
 * which goes through the calls a diag or an SM makes: the devices and the
 * port from sysfs, umad_open_port (the new header layout: the files take
 * ENABLE_PKEY), registrations, a DR SMP, an SA table through umad_recv's
 * ENOSPC protocol, a request that times out, umad_poll, the issm path.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>

#include "backends/sysfs_layout.h"
#include "base/mad_layout.h"
#include "base/mad_wire.h"
#include "tests/kernel_dev_util.h"

#define LID_NOBODY	0x0bad
#define ANSWER_MS	5000

static struct kd_host host;
static unsigned n_nodes;

static void case_sysfs(void)
{
	char names[4][UMAD_CA_NAME_LEN];
	umad_port_t port;
	int before = kd_failures;

	CHECK_EQ(umad_get_cas_names(names, 4), 1);
	CHECK(!strcmp(names[0], host.ca), "CA %s, expected %s", names[0], host.ca);
	memset(&port, 0, sizeof(port));
	CHECK_EQ(umad_get_port(host.ca, host.port, &port), 0);
	CHECK_EQ(port.base_lid, host.lid);
	CHECK_EQ(port.sm_lid, host.sm_lid);
	CHECK_EQ(port.state, 4);
	CHECK_EQ(be32toh(port.capmask), kd_port_value(&host, SYS_PORT_CAPMASK));
	umad_release_port(&port);
	kd_case_done("library: the device and its port as the mount's sysfs shows them", before);
}

/* One MAD's send and its answer, in umad buffers of this library's layout. */
static void case_smp(int fd)
{
	void *umad = calloc(1, umad_size() + MAD_SIZE);
	uint8_t *mad = umad_get_mad(umad);
	int before = kd_failures, agent, length = MAD_SIZE;

	agent = umad_register(fd, UMAD_CLASS_SUBN_DIRECTED_ROUTE, SMP_CLASS_VERSION, 0, NULL);
	CHECK(agent >= 0, "umad_register: %d", agent);
	kd_dr_smp_get(mad, UMAD_SM_ATTR_NODE_INFO, 0, 0x1000);
	umad_set_addr(umad, LID_PERMISSIVE, QP0_SMI, 0, 0);
	CHECK_EQ(umad_send(fd, agent, umad, MAD_SIZE, 1000, 0), 0);
	CHECK_EQ(umad_recv(fd, umad, &length, ANSWER_MS), agent);
	CHECK_EQ(length, MAD_SIZE);
	CHECK_EQ(umad_status(umad), 0);
	CHECK_EQ(mad_method(mad), UMAD_METHOD_GET_RESP);
	CHECK_EQ(kd_tid_low(mad), 0x1000);
	CHECK_EQ(mad_get(mad + SMP_OFF_DATA, NI_NODE_GUID), host.node_guid);
	length = MAD_SIZE;
	CHECK_NEG(umad_recv(fd, umad, &length, 0), EAGAIN);
	CHECK_NEG(umad_poll(fd, 100), ETIMEDOUT);
	CHECK_NEG(umad_recv(fd, umad, &length, 100), ETIMEDOUT);
	CHECK_EQ(umad_unregister(fd, agent), 0);
	free(umad);
	kd_case_done("library: a DR SMP's round trip; umad_recv and umad_poll with nothing", before);
}

/* umad_recv's RMPP protocol: ENOSPC with the length needed, then the whole message. */
static void case_rmpp(int fd)
{
	void *umad = calloc(1, umad_size() + MAD_SIZE), *big;
	int before = kd_failures, agent, length = MAD_SIZE;

	agent = umad_register(fd, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_RMPP_VERSION,
			      NULL);
	CHECK(agent >= 0, "umad_register: %d", agent);
	kd_sa_node_table(umad_get_mad(umad), 0x1100);
	umad_set_addr(umad, (int)host.sm_lid, QP1_GSI, (int)host.sm_sl, UMAD_QKEY);
	CHECK_EQ(umad_send(fd, agent, umad, MAD_SIZE, 1000, 2), 0);
	CHECK_NEG(umad_recv(fd, umad, &length, ANSWER_MS), ENOSPC);
	CHECK(length > (int)MAD_SIZE && length < (1 << 16), "length %d", length);
	if (length > (int)MAD_SIZE && length < (1 << 16)) {
		big = calloc(1, umad_size() + (size_t)length);
		CHECK_EQ(umad_recv(fd, big, &length, ANSWER_MS), agent);
		CHECK_EQ(kd_tid_low(umad_get_mad(big)), 0x1100);
		kd_check_node_table(umad_get_mad(big), (size_t)length, n_nodes, host.node_guid);
		free(big);
	}
	CHECK_EQ(umad_unregister(fd, agent), 0);
	free(umad);
	kd_case_done("library: an SA table through umad_recv's ENOSPC", before);
}

static void case_timeout(int fd)
{
	void *umad = calloc(1, umad_size() + MAD_SIZE);
	int before = kd_failures, agent, length = MAD_SIZE;

	agent = umad_register(fd, UMAD_CLASS_SUBN_LID_ROUTED, SMP_CLASS_VERSION, 0, NULL);
	kd_lid_smp_get(umad_get_mad(umad), 0x1200);
	umad_set_addr(umad, LID_NOBODY, QP0_SMI, 0, 0);
	CHECK_EQ(umad_send(fd, agent, umad, MAD_SIZE, 100, 1), 0);
	CHECK_EQ(umad_recv(fd, umad, &length, ANSWER_MS), agent);
	CHECK_EQ(umad_status(umad), ETIMEDOUT);
	CHECK_EQ(length, MAD_HDR_SIZE);
	CHECK_EQ(kd_tid_low(umad_get_mad(umad)), 0x1200);
	CHECK_EQ(umad_unregister(fd, agent), 0);
	free(umad);
	kd_case_done("library: a request to nobody comes back with status ETIMEDOUT", before);
}

/* umad_register2 and umad_unregister's conventions: 0 and a positive errno; -1 with errno. */
static void case_register2(int fd)
{
	struct umad_reg_attr attr = {
		.mgmt_class = UMAD_CLASS_VENDOR_RANGE1_START, .mgmt_class_version = 1,
		.method_mask = { UINT64_C(1) << UMAD_METHOD_GET, 0 },
	};
	uint32_t id = UINT32_MAX;
	int before = kd_failures;

	CHECK_EQ(umad_register2(fd, &attr, &id), 0);
	CHECK(id < 32, "agent id %u", id);
	CHECK_EQ(umad_unregister(fd, (int)id), 0);
	CHECK_ERRNO(umad_unregister(fd, (int)id), EINVAL);
	kd_case_done("library: umad_register2 and umad_unregister", before);
}

static void case_issm_path(void)
{
	char path[PATH_MAX], want[PATH_MAX];
	int before = kd_failures;

	kd_dev_path(&host, SYSFS_ISSM_NAME, 0, want, sizeof(want));
	CHECK_EQ(umad_get_issm_path(host.ca, host.port, path, sizeof(path)), 0);
	CHECK(!strcmp(path, want), "issm path %s, expected %s", path, want);
	CHECK_EQ(access(path, R_OK | W_OK), 0);
	kd_case_done("library: umad_get_issm_path names the mount's issm0", before);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: %s MOUNT NODES\n", argv[0]);
		return 2;
	}
	if (kd_host_load(&host, argv[1]) < 0)
		return 1;
	n_nodes = (unsigned)atoi(argv[2]);
	CHECK_EQ(umad_init(), 0);
	case_sysfs();
	fd = umad_open_port(host.ca, host.port);
	CHECK(fd >= 0, "umad_open_port(%s, %d): %d", host.ca, host.port, fd);
	/* The files take ENABLE_PKEY: the library speaks the new layout. */
	CHECK_EQ(umad_size(), sizeof(struct ib_user_mad));
	if (fd >= 0) {
		case_smp(fd);
		case_rmpp(fd);
		case_timeout(fd);
		case_register2(fd);
		CHECK_EQ(umad_close_port(fd), 0);
	}
	case_issm_path();
	CHECK_EQ(umad_done(), 0);
	if (kd_failures)
		fprintf(stderr, "%d check(s) failed\n", kd_failures);
	return kd_failures ? 1 : 0;
}
