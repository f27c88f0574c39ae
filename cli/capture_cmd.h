/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad capture ...: a command's MADs to a pcapng file, and what a file holds (its table row). */
#ifndef CLI_CAPTURE_CMD_H
#define CLI_CAPTURE_CMD_H

#include "cli/cmd_table.h"

extern const struct umad_command capture_command;

#endif /* CLI_CAPTURE_CMD_H */
