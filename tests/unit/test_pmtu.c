/* SPDX-License-Identifier: MIT */
/*
 * sitd_pmtu_decide, one row per rule:
 *  - IPv6 inside: RFC 4213 3.2.2 and ipip6_tunnel_xmit (doc/kernel.md "Transmit: DF
 *    and the path MTU decision"): mtu = path - 20; below 68 drop (collisions); below
 *    1280 use 1280 without DF; longer than mtu: Packet Too Big; nopmtudisc: no DF, no
 *    check.
 *  - IPv4 inside: ip_tunnel_xmit / tnl_update_pmtu (same section): DF = pmtudisc |
 *    inner DF, judged only then; too big with inner DF: Fragmentation Needed; without:
 *    fragment outside (RFC 2003 3.1, DF clear).
 * unit_len is one packet or one GSO segment (pmtu.h), so equal-to-MTU must fit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/pmtu.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct pmtu_case {
	const char *name;
	bool pmtudisc;
	uint32_t path_mtu, encap;
	unsigned version;
	bool inner_df;
	uint32_t unit;
	/* expected */
	enum sitd_pmtu_verdict verdict;
	bool df;		/* checked on SEND */
	uint32_t mtu;		/* checked when the packet was judged: pmtudisc or inner DF */
};

#define S PMTU_SEND
#define BIG PMTU_TOO_BIG
#define FLOOR PMTU_DROP_FLOOR

static struct pmtu_case cases[] = {
	/* name, pmtudisc, path_mtu, encap, version, inner_df, unit -> verdict, df, mtu */
	/* IPv6 inside, pmtudisc. */
	{ "v6: path 1500, 1480 fits exactly, DF", true, 1500, 20, 6, false, 1480, S, true, 1480 },
	{ "v6: path 1500, 1481 is too big: PTB 1480", true, 1500, 20, 6, false, 1481, BIG, true, 1480 },
	{ "v6: path 1500, 100 bytes, DF", true, 1500, 20, 6, false, 100, S, true, 1480 },
	{ "v6: inner DF is meaningless for IPv6 (ignored)", true, 1500, 20, 6, true, 1481, BIG, true, 1480 },
	{ "v6: path 9000, 8980 fits", true, 9000, 20, 6, false, 8980, S, true, 8980 },
	{ "v6: path 9000, 8981 PTB 8980", true, 9000, 20, 6, false, 8981, BIG, true, 8980 },
	{ "v6: path 1300 (mtu 1280), 1280 fits with DF", true, 1300, 20, 6, false, 1280, S, true, 1280 },
	{ "v6: path 1300 (mtu 1280), 1281 PTB 1280", true, 1300, 20, 6, false, 1281, BIG, true, 1280 },
	{ "v6 RFC 4213 3.2.2: path 1299 (mtu 1279 < 1280), 1280 sent without DF", true, 1299, 20, 6,
	  false, 1280, S, false, 1280 },
	{ "v6 RFC 4213 3.2.2: path 1299, 1281 PTB 1280", true, 1299, 20, 6, false, 1281, BIG, false, 1280 },
	{ "v6 RFC 4213 3.2.2: path 1200, 1000 without DF", true, 1200, 20, 6, false, 1000, S, false, 1280 },
	{ "v6 RFC 4213 3.2.2: path 88 (mtu 68), 1280 without DF",
	  true, 88, 20, 6, false, 1280, S, false, 1280 },
	{ "v6 RFC 4213 3.2.2: path 88 (mtu 68), 1281 PTB 1280",
	  true, 88, 20, 6, false, 1281, BIG, false, 1280 },
	{ "v6: path 87 (mtu 67 < 68): drop, kernel collisions", true, 87, 20, 6, false, 60, FLOOR, false, 0 },
	{ "v6: path 20 (mtu 0): drop", true, 20, 20, 6, false, 60, FLOOR, false, 0 },
	{ "v6: path 10, below the encapsulation: drop, no underflow",
	  true, 10, 20, 6, false, 60, FLOOR, false, 0 },
	{ "v6: encap 28 (FOU-sized): path 1500 gives mtu 1472",
	  true, 1500, 28, 6, false, 1473, BIG, true, 1472 },
	{ "v6: encap 28: 1472 fits", true, 1500, 28, 6, false, 1472, S, true, 1472 },
	/* IPv6 inside, nopmtudisc: no DF and no check, whatever the size. */
	{ "v6 nopmtudisc: 9000 on a 1500 path, no DF", false, 1500, 20, 6, false, 9000, S, false, 0 },
	{ "v6 nopmtudisc: path 87 is not judged either", false, 87, 20, 6, false, 1500, S, false, 0 },
	/* IPv4 inside. */
	{ "v4 pmtudisc, DF: 1480 fits, DF", true, 1500, 20, 4, true, 1480, S, true, 1480 },
	{ "v4 pmtudisc, DF: 1481 Frag Needed 1480", true, 1500, 20, 4, true, 1481, BIG, true, 1480 },
	{ "v4 pmtudisc, no DF: 1480 fits, outer DF from the tunnel",
	  true, 1500, 20, 4, false, 1480, S, true, 1480 },
	{ "v4 pmtudisc, no DF: 1481 fragmented outside, DF clear",
	  true, 1500, 20, 4, false, 1481, S, false, 1480 },
	{ "v4 nopmtudisc, DF: inner DF asks for the check, 1480 fits",
	  false, 1500, 20, 4, true, 1480, S, true, 1480 },
	{ "v4 nopmtudisc, DF: 1481 Frag Needed 1480", false, 1500, 20, 4, true, 1481, BIG, true, 1480 },
	{ "v4 nopmtudisc, no DF: 9000 not judged, no DF", false, 1500, 20, 4, false, 9000, S, false, 0 },
	{ "v4: no 1280 rule, path 600 (mtu 580): 580 fits with DF",
	  true, 600, 20, 4, true, 580, S, true, 580 },
	{ "v4: path 600: 581 with DF, Frag Needed 580", true, 600, 20, 4, true, 581, BIG, true, 580 },
	{ "v4: path 88 (mtu 68): 68 fits with DF", true, 88, 20, 4, true, 68, S, true, 68 },
	{ "v4: path 88 (mtu 68): 69 with DF, Frag Needed 68", true, 88, 20, 4, true, 69, BIG, true, 68 },
	{ "v4: path 88 (mtu 68): 69 without DF, fragmented", true, 88, 20, 4, false, 69, S, false, 68 },
	{ "v4 pmtudisc, DF: path 87 (mtu 67): drop", true, 87, 20, 4, true, 60, FLOOR, false, 0 },
	{ "v4 pmtudisc, no DF: path 87: drop", true, 87, 20, 4, false, 60, FLOOR, false, 0 },
	{ "v4 nopmtudisc, DF: path 87: drop", false, 87, 20, 4, true, 60, FLOOR, false, 0 },
	{ "v4 nopmtudisc, no DF: path 87 not judged", false, 87, 20, 4, false, 60, S, false, 0 },
};

