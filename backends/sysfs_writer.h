/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Fake hosts as real sysfs-like directories, in the kernel's file formats
 * (sysfs_layout.h): ROOT/sys/class/infiniband/<ca>/..., ROOT/sys/class/
 * infiniband_mad/ and ROOT/dev/infiniband/{umadN,issmN}.  The kernel
 * backend reads them with UMAD_SYSFS_ROOT=ROOT/sys and UMAD_DEV_DIR=
 * ROOT/dev/infiniband, and scripts read them as they read /sys.  The sim
 * backend writes its attached host with it; tests and examples build
 * their hosts with it, and break them on purpose with sysfs_put() and
 * sysfs_remove().  Every function returns 0 or -errno.  libc only.
 */
#ifndef BACKENDS_SYSFS_WRITER_H
#define BACKENDS_SYSFS_WRITER_H

#include <stddef.h>
#include <infiniband/umad.h>

#include "backends/sysfs_layout.h"
#include "base/errbuf.h"

/*
 * Paths in the tree under ROOT: ROOT/sys/class/infiniband[/CA][/FILE] (no
 * CA: the class directory), ROOT/sys/class/infiniband/CA/ports/PORT[/FILE],
 * ROOT/sys/class/infiniband_mad[/FILE] and ROOT/dev/infiniband[/FILE].  A
 * NULL FILE names the directory; a NULL ROOT gives the path inside the
 * tree (sys/class/...), as the functions below take it.  -ENAMETOOLONG
 * when it does not fit.
 */
int sysfs_ca_path(char *path, size_t size, const char *root, const char *ca, const char *file);
int sysfs_port_path(char *path, size_t size, const char *root, const char *ca, int port,
		    const char *file);
int sysfs_mad_path(char *path, size_t size, const char *root, const char *file);
int sysfs_dev_path(char *path, size_t size, const char *root, const char *file);

/*
 * Every write goes through directory descriptors, from ROOT down, and
 * never through a symbolic link: ROOT (made, mode 0755, when missing; ""
 * is "/") and each directory under it must belong to this user or root
 * and be closed to others' writes unless sticky, or the call is refused
 * (-EPERM; -ELOOP for a link, -ENOTDIR for something else in a
 * directory's place).  REL is a path inside the tree, "." and ".." not
 * allowed.
 */

/* Make directory REL and its parents in the tree (mode 0755); NULL REL: ROOT alone. */
int sysfs_mkdirs(const char *root, const char *rel);
/*
 * Write value to file REL exactly as given (the kernel's files end in a
 * newline; a value without one is a deliberate oddity), making its
 * directory.  It goes into REL.tmp, created anew, then renamed over REL,
 * so a reader never sees half a value; a link at either name is replaced,
 * never followed.
 */
int sysfs_put(const char *root, const char *rel, const char *value);
/* Remove REL, a file or a whole directory (NULL REL: the whole tree); absent is not an error. */
int sysfs_remove(const char *root, const char *rel);
/* Create an empty file REL (mode 0600) if it is absent, as the device nodes stand in. */
int sysfs_touch(const char *root, const char *rel);

/* ROOT/sys/class/infiniband_mad/abi_version: ib_umad's ABI version. */
int sysfs_write_abi_version(const char *root, unsigned version);
/*
 * The files of CA name (its name is an argument since tests need names
 * that umad_ca_t cannot hold): node_type, GUIDs, versions from ca, and
 * board_id and node_desc unless NULL; ca's ports are not written, but
 * its ports directory is made.
 */
int sysfs_write_ca_files(const char *root, const char *name, const umad_ca_t *ca,
			 const char *board_id, const char *node_desc);
/*
 * Port port->portnum of CA ca_name, from port (whose ca_name is not used)
 * and rate_text, the rate file ("10 Gb/sec (4X SDR)").  An empty
 * link_layer leaves the file out, as kernels before link layers did.
 */
int sysfs_write_port(const char *root, const char *ca_name, const umad_port_t *port,
		     const char *rate_text);
/* umadN and issmN of ca_name's port: ib_umad's class entries and the device nodes. */
int sysfs_write_umad(const char *root, int id, const char *ca_name, int port);

/*
 * Write (or rewrite) one whole CA, as the sim backend shows its host: the
 * files of ca and board_id (unless NULL), ib_umad's ABI version, and for each non-NULL ca->ports[i]
 * the port with rate file rate_texts[i] and umad device umad_ids[i].  0,
 * or -errno with why in err, naming the path that failed or was refused.
 */
int sysfs_write_ca(const char *root, const umad_ca_t *ca, const char *board_id,
		   const char *node_desc, const int *umad_ids, const char *const *rate_texts,
		   struct umad_err *err);

#endif /* BACKENDS_SYSFS_WRITER_H */
