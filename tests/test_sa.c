/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The built-in SA: every attribute's Get/GetTable (and Set/Delete where
 * there are), component-mask filtering, the SA's status codes, paths over
 * a slower and smaller link, multicast joins and leaves with the owner's
 * hook, services, subscriptions and the Reports they bring, answers
 * longer than one MAD.  Each test builds this fabric by hand:
 *
 *   HcaA[1]-[1]Sw1[2]-[1]Sw2[2]-[1]HcaB       (Sw1[2]-Sw2[1]: 1x, MTU 1024)
 *               Sw1[3]-[1]HcaC
 *
 * Every link 4x QDR but the middle one; LIDs Sw1 1, Sw2 2, HcaA 0x10,
 * HcaB 0x20 with LMC 1, HcaC 0x30; the SM and SA sit at HcaA port 1.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include <infiniband/umad_sa_mcm.h>
#include "simfabric/fabric.h"
#include "simfabric/route.h"
#include "simfabric/sa.h"

#define NO_ANSWER	(-1)
#define SA_KEY		0x5a5a
#define MAX_HOOK	16

/* The Notice attribute, spelled here as the IBA lays it out. */
#define NOTICE_OFF_GENERIC_TYPE	0	/* IsGeneric:1 Type:7 */
#define NOTICE_OFF_PRODUCER	1	/* ProducerType:24 */
#define NOTICE_OFF_TRAP_NUM	4
#define NOTICE_OFF_ISSUER_LID	6
#define NOTICE_OFF_DETAILS	10	/* DataDetails */
#define NOTICE_OFF_ISSUER_GID	64
#define NOTICE_GENERIC		0x80

struct hook_call {
	uint16_t mlid;
	size_t n;
	struct sim_port *members[MAX_HOOK];
};

struct report {
	uint16_t lid;
	uint32_t qpn;
	uint8_t mad[MAD_SIZE];
};

struct fixture {
	struct sim_fabric *f;
	struct sim_node *sw1, *sw2, *ha, *hb, *hc;
	struct sim_sa *sa;
	struct sim_sa_requester from_a, from_b, from_c;
	uint8_t req[MAD_SIZE];
	uint8_t *resp;
	size_t resp_len;
	uint64_t sm_key;		/* what requests carry */
	struct hook_call calls[32];
	unsigned n_calls;
	struct report reports[8];
	unsigned n_reports;
};

static struct fixture *fx;

static void mcast_changed(void *arg, uint16_t mlid, struct sim_port *const *members, size_t n)
{
	struct fixture *x = arg;
	struct hook_call *c = &x->calls[x->n_calls++ % 32];

	c->mlid = mlid;
	c->n = n;
	memcpy(c->members, members, (n < MAX_HOOK ? n : MAX_HOOK) * sizeof(*members));
}

static void send_report(void *arg, uint16_t lid, uint32_t qpn, const uint8_t *mad)
{
	struct fixture *x = arg;
	struct report *r = &x->reports[x->n_reports++ % 8];

	r->lid = lid;
	r->qpn = qpn;
	memcpy(r->mad, mad, MAD_SIZE);
}

static struct sim_node *add(enum node_type type, const char *name, unsigned ports, uint64_t guid)
{
	struct sim_node *n = sim_fabric_add_node(fx->f, type, name, ports);
	unsigned i;

	assert_non_null(n);
	n->node_guid = n->sys_guid = guid;
	for (i = 0; i <= ports; i++) {
		struct sim_port *p = &n->ports[i];

		p->guid = type == NODE_TYPE_SWITCH ? guid : guid + i;
		/* 4x QDR wherever both ends allow it. */
		p->speed_supported = p->speed_enabled = LINK_SPEED_SDR | LINK_SPEED_QDR;
	}
	return n;
}

static void set_lid(struct sim_port *p, uint16_t lid, uint8_t lmc)
{
	p->lid = lid;
	p->lmc = lmc;
	assert_int_equal(sim_fabric_lid_changed(fx->f, p, 0, 0), 0);
}

static void route(struct sim_node *sw, uint16_t lid, uint8_t port)
{
	if (!sw->sw->lft) {
		sw->sw->lft = malloc(SIM_LFT_CAP);
		assert_non_null(sw->sw->lft);
		memset(sw->sw->lft, SIM_LFT_NO_ROUTE, SIM_LFT_CAP);
	}
	sw->sw->lft[lid] = port;
	if (lid > sw->sw->lft_top)
		sw->sw->lft_top = lid;
}

static int setup(void **state)
{
	static const struct sim_sa_hooks hooks_template = { mcast_changed, send_report, NULL };
	struct sim_sa_hooks hooks = hooks_template;
	struct sim_port *a, *b;

	fx = calloc(1, sizeof(*fx));
	fx->f = sim_fabric_new();
	fx->sw1 = add(NODE_TYPE_SWITCH, "Sw1", 4, 0x1000);
	fx->sw2 = add(NODE_TYPE_SWITCH, "Sw2", 4, 0x2000);
	fx->ha = add(NODE_TYPE_CA, "HcaA", 2, 0xa0);
	fx->hb = add(NODE_TYPE_CA, "HcaB", 2, 0xb0);
	fx->hc = add(NODE_TYPE_CA, "HcaC", 2, 0xc0);
	/* The middle link: 1x only, MTU 1024 at one end. */
	a = &fx->sw1->ports[2];
	b = &fx->sw2->ports[1];
	b->width_enabled = LINK_WIDTH_1X;
	b->mtu_cap = SA_MTU_1024;
	assert_int_equal(sim_fabric_link(&fx->ha->ports[1], &fx->sw1->ports[1]), 0);
	assert_int_equal(sim_fabric_link(a, b), 0);
	assert_int_equal(sim_fabric_link(&fx->sw2->ports[2], &fx->hb->ports[1]), 0);
	assert_int_equal(sim_fabric_link(&fx->sw1->ports[3], &fx->hc->ports[1]), 0);
	set_lid(&fx->sw1->ports[0], 1, 0);
	set_lid(&fx->sw2->ports[0], 2, 0);
	set_lid(&fx->ha->ports[1], 0x10, 0);
	set_lid(&fx->hb->ports[1], 0x20, 1);
	set_lid(&fx->hc->ports[1], 0x30, 0);
	route(fx->sw1, 1, 0);
	route(fx->sw1, 2, 2);
	route(fx->sw1, 0x10, 1);
	route(fx->sw1, 0x20, 2);
	route(fx->sw1, 0x21, 2);
	route(fx->sw1, 0x30, 3);
	route(fx->sw2, 1, 1);
	route(fx->sw2, 2, 0);
	route(fx->sw2, 0x10, 1);
	route(fx->sw2, 0x20, 2);
	route(fx->sw2, 0x21, 2);
	route(fx->sw2, 0x30, 1);
	/* The SM at HcaA. */
	fx->ha->ports[1].capmask |= PORT_CAP_IS_SM;
	fx->ha->sminfo.guid = fx->ha->ports[1].guid;
	fx->ha->sminfo.sm_key = SA_KEY;
	fx->ha->sminfo.priority = 5;
	fx->ha->sminfo.state = 3;	/* master */
	fx->ha->sminfo.act_count = 42;

	fx->from_a = (struct sim_sa_requester){ &fx->ha->ports[1], 0x10, 1, PKEY_DEFAULT };
	fx->from_b = (struct sim_sa_requester){ &fx->hb->ports[1], 0x20, 5, PKEY_DEFAULT };
	fx->from_c = (struct sim_sa_requester){ NULL, 0x30, 7, PKEY_DEFAULT };
	hooks.arg = fx;
	fx->sa = sim_sa_new(fx->f, &fx->ha->ports[1], &hooks);
	assert_non_null(fx->sa);
	sim_sa_set_key(fx->sa, SA_KEY);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sim_sa_free(fx->sa);
	sim_fabric_free(fx->f);
	free(fx->resp);
	free(fx);
	return 0;
}

/* --- requests ------------------------------------------------------------------------ */

