/* SPDX-License-Identifier: MIT */
/*
 * ISATAP neighbour discovery behind extension headers (sixrd.h: sitd_ip6_nd,
 * sitd_isatap_nd_check): what the kernel's ndisc_router_discovery() and
 * ndisc_redirect_rcv() refuse by skb->ndisc_nodetype, which a TUN write cannot carry.
 * Packets are built field by field (pktgen.h: RFC 8200 3 and 4, RFC 4861 4) and checksums
 * verified with pktgen's own RFC 1071 sum, not the core's.  Truncated packets are copied
 * into buffers of exactly their length, so unit-asan catches any read past the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/sixrd.h"
#include "pktgen.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { HOPOPTS = 0, ROUTING = 43, FRAGMENT = 44, AH = 51, DSTOPTS = 60, ICMPV6 = 58, UDP = 17,
       ESP = 50, NONE = 59 };
enum { RS = 133, RA = 134, NS = 135, NA = 136, REDIRECT = 137 };
enum { PKT_MAX = 2048, RA_LEN = 16, LIFETIME = 1800 };

/* fe80::5efe:203.0.113.2 to fe80::5efe:198.51.100.1, as ISATAP link-locals. */
static const uint8_t SRC[16] = { 0xfe, 0x80, [10] = 0x5e, [11] = 0xfe, 203, 0, 113, 2 };
static const uint8_t DST[16] = { 0xfe, 0x80, [10] = 0x5e, [11] = 0xfe, 198, 51, 100, 1 };

/* One extension header: its type, length in bytes, and Fragment Offset/M field. */
struct ext {
	uint8_t type;
	unsigned len;
	uint16_t frag;
};

#define HBH(n) { HOPOPTS, (n), 0 }
#define DOPT(n) { DSTOPTS, (n), 0 }
#define RTH(n) { ROUTING, (n), 0 }
#define FIRST_FRAG { FRAGMENT, 8, 1 }			/* offset 0, M = 1 */
#define LATER_FRAG { FRAGMENT, 8, 8 << 3 }		/* offset 64, M = 0 */

/* The header at p (RFC 8200 4.3-4.6, RFC 4302 2), next header nxt. */
static void put_ext(uint8_t *p, const struct ext *x, uint8_t nxt)
{
	memset(p, 0, x->len);
	switch (x->type) {
	case HOPOPTS:
	case DSTOPTS:
		pg_ip6_dstopts(p, nxt, x->len);
		break;
	case ROUTING:
		p[0] = nxt;
		p[1] = (uint8_t)(x->len / 8 - 1);
		p[2] = 4;		/* Segment Routing (RFC 8754), Segments Left 0 */
		break;
	case FRAGMENT:
		p[0] = nxt;
		pg_put16(p + 2, x->frag);
		pg_put32(p + 4, 0x5efe0001u);
		break;
	case AH:
		p[0] = nxt;
		p[1] = (uint8_t)(x->len / 4 - 2);
		pg_put32(p + 4, 0x100);	/* SPI */
		break;
	}
}

/*
 * An IPv6 packet from SRC to DST with hop limit 255, the chain x[0..nx), then an upper
 * layer of protocol `l4` whose mlen bytes start with the ICMPv6 header of `type` (for an
 * RA: Router Lifetime `lifetime`, bytes 6-7); ICMPv6 gets its checksum over all mlen
 * bytes.  Returns the packet's length; *l4off: where the upper layer starts.
 */
