/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel backend on fake sysfs trees (UMAD_SYSFS_ROOT / UMAD_DEV_DIR):
 * the file parsing rules and rdma-core's CA/port selection rules, through
 * the public API.  Each test builds its own tree in a temporary directory
 * with the writer of fake trees, and breaks it on purpose where it says so.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

#include "backends/sysfs_writer.h"

static char root[PATH_MAX];

/* One file of CA ca, or of its port, written exactly as given: the odd contents a test is about. */
static void put_ca(const char *ca, const char *file, const char *value)
{
	char path[PATH_MAX];

	assert_int_equal(sysfs_ca_path(path, sizeof(path), NULL, ca, file), 0);
	assert_int_equal(sysfs_put(root, path, value), 0);
}

static void put_port(const char *ca, int port, const char *file, const char *value)
{
	char path[PATH_MAX];

	assert_int_equal(sysfs_port_path(path, sizeof(path), NULL, ca, port, file), 0);
	assert_int_equal(sysfs_put(root, path, value), 0);
}

/* A file that a test wants missing; it must have been there. */
static void remove_ca(const char *ca, const char *file)
{
	char path[PATH_MAX];

	assert_int_equal(sysfs_ca_path(path, sizeof(path), root, ca, file), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(sysfs_ca_path(path, sizeof(path), NULL, ca, file), 0);
	assert_int_equal(sysfs_remove(root, path), 0);
}

static void remove_port(const char *ca, int port, const char *file)
{
	char path[PATH_MAX];

	assert_int_equal(sysfs_port_path(path, sizeof(path), root, ca, port, file), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(sysfs_port_path(path, sizeof(path), NULL, ca, port, file), 0);
	assert_int_equal(sysfs_remove(root, path), 0);
}

/* A device with every file rdma-core reads. */
static void add_ca(const char *name, unsigned node_type)
{
	umad_ca_t ca = {
		.node_type = node_type,
		.fw_ver = "16.35.2000",
		.hw_ver = "0x0",
		.ca_type = "MT4123",
		.node_guid = htobe64(0x0002c90300a00001ULL),
		.system_guid = htobe64(0x0002c90300a00001ULL),
	};

	assert_int_equal(sysfs_write_ca_files(root, name, &ca, NULL, NULL), 0);
}

static int next_umad_id;

/*
 * A port (LID 0x1a, P_Keys 0xffff and 0x8001; no link_layer file when
 * link_layer is NULL) and its umadN/issmN; returns the umad id.
 */
static int add_port(const char *ca, int port, unsigned state, unsigned phys,
		    const char *link_layer)
{
	uint16_t pkeys[] = { 0xffff, 0x8001 };
	umad_port_t p = {
		.portnum = port,
		.base_lid = 0x1a,
		.sm_lid = 1,
		.state = state,
		.phys_state = phys,
		.capmask = htobe32(0x2651e848),
		.gid_prefix = htobe64(0xfe80000000000000ULL),
		.port_guid = htobe64(0x0002c90300a00010ULL + (unsigned)port),
		.pkeys_size = 2,
		.pkeys = pkeys,
	};
	int id = next_umad_id++;

	snprintf(p.link_layer, sizeof(p.link_layer), "%s", link_layer ? link_layer : "");
	assert_int_equal(sysfs_write_port(root, ca, &p, "100 Gb/sec (4X EDR)"), 0);
	assert_int_equal(sysfs_write_umad(root, id, ca, port), 0);
	return id;
}

static int setup_tree(void **state)
{
	char path[PATH_MAX + 32];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/umad-test-kernel-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/" SYSFS_DIR, root);
	setenv("UMAD_SYSFS_ROOT", path, 1);
	assert_int_equal(sysfs_dev_path(path, sizeof(path), root, NULL), 0);
	setenv("UMAD_DEV_DIR", path, 1);
	assert_int_equal(sysfs_write_abi_version(root, 5), 0);
	next_umad_id = 0;
	return 0;
}

static int teardown_tree(void **state)
{
	(void)state;
	assert_int_equal(sysfs_remove(root, NULL), 0);
	return 0;
}

/* Which CA and port the default (NULL, 0) or (NULL, port) request picks. */
static void assert_best(const char *ca_in, int port_in, const char *ca, int port)
{
	umad_port_t p;

	assert_int_equal(umad_get_port(ca_in, port_in, &p), 0);
	assert_string_equal(p.ca_name, ca);
	assert_int_equal(p.portnum, port);
	umad_release_port(&p);
}

/* --- file parsing ------------------------------------------------------- */

static void test_parsing(void **state)
{
	umad_ca_t ca;

	(void)state;
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 4, 5, "InfiniBand");
	assert_int_equal(umad_get_ca("mlx5_0", &ca), 0);
	assert_int_equal(ca.node_type, 1);
	assert_int_equal(ca.numports, 1);
	assert_string_equal(ca.fw_ver, "16.35.2000");
	assert_string_equal(ca.ca_type, "MT4123");
	assert_true(be64toh(ca.node_guid) == 0x0002c90300a00001ULL);
	assert_null(ca.ports[0]);
	assert_non_null(ca.ports[1]);
	assert_int_equal(ca.ports[1]->base_lid, 26);		/* "0x1a" */
	assert_int_equal(ca.ports[1]->state, 4);		/* "4: ACTIVE" */
	assert_int_equal(ca.ports[1]->rate, 100);		/* "100 Gb/sec (4X EDR)" */
	assert_int_equal(be32toh(ca.ports[1]->capmask), 0x2651e848);
	assert_true(be64toh(ca.ports[1]->gid_prefix) == 0xfe80000000000000ULL);
	assert_true(be64toh(ca.ports[1]->port_guid) == 0x0002c90300a00011ULL);
	assert_int_equal(ca.ports[1]->pkeys_size, 2);
	assert_int_equal(ca.ports[1]->pkeys[1], 0x8001);	/* host order */
	assert_string_equal(ca.ports[1]->link_layer, "InfiniBand");
	assert_int_equal(umad_release_ca(&ca), 0);
	assert_null(ca.ports[1]);
}

static void test_string_edges(void **state)
{
	char long_type[64];
	umad_ca_t ca;

	(void)state;
	add_ca("mlx5_0", 1);
	put_ca("mlx5_0", SYS_NODE_TYPE, "0x1\n");			/* hex, no name */
	add_port("mlx5_0", 1, 4, 5, NULL);	/* no link_layer: old kernels, "IB" */
	put_port("mlx5_0", 1, SYS_PORT_STATE, "4\n");			/* numbers, no names */
	put_port("mlx5_0", 1, SYS_PORT_PHY_STATE, "5\n");
	/* 40 bytes exactly: the last one is lost to the terminator, as in rdma-core. */
	memset(long_type, 'x', 40);
	long_type[40] = '\0';
	put_ca("mlx5_0", SYS_CA_TYPE, long_type);
	put_ca("mlx5_0", SYS_CA_FW_VERS, "1.2.3");			/* no newline */
	remove_ca("mlx5_0", SYS_CA_HW_VERS);				/* optional */
	assert_int_equal(umad_get_ca("mlx5_0", &ca), 0);
	assert_int_equal(strlen(ca.ca_type), 39);
	assert_string_equal(ca.fw_ver, "1.2.3");
	assert_string_equal(ca.hw_ver, "");
	assert_string_equal(ca.ports[1]->link_layer, "IB");
	umad_release_ca(&ca);

	put_ca("mlx5_0", SYS_CA_NODE_GUID, "zz\n");			/* one group, not four */
	assert_int_equal(umad_get_ca("mlx5_0", &ca), -EINVAL);
	remove_ca("mlx5_0", SYS_CA_NODE_GUID);				/* mandatory */
	assert_int_equal(umad_get_ca("mlx5_0", &ca), -ENOENT);
}

static void test_mandatory_port_files(void **state)
{
	umad_port_t port;
	umad_ca_t ca;

	(void)state;
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 4, 5, "InfiniBand");
	remove_port("mlx5_0", 1, SYS_PORT_RATE);
	assert_int_equal(umad_get_ca("mlx5_0", &ca), -EIO);
	assert_int_equal(umad_get_port("mlx5_0", 1, &port), -EIO);
	/* The name and number are filled in before the reads, as in rdma-core. */
	assert_string_equal(port.ca_name, "mlx5_0");
	assert_int_equal(port.portnum, 1);
	assert_null(port.pkeys);
}

