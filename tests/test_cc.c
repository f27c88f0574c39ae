/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The congestion control agent: every attribute's Get on a switch and a
 * CA, Sets stored and read back, the CC_Key rules (violations, the protect
 * bit, the lease), the log and its events, the MAD statuses for what is not
 * supported, and that Gets of a node never set allocate nothing.  Runs on
 * the default fabric (Switch1 has 8 ports, Hca1 2) and on a hand-built one
 * with a 60-port switch (two SwitchPortCongestionSetting blocks) and a
 * router.  Layouts as libibmad decodes them (what ibccquery prints).
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/cc.h"
#include "simfabric/fabric.h"
#include "simfabric/topology.h"

#define SILENT (-1)
#define TID 0x0123456789abcdefULL

/* Attribute IDs and statuses spelled out: an expected value written once, from the spec. */
#define A_CPI		0x0001
#define A_NOTICE	0x0002
#define A_INFO		0x0011
#define A_KEY		0x0012
#define A_LOG		0x0013
#define A_SW		0x0014
#define A_SWPORT	0x0015
#define A_CA		0x0016
#define A_CCT		0x0017
#define A_TIME		0x0018
#define S_BAD_VERSION	0x0004
#define S_METHOD	0x0008
#define S_ATTR		0x000c
#define S_VALUE		0x001c

struct fixture {
	struct sim_fabric *f;
	struct sim_node *sw, *ca;
	uint8_t mad[MAD_SIZE];
	uint64_t key;		/* what requests carry */
};

static struct fixture *fx;

static int setup(void **state)
{
	struct umad_err errors = UMAD_ERR_INIT;

	fx = calloc(1, sizeof(*fx));
	fx->f = sim_topology_parse(sim_default_topology, "default", &errors);
	if (!fx->f)
		return -1;
	fx->sw = sim_fabric_find(fx->f, "Switch1");
	fx->ca = sim_fabric_find(fx->f, "Hca1");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sim_fabric_free(fx->f);
	free(fx);
	return 0;
}

/* A CC request in fx->mad; its data (offset 64, or 32 for CongestionLog). */
static uint8_t *cc_mad(uint8_t method, uint16_t attr, uint32_t mod)
{
	uint8_t *m = fx->mad;

	memset(m, 0, MAD_SIZE);
	m[0] = 1;
	m[1] = 0x21;
	m[2] = 2;
	m[3] = method;
	put_be64(m + 8, TID);
	put_be16(m + 16, attr);
	put_be32(m + 20, mod);
	put_be64(m + 24, fx->key);
	return m + (attr == A_LOG ? 32 : 64);
}

/* Have node answer fx->mad arriving through port: the status, or SILENT. */
static int process(struct sim_node *n, unsigned port)
{
	uint8_t before[MAD_HDR_SIZE + 8];

	memcpy(before, fx->mad, sizeof(before));
	if (!sim_cc_process(fx->f, n, port, fx->mad))
		return SILENT;
	/* A GetResp of the same class, version, TID, attribute and modifier, with the key echoed. */
	assert_int_equal(fx->mad[3], 0x81);
	assert_memory_equal(fx->mad, before, 3);
	assert_memory_equal(fx->mad + 8, before + 8, 16);
	assert_memory_equal(fx->mad + 24, before + 24, 8);
	return get_be16(fx->mad + 2 + 2);
}

static int get(struct sim_node *n, unsigned port, uint16_t attr, uint32_t mod)
{
	cc_mad(0x01, attr, mod);
	return process(n, port);
}

