/* SPDX-License-Identifier: MIT */
/*
 * The tunnel table (table.h): the lookup order of the kernel's ipip6_tunnel_lookup()
 * (remote+local, remote only, local only, wildcard), the device binding, duplicates
 * refused, and lookups that stay right with thousands of entries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/table.h"

#define A(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

/* Tunnel "names" are the addresses of these markers. */
static char t_rl, t_r, t_l, t_wc, t_dev, t_other;

static struct sitd_table tab;
static void *mem;

static int build(const struct sitd_tent *e, uint32_t n, uint32_t *a, uint32_t *b)
{
	size_t len = sitd_table_mem(n);

	free(mem);
	mem = malloc(len);
	assert_non_null(mem);
	return sitd_table_build(&tab, mem, len, e, n, a, b);
}

static int teardown(void **state)
{
	(void)state;
	free(mem);
	mem = NULL;
	return 0;
}

static const uint32_t R = A(203, 0, 113, 1), L = A(192, 0, 2, 1), R2 = A(203, 0, 113, 2),
		      L2 = A(192, 0, 2, 2);

static void lookup_order(void **state)
{
	/* Listed wildcard first, so the order found is the classes', not the list's. */
	const struct sitd_tent e[] = {
		{ .remote = 0, .local = 0, .tunnel = &t_wc },
		{ .remote = 0, .local = L, .tunnel = &t_l },
		{ .remote = R, .local = 0, .tunnel = &t_r },
		{ .remote = R, .local = L, .tunnel = &t_rl },
	};
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(e, 4, &a, &b), 0);
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 0), &t_rl);	/* exact beats all */
	assert_ptr_equal(sitd_table_lookup(&tab, R, L2, 0), &t_r);	/* remote only */
	assert_ptr_equal(sitd_table_lookup(&tab, R2, L, 0), &t_l);	/* local only */
	assert_ptr_equal(sitd_table_lookup(&tab, R2, L2, 0), &t_wc);	/* wildcard */
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 7), &t_rl);	/* unbound: any device */
}

/* A tunnel whose device is down matches nothing; the next class answers (IFF_UP). */
static void down_skipped(void **state)
{
	int rl_up = 1, r_up = 1;
	const struct sitd_tent e[] = {
		{ .remote = 0, .local = 0, .tunnel = &t_wc },
		{ .remote = R, .local = 0, .tunnel = &t_r, .up = &r_up },
		{ .remote = R, .local = L, .tunnel = &t_rl, .up = &rl_up },
	};
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(e, 3, &a, &b), 0);
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 0), &t_rl);
	rl_up = 0;	/* read at each lookup: no rebuild */
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 0), &t_r);
	r_up = 0;
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 0), &t_wc);
	rl_up = 1;
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 0), &t_rl);
	/* Down and no other tunnel: no tunnel at all. */
	assert_int_equal(build(e + 2, 1, &a, &b), 0);
	rl_up = 0;
	assert_null(sitd_table_lookup(&tab, R, L, 0));
}

static void no_match(void **state)
{
	const struct sitd_tent e[] = {
		{ .remote = R, .local = L, .tunnel = &t_rl },
		{ .remote = R2, .local = 0, .tunnel = &t_r },
	};
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(e, 2, &a, &b), 0);
	assert_null(sitd_table_lookup(&tab, R, L2, 0));	/* right remote, wrong local */
	assert_null(sitd_table_lookup(&tab, L, R, 0));	/* reversed */
	assert_ptr_equal(sitd_table_lookup(&tab, R2, L2, 0), &t_r);
	assert_int_equal(build(e, 0, &a, &b), 0);
	assert_null(sitd_table_lookup(&tab, R, L, 0));	/* empty table */
	assert_null(sitd_table_lookup(NULL, R, L, 0));	/* none published yet */
}

