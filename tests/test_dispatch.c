/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Backend selection and the public I/O path through a dlopen()ed module.
 * Selection happens once per process, so every case runs in a forked child
 * that reports the first failed check (or nothing) through a pipe; stderr of
 * the child is captured to check the messages users see.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>

#if !defined(TEMPLATE_MODULE_DIR) || !defined(WRONG_ABI_MODULE_DIR) || !defined(NO_RECV_MODULE_DIR)
#error "the build names the directories of the template module and its refused variants"
#endif

#include "tests/child.h"

/* --- an unusable backend: every call fails cleanly ---------------------- */

static int calls_fail_cleanly(void)
{
	char names[4][UMAD_CA_NAME_LEN], path[64];
	uint8_t buf[256 + 64] = { 0 };
	struct umad_reg_attr attr = { .mgmt_class = 4, .mgmt_class_version = 1 };
	umad_port_t port;
	__be64 guids[4];
	uint32_t agent;
	umad_ca_t ca;
	int len = 256;

	CHECK(umad_init() < 0);
	CHECK(umad_get_cas_names(names, 4) < 0);
	CHECK(umad_get_ca("x", &ca) < 0);
	CHECK(umad_get_port("x", 1, &port) < 0);
	CHECK(umad_get_ca_portguids("x", guids, 4) < 0);
	CHECK(umad_get_issm_path("x", 1, path, sizeof(path)) < 0);
	CHECK(umad_open_port(NULL, 0) < 0);
	CHECK(umad_open_smi_port(NULL, 0) < 0);
	CHECK(umad_close_port(3) < 0);
	CHECK_EQ(umad_send(3, 0, buf, 256, 0, 0), -EIO);
	CHECK(umad_recv(3, buf, &len, 0) < 0);
	CHECK_EQ(len, 256);
	CHECK_EQ(umad_register(3, 4, 1, 0, NULL), -EPERM);
	CHECK(umad_register2(3, &attr, &agent) > 0);
	CHECK_EQ(umad_unregister(3, 0), -1);
	CHECK(umad_get_ca_device_list() == NULL);
	CHECK(errno != 0);
	/* The pure buffer helpers still work. */
	CHECK_EQ(umad_size(), 56);
	CHECK_EQ(umad_set_addr(buf, 1, 1, 0, 0), 0);
	return 0;
}

/* The template backend is listed: the message names what UMAD_BACKEND may say. */
static void test_unknown_backend(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(calls_fail_cleanly, "nosuch", TEMPLATE_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text, "unknown backend 'nosuch' in UMAD_BACKEND"));
	/* Whatever else this configuration built, the template is there. */
	assert_non_null(strstr(res.stderr_text, "available backends: kernel, "));
	assert_non_null(strstr(strstr(res.stderr_text, "available backends: "), "loopback\n"));
	/* One message per process, not one per call. */
	assert_null(strstr(strstr(res.stderr_text, "unknown backend") + 1, "unknown backend"));
}

static void test_missing_module(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(calls_fail_cleanly, "loopback", "/nonexistent/modules", &res);
	assert_non_null(strstr(res.stderr_text, "backend 'loopback' is not available"));
	assert_non_null(strstr(res.stderr_text, "/nonexistent/modules/backend-loopback.so"));
	assert_non_null(strstr(res.stderr_text, "available backends: kernel\n"));
}

static void test_module_wrong_abi(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(calls_fail_cleanly, "loopback", WRONG_ABI_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text, "backend-loopback.so was built for backend ABI"));
}

/* A module without a mandatory operation is refused when loaded, not found out by a crash. */
static void test_module_missing_operation(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(calls_fail_cleanly, "loopback", NO_RECV_MODULE_DIR, &res);
	assert_non_null(strstr(res.stderr_text,
			       "backend-loopback.so does not implement the mandatory operation 'recv'; "
			       "backend 'loopback' refused"));
	assert_null(strstr(strstr(res.stderr_text, "refused") + 1, "refused"));
}

/* --- the template backend: public calls end to end --------------------------- */

