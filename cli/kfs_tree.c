/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad_sm.h>

#include "backends/sysfs_layout.h"
#include "backends/sysfs_values.h"
#include "cli/kfs_query.h"
#include "cli/kfs_tree.h"
#include "base/mad_layout.h"
#include "base/umad_ioctl.h"
#include "simfabric/identity.h"

/* A port's counters directory, as the kernel names its files, and where the PMA keeps each. */
struct kfs_counter {
	const char *name;
	int extended;		/* PortCountersExtended's 64-bit counter, else PortCounters' */
	mad_field_t field;
};

static const struct kfs_counter kfs_counters[] = {
	{ "symbol_error", 0, PC_SYMBOL_ERRORS },
	{ "link_error_recovery", 0, PC_LINK_ERROR_RECOVERY },
	{ "link_downed", 0, PC_LINK_DOWNED },
	{ "port_rcv_errors", 0, PC_RCV_ERRORS },
	{ "port_rcv_remote_physical_errors", 0, PC_RCV_REMOTE_PHYS_ERRORS },
	{ "port_rcv_switch_relay_errors", 0, PC_RCV_SWITCH_RELAY_ERRORS },
	{ "port_xmit_discards", 0, PC_XMIT_DISCARDS },
	{ "port_xmit_constraint_errors", 0, PC_XMIT_CONSTRAINT_ERRORS },
	{ "port_rcv_constraint_errors", 0, PC_RCV_CONSTRAINT_ERRORS },
	{ "local_link_integrity_errors", 0, PC_LOCAL_LINK_INTEGRITY_ERRORS },
	{ "excessive_buffer_overrun_errors", 0, PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS },
	{ "VL15_dropped", 0, PC_VL15_DROPPED },
	{ "port_xmit_wait", 0, PC_XMIT_WAIT },
	{ "port_xmit_data", 1, PCE_XMIT_DATA },
	{ "port_rcv_data", 1, PCE_RCV_DATA },
	{ "port_xmit_packets", 1, PCE_XMIT_PKTS },
	{ "port_rcv_packets", 1, PCE_RCV_PKTS },
	{ "unicast_xmit_packets", 1, PCE_UNICAST_XMIT_PKTS },
	{ "unicast_rcv_packets", 1, PCE_UNICAST_RCV_PKTS },
	{ "multicast_xmit_packets", 1, PCE_MULTICAST_XMIT_PKTS },
	{ "multicast_rcv_packets", 1, PCE_MULTICAST_RCV_PKTS },
};
#define N_COUNTERS	(sizeof(kfs_counters) / sizeof(kfs_counters[0]))

/* --- building ------------------------------------------------------------------------ */

static uint32_t add(struct kfs *k, uint32_t parent, const char *name, enum kfs_kind kind,
		    enum kfs_text text, int ca, int port, int index)
{
	struct kfs_node *n;
	uint32_t i;

	if (k->n_nodes == k->cap_nodes) {
		uint32_t cap = k->cap_nodes ? k->cap_nodes * 2 : 256;
		struct kfs_node *nodes = realloc(k->nodes, cap * sizeof(*nodes));

		if (!nodes)
			return KFS_NO_NODE;
		k->nodes = nodes;
		k->cap_nodes = cap;
	}
	i = k->n_nodes++;
	n = &k->nodes[i];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->parent = parent == KFS_NO_NODE ? i : parent;
	n->first_child = n->next_sibling = n->last_child = KFS_NO_NODE;
	n->kind = (uint8_t)kind;
	n->text = (uint8_t)text;
	n->ca = (int16_t)ca;
	n->port = (int16_t)port;
	n->index = index;
	if (parent != KFS_NO_NODE) {
		struct kfs_node *p = &k->nodes[parent];

		if (p->last_child == KFS_NO_NODE)
			p->first_child = i;
		else
			k->nodes[p->last_child].next_sibling = i;
		p->last_child = i;
	}
	return i;
}

static uint32_t dir(struct kfs *k, uint32_t parent, const char *name)
{
	return add(k, parent, name, KFS_DIR, 0, -1, -1, -1);
}

static uint32_t text(struct kfs *k, uint32_t parent, const char *name, enum kfs_text t, int ca,
		     int port, int index)
{
	return add(k, parent, name, KFS_TEXT, t, ca, port, index);
}

/* Every add below checks through this: one failed add fails the build. */
#define TRY(x)	do { if ((x) == KFS_NO_NODE) return -ENOMEM; } while (0)

