/* SPDX-License-Identifier: MIT */
/*
 * ICMPv4 errors about sitd's own outer packets (icmperr.h), modelled on the kernel's
 * ipip6_err / ipip_err and ip6_err_gen_icmpv6_unreach (doc/kernel.md "ICMP errors about
 * outer packets: relay and damper"):
 *  - sitd_icmp_err: whose packet the quote is, what each type and code means, the error
 *    relayed to the inner sender (checked byte by byte, checksums by the reference in
 *    pktgen.h), and when it cannot be relayed (ERR_DAMP) or must be let go (ERR_IGNORE);
 *  - the builders for a packet that is itself quoted and so may be cut short
 *    (sitd_icmp6_error_quote, sitd_icmp4_error_quote) against the plain ones;
 *  - sitd_ip_parse_quote against sitd_ip_parse;
 *  - the damper (the kernel's err_count / err_time, IPTUNNEL_ERR_TIMEO 30 s).
 *
 * Every quote handed to the core is copied into a buffer of exactly its length, so a
 * read past the bytes present is an AddressSanitizer error under `make unit-asan`.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/icmp.h"
#include "core/icmperr.h"
#include "core/inet.h"
#include "pktgen.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define ROUTER4 0xcb0071feu	/* 203.0.113.254: the router that sent the ICMP error */
#define SEC 1000000000ull

/* RFC 4443 2.4(c) and RFC 1812 4.3.2.3: the most of the offending packet quoted. */
enum { QUOTE6_MAX = 1280 - 48, QUOTE4_MAX = 576 - 28 };

static uint8_t buf[70000], out[2000];

/* A copy of buf[0..len) in a buffer of exactly len bytes (free with free()). */
static uint8_t *exact_copy(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);

	assert_non_null(q);
	memcpy(q, p, len);
	return q;
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* ---- Inner packets, as sitd sent them inside its outer packets ---- */

enum inner_kind {
	IN_UDP,			/* UDP, unicast addresses */
	IN_ICMP_ERR,		/* itself an ICMP / ICMPv6 error (Destination Unreachable) */
	IN_ICMP_ECHO,		/* ICMP / ICMPv6 Echo Request: a query */
	IN_SRC_MCAST,		/* multicast source (ff0e::1 / 224.0.0.5) */
	IN_SRC_UNSPEC,		/* IPv6 ::, IPv4 0.0.0.0 */
	IN_DST_MCAST,		/* multicast destination */
	IN_SRC_LOOPBACK,	/* IPv4 127.0.0.1 */
	IN_DST_BCAST,		/* IPv4 255.255.255.255 */
	IN_LATER_FRAG,		/* IPv4 fragment at offset 1480 */
	IN_FIRST_FRAG,		/* IPv4 MF, offset 0 */
	IN_OPTS,		/* IPv4 with 4 bytes of options (IHL 6); IPv6 with 8 bytes of DstOpts */
};

/*
 * Build an inner packet of `len` bytes (declared and written) at p.  UDP-like: a header
 * chain, then an 8-byte L4 header, then pattern bytes.  Returns the L3 header length.
 */
static unsigned inner_packet(uint8_t *p, unsigned version, enum inner_kind kind, size_t len)
{
	unsigned l3;

	if (version == 6) {
		uint8_t src[16], dst[16];
		uint8_t nxt = PG_PROTO_UDP;

		memcpy(src, PG_IN6_SRC, 16);
		memcpy(dst, PG_IN6_DST, 16);
		if (kind == IN_SRC_MCAST)
			src[0] = 0xff, src[1] = 0x0e;
		if (kind == IN_SRC_UNSPEC)
			memset(src, 0, 16);
		if (kind == IN_DST_MCAST)
			dst[0] = 0xff, dst[1] = 0x0e;
		if (kind == IN_ICMP_ERR || kind == IN_ICMP_ECHO)
			nxt = PG_PROTO_ICMPV6;
		l3 = kind == IN_OPTS ? 48 : 40;
		pg_ip6(p, 0, 0x54321, (uint16_t)(len - 40), kind == IN_OPTS ? PG_PROTO_DSTOPTS : nxt,
		       64, src, dst);
		if (kind == IN_OPTS)
			pg_ip6_dstopts(p + 40, nxt, 8);
		pg_pattern(p + l3, len - l3, 0x61);
		if (kind == IN_ICMP_ERR)
			p[l3] = 1, p[l3 + 1] = 4;		/* Destination Unreachable, port */
		if (kind == IN_ICMP_ECHO)
			p[l3] = 128, p[l3 + 1] = 0;
	} else {
		uint32_t src = PG_IN4_SRC, dst = PG_IN4_DST;
		uint16_t frag = PG_IP4_DF;
		uint8_t proto = PG_PROTO_UDP;

		if (kind == IN_SRC_MCAST)
			src = 0xe0000005;
		if (kind == IN_SRC_UNSPEC)
			src = 0;
		if (kind == IN_SRC_LOOPBACK)
			src = 0x7f000001;
		if (kind == IN_DST_MCAST)
			dst = 0xe0000001;
		if (kind == IN_DST_BCAST)
			dst = 0xffffffff;
		if (kind == IN_LATER_FRAG)
			frag = 1480 / 8;
		if (kind == IN_FIRST_FRAG)
			frag = PG_IP4_MF;
		if (kind == IN_ICMP_ERR || kind == IN_ICMP_ECHO)
			proto = PG_PROTO_ICMP;
		l3 = pg_ip4(p, 0, (uint16_t)len, 0x3456, frag, 64, proto, src, dst,
			    kind == IN_OPTS ? 4 : 0);
		pg_pattern(p + l3, len - l3, 0x41);
		if (kind == IN_ICMP_ERR)
			p[l3] = 3, p[l3 + 1] = 3;		/* Destination Unreachable, port */
		if (kind == IN_ICMP_ECHO)
			p[l3] = 8, p[l3 + 1] = 0;
	}
	return l3;
}

/*
 * The outer packet sitd sent, at buf: an IPv4 header (optlen bytes of options) from
 * PG_OUTER_LOCAL to PG_OUTER_REMOTE, then the inner packet of inner_len bytes.
 */
static unsigned outer_packet(uint8_t proto, unsigned optlen, unsigned version, enum inner_kind kind,
			     size_t inner_len)
{
	unsigned hl = 20 + optlen;

	inner_packet(buf + hl, version, kind, inner_len);
	pg_ip4(buf, 0, (uint16_t)(hl + inner_len), 0x9999, PG_IP4_DF, 64, proto, PG_OUTER_LOCAL,
	       PG_OUTER_REMOTE, optlen);
	return hl;
}

