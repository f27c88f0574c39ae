/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The shared key of a fabric reached over TCP: a file the server names
 * with `--key-file F` and each client with UMAD_SIM_FABRIC_KEY=F, the same
 * bytes on every host.  It never crosses the wire (fabric_auth.h).
 *
 * The file is refused, with its path and the reason, unless it is a
 * regular file (not a symbolic link, which is not followed) of this user's
 * (the effective uid) that no one else may read or write (no bit of 077
 * in its mode: chmod 600), holding FABRIC_KEY_MIN to FABRIC_KEY_MAX bytes.
 * The key is the file's bytes, one trailing newline ("\n" or "\r\n")
 * left out, so that a key made by
 *     (umask 077; head -c 32 /dev/urandom | base64 > F)
 * is the same on every host whatever the editor did to its end.
 */
#ifndef SIMFABRIC_FABRIC_KEY_H
#define SIMFABRIC_FABRIC_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"

#define FABRIC_KEY_ENV	"UMAD_SIM_FABRIC_KEY"
#define FABRIC_KEY_MIN	16u	/* bytes, the newline left out */
#define FABRIC_KEY_MAX	4096u	/* bytes of the file */

struct fabric_key;

/*
 * Load the key in the file at path.  0 with *out set (fabric_key_free
 * it), or -errno with why in err: -ELOOP a symbolic link, -EINVAL not a
 * regular file, -EPERM another user's or open to others, -EMSGSIZE too
 * short or too long, else open's or read's error.
 */
int fabric_key_load(const char *path, struct fabric_key **out, struct umad_err *err);

/*
 * Load the key of the file FABRIC_KEY_ENV names: -ENOKEY with why in err
 * when it is not set (or empty), else as fabric_key_load.
 */
int fabric_key_load_env(struct fabric_key **out, struct umad_err *err);

/* The key's bytes (valid until fabric_key_free) and their number. */
const uint8_t *fabric_key_bytes(const struct fabric_key *k, size_t *len);

/* Wipe the key's memory and free it (NULL: nothing). */
void fabric_key_free(struct fabric_key *k);

#endif /* SIMFABRIC_FABRIC_KEY_H */
