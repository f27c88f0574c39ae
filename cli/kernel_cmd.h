/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad kernel ...: a simulated host's device files and sysfs through FUSE (arguments after the word). */
#ifndef CLI_KERNEL_CMD_H
#define CLI_KERNEL_CMD_H

#include <stdio.h>

int kernel_main(int argc, char **argv);
/* The usage lines, indented to follow umad's own "usage: " line. */
void kernel_usage(FILE *out);

#endif /* CLI_KERNEL_CMD_H */
