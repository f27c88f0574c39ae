/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the dynamic loader reads of a program or a library before it runs
 * it: the ELF header, the program interpreter (PT_INTERP), and from the
 * dynamic section (PT_DYNAMIC) the libraries it needs (DT_NEEDED), its
 * search paths (DT_RPATH, DT_RUNPATH), its SONAME and DT_FLAGS_1; and this
 * project's note (base/project_note.h), which tells our
 * libibumad.so.3 from rdma-core's.  32- and 64-bit files of either byte
 * order; every offset, size and string is checked against the file, so
 * that any file (a stranger's program named on the command line) is read
 * or refused with a reason, never read past.  Read with pread, not mapped:
 * a file cut short while it is read is an error, not a SIGBUS.
 */
#ifndef CLI_ELF_FILE_H
#define CLI_ELF_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"

#define ELF_FILE_MAX_NEEDED	256
/* Room for the strings kept (interpreter, needed names, paths, SONAME, version). */
#define ELF_FILE_STRINGS	16384

struct elf_file {
	unsigned char elf_class;	/* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;		/* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t type;			/* ET_EXEC, ET_DYN, ... */
	uint16_t machine;		/* EM_X86_64, ... */
	const char *interp;		/* PT_INTERP's path; NULL: none (a static program) */
	int dynamic;			/* it has a PT_DYNAMIC segment */
	const char *needed[ELF_FILE_MAX_NEEDED];	/* DT_NEEDED, in order */
	unsigned n_needed;
	const char *rpath, *runpath, *soname;	/* NULL when absent */
	uint64_t flags_1;		/* DT_FLAGS_1 (DF_1_NODEFLIB...); 0 when absent */
	const char *umad_version;	/* this project's note; NULL: none */
	/* Where the pointers above point: a struct elf_file is not to be copied. */
	char strings[ELF_FILE_STRINGS];
	size_t strings_used;
};

/*
 * Read the ELF file of size bytes at image into *ef.  0, or -errno with why
 * in err: -ENOEXEC when it is not ELF, -EINVAL when something in it points
 * outside the file or does not read, -E2BIG past the limits above.
 */
int elf_file_parse(const void *image, size_t size, struct elf_file *ef, struct umad_err *err);

/* The same for the file at path (a regular file, opened for reading): the message names it. */
int elf_file_read(const char *path, struct elf_file *ef, struct umad_err *err);

/*
 * In size bytes of ELF notes at notes, in the byte order of this machine and
 * aligned as align (4 or 8, the segment's p_align), the descriptor of the
 * first note named name of type type: 1 with *desc and *desc_size, 0 when
 * there is none or the notes do not read.
 */
int elf_note_find(const void *notes, size_t size, size_t align, const char *name, uint32_t type,
		  const void **desc, size_t *desc_size);

#endif /* CLI_ELF_FILE_H */