static struct sitd_conf conf_of(enum sitd_mode mode, uint32_t local, uint8_t ttl)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "tune");
	c.mode = mode;
	c.remote = PG_OUTER_REMOTE;
	c.local = local;
	c.ttl = ttl;
	c.pmtudisc = true;
	return c;
}

/* sitd_icmp_err on a copy of buf[0..len) of exactly len bytes; out_len must be set. */
static enum sitd_err_action run_err(const struct sitd_conf *c, uint8_t type, uint8_t code,
				    size_t len, size_t *out_len)
{
	uint8_t *q = exact_copy(buf, len);
	struct sitd_err e = { .type = type, .code = code, .info = 1400, .offender = ROUTER4,
			      .quoted = q, .len = len };
	enum sitd_err_action a;

	*out_len = 12345;
	memset(out, 0xcc, sizeof(out));
	a = sitd_icmp_err(c, &e, out, sizeof(out), out_len);
	free(q);
	return a;
}

/*
 * out[0..n) must be the ICMPv6 error relayed about the inner packet `inner` (declared
 * inner_len bytes, quoted present bytes): RFC 4443 2.1, 3.1 / 3.3, 2.4(c); from the
 * router's v4-mapped address (ip6_err_gen_icmpv6_unreach) to the inner source.
 */
static void check_relay6(size_t n, const uint8_t *inner, size_t inner_len, size_t present,
			 uint8_t type, uint8_t code)
{
	const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, 0xcb, 0x00, 0x71, 0xfe };
	size_t quote = min_sz(min_sz(inner_len, present), QUOTE6_MAX);

	assert_int_equal(n, 48 + quote);
	assert_int_equal(out[0], 0x60);				/* version 6, class 0 */
	assert_int_equal(out[1], 0);
	assert_int_equal(pg_get16(out + 2), 0);			/* flow label 0 */
	assert_int_equal(pg_get16(out + 4), 8 + quote);
	assert_int_equal(out[6], PG_PROTO_ICMPV6);
	assert_int_equal(out[7], 64);
	assert_memory_equal(out + 8, mapped, 16);
	assert_memory_equal(out + 24, inner + 8, 16);
	assert_int_equal(out[40], type);
	assert_int_equal(out[41], code);
	assert_int_equal(pg_get32(out + 44), 0);		/* Unused (RFC 4443 3.1, 3.3) */
	assert_memory_equal(out + 48, inner, quote);
	/* The quote is the packet as it was sent: its payload length is not rewritten. */
	assert_int_equal(pg_get16(out + 48 + 4), inner_len - 40);
	assert_true(pg_l4_csum_ok(out, 40, PG_PROTO_ICMPV6));
}

/* The same for an ICMPv4 error (RFC 792, RFC 1812 4.3.2.3) from the router. */
static void check_relay4(size_t n, const uint8_t *inner, size_t inner_len, size_t present,
			 uint8_t type, uint8_t code)
{
	size_t quote = min_sz(min_sz(inner_len, present), QUOTE4_MAX);

	assert_int_equal(n, 28 + quote);
	assert_int_equal(out[0], 0x45);
	assert_int_equal(pg_get16(out + 2), 28 + quote);
	assert_int_equal(pg_get16(out + 6) & 0x3fff, 0);	/* not a fragment */
	assert_true(out[8] > 0);
	assert_int_equal(out[9], PG_PROTO_ICMP);
	assert_true(pg_ip4_csum_ok(out));
	assert_int_equal(pg_get32(out + 12), ROUTER4);
	assert_int_equal(pg_get32(out + 16), pg_get32(inner + 12));
	assert_int_equal(out[20], type);
	assert_int_equal(out[21], code);
	assert_int_equal(pg_get32(out + 24), 0);		/* Unused (RFC 792) */
	assert_memory_equal(out + 28, inner, quote);
	assert_int_equal(pg_get16(out + 28 + 2), inner_len);
	assert_true(pg_l4_csum_ok(out, 20, PG_PROTO_ICMP));
}

/* ---- sitd_icmp_err: is it ours? ---- */

struct own_case {
	const char *name;
	enum sitd_mode mode;
	uint32_t local;		/* configured local, 0 = any */
	uint8_t vihl;		/* first byte of the quoted outer header */
	uint8_t proto;
	uint32_t src, dst;	/* of the quoted outer header */
	size_t len;		/* bytes quoted */
	enum sitd_err_action want;	/* for Fragmentation Needed */
};

#define LOC PG_OUTER_LOCAL
#define REM PG_OUTER_REMOTE
#define OTHER4 0xc6336463u	/* 198.51.100.99 */

static struct own_case own_cases[] = {
	/* name, mode, conf local, vihl, proto, src, dst, quoted -> frag needed is */
	{ "err ours: sit, 41 from local to remote: PMTU", SITD_MODE_SIT, LOC, 0x45, 41, LOC, REM, 68, ERR_PMTU },
	{ "err ours: ipip, 4 from local to remote: PMTU", SITD_MODE_IPIP, LOC, 0x45, 4, LOC, REM, 48, ERR_PMTU },
	{ "err ours: the outer header alone (20 bytes) is enough", SITD_MODE_SIT, LOC, 0x45, 41, LOC, REM,
	  20, ERR_PMTU },
	{ "err not ours: 19 bytes, shorter than an IPv4 header", SITD_MODE_SIT, LOC, 0x45, 41, LOC, REM,
	  19, ERR_NOT_OURS },
	{ "err not ours: 0 bytes quoted", SITD_MODE_SIT, LOC, 0x45, 41, LOC, REM, 0, ERR_NOT_OURS },
	{ "err not ours: version 6 in the quoted header", SITD_MODE_SIT, LOC, 0x65, 41, LOC, REM, 68,
	  ERR_NOT_OURS },
	{ "err not ours: version 5 in the quoted header", SITD_MODE_ANY, LOC, 0x55, 41, LOC, REM, 68,
	  ERR_NOT_OURS },
	{ "err not ours: IHL 4 (16 bytes)", SITD_MODE_SIT, LOC, 0x44, 41, LOC, REM, 68, ERR_NOT_OURS },
	{ "err not ours: IHL 0", SITD_MODE_SIT, LOC, 0x40, 41, LOC, REM, 68, ERR_NOT_OURS },
	{ "err not ours: IHL 15 (60 bytes) but 48 quoted", SITD_MODE_IPIP, LOC, 0x4f, 4, LOC, REM, 48,
	  ERR_NOT_OURS },
	{ "err not ours: IHL 6 (24 bytes) but 23 quoted", SITD_MODE_SIT, LOC, 0x46, 41, LOC, REM, 23,
	  ERR_NOT_OURS },
	{ "err ours: IHL 6 (24 bytes), 24 quoted", SITD_MODE_SIT, LOC, 0x46, 41, LOC, REM, 24, ERR_PMTU },
	{ "err not ours: destination not the remote", SITD_MODE_SIT, LOC, 0x45, 41, LOC, OTHER4, 68,
	  ERR_NOT_OURS },
	{ "err not ours: source and destination swapped (a packet to us)", SITD_MODE_SIT, LOC, 0x45, 41,
	  REM, LOC, 68, ERR_NOT_OURS },
	{ "err not ours: source not the configured local", SITD_MODE_SIT, LOC, 0x45, 41, OTHER4, REM, 68,
	  ERR_NOT_OURS },
	{ "err ours: local 0 (any) accepts source 198.51.100.99", SITD_MODE_SIT, 0, 0x45, 41, OTHER4, REM,
	  68, ERR_PMTU },
	{ "err ours: local 0 (any) accepts source 0.0.0.0", SITD_MODE_IPIP, 0, 0x45, 4, 0, REM, 48,
	  ERR_PMTU },
	{ "err not ours: protocol 17 (UDP)", SITD_MODE_ANY, LOC, 0x45, 17, LOC, REM, 68, ERR_NOT_OURS },
	{ "err not ours: protocol 1 (ICMP)", SITD_MODE_ANY, LOC, 0x45, 1, LOC, REM, 68, ERR_NOT_OURS },
	{ "err not ours: protocol 47 (GRE)", SITD_MODE_ANY, LOC, 0x45, 47, LOC, REM, 68, ERR_NOT_OURS },
	{ "err not ours: protocol 4 on a mode sit tunnel", SITD_MODE_SIT, LOC, 0x45, 4, LOC, REM, 48,
	  ERR_NOT_OURS },
	{ "err not ours: protocol 41 on a mode ipip tunnel", SITD_MODE_IPIP, LOC, 0x45, 41, LOC, REM, 68,
	  ERR_NOT_OURS },
	{ "err ours: protocol 4 on a mode any tunnel", SITD_MODE_ANY, LOC, 0x45, 4, LOC, REM, 48, ERR_PMTU },
	{ "err ours: protocol 41 on a mode any tunnel", SITD_MODE_ANY, LOC, 0x45, 41, LOC, REM, 68,
	  ERR_PMTU },
};

