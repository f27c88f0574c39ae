/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad fabric ... and umad sim ...: the shared fabric's commands (arguments after the command word). */
#ifndef CLI_FABRIC_CMD_H
#define CLI_FABRIC_CMD_H

#include <stdio.h>

int fabric_main(int argc, char **argv);
int sim_main(int argc, char **argv);
/* The usage lines of these commands, indented to follow umad's own "usage: " line. */
void fabric_usage(FILE *out);
/* What the fault commands do (from the fault module's table), for umad --help. */
void fabric_help(FILE *out);

#endif /* CLI_FABRIC_CMD_H */
