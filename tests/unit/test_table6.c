/* SPDX-License-Identifier: MIT */
/*
 * The IPv6-outer tunnel table (table.h, sitd_table6): the order of the kernel's
 * ip6_tnl_lookup() (remote+local, local only, remote only, then the first wildcard),
 * the bound device as a preference (exact link first, else the candidate), down
 * devices skipped, duplicates refused as ip6_tnl_locate's EEXIST, many entries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/table.h"

static char t_rl, t_r, t_l, t_wc, t_wc2, t_dev, t_other;

static struct sitd_table6 tab;
static void *mem;

/* 2001:db8:<a>::<b> */
static void addr(uint8_t *p, unsigned a, unsigned b)
{
	memset(p, 0, 16);
	p[0] = 0x20;
	p[1] = 0x01;
	p[2] = 0x0d;
	p[3] = 0xb8;
	p[4] = (uint8_t)(a >> 8);
	p[5] = (uint8_t)a;
	p[14] = (uint8_t)(b >> 8);
	p[15] = (uint8_t)b;
}

static struct sitd_tent6 ent(unsigned r, unsigned l, uint32_t link, void *tunnel, const int *up)
{
	struct sitd_tent6 e;

	memset(&e, 0, sizeof(e));
	if (r)
		addr(e.remote, 1, r);
	if (l)
		addr(e.local, 2, l);
	e.link = link;
	e.tunnel = tunnel;
	e.up = up;
	return e;
}

static const void *look(unsigned r, unsigned l, uint32_t link)
{
	uint8_t ra[16], la[16];

	addr(ra, 1, r);
	addr(la, 2, l);
	return sitd_table6_lookup(&tab, ra, la, link);
}

static int build(const struct sitd_tent6 *e, uint32_t n, uint32_t *a, uint32_t *b)
{
	size_t len = sitd_table6_mem(n);

	free(mem);
	mem = malloc(len);
	assert_non_null(mem);
	return sitd_table6_build(&tab, mem, len, e, n, a, b);
}

static int teardown(void **state)
{
	(void)state;
	free(mem);
	mem = NULL;
	return 0;
}

/* Local only comes before remote only: the other way round from sit's. */
static void order(void **state)
{
	const struct sitd_tent6 e[] = {
		ent(0, 0, 0, &t_wc, NULL), ent(1, 0, 0, &t_r, NULL),
		ent(0, 1, 0, &t_l, NULL), ent(1, 1, 0, &t_rl, NULL),
	};
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(e, 4, &a, &b), 0);
	assert_ptr_equal(look(1, 1, 0), &t_rl);
	assert_ptr_equal(look(1, 2, 0), &t_r);		/* remote only */
	assert_ptr_equal(look(2, 1, 0), &t_l);		/* local only */
	assert_ptr_equal(look(2, 2, 0), &t_wc);
	assert_ptr_equal(look(1, 1, 9), &t_rl);		/* unbound: a candidate on any device */
	/* Remote only and local only both match: ip6_tnl_lookup tries local first. */
	{
		const struct sitd_tent6 f[] = { ent(1, 0, 0, &t_r, NULL), ent(0, 1, 0, &t_l, NULL) };

		assert_int_equal(build(f, 2, &a, &b), 0);
		assert_ptr_equal(look(1, 1, 0), &t_l);
		assert_null(look(2, 2, 0));
	}
}

/*
 * A bound tunnel is no filter: one on the arrival device wins in any class, else the
 * first address match is the candidate, bound elsewhere or not.
 */
static void binding(void **state)
{
	const struct sitd_tent6 e[] = {
		ent(1, 1, 5, &t_dev, NULL), ent(0, 1, 7, &t_l, NULL),
	};
	const struct sitd_tent6 f[] = {
		ent(1, 1, 5, &t_dev, NULL), ent(1, 1, 0, &t_rl, NULL), ent(1, 1, 6, &t_other, NULL),
	};
	const struct sitd_tent6 g[] = {
		ent(0, 1, 5, &t_l, NULL), ent(0, 1, 6, &t_other, NULL), ent(1, 0, 0, &t_r, NULL),
	};
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(e, 2, &a, &b), 0);
	assert_ptr_equal(look(1, 1, 5), &t_dev);
	assert_ptr_equal(look(1, 1, 7), &t_l);		/* exact link in class 2 beats class 1's cand */
	assert_ptr_equal(look(1, 1, 8), &t_dev);	/* no exact one: the first class's candidate */
	assert_ptr_equal(look(3, 1, 8), &t_l);		/* bound to 7, found from 8 all the same */

	assert_int_equal(build(f, 3, &a, &b), 0);
	assert_ptr_equal(look(1, 1, 0), &t_rl);		/* link 0 (not known) is unbound's */
	assert_ptr_equal(look(1, 1, 6), &t_other);
	/* Class 1's candidate is the last in its chain (the kernel's `cand = t`). */
	assert_ptr_equal(look(1, 1, 9), &t_other);

	/* Class 2 and 3 keep the first candidate. */
	assert_int_equal(build(g, 3, &a, &b), 0);
	assert_ptr_equal(look(1, 1, 9), &t_l);
	assert_ptr_equal(look(1, 1, 6), &t_other);
	assert_ptr_equal(look(1, 1, 0), &t_r);		/* exact (unbound) in class 3 */
}

