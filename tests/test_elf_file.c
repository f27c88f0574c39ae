/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * cli/elf_file.c, cli/ld_cache.c and cli/lib_search.c: ELF files made here,
 * 32- and 64-bit, of both byte orders, read back field by field; every cut
 * and every bad offset refused with a reason; the loader's cache read as
 * glibc writes it; the loader's search order (DT_RPATH, LD_LIBRARY_PATH,
 * DT_RUNPATH, secure-execution mode, indirect needs, another machine's
 * file) on files made in a temporary directory; and this build's
 * libibumad.so.3 carrying its note.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/elf_file.h"
#include "cli/ld_cache.h"
#include "cli/lib_search.h"
#include "base/project_note.h"

/* --- an ELF file made to order ------------------------------------------------------ */

struct spec {
	int is64, big;
	uint16_t machine;
	const char *interp;		/* NULL: none (static) */
	const char *needed[4];
	const char *rpath, *runpath, *soname;
	const char *version;		/* this project's note; NULL: none */
};

struct image {
	uint8_t b[4096];
	size_t len;
	int is64, big;
	size_t phoff, dyn;	/* where build put the program headers and the dynamic section */
};

static void put(struct image *im, size_t at, uint64_t v, size_t width)
{
	size_t i;

	for (i = 0; i < width; i++)
		im->b[at + (im->big ? width - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

#define PUT(im, base, t32, t64, field, v) \
	((im)->is64 ? put(im, (base) + offsetof(t64, field), v, sizeof(((t64 *)0)->field)) \
		    : put(im, (base) + offsetof(t32, field), v, sizeof(((t32 *)0)->field)))

static size_t add_bytes(struct image *im, const void *p, size_t n)
{
	size_t at = im->len;

	memcpy(im->b + at, p, n);
	im->len += n;
	return at;
}

static void align(struct image *im, size_t a)
{
	while (im->len % a)
		im->b[im->len++] = 0;
}

enum { SEG_INTERP, SEG_LOAD, SEG_DYNAMIC, SEG_NOTE, N_SEG };

static void set_segment(struct image *im, size_t phoff, int i, uint32_t type, uint64_t off,
			uint64_t size, uint64_t a)
{
	size_t at = phoff + (size_t)i * (im->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));

	PUT(im, at, Elf32_Phdr, Elf64_Phdr, p_type, type);
	PUT(im, at, Elf32_Phdr, Elf64_Phdr, p_offset, off);
	PUT(im, at, Elf32_Phdr, Elf64_Phdr, p_vaddr, off);
	PUT(im, at, Elf32_Phdr, Elf64_Phdr, p_filesz, size);
	PUT(im, at, Elf32_Phdr, Elf64_Phdr, p_memsz, size);
	PUT(im, at, Elf32_Phdr, Elf64_Phdr, p_align, a);
}

static void build(const struct spec *sp, struct image *im)
{
	size_t ehsize = sp->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phsize = sp->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t dsize = sp->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	size_t phoff = ehsize, interp = 0, strtab, dyn, note = 0, i, n_dyn = 0;
	uint64_t offs[4] = { 0 }, rp = 0, rup = 0, so = 0;
	struct { int64_t tag; uint64_t val; } d[16];

	memset(im, 0, sizeof(*im));
	im->is64 = sp->is64;
	im->big = sp->big;
	memcpy(im->b, ELFMAG, SELFMAG);
	im->b[EI_CLASS] = sp->is64 ? ELFCLASS64 : ELFCLASS32;
	im->b[EI_DATA] = sp->big ? ELFDATA2MSB : ELFDATA2LSB;
	im->b[EI_VERSION] = EV_CURRENT;
	PUT(im, 0, Elf32_Ehdr, Elf64_Ehdr, e_type, sp->interp ? ET_EXEC : ET_DYN);
	PUT(im, 0, Elf32_Ehdr, Elf64_Ehdr, e_machine, sp->machine);
	PUT(im, 0, Elf32_Ehdr, Elf64_Ehdr, e_phoff, phoff);
	PUT(im, 0, Elf32_Ehdr, Elf64_Ehdr, e_phentsize, phsize);
	PUT(im, 0, Elf32_Ehdr, Elf64_Ehdr, e_phnum, N_SEG);
	im->len = phoff + N_SEG * phsize;
	if (sp->interp)
		interp = add_bytes(im, sp->interp, strlen(sp->interp) + 1);
	/* The string table: offset 0 is the empty string, as linkers write it. */
	strtab = add_bytes(im, "", 1);
	for (i = 0; i < 4 && sp->needed[i]; i++)
		offs[i] = add_bytes(im, sp->needed[i], strlen(sp->needed[i]) + 1) - strtab;
	if (sp->rpath)
		rp = add_bytes(im, sp->rpath, strlen(sp->rpath) + 1) - strtab;
	if (sp->runpath)
		rup = add_bytes(im, sp->runpath, strlen(sp->runpath) + 1) - strtab;
	if (sp->soname)
		so = add_bytes(im, sp->soname, strlen(sp->soname) + 1) - strtab;
	d[n_dyn].tag = DT_STRTAB; d[n_dyn++].val = strtab;
	d[n_dyn].tag = DT_STRSZ; d[n_dyn++].val = im->len - strtab;
	for (i = 0; i < 4 && sp->needed[i]; i++) {
		d[n_dyn].tag = DT_NEEDED; d[n_dyn++].val = offs[i];
	}
	if (sp->rpath) { d[n_dyn].tag = DT_RPATH; d[n_dyn++].val = rp; }
	if (sp->runpath) { d[n_dyn].tag = DT_RUNPATH; d[n_dyn++].val = rup; }
	if (sp->soname) { d[n_dyn].tag = DT_SONAME; d[n_dyn++].val = so; }
	d[n_dyn].tag = DT_NULL; d[n_dyn++].val = 0;
	align(im, 8);
	dyn = im->len;
	for (i = 0; i < n_dyn; i++) {
		size_t at = dyn + i * dsize;

		PUT(im, at, Elf32_Dyn, Elf64_Dyn, d_tag, (uint64_t)d[i].tag);
		PUT(im, at, Elf32_Dyn, Elf64_Dyn, d_un.d_val, d[i].val);
	}
	im->len += n_dyn * dsize;
	im->phoff = phoff;
	im->dyn = dyn;
	if (sp->version) {
		size_t namesz = strlen(UMAD_NOTE_NAME) + 1, descsz = strlen(sp->version) + 1;

		align(im, 4);
		note = im->len;
		put(im, im->len, namesz, 4);
		put(im, im->len + 4, descsz, 4);
		put(im, im->len + 8, UMAD_NOTE_TYPE, 4);
		im->len += 12;
		add_bytes(im, UMAD_NOTE_NAME, namesz);
		align(im, 4);
		add_bytes(im, sp->version, descsz);
		align(im, 4);
	}
	set_segment(im, phoff, SEG_INTERP, sp->interp ? PT_INTERP : PT_NULL, interp,
		    sp->interp ? strlen(sp->interp) + 1 : 0, 1);
	set_segment(im, phoff, SEG_LOAD, PT_LOAD, 0, im->len, 4096);
	set_segment(im, phoff, SEG_DYNAMIC, PT_DYNAMIC, dyn, n_dyn * dsize, 8);
	set_segment(im, phoff, SEG_NOTE, sp->version ? PT_NOTE : PT_NULL, note,
		    sp->version ? im->len - note : 0, 4);
}

static const struct spec full = {
	.machine = EM_X86_64, .interp = "/lib64/ld-linux-x86-64.so.2",
	.needed = { "libibmad.so.5", "libibumad.so.3", "libc.so.6" },
	.rpath = "$ORIGIN/../lib", .runpath = "/opt/x", .soname = "libprobe.so.1",
	.version = "9.9.9",
};

static void check_full(const struct elf_file *ef, int is64, int big)
{
	assert_int_equal(ef->elf_class, is64 ? ELFCLASS64 : ELFCLASS32);
	assert_int_equal(ef->data, big ? ELFDATA2MSB : ELFDATA2LSB);
	assert_int_equal(ef->machine, EM_X86_64);
	assert_string_equal(ef->interp, full.interp);
	assert_true(ef->dynamic);
	assert_int_equal(ef->n_needed, 3);
	assert_string_equal(ef->needed[0], "libibmad.so.5");
	assert_string_equal(ef->needed[1], "libibumad.so.3");
	assert_string_equal(ef->needed[2], "libc.so.6");
	assert_string_equal(ef->rpath, full.rpath);
	assert_string_equal(ef->runpath, full.runpath);
	assert_string_equal(ef->soname, full.soname);
	assert_string_equal(ef->umad_version, "9.9.9");
}

static void each_class_and_order(void **state)
{
	static struct elf_file ef;
	struct image im;
	int is64, big;

	(void)state;
	for (is64 = 0; is64 < 2; is64++) {
		for (big = 0; big < 2; big++) {
			struct spec sp = full;
			struct umad_err err = UMAD_ERR_INIT;

			sp.is64 = is64;
			sp.big = big;
			build(&sp, &im);
			assert_int_equal(elf_file_parse(im.b, im.len, &ef, &err), 0);
			check_full(&ef, is64, big);
		}
	}
}

/* Every cut of the file: read whole, or refused with a reason; never past its end. */
static void every_cut(void **state)
{
	static struct elf_file ef;
	struct image im;
	struct spec sp = full;
	size_t n;
	int refused = 0;

	(void)state;
	sp.is64 = 1;
	build(&sp, &im);
	for (n = 0; n < im.len; n++) {
		struct umad_err err = UMAD_ERR_INIT;
		uint8_t *copy = malloc(n ? n : 1);
		int r;

		memcpy(copy, im.b, n);
		r = elf_file_parse(copy, n, &ef, &err);
		if (r < 0) {
			refused++;
			assert_true(umad_err_text(&err)[0] != '\0');
		}
		free(copy);
	}
	/* All but the cuts inside the note's padding fail: the segments reach to the end. */
	assert_true(refused >= (int)im.len - 4);
}

/* Entry i of the dynamic section (build's order: DT_STRTAB, DT_STRSZ, the DT_NEEDEDs...). */
static void set_dyn_val(struct image *im, size_t i, uint64_t v)
{
	size_t at = im->dyn + i * (im->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn));

	PUT(im, at, Elf32_Dyn, Elf64_Dyn, d_un.d_val, v);
}

static uint64_t get_dyn_val(const struct image *im, size_t i)
{
	size_t at = im->dyn + i * sizeof(Elf64_Dyn) + offsetof(Elf64_Dyn, d_un.d_val), k;
	uint64_t v = 0;

	for (k = 0; k < 8; k++)
		v |= (uint64_t)im->b[at + k] << (8 * k);
	return v;
}

/* Parse im, expecting rc and a reason containing what. */
static void refused(struct image *im, int rc, const char *what)
{
	static struct elf_file ef;
	struct umad_err err = UMAD_ERR_INIT;

	assert_int_equal(elf_file_parse(im->b, im->len, &ef, &err), rc);
	if (!strstr(umad_err_text(&err), what))
		fail_msg("'%s' does not say '%s'", umad_err_text(&err), what);
}

static void bad_offsets(void **state)
{
	struct image im;
	struct spec sp = full;
	size_t seg;

	(void)state;
	sp.is64 = 1;
	build(&sp, &im);
	set_dyn_val(&im, 1, 1);		/* DT_STRSZ: one byte */
	refused(&im, -EINVAL, "DT_NEEDED points outside the string table");

	build(&sp, &im);
	set_dyn_val(&im, 1, get_dyn_val(&im, 1) - 1);	/* the last string loses its NUL */
	refused(&im, -EINVAL, "DT_SONAME runs past the end of the string table");

	build(&sp, &im);
	set_dyn_val(&im, 0, 1u << 20);	/* DT_STRTAB at no PT_LOAD */
	refused(&im, -EINVAL, "DT_STRTAB is outside");

	build(&sp, &im);
	PUT(&im, 0, Elf32_Ehdr, Elf64_Ehdr, e_phoff, im.len);
	refused(&im, -EINVAL, "program headers are outside the file");

	build(&sp, &im);
	seg = im.phoff + SEG_INTERP * sizeof(Elf64_Phdr);
	PUT(&im, seg, Elf32_Phdr, Elf64_Phdr, p_filesz, strlen(full.interp));
	refused(&im, -EINVAL, "PT_INTERP is not a NUL-terminated path");

	build(&sp, &im);
	seg = im.phoff + SEG_DYNAMIC * sizeof(Elf64_Phdr);
	PUT(&im, seg, Elf32_Phdr, Elf64_Phdr, p_offset, im.len - 4);
	refused(&im, -EINVAL, "PT_DYNAMIC segment is outside the file");

	build(&sp, &im);
	im.b[EI_CLASS] = 3;
	refused(&im, -EINVAL, "ELF class 3");

	build(&sp, &im);
	memcpy(im.b, "#!/bin/sh\n", 10);
	refused(&im, -ENOEXEC, "not an ELF file");
}

static void static_program(void **state)
{
	static struct elf_file ef;
	struct image im;
	struct spec sp = { .is64 = 1, .machine = EM_X86_64 };

	(void)state;
	build(&sp, &im);
	assert_int_equal(elf_file_parse(im.b, im.len, &ef, NULL), 0);
	assert_null(ef.interp);
	assert_null(ef.umad_version);
	assert_int_equal(ef.n_needed, 0);
}

/* Notes aligned to 8 (GNU property notes) and to 4; one of another type is passed over. */
static void notes(void **state)
{
	uint32_t b[16] = { 0 };
	const void *desc;
	size_t len;

	(void)state;
	b[0] = 4; b[1] = 3; b[2] = 1;		/* "GNU\0", 3 bytes, type 1 */
	memcpy(&b[3], "GNU", 4);
	memcpy(&b[4], "ab", 3);
	b[6] = sizeof(UMAD_NOTE_NAME); b[7] = 2; b[8] = UMAD_NOTE_TYPE;
	memcpy(&b[9], UMAD_NOTE_NAME, sizeof(UMAD_NOTE_NAME));
	memcpy(&b[12], "x", 2);
	/* Aligned to 8: the first note's descriptor ends at 20, the next starts at 24. */
	assert_int_equal(elf_note_find(b, sizeof(b), 8, UMAD_NOTE_NAME, UMAD_NOTE_TYPE, &desc,
				       &len), 1);
	assert_int_equal(len, 2);
	assert_string_equal(desc, "x");
	assert_int_equal(elf_note_find(b, sizeof(b), 8, UMAD_NOTE_NAME, 7, &desc, &len), 0);
	/* A size that cuts the note: nothing found, nothing read past. */
	assert_int_equal(elf_note_find(b, 40, 8, UMAD_NOTE_NAME, UMAD_NOTE_TYPE, &desc, &len), 0);
}

/* This build's library: its note says this version; a program of this machine reads. */
static void real_files(void **state)
{
	static struct elf_file ef;
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	assert_int_equal(elf_file_read(TEST_LIBIBUMAD, &ef, &err), 0);
	assert_non_null(ef.umad_version);
	assert_string_equal(ef.umad_version, PACKAGE_VERSION);
	assert_string_equal(ef.soname, "libibumad.so.3");
	assert_null(ef.interp);
	assert_int_equal(elf_file_read("/proc/self/exe", &ef, &err), 0);
	assert_non_null(ef.interp);
	assert_true(ef.n_needed > 0);
	assert_null(ef.umad_version);
	assert_int_equal(elf_file_read("/nonexistent/x", &ef, &err), -ENOENT);
	assert_int_equal(elf_file_read("/", &ef, &err), -EINVAL);
}

/* --- the loader's cache ------------------------------------------------------------ */

#define CACHE_HEAD	48
#define CACHE_ENTRY	24

static size_t make_cache(uint8_t *b, size_t lead)
{
	static const char *const keys[] = { "libibumad.so.3", "libx.so.1", "libibumad.so.3" };
	static const char *const values[] = { "/a/libibumad.so.3", "/x/libx.so.1",
					      "/b/libibumad.so.3" };
	uint8_t *h = b + lead;
	uint32_t n = 3, i, at = CACHE_HEAD + 3 * CACHE_ENTRY;

	memcpy(h, "glibc-ld.so.cache1.1", 20);
	memcpy(h + 20, &n, 4);
	for (i = 0; i < n; i++) {
		uint8_t *e = h + CACHE_HEAD + i * CACHE_ENTRY;
		int32_t flags = 0x0303;
		uint32_t k = at, v = at + (uint32_t)strlen(keys[i]) + 1;

		memcpy(e, &flags, 4);
		memcpy(e + 4, &k, 4);
		memcpy(e + 8, &v, 4);
		strcpy((char *)h + k, keys[i]);
		strcpy((char *)h + v, values[i]);
		at = v + (uint32_t)strlen(values[i]) + 1;
	}
	return lead + at;
}

struct seen {
	char paths[4][64];
	int n, stop_at;
};

static int collect(void *arg, const char *path)
{
	struct seen *s = arg;

	snprintf(s->paths[s->n++], sizeof(s->paths[0]), "%s", path);
	return s->n == s->stop_at;
}

static void cache(void **state)
{
	uint8_t b[1024] = { 0 };
	struct seen s = { .stop_at = 0 };
	size_t len = make_cache(b, 0), cut;

	(void)state;
	assert_int_equal(ld_cache_each(b, len, "libibumad.so.3", collect, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.paths[0], "/a/libibumad.so.3");
	assert_string_equal(s.paths[1], "/b/libibumad.so.3");
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	assert_int_equal(ld_cache_each(b, len, "libibumad.so.3", collect, &s), 0);
	assert_int_equal(s.n, 1);
	/* After an old table of one entry (16 + 12 bytes, the new one aligned to 8). */
	memset(b, 0, sizeof(b));
	len = make_cache(b, 32);
	memcpy(b, "ld.so-1.7.0", 11);
	b[12] = 1;
	memset(&s, 0, sizeof(s));
	assert_int_equal(ld_cache_each(b, len, "libx.so.1", collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.paths[0], "/x/libx.so.1");
	/* Every cut of it: refused, or read with what it holds; never past its end. */
	for (cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, b, cut);
		memset(&s, 0, sizeof(s));
		if (ld_cache_each(copy, cut, "libibumad.so.3", collect, &s) == 0)
			assert_true(cut >= len - strlen("/b/libibumad.so.3"));
		free(copy);
	}
	assert_int_equal(ld_cache_each("nonsense", 8, "x", collect, &s), -EINVAL);
}

/* --- the search, on files made in a directory -------------------------------------- */

static char dir[] = "/tmp/test_elf_file.XXXXXX";

static void write_elf(const char *rel, const struct spec *sp)
{
	char path[PATH_MAX], sub[PATH_MAX], *slash;
	struct image im;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(sub, sizeof(sub), "%s", path);
	slash = strrchr(sub, '/');
	*slash = '\0';
	mkdir(sub, 0700);
	build(sp, &im);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(im.b, 1, im.len, f), im.len);
	fclose(f);
}

static const char *at(const char *rel)
{
	static char path[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, rel);
	return path[i];
}

/* The library found for the program rel with LD_LIBRARY_PATH ld (NULL: unset). */
static void search(const char *rel, const char *ld, int secure, const char *preload,
		   struct lib_search_result *res)
{
	struct lib_search_env env = {
		.ld_library_path = ld, .ld_preload = preload, .default_dirs = at("empty"),
		.secure = secure,
	};
	struct umad_err err = UMAD_ERR_INIT;

	if (lib_search(at(rel), "libibumad.so.3", &env, res, NULL, NULL, &err) < 0)
		fail_msg("%s: %s", rel, umad_err_text(&err));
}

static void expect(const struct lib_search_result *res, const char *version,
		   enum lib_where where)
{
	assert_int_equal(res->outcome, LIB_FOUND);
	assert_string_equal(res->umad_version, version);
	assert_int_equal(res->where, where);
}

static int setup_dir(void **state)
{
	struct spec lib = { .is64 = 1, .machine = EM_X86_64, .soname = "libibumad.so.3" };
	struct spec prog = { .is64 = 1, .machine = EM_X86_64, .interp = "/lib/ld.so",
			     .needed = { "libibumad.so.3" } };
	struct spec mid = { .is64 = 1, .machine = EM_X86_64, .soname = "libmid.so.1",
			    .needed = { "libibumad.so.3" } };

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	mkdir(at("empty"), 0700);
	lib.version = "A"; write_elf("A/libibumad.so.3", &lib);
	lib.version = "B"; write_elf("B/libibumad.so.3", &lib);
	lib.version = "W"; lib.machine = EM_AARCH64; write_elf("W/libibumad.so.3", &lib);
	prog.rpath = at("A"); write_elf("rpath", &prog);
	prog.rpath = NULL; prog.runpath = at("A"); write_elf("runpath", &prog);
	prog.rpath = at("A"); prog.runpath = at("empty"); write_elf("both", &prog);
	prog.rpath = "$ORIGIN/A"; prog.runpath = NULL; write_elf("origin", &prog);
	prog.rpath = NULL; write_elf("plain", &prog);
	write_elf("M/libmid.so.1", &mid);
	mid.runpath = at("empty"); write_elf("N/libmid.so.1", &mid);
	prog.needed[0] = "libmid.so.1"; prog.rpath = at("A"); write_elf("indirect", &prog);
	prog.needed[0] = "libc.so.6"; prog.rpath = NULL; write_elf("other", &prog);
	prog.interp = NULL; write_elf("static", &prog);
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void search_order(void **state)
{
	struct lib_search_result res;
	char ld[2 * PATH_MAX];

	(void)state;
	/* DT_RPATH before LD_LIBRARY_PATH; DT_RUNPATH after it. */
	search("rpath", at("B"), 0, NULL, &res);
	expect(&res, "A", LIB_RPATH);
	assert_string_equal(res.via, at("rpath"));
	search("runpath", at("B"), 0, NULL, &res);
	expect(&res, "B", LIB_LD_LIBRARY_PATH);
	search("runpath", NULL, 0, NULL, &res);
	expect(&res, "A", LIB_RUNPATH);
	/* An object with DT_RUNPATH has no DT_RPATH. */
	search("both", at("B"), 0, NULL, &res);
	expect(&res, "B", LIB_LD_LIBRARY_PATH);
	/* Secure-execution mode: no LD_LIBRARY_PATH. */
	search("runpath", at("B"), 1, NULL, &res);
	expect(&res, "A", LIB_RUNPATH);
	search("plain", at("B"), 1, NULL, &res);
	assert_int_equal(res.outcome, LIB_NOT_FOUND);
	/* $ORIGIN: the program's directory. */
	search("origin", at("B"), 0, NULL, &res);
	expect(&res, "A", LIB_RPATH);
	/* A file of another machine is passed over. */
	snprintf(ld, sizeof(ld), "%s:%s", at("W"), at("B"));
	search("plain", ld, 0, NULL, &res);
	expect(&res, "B", LIB_LD_LIBRARY_PATH);
	/* Needed through another library: the program's DT_RPATH counts for it... */
	snprintf(ld, sizeof(ld), "%s:%s", at("M"), at("B"));
	search("indirect", ld, 0, NULL, &res);
	expect(&res, "A", LIB_RPATH);
	assert_string_equal(res.requester, at("M/libmid.so.1"));
	assert_string_equal(res.via, at("indirect"));
	/* ...unless that library has DT_RUNPATH. */
	snprintf(ld, sizeof(ld), "%s:%s", at("N"), at("B"));
	search("indirect", ld, 0, NULL, &res);
	expect(&res, "B", LIB_LD_LIBRARY_PATH);
	/* LD_PRELOAD first of all. */
	search("rpath", at("B"), 0, at("B/libibumad.so.3"), &res);
	expect(&res, "B", LIB_PRELOAD);
	/* A program that needs no libibumad.so.3, and one that loads nothing. */
	search("other", at("B"), 0, NULL, &res);
	assert_int_equal(res.outcome, LIB_NOT_NEEDED);
	search("static", at("B"), 0, NULL, &res);
	assert_int_equal(res.outcome, LIB_STATIC);
	/* Found nowhere. */
	search("plain", NULL, 0, NULL, &res);
	assert_int_equal(res.outcome, LIB_NOT_FOUND);
	assert_string_equal(res.requester, at("plain"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_class_and_order),
		cmocka_unit_test(every_cut),
		cmocka_unit_test(bad_offsets),
		cmocka_unit_test(static_program),
		cmocka_unit_test(notes),
		cmocka_unit_test(real_files),
		cmocka_unit_test(cache),
		cmocka_unit_test_setup_teardown(search_order, setup_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
