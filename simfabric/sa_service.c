/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ServiceRecord: services registered with a Set, keyed by ServiceID,
 * ServiceGID and ServiceP_Key, found with Get/GetTable by any components,
 * removed by a Delete or when their lease (seconds; all ones: forever)
 * runs out.  As opensm does: a Delete names the service by the ID, GID and
 * P_Key its record holds, whatever components it selects (osmtest deletes
 * the record it found by name with the ServiceName component alone); the
 * ServiceGID names its port by the GUID alone, whatever the prefix (osmtest
 * registers with a prefix in host byte order), and is kept as given; an
 * untrusted requester never sees a ServiceKey.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simfabric/sa_common.h"

static const mad_field_t service_fields[] = { SERVICE_RECORD_FIELDS(MAD_FIELD_ITEM) };
static const struct sa_components service_components = {
	service_fields, sizeof(service_fields) / sizeof(service_fields[0]), 0, 0, 0
};

/* Drop the services whose lease ran out. */
static void purge(struct sim_sa *sa)
{
	uint64_t now = sa_now(sa);
	size_t i = 0;

	while (i < sa->n_services) {
		if (sa->services[i].expires && sa->services[i].expires <= now)
			sa->services[i] = sa->services[--sa->n_services];
		else
			i++;
	}
}

/* The registration a record names: same ServiceID, ServiceGID and ServiceP_Key. */
static struct sa_service *find(struct sim_sa *sa, const uint8_t *rec)
{
	size_t i;

	for (i = 0; i < sa->n_services; i++) {
		const uint8_t *s = sa->services[i].rec;

		if (mad_field_equal(s, rec, SR_ID) && mad_field_equal(s, rec, SR_GID) &&
		    mad_field_equal(s, rec, SR_P_KEY))
			return &sa->services[i];
	}
	return NULL;
}

/* A record as a query sees it: the lease left. */
static void current(const struct sim_sa *sa, const struct sa_service *s, uint8_t *rec)
{
	uint64_t now = sa_now(sa);

	memcpy(rec, s->rec, SA_SERVICE_REC_SIZE);
	if (s->expires)
		mad_set(rec, SR_LEASE, s->expires > now ? s->expires - now : 0);
}

/* A record as it goes out: the ServiceKey for the trusted only. */
static int answer(struct sa_query *q, uint8_t *rec)
{
	if (!q->trusted)
		memset(MAD_AT(rec, SR_KEY), 0, MAD_FIELD_SIZE(SR_KEY));
	return sa_add(q, rec);
}

/*
 * Is the ServiceGID one a service may be registered under?  A multicast
 * GID (a service offered on a group), or the GUID of a port the SA knows
 * (an alias GUID too) under any prefix.
 */
static int service_gid_valid(const struct sim_sa *sa, const uint8_t *gid)
{
	if (mad_get(gid, MGID_PREFIX) == MGID_PREFIX_BYTE)
		return 1;
	return sa_port_by_guid(sa, mad_get(gid, GID_GUID)) != NULL;
}

int sa_service_query(struct sa_query *q)
{
	uint8_t rec[SA_SERVICE_REC_SIZE];
	size_t i;

	q->comps = &service_components;
	purge(q->sa);
	for (i = 0; i < q->sa->n_services && !sa_done(q); i++) {
		current(q->sa, &q->sa->services[i], rec);
		if (sa_matches(q, rec))
			answer(q, rec);
	}
	return q->error;
}

/* The request's record with the defaults of components not given; its key checked. */
static int request_record(struct sa_query *q, uint8_t *rec)
{
	if ((q->comp_mask & (SA_SR_COMP_ID | SA_SR_COMP_GID)) != (SA_SR_COMP_ID | SA_SR_COMP_GID))
		return SA_STATUS(UMAD_SA_STATUS_INSUF_COMPS);
	memcpy(rec, q->rec, SA_SERVICE_REC_SIZE);
	if (!(q->comp_mask & SA_SR_COMP_PKEY))
		mad_set(rec, SR_P_KEY, PKEY_DEFAULT);
	if (!(q->comp_mask & SA_SR_COMP_LEASE))
		mad_set(rec, SR_LEASE, SA_SERVICE_LEASE_INFINITE);
	return 0;
}

int sa_service_set(struct sa_query *q)
{
	struct sim_sa *sa = q->sa;
	uint8_t rec[SA_SERVICE_REC_SIZE];
	struct sa_service *s;
	uint32_t lease;
	int status = request_record(q, rec);

	if (status)
		return status;
	/* A service is offered by a port of the subnet (or on a group); opensm says ERR_REQ_INVALID. */
	if (!service_gid_valid(sa, MAD_AT(rec, SR_GID)))
		return SA_STATUS(UMAD_SA_STATUS_REQ_INVALID);
	purge(sa);
	s = find(sa, rec);
	if (!s) {
		if (sa->n_services == sa->cap_services) {
			size_t cap = sa->cap_services ? sa->cap_services * 2 : 8;
			struct sa_service *grown = realloc(sa->services, cap * sizeof(*grown));

			if (!grown)
				return SA_STATUS(UMAD_SA_STATUS_NO_RESOURCES);
			sa->services = grown;
			sa->cap_services = cap;
		}
		s = &sa->services[sa->n_services++];
	}
	memcpy(s->rec, rec, sizeof(rec));
	lease = (uint32_t)mad_get(rec, SR_LEASE);
	/* A lease of 0 lapses at once: the next look finds the service gone. */
	s->expires = lease == SA_SERVICE_LEASE_INFINITE ? 0 : sa_now(sa) + lease;
	return answer(q, rec);
}

int sa_service_delete(struct sa_query *q)
{
	struct sim_sa *sa = q->sa;
	uint8_t rec[SA_SERVICE_REC_SIZE];
	struct sa_service *s;

	memcpy(rec, q->rec, SA_SERVICE_REC_SIZE);
	purge(sa);
	s = find(sa, rec);
	if (!s)
		return SA_STATUS(UMAD_SA_STATUS_NO_RECORDS);
	current(sa, s, rec);
	*s = sa->services[--sa->n_services];
	return answer(q, rec);
}

void sa_service_free(struct sim_sa *sa)
{
	free(sa->services);
}
