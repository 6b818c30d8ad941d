/* SPDX-License-Identifier: MIT */
/*
 * path.c's asks from the packet path (path_mtu_stale) and their reading on the control
 * thread (path_drain), behind a stub of pmtu_query (stub_path.c): a worker never reads
 * the path MTU itself; it wakes the control thread once until drained; a fixed remote is
 * read once however often asked; remote any reads each destination asked into the
 * tunnel's cache; a tunnel removed meanwhile is not read; a full ring drops the rest;
 * what forged errors can cost is bounded: one read per destination a second, a budget of
 * reads, a few log lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon/internal.h"
#include "stub_path.h"

#define REMOTE 0xc0000202u
#define DST_A 0xc0000263u
#define DST_B 0xc6336407u

static struct sitd_daemon d;
static struct worker *w;
static struct tunnel *ts[3];
static struct tunnel fixed, any, gone;
static struct sitd_pmtu_cache cache, cache2;

static uint64_t clock_ns = 1000000000ull;

static int setup(void **state)
{
	(void)state;
	memset(&d, 0, sizeof(d));
	memset(&stub_path, 0, sizeof(stub_path));
	/* Each test a minute after the last: path.c's limits start afresh. */
	clock_ns += 60000000000ull;
	stub_path.now = clock_ns;
	memset(&fixed, 0, sizeof(fixed));
	memset(&any, 0, sizeof(any));
	memset(&gone, 0, sizeof(gone));
	memset(&cache, 0, sizeof(cache));
	memset(&cache2, 0, sizeof(cache2));
	w = calloc(1, sizeof(*w));
	assert_non_null(w);
	w->d = &d;
	d.w = &w;
	d.nw = 1;
	qsbr_init(&d.qsbr);
	d.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(d.wake_fd >= 0);
	fixed.conf.remote = REMOTE;
	fixed.path_mtu = 1500;
	any.pcache = &cache;
	gone.pcache = &cache2;
	ts[0] = &fixed;
	ts[1] = &any;
	d.t = ts;
	d.n = 2;
	stub_path.mtu = 1400;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(d.wake_fd);
	free(w);
	return 0;
}

/* How many times the control thread was woken since the last call (0: not). */
static uint64_t wakes(void)
{
	uint64_t n = 0;

	return read(d.wake_fd, &n, sizeof(n)) == sizeof(n) ? n : 0;
}

static void test_fixed_remote_read_once_on_the_control_thread(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++)
		path_mtu_stale(w, &fixed, REMOTE);
	assert_int_equal(stub_path.queries, 0);		/* not on the worker */
	assert_int_equal(path_mtu_get(&fixed), 1500);
	assert_int_equal(wakes(), 1);			/* woken once */
	path_drain(&d);
	assert_int_equal(stub_path.queries, 1);
	assert_int_equal(stub_path.last_dst, REMOTE);
	assert_int_equal(path_mtu_get(&fixed), 1400);
	/* `sitd monitor` hears of the change, once, with both values. */
	assert_int_equal(stub_path.events, 1);
	assert_int_equal(stub_path.ev_old, 1500);
	assert_int_equal(stub_path.ev_new, 1400);
	path_drain(&d);
	assert_int_equal(stub_path.queries, 1);		/* nothing more was asked */
	/* Asked again after the drain: woken again. */
	path_mtu_stale(w, &fixed, REMOTE);
	assert_int_equal(wakes(), 1);
	path_drain(&d);
	assert_int_equal(stub_path.queries, 2);
}

/*
 * An IPv6 underlay has a fixed remote (remote6) though conf.remote is 0: asked from the
 * worker, read once on the control thread through pmtu6_query, and with local any the
 * route's source published for the workers, again only when it changes.
 */
static void test_ipv6_underlay_read_and_source(void **state)
{
	static const uint8_t r6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x0f, [15] = 2 };
	static const uint8_t s6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x0f, [15] = 1 };
	struct tunnel six;
	struct path_src6 *first;

	(void)state;
	memset(&six, 0, sizeof(six));
	six.conf.outer = SITD_OUTER_IPV6;
	memcpy(six.conf.remote6, r6, 16);
	six.path_mtu = 1500;
	ts[2] = &six;
	d.n = 3;
	memcpy(stub_path.src6, s6, 16);
	for (int i = 0; i < 3; i++)
		path_mtu_stale(w, &six, 0);
	assert_int_equal(wakes(), 1);
	assert_int_equal(stub_path.queries6, 0);	/* not on the worker */
	path_drain(&d);
	assert_int_equal(stub_path.queries6, 1);
	assert_int_equal(stub_path.queries, 0);		/* never the IPv4 probe */
	assert_memory_equal(stub_path.last_dst6, r6, 16);
	assert_int_equal(path_mtu_get(&six), 1400);
	assert_non_null(six.src6);
	assert_memory_equal(six.src6->a, s6, 16);
	first = six.src6;
	path_mtu_stale(w, &six, 0);
	path_drain(&d);
	assert_int_equal(stub_path.queries6, 2);
	assert_ptr_equal(six.src6, first);		/* the same source: not republished */
	/* No route now: the last source stays. */
	memset(stub_path.src6, 0, 16);
	path_mtu_stale(w, &six, 0);
	path_drain(&d);
	assert_ptr_equal(six.src6, first);
	free(six.src6);
	d.n = 2;
}

