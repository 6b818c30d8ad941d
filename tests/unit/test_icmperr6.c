/* SPDX-License-Identifier: MIT */
/*
 * ICMPv6 errors about an IPv6-outer tunnel's own packets (sitd_icmp6_err), as the
 * kernel's ip6_tnl_err with ip6ip6_err / ip4ip6_err judge them: whose packet the quote
 * is (addresses, the header chain's last next header, the mode), each type and code,
 * Packet Too Big's path MTU and the floors, the Encapsulation Limit pointer, and the
 * relayed error checked byte by byte against pktgen.h's reference checksum.
 * Quotes are copied into buffers of exactly their length (ASan under unit-asan).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/icmperr.h"
#include "pktgen.h"

static const uint8_t LOCAL6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 1 };
static const uint8_t REMOTE6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 2 };
static const uint8_t HOST6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xaa, [15] = 1 };
#define DEV4 0xc0000263u	/* 192.0.2.99: the tunnel device's IPv4 address */

static struct sitd_conf conf;
static uint8_t buf[4096], out[2000];
static size_t inner_len;

static void cfg(enum sitd_mode mode)
{
	memset(&conf, 0, sizeof(conf));
	conf.outer = SITD_OUTER_IPV6;
	conf.mode = mode;
	memcpy(conf.remote6, REMOTE6, 16);
	memcpy(conf.local6, LOCAL6, 16);
	conf.encap_limit = 4;
}

/*
 * buf = our outer packet: IPv6 from local to remote, an 8-byte Destination Options
 * header with the Encapsulation Limit `limit` (RFC 2473 4.1.1: type 4, length 1, then
 * PadN), then an inner IPv6 or IPv4 UDP packet of ilen bytes.  Returns the length.
 */
static size_t mk_quote(unsigned version, size_t ilen, int limit)
{
	size_t hl = 40 + (limit >= 0 ? 8 : 0);
	size_t n = pg_udp_packet(buf + hl, version, (uint32_t)(ilen - (version == 4 ? 28 : 48)), 7, false);

	inner_len = n;
	pg_ip6(buf, 0, 0, (uint16_t)(hl - 40 + n), limit >= 0 ? PG_PROTO_DSTOPTS : (version == 6 ? 41 : 4),
	       64, LOCAL6, REMOTE6);
	if (limit >= 0)
		pg_ip6_enc_lim(buf + 40, version == 6 ? 41 : 4, (uint8_t)limit);
	return hl + n;
}

static enum sitd_err_action judge(uint8_t type, uint8_t code, uint32_t info, size_t len, size_t *n,
				  uint32_t *pmtu, uint32_t tnl_mtu)
{
	struct sitd_err6 e = { .type = type, .code = code, .info = info, .len = len,
			       .src4 = DEV4, .tnl_mtu = tnl_mtu };
	uint8_t *q = malloc(len ? len : 1);
	enum sitd_err_action a;

	assert_non_null(q);
	memcpy(q, buf, len);
	e.quoted = q;
	a = sitd_icmp6_err(&conf, &e, out, sizeof(out), n, pmtu);
	free(q);
	return a;
}

/* The relay in `out`: an ICMPv6 error from `src` to the inner sender, quoting it. */
static void check_v6(size_t n, uint8_t type, uint8_t code, uint32_t info, const uint8_t *src,
		     const uint8_t *inner, size_t quote)
{
	assert_int_equal(n, 48 + quote);
	assert_int_equal(out[0] >> 4, 6);
	assert_int_equal(pg_get16(out + 4), 8 + quote);
	assert_int_equal(out[6], PG_PROTO_ICMPV6);
	assert_memory_equal(out + 8, src, 16);
	assert_memory_equal(out + 24, PG_IN6_SRC, 16);
	assert_int_equal(out[40], type);
	assert_int_equal(out[41], code);
	assert_int_equal(pg_get32(out + 44), info);
	assert_memory_equal(out + 48, inner, quote);
	assert_int_equal(pg_fold(pg_sum(out + 40, n - 40, pg_pseudo6(out + 8, out + 24, 58, (uint32_t)(n - 40)))),
			 0xffff);
}

