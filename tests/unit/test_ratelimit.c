/* SPDX-License-Identifier: MIT */
/*
 * The log limit (ratelimit.h sitd_loglimit), as the monitor uses it for its refusals: a
 * burst let through, the rest counted; the count said before the next line let through,
 * or once the lines stopped for the quiet time, and then never twice; the total kept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/ratelimit.h"

#define MS 1000000ull
#define T0 (1000 * MS)	/* a monotonic clock is not 0 at start */

/* 10 at once, one per 500 ms after, the count said after 1 s without a line. */
static void init(struct sitd_loglimit *ll)
{
	ll_init(ll, 500 * MS, 10, 1000 * MS);
}

static void test_burst_then_counted(void **state)
{
	struct sitd_loglimit ll;
	uint64_t left;
	unsigned let = 0;

	(void)state;
	init(&ll);
	assert_int_equal(ll_wait_ns(&ll, T0), UINT64_MAX);
	/* A flood: 1000 lines within 1 ms. */
	for (unsigned i = 0; i < 1000; i++) {
		if (ll_allow(&ll, T0 + i, &left)) {
			let++;
			assert_int_equal(left, 0);	/* none left out yet */
		}
	}
	assert_int_equal(let, 10);
	assert_int_equal(ll.suppressed, 990);
	assert_int_equal(ll.total, 990);
	/* 500 ms on: one more token; the line let through says the 990 first. */
	assert_false(ll_allow(&ll, T0 + 499 * MS, &left));
	assert_true(ll_allow(&ll, T0 + 999 * MS + 1000, &left));
	assert_int_equal(left, 991);
	assert_int_equal(ll.suppressed, 0);
	assert_int_equal(ll.total, 991);
	assert_int_equal(ll_wait_ns(&ll, T0 + 999 * MS + 1000), UINT64_MAX);
	assert_int_equal(ll_flush(&ll, T0 + 5000 * MS), 0);	/* said already */
}

/* A steady flood is bounded by the rate: 2 a second, plus the burst. */
static void test_steady_flood_bounded(void **state)
{
	struct sitd_loglimit ll;
	uint64_t left, counted = 0;
	unsigned let = 0;

	(void)state;
	init(&ll);
	for (uint64_t t = 0; t < 10000 * MS; t += MS) {	/* 1000 a second for 10 s */
		if (ll_allow(&ll, T0 + t, &left)) {
			let++;
			counted += left;
		}
	}
	assert_int_equal(let, 10 + 19);	/* at 500 ms, 1 s, ... 9.5 s */
	/* Every line left out is said, or still to be said. */
	assert_int_equal(counted + ll.suppressed, 10000 - let);
	assert_int_equal(ll.total, 10000 - let);
}

/* The lines stop: the count is said once the quiet time passed, not before, and once. */
static void test_flush_after_quiet(void **state)
{
	struct sitd_loglimit ll;
	uint64_t left, last = T0 + 20;

	(void)state;
	init(&ll);
	for (unsigned i = 0; i <= 20; i++)
		(void)ll_allow(&ll, T0 + i, &left);
	assert_int_equal(ll.suppressed, 11);
	assert_int_equal(ll_wait_ns(&ll, last), 1000 * MS);
	assert_int_equal(ll_wait_ns(&ll, last + 400 * MS), 600 * MS);
	assert_int_equal(ll_flush(&ll, last + 999 * MS), 0);
	assert_int_equal(ll.suppressed, 11);
	assert_int_equal(ll_wait_ns(&ll, last + 1000 * MS), 0);
	assert_int_equal(ll_flush(&ll, last + 1000 * MS), 11);
	assert_int_equal(ll.suppressed, 0);
	assert_int_equal(ll_flush(&ll, last + 3000 * MS), 0);
	assert_int_equal(ll_wait_ns(&ll, last + 3000 * MS), UINT64_MAX);
	assert_int_equal(ll.total, 11);
	/* The next line after that says nothing left out. */
	assert_true(ll_allow(&ll, last + 3000 * MS, &left));
	assert_int_equal(left, 0);
}

/* A line left out during the quiet time starts it again. */
static void test_quiet_restarts(void **state)
{
	struct sitd_loglimit ll;
	uint64_t left;

	(void)state;
	init(&ll);
	for (unsigned i = 0; i < 12; i++)
		(void)ll_allow(&ll, T0, &left);
	assert_int_equal(ll.suppressed, 2);
	assert_false(ll_allow(&ll, T0 + 100 * MS, &left));
	assert_int_equal(ll_flush(&ll, T0 + 1000 * MS), 0);
	assert_int_equal(ll_wait_ns(&ll, T0 + 1000 * MS), 100 * MS);
	assert_int_equal(ll_flush(&ll, T0 + 1100 * MS), 3);
}

/* No credit at the flush (a tiny budget): the count waits for a token, not lost. */
static void test_flush_waits_for_a_token(void **state)
{
	struct sitd_loglimit ll;
	uint64_t left;

	(void)state;
	ll_init(&ll, 10000 * MS, 1, 100 * MS);
	assert_true(ll_allow(&ll, T0, &left));
	assert_false(ll_allow(&ll, T0 + 1, &left));
	assert_int_equal(ll_flush(&ll, T0 + 200 * MS), 0);
	assert_int_equal(ll.suppressed, 1);
	assert_int_equal(ll_flush(&ll, T0 + 10000 * MS), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_counted),
		cmocka_unit_test(test_steady_flood_bounded),
		cmocka_unit_test(test_flush_after_quiet),
		cmocka_unit_test(test_quiet_restarts),
		cmocka_unit_test(test_flush_waits_for_a_token),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
