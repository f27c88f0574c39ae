/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the capture reader (what the replay backend and
 * "umad capture stats" feed every file through): every input must end in
 * a record stream, an error message, or the end, never a crash or a leak;
 * every field of every record is read, every byte of every packet, so an
 * answer that points past what was read is caught.  What the reader
 * promises of a record is checked too: it lies in the file at packet_at,
 * its LRH is whole and gives no more bytes than the packet has, and a MAD
 * found in it lies inside it; sections come in order, each record of a
 * pcapng file in one, with a writer (seeds: files of several sections, of
 * both byte orders, the last block cut short); an error names the file,
 * and so does the reason a file that ends with no MAD gives.
 *
 * Sources: tests/fuzz/fuzz_capture_reader.c pcap/pcapng_reader.c
 * ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mad_wire.h"
#include "pcap/pcapng_reader.h"
#include "tests/fuzz/read_all.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

/* The input file goes with the process: runs must not pile files up in /dev/shm. */
static void remove_input(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* On a memory file system when there is one: every input is a file. */
	snprintf(path, sizeof(path), "%s/umad-fuzz-reader-%d",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
	atexit(remove_input);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture_record rec;
	struct capture_reader *r;
	volatile unsigned sink = 0;
	unsigned long section = 0;
	struct umad_err err = UMAD_ERR_INIT;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), got;

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	r = capture_open(path, &err);
	if (!r) {
		sink += sum_bytes(umad_err_text(&err), strlen(umad_err_text(&err)));
		return 0;
	}
	while ((got = capture_next(r, &rec, &err)) == 1) {
		const uint8_t *mad;
		size_t mad_len;

		/*
		 * Sections only come one after another; a pcapng packet is in
		 * one (classic pcap: none), and has a writer.
		 */
		if (rec.section < section || (data[0] == 0x0a && (!rec.section || !rec.writer)))
			abort();
		section = rec.section;

		sink += sum_bytes(rec.packet, rec.len) + sum_bytes(rec.comment, strlen(rec.comment)) +
			sum_bytes(rec.iface_name, strlen(rec.iface_name)) + (unsigned)rec.iface +
			(unsigned)rec.direction + (unsigned)rec.ts_ns + (unsigned)rec.packet_id +
			(unsigned)capture_direction(&rec);
		if (rec.packet_at + rec.len > size || memcmp(data + rec.packet_at, rec.packet, rec.len))
			abort();	/* not where packet_at says */
		if (rec.len < IB_LRH_LEN ||
		    (size_t)(get_be16(rec.packet + LRH_OFF_PKTLEN) & LRH_PKTLEN_MAX) * IB_WORD_LEN >
		    rec.len)
			abort();	/* an LRH that was let through */
		mad = capture_mad(&rec, &mad_len);
		if (mad && (mad < rec.packet || mad + mad_len > rec.packet + rec.len ||
			    mad_len < MAD_HDR_SIZE))
			abort();
		if (mad)
			sink += sum_bytes(mad, mad_len);
	}
	if (got == 0 && capture_why_no_mad(r, &err) && strncmp(umad_err_text(&err), path, strlen(path)))
		abort();
	if (got < 0 && strncmp(umad_err_text(&err), path, strlen(path)))
		abort();	/* an error that does not name the file */
	if (got < 0)
		sink += sum_bytes(umad_err_text(&err), strlen(umad_err_text(&err)));
	capture_close(r);
	(void)sink;
	return 0;
}
