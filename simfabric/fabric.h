/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The simulated fabric's model: nodes (CAs, switches, routers), their ports
 * and links, and the subnet-management state each one holds as real
 * hardware would (what the SMA reports and an SM sets).
 *
 * Plain C, no glib in this header: the model is shared by the topology
 * reader, the responders, the router and the sim backend.  All multi-byte
 * fields are in host order; the responders encode them for the wire.
 *
 * Locking: the model has no lock of its own; its owner serialises every
 * access: the sim backend with one mutex when the process has the fabric
 * to itself; on a shared fabric, the server and its clients with the
 * arena's process-shared lock (arena.h), the model living in the arena.
 */
#ifndef SIMFABRIC_FABRIC_H
#define SIMFABRIC_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "base/mad_layout.h"

/* What a port supports unless the file says otherwise: every width, SDR to QDR. */
#define SIM_WIDTHS_SUPPORTED	(LINK_WIDTH_1X | LINK_WIDTH_2X | LINK_WIDTH_4X | LINK_WIDTH_8X | \
				 LINK_WIDTH_12X)
#define SIM_SPEEDS_SUPPORTED	(LINK_SPEED_SDR | LINK_SPEED_DDR | LINK_SPEED_QDR)

#define SIM_MAX_PORTS		254	/* external ports of one node */
#define SIM_PKEY_TABLE_SIZE	64
#define SIM_GUID_CAP		8
#define SIM_LFT_CAP		49152	/* LinearFDBCap of every switch */
#define SIM_MFT_CAP		1024	/* MulticastFDBCap (LIDs from LID_MCAST_START) */
/* The port-mask words (MulticastForwardingTable positions) that cover ports 0..SIM_MAX_PORTS. */
#define SIM_MFT_POSITIONS	((SIM_MAX_PORTS + MFT_PORTS_PER_MASK) / MFT_PORTS_PER_MASK)
#define SIM_DESC_LEN		MAD_FIELD_SIZE(ND_STRING)	/* NodeDescription's length */

struct sim_node;

/*
 * Faults steered by the fault API on a port's way out: drops (a seeded
 * generator per port, so runs repeat) and a delay.
 */
struct sim_link_fault {
	uint32_t drop_threshold;		/* drop when the next draw is below it; 0: no drops */
	uint64_t rng;				/* xorshift64 state, never 0 */
	uint64_t dropped;
	uint64_t delay_ns;			/* every packet leaving is this late; 0: none */
};

/*
 * The delays the MAD this thread carries has met so far (net.c starts and
 * reads it; the model's lock keeps one trip at a time in a process).
 * Thread-local rather than in the model or the net: the processes sharing
 * a fabric each carry their own MADs.
 */
extern _Thread_local uint64_t sim_trip_delay_ns;

/*
 * A packet leaving through a port with a fault: its delay goes on the
 * trip's meter, and with drops the next draw decides whether it is lost.
 */
static inline int sim_link_fault_drops(struct sim_link_fault *lf)
{
	uint64_t x = lf->rng;

	sim_trip_delay_ns += lf->delay_ns;
	if (!lf->drop_threshold)
		return 0;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	lf->rng = x;
	if ((uint32_t)(x >> 32) >= lf->drop_threshold)
		return 0;
	lf->dropped++;
	return 1;
}

struct sim_port {
	struct sim_node *node;
	uint8_t num;				/* 0 for a switch's management port */
	struct sim_port *peer;			/* the other end of the cable, or NULL */
	unsigned line;				/* topology line that declared the link, for messages */
	uint8_t failed;				/* a fault holds the link down (fault.h) */
	struct sim_link_fault *fault;		/* packet drops or delay on the way out, or NULL */

	/* Link attributes (PortInfo). */
	uint8_t width_supported, width_enabled, width_active;
	uint8_t speed_supported, speed_enabled, speed_active;
	uint8_t ext_supported, ext_enabled, ext_active;
	/* MlnxExtPortInfo's (MLNX_LINK_SPEED_*: FDR10), answered on Mellanox nodes only. */
	uint8_t mlnx_speed_supported, mlnx_speed_enabled, mlnx_speed_active;
	uint8_t mlnx_state_change_enable;
	uint8_t state;				/* enum port_state */
	uint8_t phys_state;			/* enum port_phys_state */
	uint8_t link_down_default;		/* 2 = polling */
	uint8_t mtu_cap, neighbor_mtu;		/* 1=256 .. 5=4096 */
	uint8_t vl_cap, op_vls;			/* 1..5 (VL0..VL14 encodings) */
	uint8_t vl_high_limit, vl_arb_high_cap, vl_arb_low_cap;
	uint8_t init_type_reply, vl_stall, hoq_life;
	uint8_t partition_enforcement;		/* the four in/out/filter bits, low nibble */
	uint8_t guid_cap, subnet_timeout, resp_time_value;
	uint8_t client_reregister, mcast_pkey_trap_suppress;
	uint8_t local_phy_errors, overrun_errors;
	uint16_t max_credit_hint;
	uint32_t link_round_trip_latency;
	uint16_t capmask2;

