/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Run a test case in a forked child with its own environment, because the
 * backend and the capture tap are chosen once per process.  The child
 * reports the first failed CHECK through a pipe; its stderr is collected.
 */
#ifndef TESTS_CHILD_H
#define TESTS_CHILD_H

#include <stdio.h>

extern char child_failure[512];

#define CHECK(cond) do { if (!(cond)) { \
	snprintf(child_failure, sizeof(child_failure), "%s:%d: %s", __FILE__, __LINE__, #cond); \
	return -1; } } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { snprintf(child_failure, sizeof(child_failure), \
		"%s:%d: %s == %lld, expected %s == %lld", __FILE__, __LINE__, #a, a_, #b, b_); \
		return -1; } } while (0)

struct child_result {
	char failure[512];
	char stderr_text[4096];
};

/* Run fn in a child with UMAD_BACKEND and UMAD_MODULE_DIR set (NULL: unset). */
void run_child(int (*fn)(void), const char *backend, const char *module_dir,
	       struct child_result *res);
/* The same, failing the current cmocka test when the child reported a failure. */
void expect_child_ok(int (*fn)(void), const char *backend, const char *module_dir,
		     struct child_result *res);

#endif /* TESTS_CHILD_H */
