/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Writing fake sysfs trees (see sysfs_writer.h). */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/sysfs_writer.h"

/* DIR, or DIR/FILE when there is a file. */
static int join(char *path, size_t size, const char *dir, const char *file)
{
	return file ? sysfs_path(path, size, "%s/%s", dir, file)
		    : sysfs_path(path, size, "%s", dir);
}

int sysfs_ca_path(char *path, size_t size, const char *root, const char *ca, const char *file)
{
	char dir[PATH_MAX];
	int r = ca ? sysfs_path(dir, sizeof(dir), "%s/" SYSFS_DIR "/" SYSFS_CLASS_DIR "/%s", root,
				 ca)
		   : sysfs_path(dir, sizeof(dir), "%s/" SYSFS_DIR "/" SYSFS_CLASS_DIR, root);

	return r ? r : join(path, size, dir, file);
}

int sysfs_port_path(char *path, size_t size, const char *root, const char *ca, int port,
		    const char *file)
{
	char dir[PATH_MAX], ports[PATH_MAX];
	int r = sysfs_ca_path(ports, sizeof(ports), root, ca, SYS_CA_PORTS_DIR);

	if (!r)
		r = sysfs_path(dir, sizeof(dir), "%s/%d", ports, port);
	return r ? r : join(path, size, dir, file);
}

int sysfs_mad_path(char *path, size_t size, const char *root, const char *file)
{
	char dir[PATH_MAX];
	int r = sysfs_path(dir, sizeof(dir), "%s/" SYSFS_DIR "/" SYSFS_MAD_CLASS_DIR, root);

	return r ? r : join(path, size, dir, file);
}

int sysfs_dev_path(char *path, size_t size, const char *root, const char *file)
{
	char dir[PATH_MAX];
	int r = sysfs_path(dir, sizeof(dir), "%s/" SYSFS_DEV_DIR, root);

	return r ? r : join(path, size, dir, file);
}

int sysfs_mkdirs(const char *path)
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

/* The directory part of path, made. */
static int make_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return sysfs_mkdirs(dir);
}