static void test_err_ours(void **state)
{
	const struct own_case *c = *state;
	struct sitd_conf conf = conf_of(c->mode, c->local, 64);
	unsigned hl = (c->vihl & 0x0f) * 4u;
	size_t n;

	/* A relayable inner packet after whatever header length the quote claims. */
	memset(buf, 0, sizeof(buf));
	if (hl < 20)
		hl = 20;
	inner_packet(buf + hl, c->proto == 4 ? 4 : 6, IN_UDP, 1400);
	pg_ip4(buf, 0, (uint16_t)(hl + 1400), 0x1234, PG_IP4_DF, 64, c->proto, c->src, c->dst, hl - 20);
	buf[0] = c->vihl;

	assert_int_equal(run_err(&conf, 3, 4, c->len, &n), c->want);
	assert_int_equal(n, 0);
	/* Not ours is not ours whatever the error says. */
	if (c->want == ERR_NOT_OURS) {
		assert_int_equal(run_err(&conf, 3, 1, c->len, &n), ERR_NOT_OURS);
		assert_int_equal(n, 0);
		assert_int_equal(run_err(&conf, 11, 0, c->len, &n), ERR_NOT_OURS);
		assert_int_equal(n, 0);
		assert_int_equal(run_err(&conf, 5, 1, c->len, &n), ERR_NOT_OURS);
		assert_int_equal(n, 0);
	}
}

/* ---- sitd_icmp_err: types, codes, relaying, damping ---- */

struct err_case {
	const char *name;
	enum sitd_mode mode;
	uint8_t ttl;		/* configured: 0 = inherit */
	uint8_t type, code;	/* the ICMPv4 error */
	uint8_t proto;		/* outer protocol */
	unsigned version;	/* inner */
	enum inner_kind kind;
	uint16_t inner_len;	/* declared length of the inner packet */
	uint16_t present;	/* inner bytes in the quote */
	unsigned optlen;	/* options in the quoted outer header */
	enum sitd_err_action want;
	uint8_t rtype, rcode;	/* the relayed error */
};

#define SIT SITD_MODE_SIT
#define IPIP SITD_MODE_IPIP
#define ANY SITD_MODE_ANY

