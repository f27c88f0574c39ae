/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The umad device's ABI beyond <infiniband/umad.h>: the header sizes it
 * speaks, and its registration requests as its ioctls carry them
 * (IB_USER_MAD_REGISTER_AGENT and _AGENT2): the kernel backend sends them,
 * and `umad kernel`'s device files take them.
 * Private, as in rdma-core: no public header names these structures.
 */
#ifndef UMAD_BASE_UMAD_IOCTL_H
#define UMAD_BASE_UMAD_IOCTL_H

#include <stdint.h>
#include <infiniband/umad.h>

/* The umad header of ABI 6 kernels (with the P_Key index), and of ABI 5 ones (without). */
#define UMAD_HDR_SIZE_NEW	sizeof(struct ib_user_mad)		/* 64 */
#define UMAD_HDR_SIZE_OLD	(sizeof(struct ib_user_mad) - 8)	/* 56 */

struct ib_user_mad_reg_req {
	uint32_t id;
	uint32_t method_mask[4];
	uint8_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint8_t oui[3];
	uint8_t rmpp_version;
};

struct ib_user_mad_reg_req2 {
	uint32_t id;
	uint32_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint16_t res;
	uint32_t flags;
	uint64_t method_mask[2];
	uint32_t oui;
	uint8_t rmpp_version;
	uint8_t reserved[3];
};

_Static_assert(sizeof(struct ib_user_mad_reg_req) == 28, "REGISTER_AGENT request is 28 bytes");
_Static_assert(sizeof(struct ib_user_mad_reg_req2) == 40, "REGISTER_AGENT2 request is 40 bytes");

/* ib_umad's device numbers: major, and where the issm minors start after the umad ones. */
#define IB_UMAD_MAJOR		231
#define IB_UMAD_ISSM_MINOR_BASE	64

#endif /* UMAD_BASE_UMAD_IOCTL_H */
