/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The PMA: every attribute's Get with its fields where the spec puts them,
 * Set with CounterSelect clearing, saturation to the field widths,
 * PortSelect on switches (port 0, AllPortSelect) and CAs, the statuses of
 * what is not supported, samples, and the counters rising as MADs cross
 * links.  A tiny fabric built by hand:
 *
 *   H1[1]-[1]Sw[2]-[1]H2        (Sw has 4 ports, H1 has 2, its port 2 unlinked)
 *   LIDs: Sw 1, H1 port 1: 2, H1 port 2: 3, H2: 4
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/fabric.h"
#include "simfabric/pma.h"
#include "simfabric/route.h"

#define OPCODE_UD_SEND_ONLY 0x64

struct fixture {
	struct sim_fabric *f;
	struct sim_node *sw, *h1, *h2;
	uint8_t mad[MAD_SIZE];
};

static struct fixture *fx;

static int setup(void **state)
{
	struct sim_switch *sw;

	fx = calloc(1, sizeof(*fx));
	fx->f = sim_fabric_new();
	fx->sw = sim_fabric_add_node(fx->f, NODE_TYPE_SWITCH, "Sw", 4);
	fx->h1 = sim_fabric_add_node(fx->f, NODE_TYPE_CA, "H1", 2);
	fx->h2 = sim_fabric_add_node(fx->f, NODE_TYPE_CA, "H2", 1);
	if (!fx->sw || !fx->h1 || !fx->h2 ||
	    sim_fabric_link(&fx->h1->ports[1], &fx->sw->ports[1]) ||
	    sim_fabric_link(&fx->sw->ports[2], &fx->h2->ports[1]))
		return -1;
	fx->sw->ports[0].lid = 1;
	fx->h1->ports[1].lid = 2;
	fx->h1->ports[2].lid = 3;
	fx->h2->ports[1].lid = 4;
	sw = fx->sw->sw;
	sw->lft = malloc(SIM_LFT_CAP);
	if (!sw->lft)
		return -1;
	memset(sw->lft, SIM_LFT_NO_ROUTE, SIM_LFT_CAP);
	sw->lft[1] = 0;
	sw->lft[2] = 1;
	sw->lft[3] = 1;
	sw->lft[4] = 2;
	sw->lft_top = 4;
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

/* A PerfMgt request in fx->mad; returns its attribute data. */
static uint8_t *pma_mad(uint8_t method, uint16_t attr, uint8_t port_select)
{
	uint8_t *m = fx->mad;

	memset(m, 0, MAD_SIZE);
	m[0] = UMAD_BASE_VERSION;
	m[1] = UMAD_CLASS_PERF_MGMT;
	m[2] = 1;
	m[3] = method;
	put_be64(m + 8, 0x1234567890abcdefULL);
	put_be16(m + 16, attr);
	m[64 + 1] = port_select;
	return m + 64;
}

/* Send fx->mad to node through in_port; the response status, or -1 when silent. */
static int ask(struct sim_node *n, unsigned in_port)
{
	if (!sim_pma_process(fx->f, n, in_port, fx->mad))
		return -1;
	assert_int_equal(fx->mad[3], UMAD_METHOD_GET_RESP);
	assert_int_equal(get_be64(fx->mad + 8), 0x1234567890abcdefULL);
	return get_be16(fx->mad + 4);
}

/* Get attr of port_select from n (arrived through in_port), expecting success. */
static uint8_t *get(struct sim_node *n, unsigned in_port, uint16_t attr, uint8_t port_select)
{
	uint8_t *d = pma_mad(UMAD_METHOD_GET, attr, port_select);

	assert_int_equal(ask(n, in_port), UMAD_STATUS_SUCCESS);
	return d;
}

/* Set (clear) with CounterSelect sel and, where the attribute has one, CounterSelect2 sel2. */
static uint8_t *clear(struct sim_node *n, unsigned in_port, uint16_t attr, uint8_t port_select,
		      uint16_t sel, uint32_t sel2)
{
	uint8_t *d = pma_mad(UMAD_METHOD_SET, attr, port_select);

	put_be16(d + 2, sel);
	if (attr == 0x0012)
		d[18] = (uint8_t)sel2;
	else if (attr == 0x001D)
		put_be32(d + 4, sel2);
	assert_int_equal(ask(n, in_port), UMAD_STATUS_SUCCESS);
	return d;
}

static void bump(struct sim_port *p, enum sim_pma_counter c, uint64_t n)
{
	assert_int_equal(sim_pma_counter_add(p, c, n), 0);
}

/* Distinct small values in every error counter: counter c gets c + 1. */
static void raise_all(struct sim_port *p)
{
	unsigned c;

	for (c = 0; c < SIM_PMA_N_COUNTERS; c++)
		bump(p, (enum sim_pma_counter)c, c + 1);
}

static void traffic(struct sim_port *p, uint64_t xd, uint64_t rd, uint64_t xp, uint64_t rp)
{
	p->xmit_data = xd;
	p->rcv_data = rd;
	p->xmit_pkts = xp;
	p->rcv_pkts = rp;
}

/* --- ClassPortInfo ----------------------------------------------------------------- */

static void test_class_port_info(void **state)
{
	uint8_t *d;

	(void)state;
	d = get(fx->sw, 1, UMAD_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(d[0], 1);				/* BaseVersion */
	assert_int_equal(d[1], 1);				/* ClassVersion */
	/* AllPortSelect, extended width, PortXmitWait, QP1Dropped */
	assert_int_equal(get_be16(d + 2), 1 << 8 | 1 << 9 | 1 << 12 | 1 << 15);
	/* CapabilityMask2: IsAdditionalPortCountersExtendedSupported; RespTimeValue */
	assert_int_equal(get_be32(d + 4) >> 5, 2);
	assert_int_equal(get_be32(d + 4) & 0x1f, fx->sw->ports[0].resp_time_value);
	assert_int_equal(get_be16(d + 24), 0);			/* no redirection */

	/* A CA offers no AllPortSelect; the data the request carried does not matter. */
	d = pma_mad(UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO, 7);
	memset(d + 8, 0xaa, 64);
	assert_int_equal(ask(fx->h1, 1), 0);
	assert_int_equal(get_be16(d + 2), 1 << 9 | 1 << 12 | 1 << 15);
	assert_int_equal(d[8], 0);

	pma_mad(UMAD_METHOD_SET, UMAD_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

/* --- PortCounters, PortCountersExtended ---------------------------------------------- */

static void test_port_counters(void **state)
{
	struct sim_port *p = &fx->sw->ports[2];
	uint8_t *d;

	(void)state;
	traffic(p, 0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10);
	raise_all(p);
	d = get(fx->sw, 1, 0x0012, 2);
	assert_int_equal(d[1], 2);			/* PortSelect */
	assert_int_equal(get_be16(d + 4), 1);		/* SymbolErrorCounter */
	assert_int_equal(d[6], 2);			/* LinkErrorRecoveryCounter */
	assert_int_equal(d[7], 3);			/* LinkDownedCounter */
	/* PortRcvErrors: 4, and the six details (15..20) count in it too */
	assert_int_equal(get_be16(d + 8), 4 + 15 + 16 + 17 + 18 + 19 + 20);
	assert_int_equal(get_be16(d + 10), 5);		/* PortRcvRemotePhysicalErrors */
	assert_int_equal(get_be16(d + 12), 6);		/* PortRcvSwitchRelayErrors */
	/* PortXmitDiscards: 7, and the four details (21..24) */
	assert_int_equal(get_be16(d + 14), 7 + 21 + 22 + 23 + 24);
	assert_int_equal(d[16], 8);			/* PortXmitConstraintErrors */
	assert_int_equal(d[17], 9);			/* PortRcvConstraintErrors */
	assert_int_equal(d[18], 0);			/* CounterSelect2 */
	assert_int_equal(d[19], 10 << 4 | 11);		/* LocalLinkIntegrity | ExcessiveBufferOverrun */
	assert_int_equal(get_be16(d + 20), 14);		/* QP1Dropped */
	assert_int_equal(get_be16(d + 22), 12);		/* VL15Dropped */
	assert_int_equal(get_be32(d + 24), 0x01020304);	/* PortXmitData */
	assert_int_equal(get_be32(d + 28), 0x05060708);	/* PortRcvData */
	assert_int_equal(get_be32(d + 32), 0x090a0b0c);	/* PortXmitPkts */
	assert_int_equal(get_be32(d + 36), 0x0d0e0f10);	/* PortRcvPkts */
	assert_int_equal(get_be32(d + 40), 13);		/* PortXmitWait */
	assert_int_equal(get_be32(d + 44), 0);		/* nothing after it */

	/* Another port of the switch has its own counters. */
	d = get(fx->sw, 1, 0x0012, 3);
	assert_int_equal(get_be32(d + 24), 0);
	assert_int_equal(get_be16(d + 4), 0);
}

static void test_port_counters_ext(void **state)
{
	struct sim_port *p = &fx->h2->ports[1];
	uint8_t *d;
	unsigned c;

	(void)state;
	traffic(p, 0x100000001ULL, 0x200000002ULL, 0x300000003ULL, 0x400000004ULL);
	p->xmit_mcast_pkts = 3;
	p->rcv_mcast_pkts = 4;
	raise_all(p);
	d = get(fx->h2, 1, 0x001D, 1);
	assert_int_equal(d[1], 1);
	assert_int_equal(get_be64(d + 8), 0x100000001ULL);	/* PortXmitData */
	assert_int_equal(get_be64(d + 16), 0x200000002ULL);	/* PortRcvData */
	assert_int_equal(get_be64(d + 24), 0x300000003ULL);	/* PortXmitPkts */
	assert_int_equal(get_be64(d + 32), 0x400000004ULL);	/* PortRcvPkts */
	assert_int_equal(get_be64(d + 40), 0x300000000ULL);	/* PortUnicastXmitPkts */
	assert_int_equal(get_be64(d + 48), 0x400000000ULL);	/* PortUnicastRcvPkts */
	assert_int_equal(get_be64(d + 56), 3);			/* PortMulticastXmitPkts */
	assert_int_equal(get_be64(d + 64), 4);			/* PortMulticastRcvPkts */
	/* The error counters from offset 72, in PortCounters' order, then XmitWait, QP1Dropped. */
	for (c = 0; c <= SIM_PMA_QP1_DROPPED; c++)
		assert_int_equal(get_be64(d + 72 + 8 * c),
				 sim_pma_counter_get(p, (enum sim_pma_counter)c));
	assert_int_equal(get_be64(d + 72), 1);			/* SymbolErrorCounter */
	assert_int_equal(get_be64(d + 160), 12);		/* VL15Dropped */
	assert_int_equal(get_be64(d + 168), 13);		/* PortXmitWait */
	assert_int_equal(get_be64(d + 176), 14);		/* QP1Dropped */
	assert_int_equal(get_be64(d + 184), 0);
}

static void test_error_details(void **state)
{
	struct sim_port *p = &fx->h1->ports[1];
	uint8_t *d;

	(void)state;
	raise_all(p);
	d = get(fx->h1, 1, 0x0015, 1);
	assert_int_equal(get_be16(d + 4), 15);		/* PortLocalPhysicalErrors */
	assert_int_equal(get_be16(d + 6), 16);		/* PortMalformedPacketErrors */
	assert_int_equal(get_be16(d + 8), 17);		/* PortBufferOverrunErrors */
	assert_int_equal(get_be16(d + 10), 18);		/* PortDLIDMappingErrors */
	assert_int_equal(get_be16(d + 12), 19);		/* PortVLMappingErrors */
	assert_int_equal(get_be16(d + 14), 20);		/* PortLoopingErrors */
	assert_int_equal(get_be16(d + 16), 0);
	d = get(fx->h1, 1, 0x0016, 1);
	assert_int_equal(get_be16(d + 4), 21);		/* PortInactiveDiscards */
	assert_int_equal(get_be16(d + 6), 22);		/* PortNeighborMTUDiscards */
	assert_int_equal(get_be16(d + 8), 23);		/* PortSwLifetimeLimitDiscards */
	assert_int_equal(get_be16(d + 10), 24);		/* PortSwHOQLifetimeLimitDiscards */
	assert_int_equal(get_be16(d + 12), 0);

	/* Clearing a detail leaves PortRcvErrors alone, and the other details. */
	clear(fx->h1, 1, 0x0015, 1, 1 << 1, 0);
	d = get(fx->h1, 1, 0x0015, 1);
	assert_int_equal(get_be16(d + 4), 15);
	assert_int_equal(get_be16(d + 6), 0);
	assert_int_equal(sim_pma_counter_get(p, SIM_PMA_RCV_ERRORS), 4 + 15 + 16 + 17 + 18 + 19 + 20);
	clear(fx->h1, 1, 0x0016, 1, 0xf, 0);
	d = get(fx->h1, 1, 0x0016, 1);
	assert_int_equal(get_be16(d + 4), 0);
	assert_int_equal(get_be16(d + 10), 0);
}

/* PortOpRcvCounters, PortFlowCtlCounters, the per-VL and per-SL attributes. */
static void test_other_counters(void **state)
{
	struct sim_port *p = &fx->sw->ports[1];
	uint8_t *d;
	unsigned i;

	(void)state;
	traffic(p, 1000, 2000, 10, 20);
	bump(p, SIM_PMA_XMIT_WAIT, 77);

	/* The opcode every simulated packet has is counted; any other counts nothing. */
	d = pma_mad(UMAD_METHOD_GET, 0x0017, 1);
	d[0] = OPCODE_UD_SEND_ONLY;
	assert_int_equal(ask(fx->sw, 1), 0);
	assert_int_equal(d[0], OPCODE_UD_SEND_ONLY);		/* OpCode repeated */
	assert_int_equal(get_be32(d + 4), 20);			/* PortOpRcvPkts */
	assert_int_equal(get_be32(d + 8), 2000);		/* PortOpRcvData */
	d = get(fx->sw, 1, 0x0017, 1);				/* OpCode 0 */
	assert_int_equal(get_be32(d + 4), 0);
	assert_int_equal(get_be32(d + 8), 0);

	d = get(fx->sw, 1, 0x0018, 1);				/* no flow control packets */
	assert_int_equal(get_be32(d + 4), 0);
	assert_int_equal(get_be32(d + 8), 0);

	d = pma_mad(UMAD_METHOD_GET, 0x0019, 1);		/* PortVLOpPackets */
	d[0] = OPCODE_UD_SEND_ONLY;
	assert_int_equal(ask(fx->sw, 1), 0);
	assert_int_equal(get_be16(d + 4), 20);
	for (i = 1; i < 16; i++)
		assert_int_equal(get_be16(d + 4 + 2 * i), 0);
	d = pma_mad(UMAD_METHOD_GET, 0x001A, 1);		/* PortVLOpData */
	d[0] = OPCODE_UD_SEND_ONLY;
	assert_int_equal(ask(fx->sw, 1), 0);
	assert_int_equal(get_be32(d + 4), 2000);
	for (i = 1; i < 16; i++)
		assert_int_equal(get_be32(d + 4 + 4 * i), 0);

	d = pma_mad(UMAD_METHOD_GET, 0x001B, 1);		/* PortVLXmitFlowCtlUpdateErrors */
	memset(d + 4, 0xff, 4);
	assert_int_equal(ask(fx->sw, 1), 0);
	assert_int_equal(get_be32(d + 4), 0);

	d = get(fx->sw, 1, 0x001C, 1);				/* PortVLXmitWaitCounters */
	assert_int_equal(get_be16(d + 4), 77);
	assert_int_equal(get_be16(d + 6), 0);

	d = get(fx->sw, 1, 0x0036, 1);				/* PortXmitDataSL */
	assert_int_equal(get_be32(d + 4), 1000);
	for (i = 1; i < 16; i++)
		assert_int_equal(get_be32(d + 4 + 4 * i), 0);
	d = get(fx->sw, 1, 0x0037, 1);				/* PortRcvDataSL */
	assert_int_equal(get_be32(d + 4), 2000);
	assert_int_equal(get_be32(d + 8), 0);

	/* Each of them clears on its own. */
	clear(fx->sw, 1, 0x0036, 1, 1, 0);
	assert_int_equal(get_be32(get(fx->sw, 1, 0x0036, 1) + 4), 0);
	assert_int_equal(get_be32(get(fx->sw, 1, 0x0012, 1) + 24), 1000);
	assert_int_equal(get_be32(get(fx->sw, 1, 0x0037, 1) + 4), 2000);
	d = pma_mad(UMAD_METHOD_SET, 0x0017, 1);
	d[0] = OPCODE_UD_SEND_ONLY;
	put_be16(d + 2, 1);					/* PortOpRcvPkts only */
	assert_int_equal(ask(fx->sw, 1), 0);
	assert_int_equal(get_be32(d + 4), 0);
	assert_int_equal(get_be32(d + 8), 2000);
	clear(fx->sw, 1, 0x001C, 1, 0xffff, 0);
	assert_int_equal(get_be16(get(fx->sw, 1, 0x001C, 1) + 4), 0);
	assert_int_equal(sim_pma_counter_get(p, SIM_PMA_XMIT_WAIT), 77);
	/* More traffic counts from the clear on. */
	p->xmit_data += 5;
	assert_int_equal(get_be32(get(fx->sw, 1, 0x0036, 1) + 4), 5);
}

/* --- Set ---------------------------------------------------------------------------- */

static void test_set_clears_selected(void **state)
{
	struct sim_port *p = &fx->h1->ports[1];
	uint8_t *d;

	(void)state;
	traffic(p, 100, 200, 300, 400);
	raise_all(p);
	/* PortXmitData and SymbolErrorCounter; the response shows the counters after it. */
	d = clear(fx->h1, 1, 0x0012, 1, 1 << 12 | 1 << 0, 0);
	assert_int_equal(get_be16(d + 2), 1 << 12 | 1);		/* CounterSelect repeated */
	assert_int_equal(get_be32(d + 24), 0);
	assert_int_equal(get_be16(d + 4), 0);
	assert_int_equal(get_be32(d + 28), 200);
	assert_int_equal(d[6], 2);
	assert_int_equal(get_be32(d + 40), 13);
	/* CounterSelect2: PortXmitWait (bit 0), QP1Dropped (bit 1). */
	d = clear(fx->h1, 1, 0x0012, 1, 0, 1);
	assert_int_equal(d[18], 1);
	assert_int_equal(get_be32(d + 40), 0);
	assert_int_equal(get_be16(d + 20), 14);
	d = clear(fx->h1, 1, 0x0012, 1, 0, 2);
	assert_int_equal(get_be16(d + 20), 0);
	/* PortCounters and PortCountersExtended share the counters. */
	d = get(fx->h1, 1, 0x001D, 1);
	assert_int_equal(get_be64(d + 8), 0);
	assert_int_equal(get_be64(d + 16), 200);
	assert_int_equal(get_be64(d + 72), 0);
	/* Counting goes on from the clear. */
	p->xmit_data += 7;
	assert_int_equal(get_be32(get(fx->h1, 1, 0x0012, 1) + 24), 7);

	/* Extended: unicast on its own, then every error counter through CounterSelect2. */
	d = clear(fx->h1, 1, 0x001D, 1, 1 << 4, 0);
	assert_int_equal(get_be64(d + 40), 0);
	assert_int_equal(get_be64(d + 24), 300);
	p->xmit_pkts += 2;
	d = get(fx->h1, 1, 0x001D, 1);
	assert_int_equal(get_be64(d + 40), 2);
	assert_int_equal(get_be64(d + 24), 302);
	d = clear(fx->h1, 1, 0x001D, 1, 0, 0x3fff);
	assert_int_equal(get_be32(d + 4), 0x3fff);		/* CounterSelect2 repeated */
	assert_int_equal(get_be64(d + 96), 0);
	assert_int_equal(get_be64(d + 176), 0);
	assert_int_equal(get_be64(d + 32), 400);		/* data counters untouched */
	d = get(fx->h1, 1, 0x0012, 1);
	assert_int_equal(get_be16(d + 8), 0);
	assert_int_equal(d[19], 0);
	/* The details keep their counts. */
	assert_int_equal(get_be16(get(fx->h1, 1, 0x0015, 1) + 4), 15);
	/* Errors raised after the clear show. */
	bump(p, SIM_PMA_LINK_DOWNED, 1);
	assert_int_equal(get(fx->h1, 1, 0x0012, 1)[7], 1);
}

/* A Set that clears only zeros allocates nothing; an idle port carries no PMA state. */
static void test_lazy_state(void **state)
{
	struct sim_port *p = &fx->h2->ports[1];

	(void)state;
	get(fx->h2, 1, 0x0012, 1);
	get(fx->h2, 1, 0x001D, 1);
	clear(fx->h2, 1, 0x0012, 1, 0xffff, 0xff);
	assert_null(p->pma_zero);
	assert_null(p->pma_errors);
	assert_null(p->pma_samples);
	p->rcv_pkts = 1;
	clear(fx->h2, 1, 0x0012, 1, 1 << 15, 0);
	assert_non_null(p->pma_zero);
	assert_null(p->pma_errors);
}

/* --- widths ------------------------------------------------------------------------- */

static void test_saturation(void **state)
{
	struct sim_port *p = &fx->sw->ports[3];
	uint8_t *d;

	(void)state;
	traffic(p, 0x100000005ULL, 0xffffffffULL, 0xfffffffeULL, 0);
	bump(p, SIM_PMA_SYMBOL_ERRORS, 0x10005);
	bump(p, SIM_PMA_LINK_DOWNED, 300);
	bump(p, SIM_PMA_LOCAL_LINK_INTEGRITY_ERRORS, 20);
	bump(p, SIM_PMA_EXCESSIVE_BUFFER_OVERRUN_ERRORS, 3);
	bump(p, SIM_PMA_QP1_DROPPED, 70000);
	bump(p, SIM_PMA_XMIT_WAIT, 0x123456789ULL);
	d = get(fx->sw, 1, 0x0012, 3);
	assert_int_equal(get_be32(d + 24), 0xffffffff);		/* stops at all ones */
	assert_int_equal(get_be32(d + 28), 0xffffffff);		/* exactly all ones */
	assert_int_equal(get_be32(d + 32), 0xfffffffe);
	assert_int_equal(get_be16(d + 4), 0xffff);
	assert_int_equal(d[7], 0xff);
	assert_int_equal(d[19], 0xf << 4 | 3);			/* the nibbles do not mix */
	assert_int_equal(get_be16(d + 20), 0xffff);
	assert_int_equal(get_be32(d + 40), 0xffffffff);
	/* The extended view has the whole count. */
	d = get(fx->sw, 1, 0x001D, 3);
	assert_int_equal(get_be64(d + 8), 0x100000005ULL);
	assert_int_equal(get_be64(d + 72), 0x10005);
	assert_int_equal(get_be64(d + 168), 0x123456789ULL);
	/* The internal count stops at the top too. */
	bump(p, SIM_PMA_VL15_DROPPED, UINT64_MAX - 1);
	bump(p, SIM_PMA_VL15_DROPPED, 5);
	assert_true(sim_pma_counter_get(p, SIM_PMA_VL15_DROPPED) == UINT64_MAX);
	/* A cleared saturated counter counts from 0 again. */
	clear(fx->sw, 1, 0x0012, 3, 1 << 12, 0);
	p->xmit_data += 3;
	assert_int_equal(get_be32(get(fx->sw, 1, 0x0012, 3) + 24), 3);
}

/* --- PortSelect --------------------------------------------------------------------- */

static void test_switch_port0_and_all(void **state)
{
	struct sim_node *sw = fx->sw;
	uint8_t *d;
	unsigned i;

	(void)state;
	/* Port 0 has counters of its own. */
	bump(&sw->ports[0], SIM_PMA_VL15_DROPPED, 9);
	d = get(sw, 2, 0x0012, 0);
	assert_int_equal(d[1], 0);
	assert_int_equal(get_be16(d + 22), 9);
	assert_int_equal(get_be32(d + 24), 0);

	for (i = 1; i <= 4; i++) {
		traffic(&sw->ports[i], 10 * i, 20 * i, i, 2 * i);
		bump(&sw->ports[i], SIM_PMA_SYMBOL_ERRORS, 0x6000);
		bump(&sw->ports[i], SIM_PMA_LINK_DOWNED, i);
	}
	/* AllPortSelect: the sum over ports 1..4, saturated to the field. */
	d = get(sw, 1, 0x0012, 0xff);
	assert_int_equal(d[1], 0xff);
	assert_int_equal(get_be32(d + 24), 100);
	assert_int_equal(get_be32(d + 36), 20);
	assert_int_equal(get_be16(d + 4), 0xffff);		/* 4 * 0x6000 */
	assert_int_equal(d[7], 10);
	assert_int_equal(get_be16(d + 22), 0);			/* port 0 is not in it */
	d = get(sw, 1, 0x001D, 0xff);
	assert_int_equal(get_be64(d + 72), 4 * 0x6000);
	assert_int_equal(get_be64(d + 16), 200);
	/* With an enhanced port 0 it is. */
	sw->sw->enhanced_port0 = 1;
	d = get(sw, 1, 0x0012, 0xff);
	assert_int_equal(get_be16(d + 22), 9);
	/* A Set with AllPortSelect clears every port. */
	clear(sw, 1, 0x0012, 0xff, 1 << 12 | 1 << 2 | 1 << 11, 0);
	for (i = 0; i <= 4; i++) {
		d = get(sw, 1, 0x0012, (uint8_t)i);
		assert_int_equal(get_be32(d + 24), 0);
		assert_int_equal(d[7], 0);
		assert_int_equal(get_be16(d + 22), 0);
	}
	assert_int_equal(get_be32(get(sw, 1, 0x0012, 4) + 28), 80);
	/* Beyond the last port: invalid. */
	pma_mad(UMAD_METHOD_GET, 0x0012, 5);
	assert_int_equal(ask(sw, 1), UMAD_STATUS_INVALID_ATTR_VALUE);
	pma_mad(UMAD_METHOD_SET, 0x0016, 200);
	assert_int_equal(ask(sw, 0), UMAD_STATUS_INVALID_ATTR_VALUE);
}

static void test_ca_port_select(void **state)
{
	struct sim_node *h1 = fx->h1;
	static const uint16_t attrs[] = { 0x0012, 0x001D, 0x0015, 0x0016, 0x0017, 0x0018, 0x0019,
					  0x001A, 0x001B, 0x001C, 0x0036, 0x0037, 0x0010 };
	uint8_t *d;
	size_t i;

	(void)state;
	traffic(&h1->ports[2], 5, 6, 7, 8);
	/* A CA answers for any of its ports, through either; 0xFF and port 3 are invalid. */
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		get(h1, 1, attrs[i], 1);
		get(h1, 1, attrs[i], 2);
		get(h1, 2, attrs[i], 1);
		pma_mad(UMAD_METHOD_GET, attrs[i], 3);
		assert_int_equal(ask(h1, 1), UMAD_STATUS_INVALID_ATTR_VALUE);
		pma_mad(UMAD_METHOD_GET, attrs[i], 0xff);
		assert_int_equal(ask(h1, 1), UMAD_STATUS_INVALID_ATTR_VALUE);
		get(h1, 2, attrs[i], 0);
	}
	/* Port 2's counters, asked through port 1 (as perfquery -a does), and the other way. */
	d = get(h1, 1, 0x0012, 2);
	assert_int_equal(d[1], 2);
	assert_int_equal(get_be32(d + 24), 5);
	assert_int_equal(get_be32(d + 36), 8);
	assert_int_equal(get_be32(get(h1, 2, 0x0012, 1) + 24), 0);
	/* PortSelect 0: the port the MAD arrived through. */
	d = get(h1, 2, 0x0012, 0);
	assert_int_equal(d[1], 0);
	assert_int_equal(get_be32(d + 24), 5);
	assert_int_equal(get_be32(get(h1, 1, 0x0012, 0) + 24), 0);
	/* A rejected Set clears nothing; an accepted one clears the port it names. */
	pma_mad(UMAD_METHOD_SET, 0x0012, 3);
	put_be16(fx->mad + 64 + 2, 0xffff);
	assert_int_equal(ask(h1, 1), UMAD_STATUS_INVALID_ATTR_VALUE);
	assert_int_equal(get_be32(get(h1, 1, 0x0012, 2) + 24), 5);
	clear(h1, 1, 0x0012, 2, 1 << 12, 0);
	assert_int_equal(get_be32(get(h1, 2, 0x0012, 2) + 24), 0);
	assert_int_equal(get_be32(get(h1, 2, 0x0012, 2) + 28), 6);
	/* Nothing arrives at a CA's port 0. */
	pma_mad(UMAD_METHOD_GET, 0x0012, 1);
	assert_int_equal(ask(h1, 0), -1);
}

/* --- what is not supported ---------------------------------------------------------- */

/* PortExtendedSpeedsCounters: on ports with extended speeds only; no link-layer errors. */
static void test_ext_speeds_counters(void **state)
{
	uint8_t *d;
	size_t i;

	(void)state;
	fx->h1->ports[1].ext_supported = LINK_SPEED_EXT_FDR | LINK_SPEED_EXT_EDR;
	bump(&fx->h1->ports[1], SIM_PMA_SYMBOL_ERRORS, 5);
	d = pma_mad(UMAD_METHOD_GET, PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS, 1);
	memset(d + 16, 0xa5, PMA_DATA_SIZE - 16);
	mad_set(d, PESC_COUNTER_SELECT, 0x0123456789abcdefULL);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_SUCCESS);
	assert_int_equal(mad_get(d, PESC_PORT_SELECT), 1);
	assert_int_equal(mad_get(d, PESC_COUNTER_SELECT), 0x0123456789abcdefULL);
	for (i = 16; i < PMA_DATA_SIZE; i++)
		assert_int_equal(d[i], 0);
	/* PortSelect 0: the port asked through. */
	pma_mad(UMAD_METHOD_GET, PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS, 0);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_SUCCESS);
	/* A reset is taken. */
	pma_mad(UMAD_METHOD_SET, PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS, 1);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_SUCCESS);
	/* A port without extended speeds has no such counters; no port is out of range or all. */
	pma_mad(UMAD_METHOD_GET, PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS, 2);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	pma_mad(UMAD_METHOD_GET, PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS, 3);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_INVALID_ATTR_VALUE);
	pma_mad(UMAD_METHOD_GET, PMA_ATTR_PORT_EXT_SPEEDS_COUNTERS, PMA_PORT_SELECT_ALL);
	assert_int_equal(ask(fx->sw, 1), UMAD_STATUS_INVALID_ATTR_VALUE);
}

