/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/elf_file.h"
#include "cli/ld_cache.h"
#include "cli/lib_search.h"

/* The most objects one program loads that are followed; past it, the search stops. */
#define MAX_OBJECTS	1024
/* The largest ld.so.cache read. */
#define CACHE_MAX	(64u << 20)

struct object {
	char path[PATH_MAX];
	char name[PATH_MAX];	/* as it was asked for (DT_NEEDED, LD_PRELOAD) */
	char origin[PATH_MAX];	/* $ORIGIN: its directory */
	int loader;		/* the object that needed it; -1 for the program */
	struct elf_file *ef;
};

struct search {
	const struct lib_search_env *env;
	const char *soname;
	struct object *obj[MAX_OBJECTS];
	int n_obj;
	char *cache;
	size_t cache_size;
	struct lib_search_result *res;
	lib_trace_fn trace;
	void *trace_arg;
	int tracing;		/* the name looked for now is soname: every step is told */
};

static void say(struct search *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct search *s, const char *fmt, ...)
{
	char line[2 * PATH_MAX + 256];
	va_list ap;

	if (!s->trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->trace(s->trace_arg, line);
}

const char *lib_where_name(enum lib_where where)
{
	switch (where) {
	case LIB_BY_PATH: return "a path in DT_NEEDED";
	case LIB_PRELOAD: return "LD_PRELOAD";
	case LIB_RPATH: return "DT_RPATH";
	case LIB_LD_LIBRARY_PATH: return "LD_LIBRARY_PATH";
	case LIB_RUNPATH: return "DT_RUNPATH";
	case LIB_CACHE: return "ld.so.cache";
	case LIB_DEFAULT_DIRS: return "the default directories";
	}
	return "?";
}

/* The directory of path, absolute (from the working directory when relative). */
static void origin_of(const char *path, char *out, size_t size)
{
	char copy[PATH_MAX], cwd[PATH_MAX];

	int n;

	snprintf(copy, sizeof(copy), "%s", path);
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		n = snprintf(out, size, "%s", dirname(copy));
	else
		n = snprintf(out, size, "%s/%s", cwd, dirname(copy));
	if (n < 0 || (size_t)n >= size)
		snprintf(out, size, "/nonexistent");	/* too long for a path: names nothing */
}

/*
 * One path of a search list with $ORIGIN and $PLATFORM expanded: 1, 0 when
 * it holds a token that cannot be expanded here ($LIB, an unknown one).
 */
static int expand(const char *in, size_t len, const char *origin, char *out, size_t size)
{
	const char *platform = (const char *)getauxval(AT_PLATFORM);
	size_t o = 0, i = 0;

	while (i < len && size - o > 1) {
		const char *value = NULL;
		size_t skip = 0;

		if (in[i] == '$') {
			static const char *const names[] = { "ORIGIN", "PLATFORM", "LIB" };
			size_t k;

			for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
				size_t n = strlen(names[k]);

				if (len - i > n && !strncmp(in + i + 1, names[k], n) &&
				    (i + 1 + n == len || !(in[i + 1 + n] == '_' ||
				     (in[i + 1 + n] >= 'A' && in[i + 1 + n] <= 'Z') ||
				     (in[i + 1 + n] >= 'a' && in[i + 1 + n] <= 'z') ||
				     (in[i + 1 + n] >= '0' && in[i + 1 + n] <= '9'))))
					skip = 1 + n;
				else if (len - i > n + 2 && in[i + 1] == '{' &&
					 !strncmp(in + i + 2, names[k], n) && in[i + 2 + n] == '}')
					skip = 3 + n;
				if (skip) {
					value = k == 0 ? origin : k == 1 ? platform : NULL;
					break;
				}
			}
			if (!skip || !value)
				return 0;
			o += (size_t)snprintf(out + o, size - o, "%s", value);
			if (o >= size)
				return 0;
			i += skip;
			continue;
		}
		out[o++] = in[i++];
	}
	out[o < size ? o : size - 1] = '\0';
	return i == len;
}