static int loopback_round_trips(void)
{
	char names[4][UMAD_CA_NAME_LEN];
	uint8_t buf[64 + 2048];
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	struct pollfd pfd;
	long mask[16 / sizeof(long)] = { 0 };
	int fd, agent, len, r;
	umad_port_t port;

	CHECK_EQ(umad_init(), 0);
	CHECK_EQ(umad_get_cas_names(names, 4), 1);
	CHECK(!strcmp(names[0], "loop0"));
	CHECK_EQ(umad_size(), 56);
	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	CHECK_EQ(umad_size(), 64);
	CHECK_EQ(umad_get_fd(fd), fd);
	CHECK_EQ(umad_get_port(NULL, 0, &port), 0);
	CHECK(!strcmp(port.ca_name, "loop0"));
	CHECK_EQ(port.portnum, 1);
	CHECK_EQ(umad_release_port(&port), 0);

	agent = umad_register(fd, 0x04, 1, 0, mask);
	CHECK_EQ(agent, 4);

	/* Nothing queued: EAGAIN without a timeout, ETIMEDOUT with one; *length untouched. */
	len = 256;
	umad->length = 999;
	CHECK_EQ(umad_recv(fd, buf, &len, 0), -EAGAIN);
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(len, 256);
	CHECK_EQ(umad_recv(fd, buf, &len, 10), -ETIMEDOUT);
	CHECK_EQ(errno, ETIMEDOUT);
	CHECK_EQ(len, 256);
	CHECK_EQ(umad_poll(fd, 0), -ETIMEDOUT);

	/* A 1024-byte message into a 256-byte buffer: ENOSPC with the needed length. */
	memset(buf, 0xab, sizeof(buf));
	CHECK_EQ(umad_send(fd, agent, buf, 1024, 100, 2), 0);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 1000), 1);
	CHECK_EQ(umad_poll(fd, 0), 0);
	len = 256;
	r = umad_recv(fd, buf, &len, -1);
	CHECK_EQ(r, -ENOSPC);
	CHECK_EQ(errno, ENOSPC);
	CHECK_EQ(len, 1024);
	r = umad_recv(fd, buf, &len, 0);
	CHECK_EQ(r, agent);
	CHECK_EQ(len, 1024);
	CHECK_EQ(umad->timeout_ms, 100);
	CHECK_EQ(umad->retries, 2);
	CHECK_EQ(((uint8_t *)umad_get_mad(buf))[1023], 0xab);
	CHECK_EQ(umad_poll(fd, 0), -ETIMEDOUT);

	CHECK_EQ(umad_unregister(fd, agent), 0);
	CHECK_EQ(umad_close_port(fd), 0);
	CHECK(umad_close_port(fd) < 0);
	return 0;
}

static void test_loopback_module(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(loopback_round_trips, "loopback", TEMPLATE_MODULE_DIR, &res);
}

/* --- opensm's threading: one receiver blocked in umad_recv(-1), several senders */

#define SENDERS 3
#define MADS_PER_SENDER 500

struct sender_arg {
	int fd, agent, index;
};

static void *sender(void *p)
{
	const struct sender_arg *arg = p;
	uint8_t buf[64 + 256] = { 0 };
	int i;

	for (i = 0; i < MADS_PER_SENDER; i++) {
		buf[64] = (uint8_t)arg->index;
		while (umad_send(arg->fd, arg->agent, buf, 256, 0, 0) < 0) {
			if (errno != EAGAIN)	/* the socket buffer can fill: wait and retry */
				return (void *)1;
			usleep(100);
		}
	}
	return NULL;
}

static int threaded_send_recv(void)
{
	uint8_t buf[64 + 256];
	struct sender_arg args[SENDERS];
	pthread_t threads[SENDERS];
	int fd, agent, i, len, counts[SENDERS] = { 0 };
	void *ret;

	fd = umad_open_port(NULL, 0);
	CHECK(fd >= 0);
	agent = umad_register(fd, 0x04, 1, 0, NULL);
	CHECK(agent >= 0);
	for (i = 0; i < SENDERS; i++) {
		args[i] = (struct sender_arg){ fd, agent, i };
		CHECK_EQ(pthread_create(&threads[i], NULL, sender, &args[i]), 0);
	}
	for (i = 0; i < SENDERS * MADS_PER_SENDER; i++) {
		len = 256;
		CHECK_EQ(umad_recv(fd, buf, &len, -1), agent);
		CHECK_EQ(len, 256);
		CHECK(buf[64] < SENDERS);
		counts[buf[64]]++;
	}
	for (i = 0; i < SENDERS; i++) {
		CHECK_EQ(pthread_join(threads[i], &ret), 0);
		CHECK(ret == NULL);
		CHECK_EQ(counts[i], MADS_PER_SENDER);
	}
	CHECK_EQ(umad_poll(fd, 0), -ETIMEDOUT);
	CHECK_EQ(umad_close_port(fd), 0);
	return 0;
}

static void test_threads(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(threaded_send_recv, "loopback", TEMPLATE_MODULE_DIR, &res);
}

/* --- the default is the kernel backend ---------------------------------- */

static int default_is_kernel(void)
{
	char names[4][UMAD_CA_NAME_LEN];

	/* An empty sysfs root: the kernel backend answers with rdma-core's fallback name. */
	setenv("UMAD_SYSFS_ROOT", "/nonexistent-sysfs", 1);
	CHECK_EQ(umad_init(), 0);
	CHECK_EQ(umad_get_cas_names(names, 4), 1);
	CHECK(!strcmp(names[0], "mthca0"));
	return 0;
}

static void test_default_backend(void **state)
{
	struct child_result res;

	(void)state;
	expect_child_ok(default_is_kernel, NULL, NULL, &res);
	expect_child_ok(default_is_kernel, "", NULL, &res);
	expect_child_ok(default_is_kernel, "kernel", NULL, &res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_backend),
		cmocka_unit_test(test_missing_module),
		cmocka_unit_test(test_module_wrong_abi),
		cmocka_unit_test(test_module_missing_operation),
		cmocka_unit_test(test_loopback_module),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_default_backend),
	};

	return cmocka_run_group_tests_name("dispatch", tests, NULL, NULL);
}
