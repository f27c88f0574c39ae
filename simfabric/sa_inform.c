/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * InformInfo: a Set subscribes the requester's (LID, QP) to notices (a
 * trap number or all of them, generic or vendor, from a GID or a LID
 * range) or ends the subscription; InformInfoRecord lists them.  Notices
 * (traps the owner hands over, and the SA's own for multicast groups)
 * become Reports to every matching subscriber, as the spec's matching
 * rules for InformInfo against Notice say.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simfabric/sa_common.h"

#define IN_INFORM_INFO_RECORD(name, byte, bit, bits) \
	MAD_FIELD_AT(name, MAD_FIELD_BYTE(IIR_INFORM_INFO)),
static const mad_field_t inform_record_fields[] = {
	IIR_SUBSCRIBER_GID, IIR_ENUM, IIR_RESERVED, INFORM_INFO_FIELDS(IN_INFORM_INFO_RECORD)
};
static const struct sa_components inform_record_components = {
	inform_record_fields, sizeof(inform_record_fields) / sizeof(inform_record_fields[0]),
	0, 0, 0
};
_Static_assert(IIR_INFORM_INFO_INDEX == 3, "InformInfoRecord's components");

static int gid_is_zero(const uint8_t *gid)
{
	static const uint8_t zero[GID_SIZE];

	return !memcmp(gid, zero, sizeof(zero));
}

/* The same subscription: subscriber, source, kind; the QPN field is the SA's to fill. */
static int same_subscription(const struct sa_subscription *s, uint16_t lid, uint32_t qpn,
			     const uint8_t *ii)
{
	const uint8_t *have = MAD_AT(s->rec, IIR_INFORM_INFO);

	if (s->lid != lid || s->qpn != qpn)
		return 0;
	if (!gid_is_zero(MAD_AT(ii, II_GID)) || !gid_is_zero(MAD_AT(have, II_GID))) {
		if (!mad_field_equal(have, ii, II_GID))
			return 0;
	} else if (!mad_field_equal(have, ii, II_LID_RANGE_BEGIN) ||
		   !mad_field_equal(have, ii, II_LID_RANGE_END)) {
		return 0;
	}
	return mad_field_equal(have, ii, II_IS_GENERIC) && mad_field_equal(have, ii, II_TYPE) &&
	       mad_field_equal(have, ii, II_TRAP_NUMBER) &&
	       mad_field_equal(have, ii, II_PRODUCER_TYPE);
}

/* Refused: the InformInfo back with Subscribe 0 (o13-13.1.1), and the status. */
static int refuse(struct sa_query *q, uint8_t sa_status)
{
	uint8_t ii[SA_INFORM_INFO_SIZE];

	memcpy(ii, q->rec, sizeof(ii));
	mad_set(ii, II_SUBSCRIBE, 0);
	if (sa_add(q, ii) < 0)
		return q->error;
	return SA_STATUS(sa_status);
}

int sa_inform_set(struct sa_query *q)
{
	struct sim_sa *sa = q->sa;
	const uint8_t *ii = q->rec;
	const struct sim_port *requester = sa_requester_port(q);
	uint16_t lid = q->from ? q->from->lid : 0;
	uint32_t qpn = q->from ? q->from->qpn & IB_QPN_MASK : 0;
	uint16_t trap = (uint16_t)mad_get(ii, II_TRAP_NUMBER);
	uint8_t subscribe = (uint8_t)mad_get(ii, II_SUBSCRIBE);
	int generic = mad_get(ii, II_IS_GENERIC) != 0;
	struct sa_subscription *s = NULL;
	size_t i;

	if (!requester || subscribe > 1)
		return refuse(q, UMAD_SA_STATUS_REQ_INVALID);
	/* Security traps go to trusted subscribers only (C15-0.2-1.16). */
	if (!q->trusted && generic && trap >= UMAD_SM_BAD_MKEY_TRAP &&
	    trap <= UMAD_SM_BAD_SWITCH_PKEY_TRAP)
		return refuse(q, UMAD_SA_STATUS_REQ_INVALID);
	for (i = 0; i < sa->n_subs && !s; i++)
		if (same_subscription(&sa->subs[i], lid, qpn, ii))
			s = &sa->subs[i];

	if (!subscribe) {
		if (!s)
			return refuse(q, UMAD_SA_STATUS_REQ_INVALID);
		*s = sa->subs[--sa->n_subs];
		return sa_add(q, ii);
	}
	if (!s) {
		if (sa->n_subs == sa->cap_subs) {
			size_t cap = sa->cap_subs ? sa->cap_subs * 2 : 8;
			struct sa_subscription *grown = realloc(sa->subs, cap * sizeof(*grown));

			if (!grown)
				return refuse(q, UMAD_SA_STATUS_NO_RESOURCES);
			sa->subs = grown;
			sa->cap_subs = cap;
		}
		s = &sa->subs[sa->n_subs++];
	}
	memset(s, 0, sizeof(*s));
	s->lid = lid;
	s->qpn = qpn;
	sa_port_gid(requester, MAD_AT(s->rec, IIR_SUBSCRIBER_GID));
	memcpy(MAD_AT(s->rec, IIR_INFORM_INFO), ii, MAD_FIELD_SIZE(IIR_INFORM_INFO));
	/* The Reports go to the QP the Set came from. */
	mad_set(MAD_AT(s->rec, IIR_INFORM_INFO), II_QPN, qpn);
	return sa_add(q, ii);
}

int sa_inform_records(struct sa_query *q)
{
	size_t i;

	q->comps = &inform_record_components;
	for (i = 0; i < q->sa->n_subs && !sa_done(q); i++)
		sa_emit(q, q->sa->subs[i].rec);
	return q->error;
}

void sa_inform_free(struct sim_sa *sa)
{
	free(sa->subs);
}

/* --- notices and Reports ------------------------------------------------------------- */

/* Does the subscription want this notice (80 bytes, IssuerGID filled)? */
static int wants(const struct sa_subscription *s, const uint8_t *ntc)
{
	const uint8_t *ii = MAD_AT(s->rec, IIR_INFORM_INFO);
	uint64_t type = mad_get(ii, II_TYPE), num = mad_get(ii, II_TRAP_NUMBER);
	uint64_t producer = mad_get(ii, II_PRODUCER_TYPE), issuer = mad_get(ntc, NTC_ISSUER_LID);
	uint64_t begin = mad_get(ii, II_LID_RANGE_BEGIN);

	/* From whom: the GID when one is given, else the LID range (SA_INFORM_ANY: anyone). */
	if (!gid_is_zero(MAD_AT(ii, II_GID))) {
		if (memcmp(MAD_AT(ii, II_GID), MAD_AT(ntc, NTC_ISSUER_GID), GID_SIZE))
			return 0;
	} else if (begin != SA_INFORM_ANY &&
		   (issuer < begin || issuer > mad_get(ii, II_LID_RANGE_END))) {
		return 0;
	}
	if (!mad_get(ii, II_IS_GENERIC) != !mad_get(ntc, NTC_IS_GENERIC))
		return 0;
	if (type != SA_INFORM_ANY && type != mad_get(ntc, NTC_TYPE))
		return 0;
	if (num != SA_INFORM_ANY && num != mad_get(ntc, NTC_TRAP_NUMBER))
		return 0;
	return producer == SA_INFORM_ANY_PRODUCER || producer == mad_get(ntc, NTC_PRODUCER_TYPE);
}

unsigned sim_sa_notice(struct sim_sa *sa, const uint8_t *notice)
{
	uint8_t mad[MAD_SIZE], *ntc = mad + SA_HDR_END;
	const struct sim_port *issuer;
	unsigned sent = 0;
	size_t i;

	if (!sa || !notice)
		return 0;
	memset(mad, 0, sizeof(mad));
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_REPORT;
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_ATTR_NOTICE);
	memcpy(ntc, notice, NOTICE_SMP_SIZE);
	issuer = sa_port_by_lid(sa, (uint16_t)mad_get(ntc, NTC_ISSUER_LID));
	if (issuer)
		sa_port_gid(issuer, MAD_AT(ntc, NTC_ISSUER_GID));
	for (i = 0; i < sa->n_subs; i++) {
		if (!wants(&sa->subs[i], ntc))
			continue;
		/* Each Report its own transaction: the subscriber answers with a ReportResp. */
		put_be64(mad + MAD_OFF_TID, sa->report_tid++);
		if (sa->hooks.send_report)
			sa->hooks.send_report(sa->hooks.arg, sa->subs[i].lid, sa->subs[i].qpn, mad);
		sent++;
	}
	return sent;
}

void sa_notice_gid(struct sim_sa *sa, uint16_t trap, const uint8_t *gid)
{
	uint8_t ntc[NOTICE_SMP_SIZE] = { 0 };

	if (!sa->n_subs)
		return;
	mad_set(ntc, NTC_IS_GENERIC, 1);
	mad_set(ntc, NTC_TYPE, NOTICE_TYPE_SUBN_MGMT);
	mad_set(ntc, NTC_PRODUCER_TYPE, NOTICE_PRODUCER_CLASS_MGR);
	mad_set(ntc, NTC_TRAP_NUMBER, trap);
	mad_set(ntc, NTC_ISSUER_LID, sa->sm_port ? sa->sm_port->lid : 0);
	memcpy(MAD_AT(ntc, NTC_DATA_DETAILS) + TRAP64_OFF_GID, gid, GID_SIZE);
	sim_sa_notice(sa, ntc);
}