static void test_empty_pkeys(void **state)
{
	umad_port_t port;

	(void)state;
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 4, 5, "InfiniBand");
	remove_port("mlx5_0", 1, SYSFS_PKEYS_DIR "/0");	/* the directory stays, empty */
	remove_port("mlx5_0", 1, SYSFS_PKEYS_DIR "/1");
	assert_int_equal(umad_get_port("mlx5_0", 1, &port), -EIO);
}

static void test_port_ten_is_unusable(void **state)
{
	char names[4][UMAD_CA_NAME_LEN];
	umad_ca_t ca;

	(void)state;
	add_ca("big", 1);
	add_port("big", 1, 4, 5, "InfiniBand");
	add_port("big", 10, 4, 5, "InfiniBand");
	add_ca("small", 1);
	add_port("small", 1, 2, 5, "InfiniBand");
	assert_int_equal(umad_get_ca("big", &ca), -EIO);
	/* Still listed, never chosen. */
	assert_int_equal(umad_get_cas_names(names, 4), 2);
	assert_string_equal(names[0], "big");
	assert_best(NULL, 0, "small", 1);
}

static void test_node_type_filter(void **state)
{
	char names[4][UMAD_CA_NAME_LEN];

	(void)state;
	add_ca("rxe0", 4);
	add_port("rxe0", 1, 4, 5, "Ethernet");
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 1, 2, "InfiniBand");
	assert_int_equal(umad_get_cas_names(names, 4), 1);
	assert_string_equal(names[0], "mlx5_0");
}

