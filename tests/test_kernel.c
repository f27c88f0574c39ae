/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel backend on fake sysfs trees (UMAD_SYSFS_ROOT / UMAD_DEV_DIR):
 * the file parsing rules and rdma-core's CA/port selection rules, through
 * the public API.  Each test builds its own tree in a temporary directory.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

static char root[PATH_MAX];

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX * 2], dir[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void removef(const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(unlink(path), 0);
}

static void putf(const char *content, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	put(rel, content);
}

/* A device with every file rdma-core reads. */
static void add_ca(const char *name, const char *node_type)
{
	putf(node_type, "sys/class/infiniband/%s/node_type", name);
	putf("16.35.2000\n", "sys/class/infiniband/%s/fw_ver", name);
	putf("0x0\n", "sys/class/infiniband/%s/hw_rev", name);
	putf("MT4123\n", "sys/class/infiniband/%s/hca_type", name);
	putf("0002:c903:00a0:0001\n", "sys/class/infiniband/%s/node_guid", name);
	putf("0002:c903:00a0:0001\n", "sys/class/infiniband/%s/sys_image_guid", name);
}

static int next_umad_id;

/* A port and its umadN/issmN; returns the umad id. */
static int add_port(const char *ca, int port, const char *state, const char *phys,
		    const char *link_layer)
{
	char value[64];
	int id = next_umad_id++;

#define PORTFILE(file, v) putf(v, "sys/class/infiniband/%s/ports/%d/" file, ca, port)
	PORTFILE("state", state);
	PORTFILE("phys_state", phys);
	if (link_layer)
		PORTFILE("link_layer", link_layer);
	PORTFILE("lid", "0x1a\n");
	PORTFILE("lid_mask_count", "0\n");
	PORTFILE("sm_lid", "0x1\n");
	PORTFILE("sm_sl", "0\n");
	PORTFILE("rate", "100 Gb/sec (4X EDR)\n");
	PORTFILE("cap_mask", "0x2651e848\n");
	snprintf(value, sizeof(value), "fe80:0000:0000:0000:0002:c903:00a0:%04x\n", 0x10 + port);
	PORTFILE("gids/0", value);
	PORTFILE("pkeys/0", "0xffff\n");
	PORTFILE("pkeys/1", "0x8001\n");
#undef PORTFILE
	putf(ca, "sys/class/infiniband_mad/umad%d/ibdev", id);
	snprintf(value, sizeof(value), "%d\n", port);
	putf(value, "sys/class/infiniband_mad/umad%d/port", id);
	putf("", "dev/infiniband/umad%d", id);
	putf("", "dev/infiniband/issm%d", id);
	return id;
}

static int setup_tree(void **state)
{
	char path[PATH_MAX + 32];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/umad-test-kernel-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/sys", root);
	setenv("UMAD_SYSFS_ROOT", path, 1);
	snprintf(path, sizeof(path), "%s/dev/infiniband", root);
	setenv("UMAD_DEV_DIR", path, 1);
	put("sys/class/infiniband_mad/abi_version", "5\n");
	next_umad_id = 0;
	return 0;
}

static int teardown_tree(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
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
	add_ca("mlx5_0", "1: CA\n");
	add_port("mlx5_0", 1, "4: ACTIVE\n", "5: LinkUp\n", "InfiniBand\n");
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
	add_ca("mlx5_0", "0x1\n");
	add_port("mlx5_0", 1, "4\n", "5\n", NULL);	/* no link_layer: old kernels, "IB" */
	/* 40 bytes exactly: the last one is lost to the terminator, as in rdma-core. */
	memset(long_type, 'x', 40);
	long_type[40] = '\0';
	put("sys/class/infiniband/mlx5_0/hca_type", long_type);
	put("sys/class/infiniband/mlx5_0/fw_ver", "1.2.3");		/* no newline */
	removef("sys/class/infiniband/mlx5_0/hw_rev");			/* optional */
	assert_int_equal(umad_get_ca("mlx5_0", &ca), 0);
	assert_int_equal(strlen(ca.ca_type), 39);
	assert_string_equal(ca.fw_ver, "1.2.3");
	assert_string_equal(ca.hw_ver, "");
	assert_string_equal(ca.ports[1]->link_layer, "IB");
	umad_release_ca(&ca);

	put("sys/class/infiniband/mlx5_0/node_guid", "zz\n");		/* one group, not four */
	assert_int_equal(umad_get_ca("mlx5_0", &ca), -EINVAL);
	removef("sys/class/infiniband/mlx5_0/node_guid");		/* mandatory */
	assert_int_equal(umad_get_ca("mlx5_0", &ca), -ENOENT);
}

static void test_mandatory_port_files(void **state)
{
	umad_port_t port;
	umad_ca_t ca;

	(void)state;
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "4\n", "5\n", "InfiniBand\n");
	removef("sys/class/infiniband/mlx5_0/ports/1/rate");
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
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "4\n", "5\n", "InfiniBand\n");
	removef("sys/class/infiniband/mlx5_0/ports/1/pkeys/0");
	removef("sys/class/infiniband/mlx5_0/ports/1/pkeys/1");
	assert_int_equal(umad_get_port("mlx5_0", 1, &port), -EIO);
}

