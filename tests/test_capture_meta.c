/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The capture comment (pcap/capture_meta.h): every key formatted and read
 * back, the exact line the tap writes, keys in any order, unknown keys
 * skipped, and malformed values refused with a reason.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pcap/capture_meta.h"

/* A struct with every key, each value distinct. */
static struct capture_meta every_key(void)
{
	struct capture_meta m;

	memset(&m, 0, sizeof(m));
	m.have = (1u << CAPTURE_META_KEYS) - 1;
	m.agent = 3;
	m.status = 110;
	m.timeout_ms = 100;
	m.retries = 2;
	m.qpn = 1;
	m.qkey = 0x80010000;
	m.lid = 65535;
	m.sl = 15;
	m.path_bits = 7;
	m.pkey_index = 5;
	m.grh = 1;
	m.length = 1000;
	m.timeout = 1;
	m.segment = 2;
	m.segments = 5;
	return m;
}

static void assert_meta_equal(const struct capture_meta *a, const struct capture_meta *b)
{
	assert_memory_equal(a, b, sizeof(*a));
}

/* The line as the tap writes it, every key in order, and read back equal. */
static void test_every_key_round_trips(void **state)
{
	struct capture_meta m = every_key(), back;
	struct umad_err err = UMAD_ERR_INIT;
	char line[CAPTURE_META_MAX];
	int n;

	(void)state;
	n = capture_meta_format(&m, line, sizeof(line));
	assert_string_equal(line, "agent=3 status=110 timeout_ms=100 retries=2 qpn=1 qkey=0x80010000 "
			    "lid=65535 sl=15 path_bits=7 pkey_index=5 grh=1 length=1000 timeout=1 "
			    "segment=2/5");
	assert_int_equal(n, (int)strlen(line));
	assert_int_equal(capture_meta_parse(line, &back, &err), 0);
	assert_meta_equal(&m, &back);
}

/* Key key's value (both numbers of segment) from one struct to another. */
static void copy_key(struct capture_meta *to, const struct capture_meta *from, int key)
{
	switch (key) {
	case CAPTURE_META_AGENT: to->agent = from->agent; break;
	case CAPTURE_META_STATUS: to->status = from->status; break;
	case CAPTURE_META_TIMEOUT_MS: to->timeout_ms = from->timeout_ms; break;
	case CAPTURE_META_RETRIES: to->retries = from->retries; break;
	case CAPTURE_META_QPN: to->qpn = from->qpn; break;
	case CAPTURE_META_QKEY: to->qkey = from->qkey; break;
	case CAPTURE_META_LID: to->lid = from->lid; break;
	case CAPTURE_META_SL: to->sl = from->sl; break;
	case CAPTURE_META_PATH_BITS: to->path_bits = from->path_bits; break;
	case CAPTURE_META_PKEY_INDEX: to->pkey_index = from->pkey_index; break;
	case CAPTURE_META_GRH: to->grh = from->grh; break;
	case CAPTURE_META_LENGTH: to->length = from->length; break;
	case CAPTURE_META_TIMEOUT: to->timeout = from->timeout; break;
	case CAPTURE_META_SEGMENT:
		to->segment = from->segment;
		to->segments = from->segments;
		break;
	default:
		fail_msg("key %d has no field here", key);
	}
}

/* Each key alone: only it is written, and only it read back. */
static void test_each_key_alone(void **state)
{
	struct capture_meta all = every_key(), m, back, want;
	struct umad_err err = UMAD_ERR_INIT;
	char line[CAPTURE_META_MAX];
	int key;

	(void)state;
	for (key = 0; key < CAPTURE_META_KEYS; key++) {
		m = all;
		m.have = CAPTURE_META_BIT(key);
		assert_true(capture_meta_format(&m, line, sizeof(line)) > 0);
		assert_null(strchr(line, ' '));
		assert_int_equal(capture_meta_parse(line, &back, &err), 0);
		memset(&want, 0, sizeof(want));
		want.have = CAPTURE_META_BIT(key);
		copy_key(&want, &all, key);
		assert_meta_equal(&want, &back);
	}
}

/* Every key at its largest value fits CAPTURE_META_MAX, and reads back. */
static void test_largest_values_fit(void **state)
{
	struct capture_meta m, back;
	struct umad_err err = UMAD_ERR_INIT;
	char line[CAPTURE_META_MAX];

	(void)state;
	memset(&m, 0xff, sizeof(m));
	m.have = (1u << CAPTURE_META_KEYS) - 1;
	m.lid = 0xffff;
	m.sl = m.path_bits = m.grh = 0xff;
	m.pkey_index = 0xffff;
	m.timeout = 1;
	assert_true(capture_meta_format(&m, line, sizeof(line)) > 0);
	assert_int_equal(capture_meta_parse(line, &back, &err), 0);
	assert_meta_equal(&m, &back);
	/* And a buffer too small says so, leaving it empty. */
	assert_int_equal(capture_meta_format(&m, line, 40), -ENOSPC);
	assert_string_equal(line, "");
}

