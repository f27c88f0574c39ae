/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend (UMAD_BACKEND=sim): a simulated fabric inside the
 * process.  The topology comes from UMAD_SIM_TOPOLOGY (ibsim's net format
 * or ibnetdiscover output) or the embedded default; the process is attached
 * at one or more nodes (UMAD_SIM_HOST: a comma-separated list of node ids,
 * descriptions or GUIDs; by default the first CA of the file), each seen as
 * one device, named by UMAD_SIM_CA_NAME (a list too) or sim0, sim1, ...
 *
 * UMAD_SIM_SM=builtin (the default) brings the fabric up at load as an SM
 * would and runs a built-in SM and SA until a real SM starts on an attached
 * port (it holds an issm device open or registers an SA server agent);
 * UMAD_SIM_SM=none leaves the power-on state (ports Init, no LIDs).
 *
 * A send is carried through the fabric (simfabric/net.h) under one fabric
 * lock: answered by the fabric's agents synchronously, handed to an agent
 * of an attached port (the kernel's receive rules), or lost; an answer, or
 * when there is none a timeout after timeout_ms * (retries + 1), is queued
 * on the sender's pollable queue.
 *
 * With UMAD_SIM_SYSFS=DIR the host devices are also written there as a
 * fake sysfs tree, rewritten whenever an SM changes the hosts' ports and
 * after link, node and trap faults.  The
 * DIR/dev/infiniband/issmN files (in a private directory removed at exit
 * when UMAD_SIM_SYSFS is not set) are the IsSM devices: holding one open
 * sets PortInfo:CapabilityMask.IsSM on that port, as the kernel's issm does.
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

#include "libumad/base/backend.h"
#include "backends/runtime_dir.h"
#include "libumad/base/sim_control.h"
#include "backends/sim_shared.h"
#include "backends/soft_port.h"
#include "backends/sysfs_writer.h"
#include "libumad/base/mad_wire.h"
#include "simfabric/fabric_proto.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"
#include "simfabric/route.h"
#include "simfabric/sma.h"
#include "simfabric/topology.h"

#define MAX_HOST_PORTS	(SIM_MAX_PORTS + 1)
#define MAX_HOSTS	16
#define MAX_UMAD_IDS	(MAX_HOSTS * MAX_HOST_PORTS)

/* A node the process is attached at: one device. */
struct sim_host {
	struct sim_node *node;		/* in the process's fabric; NULL with a shared one */
	struct fp_node info;		/* what the device shows of the node */
	char ca_name[UMAD_CA_NAME_LEN];
	int umad_ids[MAX_HOST_PORTS];	/* -1 where the node has no such port */
	/* With a shared fabric: the host ports (soft_port's device_port), IsSM as told. */
	char device_port[MAX_HOST_PORTS];
	uint8_t issm_told[MAX_HOST_PORTS];
};

static struct {
	pthread_mutex_t lock;		/* the fabric: every model and net access */
	struct sim_fabric *fabric;
	struct sim_net net;
	struct sim_host hosts[MAX_HOSTS];
	int n_hosts;
	char dir[PATH_MAX];		/* runtime directory: fake sysfs and issm files */
	struct runtime_dir private_dir;	/* ours when UMAD_SIM_SYSFS is not set */
	int write_sysfs;		/* UMAD_SIM_SYSFS asked for the fake sysfs tree */
	int shared;			/* the fabric is a server's (UMAD_SIM_FABRIC) */
} sim = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.private_dir = { .lock_fd = -1 },
};

static int host_port_valid(const struct sim_host *h, int portnum)
{
	return portnum >= 0 && sim_host_port_valid(h->info.type, h->info.num_ports, (uint32_t)portnum);
}

static uint32_t host_index(const struct sim_host *h)
{
	return (uint32_t)(h - sim.hosts);
}

static struct sim_host *host_by_name(const char *ca_name)
{
	int i;

	for (i = 0; i < sim.n_hosts; i++)
		if (!strcmp(sim.hosts[i].ca_name, ca_name))
			return &sim.hosts[i];
	return NULL;
}

static struct sim_host *host_of_node(const struct sim_node *n)
{
	int i;

	for (i = 0; i < sim.n_hosts; i++)
		if (sim.hosts[i].node == n)
			return &sim.hosts[i];
	return NULL;
}

/* --- IsSM: the issm file held open ---------------------------------------------------- */

