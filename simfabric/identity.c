/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* What a node's vendor and device ID make it show (identity.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "simfabric/identity.h"

/* A Mellanox board ID with no product behind it, for a device ID the table lacks. */
#define MELLANOX_BOARD_ID_UNKNOWN	"MT_0000000000"

/*
 * Mellanox devices by NodeInfo:DeviceID (the PCI device ID on HCAs).  The
 * firmware is a late release of each generation; the board ID one of the
 * family's products (the PSID of a real card names one product, which a
 * topology does not say).
 */
static const struct device {
	uint16_t device_id;
	const char *board_id;
	struct sim_fw_version fw;
} mellanox_devices[] = {
	{ 0x1003, "MT_1090120019", { 2, 42, 5000 } },		/* ConnectX-3 */
	{ 0x1007, "MT_1090111023", { 2, 42, 5000 } },		/* ConnectX-3 Pro */
	{ 0x1011, "MT_1220110019", { 10, 16, 1200 } },		/* Connect-IB */
	{ 0x1013, "MT_2190110032", { 12, 28, 2006 } },		/* ConnectX-4 */
	{ 0x1015, "MT_2420110034", { 14, 32, 1010 } },		/* ConnectX-4 Lx */
	{ 0x1017, "MT_0000000008", { 16, 35, 2000 } },		/* ConnectX-5 */
	{ 0x1019, "MT_0000000009", { 16, 35, 2000 } },		/* ConnectX-5 Ex */
	{ 0x101b, "MT_0000000222", { 20, 31, 1014 } },		/* ConnectX-6 */
	{ 0x101d, "MT_0000000359", { 22, 36, 1010 } },		/* ConnectX-6 Dx */
	{ 0x101f, "MT_0000000531", { 26, 36, 1010 } },		/* ConnectX-6 Lx */
	{ 0x1021, "MT_0000000838", { 28, 39, 1002 } },		/* ConnectX-7 */
	{ 0xa2d6, "MT_0000000765", { 24, 35, 2000 } },		/* BlueField-2 */
	{ 0xa2dc, "MT_0000000884", { 32, 39, 1002 } },		/* BlueField-3 */
	{ 0xc738, "MT_1270119019", { 9, 4, 2000 } },		/* SwitchX */
	{ 0xcb20, "MT_1870110032", { 11, 2008, 2102 } },	/* Switch-IB */
	{ 0xcf08, "MT_1880110032", { 15, 2010, 1264 } },	/* Switch-IB 2 */
	{ 0xd2f0, "MT_0000000063", { 27, 2010, 3118 } },	/* Quantum */
	{ 0xd2f2, "MT_0000000650", { 31, 2012, 1068 } },	/* Quantum-2 */
};

static const struct device *find_device(uint32_t vendor_id, uint16_t device_id)
{
	size_t i;

	if (vendor_id != SIM_VENDOR_MELLANOX)
		return NULL;
	for (i = 0; i < sizeof(mellanox_devices) / sizeof(mellanox_devices[0]); i++)
		if (mellanox_devices[i].device_id == device_id)
			return &mellanox_devices[i];
	return NULL;
}

/* What snprintf returned, as the length of a text that fits size or -ENAMETOOLONG. */
static int fitted(int n, size_t size)
{
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

int sim_identity_firmware(uint32_t vendor_id, uint16_t device_id,
			  const struct sim_fw_version *given, struct sim_fw_version *fw)
{
	const struct device *d = find_device(vendor_id, device_id);

	if (given && sim_fw_given(given))
		*fw = *given;
	else if (d)
		*fw = d->fw;
	else
		return -ENOENT;
	return 0;
}

int sim_identity_hca_type(uint32_t vendor_id, uint16_t device_id, char *buf, size_t size)
{
	/* mlx4 and mlx5 name every device so, listed here or not. */
	if (vendor_id == SIM_VENDOR_MELLANOX)
		return fitted(snprintf(buf, size, "MT%u", device_id), size);
	return fitted(snprintf(buf, size, "%s", SIM_IDENTITY_HCA_TYPE), size);
}

const char *sim_identity_board_id(uint32_t vendor_id, uint16_t device_id)
{
	const struct device *d = find_device(vendor_id, device_id);

	if (d)
		return d->board_id;
	return vendor_id == SIM_VENDOR_MELLANOX ? MELLANOX_BOARD_ID_UNKNOWN : SIM_IDENTITY_BOARD_ID;
}

int sim_identity_fw_text(uint32_t vendor_id, uint16_t device_id,
			 const struct sim_fw_version *given, char *buf, size_t size)
{
	struct sim_fw_version fw;

	if (sim_identity_firmware(vendor_id, device_id, given, &fw) < 0)
		return fitted(snprintf(buf, size, "%s", PACKAGE_VERSION), size);
	/* mlx5's form: the sub-minor in four digits at least. */
	return fitted(snprintf(buf, size, "%u.%u.%04u", fw.major, fw.minor, fw.sub_minor), size);
}