/* Is the file at path one the program can load (ELF, its class and machine)?  *ef when so. */
static int loadable(struct search *s, const char *path, struct elf_file **ef)
{
	const struct elf_file *main_ef = s->obj[0]->ef;
	struct umad_err err = UMAD_ERR_INIT;
	struct elf_file *e;

	if (access(path, F_OK) != 0) {
		if (s->tracing)
			say(s, "    %s: not there", path);
		return 0;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return 0;
	if (elf_file_read(path, e, &err) < 0) {
		if (s->tracing)
			say(s, "    %s: passed over: %s", path, umad_err_text(&err));
		free(e);
		return 0;
	}
	if (e->elf_class != main_ef->elf_class || e->machine != main_ef->machine ||
	    e->data != main_ef->data) {
		if (s->tracing)
			say(s, "    %s: passed over: another ELF class or machine than the program",
			    path);
		free(e);
		return 0;
	}
	*ef = e;
	return 1;
}

/* name in each directory of the list (':' or ';' between, as the loader takes them). */
static int in_dirs(struct search *s, const char *list, const char *origin, const char *name,
		   char *found, struct elf_file **ef)
{
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ":;");
		char dir[PATH_MAX];

		if (!expand(p, len, origin, dir, sizeof(dir))) {
			if (s->tracing) {
				say(s, "    %.*s: cannot tell what it expands to here; passed over",
				    (int)len, p);
				s->res->uncertain = 1;
			}
		} else {
			/* An empty entry is the working directory, as for the loader. */
			int n = snprintf(found, PATH_MAX, "%s/%s", dir[0] ? dir : ".", name);

			if (n > 0 && n < PATH_MAX && loadable(s, found, ef))
				return 1;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

struct cache_walk {
	struct search *s;
	char *found;
	struct elf_file **ef;
	int ok;
};

static int cache_candidate(void *arg, const char *path)
{
	struct cache_walk *w = arg;

	snprintf(w->found, PATH_MAX, "%s", path);
	w->ok = loadable(w->s, w->found, w->ef);
	return w->ok;
}

static void load_cache(struct search *s)
{
	struct stat st;
	int fd;

	if (!s->env->cache_file)
		return;
	fd = open(s->env->cache_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= CACHE_MAX) {
		s->cache = malloc((size_t)st.st_size);
		if (s->cache && read(fd, s->cache, (size_t)st.st_size) == st.st_size)
			s->cache_size = (size_t)st.st_size;
	}
	close(fd);
}

/* The object at index i has an effective DT_RPATH (none when it has DT_RUNPATH). */
static const char *rpath_of(const struct object *o)
{
	return o->ef->runpath ? NULL : o->ef->rpath;
}

/* name, needed by the object at index loader: 1 with where and found, as the loader looks. */
static int find(struct search *s, const char *name, int loader, char *found,
		struct elf_file **ef, enum lib_where *where, int *via)
{
	const struct object *l = s->obj[loader];
	int i, did_main = 0;

	if (strchr(name, '/')) {
		*where = LIB_BY_PATH;
		if (!expand(name, strlen(name), l->origin, found, PATH_MAX)) {
			if (s->tracing)
				s->res->uncertain = 1;
			return 0;
		}
		return loadable(s, found, ef);
	}
	if (!l->ef->runpath) {
		for (i = loader; i >= 0; i = s->obj[i]->loader) {
			const char *rp = rpath_of(s->obj[i]);

			did_main |= i == 0;
			if (!rp)
				continue;
			if (s->tracing)
				say(s, "  DT_RPATH of %s: %s", s->obj[i]->path, rp);
			if (in_dirs(s, rp, s->obj[i]->origin, name, found, ef)) {
				*where = LIB_RPATH;
				*via = i;
				return 1;
			}
		}
		if (!did_main && rpath_of(s->obj[0])) {
			if (s->tracing)
				say(s, "  DT_RPATH of %s: %s", s->obj[0]->path, s->obj[0]->ef->rpath);
			if (in_dirs(s, s->obj[0]->ef->rpath, s->obj[0]->origin, name, found, ef)) {
				*where = LIB_RPATH;
				*via = 0;
				return 1;
			}
		}
	} else if (l->ef->rpath && s->tracing) {
		say(s, "  DT_RPATH of %s: not used (it has DT_RUNPATH)", l->path);
	}
	if (s->env->ld_library_path && s->env->secure) {
		if (s->tracing)
			say(s, "  LD_LIBRARY_PATH: not used (secure-execution mode)");
	} else if (s->env->ld_library_path && *s->env->ld_library_path) {
		if (s->tracing)
			say(s, "  LD_LIBRARY_PATH: %s", s->env->ld_library_path);
		if (in_dirs(s, s->env->ld_library_path, s->obj[0]->origin, name, found, ef)) {
			*where = LIB_LD_LIBRARY_PATH;
			return 1;
		}
	}
	if (l->ef->runpath) {
		if (s->tracing)
			say(s, "  DT_RUNPATH of %s: %s", l->path, l->ef->runpath);
		if (in_dirs(s, l->ef->runpath, l->origin, name, found, ef)) {
			*where = LIB_RUNPATH;
			*via = loader;
			return 1;
		}
	}
	if (l->ef->flags_1 & DF_1_NODEFLIB) {
		if (s->tracing)
			say(s, "  ld.so.cache and the default directories: not used (%s is "
			    "DF_1_NODEFLIB)", l->path);
		return 0;
	}
	if (s->cache_size) {
		struct cache_walk w = { .s = s, .found = found, .ef = ef };

		if (s->tracing)
			say(s, "  %s:", s->env->cache_file);
		if (ld_cache_each(s->cache, s->cache_size, name, cache_candidate, &w) < 0 &&
		    s->tracing)
			say(s, "    does not read; passed over");
		if (w.ok) {
			*where = LIB_CACHE;
			return 1;
		}
		if (s->tracing)
			say(s, "    no entry for %s that suits the program", name);
	}
	if (s->tracing)
		say(s, "  default directories: %s", s->env->default_dirs);
	if (in_dirs(s, s->env->default_dirs, l->origin, name, found, ef)) {
		*where = LIB_DEFAULT_DIRS;
		return 1;
	}
	return 0;
}

/* The object already loaded under name (or with it as SONAME): its index, or -1. */
static int loaded(const struct search *s, const char *name)
{
	int i;

	for (i = 0; i < s->n_obj; i++) {
		const struct object *o = s->obj[i];

		if (!strcmp(o->name, name) || (o->ef->soname && !strcmp(o->ef->soname, name)) ||
		    (strchr(name, '/') && !strcmp(o->path, name)))
			return i;
	}
	return -1;
}

static int add(struct search *s, const char *path, const char *name, int loader,
	       struct elf_file *ef)
{
	struct object *o;

	if (s->n_obj == MAX_OBJECTS) {
		free(ef);
		return -E2BIG;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		free(ef);
		return -ENOMEM;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->name, sizeof(o->name), "%s", name);
	origin_of(path, o->origin, sizeof(o->origin));
	o->loader = loader;
	o->ef = ef;
	s->obj[s->n_obj++] = o;
	return s->n_obj - 1;
}

/* The object just loaded is soname (asked for by it, or its SONAME): the answer. */
static int is_target(const struct search *s, const char *name, const struct elf_file *ef)
{
	return !strcmp(name, s->soname) || (ef->soname && !strcmp(ef->soname, s->soname));
}

static void record(struct search *s, const char *path, enum lib_where where, int requester,
		   int via, const struct elf_file *ef)
{
	struct lib_search_result *res = s->res;

	res->outcome = LIB_FOUND;
	res->where = where;
	snprintf(res->path, sizeof(res->path), "%s", path);
	snprintf(res->requester, sizeof(res->requester), "%s", requester >= 0 ?
		 s->obj[requester]->path : "");
	snprintf(res->via, sizeof(res->via), "%s", via >= 0 ? s->obj[via]->path : "");
	snprintf(res->umad_version, sizeof(res->umad_version), "%s",
		 ef->umad_version ? ef->umad_version : "");
}

/* One name to load for the object at index loader; 1 once soname is settled. */
static int load(struct search *s, const char *name, int loader, int preload)
{
	char found[PATH_MAX];
	struct elf_file *ef = NULL;
	enum lib_where where = LIB_DEFAULT_DIRS;
	int via = -1, i;

	i = loaded(s, name);
	if (i >= 0)
		return 0;
	s->tracing = !strcmp(name, s->soname);
	if (s->tracing)
		say(s, "%s, needed by %s%s:", name, s->obj[loader]->path,
		    preload ? " (preloaded)" : "");
	if (!find(s, name, loader, found, &ef, &where, &via)) {
		s->tracing = 0;
		if (!strcmp(name, s->soname)) {
			s->res->outcome = LIB_NOT_FOUND;
			snprintf(s->res->requester, sizeof(s->res->requester), "%s",
				 s->obj[loader]->path);
			return 1;
		}
		say(s, "%s, needed by %s: not found (the program would not start)", name,
		    s->obj[loader]->path);
		return 0;
	}
	s->tracing = 0;
	if (preload)
		where = where == LIB_BY_PATH ? LIB_PRELOAD : where;
	if (is_target(s, name, ef)) {
		record(s, found, preload ? LIB_PRELOAD : where, loader, via, ef);
		free(ef);
		return 1;
	}
	return add(s, found, name, loader, ef) < 0;
}

/* LD_PRELOAD's names (spaces or colons between), then /etc/ld.so.preload's. */
static int preloads(struct search *s, const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, " :\t\n");
		char name[PATH_MAX];

		if (len && len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			if (load(s, name, 0, 1))
				return 1;
		}
		p += len;
		p += strspn(p, " :\t\n");
	}
	return 0;
}