static int issm_path(const struct sim_host *h, int portnum, char *path, size_t max)
{
	return sysfs_path(path, max, "%s/" SYSFS_DEV_DIR "/" SYSFS_ISSM_NAME, sim.dir,
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

/*
 * Opens and closes of the issm files, counted from inotify's events, by
 * umad device id: a look at the count is one read(2) of the watch, where
 * scanning the process's descriptors took a readlink(2) each on every
 * PortInfo of a host.  The kernel reports an open before open(2) returns
 * and the last close before close(2) does.  Without inotify, or when its
 * queue overflowed, the scan decides.  Fabric lock held throughout.
 */
static struct {
	int fd;				/* -1: no watch */
	int wd[MAX_UMAD_IDS];
	int opens[MAX_UMAD_IDS];
} issm_watch = { .fd = -1 };

static void issm_watch_stop(void)
{
	if (issm_watch.fd >= 0)
		close(issm_watch.fd);
	issm_watch.fd = -1;
}

static void issm_watch_start(void)
{
	char path[PATH_MAX];
	int h, i, id;

	issm_watch.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (i = 0; i < MAX_UMAD_IDS; i++)
		issm_watch.wd[i] = -1;
	for (h = 0; issm_watch.fd >= 0 && h < sim.n_hosts; h++) {
		const struct sim_host *host = &sim.hosts[h];

		for (i = 0; issm_watch.fd >= 0 && i < MAX_HOST_PORTS; i++) {
			if (!host_port_valid(host, i))
				continue;
			id = host->umad_ids[i];
			if (issm_path(host, i, path, sizeof(path)) < 0 ||
			    (issm_watch.wd[id] = inotify_add_watch(issm_watch.fd, path,
								   IN_OPEN | IN_CLOSE)) < 0) {
				issm_watch_stop();
				return;
			}
			/* Held open before the watch began: by this process, as far as we can see. */
			issm_watch.opens[id] = held_open(path);
		}
	}
}

/* Take the queued events into the counts; -1 when they can no longer be trusted. */
static int issm_watch_drain(void)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int i;

	while ((n = read(issm_watch.fd, buf, sizeof(buf))) > 0) {
		const char *at = buf;

		while (at < buf + n) {
			const struct inotify_event *ev = (const struct inotify_event *)at;

			if (ev->mask & IN_Q_OVERFLOW)
				return -1;
			for (i = 0; i < MAX_UMAD_IDS; i++) {
				if (issm_watch.wd[i] != ev->wd)
					continue;
				if (ev->mask & IN_OPEN)
					issm_watch.opens[i]++;
				if ((ev->mask & IN_CLOSE) && issm_watch.opens[i] > 0)
					issm_watch.opens[i]--;
			}
			at += sizeof(*ev) + ev->len;
		}
	}
	return 0;
}

/* Is the issm file of a host port held open? Fabric lock held. */
static int issm_held(const struct sim_host *h, int portnum)
{
	char path[PATH_MAX];

	if (issm_watch.fd >= 0 && issm_watch_drain() < 0)
		issm_watch_stop();
	if (issm_watch.fd >= 0)
		return issm_watch.opens[h->umad_ids[portnum]] > 0;
	return issm_path(h, portnum, path, sizeof(path)) == 0 && held_open(path);
}

/*
 * Bring CapabilityMask.IsSM of a host port in line with its issm file (the
 * built-in SM's own port keeps it while that SM runs); a real SM holding
 * one makes the built-in SM step aside.  A change is trapped to the SM
 * (Trap 144), but not from the SM's own port.  A shared fabric's server is
 * told of changes, and does the same.  Fabric lock held.
 */
static void refresh_is_sm_at(struct sim_host *h, int portnum)
{
	struct sim_port *p;
	int held = issm_held(h, portnum);
	uint32_t old;

	if (sim.shared) {
		if (held != h->issm_told[portnum] &&
		    sim_shared_issm(host_index(h), (uint32_t)portnum, held) == 0)
			h->issm_told[portnum] = (uint8_t)held;
		return;
	}
	p = &h->node->ports[portnum];
	old = p->capmask;
	if (held)
		sim_net_sm_step_aside(&sim.net);
	if (held || (sim.net.sm_active && p == sim.net.sm_port))
		p->capmask |= PORT_CAP_IS_SM;
	else
		p->capmask &= ~PORT_CAP_IS_SM;
	sim_net_capmask_changed(&sim.net, p, old);
}

static void refresh_is_sm(struct sim_port *p)
{
	struct sim_host *h = host_of_node(p->node);

	if (h)
		refresh_is_sm_at(h, p->num);
}

/* Does a real SM run on some attached port? Then the built-in one steps aside. Fabric lock held. */
static void check_for_real_sm(void)
{
	int h, i;

	for (h = 0; (sim.shared || sim.net.sm_active) && h < sim.n_hosts; h++)
		for (i = 0; i < MAX_HOST_PORTS; i++)
			if (host_port_valid(&sim.hosts[h], i))
				refresh_is_sm_at(&sim.hosts[h], i);
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
	return fill_port(host_by_name(ca_name), portnum, arg, port);
}

/*
 * The host's ports as they are now (views[MAX_HOST_PORTS]): from the
 * process's fabric, IsSM refreshed, or from the shared fabric's server.
 * Fabric lock held.
 */
static int host_views(struct sim_host *h, struct fp_port *views)
{
	struct fp_node node;
	int i;

	if (sim.shared) {
		check_for_real_sm();
		return sim_shared_get_ca(host_index(h), &node, views);
	}
	for (i = 0; i < MAX_HOST_PORTS; i++) {
		views[i].valid = host_port_valid(h, i);
		if (!views[i].valid)
			continue;
		refresh_is_sm(&h->node->ports[i]);
		fp_port_fill(&views[i], &h->node->ports[i]);
	}
	return 0;
}

/* Fabric lock held. */
static int fill_ca(struct sim_host *h, struct fp_port *views, umad_ca_t *ca)
{
	int i, r = host_views(h, views);

	if (r < 0)
		return r;
	umad_backend_ca_init(ca, h->ca_name);
	ca->node_type = h->info.type;
	ca->node_guid = htobe64(h->info.node_guid);
	ca->system_guid = htobe64(h->info.sys_guid);
	snprintf(ca->fw_ver, sizeof(ca->fw_ver), "%s", PACKAGE_VERSION);
	snprintf(ca->hw_ver, sizeof(ca->hw_ver), "0");
	snprintf(ca->ca_type, sizeof(ca->ca_type), "libumad-sim");
	for (i = 0; i < MAX_HOST_PORTS && i < UMAD_CA_MAX_PORTS; i++) {
		if (!host_port_valid(h, i))
			continue;
		r = umad_backend_ca_add_port(ca, i, fill_ca_port, &views[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Rewrite a host's fake sysfs tree from the model. Fabric lock held. */
static int write_sysfs(struct sim_host *h)
{
	static struct fp_port views[MAX_HOST_PORTS];
	static char rates[MAX_HOST_PORTS][64];
	const char *rate_texts[UMAD_CA_MAX_PORTS] = { 0 };
	char err[PATH_MAX + 128];
	umad_ca_t ca;
	int i, r;

	r = fill_ca(h, views, &ca);
	if (r < 0)
		return r;
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
	r = sysfs_write_ca(sim.dir, &ca, h->info.desc, h->umad_ids, rate_texts, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "libumad: sim: %s\n", err);
	umad_backend_free_ca_ports(&ca);
	return r;
}

/* SMA hooks: IsSM read fresh, sysfs rewritten after a host changed. */
static void hook_before_port_read(void *arg, struct sim_port *p)
{
	(void)arg;
	refresh_is_sm(p);
}

static void hook_node_changed(void *arg, struct sim_node *n)
{
	struct sim_host *h = host_of_node(n);

	(void)arg;
	if (h && sim.write_sysfs)
		write_sysfs(h);
}

static const struct sim_sma_hooks hooks = {
	.before_port_read = hook_before_port_read,
	.node_changed = hook_node_changed,
};

/* --- receiving: a MAD that reached an attached port -------------------------------------- */

/* The umad header of a MAD received through the net. */
static void received_header(struct ib_user_mad *hdr, const struct sim_net_msg *m)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->addr.qpn = htobe32(m->sqpn);
	hdr->addr.qkey = htobe32(m->qkey);
	hdr->addr.lid = htobe16(m->slid);
	hdr->addr.sl = m->sl;
	hdr->addr.pkey_index = sim_port_pkey_index(m->port, m->pkey);
}

static int net_receive(void *arg, const struct sim_net_msg *m)
{
	struct ib_user_mad hdr;
	uint64_t due = m->delay_ns ? mad_queue_now_ns() + m->delay_ns : 0;

	(void)arg;
	received_header(&hdr, m);
	return soft_port_receive_at(m->port, m->dqpn, &hdr, m->data, m->len, due) == 1;
}

static const struct sim_net_endpoint_ops endpoints = { .receive = net_receive };

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
static int make_issm_files(void)
{
	char rel[PATH_MAX], name[32];
	int h, i, r;

	for (h = 0; h < sim.n_hosts; h++) {
		const struct sim_host *host = &sim.hosts[h];

		for (i = 0; i < MAX_HOST_PORTS; i++) {
			if (!host_port_valid(host, i))
				continue;
			if (sysfs_path(name, sizeof(name), SYSFS_ISSM_NAME, host->umad_ids[i]) ||
			    sysfs_dev_path(rel, sizeof(rel), NULL, name))
				return -ENAMETOOLONG;
			r = sysfs_touch(sim.dir, rel);
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
static int make_runtime_dir(void)
{
	const char *dir = getenv("UMAD_SIM_SYSFS");
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), "/dev/shm", getenv("TMPDIR"), "/tmp" };
	int r;

	if (dir && *dir) {
		/* Made, and checked, by the first write of the tree. */
		if (snprintf(sim.dir, sizeof(sim.dir), "%s", dir) >= (int)sizeof(sim.dir)) {
			fprintf(stderr, "libumad: sim: UMAD_SIM_SYSFS=%s: path too long\n", dir);
			return -ENAMETOOLONG;
		}
		sim.write_sysfs = 1;
		return 0;
	}
	r = runtime_dir_create(&sim.private_dir, bases, sizeof(bases) / sizeof(bases[0]),
			       "libumad-sim");
	if (r < 0) {
		fprintf(stderr, "libumad: sim: cannot create a runtime directory: %s\n", strerror(-r));
		return r;
	}
	snprintf(sim.dir, sizeof(sim.dir), "%s", sim.private_dir.path);
	r = make_issm_files();
	if (r < 0)
		fprintf(stderr, "libumad: sim: cannot create the issm files in %s: %s\n", sim.dir,
			strerror(-r));
	return r;
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

/*
 * UMAD_SIM_HOST and UMAD_SIM_CA_NAME: the attached nodes and their device
 * names.  With a shared fabric the server found the nodes: remote[n_remote].
 */
static int choose_hosts(const char *topology_name, const struct fp_node *remote,
			unsigned n_remote)
{
	const char *wanted = getenv("UMAD_SIM_HOST");
	const char *names = getenv("UMAD_SIM_CA_NAME");
	int n = list_length(wanted), n_names = list_length(names), i, j, id = 0;
	char item[256];

	if (n > MAX_HOSTS) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_HOST=%s: at most %d nodes\n", wanted,
			MAX_HOSTS);
		return -EINVAL;
	}
	if (n_names > (n ? n : 1)) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_CA_NAME=%s names more devices than "
			"UMAD_SIM_HOST attaches\n", names);
		return -EINVAL;
	}
	sim.n_hosts = remote ? (int)n_remote : n ? n : 1;
	for (i = 0; i < sim.n_hosts; i++) {
		struct sim_host *h = &sim.hosts[i];

		if (remote) {
			h->node = NULL;
			h->info = remote[i];
		} else {
			h->node = n ? sim_fabric_find(sim.fabric,
						      list_item(wanted, i, item, sizeof(item)))
				    : sim_fabric_default_host(sim.fabric);
			if (!h->node) {
				fprintf(stderr, "libumad: sim: UMAD_SIM_HOST=%s: '%s' names no node "
					"of %s\n", wanted, item, topology_name);
				return -ENOENT;
			}
			fp_node_fill(&h->info, h->node);
		}
		for (j = 0; j < i; j++) {
			if (sim.hosts[j].info.node_guid == h->info.node_guid) {
				fprintf(stderr, "libumad: sim: UMAD_SIM_HOST=%s attaches at %s twice\n",
					wanted, h->info.name);
				return -EINVAL;
			}
		}
		if (i < n_names) {
			list_item(names, i, item, sizeof(item));
			if (!valid_ca_name(item)) {
				fprintf(stderr, "libumad: sim: UMAD_SIM_CA_NAME=%s: a device name is 1 "
					"to %d letters, digits, '_', '-' or '.' (and not . or ..)\n",
					names, UMAD_CA_NAME_LEN - 1);
				return -EINVAL;
			}
			snprintf(h->ca_name, sizeof(h->ca_name), "%s", item);
		} else {
			snprintf(h->ca_name, sizeof(h->ca_name), "sim%d", i);
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(sim.hosts[j].ca_name, h->ca_name)) {
				fprintf(stderr, "libumad: sim: two devices named %s\n", h->ca_name);
				return -EINVAL;
			}
		}
		for (j = 0; j < MAX_HOST_PORTS; j++)
			h->umad_ids[j] = host_port_valid(h, j) ? id++ : -1;
	}
	return 0;
}

/* UMAD_SIM_SM: builtin (the default) or none; -1 for anything else. */
static int builtin_sm_wanted(void)
{
	const char *sm = getenv("UMAD_SIM_SM");

	if (!sm || !*sm || !strcmp(sm, "builtin"))
		return 1;
	if (!strcmp(sm, "none"))
		return 0;
	fprintf(stderr, "libumad: sim: UMAD_SIM_SM=%s: expected builtin or none\n", sm);
	return -1;
}

/* --- a shared fabric: the server's events ------------------------------------------ */

static void shared_deliver(uint32_t host, uint32_t port, uint32_t qpn, const struct ib_user_mad *hdr,
			   const uint8_t *mad, size_t len, uint64_t due_ns)
{
	soft_port_receive_at(&sim.hosts[host].device_port[port], qpn, hdr, mad, len, due_ns);
}

static void shared_node_changed(uint32_t host)
{
	pthread_mutex_lock(&sim.lock);
	if (sim.write_sysfs)
		write_sysfs(&sim.hosts[host]);
	pthread_mutex_unlock(&sim.lock);
}

static void shared_issm_changed(void)
{
	pthread_mutex_lock(&sim.lock);
	check_for_real_sm();
	pthread_mutex_unlock(&sim.lock);
}

/* UMAD_SIM_FABRIC=PATH: attach at a fabric a server holds. */
static int shared_init(const char *path)
{
	const char *wanted = getenv("UMAD_SIM_HOST");
	char items[MAX_HOSTS][FP_NAME_MAX];
	const char *names[MAX_HOSTS];
	struct fp_node nodes[FP_MAX_HOSTS];
	unsigned n = (unsigned)list_length(wanted), i, n_nodes = 0;
	struct sim_shared_events ev = {
		.deliver = shared_deliver,
		.node_changed = shared_node_changed,
		.watch_ready = shared_issm_changed,
	};
	int h, r;

	if (n > MAX_HOSTS) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_HOST=%s: at most %d nodes\n", wanted,
			MAX_HOSTS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		names[i] = list_item(wanted, (int)i, items[i], sizeof(items[i]));
	r = sim_shared_connect(path, names, n, nodes, &n_nodes);
	if (r < 0)
		return r;
	sim.shared = 1;
	r = choose_hosts(path, nodes, n_nodes);
	if (r == 0)
		r = make_runtime_dir();
	pthread_mutex_lock(&sim.lock);
	for (h = 0; r == 0 && sim.write_sysfs && h < sim.n_hosts; h++)
		r = write_sysfs(&sim.hosts[h]);
	if (r == 0)
		issm_watch_start();
	pthread_mutex_unlock(&sim.lock);
	ev.watch_fd = issm_watch.fd;
	if (r == 0)
		r = sim_shared_start(&ev);
	if (r < 0) {
		issm_watch_stop();
		runtime_dir_remove(&sim.private_dir);
		sim_shared_disconnect();
		sim.shared = 0;
		sim.n_hosts = 0;
	}
	return r;
}

static int sim_init(void)
{
	const char *path = getenv("UMAD_SIM_TOPOLOGY");
	const char *fabric = getenv("UMAD_SIM_FABRIC");
	const char *topology_name = path && *path ? path : "the default fabric";
	char *errors = NULL;
	int builtin = builtin_sm_wanted(), h, r;

	if (builtin < 0)
		return -EINVAL;
	if (fabric && *fabric)
		return shared_init(fabric);
	if (path && *path)
		sim.fabric = sim_topology_load(path, &errors);
	else
		sim.fabric = sim_topology_parse(sim_default_topology, "<default fabric>", &errors);
	if (!sim.fabric) {
		fprintf(stderr, "libumad: sim: cannot load the topology:\n%s", errors ? errors : "");
		free(errors);
		return -EINVAL;
	}
	r = choose_hosts(topology_name, NULL, 0);
	if (r == 0) {
		r = sim_net_init(&sim.net, sim.fabric, builtin, &hooks, &endpoints, &errors);
		if (r == -ENOSPC || r == -ENODEV) {
			/* More ports than unicast LIDs, or nowhere for an SM: as no SM left it. */
			fprintf(stderr, "libumad: sim: the built-in SM cannot bring %s up, so it "
				"stays as it powers up (UMAD_SIM_SM=none): %s\n", topology_name,
				errors ? errors : strerror(-r));
			free(errors);
			errors = NULL;
			sim_net_fini(&sim.net);
			r = sim_net_init(&sim.net, sim.fabric, 0, &hooks, &endpoints, &errors);
		}
		if (r < 0) {
			fprintf(stderr, "libumad: sim: cannot bring %s up: %s\n", topology_name,
				errors ? errors : strerror(-r));
			free(errors);
		}
	}
	if (r == 0)
		r = make_runtime_dir();
	pthread_mutex_lock(&sim.lock);
	for (h = 0; r == 0 && sim.write_sysfs && h < sim.n_hosts; h++)
		r = write_sysfs(&sim.hosts[h]);
	if (r == 0)
		issm_watch_start();
	pthread_mutex_unlock(&sim.lock);
	if (r < 0) {
		runtime_dir_remove(&sim.private_dir);
		sim_net_fini(&sim.net);
		sim_fabric_free(sim.fabric);
		sim.fabric = NULL;
		sim.n_hosts = 0;
		return r;
	}
	return 0;
}

static void sim_fini(void)
{
	sim_shared_disconnect();
	sim.shared = 0;
	soft_port_close_all();
	issm_watch_stop();
	runtime_dir_remove(&sim.private_dir);
	sim_net_fini(&sim.net);
	sim_fabric_free(sim.fabric);
	sim.fabric = NULL;
	sim.n_hosts = 0;
}

/* --- devices ----------------------------------------------------------------------- */

static int sim_for_each_ca(umad_ca_visit_fn visit, void *arg)
{
	int i, r;

	for (i = 0; i < sim.n_hosts; i++) {
		r = visit(sim.hosts[i].ca_name, arg);
		if (r)
			return r;
	}
	return 0;
}

static int sim_get_ca(const char *ca_name, umad_ca_t *ca)
{
	struct sim_host *h = host_by_name(ca_name);
	struct fp_port views[MAX_HOST_PORTS];
	int r;

	if (!h)
		return -ENOENT;
	pthread_mutex_lock(&sim.lock);
	r = fill_ca(h, views, ca);
	pthread_mutex_unlock(&sim.lock);
	if (r < 0)
		umad_backend_free_ca_ports(ca);
	return r;
}

static int sim_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	struct sim_host *h = host_by_name(ca_name);
	struct fp_port views[MAX_HOST_PORTS];
	int r;

	if (!h || !host_port_valid(h, portnum))
		return -ENOENT;
	pthread_mutex_lock(&sim.lock);
	r = host_views(h, views);
	pthread_mutex_unlock(&sim.lock);
	if (r == 0)
		r = fill_port(h, portnum, &views[portnum], port);
	return r;
}