	/* Addressing and management; for a switch, port 0's values are the node's. */
	uint16_t lid, sm_lid;
	uint8_t lmc, sm_sl;
	/* The LID and LMC the topology file gives the port (0: none), for an SM to keep. */
	uint16_t file_lid;
	uint8_t file_lmc;
	uint64_t gid_prefix;
	uint64_t m_key;
	uint8_t m_key_protect;
	uint16_t m_key_lease;
	uint16_t m_key_violations, p_key_violations, q_key_violations;
	uint32_t capmask;
	uint16_t diag_code;

	uint64_t guid;				/* port GUID (CA/router ports; switches: node GUID) */
	/* GUIDInfo beyond the port GUID, and the P_KeyTable: allocated when an SM first
	 * sets them (NULL: alias GUIDs 0; P_Keys PKEY_DEFAULT then 0s). */
	uint64_t *alias_guids;			/* SIM_GUID_CAP entries, [0] unused */
	uint16_t *pkeys;			/* SIM_PKEY_TABLE_SIZE entries */
	/*
	 * SLtoVLMappingTable as SL2VL_TABLE's word (SL 0's VL in the top bits),
	 * the one of every input port (sim_port_sl2vl).  A switch port's tables
	 * per input port 0..num_ports are allocated when an SM first sets one
	 * input port's apart (NULL: sl2vl holds for all); sl2vl is then unused.
	 */
	uint64_t sl2vl;
	uint64_t *sl2vl_in;
	/* VLArbitrationTable blocks 1-4 (low 0-31, low 32-63, high 0-31, high 32-63) as
	 * (VL, weight) pairs (SIM_VLARB_*); allocated when first set, all zero until then. */
	uint8_t (*vlarb)[VL_ARB_PER_BLOCK][2];
	uint8_t led;				/* LedInfo:LedMask */

	/* Counters the PMA reports. */
	uint64_t xmit_data, rcv_data, xmit_pkts, rcv_pkts;
	/* The multicast part of xmit_pkts/rcv_pkts (raised with them); the rest is unicast. */
	uint64_t xmit_mcast_pkts, rcv_mcast_pkts;
	/*
	 * Allocated by simfabric/pma.c only when needed, each freed with free():
	 * where a Set cleared counters (NULL: none cleared yet), the error counters
	 * the fault API raised (NULL: all 0), a PortSamplesControl sample (NULL: none).
	 */
	struct sim_pma_zero *pma_zero;
	struct sim_pma_errors *pma_errors;
	struct sim_pma_samples *pma_samples;
};

/* The two bytes of a sim_port.vlarb entry. */
enum { SIM_VLARB_VL, SIM_VLARB_WEIGHT };

struct sim_switch {
	uint16_t lft_top;			/* LinearFDBTop */
	uint16_t mft_top;			/* MulticastFDBTop */
	uint8_t default_port, default_mcast_primary, default_mcast_not_primary;
	uint8_t life_time_value;
	uint8_t port_state_change;		/* SwitchInfo:PortStateChange */
	/* A port's state changed since the switch last sent its SM Trap 128 (net.c sends it). */
	uint8_t link_trap_owed;
	uint8_t enhanced_port0;
	uint16_t lids_per_port, partition_enforcement_cap;
	/* LFT entries 0 .. lft_len - 1 (whole blocks, grown as they are written); 0xff = no
	 * route, as is every LID from there up.  A table allocated whole by its user
	 * (lft set, lft_len left 0) holds SIM_LFT_CAP entries: sim_switch_lft_len. */
	uint8_t *lft;
	uint32_t lft_len;
	uint16_t (*mft)[SIM_MFT_POSITIONS];	/* SIM_MFT_CAP port masks; NULL: all empty */
};

struct sim_sminfo {
	uint64_t guid, sm_key;
	uint32_t act_count;
	uint8_t priority, state;
};

struct sim_cc;

/* A firmware version: major, minor, sub-minor ("20.31.1014"). */
struct sim_fw_version {
	uint16_t major, minor, sub_minor;
};

struct sim_node {
	enum node_type type;
	char *name;				/* the topology's node id ("Switch1", "H-0002c9...") */
	char desc[SIM_DESC_LEN + 1];		/* NodeDescription */
	unsigned line;				/* where the node's record starts */
	uint64_t node_guid, sys_guid;
	uint32_t vendor_id, revision;
	uint16_t device_id, partition_cap;
	struct sim_fw_version fw;		/* as the topology names it; all 0: the device's own */
	uint8_t num_ports;			/* external ports */
	struct sim_port *ports;			/* [0 .. num_ports]; ports[0] unused on CAs and routers */
	struct sim_switch *sw;			/* switches only */
	struct sim_sminfo sminfo;
	struct sim_cc *cc;			/* congestion control state (cc.c); NULL: never set */
	size_t index;				/* position in fabric->nodes */
	uint32_t attached;			/* clients of a shared fabric attached here */
};

