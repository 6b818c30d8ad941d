/* SPDX-License-Identifier: MIT */
/*
 * ICMP error builders: sitd_icmp6_error (RFC 4443) and sitd_icmp4_error (RFC 792,
 * RFC 1812 4.3.2).  Lengths and quoting limits, addresses, checksums (verified with the
 * reference in pktgen.h), and every rule that forbids an error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/icmp.h"
#include "pktgen.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint8_t pkt[10000], out[2000];

static const uint8_t router6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99 };
#define ROUTER4 0xc633640au	/* 198.51.100.10 */

/* An IPv6 packet of len bytes: UDP-like payload of pattern bytes. */
static size_t v6pkt(size_t len, uint8_t nxt)
{
	pg_ip6(pkt, 0x20, 0xbeef, (uint16_t)(len - 40), nxt, 64, PG_IN6_SRC, PG_IN6_DST);
	pg_pattern(pkt + 40, len - 40, 0x5a);
	return len;
}

/* An IPv4 packet of len bytes with DF. */
static size_t v4pkt(size_t len, uint8_t proto, uint16_t frag, uint32_t src, uint32_t dst)
{
	pg_pattern(pkt + 20, len - 20, 0xa5);
	pg_ip4(pkt, 0, (uint16_t)len, 0x77, frag, 64, proto, src, dst, 0);
	return len;
}

/* out[0..n) must be an ICMPv6 error about pkt (len bytes): RFC 4443 2.1, 2.4(c), 2.3. */
static void check6(size_t n, size_t len, uint8_t type, uint8_t code, uint32_t info, const uint8_t *src)
{
	size_t quote = len < 1280 - 48 ? len : 1280 - 48;

	assert_int_equal(n, 48 + quote);
	assert_int_equal(out[0], 0x60);				/* version 6, class 0 */
	assert_int_equal(pg_get16(out + 4), 8 + quote);
	assert_int_equal(out[6], PG_PROTO_ICMPV6);
	assert_true(out[7] > 0);
	assert_memory_equal(out + 8, src ? src : pkt + 24, 16);
	assert_memory_equal(out + 24, pkt + 8, 16);
	assert_int_equal(out[40], type);
	assert_int_equal(out[41], code);
	assert_int_equal(pg_get32(out + 44), info);
	assert_memory_equal(out + 48, pkt, quote);
	assert_true(pg_l4_csum_ok(out, 40, PG_PROTO_ICMPV6));
}

/* out[0..n) must be an ICMPv4 error about pkt: RFC 792, RFC 1812 4.3.2.3 (576 bytes). */
static void check4(size_t n, size_t len, uint8_t type, uint8_t code, uint32_t info, uint32_t src)
{
	size_t quote = len < 576 - 28 ? len : 576 - 28;

	assert_int_equal(n, 28 + quote);
	assert_int_equal(out[0], 0x45);
	assert_int_equal(pg_get16(out + 2), 28 + quote);
	assert_int_equal(pg_get16(out + 6) & 0x3fff, 0);	/* not a fragment */
	assert_true(out[8] > 0);
	assert_int_equal(out[9], PG_PROTO_ICMP);
	assert_true(pg_ip4_csum_ok(out));
	assert_int_equal(pg_get32(out + 12), src ? src : pg_get32(pkt + 16));
	assert_int_equal(pg_get32(out + 16), pg_get32(pkt + 12));
	assert_int_equal(out[20], type);
	assert_int_equal(out[21], code);
	assert_int_equal(pg_get32(out + 24), info);
	assert_memory_equal(out + 28, pkt, quote);
	assert_true(pg_l4_csum_ok(out, 20, PG_PROTO_ICMP));
}

/* RFC 4443 2.4(c): as much of the packet as fits in 1280 bytes. */
static void test_icmp6_lengths(void **state)
{
	static const size_t lens[] = { 41, 48, 100, 1231, 1232, 1233, 1280, 1500, 9000 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		size_t len = v6pkt(lens[i], PG_PROTO_UDP);
		size_t n = sitd_icmp6_error(out, sizeof(out), 2, 0, 1480, NULL, pkt, len);

		check6(n, len, 2, 0, 1480, NULL);
	}
}

