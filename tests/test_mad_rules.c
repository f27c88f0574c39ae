/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel's registration and send rules that the user-space backends
 * apply (base/mad_rules.c): every rule, on each side of its edge.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/mad_rules.h"
#include "base/mad_wire.h"

static struct umad_agent_req req(uint8_t qpn, uint8_t mgmt_class, uint8_t version, uint8_t rmpp)
{
	struct umad_agent_req r = {
		.qpn = qpn, .mgmt_class = mgmt_class, .mgmt_class_version = version,
		.rmpp_version = rmpp, .oui = 0x001405,
	};

	return r;
}

static int check_reg(struct umad_agent_req r)
{
	return mad_rules_check_registration(&r);
}

static void test_registration_classes(void **state)
{
	(void)state;
	/* SMPs on QP0, everything else on QP1, and never the other way. */
	assert_int_equal(check_reg(req(0, 0x01, 1, 0)), 0);
	assert_int_equal(check_reg(req(0, 0x81, 1, 0)), 0);
	assert_int_equal(check_reg(req(1, 0x81, 1, 0)), -EINVAL);
	assert_int_equal(check_reg(req(0, 0x04, 1, 0)), -EINVAL);
	assert_int_equal(check_reg(req(1, 0x04, 1, 0)), 0);
	assert_int_equal(check_reg(req(2, 0x04, 1, 0)), -EINVAL);
	/* Classes up to 0x4f, and 0x81; none above. */
	assert_int_equal(check_reg(req(1, 0x4f, 1, 0)), 0);
	assert_int_equal(check_reg(req(1, 0x50, 1, 0)), -EINVAL);
	assert_int_equal(check_reg(req(1, 0xff, 1, 0)), -EINVAL);
	assert_int_equal(check_reg(req(1, 0x80, 1, 0)), -EINVAL);
	/* Class versions 0..7. */
	assert_int_equal(check_reg(req(1, 0x04, 7, 0)), 0);
	assert_int_equal(check_reg(req(1, 0x04, 8, 0)), -EINVAL);
	/* Class 0: a send-only agent, on either QP, any version. */
	assert_int_equal(check_reg(req(0, 0, 9, 0)), 0);
	assert_int_equal(check_reg(req(1, 0, 0, 1)), 0);
}

static void test_registration_rmpp_and_oui(void **state)
{
	struct umad_agent_req r;

	(void)state;
	/* RMPP version 1 only, and only for the classes the kernel segments. */
	assert_int_equal(check_reg(req(1, 0x03, 2, 1)), 0);
	assert_int_equal(check_reg(req(1, 0x06, 1, 1)), 0);
	assert_int_equal(check_reg(req(1, 0x10, 1, 1)), 0);
	assert_int_equal(check_reg(req(1, 0x12, 1, 1)), 0);
	assert_int_equal(check_reg(req(1, 0x30, 1, 1)), 0);
	assert_int_equal(check_reg(req(1, 0x03, 2, 2)), -EINVAL);
	assert_int_equal(check_reg(req(1, 0x04, 1, 1)), -EINVAL);
	assert_int_equal(check_reg(req(0, 0x81, 1, 1)), -EINVAL);
	assert_int_equal(check_reg(req(1, 0x0a, 1, 1)), -EINVAL);
	/* Vendor range 2 needs an OUI. */
	r = req(1, 0x30, 1, 0);
	r.oui = 0;
	assert_int_equal(mad_rules_check_registration(&r), -EINVAL);
	r.oui = 0x123456;
	assert_int_equal(mad_rules_check_registration(&r), 0);
	/* REGISTER_AGENT2: no OUI above 24 bits; unknown flags refused, the supported ones written back. */
	r.oui = 0x01123456;
	assert_int_equal(mad_rules_check_registration(&r), -EINVAL);
	r = req(1, 0x03, 2, 1);
	r.flags = 0x6;
	assert_int_equal(mad_rules_check_registration(&r), -EINVAL);
	assert_int_equal(r.flags, UMAD_USER_RMPP);
	r.flags = UMAD_USER_RMPP;
	assert_int_equal(mad_rules_check_registration(&r), 0);
	/* A send-only agent cannot ask for user RMPP; the old call has no flags to look at. */
	r = req(1, 0, 0, 0);
	r.flags = UMAD_USER_RMPP;
	assert_int_equal(mad_rules_check_registration(&r), -EINVAL);
	r.legacy = 1;
	assert_int_equal(mad_rules_check_registration(&r), 0);
}

