/* SPDX-License-Identifier: MIT */
/*
 * sitd_mtu_start, one row per branch: the device MTU a starting tunnel gets and the path
 * MTU it starts with, as ip_tunnel_bind_dev() picks them (the route's MTU minus the
 * encapsulation), for a fixed remote with and without a route, remote any (RFC 5969 9.1:
 * `dev`'s MTU, else 1280), a given mtu, and a device taken over with its own MTU.
 * The same over an IPv6 underlay, as ip6_tnl_link_config() picks them (minus 40, minus 8
 * for the encapsulation limit option, never below 1280), and the bounds of each mode,
 * sitd_mtu_min and sitd_mtu_max, against ip6_tnl_change_mtu and ip_tunnel_change_mtu.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/conf.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define REMOTE 0xc0000202u	/* 192.0.2.2 */

struct mtu_case {
	const char *name;
	enum sitd_mode mode;
	enum sitd_encap encap;
	uint32_t remote, mtu;			/* the stanza's */
	uint32_t route_mtu;
	int dev_mtu, cur_mtu;
	/* expected */
	unsigned want_mtu;
	uint32_t want_path;
	bool want_guessed;
};

static const struct mtu_case cases[] = {
	/* name, mode, encap, remote, mtu, route, dev, cur -> mtu, path, guessed */
	{ "sit: route 1500: 1480", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0, 1500, -1, -1,
	  1480, 1500, false },
	{ "ipip: route 9000: 8980", SITD_MODE_IPIP, SITD_ENCAP_NONE, REMOTE, 0, 9000, -1, -1,
	  8980, 9000, false },
	{ "fou: route 1500: 1472", SITD_MODE_SIT, SITD_ENCAP_FOU, REMOTE, 0, 1500, -1, -1,
	  1472, 1500, false },
	{ "gue: route 1500: 1468", SITD_MODE_IPIP, SITD_ENCAP_GUE, REMOTE, 0, 1500, -1, -1,
	  1468, 1500, false },
	{ "the route, not dev, when there is one", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0, 1400,
	  9000, -1, 1380, 1400, false },
	{ "no route yet, dev 9000: assumed 9000", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0, 0, 9000,
	  -1, 8980, 9000, true },
	{ "no route yet, no dev: assumed 1500", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0, 0, -1, -1,
	  1480, 1500, true },
	{ "sit: route 1000 (mtu 980): the kernel's minimum, 1280", SITD_MODE_SIT, SITD_ENCAP_NONE,
	  REMOTE, 0, 1000, -1, -1, 1280, 1000, false },
	{ "ipip: route 1000: 980 (minimum 68)", SITD_MODE_IPIP, SITD_ENCAP_NONE, REMOTE, 0, 1000, -1,
	  -1, 980, 1000, false },
	{ "mtu given: kept, path from the route", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 1400, 1500,
	  -1, -1, 1400, 1500, false },
	{ "mtu given, no route: kept, path assumed", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 1400, 0,
	  -1, -1, 1400, 1500, true },
	{ "mtu given wins over a taken-over device's", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 1400,
	  1500, -1, 1300, 1400, 1500, false },
	{ "taken over at 1400 (fits 1480): stays", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0, 1500, -1,
	  1400, 1400, 1500, false },
	{ "taken over at 1480 (exactly fits): stays", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0, 1500,
	  -1, 1480, 1480, 1500, false },
	{ "taken over at 1500 (too big for 1480): 1480", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0,
	  1500, -1, 1500, 1480, 1500, false },
	{ "taken over at 1000 on sit: put back to 1280", SITD_MODE_SIT, SITD_ENCAP_NONE, REMOTE, 0,
	  1500, -1, 1000, 1280, 1500, false },
	{ "taken over at 1000 on ipip: stays", SITD_MODE_IPIP, SITD_ENCAP_NONE, REMOTE, 0, 1500, -1,
	  1000, 1000, 1500, false },
	{ "remote any, dev 1500: 1480, not a guess", SITD_MODE_SIT, SITD_ENCAP_NONE, 0, 0, 0, 1500,
	  -1, 1480, 1500, false },
	{ "remote any, no dev: 1280 (RFC 5969 9.1), path 1500", SITD_MODE_SIT, SITD_ENCAP_NONE, 0, 0,
	  0, -1, -1, 1280, 1500, false },
	{ "remote any: a route MTU is not the path's", SITD_MODE_SIT, SITD_ENCAP_NONE, 0, 0, 9000, -1,
	  -1, 1280, 1500, false },
	{ "remote any: a taken-over device's MTU is not kept", SITD_MODE_SIT, SITD_ENCAP_NONE, 0, 0, 0,
	  9000, 1400, 8980, 9000, false },
	{ "remote any, mtu given: kept", SITD_MODE_SIT, SITD_ENCAP_NONE, 0, 1300, 0, 1500, -1, 1300,
	  1500, false },
};

