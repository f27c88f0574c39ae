/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad: the command-line front end, one table of commands (cmd_table.h).
 *   umad capture ...            a command's MADs to pcapng (capture_cmd.c), with capture
 *   umad sim ..., umad fabric ...  a shared simulated fabric (fabric_cmd.c), with sim
 *   umad kernel ...             a simulated host's files through FUSE (kernel_cmd.c)
 *   umad doctor [--kernel] [COMMAND]
 *       which libibumad.so.3 umad and COMMAND run on, the backends, FUSE
 * A command a build leaves out is a row absent from the table below.
 */
#include "config.h"

#include <stdio.h>

#include "cli/cmd_table.h"
#include "cli/doctor.h"
#include "cli/umad_abi.h"
#ifdef UMAD_CLI_CAPTURE
#include "cli/capture_cmd.h"
#endif
#ifdef UMAD_CLI_FABRIC
#include "cli/fabric_cmd.h"
#endif
#ifdef UMAD_CLI_KERNEL
#include "cli/kernel_cmd.h"
#endif

static const struct umad_command *const *commands(void)
{
	static const struct umad_command *const rows[] = {
#ifdef UMAD_CLI_CAPTURE
		&capture_command,
#endif
#ifdef UMAD_CLI_FABRIC
		&sim_command,
		&fabric_command,
#endif
#ifdef UMAD_CLI_KERNEL
		&kernel_command,
#endif
		&doctor_command,
		NULL
	};

	return rows;
}

static gboolean want_version;

static const GOptionEntry umad_options[] = {
	{ "version", 0, 0, G_OPTION_ARG_NONE, &want_version,
	  "Show umad's version and the libibumad ABI it speaks", NULL },
	G_OPTION_ENTRY_NULL
};

/*
 * The project's version, and the ABI of rdma-core's libibumad it speaks:
 * the SONAME and the symbol versions of libumad/libibumad.map (umad_abi.h
 * is made from it), which programs built against rdma-core bind to.
 */
static int umad_run(int argc, char **argv, char **command)
{
	(void)argv;
	(void)command;
	if (!want_version || argc > 1)
		return CMD_NOT_HANDLED;
	printf("umad (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
	printf("libibumad ABI: %s, symbol versions %s to %s (rdma-core's)\n", UMAD_ABI_SONAME,
	       UMAD_ABI_OLDEST, UMAD_ABI_NEWEST);
	return 0;
}

static const struct umad_command umad_command = {
	.name = "umad",
	.summary = "InfiniBand MADs: capture them, and simulated fabrics to send them on",
	.params = "COMMAND [ARGS...]",
	.options = umad_options,
	.flags = CMD_OPTIONS_FIRST | CMD_ANY_LIBRARY,
	.run = umad_run,
	.subcommands = commands,
};

int main(int argc, char **argv)
{
	return cmd_main(&umad_command, argc, argv);
}
