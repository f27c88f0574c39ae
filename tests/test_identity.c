/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a node's vendor and device ID make it show (simfabric/identity.h):
 * a Mellanox device's hca_type is "MT" and its device ID in decimal,
 * listed in the table or not; its firmware the topology's, else its
 * generation's, printed as mlx5 does; its board ID of Mellanox's form.  A
 * node of another vendor, or none, keeps the simulator's own identity.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "simfabric/identity.h"

static void test_hca_type(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(sim_identity_hca_type(SIM_VENDOR_MELLANOX, 0x101b, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "MT4123");
	/* Not in the table: named by the same rule. */
	sim_identity_hca_type(SIM_VENDOR_MELLANOX, 0x1234, buf, sizeof(buf));
	assert_string_equal(buf, "MT4660");
	sim_identity_hca_type(0, 0, buf, sizeof(buf));
	assert_string_equal(buf, SIM_IDENTITY_HCA_TYPE);
	sim_identity_hca_type(0x1175, 0x101b, buf, sizeof(buf));
	assert_string_equal(buf, SIM_IDENTITY_HCA_TYPE);
	assert_int_equal(sim_identity_hca_type(SIM_VENDOR_MELLANOX, 0x101b, buf, 6), -ENAMETOOLONG);
}

static void test_firmware(void **state)
{
	const struct sim_fw_version none = { 0 }, given = { 16, 31, 14 };
	struct sim_fw_version fw;
	char buf[64];

	(void)state;
	/* The generation's own, as mlx5 prints it. */
	assert_int_equal(sim_identity_firmware(SIM_VENDOR_MELLANOX, 0x101b, &none, &fw), 0);
	assert_int_equal(fw.major, 20);
	sim_identity_fw_text(SIM_VENDOR_MELLANOX, 0x101b, &none, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "20.", 3), 0);
	/* The topology's wins; the sub-minor in four digits. */
	sim_identity_fw_text(SIM_VENDOR_MELLANOX, 0x101b, &given, buf, sizeof(buf));
	assert_string_equal(buf, "16.31.0014");
	sim_identity_fw_text(0, 0, &given, buf, sizeof(buf));
	assert_string_equal(buf, "16.31.0014");
	/* Nothing known: the simulator's version. */
	assert_int_equal(sim_identity_firmware(0, 0, &none, &fw), -ENOENT);
	assert_int_equal(sim_identity_firmware(SIM_VENDOR_MELLANOX, 0x1234, NULL, &fw), -ENOENT);
	sim_identity_fw_text(SIM_VENDOR_MELLANOX, 0x1234, &none, buf, sizeof(buf));
	assert_string_equal(buf, PACKAGE_VERSION);
	/* A switch's firmware has a four-digit minor. */
	sim_identity_firmware(SIM_VENDOR_MELLANOX, 0xd2f0, NULL, &fw);
	assert_int_equal(fw.major, 27);
	assert_true(fw.minor >= 1000);
}

static void test_board_id(void **state)
{
	const char *b = sim_identity_board_id(SIM_VENDOR_MELLANOX, 0x101b);

	(void)state;
	assert_int_equal(strncmp(b, "MT_", 3), 0);
	assert_int_equal(strlen(b), strlen("MT_0000000222"));
	assert_string_not_equal(b, sim_identity_board_id(SIM_VENDOR_MELLANOX, 0x1017));
	assert_string_equal(sim_identity_board_id(SIM_VENDOR_MELLANOX, 0x1234), "MT_0000000000");
	assert_string_equal(sim_identity_board_id(0, 0x101b), SIM_IDENTITY_BOARD_ID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hca_type),
		cmocka_unit_test(test_firmware),
		cmocka_unit_test(test_board_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