static struct err_case err_cases[] = {
	/* name, mode, ttl, type, code, proto, version, inner, inner len, present, optlen
	 *   -> action, relayed type, code */
	/* Fragmentation Needed: the path MTU, never relayed. */
	{ "err sit: 3/4 frag needed -> PMTU", SIT, 64, 3, 4, 41, 6, IN_UDP, 1400, 48, 0, ERR_PMTU, 0, 0 },
	{ "err sit: 3/4 frag needed, 8 inner bytes -> PMTU", SIT, 64, 3, 4, 41, 6, IN_UDP, 1400, 8, 0,
	  ERR_PMTU, 0, 0 },
	{ "err ipip: 3/4 frag needed -> PMTU", IPIP, 64, 3, 4, 4, 4, IN_UDP, 1400, 28, 0, ERR_PMTU, 0, 0 },
	/* What the kernel does not act on. */
	{ "err sit: 3/5 source route failed -> ignore", SIT, 64, 3, 5, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_IGNORE, 0, 0 },
	{ "err ipip: 3/5 source route failed -> ignore", IPIP, 64, 3, 5, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_IGNORE, 0, 0 },
	{ "err sit: 11/1 fragment reassembly time exceeded -> ignore", SIT, 64, 11, 1, 41, 6, IN_UDP,
	  1400, 48, 0, ERR_IGNORE, 0, 0 },
	{ "err ipip: 11/1 fragment reassembly time exceeded -> ignore", IPIP, 0, 11, 1, 4, 4, IN_UDP,
	  1400, 28, 0, ERR_IGNORE, 0, 0 },
	{ "err sit: 5/1 redirect for the host -> ignore (the kernel applies it)", SIT, 64, 5, 1, 41, 6,
	  IN_UDP, 1400, 48, 0, ERR_IGNORE, 0, 0 },
	{ "err ipip: 5/0 redirect for the network -> ignore", IPIP, 64, 5, 0, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_IGNORE, 0, 0 },
	{ "err sit: 12/0 parameter problem -> ignore", SIT, 64, 12, 0, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_IGNORE, 0, 0 },
	{ "err ipip: 12/0 parameter problem -> ignore", IPIP, 64, 12, 0, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_IGNORE, 0, 0 },
	{ "err sit: 4/0 source quench -> ignore", SIT, 64, 4, 0, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_IGNORE, 0, 0 },
	{ "err sit: 12/0 parameter problem, 8 inner bytes -> ignore, not damped", SIT, 64, 12, 0, 41, 6,
	  IN_UDP, 1400, 8, 0, ERR_IGNORE, 0, 0 },
	/* Relayed to an IPv6 sender: ICMPv6 address unreachable / hop limit exceeded. */
	{ "err sit: 3/0 net unreachable -> ICMPv6 1/3", SIT, 64, 3, 0, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_RELAY, 1, 3 },
	{ "err sit: 3/1 host unreachable -> ICMPv6 1/3", SIT, 64, 3, 1, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_RELAY, 1, 3 },
	{ "err sit: 3/2 protocol unreachable -> ICMPv6 1/3", SIT, 64, 3, 2, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_RELAY, 1, 3 },
	{ "err sit: 3/3 port unreachable -> ICMPv6 1/3", SIT, 64, 3, 3, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_RELAY, 1, 3 },
	{ "err sit: 3/13 administratively prohibited -> ICMPv6 1/3", SIT, 64, 3, 13, 41, 6, IN_UDP, 1400,
	  48, 0, ERR_RELAY, 1, 3 },
	{ "err sit: 11/0 ttl exceeded -> ICMPv6 3/0", SIT, 64, 11, 0, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_RELAY, 3, 0 },
	{ "err sit: 11/0 with ttl inherit, relayable -> ICMPv6 3/0", SIT, 0, 11, 0, 41, 6, IN_UDP, 1400,
	  48, 0, ERR_RELAY, 3, 0 },
	{ "err sit: router quoting 576 bytes (556 inner) -> all 556 relayed", SIT, 64, 3, 1, 41, 6,
	  IN_UDP, 1400, 556, 0, ERR_RELAY, 1, 3 },
	{ "err sit: whole 1400-byte inner quoted -> 1232 relayed (RFC 4443 2.4(c))", SIT, 64, 3, 1, 41, 6,
	  IN_UDP, 1400, 1400, 0, ERR_RELAY, 1, 3 },
	{ "err sit: whole 100-byte inner and 12 trailing bytes -> 100 relayed", SIT, 64, 3, 1, 41, 6,
	  IN_UDP, 100, 112, 0, ERR_RELAY, 1, 3 },
	{ "err sit: quoted outer header with 4 option bytes -> inner found at 24", SIT, 64, 3, 1, 41, 6,
	  IN_UDP, 1400, 48, 4, ERR_RELAY, 1, 3 },
	{ "err sit: inner behind an 8-byte DstOpts header -> relayed", SIT, 64, 3, 1, 41, 6, IN_OPTS, 1400,
	  56, 0, ERR_RELAY, 1, 3 },
	{ "err sit: inner ICMPv6 echo request (a query) -> relayed", SIT, 64, 3, 1, 41, 6, IN_ICMP_ECHO,
	  1400, 48, 0, ERR_RELAY, 1, 3 },
	{ "err any: 3/1 about protocol 41 -> ICMPv6 1/3", ANY, 64, 3, 1, 41, 6, IN_UDP, 1400, 48, 0,
	  ERR_RELAY, 1, 3 },
	/* Relayed to an IPv4 sender: ICMPv4 host unreachable / time exceeded. */
	{ "err ipip: 3/0 net unreachable -> ICMPv4 3/1", IPIP, 64, 3, 0, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_RELAY, 3, 1 },
	{ "err ipip: 3/1 host unreachable -> ICMPv4 3/1", IPIP, 64, 3, 1, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_RELAY, 3, 1 },
	{ "err ipip: 3/2 protocol unreachable -> ICMPv4 3/1", IPIP, 64, 3, 2, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_RELAY, 3, 1 },
	{ "err ipip: 3/3 port unreachable -> ICMPv4 3/1", IPIP, 64, 3, 3, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_RELAY, 3, 1 },
	{ "err ipip: 3/13 administratively prohibited -> ICMPv4 3/1", IPIP, 64, 3, 13, 4, 4, IN_UDP, 1400,
	  28, 0, ERR_RELAY, 3, 1 },
	{ "err ipip: 11/0 ttl exceeded -> ICMPv4 11/0", IPIP, 64, 11, 0, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_RELAY, 11, 0 },
	{ "err ipip: 11/0 with ttl inherit, relayable -> ICMPv4 11/0", IPIP, 0, 11, 0, 4, 4, IN_UDP,
	  1400, 28, 0, ERR_RELAY, 11, 0 },
	{ "err ipip: whole 1400-byte inner quoted -> 548 relayed (RFC 1812 4.3.2.3)", IPIP, 64, 3, 1, 4,
	  4, IN_UDP, 1400, 1400, 0, ERR_RELAY, 3, 1 },
	{ "err ipip: inner with 4 option bytes, 32 quoted -> relayed", IPIP, 64, 3, 1, 4, 4, IN_OPTS,
	  1400, 32, 0, ERR_RELAY, 3, 1 },
	{ "err ipip: inner first fragment (MF, offset 0) -> relayed", IPIP, 64, 3, 1, 4, 4, IN_FIRST_FRAG,
	  1400, 28, 0, ERR_RELAY, 3, 1 },
	{ "err ipip: inner ICMP echo request (a query) -> relayed", IPIP, 64, 3, 1, 4, 4, IN_ICMP_ECHO,
	  1400, 28, 0, ERR_RELAY, 3, 1 },
	{ "err any: 3/1 about protocol 4 -> ICMPv4 3/1", ANY, 64, 3, 1, 4, 4, IN_UDP, 1400, 28, 0,
	  ERR_RELAY, 3, 1 },
	/* Too little of the inner packet: its header and 8 bytes are needed. */
	{ "err sit: router quoting 28 bytes (outer + 8) -> damp", SIT, 64, 3, 1, 41, 6, IN_UDP, 1400, 8,
	  0, ERR_DAMP, 0, 0 },
	{ "err sit: 47 inner bytes -> damp", SIT, 64, 3, 1, 41, 6, IN_UDP, 1400, 47, 0, ERR_DAMP, 0, 0 },
	{ "err sit: 40 inner bytes (the header only) -> damp", SIT, 64, 3, 0, 41, 6, IN_UDP, 1400, 40, 0,
	  ERR_DAMP, 0, 0 },
	{ "err sit: the outer header only -> damp", SIT, 64, 3, 1, 41, 6, IN_UDP, 1400, 0, 0, ERR_DAMP,
	  0, 0 },
	{ "err sit: 11/0 ttl exceeded, 8 inner bytes, fixed ttl -> damp", SIT, 64, 11, 0, 41, 6, IN_UDP,
	  1400, 8, 0, ERR_DAMP, 0, 0 },
	{ "err sit: 11/0 ttl exceeded, 8 inner bytes, ttl inherit -> ignore", SIT, 0, 11, 0, 41, 6,
	  IN_UDP, 1400, 8, 0, ERR_IGNORE, 0, 0 },
	{ "err sit: 3/1, 8 inner bytes, ttl inherit -> damp (only time exceeded is excused)", SIT, 0, 3,
	  1, 41, 6, IN_UDP, 1400, 8, 0, ERR_DAMP, 0, 0 },
	{ "err ipip: router quoting 28 bytes (outer + 8) -> damp", IPIP, 64, 3, 1, 4, 4, IN_UDP, 1400, 8,
	  0, ERR_DAMP, 0, 0 },
	{ "err ipip: 27 inner bytes -> damp", IPIP, 64, 3, 1, 4, 4, IN_UDP, 1400, 27, 0, ERR_DAMP, 0, 0 },
	{ "err ipip: inner with 4 option bytes, 28 quoted (header + 4) -> damp", IPIP, 64, 3, 1, 4, 4,
	  IN_OPTS, 1400, 28, 0, ERR_DAMP, 0, 0 },
	{ "err ipip: 11/0 ttl exceeded, 8 inner bytes, fixed ttl -> damp", IPIP, 64, 11, 0, 4, 4, IN_UDP,
	  1400, 8, 0, ERR_DAMP, 0, 0 },
	{ "err ipip: 11/0 ttl exceeded, 8 inner bytes, ttl inherit -> ignore", IPIP, 0, 11, 0, 4, 4,
	  IN_UDP, 1400, 8, 0, ERR_IGNORE, 0, 0 },
	/* Inner packets no error may answer (RFC 4443 2.4(e), RFC 1812 4.3.2.7). */
	{ "err sit: inner is an ICMPv6 error -> declined, not damped", SIT, 64, 3, 1, 41, 6, IN_ICMP_ERR, 1400, 48, 0,
	  ERR_DECLINED, 0, 0 },
	{ "err sit: inner ICMPv6 error, 11/0 with ttl inherit -> declined", SIT, 0, 11, 0, 41, 6,
	  IN_ICMP_ERR, 1400, 48, 0, ERR_DECLINED, 0, 0 },
	{ "err sit: inner multicast source -> declined, not damped", SIT, 64, 3, 1, 41, 6, IN_SRC_MCAST, 1400, 48, 0,
	  ERR_DECLINED, 0, 0 },
	{ "err sit: inner unspecified source -> declined, not damped", SIT, 64, 3, 1, 41, 6, IN_SRC_UNSPEC, 1400, 48, 0,
	  ERR_DECLINED, 0, 0 },
	{ "err sit: inner multicast destination -> declined, not damped", SIT, 64, 3, 1, 41, 6, IN_DST_MCAST, 1400, 48, 0,
	  ERR_DECLINED, 0, 0 },
	{ "err ipip: inner is an ICMP error -> damp", IPIP, 64, 3, 1, 4, 4, IN_ICMP_ERR, 1400, 28, 0,
	  ERR_DAMP, 0, 0 },
	{ "err ipip: inner multicast source -> damp", IPIP, 64, 3, 1, 4, 4, IN_SRC_MCAST, 1400, 28, 0,
	  ERR_DAMP, 0, 0 },
	{ "err ipip: inner source 0.0.0.0 -> damp", IPIP, 64, 3, 1, 4, 4, IN_SRC_UNSPEC, 1400, 28, 0,
	  ERR_DAMP, 0, 0 },
	{ "err ipip: inner loopback source -> damp", IPIP, 64, 3, 1, 4, 4, IN_SRC_LOOPBACK, 1400, 28, 0,
	  ERR_DAMP, 0, 0 },
	{ "err ipip: inner multicast destination -> damp", IPIP, 64, 3, 1, 4, 4, IN_DST_MCAST, 1400, 28,
	  0, ERR_DAMP, 0, 0 },
	{ "err ipip: inner broadcast destination -> damp", IPIP, 64, 3, 1, 4, 4, IN_DST_BCAST, 1400, 28,
	  0, ERR_DAMP, 0, 0 },
	{ "err ipip: inner later fragment -> damp", IPIP, 64, 3, 1, 4, 4, IN_LATER_FRAG, 1400, 28, 0,
	  ERR_DAMP, 0, 0 },
	/* The inner version must be the one the outer protocol carries. */
	{ "err any: protocol 41 but an IPv4 packet inside -> damp", ANY, 64, 3, 1, 41, 4, IN_UDP, 1400,
	  48, 0, ERR_DAMP, 0, 0 },
	{ "err any: protocol 4 but an IPv6 packet inside -> damp", ANY, 64, 3, 1, 4, 6, IN_UDP, 1400, 48,
	  0, ERR_DAMP, 0, 0 },
};

