/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Mellanox's vendor-specific class (simfabric/mlnx.h) at the bytes vendstat
 * reads: after the common header, the V_Key (8 bytes), then GeneralInfo's
 * hardware (revision, device ID), firmware (a byte each for major, minor
 * and sub-minor; the PSID; 32-bit words again for the whole version) and
 * software parts; ClassPortInfo; the statuses for what is not there.  A
 * node of another vendor does not answer the class at all.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/mlnx.h"
#include "simfabric/topology.h"

/* vendstat's offsets into the MAD. */
#define VS_HW_REVISION		32
#define VS_HW_DEVICE_ID		34
#define VS_FW_MAJOR		65
#define VS_FW_MINOR		66
#define VS_FW_SUB_MINOR		67
#define VS_FW_PSID		80
#define VS_FW_EXT_MAJOR		100
#define VS_FW_EXT_MINOR		104
#define VS_FW_EXT_SUB_MINOR	108

static const char topology[] =
	"vendid=0x2c9\n"
	"devid=0xd2f0\n"
	"Switch 2 \"S1\"\n"
	"[1] \"H1\"[1]\n"
	"[2] \"H2\"[1]\n"
	"\n"
	"devid=0x101b\n"
	"revid=0x3\n"
	"fwver=20.31.1014\n"
	"Hca 1 \"H1\"\n"
	"[1] \"S1\"[1]\n"
	"\n"
	"vendid=0x1175\n"
	"Hca 1 \"H2\"\n"
	"[1] \"S1\"[2]\n";

static struct sim_fabric *fabric;
static uint8_t mad[MAD_SIZE];

static int setup(void **state)
{
	struct umad_err errors = UMAD_ERR_INIT;

	(void)state;
	fabric = sim_topology_parse(topology, "t.net", &errors);
	return fabric ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	sim_fabric_free(fabric);
	return 0;
}

static void request(uint8_t method, uint16_t attr)
{
	memset(mad, 0, sizeof(mad));
	mad[MAD_OFF_BASE_VERSION] = 1;
	mad[MAD_OFF_CLASS] = 0x0a;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = method;
	put_be64(mad + MAD_OFF_TID, 0x4242);
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
}

/* Send the request to node name's port; the answer's status, or -1 for none. */
static int ask(const char *name, unsigned port)
{
	struct sim_node *n = sim_fabric_find(fabric, name);

	assert_non_null(n);
	if (!sim_mlnx_vs_process(n, port, mad))
		return -1;
	assert_int_equal(mad[MAD_OFF_METHOD], UMAD_METHOD_GET_RESP);
	assert_int_equal(get_be64(mad + MAD_OFF_TID), 0x4242);
	return get_be16(mad + MAD_OFF_STATUS);
}

static void test_general_info(void **state)
{
	(void)state;
	request(UMAD_METHOD_GET, 0x17);
	assert_int_equal(ask("H1", 1), 0);
	assert_int_equal(get_be16(mad + VS_HW_REVISION), 3);
	assert_int_equal(get_be16(mad + VS_HW_DEVICE_ID), 0x101b);
	assert_int_equal(mad[VS_FW_MAJOR], 20);
	assert_int_equal(mad[VS_FW_MINOR], 31);
	assert_int_equal(mad[VS_FW_SUB_MINOR], 1014 & 0xff);
	assert_int_equal(get_be32(mad + VS_FW_EXT_MAJOR), 20);
	assert_int_equal(get_be32(mad + VS_FW_EXT_MINOR), 31);
	assert_int_equal(get_be32(mad + VS_FW_EXT_SUB_MINOR), 1014);
	/* The PSID is the board ID sysfs shows, NUL-terminated. */
	assert_int_equal(strncmp((const char *)mad + VS_FW_PSID, "MT_", 3), 0);
	assert_int_equal(mad[VS_FW_PSID + 15], 0);
	/* The switch: its device and its generation's firmware. */
	request(UMAD_METHOD_GET, 0x17);
	assert_int_equal(ask("S1", 0), 0);
	assert_int_equal(get_be16(mad + VS_HW_DEVICE_ID), 0xd2f0);
	assert_int_equal(get_be32(mad + VS_FW_EXT_MAJOR), 27);
	assert_true(get_be32(mad + VS_FW_EXT_MINOR) > 255);
}

static void test_class_port_info(void **state)
{
	(void)state;
	request(UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO);
	assert_int_equal(ask("S1", 0), 0);
	assert_int_equal(mad[MLNX_VS_OFF_DATA], 1);		/* BaseVersion */
	assert_int_equal(mad[MLNX_VS_OFF_DATA + 1], 1);	/* ClassVersion */
}

static void test_refusals(void **state)
{
	(void)state;
	/* Nothing is writable, an unknown attribute, method or version. */
	request(UMAD_METHOD_SET, 0x17);
	assert_int_equal(ask("H1", 1), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	request(UMAD_METHOD_GET, 0x50);
	assert_int_equal(ask("H1", 1), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	request(UMAD_METHOD_TRAP, 0x17);
	assert_int_equal(ask("H1", 1), UMAD_STATUS_METHOD_NOT_SUPPORTED);
	request(UMAD_METHOD_GET, 0x17);
	mad[MAD_OFF_CLASS_VERSION] = 2;
	assert_int_equal(ask("H1", 1), UMAD_STATUS_BAD_VERSION);
	/* Not answered: a response, another class, a node of another vendor. */
	request(UMAD_METHOD_GET_RESP, 0x17);
	assert_int_equal(ask("H1", 1), -1);
	request(UMAD_METHOD_GET, 0x17);
	mad[MAD_OFF_CLASS] = 0x09;
	assert_int_equal(ask("H1", 1), -1);
	request(UMAD_METHOD_GET, 0x17);
	assert_int_equal(ask("H2", 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_general_info),
		cmocka_unit_test(test_class_port_info),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
