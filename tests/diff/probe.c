/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Differential probe: exercises libibumad through rdma-core's public API on
 * whatever sysfs/devfs it sees and prints one line per observation.
 *
 * It is compiled unchanged against rdma-core's headers and against ours, and
 * each binary is run with rdma-core's library and with ours; the outputs must
 * be identical (tests/diff/run.sh).  Rules that keep the output comparable:
 *   - every line starts with the call it reports, "func(args)", so lines of a
 *     function one library lacks can be dropped (see "absent" below);
 *   - pointers are never printed, file descriptors only relative to the
 *     first free descriptor at start-up;
 *   - values where our library deliberately differs from rdma-core are
 *     printed on their own line tagged "[quirk:NAME]"; run.sh drops the
 *     tags it allows, each with its reason;
 *   - the v53+/v56+ functions are looked up with dlsym(): when missing, the
 *     probe prints "absent(NAME)" and run.sh ignores NAME's lines, and
 *     everything between "begin(NAME)" and "end(NAME)" (library warnings).
 * stderr is merged into stdout so that library warnings appear in order.
 *
 * Usage: probe            run everything on the current fixture
 *        probe --strings  the string tables (umad_str.h)
 *        probe --which    print the file the library was loaded from
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_str.h>

#define NAME_LEN	UMAD_CA_NAME_LEN
#define MAX_NAMES	64
#define BUF_SIZE	4096
#define MAX_PAIRS	192	/* not UMAD_MAX_PORTS: it differs between header versions */

/* The v56 pair structure, declared here so the probe builds with v44 headers too. */
struct probe_ca_pair {
	char smi_name[NAME_LEN];
	uint32_t smi_preferred_port;
	char gsi_name[NAME_LEN];
	uint32_t gsi_preferred_port;
};

typedef int (*open_smi_port_fn)(const char *, int);
typedef int (*get_pairs_fn)(struct probe_ca_pair *, size_t);
typedef int (*get_pair_by_name_fn)(const char *, uint8_t, struct probe_ca_pair *, unsigned);

static int fd_base;			/* first free descriptor at start-up */
static char names[MAX_NAMES][256];	/* entries of /sys/class/infiniband, sorted */
static int n_names;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* A bounded, escaped rendering of a char array. */
static const char *str(const char *s, size_t max)
{
	static char bufs[4][256];
	static int which;
	char *b = bufs[which++ & 3];
	size_t i, o = 0;

	if (!s)
		return "(null)";
	b[o++] = '"';
	for (i = 0; i < max && s[i] && o < sizeof(bufs[0]) - 6; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			b[o++] = (char)c;
		else
			o += (size_t)sprintf(b + o, "\\x%02x", c);
	}
	b[o++] = '"';
	b[o] = '\0';
	return b;
}

/* errno as "N(NAME)". */
static const char *err(int e)
{
	static char bufs[4][48];
	static int which;
	char *b = bufs[which++ & 3];
	const char *name = e ? strerrorname_np(e) : "0";

	snprintf(b, sizeof(bufs[0]), "%d(%s)", e, name ? name : "?");
	return b;
}

/*
 * errno after CALL failed where rdma-core refuses without setting errno (it
 * keeps what the caller had); ours holds the error.  On a line of its own.
 */
static void errno_quirk(const char *call, int e);

/* A return value, decoded when it looks like -errno. */
static const char *rv(long r)
{
	static char bufs[4][64];
	static int which;
	char *b = bufs[which++ & 3];
	const char *name = r < 0 && r > -4096 ? strerrorname_np((int)-r) : NULL;

	if (name)
		snprintf(b, sizeof(bufs[0]), "%ld(-%s)", r, name);
	else
		snprintf(b, sizeof(bufs[0]), "%ld", r);
	return b;
}

static void errno_quirk(const char *call, int e)
{
	out("%s errno=%s [quirk:errno-on-error]", call, err(e));
}

static const char *fdrel(int fd)
{
	static char bufs[4][32];
	static int which;
	char *b = bufs[which++ & 3];

	if (fd < 0)
		return rv(fd);
	snprintf(b, sizeof(bufs[0]), "fd+%d", fd - fd_base);
	return b;
}

/* What a descriptor refers to, e.g. "/dev/infiniband/umad1". */
static const char *fdpath(int fd)
{
	static char b[PATH_MAX];
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, b, sizeof(b) - 1);
	if (n < 0)
		return "?";
	b[n] = '\0';
	return b;
}

static const char *arg(const char *name)
{
	static char bufs[4][300];
	static int which;
	char *b = bufs[which++ & 3];

	if (!name)
		return "NULL";
	snprintf(b, sizeof(bufs[0]), "%s", str(name, 255));
	return b;
}

static unsigned long long guid(__be64 g)
{
	return (unsigned long long)be64toh(g);
}

static void hexdump(const char *key, const void *p, size_t len)
{
	const uint8_t *b = p;
	char line[3 * 32 + 1];
	size_t i, o;

	for (i = 0; i < len; i += 32) {
		o = 0;
		for (size_t j = i; j < len && j < i + 32; j++)
			o += (size_t)sprintf(line + o, "%02x", b[j]);
		line[o] = '\0';
		out("%s @%zu %s", key, i, line);
	}
}