/* The tap's usual line: the twelve keys, timeout and segment left out. */
static void test_usual_line(void **state)
{
	struct capture_meta m = every_key();
	char line[CAPTURE_META_MAX];

	(void)state;
	m.have = CAPTURE_META_ALWAYS;
	m.qkey = 0;
	assert_true(capture_meta_format(&m, line, sizeof(line)) > 0);
	assert_string_equal(line, "agent=3 status=110 timeout_ms=100 retries=2 qpn=1 qkey=0x0 "
			    "lid=65535 sl=15 path_bits=7 pkey_index=5 grh=1 length=1000");
}

static void test_any_order_and_spacing(void **state)
{
	struct capture_meta m = every_key(), back;
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	assert_int_equal(capture_meta_parse("  segment=2/5 timeout=1 length=1000 grh=1  pkey_index=5 "
					    "path_bits=7 sl=15 lid=65535 qkey=0X80010000 qpn=1 "
					    "retries=2 timeout_ms=100 status=110 agent=3 ",
					    &back, &err), 0);
	assert_meta_equal(&m, &back);
	/* No comment at all (classic pcap, ibdump): no keys. */
	assert_int_equal(capture_meta_parse("", &back, &err), 0);
	assert_int_equal(back.have, 0);
}

static void test_unknown_keys_ignored(void **state)
{
	struct capture_meta back;
	struct umad_err err = UMAD_ERR_INIT;

	(void)state;
	assert_int_equal(capture_meta_parse("flavour=strawberry agent=7 port_guid=0x1234 note= "
					    "timeout=1", &back, &err), 0);
	assert_int_equal(back.have, CAPTURE_META_BIT(CAPTURE_META_AGENT) |
				    CAPTURE_META_BIT(CAPTURE_META_TIMEOUT));
	assert_int_equal(back.agent, 7);
	assert_int_equal(back.timeout, 1);
}

static void test_malformed_refused(void **state)
{
	static const struct {
		const char *text, *reason;
	} bad[] = {
		{ "agent=x", "\"agent=x\": not a decimal number in range" },
		{ "agent=", "\"agent=\": not a decimal number in range" },
		{ "agent=-1", "not a decimal number" },
		{ "agent=+1", "not a decimal number" },
		{ "status=4294967296", "\"status=4294967296\": not a decimal number in range" },
		{ "lid=65536", "\"lid=65536\"" },
		{ "sl=256", "\"sl=256\"" },
		{ "path_bits=1000", "\"path_bits=1000\"" },
		{ "pkey_index=70000", "\"pkey_index=70000\"" },
		{ "grh=300", "\"grh=300\"" },
		{ "timeout=2", "\"timeout=2\": not 0 or 1" },
		{ "qkey=80010000", "\"qkey=80010000\": not 0x and 1 to 8 hexadecimal digits" },
		{ "qkey=0x", "not 0x and" },
		{ "qkey=0x180010000", "not 0x and" },
		{ "qkey=0xg", "not 0x and" },
		{ "segment=3", "\"segment=3\": not N/M, 1 <= N <= M" },
		{ "segment=0/3", "not N/M" },
		{ "segment=4/3", "not N/M" },
		{ "segment=1/", "not N/M" },
		{ "segment=/3", "not N/M" },
		{ "agent=1 timeout", "\"timeout\": not key=value" },
		{ "=5", "\"=5\": no key" },
		{ "agent=1 agent=2", "\"agent=2\": the key given twice" },
		{ "agent=1\tstatus=0", "not a decimal number" },
	};
	struct capture_meta back;
	struct umad_err err = UMAD_ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		umad_err_clear(&err);
		if (capture_meta_parse(bad[i].text, &back, &err) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i].text);
		if (!strstr(umad_err_text(&err), bad[i].reason))
			fail_msg("\"%s\": the reason \"%s\" lacks \"%s\"", bad[i].text, umad_err_text(&err),
				 bad[i].reason);
	}
	/* The keys before the fault are kept; a caller may still show them. */
	assert_int_equal(capture_meta_parse("agent=4 lid=x", &back, NULL), -EINVAL);
	assert_int_equal(back.have, CAPTURE_META_BIT(CAPTURE_META_AGENT));
	assert_int_equal(back.agent, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_round_trips),
		cmocka_unit_test(test_each_key_alone),
		cmocka_unit_test(test_largest_values_fit),
		cmocka_unit_test(test_usual_line),
		cmocka_unit_test(test_any_order_and_spacing),
		cmocka_unit_test(test_unknown_keys_ignored),
		cmocka_unit_test(test_malformed_refused),
	};

	return cmocka_run_group_tests_name("capture metadata", tests, NULL, NULL);
}
