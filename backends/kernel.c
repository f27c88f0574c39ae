/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel backend: /sys/class/infiniband{,_mad} and the ib_umad character
 * devices, read and driven as rdma-core's libibumad does.  libc only.
 */
#include "config.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/backend.h"
#include "base/ibwarn.h"
#include "backends/sysfs_reader.h"
#include "base/mad_layout.h"
#include "base/umad_ioctl.h"

#define MIN_ABI_VERSION 5

/* --- sysfs locations ---------------------------------------------------- */

static int class_dir(char *path, size_t size)
{
	return sysfs_path(path, size, "%s/" SYSFS_CLASS_DIR, umad_sysfs_root());
}

static int mad_dir(char *path, size_t size)
{
	return sysfs_path(path, size, "%s/" SYSFS_MAD_CLASS_DIR, umad_sysfs_root());
}

/* --- devices ------------------------------------------------------------ */

static int is_ib_type(const char *classdir, const char *ca_name)
{
	char dir[PATH_MAX];
	unsigned type;

	if (sysfs_path(dir, sizeof(dir), "%s/%s", classdir, ca_name) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_NODE_TYPE, &type) < 0)
		return 0;
	return type >= 1 && type <= 3;	/* CA, switch, router; not RNICs */
}

static int kernel_for_each_ca(umad_ca_visit_fn visit, void *arg)
{
	char classdir[PATH_MAX];
	struct dirent *entry;
	int r = class_dir(classdir, sizeof(classdir));
	DIR *dir;

	if (r < 0)
		return r;
	dir = opendir(classdir);
	if (!dir)
		return -errno;
	while ((entry = readdir(dir))) {
		if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
			continue;
		if (!is_ib_type(classdir, entry->d_name))
			continue;
		r = visit(entry->d_name, arg);
		if (r)
			break;
	}
	closedir(dir);
	return r;
}

static int digits_only(const struct dirent *entry)
{
	const char *p = entry->d_name;

	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '\0';
}

static void free_names(struct dirent **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Dense P_Key table from ports/N/pkeys/<index>; -EIO when there is none. */
static int read_pkeys(const char *port_dir, umad_port_t *port)
{
	struct dirent **names = NULL;
	char dir[PATH_MAX];
	int n, i;

	if (sysfs_path(dir, sizeof(dir), "%s/" SYSFS_PKEYS_DIR, port_dir) < 0)
		return -EIO;
	n = scandir(dir, &names, digits_only, NULL);
	if (n <= 0) {
		if (n == 0)
			free(names);
		return -ENOENT;
	}
	port->pkeys = calloc((size_t)n, sizeof(*port->pkeys));
	if (!port->pkeys) {
		free_names(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		unsigned long index = strtoul(names[i]->d_name, NULL, 0);
		unsigned value = 0;

		/* Indices are dense 0..n-1 in sysfs; anything else is ignored rather than overrun. */
		if (index < (unsigned long)n && umad_sysfs_read_uint(dir, names[i]->d_name, &value) == 0)
			port->pkeys[index] = (uint16_t)value;
	}
	port->pkeys_size = (unsigned)n;
	free_names(names, n);
	return 0;
}

/* Named like rdma-core's function: its warning text carries the name. */
static int get_port(const char *ca_name, const char *ports_dir, int portnum, umad_port_t *port)
{
	char dir[PATH_MAX];
	uint8_t gid[16];
	unsigned capmask;
	int r;

	/* Callers see the name and number even when reading fails, as in rdma-core. */
	umad_backend_port_init(port, ca_name, portnum, 0);
	if (sysfs_path(dir, sizeof(dir), "%s/%d", ports_dir, portnum) < 0)
		return -EIO;
	if (umad_sysfs_read_uint(dir, SYS_PORT_LMC, &port->lmc) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_PORT_SMLID, &port->sm_lid) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_PORT_SMSL, &port->sm_sl) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_PORT_LID, &port->base_lid) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_PORT_STATE, &port->state) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_PORT_PHY_STATE, &port->phys_state) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_PORT_RATE, &port->rate) < 0 ||
	    umad_sysfs_read_uint(dir, SYS_PORT_CAPMASK, &capmask) < 0)
		return -EIO;
	port->capmask = htobe32(capmask);
	/* Older kernels have no link_layer file: those ports are InfiniBand. */
	if (umad_sysfs_read_string(dir, SYS_PORT_LINK_LAYER, port->link_layer,
				   sizeof(port->link_layer)) < 0)
		strcpy(port->link_layer, "IB");
	if (umad_sysfs_read_gid(dir, SYS_PORT_GID, gid) < 0)
		return -EIO;
	memcpy(&port->gid_prefix, MAD_AT(gid, GID_PREFIX), MAD_FIELD_SIZE(GID_PREFIX));
	memcpy(&port->port_guid, MAD_AT(gid, GID_GUID), MAD_FIELD_SIZE(GID_GUID));

	r = read_pkeys(dir, port);
	if (r == -ENOENT)
		IBWARN("no pkeys found for %s:%u (at dir %s/pkeys)...", port->ca_name,
		       port->portnum, dir);
	return r < 0 ? -EIO : 0;
}