static uint8_t *data(void)
{
	return fx->mad + (get_be16(fx->mad + 16) == A_LOG ? 32 : 64);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* --- Gets of nodes never set ------------------------------------------------------ */

static void test_defaults_allocate_nothing(void **state)
{
	static const uint16_t attrs[] = { A_CPI, A_INFO, A_KEY, A_LOG, A_SW, A_SWPORT, A_CA,
					   A_CCT, A_TIME };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		assert_true(get(fx->sw, 0, attrs[i], 0) != SILENT);
		assert_true(get(fx->ca, 1, attrs[i], 0) != SILENT);
		assert_true(get(fx->ca, 2, attrs[i], 0) != SILENT);
	}
	assert_null(fx->sw->cc);
	assert_null(fx->ca->cc);

	/* Defaults: no key, empty settings and table. */
	assert_int_equal(get(fx->ca, 1, A_KEY, 0), 0);
	assert_int_equal(get_be64(data()), 0);
	assert_int_equal(get_be16(data() + 12), 0);
	assert_int_equal(get(fx->ca, 1, A_CCT, 1), 0);
	assert_int_equal(get_be16(data()), 0);
	assert_int_equal(get(fx->sw, 0, A_SWPORT, 0), 0);
	for (i = 0; i < 192; i++)
		assert_int_equal(data()[i], 0);
	assert_null(fx->sw->cc);
}

/* --- ClassPortInfo, CongestionInfo, Timestamp --------------------------------------- */

static void test_class_port_info(void **state)
{
	uint8_t *d;

	(void)state;
	assert_int_equal(get(fx->sw, 0, A_CPI, 0), 0);
	d = data();
	assert_int_equal(d[0], 1);			/* BaseVersion */
	assert_int_equal(d[1], 2);			/* ClassVersion */
	assert_int_equal(get_be16(d + 2), 0);		/* CapabilityMask: no traps */
	assert_int_equal(get_be32(d + 4) & 0x1f, fx->sw->ports[0].resp_time_value);
	assert_int_equal(get(fx->ca, 1, A_CPI, 0), 0);
	assert_int_equal(data()[1], 2);

	/* Set: the trap destination is stored, per agent (a CA port each). */
	d = cc_mad(0x02, A_CPI, 0);
	d[0] = 9;					/* BaseVersion: read-only */
	put_be64(d + 40, 0xfe80000000000000ULL);	/* TrapGID */
	put_be64(d + 48, 0x0002c90300000001ULL);
	put_be16(d + 60, 0x1234);			/* TrapLID */
	put_be16(d + 62, 0xffff);			/* TrapP_Key */
	put_be32(d + 64, 0x40000001);			/* TrapHL, TrapQP */
	put_be32(d + 68, 0x80010000);			/* TrapQ_Key */
	assert_int_equal(process(fx->ca, 1), 0);
	assert_int_equal(data()[0], 1);
	assert_int_equal(get_be16(data() + 60), 0x1234);
	assert_int_equal(get(fx->ca, 1, A_CPI, 0), 0);
	assert_int_equal(get_be64(data() + 48), 0x0002c90300000001ULL);
	assert_int_equal(get_be16(data() + 60), 0x1234);
	assert_int_equal(get_be32(data() + 68), 0x80010000);
	assert_int_equal(get(fx->ca, 2, A_CPI, 0), 0);
	assert_int_equal(get_be16(data() + 60), 0);
	assert_non_null(fx->ca->cc);
	assert_null(fx->sw->cc);
}

static void test_congestion_info(void **state)
{
	(void)state;
	assert_int_equal(get(fx->sw, 0, A_INFO, 0), 0);
	assert_int_equal(get_be16(data()), 0);
	assert_int_equal(data()[2], 0);			/* ControlTableCap: switches have no CCT */
	assert_int_equal(get(fx->ca, 1, A_INFO, 0), 0);
	assert_int_equal(data()[2], SIM_CC_CCT_BLOCKS);
	cc_mad(0x02, A_INFO, 0);
	assert_int_equal(process(fx->ca, 1), S_ATTR);
	assert_int_equal(get(fx->ca, 1, A_INFO, 1), S_VALUE);
}

static void test_timestamp(void **state)
{
	uint32_t t1, t2;

	(void)state;
	assert_int_equal(get(fx->sw, 0, A_TIME, 0), 0);
	t1 = get_be32(data());
	sleep_ms(20);
	assert_int_equal(get(fx->ca, 1, A_TIME, 0), 0);
	t2 = get_be32(data());
	/* 1.024 us units: 20 ms is some 19531 of them. */
	assert_true(t2 - t1 >= 19000 && t2 - t1 < 200000);
	cc_mad(0x02, A_TIME, 0);
	assert_int_equal(process(fx->sw, 0), S_ATTR);
}

