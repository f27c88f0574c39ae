/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The replay backend's index of a capture: each recorded request (by its
 * key, the bytes that identify it) with its recorded answers in order.
 * Requests are kept as keys, and answers as where their MADs lie in the
 * capture file (or as copies of them, packed in the order the file has
 * them, when the file cannot be read again), so the index is a fraction of
 * the file, which also holds the requests, the packet headers and the
 * pcapng framing.  Requests asked again in their recorded order, and their
 * answers, are read along runs of memory.
 *
 * Not thread-safe: the caller serialises every call on one index.
 */
#ifndef LIBUMAD_REPLAY_INDEX_H
#define LIBUMAD_REPLAY_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_NO_ANSWER	UINT32_MAX

/*
 * A recorded answer's MAD is in one of three places: owned (put together
 * from RMPP segments), kept (copied from a stream), or else still in the
 * capture file, at 'at', carrying 'tid' (read back when it is asked for).
 */
struct replay_answer {
	const uint8_t *kept;	/* the MAD, kept by replay_index_keep(), or NULL */
	uint8_t *owned;		/* the whole answer when reassembled from segments, else NULL */
	uint64_t at;		/* neither: where the MAD lies in the capture file */
	uint32_t len;		/* of the MAD (or of owned) */
	uint32_t next;		/* the request's next answer, REPLAY_NO_ANSWER after the last */
	uint32_t src_qp;
	uint32_t tid;		/* the low half of the MAD's TID, as recorded */
	uint16_t slid;
	uint8_t sl;
	uint8_t timeout;	/* the recorded request timed out: no MAD */
};

struct replay_index;

struct replay_index *replay_index_new(void);
void replay_index_free(struct replay_index *idx);

/*
 * Room for about this many requests before they come (a capture's size says
 * roughly how many it holds): fewer growths while loading.  0, -EINVAL (more
 * than an index holds) or -ENOMEM; more requests than expected still fit.
 */
int replay_index_expect(struct replay_index *idx, size_t requests);

/*
 * The id of the request with key (len bytes, 1..65535), created with no
 * answer when create is set and there is none yet: >= 0, or -ENOENT (not
 * there, create unset), -EINVAL (bad length) or -ENOMEM.
 */
int64_t replay_index_request(struct replay_index *idx, const uint8_t *key, size_t len, int create);

/*
 * Add an answer to request id after its others (a->next is ignored): the
 * answer's id, or -ENOMEM.  An owned buffer becomes the index's to free.
 */
int64_t replay_index_add_answer(struct replay_index *idx, uint32_t id, const struct replay_answer *a);

/* Answer answer_id as stored, for a caller completing it (valid until the next add). */
struct replay_answer *replay_index_answer(struct replay_index *idx, uint32_t answer_id);

/*
 * The answer a request gets now: its answers in recorded order, the last
 * again once they are used up; NULL for a request with none.
 */
const struct replay_answer *replay_index_take(struct replay_index *idx, uint32_t id);

/*
 * Keep len bytes (an answer's MAD) for as long as the index: a pointer to
 * the copy, or NULL on ENOMEM.  Copies are packed one after another.
 */
const uint8_t *replay_index_keep(struct replay_index *idx, const uint8_t *bytes, size_t len);

/* How many requests and answers the index holds. */
size_t replay_index_requests(const struct replay_index *idx);
size_t replay_index_answers(const struct replay_index *idx);

#endif /* LIBUMAD_REPLAY_INDEX_H */