static void test_conflicts(void **state)
{
	struct umad_agent_req a = req(1, 0x04, 1, 0), b = req(1, 0x04, 1, 0);

	(void)state;
	a.method_mask[0] = 1u << 1;
	b.method_mask[0] = 1u << 2;
	assert_false(mad_rules_registrations_conflict(&a, &b));
	b.method_mask[0] |= 1u << 1;
	assert_true(mad_rules_registrations_conflict(&a, &b));
	b.mgmt_class_version = 2;
	assert_false(mad_rules_registrations_conflict(&a, &b));
	b = a;
	b.mgmt_class = 0;
	assert_false(mad_rules_registrations_conflict(&a, &b));
	/* Vendor range 2: one class, two OUIs, no clash. */
	a = req(1, 0x31, 1, 0);
	b = a;
	a.method_mask[1] = b.method_mask[1] = 1;
	assert_true(mad_rules_registrations_conflict(&a, &b));
	b.oui = 0x000002;
	assert_false(mad_rules_registrations_conflict(&a, &b));
}

static void test_response_methods(void **state)
{
	(void)state;
	assert_true(mad_rules_method_is_response(0x04, 0x81, 0));
	assert_true(mad_rules_method_is_response(0x01, 0x07, 0));	/* TrapRepress */
	assert_true(mad_rules_method_is_response(0x05, 0x03, 1));	/* BM with the response bit */
	assert_false(mad_rules_method_is_response(0x05, 0x03, 2));
	assert_false(mad_rules_method_is_response(0x01, 0x05, 0));	/* Trap */
	assert_false(mad_rules_method_is_response(0x04, 0x01, 1));
}

/* A zero-padded MAD of one class; DR SMPs get a path out of port 1 and permissive DR LIDs. */
static void make_mad(uint8_t *mad, uint8_t mgmt_class, uint8_t method)
{
	memset(mad, 0, MAD_SIZE);
	mad[0] = 1;
	mad[1] = mgmt_class;
	mad[2] = 1;
	mad[3] = method;
	if (mgmt_class == 0x81) {
		mad[7] = 2;				/* hop count */
		memset(mad + 32, 0xff, 4);		/* DrSLID, DrDLID */
		mad[129] = 1;
		mad[130] = 3;
	}
}

static void test_send_sizes(void **state)
{
	struct umad_agent_req smi = req(0, 0x81, 1, 0), sa = req(1, 0x03, 2, 1),
			      sa_user = req(1, 0x03, 2, 1), plain = req(1, 0x03, 2, 0);
	uint8_t mad[MAD_SIZE];

	(void)state;
	sa_user.flags = UMAD_USER_RMPP;
	make_mad(mad, 0x81, 0x01);
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), 0);
	assert_int_equal(mad_rules_check_send(&smi, mad, 36, 0, 1), 0);
	/* Longer than one MAD on an agent the kernel does not segment for: refused. */
	assert_int_equal(mad_rules_check_send(&smi, mad, 257, 0, 1), -EINVAL);
	assert_int_equal(mad_rules_check_send(&smi, mad, 4096, 0, 1), -EINVAL);
	make_mad(mad, 0x03, 0x12);
	assert_int_equal(mad_rules_check_send(&plain, mad, 1000, 0, 1), -EINVAL);
	assert_int_equal(mad_rules_check_send(&sa_user, mad, 1000, 0, 1), -EINVAL);
	/* The kernel segments it only when the RMPP header says Active. */
	assert_int_equal(mad_rules_check_send(&sa, mad, 1000, 0, 1), -EINVAL);
	mad[24 + 2] = 1;				/* RMPP flags: Active */
	assert_int_equal(mad_rules_check_send(&sa, mad, 1000, 0, 1), 0);
	assert_int_equal(mad_rules_check_send(&sa_user, mad, 1000, 0, 1), -EINVAL);
	/* An RMPP agent sends RMPP classes only. */
	make_mad(mad, 0x04, 0x01);
	assert_int_equal(mad_rules_check_send(&sa, mad, 256, 0, 1), -EINVAL);
	assert_int_equal(mad_rules_check_send(&plain, mad, 256, 0, 1), 0);
}

