/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Mellanox's vendor attributes, which Mellanox nodes (identity.h) answer
 * and Debian's tools ask them for: MlnxExtPortInfo (SMP attribute 0xFF90:
 * libibnetdisc, iblinkinfo, ibportstate, smpquery and opensm read it,
 * opensm and ibportstate set it), through which a port runs FDR10.
 * Layouts as libibmad decodes them (mad_layout.h); nodes of other vendors
 * answer "unsupported attribute", as they do on a real fabric.
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

#endif /* SIMFABRIC_MLNX_H */
