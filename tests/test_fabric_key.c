/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The key file of a fabric reached over TCP (simfabric/fabric_key.h): the
 * key is the file's bytes without one trailing newline; a file that is a
 * symbolic link, not a regular file, another user's (root only: chown to
 * 65534), open to other users, too short or too long is refused with its
 * path and the reason.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "simfabric/fabric_key.h"

#define NOBODY	65534

static char dir[64], path[128];

#define assert_said(err, text) do { \
	if (!strstr(umad_err_text(err), (text))) \
		fail_msg("expected '%s' in: %s", (text), umad_err_text(err)); } while (0)

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/umad-key-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* The key file at path, replaced, holding len bytes of data, with this mode. */
static void write_key(const void *data, size_t len, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

/*
 * Load the key at path: fabric_key_load's result; the key's bytes in
 * *bytes, *len; why in err (NULL: not wanted).
 */
static int load(struct umad_err *err, uint8_t *bytes, size_t *len)
{
	struct fabric_key *k = NULL;
	int r;

	umad_err_clear(err);
	r = fabric_key_load(path, &k, err);
	if (r == 0) {
		size_t n;
		const uint8_t *b = fabric_key_bytes(k, &n);

		assert_true(n <= FABRIC_KEY_MAX);
		if (bytes)
			memcpy(bytes, b, n);
		if (len)
			*len = n;
		fabric_key_free(k);
	} else {
		assert_null(k);
		assert_true(!err || umad_err_text(err)[0] != '\0');
	}
	return r;
}

/* A base64 key with its newline, one with "\r\n", and raw bytes: each its bytes, no newline. */
static void test_key_is_the_file_without_its_newline(void **state)
{
	static const char b64[] = "q5Q3b6M0Jq9bqG1tQvJq2tB1m7c0u3VvWkXo4PZ6cXs=\n";
	static const char crlf[] = "0123456789abcdefXYZ\r\n";
	uint8_t raw[32], got[FABRIC_KEY_MAX];
	struct umad_err err = UMAD_ERR_INIT;
	size_t len, i;

	(void)state;
	write_key(b64, strlen(b64), 0600);
	assert_int_equal(load(&err, got, &len), 0);
	assert_int_equal(len, strlen(b64) - 1);
	assert_memory_equal(got, b64, len);
	write_key(crlf, strlen(crlf), 0400);
	assert_int_equal(load(&err, got, &len), 0);
	assert_int_equal(len, strlen(crlf) - 2);
	assert_memory_equal(got, crlf, len);
	/* Binary, a '\n' inside kept and none at its end. */
	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(i * 37 + 10);
	write_key(raw, sizeof(raw), 0600);
	assert_int_equal(load(&err, got, &len), 0);
	assert_int_equal(len, sizeof(raw));
	assert_memory_equal(got, raw, sizeof(raw));
}

/* Readable or writable by the group or others: refused, with the mode and the path. */
static void test_file_open_to_others_is_refused(void **state)
{
	static const char key[] = "0123456789abcdef0123456789abcdef\n";
	static const mode_t modes[] = { 0644, 0640, 0620, 0604, 0602, 0666 };
	struct umad_err err = UMAD_ERR_INIT;
	char mode_text[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		write_key(key, strlen(key), modes[i]);
		assert_int_equal(load(&err, NULL, NULL), -EPERM);
		snprintf(mode_text, sizeof(mode_text), "(mode %04o)", (unsigned)modes[i]);
		assert_said(&err, "open to other users");
		assert_said(&err, mode_text);
		assert_said(&err, path);
	}
	write_key(key, strlen(key), 0600);
	assert_int_equal(load(&err, NULL, NULL), 0);
}

/* A symbolic link to a good key file is not followed; a directory, a pipe, nothing: refused. */
static void test_link_and_other_kinds_are_refused(void **state)
{
	static const char key[] = "0123456789abcdef0123456789abcdef\n";
	struct umad_err err = UMAD_ERR_INIT;
	char target[160];

	(void)state;
	snprintf(target, sizeof(target), "%s/real", dir);
	write_key(key, strlen(key), 0600);
	assert_int_equal(rename(path, target), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(load(&err, NULL, NULL), -ELOOP);
	assert_said(&err, "is a symbolic link");
	assert_said(&err, path);
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(load(&err, NULL, NULL), -EINVAL);
	assert_said(&err, "is a directory");
	rmdir(path);
	/* A pipe nobody writes to: refused at once, not waited on. */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(load(&err, NULL, NULL), -EINVAL);
	assert_said(&err, "is a pipe");
	unlink(path);
	assert_int_equal(load(&err, NULL, NULL), -ENOENT);
	assert_said(&err, "cannot be opened");
	assert_said(&err, path);
	/* A caller that does not want why: the same refusal. */
	assert_int_equal(load(NULL, NULL, NULL), -ENOENT);
}

/* Another user's key file (root can make one): refused with its owner. */
static void test_other_owner_is_refused(void **state)
{
	static const char key[] = "0123456789abcdef0123456789abcdef\n";
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	if (geteuid() != 0)
		skip();
	write_key(key, strlen(key), 0600);
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	assert_int_equal(load(&err, NULL, NULL), -EPERM);
	assert_said(&err, "belongs to user 65534");
	assert_said(&err, path);
	assert_int_equal(chown(path, 0, 0), 0);
	assert_int_equal(load(&err, NULL, NULL), 0);
}

/* Empty, under FABRIC_KEY_MIN without the newline, over FABRIC_KEY_MAX: refused; the bounds taken. */
static void test_length_is_bounded(void **state)
{
	static char big[FABRIC_KEY_MAX + 1];
	struct umad_err err = UMAD_ERR_INIT;
	size_t len;
	uint8_t got[FABRIC_KEY_MAX];

	(void)state;
	memset(big, 'k', sizeof(big));
	write_key("", 0, 0600);
	assert_int_equal(load(&err, NULL, NULL), -EMSGSIZE);
	assert_said(&err, "is empty");
	write_key("\n", 1, 0600);
	assert_int_equal(load(&err, NULL, NULL), -EMSGSIZE);
	assert_said(&err, "is empty");
	write_key(big, FABRIC_KEY_MIN - 1, 0600);
	assert_int_equal(load(&err, NULL, NULL), -EMSGSIZE);
	assert_said(&err, "is too short");
	assert_said(&err, path);
	/* The newline does not count. */
	memcpy(big + FABRIC_KEY_MIN - 1, "\n", 1);
	write_key(big, FABRIC_KEY_MIN, 0600);
	assert_int_equal(load(&err, NULL, NULL), -EMSGSIZE);
	memset(big, 'k', sizeof(big));
	write_key(big, FABRIC_KEY_MIN, 0600);
	assert_int_equal(load(&err, got, &len), 0);
	assert_int_equal(len, FABRIC_KEY_MIN);
	write_key(big, FABRIC_KEY_MAX, 0600);
	assert_int_equal(load(&err, got, &len), 0);
	assert_int_equal(len, FABRIC_KEY_MAX);
	write_key(big, FABRIC_KEY_MAX + 1, 0600);
	assert_int_equal(load(&err, NULL, NULL), -EMSGSIZE);
	assert_said(&err, "bytes long, more than a key file's 4096");
}

/* UMAD_SIM_FABRIC_KEY names the file; unset or empty, the caller is told to set it. */
static void test_file_named_by_environment(void **state)
{
	static const char key[] = "0123456789abcdef0123456789abcdef\n";
	struct fabric_key *k = NULL;
	struct umad_err err = UMAD_ERR_INIT;
	size_t len;

	(void)state;
	unsetenv(FABRIC_KEY_ENV);
	assert_int_equal(fabric_key_load_env(&k, &err), -ENOKEY);
	assert_null(k);
	assert_said(&err, "UMAD_SIM_FABRIC_KEY is not set");
	setenv(FABRIC_KEY_ENV, "", 1);
	assert_int_equal(fabric_key_load_env(&k, &err), -ENOKEY);
	write_key(key, strlen(key), 0644);
	setenv(FABRIC_KEY_ENV, path, 1);
	assert_int_equal(fabric_key_load_env(&k, &err), -EPERM);
	assert_said(&err, path);
	write_key(key, strlen(key), 0600);
	assert_int_equal(fabric_key_load_env(&k, &err), 0);
	assert_non_null(k);
	fabric_key_bytes(k, &len);
	assert_int_equal(len, strlen(key) - 1);
	fabric_key_free(k);
	unsetenv(FABRIC_KEY_ENV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_key_is_the_file_without_its_newline, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(test_file_open_to_others_is_refused, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(test_link_and_other_kinds_are_refused, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(test_other_owner_is_refused, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_length_is_bounded, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_file_named_by_environment, make_dir,
						remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
