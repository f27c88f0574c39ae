/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The attached host as a real sysfs-like directory, in the kernel's file
 * formats: ROOT/sys/class/infiniband/<ca>/..., ROOT/sys/class/infiniband_mad/
 * and ROOT/dev/infiniband/{umadN,issmN}.  The kernel backend reads it with
 * UMAD_SYSFS_ROOT=ROOT/sys, and scripts read it as they read /sys.
 */
#ifndef BACKENDS_SYSFS_WRITER_H
#define BACKENDS_SYSFS_WRITER_H

#include <stddef.h>
#include <infiniband/umad.h>

/* Create an empty file (mode 0600) if it is absent, as the device nodes stand in: 0 or -errno. */
int sim_sysfs_touch(const char *path);

/*
 * Write (or rewrite) one CA.  For each non-NULL ca->ports[i], umad_ids[i]
 * is its umad device number and rate_texts[i] its rate file ("10 Gb/sec
 * (4X SDR)").  Each file is replaced
 * atomically, so a reader never sees half a value.  0, or -errno with a
 * message in err.
 */
int sim_sysfs_write_ca(const char *root, const umad_ca_t *ca, const char *node_desc,
		       const int *umad_ids, const char *const *rate_texts, char *err,
		       size_t errlen);

#endif /* BACKENDS_SYSFS_WRITER_H */
