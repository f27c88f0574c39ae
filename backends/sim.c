/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sim backend (UMAD_BACKEND=sim): a simulated fabric inside the
 * process.  The topology comes from UMAD_SIM_TOPOLOGY (ibsim's net format
 * or ibnetdiscover output) or the embedded default; the process is attached
 * at one node (UMAD_SIM_HOST: node id, description or GUID; by default the
 * first CA of the file), which it sees as one device, UMAD_SIM_CA_NAME
 * ("sim0" by default).
 *
 * A send is carried through the fabric and answered synchronously under
 * one fabric lock; the answer (or, when it is lost, a timeout after
 * timeout_ms * (retries + 1)) is queued on the port's pollable queue.
 *
 * With UMAD_SIM_SYSFS=DIR the host's device is also written there as a
 * fake sysfs tree, rewritten whenever an SM changes the host's ports.  The
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

#include "backends/backend.h"
#include "backends/runtime_dir.h"
#include "backends/soft_port.h"
#include "libumad/mad_wire.h"
#include "simfabric/route.h"
#include "simfabric/sma.h"
#include "backends/sysfs_writer.h"
#include "simfabric/topology.h"

#define MAX_HOST_PORTS	(SIM_MAX_PORTS + 1)

static struct {
	pthread_mutex_t lock;		/* the fabric: every model access */
	struct sim_fabric *fabric;
	struct sim_node *host;
	char ca_name[UMAD_CA_NAME_LEN];
	char dir[PATH_MAX];		/* runtime directory: fake sysfs and issm files */
	struct runtime_dir private_dir;	/* ours when UMAD_SIM_SYSFS is not set */
	int write_sysfs;		/* UMAD_SIM_SYSFS asked for the fake sysfs tree */
	int umad_ids[MAX_HOST_PORTS];
} sim = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.private_dir = { .lock_fd = -1 },
};

static int host_port_valid(int portnum)
{
	if (sim.host->type == NODE_TYPE_SWITCH)
		return portnum == 0;
	return portnum >= 1 && portnum <= sim.host->num_ports;
}

/* --- IsSM: the issm file held open ---------------------------------------------------- */

