/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend (UMAD_BACKEND=sim): devices on a simulated fabric.  This
 * file is the device surface: the devices and their ports as umad sees
 * them, the fake sysfs tree, the issm files.  The fabric is reached
 * through a transport (sim_transport.h) chosen once at start: the
 * process's own fabric (sim_local.c: UMAD_SIM_TOPOLOGY, ibsim's net format
 * or ibnetdiscover output, or the embedded default), or a server's
 * (sim_remote.c: UMAD_SIM_FABRIC).  The process is attached at one or more
 * nodes (UMAD_SIM_HOST: a comma-separated list of node ids, descriptions
 * or GUIDs; by default the first CA), each seen as one device, named by
 * UMAD_SIM_CA_NAME (a list too) or sim0, sim1, ...
 *
 * UMAD_SIM_SM=builtin (the default) brings a fabric of the process's own
 * up at load as an SM would and runs a built-in SM and SA until a real SM
 * starts on an attached port (it holds an issm device open or registers an
 * SA server agent); UMAD_SIM_SM=none leaves the power-on state (ports
 * Init, no LIDs).  The policies of hosting a program on a fabric (IsSM,
 * the step-aside, agents, routing) are simfabric/hosting.h's, wherever the
 * fabric is.
 *
 * With UMAD_SIM_SYSFS=DIR the host devices are also written there as a
 * fake sysfs tree, rewritten whenever an SM changes the hosts' ports and
 * after link, node and trap faults.  The DIR/dev/infiniband/issmN files
 * (in a private directory removed at exit when UMAD_SIM_SYSFS is not set)
 * are the IsSM devices: holding one open sets
 * PortInfo:CapabilityMask.IsSM on that port, as the kernel's issm does.
 */
#include "config.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/runtime_dir.h"
#include "backends/sim_transport.h"
#include "backends/soft_port.h"
#include "backends/sysfs_writer.h"
#include "base/backend.h"
#include "base/errbuf.h"
#include "base/mad_wire.h"
#include "base/sim_control.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fault.h"
#include "simfabric/identity.h"

#define MAX_HOST_PORTS	(SIM_MAX_PORTS + 1)
#define MAX_HOSTS	SIM_TRANSPORT_MAX_HOSTS
#define MAX_UMAD_IDS	(MAX_HOSTS * MAX_HOST_PORTS)

/* A node the process is attached at: one device. */
struct sim_host {
	struct fp_node info;		/* what the device shows of the node */
	char ca_name[UMAD_CA_NAME_LEN];
	int umad_ids[MAX_HOST_PORTS];	/* -1 where the node has no such port */
	/* The ports' identities for soft_port (its device_port): one byte each, never read. */
	char device_port[MAX_HOST_PORTS];
};

/*
 * Opens and closes of the issm files, counted from inotify's events, by
 * umad device id: a look at the count is one read(2) of the watch, where
 * scanning the process's descriptors took a readlink(2) each.  The kernel
 * reports an open before open(2) returns and the last close before
 * close(2) does.  Without inotify, or when its queue overflowed, the scan
 * decides.
 */
struct issm_watch {
	int fd;				/* -1: no watch */
	int wd[MAX_UMAD_IDS];
	int opens[MAX_UMAD_IDS];
};

/* The devices of the process, on the fabric a transport reaches. */
struct sim_device {
	struct sim_transport *transport;
	struct sim_host hosts[MAX_HOSTS];
	int n_hosts;
	/*
	 * The device surface's own state: the issm watch, the fake sysfs tree.
	 * Never held while the transport is called (the transport calls back
	 * with its own lock held).
	 */
	pthread_mutex_t lock;
	struct issm_watch issm;
	char dir[PATH_MAX];		/* runtime directory: fake sysfs and issm files */
	struct runtime_dir private_dir;	/* ours when UMAD_SIM_SYSFS is not set */
	int write_sysfs;		/* UMAD_SIM_SYSFS asked for the fake sysfs tree */
};

/* The backend contract's calls carry no context: the process's devices, while the backend runs. */
static struct sim_device *the_device;

static struct sim_transport *transport_of(struct sim_device *d)
{
	return d->transport;
}

static int host_port_valid(const struct sim_host *h, int portnum)
{
	return portnum >= 0 && sim_host_port_valid(h->info.type, h->info.num_ports, (uint32_t)portnum);
}