static int preload_file(struct search *s)
{
	char buf[8192];
	ssize_t n;
	int fd;

	if (!s->env->preload_file)
		return 0;
	fd = open(s->env->preload_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return preloads(s, buf);
}

int lib_search(const char *path, const char *soname, const struct lib_search_env *env,
	       struct lib_search_result *res, lib_trace_fn trace, void *trace_arg,
	       struct umad_err *err)
{
	struct search s = { .env = env, .soname = soname, .res = res, .trace = trace,
			    .trace_arg = trace_arg };
	struct elf_file *ef = malloc(sizeof(*ef));
	char real[PATH_MAX];
	int i, r = 0, done = 0;
	unsigned k;

	memset(res, 0, sizeof(*res));
	res->outcome = LIB_NOT_NEEDED;
	if (!ef)
		return umad_err_set(err, -ENOMEM, "out of memory");
	r = elf_file_read(path, ef, err);
	if (r < 0) {
		free(ef);
		return r;
	}
	if (!ef->interp) {
		res->outcome = LIB_STATIC;
		free(ef);
		return 0;
	}
	/* The program's $ORIGIN is where it really is (the kernel resolves its links). */
	if (add(&s, path, path, -1, ef) < 0)
		return umad_err_set(err, -ENOMEM, "out of memory");
	if (realpath(path, real))
		origin_of(real, s.obj[0]->origin, sizeof(s.obj[0]->origin));
	load_cache(&s);
	if (env->ld_preload && env->secure)
		say(&s, "LD_PRELOAD: not followed (secure-execution mode)");
	else
		done = preloads(&s, env->ld_preload);
	if (!done)
		done = preload_file(&s);
	for (i = 0; !done && i < s.n_obj; i++)
		for (k = 0; !done && k < s.obj[i]->ef->n_needed; k++)
			done = load(&s, s.obj[i]->ef->needed[k], i, 0);
	if (done && res->outcome != LIB_FOUND && res->outcome != LIB_NOT_FOUND)
		r = umad_err_set(err, -E2BIG, "%s: loads more than %d libraries", path,
				 MAX_OBJECTS);
	for (i = 0; i < s.n_obj; i++) {
		free(s.obj[i]->ef);
		free(s.obj[i]);
	}
	free(s.cache);
	return r;
}
