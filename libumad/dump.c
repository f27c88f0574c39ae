/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Human-readable dumps of a umad header, in rdma-core's format (scripts parse it). */
#include "config.h"

#include <endian.h>
#include <stdio.h>

#include "internal.h"

void umad_addr_dump(ib_mad_addr_t *addr)
{
	static const char hex[] = "0123456789abcdef";
	char gid[2 * 16 + 1];
	int i;

	if (!addr) {
		IBWARN("no address (NULL)");
		return;
	}
	for (i = 0; i < 16; i++) {
		gid[2 * i] = hex[addr->gid[i] >> 4];
		gid[2 * i + 1] = hex[addr->gid[i] & 0xf];
	}
	gid[32] = '\0';
	/* flow_label is printed as stored (big-endian), as rdma-core does. */
	IBWARN("qpn %d qkey 0x%x lid %u sl %d\n"
	       "grh_present %d gid_index %d hop_limit %d traffic_class %d flow_label 0x%x pkey_index 0x%x\n"
	       "Gid 0x%s",
	       (int)be32toh(addr->qpn), be32toh(addr->qkey), be16toh(addr->lid), addr->sl,
	       addr->grh_present, addr->gid_index, addr->hop_limit, addr->traffic_class,
	       (unsigned)addr->flow_label, addr->pkey_index, gid);
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