/* --- discovery ----------------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void scan_sysfs(void)
{
	DIR *d = opendir(SYS_INFINIBAND);	/* both libraries' umad.h name it */
	struct dirent *e;

	n_names = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && n_names < MAX_NAMES) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(names[n_names++], sizeof(names[0]), "%s", e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n_names, sizeof(names[0]), cmp_names);
}

static void print_port(const char *key, const umad_port_t *p)
{
	char pk[1024];
	size_t o = 0;
	unsigned i;

	out("%s ca_name=%s portnum=%d base_lid=%u lmc=%u sm_lid=%u sm_sl=%u state=%u "
	    "phys_state=%u rate=%u capmask=0x%08x gid_prefix=0x%016llx port_guid=0x%016llx "
	    "link_layer=%s", key, str(p->ca_name, NAME_LEN), p->portnum, p->base_lid, p->lmc,
	    p->sm_lid, p->sm_sl, p->state, p->phys_state, p->rate, be32toh(p->capmask),
	    guid(p->gid_prefix), guid(p->port_guid), str(p->link_layer, NAME_LEN));
	pk[0] = '\0';
	for (i = 0; p->pkeys && i < p->pkeys_size && o < sizeof(pk) - 8; i++)
		o += (size_t)sprintf(pk + o, "%s0x%04x", i ? "," : "", p->pkeys[i]);
	out("%s pkeys_size=%u pkeys=%s[%s]", key, p->pkeys_size, p->pkeys ? "" : "NULL", pk);
}

static void print_ca(const char *key, const umad_ca_t *ca)
{
	char k[1024];
	int i;

	out("%s ca_name=%s node_type=%u numports=%d fw_ver=%s ca_type=%s hw_ver=%s "
	    "node_guid=0x%016llx system_guid=0x%016llx", key, str(ca->ca_name, NAME_LEN),
	    ca->node_type, ca->numports, str(ca->fw_ver, sizeof(ca->fw_ver)),
	    str(ca->ca_type, sizeof(ca->ca_type)), str(ca->hw_ver, sizeof(ca->hw_ver)),
	    guid(ca->node_guid), guid(ca->system_guid));
	for (i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		snprintf(k, sizeof(k), "%s .ports[%d]", key, i);
		if (!ca->ports[i])
			out("%s absent", k);
		else
			print_port(k, ca->ports[i]);
	}
}

static void probe_cas_names(void)
{
	static char cas[MAX_NAMES][UMAD_CA_NAME_LEN];
	static const int maxes[] = { 0, 1, 2, 3, MAX_NAMES };
	unsigned m;
	int r, i;

	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		memset(cas, 0, sizeof(cas));
		errno = 0;
		r = umad_get_cas_names(cas, maxes[m]);
		out("umad_get_cas_names(max=%d) ret=%s", maxes[m], rv(r));
		for (i = 0; i < r && i < maxes[m]; i++)
			out("umad_get_cas_names(max=%d) [%d]=%s", maxes[m], i, str(cas[i], NAME_LEN));
	}
}

static void print_list(const char *key, struct umad_device_node *head)
{
	struct umad_device_node *n;
	int count = 0;

	for (n = head; n; n = n->next)
		out("%s [%d]=%s", key, count++, arg(n->ca_name));
	out("%s count=%d", key, count);
}

static void probe_device_list(void)
{
	struct umad_device_node *head;
	size_t count = 0;
	int r;

	errno = EBUSY;	/* documented: errno is 0 on return (also for an empty list) */
	head = umad_get_ca_device_list();
	out("umad_get_ca_device_list() %s errno=%s", head ? "list" : "NULL", err(errno));
	print_list("umad_get_ca_device_list()", head);
	for (struct umad_device_node *n = head; n; n = n->next)
		count++;

	errno = EBUSY;
	r = umad_sort_ca_device_list(&head, count + 1);
	errno_quirk("umad_sort_ca_device_list(size=count+1)", errno);
	out("umad_sort_ca_device_list(size=count+1) ret=%s", rv(r));
	r = umad_sort_ca_device_list(&head, 1);
	out("umad_sort_ca_device_list(size=1) ret=%s", rv(r));
	print_list("umad_sort_ca_device_list(size=1)", head);
	if (count > 1) {
		r = umad_sort_ca_device_list(&head, count - 1);
		out("umad_sort_ca_device_list(size=count-1) ret=%s", rv(r));
	}
	r = umad_sort_ca_device_list(&head, 0);
	out("umad_sort_ca_device_list(size=0) ret=%s", rv(r));
	print_list("umad_sort_ca_device_list(size=0)", head);
	r = umad_sort_ca_device_list(&head, count);
	out("umad_sort_ca_device_list(size=count) ret=%s", rv(r));
	print_list("umad_sort_ca_device_list(size=count)", head);
	umad_free_ca_device_list(head);
	out("umad_free_ca_device_list(list) done");
	umad_free_ca_device_list(NULL);
	out("umad_free_ca_device_list(NULL) done");
}

