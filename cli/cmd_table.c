/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one parser of umad's command lines (cmd_table.h): a row's options
 * through GOption, then its subcommand's row or its handler.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_table.h"
#include "cli/own_library.h"

/* Each usage line after the first is indented under "usage: ". */
#define USAGE_FIRST	"usage: "
#define USAGE_INDENT	"       "

/* What one level of a command line is: the row, its name for messages, its words. */
struct cmd_line {
	const struct umad_command *row;
	char path[256];		/* "fabric serve"; "" for umad itself */
	int argc;
	char **argv;
	char **command;		/* after "--" (CMD_RUNS_COMMAND), or NULL */
	GPtrArray *owned;	/* what was allocated for the words, freed at the end */
};

static int has_value(const GOptionEntry *e)
{
	return e->arg != G_OPTION_ARG_NONE;
}

static const GOptionEntry *short_option(const struct umad_command *row, char c)
{
	const GOptionEntry *e;

	for (e = row->options; e && e->long_name; e++)
		if (e->short_name == c)
			return e;
	return NULL;
}

static const GOptionEntry *long_option(const struct umad_command *row, const char *word)
{
	const GOptionEntry *e;

	for (e = row->options; e && e->long_name; e++)
		if (!strcmp(word + 2, e->long_name))
			return e;
	return NULL;
}

/* Whether the first word that is not an option ends the options (a subcommand's name does). */
static int options_first(const struct umad_command *row)
{
	return (row->flags & CMD_OPTIONS_FIRST) || row->subcommands;
}

/*
 * The words as GOption is to read them: "-tFILE" as "-t" "FILE", since
 * GOption would take it for the options -t -F -I -L -E.  Words after the
 * options (CMD_OPTIONS_FIRST: from the first other word) are left as they
 * are: they are a subcommand's or COMMAND's.
 */
static void split_short_values(struct cmd_line *l)
{
	char **v = g_new0(char *, 2 * (size_t)l->argc + 1);
	int i, n = 1, words_on = 0;

	g_ptr_array_add(l->owned, v);
	v[0] = l->argv[0];
	for (i = 1; i < l->argc; i++) {
		const char *a = l->argv[i];
		const GOptionEntry *e = NULL;

		if (!words_on && a[0] == '-' && a[1] != '-' && a[1])
			e = short_option(l->row, a[1]);
		else if (!words_on && a[0] == '-' && a[1] == '-' && a[2] && !strchr(a, '='))
			e = long_option(l->row, a);
		if (e && has_value(e) && a[1] != '-' && a[2]) {
			v[n++] = g_strndup(a, 2);
			v[n++] = (char *)a + 2;
			g_ptr_array_add(l->owned, v[n - 2]);
			continue;
		}
		v[n++] = (char *)a;
		/* The option's value, in the next word: not an option, whatever it looks like. */
		if (e && has_value(e) && i + 1 < l->argc) {
			v[n++] = l->argv[++i];
			continue;
		}
		if (!strcmp(a, "--") || (a[0] != '-' && options_first(l->row)))
			words_on = 1;
	}
	v[n] = NULL;
	l->argv = v;
	l->argc = n;
}

/* CMD_RUNS_COMMAND: COMMAND is what follows the first "--", read by no parser of umad's. */
static void split_command(struct cmd_line *l)
{
	int i;

	for (i = 1; i < l->argc; i++) {
		if (!strcmp(l->argv[i], "--")) {
			l->command = l->argv + i + 1;
			l->argv[i] = NULL;
			l->argc = i;
			return;
		}
	}
}

/* "umad" or "umad: fabric serve": how a message about this command line starts. */
static void say(const struct cmd_line *l, const char *fmt, va_list ap)
{
	fprintf(stderr, "umad%s%s: ", l->path[0] ? ": " : "", l->path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* The row's usage, made from its options and params when it has no usage lines of its own. */
void cmd_print_usage(const struct umad_command *row, const char *path, FILE *out)
{
	const GOptionEntry *e;

	if (row->usage) {
		row->usage(out);
		return;
	}
	fprintf(out, USAGE_INDENT "umad%s%s", path[0] ? " " : "", path);
	for (e = row->options; e && e->long_name; e++) {
		if (e->short_name)
			fprintf(out, " [-%c", e->short_name);
		else
			fprintf(out, " [--%s", e->long_name);
		fprintf(out, "%s%s]", has_value(e) ? " " : "", has_value(e) ? e->arg_description : "");
	}
	fprintf(out, "%s%s\n", row->params && row->params[0] ? " " : "",
		row->params ? row->params : "");
}

/* The usage on stderr, its first line starting "usage: ". */
static void print_usage_error(const struct cmd_line *l)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);

	if (!mem)
		return;
	cmd_print_usage(l->row, l->path, mem);
	fclose(mem);
	if (size > strlen(USAGE_INDENT) && !strncmp(text, USAGE_INDENT, strlen(USAGE_INDENT)))
		fprintf(stderr, USAGE_FIRST "%s", text + strlen(USAGE_INDENT));
	else
		fputs(text, stderr);
	free(text);
}

/* A command line that does not parse: why, and the usage; exit status 2. */
static int G_GNUC_PRINTF(2, 3) usage_error(const struct cmd_line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(l, fmt, ap);
	va_end(ap);
	print_usage_error(l);
	return CMD_USAGE_ERROR;
}

int cmd_usage_error(const struct umad_command *row, const char *path, const char *fmt, ...)
{
	struct cmd_line l = { .row = row };
	va_list ap;

	snprintf(l.path, sizeof(l.path), "%s", path);
	va_start(ap, fmt);
	say(&l, fmt, ap);
	va_end(ap);
	print_usage_error(&l);
	return CMD_USAGE_ERROR;
}

