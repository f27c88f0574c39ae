/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad's commands as one table: a row is a command's name, its one-line
 * summary, its options (GOption entries) and its handler; a command with
 * commands of its own (fabric, capture) has a nested table of rows of the
 * same shape.  One parser (cmd_table.c) reads every command line, so that
 * --opt=VALUE, --opt VALUE, -oVALUE, -o VALUE and COMMAND --help work
 * alike everywhere, and a usage error is told alike: "umad: COMMAND: why",
 * exit status 2.  A command left out of a build is a row left out of the
 * table, not a branch of a chain.
 */
#ifndef CLI_CMD_TABLE_H
#define CLI_CMD_TABLE_H

#include <stdio.h>
#include <glib.h>

/* The exit status of a command line that does not parse (as getopt's users give). */
#define CMD_USAGE_ERROR 2
/* What a handler returns for a command line it leaves to the table: "unknown command". */
#define CMD_NOT_HANDLED (-1)

enum cmd_flags {
	/* It runs a COMMAND given after "--": what follows the first "--" is COMMAND's. */
	CMD_RUNS_COMMAND = 1 << 0,
	/* Its options come first: the first other word ends them (COMMAND, a subcommand). */
	CMD_OPTIONS_FIRST = 1 << 1,
	/* It runs on any libibumad.so.3 (doctor tells which); the others on umad's own only. */
	CMD_ANY_LIBRARY = 1 << 2,
};

struct umad_command {
	const char *name;
	const char *summary;		/* one line, for the parent's --help */
	const char *params;		/* what follows the options: "-- COMMAND [ARGS...]" */
	const char *description;	/* more for COMMAND --help (NULL: none) */
	const GOptionEntry *options;	/* ends with an entry of NULL long_name; NULL: none */
	unsigned flags;			/* enum cmd_flags */
	/*
	 * argv[0] is the command's name, then the words that are not options;
	 * command: what followed "--" (CMD_RUNS_COMMAND; NULL when there was
	 * no "--"), NULL-terminated.  The exit status, or CMD_NOT_HANDLED
	 * when the words name no command of its table.  NULL: the command is
	 * only its subcommands.  A subcommand's row is chosen before this runs.
	 */
	int (*run)(int argc, char **argv, char **command);
	/* Its subcommands' table, NULL-terminated (NULL: none). */
	const struct umad_command *const *(*subcommands)(void);
	/* Its usage lines, each indented to follow "usage: " (NULL: made from the row). */
	void (*usage)(FILE *out);
	/* More for umad --help after the list of commands (NULL: none). */
	void (*help)(FILE *out);
};

/* Runs the command line argv (argv[0] naming root) through root's table: the exit status. */
int cmd_main(const struct umad_command *root, int argc, char **argv);

/* A row's usage lines, as its usage hook has them or as made from the row. */
void cmd_print_usage(const struct umad_command *row, const char *path, FILE *out);

/* A handler's usage error: "umad: PATH: why" and the row's usage on stderr; exit status 2. */
int cmd_usage_error(const struct umad_command *row, const char *path, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

#endif /* CLI_CMD_TABLE_H */
