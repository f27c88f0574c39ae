/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Names for management classes, methods, statuses and attributes.  The
 * strings are rdma-core's, misspellings included: tools print them and
 * scripts match on them.
 */
#include "config.h"

#include <endian.h>
#include <stddef.h>
#include <infiniband/umad_cm.h>
#include <infiniband/umad_str.h>

#include "base/mad_wire.h"

struct code_name {
	uint16_t code;
	const char *name;
};

#define N_OF(table) (sizeof(table) / sizeof((table)[0]))

static const char *name_in(const struct code_name *table, size_t n, uint16_t code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (table[i].code == code)
			return table[i].name;
	return NULL;
}

static const struct code_name class_names[] = {
	{ UMAD_CLASS_SUBN_LID_ROUTED, "Subn" },
	{ UMAD_CLASS_SUBN_DIRECTED_ROUTE, "Subn" },
	{ UMAD_CLASS_SUBN_ADM, "SubnAdm" },
	{ UMAD_CLASS_PERF_MGMT, "Perf" },
	{ UMAD_CLASS_BM, "BM" },
	{ UMAD_CLASS_DEVICE_MGMT, "DevMgt" },
	{ UMAD_CLASS_CM, "ComMgt" },
	{ UMAD_CLASS_SNMP, "SNMP" },
	{ UMAD_CLASS_DEVICE_ADM, "DevAdm" },
	{ UMAD_CLASS_BOOT_MGMT, "BootMgt" },
	{ UMAD_CLASS_BIS, "BIS" },
	{ UMAD_CLASS_CONG_MGMT, "CongestionManagment" },
};

const char *umad_class_str(uint8_t mgmt_class)
{
	const char *name = name_in(class_names, N_OF(class_names), mgmt_class);

	if (name)
		return name;
	if ((mgmt_class >= UMAD_CLASS_VENDOR_RANGE1_START &&
	     mgmt_class <= UMAD_CLASS_VENDOR_RANGE1_END) || mad_class_is_vendor_range2(mgmt_class))
		return "Vendor";
	if (mgmt_class >= UMAD_CLASS_APPLICATION_START && mgmt_class <= UMAD_CLASS_APPLICATION_END)
		return "Application";
	return "<unknown>";
}

static const struct code_name common_methods[] = {
	{ UMAD_METHOD_GET, "Get" },
	{ UMAD_METHOD_SET, "Set" },
	{ UMAD_METHOD_GET_RESP, "GetResp" },
	{ UMAD_METHOD_SEND, "Send" },
	{ UMAD_METHOD_TRAP, "Trap" },
	{ UMAD_METHOD_REPORT, "Report" },
	{ UMAD_METHOD_REPORT_RESP, "ReportResp" },
	{ UMAD_METHOD_TRAP_REPRESS, "TrapRepress" },
};

static const struct code_name sa_methods[] = {
	{ UMAD_SA_METHOD_GET_TABLE, "GetTable" },
	{ UMAD_SA_METHOD_GET_TABLE_RESP, "GetTableResp" },
	{ UMAD_SA_METHOD_DELETE, "Delete" },
	{ UMAD_SA_METHOD_DELETE_RESP, "DeleteResp" },
	{ UMAD_SA_METHOD_GET_MULTI, "GetMulti" },
	{ UMAD_SA_METHOD_GET_MULTI_RESP, "GetMultiResp" },
	{ UMAD_SA_METHOD_GET_TRACE_TABLE, "GetTraceTable" },
};

const char *umad_method_str(uint8_t mgmt_class, uint8_t method)
{
	const char *name = NULL;

	if (mgmt_class == UMAD_CLASS_SUBN_ADM)
		name = name_in(sa_methods, N_OF(sa_methods), method);
	if (!name)
		name = name_in(common_methods, N_OF(common_methods), method);
	/* The missing '>' is rdma-core's. */
	return name ? name : "<unknown";
}