static uint32_t mk(uint8_t *p, const struct ext *x, unsigned nx, uint8_t l4, uint8_t type,
		   unsigned mlen, uint16_t lifetime, unsigned *l4off)
{
	unsigned off = 40;
	uint8_t *m;

	memset(p, 0, PKT_MAX);
	for (unsigned i = 0; i < nx; i++) {
		put_ext(p + off, &x[i], i + 1 < nx ? x[i + 1].type : l4);
		off += x[i].len;
	}
	pg_ip6(p, 0, 0, (uint16_t)(off - 40 + mlen), nx ? x[0].type : l4, 255, SRC, DST);
	m = p + off;
	for (unsigned i = 0; i < mlen; i++)
		m[i] = (uint8_t)(0xa0 + i);
	if (mlen > 0)
		m[0] = type;
	if (mlen > 1)
		m[1] = 0;			/* code */
	if (mlen >= 8) {
		m[2] = m[3] = 0;
		m[4] = 64;			/* Cur Hop Limit */
		m[5] = 0;			/* M, O */
		pg_put16(m + 6, lifetime);
	}
	if (l4 == ICMPV6 && mlen >= 4) {
		m[2] = m[3] = 0;
		pg_put16(m + 2, (uint16_t)~pg_fold(pg_sum(m, mlen, pg_pseudo6(SRC, DST, ICMPV6,
									      mlen))));
	}
	if (l4off)
		*l4off = off;
	return off + mlen;
}

static uint32_t mk_nd(uint8_t *p, const struct ext *x, unsigned nx, uint8_t type, unsigned *l4off)
{
	return mk(p, x, nx, ICMPV6, type, RA_LEN, LIFETIME, l4off);
}

/* The check on a copy of exactly len bytes; the copy's bytes are returned in p. */
static enum sitd_isatap_verdict check_exact(uint8_t *p, uint32_t len, enum sitd_isatap_node node)
{
	uint8_t *c = malloc(len ? len : 1);
	enum sitd_isatap_verdict v;

	assert_non_null(c);
	memcpy(c, p, len);
	v = sitd_isatap_nd_check(c, len, node);
	memcpy(p, c, len);
	free(c);
	return v;
}

/* Chains an RA is tried behind: none, each kind, both, long ones. */
static const struct ext C_DST[] = { DOPT(8) };
static const struct ext C_HBH[] = { HBH(8) };
static const struct ext C_BOTH[] = { HBH(16), DOPT(8) };
static const struct ext C_RT[] = { RTH(24) };
static const struct ext C_ALL[] = { HBH(8), DOPT(8), RTH(24), DOPT(16) };
static const struct ext C_AH[] = { DOPT(8), { AH, 24, 0 } };
static const struct ext C_LONG[] = { DOPT(8), DOPT(8), DOPT(8), DOPT(8), DOPT(8),
				     DOPT(8), DOPT(8), DOPT(8), DOPT(8), DOPT(8) };

static const struct {
	const char *name;
	const struct ext *x;
	unsigned n;
} chains[] = {
	{ "none", NULL, 0 },
	{ "dstopts", C_DST, 1 },
	{ "hopopts", C_HBH, 1 },
	{ "hopopts+dstopts", C_BOTH, 2 },
	{ "routing", C_RT, 1 },
	{ "hbh+dst+rt+dst", C_ALL, 4 },
	{ "dst+ah", C_AH, 2 },
	{ "10 dstopts (past sitd_ip_parse's 8)", C_LONG, 10 },
};

/* sitd_ip6_nd: every ND type, and only those, found behind every chain, with its place. */
static void test_nd_classify(void **state)
{
	static uint8_t p[PKT_MAX];

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(chains); c++) {
		for (unsigned t = 128; t <= 140; t++) {
			struct sitd_nd nd;
			unsigned l4off;
			uint32_t len = mk_nd(p, chains[c].x, chains[c].n, (uint8_t)t, &l4off);
			bool is_nd = t >= RS && t <= REDIRECT;

			assert_int_equal(sitd_ip6_nd(p, len, &nd), 0);
			assert_int_equal(nd.type, is_nd ? t : SITD_ND_NONE);
			if (is_nd)
				assert_int_equal(nd.off, l4off);
			assert_int_equal(nd.end, len);
			assert_false(nd.undecided);
			assert_false(nd.fragment);
			assert_false(nd.later_fragment);
		}
	}
	/* Not ICMPv6 behind the chain: nothing, whatever its first byte. */
	{
		struct sitd_nd nd;
		uint32_t len = mk(p, C_BOTH, 2, UDP, RA, RA_LEN, LIFETIME, NULL);

		assert_int_equal(sitd_ip6_nd(p, len, &nd), 0);
		assert_int_equal(nd.type, SITD_ND_NONE);
		assert_false(nd.undecided);
	}
	/* Not IPv6. */
	{
		struct sitd_nd nd;
		uint32_t len = mk_nd(p, NULL, 0, RA, NULL);

		p[0] = 0x45;
		assert_int_equal(sitd_ip6_nd(p, len, &nd), -EINVAL);
		assert_int_equal(sitd_ip6_nd(p, 39, &nd), -EINVAL);
	}
}