/* A fresh request in fx->req; returns its data (the record to fill). */
static uint8_t *request(uint8_t method, uint16_t attr, uint64_t comp_mask)
{
	uint8_t *m = fx->req;

	memset(m, 0, MAD_SIZE);
	m[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	m[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	m[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	m[MAD_OFF_METHOD] = method;
	put_be64(m + MAD_OFF_TID, 0xabcd0001);
	put_be16(m + MAD_OFF_ATTR_ID, attr);
	put_be64(m + SA_OFF_SM_KEY, fx->sm_key);
	put_be64(m + SA_OFF_COMP_MASK, comp_mask);
	return m + SA_HDR_END;
}

/* Send fx->req from a requester: the answer's status, or NO_ANSWER; the header checked. */
static int send_from(const struct sim_sa_requester *from)
{
	int r;

	free(fx->resp);
	fx->resp = NULL;
	r = sim_sa_process(fx->sa, from, fx->req, MAD_SIZE, &fx->resp, &fx->resp_len);
	assert_true(r >= 0);
	if (!r)
		return NO_ANSWER;
	assert_non_null(fx->resp);
	assert_true(fx->resp_len >= SA_HDR_END);
	assert_int_equal(mad_class(fx->resp), UMAD_CLASS_SUBN_ADM);
	assert_int_equal(fx->resp[MAD_OFF_CLASS_VERSION], UMAD_SA_CLASS_VERSION);
	assert_true(mad_method_is_response(mad_method(fx->resp)));
	assert_int_equal(mad_tid(fx->resp), 0xabcd0001);
	assert_int_equal(mad_attr_id(fx->resp), mad_attr_id(fx->req));
	assert_int_equal(get_be64(fx->resp + SA_OFF_SM_KEY), 0);
	assert_int_equal(get_be64(fx->resp + SA_OFF_COMP_MASK), get_be64(fx->req + SA_OFF_COMP_MASK));
	if (mad_method(fx->resp) != UMAD_SA_METHOD_GET_TABLE_RESP)
		assert_int_equal(fx->resp_len, MAD_SIZE);
	return mad_status(fx->resp);
}

static int send_a(void)
{
	return send_from(&fx->from_a);
}

/* The records of a GetTable answer, checking the length is exactly theirs. */
static size_t n_records(size_t rec_size)
{
	size_t offset = get_be16(fx->resp + SA_OFF_ATTR_OFFSET) * SA_ATTR_OFFSET_UNIT;

	assert_int_equal(mad_method(fx->resp), UMAD_SA_METHOD_GET_TABLE_RESP);
	if (fx->resp_len == SA_HDR_END) {
		assert_int_equal(offset, 0);
		return 0;
	}
	assert_int_equal(offset, rec_size);
	assert_int_equal((fx->resp_len - SA_HDR_END) % rec_size, 0);
	return (fx->resp_len - SA_HDR_END) / rec_size;
}

static const uint8_t *record(size_t i, size_t rec_size)
{
	return fx->resp + SA_HDR_END + i * rec_size;
}

/* GetTable with a mask and a filled-in record (rec may be NULL): the number of records. */
static size_t table(uint16_t attr, uint64_t mask, const uint8_t *rec, size_t rec_size)
{
	uint8_t *d = request(UMAD_SA_METHOD_GET_TABLE, attr, mask);

	if (rec)
		memcpy(d, rec, rec_size);
	assert_int_equal(send_a(), 0);
	return n_records(rec_size);
}

static void port_gid(const struct sim_port *p, uint8_t *gid)
{
	put_be64(gid, GID_PREFIX_LINK_LOCAL);
	put_be64(gid + 8, p->node->type == NODE_TYPE_SWITCH ? p->node->node_guid : p->guid);
}

/* --- ClassPortInfo, the front door ---------------------------------------------------- */

static void test_class_port_info(void **state)
{
	const uint8_t *cpi;
	uint32_t word;

	(void)state;
	request(UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(send_a(), 0);
	assert_int_equal(mad_method(fx->resp), UMAD_METHOD_GET_RESP);
	cpi = fx->resp + SA_HDR_END;
	assert_int_equal(cpi[offsetof(struct umad_class_port_info, base_ver)], 1);
	assert_int_equal(cpi[offsetof(struct umad_class_port_info, class_ver)], 2);
	assert_true(get_be16(cpi + offsetof(struct umad_class_port_info, cap_mask)) &
		    UMAD_SA_CAP_MASK_IS_UD_MCAST_SUP);
	/* MultiPathRecord, as opensm announces it. */
	assert_true(get_be16(cpi + offsetof(struct umad_class_port_info, cap_mask)) &
		    UMAD_SA_CAP_MASK_IS_MULTIPATH_SUP);
	word = get_be32(cpi + offsetof(struct umad_class_port_info, cap_mask2_resp_time));
	assert_true((word >> 5) & SA_CAP_MASK2_IS_SEND_ONLY_FULL_MEMBER_SUP);
	assert_true((word & 0x1f) > 0);
	assert_int_equal(get_be32(cpi + offsetof(struct umad_class_port_info, redir_qkey)), UMAD_QKEY);
	/* Only Get. */
	request(UMAD_METHOD_SET, UMAD_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(send_a(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

static void test_front_door(void **state)
{
	uint8_t *d;

	(void)state;
	/* Not answered: another class version, a response, a short message, a wrong SM_Key. */
	request(UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO, 0);
	fx->req[MAD_OFF_CLASS_VERSION] = 1;
	assert_int_equal(send_a(), NO_ANSWER);
	request(UMAD_METHOD_GET_RESP, UMAD_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(send_a(), NO_ANSWER);
	request(UMAD_METHOD_REPORT_RESP, UMAD_ATTR_NOTICE, 0);
	assert_int_equal(send_a(), NO_ANSWER);
	request(UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(sim_sa_process(fx->sa, &fx->from_a, fx->req, MAD_SIZE - 1, &fx->resp,
					&fx->resp_len), 0);
	fx->sm_key = SA_KEY + 1;
	request(UMAD_METHOD_GET, UMAD_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(send_a(), NO_ANSWER);
	fx->sm_key = 0;
	/* Statuses: an attribute the SA does not have, a method it does not take. */
	request(UMAD_METHOD_GET, UMAD_SA_ATTR_TRACE_REC, 0);
	assert_int_equal(send_a(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	request(UMAD_SA_METHOD_GET_MULTI, UMAD_SA_ATTR_PATH_REC, 0);
	assert_int_equal(send_a(), UMAD_STATUS_METHOD_NOT_SUPPORTED);
	assert_int_equal(mad_method(fx->resp), UMAD_SA_METHOD_GET_MULTI_RESP);
	request(UMAD_METHOD_SEND, UMAD_SA_ATTR_NODE_REC, 0);
	assert_int_equal(send_a(), UMAD_STATUS_METHOD_NOT_SUPPORTED);
	/* A record type that cannot be set or deleted: the method/attribute combination. */
	d = request(UMAD_METHOD_SET, UMAD_SA_ATTR_NODE_REC, 0);
	d[0] = 0x77;
	assert_int_equal(send_a(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	assert_int_equal(mad_method(fx->resp), UMAD_METHOD_GET_RESP);
	/* An error echoes the request's data. */
	assert_int_equal(fx->resp[SA_HDR_END], 0x77);
	request(UMAD_SA_METHOD_DELETE, UMAD_SA_ATTR_PATH_REC, 0);
	assert_int_equal(send_a(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
	assert_int_equal(mad_method(fx->resp), UMAD_SA_METHOD_DELETE_RESP);
}

/* --- NodeRecord --------------------------------------------------------------------------- */

static void test_node_records(void **state)
{
	uint8_t rec[SA_NODE_REC_SIZE] = { 0 };
	const uint8_t *r = NULL;
	size_t i, n;

	(void)state;
	/* Sw1, Sw2, and the three HCA ports with links (HcaA port 2 has none). */
	n = table(UMAD_SA_ATTR_NODE_REC, 0, NULL, SA_NODE_REC_SIZE);
	assert_int_equal(n, 5);
	assert_int_equal(fx->resp_len, SA_HDR_END + 5 * SA_NODE_REC_SIZE);
	for (i = 0; i < n; i++) {
		r = record(i, SA_NODE_REC_SIZE);
		if (get_be16(r) == 0x20)
			break;
	}
	assert_true(i < n);
	assert_int_equal(r[4], 1);				/* BaseVersion */
	assert_int_equal(r[6], NODE_TYPE_CA);
	assert_int_equal(r[7], 2);				/* NumPorts */
	assert_int_equal(get_be64(r + 16), 0xb0);		/* NodeGUID */
	assert_int_equal(get_be64(r + 24), 0xb1);		/* PortGUID */
	assert_int_equal(r[40], 1);				/* LocalPortNum */
	assert_string_equal((const char *)r + 44, "HcaB");

	/* By LID: any LID of the port's LMC range finds it, with its base LID. */
	put_be16(rec, 0x21);
	assert_int_equal(table(UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_LID, rec, SA_NODE_REC_SIZE), 1);
	assert_int_equal(get_be16(record(0, SA_NODE_REC_SIZE)), 0x20);
	put_be16(rec, 0x22);
	assert_int_equal(table(UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_LID, rec, SA_NODE_REC_SIZE), 0);
	assert_int_equal(fx->resp_len, SA_HDR_END);
	/* By NodeType, by NodeGUID, by NodeDescription. */
	memset(rec, 0, sizeof(rec));
	rec[6] = NODE_TYPE_SWITCH;
	assert_int_equal(table(UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_NODE_TYPE, rec, SA_NODE_REC_SIZE),
			 2);
	memset(rec, 0, sizeof(rec));
	put_be64(rec + 16, 0x2000);
	assert_int_equal(table(UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_NODE_GUID, rec, SA_NODE_REC_SIZE),
			 1);
	assert_int_equal(get_be16(record(0, SA_NODE_REC_SIZE)), 2);
	assert_int_equal(record(0, SA_NODE_REC_SIZE)[40], 0);	/* a switch: port 0 */
	memset(rec, 0, sizeof(rec));
	strcpy((char *)rec + 44, "HcaC");
	assert_int_equal(table(UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_NODE_DESC, rec, SA_NODE_REC_SIZE),
			 1);
	assert_int_equal(get_be64(record(0, SA_NODE_REC_SIZE) + 24), 0xc1);
	/* Two components together narrow further. */
	memset(rec, 0, sizeof(rec));
	rec[6] = NODE_TYPE_SWITCH;
	put_be64(rec + 24, 0xc1);
	assert_int_equal(table(UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_NODE_TYPE | SA_NR_COMP_PORT_GUID,
			       rec, SA_NODE_REC_SIZE), 0);

	/* Get: exactly one, else the SA's status. */
	memset(request(UMAD_METHOD_GET, UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_LID), 0, 2);
	put_be16(fx->req + SA_HDR_END, 0x30);
	assert_int_equal(send_a(), 0);
	assert_int_equal(get_be16(fx->resp + SA_OFF_ATTR_OFFSET), SA_NODE_REC_SIZE / 8);
	assert_int_equal(get_be64(fx->resp + SA_HDR_END + 24), 0xc1);
	request(UMAD_METHOD_GET, UMAD_SA_ATTR_NODE_REC, 0);
	assert_int_equal(send_a(), UMAD_SA_STATUS_TOO_MANY_RECORDS << 8);
	put_be16(request(UMAD_METHOD_GET, UMAD_SA_ATTR_NODE_REC, SA_NR_COMP_LID), 0x99);
	assert_int_equal(send_a(), UMAD_SA_STATUS_NO_RECORDS << 8);
	assert_int_equal(get_be16(fx->resp + SA_OFF_ATTR_OFFSET), 0);

	/* A port whose link goes down drops out. */
	fx->hc->ports[1].phys_state = PHYS_STATE_POLLING;
	assert_int_equal(table(UMAD_SA_ATTR_NODE_REC, 0, NULL, SA_NODE_REC_SIZE), 4);
}

/* --- PortInfoRecord ------------------------------------------------------------------------ */

static void test_port_info_records(void **state)
{
	uint8_t rec[SA_PORT_INFO_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	/* Every port of both switches (0-4), one for each HCA port. */
	assert_int_equal(table(UMAD_SA_ATTR_PORT_INFO_REC, 0, NULL, SA_PORT_INFO_REC_SIZE), 13);
	assert_int_equal(fx->resp_len, SA_HDR_END + 13 * SA_PORT_INFO_REC_SIZE);
	/* Sw1 port 2, the 1x link. */
	put_be16(rec, 1);
	rec[2] = 2;
	assert_int_equal(table(UMAD_SA_ATTR_PORT_INFO_REC, SA_PIR_COMP_LID | SA_PIR_COMP_PORT_NUM, rec,
			       SA_PORT_INFO_REC_SIZE), 1);
	r = record(0, SA_PORT_INFO_REC_SIZE);
	assert_int_equal(get_be16(r), 1);
	assert_int_equal(r[2], 2);
	assert_int_equal(get_be16(r + 4 + 16), 1);		/* PortInfo:LID, the switch's */
	assert_int_equal(r[4 + 31], LINK_WIDTH_1X);		/* LinkWidthActive */
	assert_int_equal(r[4 + 35] >> 4, LINK_SPEED_QDR);	/* LinkSpeedActive */
	assert_int_equal(r[4 + 36] >> 4, SA_MTU_1024);		/* NeighborMTU */
	assert_int_equal(r[4 + 28], 2);				/* LocalPortNum */
	/* HcaB by its second LID. */
	memset(rec, 0, sizeof(rec));
	put_be16(rec, 0x21);
	assert_int_equal(table(UMAD_SA_ATTR_PORT_INFO_REC, SA_PIR_COMP_LID, rec,
			       SA_PORT_INFO_REC_SIZE), 1);
	assert_int_equal(record(0, SA_PORT_INFO_REC_SIZE)[4 + 34] & 7, 1);	/* LMC */

	/* CapabilityMask: the value itself, or (modifier bit 31) the bits given all set. */
	memset(rec, 0, sizeof(rec));
	put_be32(rec + 4 + 20, PORT_CAP_IS_SM);
	assert_int_equal(table(UMAD_SA_ATTR_PORT_INFO_REC, SA_PIR_COMP_CAP_MASK, rec,
			       SA_PORT_INFO_REC_SIZE), 0);
	request(UMAD_SA_METHOD_GET_TABLE, UMAD_SA_ATTR_PORT_INFO_REC, SA_PIR_COMP_CAP_MASK);
	memcpy(fx->req + SA_HDR_END, rec, sizeof(rec));
	put_be32(fx->req + MAD_OFF_ATTR_MOD, SA_PIR_MOD_CAP_MASK_MATCH);
	assert_int_equal(send_a(), 0);
	assert_int_equal(n_records(SA_PORT_INFO_REC_SIZE), 1);
	assert_int_equal(get_be16(record(0, SA_PORT_INFO_REC_SIZE)), 0x10);

	/* M_Keys only for a trusted requester. */
	fx->hc->ports[1].m_key = 0x1234;
	memset(rec, 0, sizeof(rec));
	put_be16(rec, 0x30);
	assert_int_equal(table(UMAD_SA_ATTR_PORT_INFO_REC, SA_PIR_COMP_LID, rec,
			       SA_PORT_INFO_REC_SIZE), 1);
	assert_int_equal(get_be64(record(0, SA_PORT_INFO_REC_SIZE) + 4), 0);
	fx->sm_key = SA_KEY;
	assert_int_equal(table(UMAD_SA_ATTR_PORT_INFO_REC, SA_PIR_COMP_LID, rec,
			       SA_PORT_INFO_REC_SIZE), 1);
	assert_int_equal(get_be64(record(0, SA_PORT_INFO_REC_SIZE) + 4), 0x1234);
}

/* --- SMInfoRecord, SwitchInfoRecord, LinkRecord -------------------------------------------------- */

static void test_sm_info_records(void **state)
{
	uint8_t rec[SA_SM_INFO_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	assert_int_equal(table(UMAD_SA_ATTR_SM_INFO_REC, 0, NULL, SA_SM_INFO_REC_SIZE), 1);
	r = record(0, SA_SM_INFO_REC_SIZE);
	assert_int_equal(get_be16(r), 0x10);
	assert_int_equal(get_be64(r + 4), 0xa1);		/* GUID */
	assert_int_equal(get_be64(r + 12), 0);			/* SM_Key, untrusted */
	assert_int_equal(get_be32(r + 20), 42);			/* ActCount */
	assert_int_equal(r[24], 5 << 4 | 3);			/* Priority, SMState */
	fx->sm_key = SA_KEY;
	put_be16(rec, 0x10);
	assert_int_equal(table(UMAD_SA_ATTR_SM_INFO_REC, SA_NR_COMP_LID, rec, SA_SM_INFO_REC_SIZE), 1);
	assert_int_equal(get_be64(record(0, SA_SM_INFO_REC_SIZE) + 12), SA_KEY);
	/* Another port claiming IsSM is another SM. */
	fx->sw2->ports[0].capmask |= PORT_CAP_IS_SM;
	fx->sw2->sminfo.state = 1;
	assert_int_equal(table(UMAD_SA_ATTR_SM_INFO_REC, 0, NULL, SA_SM_INFO_REC_SIZE), 2);
	assert_int_equal(get_be16(record(0, SA_SM_INFO_REC_SIZE)), 0x10);
	assert_int_equal(get_be16(record(1, SA_SM_INFO_REC_SIZE)), 2);
	put_be16(rec, 0x11);
	assert_int_equal(table(UMAD_SA_ATTR_SM_INFO_REC, SA_NR_COMP_LID, rec, SA_SM_INFO_REC_SIZE), 0);
}

static void test_switch_info_records(void **state)
{
	uint8_t rec[SA_SWITCH_INFO_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	assert_int_equal(table(UMAD_SA_ATTR_SWITCH_INFO_REC, 0, NULL, SA_SWITCH_INFO_REC_SIZE), 2);
	put_be16(rec, 2);
	assert_int_equal(table(UMAD_SA_ATTR_SWITCH_INFO_REC, SA_NR_COMP_LID, rec,
			       SA_SWITCH_INFO_REC_SIZE), 1);
	r = record(0, SA_SWITCH_INFO_REC_SIZE);
	assert_int_equal(get_be16(r), 2);
	assert_int_equal(get_be16(r + 4), SIM_LFT_CAP);		/* LinearFDBCap */
	assert_int_equal(get_be16(r + 4 + 6), 0x30);		/* LinearFDBTop */
	assert_int_equal(r[4 + 11] >> 3, 18);			/* LifeTimeValue */
	/* An HCA's LID has no switch record. */
	put_be16(rec, 0x10);
	assert_int_equal(table(UMAD_SA_ATTR_SWITCH_INFO_REC, SA_NR_COMP_LID, rec,
			       SA_SWITCH_INFO_REC_SIZE), 0);
}

static void test_link_records(void **state)
{
	uint8_t rec[SA_LINK_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	/* Four links, each seen from both ends. */
	assert_int_equal(table(UMAD_SA_ATTR_LINK_REC, 0, NULL, SA_LINK_REC_SIZE), 8);
	assert_int_equal(fx->resp_len, SA_HDR_END + 8 * SA_LINK_REC_SIZE);
	put_be16(rec, 1);
	assert_int_equal(table(UMAD_SA_ATTR_LINK_REC, SA_LR_COMP_FROM_LID, rec, SA_LINK_REC_SIZE), 3);
	rec[2] = 2;
	assert_int_equal(table(UMAD_SA_ATTR_LINK_REC, SA_LR_COMP_FROM_LID | SA_LR_COMP_FROM_PORT, rec,
			       SA_LINK_REC_SIZE), 1);
	r = record(0, SA_LINK_REC_SIZE);
	assert_int_equal(get_be16(r), 1);
	assert_int_equal(r[2], 2);
	assert_int_equal(r[3], 1);
	assert_int_equal(get_be16(r + 4), 2);
	/* Into HcaB, named by its second LID. */
	memset(rec, 0, sizeof(rec));
	put_be16(rec + 4, 0x21);
	assert_int_equal(table(UMAD_SA_ATTR_LINK_REC, SA_LR_COMP_TO_LID, rec, SA_LINK_REC_SIZE), 1);
	r = record(0, SA_LINK_REC_SIZE);
	assert_int_equal(get_be16(r), 2);
	assert_int_equal(r[2], 2);
	assert_int_equal(get_be16(r + 4), 0x20);
	/* A link that goes down is gone from both ends. */
	fx->hc->ports[1].phys_state = PHYS_STATE_POLLING;
	assert_int_equal(table(UMAD_SA_ATTR_LINK_REC, 0, NULL, SA_LINK_REC_SIZE), 6);
}

/* --- PathRecord --------------------------------------------------------------------------------- */

#define PR_MTU		54
#define PR_RATE		55
#define PR_LIFE		56

/* A PathRecord query from HcaA to a port by GID, with more components; the record count. */
static size_t paths(const struct sim_port *src, const struct sim_port *dst, uint64_t more,
		    const uint8_t *extra)
{
	uint8_t rec[SA_PATH_REC_SIZE] = { 0 };

	if (extra)
		memcpy(rec, extra, sizeof(rec));
	port_gid(dst, rec + 8);
	port_gid(src, rec + 24);
	return table(UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DGID | SA_PR_COMP_SGID | more, rec,
		     SA_PATH_REC_SIZE);
}

static void collect_hop(void *arg, const struct sim_port *out, const struct sim_port *in)
{
	unsigned *hops = arg;

	(void)out;
	(void)in;
	++*hops;
}

static void test_path_records(void **state)
{
	struct sim_port *a = &fx->ha->ports[1], *b = &fx->hb->ports[1], *c = &fx->hc->ports[1];
	uint8_t rec[SA_PATH_REC_SIZE] = { 0 };
	struct sim_hop_end end;
	unsigned hops = 0;
	const uint8_t *r;

	(void)state;
	/* The walk: HcaA -> Sw1 -> Sw2 -> HcaB is three links. */
	assert_int_equal(sim_route_walk(fx->f, fx->ha, 1, 0x21, collect_hop, &hops, &end), 3);
	assert_int_equal(hops, 3);
	assert_ptr_equal(end.node, fx->hb);
	assert_int_equal(sim_route_walk(fx->f, fx->ha, 1, 0x30, NULL, NULL, &end), 2);
	assert_int_equal(sim_route_walk(fx->f, fx->ha, 1, 0x10, NULL, NULL, &end), 0);
	assert_int_equal(sim_route_walk(fx->f, fx->ha, 1, 0x44, NULL, NULL, &end), -1);

	/* A to B: the 1x link in the middle sets the rate, its MTU 1024 the MTU.  HcaB has
	 * two LIDs: two paths (the second less preferred), one when NumbPath says so. */
	assert_int_equal(paths(a, b, 0, NULL), 2);
	r = record(0, SA_PATH_REC_SIZE);
	assert_int_equal(get_be16(r + 40), 0x20);		/* DLID */
	assert_int_equal(get_be16(r + 42), 0x10);		/* SLID */
	assert_int_equal(get_be64(r + 16), 0xb1);		/* DGID's GUID */
	assert_int_equal(get_be64(r + 32), 0xa1);		/* SGID's GUID */
	assert_int_equal(r[PR_MTU], 2 << 6 | SA_MTU_1024);
	assert_int_equal(r[PR_RATE], 2 << 6 | SA_RATE_10_GBPS);
	assert_int_equal(r[PR_LIFE], 2 << 6 | a->subnet_timeout);
	assert_int_equal(get_be16(r + 50), PKEY_DEFAULT);
	assert_int_equal(get_be16(r + 52) & 0xf, 0);		/* SL */
	assert_int_equal(r[49], 0x80);				/* reversible */
	assert_int_equal(r[57], 0);				/* preference */
	assert_int_equal(get_be32(r + 44) & 0xff, 0);		/* HopLimit: inside the subnet */
	assert_int_equal(get_be16(record(1, SA_PATH_REC_SIZE) + 40), 0x21);
	assert_int_equal(record(1, SA_PATH_REC_SIZE)[57], 2);
	rec[49] = 1;
	assert_int_equal(paths(a, b, SA_PR_COMP_NUMB_PATH, rec), 1);
	/* A to C stays on 4x QDR links with MTU 4096. */
	assert_int_equal(paths(a, c, 0, NULL), 1);
	r = record(0, SA_PATH_REC_SIZE);
	assert_int_equal(r[PR_MTU] & 0x3f, SA_MTU_4096);
	assert_int_equal(r[PR_RATE] & 0x3f, SA_RATE_40_GBPS);
	/* A port to itself: lifetime 0. */
	assert_int_equal(paths(a, a, 0, NULL), 1);
	assert_int_equal(record(0, SA_PATH_REC_SIZE)[PR_LIFE] & 0x3f, 0);

	/* Selectors. */
	memset(rec, 0, sizeof(rec));
	rec[PR_MTU] = 0 << 6 | SA_MTU_1024;			/* greater than 1024: none */
	assert_int_equal(paths(a, b, SA_PR_COMP_MTU_SEL | SA_PR_COMP_MTU, rec), 0);
	rec[PR_MTU] = 1 << 6 | SA_MTU_1024;			/* less than 1024: 512 */
	assert_int_equal(paths(a, b, SA_PR_COMP_MTU_SEL | SA_PR_COMP_MTU, rec), 2);
	assert_int_equal(record(0, SA_PATH_REC_SIZE)[PR_MTU] & 0x3f, SA_MTU_512);
	rec[PR_MTU] = 2 << 6 | SA_MTU_2048;			/* exactly 2048: none */
	assert_int_equal(paths(a, b, SA_PR_COMP_MTU_SEL | SA_PR_COMP_MTU, rec), 0);
	rec[PR_MTU] = 2 << 6 | SA_MTU_2048;			/* but A to C can */
	assert_int_equal(paths(a, c, SA_PR_COMP_MTU_SEL | SA_PR_COMP_MTU, rec), 1);
	assert_int_equal(record(0, SA_PATH_REC_SIZE)[PR_MTU] & 0x3f, SA_MTU_2048);
	rec[PR_MTU] = 3 << 6 | SA_MTU_256;			/* the largest there is */
	assert_int_equal(paths(a, c, SA_PR_COMP_MTU_SEL | SA_PR_COMP_MTU, rec), 1);
	assert_int_equal(record(0, SA_PATH_REC_SIZE)[PR_MTU] & 0x3f, SA_MTU_4096);
	rec[PR_MTU] = 0;
	rec[PR_RATE] = 2 << 6 | SA_RATE_40_GBPS;
	assert_int_equal(paths(a, b, SA_PR_COMP_RATE_SEL | SA_PR_COMP_RATE, rec), 0);
	assert_int_equal(paths(a, c, SA_PR_COMP_RATE_SEL | SA_PR_COMP_RATE, rec), 1);
	rec[PR_RATE] = 1 << 6 | SA_RATE_10_GBPS;		/* less than 10: 5 */
	assert_int_equal(paths(a, b, SA_PR_COMP_RATE_SEL | SA_PR_COMP_RATE, rec), 2);
	assert_int_equal(record(0, SA_PATH_REC_SIZE)[PR_RATE] & 0x3f, SA_RATE_5_GBPS);
	rec[PR_RATE] = 0 << 6 | SA_RATE_20_GBPS;		/* more than 20 */
	assert_int_equal(paths(a, b, SA_PR_COMP_RATE_SEL | SA_PR_COMP_RATE, rec), 0);
	assert_int_equal(paths(a, c, SA_PR_COMP_RATE_SEL | SA_PR_COMP_RATE, rec), 1);
	rec[PR_RATE] = 0;
	rec[PR_LIFE] = 1 << 6 | 5;				/* lifetime below 5: 4 */
	assert_int_equal(paths(a, c, SA_PR_COMP_PKT_LIFE_SEL | SA_PR_COMP_PKT_LIFE, rec), 1);
	assert_int_equal(record(0, SA_PATH_REC_SIZE)[PR_LIFE] & 0x3f, 4);
	/* Only a selector without its value is ignored. */
	rec[PR_LIFE] = 0 << 6 | 60;
	assert_int_equal(paths(a, c, SA_PR_COMP_PKT_LIFE_SEL, rec), 1);

	/* By LIDs instead of GIDs. */
	memset(rec, 0, sizeof(rec));
	put_be16(rec + 40, 0x21);
	put_be16(rec + 42, 0x10);
	assert_int_equal(table(UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DLID | SA_PR_COMP_SLID, rec,
			       SA_PATH_REC_SIZE), 1);
	assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 40), 0x21);
	put_be16(rec + 40, 0x44);
	assert_int_equal(table(UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DLID | SA_PR_COMP_SLID, rec,
			       SA_PATH_REC_SIZE), 0);
	/* A GID nobody has. */
	memset(rec, 0, sizeof(rec));
	put_be64(rec + 8, GID_PREFIX_LINK_LOCAL);
	put_be64(rec + 16, 0xdead);
	port_gid(a, rec + 24);
	request(UMAD_SA_METHOD_GET_TABLE, UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DGID | SA_PR_COMP_SGID);
	memcpy(fx->req + SA_HDR_END, rec, sizeof(rec));
	assert_int_equal(send_a(), UMAD_SA_STATUS_INVALID_GID << 8);
	assert_int_equal(fx->resp_len, MAD_SIZE);

	/* Get: the first path only, as libibmad's GUID look-up asks. */
	memset(rec, 0, sizeof(rec));
	port_gid(b, rec + 8);
	port_gid(a, rec + 24);
	request(UMAD_METHOD_GET, UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DGID | SA_PR_COMP_SGID);
	memcpy(fx->req + SA_HDR_END, rec, sizeof(rec));
	assert_int_equal(send_a(), 0);
	assert_int_equal(get_be16(fx->resp + SA_HDR_END + 40), 0x20);

	/*
	 * An SL mapped to VL15 on the way cannot be used; SL 0 still can.  The
	 * table that counts is the one of the ports the path crosses the switch
	 * by: into Sw2 by port 1, out by port 2.
	 */
	memset(rec, 0, sizeof(rec));
	put_be16(rec + 52, 3);
	assert_int_equal(sim_port_sl2vl_set(&fx->sw2->ports[2], 3,
					    sim_sl2vl_with(fx->sw2->ports[2].sl2vl, 3, LRH_VL_SMP)), 0);
	assert_int_equal(paths(a, b, SA_PR_COMP_SL, rec), 2);
	assert_int_equal(sim_port_sl2vl_set(&fx->sw2->ports[2], 1,
					    sim_port_sl2vl(&fx->sw2->ports[2], 3)), 0);
	assert_int_equal(paths(a, b, SA_PR_COMP_SL, rec), 0);
	assert_int_equal(paths(a, c, SA_PR_COMP_SL, rec), 1);
	assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 52), 3);

	/* P_Keys: both ends must share the one asked for, or one at all. */
	fx->hb->ports[1].pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	fx->hb->ports[1].pkeys[0] = 0x8001;
	assert_int_equal(paths(a, b, 0, NULL), 0);
	fx->hb->ports[1].pkeys[1] = 0x7fff;			/* limited: A is full, fine */
	assert_int_equal(paths(a, b, 0, NULL), 2);
	assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 50), PKEY_DEFAULT);
	memset(rec, 0, sizeof(rec));
	put_be16(rec + 50, 0x8001);
	assert_int_equal(paths(a, b, SA_PR_COMP_PKEY, rec), 0);

	/* No route: a hole in the LFT; a path that leads only one way is not reversible. */
	fx->sw1->sw->lft[0x10] = SIM_LFT_NO_ROUTE;
	assert_int_equal(paths(a, c, 0, NULL), 1);
	assert_int_equal(record(0, SA_PATH_REC_SIZE)[49], 0);
	memset(rec, 0, sizeof(rec));
	rec[49] = 0x80;
	assert_int_equal(paths(a, c, SA_PR_COMP_REVERSIBLE, rec), 0);
	fx->sw1->sw->lft[0x30] = SIM_LFT_NO_ROUTE;
	assert_int_equal(paths(a, c, 0, NULL), 0);
}

/* Every path between every pair of end ports: an answer of many MADs, its length exact. */
static void test_long_answer(void **state)
{
	size_t n;

	(void)state;
	/* Six LIDs (HcaB has two): 36 LID pairs, every one routed both ways. */
	n = table(UMAD_SA_ATTR_PATH_REC, 0, NULL, SA_PATH_REC_SIZE);
	assert_int_equal(n, 36);
	assert_int_equal(fx->resp_len, SA_HDR_END + 36 * SA_PATH_REC_SIZE);
	assert_true(fx->resp_len - SA_HDR_END > 11 * SA_DATA_SIZE);	/* twelve segments */
	/* The header is the first MAD's: status and AttributeOffset in place. */
	assert_int_equal(mad_status(fx->resp), 0);
	assert_int_equal(get_be16(fx->resp + SA_OFF_ATTR_OFFSET), SA_PATH_REC_SIZE / 8);
	/* The last record is whole: a path back to HcaC from itself. */
	assert_int_equal(get_be16(record(35, SA_PATH_REC_SIZE) + 40), 0x30);
	assert_int_equal(get_be16(record(35, SA_PATH_REC_SIZE) + 42), 0x30);
	/* A Get of the same is too many. */
	request(UMAD_METHOD_GET, UMAD_SA_ATTR_PATH_REC, 0);
	assert_int_equal(send_a(), UMAD_SA_STATUS_TOO_MANY_RECORDS << 8);
}

/* --- MCMemberRecord ------------------------------------------------------------------------------- */

#define MCR(field)	offsetof(struct umad_sa_mcmember_record, field)
#define JOIN_MASK	(UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID | \
			 UMAD_SA_MCM_COMP_MASK_JOIN_STATE)
#define CREATE_MASK	(JOIN_MASK | UMAD_SA_MCM_COMP_MASK_QKEY | UMAD_SA_MCM_COMP_MASK_TCLASS | \
			 UMAD_SA_MCM_COMP_MASK_PKEY | UMAD_SA_MCM_COMP_MASK_FLOW_LABEL | \
			 UMAD_SA_MCM_COMP_MASK_SL)

static void bcast_mgid(uint8_t *mgid)
{
	put_be64(mgid, IPOIB_BCAST_MGID_HIGH);
	put_be64(mgid + 8, IPOIB_BCAST_MGID_LOW);
}

/* A join (Set) or leave (Delete) of port p to mgid in fx->req; the record, to fill in more. */
static uint8_t *member_request(uint8_t method, const uint8_t *mgid, const struct sim_port *p,
			       uint8_t state, uint64_t more)
{
	uint8_t *d = request(method, UMAD_SA_ATTR_MCMEMBER_REC, JOIN_MASK | more);

	memcpy(d + MCR(mgid), mgid, 16);
	port_gid(p, d + MCR(portgid));
	d[MCR(scope_state)] = state;
	if (more & UMAD_SA_MCM_COMP_MASK_QKEY)
		put_be32(d + MCR(qkey), 0x1111);
	if (more & UMAD_SA_MCM_COMP_MASK_PKEY)
		put_be16(d + MCR(pkey), PKEY_DEFAULT);
	return d;
}

/* Join (Set) or leave (Delete) port p to mgid, sent by `from`: the status. */
static int member(uint8_t method, const uint8_t *mgid, const struct sim_port *p, uint8_t state,
		  uint64_t more, const struct sim_sa_requester *from)
{
	member_request(method, mgid, p, state, more);
	return send_from(from);
}

/* The JoinState of the last answer. */
static uint8_t answered_state(void)
{
	return fx->resp[SA_HDR_END + MCR(scope_state)] & 0xf;
}

static const struct hook_call *last_call(void)
{
	assert_true(fx->n_calls > 0);
	return &fx->calls[(fx->n_calls - 1) % 32];
}

static void test_mcast_broadcast(void **state)
{
	uint8_t mgid[16];
	const uint8_t *r;

	(void)state;
	/* The IPoIB broadcast group is there from the start, at the first multicast LID. */
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 1);
	r = record(0, SA_MCMEMBER_REC_SIZE);
	bcast_mgid(mgid);
	assert_memory_equal(r + MCR(mgid), mgid, 16);
	assert_int_equal(get_be16(r + MCR(mlid)), LID_MCAST_START);
	assert_int_equal(get_be32(r + MCR(qkey)), IPOIB_QKEY);
	assert_int_equal(get_be16(r + MCR(pkey)), PKEY_DEFAULT);
	assert_int_equal(r[MCR(mtu)], 2 << 6 | SA_MTU_2048);
	assert_int_equal(r[MCR(scope_state)] >> 4, UMAD_SA_MCM_ADDR_SCOPE_LINK_LOCAL);
	assert_int_equal(sim_sa_mcast_members(fx->sa, LID_MCAST_START, NULL, 0), 0);

	/* Joins: each calls the hook with the whole membership. */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	r = fx->resp + SA_HDR_END;
	assert_int_equal(get_be16(r + MCR(mlid)), LID_MCAST_START);
	assert_int_equal(get_be32(r + MCR(qkey)), IPOIB_QKEY);
	assert_int_equal(r[MCR(scope_state)] & 0xf, UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER);
	assert_int_equal(get_be64(r + MCR(portgid) + 8), 0xa1);
	assert_int_equal(fx->n_calls, 1);
	assert_int_equal(last_call()->mlid, LID_MCAST_START);
	assert_int_equal(last_call()->n, 1);
	assert_ptr_equal(last_call()->members[0], &fx->ha->ports[1]);
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(last_call()->n, 2);
	assert_ptr_equal(last_call()->members[1], &fx->hb->ports[1]);
	/* The same join again changes nothing: no call. */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(fx->n_calls, 2);

	/* Untrusted, one record per group, no members shown; trusted, one per member. */
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 1);
	assert_int_equal(get_be64(record(0, SA_MCMEMBER_REC_SIZE) + MCR(portgid) + 8), 0);
	fx->sm_key = SA_KEY;
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 2);
	assert_int_equal(get_be64(record(1, SA_MCMEMBER_REC_SIZE) + MCR(portgid) + 8), 0xb1);
	assert_int_equal(record(1, SA_MCMEMBER_REC_SIZE)[MCR(scope_state)] & 0xf,
			 UMAD_SA_MCM_JOIN_STATE_NON_MEMBER);
	{
		uint8_t rec[SA_MCMEMBER_REC_SIZE] = { 0 };

		rec[MCR(scope_state)] = UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER;
		assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, UMAD_SA_MCM_COMP_MASK_JOIN_STATE,
				       rec, SA_MCMEMBER_REC_SIZE), 1);
		assert_int_equal(get_be64(record(0, SA_MCMEMBER_REC_SIZE) + MCR(portgid) + 8), 0xa1);
	}
	fx->sm_key = 0;
	{
		struct sim_port *out[4];

		assert_int_equal(sim_sa_mcast_members(fx->sa, LID_MCAST_START, out, 4), 2);
		assert_ptr_equal(out[0], &fx->ha->ports[1]);
	}

	/* Leaves: a state the member does not have, someone else's membership: refused. */
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_b),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_a),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(fx->n_calls, 2);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(mad_method(fx->resp), UMAD_SA_METHOD_DELETE_RESP);
	assert_int_equal(last_call()->n, 1);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	assert_int_equal(last_call()->n, 0);
	assert_int_equal(last_call()->mlid, LID_MCAST_START);
	/* The broadcast group stays without members. */
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 1);
}

static void test_mcast_create(void **state)
{
	uint8_t zero[16] = { 0 }, mgid[16], mgid2[16];
	const uint8_t *r;

	(void)state;
	/* Joining a group that does not exist needs every component creation takes. */
	memset(mgid, 0, sizeof(mgid));
	mgid[0] = 0xff;
	mgid[1] = 0x12;
	mgid[15] = 7;
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_c),
			 UMAD_SA_STATUS_INSUF_COMPS << 8);
	/* Only a full member creates. */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), UMAD_SA_STATUS_REQ_INVALID << 8);
	/* Not a multicast GID: an invalid request (opensm's status), not an invalid GID. */
	mgid[0] = 0xfe;
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), UMAD_SA_STATUS_REQ_INVALID << 8);
	mgid[0] = 0xff;
	/* A join without the JoinState component. */
	request(UMAD_METHOD_SET, UMAD_SA_ATTR_MCMEMBER_REC,
		UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID);
	assert_int_equal(send_from(&fx->from_c), UMAD_SA_STATUS_INSUF_COMPS << 8);
	assert_int_equal(fx->n_calls, 0);

	/* Created by HcaC, at the next MLID, with HcaC's MTU and rate. */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), 0);
	r = fx->resp + SA_HDR_END;
	assert_int_equal(get_be16(r + MCR(mlid)), LID_MCAST_START + 1);
	assert_int_equal(get_be32(r + MCR(qkey)), 0x1111);
	assert_int_equal(r[MCR(mtu)], 2 << 6 | SA_MTU_4096);
	assert_int_equal(r[MCR(rate)], 2 << 6 | SA_RATE_40_GBPS);
	assert_int_equal(last_call()->mlid, LID_MCAST_START + 1);
	assert_int_equal(last_call()->n, 1);
	assert_ptr_equal(last_call()->members[0], &fx->hc->ports[1]);
	/* HcaB joins as a send-only non-member: its own port carries MTU 4096 and 40 Gb/s. */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(last_call()->n, 2);
	/* A component that disagrees with the group: refused. */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, UMAD_SA_MCM_COMP_MASK_QKEY,
				&fx->from_a), 0);
	{
		uint8_t *d = request(UMAD_METHOD_SET, UMAD_SA_ATTR_MCMEMBER_REC,
				     JOIN_MASK | UMAD_SA_MCM_COMP_MASK_QKEY);

		memcpy(d + MCR(mgid), mgid, 16);
		port_gid(&fx->ha->ports[1], d + MCR(portgid));
		d[MCR(scope_state)] = UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER;
		put_be32(d + MCR(qkey), 0x2222);
		assert_int_equal(send_a(), UMAD_SA_STATUS_REQ_INVALID << 8);
	}

	/* The SA makes up an MGID when given none, and MLIDs are the lowest free ones. */
	assert_int_equal(member(UMAD_METHOD_SET, zero, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_a), 0);
	r = fx->resp + SA_HDR_END;
	memcpy(mgid2, r + MCR(mgid), 16);
	assert_int_equal(mgid2[0], 0xff);
	assert_int_equal(get_be16(mgid2 + 2), MGID_SIGNATURE_SA);
	assert_int_equal(get_be16(r + MCR(mlid)), LID_MCAST_START + 2);
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 3);

	/* The last member leaving removes the group; its MLID is free again. */
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_c), 0);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(last_call()->n, 1);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	assert_int_equal(last_call()->mlid, LID_MCAST_START + 1);
	assert_int_equal(last_call()->n, 0);
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 2);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	mgid[15] = 8;
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), 0);
	assert_int_equal(get_be16(fx->resp + SA_HDR_END + MCR(mlid)), LID_MCAST_START + 1);

	/* A path to a group: its MLID and parameters. */
	{
		uint8_t rec[SA_PATH_REC_SIZE] = { 0 };

		memcpy(rec + 8, mgid, 16);
		assert_int_equal(table(UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DGID, rec, SA_PATH_REC_SIZE),
				 1);
		assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 40), LID_MCAST_START + 1);
		assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 42), 0x10);
	}
}