/* Every sysfs entry, then names that exist nowhere. */
static const char *target(int i)
{
	static const char *extra[] = { "nosuch", "", "mthca0" };

	if (i < n_names)
		return names[i];
	i -= n_names;
	return i < (int)(sizeof(extra) / sizeof(extra[0])) ? extra[i] : NULL;
}

#define N_TARGETS (n_names + 3)

static void probe_get_ca(void)
{
	char key[512];
	umad_ca_t ca;
	int i, r;

	for (i = -1; i < N_TARGETS; i++) {
		const char *name = i < 0 ? NULL : target(i);

		memset(&ca, 0, sizeof(ca));
		r = umad_get_ca(name, &ca);
		snprintf(key, sizeof(key), "umad_get_ca(%s)", arg(name));
		out("%s ret=%s", key, rv(r));
		if (r < 0)
			continue;
		print_ca(key, &ca);
		out("umad_release_ca(%s) ret=%s", arg(name), rv(umad_release_ca(&ca)));
	}
}

static void probe_get_port(void)
{
	static const int ports[] = { -1, 0, 1, 2, 3, 9, 10, 11 };
	char key[512];
	umad_port_t port;
	unsigned p;
	int i, r;

	for (i = -1; i < N_TARGETS; i++) {
		const char *name = i < 0 ? NULL : target(i);

		for (p = 0; p < sizeof(ports) / sizeof(ports[0]); p++) {
			memset(&port, 0, sizeof(port));
			r = umad_get_port(name, ports[p], &port);
			snprintf(key, sizeof(key), "umad_get_port(%s,%d)", arg(name), ports[p]);
			out("%s ret=%s", key, rv(r));
			if (r < 0)
				continue;
			print_port(key, &port);
			out("umad_release_port(%s,%d) ret=%s", arg(name), ports[p],
			    rv(umad_release_port(&port)));
		}
	}
}

static void probe_portguids(void)
{
	static const int maxes[] = { 0, 1, 2, 3, UMAD_CA_MAX_PORTS + 1 };
	__be64 g[UMAD_CA_MAX_PORTS + 2];
	unsigned m;
	int i, j, r;

	for (i = -1; i < N_TARGETS; i++) {
		const char *name = i < 0 ? NULL : target(i);

		errno = 0;
		r = umad_get_ca_portguids(name, NULL, 4);
		out("umad_get_ca_portguids(%s,NULL,4) ret=%s", arg(name), rv(r));
		for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
			memset(g, 0xee, sizeof(g));
			r = umad_get_ca_portguids(name, g, maxes[m]);
			out("umad_get_ca_portguids(%s,buf,%d) ret=%s", arg(name), maxes[m], rv(r));
			for (j = 0; j < r && j < maxes[m]; j++)
				out("umad_get_ca_portguids(%s,buf,%d) [%d]=0x%016llx", arg(name),
				    maxes[m], j, guid(g[j]));
		}
	}
}

static void probe_issm(void)
{
	static const int ports[] = { -1, 0, 1, 2, 5 };
	char path[256];
	unsigned p;
	int i, r;

	for (i = -1; i < N_TARGETS; i++) {
		const char *name = i < 0 ? NULL : target(i);

		for (p = 0; p < sizeof(ports) / sizeof(ports[0]); p++) {
			memset(path, 'x', sizeof(path));
			path[sizeof(path) - 1] = '\0';
			r = umad_get_issm_path(name, ports[p], path, sizeof(path));
			out("umad_get_issm_path(%s,%d,256) ret=%s path=%s", arg(name), ports[p],
			    rv(r), r == 0 ? str(path, sizeof(path)) : "-");
		}
	}
	/* Truncation: a buffer too small for the path. */
	for (i = 0; i < n_names; i++) {
		memset(path, 'x', sizeof(path));
		path[sizeof(path) - 1] = '\0';
		r = umad_get_issm_path(names[i], 1, path, 10);
		out("umad_get_issm_path(%s,1,10) ret=%s path=%s", arg(names[i]), rv(r),
		    r == 0 ? str(path, 12) : "-");
	}
}

/* --- ports and agents ------------------------------------------------------ */

