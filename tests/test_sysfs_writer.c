/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fake sysfs writer against a tree someone else has been at: links
 * planted at the temporary and the final names of a file, at a directory
 * and at a device node, and at the root; directories owned by another user
 * (65534, by chown: needs root) or open to everyone's writes.  What a link
 * leads to is never written or created, what is refused is said with the
 * path, and a tree of our own is written as before.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

#include "backends/sysfs_writer.h"

#define OTHER_UID	65534	/* nobody */
#define SECRET		"the target's own content\n"

static char base[64];		/* mkdtemp: holds the tree and the targets of the links */
static char root[128];		/* the tree */
static struct umad_err err;

/* One CA with port 1, as the sim backend writes its host. */
static uint16_t pkeys[] = { 0xffff, 0x8001 };
static umad_port_t port1 = {
	.ca_name = "sim0",
	.portnum = 1,
	.base_lid = 3,
	.sm_lid = 1,
	.state = 4,
	.phys_state = 5,
	.link_layer = "InfiniBand",
	.pkeys_size = 2,
	.pkeys = pkeys,
};
static umad_ca_t ca = {
	.ca_name = "sim0",
	.node_type = 1,
	.numports = 1,
	.fw_ver = "1.0",
	.hw_ver = "0",
	.ca_type = "test",
	.ports = { NULL, &port1 },
};
static const int umad_ids[UMAD_CA_MAX_PORTS] = { -1, 0 };
static const char *const rates[UMAD_CA_MAX_PORTS] = { NULL, "10 Gb/sec (4X SDR)" };

static int write_host(const char *node_desc)
{
	umad_err_clear(&err);
	return sysfs_write_ca(root, &ca, "MT_0000000222", node_desc, umad_ids, rates, &err);
}

/* BASE/name, or ROOT/name when in_tree. */
static const char *at(int in_tree, const char *name)
{
	static char paths[4][PATH_MAX * 2];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", in_tree ? root : base, name);
	return p;
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

static const char *read_text(const char *path)
{
	static char text[256];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

static int is_regular(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/umad-test-sysfs-XXXXXX");
	assert_non_null(mkdtemp(base));
	snprintf(root, sizeof(root), "%s/tree", base);
	write_text(at(0, "secret"), SECRET, 0600);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(sysfs_remove(base, NULL), 0);
	return 0;
}

/* A tree of our own: written, made where missing, rewritten in place. */
static void test_own_tree(void **state)
{
	(void)state;
	assert_int_equal(write_host("Hca1"), 0);
	assert_string_equal(read_text(at(1, "sys/class/infiniband/sim0/node_desc")), "Hca1\n");
	assert_string_equal(read_text(at(1, "sys/class/infiniband/sim0/board_id")), "MT_0000000222\n");
	assert_string_equal(read_text(at(1, "sys/class/infiniband/sim0/ports/1/pkeys/1")),
			    "0x8001\n");
	assert_string_equal(read_text(at(1, "sys/class/infiniband_mad/umad0/ibdev")), "sim0\n");
	assert_true(is_regular(at(1, "dev/infiniband/issm0")));
	assert_int_equal(write_host("Hca1 again"), 0);
	assert_string_equal(read_text(at(1, "sys/class/infiniband/sim0/node_desc")),
			    "Hca1 again\n");
	assert_false(exists(at(1, "sys/class/infiniband/sim0/node_desc.tmp")));
}

/*
 * A link at the temporary name of a file being rewritten: removed as a
 * link, the file written, the target untouched.  A file whose value stays
 * is not rewritten: a link at its temporary name stays too, never followed.
 */
static void test_link_at_temp_name(void **state)
{
	(void)state;
	assert_int_equal(write_host("Hca1"), 0);
	assert_int_equal(symlink(at(0, "secret"), at(1, "sys/class/infiniband/sim0/node_desc.tmp")),
			 0);
	/* And one leading nowhere, where a write through it would create the file it names. */
	assert_int_equal(symlink(at(0, "created"),
				 at(1, "sys/class/infiniband/sim0/node_guid.tmp")), 0);
	assert_int_equal(write_host("Hca1 renamed"), 0);
	assert_string_equal(read_text(at(0, "secret")), SECRET);
	assert_false(exists(at(0, "created")));
	assert_true(is_regular(at(1, "sys/class/infiniband/sim0/node_desc")));
	assert_string_equal(read_text(at(1, "sys/class/infiniband/sim0/node_desc")),
			    "Hca1 renamed\n");
	assert_false(exists(at(1, "sys/class/infiniband/sim0/node_desc.tmp")));
	assert_true(is_regular(at(1, "sys/class/infiniband/sim0/node_guid")));
}

/* The same value again: the file is left as it is (the same inode), not replaced. */
static void test_same_value_not_rewritten(void **state)
{
	struct stat before, after;

	(void)state;
	assert_int_equal(write_host("Hca1"), 0);
	assert_int_equal(stat(at(1, "sys/class/infiniband/sim0/node_desc"), &before), 0);
	assert_int_equal(write_host("Hca1"), 0);
	assert_int_equal(stat(at(1, "sys/class/infiniband/sim0/node_desc"), &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(write_host("Hca1 renamed"), 0);
	assert_int_equal(stat(at(1, "sys/class/infiniband/sim0/node_desc"), &after), 0);
	assert_int_not_equal(before.st_ino, after.st_ino);
}

/* A link at the final name: replaced by the file, the target untouched. */
static void test_link_at_final_name(void **state)
{
	(void)state;
	assert_int_equal(write_host("Hca1"), 0);
	assert_int_equal(unlink(at(1, "sys/class/infiniband/sim0/node_desc")), 0);
	assert_int_equal(symlink(at(0, "secret"), at(1, "sys/class/infiniband/sim0/node_desc")), 0);
	assert_int_equal(write_host("Hca1"), 0);
	assert_string_equal(read_text(at(0, "secret")), SECRET);
	assert_true(is_regular(at(1, "sys/class/infiniband/sim0/node_desc")));
	assert_string_equal(read_text(at(1, "sys/class/infiniband/sim0/node_desc")), "Hca1\n");
}

/* A link at a device node (only ever created, never written): refused, its target not created. */
static void test_link_at_device_node(void **state)
{
	(void)state;
	assert_int_equal(write_host("Hca1"), 0);
	assert_int_equal(unlink(at(1, "dev/infiniband/issm0")), 0);
	assert_int_equal(symlink(at(0, "created"), at(1, "dev/infiniband/issm0")), 0);
	assert_int_equal(write_host("Hca1"), -ELOOP);
	assert_false(exists(at(0, "created")));
	assert_non_null(strstr(umad_err_text(&err), "dev/infiniband/issm0"));
	assert_non_null(strstr(umad_err_text(&err), "symbolic link"));
}

/* A link in a directory's place: refused, nothing written where it leads. */
static void test_link_at_directory(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at(0, "elsewhere"), 0755), 0);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(at(1, "sys"), 0755), 0);
	assert_int_equal(symlink(at(0, "elsewhere"), at(1, "sys/class")), 0);
	assert_int_equal(write_host("Hca1"), -ELOOP);
	assert_non_null(strstr(umad_err_text(&err), "refusing"));
	assert_non_null(strstr(umad_err_text(&err), at(1, "sys/class")));
	assert_false(exists(at(0, "elsewhere/infiniband")));
}

/* The root itself a link (to a directory of ours): refused. */
static void test_link_at_root(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at(0, "elsewhere"), 0755), 0);
	assert_int_equal(symlink(at(0, "elsewhere"), root), 0);
	assert_int_equal(write_host("Hca1"), -ELOOP);
	assert_non_null(strstr(umad_err_text(&err), root));
	assert_false(exists(at(0, "elsewhere/sys")));
}

