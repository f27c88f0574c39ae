/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fake sysfs writer for test scripts: one part of a host per run, under
 * ROOT ("/" in a private mount namespace, or a directory).
 *
 *   sysfs_tree ROOT abi VERSION
 *   sysfs_tree ROOT class                     the device class, empty
 *   sysfs_tree ROOT ca NAME NODE_TYPE GUID    every file rdma-core reads, and board_id
 *   sysfs_tree ROOT port CA N STATE PHYS_STATE LINK_LAYER PORT_GUID CAP_MASK LID NPKEYS RATE
 *   sysfs_tree ROOT umad ID CA PORT           umadID and issmID
 *   sysfs_tree ROOT put ca NAME FILE VALUE | put port CA N FILE VALUE
 *   sysfs_tree ROOT rm ca NAME FILE | rm port CA N FILE | rm mad FILE | rm dev FILE
 *
 * Numbers are C numbers ("4", "0x1a"); GUIDs are written as the kernel
 * prints them ("0002:c903:0001:0002").  An empty LINK_LAYER leaves the file
 * out; NPKEYS P_Keys are 0xffff, 0x8001, then zeros.  put writes VALUE and
 * a newline, as the kernel ends its values: the odd contents a test is
 * about; rm fails on what is not there.  Exit status 0, or 1 with a message.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/sysfs_writer.h"

static const char *prog;

static int usage(void)
{
	fprintf(stderr, "usage: %s ROOT abi|class|ca|port|umad|put|rm ARGS... (see sysfs_tree.c)\n",
		prog);
	return 2;
}

static int number(const char *text, unsigned long *value)
{
	char *end;

	errno = 0;
	*value = strtoul(text, &end, 0);
	return errno || !*text || *end ? -EINVAL : 0;
}

/* "0002:c903:0001:0002": four groups of up to four hex digits. */
static int guid(const char *text, __be64 *value)
{
	unsigned a, b, c, d;
	int n = -1;

	if (sscanf(text, "%4x:%4x:%4x:%4x%n", &a, &b, &c, &d, &n) != 4 || text[n])
		return -EINVAL;
	*value = htobe64((uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d);
	return 0;
}

static int write_ca(const char *root, char **arg)
{
	umad_ca_t ca = { .fw_ver = "16.35.2000", .hw_ver = "0x0", .ca_type = "MT4123" };
	unsigned long type;

	if (number(arg[1], &type) || guid(arg[2], &ca.node_guid))
		return -EINVAL;
	ca.node_type = (unsigned)type;
	ca.system_guid = ca.node_guid;
	return sysfs_write_ca_files(root, arg[0], &ca, "MT_0000000223", NULL);
}

static int write_port(const char *root, char **arg)
{
	uint16_t pkeys[32] = { 0xffff, 0x8001 };
	unsigned long num, state, phys, cap, lid, npkeys;
	umad_port_t p = { .sm_lid = 1, .gid_prefix = htobe64(0xfe80000000000000ULL), .pkeys = pkeys };

	if (number(arg[1], &num) || number(arg[2], &state) || number(arg[3], &phys) ||
	    guid(arg[5], &p.port_guid) || number(arg[6], &cap) || number(arg[7], &lid) ||
	    number(arg[8], &npkeys) || npkeys > sizeof(pkeys) / sizeof(pkeys[0]) ||
	    strlen(arg[4]) >= sizeof(p.link_layer))
		return -EINVAL;
	p.portnum = (int)num;
	p.state = (unsigned)state;
	p.phys_state = (unsigned)phys;
	p.capmask = htobe32((uint32_t)cap);
	p.base_lid = (unsigned)lid;
	p.pkeys_size = (unsigned)npkeys;
	strcpy(p.link_layer, arg[4]);
	return sysfs_write_port(root, arg[0], &p, arg[9]);
}

static int write_umad(const char *root, char **arg)
{
	unsigned long id, port;

	if (number(arg[0], &id) || number(arg[2], &port))
		return -EINVAL;
	return sysfs_write_umad(root, (int)id, arg[1], (int)port);
}

/*
 * The path of "ca NAME FILE", "port CA N FILE", "mad FILE" or "dev FILE";
 * *used is how many arguments it took.
 */
static int locate(char *path, size_t size, const char *root, char **arg, int argc, int *used)
{
	unsigned long n;

	if (argc >= 3 && !strcmp(arg[0], "ca")) {
		*used = 3;
		return sysfs_ca_path(path, size, root, arg[1], arg[2]);
	}
	if (argc >= 4 && !strcmp(arg[0], "port") && !number(arg[2], &n)) {
		*used = 4;
		return sysfs_port_path(path, size, root, arg[1], (int)n, arg[3]);
	}
	if (argc >= 2 && !strcmp(arg[0], "mad")) {
		*used = 2;
		return sysfs_mad_path(path, size, root, arg[1]);
	}
	if (argc >= 2 && !strcmp(arg[0], "dev")) {
		*used = 2;
		return sysfs_dev_path(path, size, root, arg[1]);
	}
	return -EINVAL;
}

static int put(const char *root, char **arg, int argc)
{
	char path[PATH_MAX], value[4096];
	int used, r = locate(path, sizeof(path), NULL, arg, argc, &used);

	if (r)
		return r;
	if (argc != used + 1 ||
	    snprintf(value, sizeof(value), "%s\n", arg[used]) >= (int)sizeof(value))
		return -EINVAL;
	return sysfs_put(root, path, value);
}

static int rm(const char *root, char **arg, int argc)
{
	char path[PATH_MAX], rel[PATH_MAX];
	int used, r = locate(path, sizeof(path), root, arg, argc, &used);

	if (!r)
		r = locate(rel, sizeof(rel), NULL, arg, argc, &used);
	if (r)
		return r;
	if (argc != used)
		return -EINVAL;
	/* What a test removes must have been there, or it tests nothing. */
	return access(path, F_OK) < 0 ? -errno : sysfs_remove(root, rel);
}

int main(int argc, char **argv)
{
	char root[PATH_MAX], dir[PATH_MAX];
	const char *cmd;
	char **arg;
	int n, r;

	prog = argv[0];
	if (argc < 3)
		return usage();
	/* "/" is the host itself: the tree's paths start with "/sys". */
	snprintf(root, sizeof(root), "%s", strcmp(argv[1], "/") ? argv[1] : "");
	cmd = argv[2];
	arg = argv + 3;
	n = argc - 3;
	if (!strcmp(cmd, "abi") && n == 1) {
		unsigned long version;

		r = number(arg[0], &version) ? -EINVAL
					     : sysfs_write_abi_version(root, (unsigned)version);
	} else if (!strcmp(cmd, "class") && n == 0) {
		r = sysfs_ca_path(dir, sizeof(dir), NULL, NULL, NULL);
		if (!r)
			r = sysfs_mkdirs(root, dir);
	} else if (!strcmp(cmd, "ca") && n == 3) {
		r = write_ca(root, arg);
	} else if (!strcmp(cmd, "port") && n == 10) {
		r = write_port(root, arg);
	} else if (!strcmp(cmd, "umad") && n == 3) {
		r = write_umad(root, arg);
	} else if (!strcmp(cmd, "put")) {
		r = put(root, arg, n);
	} else if (!strcmp(cmd, "rm")) {
		r = rm(root, arg, n);
	} else {
		return usage();
	}
	if (r) {
		fprintf(stderr, "%s: %s %s under %s: %s\n", prog, cmd, n ? arg[0] : "", argv[1],
			strerror(-r));
		return 1;
	}
	return 0;
}
