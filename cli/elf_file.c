/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/elf_file.h"
#include "base/project_note.h"

/* The most of a file read into memory at once: program headers, dynamic section, strings. */
#define ELF_PART_MAX	(16u << 20)

/* Where the bytes come from: a buffer (the fuzz target, the tests) or a file. */
struct source {
	const uint8_t *buf;
	int fd;
	uint64_t size;
	int big;		/* ELFDATA2MSB */
	int is64;
};

/* len bytes at off into out: 0, or -EINVAL when they are not all in the file. */
static int read_at(const struct source *s, uint64_t off, void *out, size_t len)
{
	if (off > s->size || len > s->size - off)
		return -EINVAL;
	if (s->buf) {
		memcpy(out, s->buf + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(s->fd, out, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EINVAL;		/* cut short while read */
		out = (uint8_t *)out + n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t get(const struct source *s, const uint8_t *p, size_t width)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < width; i++)
		v |= (uint64_t)p[s->big ? width - 1 - i : i] << (8 * i);
	return v;
}

/* A field of a structure read into p: its offset and width in the file's class. */
#define FIELD(s, p, type32, type64, field) \
	((s)->is64 ? get(s, (p) + offsetof(type64, field), sizeof(((type64 *)0)->field)) \
		   : get(s, (p) + offsetof(type32, field), sizeof(((type32 *)0)->field)))

static const char *keep(struct elf_file *ef, const char *str, size_t len)
{
	char *at;

	if (len >= sizeof(ef->strings) - ef->strings_used)
		return NULL;
	at = ef->strings + ef->strings_used;
	memcpy(at, str, len);
	at[len] = '\0';
	ef->strings_used += len + 1;
	return at;
}

struct segment {
	uint32_t type;
	uint64_t offset, vaddr, filesz, align;
};

struct parse {
	const struct source *src;
	struct elf_file *ef;
	struct segment *seg;
	size_t n_seg;
	struct umad_err *err;
};

static int read_header(struct parse *p, uint64_t *phoff, size_t *phnum, size_t *phentsize)
{
	uint8_t h[sizeof(Elf64_Ehdr)];
	struct source *s = (struct source *)p->src;
	size_t hsize;

	if (s->size < EI_NIDENT || read_at(s, 0, h, EI_NIDENT) < 0 ||
	    memcmp(h, ELFMAG, SELFMAG))
		return umad_err_set(p->err, -ENOEXEC, "not an ELF file");
	if (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
		return umad_err_set(p->err, -EINVAL, "ELF class %u is neither 32- nor 64-bit",
				    h[EI_CLASS]);
	if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
		return umad_err_set(p->err, -EINVAL, "ELF byte order %u is neither little- nor "
				    "big-endian", h[EI_DATA]);
	s->is64 = h[EI_CLASS] == ELFCLASS64;
	s->big = h[EI_DATA] == ELFDATA2MSB;
	hsize = s->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (read_at(s, 0, h, hsize) < 0)
		return umad_err_set(p->err, -EINVAL, "the ELF header is cut short");
	p->ef->elf_class = h[EI_CLASS];
	p->ef->data = h[EI_DATA];
	p->ef->type = (uint16_t)FIELD(s, h, Elf32_Ehdr, Elf64_Ehdr, e_type);
	p->ef->machine = (uint16_t)FIELD(s, h, Elf32_Ehdr, Elf64_Ehdr, e_machine);
	*phoff = FIELD(s, h, Elf32_Ehdr, Elf64_Ehdr, e_phoff);
	*phnum = (size_t)FIELD(s, h, Elf32_Ehdr, Elf64_Ehdr, e_phnum);
	*phentsize = (size_t)FIELD(s, h, Elf32_Ehdr, Elf64_Ehdr, e_phentsize);
	/* More headers than e_phnum holds: the count is the first section header's sh_info. */
	if (*phnum == PN_XNUM) {
		uint64_t shoff = FIELD(s, h, Elf32_Ehdr, Elf64_Ehdr, e_shoff);
		uint8_t sh[sizeof(Elf64_Shdr)];

		if (read_at(s, shoff, sh, s->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) < 0)
			return umad_err_set(p->err, -EINVAL, "e_phnum is PN_XNUM and the section "
					    "header holding the count is outside the file");
		*phnum = (size_t)FIELD(s, sh, Elf32_Shdr, Elf64_Shdr, sh_info);
	}
	if (*phnum && *phentsize < (s->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return umad_err_set(p->err, -EINVAL, "program headers of %zu bytes are too short",
				    *phentsize);
	return 0;
}

static int read_segments(struct parse *p, uint64_t phoff, size_t phnum, size_t phentsize)
{
	const struct source *s = p->src;
	uint8_t *ph;
	size_t i;

	if (!phnum)
		return 0;
	if (phnum > ELF_PART_MAX / phentsize)
		return umad_err_set(p->err, -E2BIG, "%zu program headers are too many", phnum);
	ph = malloc(phnum * phentsize);
	p->seg = calloc(phnum, sizeof(*p->seg));
	if (!ph || !p->seg) {
		free(ph);
		return umad_err_set(p->err, -ENOMEM, "out of memory");
	}
	if (read_at(s, phoff, ph, phnum * phentsize) < 0) {
		free(ph);
		return umad_err_set(p->err, -EINVAL, "the program headers are outside the file");
	}
	for (i = 0; i < phnum; i++) {
		const uint8_t *h = ph + i * phentsize;
		struct segment *g = &p->seg[i];

		g->type = (uint32_t)FIELD(s, h, Elf32_Phdr, Elf64_Phdr, p_type);
		g->offset = FIELD(s, h, Elf32_Phdr, Elf64_Phdr, p_offset);
		g->vaddr = FIELD(s, h, Elf32_Phdr, Elf64_Phdr, p_vaddr);
		g->filesz = FIELD(s, h, Elf32_Phdr, Elf64_Phdr, p_filesz);
		g->align = FIELD(s, h, Elf32_Phdr, Elf64_Phdr, p_align);
	}
	p->n_seg = phnum;
	free(ph);
	return 0;
}

/* A segment's bytes, NULL after saying why (free() them). */
static uint8_t *segment_bytes(struct parse *p, const struct segment *g, const char *what)
{
	uint8_t *b;

	if (g->filesz > ELF_PART_MAX) {
		umad_err_set(p->err, -E2BIG, "the %s segment of %llu bytes is too large", what,
			     (unsigned long long)g->filesz);
		return NULL;
	}
	b = malloc(g->filesz ? (size_t)g->filesz : 1);
	if (!b) {
		umad_err_set(p->err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (read_at(p->src, g->offset, b, (size_t)g->filesz) < 0) {
		umad_err_set(p->err, -EINVAL, "the %s segment is outside the file", what);
		free(b);
		return NULL;
	}
	return b;
}

static int read_interp(struct parse *p, const struct segment *g)
{
	uint8_t *b = segment_bytes(p, g, "PT_INTERP");
	size_t len;

	if (!b)
		return -EINVAL;
	len = strnlen((const char *)b, (size_t)g->filesz);
	if (len == g->filesz || !len) {
		free(b);
		return umad_err_set(p->err, -EINVAL, "PT_INTERP is not a NUL-terminated path");
	}
	p->ef->interp = keep(p->ef, (const char *)b, len);
	free(b);
	return p->ef->interp ? 0 : umad_err_set(p->err, -E2BIG, "PT_INTERP is too long");
}

/* The file offset of the virtual address addr (DT_STRTAB's), through the PT_LOAD segments. */
static int vaddr_to_offset(const struct parse *p, uint64_t addr, uint64_t *off, uint64_t *room)
{
	size_t i;

	for (i = 0; i < p->n_seg; i++) {
		const struct segment *g = &p->seg[i];

		if (g->type == PT_LOAD && addr >= g->vaddr && addr - g->vaddr < g->filesz) {
			*off = g->offset + (addr - g->vaddr);
			*room = g->filesz - (addr - g->vaddr);
			return 0;
		}
	}
	return -EINVAL;
}

/* The string at offset at of the string table: kept, or NULL after saying why. */
static const char *table_string(struct parse *p, const char *tab, uint64_t size, uint64_t at,
				const char *tag)
{
	size_t len;
	const char *kept;

	if (at >= size) {
		umad_err_set(p->err, -EINVAL, "%s points outside the string table", tag);
		return NULL;
	}
	len = strnlen(tab + at, (size_t)(size - at));
	if (len == size - at) {
		umad_err_set(p->err, -EINVAL, "%s runs past the end of the string table", tag);
		return NULL;
	}
	kept = keep(p->ef, tab + at, len);
	if (!kept)
		umad_err_set(p->err, -E2BIG, "the file's names and paths are too long");
	return kept;
}

static int read_dynamic(struct parse *p, const struct segment *g)
{
	const struct source *s = p->src;
	size_t entsize = s->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn), n, i;
	uint64_t strtab = 0, strsz = 0, off, room;
	int has_strtab = 0, has_strsz = 0, r = 0;
	uint64_t needed[ELF_FILE_MAX_NEEDED], rpath = 0, runpath = 0, soname = 0;
	int has_rpath = 0, has_runpath = 0, has_soname = 0;
	unsigned n_needed = 0;
	uint8_t *dyn = segment_bytes(p, g, "PT_DYNAMIC");
	char *tab = NULL;

	if (!dyn)
		return -EINVAL;
	p->ef->dynamic = 1;
	n = (size_t)g->filesz / entsize;
	for (i = 0; i < n; i++) {
		const uint8_t *e = dyn + i * entsize;
		int64_t tag = (int64_t)FIELD(s, e, Elf32_Dyn, Elf64_Dyn, d_tag);
		uint64_t val = FIELD(s, e, Elf32_Dyn, Elf64_Dyn, d_un.d_val);

		if (!s->is64)
			tag = (int32_t)tag;
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_NEEDED:
			if (n_needed == ELF_FILE_MAX_NEEDED) {
				free(dyn);
				return umad_err_set(p->err, -E2BIG, "more than %u DT_NEEDED entries",
						    ELF_FILE_MAX_NEEDED);
			}
			needed[n_needed++] = val;
			break;
		case DT_STRTAB: strtab = val; has_strtab = 1; break;
		case DT_STRSZ: strsz = val; has_strsz = 1; break;
		case DT_RPATH: rpath = val; has_rpath = 1; break;
		case DT_RUNPATH: runpath = val; has_runpath = 1; break;
		case DT_SONAME: soname = val; has_soname = 1; break;
		case DT_FLAGS_1: p->ef->flags_1 = val; break;
		default: break;
		}
	}
	free(dyn);
	if (!n_needed && !has_rpath && !has_runpath && !has_soname)
		return 0;
	if (!has_strtab || !has_strsz)
		return umad_err_set(p->err, -EINVAL, "the dynamic section names strings but has no "
				    "DT_STRTAB or DT_STRSZ");
	if (vaddr_to_offset(p, strtab, &off, &room) < 0 || strsz > room)
		return umad_err_set(p->err, -EINVAL, "DT_STRTAB is outside the file's PT_LOAD "
				    "segments");
	if (strsz > ELF_PART_MAX)
		return umad_err_set(p->err, -E2BIG, "a string table of %llu bytes is too large",
				    (unsigned long long)strsz);
	tab = malloc(strsz ? (size_t)strsz : 1);
	if (!tab)
		return umad_err_set(p->err, -ENOMEM, "out of memory");
	if (read_at(s, off, tab, (size_t)strsz) < 0) {
		free(tab);
		return umad_err_set(p->err, -EINVAL, "the string table is outside the file");
	}
	for (i = 0; i < n_needed && !r; i++) {
		p->ef->needed[i] = table_string(p, tab, strsz, needed[i], "DT_NEEDED");
		r = p->ef->needed[i] ? 0 : -EINVAL;
		p->ef->n_needed = (unsigned)i + 1;
	}
	if (!r && has_rpath && !(p->ef->rpath = table_string(p, tab, strsz, rpath, "DT_RPATH")))
		r = -EINVAL;
	if (!r && has_runpath &&
	    !(p->ef->runpath = table_string(p, tab, strsz, runpath, "DT_RUNPATH")))
		r = -EINVAL;
	if (!r && has_soname && !(p->ef->soname = table_string(p, tab, strsz, soname, "DT_SONAME")))
		r = -EINVAL;
	free(tab);
	if (r)
		p->ef->n_needed = 0;
	return r;
}

static uint32_t note_word(const uint8_t *p, int big)
{
	return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static size_t round_up(size_t n, size_t align)
{
	return (n + align - 1) / align * align;
}

/* elf_note_find in a given byte order. */
static int find_note(const uint8_t *b, size_t size, size_t align, int big, const char *name,
		     uint32_t type, const void **desc, size_t *desc_size)
{
	size_t at = 0, name_len = strlen(name) + 1;
	const size_t head = 3 * sizeof(uint32_t);

	if (align != 8)
		align = 4;
	while (size - at >= head) {
		size_t namesz = note_word(b + at, big), descsz = note_word(b + at + 4, big);
		uint32_t t = note_word(b + at + 8, big);
		size_t name_at = at + head, desc_at;

		if (namesz > size - name_at)
			return 0;
		desc_at = round_up(name_at + namesz, align);
		if (desc_at > size || descsz > size - desc_at)
			return 0;
		if (t == type && namesz == name_len && !memcmp(b + name_at, name, name_len)) {
			*desc = b + desc_at;
			*desc_size = descsz;
			return 1;
		}
		/* At least the head further on: the walk ends. */
		at = round_up(desc_at + descsz, align);
		if (at > size)
			return 0;
	}
	return 0;
}

int elf_note_find(const void *notes, size_t size, size_t align, const char *name, uint32_t type,
		  const void **desc, size_t *desc_size)
{
	const uint16_t probe = 1;

	return find_note(notes, size, align, *(const uint8_t *)&probe == 0, name, type, desc,
			 desc_size);
}

/* This project's note among the PT_NOTE segments, its version kept (NULL: none). */
static int read_note(struct parse *p, const struct segment *g)
{
	uint8_t *b = segment_bytes(p, g, "PT_NOTE");
	const void *desc;
	size_t len;

	if (!b)
		return -EINVAL;
	if (find_note(b, (size_t)g->filesz, (size_t)g->align, p->src->big, UMAD_NOTE_NAME,
		      UMAD_NOTE_TYPE, &desc, &len) && len && len <= UMAD_NOTE_VERSION_MAX &&
	    memchr(desc, '\0', len) == (const char *)desc + len - 1)
		p->ef->umad_version = keep(p->ef, desc, len - 1);
	free(b);
	return 0;
}

static int parse(struct source *s, struct elf_file *ef, struct umad_err *err)
{
	struct parse p = { .src = s, .ef = ef, .err = err };
	uint64_t phoff = 0;
	size_t phnum = 0, phentsize = 0, i;
	int r, seen_interp = 0, seen_dynamic = 0;

	memset(ef, 0, sizeof(*ef));
	r = read_header(&p, &phoff, &phnum, &phentsize);
	if (!r)
		r = read_segments(&p, phoff, phnum, phentsize);
	for (i = 0; !r && i < p.n_seg; i++) {
		const struct segment *g = &p.seg[i];

		if (g->type == PT_INTERP && !seen_interp++)
			r = read_interp(&p, g);
		else if (g->type == PT_DYNAMIC && !seen_dynamic++)
			r = read_dynamic(&p, g);
		else if (g->type == PT_NOTE && !ef->umad_version)
			r = read_note(&p, g);
	}
	free(p.seg);
	return r;
}

int elf_file_parse(const void *image, size_t size, struct elf_file *ef, struct umad_err *err)
{
	struct source s = { .buf = image, .fd = -1, .size = size };

	return parse(&s, ef, err);
}

int elf_file_read(const char *path, struct elf_file *ef, struct umad_err *err)
{
	struct source s = { .fd = -1 };
	struct stat st;
	int r;

	s.fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (s.fd < 0)
		return umad_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(s.fd, &st) < 0) {
		r = umad_err_set(err, -errno, "%s: %s", path, strerror(errno));
		close(s.fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(s.fd);
		return umad_err_set(err, -EINVAL, "%s: not a regular file", path);
	}
	s.size = (uint64_t)st.st_size;
	r = parse(&s, ef, err);
	close(s.fd);
	return r < 0 ? umad_err_prefix(err, r, "%s: ", path) : 0;
}