static void test_err(void **state)
{
	const struct err_case *c = *state;
	struct sitd_conf conf = conf_of(c->mode, PG_OUTER_LOCAL, c->ttl);
	unsigned hl;
	size_t n;
	enum sitd_err_action a;

	memset(buf, 0, sizeof(buf));
	hl = outer_packet(c->proto, c->optlen, c->version, c->kind, c->inner_len);
	if (c->present > c->inner_len)
		pg_pattern(buf + hl + c->inner_len, c->present - c->inner_len, 0xee);
	a = run_err(&conf, c->type, c->code, hl + c->present, &n);
	assert_int_equal(a, c->want);
	if (c->want != ERR_RELAY) {
		assert_int_equal(n, 0);
		return;
	}
	if (c->version == 6)
		check_relay6(n, buf + hl, c->inner_len, c->present, c->rtype, c->rcode);
	else
		check_relay4(n, buf + hl, c->inner_len, c->present, c->rtype, c->rcode);
}

/*
 * remote any (6to4, 6rd, ISATAP): an error about a packet to any destination is the
 * tunnel's; Fragmentation Needed is the path MTU; what cannot be relayed is let go, as
 * ipip6_err() does for an NBMA tunnel (no damper: `t->parms.iph.daddr == 0`).
 */
static void test_err_remote_any(void **state)
{
	struct sitd_conf conf = conf_of(SITD_MODE_SIT, PG_OUTER_LOCAL, 64);
	unsigned hl;
	size_t n;

	(void)state;
	conf.remote = 0;
	memset(buf, 0, sizeof(buf));
	hl = outer_packet(41, 0, 6, IN_UDP, 1400);
	assert_int_equal(run_err(&conf, 3, 4, hl + 48, &n), ERR_PMTU);
	assert_int_equal(run_err(&conf, 3, 1, hl + 48, &n), ERR_RELAY);
	assert_int_equal(run_err(&conf, 3, 1, hl + 8, &n), ERR_IGNORE);	/* would damp */
	conf.remote = PG_OUTER_REMOTE;
	assert_int_equal(run_err(&conf, 3, 1, hl + 8, &n), ERR_DAMP);
}