static void probe_register(const char *what, int fd)
{
	long mask[16 / sizeof(long)];
	uint8_t oui[3] = { 0x00, 0x14, 0x05 };
	struct umad_reg_attr attr;
	uint32_t id;
	int r;

	memset(mask, 0, sizeof(mask));
	mask[0] = 0x2;
	errno = 0;
	r = umad_register(fd, 0x01, 1, 0, mask);
	out("umad_register(%s,class=0x01) ret=%s errno=%s", what, rv(r), err(errno));
	errno = 0;
	r = umad_register(fd, 0x04, 1, 0, NULL);
	out("umad_register(%s,class=0x04,mask=NULL) ret=%s errno=%s", what, rv(r), err(errno));
	errno = 0;
	r = umad_register(fd, 0x03, 2, 1, mask);
	out("umad_register(%s,class=0x03,rmpp=1) ret=%s errno=%s", what, rv(r), err(errno));

	errno = 0;
	r = umad_register_oui(fd, 0x30, 0, oui, mask);
	out("umad_register_oui(%s,class=0x30) ret=%s errno=%s", what, rv(r), err(errno));
	errno = 0;
	r = umad_register_oui(fd, 0x4f, 1, oui, NULL);
	out("umad_register_oui(%s,class=0x4f,mask=NULL) ret=%s errno=%s", what, rv(r), err(errno));
	errno = 0;
	r = umad_register_oui(fd, 0x2f, 0, oui, mask);
	errno_quirk("umad_register_oui(class=0x2f)", errno);
	out("umad_register_oui(%s,class=0x2f) ret=%s", what, rv(r));
	errno = 0;
	r = umad_register_oui(fd, 0x50, 0, oui, mask);
	errno_quirk("umad_register_oui(class=0x50)", errno);
	out("umad_register_oui(%s,class=0x50) ret=%s", what, rv(r));
	errno = 0;
	r = umad_register_oui(fd, 0x09, 0, oui, mask);
	errno_quirk("umad_register_oui(class=0x09)", errno);
	out("umad_register_oui(%s,class=0x09) ret=%s", what, rv(r));

	{
		static const struct {
			const char *desc;
			uint8_t mgmt_class;
			uint32_t flags;
			uint32_t oui;
			int bad_oui;	/* refused by the library itself */
		} cases[] = {
			{ "class=0x81", 0x81, 0, 0, 0 },
			{ "class=0x03,flags=RMPP", 0x03, UMAD_USER_RMPP, 0, 0 },
			{ "class=0x03,flags=0x80", 0x03, 0x80, 0, 0 },
			{ "class=0x30,oui=0", 0x30, 0, 0, 1 },
			{ "class=0x30,oui=0x01001405", 0x30, 0, 0x01001405, 1 },
			{ "class=0x30,oui=0x001405", 0x30, 0, 0x001405, 0 },
			{ "class=0x4f,oui=0,flags=RMPP", 0x4f, UMAD_USER_RMPP, 0, 1 },
			{ "class=0x2f,oui=0", 0x2f, 0, 0, 0 },
			{ "class=0x09,oui=0xff000000", 0x09, 0, 0xff000000, 0 },
		};
		unsigned c;

		for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			memset(&attr, 0, sizeof(attr));
			attr.mgmt_class = cases[c].mgmt_class;
			attr.mgmt_class_version = 1;
			attr.flags = cases[c].flags;
			attr.oui = cases[c].oui;
			attr.method_mask[0] = 0x6;
			id = 0xdeadbeef;
			errno = 0;
			r = umad_register2(fd, &attr, &id);
			if (cases[c].bad_oui) {
				errno_quirk("umad_register2(bad oui)", errno);
				out("umad_register2(%s,%s) ret=%s flags=0x%x agent_id=0x%x", what,
				    cases[c].desc, rv(r), attr.flags, id);
			} else {
				out("umad_register2(%s,%s) ret=%s errno=%s flags=0x%x agent_id=0x%x",
				    what, cases[c].desc, rv(r), err(errno), attr.flags, id);
			}
		}
	}

	errno = 0;
	r = umad_unregister(fd, 0);
	out("umad_unregister(%s,0) ret=%s errno=%s", what, rv(r), err(errno));
	errno = 0;
	r = umad_unregister(fd, 31);
	out("umad_unregister(%s,31) ret=%s errno=%s", what, rv(r), err(errno));
	errno = 0;
	r = umad_unregister(fd, 32);
	out("umad_unregister(%s,32) ret=%s errno=%s", what, rv(r), err(errno));
}

static int registered_once;

