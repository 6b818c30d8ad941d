/* SPDX-License-Identifier: MIT */
/*
 * ECN through the tunnel (core/ecn.h): the decapsulation table of RFC 6040 4.2 (Figure 4),
 * all 16 cells, and the encapsulation of RFC 6040 4.1 normal mode, which is RFC 3168
 * 9.1.1 full functionality and the kernel's INET_ECN_encapsulate().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/ecn.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ECN codepoints, RFC 3168 5. */
enum { NOT = 0, E1 = 1, E0 = 2, CE = 3, DROP = -1 };

/* RFC 6040 Figure 4, row by row: arriving inner header, then each arriving outer header. */
static const int decap_table[4][4] = {
	/* outer:        Not-ECT  ECT(0)  ECT(1)  CE   */
	[NOT] = { [NOT] = NOT, [E0] = NOT, [E1] = NOT, [CE] = DROP },
	[E0]  = { [NOT] = E0,  [E0] = E0,  [E1] = E1,  [CE] = CE },
	[E1]  = { [NOT] = E1,  [E0] = E1,  [E1] = E1,  [CE] = CE },
	[CE]  = { [NOT] = CE,  [E0] = CE,  [E1] = CE,  [CE] = CE },
};

static void test_ecn_decap_table(void **state)
{
	(void)state;
	for (int inner = 0; inner < 4; inner++)
		for (int outer = 0; outer < 4; outer++) {
			int got = ecn_decapsulate((uint8_t)outer, (uint8_t)inner);

			if (got != decap_table[inner][outer])
				print_error("inner %d outer %d: got %d, RFC 6040 says %d\n", inner,
					    outer, got, decap_table[inner][outer]);
			assert_int_equal(got, decap_table[inner][outer]);
		}
}

/* Callers pass whole TOS / Traffic Class bytes: the DSCP bits must not matter. */
static void test_ecn_decap_ignores_dscp(void **state)
{
	static const uint8_t dscp[] = { 0x00, 0x04, 0xb8, 0xfc };

	(void)state;
	for (size_t a = 0; a < ARRAY_SIZE(dscp); a++)
		for (size_t b = 0; b < ARRAY_SIZE(dscp); b++)
			for (int inner = 0; inner < 4; inner++)
				for (int outer = 0; outer < 4; outer++)
					assert_int_equal(ecn_decapsulate((uint8_t)(dscp[a] | outer),
									 (uint8_t)(dscp[b] | inner)),
							 decap_table[inner][outer]);
}

/*
 * RFC 6040 4.1: the outer ECN field is copied from the inner one, except that CE becomes
 * ECT(0); the DSCP comes from the tunnel's outer TOS, whose own ECN bits are ignored.
 */
static void test_ecn_encap(void **state)
{
	static const struct {
		uint8_t outer_tos, inner, want;
	} cases[] = {
		{ 0x00, 0x00, 0x00 }, { 0x00, 0x01, 0x01 }, { 0x00, 0x02, 0x02 }, { 0x00, 0x03, 0x02 },
		{ 0xb8, 0x00, 0xb8 }, { 0xb8, 0x01, 0xb9 }, { 0xb8, 0x02, 0xba }, { 0xb8, 0x03, 0xba },
		/* the inner DSCP does not leak into the outer header */
		{ 0x20, 0xfc, 0x20 }, { 0x20, 0xfd, 0x21 }, { 0x20, 0x4e, 0x22 }, { 0x20, 0xff, 0x22 },
		/* ECN bits in the configured TOS are replaced */
		{ 0x23, 0x00, 0x20 }, { 0x21, 0x02, 0x22 }, { 0xff, 0x01, 0xfd }, { 0xfe, 0x03, 0xfe },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(ecn_encapsulate(cases[i].outer_tos, cases[i].inner), cases[i].want);
}

/* Encapsulating then decapsulating with no marking on the way gives the inner ECN back. */
static void test_ecn_round_trip(void **state)
{
	(void)state;
	for (int inner = 0; inner < 4; inner++) {
		uint8_t outer = ecn_encapsulate(0x00, (uint8_t)inner);

		assert_int_equal(ecn_decapsulate(outer, (uint8_t)inner), inner);
	}
	/* A router on the path marks the outer CE: an ECT inner packet arrives CE. */
	assert_int_equal(ecn_decapsulate(CE, E0), CE);
	assert_int_equal(ecn_decapsulate(CE, E1), CE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecn_decap_table),
		cmocka_unit_test(test_ecn_decap_ignores_dscp),
		cmocka_unit_test(test_ecn_encap),
		cmocka_unit_test(test_ecn_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
