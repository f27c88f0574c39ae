/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The SA's front: the request checked (class, version, SM_Key, method,
 * attribute), handed to the record type's code through the SA's table
 * of attributes, and the answer put together with the SA's statuses (Get
 * wants exactly one record, GetTable any number); the SA's life.  What the
 * record types share (the matcher, the port look-ups, rates) is
 * sa_common.c's, below them all.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simfabric/sa.h"
#include "simfabric/sa_common.h"

/* RespTimeValue of the SA's ClassPortInfo: 4.096 us * 2^16, about a quarter second. */
#define SA_RESP_TIME_VALUE	16
/* opensm's default SM_Key. */
#define SA_DEFAULT_SM_KEY	1

/* --- lifecycle ------------------------------------------------------------------- */

struct sim_sa *sim_sa_new(struct sim_fabric *f, struct sim_port *sm_port,
			  const struct sim_sa_hooks *hooks)
{
	struct sim_sa *sa = calloc(1, sizeof(*sa));

	if (!sa)
		return NULL;
	sa->f = f;
	sa->sm_port = sm_port;
	if (hooks)
		sa->hooks = *hooks;
	sa->sm_key = SA_DEFAULT_SM_KEY;
	sa->report_tid = 1;
	if (sa_mcast_init(sa) < 0) {
		sim_sa_free(sa);
		return NULL;
	}
	return sa;
}

void sim_sa_free(struct sim_sa *sa)
{
	if (!sa)
		return;
	sa_mcast_free(sa);
	sa_service_free(sa);
	sa_inform_free(sa);
	free(sa);
}

void sim_sa_set_key(struct sim_sa *sa, uint64_t sm_key)
{
	sa->sm_key = sm_key;
}

void sim_sa_age(struct sim_sa *sa, unsigned seconds)
{
	sa->clock_offset += seconds;
}

/* --- ClassPortInfo -------------------------------------------------------------------------- */

static int class_port_info(struct sa_query *q)
{
	uint8_t cpi[SA_CLASS_PORT_INFO_SIZE] = { 0 };
	uint16_t cap = CPI_CAP_IS_GET_SET_NOTICE_SUP | UMAD_SA_CAP_MASK_IS_UD_MCAST_SUP |
		       UMAD_SA_CAP_MASK_IS_MULTIPATH_SUP |
		       UMAD_SA_CAP_MASK_IS_PORTINFO_CAP_MASK_MATCH_SUP;
	uint32_t cap2 = UMAD_SA_CAP_MASK2_IS_ADDITIONAL_GUID_SUP |
			UMAD_SA_CAP_MASK2_IS_FULL_PORTINFO_REC_SUP |
			UMAD_SA_CAP_MASK2_IS_EXT_SPEEDS_SUP |
			SA_CAP_MASK2_IS_SEND_ONLY_FULL_MEMBER_SUP |
			SA_CAP_MASK2_IS_LINK_WIDTH_2X_SUP | SA_CAP_MASK2_IS_LINK_SPEED_HDR_SUP;

	if (q->method != UMAD_METHOD_GET)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	mad_set(cpi, CPI_BASE_VERSION, UMAD_BASE_VERSION);
	mad_set(cpi, CPI_CLASS_VERSION, UMAD_SA_CLASS_VERSION);
	mad_set(cpi, CPI_CAPABILITY_MASK, cap);
	mad_set(cpi, CPI_CAPABILITY_MASK2, cap2);
	mad_set(cpi, CPI_RESP_TIME_VALUE, SA_RESP_TIME_VALUE);
	/* Not redirected: QP1 and its Q_Key; traps the same. */
	mad_set(cpi, CPI_REDIRECT_QP, QP1_GSI);
	mad_set(cpi, CPI_REDIRECT_Q_KEY, UMAD_QKEY);
	mad_set(cpi, CPI_TRAP_Q_KEY, UMAD_QKEY);
	return sa_add(q, cpi);
}

/* --- dispatch ----------------------------------------------------------------------------- */

struct sa_attr {
	uint16_t attr;
	unsigned rec_size;			/* of the records answered */
	int (*get)(struct sa_query *q);		/* Get and GetTable */
	int (*set)(struct sa_query *q);
	int (*del)(struct sa_query *q);
	int (*multi)(struct sa_query *q);	/* GetMulti */
	uint16_t resp_attr;			/* the answer's attribute, when not the request's */
};