static int build_port(struct kfs *k, uint32_t ports, int ca, int port)
{
	umad_port_t p;
	char name[16];
	uint32_t d, sub;
	int i, r;

	memset(&p, 0, sizeof(p));
	r = k->be->get_port(k->cas[ca].name, port, &p);
	if (r < 0)
		return r;
	snprintf(name, sizeof(name), "%d", port);
	d = dir(k, ports, name);
	r = -ENOMEM;
	if (d == KFS_NO_NODE)
		goto out;
	for (i = 0; sysfs_port_files[i]; i++) {
		if (strchr(sysfs_port_files[i], '/'))
			continue;	/* gids/0, below */
		if (text(k, d, sysfs_port_files[i], KT_PORT_FILE, ca, port, i) == KFS_NO_NODE)
			goto out;
		if (!strcmp(sysfs_port_files[i], SYS_PORT_PHY_STATE) &&
		    text(k, d, SYS_PORT_RATE, KT_RATE, ca, port, 0) == KFS_NO_NODE)
			goto out;
	}
	sub = dir(k, d, SYSFS_GIDS_DIR);
	for (i = 0; sub != KFS_NO_NODE && sysfs_port_files[i]; i++)
		if (!strcmp(sysfs_port_files[i], SYS_PORT_GID) &&
		    text(k, sub, strchr(SYS_PORT_GID, '/') + 1, KT_PORT_FILE, ca, port, i) ==
		    KFS_NO_NODE)
			goto out;
	sub = sub == KFS_NO_NODE ? sub : dir(k, d, SYSFS_PKEYS_DIR);
	for (i = 0; sub != KFS_NO_NODE && i < (int)p.pkeys_size; i++) {
		snprintf(name, sizeof(name), "%d", i);
		if (text(k, sub, name, KT_PKEY, ca, port, i) == KFS_NO_NODE)
			goto out;
	}
	sub = sub == KFS_NO_NODE ? sub : dir(k, d, "counters");
	for (i = 0; sub != KFS_NO_NODE && i < (int)N_COUNTERS; i++)
		if (text(k, sub, kfs_counters[i].name, KT_COUNTER, ca, port, i) == KFS_NO_NODE)
			goto out;
	r = sub == KFS_NO_NODE ? -ENOMEM : 0;
out:
	umad_backend_port_clear(&p);
	return r;
}

static int build_ca(struct kfs *k, uint32_t class_dir, int ca, const umad_ca_t *c)
{
	uint32_t d, ports;
	int i, r;

	TRY(d = dir(k, class_dir, k->cas[ca].name));
	for (i = 0; sysfs_ca_files[i]; i++)
		TRY(text(k, d, sysfs_ca_files[i], KT_CA_FILE, ca, -1, i));
	TRY(text(k, d, SYSFS_CA_BOARD_ID, KT_BOARD_ID, ca, -1, 0));
	TRY(text(k, d, SYSFS_CA_NODE_DESC, KT_NODE_DESC, ca, -1, 0));
	TRY(ports = dir(k, d, SYS_CA_PORTS_DIR));
	for (i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		if (!c->ports[i])
			continue;
		r = build_port(k, ports, ca, i);
		if (r < 0)
			return r;
	}
	return 0;
}

/* dev/infiniband/umadN, issmN and their class entries in infiniband_mad. */
static int build_umads(struct kfs *k, uint32_t dev_dir, uint32_t mad_dir)
{
	static const struct {
		const char *name;
		enum kfs_kind kind;
		enum kfs_text dev;
	} kinds[] = {
		{ SYSFS_UMAD_NAME, KFS_UMAD, KT_MAD_DEV_UMAD },
		{ SYSFS_ISSM_NAME, KFS_ISSM, KT_MAD_DEV_ISSM },
	};
	char name[24];
	uint32_t d;
	size_t j;
	int u;

	for (u = 0; u < k->n_umads; u++) {
		int ca = k->umads[u].ca, port = k->umads[u].port;

		for (j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
			snprintf(name, sizeof(name), kinds[j].name, u);
			TRY(add(k, dev_dir, name, kinds[j].kind, 0, ca, port, u));
			TRY(d = dir(k, mad_dir, name));
			TRY(text(k, d, SYS_IB_MAD_DEV, KT_MAD_IBDEV, ca, port, u));
			TRY(text(k, d, SYS_IB_MAD_PORT, KT_MAD_PORT, ca, port, u));
			TRY(text(k, d, "dev", kinds[j].dev, ca, port, u));
		}
	}
	return 0;
}

struct ca_names {
	struct kfs *k;
	int overflow;
};

static int visit_ca(const char *ca_name, void *arg)
{
	struct ca_names *cn = arg;
	struct kfs *k = cn->k;

	if (k->n_cas == KFS_MAX_CAS) {
		cn->overflow = 1;
		return 0;
	}
	snprintf(k->cas[k->n_cas++].name, sizeof(k->cas[0].name), "%s", ca_name);
	return 0;
}