static int sim_get_issm_path(const char *ca_name, int portnum, char *path, size_t max)
{
	struct sim_host *h = host_by_name(ca_name);

	if (!h || !host_port_valid(h, portnum))
		return -EINVAL;
	return issm_path(h, portnum, path, max);
}

/* --- ports ------------------------------------------------------------------------- */

static int sim_open_port(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno)
{
	struct sim_host *h = host_by_name(ca_name);
	int fd;

	if (!h || !host_port_valid(h, portnum))
		return -EINVAL;
	if (sim.shared) {
		/* The server's handle, plus one, is the port's data. */
		int handle = sim_shared_open(host_index(h), (uint32_t)portnum);

		if (handle < 0) {
			*open_errno = -handle;
			return -EIO;
		}
		fd = soft_port_open(&h->device_port[portnum], h->info.type == NODE_TYPE_SWITCH,
				    (unsigned)portnum, (void *)((uintptr_t)handle + 1), open_errno);
		if (fd < 0)
			sim_shared_close((uint32_t)handle);
	} else {
		fd = soft_port_open(&h->node->ports[portnum], h->node->type == NODE_TYPE_SWITCH,
				    (unsigned)portnum, &h->node->ports[portnum], open_errno);
	}
	if (fd >= 0)
		*hdr_size = MAD_RULES_HDR_SIZE;
	return fd;
}