/* ndisc_router_discovery(): a host's RA is ignored, behind any chain; untouched. */
static void test_ra_host_behind_chains(void **state)
{
	static uint8_t p[PKT_MAX], before[PKT_MAX];

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(chains); c++) {
		uint32_t len = mk_nd(p, chains[c].x, chains[c].n, RA, NULL);

		memcpy(before, p, len);
		if (check_exact(p, len, SITD_ISATAP_HOST) != SITD_ISATAP_RA_HOST)
			fail_msg("host RA behind %s not dropped", chains[c].name);
		assert_memory_equal(p, before, len);
		/* A default PRL router's RA passes as it is. */
		assert_int_equal(check_exact(p, len, SITD_ISATAP_DEFAULT), SITD_ISATAP_PASS);
		assert_memory_equal(p, before, len);
	}
}

/* ndisc_redirect_rcv(): a Redirect from a host or a non-default PRL router is ignored. */
static void test_redirect(void **state)
{
	static uint8_t p[PKT_MAX], before[PKT_MAX];

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(chains); c++) {
		uint32_t len = mk(p, chains[c].x, chains[c].n, ICMPV6, REDIRECT, 40, 0, NULL);

		memcpy(before, p, len);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_ND_HOST);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT),
				 SITD_ISATAP_ND_NODEFAULT);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_DEFAULT), SITD_ISATAP_PASS);
		assert_memory_equal(p, before, len);
	}
}

/*
 * RS, NS, NA pass from hosts and from routers: ndisc_recv_rs/ns/na look at no node type,
 * and ISATAP nodes resolve and probe each other with NS/NA.
 */
static void test_rs_ns_na_pass(void **state)
{
	static const uint8_t types[] = { RS, NS, NA };
	static const enum sitd_isatap_node nodes[] = { SITD_ISATAP_HOST, SITD_ISATAP_NODEFAULT,
						       SITD_ISATAP_DEFAULT };
	static uint8_t p[PKT_MAX], before[PKT_MAX];

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(chains); c++)
		for (size_t t = 0; t < ARRAY_SIZE(types); t++)
			for (size_t n = 0; n < ARRAY_SIZE(nodes); n++) {
				uint32_t len = mk(p, chains[c].x, chains[c].n, ICMPV6, types[t], 32,
						  LIFETIME, NULL);

				memcpy(before, p, len);
				assert_int_equal(check_exact(p, len, nodes[n]), SITD_ISATAP_PASS);
				assert_memory_equal(p, before, len);
			}
}

/* Other traffic from a host behind the same chains passes untouched. */
static void test_other_pass(void **state)
{
	static const uint8_t l4s[] = { UDP, ESP, NONE };
	static uint8_t p[PKT_MAX], before[PKT_MAX];

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(chains); c++)
		for (size_t i = 0; i < ARRAY_SIZE(l4s); i++) {
			uint32_t len = mk(p, chains[c].x, chains[c].n, l4s[i], RA, RA_LEN,
					  LIFETIME, NULL);

			memcpy(before, p, len);
			assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_PASS);
			assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT),
					 SITD_ISATAP_PASS);
			assert_memory_equal(p, before, len);
		}
	/* An ICMPv6 echo request behind the chain. */
	{
		uint32_t len = mk(p, C_ALL, 4, ICMPV6, 128, 24, 0, NULL);

		assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_PASS);
	}
	/* REFUSED (sitd_packet_is_spoofed's drop) is not this check's business. */
	{
		uint32_t len = mk_nd(p, C_DST, 1, RA, NULL);

		memcpy(before, p, len);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_REFUSED), SITD_ISATAP_PASS);
		assert_memory_equal(p, before, len);
	}
}