/* "0" or 1..9; anything else in ports/ makes the device unusable, as in rdma-core. */
static int port_number(const char *name)
{
	int n;

	if (!strcmp(name, "0"))
		return 0;
	n = atoi(name);
	return n > 0 && n < UMAD_CA_MAX_PORTS ? n : -1;
}

/* get_port for umad_backend_ca_add_port: arg is the device's ports directory. */
static int fill_port(void *arg, const char *ca_name, int portnum, umad_port_t *port)
{
	return get_port(ca_name, arg, portnum, port) < 0 ? -EIO : 0;
}

static int kernel_get_ca(const char *ca_name, umad_ca_t *ca)
{
	char classdir[PATH_MAX], dir[PATH_MAX], ports_dir[PATH_MAX];
	struct dirent **names = NULL;
	int r, n, i, portnum;

	/* The device is looked up by the name as umad_ca_t holds it (19 characters at most). */
	umad_backend_ca_init(ca, ca_name);

	r = class_dir(classdir, sizeof(classdir));
	if (r < 0)
		return r;
	if (sysfs_path(dir, sizeof(dir), "%s/%s", classdir, ca->ca_name) < 0)
		return -ENAMETOOLONG;
	r = umad_sysfs_read_uint(dir, SYS_NODE_TYPE, &ca->node_type);
	if (r < 0)
		return r;
	if (umad_sysfs_read_string(dir, SYS_CA_FW_VERS, ca->fw_ver, sizeof(ca->fw_ver)) < 0)
		ca->fw_ver[0] = '\0';
	if (umad_sysfs_read_string(dir, SYS_CA_HW_VERS, ca->hw_ver, sizeof(ca->hw_ver)) < 0)
		ca->hw_ver[0] = '\0';
	if (umad_sysfs_read_string(dir, SYS_CA_TYPE, ca->ca_type, sizeof(ca->ca_type)) < 0)
		ca->ca_type[0] = '\0';
	r = umad_sysfs_read_guid(dir, SYS_CA_NODE_GUID, &ca->node_guid);
	if (r < 0)
		return r;
	r = umad_sysfs_read_guid(dir, SYS_CA_SYS_GUID, &ca->system_guid);
	if (r < 0)
		return r;

	if (sysfs_path(ports_dir, sizeof(ports_dir), "%s/%s", dir, SYS_CA_PORTS_DIR) < 0)
		return -ENAMETOOLONG;
	n = scandir(ports_dir, &names, NULL, alphasort);
	if (n < 0)
		return -ENOENT;
	r = 0;
	for (i = 0; i < n && r == 0; i++) {
		if (!strcmp(names[i]->d_name, ".") || !strcmp(names[i]->d_name, ".."))
			continue;
		portnum = port_number(names[i]->d_name);
		if (portnum < 0) {
			r = -EIO;
			umad_backend_free_ca_ports(ca);
			ca->numports = 0;
			break;
		}
		r = umad_backend_ca_add_port(ca, portnum, fill_port, ports_dir);
	}
	free_names(names, n);
	return r;
}

static int kernel_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	char classdir[PATH_MAX], ports_dir[PATH_MAX];
	int r = class_dir(classdir, sizeof(classdir));

	if (r < 0)
		return r;
	if (sysfs_path(ports_dir, sizeof(ports_dir), "%s/%s/%s", classdir, ca_name,
		      SYS_CA_PORTS_DIR) < 0)
		return -ENAMETOOLONG;
	r = get_port(ca_name, ports_dir, portnum, port);
	if (r < 0)
		umad_backend_port_clear(port);
	return r;
}

/* --- umad ports ----------------------------------------------------------- */

/* The first umadN whose ibdev and port match; -1 when none does. */
static int umad_id_of(const char *ca_name, int portnum)
{
	char maddir[PATH_MAX], dir[PATH_MAX], dev[UMAD_CA_NAME_LEN];
	unsigned port;
	int id;

	if (mad_dir(maddir, sizeof(maddir)) < 0)
		return -1;
	for (id = 0; id < UMAD_MAX_PORTS; id++) {
		if (sysfs_path(dir, sizeof(dir), "%s/" SYSFS_UMAD_NAME, maddir, id) < 0)
			return -1;
		if (umad_sysfs_read_string(dir, SYS_IB_MAD_DEV, dev, sizeof(dev)) < 0 ||
		    umad_sysfs_read_uint(dir, SYS_IB_MAD_PORT, &port) < 0)
			continue;
		if (strncmp(ca_name, dev, UMAD_CA_NAME_LEN) || port != (unsigned)portnum)
			continue;
		return id;
	}
	return -1;
}

/*
 * The ib_umad ABI version, or 0 when unusable.  The answer and the warning
 * are kept per sysfs root, so the warning is printed once, as rdma-core does.
 */
static pthread_mutex_t abi_lock = PTHREAD_MUTEX_INITIALIZER;
static char abi_root[PATH_MAX];
static unsigned abi_cached;
static int abi_known;

