/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad doctor: which library umad and a COMMAND run on, the backends, FUSE and namespaces. */
#ifndef CLI_DOCTOR_H
#define CLI_DOCTOR_H

#include "cli/cmd_table.h"

extern const struct umad_command doctor_command;

#endif /* CLI_DOCTOR_H */