/* The server's handle of a port opened on a shared fabric; -EBADF when not open. */
static int shared_handle(int portid)
{
	struct soft_port *p = soft_port_get(portid);
	int handle;

	if (!p)
		return -EBADF;
	handle = (int)((uintptr_t)p->data - 1);
	soft_port_put(p);
	return handle;
}

static int sim_close_port(int portid)
{
	int handle = sim.shared ? shared_handle(portid) : -1;
	int r = soft_port_close(portid);

	if (r == 0 && handle >= 0)
		sim_shared_close((uint32_t)handle);
	return r;
}

/*
 * A real SM registers its SA as a server (an SA agent that receives Gets;
 * a client receiving Reports does not count); that, or its issm device held
 * open, retires the built-in SM.
 */
static int sim_register(int portid, struct umad_agent_req *req, uint32_t *agent_id)
{
	int r = soft_port_register(portid, req, agent_id);

	if (r == 0 && sim.shared) {
		/* The server routes MADs by the agents; it also refuses another process's clash. */
		int handle = shared_handle(portid);
		int rr = handle < 0 ? handle : sim_shared_register((uint32_t)handle, *agent_id, req, 1);

		if (rr < 0) {
			soft_port_unregister(portid, *agent_id);
			return rr;
		}
		pthread_mutex_lock(&sim.lock);
		check_for_real_sm();
		pthread_mutex_unlock(&sim.lock);
		return 0;
	}
	if (r == 0 && sim.net.sm_active) {
		pthread_mutex_lock(&sim.lock);
		if (req->mgmt_class == UMAD_CLASS_SUBN_ADM &&
		    ((req->method_mask[0] >> UMAD_METHOD_GET) & 1))
			sim_net_sm_step_aside(&sim.net);
		else
			check_for_real_sm();
		pthread_mutex_unlock(&sim.lock);
	}
	return r;
}