/* --- CongestionKeyInfo and the CC_Key checks ------------------------------------------ */

static void set_key(struct sim_node *n, unsigned port, uint64_t key, int protect, uint16_t lease,
		    uint16_t violations)
{
	uint8_t *d = cc_mad(0x02, A_KEY, 0);

	put_be64(d, key);
	d[8] = (uint8_t)(protect << 7);
	put_be16(d + 10, lease);
	put_be16(d + 12, violations);
	assert_int_equal(process(n, port), 0);
}

static uint16_t violations(struct sim_node *n, unsigned port)
{
	assert_int_equal(get(n, port, A_KEY, 0), 0);
	return get_be16(data() + 12);
}

static void test_key_info_set_and_checks(void **state)
{
	(void)state;
	set_key(fx->sw, 0, 0x1122334455667788ULL, 0, 7, 0);
	assert_int_equal(get_be64(data()), 0x1122334455667788ULL);
	assert_int_equal(data()[8], 0);
	assert_int_equal(get_be16(data() + 10), 7);

	/* Without the key: Gets and Sets dropped and counted... */
	fx->key = 0;
	assert_int_equal(get(fx->sw, 0, A_INFO, 0), SILENT);
	assert_int_equal(get(fx->sw, 0, A_SW, 0), SILENT);
	cc_mad(0x02, A_SW, 0);
	assert_int_equal(process(fx->sw, 0), SILENT);
	fx->key = 0x99;
	assert_int_equal(get(fx->sw, 0, A_TIME, 0), SILENT);
	/* ...but CongestionKeyInfo reads while the protect bit is 0: the key can be recovered. */
	assert_int_equal(violations(fx->sw, 0), 4);
	assert_int_equal(get_be64(data()), 0x1122334455667788ULL);

	/* With it, everything. */
	fx->key = 0x1122334455667788ULL;
	assert_int_equal(get(fx->sw, 0, A_INFO, 0), 0);
	/* Writing a non-zero count leaves it; 0 clears it. */
	set_key(fx->sw, 0, fx->key, 1, 0, 1);
	assert_int_equal(get_be16(data() + 12), 4);
	assert_int_equal(data()[8], 0x80);
	set_key(fx->sw, 0, fx->key, 1, 0, 0);
	assert_int_equal(get_be16(data() + 12), 0);

	/* Protected: a wrong key cannot read the key either. */
	fx->key = 0x42;
	assert_int_equal(get(fx->sw, 0, A_KEY, 0), SILENT);
	fx->key = 0x1122334455667788ULL;
	assert_int_equal(violations(fx->sw, 0), 1);
	/* Lease period 0: the protection never lapses (no timer in the log's flags). */
	assert_int_equal(get(fx->sw, 0, A_LOG, 0), 0);
	assert_int_equal(data()[1], 0);

	/* The key belongs to its agent: the CA's is still 0, and per port. */
	fx->key = 0;
	assert_int_equal(get(fx->ca, 1, A_INFO, 0), 0);
	set_key(fx->ca, 2, 0x77, 1, 0, 0);
	assert_int_equal(get(fx->ca, 1, A_INFO, 0), 0);
	assert_int_equal(get(fx->ca, 2, A_INFO, 0), SILENT);
	fx->key = 0x77;
	assert_int_equal(violations(fx->ca, 2), 1);
	/* A new key takes effect at once. */
	set_key(fx->ca, 2, 0x78, 0, 0, 0);
	assert_int_equal(get(fx->ca, 2, A_INFO, 0), SILENT);
	fx->key = 0x78;
	assert_int_equal(get(fx->ca, 2, A_INFO, 0), 0);
}