/* Every line starts with func(...), so that a missing func drops all of them. */
static void report_open(const char *func, const char *name, int port, int fd, int e,
			int do_register)
{
	char buf[256];

	if (fd < 0) {
		/* errno is documented for -EIO only (open(2)'s errno). */
		if (fd == -EIO)
			out("%s(%s,%d) ret=%s errno=%s", func, arg(name), port, rv(fd), err(e));
		else
			out("%s(%s,%d) ret=%s", func, arg(name), port, rv(fd));
		return;
	}
	out("%s(%s,%d) ret=%s path=%s", func, arg(name), port, fdrel(fd), fdpath(fd));
	/* rdma-core leaves a stale errno (ENOTTY from the P_Key probe) on success. */
	out("%s(%s,%d) errno-on-success=%s [quirk:open-stale-errno]", func, arg(name), port, err(e));
	out("%s(%s,%d) umad_size=%zu get_mad_offset=%td get_mad_addr_offset=%td", func, arg(name),
	    port, umad_size(), (char *)umad_get_mad(buf) - buf,
	    (char *)umad_get_mad_addr(buf) - buf);
	out("%s(%s,%d) umad_get_fd=%s", func, arg(name), port, fdrel(umad_get_fd(fd)));
	out("%s(%s,%d) status-flags=0%o", func, arg(name), port,
	    (unsigned)fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK | O_APPEND));
	/* rdma-core opens without O_CLOEXEC; we set it. */
	out("%s(%s,%d) cloexec=%d [quirk:open-cloexec]", func, arg(name), port,
	    (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	if (do_register && !registered_once) {
		registered_once = 1;
		probe_register("opened-fd", fd);
	}
	out("%s(%s,%d) umad_close_port(%s) ret=%s", func, arg(name), port, fdrel(fd),
	    rv(umad_close_port(fd)));
}

static void probe_open(void)
{
	static const int ports[] = { -1, 0, 1, 2, 3, 10 };
	unsigned p;
	int i, fd;

	for (i = -1; i < N_TARGETS; i++) {
		const char *name = i < 0 ? NULL : target(i);

		for (p = 0; p < sizeof(ports) / sizeof(ports[0]); p++) {
			errno = 0;
			fd = umad_open_port(name, ports[p]);
			report_open("umad_open_port", name, ports[p], fd, errno, 1);
		}
	}
}

static void probe_open_smi(void)
{
	static const int ports[] = { 0, 1, 2 };
	open_smi_port_fn fn = (open_smi_port_fn)dlsym(RTLD_DEFAULT, "umad_open_smi_port");
	unsigned p;
	int i, fd;

	if (!fn) {
		out("absent(umad_open_smi_port)");
		return;
	}
	out("begin(umad_open_smi_port)");
	for (i = -1; i < N_TARGETS; i++) {
		const char *name = i < 0 ? NULL : target(i);

		for (p = 0; p < sizeof(ports) / sizeof(ports[0]); p++) {
			errno = 0;
			fd = fn(name, ports[p]);
			report_open("umad_open_smi_port", name, ports[p], fd, errno, 0);
		}
	}
	out("end(umad_open_smi_port)");
}

static void print_pair(const char *key, const struct probe_ca_pair *p)
{
	out("%s smi=%s:%u gsi=%s:%u", key, str(p->smi_name, NAME_LEN), p->smi_preferred_port,
	    str(p->gsi_name, NAME_LEN), p->gsi_preferred_port);
}

static void probe_pairs(void)
{
	get_pairs_fn pairs = (get_pairs_fn)dlsym(RTLD_DEFAULT, "umad_get_smi_gsi_pairs");
	get_pair_by_name_fn by_name =
		(get_pair_by_name_fn)dlsym(RTLD_DEFAULT, "umad_get_smi_gsi_pair_by_ca_name");
	static struct probe_ca_pair cas[MAX_PAIRS];
	static const size_t maxes[] = { 1, 2, MAX_PAIRS };
	static const uint8_t ports[] = { 0, 1, 2, 9 };
	struct probe_ca_pair pair;
	char key[512];
	unsigned m, p, smi;
	int i, r;

	if (!pairs) {
		out("absent(umad_get_smi_gsi_pairs)");
	} else {
		out("begin(umad_get_smi_gsi_pairs)");
		for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
			memset(cas, 0xee, sizeof(cas));
			r = pairs(cas, maxes[m]);
			out("umad_get_smi_gsi_pairs(max=%zu) ret=%s", maxes[m], rv(r));
			for (i = 0; i < r && (size_t)i < maxes[m]; i++) {
				snprintf(key, sizeof(key), "umad_get_smi_gsi_pairs(max=%zu) [%d]",
					 maxes[m], i);
				print_pair(key, &cas[i]);
			}
		}
		out("end(umad_get_smi_gsi_pairs)");
	}
	if (!by_name) {
		out("absent(umad_get_smi_gsi_pair_by_ca_name)");
		return;
	}
	out("begin(umad_get_smi_gsi_pair_by_ca_name)");
	r = by_name(NULL, 0, NULL, 0);
	out("umad_get_smi_gsi_pair_by_ca_name(NULL,0,NULL,0) ret=%s", rv(r));
	for (i = -1; i < N_TARGETS; i++) {
		const char *name = i < 0 ? NULL : target(i);

		for (p = 0; p < sizeof(ports) / sizeof(ports[0]); p++) {
			for (smi = 0; smi < 2; smi++) {
				memset(&pair, 0xee, sizeof(pair));
				errno = 0;
				r = by_name(name, ports[p], &pair, smi);
				snprintf(key, sizeof(key), "umad_get_smi_gsi_pair_by_ca_name(%s,%u,pair,%u)",
					 arg(name), ports[p], smi);
				if (r == -ENODEV)
					out("%s ret=%s errno=%s", key, rv(r), err(errno));
				else
					out("%s ret=%s", key, rv(r));
				if (r == 0)
					print_pair(key, &pair);
			}
		}
	}
	out("end(umad_get_smi_gsi_pair_by_ca_name)");
}

/* --- I/O on pipes and bad descriptors --------------------------------------- */

static void fill_umad(uint8_t *buf, size_t len, uint32_t agent, uint32_t length)
{
	struct ib_user_mad *m = (struct ib_user_mad *)buf;
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	m->agent_id = agent;
	m->status = 0;
	m->length = length;
}