static void test_pmtu(void **state)
{
	const struct pmtu_case *c = *state;
	struct sitd_pmtu d = sitd_pmtu_decide(c->pmtudisc, c->path_mtu, c->encap, c->version,
					      c->inner_df, c->unit);

	assert_int_equal(d.verdict, c->verdict);
	if (c->verdict == PMTU_SEND)	/* DF only matters for what is sent */
		assert_int_equal(d.df, c->df);
	if (c->mtu)
		assert_int_equal(d.mtu, c->mtu);
}

/* The per-destination cache of remote-any tunnels: found, replaced, lost to a collision. */
static void test_pmtu_cache(void **state)
{
	static struct sitd_pmtu_cache c;
	uint32_t a = 0xc0000201u, b = 0xcb007101u, coll = 0, n = 0;

	(void)state;
	assert_int_equal(sitd_pmtu_cache_get(&c, a), 0);
	assert_int_equal(sitd_pmtu_cache_get(NULL, a), 0);
	sitd_pmtu_cache_put(&c, a, 1400);
	sitd_pmtu_cache_put(&c, b, 1300);
	assert_int_equal(sitd_pmtu_cache_get(&c, a), 1400);
	assert_int_equal(sitd_pmtu_cache_get(&c, b), 1300);
	assert_int_equal(sitd_pmtu_cache_get(&c, a + 1), 0);
	sitd_pmtu_cache_put(&c, a, 1280);
	assert_int_equal(sitd_pmtu_cache_get(&c, a), 1280);
	assert_int_equal(sitd_pmtu_cache_get(&c, 0), 0);	/* 0 is no destination */
	/* A destination in a's slot replaces it: a's MTU is then unknown, not wrong. */
	for (uint32_t x = 1; !coll; x++) {
		sitd_pmtu_cache_put(&c, a + x, 1000 + x);
		if (sitd_pmtu_cache_get(&c, a) == 0)
			coll = a + x;
	}
	assert_int_equal(sitd_pmtu_cache_get(&c, coll), 1000 + (coll - a));
	/* The destinations it holds can be listed, to read their MTUs again. */
	for (unsigned i = 0; i < SITD_PMTU_SLOTS; i++)
		n += sitd_pmtu_cache_dst(&c, i) == coll;
	assert_int_equal(n, 1);
	assert_int_equal(sitd_pmtu_cache_dst(&c, SITD_PMTU_SLOTS), 0);
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(cases) + 1];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_pmtu,
						.initial_state = &cases[i] };
	tests[ARRAY_SIZE(cases)] = (struct CMUnitTest)cmocka_unit_test(test_pmtu_cache);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