/* Types, codes and the info word land where RFC 4443 3.1-3.3 put them; a given source. */
static void test_icmp6_fields(void **state)
{
	size_t len = v6pkt(300, PG_PROTO_UDP);

	(void)state;
	check6(sitd_icmp6_error(out, sizeof(out), 1, 4, 0, NULL, pkt, len), len, 1, 4, 0, NULL);
	check6(sitd_icmp6_error(out, sizeof(out), 3, 0, 0, NULL, pkt, len), len, 3, 0, 0, NULL);
	check6(sitd_icmp6_error(out, sizeof(out), 2, 0, 0x12345678, router6, pkt, len), len, 2, 0,
	       0x12345678, router6);
	/* Bytes after the declared length are not quoted. */
	memset(pkt + len, 0xee, 100);
	check6(sitd_icmp6_error(out, sizeof(out), 2, 0, 1280, NULL, pkt, len + 100), len, 2, 0, 1280,
	       NULL);
}

/* cap too small for the error: 0, whatever the packet (icmp.h). */
static void test_icmp6_cap(void **state)
{
	size_t len = v6pkt(1500, PG_PROTO_UDP);

	(void)state;
	assert_int_equal(sitd_icmp6_error(out, 1279, 2, 0, 1280, NULL, pkt, len), 0);
	assert_int_equal(sitd_icmp6_error(out, 1280, 2, 0, 1280, NULL, pkt, len), 1280);
	len = v6pkt(100, PG_PROTO_UDP);
	assert_int_equal(sitd_icmp6_error(out, 147, 2, 0, 1280, NULL, pkt, len), 0);
	assert_int_equal(sitd_icmp6_error(out, 148, 2, 0, 1280, NULL, pkt, len), 148);
	assert_int_equal(sitd_icmp6_error(out, 0, 2, 0, 1280, NULL, pkt, len), 0);
}

/* Not an IPv6 packet, or a truncated one: no error. */
static void test_icmp6_malformed(void **state)
{
	size_t len = v6pkt(200, PG_PROTO_UDP);

	(void)state;
	assert_int_equal(sitd_icmp6_error(out, sizeof(out), 2, 0, 1280, NULL, pkt, 199), 0);
	assert_int_equal(sitd_icmp6_error(out, sizeof(out), 2, 0, 1280, NULL, pkt, 39), 0);
	len = v4pkt(200, PG_PROTO_UDP, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST);
	assert_int_equal(sitd_icmp6_error(out, sizeof(out), 2, 0, 1280, NULL, pkt, len), 0);
}

/* RFC 4443 2.4(e): when an ICMPv6 error must not be sent. */
struct decline6_case {
	const char *name;
	uint8_t nxt;		/* upper layer: UDP or ICMPv6 */
	uint8_t l4type;		/* ICMPv6 type when nxt is ICMPv6 */
	bool ext;		/* behind a Destination Options header */
	uint8_t src0;		/* first source byte: 0x20 unicast, 0xff multicast, 0 unspecified */
	uint8_t dst0;		/* first destination byte: 0x20 or 0xff */
	bool given_src;		/* the error's source passed in */
	uint8_t type;
	bool sent;
};

static struct decline6_case decline6_cases[] = {
	/* name, nxt, l4type, ext, src0, dst0, given_src, type -> sent */
	{ "icmp6: about UDP from a unicast source: sent",
	  PG_PROTO_UDP, 0, false, 0x20, 0x20, false, 2, true },
	{ "icmp6 2.4(e.1): about Destination Unreachable: none",
	  PG_PROTO_ICMPV6, 1, false, 0x20, 0x20, false, 2, false },
	{ "icmp6 2.4(e.1): about Packet Too Big: none",
	  PG_PROTO_ICMPV6, 2, false, 0x20, 0x20, false, 2, false },
	{ "icmp6 2.4(e.1): about Time Exceeded: none",
	  PG_PROTO_ICMPV6, 3, false, 0x20, 0x20, false, 1, false },
	{ "icmp6 2.4(e.1): about Parameter Problem: none",
	  PG_PROTO_ICMPV6, 4, false, 0x20, 0x20, false, 2, false },
	{ "icmp6 2.4(e.1): about an error behind an extension header: none",
	  PG_PROTO_ICMPV6, 1, true, 0x20, 0x20, false, 2, false },
	{ "icmp6 2.4(e.2): about a Redirect (137): none",
	  PG_PROTO_ICMPV6, 137, false, 0x20, 0x20, false, 2, false },
	{ "icmp6: about an Echo Request (informational): sent",
	  PG_PROTO_ICMPV6, 128, false, 0x20, 0x20, false, 2, true },
	{ "icmp6: about UDP behind an extension header: sent",
	  PG_PROTO_UDP, 0, true, 0x20, 0x20, false, 2, true },
	{ "icmp6 2.4(e.6): multicast source: none", PG_PROTO_UDP, 0, false, 0xff, 0x20, false, 2, false },
	{ "icmp6 2.4(e.6): multicast source, source given: none",
	  PG_PROTO_UDP, 0, false, 0xff, 0x20, true, 2, false },
	{ "icmp6 2.4(e.6): unspecified source: none", PG_PROTO_UDP, 0, false, 0x00, 0x20, false, 2, false },
	{ "icmp6 2.4(e.3): multicast destination, no source given: none",
	  PG_PROTO_UDP, 0, false, 0x20, 0xff, false, 2, false },
	{ "icmp6 2.4(e.3): multicast destination, Destination Unreachable: none",
	  PG_PROTO_UDP, 0, false, 0x20, 0xff, true, 1, false },
	{ "icmp6 2.4(e.3) exception (a): multicast destination, Packet Too Big: sent",
	  PG_PROTO_UDP, 0, false, 0x20, 0xff, true, 2, true },
};