const char *umad_common_mad_status_str(__be16 be_status)
{
	uint16_t status = be16toh(be_status);

	if (status & UMAD_STATUS_BUSY)
		return "Busy";
	if (status & UMAD_STATUS_REDIRECT)
		return "Redirection required";
	switch (status & UMAD_STATUS_INVALID_FIELD_MASK) {
	case UMAD_STATUS_BAD_VERSION: return "Bad Version";
	case UMAD_STATUS_METHOD_NOT_SUPPORTED: return "Method not supported";
	case UMAD_STATUS_ATTR_NOT_SUPPORTED: return "Method/Attribute combo not supported";
	case UMAD_STATUS_INVALID_ATTR_VALUE: return "Invalid attribute/modifier field";
	default: return "Success";
	}
}

static const char *const sa_statuses[] = {
	"Success", "No Resources", "Request Invalid", "No Records", "Too Many Records",
	"Invalid GID", "Insufficient Components", "Request Denied", "Priority Suggested",
};

const char *umad_sa_mad_status_str(__be16 be_status)
{
	unsigned code = (be16toh(be_status) & UMAD_STATUS_CLASS_MASK) >> 8;

	return code < N_OF(sa_statuses) ? sa_statuses[code] : "Undefined Error";
}

static const struct code_name sm_attributes[] = {
	{ UMAD_SM_ATTR_NODE_DESC, "NodeDescription" },
	{ UMAD_SM_ATTR_NODE_INFO, "NodeInfo" },
	{ UMAD_SM_ATTR_SWITCH_INFO, "SwitchInfo" },
	{ UMAD_SM_ATTR_GUID_INFO, "GUIDInfo" },
	{ UMAD_SM_ATTR_PORT_INFO, "PortInfo" },
	{ UMAD_SM_ATTR_PKEY_TABLE, "P_KeyTable" },
	{ UMAD_SM_ATTR_SLVL_TABLE, "SLtoVLMappingTable" },
	{ UMAD_SM_ATTR_VL_ARB_TABLE, "VLArbitrationTable" },
	{ UMAD_SM_ATTR_LINEAR_FT, "LinearForwardingTable" },
	{ UMAD_SM_ATTR_RANDOM_FT, "RandomForwardingTable" },
	{ UMAD_SM_ATTR_MCAST_FT, "MulticastForwardingTable" },
	{ UMAD_SM_ATTR_LINK_SPD_WIDTH_TABLE, "LinkSpeedWidthPairsTable" },
	{ UMAD_SM_ATTR_VENDOR_MADS_TABLE, "VendorSpecificMadsTable" },
	{ UMAD_SM_ATTR_HIERARCHY_INFO, "HierarchyInfo" },
	{ UMAD_SM_ATTR_SM_INFO, "SMInfo" },
	{ UMAD_SM_ATTR_VENDOR_DIAG, "VendorDiag" },
	{ UMAD_SM_ATTR_LED_INFO, "LedInfo" },
	{ UMAD_SM_ATTR_CABLE_INFO, "CableInfo" },
	{ UMAD_SM_ATTR_PORT_INFO_EXT, "PortInfoExtended" },
};