struct sim_fabric {
	struct sim_node **nodes;		/* in file order */
	size_t n_nodes, cap_nodes;
	size_t n_switches, n_cas, n_routers, n_links;
	struct sim_node **by_lid;		/* one per unicast LID once an SM set a LID, or NULL */
	uint8_t *port_of_lid;			/* the port each LID belongs to (CA ports) */
};

/* --- building (the topology reader and tests use these) --------------------- */

struct sim_arena;

/* An empty fabric on the heap, or in an arena (arena.h) that several processes map. */
struct sim_fabric *sim_fabric_new(void);
struct sim_fabric *sim_fabric_new_in(struct sim_arena *arena);
void sim_fabric_free(struct sim_fabric *f);

/*
 * Add a node with num_ports external ports (1..SIM_MAX_PORTS) and default
 * state: ports Down/Polling with no link (a switch's port 0 LinkUp and
 * Active), 4x SDR supported and enabled, MTU 4096, VL0-7, the default
 * P_Key, LIDs 0.  Returns NULL on ENOMEM.
 */
struct sim_node *sim_fabric_add_node(struct sim_fabric *f, enum node_type type,
				     const char *name, unsigned num_ports);

/*
 * Make a switch's port 0 an enhanced one: Init at power-on, where a base
 * port 0 is Active.
 */
void sim_switch_set_enhanced_port0(struct sim_node *n);

/*
 * Connect two ports with a cable.  -EBUSY if either is already connected to
 * another port (0 if this very link exists), -EINVAL for port 0 or a port out
 * of range.  The link comes up (LinkUp, Init) when both ends share a width
 * and a speed; -ERANGE (and no link) when they share none.
 */
int sim_fabric_link(struct sim_port *a, struct sim_port *b);

/*
 * Derive what a node's CapabilityMask and CapabilityMask2 announce of its
 * links from the widths and speeds its ports support: extended speeds, 2X,
 * HDR, NDR.  On a switch port 0 announces them for the whole node, as tools
 * and SMs read them there.  Call after a port's supported rates change.
 */
void sim_node_link_caps(struct sim_node *n);

/* Recompute the active width and speed of a link and bring it up; -ERANGE if none shared. */
int sim_link_train(struct sim_port *a, struct sim_port *b);

/* Look-ups; NULL when absent. */
struct sim_node *sim_fabric_find(const struct sim_fabric *f, const char *name_or_guid);

/* Where a program attaches when it names no node: the first CA, else the first node. */
struct sim_node *sim_fabric_default_host(const struct sim_fabric *f);

/*
 * The ports a program attached at a node may open, as a device shows them:
 * a switch's port 0, an end node's ports 1 to num_ports.
 */
static inline int sim_host_port_valid(uint32_t node_type, uint32_t num_ports, uint32_t port)
{
	if (node_type == NODE_TYPE_SWITCH)
		return port == 0;
	return port >= 1 && port <= num_ports;
}
struct sim_node *sim_fabric_node_by_lid(const struct sim_fabric *f, uint16_t lid,
					uint8_t *port_num);

/* Re-index a port's LID range after an SM changed LID or LMC; 0 or -ENOMEM. */
int sim_fabric_lid_changed(struct sim_fabric *f, struct sim_port *p, uint16_t old_lid,
			   uint8_t old_lmc);

/* The LFT's egress port for a unicast LID: SIM_LFT_NO_ROUTE where none was set. */
#define SIM_LFT_NO_ROUTE	0xff
static inline uint32_t sim_switch_lft_len(const struct sim_switch *sw)
{
	return sw->lft && !sw->lft_len ? SIM_LFT_CAP : sw->lft_len;
}

static inline uint8_t sim_switch_lft_get(const struct sim_switch *sw, uint16_t lid)
{
	if (lid >= sim_switch_lft_len(sw))
		return SIM_LFT_NO_ROUTE;
	return sw->lft[lid];
}

/*
 * Make the LFT hold LIDs below `entries` (at most SIM_LFT_CAP; rounded up to
 * whole blocks), the new entries SIM_LFT_NO_ROUTE.  0 or -ENOMEM (the
 * table unchanged), -EINVAL beyond SIM_LFT_CAP.
 */
int sim_switch_lft_reserve(struct sim_switch *sw, uint32_t entries);

/*
 * The table with room for len entries (at most SIM_LFT_CAP), the old ones
 * kept; the caller sets lft and lft_len.  NULL on ENOMEM.
 */