/* A temporary file renamed over the old one; the directory is made only when missing. */
int sysfs_put(const char *path, const char *value)
{
	char tmp[PATH_MAX + 8];
	size_t n = strlen(value);
	int fd, r;

	r = sysfs_path(tmp, sizeof(tmp), "%s.tmp", path);
	if (r)
		return r;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {
		r = make_parent(path);
		if (r)
			return r;
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return -errno;
	if (write(fd, value, n) != (ssize_t)n)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

/* printf into a value, then sysfs_put() it as DIR/NAME. */
static int __attribute__((format(printf, 3, 4)))
put(const char *dir, const char *name, const char *fmt, ...)
{
	char path[PATH_MAX], value[256];
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(value))
		return -EINVAL;
	r = join(path, sizeof(path), dir, name);
	return r ? r : sysfs_put(path, value);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int sysfs_remove(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	errno = 0;
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return errno ? -errno : -EIO;
	return 0;
}

int sysfs_touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
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

/* The kernel's node_type: the number, then the name it knows it by. */
static const char *node_type_name(unsigned type)
{
	static const char *const names[] = { "<unknown>", "CA", "switch", "router", "RNIC",
					     "usNIC", "usNIC UDP", "unspecified" };

	return type < 8 ? names[type] : "<unknown>";
}

int sysfs_write_abi_version(const char *root, unsigned version)
{
	char dir[PATH_MAX];
	int r = sysfs_mad_path(dir, sizeof(dir), root, NULL);

	return r ? r : put(dir, IB_UMAD_ABI_FILE, "%u\n", version);
}

int sysfs_write_ca_files(const char *root, const char *name, const umad_ca_t *ca,
			 const char *board_id, const char *node_desc)
{
	char dir[PATH_MAX], ports[PATH_MAX], guid[32], sys_guid[32];
	int r;

	guid_text(ca->node_guid, guid, sizeof(guid));
	guid_text(ca->system_guid, sys_guid, sizeof(sys_guid));
	if ((r = sysfs_ca_path(dir, sizeof(dir), root, name, NULL)) ||
	    (r = sysfs_ca_path(ports, sizeof(ports), root, name, SYS_CA_PORTS_DIR)) ||
	    (r = sysfs_mkdirs(ports)) ||
	    (r = put(dir, SYS_NODE_TYPE, "%u: %s\n", (unsigned)ca->node_type,
		     node_type_name((unsigned)ca->node_type))) ||
	    (r = put(dir, SYS_CA_NODE_GUID, "%s\n", guid)) ||
	    (r = put(dir, SYS_CA_SYS_GUID, "%s\n", sys_guid)) ||
	    (r = put(dir, SYS_CA_FW_VERS, "%s\n", ca->fw_ver)) ||
	    (r = put(dir, SYS_CA_HW_VERS, "%s\n", ca->hw_ver)) ||
	    (r = put(dir, SYS_CA_TYPE, "%s\n", ca->ca_type)))
		return r;
	if (board_id && (r = put(dir, SYSFS_CA_BOARD_ID, "%s\n", board_id)))
		return r;
	if (node_desc && (r = put(dir, SYSFS_CA_NODE_DESC, "%s\n", node_desc)))
		return r;
	return 0;
}

int sysfs_write_port(const char *root, const char *ca_name, const umad_port_t *p,
		     const char *rate_text)
{
	char dir[PATH_MAX], sub[PATH_MAX + 16], prefix[32], guid[32], name[32];
	int r, i;

	if ((r = sysfs_port_path(dir, sizeof(dir), root, ca_name, p->portnum, NULL)) ||
	    (r = join(sub, sizeof(sub), dir, SYSFS_GIDS_DIR)) || (r = sysfs_mkdirs(sub)) ||
	    (r = join(sub, sizeof(sub), dir, SYSFS_PKEYS_DIR)) || (r = sysfs_mkdirs(sub)))
		return r;
	guid_text(p->gid_prefix, prefix, sizeof(prefix));
	guid_text(p->port_guid, guid, sizeof(guid));
	if ((r = put(dir, SYS_PORT_LID, "0x%x\n", p->base_lid)) ||
	    (r = put(dir, SYS_PORT_LMC, "%u\n", p->lmc)) ||
	    (r = put(dir, SYS_PORT_SMLID, "0x%x\n", p->sm_lid)) ||
	    (r = put(dir, SYS_PORT_SMSL, "%u\n", p->sm_sl)) ||
	    (r = put(dir, SYS_PORT_STATE, "%u: %s\n", p->state, state_name(p->state))) ||
	    (r = put(dir, SYS_PORT_PHY_STATE, "%u: %s\n", p->phys_state,
		     phys_state_name(p->phys_state))) ||
	    (r = put(dir, SYS_PORT_RATE, "%s\n", rate_text)) ||
	    (r = put(dir, SYS_PORT_CAPMASK, "0x%08x\n", be32toh(p->capmask))) ||
	    (r = put(dir, SYS_PORT_GID, "%s:%s\n", prefix, guid)))
		return r;
	if (p->link_layer[0] && (r = put(dir, SYS_PORT_LINK_LAYER, "%s\n", p->link_layer)))
		return r;
	for (i = 0; i < (int)p->pkeys_size; i++) {
		r = sysfs_path(name, sizeof(name), SYSFS_PKEY_FILE, i);
		if (!r)
			r = put(dir, name, "0x%04x\n", p->pkeys[i]);
		if (r)
			return r;
	}
	return 0;
}

int sysfs_write_umad(const char *root, int id, const char *ca_name, int port)
{
	static const char *const kinds[] = { SYSFS_UMAD_NAME, SYSFS_ISSM_NAME };
	char name[32], dir[PATH_MAX], node[PATH_MAX];
	size_t i;
	int r;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if ((r = sysfs_path(name, sizeof(name), kinds[i], id)) ||
		    (r = sysfs_mad_path(dir, sizeof(dir), root, name)) ||
		    (r = put(dir, SYS_IB_MAD_DEV, "%s\n", ca_name)) ||
		    (r = put(dir, SYS_IB_MAD_PORT, "%d\n", port)) ||
		    (r = sysfs_dev_path(node, sizeof(node), root, name)) ||
		    (r = make_parent(node)) || (r = sysfs_touch(node)))
			return r;
	}
	return 0;
}

int sysfs_write_ca(const char *root, const umad_ca_t *ca, const char *node_desc,
		       const int *umad_ids, const char *const *rate_texts, char *err, size_t errlen)
{
	int r, i;

	r = sysfs_write_ca_files(root, ca->ca_name, ca, "LIBUMAD_SIM", node_desc);
	if (!r)
		r = sysfs_write_abi_version(root, IB_UMAD_ABI_VERSION);
	for (i = 0; !r && i < UMAD_CA_MAX_PORTS; i++) {
		if (!ca->ports[i])
			continue;
		r = sysfs_write_port(root, ca->ca_name, ca->ports[i], rate_texts[i]);
		if (!r)
			r = sysfs_write_umad(root, umad_ids[i], ca->ca_name, i);
	}
	if (r)
		snprintf(err, errlen, "cannot write the fake sysfs under %s: %s", root, strerror(-r));
	return r;
}
