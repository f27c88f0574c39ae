/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a node shows of itself beyond NodeInfo, from its vendor and device
 * ID as the topology gives them: the sysfs files a host's driver writes
 * (hca_type, board_id, fw_ver) and the firmware version its
 * vendor MADs report.  One table for the sim backend's fake sysfs tree,
 * `umad kernel`'s tree and the vendor agent (mlnx.h).
 *
 * Mellanox devices (VendorID 0x2c9) show what mlx4 and mlx5 show: hca_type
 * "MT" and the device ID in decimal (0x101b, a ConnectX-6: "MT4123"), a
 * board ID of the product's form and the firmware of its generation
 * ("20.x.y" for a ConnectX-6) unless the topology names one.  A node
 * without a vendor the table knows keeps the simulator's own identity.
 * Libc only.
 */
#ifndef SIMFABRIC_IDENTITY_H
#define SIMFABRIC_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "simfabric/fabric.h"

/* VendorID of Mellanox (now NVIDIA) devices, as NodeInfo carries it. */
#define SIM_VENDOR_MELLANOX	0x0002c9u

/* The simulator's own identity, a node's whose vendor has no entry here. */
#define SIM_IDENTITY_HCA_TYPE	"libumad-sim"
#define SIM_IDENTITY_BOARD_ID	"LIBUMAD_SIM"

/* Is it a Mellanox node, which answers Mellanox's vendor attributes? */
static inline int sim_node_is_mellanox(const struct sim_node *n)
{
	return n->vendor_id == SIM_VENDOR_MELLANOX;
}

/*
 * The firmware a node runs: the topology's (fwver=), else its device's as
 * the table has it.  0, or -ENOENT when neither says (the simulator's own
 * version then stands for it).
 */
int sim_identity_firmware(uint32_t vendor_id, uint16_t device_id,
			  const struct sim_fw_version *given, struct sim_fw_version *fw);

/* Is the firmware version one the topology named (not all 0)? */
static inline int sim_fw_given(const struct sim_fw_version *fw)
{
	return fw->major || fw->minor || fw->sub_minor;
}

/*
 * The sysfs texts (no newline) of a node's device: hca_type, board_id and
 * fw_ver ("20.31.1014", as mlx5 prints it; the simulator's version when no
 * firmware is known).  Each returns its length, or -ENAMETOOLONG when it
 * does not fit size; board_id a constant string.
 */
int sim_identity_hca_type(uint32_t vendor_id, uint16_t device_id, char *buf, size_t size);
const char *sim_identity_board_id(uint32_t vendor_id, uint16_t device_id);
int sim_identity_fw_text(uint32_t vendor_id, uint16_t device_id,
			 const struct sim_fw_version *given, char *buf, size_t size);

#endif /* SIMFABRIC_IDENTITY_H */
