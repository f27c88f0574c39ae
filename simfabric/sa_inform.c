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

#include "simfabric/sa_internal.h"

/* InformInfo fields (byte offsets). */
#define II_GID		0
#define II_LID_BEGIN	16
#define II_LID_END	18
#define II_IS_GENERIC	22
#define II_SUBSCRIBE	23
#define II_TYPE		24
#define II_TRAP_NUM	26	/* DeviceID for vendor notices */
#define II_QPN		28	/* QPN:24 reserved:3 RespTimeValue:5 */
#define II_PRODUCER	33	/* 24 bits; VendorID for vendor notices */

/* InformInfoRecord: SubscriberGID, Enum, reserved, then the InformInfo. */
#define IIR_GID		0
#define IIR_INFORM	24

#define N_FIELDS(t)	(sizeof(t) / sizeof((t)[0]))

static const struct sa_field inform_record_fields[] = {
	SA_F(0, 128),			/* SubscriberGID */
	SA_F(16, 16),			/* Enum */
	SA_F(18, 48),			/* reserved */
	SA_F(24, 128),			/* GID */
	SA_F(40, 16),			/* LIDRangeBegin */
	SA_F(42, 16),			/* LIDRangeEnd */
	SA_F(44, 16),			/* reserved */
	SA_F(46, 8),			/* IsGeneric */
	SA_F(47, 8),			/* Subscribe */
	SA_F(48, 16),			/* Type */
	SA_F(50, 16),			/* TrapNumber / DeviceID */
	SA_F(52, 24),			/* QPN */
	SA_FB(55, 0, 3),		/* reserved */
	SA_FB(55, 3, 5),		/* RespTimeValue */
	SA_F(56, 8),			/* reserved */
	SA_F(57, 24),			/* ProducerType / VendorID */
};

static int gid_is_zero(const uint8_t *gid)
{
	static const uint8_t zero[16];

	return !memcmp(gid, zero, sizeof(zero));
}

/* The same subscription: subscriber, source, kind; the QPN field is the SA's to fill. */
static int same_subscription(const struct sa_subscription *s, uint16_t lid, uint32_t qpn,
			     const uint8_t *ii)
{
	const uint8_t *have = s->rec + IIR_INFORM;

	if (s->lid != lid || s->qpn != qpn)
		return 0;
	if (!gid_is_zero(ii + II_GID) || !gid_is_zero(have + II_GID)) {
		if (memcmp(have + II_GID, ii + II_GID, 16))
			return 0;
	} else if (memcmp(have + II_LID_BEGIN, ii + II_LID_BEGIN, 4)) {
		return 0;
	}
	return have[II_IS_GENERIC] == ii[II_IS_GENERIC] &&
	       !memcmp(have + II_TYPE, ii + II_TYPE, 4) &&
	       !memcmp(have + II_PRODUCER, ii + II_PRODUCER, 3);
}

/* Refused: the InformInfo back with Subscribe 0 (o13-13.1.1), and the status. */
static int refuse(struct sa_query *q, uint8_t sa_status)
{
	uint8_t ii[SA_INFORM_INFO_SIZE];

	memcpy(ii, q->rec, sizeof(ii));
	ii[II_SUBSCRIBE] = 0;
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
	uint16_t trap = get_be16(ii + II_TRAP_NUM);
	struct sa_subscription *s = NULL;
	size_t i;

	if (!requester || ii[II_SUBSCRIBE] > 1)
		return refuse(q, UMAD_SA_STATUS_REQ_INVALID);
	/* Security traps go to trusted subscribers only (C15-0.2-1.16). */
	if (!q->trusted && ii[II_IS_GENERIC] && trap >= UMAD_SM_BAD_MKEY_TRAP &&
	    trap <= UMAD_SM_BAD_SWITCH_PKEY_TRAP)
		return refuse(q, UMAD_SA_STATUS_REQ_INVALID);
	for (i = 0; i < sa->n_subs && !s; i++)
		if (same_subscription(&sa->subs[i], lid, qpn, ii))
			s = &sa->subs[i];

	if (!ii[II_SUBSCRIBE]) {
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
	sa_port_gid(requester, s->rec + IIR_GID);
	memcpy(s->rec + IIR_INFORM, ii, SA_INFORM_INFO_SIZE);
	/* The Reports go to the QP the Set came from. */
	put_be24(s->rec + IIR_INFORM + II_QPN, qpn);
	return sa_add(q, ii);
}

int sa_inform_records(struct sa_query *q)
{
	size_t i;

	q->fields = inform_record_fields;
	q->n_fields = N_FIELDS(inform_record_fields);
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
	const uint8_t *ii = s->rec + IIR_INFORM;
	int generic = (ntc[NOTICE_OFF_GENERIC_TYPE] & NOTICE_GENERIC) != 0;
	uint16_t type = get_be16(ii + II_TYPE), num = get_be16(ii + II_TRAP_NUM);
	uint32_t producer = get_be24(ii + II_PRODUCER);
	uint16_t issuer = get_be16(ntc + NOTICE_OFF_ISSUER_LID);

	/* From whom: the GID when one is given, else the LID range (0xffff: anyone). */
	if (!gid_is_zero(ii + II_GID)) {
		if (memcmp(ii + II_GID, ntc + NOTICE_OFF_ISSUER_GID, 16))
			return 0;
	} else if (get_be16(ii + II_LID_BEGIN) != SA_INFORM_ANY &&
		   (issuer < get_be16(ii + II_LID_BEGIN) || issuer > get_be16(ii + II_LID_END))) {
		return 0;
	}
	if (!ii[II_IS_GENERIC] != !generic)
		return 0;
	if (type != SA_INFORM_ANY && type != (ntc[NOTICE_OFF_GENERIC_TYPE] & ~NOTICE_GENERIC))
		return 0;
	if (num != SA_INFORM_ANY && num != get_be16(ntc + NOTICE_OFF_TRAP_NUM))
		return 0;
	return producer == SA_INFORM_ANY_PRODUCER ||
	       producer == get_be24(ntc + NOTICE_OFF_PRODUCER);
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
	issuer = sa_port_by_lid(sa, get_be16(ntc + NOTICE_OFF_ISSUER_LID));
	if (issuer)
		sa_port_gid(issuer, ntc + NOTICE_OFF_ISSUER_GID);
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
	ntc[NOTICE_OFF_GENERIC_TYPE] = NOTICE_GENERIC | NOTICE_TYPE_SUBN_MGMT;
	put_be24(ntc + NOTICE_OFF_PRODUCER, NOTICE_PRODUCER_CLASS_MGR);
	put_be16(ntc + NOTICE_OFF_TRAP_NUM, trap);
	put_be16(ntc + NOTICE_OFF_ISSUER_LID, sa->sm_port ? sa->sm_port->lid : 0);
	memcpy(ntc + NOTICE_OFF_DETAILS + TRAP64_OFF_GID, gid, 16);
	sim_sa_notice(sa, ntc);
}
