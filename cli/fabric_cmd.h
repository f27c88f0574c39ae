/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad fabric ... and umad sim ...: the shared fabric's commands, as rows of umad's table. */
#ifndef CLI_FABRIC_CMD_H
#define CLI_FABRIC_CMD_H

#include "cli/cmd_table.h"

extern const struct umad_command fabric_command;
extern const struct umad_command sim_command;

#endif /* CLI_FABRIC_CMD_H */
