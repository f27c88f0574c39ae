/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The built-in subnet administrator: SA queries answered from the fabric
 * model (node, port, switch, link, path and table records), multicast
 * groups (joins and leaves, reported to the owner so it can program the
 * MFTs), service registrations and InformInfo subscriptions with the
 * Reports they lead to.
 *
 * The SA holds no lock: its owner serialises every call with the fabric's
 * (see fabric.h).  It sends nothing itself: responses are returned whole
 * (the owner segments them as RMPP), Reports go out through a hook.
 */
#ifndef SIMFABRIC_SA_H
#define SIMFABRIC_SA_H

#include <stddef.h>
#include <stdint.h>

#include "simfabric/fabric.h"
#include "simfabric/sa_types.h"

struct sim_sa;

/*
 * A new SA for fabric f.  sm_port: where the SM and SA sit (its LID is the
 * SA's, SMInfoRecord starts with its node's SMInfo, the subnet timeout sets
 * the packet lifetime of paths).  The IPoIB broadcast group of the default
 * partition (MGID ff12:401b:ffff::ffff:ffff) is created at the first
 * multicast LID, as an SM does at start; it stays when its members leave.
 * NULL on ENOMEM.
 */
struct sim_sa *sim_sa_new(struct sim_fabric *f, struct sim_port *sm_port,
			  const struct sim_sa_hooks *hooks);
void sim_sa_free(struct sim_sa *sa);

/*
 * The SA's SM_Key (opensm's default, 1, until set): requests carrying it
 * are trusted (they see other ports' multicast memberships and M_Keys);
 * requests with another non-zero key are dropped; 0 is untrusted.
 */
void sim_sa_set_key(struct sim_sa *sa, uint64_t sm_key);


/*
 * Process one SA request: req is the whole request message (MAD header,
 * RMPP header, SA header, data; req_len >= MAD_SIZE).  Returns 1 with
 * *resp (malloc'd, the caller frees it) holding the whole response message
 * of *resp_len bytes: the MAD header (response method, status, same TID and
 * attribute), the RMPP header left zero for the caller to fill, the SA
 * header (SM_Key 0, AttributeOffset in 8-byte words, the component mask
 * echoed), then every record back to back.  A GetTableResp or
 * GetMultiResp (MultiPathRecord's, whose records are PathRecords) is
 * SA_HDR_END + n * record size bytes long (0 records: SA_HDR_END, a
 * success); every other response, and any error, is MAD_SIZE.  req may be
 * longer than one MAD (a GetMulti's request of several RMPP segments,
 * joined).  The buffer is always at
 * least MAD_SIZE bytes, zero beyond *resp_len.
 * Returns 0 when there is nothing to answer (a response or Report(Resp)
 * arriving, not an SA MAD, a class version other than 2, a wrong SM_Key)
 * and -ENOMEM when the answer could not be built.
 */
int sim_sa_process(struct sim_sa *sa, const struct sim_sa_requester *from,
		   const uint8_t *req, size_t req_len, uint8_t **resp, size_t *resp_len);

/*
 * A trap or notice happened: notice is the Notice attribute's first
 * NOTICE_SMP_SIZE bytes (as an SMP Trap carries it).  Every InformInfo
 * subscriber whose subscription matches gets a Report through
 * hooks->send_report, with the IssuerGID filled from the issuer's LID.
 * Returns the number of Reports sent.
 */
unsigned sim_sa_notice(struct sim_sa *sa, const uint8_t *notice);

/* The members of the group at mlid, up to max of them in out; returns how many there are. */
size_t sim_sa_mcast_members(const struct sim_sa *sa, uint16_t mlid, struct sim_port **out,
			    size_t max);

/* Let the SA's clock run on by `seconds` (service leases; for tests). */
void sim_sa_age(struct sim_sa *sa, unsigned seconds);

#endif /* SIMFABRIC_SA_H */