static void probe_io(void)
{
	static uint8_t buf[BUF_SIZE], raw[BUF_SIZE];
	struct ib_user_mad *m = (struct ib_user_mad *)buf;
	size_t hdr = umad_size();
	int p[2], len, r;
	ssize_t n;

	if (pipe2(p, O_NONBLOCK) < 0) {
		out("pipe2 failed");
		return;
	}
	out("io umad_size=%zu", hdr);

	/* poll */
	/* A timeout: rdma-core leaves errno alone. */
	errno = 0;
	r = umad_poll(p[0], 0);
	errno_quirk("umad_poll(pipe-empty,0)", errno);
	out("umad_poll(pipe-empty,0) ret=%s", rv(r));
	errno = 0;
	r = umad_poll(p[0], 20);
	errno_quirk("umad_poll(pipe-empty,20)", errno);
	out("umad_poll(pipe-empty,20) ret=%s", rv(r));
	errno = 0;
	r = umad_poll(-1, 0);
	errno_quirk("umad_poll(-1,0)", errno);
	out("umad_poll(-1,0) ret=%s", rv(r));
	errno = 0;
	r = umad_poll(1000, 0);
	out("umad_poll(closed-fd,0) ret=%s errno=%s", rv(r), err(errno));

	/* recv on nothing */
	memset(buf, 0, sizeof(buf));
	m->length = 999;
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 0);
	out("umad_recv(pipe-empty,256,0) ret=%s errno=%s", rv(r), err(errno));
	/* rdma-core overwrites *length from the stale buffer on EAGAIN; we leave it. */
	out("umad_recv(pipe-empty,256,0) length=%d [quirk:recv-eagain-length]", len);
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 20);
	out("umad_recv(pipe-empty,256,20) ret=%s errno=%s length=%d", rv(r), err(errno), len);
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, NULL, 0);
	out("umad_recv(pipe-empty,NULL length,0) ret=%s errno=%s", rv(r), err(errno));
	errno = 0;
	r = umad_recv(p[0], NULL, &len, 0);
	out("umad_recv(pipe-empty,NULL umad,0) ret=%s errno=%s length=%d", rv(r), err(errno), len);
	len = 256;
	errno = 0;
	r = umad_recv(-1, buf, &len, 0);
	out("umad_recv(-1,256,0) ret=%s errno=%s", rv(r), err(errno));
	out("umad_recv(-1,256,0) length=%d [quirk:recv-error-length]", len);
	len = 256;
	errno = 0;
	r = umad_recv(-1, buf, &len, 20);
	out("umad_recv(-1,256,20) ret=%s errno=%s length=%d", rv(r), err(errno), len);
	len = 256;
	errno = 0;
	r = umad_recv(1000, buf, &len, 20);
	out("umad_recv(closed-fd,256,20) ret=%s errno=%s", rv(r), err(errno));
	out("umad_recv(closed-fd,256,20) length=%d [quirk:recv-error-length]", len);

	/* recv of whole messages */
	fill_umad(raw, hdr + 256, 7, 0x1234);
	n = write(p[1], raw, hdr + 256);
	errno = 0;
	r = umad_poll(p[0], 0);
	out("umad_poll(pipe-data,0) ret=%s errno=%s", rv(r), err(errno));
	memset(buf, 0, sizeof(buf));
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 0);
	out("umad_recv(pipe-%zd,256,0) ret=%s errno=%s length=%d same=%d", n, rv(r), err(errno), len,
	    !memcmp(buf, raw, hdr + 256));

	fill_umad(raw, hdr + 100, 3, 0);
	n = write(p[1], raw, hdr + 100);
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, &len, -1);
	out("umad_recv(pipe-%zd,256,-1) ret=%s errno=%s length=%d", n, rv(r), err(errno), len);

	fill_umad(raw, hdr + 300, 9, 0);
	n = write(p[1], raw, hdr + 300);
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 50);
	out("umad_recv(pipe-%zd,256,50) ret=%s errno=%s length=%d", n, rv(r), err(errno), len);
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 0);
	out("umad_recv(pipe-rest,256,0) ret=%s errno=%s length=%d", rv(r), err(errno), len);

	fill_umad(raw, hdr, 4, 0);
	n = write(p[1], raw, hdr);
	len = 0;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 0);
	out("umad_recv(pipe-%zd,0,0) ret=%s errno=%s length=%d", n, rv(r), err(errno), len);

	fill_umad(raw, 10, 5, 0);
	n = write(p[1], raw, 10);
	len = 256;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 0);
	out("umad_recv(pipe-%zd,256,0) ret=%s errno=%s length=%d", n, rv(r), err(errno), len);

	/* send */
	fill_umad(buf, hdr + 256, 0, 0x77);
	errno = EBUSY;
	r = umad_send(p[1], 5, buf, 256, 100, 3);
	out("umad_send(pipe,5,256,100,3) ret=%s errno=%s", rv(r), err(errno));
	memset(raw, 0, sizeof(raw));
	n = read(p[0], raw, sizeof(raw));
	out("umad_send(pipe,5,256,100,3) wrote=%zd", n);
	hexdump("umad_send(pipe,5,256,100,3) written", raw, n > 0 ? (size_t)n : 0);
	hexdump("umad_send(pipe,5,256,100,3) buffer", buf, hdr);

	fill_umad(buf, hdr + 24, 0, 0);
	errno = 0;
	r = umad_send(p[1], -1, buf, 24, -1, -1);
	out("umad_send(pipe,-1,24,-1,-1) ret=%s errno=%s", rv(r), err(errno));
	n = read(p[0], raw, sizeof(raw));
	out("umad_send(pipe,-1,24,-1,-1) wrote=%zd", n);
	hexdump("umad_send(pipe,-1,24,-1,-1) written", raw, n > 0 ? (size_t)(n < 24 ? n : 24) : 0);

	errno = 0;
	r = umad_send(p[1], 1, buf, 0, 0, 0);
	out("umad_send(pipe,1,0,0,0) ret=%s errno=%s", rv(r), err(errno));
	n = read(p[0], raw, sizeof(raw));
	out("umad_send(pipe,1,0,0,0) wrote=%zd", n);

	errno = 0;
	r = umad_send(-1, 1, buf, 256, 0, 0);
	out("umad_send(-1,1,256) ret=%s errno=%s", rv(r), err(errno));
	errno = 0;
	r = umad_send(p[0], 1, buf, 256, 0, 0);
	out("umad_send(pipe-read-end,1,256) ret=%s errno=%s", rv(r), err(errno));

	/* A full pipe: the write cannot be done at all (EAGAIN). */
	while (write(p[1], raw, sizeof(raw)) > 0)
		;
	errno = 0;
	r = umad_send(p[1], 1, buf, 256, 0, 0);
	out("umad_send(pipe-full,1,256) ret=%s errno=%s", rv(r), err(errno));
	errno = 0;
	r = umad_poll(p[1], 0);
	errno_quirk("umad_poll(pipe-write-end-full,0)", errno);
	out("umad_poll(pipe-write-end-full,0) ret=%s", rv(r));
	close(p[0]);
	errno = 0;
	r = umad_send(p[1], 1, buf, 256, 0, 0);
	out("umad_send(pipe-no-reader,1,256) ret=%s errno=%s", rv(r), err(errno));
	errno = 0;
	r = umad_poll(p[1], 0);
	out("umad_poll(pipe-no-reader,0) ret=%s errno=%s", rv(r), err(errno));
	close(p[1]);

	/* A pipe whose writer is gone: POLLHUP. */
	if (pipe2(p, O_NONBLOCK) == 0) {
		close(p[1]);
		errno = 0;
		r = umad_poll(p[0], 0);
		out("umad_poll(pipe-hup,0) ret=%s errno=%s", rv(r), err(errno));
		len = 256;
		memset(buf, 0, sizeof(buf));
		errno = 0;
		r = umad_recv(p[0], buf, &len, 0);
		out("umad_recv(pipe-hup,256,0) ret=%s errno=%s length=%d", rv(r), err(errno), len);
		close(p[0]);
	}

	/* Registration on descriptors that are not umad devices. */
	probe_register("fd=-1", -1);
	if (pipe(p) == 0) {
		probe_register("pipe", p[0]);
		close(p[0]);
		close(p[1]);
	}
}

