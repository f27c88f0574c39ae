/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A CA by its exact name from the backend: the one way umad_get_ca()
 * (umad.c) and the name resolution (resolve.c) read a CA, so that the
 * resolution does not call the API it serves.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/backend.h"
#include "libumad/internal.h"

int umad_ca_fetch(const char *name, umad_ca_t *ca)
{
	const struct umad_backend *be = umad_selected_backend();

	if (!be)
		return umad_backend_error();
	memset(ca, 0, sizeof(*ca));
	return be->get_ca(name, ca);
}
