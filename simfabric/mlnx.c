/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Mellanox's vendor attributes (mlnx.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/mad_layout.h"
#include "simfabric/attr_table.h"
#include "simfabric/identity.h"
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

/* --- the vendor-specific class ------------------------------------------------- */

/* A vendor-class request: the node and port it arrived at, its data answered in place. */
struct vs_request {
	struct sim_node *node;
	unsigned in_port;
	uint8_t *d;
};

static int vs_class_port_info(void *request)
{
	const struct vs_request *r = request;
	const struct sim_port *m = sim_mgmt_port(r->node, r->in_port);
	uint8_t *d = r->d;

	memset(d, 0, MLNX_VS_DATA_SIZE);
	mad_set(d, CPI_BASE_VERSION, UMAD_BASE_VERSION);
	mad_set(d, CPI_CLASS_VERSION, MLNX_VS_CLASS_VERSION);
	/* CapabilityMask 0: no traps, no redirection. */
	mad_set(d, CPI_RESP_TIME_VALUE, m->resp_time_value);
	return 0;
}

/*
 * GeneralInfo: the device and revision NodeInfo carries, the firmware
 * (each part in a byte, cut to its low 8 bits, and whole in the extended
 * words), the board's PSID as sysfs board_id shows it.
 */
static int vs_general_info(void *request)
{
	const struct vs_request *r = request;
	const struct sim_node *node = r->node;
	uint8_t *d = r->d;
	const char *psid = sim_identity_board_id(node->vendor_id, node->device_id);
	struct sim_fw_version fw = { 0 };

	sim_identity_firmware(node->vendor_id, node->device_id, &node->fw, &fw);
	memset(d, 0, MLNX_VS_DATA_SIZE);
	mad_set(d, MGI_HW_REVISION, node->revision);
	mad_set(d, MGI_HW_DEVICE_ID, node->device_id);
	mad_set(d, MGI_FW_MAJOR, fw.major & mad_field_max(MGI_FW_MAJOR));
	mad_set(d, MGI_FW_MINOR, fw.minor & mad_field_max(MGI_FW_MINOR));
	mad_set(d, MGI_FW_SUB_MINOR, fw.sub_minor & mad_field_max(MGI_FW_SUB_MINOR));
	mad_set(d, MGI_FW_EXT_MAJOR, fw.major);
	mad_set(d, MGI_FW_EXT_MINOR, fw.minor);
	mad_set(d, MGI_FW_EXT_SUB_MINOR, fw.sub_minor);
	memcpy(MAD_AT(d, MGI_FW_PSID), psid, strnlen(psid, MAD_FIELD_SIZE(MGI_FW_PSID) - 1));
	return 0;
}

SIM_ATTR_FIELD_LIST(vs_class_port_info_fields, CLASS_PORT_INFO);
SIM_ATTR_FIELD_LIST(vs_general_info_fields, MLNX_GENERAL_INFO);

/* What the vendor class answers, on Mellanox nodes (sim_mlnx_vs_process); nothing is writable. */
static const struct sim_attr vs_attrs[] = {
	{ MLNX_VS_ATTR_CLASS_PORT_INFO, 0, "ClassPortInfo", SIM_ATTR_FIELDS(vs_class_port_info_fields),
	  NULL, vs_class_port_info, NULL },
	{ MLNX_VS_ATTR_GENERAL_INFO, 0, "GeneralInfo", SIM_ATTR_FIELDS(vs_general_info_fields), NULL,
	  vs_general_info, NULL },
};

const struct sim_attr *sim_mlnx_vs_attrs(size_t *n)
{
	*n = SIM_ATTR_N(vs_attrs);
	return vs_attrs;
}

int sim_mlnx_vs_process(struct sim_node *node, unsigned in_port, uint8_t *mad)
{
	struct vs_request r = { .node = node, .in_port = in_port, .d = mad + MLNX_VS_OFF_DATA };
	uint8_t method = mad_method(mad);
	const struct sim_attr *a;
	int status;

	if (mad_class(mad) != MLNX_VS_CLASS || !sim_node_is_mellanox(node) ||
	    mad_method_is_response(method) || method == UMAD_METHOD_TRAP_REPRESS)
		return 0;
	if (mad[MAD_OFF_BASE_VERSION] != UMAD_BASE_VERSION ||
	    mad[MAD_OFF_CLASS_VERSION] != MLNX_VS_CLASS_VERSION) {
		status = UMAD_STATUS_BAD_VERSION;
	} else if (method != UMAD_METHOD_GET && method != UMAD_METHOD_SET) {
		status = UMAD_STATUS_METHOD_NOT_SUPPORTED;
	} else {
		a = sim_attr_take(vs_attrs, SIM_ATTR_N(vs_attrs), mad_attr_id(mad), node,
				  method == UMAD_METHOD_SET);
		status = a ? a->answer(&r) : UMAD_STATUS_ATTR_NOT_SUPPORTED;
	}
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	put_be16(mad + MAD_OFF_STATUS, (uint16_t)status);
	return 1;
}
