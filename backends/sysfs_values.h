/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The text of a host's InfiniBand sysfs files, as the kernel shows them
 * (each ends in a newline), from what umad_get_ca() and umad_get_port()
 * return.  One formatter for every fake host: the tree written to a
 * directory (sysfs_writer.h) and the one served live by `umad kernel`.
 * Each returns the text's length, -ENOENT for a name that is not such a
 * file, or -ENAMETOOLONG when it does not fit size.
 */
#ifndef BACKENDS_SYSFS_VALUES_H
#define BACKENDS_SYSFS_VALUES_H

#include <stddef.h>
#include <infiniband/umad.h>

/* The files of a CA's directory that umad_ca_t holds, in the order they are written. */
extern const char *const sysfs_ca_files[];
/* The files of a port's directory that umad_port_t holds (gids/0 among them). */
extern const char *const sysfs_port_files[];

int sysfs_ca_text(const char *file, const umad_ca_t *ca, char *buf, size_t size);
int sysfs_port_text(const char *file, const umad_port_t *port, char *buf, size_t size);
/* pkeys/N: "0x%04x\n" (index N must be below the table's size, else -ENOENT). */
int sysfs_pkey_text(const umad_port_t *port, unsigned index, char *buf, size_t size);

/*
 * The rate file from a port's active width and speed, as PortInfo carries
 * them (LINK_WIDTH_*, LINK_SPEED_* and, when the extended speed is
 * active, LINK_SPEED_EXT_*) and MlnxExtPortInfo (MLNX_LINK_SPEED_*, 0 on
 * other nodes): "40 Gb/sec (4X QDR)", "2.5 Gb/sec (1X SDR)", "40 Gb/sec
 * (4X FDR10)".
 */
int sysfs_rate_text(unsigned width_active, unsigned speed_active, unsigned speed_ext_active,
		    unsigned mlnx_speed_active, char *buf, size_t size);

/* A text of the caller's as a file's: value and a newline. */
int sysfs_line_text(const char *value, char *buf, size_t size);

#endif /* BACKENDS_SYSFS_VALUES_H */