static void test_key_lease(void **state)
{
	(void)state;
	fx->key = 0x5150;
	set_key(fx->ca, 1, 0x5150, 1, 1, 0);
	/* A violation starts the lease timer (CongestionFlags bit 0)... */
	fx->key = 1;
	assert_int_equal(get(fx->ca, 1, A_INFO, 0), SILENT);
	fx->key = 0x5150;
	assert_int_equal(get(fx->ca, 1, A_LOG, 0), 0);
	assert_int_equal(data()[1] & 1, 1);
	/* ...a Set of CongestionKeyInfo stops it. */
	assert_int_equal(get(fx->ca, 1, A_LOG, 0), 0);
	assert_int_equal(data()[1] & 1, 1);
	set_key(fx->ca, 1, 0x5150, 1, 1, 1);
	assert_int_equal(get(fx->ca, 1, A_LOG, 0), 0);
	assert_int_equal(data()[1] & 1, 0);
	fx->key = 1;
	assert_int_equal(get(fx->ca, 1, A_INFO, 0), SILENT);
	/* Left to run out (1 s), it clears the protect bit: the key reads with any key. */
	assert_int_equal(get(fx->ca, 1, A_KEY, 0), SILENT);
	sleep_ms(1100);
	assert_int_equal(get(fx->ca, 1, A_KEY, 0), 0);
	assert_int_equal(get_be64(data()), 0x5150);
	assert_int_equal(data()[8], 0);
	assert_int_equal(get_be16(data() + 12), 3);
	/* Other attributes still need the key. */
	assert_int_equal(get(fx->ca, 1, A_INFO, 0), SILENT);
}

/* --- CongestionLog --------------------------------------------------------------------- */

static void test_log(void **state)
{
	uint8_t *d;
	int i;

	(void)state;
	/* Empty logs: the type, no events, the current time. */
	assert_int_equal(get(fx->sw, 0, A_LOG, 0), 0);
	d = data();
	assert_int_equal(d[0], 1);
	assert_int_equal(get_be16(d + 2), 0);
	assert_true(get_be32(d + 4) != 0);
	for (i = 8; i < 224; i++)
		assert_int_equal(d[i], 0);
	assert_int_equal(get(fx->ca, 2, A_LOG, 0), 0);
	assert_int_equal(data()[0], 2);
	assert_true(get_be32(data() + 8) != 0);
	assert_null(fx->sw->cc);

	/* A switch's events: entries from offset 40, the ports in the PortMap. */
	assert_int_equal(sim_cc_log_switch_event(fx->sw, 7, 3, 9, 5), 0);
	assert_int_equal(sim_cc_log_switch_event(fx->sw, 1, 4, 10, 0), 0);
	assert_int_equal(sim_cc_log_switch_event(fx->sw, 0, 4, 10, 0), -EINVAL);
	assert_int_equal(sim_cc_log_switch_event(fx->sw, 9, 4, 10, 0), -EINVAL);
	assert_int_equal(sim_cc_log_switch_event(fx->ca, 1, 4, 10, 0), -EINVAL);
	assert_int_equal(get(fx->sw, 0, A_LOG, 0), 0);
	d = data();
	assert_int_equal(get_be16(d + 2), 2);
	assert_int_equal(d[39], 0x82);			/* ports 7 and 1 */
	assert_int_equal(get_be16(d + 40), 3);
	assert_int_equal(get_be16(d + 42), 9);
	assert_int_equal(d[44] >> 4, 5);
	assert_true(get_be32(d + 48) != 0);
	assert_int_equal(get_be16(d + 52), 4);
	assert_int_equal(get_be16(d + 54), 10);
	assert_int_equal(get_be16(d + 64), 0);		/* no third */
	/* Read: cleared. */
	assert_int_equal(get(fx->sw, 0, A_LOG, 0), 0);
	assert_int_equal(get_be16(data() + 2), 0);
	assert_int_equal(data()[39], 0);
	assert_int_equal(get_be16(data() + 40), 0);

	/* More than 15: the latest 15 kept, all counted. */
	for (i = 1; i <= 20; i++)
		assert_int_equal(sim_cc_log_switch_event(fx->sw, 2, (uint16_t)i, 1, 0), 0);
	assert_int_equal(get(fx->sw, 0, A_LOG, 0), 0);
	assert_int_equal(get_be16(data() + 2), 20);
	assert_int_equal(get_be16(data() + 40), 6);
	assert_int_equal(get_be16(data() + 40 + 14 * 12), 20);

	/* A CA port's: entries of 16 bytes from offset 12, the SLs in the event map. */
	fx->ca->ports[1].lid = 0x21;
	assert_int_equal(sim_cc_log_ca_event(fx->ca, 1, 0x123456, 0xabcdef, 3, 0, 0x44), 0);
	assert_int_equal(sim_cc_log_ca_event(fx->ca, 3, 1, 1, 1, 0, 1), -EINVAL);
	assert_int_equal(sim_cc_log_ca_event(fx->sw, 1, 1, 1, 1, 0, 1), -EINVAL);
	assert_int_equal(get(fx->ca, 2, A_LOG, 0), 0);
	assert_int_equal(get_be16(data() + 2), 0);	/* the other port's log */
	assert_int_equal(get(fx->ca, 1, A_LOG, 0), 0);
	d = data();
	assert_int_equal(d[0], 2);
	assert_int_equal(get_be16(d + 2), 1);
	assert_int_equal(get_be16(d + 4), 1 << 3);
	assert_int_equal(get_be24(d + 12), 0x123456);
	assert_int_equal(d[15] >> 4, 3);
	assert_int_equal(get_be24(d + 16), 0xabcdef);
	assert_int_equal(get_be16(d + 20), 0x21);
	assert_int_equal(get_be16(d + 22), 0x44);
	assert_true(get_be32(d + 24) != 0);

	/* More than a CA's log holds (13): the latest 13 in the MAD, nothing written past it. */
	for (i = 1; i <= 20; i++)
		assert_int_equal(sim_cc_log_ca_event(fx->ca, 1, (uint32_t)i, 1, 0, 0, 1), 0);
	assert_int_equal(get(fx->ca, 1, A_LOG, 0), 0);
	d = data();
	assert_int_equal(get_be24(d + 12), 8);
	assert_int_equal(get_be24(d + 12 + 12 * 16), 20);

	cc_mad(0x02, A_LOG, 0);
	assert_int_equal(process(fx->sw, 0), S_ATTR);
}

