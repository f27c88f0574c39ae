/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* State and helpers shared by the files of libibumad; never installed. */
#ifndef LIBUMAD_INTERNAL_H
#define LIBUMAD_INTERNAL_H

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include "base/ibwarn.h"
#include "base/umad_ioctl.h"

/* umad_debug() level; read everywhere, so atomic. */
extern atomic_int umad_debug_level;

/* Header size of the last opened port (rdma-core's "last open wins"), 56 before any open. */
extern atomic_size_t umad_hdr_size;

#define UMAD_DEBUG(fmt, ...) \
	do { if (atomic_load_explicit(&umad_debug_level, memory_order_relaxed)) \
		IBWARN(fmt, ##__VA_ARGS__); } while (0)

/* The CA name rdma-core falls back to when it finds no device at all. */
#define UMAD_DEFAULT_CA_NAME "mthca0"

/*
 * Every error a public call returns is in errno too (callers print it with
 * %m or perror).  umad_fail(-ENODEV) sets errno to ENODEV and returns
 * -ENODEV; umad_fail_positive(EINVAL) is for the calls whose convention is
 * a positive errno.
 */
static inline int umad_fail(int neg_errno)
{
	errno = -neg_errno;
	return neg_errno;
}

static inline int umad_fail_positive(int pos_errno)
{
	errno = pos_errno;
	return pos_errno;
}

/* A backend's resend of a request as it goes out (backend.h, umad_backend_host): captured (umad.c). */
void umad_resent(int portid, const void *umad, size_t len);

struct umad_backend;

/* The backend serving this process, selected on first use (dispatch.c); NULL if it could not be. */
const struct umad_backend *umad_selected_backend(void);

/* Why umad_selected_backend() is NULL, as -errno (the message was printed once); 0 otherwise. */
int umad_backend_error(void);

/* Comma-separated names of the backends usable in this build, for messages. */
const char *umad_backend_names(void);

/* Best-port resolution (resolve.c).  Returns a malloc'ed name or NULL. */
char *umad_resolve_ca_name(const char *ca_in, int *best_port, int enforce_smi);
/* The CA of exactly this name from the backend (no resolution, nothing printed): 0 or -errno. */
int umad_ca_fetch(const char *name, umad_ca_t *ca);

#endif /* LIBUMAD_INTERNAL_H */