static int issm_path(int portnum, char *path, size_t max)
{
	return sysfs_path(path, max, "%s/" SYSFS_DEV_DIR "/" SYSFS_ISSM_NAME, sim.dir,
			  sim.umad_ids[portnum]);
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
 * Opens and closes of the issm files, counted from inotify's events: a
 * look at the count is one read(2) of the watch, where scanning the
 * process's descriptors took a readlink(2) each on every PortInfo of the
 * host.  The kernel reports an open before open(2) returns and the last
 * close before close(2) does.  Without inotify, or when its queue
 * overflowed, the scan decides.  Fabric lock held throughout.
 */
static struct {
	int fd;				/* -1: no watch */
	int wd[MAX_HOST_PORTS];
	int opens[MAX_HOST_PORTS];
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
	int i;

	issm_watch.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (i = 0; issm_watch.fd >= 0 && i < MAX_HOST_PORTS; i++) {
		issm_watch.wd[i] = -1;
		if (!host_port_valid(i))
			continue;
		if (issm_path(i, path, sizeof(path)) < 0 ||
		    (issm_watch.wd[i] = inotify_add_watch(issm_watch.fd, path,
							  IN_OPEN | IN_CLOSE)) < 0) {
			issm_watch_stop();
			return;
		}
		/* Held open before the watch began: by this process, as far as we can see. */
		issm_watch.opens[i] = held_open(path);
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
			for (i = 0; i < MAX_HOST_PORTS; i++) {
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

/* Bring CapabilityMask.IsSM of a host port in line with its issm file. Fabric lock held. */
static void refresh_is_sm(struct sim_port *p)
{
	char path[PATH_MAX];
	int held;

	if (p->node != sim.host)
		return;
	if (issm_watch.fd >= 0 && issm_watch_drain() < 0)
		issm_watch_stop();
	if (issm_watch.fd >= 0)
		held = issm_watch.opens[p->num] > 0;
	else
		held = issm_path(p->num, path, sizeof(path)) == 0 && held_open(path);
	if (held)
		p->capmask |= SIM_CAP_IS_SM;
	else
		p->capmask &= ~SIM_CAP_IS_SM;
}

/* --- what the host looks like ------------------------------------------------------ */

/* The rate sysfs shows: a link that is down shows the lowest (1X SDR), as the kernel does. */
static unsigned shown_rate_x10(const struct sim_port *p)
{
	unsigned x10 = sim_port_rate_x10(p);

	return x10 ? x10 : 25;
}

static int fill_port(const struct sim_port *p, umad_port_t *port)
{
	const struct sim_port *m = sim_mgmt_port(p->node, p->num);
	int i, r = umad_backend_port_init(port, sim.ca_name, p->num, SIM_PKEY_TABLE_SIZE);

	if (r < 0)
		return r;
	port->base_lid = m->lid;
	port->lmc = m->lmc;
	port->sm_lid = m->sm_lid;
	port->sm_sl = m->sm_sl;
	port->state = p->state;
	port->phys_state = p->phys_state;
	port->rate = (int)(shown_rate_x10(p) / 10);
	port->capmask = htobe32(p->capmask);
	port->gid_prefix = htobe64(m->gid_prefix);
	port->port_guid = htobe64(p->guid);
	snprintf(port->link_layer, sizeof(port->link_layer), "InfiniBand");
	for (i = 0; i < SIM_PKEY_TABLE_SIZE; i++)
		port->pkeys[i] = sim_port_pkey(p, (unsigned)i);
	return 0;
}

/* umad_backend_ca_add_port's filler: arg is the host's port. */
static int fill_ca_port(void *arg, const char *ca_name, int portnum, umad_port_t *port)
{
	(void)ca_name, (void)portnum;
	return fill_port(arg, port);
}

/* Fabric lock held. */
static int fill_ca(umad_ca_t *ca)
{
	struct sim_node *n = sim.host;
	int i, r;

	umad_backend_ca_init(ca, sim.ca_name);
	ca->node_type = (unsigned)n->type;
	ca->node_guid = htobe64(n->node_guid);
	ca->system_guid = htobe64(n->sys_guid);
	snprintf(ca->fw_ver, sizeof(ca->fw_ver), "%s", PACKAGE_VERSION);
	snprintf(ca->hw_ver, sizeof(ca->hw_ver), "0");
	snprintf(ca->ca_type, sizeof(ca->ca_type), "libumad-sim");
	for (i = 0; i <= n->num_ports && i < UMAD_CA_MAX_PORTS; i++) {
		if (!host_port_valid(i))
			continue;
		refresh_is_sm(&n->ports[i]);
		r = umad_backend_ca_add_port(ca, i, fill_ca_port, &n->ports[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Rewrite the fake sysfs tree from the model. Fabric lock held. */
static int write_sysfs(void)
{
	static char rates[MAX_HOST_PORTS][64];
	const char *rate_texts[UMAD_CA_MAX_PORTS] = { 0 };
	char err[PATH_MAX + 128];
	umad_ca_t ca;
	int i, r;

	r = fill_ca(&ca);
	if (r < 0)
		return r;
	for (i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		const struct sim_port *p;
		unsigned x10;

		if (!ca.ports[i])
			continue;
		p = &sim.host->ports[i];
		x10 = shown_rate_x10(p);
		if (x10 % 10)
			snprintf(rates[i], sizeof(rates[i]), "%u.%u Gb/sec (%s %s)", x10 / 10, x10 % 10,
				 p->width_active ? sim_width_name(p->width_active) : "1X",
				 sim_speed_name(p));
		else
			snprintf(rates[i], sizeof(rates[i]), "%u Gb/sec (%s %s)", x10 / 10,
				 sim_width_name(p->width_active), sim_speed_name(p));
		rate_texts[i] = rates[i];
	}
	r = sysfs_write_ca(sim.dir, &ca, sim.host->desc, sim.umad_ids, rate_texts, err,
			       sizeof(err));
	if (r < 0)
		fprintf(stderr, "libumad: sim: %s\n", err);
	umad_backend_free_ca_ports(&ca);
	return r;
}

/* SMA hooks: IsSM read fresh, sysfs rewritten after the host changed. */
static void hook_before_port_read(void *arg, struct sim_port *p)
{
	(void)arg;
	refresh_is_sm(p);
}

static void hook_node_changed(void *arg, struct sim_node *n)
{
	(void)arg;
	if (n == sim.host && sim.write_sysfs)
		write_sysfs();
}

static const struct sim_sma_hooks hooks = {
	.before_port_read = hook_before_port_read,
	.node_changed = hook_node_changed,
};

/* --- set-up ------------------------------------------------------------------------ */

static struct sim_node *choose_host(const char *wanted)
{
	size_t i;

	if (wanted && *wanted)
		return sim_fabric_find(sim.fabric, wanted);
	for (i = 0; i < sim.fabric->n_nodes; i++)
		if (sim.fabric->nodes[i]->type == NODE_TYPE_CA)
			return sim.fabric->nodes[i];
	return sim.fabric->nodes[0];
}

/* Create the empty issm files of a private runtime directory. */
static int make_issm_files(void)
{
	char path[PATH_MAX];
	int i, r;

	/* Owner-only, unlike a fake sysfs tree: the directory is this process's. */
	static const char *const dirs[] = { "dev", SYSFS_DEV_DIR };
	size_t d;

	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		if (sysfs_path(path, sizeof(path), "%s/%s", sim.dir, dirs[d]) < 0)
			return -ENAMETOOLONG;
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -errno;
	}
	for (i = 0; i <= sim.host->num_ports && i < MAX_HOST_PORTS; i++) {
		if (!host_port_valid(i))
			continue;
		if (issm_path(i, path, sizeof(path)) < 0)
			return -ENAMETOOLONG;
		r = sysfs_touch(path);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The runtime directory: UMAD_SIM_SYSFS when the user wants the fake sysfs
 * tree (kept, and rewritten live); otherwise a private directory on a
 * memory file system, holding only the issm files, removed at exit (and,
 * if the process dies without exit handlers, by the next one to start).
 */
static int make_runtime_dir(void)
{
	const char *dir = getenv("UMAD_SIM_SYSFS");
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), "/dev/shm", getenv("TMPDIR"), "/tmp" };
	int r;

	if (dir && *dir) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			fprintf(stderr, "libumad: sim: cannot create UMAD_SIM_SYSFS=%s: %s\n", dir,
				strerror(-r));
			return r;
		}
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

static int sim_init(void)
{
	const char *path = getenv("UMAD_SIM_TOPOLOGY");
	const char *name = getenv("UMAD_SIM_CA_NAME");
	char *errors = NULL;
	int i, id, r;

	if (name && *name && !valid_ca_name(name)) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_CA_NAME=%s: a device name is 1 to %d letters, "
			"digits, '_', '-' or '.' (and not . or ..)\n", name, UMAD_CA_NAME_LEN - 1);
		return -EINVAL;
	}
	if (path && *path)
		sim.fabric = sim_topology_load(path, &errors);
	else
		sim.fabric = sim_topology_parse(sim_default_topology, "<default fabric>", &errors);
	if (!sim.fabric) {
		fprintf(stderr, "libumad: sim: cannot load the topology:\n%s", errors ? errors : "");
		free(errors);
		return -EINVAL;
	}
	sim.host = choose_host(getenv("UMAD_SIM_HOST"));
	if (!sim.host) {
		fprintf(stderr, "libumad: sim: UMAD_SIM_HOST=%s names no node of %s\n",
			getenv("UMAD_SIM_HOST"), path && *path ? path : "the default fabric");
		sim_fabric_free(sim.fabric);
		sim.fabric = NULL;
		return -ENOENT;
	}
	snprintf(sim.ca_name, sizeof(sim.ca_name), "%s", name && *name ? name : "sim0");
	for (i = 0, id = 0; i <= sim.host->num_ports && i < MAX_HOST_PORTS; i++)
		sim.umad_ids[i] = host_port_valid(i) ? id++ : -1;
	r = make_runtime_dir();
	if (r == 0 && sim.write_sysfs) {
		pthread_mutex_lock(&sim.lock);
		r = write_sysfs();
		pthread_mutex_unlock(&sim.lock);
	}
	if (r < 0) {
		runtime_dir_remove(&sim.private_dir);
		sim_fabric_free(sim.fabric);
		sim.fabric = NULL;
		return r;
	}
	pthread_mutex_lock(&sim.lock);
	issm_watch_start();
	pthread_mutex_unlock(&sim.lock);
	return 0;
}

static void sim_fini(void)
{
	soft_port_close_all();
	issm_watch_stop();
	runtime_dir_remove(&sim.private_dir);
	sim_fabric_free(sim.fabric);
	sim.fabric = NULL;
}

/* --- devices ----------------------------------------------------------------------- */

static int sim_for_each_ca(umad_ca_visit_fn visit, void *arg)
{
	return visit(sim.ca_name, arg);
}

static int sim_get_ca(const char *ca_name, umad_ca_t *ca)
{
	int r;

	if (strcmp(ca_name, sim.ca_name))
		return -ENOENT;
	pthread_mutex_lock(&sim.lock);
	r = fill_ca(ca);
	pthread_mutex_unlock(&sim.lock);
	return r;
}

static int sim_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	int r;

	if (strcmp(ca_name, sim.ca_name) || !host_port_valid(portnum))
		return -ENOENT;
	pthread_mutex_lock(&sim.lock);
	refresh_is_sm(&sim.host->ports[portnum]);
	r = fill_port(&sim.host->ports[portnum], port);
	pthread_mutex_unlock(&sim.lock);
	return r;
}

static int sim_get_issm_path(const char *ca_name, int portnum, char *path, size_t max)
{
	if (strcmp(ca_name, sim.ca_name) || !host_port_valid(portnum))
		return -EINVAL;
	return issm_path(portnum, path, max);
}

/* --- ports ------------------------------------------------------------------------- */

static int sim_open_port(const char *ca_name, int portnum, size_t *hdr_size, int *open_errno)
{
	int fd;

	if (strcmp(ca_name, sim.ca_name) || !host_port_valid(portnum))
		return -EINVAL;
	fd = soft_port_open(&sim.host->ports[portnum], sim.host->type == NODE_TYPE_SWITCH,
			    (unsigned)portnum, &sim.host->ports[portnum], open_errno);
	if (fd >= 0)
		*hdr_size = MAD_RULES_HDR_SIZE;
	return fd;
}

/* Carry a checked send through the fabric; its answer or its timeout goes on the port's queue. */
static int deliver(struct soft_port *op, const struct ib_user_mad *hdr,
		   const struct umad_agent_req *agent, uint8_t *mad, size_t mad_len)
{
	struct sim_port *from = op->data;
	struct ib_user_mad reply;
	uint16_t slid = 0;
	int answered = 0;

	(void)mad_len;	/* the fabric carries whole MADs */
	/*
	 * Only SMPs sent on QP0 are answered (an SMP class on QP1, or a GMP on
	 * QP0, is dropped by the receiver); answers and TrapRepress the
	 * application sends, and GMPs, reach no one in this fabric yet.
	 */
	if (mad_class_is_smp(mad_class(mad)) && agent->qpn == QP0_SMI &&
	    !mad_rules_method_is_response(mad_class(mad), mad_method(mad), mad_attr_mod(mad))) {
		pthread_mutex_lock(&sim.lock);
		answered = sim_smp_round_trip(sim.fabric, from, be16toh(hdr->addr.lid), mad, &slid,
					      &hooks);
		pthread_mutex_unlock(&sim.lock);
	}
	/* No answer arrives for a send without a timeout: the kernel matches answers to waiting sends. */
	if (!answered || !hdr->timeout_ms)
		return soft_port_no_answer(op, hdr, mad);
	memset(&reply, 0, sizeof(reply));
	reply.agent_id = hdr->agent_id;
	reply.addr.qpn = htobe32(QP0_SMI);
	reply.addr.lid = htobe16(slid);
	reply.addr.sl = hdr->addr.sl;
	reply.addr.pkey_index = hdr->addr.pkey_index;
	return mad_queue_push(&op->q, &reply, mad, MAD_SIZE);
}

static ssize_t sim_send(int portid, const void *umad, size_t len)
{
	return soft_port_send(portid, umad, len, deliver);
}

const struct umad_backend umad_backend_sim = {
	.abi = UMAD_BACKEND_ABI,
	.name = "sim",
	.description = "a simulated fabric in the process (UMAD_SIM_TOPOLOGY, UMAD_SIM_HOST)",
	.init = sim_init,
	.fini = sim_fini,
	.for_each_ca = sim_for_each_ca,
	.get_ca = sim_get_ca,
	.get_port = sim_get_port,
	.get_issm_path = sim_get_issm_path,
	.open_port = sim_open_port,
	.close_port = soft_port_close,
	.register_agent = soft_port_register,
	.unregister_agent = soft_port_unregister,
	.send = sim_send,
	.recv = soft_port_recv,
	.pending = soft_port_pending,
	.wait = soft_port_wait,
	.watch_fd = soft_port_watch_fd,
};