/* --- the umad buffer --------------------------------------------------------- */

static void probe_buffer(const char *when)
{
	static uint8_t buf[BUF_SIZE];
	ib_mad_addr_t addr;
	char key[128];
	int r;

	out("umad_size(%s) ret=%zu", when, umad_size());
	out("umad_get_mad(%s) offset=%td", when, (char *)umad_get_mad(buf) - (char *)buf);
	out("umad_get_mad_addr(%s) offset=%td", when, (char *)umad_get_mad_addr(buf) - (char *)buf);

	memset(buf, 0xaa, 128);
	r = umad_set_addr(buf, 0x1234, 0x10, 5, (int)0x80010000);
	snprintf(key, sizeof(key), "umad_set_addr(%s,0x1234,0x10,5,0x80010000)", when);
	out("%s ret=%s", key, rv(r));
	hexdump(key, buf, 72);

	memset(buf, 0xaa, 128);
	r = umad_set_addr(buf, -1, -1, 300, -1);
	snprintf(key, sizeof(key), "umad_set_addr(%s,-1,-1,300,-1)", when);
	out("%s ret=%s", key, rv(r));
	hexdump(key, buf, 72);

	memset(buf, 0xaa, 128);
	r = umad_set_addr_net(buf, htobe16(0x1234), htobe32(0x10), 5, htobe32(0x80010000));
	snprintf(key, sizeof(key), "umad_set_addr_net(%s)", when);
	out("%s ret=%s", key, rv(r));
	hexdump(key, buf, 72);

	memset(&addr, 0x55, sizeof(addr));
	for (int i = 0; i < 16; i++)
		addr.gid[i] = (uint8_t)(0xf0 + i);
	addr.flow_label = 0x12345;
	addr.hop_limit = 63;
	addr.traffic_class = 7;
	addr.gid_index = 9;
	memset(buf, 0xaa, 128);
	r = umad_set_grh(buf, &addr);
	snprintf(key, sizeof(key), "umad_set_grh(%s,addr)", when);
	out("%s ret=%s", key, rv(r));
	hexdump(key, buf, 72);
	r = umad_set_grh(buf, NULL);
	snprintf(key, sizeof(key), "umad_set_grh(%s,NULL)", when);
	out("%s ret=%s", key, rv(r));
	hexdump(key, buf, 72);

	memset(buf, 0xaa, 128);
	r = umad_set_pkey(buf, 0x1ff);
	snprintf(key, sizeof(key), "umad_set_pkey(%s,0x1ff)", when);
	out("%s ret=%s", key, rv(r));
	hexdump(key, buf, 72);
	out("umad_get_pkey(%s) ret=%s", when, rv(umad_get_pkey(buf)));
	r = umad_set_pkey(buf, 0x12345);
	out("umad_set_pkey(%s,0x12345) ret=%s", when, rv(r));
	out("umad_get_pkey(%s) after 0x12345 ret=%s", when, rv(umad_get_pkey(buf)));

	((struct ib_user_mad *)buf)->status = 110;
	out("umad_status(%s) ret=%s", when, rv(umad_status(buf)));
	((struct ib_user_mad *)buf)->status = 0xffffffffu;
	out("umad_status(%s,0xffffffff) ret=%s", when, rv(umad_status(buf)));
}