/* The 40 + 8 bytes of a 1400-byte inner IPv6 packet, relayed as they are (the brief's example). */
static void test_err_relay_cut_short(void **state)
{
	struct sitd_conf conf = conf_of(SITD_MODE_SIT, PG_OUTER_LOCAL, 64);
	size_t n;

	(void)state;
	memset(buf, 0, sizeof(buf));
	outer_packet(41, 0, 6, IN_UDP, 1400);
	assert_int_equal(run_err(&conf, 3, 1, 20 + 48, &n), ERR_RELAY);
	assert_int_equal(n, 96);
	assert_int_equal(pg_get16(out + 4), 56);
	assert_int_equal(out[40], 1);
	assert_int_equal(out[41], 3);
	assert_int_equal(pg_get16(out + 48 + 4), 1360);		/* the inner payload length */
	assert_memory_equal(out + 48, buf + 20, 48);
	assert_memory_equal(out + 24, PG_IN6_SRC, 16);
	assert_true(pg_l4_csum_ok(out, 40, PG_PROTO_ICMPV6));
	/* One byte fewer and there is nothing to relay. */
	assert_int_equal(run_err(&conf, 3, 1, 20 + 47, &n), ERR_DAMP);
	assert_int_equal(n, 0);
}

/* The offender's address is what the relayed error comes from, for any offender. */
static void test_err_offender(void **state)
{
	static const uint32_t offenders[] = { 0xc0000201u, 0x0a000001u, 0xfffffffeu, 0x01020304u };
	struct sitd_conf conf = conf_of(SITD_MODE_ANY, PG_OUTER_LOCAL, 64);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(offenders); i++) {
		struct sitd_err e = { .type = 3, .code = 1, .offender = offenders[i], .quoted = buf };
		size_t n;

		memset(buf, 0, sizeof(buf));
		outer_packet(41, 0, 6, IN_UDP, 300);
		e.len = 320;
		assert_int_equal(sitd_icmp_err(&conf, &e, out, sizeof(out), &n), ERR_RELAY);
		assert_int_equal(n, 48 + 300);
		assert_int_equal(pg_get32(out + 8), 0);
		assert_int_equal(pg_get32(out + 12), 0);
		assert_int_equal(pg_get32(out + 16), 0x0000ffffu);
		assert_int_equal(pg_get32(out + 20), offenders[i]);
		assert_true(pg_l4_csum_ok(out, 40, PG_PROTO_ICMPV6));

		outer_packet(4, 0, 4, IN_UDP, 300);
		assert_int_equal(sitd_icmp_err(&conf, &e, out, sizeof(out), &n), ERR_RELAY);
		assert_int_equal(n, 28 + 300);
		assert_int_equal(pg_get32(out + 12), offenders[i]);
		assert_true(pg_ip4_csum_ok(out));
		assert_true(pg_l4_csum_ok(out, 20, PG_PROTO_ICMP));
	}
}

/* ---- The quote builders against the plain ones ---- */

struct quote_case {
	const char *name;
	unsigned version;
	enum inner_kind kind;
	size_t declared;	/* the packet's declared length */
	size_t present;		/* bytes handed over */
	size_t plain;		/* sitd_icmp{6,4}_error: 0 (refused) or the error's length */
	size_t quoted;		/* the _quote variant: 0 (declined) or the error's length */
};

static struct quote_case quote_cases[] = {
	/* name, version, kind, declared, present -> plain, quote variant */
	{ "quote6: 48 of 1400 bytes: plain refuses, quote relays 48", 6, IN_UDP, 1400, 48, 0, 48 + 48 },
	{ "quote6: 556 of 1400 bytes: quote relays 556", 6, IN_UDP, 1400, 556, 0, 48 + 556 },
	{ "quote6: 1300 of 1400 bytes: quote relays 1232", 6, IN_UDP, 1400, 1300, 0, 1280 },
	{ "quote6: 1399 of 1400 bytes: plain refuses", 6, IN_UDP, 1400, 1399, 0, 1280 },
	{ "quote6: all 300 bytes: both the same", 6, IN_UDP, 300, 300, 48 + 300, 48 + 300 },
	{ "quote6: 300 declared, 340 present: both quote 300", 6, IN_UDP, 300, 340, 48 + 300, 48 + 300 },
	{ "quote6: 40 of 1400 bytes (header only): quote relays 40", 6, IN_UDP, 1400, 40, 0, 48 + 40 },
	{ "quote6: 39 bytes: neither", 6, IN_UDP, 1400, 39, 0, 0 },
	{ "quote6: cut-short ICMPv6 error: neither (RFC 4443 2.4(e.1))", 6, IN_ICMP_ERR, 1400, 48, 0, 0 },
	{ "quote6: cut-short, multicast source: neither (2.4(e.6))", 6, IN_SRC_MCAST, 1400, 48, 0, 0 },
	{ "quote6: cut-short, unspecified source: neither", 6, IN_SRC_UNSPEC, 1400, 48, 0, 0 },
	{ "quote4: 28 of 1400 bytes: plain refuses, quote relays 28", 4, IN_UDP, 1400, 28, 0, 28 + 28 },
	{ "quote4: 600 of 1400 bytes: quote relays 548", 4, IN_UDP, 1400, 600, 0, 576 },
	{ "quote4: 20 of 1400 bytes (header only): quote relays 20", 4, IN_UDP, 1400, 20, 0, 28 + 20 },
	{ "quote4: all 300 bytes: both the same", 4, IN_UDP, 300, 300, 28 + 300, 28 + 300 },
	{ "quote4: 19 bytes: neither", 4, IN_UDP, 1400, 19, 0, 0 },
	{ "quote4: cut-short ICMP error: neither (RFC 1812 4.3.2.7)", 4, IN_ICMP_ERR, 1400, 28, 0, 0 },
	{ "quote4: cut-short later fragment: neither", 4, IN_LATER_FRAG, 1400, 28, 0, 0 },
	{ "quote4: cut-short, loopback source: neither", 4, IN_SRC_LOOPBACK, 1400, 28, 0, 0 },
	{ "quote4: cut-short, broadcast destination: neither", 4, IN_DST_BCAST, 1400, 28, 0, 0 },
};

