/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one way reasons are told (base/errbuf.h): a reason set, put
 * in context, cut when too long; lines collected up to UMAD_ERR_LINES and
 * the rest counted; NULL for a caller that does not want to know; the
 * lines printed at a backend's boundary.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/errbuf.h"

static unsigned lines_of(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_set(void **state)
{
	struct umad_err e = UMAD_ERR_INIT;

	(void)state;
	assert_string_equal(umad_err_text(&e), "");
	assert_int_equal(e.count, 0);
	assert_int_equal(umad_err_set(&e, -EINVAL, "bad port %u", 7u), -EINVAL);
	assert_string_equal(umad_err_text(&e), "bad port 7");
	assert_int_equal(e.len, strlen("bad port 7"));
	assert_int_equal(e.count, 1);
	/* A second reason takes the place of the first. */
	assert_int_equal(umad_err_set(&e, -ENOENT, "no node \"%s\"", "x"), -ENOENT);
	assert_string_equal(umad_err_text(&e), "no node \"x\"");
	assert_int_equal(e.count, 1);
	umad_err_clear(&e);
	assert_string_equal(umad_err_text(&e), "");
	assert_int_equal(e.count, 0);
	assert_int_equal(e.len, 0);
}

/* NULL: every call returns what it was given and nothing else happens. */
static void test_null(void **state)
{
	(void)state;
	assert_int_equal(umad_err_set(NULL, -EPERM, "%s", "refused"), -EPERM);
	assert_int_equal(umad_err_prefix(NULL, -EIO, "%s: ", "f"), -EIO);
	assert_int_equal(umad_err_set(NULL, 0, "a note"), 0);
	umad_err_add(NULL, "f:%u: %s", 1u, "x");
	umad_err_clear(NULL);
	assert_string_equal(umad_err_text(NULL), "");
	umad_err_print("sim", NULL);
}

/* Too long for the buffer: cut, NUL-terminated, ending in "..." for the reader. */
static void test_set_cut(void **state)
{
	struct umad_err e = UMAD_ERR_INIT;
	char *long_word = malloc(2 * UMAD_ERR_MAX);

	(void)state;
	assert_non_null(long_word);
	memset(long_word, 'x', 2 * UMAD_ERR_MAX - 1);
	long_word[2 * UMAD_ERR_MAX - 1] = '\0';
	assert_int_equal(umad_err_set(&e, -E2BIG, "start %s", long_word), -E2BIG);
	assert_int_equal(strlen(e.text), UMAD_ERR_MAX - 1);
	assert_int_equal(e.len, UMAD_ERR_MAX - 1);
	assert_memory_equal(e.text, "start xx", 8);
	assert_string_equal(e.text + UMAD_ERR_MAX - 4, "...");
	/* Exactly full is whole: no mark. */
	long_word[UMAD_ERR_MAX - 1] = '\0';
	umad_err_set(&e, -E2BIG, "%s", long_word);
	assert_int_equal(e.len, UMAD_ERR_MAX - 1);
	assert_int_equal(e.text[UMAD_ERR_MAX - 2], 'x');
	free(long_word);
}

/* The context of a callee's reason goes before it; with no reason told, strerror says it. */
static void test_prefix(void **state)
{
	struct umad_err e = UMAD_ERR_INIT;
	char *long_word = malloc(UMAD_ERR_MAX);

	(void)state;
	umad_err_set(&e, -EACCES, "not yours");
	assert_int_equal(umad_err_prefix(&e, -EACCES, "%s: ", "/a/b"), -EACCES);
	assert_string_equal(umad_err_text(&e), "/a/b: not yours");
	assert_int_equal(e.len, strlen("/a/b: not yours"));
	assert_int_equal(e.count, 1);

	umad_err_clear(&e);
	assert_int_equal(umad_err_prefix(&e, -ENOENT, "UMAD_X=%s: ", "y"), -ENOENT);
	assert_string_equal(umad_err_text(&e), "UMAD_X=y: No such file or directory");
	assert_int_equal(e.count, 1);

	/* A prefix that makes it too long: cut at the end. */
	assert_non_null(long_word);
	memset(long_word, 'p', UMAD_ERR_MAX - 11);
	long_word[UMAD_ERR_MAX - 11] = '\0';
	umad_err_set(&e, -EIO, "the reason");
	umad_err_prefix(&e, -EIO, "%s: ", long_word);
	assert_int_equal(strlen(e.text), UMAD_ERR_MAX - 1);
	assert_int_equal(e.len, UMAD_ERR_MAX - 1);
	assert_memory_equal(e.text + UMAD_ERR_MAX - 11, ": th", 4);
	assert_string_equal(e.text + UMAD_ERR_MAX - 4, "...");
	free(long_word);
}

/* Lines, each ended by a newline; a reason set before is the first of them. */
static void test_add(void **state)
{
	struct umad_err e = UMAD_ERR_INIT;

	(void)state;
	umad_err_add(&e, "%s:%u: %s", "t.net", 3u, "no such node");
	umad_err_add(&e, "%s:%u: %s", "t.net", 9u, "port listed twice");
	assert_string_equal(umad_err_text(&e),
			    "t.net:3: no such node\nt.net:9: port listed twice\n");
	assert_int_equal(e.count, 2);
	assert_int_equal(e.dropped, 0);
	assert_int_equal(e.len, strlen(e.text));

	umad_err_set(&e, -ENOENT, "t.net: No such file or directory");
	umad_err_add(&e, "and this");
	assert_string_equal(umad_err_text(&e), "t.net: No such file or directory\nand this\n");
	assert_int_equal(e.count, 2);

	/* An entry of several lines (where a file was included from) is one. */
	umad_err_clear(&e);
	umad_err_add(&e, "In file included from a.net:2:\nb.net:1: %s", "bad");
	assert_int_equal(e.count, 1);
	assert_int_equal(lines_of(e.text), 2);
}

/* The first UMAD_ERR_LINES are kept, the rest counted on a last line. */
static void test_add_counts_the_rest(void **state)
{
	struct umad_err e = UMAD_ERR_INIT;
	char want[64];
	unsigned i;

	(void)state;
	for (i = 1; i <= UMAD_ERR_LINES; i++)
		umad_err_add(&e, "f:%u: error", i);
	assert_null(strstr(e.text, "more errors"));
	assert_int_equal(lines_of(e.text), UMAD_ERR_LINES);
	for (; i <= UMAD_ERR_LINES + 5; i++)
		umad_err_add(&e, "f:%u: error", i);
	assert_int_equal(e.count, UMAD_ERR_LINES + 5);
	assert_int_equal(e.dropped, 5);
	assert_int_equal(lines_of(e.text), UMAD_ERR_LINES + 1);
	snprintf(want, sizeof(want), "f:%u: error\n... and 5 more errors\n", UMAD_ERR_LINES);
	assert_non_null(strstr(e.text, want));
	/* The count line is not part of the lines kept. */
	assert_int_equal(e.len, strlen(e.text) - strlen("... and 5 more errors\n"));
	/* A context put before them all keeps the count line. */
	umad_err_prefix(&e, -EINVAL, "cannot load:\n");
	assert_memory_equal(e.text, "cannot load:\nf:1: error\n", 24);
	assert_non_null(strstr(e.text, "\n... and 5 more errors\n"));
}

/* Lines that do not fit are counted, and so is every line after them: what is kept reads in order. */
static void test_add_no_room(void **state)
{
	struct umad_err e = UMAD_ERR_INIT;
	char line[1000];
	unsigned kept = (UMAD_ERR_MAX - UMAD_ERR_TAIL) / (sizeof(line));

	(void)state;
	memset(line, 'l', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (unsigned i = 0; i <= kept; i++)
		umad_err_add(&e, "%s", line);
	umad_err_add(&e, "short");
	assert_int_equal(e.count, kept + 2);
	assert_int_equal(e.dropped, 2);
	assert_int_equal(lines_of(e.text), kept + 1);
	assert_null(strstr(e.text, "short"));
	assert_non_null(strstr(e.text, "l\n... and 2 more errors\n"));
	assert_true(strlen(e.text) < UMAD_ERR_MAX);
}

/* At the boundary: each line with the backend's prefix, and nothing for nothing told. */
static void test_print(void **state)
{
	struct umad_err e = UMAD_ERR_INIT;
	char path[] = "/tmp/test_errbuf.XXXXXX", got[256] = "";
	int fd = mkstemp(path), saved;
	ssize_t n;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	umad_err_print("sim", &e);
	umad_err_set(&e, -EINVAL, "cannot load the topology:\nt.net:1: bad\n");
	umad_err_print("sim", &e);
	umad_err_set(&e, -EINVAL, "one line");
	umad_err_print("replay", &e);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, got, sizeof(got) - 1, 0);
	close(fd);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, "libumad: sim: cannot load the topology:\n"
				 "libumad: sim: t.net:1: bad\n"
				 "libumad: replay: one line\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_set_cut),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_add_counts_the_rest),
		cmocka_unit_test(test_add_no_room),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