static void test_unsupported(void **state)
{
	static const uint16_t absent[] = { 0x0013, 0x001E, 0x001F, 0x0030, 0x0035, 0x0038, 0xff00 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		pma_mad(UMAD_METHOD_GET, absent[i], 1);
		assert_int_equal(ask(fx->sw, 1), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	}
	pma_mad(UMAD_METHOD_SET, 0x0011, 1);			/* PortSamplesResult is read-only */
	assert_int_equal(ask(fx->sw, 1), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	pma_mad(UMAD_METHOD_SEND, 0x0012, 1);
	assert_int_equal(ask(fx->sw, 1), UMAD_STATUS_METHOD_NOT_SUPPORTED);
	pma_mad(UMAD_METHOD_TRAP, 0x0012, 1);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_METHOD_NOT_SUPPORTED);
	pma_mad(UMAD_METHOD_TRAP_REPRESS, 0x0012, 1);
	assert_int_equal(ask(fx->h1, 1), UMAD_STATUS_METHOD_NOT_SUPPORTED);

	/* Silent: responses, other versions or classes. */
	pma_mad(UMAD_METHOD_GET_RESP, 0x0012, 1);
	assert_int_equal(ask(fx->sw, 1), -1);
	assert_int_equal(fx->mad[3], UMAD_METHOD_GET_RESP);
	pma_mad(UMAD_METHOD_REPORT_RESP, 0x0012, 1);
	assert_int_equal(ask(fx->sw, 1), -1);
	pma_mad(UMAD_METHOD_GET, 0x0012, 1);
	fx->mad[2] = 2;
	assert_int_equal(ask(fx->sw, 1), -1);
	assert_int_equal(fx->mad[3], UMAD_METHOD_GET);		/* untouched */
	pma_mad(UMAD_METHOD_GET, 0x0012, 1);
	fx->mad[0] = 2;
	assert_int_equal(ask(fx->sw, 1), -1);
	pma_mad(UMAD_METHOD_GET, 0x0012, 1);
	fx->mad[1] = UMAD_CLASS_SUBN_ADM;
	assert_int_equal(ask(fx->sw, 1), -1);
}

/* --- samples ------------------------------------------------------------------------ */

static void test_samples(void **state)
{
	struct sim_node *sw = fx->sw;
	struct sim_port *p = &sw->ports[2];
	uint8_t *d;
	unsigned i;

	(void)state;
	/* Before any sample: the mandatory counters selected, nothing running. */
	d = get(sw, 1, 0x0010, 2);
	assert_int_equal(d[3] & 7, 4);				/* CounterWidth: 32 bits */
	assert_int_equal(get_be32(d + 4), 0x09249249);		/* CounterMask0..9 */
	assert_int_equal(get_be16(d + 8), 0x1249);		/* CounterMask10..14 */
	assert_int_equal(d[11] & 3, 0);				/* SampleStatus: done */
	for (i = 0; i < 5; i++)
		assert_int_equal(get_be16(d + 38 + 2 * i), i + 1);
	assert_int_equal(get_be16(d + 48), 0);
	d = get(sw, 1, 0x0011, 0);
	assert_int_equal(get_be16(d), 0);
	assert_int_equal(get_be32(d + 4), 0);

	traffic(p, 1000, 2000, 10, 20);
	bump(p, SIM_PMA_XMIT_WAIT, 4);
	d = pma_mad(UMAD_METHOD_SET, 0x0010, 2);
	put_be32(d + 28, 5);					/* SampleStart */
	put_be32(d + 32, 1000);					/* SampleInterval */
	put_be16(d + 36, 0xbeef);				/* Tag */
	put_be16(d + 38, 0x0003);				/* PortXmitPkts */
	put_be16(d + 40, 0x0001);				/* PortXmitData */
	put_be16(d + 42, 0x0005);				/* PortXmitWait */
	put_be16(d + 44, 0x0004);				/* PortRcvPkts */
	put_be16(d + 46, 0x0042);				/* optional: not offered */
	assert_int_equal(ask(sw, 1), 0);
	assert_int_equal(d[11] & 3, 2);				/* running */
	assert_int_equal(get_be16(d + 36), 0xbeef);
	assert_int_equal(get_be32(d + 28), 5);
	assert_int_equal(get_be32(d + 32), 1000);
	assert_int_equal(get_be16(d + 38), 3);
	assert_int_equal(d[1], 2);

	/* Traffic during the sample; a clear of PortCounters does not disturb it. */
	p->xmit_pkts += 3;
	p->xmit_data += 192;
	p->rcv_pkts += 1;
	bump(p, SIM_PMA_XMIT_WAIT, 6);
	clear(sw, 1, 0x0012, 2, 0xffff, 0xff);
	d = get(sw, 1, 0x0010, 0);
	assert_int_equal(d[11] & 3, 2);
	assert_int_equal(d[1], 2);				/* the sampled port */

	d = get(sw, 1, 0x0011, 0);
	assert_int_equal(get_be16(d), 0xbeef);
	assert_int_equal(d[3] & 3, 0);				/* done */
	assert_int_equal(get_be32(d + 4), 3);
	assert_int_equal(get_be32(d + 8), 192);
	assert_int_equal(get_be32(d + 12), 6);
	assert_int_equal(get_be32(d + 16), 1);
	assert_int_equal(get_be32(d + 20), 0);
	/* The results stay what the sample counted. */
	p->xmit_pkts += 100;
	d = get(sw, 1, 0x0011, 0);
	assert_int_equal(get_be32(d + 4), 3);
	assert_int_equal(get(sw, 1, 0x0010, 0)[11] & 3, 0);
	/* A CA samples its own port. */
	d = pma_mad(UMAD_METHOD_SET, 0x0010, 1);
	put_be16(d + 38, 0x0002);
	assert_int_equal(ask(fx->h2, 1), 0);
	fx->h2->ports[1].rcv_data += 64;
	assert_int_equal(get_be32(get(fx->h2, 1, 0x0011, 1) + 4), 64);
}

/* --- traffic ------------------------------------------------------------------------ */

/* A MAD routed from H1 to H2 and back: every port along the way counts it. */
static void test_routed_traffic(void **state)
{
	struct sim_hop_end end;
	uint8_t *d;

	(void)state;
	assert_int_equal(sim_route_lid(fx->f, fx->h1, 1, 4, &end), 0);
	assert_ptr_equal(end.node, fx->h2);
	assert_int_equal(end.port, 1);
	assert_int_equal(sim_route_lid(fx->f, fx->h2, 1, 2, &end), 0);
	assert_ptr_equal(end.node, fx->h1);
	/* And one to the switch itself (LID 1), which crosses only H1's link. */
	assert_int_equal(sim_route_lid(fx->f, fx->h1, 1, 1, &end), 0);
	assert_ptr_equal(end.node, fx->sw);

	d = get(fx->h1, 1, 0x0012, 1);
	assert_int_equal(get_be32(d + 32), 2);			/* PortXmitPkts */
	assert_int_equal(get_be32(d + 36), 1);			/* PortRcvPkts */
	assert_int_equal(get_be32(d + 24), 2 * SIM_MAD_PACKET_WORDS);	/* PortXmitData, in words */
	assert_int_equal(get_be32(d + 28), SIM_MAD_PACKET_WORDS);
	d = get(fx->sw, 1, 0x0012, 1);
	assert_int_equal(get_be32(d + 36), 2);
	assert_int_equal(get_be32(d + 32), 1);
	d = get(fx->sw, 1, 0x0012, 2);
	assert_int_equal(get_be32(d + 32), 1);
	assert_int_equal(get_be32(d + 36), 1);
	d = get(fx->sw, 1, 0x001D, 0xff);
	assert_int_equal(get_be64(d + 24), 2);
	assert_int_equal(get_be64(d + 32), 3);
	assert_int_equal(get_be64(d + 48), 3);			/* all unicast */
	assert_int_equal(get_be64(d + 64), 0);
	d = get(fx->h2, 1, 0x001D, 1);
	assert_int_equal(get_be64(d + 8), SIM_MAD_PACKET_WORDS);
	assert_int_equal(get_be64(d + 40), 1);
	/* H1's unlinked port saw nothing; nor did the switch's port 0. */
	assert_int_equal(get_be32(get(fx->h1, 2, 0x0012, 2) + 32), 0);
	assert_int_equal(get_be32(get(fx->sw, 1, 0x0012, 0) + 36), 0);

	/* A link down loses the MAD: nothing more is counted past it. */
	fx->h2->ports[1].phys_state = PHYS_STATE_POLLING;
	assert_int_equal(sim_route_lid(fx->f, fx->h1, 1, 4, &end), -1);
	d = get(fx->sw, 1, 0x0012, 2);
	assert_int_equal(get_be32(d + 32), 1);
	assert_int_equal(get_be32(get(fx->h1, 1, 0x0012, 1) + 32), 3);
}

/* --- names -------------------------------------------------------------------------- */

static void test_counter_names(void **state)
{
	unsigned c;

	(void)state;
	for (c = 0; c < SIM_PMA_N_COUNTERS; c++) {
		const char *name = sim_pma_counter_name((enum sim_pma_counter)c);

		assert_non_null(name);
		assert_int_equal(sim_pma_counter_by_name(name), (int)c);
	}
	assert_string_equal(sim_pma_counter_name(SIM_PMA_SYMBOL_ERRORS), "SymbolErrorCounter");
	assert_string_equal(sim_pma_counter_name(SIM_PMA_RCV_ERRORS), "PortRcvErrors");
	assert_null(sim_pma_counter_name(SIM_PMA_N_COUNTERS));
	assert_int_equal(sim_pma_counter_by_name("linkdownedcounter"), SIM_PMA_LINK_DOWNED);
	assert_int_equal(sim_pma_counter_by_name("PortMalformedPktErrors"),
			 SIM_PMA_MALFORMED_PACKET_ERRORS);
	assert_int_equal(sim_pma_counter_by_name("PortXmitData"), -1);
	assert_int_equal(sim_pma_counter_by_name(""), -1);
	assert_int_equal(sim_pma_counter_by_name(NULL), -1);
	assert_int_equal(sim_pma_counter_add(&fx->h1->ports[1], SIM_PMA_N_COUNTERS, 1), -EINVAL);
	assert_null(fx->h1->ports[1].pma_errors);
	assert_int_equal(sim_pma_counter_add(&fx->h1->ports[1], SIM_PMA_LINK_DOWNED, 0), 0);
	assert_null(fx->h1->ports[1].pma_errors);
	assert_int_equal(sim_pma_counter_get(&fx->h1->ports[1], SIM_PMA_N_COUNTERS), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_class_port_info),
		T(test_port_counters),
		T(test_port_counters_ext),
		T(test_error_details),
		T(test_other_counters),
		T(test_set_clears_selected),
		T(test_lazy_state),
		T(test_saturation),
		T(test_switch_port0_and_all),
		T(test_ca_port_select),
		T(test_ext_speeds_counters),
		T(test_unsupported),
		T(test_samples),
		T(test_routed_traffic),
		T(test_counter_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
