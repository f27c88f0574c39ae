/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for what umad reads of a stranger's program before it
 * runs it (umad sim, umad doctor): any bytes as an ELF file are read or
 * refused with a reason, never read past; what is read holds together (a
 * known class and byte order, each needed name a string); the same bytes
 * as ELF notes of either alignment, and as the loader's cache, are read
 * within their bounds.
 *
 * Sources: tests/fuzz/fuzz_elf_file.c cli/elf_file.c cli/ld_cache.c
 * ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/elf_file.h"
#include "cli/ld_cache.h"
#include "base/project_note.h"
#include "tests/fuzz/read_all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static int each(void *arg, const char *path)
{
	(void)arg;
	sink += sum_string(path);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct elf_file ef;
	struct umad_err err = UMAD_ERR_INIT;
	const void *desc;
	size_t len;
	unsigned i;
	/* A copy of exactly size bytes: ASan sees a read past the input. */
	uint8_t *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	if (elf_file_parse(copy, size, &ef, &err) < 0) {
		if (!umad_err_text(&err)[0])
			abort();
	} else {
		if ((ef.elf_class != ELFCLASS32 && ef.elf_class != ELFCLASS64) ||
		    (ef.data != ELFDATA2LSB && ef.data != ELFDATA2MSB) ||
		    ef.n_needed > ELF_FILE_MAX_NEEDED)
			abort();
		for (i = 0; i < ef.n_needed; i++)
			sink += sum_string(ef.needed[i]);
		sink += sum_string(ef.interp) + sum_string(ef.rpath) + sum_string(ef.runpath) +
			sum_string(ef.soname) + sum_string(ef.umad_version);
	}
	if (elf_note_find(copy, size, 4, UMAD_NOTE_NAME, UMAD_NOTE_TYPE, &desc, &len) ||
	    elf_note_find(copy, size, 8, UMAD_NOTE_NAME, UMAD_NOTE_TYPE, &desc, &len)) {
		if ((const uint8_t *)desc < copy || len > size ||
		    (const uint8_t *)desc + len > copy + size)
			abort();
		sink += sum_bytes(desc, len);
	}
	ld_cache_each(copy, size, "libibumad.so.3", each, NULL);
	free(copy);
	return 0;
}
