/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The attribute and record layouts of base/mad_layout.h: every list
 * covers its body from where it starts to where it ends, field after
 * field with no gap and no overlap; a record's carrier field is exactly
 * as wide as the attribute it carries; records end where the SA's record
 * sizes say (padded to 8 bytes); the layouts agree with the public
 * structs where those exist (ClassPortInfo, MCMemberRecord and its
 * ComponentMask bits); the ComponentMask bits derived from the lists are
 * the spec's.  And mad_get()/mad_set() on every field of every list, on a
 * body full of other bits, against a bit-by-bit reading.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_layout.h"
#include <infiniband/umad_sa_mcm.h>

struct named_field {
	const char *name;
	mad_field_t f;
};

struct layout {
	const char *name;
	const struct named_field *fields;
	size_t n;
	unsigned start_byte, end_byte;	/* where the list must start and end */
};

#define NAMED(name, byte, bit, bits)	{ #name, name },
#define LIST(NAME, from, to) \
	static const struct named_field NAME##_list[] = { NAME##_FIELDS(NAMED) }; \
	static const struct layout NAME##_layout = { #NAME, NAME##_list, \
		sizeof(NAME##_list) / sizeof(NAME##_list[0]), (from), (to) }

/* Each list and the bytes it spans (an entry list: the first entry's). */
LIST(NODE_DESC, 0, 64);
LIST(NODE_INFO, 0, 40);
LIST(PORT_INFO, 0, 64);
LIST(SWITCH_INFO, 0, 20);
LIST(GUID_INFO, 0, 64);
LIST(PKEY_TABLE, 0, 2);
LIST(VL_ARB_TABLE, 0, VL_ARB_ENTRY_SIZE);
LIST(LFT_BLOCK, 0, 1);
LIST(MFT_BLOCK, 0, 2);
LIST(SM_INFO, 0, 21);
LIST(LED_INFO, 0, 4);
LIST(PORT_INFO_EXTENDED, 0, SMP_DATA_SIZE);
LIST(MLNX_EXT_PORT_INFO, 0, SMP_DATA_SIZE);
LIST(MLNX_GENERAL_INFO, 0, 128);
LIST(NOTICE, 0, NOTICE_SIZE);
LIST(CLASS_PORT_INFO, 0, sizeof(struct umad_class_port_info));
LIST(NODE_RECORD, 0, 108);
LIST(PORT_INFO_RECORD, 0, 68);
LIST(SWITCH_INFO_RECORD, 0, 24);
LIST(SM_INFO_RECORD, 0, 25);
LIST(LINK_RECORD, 0, 6);
LIST(GUID_INFO_RECORD, 0, SA_GUID_INFO_REC_SIZE);
LIST(PKEY_TABLE_RECORD, 0, SA_PKEY_TABLE_REC_SIZE);
LIST(SL2VL_RECORD, 0, SA_SLVL_REC_SIZE);
LIST(VL_ARB_RECORD, 0, SA_VL_ARB_REC_SIZE);
LIST(LFT_RECORD, 0, SA_LFT_REC_SIZE);
LIST(MFT_RECORD, 0, SA_MFT_REC_SIZE);
LIST(PATH_RECORD, 0, SA_PATH_REC_SIZE);
LIST(MULTI_PATH_RECORD, 0, SA_MULTI_PATH_REC_HEAD + GID_SIZE);
LIST(MCMEMBER_RECORD, 0, 52);
LIST(MGID, 0, 16);
LIST(IPOIB_MGID, 0, 16);
LIST(GID, 0, 16);
LIST(SERVICE_RECORD, 0, SA_SERVICE_REC_SIZE);
LIST(INFORM_INFO, 0, SA_INFORM_INFO_SIZE);
LIST(INFORM_INFO_RECORD, 0, 60);
LIST(PMA_HEAD, 0, 4);
LIST(PORT_COUNTERS, 4, 44);
LIST(PORT_COUNTERS_EXT, 4, 184);
LIST(PORT_RCV_ERROR_DETAILS, 4, 16);
LIST(PORT_XMIT_DISCARD_DETAILS, 4, 12);
LIST(PORT_OP_RCV_COUNTERS, 4, 12);
LIST(PORT_FLOW_CTL_COUNTERS, 4, 12);
LIST(PORT_VL_SL_COUNTERS, 4, 6);
LIST(PORT_SAMPLES_CONTROL, 2, 80);
LIST(PORT_SAMPLES_RESULT, 0, 4 + 4 * PMA_SAMPLE_COUNTERS);
LIST(CONGESTION_INFO, 0, 3);
LIST(CONGESTION_KEY_INFO, 0, 14);
LIST(CONGESTION_LOG, 0, 2);
LIST(CONGESTION_LOG_SWITCH, 2, 40 + CC_LOG_SWITCH_EVENTS * CC_LOG_SWITCH_EVENT_SIZE);
LIST(CONGESTION_LOG_SWITCH_EVENT, 40, 40 + CC_LOG_SWITCH_EVENT_SIZE);
LIST(CONGESTION_LOG_CA, 2, 12 + CC_LOG_CA_EVENTS * CC_LOG_CA_EVENT_SIZE);
LIST(CONGESTION_LOG_CA_EVENT, 12, 12 + CC_LOG_CA_EVENT_SIZE);
LIST(SWITCH_CONGESTION_SETTING, 0, 76);
LIST(SWITCH_PORT_CONGESTION_SETTING, 0, CC_PORT_SETTING_SIZE);
LIST(CA_CONGESTION_SETTING, 0, 4 + CC_CA_ENTRIES * CC_CA_ENTRY_SIZE);
LIST(CA_CONGESTION_ENTRY, 4, 4 + CC_CA_ENTRY_SIZE);
LIST(CONGESTION_CONTROL_TABLE, 0, 6);
LIST(CC_TIMESTAMP, 0, 4);

static const struct layout *const layouts[] = {
	&NODE_DESC_layout, &NODE_INFO_layout, &PORT_INFO_layout, &SWITCH_INFO_layout,
	&GUID_INFO_layout, &PKEY_TABLE_layout, &VL_ARB_TABLE_layout, &LFT_BLOCK_layout,
	&MFT_BLOCK_layout, &SM_INFO_layout, &LED_INFO_layout, &PORT_INFO_EXTENDED_layout, &MLNX_EXT_PORT_INFO_layout,
	&MLNX_GENERAL_INFO_layout, &NOTICE_layout,
	&CLASS_PORT_INFO_layout, &NODE_RECORD_layout, &PORT_INFO_RECORD_layout,
	&SWITCH_INFO_RECORD_layout, &SM_INFO_RECORD_layout, &LINK_RECORD_layout,
	&GUID_INFO_RECORD_layout, &PKEY_TABLE_RECORD_layout, &SL2VL_RECORD_layout,
	&VL_ARB_RECORD_layout, &LFT_RECORD_layout, &MFT_RECORD_layout, &PATH_RECORD_layout,
	&MULTI_PATH_RECORD_layout,
	&MCMEMBER_RECORD_layout, &MGID_layout, &IPOIB_MGID_layout, &GID_layout, &SERVICE_RECORD_layout,
	&INFORM_INFO_layout, &INFORM_INFO_RECORD_layout, &PMA_HEAD_layout,
	&PORT_COUNTERS_layout, &PORT_COUNTERS_EXT_layout, &PORT_RCV_ERROR_DETAILS_layout,
	&PORT_XMIT_DISCARD_DETAILS_layout, &PORT_OP_RCV_COUNTERS_layout,
	&PORT_FLOW_CTL_COUNTERS_layout, &PORT_VL_SL_COUNTERS_layout,
	&PORT_SAMPLES_CONTROL_layout, &PORT_SAMPLES_RESULT_layout, &CONGESTION_INFO_layout,
	&CONGESTION_KEY_INFO_layout, &CONGESTION_LOG_layout, &CONGESTION_LOG_SWITCH_layout,
	&CONGESTION_LOG_SWITCH_EVENT_layout, &CONGESTION_LOG_CA_layout,
	&CONGESTION_LOG_CA_EVENT_layout, &SWITCH_CONGESTION_SETTING_layout,
	&SWITCH_PORT_CONGESTION_SETTING_layout, &CA_CONGESTION_SETTING_layout,
	&CA_CONGESTION_ENTRY_layout, &CONGESTION_CONTROL_TABLE_layout, &CC_TIMESTAMP_layout,
};

#define N_LAYOUTS	(sizeof(layouts) / sizeof(layouts[0]))

static void fail_at(const struct layout *l, size_t i, const char *why)
{
	fail_msg("%s: field %zu (%s, bit %u, width %u) %s", l->name, i,
		 i < l->n ? l->fields[i].name : "end",
		 i < l->n ? (unsigned)MAD_FIELD_START(l->fields[i].f) : 0,
		 i < l->n ? (unsigned)MAD_FIELD_BITS(l->fields[i].f) : 0, why);
}

/* Field after field, from the list's first byte to its last, nothing left out. */
static void lists_cover_their_bodies(void **state)
{
	size_t k, i;

	(void)state;
	for (k = 0; k < N_LAYOUTS; k++) {
		const struct layout *l = layouts[k];
		unsigned at = l->start_byte * 8;

		assert_true(l->n > 0);
		for (i = 0; i < l->n; i++) {
			mad_field_t f = l->fields[i].f;
			unsigned start = MAD_FIELD_START(f), bits = MAD_FIELD_BITS(f);

			if (start != at)
				fail_at(l, i, start < at ? "overlaps the field before" : "leaves a gap");
			if (!bits)
				fail_at(l, i, "has no bits");
			/* mad_get/mad_set reach 8 bytes; wider fields are copied as bytes. */
			if (start % 8 + bits > 64 && (start % 8 || bits % 8))
				fail_at(l, i, "is wide and not whole bytes");
			at = start + bits;
		}
		if (at != l->end_byte * 8)
			fail_at(l, l->n, "does not end where the body does");
	}
}

static unsigned list_bits(const struct layout *l)
{
	return MAD_FIELD_END(l->fields[l->n - 1].f) - MAD_FIELD_START(l->fields[0].f);
}

/* A record's carrier is as wide as what it carries; records round up to their SA sizes. */
static void records_carry_whole_attributes(void **state)
{
	(void)state;
	assert_int_equal(MAD_FIELD_BITS(NR_NODE_INFO), list_bits(&NODE_INFO_layout));
	assert_int_equal(MAD_FIELD_BITS(NR_NODE_DESC), list_bits(&NODE_DESC_layout));
	assert_int_equal(MAD_FIELD_BITS(PIR_PORT_INFO), list_bits(&PORT_INFO_layout));
	assert_int_equal(MAD_FIELD_BITS(SWIR_SWITCH_INFO), list_bits(&SWITCH_INFO_layout));
	assert_int_equal(MAD_FIELD_BITS(SMIR_SM_INFO), list_bits(&SM_INFO_layout));
	assert_int_equal(MAD_FIELD_BITS(GIR_GUID_INFO), list_bits(&GUID_INFO_layout));
	assert_int_equal(MAD_FIELD_BITS(IIR_INFORM_INFO), list_bits(&INFORM_INFO_layout));
	assert_int_equal(MAD_FIELD_BITS(PKTR_P_KEY_TABLE),
			 PKEY_TABLE_PER_BLOCK * MAD_FIELD_BITS(PKT_P_KEY0));
	assert_int_equal(MAD_FIELD_BITS(SL2VLR_TABLE), SL2VL_SLS * MAD_FIELD_BITS(SL2VL_VL_OF_SL0));
	assert_int_equal(MAD_FIELD_BITS(VLAR_TABLE), VL_ARB_PER_BLOCK * list_bits(&VL_ARB_TABLE_layout));
	assert_int_equal(MAD_FIELD_BITS(LFTR_TABLE), LFT_PER_BLOCK * MAD_FIELD_BITS(LFT_PORT0));
	assert_int_equal(MAD_FIELD_BITS(MFTR_TABLE), MFT_PER_BLOCK * MAD_FIELD_BITS(MFT_PORT_MASK0));
	assert_int_equal(MAD_FIELD_BITS(CCLS_EVENTS),
			 CC_LOG_SWITCH_EVENTS * list_bits(&CONGESTION_LOG_SWITCH_EVENT_layout));
	assert_int_equal(MAD_FIELD_BITS(CCLC_EVENTS),
			 CC_LOG_CA_EVENTS * list_bits(&CONGESTION_LOG_CA_EVENT_layout));
	assert_int_equal(MAD_FIELD_BITS(CACS_ENTRIES),
			 CC_CA_ENTRIES * list_bits(&CA_CONGESTION_ENTRY_layout));
	assert_int_equal(MAD_FIELD_START(CCLSE_SLID), MAD_FIELD_START(CCLS_EVENTS));
	assert_int_equal(MAD_FIELD_START(CCLCE_LOCAL_QP), MAD_FIELD_START(CCLC_EVENTS));
	assert_int_equal(MAD_FIELD_START(CACSE_CCTI_TIMER), MAD_FIELD_START(CACS_ENTRIES));

	/* Each record padded to whole 8-byte words. */
	assert_int_equal((list_bits(&NODE_RECORD_layout) / 8 + 7) / 8 * 8, SA_NODE_REC_SIZE);
	assert_int_equal((list_bits(&PORT_INFO_RECORD_layout) / 8 + 7) / 8 * 8,
			 SA_PORT_INFO_REC_SIZE);
	assert_int_equal((list_bits(&SWITCH_INFO_RECORD_layout) / 8 + 7) / 8 * 8,
			 SA_SWITCH_INFO_REC_SIZE);
	assert_int_equal((list_bits(&SM_INFO_RECORD_layout) / 8 + 7) / 8 * 8, SA_SM_INFO_REC_SIZE);
	assert_int_equal((list_bits(&LINK_RECORD_layout) / 8 + 7) / 8 * 8, SA_LINK_REC_SIZE);
	assert_int_equal((list_bits(&MCMEMBER_RECORD_layout) / 8 + 7) / 8 * 8,
			 SA_MCMEMBER_REC_SIZE);
	assert_int_equal((list_bits(&INFORM_INFO_RECORD_layout) / 8 + 7) / 8 * 8,
			 SA_INFORM_INFO_REC_SIZE);
	/* What an SMP or a PMA/CC MAD carries fits its data. */
	assert_true(list_bits(&PORT_INFO_layout) / 8 <= SMP_DATA_SIZE);
	assert_true(MAD_FIELD_END(PCE_QP1_DROPPED) / 8 <= PMA_DATA_SIZE);
	assert_true(MAD_FIELD_END(CCLS_EVENTS) / 8 <= CC_LOG_DATA_SIZE);
	assert_true(MAD_FIELD_END(CCLC_EVENTS) / 8 <= CC_LOG_DATA_SIZE);
	assert_true(MAD_FIELD_END(CACS_ENTRIES) / 8 <= CC_DATA_SIZE);
	assert_true(MAD_FIELD_END(mad_field_elem(CCT_ENTRY0, CC_CCT_PER_BLOCK - 1)) / 8 <=
		    CC_DATA_SIZE);
	assert_true(MAD_FIELD_END(mad_field_elem(PSC_COUNTER_SELECT0, PMA_SAMPLE_COUNTERS - 1)) ==
		    MAD_FIELD_END(PSC_COUNTER_SELECTS_1_14));
	assert_true(MAD_FIELD_END(mad_field_elem(PSR_COUNTER0, PMA_SAMPLE_COUNTERS - 1)) ==
		    MAD_FIELD_END(PSR_COUNTERS_1_14));
	assert_true(MAD_FIELD_END(mad_field_elem(PSC_COUNTER_MASK0, 9)) ==
		    MAD_FIELD_END(PSC_COUNTER_MASKS_1_9));
	assert_true(MAD_FIELD_END(mad_field_elem(PSC_COUNTER_MASK10, 4)) ==
		    MAD_FIELD_END(PSC_COUNTER_MASKS_11_14));
}

/* The public structs lay the same bytes out. */
static void layouts_agree_with_public_structs(void **state)
{
	(void)state;
	assert_int_equal(MAD_FIELD_BYTE(CPI_BASE_VERSION), offsetof(struct umad_class_port_info, base_ver));
	assert_int_equal(MAD_FIELD_BYTE(CPI_CLASS_VERSION), offsetof(struct umad_class_port_info, class_ver));
	assert_int_equal(MAD_FIELD_BYTE(CPI_CAPABILITY_MASK), offsetof(struct umad_class_port_info, cap_mask));
	assert_int_equal(MAD_FIELD_BYTE(CPI_CAPABILITY_MASK2),
			 offsetof(struct umad_class_port_info, cap_mask2_resp_time));
	assert_int_equal(MAD_FIELD_BYTE(CPI_REDIRECT_GID), offsetof(struct umad_class_port_info, redirgid));
	assert_int_equal(MAD_FIELD_BYTE(CPI_REDIRECT_LID), offsetof(struct umad_class_port_info, redir_lid));
	assert_int_equal(MAD_FIELD_END(CPI_REDIRECT_QP) / 8,
			 offsetof(struct umad_class_port_info, redir_qkey));
	assert_int_equal(MAD_FIELD_BYTE(CPI_REDIRECT_Q_KEY), offsetof(struct umad_class_port_info, redir_qkey));
	assert_int_equal(MAD_FIELD_BYTE(CPI_TRAP_GID), offsetof(struct umad_class_port_info, trapgid));
	assert_int_equal(MAD_FIELD_BYTE(CPI_TRAP_LID), offsetof(struct umad_class_port_info, trap_lid));
	assert_int_equal(MAD_FIELD_BYTE(CPI_TRAP_HL), offsetof(struct umad_class_port_info, trap_hl_qp));
	assert_int_equal(MAD_FIELD_END(CPI_TRAP_QP) / 8, offsetof(struct umad_class_port_info, trap_qkey));
	assert_int_equal(MAD_FIELD_BYTE(CPI_TRAP_Q_KEY), offsetof(struct umad_class_port_info, trap_qkey));
	assert_int_equal(MAD_FIELD_BITS(CPI_RESP_TIME_VALUE) + MAD_FIELD_BITS(CPI_CAPABILITY_MASK2), 32);

	assert_int_equal(MAD_FIELD_BYTE(MCR_MGID), offsetof(struct umad_sa_mcmember_record, mgid));
	assert_int_equal(MAD_FIELD_BYTE(MCR_PORT_GID), offsetof(struct umad_sa_mcmember_record, portgid));
	assert_int_equal(MAD_FIELD_BYTE(MCR_Q_KEY), offsetof(struct umad_sa_mcmember_record, qkey));
	assert_int_equal(MAD_FIELD_BYTE(MCR_MLID), offsetof(struct umad_sa_mcmember_record, mlid));
	assert_int_equal(MAD_FIELD_BYTE(MCR_MTU), offsetof(struct umad_sa_mcmember_record, mtu));
	assert_int_equal(MAD_FIELD_BYTE(MCR_TCLASS), offsetof(struct umad_sa_mcmember_record, tclass));
	assert_int_equal(MAD_FIELD_BYTE(MCR_P_KEY), offsetof(struct umad_sa_mcmember_record, pkey));
	assert_int_equal(MAD_FIELD_BYTE(MCR_RATE), offsetof(struct umad_sa_mcmember_record, rate));
	assert_int_equal(MAD_FIELD_BYTE(MCR_PKT_LIFE), offsetof(struct umad_sa_mcmember_record, pkt_life));
	assert_int_equal(MAD_FIELD_BYTE(MCR_SL), offsetof(struct umad_sa_mcmember_record, sl_flow_hop));
	assert_int_equal(MAD_FIELD_BYTE(MCR_SCOPE), offsetof(struct umad_sa_mcmember_record, scope_state));
	assert_int_equal(MAD_FIELD_BYTE(MCR_PROXY_JOIN), offsetof(struct umad_sa_mcmember_record, proxy_join));
	/* umad_sa_mcm.h's ComponentMask bits are the list's positions. */
	assert_true(UMAD_SA_MCM_COMP_MASK_MGID == SA_COMP(MCR_MGID_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_PORT_GID == SA_COMP(MCR_PORT_GID_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_QKEY == SA_COMP(MCR_Q_KEY_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_MLID == SA_COMP(MCR_MLID_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_MTU_SEL == SA_COMP(MCR_MTU_SELECTOR_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_MTU == SA_COMP(MCR_MTU_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_TCLASS == SA_COMP(MCR_TCLASS_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_PKEY == SA_COMP(MCR_P_KEY_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_RATE_SEL == SA_COMP(MCR_RATE_SELECTOR_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_RATE == SA_COMP(MCR_RATE_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_LIFE_TIME_SEL == SA_COMP(MCR_PKT_LIFE_SELECTOR_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_LIFE_TIME == SA_COMP(MCR_PKT_LIFE_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_SL == SA_COMP(MCR_SL_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_FLOW_LABEL == SA_COMP(MCR_FLOW_LABEL_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_HOP_LIMIT == SA_COMP(MCR_HOP_LIMIT_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_SCOPE == SA_COMP(MCR_SCOPE_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_JOIN_STATE == SA_COMP(MCR_JOIN_STATE_INDEX));
	assert_true(UMAD_SA_MCM_COMP_MASK_PROXY_JOIN == SA_COMP(MCR_PROXY_JOIN_INDEX));
}

/* The ComponentMask bits worked out from the lists, against the spec's numbers. */
static void component_bits_are_the_specs(void **state)
{
	(void)state;
	assert_true(SA_NR_COMP_LID == 1ull << 0);
	assert_true(SA_NR_COMP_NODE_TYPE == 1ull << 4);
	assert_true(SA_NR_COMP_NODE_GUID == 1ull << 7);
	assert_true(SA_NR_COMP_PORT_GUID == 1ull << 8);
	assert_true(SA_NR_COMP_NODE_DESC == 1ull << 14);
	assert_true(SA_PIR_COMP_LID == 1ull << 0);
	assert_true(SA_PIR_COMP_PORT_NUM == 1ull << 1);
	assert_true(SA_PIR_COMP_CAP_MASK == 1ull << 7);
	assert_true(SA_LR_COMP_FROM_LID == 1ull << 0);
	assert_true(SA_LR_COMP_FROM_PORT == 1ull << 1);
	assert_true(SA_LR_COMP_TO_PORT == 1ull << 2);
	assert_true(SA_LR_COMP_TO_LID == 1ull << 3);
	assert_true(SA_PR_COMP_SERVICE_ID == 3ull);
	assert_true(SA_PR_COMP_DGID == 1ull << 2);
	assert_true(SA_PR_COMP_SGID == 1ull << 3);
	assert_true(SA_PR_COMP_DLID == 1ull << 4);
	assert_true(SA_PR_COMP_SLID == 1ull << 5);
	assert_true(SA_PR_COMP_RAW_TRAFFIC == 1ull << 6);
	assert_true(SA_PR_COMP_FLOW_LABEL == 1ull << 8);
	assert_true(SA_PR_COMP_HOP_LIMIT == 1ull << 9);
	assert_true(SA_PR_COMP_TCLASS == 1ull << 10);
	assert_true(SA_PR_COMP_REVERSIBLE == 1ull << 11);
	assert_true(SA_PR_COMP_NUMB_PATH == 1ull << 12);
	assert_true(SA_PR_COMP_PKEY == 1ull << 13);
	assert_true(SA_PR_COMP_QOS_CLASS == 1ull << 14);
	assert_true(SA_PR_COMP_SL == 1ull << 15);
	assert_true(SA_PR_COMP_MTU_SEL == 1ull << 16);
	assert_true(SA_PR_COMP_MTU == 1ull << 17);
	assert_true(SA_PR_COMP_RATE_SEL == 1ull << 18);
	assert_true(SA_PR_COMP_RATE == 1ull << 19);
	assert_true(SA_PR_COMP_PKT_LIFE_SEL == 1ull << 20);
	assert_true(SA_PR_COMP_PKT_LIFE == 1ull << 21);
	assert_true(SA_SR_COMP_ID == 1ull << 0);
	assert_true(SA_SR_COMP_GID == 1ull << 1);
	assert_true(SA_SR_COMP_PKEY == 1ull << 2);
	assert_true(SA_SR_COMP_LEASE == 1ull << 4);
	assert_true(SA_SR_COMP_KEY == 1ull << 5);
	assert_true(SA_SR_COMP_NAME == 1ull << 6);
	assert_true(SA_IIR_COMP_SUBSCRIBER_GID == 1ull << 0);
}

/* Bit i of a body, counted from the top bit of byte 0. */
static unsigned bit_at(const uint8_t *p, unsigned i)
{
	return (p[i / 8] >> (7 - i % 8)) & 1;
}

/* mad_get and mad_set on every field of up to 64 bits, amid other bits. */
static void accessors_read_and_write_every_field(void **state)
{
	uint8_t body[256], before[256];
	size_t k, i;
	unsigned b;

	(void)state;
	for (k = 0; k < N_LAYOUTS; k++) {
		const struct layout *l = layouts[k];

		for (i = 0; i < l->n; i++) {
			mad_field_t f = l->fields[i].f;
			unsigned start = MAD_FIELD_START(f), bits = MAD_FIELD_BITS(f);
			uint64_t want = UINT64_C(0x9e3779b97f4a7c15) ^ (k * 131 + i), got = 0;

			if (bits > 64)
				continue;
			want &= mad_field_max(f);
			memset(body, (int)(0x5a ^ i), sizeof(body));
			memcpy(before, body, sizeof(body));
			mad_set(body, f, want);
			for (b = 0; b < bits; b++)
				got = got << 1 | bit_at(body, start + b);
			if (got != want)
				fail_at(l, i, "mad_set wrote other bits");
			if (mad_get(body, f) != want)
				fail_at(l, i, "mad_get read back another value");
			for (b = 0; b < sizeof(body) * 8; b++)
				if ((b < start || b >= start + bits) && bit_at(body, b) != bit_at(before, b))
					fail_at(l, i, "mad_set changed a bit outside the field");
			/* A value too wide for the field is cut to it. */
			mad_set(body, f, UINT64_MAX);
			if (mad_get(body, f) != mad_field_max(f))
				fail_at(l, i, "mad_set of all ones is not the field's largest value");
		}
	}
	/* Entries of a table follow one another. */
	assert_int_equal(MAD_FIELD_START(mad_field_elem(PKT_P_KEY0, 31)), 31 * 16);
	assert_int_equal(MAD_FIELD_START(MAD_FIELD_AT(VLA_WEIGHT0, 5 * VL_ARB_ENTRY_SIZE)),
			 (5 * VL_ARB_ENTRY_SIZE + 1) * 8);
}

/* mad_get_elem/mad_set_elem are mad_get/mad_set of mad_field_elem, whatever the width. */
static void entries_read_and_written_as_fields(void **state)
{
	static const struct {
		mad_field_t first;
		unsigned n;
	} tables[] = {
		{ PKT_P_KEY0, PKEY_TABLE_PER_BLOCK }, { SL2VL_VL_OF_SL0, SL2VL_SLS },
		{ LFT_PORT0, LFT_PER_BLOCK }, { MFT_PORT_MASK0, MFT_PER_BLOCK },
		{ GI_GUID0, GUID_INFO_PER_BLOCK }, { CCT_ENTRY0, CC_CCT_PER_BLOCK },
		{ PSC_COUNTER_MASK0, PSC_MASKS_IN_FIRST_RUN }, { PSC_COUNTER_SELECT0, PMA_SAMPLE_COUNTERS },
		{ PSR_COUNTER0, PMA_SAMPLE_COUNTERS },
	};
	uint8_t a[256], b[256];
	size_t t;
	unsigned i;

	(void)state;
	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		memset(a, 0xa5, sizeof(a));
		memset(b, 0xa5, sizeof(b));
		for (i = 0; i < tables[t].n; i++) {
			uint64_t v = (UINT64_C(0x0123456789abcdef) * (i + 1)) & mad_field_max(tables[t].first);

			mad_set_elem(a, tables[t].first, i, v);
			mad_set(b, mad_field_elem(tables[t].first, i), v);
			assert_memory_equal(a, b, sizeof(a));
			assert_true(mad_get_elem(a, tables[t].first, i) == v);
			assert_true(mad_get(a, mad_field_elem(tables[t].first, i)) == v);
		}
	}
}

/* The partition rule: the same key, not 0, not two limited members. */
static void pkey_match_is_the_partition_rule(void **state)
{
	(void)state;
	assert_true(pkey_match(0xffff, 0xffff));
	assert_true(pkey_match(0xffff, 0x7fff));
	assert_true(pkey_match(0x7fff, 0xffff));
	assert_false(pkey_match(0x7fff, 0x7fff));
	assert_false(pkey_match(0x8001, 0x8002));
	assert_false(pkey_match(0x8000, 0x8000));
	assert_false(pkey_match(0x0000, 0x8000));
	assert_true(pkey_match(0x8001, 0x0001));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_cover_their_bodies),
		cmocka_unit_test(records_carry_whole_attributes),
		cmocka_unit_test(layouts_agree_with_public_structs),
		cmocka_unit_test(component_bits_are_the_specs),
		cmocka_unit_test(accessors_read_and_write_every_field),
		cmocka_unit_test(entries_read_and_written_as_fields),
		cmocka_unit_test(pkey_match_is_the_partition_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