static void test_mcast_proxy_and_caps(void **state)
{
	uint8_t mgid[16];

	(void)state;
	bcast_mgid(mgid);
	/* HcaA joins HcaB (a proxy join: they share the default partition). */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	fx->sm_key = SA_KEY;
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 1);
	assert_int_equal(record(0, SA_MCMEMBER_REC_SIZE)[MCR(proxy_join)] & 0x80, 0x80);
	fx->sm_key = 0;
	/* A proxy membership may be ended from any port of the partition. */
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_c), 0);
	/* A port slower than the group cannot join it. */
	fx->hc->ports[1].width_active = LINK_WIDTH_1X;
	fx->hc->ports[1].speed_active = LINK_SPEED_SDR;
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_c),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	/* A port outside the group's partition neither. */
	fx->ha->ports[1].pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	fx->ha->ports[1].pkeys[0] = 0x8001;
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	/* A PortGID of another subnet. */
	{
		uint8_t *d = request(UMAD_METHOD_SET, UMAD_SA_ATTR_MCMEMBER_REC, JOIN_MASK);

		memcpy(d + MCR(mgid), mgid, 16);
		put_be64(d + MCR(portgid), 0xfec0000000000000ULL);
		put_be64(d + MCR(portgid) + 8, 0xb1);
		d[MCR(scope_state)] = UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER;
		assert_int_equal(send_from(&fx->from_b), UMAD_SA_STATUS_INVALID_GID << 8);
	}
}

