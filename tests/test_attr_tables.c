/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The classes' attribute tables (simfabric/attr_table.h: the SMA's, the
 * PMA's, the CC agent's, Mellanox's vendor class's): in each, an
 * attribute has one row (a second would never be found), a name and a
 * handler, and its field list lies inside the class's data and in wire
 * order, so that what reads a row (a recorder, a dump) can trust it.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/mad_wire.h"
#include "simfabric/attr_table.h"
#include "simfabric/cc.h"
#include "simfabric/mlnx.h"
#include "simfabric/pma.h"
#include "simfabric/sma.h"

static void check_table(const struct sim_attr *rows, size_t n, unsigned data_bytes)
{
	size_t i, j;
	unsigned k;

	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		assert_non_null(rows[i].name);
		assert_non_null(rows[i].answer);
		for (j = i + 1; j < n; j++)
			if (rows[i].id == rows[j].id)
				fail_msg("%s and %s: one attribute ID, 0x%04x", rows[i].name,
					 rows[j].name, rows[i].id);
		for (k = 0; k < rows[i].n_fields; k++) {
			mad_field_t f = rows[i].fields[k];

			if (MAD_FIELD_END(f) > data_bytes * 8)
				fail_msg("%s: field %u ends past the data", rows[i].name, k);
			if (k > 0 && MAD_FIELD_START(f) < MAD_FIELD_END(rows[i].fields[k - 1]))
				fail_msg("%s: field %u overlaps the one before", rows[i].name, k);
		}
		/* Found by its ID: the row itself. */
		assert_ptr_equal(sim_attr_find(rows, n, rows[i].id), &rows[i]);
	}
	assert_null(sim_attr_find(rows, n, 0xfffe));
}

static void test_sma_table(void **state)
{
	size_t n;
	const struct sim_attr *rows = sim_sma_attrs(&n);

	(void)state;
	check_table(rows, n, SMP_DATA_SIZE);
	assert_non_null(sim_attr_find(rows, n, UMAD_SM_ATTR_PORT_INFO_EXT));
}

static void test_pma_table(void **state)
{
	size_t n;
	const struct sim_attr *rows = sim_pma_attrs(&n);

	(void)state;
	check_table(rows, n, PMA_DATA_SIZE);
}

static void test_cc_table(void **state)
{
	size_t n;
	const struct sim_attr *rows = sim_cc_attrs(&n);

	(void)state;
	check_table(rows, n, CC_DATA_SIZE);
}

static void test_mlnx_vs_table(void **state)
{
	size_t n;
	const struct sim_attr *rows = sim_mlnx_vs_attrs(&n);

	(void)state;
	check_table(rows, n, MLNX_VS_DATA_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sma_table),
		cmocka_unit_test(test_pma_table),
		cmocka_unit_test(test_cc_table),
		cmocka_unit_test(test_mlnx_vs_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
