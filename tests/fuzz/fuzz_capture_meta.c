/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the capture comment parser (what replay and
 * "umad capture stats" run on every record's comment): any text is read
 * or refused with a reason, never a crash; and what it reads, formatted
 * and read again, comes back the same.
 *
 * Sources: tests/fuzz/fuzz_capture_meta.c pcap/capture_meta.c
 * ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcap/capture_meta.h"
#include "tests/fuzz/read_all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture_meta m, again;
	char text[2048], line[CAPTURE_META_MAX];
	struct umad_err err = UMAD_ERR_INIT;
	volatile unsigned sink = 0;

	/* A comment is text: up to the reader's limit, up to a NUL. */
	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	if (capture_meta_parse(text, &m, &err) < 0) {
		sink += sum_string(umad_err_text(&err));
		return 0;
	}
	if (capture_meta_format(&m, line, sizeof(line)) < 0 ||
	    capture_meta_parse(line, &again, &err) < 0 ||
	    memcmp(&m, &again, sizeof(m)))
		abort();
	(void)sink;
	return 0;
}