/* --- the table records ---------------------------------------------------------------------------- */

static void test_guid_info_records(void **state)
{
	uint8_t rec[SA_GUID_INFO_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	/* One block of eight per end port. */
	assert_int_equal(table(UMAD_SA_ATTR_GUID_INFO_REC, 0, NULL, SA_GUID_INFO_REC_SIZE), 5);
	fx->hb->ports[1].alias_guids = calloc(SIM_GUID_CAP, sizeof(uint64_t));
	fx->hb->ports[1].alias_guids[1] = 0xbeef;
	put_be16(rec, 0x21);
	assert_int_equal(table(UMAD_SA_ATTR_GUID_INFO_REC, SA_NR_COMP_LID, rec,
			       SA_GUID_INFO_REC_SIZE), 1);
	r = record(0, SA_GUID_INFO_REC_SIZE);
	assert_int_equal(get_be16(r), 0x20);
	assert_int_equal(r[2], 0);			/* BlockNum */
	assert_int_equal(get_be64(r + 8), 0xb1);	/* GUID 0: the port GUID */
	assert_int_equal(get_be64(r + 16), 0xbeef);
	/* A switch's: its node GUID. */
	put_be16(rec, 1);
	assert_int_equal(table(UMAD_SA_ATTR_GUID_INFO_REC, SA_NR_COMP_LID, rec,
			       SA_GUID_INFO_REC_SIZE), 1);
	assert_int_equal(get_be64(record(0, SA_GUID_INFO_REC_SIZE) + 8), 0x1000);
	/* By a GUID (component GID1). */
	memset(rec, 0, sizeof(rec));
	put_be64(rec + 16, 0xbeef);
	assert_int_equal(table(UMAD_SA_ATTR_GUID_INFO_REC, UINT64_C(1) << 5, rec,
			       SA_GUID_INFO_REC_SIZE), 1);
	/* An alias GUID names the port in a PathRecord too. */
	{
		uint8_t pr[SA_PATH_REC_SIZE] = { 0 };

		put_be64(pr + 8, GID_PREFIX_LINK_LOCAL);
		put_be64(pr + 16, 0xbeef);
		port_gid(&fx->ha->ports[1], pr + 24);
		pr[49] = 1;
		assert_int_equal(table(UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DGID | SA_PR_COMP_SGID |
				       SA_PR_COMP_NUMB_PATH, pr, SA_PATH_REC_SIZE), 1);
		assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 40), 0x20);
		assert_int_equal(get_be64(record(0, SA_PATH_REC_SIZE) + 16), 0xbeef);
	}
}