static void check_v4(size_t n, uint8_t type, uint8_t code, uint32_t info, const uint8_t *inner,
		     size_t quote)
{
	assert_int_equal(n, 28 + quote);
	assert_int_equal(out[0], 0x45);
	assert_int_equal(out[9], PG_PROTO_ICMP);
	assert_int_equal(pg_get32(out + 12), DEV4);
	assert_int_equal(pg_get32(out + 16), PG_IN4_SRC);
	assert_true(pg_ip4_csum_ok(out));
	assert_int_equal(out[20], type);
	assert_int_equal(out[21], code);
	assert_int_equal(pg_get32(out + 24), info);
	assert_memory_equal(out + 28, inner, quote);
	assert_int_equal(pg_fold(pg_sum(out + 20, n - 20, 0)), 0xffff);
}

/* Destination unreachable of every code, and hop limit exceeded: address unreachable. */
static void unreach_ip6ip6(void **state)
{
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_SIT);
	len = mk_quote(6, 200, 4);
	for (uint8_t code = 0; code < 8; code++) {
		assert_int_equal(judge(1, code, 0, len, &n, &pmtu, 0), ERR_RELAY);
		/* No device address known: from the inner destination. */
		check_v6(n, 1, 3, 0, PG_IN6_DST, buf + 48, inner_len);
	}
	assert_int_equal(judge(3, 0, 0, len, &n, &pmtu, 0), ERR_RELAY);
	check_v6(n, 1, 3, 0, PG_IN6_DST, buf + 48, inner_len);
	assert_int_equal(judge(3, 1, 0, len, &n, &pmtu, 0), ERR_IGNORE);	/* reassembly */
	assert_int_equal(n, 0);
	assert_int_equal(judge(137, 0, 0, len, &n, &pmtu, 0), ERR_IGNORE);	/* redirect */
	assert_int_equal(judge(128, 0, 0, len, &n, &pmtu, 0), ERR_IGNORE);
}

/* The source is sitd_icmp6_pick_src's: the device's global address for a global sender. */
static void relay_source(void **state)
{
	struct sitd_addrs6 dev = { .has_global = true };
	struct sitd_err6 e = { .type = 1, .code = 0 };
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_ANY);
	memcpy(dev.global, HOST6, 16);
	len = mk_quote(6, 120, -1);
	e.quoted = buf;
	e.len = len;
	e.dev6 = &dev;
	assert_int_equal(sitd_icmp6_err(&conf, &e, out, sizeof(out), &n, &pmtu), ERR_RELAY);
	check_v6(n, 1, 3, 0, HOST6, buf + 40, inner_len);
}

/*
 * A sender on this host (the inner source one of the host's addresses): the error comes
 * from that very address, as icmp6_send's source selection ranks it first (RFC 6724
 * rule 1), even when another address of the same prefix comes first in the list; any
 * other sender in the prefix gets the longest prefix's (rule 8), the first of equals.
 */
