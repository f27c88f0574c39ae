/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Backend selection: UMAD_BACKEND names one row of the table below; the row
 * is either linked in or a module loaded from the module directory.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/backend.h"
#include "internal.h"

#ifndef UMAD_MODULE_DIR
#error "the build defines UMAD_MODULE_DIR, the installed module directory"
#endif

/*
 * The backends, one row each.  BUILTIN(name): umad_backend_<name>, linked
 * into libibumad.so.3 (its file listed in backends/local.mk).  MODULE(name):
 * umad_backend_<name> in backend-<name>.so, loaded from the module directory
 * when UMAD_BACKEND names it.  loopback is the template backend
 * (backends/loopback.c): make check builds it, make install does not.
 */
#define UMAD_BACKENDS(BUILTIN, MODULE) \
	BUILTIN(kernel) \
	MODULE(sim) \
	MODULE(replay) \
	MODULE(loopback)

struct backend_row {
	const char *name;
	const struct umad_backend *builtin;	/* linked in, or NULL: a module */
	const char *module;			/* backend-<name>.so */
};

#define DECLARE_BUILTIN(n) extern const struct umad_backend umad_backend_##n;
#define NO_DECLARATION(n)
UMAD_BACKENDS(DECLARE_BUILTIN, NO_DECLARATION)

#define BUILTIN_ROW(n) { #n, &umad_backend_##n, NULL },
#define MODULE_ROW(n) { #n, NULL, "backend-" #n ".so" },
static const struct backend_row backend_table[] = {
	UMAD_BACKENDS(BUILTIN_ROW, MODULE_ROW)
};

#define N_BACKENDS (sizeof(backend_table) / sizeof(backend_table[0]))

static pthread_once_t select_once = PTHREAD_ONCE_INIT;
static const struct umad_backend *selected;
static int select_error;		/* -errno when no backend could be used */
static char available_names[128];

static const char *module_dir(void)
{
	const char *dir = getenv("UMAD_MODULE_DIR");

	return dir && *dir ? dir : UMAD_MODULE_DIR;
}

static int module_path(const struct backend_row *row, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/%s", module_dir(), row->module);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int row_available(const struct backend_row *row)
{
	char path[PATH_MAX];

	if (row->builtin)
		return 1;
	return module_path(row, path, sizeof(path)) == 0 && access(path, R_OK) == 0;
}

static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void list_available(void)
{
	size_t i, len = 0;

	for (i = 0; i < N_BACKENDS; i++) {
		if (!row_available(&backend_table[i]))
			continue;
		len += snprintf(available_names + len, sizeof(available_names) - len,
				"%s%s", len ? ", " : "", backend_table[i].name);
		if (len >= sizeof(available_names))
			break;
	}
}

const char *umad_backend_names(void)
{
	pthread_once(&names_once, list_available);
	return available_names;
}

/* The first mandatory member (backend.h) a backend left NULL, or NULL when it has them all. */
static const char *missing_operation(const struct umad_backend *be)
{
#define REQUIRE(member) if (!be->member) return #member
	REQUIRE(name);
	REQUIRE(for_each_ca);
	REQUIRE(get_ca);
	REQUIRE(get_port);
	REQUIRE(get_issm_path);
	REQUIRE(open_port);
	REQUIRE(close_port);
	REQUIRE(register_agent);
	REQUIRE(unregister_agent);
	REQUIRE(send);
	REQUIRE(recv);
#undef REQUIRE
	return NULL;
}

static int load_module(const struct backend_row *row, const struct umad_backend **out)
{
	char path[PATH_MAX], symbol[64];
	const struct umad_backend *be;
	void *handle;

	if (module_path(row, path, sizeof(path)) < 0) {
		fprintf(stderr, "libumad: UMAD_MODULE_DIR is too long\n");
		return -ENAMETOOLONG;
	}
	if (access(path, R_OK) != 0) {
		int err = errno;

		fprintf(stderr, "libumad: backend '%s' is not available: %s: %s "
			"(set UMAD_MODULE_DIR to the directory holding %s); available backends: %s\n",
			row->name, path, strerror(err), row->module, umad_backend_names());
		return -ENOENT;
	}
	/* RTLD_NODELETE: the backend's threads may outlive a dlclose by a caller's library. */
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!handle) {
		fprintf(stderr, "libumad: cannot load backend '%s': %s\n", row->name, dlerror());
		return -ELIBBAD;
	}
	snprintf(symbol, sizeof(symbol), "umad_backend_%s", row->name);
	be = dlsym(handle, symbol);
	if (!be) {
		fprintf(stderr, "libumad: %s does not define %s\n", path, symbol);
		dlclose(handle);
		return -ELIBBAD;
	}
	if (be->abi != UMAD_BACKEND_ABI) {
		fprintf(stderr, "libumad: %s was built for backend ABI %u, this library has %u\n",
			path, be->abi, UMAD_BACKEND_ABI);
		dlclose(handle);
		return -ELIBBAD;
	}
	if (missing_operation(be)) {
		fprintf(stderr, "libumad: %s does not implement the mandatory operation '%s'; "
			"backend '%s' refused\n", path, missing_operation(be), row->name);
		dlclose(handle);
		return -ELIBBAD;
	}
	*out = be;
	return 0;
}

static int debug_level(void)
{
	return atomic_load(&umad_debug_level);
}

/* What a backend is given instead of calling up into the API. */
static const struct umad_backend_host host = {
	.debug_level = debug_level,
	.resent = umad_resent,
};

static void select_backend(void)
{
	const char *name = getenv("UMAD_BACKEND");
	const struct umad_backend *be = NULL;
	size_t i;
	int err;

	if (!name || !*name)
		name = "kernel";
	for (i = 0; i < N_BACKENDS; i++)
		if (!strcmp(backend_table[i].name, name))
			break;
	if (i == N_BACKENDS) {
		fprintf(stderr, "libumad: unknown backend '%s' in UMAD_BACKEND; available backends: %s\n",
			name, umad_backend_names());
		select_error = -ENOENT;
		return;
	}
	if (backend_table[i].builtin) {
		be = backend_table[i].builtin;
		/* A newcomer's built-in mistake gets the same message, not a crash later. */
		if (missing_operation(be)) {
			fprintf(stderr, "libumad: backend '%s' does not implement the mandatory "
				"operation '%s'\n", name, missing_operation(be));
			select_error = -ELIBBAD;
			return;
		}
	} else {
		err = load_module(&backend_table[i], &be);
		if (err < 0) {
			select_error = err;
			return;
		}
	}
	if (be->init) {
		err = be->init(&host);
		if (err < 0) {
			fprintf(stderr, "libumad: backend '%s' failed to start: %s\n",
				be->name, strerror(-err));
			select_error = err;
			return;
		}
	}
	if (be->fini)
		atexit(be->fini);
	selected = be;
}

/* Reports the selection error of this process as -errno, or 0. */
int umad_backend_error(void)
{
	pthread_once(&select_once, select_backend);
	return selected ? 0 : select_error;
}

const struct umad_backend *umad_selected_backend(void)
{
	pthread_once(&select_once, select_backend);
	return selected;
}
