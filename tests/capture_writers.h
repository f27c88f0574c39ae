/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * For tests of files several processes wrote: the writers of a capture's
 * records, numbered in the order they first appear, and its sections.
 */
#ifndef TESTS_CAPTURE_WRITERS_H
#define TESTS_CAPTURE_WRITERS_H

#include <stdint.h>

#include "pcap/pcapng_reader.h"

#define CAPTURE_WRITERS_MAX 64

struct capture_writers {
	int writers, sections;
	unsigned long section;		/* of the record last seen */
	uint64_t id[CAPTURE_WRITERS_MAX];
	int records[CAPTURE_WRITERS_MAX];
};

/* Count rec: the index of its writer, or -1 past CAPTURE_WRITERS_MAX writers. */
static inline int capture_writer_of(struct capture_writers *w, const struct capture_record *rec)
{
	int i;

	if (rec->section != w->section) {
		w->section = rec->section;
		w->sections++;
	}
	for (i = 0; i < w->writers && w->id[i] != rec->writer; i++)
		;
	if (i == CAPTURE_WRITERS_MAX)
		return -1;
	if (i == w->writers)
		w->id[w->writers++] = rec->writer;
	w->records[i]++;
	return i;
}

#endif /* TESTS_CAPTURE_WRITERS_H */
