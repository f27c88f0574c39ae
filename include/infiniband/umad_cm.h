/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Communication Management (class 0x07) attribute IDs, as rdma-core's <infiniband/umad_cm.h>. */
#ifndef _UMAD_CM_H
#define _UMAD_CM_H

#include <infiniband/umad_types.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	UMAD_CM_ATTR_REQ		= 0x0010,
	UMAD_CM_ATTR_MRA		= 0x0011,
	UMAD_CM_ATTR_REJ		= 0x0012,
	UMAD_CM_ATTR_REP		= 0x0013,
	UMAD_CM_ATTR_RTU		= 0x0014,
	UMAD_CM_ATTR_DREQ		= 0x0015,
	UMAD_CM_ATTR_DREP		= 0x0016,
	UMAD_CM_ATTR_SIDR_REQ		= 0x0017,
	UMAD_CM_ATTR_SIDR_REP		= 0x0018,
	UMAD_CM_ATTR_LAP		= 0x0019,
	UMAD_CM_ATTR_APR		= 0x001A,
	UMAD_CM_ATTR_SAP		= 0x001B,
	UMAD_CM_ATTR_SPR		= 0x001C,
};

#ifdef __cplusplus
}
#endif

#endif /* _UMAD_CM_H */