/* An attribute without GetMulti, answered under its own attribute ID. */
#define ATTR(id, size, get, set, del)	{ id, size, get, set, del, NULL, 0 }

static const struct sa_attr sa_attrs[] = {
	ATTR(UMAD_ATTR_CLASS_PORT_INFO, SA_CLASS_PORT_INFO_SIZE, class_port_info, NULL, NULL),
	ATTR(UMAD_SA_ATTR_NODE_REC, SA_NODE_REC_SIZE, sa_node_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_PORT_INFO_REC, SA_PORT_INFO_REC_SIZE, sa_port_info_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_SLVL_REC, SA_SLVL_REC_SIZE, sa_slvl_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_SWITCH_INFO_REC, SA_SWITCH_INFO_REC_SIZE, sa_switch_info_records, NULL,
	     NULL),
	ATTR(UMAD_SA_ATTR_LINEAR_FT_REC, SA_LFT_REC_SIZE, sa_lft_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_MCAST_FT_REC, SA_MFT_REC_SIZE, sa_mft_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_SM_INFO_REC, SA_SM_INFO_REC_SIZE, sa_sm_info_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_LINK_REC, SA_LINK_REC_SIZE, sa_link_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_GUID_INFO_REC, SA_GUID_INFO_REC_SIZE, sa_guid_info_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_SERVICE_REC, SA_SERVICE_REC_SIZE, sa_service_query, sa_service_set,
	     sa_service_delete),
	ATTR(UMAD_SA_ATTR_PKEY_TABLE_REC, SA_PKEY_TABLE_REC_SIZE, sa_pkey_table_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_PATH_REC, SA_PATH_REC_SIZE, sa_path_records, NULL, NULL),
	/* A GetMulti of MultiPathRecords is answered with PathRecords, as opensm answers it. */
	{ UMAD_SA_ATTR_MULTI_PATH_REC, SA_PATH_REC_SIZE, sa_multipath_not_multi, NULL, NULL,
	  sa_multipath_records, UMAD_SA_ATTR_PATH_REC },
	ATTR(UMAD_SA_ATTR_VL_ARB_REC, SA_VL_ARB_REC_SIZE, sa_vl_arb_records, NULL, NULL),
	ATTR(UMAD_SA_ATTR_MCMEMBER_REC, SA_MCMEMBER_REC_SIZE, sa_mcmember_query, sa_mcmember_join,
	     sa_mcmember_leave),
	ATTR(UMAD_ATTR_INFORM_INFO, SA_INFORM_INFO_SIZE, NULL, sa_inform_set, NULL),
	ATTR(UMAD_SA_ATTR_INFORM_INFO_REC, SA_INFORM_INFO_REC_SIZE, sa_inform_records, NULL, NULL),
};

static const struct sa_attr *find_attr(uint16_t attr)
{
	size_t i;

	for (i = 0; i < sizeof(sa_attrs) / sizeof(sa_attrs[0]); i++)
		if (sa_attrs[i].attr == attr)
			return &sa_attrs[i];
	return NULL;
}

static uint8_t response_method(uint8_t method)
{
	switch (method) {
	case UMAD_METHOD_GET:
	case UMAD_METHOD_SET:
		return UMAD_METHOD_GET_RESP;
	default:
		return (uint8_t)(method | UMAD_METHOD_RESP_MASK);
	}
}

/* Run the request through its attribute's code: a MAD status, or -ENOMEM. */
static int run(struct sa_query *q, uint16_t attr_id)
{
	const struct sa_attr *a;
	int (*fn)(struct sa_query *);

	if (q->method != UMAD_METHOD_GET && q->method != UMAD_SA_METHOD_GET_TABLE &&
	    q->method != UMAD_METHOD_SET && q->method != UMAD_SA_METHOD_DELETE &&
	    q->method != UMAD_SA_METHOD_GET_MULTI)
		return UMAD_STATUS_METHOD_NOT_SUPPORTED;
	a = find_attr(attr_id);
	if (!a)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	q->rec_size = a->rec_size;
	if (q->method == UMAD_METHOD_SET)
		fn = a->set;
	else if (q->method == UMAD_SA_METHOD_DELETE)
		fn = a->del;
	else if (q->method == UMAD_SA_METHOD_GET_MULTI && !a->multi)
		return UMAD_STATUS_METHOD_NOT_SUPPORTED;	/* MultiPathRecord's method only */
	else if (q->method == UMAD_SA_METHOD_GET_MULTI)
		fn = a->multi;
	else
		fn = a->get;
	/* A known attribute with a method it does not take: the method/attribute status. */
	if (!fn)
		return UMAD_STATUS_ATTR_NOT_SUPPORTED;
	return fn(q);
}