/* RFC 6980 5: fragments.  First fragments are judged; a later one cannot be. */
static void test_fragments(void **state)
{
	static const struct ext first[] = { FIRST_FRAG };
	static const struct ext dst_first[] = { DOPT(8), FIRST_FRAG, DOPT(8) };
	static const struct ext atomic[] = { { FRAGMENT, 8, 0 } };
	static const struct ext later[] = { LATER_FRAG };
	static uint8_t p[PKT_MAX], before[PKT_MAX];
	struct sitd_nd nd;
	unsigned l4off;
	uint32_t len;

	(void)state;
	/* A first fragment (M = 1) holding the RA: told apart, dropped from a host. */
	len = mk_nd(p, first, 1, RA, &l4off);
	assert_int_equal(sitd_ip6_nd(p, len, &nd), 0);
	assert_int_equal(nd.type, SITD_ND_RA);
	assert_int_equal(nd.off, l4off);
	assert_true(nd.fragment);
	assert_false(nd.later_fragment);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_RA_HOST);
	len = mk_nd(p, dst_first, 3, RA, NULL);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_RA_HOST);
	len = mk_nd(p, atomic, 1, RA, NULL);		/* RFC 6946 atomic fragment */
	assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_RA_HOST);
	len = mk(p, first, 1, ICMPV6, REDIRECT, 40, 0, NULL);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_ND_HOST);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT), SITD_ISATAP_ND_NODEFAULT);
	len = mk(p, first, 1, ICMPV6, NS, 32, 0, NULL);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_PASS);

	/*
	 * A first fragment with less than the 8-byte ICMPv6 header: the kernel discards it
	 * (RFC 8200 4.5, ipv6_frag_thdr_truncated), sitd cannot tell: dropped from both.
	 */
	for (unsigned m = 0; m < 8; m++) {
		len = mk(p, first, 1, ICMPV6, RA, m, LIFETIME, NULL);
		assert_int_equal(sitd_ip6_nd(p, len, &nd), 0);
		assert_true(nd.undecided);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_ND_HOST);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT),
				 SITD_ISATAP_ND_NODEFAULT);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_DEFAULT), SITD_ISATAP_PASS);
	}
	/* A first fragment whose chain goes on past its end (a Destination Options header
	 * announced, absent). */
	len = mk(p, first, 1, DSTOPTS, 0, 0, 0, NULL);
	assert_int_equal(sitd_ip6_nd(p, len, &nd), 0);
	assert_true(nd.undecided);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_ND_HOST);

	/*
	 * A later fragment whose payload happens to read like an RA: it carries no ICMPv6
	 * header and passes; reassembly needs the first fragment, which this check judges.
	 */
	len = mk_nd(p, later, 1, RA, NULL);
	memcpy(before, p, len);
	assert_int_equal(sitd_ip6_nd(p, len, &nd), 0);
	assert_int_equal(nd.type, SITD_ND_NONE);
	assert_true(nd.later_fragment);
	assert_false(nd.undecided);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_HOST), SITD_ISATAP_PASS);
	assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT), SITD_ISATAP_PASS);
	assert_memory_equal(p, before, len);
}

/* Which of the 64 bytes from base differ between p and q, as a bit mask; all ones when
 * a byte outside them does. */
static uint64_t diff_mask(const uint8_t *p, const uint8_t *q, uint32_t len, uint32_t base)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < len; i++) {
		if (p[i] == q[i])
			continue;
		if (i < base || i - base >= 64)
			return ~(uint64_t)0;
		m |= (uint64_t)1 << (i - base);
	}
	return m;
}

/*
 * A PRL router without prl-default: its RA's Router Lifetime zeroed behind any chain, the
 * checksum still right by pktgen's sum, and no other byte changed.
 */