static unsigned get_abi_version(void)
{
	char maddir[PATH_MAX];
	const char *root = umad_sysfs_root();
	unsigned version = 0;
	int r;

	pthread_mutex_lock(&abi_lock);
	if (abi_known && !strcmp(abi_root, root)) {
		version = abi_cached;
		goto out;
	}
	r = mad_dir(maddir, sizeof(maddir));
	if (r == 0)
		r = umad_sysfs_read_uint(maddir, IB_UMAD_ABI_FILE, &version);
	if (r < 0) {
		IBWARN("can't read ABI version from %s/%s (%s): is ib_umad module loaded?",
		       maddir, IB_UMAD_ABI_FILE, strerror(-r));
		version = 0;
	} else if (version < MIN_ABI_VERSION) {
		version = 0;
	}
	snprintf(abi_root, sizeof(abi_root), "%s", root);
	abi_cached = version;
	abi_known = 1;
out:
	pthread_mutex_unlock(&abi_lock);
	return version;
}

static int kernel_open_precheck(void)
{
	return get_abi_version() ? 0 : -EOPNOTSUPP;
}

static int kernel_open_port(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno)
{
	char path[PATH_MAX];
	unsigned abi = get_abi_version();
	int id, fd;

	if (!abi)
		return -EOPNOTSUPP;
	id = umad_id_of(ca_name, portnum);
	if (id < 0)
		return -EINVAL;
	if (sysfs_path(path, sizeof(path), "%s/" SYSFS_UMAD_NAME, umad_dev_dir(), id) < 0)
		return -EINVAL;
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*open_errno = errno;
		return -EIO;
	}
	/* ABI 6 always carries the P_Key index; ABI 5 does once asked to. */
	if (abi > 5 || ioctl(fd, IB_USER_MAD_ENABLE_PKEY, NULL) == 0)
		*hdr_size = UMAD_HDR_SIZE_NEW;
	else
		*hdr_size = UMAD_HDR_SIZE_OLD;
	return fd;
}

static int kernel_get_issm_path(const char *ca_name, int portnum, char *path, size_t max)
{
	int id = umad_id_of(ca_name, portnum);

	if (id < 0)
		return -EINVAL;
	/* Truncated like snprintf in rdma-core, never overflowing. */
	snprintf(path, max, "%s/" SYSFS_ISSM_NAME, umad_dev_dir(), id);
	return 0;
}

static int kernel_close_port(int portid)
{
	return close(portid) < 0 ? -errno : 0;
}

static int kernel_register_agent(int portid, struct umad_agent_req *req, uint32_t *agent_id)
{
	if (req->legacy) {
		struct ib_user_mad_reg_req r1 = {
			.qpn = req->qpn,
			.mgmt_class = req->mgmt_class,
			.mgmt_class_version = req->mgmt_class_version,
			.oui = { (uint8_t)(req->oui >> 16), (uint8_t)(req->oui >> 8), (uint8_t)req->oui },
			.rmpp_version = req->rmpp_version,
		};

		memcpy(r1.method_mask, req->method_mask, sizeof(r1.method_mask));
		if (ioctl(portid, IB_USER_MAD_REGISTER_AGENT, &r1) < 0)
			return -errno;
		*agent_id = r1.id;
		return 0;
	} else {
		struct ib_user_mad_reg_req2 r2 = {
			.qpn = req->qpn,
			.mgmt_class = req->mgmt_class,
			.mgmt_class_version = req->mgmt_class_version,
			.flags = req->flags,
			.method_mask = { req->method_mask[0], req->method_mask[1] },
			.oui = req->oui,
			.rmpp_version = req->rmpp_version,
		};

		if (ioctl(portid, IB_USER_MAD_REGISTER_AGENT2, &r2) < 0) {
			int err = errno;

			/* On EINVAL the kernel wrote back the flags it supports. */
			if (err == EINVAL)
				req->flags = r2.flags;
			return -err;
		}
		*agent_id = r2.id;
		return 0;
	}
}

static int kernel_unregister_agent(int portid, uint32_t agent_id)
{
	return ioctl(portid, IB_USER_MAD_UNREGISTER_AGENT, &agent_id) < 0 ? -errno : 0;
}

static ssize_t kernel_send(int portid, const void *umad, size_t len)
{
	ssize_t n = write(portid, umad, len);

	return n < 0 ? -errno : n;
}

static ssize_t kernel_recv(int portid, void *umad, size_t len)
{
	ssize_t n = read(portid, umad, len);

	return n < 0 ? -errno : n;
}

const struct umad_backend umad_backend_kernel = {
	.abi = UMAD_BACKEND_ABI,
	.name = "kernel",
	.description = "the host's ib_umad devices and sysfs",
	.for_each_ca = kernel_for_each_ca,
	.get_ca = kernel_get_ca,
	.get_port = kernel_get_port,
	.get_issm_path = kernel_get_issm_path,
	.open_precheck = kernel_open_precheck,
	.open_port = kernel_open_port,
	.close_port = kernel_close_port,
	.register_agent = kernel_register_agent,
	.unregister_agent = kernel_unregister_agent,
	.send = kernel_send,
	.recv = kernel_recv,
};
