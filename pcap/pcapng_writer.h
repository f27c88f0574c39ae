/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A minimal pcapng writer for MAD captures: a section of its own, one
 * interface per (CA, port), every packet an ERF type 21 (InfiniBand)
 * record, which stock Wireshark decodes.  No block crosses a 4 KiB page of
 * the file (a filler block of a local-use type, which readers skip, takes
 * the rest of a page), and the kernel stops a killed writer only between
 * pages: so a process killed mid-capture leaves a file readable up to its
 * last whole block.  With batching on, blocks are gathered and written
 * 256 KiB at a time, each write ending on a multiple of 256 KiB in the file.
 *
 * Several writers, in one process or several, may share a file: each write
 * is of whole blocks, under the file's write lock (capture_file.h).  When
 * another writer wrote since a writer's last write, the file's last section
 * is not the writer's: its write then begins a new section, its section
 * header and the interface blocks it wrote so far again (interfaces keep
 * their numbers), then what it gathered.  A writer's section header carries
 * the comment "pid=PID start=SECONDS.NANOSECONDS", the same in each of its
 * sections, by which readers tell whose a section is.
 */
#ifndef LIBUMAD_PCAPNG_WRITER_H
#define LIBUMAD_PCAPNG_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "capture_meta.h"
#include "base/errbuf.h"
#include "pcapng_format.h"

struct pcapng_writer;

/*
 * Create path as capture_file_create() does (capture_file.h) and write the
 * section header; NULL with errno set and why in err.
 */
struct pcapng_writer *pcapng_create(const char *path, const char *application,
				    struct umad_err *err);
/*
 * Open path as capture_file_append() does, to add sections to what it
 * holds (created if missing), and gather the section header; NULL with
 * errno set and why in err.  A file that is not empty must begin with a
 * pcapng section header in this machine's byte order and end with a whole
 * block in it (EEXIST, EBADMSG): what would follow anything else could not
 * be read.
 */
struct pcapng_writer *pcapng_append(const char *path, const char *application,
				    struct umad_err *err);
/* Why the last write failed with -EBADMSG (the file's end is not a whole block), or NULL. */
const char *pcapng_error(const struct pcapng_writer *w);
/* Add an interface named e.g. "mlx5_0:1"; returns its id (>= 0) or -errno. */
int pcapng_add_interface(struct pcapng_writer *w, const char *name, const char *description);
/*
 * Write one InfiniBand packet (LRH..VCRC) as an ERF record on interface id,
 * at time ts_ns (Unix epoch, nanoseconds), with direction, an optional
 * comment and a packet id (0: none).  0 or -errno.
 */
int pcapng_write_ib(struct pcapng_writer *w, int id, uint64_t ts_ns, enum pcapng_direction dir,
		    const uint8_t *pkt, size_t len, const char *comment, uint64_t packet_id);
/*
 * The same, but the len bytes of the packet are left for the caller to put
 * at *pkt_at (before the next call on w): packets are built in place.
 * Always gathers, as with batching on.  0 or -errno.
 */
int pcapng_add_ib(struct pcapng_writer *w, int id, uint64_t ts_ns, enum pcapng_direction dir,
		  size_t len, const char *comment, uint64_t packet_id, uint8_t **pkt_at);
/* Gather blocks (on) until pcapng_flush(), or write each at once (off, the default). */
void pcapng_set_batching(struct pcapng_writer *w, int on);
/* Write what is gathered; 0 or -errno. */
int pcapng_flush(struct pcapng_writer *w);
/*
 * Write what is gathered up to the last multiple of 64 KiB in the file (if
 * it reaches one), keeping the rest for a write that ends aligned too.
 * 0 or -errno.
 */
int pcapng_flush_aligned(struct pcapng_writer *w);
/* Close the file (flushing first); 0 or -errno. */
int pcapng_close(struct pcapng_writer *w);
/* Close the file writing nothing more, what is gathered dropped (a forked child's copy). */
void pcapng_discard(struct pcapng_writer *w);

#endif /* LIBUMAD_PCAPNG_WRITER_H */
