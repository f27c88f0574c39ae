/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* umad doctor: which library umad and a COMMAND run on, the backends, FUSE and namespaces. */
#ifndef CLI_DOCTOR_H
#define CLI_DOCTOR_H

#include <stdio.h>

void doctor_usage(FILE *out);
int doctor_main(int argc, char **argv);

#endif /* CLI_DOCTOR_H */
