/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Compile-time checks of the public structure layouts against the ABI that
 * rdma-core's libibumad and the kernel's ib_umad define, for x86_64 and
 * i386 (built natively by make check, and with -m32 by header_compat.sh).
 */
#include <stddef.h>
#include <stdio.h>
#include <infiniband/umad.h>
#include <infiniband/umad_types.h>
#include <infiniband/umad_sm.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>

#define SIZE(type, n) _Static_assert(sizeof(type) == (n), "sizeof " #type)
#define OFFSET(type, member, n) \
	_Static_assert(offsetof(type, member) == (n), "offsetof " #type "." #member)

/* The same on every ABI: they are the kernel's wire and ioctl layouts. */
SIZE(union umad_gid, 16);
_Static_assert(_Alignof(union umad_gid) == 4, "union umad_gid is 4-byte aligned");
SIZE(ib_mad_addr_t, 44);
OFFSET(ib_mad_addr_t, lid, 8);
OFFSET(ib_mad_addr_t, gid, 16);
OFFSET(ib_mad_addr_t, flow_label, 32);
OFFSET(ib_mad_addr_t, pkey_index, 36);
SIZE(struct ib_user_mad, 64);
OFFSET(struct ib_user_mad, length, 16);
OFFSET(struct ib_user_mad, addr, 20);
OFFSET(struct ib_user_mad, data, 64);
SIZE(struct umad_ca_pair, 48);
OFFSET(struct umad_ca_pair, smi_preferred_port, 20);
OFFSET(struct umad_ca_pair, gsi_name, 24);
OFFSET(struct umad_ca_pair, gsi_preferred_port, 44);
SIZE(struct umad_reg_attr, 32);
OFFSET(struct umad_reg_attr, flags, 4);
OFFSET(struct umad_reg_attr, method_mask, 8);
OFFSET(struct umad_reg_attr, oui, 24);
OFFSET(struct umad_reg_attr, rmpp_version, 28);

SIZE(struct umad_hdr, 24);
SIZE(struct umad_rmpp_hdr, 12);
SIZE(struct umad_packet, 256);
SIZE(struct umad_rmpp_packet, 256);
SIZE(struct umad_dm_packet, 256);
SIZE(struct umad_vendor_packet, 256);
SIZE(struct umad_smp, 256);
OFFSET(struct umad_smp, mkey, 24);
OFFSET(struct umad_smp, data, 64);
OFFSET(struct umad_smp, initial_path, 128);
OFFSET(struct umad_smp, return_path, 192);
SIZE(struct umad_sa_packet, 256);
OFFSET(struct umad_sa_packet, comp_mask, 48);
OFFSET(struct umad_sa_packet, data, 56);
SIZE(struct umad_class_port_info, 72);
OFFSET(struct umad_class_port_info, redirgid, 8);
OFFSET(struct umad_class_port_info, trapgid, 40);
SIZE(struct umad_sa_mcmember_record, 56);

/* Host structures holding pointers differ between the two ABIs. */
#if defined(__x86_64__)
SIZE(umad_port_t, 112);
OFFSET(umad_port_t, capmask, 52);
OFFSET(umad_port_t, gid_prefix, 56);
OFFSET(umad_port_t, port_guid, 64);
OFFSET(umad_port_t, pkeys_size, 72);
OFFSET(umad_port_t, pkeys, 80);
OFFSET(umad_port_t, link_layer, 88);
SIZE(umad_ca_t, 208);
OFFSET(umad_ca_t, fw_ver, 28);
OFFSET(umad_ca_t, ca_type, 48);
OFFSET(umad_ca_t, hw_ver, 88);
OFFSET(umad_ca_t, node_guid, 112);
OFFSET(umad_ca_t, system_guid, 120);
OFFSET(umad_ca_t, ports, 128);
SIZE(struct umad_device_node, 16);
OFFSET(struct umad_device_node, ca_name, 8);
#define ABI_NAME "x86_64"
#elif defined(__i386__)
SIZE(umad_port_t, 100);
OFFSET(umad_port_t, gid_prefix, 56);
OFFSET(umad_port_t, pkeys, 76);
OFFSET(umad_port_t, link_layer, 80);
SIZE(umad_ca_t, 164);
OFFSET(umad_ca_t, node_guid, 108);
OFFSET(umad_ca_t, ports, 124);
SIZE(struct umad_device_node, 8);
#define ABI_NAME "i386"
#else
#define ABI_NAME "another ABI (only the common layouts checked)"
#endif

int main(void)
{
	printf("public structure layouts match the rdma-core ABI for %s\n", ABI_NAME);
	return 0;
}