static uint32_t host_index(const struct sim_device *d, const struct sim_host *h)
{
	return (uint32_t)(h - d->hosts);
}

static struct sim_host *host_by_name(struct sim_device *d, const char *ca_name)
{
	int i;

	for (i = 0; d && i < d->n_hosts; i++)
		if (!strcmp(d->hosts[i].ca_name, ca_name))
			return &d->hosts[i];
	return NULL;
}

/* --- IsSM: the issm file held open ---------------------------------------------------- */

static int issm_path(const struct sim_device *d, const struct sim_host *h, int portnum,
		     char *path, size_t max)
{
	return sysfs_path(path, max, "%s/" SYSFS_DEV_DIR "/" SYSFS_ISSM_NAME, d->dir,
			  h->umad_ids[portnum]);
}

/* Is any descriptor of this process open on the path? (What inotify cannot tell us.) */
static int held_open(const char *path)
{
	char link[64], target[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int found = 0;
	ssize_t n;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name) >= (int)sizeof(link))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = !strcmp(target, path);
	}
	closedir(d);
	return found;
}

static void issm_watch_stop(struct issm_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

static void issm_watch_start(struct sim_device *d)
{
	struct issm_watch *w = &d->issm;
	char path[PATH_MAX];
	int h, i, id;

	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (i = 0; i < MAX_UMAD_IDS; i++)
		w->wd[i] = -1;
	for (h = 0; w->fd >= 0 && h < d->n_hosts; h++) {
		const struct sim_host *host = &d->hosts[h];

		for (i = 0; w->fd >= 0 && i < MAX_HOST_PORTS; i++) {
			if (!host_port_valid(host, i))
				continue;
			id = host->umad_ids[i];
			if (issm_path(d, host, i, path, sizeof(path)) < 0 ||
			    (w->wd[id] = inotify_add_watch(w->fd, path, IN_OPEN | IN_CLOSE)) < 0) {
				issm_watch_stop(w);
				return;
			}
			/* Held open before the watch began: by this process, as far as we can see. */
			w->opens[id] = held_open(path);
		}
	}
}

/* Take the queued events into the counts; -1 when they can no longer be trusted. */
static int issm_watch_drain(struct issm_watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int i;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		const char *at = buf;

		while (at < buf + n) {
			const struct inotify_event *ev = (const struct inotify_event *)at;

			if (ev->mask & IN_Q_OVERFLOW)
				return -1;
			for (i = 0; i < MAX_UMAD_IDS; i++) {
				if (w->wd[i] != ev->wd)
					continue;
				if (ev->mask & IN_OPEN)
					w->opens[i]++;
				if ((ev->mask & IN_CLOSE) && w->opens[i] > 0)
					w->opens[i]--;
			}
			at += sizeof(*ev) + ev->len;
		}
	}
	return 0;
}

/* sim_transport_events.issm_held: is the issm file of a host port held open? */
static int ev_issm_held(void *owner, uint32_t host, uint32_t port)
{
	struct sim_device *d = owner;
	const struct sim_host *h = &d->hosts[host];
	char path[PATH_MAX];
	int held;

	if (host >= (uint32_t)d->n_hosts || !host_port_valid(h, (int)port))
		return 0;
	pthread_mutex_lock(&d->lock);
	if (d->issm.fd >= 0 && issm_watch_drain(&d->issm) < 0)
		issm_watch_stop(&d->issm);
	if (d->issm.fd >= 0)
		held = d->issm.opens[h->umad_ids[port]] > 0;
	else
		held = issm_path(d, h, (int)port, path, sizeof(path)) == 0 && held_open(path);
	pthread_mutex_unlock(&d->lock);
	return held;
}

/* --- what the hosts look like ------------------------------------------------------ */

static int fill_port(const struct sim_host *h, int portnum, const struct fp_port *v,
		     umad_port_t *port)
{
	int i, r = umad_backend_port_init(port, h->ca_name, portnum, SIM_PKEY_TABLE_SIZE);

	if (r < 0)
		return r;
	port->base_lid = v->lid;
	port->lmc = v->lmc;
	port->sm_lid = v->sm_lid;
	port->sm_sl = v->sm_sl;
	port->state = v->state;
	port->phys_state = v->phys_state;
	port->rate = (int)(v->rate_x10 / 10);
	port->capmask = htobe32(v->capmask);
	port->gid_prefix = htobe64(v->gid_prefix);
	port->port_guid = htobe64(v->guid);
	snprintf(port->link_layer, sizeof(port->link_layer), "InfiniBand");
	for (i = 0; i < SIM_PKEY_TABLE_SIZE; i++)
		port->pkeys[i] = v->pkeys[i];
	return 0;
}