/* --- selection rules ---------------------------------------------------- */

static void test_switch_uses_port_zero(void **state)
{
	int fd;

	(void)state;
	add_ca("sw0", 2);
	add_port("sw0", 0, 4, 5, "InfiniBand");
	assert_best(NULL, 0, "sw0", 0);
	assert_best(NULL, 1, "sw0", 0);		/* the port asked for is ignored */
	assert_best("sw0", 0, "sw0", 0);
	fd = umad_open_port(NULL, 1);
	assert_true(fd >= 0);
	umad_close_port(fd);
}

static void test_active_beats_linkup_across_cas(void **state)
{
	(void)state;
	add_ca("a_linkup", 1);
	add_port("a_linkup", 1, 2, 5, "InfiniBand");
	add_ca("b_active", 1);
	add_port("b_active", 1, 4, 5, "InfiniBand");
	add_ca("c_down", 1);
	add_port("c_down", 1, 1, 2, "InfiniBand");
	/* Whatever the directory order, an ACTIVE port wins. */
	assert_best(NULL, 0, "b_active", 1);
}

static void test_port_order_within_ca(void **state)
{
	(void)state;
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 1, 2, "InfiniBand");
	add_port("mlx5_0", 2, 2, 5, "InfiniBand");
	add_port("mlx5_0", 3, 4, 5, "InfiniBand");
	assert_best("mlx5_0", 0, "mlx5_0", 3);		/* ACTIVE first */
	put_port("mlx5_0", 3, SYS_PORT_STATE, "1: DOWN\n");
	assert_best("mlx5_0", 0, "mlx5_0", 2);		/* then LinkUp */
	put_port("mlx5_0", 2, SYS_PORT_PHY_STATE, "3: Disabled\n");
	put_port("mlx5_0", 3, SYS_PORT_PHY_STATE, "3: Disabled\n");
	assert_best("mlx5_0", 0, "mlx5_0", 1);		/* then anything not Disabled */
	put_port("mlx5_0", 1, SYS_PORT_PHY_STATE, "3: Disabled\n");
	{
		umad_port_t p;

		assert_int_equal(umad_get_port("mlx5_0", 0, &p), -ENODEV);
	}
}

