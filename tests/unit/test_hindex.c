/* SPDX-License-Identifier: MIT */
/*
 * The hash index (hindex.h): every item found by its key among 10 000, none found that
 * was not put, equal hashes handed out in the order put, a full index refusing more
 * rather than looping, and an index without slots missing everything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/hindex.h"

enum { N = 10000 };

static char names[N][16];
static uint32_t ifidx[N];

/* The item named `name` through the index, as daemon_find does it. */
static uint32_t find_name(const struct sitd_hindex *x, const char *name, unsigned *probes)
{
	uint32_t pos = 0, i, h = sitd_hash_name(name);

	while ((i = sitd_hindex_next(x, h, &pos)) != SITD_HINDEX_NONE)
		if (!strcmp(names[i], name))
			break;
	if (probes)
		*probes = pos;
	return i;
}

static void test_ten_thousand(void **state)
{
	uint32_t slots = sitd_hindex_slots(N);
	struct sitd_hslot *mem = malloc(2 * slots * sizeof(*mem));
	struct sitd_hindex byname, byidx;
	unsigned worst = 0;

	(void)state;
	assert_non_null(mem);
	assert_true(slots >= 2 * N);
	assert_int_equal(slots & (slots - 1), 0);
	sitd_hindex_init(&byname, mem, slots);
	sitd_hindex_init(&byidx, mem + slots, slots);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "t%u", i);
		ifidx[i] = 5 + i;	/* consecutive, as the kernel numbers new devices */
		assert_int_equal(sitd_hindex_put(&byname, sitd_hash_name(names[i]), i), 0);
		assert_int_equal(sitd_hindex_put(&byidx, sitd_hash_u32(ifidx[i]), i), 0);
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t pos = 0, k, h = sitd_hash_u32(ifidx[i]);
		unsigned probes;

		assert_int_equal(find_name(&byname, names[i], &probes), i);
		if (probes > worst)
			worst = probes;
		while ((k = sitd_hindex_next(&byidx, h, &pos)) != SITD_HINDEX_NONE && ifidx[k] != ifidx[i])
			;
		assert_int_equal(k, i);
	}
	/* Half full at most: probe sequences stay short (a linear scan would take 10 000). */
	assert_true(worst < 64);
	assert_int_equal(find_name(&byname, "t10000", NULL), SITD_HINDEX_NONE);
	assert_int_equal(find_name(&byname, "", NULL), SITD_HINDEX_NONE);
	assert_int_equal(find_name(&byname, "t", NULL), SITD_HINDEX_NONE);
	free(mem);
}

static void test_same_hash_in_order(void **state)
{
	struct sitd_hslot mem[16];
	struct sitd_hindex x;
	uint32_t pos = 0;

	(void)state;
	sitd_hindex_init(&x, mem, 16);
	/* Hash 15 wraps past the last slot. */
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(sitd_hindex_put(&x, 15, 100 + i), 0);
	assert_int_equal(sitd_hindex_put(&x, 14, 7), 0);
	assert_int_equal(sitd_hindex_next(&x, 15, &pos), 100);
	assert_int_equal(sitd_hindex_next(&x, 15, &pos), 101);
	assert_int_equal(sitd_hindex_next(&x, 15, &pos), 102);
	assert_int_equal(sitd_hindex_next(&x, 15, &pos), SITD_HINDEX_NONE);
	assert_int_equal(sitd_hindex_next(&x, 15, &pos), SITD_HINDEX_NONE);
	pos = 0;
	assert_int_equal(sitd_hindex_next(&x, 14, &pos), 7);
	assert_int_equal(sitd_hindex_next(&x, 14, &pos), SITD_HINDEX_NONE);
	pos = 0;
	assert_int_equal(sitd_hindex_next(&x, 3, &pos), SITD_HINDEX_NONE);
}

static void test_full_and_empty(void **state)
{
	struct sitd_hslot mem[16];
	struct sitd_hindex x;
	uint32_t pos = 0;

	(void)state;
	sitd_hindex_init(&x, mem, 16);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(sitd_hindex_put(&x, 0, i), 0);
	/* A ninth would leave too few free slots to end a search: refused. */
	assert_int_equal(sitd_hindex_put(&x, 1, 8), -1);
	assert_int_equal(sitd_hindex_put(&x, 1, SITD_HINDEX_NONE), -1);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(sitd_hindex_next(&x, 0, &pos), i);
	assert_int_equal(sitd_hindex_next(&x, 0, &pos), SITD_HINDEX_NONE);
	/* No slots: nothing goes in, nothing comes out. */
	sitd_hindex_init(&x, NULL, 0);
	pos = 0;
	assert_int_equal(sitd_hindex_put(&x, 0, 0), -1);
	assert_int_equal(sitd_hindex_next(&x, 0, &pos), SITD_HINDEX_NONE);
	assert_int_equal(sitd_hindex_slots(0), 16);
	assert_int_equal(sitd_hindex_slots(9), 32);
	assert_int_equal(sitd_hindex_slots((1u << 29) + 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ten_thousand),
		cmocka_unit_test(test_same_hash_in_order),
		cmocka_unit_test(test_full_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
