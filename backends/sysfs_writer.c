/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Writing the attached host's fake sysfs tree (see sysfs_writer.h). */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/sysfs_writer.h"

/* snprintf into a path buffer; -ENAMETOOLONG when it does not fit. */
static int __attribute__((format(printf, 3, 4)))
path_printf(char *buf, size_t max, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, max, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= max ? -ENAMETOOLONG : 0;
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *s;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Write dir/name atomically: a temporary file renamed over the old one. */
static int __attribute__((format(printf, 3, 4)))
put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], value[256];
	va_list ap;
	int fd, n, r = 0;

	va_start(ap, fmt);
	n = vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(value))
		return -EINVAL;
	if (path_printf(path, sizeof(path), "%s/%s", dir, name) ||
	    path_printf(tmp, sizeof(tmp), "%s.tmp", path))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, value, (size_t)n) != n)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

int sim_sysfs_touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int touch(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (path_printf(path, sizeof(path), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	return sim_sysfs_touch(path);
}

/* "0002:c903:0001:0002", as the kernel prints GUIDs. */
static void guid_text(__be64 guid_be, char *out, size_t max)
{
	uint64_t g = be64toh(guid_be);

	snprintf(out, max, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
}

static const char *state_name(unsigned state)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
					     "ACTIVE_DEFER" };

	return state < 6 ? names[state] : "UNKNOWN";
}

static const char *phys_state_name(unsigned phys)
{
	static const char *const names[] = { "<unknown>", "Sleep", "Polling", "Disabled",
					     "PortConfigurationTraining", "LinkUp",
					     "LinkErrorRecovery", "Phy Test" };

	return phys < 8 ? names[phys] : "<unknown>";
}

static int write_port(const char *ca_dir, const umad_port_t *p, const char *rate_text, char *err,
		      size_t errlen)
{
	char dir[PATH_MAX], sub[PATH_MAX + 16], prefix[32], guid[32], name[16];
	int r, i;

	if ((r = path_printf(dir, sizeof(dir), "%s/ports/%d", ca_dir, p->portnum)) ||
	    (r = path_printf(sub, sizeof(sub), "%s/gids", dir)) || (r = mkdirs(sub)) ||
	    (r = path_printf(sub, sizeof(sub), "%s/pkeys", dir)) || (r = mkdirs(sub)))
		goto fail;
	guid_text(p->gid_prefix, prefix, sizeof(prefix));
	guid_text(p->port_guid, guid, sizeof(guid));
	if ((r = put(dir, "lid", "0x%x\n", p->base_lid)) ||
	    (r = put(dir, "lid_mask_count", "%u\n", p->lmc)) ||
	    (r = put(dir, "sm_lid", "0x%x\n", p->sm_lid)) ||
	    (r = put(dir, "sm_sl", "%u\n", p->sm_sl)) ||
	    (r = put(dir, "state", "%u: %s\n", p->state, state_name(p->state))) ||
	    (r = put(dir, "phys_state", "%u: %s\n", p->phys_state,
		     phys_state_name(p->phys_state))) ||
	    (r = put(dir, "rate", "%s\n", rate_text)) ||
	    (r = put(dir, "cap_mask", "0x%08x\n", be32toh(p->capmask))) ||
	    (r = put(dir, "link_layer", "%s\n", p->link_layer)) ||
	    (r = put(dir, "gids/0", "%s:%s\n", prefix, guid)))
		goto fail;
	for (i = 0; i < (int)p->pkeys_size; i++) {
		r = path_printf(name, sizeof(name), "pkeys/%d", i);
		if (!r)
			r = put(dir, name, "0x%04x\n", p->pkeys[i]);
		if (r)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot write %s: %s", dir, strerror(-r));
	return r;
}

static const char *node_type_text(unsigned type)
{
	switch (type) {
	case 1: return "1: CA";
	case 2: return "2: switch";
	case 3: return "3: router";
	default: return "0: <unknown>";
	}
}

int sim_sysfs_write_ca(const char *root, const umad_ca_t *ca, const char *node_desc,
		       const int *umad_ids, const char *const *rate_texts, char *err, size_t errlen)
{
	char ca_dir[PATH_MAX], mad_dir[PATH_MAX], dev_dir[PATH_MAX], dir[PATH_MAX + 32];
	char guid[32], name[32];
	int r, i;

	if ((r = path_printf(ca_dir, sizeof(ca_dir), "%s/sys/class/infiniband/%s", root,
			     ca->ca_name)) ||
	    (r = path_printf(mad_dir, sizeof(mad_dir), "%s/sys/class/infiniband_mad", root)) ||
	    (r = path_printf(dev_dir, sizeof(dev_dir), "%s/dev/infiniband", root)) ||
	    (r = mkdirs(ca_dir)) || (r = mkdirs(mad_dir)) || (r = mkdirs(dev_dir))) {
		snprintf(err, errlen, "cannot create %s: %s", root, strerror(-r));
		return r;
	}
	guid_text(ca->node_guid, guid, sizeof(guid));
	if ((r = put(ca_dir, "node_type", "%s\n", node_type_text((unsigned)ca->node_type))) ||
	    (r = put(ca_dir, "node_guid", "%s\n", guid)) ||
	    (r = put(ca_dir, "fw_ver", "%s\n", ca->fw_ver)) ||
	    (r = put(ca_dir, "hw_rev", "%s\n", ca->hw_ver)) ||
	    (r = put(ca_dir, "hca_type", "%s\n", ca->ca_type)) ||
	    (r = put(ca_dir, "board_id", "%s\n", "LIBUMAD_SIM")) ||
	    (r = put(ca_dir, "node_desc", "%s\n", node_desc)))
		goto fail;
	guid_text(ca->system_guid, guid, sizeof(guid));
	if ((r = put(ca_dir, "sys_image_guid", "%s\n", guid)) ||
	    (r = put(mad_dir, "abi_version", "5\n")))
		goto fail;
	for (i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		const umad_port_t *p = ca->ports[i];

		if (!p)
			continue;
		r = write_port(ca_dir, p, rate_texts[i], err, errlen);
		if (r)
			return r;
		if ((r = path_printf(dir, sizeof(dir), "%s/umad%d", mad_dir, umad_ids[i])) ||
		    (r = mkdirs(dir)) || (r = put(dir, "ibdev", "%s\n", ca->ca_name)) ||
		    (r = put(dir, "port", "%d\n", i)))
			goto fail;
		if ((r = path_printf(dir, sizeof(dir), "%s/issm%d", mad_dir, umad_ids[i])) ||
		    (r = mkdirs(dir)) || (r = put(dir, "ibdev", "%s\n", ca->ca_name)) ||
		    (r = put(dir, "port", "%d\n", i)))
			goto fail;
		if ((r = path_printf(name, sizeof(name), "umad%d", umad_ids[i])) ||
		    (r = touch(dev_dir, name)) ||
		    (r = path_printf(name, sizeof(name), "issm%d", umad_ids[i])) ||
		    (r = touch(dev_dir, name)))
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot write the fake sysfs under %s: %s", root, strerror(-r));
	return r;
}