static const struct umad_command *const *subcommands(const struct umad_command *row)
{
	return row->subcommands ? row->subcommands() : NULL;
}

/* COMMAND --help: GOption's, with the subcommands listed after the options. */
static GOptionContext *help_context(const struct cmd_line *l, gboolean *help)
{
	const GOptionEntry help_entry[] = {
		{ "help", 'h', 0, G_OPTION_ARG_NONE, help, "Show this help", NULL },
		G_OPTION_ENTRY_NULL
	};
	const struct umad_command *const *sub = subcommands(l->row);
	GOptionContext *ctx = g_option_context_new(l->row->params);
	GString *d = g_string_new(l->row->description);

	for (; sub && *sub; sub++) {
		if (sub == subcommands(l->row))
			g_string_append_printf(d, "%sCommands:\n", d->len ? "\n\n" : "");
		g_string_append_printf(d, "  %-12s %s\n", (*sub)->name, (*sub)->summary);
	}
	g_option_context_set_description(ctx, d->str);
	g_string_free(d, TRUE);
	g_option_context_set_summary(ctx, l->row->summary);
	/* Its own --help entry: GOption's would print and exit inside the parse. */
	g_option_context_set_help_enabled(ctx, FALSE);
	if (l->row->options)
		g_option_context_add_main_entries(ctx, l->row->options, NULL);
	g_option_context_add_main_entries(ctx, help_entry, NULL);
	g_option_context_set_strict_posix(ctx, options_first(l->row));
	return ctx;
}

static void print_help(GOptionContext *ctx, const struct cmd_line *l)
{
	char *name = g_strdup_printf("umad%s%s", l->path[0] ? " " : "", l->path);
	char *text;

	g_set_prgname(name);
	text = g_option_context_get_help(ctx, TRUE, NULL);
	fputs(text, stdout);
	g_free(text);
	g_free(name);
}

/* umad's own --help: the usage of every command, then the table's summaries. */
static void print_root_help(const struct cmd_line *l)
{
	const struct umad_command *const *sub;

	printf(USAGE_FIRST "umad --version | --help\n" USAGE_INDENT "umad COMMAND --help\n");
	for (sub = subcommands(l->row); sub && *sub; sub++)
		cmd_print_usage(*sub, (*sub)->name, stdout);
	printf("\n%s\n\ncommands:\n", l->row->summary);
	for (sub = subcommands(l->row); sub && *sub; sub++)
		printf("  %-9s %s\n", (*sub)->name, (*sub)->summary);
	printf("\n");
	for (sub = subcommands(l->row); sub && *sub; sub++)
		if ((*sub)->help)
			(*sub)->help(stdout);
}

static int dispatch(struct cmd_line *l);

/* After the row's options: a subcommand's row, or the row's handler. */
static int run_row(struct cmd_line *l)
{
	const struct umad_command *const *sub = subcommands(l->row);
	struct cmd_line next = *l;
	int r;

	for (; sub && *sub && l->argc >= 2; sub++)
		if (!strcmp((*sub)->name, l->argv[1]))
			break;
	if (sub && *sub && l->argc >= 2) {
		next.row = *sub;
		/* Two words and a subcommand's name, far below the size. */
		if (snprintf(next.path, sizeof(next.path), "%s%s%s", l->path, l->path[0] ? " " : "",
			     (*sub)->name) >= (int)sizeof(next.path))
			return usage_error(l, "command name too long");
		next.argc = l->argc - 1;
		next.argv = l->argv + 1;
		next.command = NULL;
		return dispatch(&next);
	}
	/* Every command on this umad's own library, or not at all (doctor tells which it is). */
	if (l->row->run && !(l->row->flags & CMD_ANY_LIBRARY) && own_library_check(l->path) < 0)
		return 1;
	r = l->row->run ? l->row->run(l->argc, l->argv, l->command) : CMD_NOT_HANDLED;
	if (r != CMD_NOT_HANDLED)
		return r;
	if (l->argc < 2)
		return usage_error(l, "missing command");
	return usage_error(l, "unknown command '%s'%s", l->argv[1],
			   l->path[0] ? "" : " (umad --help lists them)");
}

static int dispatch(struct cmd_line *l)
{
	gboolean help = FALSE;
	GOptionContext *ctx;
	GError *err = NULL;
	int r;

	if (l->row->flags & CMD_RUNS_COMMAND)
		split_command(l);
	split_short_values(l);
	ctx = help_context(l, &help);
	if (g_option_context_parse(ctx, &l->argc, &l->argv, &err) && l->argc >= 2 &&
	    !strcmp(l->argv[1], "--")) {
		/* Strict POSIX parsing leaves the "--" that ended the options: not a word. */
		memmove(l->argv + 1, l->argv + 2, (size_t)(l->argc - 1) * sizeof(*l->argv));
		l->argc--;
	}
	if (err) {
		/* GOption's "Unknown option --x", "Missing argument for --x". */
		char *why = g_strdup(err->message);

		why[0] = g_ascii_tolower(why[0]);
		r = usage_error(l, "%s", why);
		g_free(why);
		g_error_free(err);
	} else if (help && !l->path[0]) {
		print_root_help(l);
		r = 0;
	} else if (help) {
		print_help(ctx, l);
		r = 0;
	} else {
		r = run_row(l);
	}
	g_option_context_free(ctx);
	return r;
}

int cmd_main(const struct umad_command *root, int argc, char **argv)
{
	struct cmd_line l = { .row = root, .argc = argc, .argv = argv,
			      .owned = g_ptr_array_new_with_free_func(g_free) };
	int r = dispatch(&l);

	g_ptr_array_free(l.owned, TRUE);
	return r;
}