static void test_send_directed_route(void **state)
{
	struct umad_agent_req smi = req(0, 0x81, 1, 0);
	uint8_t mad[MAD_SIZE];

	(void)state;
	/* Out of port 1 of an end node: the path must start with that port (C14-9:1). */
	make_mad(mad, 0x81, 0x01);
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), 0);
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 2), -EINVAL);
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 1, 0), 0);	/* a switch: any */
	/* Hop count 63 at most (C14-6). */
	mad[7] = 63;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), 0);
	mad[7] = 64;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), -EINVAL);
	/* A hop pointer already past the start on an end node. */
	make_mad(mad, 0x81, 0x01);
	mad[6] = 1;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), -EINVAL);
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 1, 0), 0);
	mad[6] = 4;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 1, 0), -EINVAL);
	/* Zero hops: for the node itself. */
	make_mad(mad, 0x81, 0x01);
	mad[7] = 0;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), 0);
	/* A LID-routed start (DrSLID not permissive) is the fabric's business. */
	make_mad(mad, 0x81, 0x01);
	mad[32] = 0;
	mad[33] = 5;
	mad[129] = 2;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), 0);
	/* A returning SMP (D set) leaves through the end of its return path (C14-13:1). */
	make_mad(mad, 0x81, 0x81);
	mad[4] = 0x80;
	mad[6] = 3;
	mad[192 + 2] = 1;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), 0);
	mad[192 + 2] = 2;
	assert_int_equal(mad_rules_check_send(&smi, mad, 256, 0, 1), -EINVAL);
}

/*
 * The length a message travels with: its own when the kernel segments it
 * (RMPP active, kernel RMPP), else one MAD; and the RMPP header the
 * receiving kernel shows on it, whole.
 */
static void test_whole_messages(void **state)
{
	struct umad_agent_req kernel = req(1, UMAD_CLASS_SUBN_ADM, 2, UMAD_RMPP_VERSION);
	struct umad_agent_req user = kernel, plain = req(1, UMAD_CLASS_SUBN_ADM, 2, 0);
	uint8_t mad[MAD_SIZE] = { 0 }, out[RMPP_HDR_END];

	(void)state;
	user.flags = UMAD_USER_RMPP;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	assert_int_equal(mad_rules_send_len(&kernel, mad, 88), 88);
	assert_int_equal(mad_rules_send_len(&kernel, mad, 1000), 1000);
	assert_int_equal(mad_rules_send_len(&user, mad, 88), MAD_SIZE);
	assert_int_equal(mad_rules_send_len(&plain, mad, 88), MAD_SIZE);
	assert_int_equal(mad_rules_arrival_len(mad, 88), 88);
	assert_int_equal(mad_rules_arrival_len(mad, RMPP_HDR_END - 1), MAD_SIZE);
	mad[RMPP_OFF_FLAGS] = 0;
	assert_int_equal(mad_rules_send_len(&kernel, mad, 88), MAD_SIZE);
	assert_int_equal(mad_rules_arrival_len(mad, 88), MAD_SIZE);
	mad[MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT;	/* no RMPP in this class */
	mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	assert_int_equal(mad_rules_arrival_len(mad, 88), MAD_SIZE);

	/* One segment: First and Last, the response time kept, the rest as the kernel sets it. */
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[RMPP_OFF_FLAGS] = (uint8_t)(UMAD_RMPP_FLAG_ACTIVE | (3 << 3));
	mad[RMPP_OFF_STATUS] = 9;
	mad_rules_rmpp_whole_header(out, mad, 88);
	assert_int_equal(out[RMPP_OFF_VERSION], UMAD_RMPP_VERSION);
	assert_int_equal(out[RMPP_OFF_TYPE], RMPP_TYPE_DATA);
	assert_int_equal(out[RMPP_OFF_FLAGS],
			 UMAD_RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST | RMPP_FLAG_LAST | (3 << 3));
	assert_int_equal(out[RMPP_OFF_STATUS], 0);
	assert_int_equal(get_be32(out + RMPP_OFF_SEG_NUM), 1);
	assert_int_equal(get_be32(out + RMPP_OFF_PAYLEN), 88 - RMPP_HDR_END);
	assert_int_equal(out[MAD_OFF_CLASS], UMAD_CLASS_SUBN_ADM);
	/* Exactly one SA segment full, then one byte more: Last only on the first. */
	mad_rules_rmpp_whole_header(out, mad, MAD_SIZE);
	assert_true(out[RMPP_OFF_FLAGS] & RMPP_FLAG_LAST);
	mad_rules_rmpp_whole_header(out, mad, MAD_SIZE + 1);
	assert_false(out[RMPP_OFF_FLAGS] & RMPP_FLAG_LAST);
	assert_int_equal(get_be32(out + RMPP_OFF_PAYLEN), MAD_SIZE + 1 - RMPP_HDR_END);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registration_classes),
		cmocka_unit_test(test_registration_rmpp_and_oui),
		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_response_methods),
		cmocka_unit_test(test_send_sizes),
		cmocka_unit_test(test_send_directed_route),
		cmocka_unit_test(test_whole_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
