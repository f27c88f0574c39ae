/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad kernel ...: a simulated host's device files and sysfs through FUSE (arguments after the word). */
#ifndef CLI_KERNEL_CMD_H
#define CLI_KERNEL_CMD_H

#include "cli/cmd_table.h"

extern const struct umad_command kernel_command;

#endif /* CLI_KERNEL_CMD_H */
