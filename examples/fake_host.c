/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A fake host for the kernel backend, written with the fake sysfs writer in
 * the kernel's file formats: mlx5_0 (two InfiniBand ports: 1 ACTIVE, 2
 * DOWN/Polling) and mlx5_1 (one Ethernet port).
 *
 *   examples/fake_host DIR
 *   UMAD_SYSFS_ROOT=DIR/sys UMAD_DEV_DIR=DIR/dev/infiniband examples/list_ports
 */
#include "config.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "backends/sysfs_writer.h"

struct port {
	const char *ca;
	int num;
	unsigned state, phys_state;
	const char *rate, *link_layer;
	unsigned lid;
	uint64_t guid;
	int umad_id;
};

static int write_ca(const char *root, const char *name, uint64_t guid)
{
	umad_ca_t ca = {
		.node_type = 1,
		.fw_ver = "20.39.1002",
		.hw_ver = "0",
		.ca_type = "MT4123",
		.node_guid = htobe64(guid),
		.system_guid = htobe64(guid),
	};

	return sysfs_write_ca_files(root, name, &ca, "MT_0000000010", NULL);
}

static int write_port(const char *root, const struct port *p)
{
	uint16_t pkeys[] = { 0xffff, 0x0000 };
	umad_port_t port = {
		.portnum = p->num,
		.base_lid = p->lid,
		.sm_lid = 1,
		.state = p->state,
		.phys_state = p->phys_state,
		.capmask = htobe32(0xa651e848),
		.gid_prefix = htobe64(0xfe80000000000000ULL),
		.port_guid = htobe64(p->guid),
		.pkeys_size = 2,
		.pkeys = pkeys,
	};
	int r;

	snprintf(port.link_layer, sizeof(port.link_layer), "%s", p->link_layer);
	r = sysfs_write_port(root, p->ca, &port, p->rate);
	return r ? r : sysfs_write_umad(root, p->umad_id, p->ca, p->num);
}

int main(int argc, char **argv)
{
	static const struct port ports[] = {
		{ "mlx5_0", 1, 4, 5, "100 Gb/sec (4X EDR)", "InfiniBand", 0x2,
		  0x0002c90300010002ULL, 0 },
		{ "mlx5_0", 2, 1, 2, "10 Gb/sec (4X SDR)", "InfiniBand", 0x0,
		  0x0002c90300010003ULL, 1 },
		{ "mlx5_1", 1, 4, 5, "25 Gb/sec (1X EDR)", "Ethernet", 0x0,
		  0x0202c9fffe030002ULL, 2 },
	};
	const char *root;
	size_t i;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	root = argv[1];
	r = sysfs_write_abi_version(root, IB_UMAD_ABI_VERSION);
	if (!r)
		r = write_ca(root, "mlx5_0", 0x0002c90300010001ULL);
	if (!r)
		r = write_ca(root, "mlx5_1", 0x0002c90300020001ULL);
	for (i = 0; !r && i < sizeof(ports) / sizeof(ports[0]); i++)
		r = write_port(root, &ports[i]);
	if (r) {
		fprintf(stderr, "%s: cannot write the fake host under %s: %s\n", argv[0], root,
			strerror(-r));
		return 1;
	}
	return 0;
}