static void test_pkey_table_records(void **state)
{
	uint8_t rec[SA_PKEY_TABLE_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	/* Only for the trusted, as opensm (osmtest expects the refusal). */
	put_be16(request(UMAD_SA_METHOD_GET_TABLE, UMAD_SA_ATTR_PKEY_TABLE_REC, SA_NR_COMP_LID), 0x10);
	assert_int_equal(send_a(), UMAD_SA_STATUS_REQ_INVALID << 8);
	fx->sm_key = SA_KEY;
	/* HcaA: 64 entries, two blocks; the default P_Key first. */
	put_be16(rec, 0x10);
	assert_int_equal(table(UMAD_SA_ATTR_PKEY_TABLE_REC, SA_NR_COMP_LID, rec,
			       SA_PKEY_TABLE_REC_SIZE), 2);
	r = record(0, SA_PKEY_TABLE_REC_SIZE);
	assert_int_equal(get_be16(r + 2), 0);			/* BlockNum */
	assert_int_equal(r[4], 1);				/* PortNum */
	assert_int_equal(get_be16(r + 8), PKEY_DEFAULT);
	assert_int_equal(get_be16(r + 10), 0);
	assert_int_equal(get_be16(record(1, SA_PKEY_TABLE_REC_SIZE) + 2), 1);
	/* Sw1: port 0's two blocks, one per external port (enforcement cap 32). */
	put_be16(rec, 1);
	assert_int_equal(table(UMAD_SA_ATTR_PKEY_TABLE_REC, SA_NR_COMP_LID, rec,
			       SA_PKEY_TABLE_REC_SIZE), 2 + 4);
	/* Sw1 port 3, block 0: BlockNum and PortNum components. */
	put_be16(rec + 2, 0);
	rec[4] = 3;
	assert_int_equal(table(UMAD_SA_ATTR_PKEY_TABLE_REC, SA_NR_COMP_LID | UINT64_C(1) << 1 |
			       UINT64_C(1) << 2, rec, SA_PKEY_TABLE_REC_SIZE), 1);
	assert_int_equal(record(0, SA_PKEY_TABLE_REC_SIZE)[4], 3);
	/* A table an SM wrote. */
	fx->hc->ports[1].pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	fx->hc->ports[1].pkeys[0] = PKEY_DEFAULT;
	fx->hc->ports[1].pkeys[33] = 0x8123;
	memset(rec, 0, sizeof(rec));
	put_be16(rec, 0x30);
	put_be16(rec + 2, 1);
	assert_int_equal(table(UMAD_SA_ATTR_PKEY_TABLE_REC, SA_NR_COMP_LID | UINT64_C(1) << 1, rec,
			       SA_PKEY_TABLE_REC_SIZE), 1);
	assert_int_equal(get_be16(record(0, SA_PKEY_TABLE_REC_SIZE) + 8 + 2), 0x8123);
}

static void test_slvl_records(void **state)
{
	uint8_t rec[SA_SLVL_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	/* An HCA port: one table, port numbers 0. */
	put_be16(rec, 0x30);
	assert_int_equal(table(UMAD_SA_ATTR_SLVL_REC, SA_NR_COMP_LID, rec, SA_SLVL_REC_SIZE), 1);
	r = record(0, SA_SLVL_REC_SIZE);
	assert_int_equal(r[2], 0);
	assert_int_equal(r[3], 0);
	assert_int_equal(r[8], 0 << 4 | 1);			/* SL0 -> VL0, SL1 -> VL1 */
	assert_int_equal(r[12], 0 << 4 | 1);			/* SL8 -> VL0, SL9 -> VL1 */
	/* A switch: one per (input, output) pair of its five ports. */
	put_be16(rec, 2);
	assert_int_equal(table(UMAD_SA_ATTR_SLVL_REC, SA_NR_COMP_LID, rec, SA_SLVL_REC_SIZE), 25);
	/* Each pair its own table: SL 0 on VL 3 from input port 1 to output port 2 only. */
	assert_int_equal(sim_port_sl2vl_set(&fx->sw2->ports[2], 1,
					    sim_sl2vl_with(fx->sw2->ports[2].sl2vl, 0, 3)), 0);
	rec[2] = 1;
	rec[3] = 2;
	assert_int_equal(table(UMAD_SA_ATTR_SLVL_REC, SA_NR_COMP_LID | UINT64_C(1) << 1 |
			       UINT64_C(1) << 2, rec, SA_SLVL_REC_SIZE), 1);
	assert_int_equal(record(0, SA_SLVL_REC_SIZE)[8] >> 4, 3);
	rec[2] = 0;
	assert_int_equal(table(UMAD_SA_ATTR_SLVL_REC, SA_NR_COMP_LID | UINT64_C(1) << 1 |
			       UINT64_C(1) << 2, rec, SA_SLVL_REC_SIZE), 1);
	assert_int_equal(record(0, SA_SLVL_REC_SIZE)[8] >> 4, 0);
	/* All of them: 1 + 1 + 1 for the HCAs, 25 per switch. */
	assert_int_equal(table(UMAD_SA_ATTR_SLVL_REC, 0, NULL, SA_SLVL_REC_SIZE), 53);
}

static void test_vl_arb_records(void **state)
{
	uint8_t rec[SA_VL_ARB_REC_SIZE] = { 0 }, *d;
	const uint8_t *r;

	(void)state;
	/* Blocks 1-4 of every port, whatever the caps (8 entries here), as opensm answers. */
	put_be16(rec, 0x10);
	assert_int_equal(table(UMAD_SA_ATTR_VL_ARB_REC, SA_NR_COMP_LID, rec, SA_VL_ARB_REC_SIZE), 4);
	assert_int_equal(record(0, SA_VL_ARB_REC_SIZE)[3], 1);
	assert_int_equal(record(3, SA_VL_ARB_REC_SIZE)[3], 4);
	fx->ha->ports[1].vlarb = calloc(4, sizeof(*fx->ha->ports[1].vlarb));
	fx->ha->ports[1].vlarb[2][1][0] = 5;
	fx->ha->ports[1].vlarb[2][1][1] = 200;
	rec[3] = 3;
	assert_int_equal(table(UMAD_SA_ATTR_VL_ARB_REC, SA_NR_COMP_LID | UINT64_C(1) << 2, rec,
			       SA_VL_ARB_REC_SIZE), 1);
	r = record(0, SA_VL_ARB_REC_SIZE);
	assert_int_equal(r[2], 1);			/* OutputPortNum */
	assert_int_equal(r[8 + 2], 5);			/* entry 1: VL */
	assert_int_equal(r[8 + 3], 200);		/* weight */
	/* An end node's LID names its port: port 0 (or its other port) asks for that one. */
	rec[2] = 0;
	assert_int_equal(table(UMAD_SA_ATTR_VL_ARB_REC, SA_NR_COMP_LID | UINT64_C(1) << 1 |
			       UINT64_C(1) << 2, rec, SA_VL_ARB_REC_SIZE), 1);
	assert_int_equal(record(0, SA_VL_ARB_REC_SIZE)[2], 1);
	assert_int_equal(record(0, SA_VL_ARB_REC_SIZE)[8 + 3], 200);
	rec[2] = 2;
	d = request(UMAD_METHOD_GET, UMAD_SA_ATTR_VL_ARB_REC, SA_NR_COMP_LID | UINT64_C(1) << 1 |
		    UINT64_C(1) << 2);
	memcpy(d, rec, sizeof(rec));
	assert_int_equal(send_a(), 0);
	assert_int_equal(fx->resp[SA_HDR_END + 2], 1);
	/* Any port number, even one the node does not have (opensm answers so); block 5: none. */
	d[2] = 0xff;
	assert_int_equal(send_a(), 0);
	assert_int_equal(fx->resp[SA_HDR_END + 2], 1);
	d[3] = 5;
	assert_int_equal(send_a(), UMAD_SA_STATUS_NO_RECORDS << 8);
	/* A switch: all its ports, port 0 too (a base one here), four blocks each. */
	memset(rec, 0, sizeof(rec));
	put_be16(rec, 1);
	assert_int_equal(table(UMAD_SA_ATTR_VL_ARB_REC, SA_NR_COMP_LID, rec, SA_VL_ARB_REC_SIZE),
			 5 * 4);
	assert_int_equal(record(0, SA_VL_ARB_REC_SIZE)[2], 0);
	rec[2] = 4;
	rec[3] = 2;
	assert_int_equal(table(UMAD_SA_ATTR_VL_ARB_REC, SA_NR_COMP_LID | UINT64_C(1) << 1 |
			       UINT64_C(1) << 2, rec, SA_VL_ARB_REC_SIZE), 1);
	assert_int_equal(record(0, SA_VL_ARB_REC_SIZE)[2], 4);
	/* A port the switch does not have: none. */
	rec[2] = 5;
	assert_int_equal(table(UMAD_SA_ATTR_VL_ARB_REC, SA_NR_COMP_LID | UINT64_C(1) << 1 |
			       UINT64_C(1) << 2, rec, SA_VL_ARB_REC_SIZE), 0);
}

static void test_forwarding_table_records(void **state)
{
	uint8_t rec[SA_MFT_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	/* LFTs: LinearFDBTop 0x30: block 0 of each switch. */
	assert_int_equal(table(UMAD_SA_ATTR_LINEAR_FT_REC, 0, NULL, SA_LFT_REC_SIZE), 2);
	route(fx->sw2, 0x45, 1);
	put_be16(rec, 2);
	assert_int_equal(table(UMAD_SA_ATTR_LINEAR_FT_REC, SA_NR_COMP_LID, rec, SA_LFT_REC_SIZE), 2);
	r = record(1, SA_LFT_REC_SIZE);
	assert_int_equal(get_be16(r + 2), 1);			/* BlockNum */
	assert_int_equal(r[8 + 5], 1);				/* LID 0x45 */
	assert_int_equal(r[8 + 6], SIM_LFT_NO_ROUTE);
	assert_int_equal(record(0, SA_LFT_REC_SIZE)[8 + 0x20], 2);
	put_be16(rec + 2, 1);
	assert_int_equal(table(UMAD_SA_ATTR_LINEAR_FT_REC, SA_NR_COMP_LID | UINT64_C(1) << 1, rec,
			       SA_LFT_REC_SIZE), 1);

	/* MFTs: none until one is written; then the blocks in use. */
	assert_int_equal(table(UMAD_SA_ATTR_MCAST_FT_REC, 0, NULL, SA_MFT_REC_SIZE), 0);
	fx->sw1->sw->mft = calloc(SIM_MFT_CAP, sizeof(*fx->sw1->sw->mft));
	fx->sw1->sw->mft[33][0] = 0x000a;			/* MLID 0xc021: ports 1, 3 */
	assert_int_equal(table(UMAD_SA_ATTR_MCAST_FT_REC, 0, NULL, SA_MFT_REC_SIZE), 1);
	r = record(0, SA_MFT_REC_SIZE);
	assert_int_equal(get_be16(r), 1);
	assert_int_equal(get_be16(r + 2) & 0x1ff, 1);		/* BlockNum */
	assert_int_equal(get_be16(r + 2) >> 12, 0);		/* Position */
	assert_int_equal(get_be16(r + 8 + 2), 0x000a);
	memset(rec, 0, sizeof(rec));
	put_be16(rec + 2, 2);					/* block 2: nothing */
	assert_int_equal(table(UMAD_SA_ATTR_MCAST_FT_REC, UINT64_C(1) << 3, rec, SA_MFT_REC_SIZE), 0);
	put_be16(rec + 2, 1);
	assert_int_equal(table(UMAD_SA_ATTR_MCAST_FT_REC, UINT64_C(1) << 3, rec, SA_MFT_REC_SIZE), 1);
}

/* --- MultiPathRecord ------------------------------------------------------------------------------- */

#define MPR_NUMB_PATH	5
#define MPR_SGID_COUNT	15
#define MPR_DGID_COUNT	16
#define MPR_GIDS	24
#define MPR_COUNTS	(UINT64_C(1) << 19 | UINT64_C(1) << 20)
#define MPR_COMP_NUMB_PATH	(UINT64_C(1) << 6)
#define MPR_MAX_SEGMENTS	3

static uint8_t mpr_gids[2 * 255][GID_SIZE];

/*
 * A MultiPathRecord request from HcaA with ns source and nd destination
 * GIDs from mpr_gids, over as many segments as they take; method is
 * GetMulti but for the refusals.  The answer's status; its records are
 * PathRecords, the header checked.
 */
static int multipath(uint8_t method, uint64_t mask, unsigned numb_path, unsigned ns, unsigned nd)
{
	static uint8_t req[SA_HDR_END + MPR_MAX_SEGMENTS * SA_DATA_SIZE];
	size_t data = MPR_GIDS + (size_t)(ns + nd) * GID_SIZE, len;
	int r;

	assert_true(data <= MPR_MAX_SEGMENTS * SA_DATA_SIZE);
	len = SA_HDR_END + (data <= SA_DATA_SIZE ? SA_DATA_SIZE :
			    (data + SA_DATA_SIZE - 1) / SA_DATA_SIZE * SA_DATA_SIZE);
	request(method, UMAD_SA_ATTR_MULTI_PATH_REC, mask);
	memset(req, 0, sizeof(req));
	memcpy(req, fx->req, SA_HDR_END);
	req[SA_HDR_END + MPR_NUMB_PATH] = (uint8_t)numb_path;
	req[SA_HDR_END + MPR_SGID_COUNT] = (uint8_t)ns;
	req[SA_HDR_END + MPR_DGID_COUNT] = (uint8_t)nd;
	memcpy(req + SA_HDR_END + MPR_GIDS, mpr_gids, (size_t)(ns + nd) * GID_SIZE);
	free(fx->resp);
	fx->resp = NULL;
	r = sim_sa_process(fx->sa, &fx->from_a, req, len, &fx->resp, &fx->resp_len);
	assert_int_equal(r, 1);
	assert_int_equal(mad_method(fx->resp), method | UMAD_METHOD_RESP_MASK);
	assert_int_equal(mad_attr_id(fx->resp), UMAD_SA_ATTR_PATH_REC);
	assert_int_equal(mad_tid(fx->resp), 0xabcd0001);
	if (mad_status(fx->resp)) {
		/* An error: one MAD, the request's first data echoed. */
		assert_int_equal(fx->resp_len, MAD_SIZE);
		assert_memory_equal(fx->resp + SA_HDR_END, req + SA_HDR_END, SA_DATA_SIZE);
		return mad_status(fx->resp);
	}
	assert_int_equal(get_be16(fx->resp + SA_OFF_ATTR_OFFSET) * 8,
			 fx->resp_len > SA_HDR_END ? SA_PATH_REC_SIZE : 0);
	assert_int_equal((fx->resp_len - SA_HDR_END) % SA_PATH_REC_SIZE, 0);
	return 0;
}

static size_t mpr_records(void)
{
	return (fx->resp_len - SA_HDR_END) / SA_PATH_REC_SIZE;
}

/* The PathRecords of a GetMulti, as opensm answers osmtest's (flows a and v). */
static void test_multipath_records(void **state)
{
	const uint8_t *r;
	unsigned i;

	(void)state;
	/* HcaA to itself: one loopback path. */
	port_gid(&fx->ha->ports[1], mpr_gids[0]);
	port_gid(&fx->ha->ports[1], mpr_gids[1]);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 1), 0);
	assert_int_equal(mpr_records(), 1);
	r = record(0, SA_PATH_REC_SIZE);
	assert_memory_equal(r + 8, mpr_gids[1], GID_SIZE);	/* DGID */
	assert_memory_equal(r + 24, mpr_gids[0], GID_SIZE);	/* SGID */
	assert_int_equal(get_be16(r + 40), 0x10);
	assert_int_equal(get_be16(r + 42), 0x10);
	assert_int_equal(r[49] >> 7, 1);			/* reversible */
	/* To HcaB, whose LMC 1 gives two LIDs: two paths, or as many as NumbPath says. */
	port_gid(&fx->hb->ports[1], mpr_gids[1]);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 1), 0);
	assert_int_equal(mpr_records(), 2);
	assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 40), 0x20);
	assert_int_equal(get_be16(record(1, SA_PATH_REC_SIZE) + 40), 0x21);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS | MPR_COMP_NUMB_PATH, 1,
				   1, 1), 0);
	assert_int_equal(mpr_records(), 1);
	/* Every source to every destination, sources first; NumbPath caps the whole answer. */
	port_gid(&fx->hc->ports[1], mpr_gids[1]);
	port_gid(&fx->ha->ports[1], mpr_gids[2]);
	port_gid(&fx->hc->ports[1], mpr_gids[3]);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 2, 2), 0);
	assert_int_equal(mpr_records(), 4);
	assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 40), 0x10);	/* A -> A */
	assert_int_equal(get_be16(record(1, SA_PATH_REC_SIZE) + 40), 0x30);	/* A -> C */
	assert_int_equal(get_be16(record(2, SA_PATH_REC_SIZE) + 42), 0x30);	/* C -> A */
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS | MPR_COMP_NUMB_PATH, 3,
				   2, 2), 0);
	assert_int_equal(mpr_records(), 3);
	/* A link-local prefix with other bits set names the port too (osmtest asks so). */
	mpr_gids[1][7] = 0xff;
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 1), 0);
	assert_int_equal(mpr_records(), 1);
	assert_int_equal(get_be64(record(0, SA_PATH_REC_SIZE) + 8), GID_PREFIX_LINK_LOCAL);

	/* Many GIDs: a request of two segments, all of them read. */
	for (i = 0; i < 16; i++)
		port_gid(i % 2 ? &fx->hc->ports[1] : &fx->ha->ports[1], mpr_gids[i]);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 8, 8), 0);
	assert_int_equal(mpr_records(), 64);
	assert_int_equal(get_be16(record(63, SA_PATH_REC_SIZE) + 42), 0x30);	/* C -> C */
	assert_int_equal(get_be16(record(63, SA_PATH_REC_SIZE) + 40), 0x30);

	/* The refusals osmtest expects, with opensm's statuses. */
	port_gid(&fx->ha->ports[1], mpr_gids[0]);
	port_gid(&fx->hc->ports[1], mpr_gids[1]);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, 0, 0, 1, 1),
			 UMAD_SA_STATUS_INSUF_COMPS << 8);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, UINT64_C(1) << 19, 0, 1, 1),
			 UMAD_SA_STATUS_INSUF_COMPS << 8);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 0, 1),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 0),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	/* More GIDs than the request holds (one MAD: eleven). */
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 6, 5), 0);
	{
		static uint8_t req[MAD_SIZE];

		memcpy(req, fx->req, MAD_SIZE);
		req[SA_HDR_END + MPR_SGID_COUNT] = 6;
		req[SA_HDR_END + MPR_DGID_COUNT] = 6;
		free(fx->resp);
		assert_int_equal(sim_sa_process(fx->sa, &fx->from_a, req, MAD_SIZE, &fx->resp,
						&fx->resp_len), 1);
		assert_int_equal(mad_status(fx->resp), UMAD_SA_STATUS_REQ_INVALID << 8);
	}
	/* A multicast DGID or SGID, a GUID nobody has, a site-local prefix: ERR_REQ_INVALID_GID. */
	put_be64(mpr_gids[1], 0xff12401bffff0000ULL);
	put_be64(mpr_gids[1] + 8, 0xffffffffULL);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 1),
			 UMAD_SA_STATUS_INVALID_GID << 8);
	memcpy(mpr_gids[0], mpr_gids[1], GID_SIZE);
	port_gid(&fx->hc->ports[1], mpr_gids[1]);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 1),
			 UMAD_SA_STATUS_INVALID_GID << 8);
	port_gid(&fx->ha->ports[1], mpr_gids[0]);
	put_be64(mpr_gids[1] + 8, 0xdead);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 1),
			 UMAD_SA_STATUS_INVALID_GID << 8);
	port_gid(&fx->hc->ports[1], mpr_gids[1]);
	mpr_gids[1][1] = 0xc0;
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_MULTI, MPR_COUNTS, 0, 1, 1),
			 UMAD_SA_STATUS_INVALID_GID << 8);
	/* Get and GetTable of MultiPathRecords: refused. */
	port_gid(&fx->hc->ports[1], mpr_gids[1]);
	assert_int_equal(multipath(UMAD_METHOD_GET, MPR_COUNTS, 0, 1, 1),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(multipath(UMAD_SA_METHOD_GET_TABLE, MPR_COUNTS, 0, 1, 1),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
}

/* PathRecord ends by GID as opensm finds them: any link-local prefix; another subnet's none. */
static void test_path_gid_scope(void **state)
{
	uint8_t rec[SA_PATH_REC_SIZE] = { 0 };

	(void)state;
	port_gid(&fx->hc->ports[1], rec + 8);
	port_gid(&fx->ha->ports[1], rec + 24);
	rec[8 + 7] = 0xff;
	assert_int_equal(table(UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DGID | SA_PR_COMP_SGID, rec,
			       SA_PATH_REC_SIZE), 1);
	assert_int_equal(get_be16(record(0, SA_PATH_REC_SIZE) + 40), 0x30);
	/* Site-local: off this subnet, no path (and no error). */
	port_gid(&fx->hc->ports[1], rec + 8);
	rec[8 + 1] = 0xc0;
	assert_int_equal(table(UMAD_SA_ATTR_PATH_REC, SA_PR_COMP_DGID | SA_PR_COMP_SGID, rec,
			       SA_PATH_REC_SIZE), 0);
}

/* --- ServiceRecord ----------------------------------------------------------------------------------- */

#define SR_P_KEY	24
#define SR_LEASE	28
#define SR_KEY		32
#define SR_NAME		48

/* Register (Set) or delete a service of HcaB's: the status. */
static int service(uint8_t method, uint64_t id, const char *name, uint32_t lease, uint64_t more)
{
	uint8_t *d = request(method, UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_ID | SA_SR_COMP_GID | more);

	put_be64(d, id);
	port_gid(&fx->hb->ports[1], d + 8);
	put_be16(d + SR_P_KEY, PKEY_DEFAULT);
	if (name)
		strcpy((char *)d + SR_NAME, name);
	put_be32(d + SR_LEASE, lease);
	return send_from(&fx->from_b);
}

static void test_service_records(void **state)
{
	uint8_t rec[SA_SERVICE_REC_SIZE] = { 0 };
	const uint8_t *r;

	(void)state;
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, 0, NULL, SA_SERVICE_REC_SIZE), 0);
	/* Register: the answer is the record, P_Key and lease filled in. */
	assert_int_equal(service(UMAD_METHOD_SET, 0x1001, "svc-one", 0, SA_SR_COMP_NAME), 0);
	assert_int_equal(mad_method(fx->resp), UMAD_METHOD_GET_RESP);
	r = fx->resp + SA_HDR_END;
	assert_int_equal(get_be64(r), 0x1001);
	assert_int_equal(get_be16(r + 24), PKEY_DEFAULT);
	assert_int_equal(get_be32(r + SR_LEASE), SA_SERVICE_LEASE_INFINITE);
	assert_int_equal(service(UMAD_METHOD_SET, 0x1002, "svc-two", 10,
				 SA_SR_COMP_NAME | SA_SR_COMP_LEASE), 0);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, 0, NULL, SA_SERVICE_REC_SIZE), 2);
	/* By name, by ID, by GID. */
	strcpy((char *)rec + SR_NAME, "svc-two");
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_NAME, rec, SA_SERVICE_REC_SIZE),
			 1);
	r = record(0, SA_SERVICE_REC_SIZE);
	assert_int_equal(get_be64(r), 0x1002);
	assert_true(get_be32(r + SR_LEASE) <= 10 && get_be32(r + SR_LEASE) >= 9);
	memset(rec, 0, sizeof(rec));
	put_be64(rec, 0x1003);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_ID, rec, SA_SERVICE_REC_SIZE), 0);
	port_gid(&fx->hb->ports[1], rec + 8);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_GID, rec, SA_SERVICE_REC_SIZE), 2);
	/* Registering the same key again replaces it. */
	assert_int_equal(service(UMAD_METHOD_SET, 0x1001, "svc-one-again", 0, SA_SR_COMP_NAME), 0);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, 0, NULL, SA_SERVICE_REC_SIZE), 2);
	strcpy((char *)rec + SR_NAME, "svc-one-again");
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_NAME, rec, SA_SERVICE_REC_SIZE),
			 1);
	/* A lease runs out. */
	sim_sa_age(fx->sa, 11);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, 0, NULL, SA_SERVICE_REC_SIZE), 1);
	/* Get: one. */
	memset(request(UMAD_METHOD_GET, UMAD_SA_ATTR_SERVICE_REC, 0), 0, 1);
	assert_int_equal(send_a(), 0);
	assert_int_equal(get_be64(fx->resp + SA_HDR_END), 0x1001);
	/* Delete answers with what it removed; a second time there is nothing. */
	assert_int_equal(service(UMAD_SA_METHOD_DELETE, 0x1001, NULL, 0, 0), 0);
	assert_int_equal(mad_method(fx->resp), UMAD_SA_METHOD_DELETE_RESP);
	assert_string_equal((const char *)fx->resp + SA_HDR_END + SR_NAME, "svc-one-again");
	assert_int_equal(service(UMAD_SA_METHOD_DELETE, 0x1001, NULL, 0, 0),
			 UMAD_SA_STATUS_NO_RECORDS << 8);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, 0, NULL, SA_SERVICE_REC_SIZE), 0);
	/* Register without the GID, or with one nobody has. */
	put_be64(request(UMAD_METHOD_SET, UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_ID), 0x1004);
	assert_int_equal(send_from(&fx->from_b), UMAD_SA_STATUS_INSUF_COMPS << 8);
	{
		uint8_t *d = request(UMAD_METHOD_SET, UMAD_SA_ATTR_SERVICE_REC,
				     SA_SR_COMP_ID | SA_SR_COMP_GID);

		put_be64(d, 0x1004);
		put_be64(d + 8, GID_PREFIX_LINK_LOCAL);
		put_be64(d + 16, 0xdead);
		assert_int_equal(send_from(&fx->from_b), UMAD_SA_STATUS_REQ_INVALID << 8);
		/* A node GUID is not a CA port's. */
		put_be64(d + 16, fx->hb->node_guid);
		assert_int_equal(send_from(&fx->from_b), UMAD_SA_STATUS_REQ_INVALID << 8);
	}
}

