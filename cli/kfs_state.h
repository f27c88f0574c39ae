/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the parts of `umad kernel`'s file system share: the host it serves
 * (its devices and umad ports, as the backend shows them), the tree of
 * files, and the FUSE session.  kfs.c owns it; kfs_tree.c serves the sysfs
 * files and kfs_dev.c the device files, kfs_query.c asks the host's own
 * agents what the kernel asks its hardware.  One thread runs it all: no
 * locks.
 */
#ifndef CLI_KFS_STATE_H
#define CLI_KFS_STATE_H

#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/backend.h"

#define KFS_MAX_CAS	16
#define KFS_MAX_UMADS	(KFS_MAX_CAS * UMAD_CA_MAX_PORTS)
#define KFS_NO_NODE	UINT32_MAX

enum kfs_kind {
	KFS_DIR,
	KFS_TEXT,	/* a sysfs file: its text made when it is opened */
	KFS_UMAD,	/* dev/infiniband/umadN */
	KFS_ISSM,	/* dev/infiniband/issmN */
};

/* What a KFS_TEXT file shows. */
enum kfs_text {
	KT_CA_FILE,		/* sysfs_ca_files[index] */
	KT_BOARD_ID,
	KT_NODE_DESC,
	KT_PORT_FILE,		/* sysfs_port_files[index] */
	KT_RATE,
	KT_PKEY,		/* pkeys/index */
	KT_COUNTER,		/* counters/kfs_counters[index] */
	KT_ABI_VERSION,
	KT_MAD_IBDEV,		/* infiniband_mad/{umad,issm}N/ibdev; index: the umad */
	KT_MAD_PORT,
	KT_MAD_DEV_UMAD,	/* .../umadN/dev: "231:N" */
	KT_MAD_DEV_ISSM,
};

/* A file or directory; its inode number is its index plus one (the root's is FUSE_ROOT_ID). */
struct kfs_node {
	char name[40];		/* the longest: a counter's */
	uint32_t parent, first_child, next_sibling, last_child;
	uint8_t kind, text;
	int16_t ca, port;	/* -1: none */
	int32_t index;		/* of the file's kind (see enum kfs_text); the umad for devices */
};

struct kfs_ca {
	char name[UMAD_CA_NAME_LEN];
	int node_type;
};

struct kfs_wait;
struct kfs_query;

/* A umad port of the host: umadN and issmN. */
struct kfs_umad {
	int ca, port;
	int issm_fd;			/* the backend's issm device held: -1 when nobody holds ours */
	struct kfs_wait *issm_waiters;	/* opens of issmN waiting for it, oldest first */
};

/*
 * What every open file's handle holds: kfs_free releases the files the
 * kernel never said were closed (the file system went before them).
 */
struct kfs_open {
	struct kfs_open *prev, *next;
	void (*release)(struct kfs_open *o);
};

struct kfs {
	const struct umad_backend *be;
	struct kfs_node *nodes;
	uint32_t n_nodes, cap_nodes;
	struct kfs_ca cas[KFS_MAX_CAS];
	int n_cas;
	struct kfs_umad umads[KFS_MAX_UMADS];
	int n_umads;
	struct kfs_query *query;
	struct kfs_open *open_files;
	struct fuse_session *se;
	struct fuse_buf fbuf;		/* where requests are read into */
	int epfd;
	int mounted;			/* fuse_session_mount succeeded */
	uid_t uid;
	gid_t gid;
	struct timespec start;
	size_t max_write;		/* the largest piece a write(2) comes in */
};

static inline struct kfs_node *kfs_node_of(struct kfs *k, fuse_ino_t ino)
{
	return ino >= 1 && ino <= k->n_nodes ? &k->nodes[ino - 1] : NULL;
}

static inline void kfs_open_add(struct kfs *k, struct kfs_open *o,
				void (*release)(struct kfs_open *o))
{
	o->release = release;
	o->prev = NULL;
	o->next = k->open_files;
	if (o->next)
		o->next->prev = o;
	k->open_files = o;
}

static inline void kfs_open_remove(struct kfs *k, struct kfs_open *o)
{
	if (o->prev)
		o->prev->next = o->next;
	else
		k->open_files = o->next;
	if (o->next)
		o->next->prev = o->prev;
}

/*
 * What epoll reports carries one of these first: the FUSE channel, a
 * caller's descriptor, or an open umad file's port.
 */
enum kfs_watch_kind { KFS_WATCH_FUSE, KFS_WATCH_EXTRA, KFS_WATCH_PORT };
struct kfs_watch {
	enum kfs_watch_kind kind;
};

#endif /* CLI_KFS_STATE_H */