static void relay_source_local(void **state)
{
	static struct sitd_host6 host;
	struct sitd_addrs6 dev = { .has_global = true };
	struct sitd_err6 e = { .type = 1, .code = 0 };
	uint8_t nine[16], three[16];
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_ANY);
	memcpy(dev.global, HOST6, 16);
	memcpy(nine, PG_IN6_SRC, 16);
	nine[15] = 9;
	memcpy(three, PG_IN6_SRC, 16);
	three[15] = 3;
	memset(&host, 0, sizeof(host));
	host.n = 2;
	memcpy(host.a[0].addr, nine, 16);
	host.a[0].plen = 64;
	memcpy(host.a[1].addr, PG_IN6_SRC, 16);
	host.a[1].plen = 64;
	len = mk_quote(6, 120, -1);
	e.quoted = buf;
	e.len = len;
	e.dev6 = &dev;
	e.host6 = &host;
	assert_int_equal(sitd_icmp6_err(&conf, &e, out, sizeof(out), &n, &pmtu), ERR_RELAY);
	check_v6(n, 1, 3, 0, PG_IN6_SRC, buf + 40, inner_len);
	/* The sender not the host's own: the prefix's first address. */
	host.a[1].addr[15] = 5;
	assert_int_equal(sitd_icmp6_err(&conf, &e, out, sizeof(out), &n, &pmtu), ERR_RELAY);
	check_v6(n, 1, 3, 0, nine, buf + 40, inner_len);
	/* A longer prefix holding the sender wins (rule 8). */
	memcpy(host.a[1].addr, three, 16);
	host.a[1].plen = 126;
	assert_int_equal(sitd_icmp6_err(&conf, &e, out, sizeof(out), &n, &pmtu), ERR_RELAY);
	check_v6(n, 1, 3, 0, three, buf + 40, inner_len);
}

static void unreach_ipip6(void **state)
{
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_IPIP);
	len = mk_quote(4, 100, 4);
	assert_int_equal(judge(1, 4, 0, len, &n, &pmtu, 0), ERR_RELAY);
	check_v4(n, 3, 1, 0, buf + 48, inner_len);
	assert_int_equal(judge(3, 0, 0, len, &n, &pmtu, 0), ERR_RELAY);
	check_v4(n, 3, 1, 0, buf + 48, inner_len);
	/* Only the inner IPv4 header quoted: still relayed (ip4ip6_err pulls 20 bytes). */
	assert_int_equal(judge(1, 0, 0, 48 + 20 + 8 - 8 + 8, &n, &pmtu, 0), ERR_RELAY);
	/* An inner header cut short: nothing to relay, and no damper. */
	assert_int_equal(judge(1, 0, 0, 48 + 12, &n, &pmtu, 0), ERR_IGNORE);
}

/* Parameter problem: relayed only when it points at a limit of 0 (the value byte). */
static void param_problem(void **state)
{
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_SIT);
	len = mk_quote(6, 120, 0);
	assert_int_equal(judge(4, 0, 44, len, &n, &pmtu, 0), ERR_RELAY);	/* 40 + 2 + 2 */
	check_v6(n, 1, 3, 0, PG_IN6_DST, buf + 48, inner_len);
	assert_int_equal(judge(4, 0, 42, len, &n, &pmtu, 0), ERR_IGNORE);	/* the type byte */
	assert_int_equal(judge(4, 1, 44, len, &n, &pmtu, 0), ERR_IGNORE);	/* code 1 */
	assert_int_equal(judge(4, 0, 0, len, &n, &pmtu, 0), ERR_IGNORE);	/* wraps: no match */
	len = mk_quote(6, 120, 3);						/* limit not 0 */
	assert_int_equal(judge(4, 0, 44, len, &n, &pmtu, 0), ERR_IGNORE);
	len = mk_quote(6, 120, -1);						/* no option */
	assert_int_equal(judge(4, 0, 44, len, &n, &pmtu, 0), ERR_IGNORE);
}