/*
 * opensm's ServiceGID rule, which osmtest's service flow needs: the port
 * by its GUID under any prefix (osmtest's is in host byte order), the GID
 * kept as given; a multicast GID is taken too.  The ServiceKey goes back to
 * the trusted only; a Delete names the service by its record's ID, GID and
 * P_Key, whatever its components.
 */
static void test_service_gid_rule(void **state)
{
	uint8_t rec[SA_SERVICE_REC_SIZE] = { 0 }, *d;
	const uint64_t swapped = 0x80feULL;	/* fe80:: read as a little-endian number */

	(void)state;
	d = request(UMAD_METHOD_SET, UMAD_SA_ATTR_SERVICE_REC,
		    SA_SR_COMP_ID | SA_SR_COMP_GID | SA_SR_COMP_KEY | SA_SR_COMP_NAME);
	put_be64(d, 0x2001);
	put_be64(d + 8, swapped);
	put_be64(d + 16, fx->hb->ports[1].guid);
	d[SR_KEY] = 0x0b;
	strcpy((char *)d + SR_NAME, "osmt.srvc");
	assert_int_equal(send_from(&fx->from_b), 0);
	assert_int_equal(get_be64(fx->resp + SA_HDR_END + 8), swapped);
	assert_int_equal(fx->resp[SA_HDR_END + SR_KEY], 0);		/* untrusted */
	/* Found by the GID as given, not by the port's own. */
	port_gid(&fx->hb->ports[1], rec + 8);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_GID, rec, SA_SERVICE_REC_SIZE), 0);
	memset(rec, 0, sizeof(rec));
	put_be64(rec + 8, swapped);
	put_be64(rec + 16, fx->hb->ports[1].guid);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_GID, rec, SA_SERVICE_REC_SIZE),
			 1);
	assert_int_equal(record(0, SA_SERVICE_REC_SIZE)[SR_KEY], 0);
	fx->sm_key = SA_KEY;
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_GID, rec, SA_SERVICE_REC_SIZE),
			 1);
	assert_int_equal(record(0, SA_SERVICE_REC_SIZE)[SR_KEY], 0x0b);
	fx->sm_key = 0;
	/* Another site's prefix, a switch's GUID, a multicast GID: taken. */
	d = request(UMAD_METHOD_SET, UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_ID | SA_SR_COMP_GID);
	put_be64(d, 0x2002);
	put_be64(d + 8, 0xfec0000000000000ULL);
	put_be64(d + 16, fx->ha->ports[1].guid);
	assert_int_equal(send_from(&fx->from_b), 0);
	put_be64(d + 8, GID_PREFIX_LINK_LOCAL);
	put_be64(d + 16, fx->sw2->node_guid);
	assert_int_equal(send_from(&fx->from_b), 0);
	put_be64(d + 8, 0xff12401bffff0000ULL);
	put_be64(d + 16, 0xffffffffULL);
	assert_int_equal(send_from(&fx->from_b), 0);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, 0, NULL, SA_SERVICE_REC_SIZE), 4);
	/* A zero GID: refused. */
	put_be64(request(UMAD_METHOD_SET, UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_ID | SA_SR_COMP_GID),
		 0x2003);
	assert_int_equal(send_from(&fx->from_b), UMAD_SA_STATUS_REQ_INVALID << 8);
	/* Delete by name, with the record a Get found (its key blank): gone. */
	memset(rec, 0, sizeof(rec));
	strcpy((char *)rec + SR_NAME, "osmt.srvc");
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_NAME, rec, SA_SERVICE_REC_SIZE),
			 1);
	memcpy(rec, record(0, SA_SERVICE_REC_SIZE), sizeof(rec));
	memcpy(request(UMAD_SA_METHOD_DELETE, UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_NAME), rec,
	       sizeof(rec));
	assert_int_equal(send_from(&fx->from_b), 0);
	assert_int_equal(table(UMAD_SA_ATTR_SERVICE_REC, 0, NULL, SA_SERVICE_REC_SIZE), 3);
	/* The same ID and GID under another P_Key is another service: not deleted. */
	put_be16(rec + SR_P_KEY, 0);
	memcpy(request(UMAD_SA_METHOD_DELETE, UMAD_SA_ATTR_SERVICE_REC, SA_SR_COMP_NAME), rec,
	       sizeof(rec));
	assert_int_equal(send_from(&fx->from_b), UMAD_SA_STATUS_NO_RECORDS << 8);
}