static void test_quote(void **state)
{
	const struct quote_case *c = *state;
	static const uint8_t router6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 0x99 };
	static uint8_t plain_out[2000];
	uint8_t *p;
	size_t n, m;

	memset(buf, 0, sizeof(buf));
	inner_packet(buf, c->version, c->kind, c->declared);
	if (c->present > c->declared)
		memset(buf + c->declared, 0xee, c->present - c->declared);
	p = exact_copy(buf, c->present);
	if (c->version == 6) {
		n = sitd_icmp6_error(plain_out, sizeof(plain_out), 1, 3, 0, router6, p, c->present);
		m = sitd_icmp6_error_quote(out, sizeof(out), 1, 3, 0, router6, p, c->present);
	} else {
		n = sitd_icmp4_error(plain_out, sizeof(plain_out), 3, 1, 0, ROUTER4, p, c->present);
		m = sitd_icmp4_error_quote(out, sizeof(out), 3, 1, 0, ROUTER4, p, c->present);
	}
	free(p);
	assert_int_equal(n, c->plain);
	assert_int_equal(m, c->quoted);
	if (!m)
		return;
	if (c->version == 6) {
		size_t quote = m - 48;

		assert_memory_equal(out + 8, router6, 16);
		assert_memory_equal(out + 24, buf + 8, 16);
		assert_int_equal(pg_get16(out + 4), 8 + quote);
		assert_int_equal(out[40], 1);
		assert_int_equal(out[41], 3);
		assert_memory_equal(out + 48, buf, quote);
		assert_true(pg_l4_csum_ok(out, 40, PG_PROTO_ICMPV6));
	} else {
		size_t quote = m - 28;

		assert_int_equal(out[0], 0x45);
		assert_int_equal(pg_get16(out + 2), m);
		assert_true(pg_ip4_csum_ok(out));
		assert_int_equal(pg_get32(out + 12), ROUTER4);
		assert_int_equal(pg_get32(out + 16), pg_get32(buf + 12));
		assert_int_equal(out[20], 3);
		assert_int_equal(out[21], 1);
		assert_memory_equal(out + 28, buf, quote);
		assert_true(pg_l4_csum_ok(out, 20, PG_PROTO_ICMP));
	}
	/* Where both answer, they answer alike. */
	if (n) {
		assert_int_equal(n, m);
		assert_memory_equal(plain_out, out, n);
	}
}

/* ---- sitd_ip_parse_quote against sitd_ip_parse ---- */

enum parse_mod { PM_NONE, PM_IHL4, PM_IHL15, PM_TOTLEN16, PM_PLEN0, PM_VERSION5 };

struct parse_case {
	const char *name;
	unsigned version;
	enum inner_kind kind;
	size_t declared, avail;
	enum parse_mod mod;
	int ret_plain;		/* sitd_ip_parse */
	int ret;		/* sitd_ip_parse_quote */
	uint32_t len;		/* ii.len from the quote variant */
	unsigned l3len;
};

static struct parse_case parse_cases[] = {
	/* name, version, kind, declared, avail, mod -> plain, quote, len, l3len */
	{ "parse quote v4: 28 of 1400 -> len 28", 4, IN_UDP, 1400, 28, PM_NONE, -1, 0, 28, 20 },
	{ "parse quote v4: 1399 of 1400 -> len 1399", 4, IN_UDP, 1400, 1399, PM_NONE, -1, 0, 1399, 20 },
	{ "parse quote v4: all 1400 -> len 1400", 4, IN_UDP, 1400, 1400, PM_NONE, 0, 0, 1400, 20 },
	{ "parse quote v4: 100 declared, 200 present -> len 100, not raised", 4, IN_UDP, 100, 200, PM_NONE,
	  0, 0, 100, 20 },
	{ "parse quote v4: 20 of 1400 (header only) -> len 20", 4, IN_UDP, 1400, 20, PM_NONE, -1, 0, 20,
	  20 },
	{ "parse quote v4: 19 bytes -> -1", 4, IN_UDP, 1400, 19, PM_NONE, -1, -1, 0, 0 },
	{ "parse quote v4: IHL 4 -> -1", 4, IN_UDP, 1400, 100, PM_IHL4, -1, -1, 0, 0 },
	{ "parse quote v4: IHL 15 (60) with 28 present -> -1", 4, IN_UDP, 1400, 28, PM_IHL15, -1, -1, 0,
	  0 },
	{ "parse quote v4: IHL 15 (60) with 60 present -> len 60", 4, IN_UDP, 1400, 60, PM_IHL15, -1, 0,
	  60, 60 },
	{ "parse quote v4: IHL 6 (24) with 24 present -> len 24", 4, IN_OPTS, 1400, 24, PM_NONE, -1, 0, 24,
	  24 },
	{ "parse quote v4: IHL 6 (24) with 23 present -> -1", 4, IN_OPTS, 1400, 23, PM_NONE, -1, -1, 0, 0 },
	{ "parse quote v4: total length 16, below the header -> -1", 4, IN_UDP, 1400, 100, PM_TOTLEN16,
	  -1, -1, 0, 0 },
	{ "parse quote v6: 48 of 1400 -> len 48", 6, IN_UDP, 1400, 48, PM_NONE, -1, 0, 48, 40 },
	{ "parse quote v6: 40 of 1400 (header only) -> len 40", 6, IN_UDP, 1400, 40, PM_NONE, -1, 0, 40,
	  40 },
	{ "parse quote v6: all 1400 -> len 1400", 6, IN_UDP, 1400, 1400, PM_NONE, 0, 0, 1400, 40 },
	{ "parse quote v6: 300 declared, 400 present -> len 300, not raised", 6, IN_UDP, 300, 400, PM_NONE,
	  0, 0, 300, 40 },
	{ "parse quote v6: 39 bytes -> -1", 6, IN_UDP, 1400, 39, PM_NONE, -1, -1, 0, 0 },
	{ "parse quote v6: payload length 0 (jumbogram) -> -1", 6, IN_UDP, 1400, 100, PM_PLEN0, -1, -1, 0,
	  0 },
	{ "parse quote v6: DstOpts 8 present, 56 of 1400 -> l3len 48", 6, IN_OPTS, 1400, 56, PM_NONE, -1,
	  0, 56, 48 },
	{ "parse quote: version 5 -> -1", 4, IN_UDP, 1400, 100, PM_VERSION5, -1, -1, 0, 0 },
};