static void test_icmp6_decline(void **state)
{
	const struct decline6_case *c = *state;
	size_t len = v6pkt(600, c->ext ? PG_PROTO_DSTOPTS : c->nxt);
	unsigned l4 = c->ext ? 48 : 40;
	size_t n;

	if (c->ext)
		pg_ip6_dstopts(pkt + 40, c->nxt, 8);
	if (c->nxt == PG_PROTO_ICMPV6) {
		pkt[l4] = c->l4type;
		pkt[l4 + 1] = 0;
	}
	if (c->src0)
		pkt[8] = c->src0;
	else
		memset(pkt + 8, 0, 16);
	pkt[24] = c->dst0;
	n = sitd_icmp6_error(out, sizeof(out), c->type, 0, 1280, c->given_src ? router6 : NULL, pkt, len);
	if (c->sent)
		check6(n, len, c->type, 0, 1280, c->given_src ? router6 : NULL);
	else
		assert_int_equal(n, 0);
}

/* RFC 1812 4.3.2.3: as much as fits in 576 bytes. */
static void test_icmp4_lengths(void **state)
{
	static const size_t lens[] = { 20, 28, 100, 547, 548, 549, 576, 1500, 9000 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		size_t len = v4pkt(lens[i], PG_PROTO_UDP, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST);
		size_t n = sitd_icmp4_error(out, sizeof(out), 3, 4, 1480, 0, pkt, len);

		check4(n, len, 3, 4, 1480, 0);
	}
}

/* RFC 1191 4: Fragmentation Needed carries the next-hop MTU in the low 16 bits. */
static void test_icmp4_fields(void **state)
{
	size_t len = v4pkt(300, PG_PROTO_TCP, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST);
	size_t n = sitd_icmp4_error(out, sizeof(out), 3, 4, 1480, 0, pkt, len);

	(void)state;
	check4(n, len, 3, 4, 1480, 0);
	assert_int_equal(pg_get16(out + 24), 0);
	assert_int_equal(pg_get16(out + 26), 1480);
	check4(sitd_icmp4_error(out, sizeof(out), 11, 0, 0, ROUTER4, pkt, len), len, 11, 0, 0, ROUTER4);
	/* IPv4 options are part of what is quoted. */
	pg_pattern(pkt + 28, 272, 3);
	pg_ip4(pkt, 0, 300, 1, PG_IP4_DF, 64, PG_PROTO_UDP, PG_IN4_SRC, PG_IN4_DST, 8);
	check4(sitd_icmp4_error(out, sizeof(out), 3, 4, 576, 0, pkt, 300), 300, 3, 4, 576, 0);
}

static void test_icmp4_cap(void **state)
{
	size_t len = v4pkt(1500, PG_PROTO_UDP, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST);

	(void)state;
	assert_int_equal(sitd_icmp4_error(out, 575, 3, 4, 1480, 0, pkt, len), 0);
	assert_int_equal(sitd_icmp4_error(out, 576, 3, 4, 1480, 0, pkt, len), 576);
	len = v4pkt(100, PG_PROTO_UDP, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST);
	assert_int_equal(sitd_icmp4_error(out, 127, 3, 4, 1480, 0, pkt, len), 0);
	assert_int_equal(sitd_icmp4_error(out, 128, 3, 4, 1480, 0, pkt, len), 128);
}

static void test_icmp4_malformed(void **state)
{
	size_t len = v4pkt(200, PG_PROTO_UDP, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST);

	(void)state;
	assert_int_equal(sitd_icmp4_error(out, sizeof(out), 3, 4, 1480, 0, pkt, 199), 0);
	assert_int_equal(sitd_icmp4_error(out, sizeof(out), 3, 4, 1480, 0, pkt, 19), 0);
	pkt[0] = 0x44;		/* IHL 4 */
	assert_int_equal(sitd_icmp4_error(out, sizeof(out), 3, 4, 1480, 0, pkt, len), 0);
	len = v6pkt(200, PG_PROTO_UDP);
	assert_int_equal(sitd_icmp4_error(out, sizeof(out), 3, 4, 1480, 0, pkt, len), 0);
}

