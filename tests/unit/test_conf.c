/* SPDX-License-Identifier: MIT */
/*
 * sitd_mtu_start, one row per branch: the device MTU a starting tunnel gets and the path
 * MTU it starts with, as ip_tunnel_bind_dev() picks them (the route's MTU minus the
 * encapsulation), for a fixed remote with and without a route, remote any (RFC 5969 9.1:
 * `dev`'s MTU, else 1280), a given mtu, and a device taken over with its own MTU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
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

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(cases)];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_mtu_start,
						.initial_state = (void *)(uintptr_t)&cases[i] };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