int sim_sa_process(struct sim_sa *sa, const struct sim_sa_requester *from,
		   const uint8_t *req, size_t req_len, uint8_t **resp, size_t *resp_len)
{
	struct sa_query q = { .sa = sa, .from = from };
	const struct sa_attr *a;
	uint64_t sm_key;
	int status, table;

	if (!sa || !req || !resp || !resp_len || req_len < MAD_SIZE)
		return 0;
	if (req[MAD_OFF_BASE_VERSION] != UMAD_BASE_VERSION ||
	    mad_class(req) != UMAD_CLASS_SUBN_ADM ||
	    req[MAD_OFF_CLASS_VERSION] != UMAD_SA_CLASS_VERSION)
		return 0;
	q.method = mad_method(req);
	/* Answers to the SA's own Reports, and stray responses, end here. */
	if (mad_method_is_response(q.method) || q.method == UMAD_METHOD_TRAP_REPRESS)
		return 0;
	/* A wrong SM_Key is dropped (opensm does); the right one makes the request trusted. */
	sm_key = get_be64(req + SA_OFF_SM_KEY);
	if (sm_key && sm_key != sa->sm_key)
		return 0;
	q.trusted = sm_key != 0;
	q.attr_mod = mad_attr_mod(req);
	q.comp_mask = get_be64(req + SA_OFF_COMP_MASK);
	q.rec = req + SA_HDR_END;
	q.rec_len = req_len - SA_HDR_END;
	q.cap = MAD_SIZE;
	q.buf = calloc(1, q.cap);
	if (!q.buf)
		return -ENOMEM;
	q.len = SA_HDR_END;

	status = run(&q, mad_attr_id(req));
	/* GetTable and GetMulti answer any number of records, as one RMPP message. */
	table = q.method == UMAD_SA_METHOD_GET_TABLE || q.method == UMAD_SA_METHOD_GET_MULTI;
	if (status < 0 || q.error) {
		free(q.buf);
		return -ENOMEM;
	}
	if (status == 0 && q.method == UMAD_METHOD_GET && q.count != 1)
		status = SA_STATUS(q.count ? UMAD_SA_STATUS_TOO_MANY_RECORDS :
				   UMAD_SA_STATUS_NO_RECORDS);

	/* The header: the request's, answered; RMPP left to the caller; SM_Key never echoed. */
	memcpy(q.buf, req, SA_HDR_END);
	q.buf[MAD_OFF_METHOD] = response_method(q.method);
	a = find_attr(mad_attr_id(req));
	if (a && a->resp_attr)
		put_be16(q.buf + MAD_OFF_ATTR_ID, a->resp_attr);
	put_be16(q.buf + MAD_OFF_STATUS, (uint16_t)status);
	memset(q.buf + RMPP_OFF_VERSION, 0, RMPP_HDR_END - RMPP_OFF_VERSION);
	memset(q.buf + SA_OFF_SM_KEY, 0, MAD_KEY_SIZE);
	memset(q.buf + offsetof(struct umad_sa_packet, reserved), 0,
	       sizeof(((struct umad_sa_packet *)0)->reserved));
	put_be16(q.buf + SA_OFF_ATTR_OFFSET,
		 q.count ? (uint16_t)(q.rec_size / SA_ATTR_OFFSET_UNIT) : 0);

	if (status && (!q.count || q.method == UMAD_METHOD_GET || table)) {
		/* An error echoes the request's data; records found on the way do not go back.
		 * (A refused Set or Delete may answer with a record of its own.) */
		memcpy(q.buf + SA_HDR_END, req + SA_HDR_END, SA_DATA_SIZE);
		memset(q.buf + MAD_SIZE, 0, q.cap - MAD_SIZE);
		put_be16(q.buf + SA_OFF_ATTR_OFFSET, 0);
		q.len = MAD_SIZE;
	} else if (!table) {
		q.len = MAD_SIZE;
	}
	*resp = q.buf;
	*resp_len = q.len;
	return 1;
}