static void test_parse_quote(void **state)
{
	const struct parse_case *c = *state;
	struct sitd_ipinfo ii, plain;
	uint8_t *p;
	int r, rp;

	memset(buf, 0, sizeof(buf));
	inner_packet(buf, c->version, c->kind, c->declared);
	switch (c->mod) {
	case PM_NONE:
		break;
	case PM_IHL4:
		buf[0] = 0x44;
		break;
	case PM_IHL15:
		buf[0] = 0x4f;
		break;
	case PM_TOTLEN16:
		pg_put16(buf + 2, 16);
		break;
	case PM_PLEN0:
		pg_put16(buf + 4, 0);
		break;
	case PM_VERSION5:
		buf[0] = 0x55;
		break;
	}
	if (c->avail > c->declared)
		memset(buf + c->declared, 0xee, c->avail - c->declared);
	p = exact_copy(buf, c->avail);
	memset(&ii, 0xa5, sizeof(ii));
	rp = sitd_ip_parse(p, c->avail, &plain);
	r = sitd_ip_parse_quote(p, c->avail, &ii);
	free(p);
	assert_int_equal(rp, c->ret_plain);
	assert_int_equal(r, c->ret);
	if (r)
		return;
	assert_int_equal(ii.version, c->version);
	assert_int_equal(ii.len, c->len);
	assert_int_equal(ii.l3len, c->l3len);
	assert_int_equal(ii.l4proto, PG_PROTO_UDP);
	assert_int_equal(ii.ttl, 64);
	if (c->version == 4)
		assert_true(ii.df);
	assert_false(ii.fragment);
	assert_false(ii.later_fragment);
	if (rp == 0) {
		assert_int_equal(plain.len, ii.len);
		assert_int_equal(plain.l3len, ii.l3len);
	}
}

/* ---- The damper (kernel: err_count, err_time, IPTUNNEL_ERR_TIMEO) ---- */

struct damper_case {
	const char *name;
	unsigned notes;		/* damper_note calls */
	uint64_t gap;		/* between them */
	uint64_t take_at;	/* every damper_take, this long after the last note */
	unsigned want;		/* damper_take calls that say true */
};

static struct damper_case damper_cases[] = {
	/* name, notes, gap, take at -> true takes */
	{ "damper: nothing noted: no link failure", 0, 0, 1 * SEC, 0 },
	{ "damper: 1 note, take 1 s later: 1", 1, 0, 1 * SEC, 1 },
	{ "damper: 1 note, take at once: 1", 1, 0, 0, 1 },
	{ "damper: 3 notes 1 s apart, take 29.999999999 s after: 3", 3, SEC, 30 * SEC - 1, 3 },
	{ "damper: 10 notes at one instant: 10", 10, 0, 5 * SEC, 10 },
	{ "damper: 3 notes 20 s apart: the window follows the last: 3", 3, 20 * SEC, 10 * SEC, 3 },
	{ "damper: 2 notes 29.999999999 s apart: 2", 2, 30 * SEC - 1, SEC, 2 },
	{ "damper: 2 notes exactly 30 s apart: count restarts at 1", 2, 30 * SEC, SEC, 1 },
	{ "damper: 2 notes 30 s + 1 ns apart: count restarts at 1", 2, 30 * SEC + 1, SEC, 1 },
	{ "damper: 5 notes 31 s apart: count restarts each time, 1", 5, 31 * SEC, SEC, 1 },
	{ "damper: 3 notes, take exactly 30 s after: none, count reset", 3, 0, 30 * SEC, 0 },
	{ "damper: 3 notes, take 31 s after: none, count reset", 3, 0, 31 * SEC, 0 },
};

static void test_damper(void **state)
{
	const struct damper_case *c = *state;
	struct sitd_damper d = { 0, 0 };
	const uint64_t t0 = 1000 * SEC;
	uint64_t last = t0;
	unsigned yes = 0;

	for (unsigned i = 0; i < c->notes; i++) {
		last = t0 + i * c->gap;
		damper_note(&d, last);
	}
	for (unsigned i = 0; i < c->want + 3; i++)
		yes += damper_take(&d, last + c->take_at);
	assert_int_equal(yes, c->want);
	assert_int_equal(d.count, 0);
}

/* N notes, then N takes spread across the window (at once, 10 s, 20 s, 29.999999999 s). */
static void test_damper_spread(void **state)
{
	struct sitd_damper d = { 0, 0 };
	const uint64_t t0 = 500 * SEC;
	static const uint64_t at[] = { 0, 10 * SEC, 20 * SEC, 30 * SEC - 1 };

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(at); i++)
		damper_note(&d, t0);
	assert_int_equal(d.count, ARRAY_SIZE(at));
	for (unsigned i = 0; i < ARRAY_SIZE(at); i++) {
		assert_true(damper_take(&d, t0 + at[i]));
		assert_int_equal(d.count, ARRAY_SIZE(at) - 1 - i);
	}
	assert_false(damper_take(&d, t0 + at[ARRAY_SIZE(at) - 1]));
	/* Noted again after the count ran out but inside the window: it counts on from 0. */
	damper_note(&d, t0 + 29 * SEC);
	assert_int_equal(d.count, 1);
	assert_true(damper_take(&d, t0 + 58 * SEC));
	assert_false(damper_take(&d, t0 + 58 * SEC));
}

/* A take after the window clears what was left; a later note starts again from 1. */
static void test_damper_expiry(void **state)
{
	struct sitd_damper d = { 0, 0 };
	const uint64_t t0 = 200 * SEC;

	(void)state;
	damper_note(&d, t0);
	damper_note(&d, t0 + SEC);
	damper_note(&d, t0 + 2 * SEC);
	assert_int_equal(d.count, 3);
	assert_int_equal(d.time_ns, t0 + 2 * SEC);
	assert_true(damper_take(&d, t0 + 31 * SEC));		/* 29 s after the last */
	assert_false(damper_take(&d, t0 + 32 * SEC));		/* 30 s after: over */
	assert_int_equal(d.count, 0);
	assert_false(damper_take(&d, t0 + 33 * SEC));
	damper_note(&d, t0 + 40 * SEC);
	assert_int_equal(d.count, 1);
	assert_int_equal(d.time_ns, t0 + 40 * SEC);
	damper_note(&d, t0 + 41 * SEC);
	assert_int_equal(d.count, 2);
	assert_true(damper_take(&d, t0 + 50 * SEC));
	assert_true(damper_take(&d, t0 + 50 * SEC));
	assert_false(damper_take(&d, t0 + 50 * SEC));
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = &(arr)[i] }

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(own_cases) + ARRAY_SIZE(err_cases) + ARRAY_SIZE(quote_cases) +
				ARRAY_SIZE(parse_cases) + ARRAY_SIZE(damper_cases) + 5];
	size_t n = 0;

	TABLE(own_cases, test_err_ours);
	TABLE(err_cases, test_err);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_err_relay_cut_short);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_err_remote_any);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_err_offender);
	TABLE(quote_cases, test_quote);
	TABLE(parse_cases, test_parse_quote);
	TABLE(damper_cases, test_damper);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_damper_spread);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_damper_expiry);
	if (n != ARRAY_SIZE(tests)) {
		fprintf(stderr, "test_icmperr: %zu of %zu tests filled in\n", n, ARRAY_SIZE(tests));
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