/* --- switches ---------------------------------------------------------------------------- */

static void test_switch_congestion_setting(void **state)
{
	uint8_t *d;

	(void)state;
	d = cc_mad(0x02, A_SW, 0);
	put_be32(d, 0x1f);
	d[4 + 31] = 0x06;				/* Victim_Mask: ports 1, 2 */
	d[36 + 30] = 0x01;				/* Credit_Mask: port 8 */
	d[68] = 0x70;					/* Threshold 7 */
	d[69] = 33;					/* Packet_Size */
	d[70] = 0x50;					/* CS_Threshold 5 */
	put_be16(d + 72, 1 << 14 | 100);		/* CS_ReturnDelay */
	put_be16(d + 74, 0x0a0b);			/* Marking_Rate */
	assert_int_equal(process(fx->sw, 0), 0);
	assert_int_equal(get(fx->sw, 0, A_SW, 0), 0);
	d = data();
	assert_int_equal(get_be32(d), 0x1f);
	assert_int_equal(d[35], 0x06);
	assert_int_equal(d[66], 0x01);
	assert_int_equal(d[68], 0x70);
	assert_int_equal(d[69], 33);
	assert_int_equal(d[70], 0x50);
	assert_int_equal(get_be16(d + 72), 1 << 14 | 100);
	assert_int_equal(get_be16(d + 74), 0x0a0b);

	/* Only the parts the Control_Map names change. */
	d = cc_mad(0x02, A_SW, 0);
	put_be32(d, 0x10);
	d[69] = 99;
	put_be16(d + 74, 7);
	assert_int_equal(process(fx->sw, 0), 0);
	assert_int_equal(data()[69], 33);
	assert_int_equal(get_be16(data() + 74), 7);
	assert_int_equal(data()[35], 0x06);

	/* Not on CAs; no modifier. */
	assert_int_equal(get(fx->ca, 1, A_SW, 0), S_ATTR);
	assert_int_equal(get(fx->sw, 0, A_SW, 1), S_VALUE);
}