/* RFC 1812 4.3.2.7: when an ICMP error must not be sent. */
struct decline4_case {
	const char *name;
	uint8_t proto, l4type;
	uint16_t frag;
	uint32_t src, dst;
	bool sent;
};

static struct decline4_case decline4_cases[] = {
	/* name, proto, l4type, frag, src, dst -> sent */
	{ "icmp4: about UDP from a unicast host: sent",
	  PG_PROTO_UDP, 0, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, true },
	{ "icmp4 4.3.2.7: about Destination Unreachable: none",
	  PG_PROTO_ICMP, 3, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: about Source Quench: none",
	  PG_PROTO_ICMP, 4, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: about Redirect: none", PG_PROTO_ICMP, 5, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: about Time Exceeded: none",
	  PG_PROTO_ICMP, 11, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: about Parameter Problem: none",
	  PG_PROTO_ICMP, 12, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, false },
	{ "icmp4: about an Echo Request (a query): sent",
	  PG_PROTO_ICMP, 8, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, true },
	{ "icmp4: about an Echo Reply (a query): sent",
	  PG_PROTO_ICMP, 0, PG_IP4_DF, PG_IN4_SRC, PG_IN4_DST, true },
	{ "icmp4 4.3.2.7: a later fragment (offset 185): none",
	  PG_PROTO_UDP, 0, 185, PG_IN4_SRC, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: a later, last fragment: none",
	  PG_PROTO_UDP, 0, 1 | PG_IP4_MF, PG_IN4_SRC, PG_IN4_DST, false },
	{ "icmp4: the first fragment (MF, offset 0): sent",
	  PG_PROTO_UDP, 0, PG_IP4_MF, PG_IN4_SRC, PG_IN4_DST, true },
	{ "icmp4 4.3.2.7: source 0.0.0.0: none", PG_PROTO_UDP, 0, 0, 0, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: source with network prefix zero (0.1.2.3): none",
	  PG_PROTO_UDP, 0, 0, 0x00010203, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: source 255.255.255.255: none", PG_PROTO_UDP, 0, 0, 0xffffffff, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: multicast source 224.0.0.5: none",
	  PG_PROTO_UDP, 0, 0, 0xe0000005, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: multicast source 239.255.255.255: none",
	  PG_PROTO_UDP, 0, 0, 0xefffffff, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: loopback source 127.0.0.1: none",
	  PG_PROTO_UDP, 0, 0, 0x7f000001, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: loopback source 127.255.0.1: none",
	  PG_PROTO_UDP, 0, 0, 0x7fff0001, PG_IN4_DST, false },
	{ "icmp4 4.3.2.7: multicast destination 224.0.0.1: none",
	  PG_PROTO_UDP, 0, 0, PG_IN4_SRC, 0xe0000001, false },
	{ "icmp4 4.3.2.7: broadcast destination 255.255.255.255: none",
	  PG_PROTO_UDP, 0, 0, PG_IN4_SRC, 0xffffffff, false },
	{ "icmp4: source 223.255.255.254, just below multicast: sent",
	  PG_PROTO_UDP, 0, 0, 0xdffffffe, PG_IN4_DST, true },
};

static void test_icmp4_decline(void **state)
{
	const struct decline4_case *c = *state;
	size_t len = v4pkt(600, c->proto, c->frag, c->src, c->dst);
	size_t n;

	if (c->proto == PG_PROTO_ICMP) {
		pkt[20] = c->l4type;
		pkt[21] = 0;
	}
	n = sitd_icmp4_error(out, sizeof(out), 3, 4, 1480, ROUTER4, pkt, len);
	if (c->sent)
		check4(n, len, 3, 4, 1480, ROUTER4);
	else
		assert_int_equal(n, 0);
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = &(arr)[i] }

int main(void)
{
	struct CMUnitTest tests[8 + ARRAY_SIZE(decline6_cases) + ARRAY_SIZE(decline4_cases)];
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp6_lengths);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp6_fields);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp6_cap);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp6_malformed);
	TABLE(decline6_cases, test_icmp6_decline);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp4_lengths);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp4_fields);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp4_cap);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_icmp4_malformed);
	TABLE(decline4_cases, test_icmp4_decline);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
