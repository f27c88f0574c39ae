/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Mellanox's vendor attributes, which Mellanox nodes (identity.h) answer
 * and Debian's tools ask them for: MlnxExtPortInfo (SMP attribute 0xFF90:
 * libibnetdisc, iblinkinfo, ibportstate, smpquery and opensm read it,
 * opensm and ibportstate set it), through which a port runs FDR10; and
 * the vendor-specific class MLNX_VS_CLASS's ClassPortInfo and GeneralInfo
 * (vendstat -N: the device, its revision and firmware).  Layouts as
 * libibmad and vendstat read them (mad_layout.h); nodes of other vendors
 * answer "unsupported attribute" to the SMP and nothing to the class, as
 * they do on a real fabric.
 * The owner serialises calls with the fabric's lock.
 */
#ifndef SIMFABRIC_MLNX_H
#define SIMFABRIC_MLNX_H

#include <stdint.h>

#include "simfabric/fabric.h"

/* A port's MlnxExtPortInfo, as a Get answers it (SMP_DATA_SIZE bytes). */
void sim_encode_mlnx_ext_port_info(const struct sim_port *p, uint8_t *restrict d);

/*
 * A Set of a port's MlnxExtPortInfo: StateChangeEnable and
 * LinkSpeedEnabled, which takes effect when the link next trains, as on
 * hardware.  0, or -EINVAL (nothing changed) for a speed the port does
 * not support.
 */
int sim_mlnx_ext_port_info_set(struct sim_port *p, const uint8_t *d);

/*
 * Process a MAD of class MLNX_VS_CLASS that reached a Mellanox node
 * through in_port: the MAD buffer (MAD_SIZE bytes) becomes the response in
 * place.  Returns 1 to answer, 0 to stay silent (a response or TrapRepress
 * arriving, a node of another vendor: another taker may have it).
 */
int sim_mlnx_vs_process(struct sim_node *node, unsigned in_port, uint8_t *mad);

struct sim_attr;
/* The vendor class's attribute table (attr_table.h): its n rows. */
const struct sim_attr *sim_mlnx_vs_attrs(size_t *n);

#endif /* SIMFABRIC_MLNX_H */
