/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/sysfs_layout.h"
#include "backends/sysfs_values.h"
#include "base/link_speed.h"

const char *const sysfs_ca_files[] = {
	SYS_NODE_TYPE, SYS_CA_NODE_GUID, SYS_CA_SYS_GUID, SYS_CA_FW_VERS, SYS_CA_HW_VERS,
	SYS_CA_TYPE, NULL
};

const char *const sysfs_port_files[] = {
	SYS_PORT_LID, SYS_PORT_LMC, SYS_PORT_SMLID, SYS_PORT_SMSL, SYS_PORT_STATE,
	SYS_PORT_PHY_STATE, SYS_PORT_CAPMASK, SYS_PORT_GID, SYS_PORT_LINK_LAYER, NULL
};

static int __attribute__((format(printf, 3, 4)))
text(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

/* "0002:c903:0001:0002", as the kernel prints GUIDs (the argument in network order). */
static int guid_text(__be64 guid_be, char *buf, size_t size)
{
	uint64_t g = be64toh(guid_be);

	return text(buf, size, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		    (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff,
		    (unsigned)g & 0xffff);
}

static const char *state_name(unsigned state)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
					     "ACTIVE_DEFER" };

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "UNKNOWN";
}

static const char *phys_state_name(unsigned phys)
{
	static const char *const names[] = { "<unknown>", "Sleep", "Polling", "Disabled",
					     "PortConfigurationTraining", "LinkUp",
					     "LinkErrorRecovery", "Phy Test" };

	return phys < sizeof(names) / sizeof(names[0]) ? names[phys] : "<unknown>";
}

/* The kernel's node_type: the number, then the name it knows it by. */
static const char *node_type_name(unsigned type)
{
	static const char *const names[] = { "<unknown>", "CA", "switch", "router", "RNIC",
					     "usNIC", "usNIC UDP", "unspecified" };

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "<unknown>";
}

int sysfs_line_text(const char *value, char *buf, size_t size)
{
	return text(buf, size, "%s\n", value);
}

int sysfs_ca_text(const char *file, const umad_ca_t *ca, char *buf, size_t size)
{
	char guid[24];

	if (!strcmp(file, SYS_NODE_TYPE))
		return text(buf, size, "%u: %s\n", (unsigned)ca->node_type,
			    node_type_name((unsigned)ca->node_type));
	if (!strcmp(file, SYS_CA_NODE_GUID) || !strcmp(file, SYS_CA_SYS_GUID)) {
		guid_text(!strcmp(file, SYS_CA_NODE_GUID) ? ca->node_guid : ca->system_guid, guid,
			  sizeof(guid));
		return sysfs_line_text(guid, buf, size);
	}
	if (!strcmp(file, SYS_CA_FW_VERS))
		return sysfs_line_text(ca->fw_ver, buf, size);
	if (!strcmp(file, SYS_CA_HW_VERS))
		return sysfs_line_text(ca->hw_ver, buf, size);
	if (!strcmp(file, SYS_CA_TYPE))
		return sysfs_line_text(ca->ca_type, buf, size);
	return -ENOENT;
}

int sysfs_port_text(const char *file, const umad_port_t *p, char *buf, size_t size)
{
	char prefix[24], guid[24];

	if (!strcmp(file, SYS_PORT_LID))
		return text(buf, size, "0x%x\n", p->base_lid);
	if (!strcmp(file, SYS_PORT_LMC))
		return text(buf, size, "%u\n", p->lmc);
	if (!strcmp(file, SYS_PORT_SMLID))
		return text(buf, size, "0x%x\n", p->sm_lid);
	if (!strcmp(file, SYS_PORT_SMSL))
		return text(buf, size, "%u\n", p->sm_sl);
	if (!strcmp(file, SYS_PORT_STATE))
		return text(buf, size, "%u: %s\n", p->state, state_name(p->state));
	if (!strcmp(file, SYS_PORT_PHY_STATE))
		return text(buf, size, "%u: %s\n", p->phys_state, phys_state_name(p->phys_state));
	if (!strcmp(file, SYS_PORT_CAPMASK))
		return text(buf, size, "0x%08x\n", be32toh(p->capmask));
	if (!strcmp(file, SYS_PORT_GID)) {
		guid_text(p->gid_prefix, prefix, sizeof(prefix));
		guid_text(p->port_guid, guid, sizeof(guid));
		return text(buf, size, "%s:%s\n", prefix, guid);
	}
	if (!strcmp(file, SYS_PORT_LINK_LAYER))
		return p->link_layer[0] ? sysfs_line_text(p->link_layer, buf, size) : -ENOENT;
	return -ENOENT;
}

int sysfs_pkey_text(const umad_port_t *p, unsigned index, char *buf, size_t size)
{
	if (!p->pkeys || index >= p->pkeys_size)
		return -ENOENT;
	return text(buf, size, "0x%04x\n", p->pkeys[index]);
}

int sysfs_rate_text(unsigned width_active, unsigned speed_active, unsigned speed_ext_active,
		    unsigned mlnx_speed_active, char *buf, size_t size)
{
	unsigned lanes = link_width_lanes(width_active);
	unsigned rate = link_lane_rate_x10(speed_active, speed_ext_active) * lanes;
	const char *name = link_speed_name(speed_active, speed_ext_active, mlnx_speed_active);

	return text(buf, size, "%u%s Gb/sec (%uX %s)\n", rate / 10, rate % 10 ? ".5" : "", lanes,
		    name);
}
