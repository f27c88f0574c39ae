/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The congestion control agent (CCMgrA, IBA Annex A10) of every simulated
 * node: ClassPortInfo, CongestionInfo, CongestionKeyInfo and CongestionLog
 * everywhere; SwitchCongestionSetting and SwitchPortCongestionSetting on
 * switches; CACongestionSetting and CongestionControlTable on CA ports;
 * Timestamp.  What a Set stores reads back; nothing is enforced on traffic
 * (the fabric carries none), so the log holds only what the owner reports.
 *
 * A switch has one agent (port 0); a CA or router one per port, each with
 * its own key and settings.  The state lives in node->cc, allocated on the
 * first Set or logged event: nodes never configured answer the defaults.
 * The owner serialises calls with the fabric's lock.
 */
#ifndef SIMFABRIC_CC_H
#define SIMFABRIC_CC_H

#include <stdint.h>

#include "simfabric/fabric.h"

/* CongestionInfo:ControlTableCap of a CA port: blocks of 64 CongestionControlTable entries. */
#define SIM_CC_CCT_BLOCKS	2

/*
 * Process a CC MAD (class UMAD_CLASS_CONG_MGMT) that reached node through
 * in_port (0: a switch's own port).  The MAD buffer (MAD_SIZE bytes)
 * becomes the response in place.  Returns 1 to answer, 0 to stay silent: a
 * response or TrapRepress arriving, an unknown port, or a failed CC_Key
 * check (then CongestionKeyInfo:CC_KeyViolations counts it).
 */
int sim_cc_process(struct sim_fabric *f, struct sim_node *node, unsigned in_port, uint8_t *mad);

struct sim_attr;
/* The CC agent's attribute table (attr_table.h): its n rows. */
const struct sim_attr *sim_cc_attrs(size_t *n);

/*
 * Congestion events for the CongestionLog, which keeps the most recent ones
 * until it is read.  A switch's: a packet from slid to dlid on SL sl marked
 * at its port `port`.  A CA port's: its QP local_qp reached the CN threshold.
 * 0, -EINVAL (wrong node type, port out of range) or -ENOMEM.
 */
int sim_cc_log_switch_event(struct sim_node *sw, unsigned port, uint16_t slid, uint16_t dlid,
			    uint8_t sl);
int sim_cc_log_ca_event(struct sim_node *ca, unsigned port, uint32_t local_qp, uint32_t remote_qp,
			uint8_t sl, uint8_t service_type, uint16_t remote_lid);

#endif /* SIMFABRIC_CC_H */