static void test_remote_any_each_destination(void **state)
{
	(void)state;
	path_mtu_stale(w, &any, DST_A);
	path_mtu_stale(w, &any, DST_B);
	path_mtu_stale(w, &any, 0);	/* no destination: nothing to read */
	assert_int_equal(wakes(), 1);
	assert_int_equal(stub_path.queries, 0);
	path_drain(&d);
	assert_int_equal(stub_path.queries, 2);
	assert_int_equal(sitd_pmtu_cache_get(&cache, DST_A), 1400);
	assert_int_equal(sitd_pmtu_cache_get(&cache, DST_B), 1400);
	assert_int_equal(w->preq_tail, w->preq_head);
}

static void test_removed_tunnel_not_read(void **state)
{
	(void)state;
	path_mtu_stale(w, &any, DST_A);
	path_mtu_stale(w, &gone, DST_B);	/* gone was in the table when it asked */
	path_drain(&d);
	assert_int_equal(stub_path.queries, 1);
	assert_int_equal(stub_path.last_dst, DST_A);
	assert_int_equal(sitd_pmtu_cache_get(&cache2, DST_B), 0);
	/* The ring is empty: nothing names it once it is freed. */
	assert_int_equal(w->preq_tail, w->preq_head);
}

static void test_full_ring_drops(void **state)
{
	(void)state;
	for (unsigned i = 0; i < PATH_REQS + 10; i++)
		path_mtu_stale(w, &any, DST_A + i);
	assert_int_equal(w->preq_head - w->preq_tail, PATH_REQS);
	path_drain(&d);
	assert_int_equal(stub_path.queries, PATH_REQS);
	assert_int_equal(stub_path.last_dst, DST_A + PATH_REQS - 1);
	/* Room again. */
	path_mtu_stale(w, &any, DST_B);
	path_drain(&d);
	assert_int_equal(stub_path.queries, PATH_REQS + 1);
}

static void test_one_read_per_destination_a_second(void **state)
{
	(void)state;
	for (int i = 0; i < 10; i++) {
		path_mtu_stale(w, &any, DST_A);
		path_drain(&d);
	}
	assert_int_equal(stub_path.queries, 1);	/* however many errors name it */
	stub_path.now += 500000000ull;
	path_mtu_stale(w, &any, DST_A);
	path_drain(&d);
	assert_int_equal(stub_path.queries, 1);
	path_mtu_stale(w, &any, DST_B);		/* another destination: read */
	path_drain(&d);
	assert_int_equal(stub_path.queries, 2);
	stub_path.now += 600000000ull;		/* a second since DST_A's read */
	path_mtu_stale(w, &any, DST_A);
	path_drain(&d);
	assert_int_equal(stub_path.queries, 3);
}

/* 2000 forged errors, each for a new destination, in one instant. */
static void test_forged_errors_bounded(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < 2000; i++) {
		path_mtu_stale(w, &any, 0xcb007100u + i);
		if (i % PATH_REQS == PATH_REQS - 1)
			path_drain(&d);
	}
	path_drain(&d);
	assert_int_equal(stub_path.queries, PATH_LOOKUPS_PER_SEC);
	assert_true(stub_path.logs <= PATH_LOG_BURST);
	/* A second later: reads again, and one line says how many were left out. */
	stub_path.now += 1000000000ull;
	stub_path.logs = 0;
	stub_path.mtu = 1300;
	path_mtu_stale(w, &any, DST_A);
	path_drain(&d);
	assert_int_equal(stub_path.queries, PATH_LOOKUPS_PER_SEC + 1);
	assert_int_equal(stub_path.logs, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fixed_remote_read_once_on_the_control_thread,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_underlay_read_and_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remote_any_each_destination, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_tunnel_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_ring_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_read_per_destination_a_second, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forged_errors_bounded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