/* --- InformInfo, Reports ------------------------------------------------------------------------------- */

#define II_GID		0
#define II_LID_BEGIN	16
#define II_LID_END	18
#define II_IS_GENERIC	22
#define II_SUBSCRIBE	23
#define II_TYPE		24
#define II_TRAP		26
#define II_PRODUCER	33

/* Subscribe (or not) the requester to a generic trap from any issuer: the status. */
static int subscribe(const struct sim_sa_requester *from, uint16_t trap, uint8_t on)
{
	uint8_t *d = request(UMAD_METHOD_SET, UMAD_ATTR_INFORM_INFO, 0);

	put_be16(d + II_LID_BEGIN, SA_INFORM_ANY);
	d[II_IS_GENERIC] = 1;
	d[II_SUBSCRIBE] = on;
	put_be16(d + II_TYPE, SA_INFORM_ANY);
	put_be16(d + II_TRAP, trap);
	put_be24(d + II_PRODUCER, SA_INFORM_ANY_PRODUCER);
	return send_from(from);
}

/* A generic notice from `issuer`. */
static void notice(uint8_t *ntc, uint16_t trap, uint16_t issuer)
{
	memset(ntc, 0, NOTICE_SMP_SIZE);
	ntc[NOTICE_OFF_GENERIC_TYPE] = NOTICE_GENERIC | 4;		/* informational */
	put_be24(ntc + NOTICE_OFF_PRODUCER, 2);			/* a switch */
	put_be16(ntc + NOTICE_OFF_TRAP_NUM, trap);
	put_be16(ntc + NOTICE_OFF_ISSUER_LID, issuer);
	ntc[NOTICE_OFF_DETAILS] = 0x42;
}

static void test_inform(void **state)
{
	uint8_t ntc[NOTICE_SMP_SIZE], rec[SA_INFORM_INFO_REC_SIZE] = { 0 };
	const uint8_t *m;

	(void)state;
	/* HcaB wants trap 128, HcaC trap 64. */
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_LINK_STATE_CHANGED_TRAP, 1), 0);
	assert_int_equal(mad_method(fx->resp), UMAD_METHOD_GET_RESP);
	assert_int_equal(fx->resp[SA_HDR_END + II_SUBSCRIBE], 1);	/* echoed */
	assert_int_equal(subscribe(&fx->from_c, UMAD_SM_GID_IN_SERVICE_TRAP, 1), 0);

	notice(ntc, UMAD_SM_LINK_STATE_CHANGED_TRAP, 2);
	assert_int_equal(sim_sa_notice(fx->sa, ntc), 1);
	assert_int_equal(fx->n_reports, 1);
	assert_int_equal(fx->reports[0].lid, 0x20);
	assert_int_equal(fx->reports[0].qpn, 5);
	m = fx->reports[0].mad;
	assert_int_equal(m[MAD_OFF_BASE_VERSION], 1);
	assert_int_equal(mad_class(m), UMAD_CLASS_SUBN_ADM);
	assert_int_equal(m[MAD_OFF_CLASS_VERSION], UMAD_SA_CLASS_VERSION);
	assert_int_equal(mad_method(m), UMAD_METHOD_REPORT);
	assert_int_equal(mad_attr_id(m), UMAD_ATTR_NOTICE);
	assert_memory_equal(m + SA_HDR_END, ntc, NOTICE_SMP_SIZE);
	/* The IssuerGID, from the issuer's LID: Sw2. */
	assert_int_equal(get_be64(m + SA_HDR_END + NOTICE_OFF_ISSUER_GID), GID_PREFIX_LINK_LOCAL);
	assert_int_equal(get_be64(m + SA_HDR_END + NOTICE_OFF_ISSUER_GID + 8), 0x2000);
	/* Another trap: nobody wants it. */
	notice(ntc, UMAD_SM_LINK_INTEGRITY_THRESHOLD_TRAP, 2);
	assert_int_equal(sim_sa_notice(fx->sa, ntc), 0);
	assert_int_equal(fx->n_reports, 1);

	/* InformInfoRecords list the subscriptions; by subscriber GID, one. */
	assert_int_equal(table(UMAD_SA_ATTR_INFORM_INFO_REC, 0, NULL, SA_INFORM_INFO_REC_SIZE), 2);
	port_gid(&fx->hc->ports[1], rec);
	assert_int_equal(table(UMAD_SA_ATTR_INFORM_INFO_REC, SA_IIR_COMP_SUBSCRIBER_GID, rec,
			       SA_INFORM_INFO_REC_SIZE), 1);
	assert_int_equal(get_be16(record(0, SA_INFORM_INFO_REC_SIZE) + 24 + II_TRAP),
			 UMAD_SM_GID_IN_SERVICE_TRAP);
	assert_int_equal(get_be24(record(0, SA_INFORM_INFO_REC_SIZE) + 24 + 28), 7);	/* QPN */

	/* A LID range: only notices from issuers inside it. */
	{
		uint8_t *d = request(UMAD_METHOD_SET, UMAD_ATTR_INFORM_INFO, 0);

		put_be16(d + II_LID_BEGIN, 1);
		put_be16(d + II_LID_END, 1);
		d[II_IS_GENERIC] = 1;
		d[II_SUBSCRIBE] = 1;
		put_be16(d + II_TYPE, SA_INFORM_ANY);
		put_be16(d + II_TRAP, UMAD_SM_LOCAL_CHANGES_TRAP);
		put_be24(d + II_PRODUCER, SA_INFORM_ANY_PRODUCER);
		assert_int_equal(send_a(), 0);
	}
	notice(ntc, UMAD_SM_LOCAL_CHANGES_TRAP, 2);
	assert_int_equal(sim_sa_notice(fx->sa, ntc), 0);
	notice(ntc, UMAD_SM_LOCAL_CHANGES_TRAP, 1);
	assert_int_equal(sim_sa_notice(fx->sa, ntc), 1);
	assert_int_equal(fx->reports[1].lid, 0x10);

	/* Unsubscribe: no more Reports; a second time is refused with Subscribe 0. */
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_LINK_STATE_CHANGED_TRAP, 0), 0);
	notice(ntc, UMAD_SM_LINK_STATE_CHANGED_TRAP, 2);
	assert_int_equal(sim_sa_notice(fx->sa, ntc), 0);
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_LINK_STATE_CHANGED_TRAP, 0),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(fx->resp[SA_HDR_END + II_SUBSCRIBE], 0);
	/* Security traps need a trusted subscriber. */
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_BAD_PKEY_TRAP, 1),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(fx->resp[SA_HDR_END + II_SUBSCRIBE], 0);
	fx->sm_key = SA_KEY;
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_BAD_PKEY_TRAP, 1), 0);
	fx->sm_key = 0;
	/* Subscribe values above 1 are undefined. */
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_BAD_PKEY_TRAP, 2),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	/* InformInfo itself cannot be read. */
	request(UMAD_METHOD_GET, UMAD_ATTR_INFORM_INFO, 0);
	assert_int_equal(send_a(), UMAD_STATUS_ATTR_NOT_SUPPORTED);
}