static void test_mtu_start(void **state)
{
	const struct mtu_case *k = *state;
	struct sitd_conf c = { .mode = k->mode, .encap = k->encap, .remote = k->remote,
			       .mtu = k->mtu, .pmtudisc = true };
	uint32_t path = 0;
	bool guessed = !k->want_guessed;
	unsigned mtu = sitd_mtu_start(&c, k->route_mtu, k->dev_mtu, k->cur_mtu, &path, &guessed);

	assert_int_equal(mtu, k->want_mtu);
	assert_int_equal(path, k->want_path);
	assert_int_equal(guessed, k->want_guessed);
}

/* ---- An IPv6 underlay (ip6tnl) ---- */

struct mtu6_case {
	const char *name;
	enum sitd_mode mode;
	bool elim_none;				/* encaplimit none: no 8-byte option */
	uint32_t mtu;				/* the stanza's */
	uint32_t route_mtu;
	int dev_mtu, cur_mtu;
	/* expected */
	unsigned want_mtu;
	uint32_t want_path;
	bool want_guessed;
};

static const struct mtu6_case cases6[] = {
	/* name, mode, encaplimit none, mtu, route, dev, cur -> mtu, path, guessed */
	{ "ip6ip6: route 1500: 1452 (40 + 8 for the option)", SITD_MODE_SIT, false, 0, 1500, -1, -1,
	  1452, 1500, false },
	{ "ip6ip6, encaplimit none: route 1500: 1460", SITD_MODE_SIT, true, 0, 1500, -1, -1, 1460, 1500,
	  false },
	{ "ipip6: route 1500: 1452", SITD_MODE_IPIP, false, 0, 1500, -1, -1, 1452, 1500, false },
	{ "any over IPv6: route 9000: 8952", SITD_MODE_ANY, false, 0, 9000, -1, -1, 8952, 9000, false },
	{ "ip6ip6: the route, not dev (an IPv6 remote is a fixed remote)", SITD_MODE_SIT, false, 0, 1400,
	  9000, -1, 1352, 1400, false },
	{ "ip6ip6: route 1280 (1232): 1280, ip6_tnl_link_config's floor", SITD_MODE_SIT, false, 0, 1280,
	  -1, -1, 1280, 1280, false },
	{ "ipip6: route 1280: 1280 too (the floor is for every mode)", SITD_MODE_IPIP, false, 0, 1280,
	  -1, -1, 1280, 1280, false },
	{ "ip6ip6: no route yet, no dev: 1452 (ETH_DATA_LEN - 48, ip6_tnl_dev_init_gen)",
	  SITD_MODE_SIT, false, 0, 0, -1, -1, 1452, 1500, true },
	{ "ipip6: no route yet, dev 9000: assumed 9000", SITD_MODE_IPIP, false, 0, 0, 9000, -1, 8952,
	  9000, true },
	{ "ip6ip6: mtu given: kept", SITD_MODE_SIT, false, 1400, 1500, -1, -1, 1400, 1500, false },
	{ "ip6ip6: taken over at 1400 (fits 1452): stays", SITD_MODE_SIT, false, 0, 1500, -1, 1400,
	  1400, 1500, false },
	{ "ip6ip6: taken over at 1500 (too big for 1452): 1452", SITD_MODE_SIT, false, 0, 1500, -1,
	  1500, 1452, 1500, false },
	{ "ip6ip6: taken over at 1000: put back to 1280", SITD_MODE_SIT, false, 0, 1500, -1, 1000,
	  1280, 1500, false },
	{ "ipip6: taken over at 1000: stays (minimum 68)", SITD_MODE_IPIP, false, 0, 1500, -1, 1000,
	  1000, 1500, false },
};

static void conf6(struct sitd_conf *c, enum sitd_mode mode, bool elim_none)
{
	static const uint8_t r6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };	/* 2001:db8::2 */

	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->outer = SITD_OUTER_IPV6;
	memcpy(c->remote6, r6, sizeof(r6));
	c->encap_limit = SITD_ENCAP_LIMIT_DEFAULT;
	c->encap_limit_none = elim_none;
	c->ttl = SITD_HOPLIMIT_DEFAULT;
	c->pmtudisc = true;
}

