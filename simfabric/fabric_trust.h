/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Whom a shared fabric's two ends trust: processes of their own user, and
 * no one else, root included either way (a client run as root refuses a
 * server of another user, and a user's client refuses a server run as
 * root).  Another user on the machine is an attacker: the socket's
 * directory, the socket, the process behind it and every descriptor
 * handed over are checked before anything is sent or mapped.
 *
 * Each check: 0, or -errno with why (naming the path and the owner found)
 * in err.
 */
#ifndef SIMFABRIC_FABRIC_TRUST_H
#define SIMFABRIC_FABRIC_TRUST_H

#include <stddef.h>
#include <sys/types.h>

#include "base/errbuf.h"

/*
 * The directory of the socket at path (its last component's parent; "."
 * for a bare name), opened without following a symbolic link there: this
 * user's, and none of the mode bits in `deny` set (S_IWGRP | S_IWOTH: no
 * one else may put a socket there; 077: no one else may enter).  Its
 * descriptor (the caller closes it), or -errno.
 */
int fabric_trust_dir(const char *path, mode_t deny, struct umad_err *err);

/*
 * What is at path's last component in directory dirfd (not followed) is a
 * socket of this user's.  -ENOENT when nothing is there.
 */
int fabric_trust_socket(int dirfd, const char *path, struct umad_err *err);

/* The process at the other end of connected socket fd (the server at path) runs as this user. */
int fabric_trust_peer(int fd, const char *path, struct umad_err *err);

/*
 * fd, handed over as a channel (what: its name in messages), is a Unix
 * SOCK_SEQPACKET socket of this user's, connected to a process of this
 * user's.
 */
int fabric_trust_channel(int fd, const char *what, struct umad_err *err);

/*
 * "WHAT belongs to user X, not to this one (Y): refused" in err, for a
 * check that found owner where this user was expected; returns rc.
 */
int fabric_trust_not_ours(int rc, struct umad_err *err, const char *what, uid_t owner);

/* The last component of path (what fabric_trust_socket looks at). */
const char *fabric_trust_basename(const char *path);

#endif /* SIMFABRIC_FABRIC_TRUST_H */
