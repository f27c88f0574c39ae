/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * How this project's libibumad.so.3 tells itself apart from rdma-core's,
 * which has the same SONAME and symbols: an ELF note in a PT_NOTE segment,
 * named UMAD_NOTE_NAME, of type UMAD_NOTE_TYPE, whose descriptor is the
 * package version (NUL-terminated).  A note, not a symbol: the exported
 * interface stays exactly rdma-core's, and the note is read from a file on
 * disk (umad doctor, before anything loads it) as well as from the library
 * in memory (umad, about the one it runs on).
 */
#ifndef UMAD_BASE_PROJECT_NOTE_H
#define UMAD_BASE_PROJECT_NOTE_H

#define UMAD_NOTE_NAME	"libumad"
/* "umad" in ASCII: the note's own type within its name's space. */
#define UMAD_NOTE_TYPE	0x756d6164
/* The longest version a note may carry, its NUL included. */
#define UMAD_NOTE_VERSION_MAX	64

#endif /* UMAD_BASE_PROJECT_NOTE_H */