/*
 * Queue an answer for the agent that sent the request (mad: as sent, not
 * the copy answered in place), as late as the links' delays made it
 * (fabric lock held).
 */
static int queue_answer(struct soft_port *op, const struct ib_user_mad *hdr, const uint8_t *mad,
			const struct umad_agent_req *agent, const struct sim_net_msg *answer)
{
	struct ib_user_mad reply;
	uint64_t due = answer->delay_ns ? mad_queue_now_ns() + answer->delay_ns : 0;

	received_header(&reply, answer);
	reply.agent_id = hdr->agent_id;
	reply.addr.pkey_index = hdr->addr.pkey_index;
	return soft_port_answer_at(op, hdr, mad, &reply, agent, answer->data, answer->len, due, 0);
}

/*
 * Does the fabric answer this class itself at the node a request went to
 * (the PMA and the congestion control agent at every node, the built-in
 * SA while it runs)?  Then a request lost there was that agent's refusal.
 */
static int fabric_answers_class(uint8_t mgmt_class)
{
	return mgmt_class == UMAD_CLASS_PERF_MGMT || mgmt_class == UMAD_CLASS_CONG_MGMT ||
	       (mgmt_class == UMAD_CLASS_SUBN_ADM && sim.net.sm_active);
}

/*
 * A request that will time out because it reached a port where nothing of
 * this process takes its class: the taker may be another process, which
 * has a fabric of its own.  Said once per process.  Fabric lock held.
 */
