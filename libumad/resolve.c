/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Which CA and port a call means when the caller leaves them open: rdma-core's
 * legacy "best port" rules and its SMI/GSI pair rules (planarized fabrics),
 * reproduced on top of any backend's device snapshots.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/backend.h"
#include "base/ca_port.h"
#include "internal.h"
#include "base/mad_layout.h"

#define PORT_STATE_ACTIVE	4
#define PHYS_STATE_DISABLED	3
#define PHYS_STATE_LINKUP	5
#define NODE_TYPE_SWITCH	2

/* The port rdma-core falls back to when it finds no device at all. */
static const int default_ca_port = 1;

static bool smi_disabled(const umad_port_t *port)
{
	return be32toh(port->capmask) & PORT_CAP_IS_SM_DISABLED;
}

static bool is_ib_link(const umad_port_t *port)
{
	return !strcmp(port->link_layer, "InfiniBand") || !strcmp(port->link_layer, "IB");
}

/*
 * Check the port the caller asked for (*port > 0), or pick one: the first
 * ACTIVE, else the first LinkUp, else (link layer no longer checked) the
 * first not Disabled.  1: active, 0: usable, -1: none.  Switches always
 * answer on port 0.
 */
static int resolve_ca_port(const char *ca_name, int *port, int enforce_smi)
{
	int active = -1, up = -1, ret = -1, i;
	umad_ca_t ca;

	if (umad_ca_fetch(ca_name, &ca) < 0)
		return -1;

	if (ca.node_type == NODE_TYPE_SWITCH) {
		*port = 0;
		ret = 1;
		goto out;
	}

	if (*port > 0) {
		const umad_port_t *p = *port <= ca.numports ? ca.ports[*port] : NULL;

		if (!p || !is_ib_link(p) || (enforce_smi && smi_disabled(p)))
			ret = -1;
		else if (p->state == PORT_STATE_ACTIVE)
			ret = 1;
		else
			ret = p->phys_state != PHYS_STATE_DISABLED ? 0 : -1;
		goto out;
	}

	for (i = 0; i <= ca.numports; i++) {
		const umad_port_t *p = ca.ports[i];

		if (!p || !is_ib_link(p) || (enforce_smi && smi_disabled(p)))
			continue;
		if (up < 0 && p->phys_state == PHYS_STATE_LINKUP)
			up = i;
		if (p->state == PORT_STATE_ACTIVE) {
			active = i;
			break;
		}
	}
	if (active < 0 && up < 0) {
		for (i = 0; i <= ca.numports; i++) {
			const umad_port_t *p = ca.ports[i];

			if (!p || (enforce_smi && smi_disabled(p)))
				continue;
			if (p->phys_state != PHYS_STATE_DISABLED) {
				up = i;
				break;
			}
		}
	}
	if (active >= 0) {
		*port = active;
		ret = 1;
	} else if (up >= 0) {
		*port = up;
		ret = 0;
	}
out:
	umad_backend_free_ca_ports(&ca);
	return ret;
}

char *umad_resolve_ca_name(const char *ca_in, int *best_port, int enforce_smi)
{
	struct umad_device_node *list, *node, *usable = NULL;
	int usable_port = 0, port, kind;
	char *name;

	/* A named CA with a named port is taken as it is, unchecked. */
	if (ca_in && (!best_port || *best_port))
		return strdup(ca_in);

	if (ca_in)
		return resolve_ca_port(ca_in, best_port, enforce_smi) < 0 ? NULL : strdup(ca_in);

	list = umad_get_ca_device_list();
	if (!list)
		return NULL;
	for (node = list; node; node = node->next) {
		port = best_port ? *best_port : 0;
		kind = resolve_ca_port(node->ca_name, &port, enforce_smi);
		if (kind < 0)
			continue;
		if (kind > 0) {
			if (best_port)
				*best_port = port;
			name = strdup(node->ca_name);
			umad_free_ca_device_list(list);
			return name;
		}
		if (!usable) {
			usable = node;
			usable_port = port;
		}
	}
	if (usable) {
		if (best_port)
			*best_port = usable_port;
		name = strdup(usable->ca_name);
	} else {
		/* rdma-core's fallback; opening it fails later with a clear code. */
		if (best_port)
			*best_port = default_ca_port;
		name = strdup(UMAD_DEFAULT_CA_NAME);
	}
	umad_free_ca_device_list(list);
	return name;
}