static const struct code_name sa_attributes[] = {
	{ UMAD_SA_ATTR_NODE_REC, "NodeRecord" },
	{ UMAD_SA_ATTR_PORT_INFO_REC, "PortInfoRecord" },
	{ UMAD_SA_ATTR_SLVL_REC, "SLtoVLMappingTableRecord" },
	{ UMAD_SA_ATTR_SWITCH_INFO_REC, "SwitchInfoRecord" },
	{ UMAD_SA_ATTR_LINEAR_FT_REC, "LinearForwardingTableRecord" },
	{ UMAD_SA_ATTR_RANDOM_FT_REC, "RandomForwardingTableRecord" },
	{ UMAD_SA_ATTR_MCAST_FT_REC, "MulticastForwardingTableRecord" },
	{ UMAD_SA_ATTR_SM_INFO_REC, "SMInfoRecord" },
	{ UMAD_SA_ATTR_LINK_SPD_WIDTH_TABLE_REC, "LinkSpeedWidthPairsTableRecord" },
	{ UMAD_SA_ATTR_INFORM_INFO_REC, "InformInfoRecord" },
	{ UMAD_SA_ATTR_LINK_REC, "LinkRecord" },
	{ UMAD_SA_ATTR_GUID_INFO_REC, "GuidInfoRecord" },
	{ UMAD_SA_ATTR_SERVICE_REC, "ServiceRecord" },
	{ UMAD_SA_ATTR_PKEY_TABLE_REC, "P_KeyTableRecord" },
	{ UMAD_SA_ATTR_PATH_REC, "PathRecord" },
	{ UMAD_SA_ATTR_VL_ARB_REC, "VLArbitrationTableRecord" },
	{ UMAD_SA_ATTR_MCMEMBER_REC, "MCMemberRecord" },
	{ UMAD_SA_ATTR_TRACE_REC, "TraceRecord" },
	{ UMAD_SA_ATTR_MULTI_PATH_REC, "MultiPathRecord" },
	{ UMAD_SA_ATTR_SERVICE_ASSOC_REC, "ServiceAssociationRecord" },
	{ UMAD_SA_ATTR_HIERARCHY_INFO_REC, "HierarchyInfoRecord" },
	{ UMAD_SA_ATTR_CABLE_INFO_REC, "CableInfoRecord" },
	{ UMAD_SA_ATTR_PORT_INFO_EXT_REC, "PortInfoExtendedRecord" },
};

static const struct code_name cm_attributes[] = {
	{ UMAD_CM_ATTR_REQ, "ConnectRequest" },
	{ UMAD_CM_ATTR_MRA, "MsgRcptAck" },
	{ UMAD_CM_ATTR_REJ, "ConnectReject" },
	{ UMAD_CM_ATTR_REP, "ConnectReply" },
	{ UMAD_CM_ATTR_RTU, "ReadyToUse" },
	{ UMAD_CM_ATTR_DREQ, "DisconnectRequest" },
	{ UMAD_CM_ATTR_DREP, "DisconnectReply" },
	{ UMAD_CM_ATTR_SIDR_REQ, "ServiceIDResReq" },
	{ UMAD_CM_ATTR_SIDR_REP, "ServiceIDResReqResp" },
	{ UMAD_CM_ATTR_LAP, "LoadAlternatePath" },
	{ UMAD_CM_ATTR_APR, "AlternatePathResponse" },
	{ UMAD_CM_ATTR_SAP, "SuggestAlternatePath" },
	{ UMAD_CM_ATTR_SPR, "SuggestPathResponse" },
};

/* Attributes every class shares. */
static const struct code_name common_attributes[] = {
	{ UMAD_ATTR_CLASS_PORT_INFO, "Class Port Info" },
	{ UMAD_ATTR_NOTICE, "Notice" },
	{ UMAD_ATTR_INFORM_INFO, "Inform Info" },
};

const char *umad_attribute_str(uint8_t mgmt_class, __be16 be_attr_id)
{
	uint16_t id = be16toh(be_attr_id);
	const char *name = NULL;

	switch (mgmt_class) {
	case UMAD_CLASS_SUBN_LID_ROUTED:
	case UMAD_CLASS_SUBN_DIRECTED_ROUTE:
		name = name_in(sm_attributes, N_OF(sm_attributes), id);
		break;
	case UMAD_CLASS_SUBN_ADM:
		name = name_in(sa_attributes, N_OF(sa_attributes), id);
		break;
	case UMAD_CLASS_CM:
		name = name_in(cm_attributes, N_OF(cm_attributes), id);
		break;
	}
	if (!name)
		name = name_in(common_attributes, N_OF(common_attributes), id);
	return name ? name : "<unknown>";
}