int kfs_tree_build(struct kfs *k)
{
	struct ca_names cn = { .k = k };
	uint32_t root, dev, infiniband_dev, sys, cls, ib, mad;
	int i, j, r;

	r = k->be->for_each_ca(visit_ca, &cn);
	if (r < 0 && r != -ENOENT)
		return r;
	if (cn.overflow)
		return -E2BIG;
	TRY(root = dir(k, KFS_NO_NODE, ""));
	TRY(dev = dir(k, root, "dev"));
	TRY(infiniband_dev = dir(k, dev, "infiniband"));
	TRY(sys = dir(k, root, SYSFS_DIR));
	TRY(cls = dir(k, sys, "class"));
	TRY(ib = dir(k, cls, "infiniband"));
	TRY(mad = dir(k, cls, "infiniband_mad"));
	TRY(text(k, mad, IB_UMAD_ABI_FILE, KT_ABI_VERSION, -1, -1, 0));
	for (i = 0; i < k->n_cas; i++) {
		umad_ca_t c;

		memset(&c, 0, sizeof(c));
		r = k->be->get_ca(k->cas[i].name, &c);
		if (r < 0)
			return r;
		k->cas[i].node_type = c.node_type;
		for (j = 0; j < UMAD_CA_MAX_PORTS; j++) {
			if (!c.ports[j])
				continue;
			if (k->n_umads == KFS_MAX_UMADS) {
				r = -E2BIG;
				break;
			}
			k->umads[k->n_umads].ca = i;
			k->umads[k->n_umads].port = j;
			k->umads[k->n_umads].issm_fd = -1;
			k->n_umads++;
		}
		if (r == 0)
			r = build_ca(k, ib, i, &c);
		umad_backend_free_ca_ports(&c);
		if (r < 0)
			return r;
	}
	return build_umads(k, infiniband_dev, mad);
}

void kfs_tree_free(struct kfs *k)
{
	free(k->nodes);
	k->nodes = NULL;
	k->n_nodes = k->cap_nodes = 0;
}

/* --- looking ------------------------------------------------------------------------- */

fuse_ino_t kfs_tree_lookup(struct kfs *k, fuse_ino_t parent, const char *name)
{
	struct kfs_node *p = kfs_node_of(k, parent);
	uint32_t i;

	if (!p || p->kind != KFS_DIR)
		return 0;
	for (i = p->first_child; i != KFS_NO_NODE; i = k->nodes[i].next_sibling)
		if (!strcmp(k->nodes[i].name, name))
			return i + 1;
	return 0;
}

void kfs_tree_stat(const struct kfs *k, fuse_ino_t ino, struct stat *st)
{
	const struct kfs_node *n = &k->nodes[ino - 1];

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = k->uid;
	st->st_gid = k->gid;
	st->st_atim = st->st_mtim = st->st_ctim = k->start;
	switch (n->kind) {
	case KFS_DIR:
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		break;
	case KFS_TEXT:
		/* Sizes as sysfs gives them: a page, whatever the text. */
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = KFS_TEXT_MAX;
		break;
	default:
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		break;
	}
}

/* --- texts ---------------------------------------------------------------------------- */

/* The first umad port of a CA: where its node is asked. */
static int umad_of_ca(const struct kfs *k, int ca)
{
	int u;

	for (u = 0; u < k->n_umads; u++)
		if (k->umads[u].ca == ca)
			return u;
	return -1;
}

static int umad_of_port(const struct kfs *k, int ca, int port)
{
	int u;

	for (u = 0; u < k->n_umads; u++)
		if (k->umads[u].ca == ca && k->umads[u].port == port)
			return u;
	return -1;
}

static int ca_text(struct kfs *k, const struct kfs_node *n, char *buf, size_t size)
{
	umad_ca_t c;
	int r;

	memset(&c, 0, sizeof(c));
	r = k->be->get_ca(k->cas[n->ca].name, &c);
	if (r < 0)
		return r;
	r = sysfs_ca_text(sysfs_ca_files[n->index], &c, buf, size);
	umad_backend_free_ca_ports(&c);
	return r;
}

/* The board ID of the node's device (identity.h), from the vendor and device its NodeInfo gives. */
static int board_id_text(struct kfs *k, const struct kfs_node *n, char *buf, size_t size)
{
	uint8_t data[SMP_DATA_SIZE];
	int r = kfs_query_smp(k, umad_of_ca(k, n->ca), UMAD_SM_ATTR_NODE_INFO, 0, data);

	if (r < 0)
		return -EIO;
	return sysfs_line_text(sim_identity_board_id((uint32_t)mad_get(data, NI_VENDOR_ID),
						     (uint16_t)mad_get(data, NI_DEVICE_ID)),
			       buf, size);
}