static void device_binding(void **state)
{
	/* Same addresses, one bound to ifindex 3, one unbound: both may exist. */
	const struct sitd_tent e[] = {
		{ .remote = R, .local = L, .link = 3, .tunnel = &t_dev },
		{ .remote = R, .local = L, .link = 0, .tunnel = &t_rl },
		{ .remote = R2, .local = L, .link = 5, .tunnel = &t_other },
	};
	uint32_t a, b;

	(void)state;
	assert_int_equal(build(e, 3, &a, &b), 0);
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 3), &t_dev);
	assert_ptr_equal(sitd_table_lookup(&tab, R, L, 4), &t_rl);
	assert_null(sitd_table_lookup(&tab, R2, L, 4));		/* bound elsewhere */
	assert_ptr_equal(sitd_table_lookup(&tab, R2, L, 5), &t_other);
	/* Device not known (an ICMP error): the kernel does not check it. */
	assert_ptr_equal(sitd_table_lookup(&tab, R2, L, 0), &t_other);
}

static void duplicates(void **state)
{
	const struct sitd_tent e[] = {
		{ .remote = R, .local = L, .tunnel = &t_rl },
		{ .remote = R2, .local = 0, .tunnel = &t_r },
		{ .remote = R, .local = L, .tunnel = &t_other },
	};
	const struct sitd_tent w[] = {
		{ .tunnel = &t_wc },
		{ .local = L, .tunnel = &t_l },
		{ .tunnel = &t_other },
	};
	uint32_t a = 99, b = 99;

	(void)state;
	assert_int_equal(build(e, 3, &a, &b), -1);
	assert_int_equal(a, 0);
	assert_int_equal(b, 2);
	a = b = 99;
	assert_int_equal(build(w, 3, &a, &b), -1);
	assert_int_equal(a, 0);
	assert_int_equal(b, 2);
}

static void too_little_memory(void **state)
{
	const struct sitd_tent e[] = { { .remote = R, .local = L, .tunnel = &t_rl } };
	uint64_t small[4];
	uint32_t a, b;

	(void)state;
	assert_int_equal(sitd_table_build(&tab, small, sizeof(small), e, 1, &a, &b), -1);
}

/* 4096 tunnels to consecutive remotes, half with a local: each found, none confused. */
static void many(void **state)
{
	enum { N = 4096 };
	struct sitd_tent *e = calloc(N, sizeof(*e));
	static char mark[N];
	uint32_t a, b, longest = 0;

	(void)state;
	assert_non_null(e);
	for (uint32_t i = 0; i < N; i++) {
		e[i].remote = A(203, 0, 0, 0) + i;
		e[i].local = i % 2 ? L : 0;
		e[i].tunnel = &mark[i];
	}
	assert_int_equal(build(e, N, &a, &b), 0);
	for (uint32_t i = 0; i < N; i++) {
		assert_ptr_equal(sitd_table_lookup(&tab, A(203, 0, 0, 0) + i, L, 0), &mark[i]);
		if (i % 2 == 0)
			assert_ptr_equal(sitd_table_lookup(&tab, A(203, 0, 0, 0) + i, L2, 0), &mark[i]);
		else
			assert_null(sitd_table_lookup(&tab, A(203, 0, 0, 0) + i, L2, 0));
	}
	assert_null(sitd_table_lookup(&tab, A(203, 0, 0, 0) + N, L, 0));
	/* O(1): no chain is long (the buckets are at least twice the entries). */
	for (int c = 0; c < SITD_T_CLASSES; c++) {
		for (uint32_t k = 0; k <= tab.mask; k++) {
			uint32_t len = 0;

			for (uint32_t x = tab.head[c][k]; x != SITD_TABLE_NONE; x = tab.ent[x].next)
				len++;
			if (len > longest)
				longest = len;
		}
	}
	assert_true(longest <= 8);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(lookup_order, teardown),
		cmocka_unit_test_teardown(no_match, teardown),
		cmocka_unit_test_teardown(down_skipped, teardown),
		cmocka_unit_test_teardown(device_binding, teardown),
		cmocka_unit_test_teardown(duplicates, teardown),
		cmocka_unit_test(too_little_memory),
		cmocka_unit_test_teardown(many, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