/* Only root can give a directory to another user. */
static int can_chown(void)
{
	if (geteuid() == 0)
		return 1;
	fprintf(stderr, "skipped: giving a directory to user %d needs root\n", OTHER_UID);
	return 0;
}

/* A directory in the tree owned by another user: refused with its path, nothing written in it. */
static void test_directory_of_another_user(void **state)
{
	(void)state;
	if (!can_chown())
		skip();
	assert_int_equal(write_host("Hca1"), 0);
	assert_int_equal(chown(at(1, "sys/class/infiniband/sim0"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(unlink(at(1, "sys/class/infiniband/sim0/node_desc")), 0);
	assert_int_equal(write_host("Hca1"), -EPERM);
	assert_non_null(strstr(umad_err_text(&err), at(1, "sys/class/infiniband/sim0")));
	assert_non_null(strstr(umad_err_text(&err), "65534"));
	assert_false(exists(at(1, "sys/class/infiniband/sim0/node_desc")));
}

/* The tree's root owned by another user: refused before anything is written. */
static void test_root_of_another_user(void **state)
{
	(void)state;
	if (!can_chown())
		skip();
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(chown(root, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(write_host("Hca1"), -EPERM);
	assert_non_null(strstr(umad_err_text(&err), root));
	assert_false(exists(at(1, "sys")));
}

/* Writable by others: refused without the sticky bit, written with it. */
static void test_writable_by_others(void **state)
{
	(void)state;
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(chmod(root, 0777), 0);
	assert_int_equal(write_host("Hca1"), -EPERM);
	assert_non_null(strstr(umad_err_text(&err), "0777"));
	assert_false(exists(at(1, "sys")));
	assert_int_equal(chmod(root, 01777), 0);
	assert_int_equal(write_host("Hca1"), 0);
	/* A group-writable directory inside: refused too. */
	assert_int_equal(chmod(at(1, "sys/class/infiniband"), 0775), 0);
	assert_int_equal(write_host("Hca1"), -EPERM);
	assert_non_null(strstr(umad_err_text(&err), at(1, "sys/class/infiniband")));
}

/* The path functions: ".." is no name in the tree, and removing never follows a link. */
static void test_paths_stay_in_the_tree(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at(0, "elsewhere"), 0755), 0);
	write_text(at(0, "elsewhere/kept"), "kept\n", 0644);
	assert_int_equal(sysfs_put(root, "sys/../../escaped", "x\n"), -EINVAL);
	assert_false(exists(at(0, "escaped")));
	assert_int_equal(sysfs_put(root, "sys/a/b", "x\n"), 0);
	assert_string_equal(read_text(at(1, "sys/a/b")), "x\n");
	assert_int_equal(symlink(at(0, "elsewhere"), at(1, "sys/a/link")), 0);
	assert_int_equal(sysfs_put(root, "sys/a/link/kept", "overwritten\n"), -ELOOP);
	assert_int_equal(sysfs_remove(root, "sys/a/link/kept"), -ELOOP);
	assert_int_equal(sysfs_remove(root, NULL), 0);
	assert_false(exists(root));
	assert_string_equal(read_text(at(0, "elsewhere/kept")), "kept\n");
	/* Absent is fine. */
	assert_int_equal(sysfs_remove(root, NULL), 0);
	assert_int_equal(sysfs_remove(base, "nothing/here"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_own_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_value_not_rewritten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_at_temp_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_at_final_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_at_device_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_at_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_at_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_of_another_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_of_another_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writable_by_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_stay_in_the_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