static int node_desc_text(struct kfs *k, const struct kfs_node *n, char *buf, size_t size)
{
	uint8_t data[SMP_DATA_SIZE];
	char desc[SMP_DATA_SIZE + 1];
	int r = kfs_query_smp(k, umad_of_ca(k, n->ca), UMAD_SM_ATTR_NODE_DESC, 0, data);

	if (r < 0)
		return -EIO;
	memcpy(desc, data + MAD_FIELD_BYTE(ND_STRING), MAD_FIELD_SIZE(ND_STRING));
	desc[MAD_FIELD_SIZE(ND_STRING)] = '\0';
	return sysfs_line_text(desc, buf, size);
}

/*
 * The rate from PortInfo and, as mlx drivers know FDR10 from their device,
 * MlnxExtPortInfo (a node that does not answer it runs no FDR10).
 */
static int rate_text(struct kfs *k, const struct kfs_node *n, char *buf, size_t size)
{
	uint8_t pi[SMP_DATA_SIZE], mepi[SMP_DATA_SIZE];
	int u = umad_of_port(k, n->ca, n->port);
	int r = kfs_query_smp(k, u, UMAD_SM_ATTR_PORT_INFO, (uint32_t)n->port, pi);
	unsigned mlnx_active = 0;

	if (r < 0)
		return -EIO;
	if (kfs_query_smp(k, u, UMAD_SM_ATTR_MLNX_EXT_PORT_INFO, (uint32_t)n->port, mepi) == 0)
		mlnx_active = (unsigned)mad_get(mepi, MEPI_LINK_SPEED_ACTIVE);
	return sysfs_rate_text((unsigned)mad_get(pi, PI_LINK_WIDTH_ACTIVE),
			       (unsigned)mad_get(pi, PI_LINK_SPEED_ACTIVE),
			       (unsigned)mad_get(pi, PI_LINK_SPEED_EXT_ACTIVE), mlnx_active, buf,
			       size);
}

/* A counter, as the kernel reads it: the port's PMA asked when the file is read. */
static int counter_text(struct kfs *k, const struct kfs_node *n, const umad_port_t *p, char *buf,
			size_t size)
{
	const struct kfs_counter *c = &kfs_counters[n->index];
	uint8_t data[PMA_DATA_SIZE];
	int r = kfs_query_pma(k, umad_of_port(k, n->ca, n->port), p->base_lid,
			      c->extended ? PMA_ATTR_PORT_COUNTERS_EXT : PMA_ATTR_PORT_COUNTERS,
			      (uint8_t)n->port, data);

	if (r < 0)
		return -EIO;
	r = snprintf(buf, size, "%" PRIu64 "\n", mad_get(data, c->field));
	return r < 0 || (size_t)r >= size ? -ENAMETOOLONG : r;
}

static int port_text(struct kfs *k, const struct kfs_node *n, char *buf, size_t size)
{
	umad_port_t p;
	int r;

	memset(&p, 0, sizeof(p));
	r = k->be->get_port(k->cas[n->ca].name, n->port, &p);
	if (r < 0)
		return r;
	if (n->text == KT_PKEY)
		r = sysfs_pkey_text(&p, (unsigned)n->index, buf, size);
	else if (n->text == KT_COUNTER)
		r = counter_text(k, n, &p, buf, size);
	else
		r = sysfs_port_text(sysfs_port_files[n->index], &p, buf, size);
	umad_backend_port_clear(&p);
	return r;
}

int kfs_tree_text(struct kfs *k, const struct kfs_node *n, char *buf, size_t size)
{
	int r;

	switch (n->text) {
	case KT_CA_FILE:
		return ca_text(k, n, buf, size);
	case KT_BOARD_ID:
		return board_id_text(k, n, buf, size);
	case KT_NODE_DESC:
		return node_desc_text(k, n, buf, size);
	case KT_RATE:
		return rate_text(k, n, buf, size);
	case KT_PORT_FILE:
	case KT_PKEY:
	case KT_COUNTER:
		return port_text(k, n, buf, size);
	case KT_ABI_VERSION:
		r = snprintf(buf, size, "%d\n", IB_UMAD_ABI_VERSION);
		break;
	case KT_MAD_IBDEV:
		return sysfs_line_text(k->cas[n->ca].name, buf, size);
	case KT_MAD_PORT:
		r = snprintf(buf, size, "%d\n", n->port);
		break;
	case KT_MAD_DEV_UMAD:
	case KT_MAD_DEV_ISSM:
		r = snprintf(buf, size, "%d:%d\n", IB_UMAD_MAJOR,
			     n->index + (n->text == KT_MAD_DEV_ISSM ? IB_UMAD_ISSM_MINOR_BASE : 0));
		break;
	default:
		return -EIO;
	}
	return r < 0 || (size_t)r >= size ? -ENAMETOOLONG : r;
}