/* Packet too big: the path MTU (at least 1280), and a relay when the packet exceeds it. */
static void too_big(void **state)
{
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_SIT);
	len = mk_quote(6, 1400, 4);	/* outer 1448 */
	assert_int_equal(judge(2, 0, 1400, len, &n, &pmtu, 0), ERR_PMTU);
	assert_int_equal(pmtu, 1400);
	/* ip6_tnl_err: mtu = info - 48, below 1280 raised: 1352 < 1448, relayed. */
	check_v6(n, 2, 0, 1352, PG_IN6_DST, buf + 48, 1232);	/* 1280 in all */
	assert_int_equal(judge(2, 0, 1000, len, &n, &pmtu, 0), ERR_PMTU);
	assert_int_equal(pmtu, 1280);
	check_v6(n, 2, 0, 1280, PG_IN6_DST, buf + 48, 1232);
	assert_int_equal(judge(2, 0, 1500, len, &n, &pmtu, 0), ERR_PMTU);	/* 1452 >= 1448 */
	assert_int_equal(pmtu, 1500);
	assert_int_equal(n, 0);
	assert_int_equal(judge(2, 0, 20, len, &n, &pmtu, 0), ERR_PMTU);		/* u32 wraps */
	assert_int_equal(pmtu, 1280);
	assert_int_equal(n, 0);

	cfg(SITD_MODE_IPIP);
	len = mk_quote(4, 1400, -1);	/* outer 1440 */
	assert_int_equal(judge(2, 0, 1380, len, &n, &pmtu, 0), ERR_PMTU);
	check_v4(n, 3, 4, 1340, buf + 40, 548);		/* fragmentation needed, 576 in all */
	/* ip4ip6_err: not above the route's MTU (the tunnel's). */
	assert_int_equal(judge(2, 0, 1380, len, &n, &pmtu, 1300), ERR_PMTU);
	assert_int_equal(n, 0);
	assert_int_equal(judge(2, 0, 1380, len, &n, &pmtu, 1400), ERR_PMTU);
	assert_int_not_equal(n, 0);
}

static void not_ours(void **state)
{
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_SIT);
	len = mk_quote(6, 120, 4);
	assert_int_equal(judge(1, 0, 0, 47, &n, &pmtu, 0), ERR_NOT_OURS);	/* chain cut */
	assert_int_equal(judge(1, 0, 0, 48 + 7, &n, &pmtu, 0), ERR_NOT_OURS);	/* 8 bytes after */
	assert_int_equal(judge(1, 0, 0, 39, &n, &pmtu, 0), ERR_NOT_OURS);
	buf[24 + 15] = 9;						/* to another remote */
	assert_int_equal(judge(1, 0, 0, len, &n, &pmtu, 0), ERR_NOT_OURS);
	len = mk_quote(6, 120, 4);
	buf[8 + 15] = 9;						/* from another local */
	assert_int_equal(judge(1, 0, 0, len, &n, &pmtu, 0), ERR_NOT_OURS);
	memset(conf.local6, 0, 16);					/* local any: ours */
	assert_int_equal(judge(1, 0, 0, len, &n, &pmtu, 0), ERR_RELAY);
	cfg(SITD_MODE_IPIP);						/* ipip6: 41 is not */
	len = mk_quote(6, 120, 4);
	assert_int_equal(judge(1, 0, 0, len, &n, &pmtu, 0), ERR_NOT_OURS);
	buf[0] = 0x45;							/* not IPv6 */
	cfg(SITD_MODE_ANY);
	assert_int_equal(judge(1, 0, 0, len, &n, &pmtu, 0), ERR_NOT_OURS);
	len = mk_quote(6, 120, 4);
	buf[40] = 17;							/* chain ends in UDP */
	assert_int_equal(judge(1, 0, 0, len, &n, &pmtu, 0), ERR_NOT_OURS);
}

/* ICMPv6's own rules (RFC 4443 2.4(e)): an inner multicast destination is declined. */
static void declined(void **state)
{
	size_t n, len;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_SIT);
	len = mk_quote(6, 120, 4);
	buf[48 + 24] = 0xff;
	assert_int_equal(judge(1, 0, 0, len, &n, &pmtu, 0), ERR_DECLINED);
	assert_int_equal(n, 0);
	/* A relay never exceeds its buffer. */
	{
		struct sitd_err6 e = { .type = 1, .quoted = buf, .len = len };

		len = mk_quote(6, 120, 4);
		e.len = len;
		assert_int_equal(sitd_icmp6_err(&conf, &e, out, 100, &n, &pmtu), ERR_DECLINED);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unreach_ip6ip6), cmocka_unit_test(relay_source),
		cmocka_unit_test(relay_source_local),
		cmocka_unit_test(unreach_ipip6),  cmocka_unit_test(param_problem),
		cmocka_unit_test(too_big),	  cmocka_unit_test(not_ours),
		cmocka_unit_test(declined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