/* --- SMI/GSI pairs ------------------------------------------------------ */

struct guid_count {
	__be64 guid;
	unsigned count;
};

/* How many ports, over all CAs, carry each port GUID (planes share one). */
static size_t count_port_guids(char names[][UMAD_CA_NAME_LEN], int n_names,
			       struct guid_count *counts, size_t max)
{
	size_t used = 0, k;
	umad_ca_t ca;
	int c, i;

	for (c = 0; c < n_names; c++) {
		if (umad_ca_fetch(names[c], &ca) < 0)
			continue;
		for (i = 0; i <= ca.numports; i++) {
			if (!ca.ports[i])
				continue;
			for (k = 0; k < used && counts[k].guid != ca.ports[i]->port_guid; k++)
				;
			if (k < used)
				counts[k].count++;
			else if (used < max)
				counts[used++] = (struct guid_count){ ca.ports[i]->port_guid, 1 };
		}
		umad_backend_free_ca_ports(&ca);
	}
	return used;
}

static unsigned guid_count_of(const struct guid_count *counts, size_t used, __be64 guid)
{
	size_t k;

	for (k = 0; k < used; k++)
		if (counts[k].guid == guid)
			return counts[k].count;
	return 0;
}

static void set_name(char dst[UMAD_CA_NAME_LEN], const char *src)
{
	size_t len = strnlen(src, UMAD_CA_NAME_LEN - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

int umad_get_smi_gsi_pairs(struct umad_ca_pair cas[], size_t max)
{
	char (*names)[UMAD_CA_NAME_LEN] = NULL;
	struct guid_count *counts = NULL;
	__be64 *pair_guid = NULL;
	size_t used, n_pairs = 0, k;
	int n_names, c, i, ret = -1, err = ENOMEM;
	umad_ca_t ca;

	if (!cas && max)
		return umad_fail(-EINVAL);
	if (max)
		memset(cas, 0, max * sizeof(*cas));
	names = calloc(UMAD_MAX_DEVICES, sizeof(*names));
	counts = calloc(UMAD_MAX_PORTS, sizeof(*counts));
	pair_guid = calloc(max ? max : 1, sizeof(*pair_guid));
	if (!names || !counts || !pair_guid)
		goto out;	/* rdma-core's -1 */

	n_names = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	if (n_names < 0) {
		/* No backend, or it could not list the CAs: that error. */
		ret = n_names;
		err = -n_names;
		goto out;
	}
	used = count_port_guids(names, n_names, counts, UMAD_MAX_PORTS);

	for (c = 0; c < n_names; c++) {
		if (umad_ca_fetch(names[c], &ca) < 0)
			continue;
		/* Each CA joins the pair of its first port that has a GUID. */
		for (i = 0; i <= ca.numports; i++) {
			const umad_port_t *p = ca.ports[i];
			struct umad_ca_pair *pair;
			unsigned count;

			if (!p || !p->port_guid)
				continue;
			for (k = 0; k < n_pairs && pair_guid[k] != p->port_guid; k++)
				;
			if (k == n_pairs) {
				if (n_pairs >= max)
					continue;
				pair_guid[n_pairs++] = p->port_guid;
			}
			pair = &cas[k];
			count = guid_count_of(counts, used, p->port_guid);
			if (count > 1) {
				/* A plane of a planarized port: SMI unless SM is disabled on it. */
				set_name(smi_disabled(p) ? pair->gsi_name : pair->smi_name, ca.ca_name);
			} else {
				if (!smi_disabled(p))
					set_name(pair->smi_name, ca.ca_name);
				set_name(pair->gsi_name, ca.ca_name);
			}
			break;
		}
		umad_backend_free_ca_ports(&ca);
	}
	ret = (int)n_pairs;
out:
	free(names);
	free(counts);
	free(pair_guid);
	if (ret < 0)
		errno = err;
	return ret;
}

/* A port counts as usable for a pair once it is past DOWN (INIT, ARMED, ACTIVE). */
static bool port_up(const umad_ca_t *ca, int portnum)
{
	return portnum >= 0 && portnum < UMAD_CA_MAX_PORTS && ca->ports[portnum] &&
	       ca->ports[portnum]->state > 1;
}

static int pick_up_port(struct umad_ca_pair *pair, const umad_ca_t *ca, bool gsi_side)
{
	int i;

	for (i = 0; i <= ca->numports && i < UMAD_CA_MAX_PORTS; i++) {
		if (port_up(ca, i)) {
			if (gsi_side)
				pair->gsi_preferred_port = (uint32_t)ca->ports[i]->portnum;
			else
				pair->smi_preferred_port = (uint32_t)ca->ports[i]->portnum;
			return 0;
		}
	}
	return -1;
}

/*
 * Fill the preferred ports of a candidate pair; ca is the side the caller
 * named (or the SMI side).  0 on success.  The other side's port is looked
 * up in the same CA snapshot, as rdma-core does.
 */
static int pick_preferred_ports(struct umad_ca_pair *pair, const umad_ca_t *ca, bool is_gsi,
				int portnum, bool named)
{
	int i;

	if (ca->numports == 1) {
		for (i = 0; i <= ca->numports; i++) {
			if (ca->ports[i]) {
				portnum = ca->ports[i]->portnum;
				break;
			}
		}
	}
	if (portnum || ca->node_type == NODE_TYPE_SWITCH) {
		if (!named && !port_up(ca, portnum))
			return -1;
		if (!strncmp(pair->gsi_name, pair->smi_name, UMAD_CA_NAME_LEN)) {
			pair->gsi_preferred_port = (uint32_t)portnum;
			pair->smi_preferred_port = (uint32_t)portnum;
			return 0;
		}
		if (is_gsi)
			pair->gsi_preferred_port = (uint32_t)portnum;
		else
			pair->smi_preferred_port = (uint32_t)portnum;
		/* An explicit device name stands even if the other side has no port up. */
		return pick_up_port(pair, ca, !is_gsi) < 0 && !named ? -1 : 0;
	}
	if (pick_up_port(pair, ca, false) < 0)
		return -1;
	return pick_up_port(pair, ca, true);
}

int umad_get_smi_gsi_pair_by_ca_name(const char *devname, uint8_t portnum,
				     struct umad_ca_pair *ca_pair, unsigned enforce_smi)
{
	struct umad_ca_pair *pairs;
	int n, i, found = 0;
	umad_ca_t ca;

	/* rdma-core's -1 for these two, with errno saying which. */
	if (!ca_pair) {
		errno = EINVAL;
		return -1;
	}
	memset(ca_pair, 0, sizeof(*ca_pair));
	pairs = calloc(UMAD_MAX_PORTS, sizeof(*pairs));
	if (!pairs) {
		errno = ENOMEM;
		return -1;
	}
	n = umad_get_smi_gsi_pairs(pairs, UMAD_MAX_PORTS);
	if (n <= 0) {
		/* rdma-core reports success with an empty pair when there is no pair at all. */
		int err = errno;

		free(pairs);
		errno = err;	/* the pairs' error, when n < 0 */
		return n;
	}
	for (i = 0; i < n && !found; i++) {
		const struct umad_ca_pair *cand = &pairs[i];
		bool is_gsi;

		if (enforce_smi && !cand->smi_name[0])
			continue;
		if (!cand->gsi_name[0])
			continue;
		if (devname && strncmp(cand->gsi_name, devname, UMAD_CA_NAME_LEN) &&
		    strncmp(cand->smi_name, devname, UMAD_CA_NAME_LEN))
			continue;
		is_gsi = (!enforce_smi && !cand->smi_name[0]) ||
			 (devname && !strncmp(devname, cand->gsi_name, UMAD_CA_NAME_LEN));
		if (umad_ca_fetch(is_gsi ? cand->gsi_name : cand->smi_name, &ca) < 0)
			continue;
		/* rdma-core indexes ports[] with any uint8_t; numbers past 9 cannot exist. */
		if (!portnum || (portnum < UMAD_CA_MAX_PORTS && ca.ports[portnum])) {
			*ca_pair = *cand;
			found = pick_preferred_ports(ca_pair, &ca, is_gsi, portnum, devname != NULL) == 0;
		}
		umad_backend_free_ca_ports(&ca);
	}
	free(pairs);
	if (!found)
		return umad_fail(-ENODEV);
	return 0;
}