static void hint_own_fabric(const struct sim_net_msg *m, uint64_t lost_before)
{
	static int hinted;

	if (hinted || sim.net.lost_no_taker == lost_before || m->dqpn != QP1_GSI ||
	    mad_method_is_response(mad_method(m->data)) ||
	    fabric_answers_class(mad_class(m->data)))
		return;
	hinted = 1;
	fprintf(stderr, "libumad: sim: nothing in this process takes the MAD sent to LID %u "
		"(class 0x%02x), so it will time out: each process has its own copy of the "
		"fabric.  Processes share one under `umad sim -- CMD`, or with `umad fabric "
		"serve` and UMAD_SIM_FABRIC=SOCKET.\n", m->dlid, mad_class(m->data));
}

/* Carry a checked send through the fabric; its answer or its timeout goes on the port's queue. */
static int deliver(struct soft_port *op, const struct ib_user_mad *hdr,
		   const struct umad_agent_req *agent, uint8_t *mad, size_t mad_len)
{
	struct sim_port *from = op->data;
	const uint8_t *whole = (const uint8_t *)hdr + MAD_RULES_HDR_SIZE;
	struct sim_net_msg m = {
		.port = from,
		.slid = sim_mgmt_port(from->node, from->num)->lid,
		.dlid = be16toh(hdr->addr.lid),
		.sqpn = agent->qpn,
		.dqpn = be32toh(hdr->addr.qpn) & IB_QPN_MASK,
		.qkey = be32toh(hdr->addr.qkey),
		.pkey = sim_port_pkey(from, hdr->addr.pkey_index % SIM_PKEY_TABLE_SIZE),
		.sl = hdr->addr.sl,
		/* SMPs are answered in the copy; other classes travel whole (RMPP included). */
		.data = mad_len > MAD_SIZE ? whole : mad,
		.len = mad_rules_send_len(agent, mad, mad_len),
	};
	struct sim_net_reply reply;
	enum sim_net_result result;
	uint64_t lost_before;
	int r = 0;

	pthread_mutex_lock(&sim.lock);
	/* Traps a real SM has not repressed go again while the program talks to the fabric. */
	if (sim.net.n_pending)
		sim_net_tick(&sim.net, sim_net_now_ns());
	lost_before = sim.net.lost_no_taker;
	result = sim_net_send(&sim.net, &m, mad, &reply);
	/*
	 * The kernel matches answers to waiting sends only: a send without a
	 * timeout, or a response, completes with no answer.  A request an agent
	 * elsewhere took waits for that agent's answer or its timeout; the
	 * timeout is set before the fabric lock is released, so that the
	 * answer, sent under the lock, finds it.
	 */
	if (result == SIM_NET_ANSWERED && hdr->timeout_ms) {
		r = queue_answer(op, hdr, whole, agent, &reply.msg);
	} else {
		if (result == SIM_NET_LOST && hdr->timeout_ms)
			hint_own_fabric(&m, lost_before);
		r = soft_port_no_answer(op, hdr, mad, 0);
	}
	pthread_mutex_unlock(&sim.lock);
	sim_net_reply_release(&reply);
	return r;
}

