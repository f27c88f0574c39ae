/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A MAD arriving at a user-space port (backends/soft_port.c,
 * soft_port_receive_at): one shorter than a MAD's header is refused
 * before any byte of it is read, and a whole one reaches the agent
 * registered for it.  The short one lies at the very end of a mapping
 * whose next page cannot be read, so a look at its class, method or
 * attribute modifier faults, with or without a sanitizer.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "backends/soft_port.h"
#include "base/mad_wire.h"

static const int device_port;	/* the object the port is open on: only its address counts */

static int open_port_with_agent(void)
{
	struct umad_agent_req req = {
		.qpn = 1, .mgmt_class = UMAD_CLASS_PERF_MGMT, .mgmt_class_version = 1,
		.method_mask = { 1u << UMAD_METHOD_GET },
	};
	uint32_t agent_id;
	int open_errno = 0, portid = soft_port_open(&device_port, 0, 1, NULL, &open_errno);

	assert_true(portid >= 0);
	assert_int_equal(soft_port_register(portid, &req, &agent_id), 0);
	return portid;
}

/* A request of the PMA class, Get, as a manager sends it. */
static void pma_get(uint8_t *mad)
{
	memset(mad, 0, MAD_SIZE);
	mad[MAD_OFF_BASE_VERSION] = 1;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
}

static void test_short_arrival_not_read(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ib_user_mad hdr = { 0 };
	const size_t short_len = MAD_OFF_METHOD;	/* ends before the method */
	uint8_t *msg;
	int portid;

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
	msg = map + page - short_len;
	memset(msg, 0, short_len);
	portid = open_port_with_agent();
	assert_int_equal(soft_port_receive_at(&device_port, 1, &hdr, msg, short_len, 0), 0);
	assert_int_equal(soft_port_receive_at(&device_port, 1, &hdr, msg, 0, 0), 0);
	assert_int_equal(soft_port_pending(portid), 0);
	assert_int_equal(soft_port_close(portid), 0);
	munmap(map, (size_t)page * 2);
}

static void test_whole_arrival_taken(void **state)
{
	uint8_t mad[MAD_SIZE], got[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct ib_user_mad hdr = { 0 };
	struct soft_port *p;
	int portid = open_port_with_agent();

	(void)state;
	pma_get(mad);
	assert_int_equal(soft_port_receive_at(&device_port, 1, &hdr, mad, sizeof(mad), 0), 1);
	p = soft_port_get(portid);
	assert_non_null(p);
	assert_int_equal(mad_queue_pop(&p->q, got, sizeof(got)), (ssize_t)sizeof(got));
	assert_memory_equal(got + sizeof(struct ib_user_mad), mad, sizeof(mad));
	soft_port_put(p);
	/* On QP 0 nobody registered for it: not taken. */
	assert_int_equal(soft_port_receive_at(&device_port, 0, &hdr, mad, sizeof(mad), 0), 0);
	assert_int_equal(soft_port_close(portid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_arrival_not_read),
		cmocka_unit_test(test_whole_arrival_taken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
