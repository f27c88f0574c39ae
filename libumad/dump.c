/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Human-readable dumps of a umad header, in rdma-core's format (scripts parse it). */
#include "config.h"

#include <endian.h>
#include <stdio.h>

#include "internal.h"

void umad_addr_dump(ib_mad_addr_t *addr)
{
	char gid_hex[2 * sizeof(addr->gid) + 1];
	size_t i;

	if (!addr) {
		IBWARN("no address (NULL)");
		return;
	}
	for (i = 0; i < sizeof(addr->gid); i++)
		snprintf(gid_hex + 2 * i, sizeof(gid_hex) - 2 * i, "%02x", addr->gid[i]);
	/* flow_label is printed as stored (big-endian), as rdma-core does. */
	IBWARN("qpn %d qkey 0x%x lid %u sl %d\n"
	       "grh_present %d gid_index %d hop_limit %d traffic_class %d flow_label 0x%x pkey_index 0x%x\n"
	       "Gid 0x%s",
	       (int)be32toh(addr->qpn), be32toh(addr->qkey), be16toh(addr->lid), addr->sl,
	       addr->grh_present, addr->gid_index, addr->hop_limit, addr->traffic_class,
	       (unsigned)addr->flow_label, addr->pkey_index, gid_hex);
}

void umad_dump(void *umad)
{
	struct ib_user_mad *mad = umad;

	if (!mad) {
		IBWARN("no umad (NULL)");
		return;
	}
	IBWARN("agent id %d status %x timeout %d", (int)mad->agent_id, mad->status,
	       (int)mad->timeout_ms);
	umad_addr_dump(&mad->addr);
}