static int sim_unregister(int portid, uint32_t agent_id)
{
	int handle = sim.shared ? shared_handle(portid) : -1;
	int r = soft_port_unregister(portid, agent_id);

	if (r == 0 && handle >= 0)
		sim_shared_register((uint32_t)handle, agent_id, NULL, 0);
	return r;
}

static ssize_t sim_send(int portid, const void *umad, size_t len)
{
	return soft_port_send(portid, umad, len, sim.shared ? sim_shared_deliver : deliver);
}

/* On a shared fabric, replies to sends posted without waiting are read first (sim_shared.h). */
static ssize_t sim_recv(int portid, void *umad, size_t len)
{
	return sim.shared ? sim_shared_recv(portid, umad, len) : soft_port_recv(portid, umad, len);
}

static int sim_pending(int portid)
{
	return sim.shared ? sim_shared_pending(portid) : soft_port_pending(portid);
}

static int sim_wait(int portid, int timeout_ms)
{
	return sim.shared ? sim_shared_wait(portid, timeout_ms) : soft_port_wait(portid, timeout_ms);
}

static void sim_watch_fd(int portid)
{
	if (sim.shared)
		sim_shared_watch_fd(portid);
	else
		soft_port_watch_fd(portid);
}

/* --- faults (libumad-sim) ------------------------------------------------------------ */

static void after_fault(void)
{
	int h;

	for (h = 0; sim.write_sysfs && h < sim.n_hosts; h++)
		write_sysfs(&sim.hosts[h]);
}

/*
 * Every fault of libumad-sim: on this process's fabric, or the server's.
 * After one that changes ports (sim_fault_changes_ports) a server tells
 * every client, this one too, but its events thread rewrites the tree
 * later: the caller's own is rewritten before the call returns, as
 * in-process.
 */
static int control_apply(const struct sim_fault_req *rq)
{
	int r = -ENODEV;

	if (sim.shared)
		r = sim_shared_control(rq);
	pthread_mutex_lock(&sim.lock);
	if (!sim.shared && sim.fabric)
		r = sim_fault_apply(&sim.net, rq, NULL, 0);
	if (r == 0 && sim_fault_changes_ports(rq->op))
		after_fault();
	pthread_mutex_unlock(&sim.lock);
	return r;
}

/* Found by libumad-sim with dlsym (libumad/base/sim_control.h). */
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
};