static void test_mtu_start6(void **state)
{
	const struct mtu6_case *k = *state;
	struct sitd_conf c;
	uint32_t path = 0;
	bool guessed = !k->want_guessed;
	unsigned mtu;

	conf6(&c, k->mode, k->elim_none);
	c.mtu = k->mtu;
	mtu = sitd_mtu_start(&c, k->route_mtu, k->dev_mtu, k->cur_mtu, &path, &guessed);
	assert_int_equal(mtu, k->want_mtu);
	assert_int_equal(path, k->want_path);
	assert_int_equal(guessed, k->want_guessed);
}

/* sitd_mtu_min and sitd_mtu_max for every mode, outer family and encapsulation. */
static void test_mtu_bounds(void **state)
{
	static const struct {
		enum sitd_outer outer;
		enum sitd_mode mode;
		bool elim_none;
		enum sitd_encap encap;
		unsigned lo, hi;
	} b[] = {
		/* IPv4: 65535 minus the outer header and fou/gue */
		{ SITD_OUTER_IPV4, SITD_MODE_SIT, false, SITD_ENCAP_NONE, 1280, 65515 },
		{ SITD_OUTER_IPV4, SITD_MODE_IPIP, false, SITD_ENCAP_NONE, 68, 65515 },
		{ SITD_OUTER_IPV4, SITD_MODE_ANY, false, SITD_ENCAP_NONE, 1280, 65515 },
		{ SITD_OUTER_IPV4, SITD_MODE_SIT, false, SITD_ENCAP_FOU, 1280, 65507 },
		/* ip6ip6 and any: IP6_MAX_MTU 65575 minus 40, the option's 8 and fou/gue */
		{ SITD_OUTER_IPV6, SITD_MODE_SIT, false, SITD_ENCAP_NONE, 1280, 65527 },
		{ SITD_OUTER_IPV6, SITD_MODE_SIT, true, SITD_ENCAP_NONE, 1280, 65535 },
		{ SITD_OUTER_IPV6, SITD_MODE_ANY, false, SITD_ENCAP_NONE, 68, 65527 },
		{ SITD_OUTER_IPV6, SITD_MODE_ANY, true, SITD_ENCAP_GUE, 68, 65523 },
		{ SITD_OUTER_IPV6, SITD_MODE_SIT, false, SITD_ENCAP_FOU, 1280, 65519 },
		/* ipip6: ip6_tnl_change_mtu's IP_MAX_MTU - t_hlen, the option not counted */
		{ SITD_OUTER_IPV6, SITD_MODE_IPIP, false, SITD_ENCAP_NONE, 68, 65495 },
		{ SITD_OUTER_IPV6, SITD_MODE_IPIP, true, SITD_ENCAP_NONE, 68, 65495 },
		{ SITD_OUTER_IPV6, SITD_MODE_IPIP, false, SITD_ENCAP_FOU, 68, 65487 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(b); i++) {
		struct sitd_conf c;

		conf6(&c, b[i].mode, b[i].elim_none);
		c.outer = b[i].outer;
		c.encap = b[i].encap;
		assert_int_equal(sitd_mtu_min(&c), b[i].lo);
		assert_int_equal(sitd_mtu_max(&c), b[i].hi);
		/* One outer packet always holds a packet of the largest MTU. */
		if (b[i].outer == SITD_OUTER_IPV6)
			assert_true(sitd_mtu_max(&c) + sitd_encap_len(&c) - 40 <= 65535);
		else
			assert_true(sitd_mtu_max(&c) + sitd_encap_len(&c) <= 65535);
		assert_int_equal(sitd_mtu_clamp(&c, 1), b[i].lo);
		assert_int_equal(sitd_mtu_clamp(&c, 70000), b[i].hi);
	}
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(cases) + ARRAY_SIZE(cases6) + 1];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_mtu_start,
						  .initial_state = (void *)(uintptr_t)&cases[i] };
	for (size_t i = 0; i < ARRAY_SIZE(cases6); i++)
		tests[n++] = (struct CMUnitTest){ .name = cases6[i].name, .test_func = test_mtu_start6,
						  .initial_state = (void *)(uintptr_t)&cases6[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_mtu_bounds);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