uint8_t *sim_switch_lft_room(struct sim_switch *sw, uint32_t len);

/* The port whose LID/LMC/M_Key/SM LID describe the node for management (port 0 of a switch). */
static inline struct sim_port *sim_mgmt_port(struct sim_node *n, unsigned port_num)
{
	return n->type == NODE_TYPE_SWITCH ? &n->ports[0] : &n->ports[port_num];
}

/* PortInfoExtended (its FEC modes) came with HDR: ports that support HDR or later have it. */
static inline int sim_port_has_port_info_ext(const struct sim_port *p)
{
	return (p->ext_supported & (LINK_SPEED_EXT_HDR | LINK_SPEED_EXT_NDR)) != 0;
}

/* One P_Key table entry (the default table when none was set). */
static inline uint16_t sim_port_pkey(const struct sim_port *p, unsigned index)
{
	if (p->pkeys)
		return p->pkeys[index];
	return index == 0 ? PKEY_DEFAULT : 0;
}

/* GUIDInfo entry `index` (0: the port GUID). */
static inline uint64_t sim_port_guid_at(const struct sim_port *p, unsigned index)
{
	if (index == 0)
		return p->guid;
	return p->alias_guids ? p->alias_guids[index] : 0;
}

/* --- SLtoVLMappingTable -------------------------------------------------------- */

/* The VL of an SL in a table word. */
static inline uint8_t sim_sl2vl_vl(uint64_t table, unsigned sl)
{
	unsigned shift = (SL2VL_SLS - 1 - sl) * MAD_FIELD_BITS(SL2VL_VL_OF_SL0);

	return (uint8_t)(table >> shift & mad_field_max(SL2VL_VL_OF_SL0));
}

/* A table word with SL sl on VL vl, the others as they were. */
static inline uint64_t sim_sl2vl_with(uint64_t table, unsigned sl, unsigned vl)
{
	unsigned shift = (SL2VL_SLS - 1 - sl) * MAD_FIELD_BITS(SL2VL_VL_OF_SL0);

	return (table & ~(mad_field_max(SL2VL_VL_OF_SL0) << shift)) |
	       (uint64_t)(vl & mad_field_max(SL2VL_VL_OF_SL0)) << shift;
}

/*
 * The table a packet leaving by port `out` uses when it came in by port
 * `in` of the same switch (0: from the switch itself); an end port has one.
 */
static inline uint64_t sim_port_sl2vl(const struct sim_port *out, unsigned in)
{
	return out->sl2vl_in ? out->sl2vl_in[in] : out->sl2vl;
}

/*
 * Set the table from input port `in` (0..num_ports; ignored on an end
 * port).  The first table a switch port's input port gets apart from the
 * others allocates one per input port, where the model lives; 0, or
 * -ENOMEM with nothing changed.
 */
int sim_port_sl2vl_set(struct sim_port *out, unsigned in, uint64_t table);

/* Set the table from every input port. */
void sim_port_sl2vl_set_all(struct sim_port *out, uint64_t table);

/* Is the port's physical link up (both ends LinkUp)? */
static inline int sim_port_link_up(const struct sim_port *p)
{
	return p->peer && p->phys_state == PHYS_STATE_LINKUP && p->peer->phys_state == PHYS_STATE_LINKUP;
}

/* The widest width of a mask of LinkWidth bits (0 for none). */
uint8_t sim_widest_width(uint8_t widths);

/* The lanes of one LinkWidth bit (1, 2, 4, 8, 12); 0 for none or several. */
unsigned sim_width_lanes(uint8_t width);

/*
 * The one look-up of a P_Key table: the index of the first entry that
 * takes pkey (pkey_match: the same partition, not both limited members),
 * or -1.
 */
static inline int sim_port_pkey_find(const struct sim_port *p, uint16_t pkey)
{
	unsigned i;

	for (i = 0; i < SIM_PKEY_TABLE_SIZE; i++)
		if (pkey_match(sim_port_pkey(p, i), pkey))
			return (int)i;
	return -1;
}

/* The P_Key index of pkey's partition in a port's table, membership aside (0 when absent). */
static inline uint16_t sim_port_pkey_index(const struct sim_port *p, uint16_t pkey)
{
	int i = sim_port_pkey_find(p, pkey_as_full(pkey));

	return i < 0 ? 0 : (uint16_t)i;
}

/* Rate in Gb/s (as sysfs shows it: 2.5 per lane for SDR...), times 10 to stay integral. */
unsigned sim_port_rate_x10(const struct sim_port *p);

/* "4X QDR" and the like, for sysfs and messages. */
const char *sim_width_name(uint8_t width_active);
const char *sim_speed_name(const struct sim_port *p);

#endif /* SIMFABRIC_FABRIC_H */
