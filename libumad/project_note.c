/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The note that names libibumad.so.3 as this project's (base/project_note.h).
 * Written in assembler: a C object in a section named .note.* is not given
 * the note type by every compiler, and the linker puts only SHT_NOTE
 * sections into the PT_NOTE segment the readers look in.
 */
#include "config.h"

#include "base/project_note.h"

#define NOTE_STR(x)	#x
#define NOTE_XSTR(x)	NOTE_STR(x)

__asm__(".pushsection .note.libumad,\"a\",%note\n"
	".balign 4\n"
	".long 2f - 1f\n"		/* namesz */
	".long 4f - 3f\n"		/* descsz */
	".long " NOTE_XSTR(UMAD_NOTE_TYPE) "\n"
	"1: .asciz \"" UMAD_NOTE_NAME "\"\n"
	"2: .balign 4\n"
	"3: .asciz \"" PACKAGE_VERSION "\"\n"
	"4: .balign 4\n"
	".popsection\n");
