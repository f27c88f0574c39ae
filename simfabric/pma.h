/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The performance management agent every simulated node runs (class UMAD_CLASS_PERF_MGMT). */
#ifndef SIMFABRIC_PMA_H
#define SIMFABRIC_PMA_H

#include <stdint.h>

#include "simfabric/fabric.h"

/*
 * Process a PMA MAD that reached `node` through `in_port` (0: a switch's own
 * port).  The MAD buffer (MAD_SIZE bytes) becomes the response in place.
 * Returns 1 when there is a response to send, 0 when the PMA stays silent
 * (a response arriving, another class, a base or class version it does not
 * speak).
 */
int sim_pma_process(struct sim_fabric *f, struct sim_node *node, unsigned in_port, uint8_t *mad);

struct sim_attr;
/* The PMA's attribute table (attr_table.h): its n rows. */
const struct sim_attr *sim_pma_attrs(size_t *n);

/*
 * The error counters the fault API can raise, named as the spec's fields
 * (sim_pma_counter_name).  The detail counters break their parent down:
 * raising one raises PortRcvErrors or PortXmitDiscards too.
 */
enum sim_pma_counter {
	SIM_PMA_SYMBOL_ERRORS,			/* SymbolErrorCounter */
	SIM_PMA_LINK_ERROR_RECOVERY,		/* LinkErrorRecoveryCounter */
	SIM_PMA_LINK_DOWNED,			/* LinkDownedCounter */
	SIM_PMA_RCV_ERRORS,			/* PortRcvErrors */
	SIM_PMA_RCV_REMOTE_PHYS_ERRORS,		/* PortRcvRemotePhysicalErrors */
	SIM_PMA_RCV_SWITCH_RELAY_ERRORS,	/* PortRcvSwitchRelayErrors */
	SIM_PMA_XMIT_DISCARDS,			/* PortXmitDiscards */
	SIM_PMA_XMIT_CONSTRAINT_ERRORS,		/* PortXmitConstraintErrors */
	SIM_PMA_RCV_CONSTRAINT_ERRORS,		/* PortRcvConstraintErrors */
	SIM_PMA_LOCAL_LINK_INTEGRITY_ERRORS,	/* LocalLinkIntegrityErrors */
	SIM_PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS,/* ExcessiveBufferOverrunErrors */
	SIM_PMA_VL15_DROPPED,			/* VL15Dropped */
	SIM_PMA_XMIT_WAIT,			/* PortXmitWait (ticks a packet waited) */
	SIM_PMA_QP1_DROPPED,			/* QP1Dropped */
	/* PortRcvErrorDetails (each also counts in PortRcvErrors). */
	SIM_PMA_LOCAL_PHYSICAL_ERRORS,		/* PortLocalPhysicalErrors */
	SIM_PMA_MALFORMED_PACKET_ERRORS,	/* PortMalformedPacketErrors */
	SIM_PMA_BUFFER_OVERRUN_ERRORS,		/* PortBufferOverrunErrors */
	SIM_PMA_DLID_MAPPING_ERRORS,		/* PortDLIDMappingErrors */
	SIM_PMA_VL_MAPPING_ERRORS,		/* PortVLMappingErrors */
	SIM_PMA_LOOPING_ERRORS,			/* PortLoopingErrors */
	/* PortXmitDiscardDetails (each also counts in PortXmitDiscards). */
	SIM_PMA_INACTIVE_DISCARDS,		/* PortInactiveDiscards */
	SIM_PMA_NEIGHBOR_MTU_DISCARDS,		/* PortNeighborMTUDiscards */
	SIM_PMA_SW_LIFETIME_LIMIT_DISCARDS,	/* PortSwLifetimeLimitDiscards */
	SIM_PMA_SW_HOQ_LIFETIME_LIMIT_DISCARDS,	/* PortSwHOQLifetimeLimitDiscards */
	SIM_PMA_N_COUNTERS
};

/*
 * Raise counter c of port p by n.  The count is kept in 64 bits (stopping at
 * the top); each attribute reports it saturated to its field's width.
 * 0, -EINVAL for a counter out of range, -ENOMEM when the port's error
 * counters cannot be allocated (the raise is then lost).
 */
int sim_pma_counter_add(struct sim_port *p, enum sim_pma_counter c, uint64_t n);

/* The counter's value as PortCountersExtended reports it (since the last clear). */
uint64_t sim_pma_counter_get(const struct sim_port *p, enum sim_pma_counter c);

/* "SymbolErrorCounter"...; NULL out of range. */
const char *sim_pma_counter_name(enum sim_pma_counter c);

/* The counter a name (case ignored; also libibmad's spellings) names, or -1. */
int sim_pma_counter_by_name(const char *name);

/*
 * Whether a name (case ignored) is one of the traffic counters (PortXmitData,
 * PortRcvPkts...): counted from the packets the port carries, never raised
 * by the fault API.  The name as PortCounters spells it, or NULL.
 */
const char *sim_pma_traffic_counter(const char *name);

#endif /* SIMFABRIC_PMA_H */