static void down(void **state)
{
	int rl_up = 1, l_up = 1, wc_up = 1;
	const struct sitd_tent6 e[] = {
		ent(1, 1, 0, &t_rl, &rl_up), ent(0, 1, 0, &t_l, &l_up), ent(0, 0, 0, &t_wc, &wc_up),
		ent(0, 0, 3, &t_wc2, NULL),
	};
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(e, 4, &a, &b), 0);
	assert_ptr_equal(look(1, 1, 0), &t_rl);
	rl_up = 0;
	assert_ptr_equal(look(1, 1, 0), &t_l);
	l_up = 0;
	assert_ptr_equal(look(1, 1, 0), &t_wc);
	assert_ptr_equal(look(1, 1, 3), &t_wc);		/* the wildcard ignores the device */
	wc_up = 0;
	/* Only the first wildcard counts (tnls_wc[0]): the second, up, is not tried. */
	assert_null(look(1, 1, 3));
	rl_up = 1;
	assert_ptr_equal(look(1, 1, 0), &t_rl);
}

static void duplicates(void **state)
{
	const struct sitd_tent6 e[] = {
		ent(1, 1, 0, &t_rl, NULL), ent(1, 1, 4, &t_dev, NULL), ent(0, 0, 2, &t_wc, NULL),
		ent(0, 0, 0, &t_wc2, NULL), ent(1, 1, 4, &t_other, NULL),
	};
	const struct sitd_tent6 w[] = { ent(0, 0, 2, &t_wc, NULL), ent(0, 0, 2, &t_wc2, NULL) };
	uint32_t a = 99, b = 99;

	(void)state;
	assert_int_equal(build(e, 4, &a, &b), 0);	/* other links are no duplicates */
	assert_int_equal(build(e, 5, &a, &b), -1);
	assert_int_equal(a, 1);
	assert_int_equal(b, 4);
	assert_int_equal(build(w, 2, &a, &b), -1);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(sitd_table6_build(&tab, mem, sitd_table6_mem(1) - 1, w, 1, &a, &b), -1);
}

static void empty(void **state)
{
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(NULL, 0, &a, &b), 0);
	assert_null(look(1, 1, 0));
	assert_null(sitd_table6_lookup(NULL, (const uint8_t[16]){ 0 }, (const uint8_t[16]){ 0 }, 0));
}

/* 3000 tunnels, each of the three hashed classes; all found, and nothing else. */
static void many(void **state)
{
	enum { N = 3000 };
	static struct sitd_tent6 e[N];
	static char marks[N];
	uint32_t a, b;

	(void)state;
	for (unsigned i = 0; i < N; i++) {
		unsigned k = i / 3 + 10;

		e[i] = ent(i % 3 != 1 ? k : 0, i % 3 != 2 ? k : 0, 0, &marks[i], NULL);
	}
	assert_int_equal(build(e, N, &a, &b), 0);
	assert_true(tab.mask + 1 >= 2 * N);
	for (unsigned i = 0; i < N; i++) {
		unsigned k = i / 3 + 10;

		if (i % 3 == 0)
			assert_ptr_equal(look(k, k, 0), &marks[i]);
		else if (i % 3 == 1)
			assert_ptr_equal(look(9, k, 0), &marks[i]);	/* local only */
		else
			assert_ptr_equal(look(k, 9, 0), &marks[i]);	/* remote only */
	}
	assert_null(look(9, 9, 0));
	assert_null(look(N + 100, N + 100, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(order, teardown),
		cmocka_unit_test_teardown(binding, teardown),
		cmocka_unit_test_teardown(down, teardown),
		cmocka_unit_test_teardown(duplicates, teardown),
		cmocka_unit_test_teardown(empty, teardown),
		cmocka_unit_test_teardown(many, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
