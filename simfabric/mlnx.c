/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Mellanox's vendor attributes (mlnx.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "libumad/base/mad_layout.h"
#include "simfabric/mlnx.h"

void sim_encode_mlnx_ext_port_info(const struct sim_port *p, uint8_t *restrict d)
{
	memset(d, 0, SMP_DATA_SIZE);
	mad_set(d, MEPI_STATE_CHANGE_ENABLE, p->mlnx_state_change_enable);
	mad_set(d, MEPI_LINK_SPEED_SUPPORTED, p->mlnx_speed_supported);
	mad_set(d, MEPI_LINK_SPEED_ENABLED, p->mlnx_speed_enabled);
	mad_set(d, MEPI_LINK_SPEED_ACTIVE, p->width_active ? p->mlnx_speed_active : 0);
}

int sim_mlnx_ext_port_info_set(struct sim_port *p, const uint8_t *d)
{
	uint8_t enabled = (uint8_t)mad_get(d, MEPI_LINK_SPEED_ENABLED);

	if (enabled & ~p->mlnx_speed_supported)
		return -EINVAL;
	p->mlnx_state_change_enable = (uint8_t)mad_get(d, MEPI_STATE_CHANGE_ENABLE);
	p->mlnx_speed_enabled = enabled;
	return 0;
}