/* umad_backend_ca_add_port's filler: arg is the port's view. */
static int fill_ca_port(void *arg, const char *ca_name, int portnum, umad_port_t *port)
{
	return fill_port(host_by_name(the_device, ca_name), portnum, arg, port);
}

/* The host's device, its ports as they are now (views[MAX_HOST_PORTS]). */
static int fill_ca(struct sim_device *d, struct sim_host *h, struct fp_port *views, umad_ca_t *ca)
{
	struct fp_node node;
	int i, r = transport_of(d)->ops->view(transport_of(d), host_index(d, h), &node, views);

	if (r < 0)
		return r;
	umad_backend_ca_init(ca, h->ca_name);
	ca->node_type = h->info.type;
	ca->node_guid = htobe64(h->info.node_guid);
	ca->system_guid = htobe64(h->info.sys_guid);
	/* As the node's device shows itself (identity.h); hw_rev is the revision, as mlx5 writes it. */
	sim_identity_fw_text(node.vendor_id, node.device_id, &node.fw, ca->fw_ver, sizeof(ca->fw_ver));
	snprintf(ca->hw_ver, sizeof(ca->hw_ver), "%x", node.revision);
	sim_identity_hca_type(node.vendor_id, node.device_id, ca->ca_type, sizeof(ca->ca_type));
	for (i = 0; i < MAX_HOST_PORTS && i < UMAD_CA_MAX_PORTS; i++) {
		if (!host_port_valid(h, i))
			continue;
		r = umad_backend_ca_add_port(ca, i, fill_ca_port, &views[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Rewrite a host's fake sysfs tree from the fabric; why in err. */
static int write_sysfs(struct sim_device *d, struct sim_host *h, struct umad_err *err)
{
	struct fp_port *views = calloc(MAX_HOST_PORTS, sizeof(*views));
	char (*rates)[64] = calloc(MAX_HOST_PORTS, sizeof(*rates));
	const char *rate_texts[UMAD_CA_MAX_PORTS] = { 0 };
	umad_ca_t ca;
	int i, r = views && rates ? fill_ca(d, h, views, &ca) : -ENOMEM;

	if (r < 0)
		goto out;
	for (i = 0; i < UMAD_CA_MAX_PORTS && i < MAX_HOST_PORTS; i++) {
		unsigned x10 = views[i].rate_x10;

		if (!ca.ports[i])
			continue;
		if (x10 % 10)
			snprintf(rates[i], sizeof(rates[i]), "%u.%u Gb/sec (%s %s)", x10 / 10, x10 % 10,
				 views[i].width_name, views[i].speed_name);
		else
			snprintf(rates[i], sizeof(rates[i]), "%u Gb/sec (%s %s)", x10 / 10,
				 views[i].width_name, views[i].speed_name);
		rate_texts[i] = rates[i];
	}
	pthread_mutex_lock(&d->lock);
	r = sysfs_write_ca(d->dir, &ca, sim_identity_board_id(h->info.vendor_id, h->info.device_id),
			   h->info.desc, h->umad_ids, rate_texts, err);
	pthread_mutex_unlock(&d->lock);
	umad_backend_free_ca_ports(&ca);
out:
	free(views);
	free(rates);
	return r;
}

/* --- what the transport tells ------------------------------------------------------ */

static int ev_deliver(void *owner, uint32_t host, uint32_t port, uint32_t qpn,
		      const struct ib_user_mad *hdr, const uint8_t *mad, size_t len, uint64_t due_ns)
{
	struct sim_device *d = owner;

	return soft_port_receive_at(&d->hosts[host].device_port[port], qpn, hdr, mad, len,
				    due_ns) == 1;
}

static void ev_node_changed(void *owner, uint32_t host)
{
	struct sim_device *d = owner;
	struct umad_err err = UMAD_ERR_INIT;

	/* An event of the fabric's: nobody to return why to, so it is told here. */
	if (d->write_sysfs && host < (uint32_t)d->n_hosts &&
	    write_sysfs(d, &d->hosts[host], &err) < 0)
		umad_err_print("sim", &err);
}

/* --- set-up ------------------------------------------------------------------------ */

/* The n-th comma-separated item of list (NULL list: none), into buf. */
static const char *list_item(const char *list, int n, char *buf, size_t size)
{
	const char *at = list, *end;
	size_t len;

	if (!list)
		return NULL;
	while (n-- > 0) {
		at = strchr(at, ',');
		if (!at)
			return NULL;
		at++;
	}
	end = strchr(at, ',');
	len = end ? (size_t)(end - at) : strlen(at);
	if (len >= size)
		len = size - 1;
	memcpy(buf, at, len);
	buf[len] = '\0';
	return buf;
}

static int list_length(const char *list)
{
	int n = 1;

	if (!list || !*list)
		return 0;
	for (; *list; list++)
		n += *list == ',';
	return n;
}

/* Create the empty issm files of a private runtime directory. */
static int make_issm_files(struct sim_device *d)
{
	char rel[PATH_MAX], name[32];
	int h, i, r;

	for (h = 0; h < d->n_hosts; h++) {
		const struct sim_host *host = &d->hosts[h];

		for (i = 0; i < MAX_HOST_PORTS; i++) {
			if (!host_port_valid(host, i))
				continue;
			if (sysfs_path(name, sizeof(name), SYSFS_ISSM_NAME, host->umad_ids[i]) ||
			    sysfs_dev_path(rel, sizeof(rel), NULL, name))
				return -ENAMETOOLONG;
			r = sysfs_touch(d->dir, rel);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * The runtime directory: UMAD_SIM_SYSFS when the user wants the fake sysfs
 * tree (kept, and rewritten live; the writer refuses a directory another
 * user could change under it); otherwise a private directory on a
 * memory file system, holding only the issm files, removed at exit (and,
 * if the process dies without exit handlers, by the next one to start).
 */
static int make_runtime_dir(struct sim_device *d, struct umad_err *err)
{
	const char *dir = getenv("UMAD_SIM_SYSFS");
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), "/dev/shm", getenv("TMPDIR"), "/tmp" };
	int r;

	if (dir && *dir) {
		/* Made, and checked, by the first write of the tree. */
		if (snprintf(d->dir, sizeof(d->dir), "%s", dir) >= (int)sizeof(d->dir))
			return umad_err_set(err, -ENAMETOOLONG, "UMAD_SIM_SYSFS=%s: path too long",
					    dir);
		d->write_sysfs = 1;
		return 0;
	}
	r = runtime_dir_create(&d->private_dir, bases, sizeof(bases) / sizeof(bases[0]),
			       "libumad-sim");
	if (r < 0)
		return umad_err_set(err, r, "cannot create a runtime directory: %s", strerror(-r));
	snprintf(d->dir, sizeof(d->dir), "%s", d->private_dir.path);
	r = make_issm_files(d);
	if (r < 0)
		return umad_err_set(err, r, "cannot create the issm files in %s: %s", d->dir,
				    strerror(-r));
	return 0;
}

/*
 * The device name becomes a directory in the fake sysfs tree and must fit
 * umad_ca_t: 1 to UMAD_CA_NAME_LEN - 1 letters, digits, '_', '-' or '.',
 * and not "." or "..".
 */
static int valid_ca_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= UMAD_CA_NAME_LEN || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

/* UMAD_SIM_CA_NAME: the devices' names (sim0, sim1, ... when not named), and their umad ids. */
static int name_devices(struct sim_device *d, struct umad_err *err)
{
	const char *names = getenv("UMAD_SIM_CA_NAME");
	int n_names = list_length(names), i, j, id = 0;
	char item[256];

	if (n_names > d->n_hosts)
		return umad_err_set(err, -EINVAL, "UMAD_SIM_CA_NAME=%s names more devices than "
				    "UMAD_SIM_HOST attaches", names);
	for (i = 0; i < d->n_hosts; i++) {
		struct sim_host *h = &d->hosts[i];

		if (i < n_names) {
			list_item(names, i, item, sizeof(item));
			if (!valid_ca_name(item))
				return umad_err_set(err, -EINVAL, "UMAD_SIM_CA_NAME=%s: a device name "
						    "is 1 to %d letters, digits, '_', '-' or '.' (and "
						    "not . or ..)", names, UMAD_CA_NAME_LEN - 1);
			snprintf(h->ca_name, sizeof(h->ca_name), "%s", item);
		} else {
			snprintf(h->ca_name, sizeof(h->ca_name), "sim%d", i);
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(d->hosts[j].ca_name, h->ca_name))
				return umad_err_set(err, -EINVAL, "two devices named %s", h->ca_name);
		}
		for (j = 0; j < MAX_HOST_PORTS; j++)
			h->umad_ids[j] = host_port_valid(h, j) ? id++ : -1;
	}
	return 0;
}

/* UMAD_SIM_SM: builtin (the default) or none; -EINVAL with why for anything else. */
static int builtin_sm_wanted(struct umad_err *err)
{
	const char *sm = getenv("UMAD_SIM_SM");

	if (!sm || !*sm || !strcmp(sm, "builtin"))
		return 1;
	if (!strcmp(sm, "none"))
		return 0;
	return umad_err_set(err, -EINVAL, "UMAD_SIM_SM=%s: expected builtin or none", sm);
}

/* Take the device surface down; the transport first, so that no event comes after. */
static void device_free(struct sim_device *d)
{
	soft_port_resend_stop();	/* a resend is carried by the transport */
	if (d->transport)
		d->transport->ops->detach(d->transport);
	soft_port_close_all();
	issm_watch_stop(&d->issm);
	runtime_dir_remove(&d->private_dir);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

/*
 * Start the device surface over its transport: 0, or -errno with why in
 * err; either way, what the transport noted of its start in note.
 */
static int device_start(struct umad_err *err, struct umad_err *note)
{
	const char *topology = getenv("UMAD_SIM_TOPOLOGY");
	const char *fabric = getenv("UMAD_SIM_FABRIC");
	const char *wanted = getenv("UMAD_SIM_HOST");
	/* The transport, chosen once: the process's own fabric, or a server's (here or over TCP). */
	const struct sim_transport_ops *ops = !fabric || !*fabric ? &sim_local_transport
					      : &sim_remote_transport;
	char items[MAX_HOSTS][FP_NAME_MAX];
	const char *names[MAX_HOSTS];
	struct fp_node nodes[MAX_HOSTS];
	struct sim_transport_params params = {
		.where = fabric && *fabric ? fabric : topology && *topology ? topology : NULL,
		.names = names,
		.n_names = (unsigned)list_length(wanted),
		.names_text = wanted,
		.builtin_sm = builtin_sm_wanted(err),
	};
	struct sim_transport_events ev = {
		.deliver = ev_deliver,
		.node_changed = ev_node_changed,
		.issm_held = ev_issm_held,
		.issm_watch_fd = -1,
	};
	struct sim_device *d;
	unsigned i, n_nodes = 0;
	int h, r;

	if (params.builtin_sm < 0)
		return params.builtin_sm;
	if (params.n_names > MAX_HOSTS)
		return umad_err_set(err, -EINVAL, "UMAD_SIM_HOST=%s: at most %d nodes", wanted,
				    MAX_HOSTS);
	for (i = 0; i < params.n_names; i++)
		names[i] = list_item(wanted, (int)i, items[i], sizeof(items[i]));
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	pthread_mutex_init(&d->lock, NULL);
	d->issm.fd = -1;
	d->private_dir.lock_fd = -1;
	ev.owner = d;
	r = ops->attach(&params, &ev, &d->transport, nodes, &n_nodes, err);
	if (r < 0) {
		d->transport = NULL;
		device_free(d);
		return r;
	}
	if (err->count) {
		*note = *err;
		umad_err_clear(err);
	}
	d->n_hosts = (int)n_nodes;
	for (h = 0; h < d->n_hosts; h++)
		d->hosts[h].info = nodes[h];
	the_device = d;
	r = name_devices(d, err);
	if (r == 0)
		r = make_runtime_dir(d, err);
	for (h = 0; r == 0 && d->write_sysfs && h < d->n_hosts; h++)
		r = write_sysfs(d, &d->hosts[h], err);
	if (r == 0) {
		pthread_mutex_lock(&d->lock);
		issm_watch_start(d);
		pthread_mutex_unlock(&d->lock);
		r = d->transport->ops->start(d->transport, d->issm.fd);
	}
	if (r < 0) {
		the_device = NULL;
		device_free(d);
	}
	return r;
}

static int carry(struct soft_port *op, const struct ib_user_mad *hdr,
		 const struct umad_agent_req *agent, uint8_t *mad, size_t mad_len);

/* The backend's start: where why it cannot start is told, and how it started when not as asked. */
static int sim_init(const struct umad_backend_host *host)
{
	struct umad_err err = UMAD_ERR_INIT, note = UMAD_ERR_INIT;
	int r;

	soft_port_resend_with("sim", carry, host->resent);
	r = device_start(&err, &note);

	umad_err_print("sim", &note);
	if (r < 0)
		umad_err_print("sim", &err);
	return r;
}

static void sim_fini(void)
{
	struct sim_device *d = the_device;

	the_device = NULL;
	if (d)
		device_free(d);
}

/* --- devices ----------------------------------------------------------------------- */

static int sim_for_each_ca(umad_ca_visit_fn visit, void *arg)
{
	struct sim_device *d = the_device;
	int i, r;

	for (i = 0; d && i < d->n_hosts; i++) {
		r = visit(d->hosts[i].ca_name, arg);
		if (r)
			return r;
	}
	return 0;
}

static int sim_get_ca(const char *ca_name, umad_ca_t *ca)
{
	struct sim_device *d = the_device;
	struct sim_host *h = host_by_name(d, ca_name);
	struct fp_port views[MAX_HOST_PORTS];
	int r;

	if (!h)
		return -ENOENT;
	r = fill_ca(d, h, views, ca);
	if (r < 0)
		umad_backend_free_ca_ports(ca);
	return r;
}

static int sim_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	struct sim_device *d = the_device;
	struct sim_host *h = host_by_name(d, ca_name);
	struct fp_port views[MAX_HOST_PORTS];
	struct fp_node node;
	int r;

	if (!h || !host_port_valid(h, portnum))
		return -ENOENT;
	r = transport_of(d)->ops->view(transport_of(d), host_index(d, h), &node, views);
	if (r == 0)
		r = fill_port(h, portnum, &views[portnum], port);
	return r;
}

static int sim_get_issm_path(const char *ca_name, int portnum, char *path, size_t max)
{
	struct sim_device *d = the_device;
	struct sim_host *h = host_by_name(d, ca_name);

	if (!h || !host_port_valid(h, portnum))
		return -EINVAL;
	return issm_path(d, h, portnum, path, max);
}

/* --- ports ------------------------------------------------------------------------- */

/* The transport's handle of an open port (kept in the soft port's data, plus one). */
static uint32_t handle_of(const struct soft_port *p)
{
	return (uint32_t)((uintptr_t)p->data - 1);
}

static int sim_open_port(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno)
{
	struct sim_device *d = the_device;
	struct sim_host *h = host_by_name(d, ca_name);
	struct sim_transport *t;
	int handle, fd;

	if (!h || !host_port_valid(h, portnum))
		return -EINVAL;
	t = transport_of(d);
	handle = t->ops->open(t, host_index(d, h), (uint32_t)portnum);
	if (handle < 0) {
		*open_errno = -handle;
		return -EIO;
	}
	fd = soft_port_open(&h->device_port[portnum], h->info.type == NODE_TYPE_SWITCH,
			    (unsigned)portnum, (void *)((uintptr_t)handle + 1), open_errno);
	if (fd < 0)
		t->ops->close(t, (uint32_t)handle);
	else
		*hdr_size = MAD_RULES_HDR_SIZE;
	return fd;
}

static int sim_close_port(int portid)
{
	struct sim_transport *t = transport_of(the_device);
	struct soft_port *p = soft_port_get(portid);
	uint32_t handle;
	int r;

	if (!p)
		return -EBADF;
	handle = handle_of(p);
	soft_port_put(p);
	r = soft_port_close(portid);
	if (r == 0)
		t->ops->close(t, handle);
	return r;
}

/*
 * The fabric routes MADs to the agent (and refuses another program's
 * clash); a real SM's SA registered, or an issm device held since the last
 * look, retires the built-in SM (hosting.h).
 */
static int sim_register(int portid, struct umad_agent_req *req, uint32_t *agent_id)
{
	struct sim_transport *t = transport_of(the_device);
	struct soft_port *p;
	int r = soft_port_register(portid, req, agent_id);

	if (r < 0)
		return r;
	p = soft_port_get(portid);
	r = p ? t->ops->set_agent(t, handle_of(p), *agent_id, req) : -EBADF;
	if (r > 0)
		soft_port_set_hi_tid(p, *agent_id, (uint32_t)r);
	if (p)
		soft_port_put(p);
	if (r < 0) {
		soft_port_unregister(portid, *agent_id);
		return r;
	}
	t->ops->check_issm(t);
	return 0;
}

static int sim_unregister(int portid, uint32_t agent_id)
{
	struct sim_transport *t = transport_of(the_device);
	struct soft_port *p = soft_port_get(portid);
	uint32_t handle = p ? handle_of(p) : 0;
	int r;

	if (p)
		soft_port_put(p);
	r = soft_port_unregister(portid, agent_id);
	if (r == 0 && p)
		t->ops->set_agent(t, handle, agent_id, NULL);
	return r;
}

/*
 * soft_port_send's carrier: the transport's send, on the port's handle.
 * The program's send is where a reason it cannot learn from the error is
 * told.
 */
static int carry(struct soft_port *op, const struct ib_user_mad *hdr,
		 const struct umad_agent_req *agent, uint8_t *mad, size_t mad_len)
{
	struct sim_transport *t = transport_of(the_device);
	struct umad_err err;	/* emptied, not zeroed: a send is a hot path */
	int r;

	umad_err_clear(&err);
	r = t->ops->send(t, op, handle_of(op), hdr, agent, mad, mad_len, &err);
	if (r < 0)
		umad_err_print("sim", &err);
	return r;
}

static ssize_t sim_send(int portid, const void *umad, size_t len)
{
	return soft_port_send(portid, umad, len, carry);
}

static ssize_t sim_recv(int portid, void *umad, size_t len)
{
	struct sim_transport *t = transport_of(the_device);

	return t->ops->recv(t, portid, umad, len);
}

static int sim_pending(int portid)
{
	struct sim_transport *t = transport_of(the_device);

	return t->ops->pending(t, portid);
}

static int sim_wait(int portid, int timeout_ms)
{
	struct sim_transport *t = transport_of(the_device);

	return t->ops->wait(t, portid, timeout_ms);
}

static void sim_watch_fd(int portid)
{
	struct sim_transport *t = transport_of(the_device);

	t->ops->watch_fd(t, portid);
}

/* --- faults (libumad-sim) ------------------------------------------------------------ */

/*
 * Every fault of libumad-sim, on the fabric the transport reaches.  After
 * one that changes ports (sim_fault_changes_ports) the fabric tells every
 * program attached, this one too; but a server's notice comes later: the
 * caller's own tree is rewritten before the call returns, wherever the
 * fabric is.
 */
static int control_apply(const struct sim_fault_req *rq)
{
	struct sim_device *d = the_device;
	struct umad_err err = UMAD_ERR_INIT;
	int h, r;

	if (!d)
		return -ENODEV;
	r = d->transport->ops->control(d->transport, rq);
	/* The fault is done: a tree not rewritten is told, not returned. */
	for (h = 0; r == 0 && sim_fault_changes_ports(rq->op) && d->write_sysfs && h < d->n_hosts;
	     h++)
		if (write_sysfs(d, &d->hosts[h], &err) < 0)
			umad_err_print("sim", &err);
	return r;
}
/* Found by libumad-sim with dlsym (base/sim_control.h). */
extern const struct umad_sim_control umad_sim_control;
const struct umad_sim_control umad_sim_control = {
	.abi = UMAD_SIM_CONTROL_ABI,
	.req_size = sizeof(struct sim_fault_req),
	.apply = control_apply,
};

const struct umad_backend umad_backend_sim = {
	.abi = UMAD_BACKEND_ABI,
	.name = "sim",
	.description = "a simulated fabric in the process (UMAD_SIM_TOPOLOGY, UMAD_SIM_HOST, "
		       "UMAD_SIM_SM)",
	.init = sim_init,
	.fini = sim_fini,
	.for_each_ca = sim_for_each_ca,
	.get_ca = sim_get_ca,
	.get_port = sim_get_port,
	.get_issm_path = sim_get_issm_path,
	.open_port = sim_open_port,
	.close_port = sim_close_port,
	.register_agent = sim_register,
	.unregister_agent = sim_unregister,
	.send = sim_send,
	.recv = sim_recv,
	.pending = sim_pending,
	.wait = sim_wait,
	.watch_fd = sim_watch_fd,
	.hi_tid = soft_port_hi_tid,
};