static void test_switch_port_congestion_setting(void **state)
{
	struct sim_fabric *f = sim_fabric_new();
	struct sim_node *big = sim_fabric_add_node(f, NODE_TYPE_SWITCH, "big", 60);
	uint8_t *d;
	int i;

	(void)state;
	assert_non_null(big);
	/* 48 ports a block: ports 0-47, then 48-60; no third block. */
	d = cc_mad(0x02, A_SWPORT, 1);
	d[0] = 0x80 | 0x05;				/* port 48: Valid, Threshold 5 */
	d[1] = 64;
	put_be16(d + 2, 300);
	d[12 * 4] = 0xc3;				/* port 60: Valid, Control_Type 1, 3 */
	d[13 * 4] = 0x80 | 0x01;			/* port 61: none such, ignored */
	d[4] = 0x09;					/* port 49: not Valid, ignored */
	assert_int_equal(sim_cc_process(f, big, 0, fx->mad), 1);
	assert_int_equal(get_be16(fx->mad + 4), 0);
	cc_mad(0x01, A_SWPORT, 1);
	assert_int_equal(sim_cc_process(f, big, 0, fx->mad), 1);
	d = data();
	assert_int_equal(d[0], 0x85);
	assert_int_equal(d[1], 64);
	assert_int_equal(get_be16(d + 2), 300);
	assert_int_equal(d[4], 0);
	assert_int_equal(d[12 * 4], 0xc3);
	for (i = 13 * 4; i < 192; i++)
		assert_int_equal(d[i], 0);
	cc_mad(0x01, A_SWPORT, 0);
	assert_int_equal(sim_cc_process(f, big, 0, fx->mad), 1);
	for (i = 0; i < 192; i++)
		assert_int_equal(data()[i], 0);
	cc_mad(0x01, A_SWPORT, 2);
	assert_int_equal(sim_cc_process(f, big, 0, fx->mad), 1);
	assert_int_equal(get_be16(fx->mad + 4), S_VALUE);
	sim_fabric_free(f);

	/* An 8-port switch has one block; a CA has none. */
	d = cc_mad(0x02, A_SWPORT, 0);
	d[8 * 4] = 0x82;
	assert_int_equal(process(fx->sw, 0), 0);
	assert_int_equal(get(fx->sw, 0, A_SWPORT, 0), 0);
	assert_int_equal(data()[8 * 4], 0x82);
	assert_int_equal(get(fx->sw, 0, A_SWPORT, 1), S_VALUE);
	assert_int_equal(get(fx->ca, 1, A_SWPORT, 0), S_ATTR);
}

/* --- CA ports --------------------------------------------------------------------------- */

static void test_ca_congestion_setting(void **state)
{
	uint8_t *d;
	int sl;

	(void)state;
	d = cc_mad(0x02, A_CA, 0);
	put_be16(d, 1);					/* Port_Control: SL based */
	put_be16(d + 2, 1 << 0 | 1 << 15);		/* Control_Map: SLs 0 and 15 */
	for (sl = 0; sl < 16; sl++) {
		uint8_t *e = d + 4 + sl * 8;

		put_be16(e, (uint16_t)(100 + sl));	/* CCTI_Timer */
		e[2] = 2;				/* CCTI_Increase */
		e[3] = 7;				/* Trigger_Threshold */
		e[4] = 1;				/* CCTI_Min */
	}
	assert_int_equal(process(fx->ca, 1), 0);
	assert_int_equal(get(fx->ca, 1, A_CA, 0), 0);
	d = data();
	assert_int_equal(get_be16(d), 1);
	assert_int_equal(get_be16(d + 2), 0x8001);
	assert_int_equal(get_be16(d + 4), 100);
	assert_int_equal(d[6], 2);
	assert_int_equal(d[7], 7);
	assert_int_equal(d[8], 1);
	assert_int_equal(get_be16(d + 4 + 8), 0);	/* SL 1 not in the map */
	assert_int_equal(get_be16(d + 4 + 15 * 8), 115);
	/* Per port. */
	assert_int_equal(get(fx->ca, 2, A_CA, 0), 0);
	assert_int_equal(get_be16(data() + 4), 0);
	/* Not on switches. */
	assert_int_equal(get(fx->sw, 0, A_CA, 0), S_ATTR);
}