/* Groups made and gone are traps 66 and 67 to whoever subscribed. */
static void test_mcast_traps(void **state)
{
	uint8_t mgid[16] = { 0xff, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9 };
	const uint8_t *ntc;

	(void)state;
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_MGID_CREATED_TRAP, 1), 0);
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_MGID_DESTROYED_TRAP, 1), 0);
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), 0);
	assert_int_equal(fx->n_reports, 1);
	ntc = fx->reports[0].mad + SA_HDR_END;
	assert_int_equal(get_be16(ntc + NOTICE_OFF_TRAP_NUM), UMAD_SM_MGID_CREATED_TRAP);
	assert_int_equal(get_be16(ntc + NOTICE_OFF_ISSUER_LID), 0x10);
	assert_memory_equal(ntc + NOTICE_OFF_DETAILS + TRAP64_OFF_GID, mgid, 16);
	/* A second member: no trap. */
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	assert_int_equal(fx->n_reports, 1);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_c), 0);
	assert_int_equal(fx->n_reports, 2);
	ntc = fx->reports[1].mad + SA_HDR_END;
	assert_int_equal(get_be16(ntc + NOTICE_OFF_TRAP_NUM), UMAD_SM_MGID_DESTROYED_TRAP);
	assert_true(get_be64(fx->reports[1].mad + MAD_OFF_TID) !=
		    get_be64(fx->reports[0].mad + MAD_OFF_TID));
}

/* Groups under IPoIB's signatures agree with their partition's broadcast group. */
static void test_mcast_ipoib_rule(void **state)
{
	uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x12,
			     0x34 };
	uint8_t *d;

	(void)state;
	/* mcast_storm's creation: the Q_Key is not the broadcast group's. */
	d = member_request(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK);
	put_be32(d + MCR(qkey), 0x80010000);
	assert_int_equal(send_from(&fx->from_c), UMAD_SA_STATUS_REQ_INVALID << 8);
	/* IPv6's signature too, and the SL (TClass, FlowLabel, HopLimit, P_Key) as well. */
	mgid[2] = 0x60;
	d = member_request(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK);
	put_be32(d + MCR(qkey), IPOIB_QKEY);
	d[MCR(sl_flow_hop)] = 1 << 4;
	assert_int_equal(send_from(&fx->from_c), UMAD_SA_STATUS_REQ_INVALID << 8);
	d = member_request(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK);
	put_be32(d + MCR(qkey), IPOIB_QKEY);
	assert_int_equal(send_from(&fx->from_c), 0);
	assert_int_equal(get_be32(fx->resp + SA_HDR_END + MCR(qkey)), IPOIB_QKEY);
	/* Site-local: no broadcast group of that scope. */
	mgid[1] = 0x15;
	d = member_request(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK);
	put_be32(d + MCR(qkey), IPOIB_QKEY);
	assert_int_equal(send_from(&fx->from_c), UMAD_SA_STATUS_REQ_INVALID << 8);
	/* Another partition's link: refused until its broadcast group exists, then held to it. */
	mgid[1] = 0x12;
	mgid[2] = 0x40;
	mgid[4] = 0x80;
	mgid[5] = 0x01;
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), UMAD_SA_STATUS_REQ_INVALID << 8);
	memcpy(mgid + 10, (const uint8_t[]){ 0, 0, 0xff, 0xff, 0xff, 0xff }, 6);
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), 0);
	mgid[15] = 7;
	d = member_request(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK);
	put_be32(d + MCR(qkey), IPOIB_QKEY);
	assert_int_equal(send_from(&fx->from_c), UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, CREATE_MASK & ~JOIN_MASK,
				&fx->from_c), 0);
}

/*
 * A group lives while it has a full member: the last one leaving takes the
 * others with it (the broadcast group stays, empty).  Answers carry the
 * JoinState the member has after the request.
 */
static void test_mcast_group_life(void **state)
{
	uint8_t mgid[16] = { 0xff, 0x15, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t bcast[16];

	(void)state;
	bcast_mgid(bcast);
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_MGID_CREATED_TRAP, 1), 0);
	assert_int_equal(subscribe(&fx->from_b, UMAD_SM_MGID_DESTROYED_TRAP, 1), 0);
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_FULL_MEMBER,
				CREATE_MASK & ~JOIN_MASK, &fx->from_c), 0);
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(member(UMAD_METHOD_SET, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(answered_state(), UMAD_SA_MCM_JOIN_STATE_NON_MEMBER |
			 UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(answered_state(), UMAD_SA_MCM_JOIN_STATE_NON_MEMBER);
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 2);
	/* The creator, the one full member, leaves: the group ends, HcaB's membership with it. */
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hc->ports[1],
				UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_FULL_MEMBER, 0, &fx->from_c), 0);
	assert_int_equal(answered_state(), 0);
	assert_int_equal(last_call()->mlid, LID_MCAST_START + 1);
	assert_int_equal(last_call()->n, 0);
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 1);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, mgid, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	assert_int_equal(fx->n_reports, 2);

	/* The broadcast group: its first full member and its last are traps 66 and 67 too. */
	assert_int_equal(member(UMAD_METHOD_SET, bcast, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b), 0);
	assert_int_equal(fx->n_reports, 2);
	assert_int_equal(member(UMAD_METHOD_SET, bcast, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	assert_int_equal(fx->n_reports, 3);
	assert_int_equal(get_be16(fx->reports[2].mad + SA_HDR_END + NOTICE_OFF_TRAP_NUM),
			 UMAD_SM_MGID_CREATED_TRAP);
	assert_int_equal(member(UMAD_METHOD_SET, bcast, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_a), 0);
	assert_int_equal(answered_state(), UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER |
			 UMAD_SA_MCM_JOIN_STATE_NON_MEMBER);
	/* Without a full member left, a member keeps nothing. */
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, bcast, &fx->ha->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	assert_int_equal(answered_state(), 0);
	assert_int_equal(fx->n_reports, 4);
	assert_int_equal(get_be16(fx->reports[3].mad + SA_HDR_END + NOTICE_OFF_TRAP_NUM),
			 UMAD_SM_MGID_DESTROYED_TRAP);
	assert_int_equal(sim_sa_mcast_members(fx->sa, LID_MCAST_START, NULL, 0), 0);
	assert_int_equal(last_call()->mlid, LID_MCAST_START);
	assert_int_equal(last_call()->n, 0);
	assert_int_equal(table(UMAD_SA_ATTR_MCMEMBER_REC, 0, NULL, SA_MCMEMBER_REC_SIZE), 1);
	assert_int_equal(member(UMAD_SA_METHOD_DELETE, bcast, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
}

/* Rates compare by the data they carry: 30 Gb/s of SDR 12x is less than 25 of EDR 1x. */
static void test_mcast_rate_order(void **state)
{
	uint8_t mgid[16] = { 0xff, 0x15, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
	uint8_t *d;

	(void)state;
	/* HcaC runs 4x QDR, 40 Gb/s: less than 25 is 30, less than 40 is 28. */
	d = member_request(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, (CREATE_MASK & ~JOIN_MASK) |
			   UMAD_SA_MCM_COMP_MASK_RATE_SEL | UMAD_SA_MCM_COMP_MASK_RATE);
	d[MCR(rate)] = UMAD_SA_SELECTOR_LESS_THAN << 6 | SA_RATE_25_GBPS;
	assert_int_equal(send_from(&fx->from_c), 0);
	assert_int_equal(fx->resp[SA_HDR_END + MCR(rate)] & 0x3f, SA_RATE_30_GBPS);
	mgid[15] = 3;
	d = member_request(UMAD_METHOD_SET, mgid, &fx->hc->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, (CREATE_MASK & ~JOIN_MASK) |
			   UMAD_SA_MCM_COMP_MASK_RATE_SEL | UMAD_SA_MCM_COMP_MASK_RATE);
	d[MCR(rate)] = UMAD_SA_SELECTOR_LESS_THAN << 6 | SA_RATE_40_GBPS;
	assert_int_equal(send_from(&fx->from_c), 0);
	assert_int_equal(fx->resp[SA_HDR_END + MCR(rate)] & 0x3f, SA_RATE_28_GBPS);
	/* Joining the 30 Gb/s group asking for more than 25: refused; less than 25: taken. */
	mgid[15] = 2;
	d = member_request(UMAD_METHOD_SET, mgid, &fx->ha->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_NON_MEMBER,
			   UMAD_SA_MCM_COMP_MASK_RATE_SEL | UMAD_SA_MCM_COMP_MASK_RATE);
	d[MCR(rate)] = UMAD_SA_SELECTOR_GREATER_THAN << 6 | SA_RATE_25_GBPS;
	assert_int_equal(send_a(), UMAD_SA_STATUS_REQ_INVALID << 8);
	d = member_request(UMAD_METHOD_SET, mgid, &fx->ha->ports[1],
			   UMAD_SA_MCM_JOIN_STATE_NON_MEMBER,
			   UMAD_SA_MCM_COMP_MASK_RATE_SEL | UMAD_SA_MCM_COMP_MASK_RATE);
	d[MCR(rate)] = UMAD_SA_SELECTOR_LESS_THAN << 6 | SA_RATE_25_GBPS;
	assert_int_equal(send_a(), 0);
}

/* A join for another port takes a partition both are in, one of them as a full member. */
static void test_mcast_proxy_partition(void **state)
{
	uint8_t bcast[16];

	(void)state;
	bcast_mgid(bcast);
	fx->ha->ports[1].pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	fx->hb->ports[1].pkeys = calloc(SIM_PKEY_TABLE_SIZE, sizeof(uint16_t));
	fx->ha->ports[1].pkeys[0] = pkey_partition(PKEY_DEFAULT);
	fx->hb->ports[1].pkeys[0] = pkey_partition(PKEY_DEFAULT);
	/* Both limited members of the default partition: no join for each other. */
	assert_int_equal(member(UMAD_METHOD_SET, bcast, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	/* Nor with the SM_Key. */
	fx->sm_key = SA_KEY;
	assert_int_equal(member(UMAD_METHOD_SET, bcast, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a),
			 UMAD_SA_STATUS_REQ_INVALID << 8);
	fx->sm_key = 0;
	/* A full member of it may. */
	fx->ha->ports[1].pkeys[0] = PKEY_DEFAULT;
	assert_int_equal(member(UMAD_METHOD_SET, bcast, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0, &fx->from_a), 0);
	/* Its own join it may make as a limited member. */
	assert_int_equal(member(UMAD_METHOD_SET, bcast, &fx->hb->ports[1],
				UMAD_SA_MCM_JOIN_STATE_NON_MEMBER, 0, &fx->from_b), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_class_port_info),
		T(test_front_door),
		T(test_node_records),
		T(test_port_info_records),
		T(test_sm_info_records),
		T(test_switch_info_records),
		T(test_link_records),
		T(test_path_records),
		T(test_multipath_records),
		T(test_path_gid_scope),
		T(test_long_answer),
		T(test_mcast_broadcast),
		T(test_mcast_create),
		T(test_mcast_proxy_and_caps),
		T(test_mcast_ipoib_rule),
		T(test_mcast_group_life),
		T(test_mcast_rate_order),
		T(test_mcast_proxy_partition),
		T(test_guid_info_records),
		T(test_pkey_table_records),
		T(test_slvl_records),
		T(test_vl_arb_records),
		T(test_forwarding_table_records),
		T(test_service_records),
		T(test_service_gid_rule),
		T(test_inform),
		T(test_mcast_traps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
