/* SPDX-License-Identifier: MIT */
/*
 * core/keepalive: the echo requests (checked field by field and with pktgen.h's
 * reference checksum), which replies are taken, and the liveness decision's timing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/keepalive.h"
#include "pktgen.h"

static const uint8_t src4[4] = { 198, 51, 100, 1 }, peer4[4] = { 198, 51, 100, 2 };
static uint8_t buf[128];

#define S(n) ((uint64_t)(n) * 1000000000u)

static void test_echo6(void **state)
{
	size_t n = sitd_ka_echo(buf, sizeof(buf), 6, PG_IN6_SRC, PG_IN6_DST, 0x1234, 7);

	(void)state;
	assert_int_equal(n, 40 + 8 + 8);
	assert_int_equal(buf[0] >> 4, 6);
	assert_int_equal(pg_get16(buf + 4), 16);
	assert_int_equal(buf[6], PG_PROTO_ICMPV6);
	assert_int_equal(buf[7], 64);
	assert_memory_equal(buf + 8, PG_IN6_SRC, 16);
	assert_memory_equal(buf + 24, PG_IN6_DST, 16);
	assert_int_equal(buf[40], 128);
	assert_int_equal(buf[41], 0);
	assert_int_equal(pg_get16(buf + 44), 0x1234);
	assert_int_equal(pg_get16(buf + 46), 7);
	assert_true(pg_l4_csum_ok(buf, 40, PG_PROTO_ICMPV6));
	assert_int_equal(sitd_ka_echo(buf, n - 1, 6, PG_IN6_SRC, PG_IN6_DST, 1, 1), 0);
}

static void test_echo4(void **state)
{
	size_t n = sitd_ka_echo(buf, sizeof(buf), 4, src4, peer4, 0xbeef, 9);

	(void)state;
	assert_int_equal(n, 20 + 8 + 8);
	assert_int_equal(buf[0], 0x45);
	assert_int_equal(pg_get16(buf + 2), n);
	assert_int_equal(buf[9], PG_PROTO_ICMP);
	assert_true(pg_ip4_csum_ok(buf));
	assert_true(pg_l4_csum_ok(buf, 20, PG_PROTO_ICMP));
	assert_int_equal(buf[20], 8);
	assert_int_equal(pg_get16(buf + 24), 0xbeef);
	assert_int_equal(pg_get16(buf + 26), 9);
}

/* The peer's answer to a request: addresses swapped, type 0 / 129, checksum mended. */
static size_t reply(unsigned family, uint16_t id, uint16_t seq)
{
	size_t n;

	if (family == 6) {
		n = sitd_ka_echo(buf, sizeof(buf), 6, PG_IN6_DST, PG_IN6_SRC, id, seq);
		buf[40] = 129;
		pg_put16(buf + 42, 0);
		pg_put16(buf + 42, (uint16_t)~pg_fold(pg_sum(buf + 40, n - 40,
							    pg_pseudo6(buf + 8, buf + 24, PG_PROTO_ICMPV6,
								       (uint32_t)(n - 40)))));
	} else {
		n = sitd_ka_echo(buf, sizeof(buf), 4, peer4, src4, id, seq);
		buf[20] = 0;
		pg_put16(buf + 22, 0);
		pg_put16(buf + 22, pg_csum(buf + 20, n - 20));
	}
	return n;
}

static void test_reply(void **state)
{
	size_t n;

	(void)state;
	n = reply(6, 0x1234, 10);
	assert_true(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1234, 10, 4));
	assert_true(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1234, 14, 4));
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1234, 15, 4));	/* too old */
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1234, 9, 4));	/* not sent yet */
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1235, 10, 4));	/* another id */
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_SRC, 0x1234, 10, 4));	/* another peer */
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 4, peer4, 0x1234, 10, 4));	/* family */
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n - 1, 6, PG_IN6_DST, 0x1234, 10, 4));	/* cut */
	buf[n - 1] ^= 1;
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1234, 10, 4));	/* checksum */
	/* Sequence numbers wrap. */
	n = reply(6, 0x1234, 0xffff);
	assert_true(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1234, 1, 4));
	/* A request is not a reply. */
	n = sitd_ka_echo(buf, sizeof(buf), 6, PG_IN6_DST, PG_IN6_SRC, 0x1234, 10);
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 6, PG_IN6_DST, 0x1234, 10, 4));
	n = reply(4, 0xbeef, 3);
	assert_true(sitd_ka_is_reply(buf, (uint32_t)n, 4, peer4, 0xbeef, 3, 4));
	buf[n - 2] ^= 0x80;
	assert_false(sitd_ka_is_reply(buf, (uint32_t)n, 4, peer4, 0xbeef, 3, 4));
}

static void test_liveness(void **state)
{
	struct sitd_ka_state s;

	(void)state;
	sitd_ka_init(&s, 10, 3, S(100));
	assert_true(s.up);
	assert_int_equal(sitd_ka_update(&s, S(129), false), 0);	/* 29 s: not yet 3 intervals */
	assert_int_equal(sitd_ka_update(&s, S(130), false), -1);	/* 30 s of nothing */
	assert_false(s.up);
	assert_int_equal(sitd_ka_update(&s, S(200), false), 0);	/* down stays down */
	assert_int_equal(sitd_ka_update(&s, S(201), true), 1);	/* the first packet */
	assert_true(s.up);
	assert_int_equal(sitd_ka_update(&s, S(202), true), 0);
	assert_int_equal(sitd_ka_update(&s, S(231), false), 0);
	assert_int_equal(sitd_ka_update(&s, S(232), false), -1);
	assert_int_equal(s.transitions, 3);
	assert_int_equal(s.last_heard_ns, S(202));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo6),
		cmocka_unit_test(test_echo4),
		cmocka_unit_test(test_reply),
		cmocka_unit_test(test_liveness),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