static void test_nodefault_rewrite(void **state)
{
	static const struct ext first[] = { HBH(8), FIRST_FRAG, DOPT(8) };
	static uint8_t p[PKT_MAX], before[PKT_MAX];
	const uint64_t allowed = 1u << 2 | 1u << 3 | 1u << 6 | 1u << 7;

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(chains) + 1; c++) {
		const struct ext *x = c < ARRAY_SIZE(chains) ? chains[c].x : first;
		unsigned n = c < ARRAY_SIZE(chains) ? chains[c].n : 3, l4off;
		uint32_t len = mk(p, x, n, ICMPV6, RA, 48, LIFETIME, &l4off);
		uint64_t m;

		assert_true(pg_l4_csum_ok(p, l4off, ICMPV6));
		memcpy(before, p, len);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT), SITD_ISATAP_PASS);
		assert_int_equal(pg_get16(p + l4off + 6), 0);
		assert_true(pg_l4_csum_ok(p, l4off, ICMPV6));
		m = diff_mask(p, before, len, l4off);
		assert_int_equal(m & ~allowed, 0);
		assert_true(m & (1u << 6 | 1u << 7));

		/* Lifetime 0 already: nothing to change. */
		memcpy(before, p, len);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT), SITD_ISATAP_PASS);
		assert_memory_equal(p, before, len);
	}
	/* An RA too short for its lifetime (the kernel drops it, optlen < 0): left alone. */
	for (unsigned mlen = 1; mlen < 8; mlen++) {
		uint32_t len = mk(p, C_DST, 1, ICMPV6, RA, mlen, LIFETIME, NULL);

		memcpy(before, p, len);
		assert_int_equal(check_exact(p, len, SITD_ISATAP_NODEFAULT), SITD_ISATAP_PASS);
		assert_memory_equal(p, before, len);
	}
}

/*
 * Every truncation of an RA behind a chain, in a buffer of exactly its length: with the
 * payload length still claiming the whole packet, and with it cut to match.  Never a
 * read past the end (unit-asan), and the verdicts: a chain that ends past the bytes is
 * undecided, a whole chain with the ICMPv6 type byte an RA, a whole chain with no byte
 * after it nothing at all.
 */
static void test_truncated(void **state)
{
	static uint8_t p[PKT_MAX], full[PKT_MAX];
	unsigned l4off;
	uint32_t len = mk_nd(full, C_ALL, 4, RA, &l4off);

	(void)state;
	for (uint32_t n = 0; n <= len; n++) {
		enum sitd_isatap_verdict v;

		/* The declared payload length as it was. */
		memcpy(p, full, len);
		v = check_exact(p, n, SITD_ISATAP_HOST);
		if (n < 40)
			assert_int_equal(v, SITD_ISATAP_PASS);		/* not an IPv6 header */
		else if (n < len)
			assert_int_equal(v, SITD_ISATAP_ND_HOST);	/* longer than present */
		else
			assert_int_equal(v, SITD_ISATAP_RA_HOST);
		memcpy(p, full, len);
		(void)check_exact(p, n, SITD_ISATAP_NODEFAULT);

		/* The payload length cut to the bytes present. */
		if (n < 40)
			continue;
		memcpy(p, full, len);
		pg_put16(p + 4, (uint16_t)(n - 40));
		v = check_exact(p, n, SITD_ISATAP_HOST);
		if (n < l4off)
			assert_int_equal(v, SITD_ISATAP_ND_HOST);	/* the chain runs past */
		else if (n == l4off)
			assert_int_equal(v, SITD_ISATAP_PASS);		/* no ICMPv6 byte */
		else
			assert_int_equal(v, SITD_ISATAP_RA_HOST);
		memcpy(p, full, len);
		pg_put16(p + 4, (uint16_t)(n - 40));
		v = check_exact(p, n, SITD_ISATAP_NODEFAULT);
		assert_int_equal(v, n < l4off ? SITD_ISATAP_ND_NODEFAULT : SITD_ISATAP_PASS);
		/* Rewritten only when the lifetime was there to rewrite. */
		if (n >= l4off + 8)
			assert_int_equal(pg_get16(p + l4off + 6), 0);
		else
			assert_memory_equal(p + 40, full + 40, n - 40);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nd_classify),
		cmocka_unit_test(test_ra_host_behind_chains),
		cmocka_unit_test(test_redirect),
		cmocka_unit_test(test_rs_ns_na_pass),
		cmocka_unit_test(test_other_pass),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_nodefault_rewrite),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