static void test_congestion_control_table(void **state)
{
	uint8_t *d;
	int i;

	(void)state;
	for (i = 0; i < SIM_CC_CCT_BLOCKS; i++) {
		int j;

		d = cc_mad(0x02, A_CCT, (uint32_t)i);
		put_be16(d, 100);			/* CCTI_Limit */
		for (j = 0; j < 64; j++)
			put_be16(d + 4 + 2 * j, (uint16_t)((j % 4) << 14 | (i * 64 + j)));
		assert_int_equal(process(fx->ca, 1), 0);
	}
	assert_int_equal(get(fx->ca, 1, A_CCT, 0), 0);
	d = data();
	assert_int_equal(get_be16(d), 100);
	assert_int_equal(get_be16(d + 4 + 2 * 5), 1 << 14 | 5);
	assert_int_equal(get(fx->ca, 1, A_CCT, 1), 0);
	assert_int_equal(get_be16(data()), 100);
	assert_int_equal(get_be16(data() + 4 + 2 * 63), 3 << 14 | 127);
	/* Beyond the table: a block, or a limit. */
	assert_int_equal(get(fx->ca, 1, A_CCT, SIM_CC_CCT_BLOCKS), S_VALUE);
	d = cc_mad(0x02, A_CCT, 0);
	put_be16(d, SIM_CC_CCT_BLOCKS * 64);
	assert_int_equal(process(fx->ca, 1), S_VALUE);
	assert_int_equal(get(fx->ca, 1, A_CCT, 0), 0);
	assert_int_equal(get_be16(data()), 100);
	/* Per port; not on switches. */
	assert_int_equal(get(fx->ca, 2, A_CCT, 0), 0);
	assert_int_equal(get_be16(data()), 0);
	assert_int_equal(get(fx->sw, 0, A_CCT, 0), S_ATTR);
}

/* --- statuses and silence ---------------------------------------------------------------- */

static void test_statuses(void **state)
{
	struct sim_fabric *f = sim_fabric_new();
	struct sim_node *rt = sim_fabric_add_node(f, NODE_TYPE_ROUTER, "rt", 2);

	(void)state;
	assert_int_equal(get(fx->sw, 0, A_NOTICE, 0), S_ATTR);
	assert_int_equal(get(fx->ca, 1, 0x0099, 0), S_ATTR);
	cc_mad(0x01, A_INFO, 0);
	fx->mad[2] = 1;
	assert_int_equal(process(fx->sw, 0), S_BAD_VERSION);
	cc_mad(0x05, A_INFO, 0);			/* Trap */
	assert_int_equal(process(fx->sw, 0), S_METHOD);
	cc_mad(0x03, A_INFO, 0);			/* Send */
	assert_int_equal(process(fx->ca, 1), S_METHOD);
	/* Silent: responses, TrapRepress, a port the CA does not have. */
	cc_mad(0x81, A_INFO, 0);
	assert_int_equal(process(fx->sw, 0), SILENT);
	cc_mad(0x07, A_INFO, 0);
	assert_int_equal(process(fx->sw, 0), SILENT);
	assert_int_equal(get(fx->ca, 0, A_INFO, 0), SILENT);
	assert_int_equal(get(fx->ca, 3, A_INFO, 0), SILENT);
	/* Another class is not ours. */
	cc_mad(0x01, A_INFO, 0);
	fx->mad[1] = 0x04;
	assert_int_equal(process(fx->sw, 0), SILENT);
	/* A router: the class-wide attributes, no log, no switch or CA settings. */
	assert_non_null(rt);
	cc_mad(0x01, A_INFO, 0);
	assert_int_equal(sim_cc_process(f, rt, 1, fx->mad), 1);
	assert_int_equal(get_be16(fx->mad + 4), 0);
	cc_mad(0x01, A_LOG, 0);
	assert_int_equal(sim_cc_process(f, rt, 1, fx->mad), 1);
	assert_int_equal(get_be16(fx->mad + 4), S_ATTR);
	cc_mad(0x01, A_CA, 0);
	assert_int_equal(sim_cc_process(f, rt, 2, fx->mad), 1);
	assert_int_equal(get_be16(fx->mad + 4), S_ATTR);
	sim_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults_allocate_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_class_port_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_congestion_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timestamp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_info_set_and_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_lease, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_congestion_setting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_port_congestion_setting, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ca_congestion_setting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_congestion_control_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_statuses, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