static void probe_dumps(void)
{
	static uint8_t buf[BUF_SIZE];
	struct ib_user_mad *m = (struct ib_user_mad *)buf;

	fill_umad(buf, 128, 3, 256);
	m->status = 110;
	m->timeout_ms = 100;
	out("umad_addr_dump(buf) begin");
	umad_addr_dump(&m->addr);
	out("umad_addr_dump(buf) end");
	out("umad_dump(buf) begin");
	umad_dump(buf);
	out("umad_dump(buf) end");
}

static void probe_debug(void)
{
	out("umad_debug(-1) ret=%d", umad_debug(-1));
	out("umad_debug(2) ret=%d", umad_debug(2));
	out("umad_debug(-5) ret=%d", umad_debug(-5));
	out("umad_debug(1) ret=%d", umad_debug(1));
	out("umad_debug(0) ret=%d", umad_debug(0));
	out("umad_debug(-1) ret=%d", umad_debug(-1));
	out("umad_get_fd(5) ret=%d", umad_get_fd(5));
	out("umad_get_fd(-7) ret=%d", umad_get_fd(-7));
	/* rdma-core returns 0 whatever close() said; we return -EBADF. */
	out("umad_close_port(-1) ret=%s [quirk:close-bad-fd]", rv(umad_close_port(-1)));
	out("umad_close_port(1000) ret=%s [quirk:close-bad-fd]", rv(umad_close_port(1000)));
}

/* --- umad_str.h ------------------------------------------------------------- */

static void probe_strings(void)
{
	static const uint8_t classes[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09, 0x10,
					   0x21, 0x30, 0x81, 0xff };
	unsigned c, v;

	for (c = 0; c < 256; c++)
		out("umad_class_str(0x%02x) %s", c, str(umad_class_str((uint8_t)c), 255));
	for (c = 0; c < sizeof(classes); c++)
		for (v = 0; v < 256; v++)
			out("umad_method_str(0x%02x,0x%02x) %s", classes[c], v,
			    str(umad_method_str(classes[c], (uint8_t)v), 255));
	for (v = 0; v < 0x10000; v += (v < 0x40 ? 1 : (v < 0x1000 ? 0x80 : 0x100)))
		out("umad_common_mad_status_str(0x%04x) %s", v,
		    str(umad_common_mad_status_str(htobe16((uint16_t)v)), 255));
	for (v = 0; v < 0x10000; v += 0x80)
		out("umad_sa_mad_status_str(0x%04x) %s", v,
		    str(umad_sa_mad_status_str(htobe16((uint16_t)v)), 255));
	for (c = 0; c < sizeof(classes); c++) {
		for (v = 0; v < 0x100; v++)
			out("umad_attribute_str(0x%02x,0x%04x) %s", classes[c], v,
			    str(umad_attribute_str(classes[c], htobe16((uint16_t)v)), 255));
		for (v = 0xff00; v < 0x10000; v++)
			out("umad_attribute_str(0x%02x,0x%04x) %s", classes[c], v,
			    str(umad_attribute_str(classes[c], htobe16((uint16_t)v)), 255));
	}
}

static int which(void)
{
	Dl_info info;

	if (!dladdr((void *)umad_init, &info) || !info.dli_fname) {
		out("which: unknown");
		return 1;
	}
	out("%s", info.dli_fname);
	return 0;
}

int main(int argc, char **argv)
{
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--which"))
		return which();
	dup2(1, 2);
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && !strcmp(argv[1], "--strings")) {
		probe_strings();
		return 0;
	}

	fd = open("/proc/self/cmdline", O_RDONLY);
	fd_base = fd < 0 ? 3 : fd;
	if (fd >= 0)
		close(fd);

	scan_sysfs();
	/* Before anything else: the header size before any open, and a clean debug level. */
	probe_buffer("before-open");
	probe_debug();
	out("umad_init() ret=%s", rv(umad_init()));
	probe_cas_names();
	probe_device_list();
	probe_get_ca();
	probe_get_port();
	probe_portguids();
	probe_issm();
	probe_open();
	probe_buffer("after-open");
	probe_open_smi();
	probe_pairs();
	probe_io();
	probe_dumps();
	out("umad_done() ret=%s", rv(umad_done()));
	fd = open("/proc/self/cmdline", O_RDONLY);
	out("leaked-fds count=%d", fd - fd_base);
	return 0;
}