static void test_ethernet_ports(void **state)
{
	int fd;

	(void)state;
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 4, 5, "Ethernet");
	add_port("mlx5_0", 2, 1, 2, "InfiniBand");
	/* Pass 1 skips Ethernet; pass 2 does not look at the link layer. */
	assert_best("mlx5_0", 0, "mlx5_0", 1);
	/* An explicit Ethernet port is refused by the check, but a CA+port pair is not checked. */
	fd = umad_open_port("mlx5_0", 1);
	assert_true(fd >= 0);
	umad_close_port(fd);
	put_port("mlx5_0", 2, SYS_PORT_STATE, "4: ACTIVE\n");
	assert_best("mlx5_0", 0, "mlx5_0", 2);
}

static void test_explicit_not_validated(void **state)
{
	char path[64];
	umad_port_t p;

	(void)state;
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 1, 3, "InfiniBand");
	/* (name, port) is used as given: a Disabled port still opens. */
	{
		int fd = umad_open_port("mlx5_0", 1);

		assert_true(fd >= 0);
		umad_close_port(fd);
	}
	assert_int_equal(umad_open_port("mlx5_0", 0), -ENODEV);	/* resolution refuses it */
	assert_int_equal(umad_open_port("mlx5_0", 5), -EINVAL);	/* no umad5 for it */
	assert_int_equal(umad_get_port("nosuch", 1, &p), -EIO);	/* unchecked, then unreadable */
	assert_int_equal(umad_open_port("nosuch", 0), -ENODEV);
	assert_int_equal(umad_get_issm_path("mlx5_0", 1, path, sizeof(path)), 0);
	assert_non_null(strstr(path, "/dev/infiniband/issm0"));
}

static void test_no_devices(void **state)
{
	char names[4][UMAD_CA_NAME_LEN], class_dir[PATH_MAX];
	umad_port_t p;

	(void)state;
	/* No class directory at all: rdma-core's "mthca0", port 1. */
	assert_int_equal(umad_get_cas_names(names, 4), 1);
	assert_string_equal(names[0], "mthca0");
	assert_null(umad_get_ca_device_list());
	assert_int_equal(errno, 0);
	assert_int_equal(umad_open_port(NULL, 0), -ENODEV);
	assert_int_equal(umad_get_port(NULL, 0, &p), -ENODEV);
	/* An empty class directory: no names at all. */
	assert_int_equal(sysfs_ca_path(class_dir, sizeof(class_dir), NULL, NULL, NULL), 0);
	assert_int_equal(sysfs_mkdirs(root, class_dir), 0);
	assert_int_equal(umad_get_cas_names(names, 4), 0);
	assert_int_equal(umad_open_port(NULL, 0), -ENODEV);
	/* Devices, none usable: the "mthca0" port 1 fallback, which has no umad device. */
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 1, 3, "InfiniBand");
	assert_int_equal(umad_open_port(NULL, 0), -EINVAL);
	assert_int_equal(umad_get_port(NULL, 0, &p), -EIO);
}

static void test_open_header_size(void **state)
{
	int fd;

	(void)state;
	add_ca("mlx5_0", 1);
	add_port("mlx5_0", 1, 4, 5, "InfiniBand");
	/* ABI 5 on a file that answers no ioctl: the old 56-byte header. */
	fd = umad_open_port("mlx5_0", 1);
	assert_true(fd >= 0);
	assert_int_equal(umad_size(), 56);
	umad_close_port(fd);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup_tree, teardown_tree)
	const struct CMUnitTest tests[] = {
		T(test_parsing),
		T(test_string_edges),
		T(test_mandatory_port_files),
		T(test_empty_pkeys),
		T(test_port_ten_is_unusable),
		T(test_node_type_filter),
		T(test_switch_uses_port_zero),
		T(test_active_beats_linkup_across_cas),
		T(test_port_order_within_ca),
		T(test_ethernet_ports),
		T(test_explicit_not_validated),
		T(test_no_devices),
		T(test_open_header_size),
	};

	return cmocka_run_group_tests_name("kernel backend", tests, NULL, NULL);
}
