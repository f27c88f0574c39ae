/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <libgen.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/elf_file.h"
#include "cli/own_library.h"

struct note_search {
	uintptr_t addr;		/* an address inside the library */
	char *version;
	size_t size;
	int found;		/* the object holding addr was seen */
};

static int in_segment(const struct dl_phdr_info *info, uintptr_t addr)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && addr >= start && addr - start < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The note of the loaded object that holds the address, read where the loader mapped it. */
static int note_of_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct note_search *ns = arg;
	int i;

	(void)size;
	if (!in_segment(info, ns->addr))
		return 0;
	ns->found = 1;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const void *desc;
		size_t len;

		if (ph->p_type == PT_NOTE &&
		    elf_note_find((const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
				  ph->p_align, UMAD_NOTE_NAME, UMAD_NOTE_TYPE, &desc, &len) &&
		    len && len <= ns->size && memchr(desc, '\0', len) == (const char *)desc + len - 1) {
			memcpy(ns->version, desc, len);
			break;
		}
	}
	return 1;
}

int own_library_find(struct own_library *own, char *why, size_t why_size)
{
	struct note_search ns = { .version = own->version, .size = sizeof(own->version) };
	void *fn;
	Dl_info info;
	struct stat st;

	memset(own, 0, sizeof(*own));
	/* The definition the program's calls reach (dlsym: never a PLT stub of umad's). */
	fn = dlsym(RTLD_DEFAULT, "umad_init");
	if (!fn || !dladdr(fn, &info) || !info.dli_fname || !info.dli_fname[0]) {
		snprintf(why, why_size, "no library gives umad_init");
		return -ENOENT;
	}
	snprintf(own->path, sizeof(own->path), "%s", info.dli_fname);
	if (!realpath(own->path, own->real))
		snprintf(own->real, sizeof(own->real), "%s", own->path);
	ns.addr = (uintptr_t)fn;
	dl_iterate_phdr(note_of_object, &ns);
	if (!ns.found) {
		snprintf(why, why_size, "umad_init is in no loaded object");
		return -ENOENT;
	}
	if (stat(own->real, &st) < 0) {
		snprintf(why, why_size, "%s: %s", own->real, strerror(errno));
		return -errno;
	}
	own->dev = st.st_dev;
	own->ino = st.st_ino;
	return 0;
}

int own_library_is_ours(const struct own_library *own)
{
	return !strcmp(own->version, PACKAGE_VERSION);
}

char *own_library_search_path(const struct own_library *own)
{
	const char *old = getenv("LD_LIBRARY_PATH");
	char dir[PATH_MAX], abs_dir[PATH_MAX], *value = NULL;
	size_t n;

	/* The directory of the name the loader used (libibumad.so.3), not of the file it links to. */
	snprintf(dir, sizeof(dir), "%s", own->path);
	if (!realpath(dirname(dir), abs_dir))
		return NULL;
	n = strlen(abs_dir);
	if (old && !strncmp(old, abs_dir, n) && (old[n] == ':' || !old[n]))
		return strdup(old);
	if (asprintf(&value, "%s%s%s", abs_dir, old && *old ? ":" : "", old ? old : "") < 0)
		return NULL;
	return value;
}

int own_library_check(const char *what)
{
	struct own_library own;
	char why[PATH_MAX + 64];

	if (own_library_find(&own, why, sizeof(why)) < 0) {
		fprintf(stderr, "umad: %s: cannot tell which libibumad.so.3 this umad runs on: %s\n",
			what, why);
		return -1;
	}
	if (own_library_is_ours(&own))
		return 0;
	if (own.version[0])
		fprintf(stderr, "umad: %s: this umad (libumad %s) runs on %s, of libumad %s: "
			"install both from one build\n", what, PACKAGE_VERSION, own.real,
			own.version);
	else
		fprintf(stderr, "umad: %s: this umad runs on %s, which is not libumad's "
			"libibumad.so.3 (rdma-core's?): the loader found it before umad's own; "
			"see `umad doctor`\n", what, own.real);
	return -1;
}