static void test_port_ten_is_unusable(void **state)
{
	char names[4][UMAD_CA_NAME_LEN];
	umad_ca_t ca;

	(void)state;
	add_ca("big", "1\n");
	add_port("big", 1, "4\n", "5\n", "InfiniBand\n");
	add_port("big", 10, "4\n", "5\n", "InfiniBand\n");
	add_ca("small", "1\n");
	add_port("small", 1, "2: INIT\n", "5\n", "InfiniBand\n");
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
	add_ca("rxe0", "4: RNIC\n");
	add_port("rxe0", 1, "4\n", "5\n", "Ethernet\n");
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "1: DOWN\n", "2: Polling\n", "InfiniBand\n");
	assert_int_equal(umad_get_cas_names(names, 4), 1);
	assert_string_equal(names[0], "mlx5_0");
}

/* --- selection rules ---------------------------------------------------- */

static void test_switch_uses_port_zero(void **state)
{
	int fd;

	(void)state;
	add_ca("sw0", "2: switch\n");
	add_port("sw0", 0, "4\n", "5\n", "InfiniBand\n");
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
	add_ca("a_linkup", "1\n");
	add_port("a_linkup", 1, "2: INIT\n", "5: LinkUp\n", "InfiniBand\n");
	add_ca("b_active", "1\n");
	add_port("b_active", 1, "4: ACTIVE\n", "5: LinkUp\n", "InfiniBand\n");
	add_ca("c_down", "1\n");
	add_port("c_down", 1, "1: DOWN\n", "2: Polling\n", "InfiniBand\n");
	/* Whatever the directory order, an ACTIVE port wins. */
	assert_best(NULL, 0, "b_active", 1);
}

static void test_port_order_within_ca(void **state)
{
	(void)state;
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "1: DOWN\n", "2: Polling\n", "InfiniBand\n");
	add_port("mlx5_0", 2, "2: INIT\n", "5: LinkUp\n", "InfiniBand\n");
	add_port("mlx5_0", 3, "4: ACTIVE\n", "5: LinkUp\n", "InfiniBand\n");
	assert_best("mlx5_0", 0, "mlx5_0", 3);		/* ACTIVE first */
	removef("sys/class/infiniband/mlx5_0/ports/3/state");
	put("sys/class/infiniband/mlx5_0/ports/3/state", "1: DOWN\n");
	assert_best("mlx5_0", 0, "mlx5_0", 2);		/* then LinkUp */
	put("sys/class/infiniband/mlx5_0/ports/2/phys_state", "3: Disabled\n");
	put("sys/class/infiniband/mlx5_0/ports/3/phys_state", "3: Disabled\n");
	assert_best("mlx5_0", 0, "mlx5_0", 1);		/* then anything not Disabled */
	put("sys/class/infiniband/mlx5_0/ports/1/phys_state", "3: Disabled\n");
	{
		umad_port_t p;

		assert_int_equal(umad_get_port("mlx5_0", 0, &p), -ENODEV);
	}
}

static void test_ethernet_ports(void **state)
{
	int fd;

	(void)state;
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "4: ACTIVE\n", "5: LinkUp\n", "Ethernet\n");
	add_port("mlx5_0", 2, "1: DOWN\n", "2: Polling\n", "InfiniBand\n");
	/* Pass 1 skips Ethernet; pass 2 does not look at the link layer. */
	assert_best("mlx5_0", 0, "mlx5_0", 1);
	/* An explicit Ethernet port is refused by the check, but a CA+port pair is not checked. */
	fd = umad_open_port("mlx5_0", 1);
	assert_true(fd >= 0);
	umad_close_port(fd);
	put("sys/class/infiniband/mlx5_0/ports/2/state", "4: ACTIVE\n");
	assert_best("mlx5_0", 0, "mlx5_0", 2);
}

static void test_explicit_not_validated(void **state)
{
	char path[64];
	umad_port_t p;

	(void)state;
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "1: DOWN\n", "3: Disabled\n", "InfiniBand\n");
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
	char names[4][UMAD_CA_NAME_LEN];
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
	put("sys/class/infiniband/.keep", "");
	removef("sys/class/infiniband/.keep");
	assert_int_equal(umad_get_cas_names(names, 4), 0);
	assert_int_equal(umad_open_port(NULL, 0), -ENODEV);
	/* Devices, none usable: the "mthca0" port 1 fallback, which has no umad device. */
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "1: DOWN\n", "3: Disabled\n", "InfiniBand\n");
	assert_int_equal(umad_open_port(NULL, 0), -EINVAL);
	assert_int_equal(umad_get_port(NULL, 0, &p), -EIO);
}

static void test_open_header_size(void **state)
{
	int fd;

	(void)state;
	add_ca("mlx5_0", "1\n");
	add_port("mlx5_0", 1, "4\n", "5\n", "InfiniBand\n");
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
