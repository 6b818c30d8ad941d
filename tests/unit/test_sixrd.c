/* SPDX-License-Identifier: MIT */
/*
 * The kernel sit's automatic tunnels (sixrd.h): 6rd/6to4 mapping both ways against a
 * bit-by-bit oracle for every prefix and relay length the kernel accepts, worked examples
 * (computed independently with Python's ipaddress), the setter's exact boundaries, the
 * receive anti-spoofing checks (packet_is_spoofed, only_dnatted, isatap_chksrc), the
 * outer destination choice (ipip6_tunnel_xmit), the PRL and the 6rd MTU.  The `ip tunnel
 * 6rd` / `ip tunnel prl` grammars: test_sixrd_cmd.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "core/sixrd.h"
#include "core/wire.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define A(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static void v6(const char *s, uint8_t out[16])
{
	if (inet_pton(AF_INET6, s, out) != 1)
		fail_msg("bad test address %s", s);
}

static uint32_t v4(const char *s)
{
	uint8_t b[4];

	if (inet_pton(AF_INET, s, b) != 1)
		fail_msg("bad test address %s", s);
	return rd32(b);
}

/* ---- The oracle: one bit at a time ---- */

static unsigned bit6(const uint8_t *a, unsigned i)
{
	return (a[i / 8] >> (7 - i % 8)) & 1u;
}

static void setbit6(uint8_t *a, unsigned i, unsigned v)
{
	if (v)
		a[i / 8] = (uint8_t)(a[i / 8] | (0x80u >> (i % 8)));
	else
		a[i / 8] = (uint8_t)(a[i / 8] & ~(0x80u >> (i % 8)));
}

static unsigned bit4(uint32_t a, unsigned i)
{
	return (a >> (31 - i)) & 1u;
}

/* A pseudo-random byte stream, so the patterns differ per length. */
static uint32_t rng = 12345;
static uint8_t rnd8(void)
{
	rng = rng * 1103515245u + 12345u;
	return (uint8_t)(rng >> 16);
}

/* ---- Mapping on every length ---- */

static void test_map_every_length(void **state)
{
	static const uint32_t ce[] = {
		0x00000001u, 0xffffffffu, 0x80000000u, 0xc0000201u, 0x0a646401u, 0x5a5aa5a5u,
	};
	unsigned combos = 0;

	(void)state;
	for (unsigned pl = 0; pl <= 64; pl++) {
		for (unsigned rl = 0; rl <= 32; rl++) {
			struct sitd_6rd r;
			uint8_t prefix[16], addr[16], out[16];
			uint32_t relay = 0, got;
			unsigned n = 32 - rl;

			if (pl + n > 64)
				continue;
			combos++;
			/* A random prefix and relay prefix, cleared bit by bit past their lengths. */
			for (unsigned i = 0; i < 16; i++)
				prefix[i] = rnd8();
			for (unsigned i = pl; i < 128; i++)
				setbit6(prefix, i, 0);
			for (unsigned i = 0; i < 4; i++)
				relay = relay << 8 | rnd8();
			for (unsigned i = rl; i < 32; i++)
				relay &= ~(1u << (31 - i));
			assert_int_equal(sitd_6rd_set(&r, prefix, pl, relay, rl), SITD_6RD_OK);
			assert_int_equal(sitd_6rd_delegated_len(&r), pl + n);

			for (size_t k = 0; k < ARRAY_SIZE(ce); k++) {
				uint32_t want = relay;

				/* The address: prefix, then the CE's low n bits, then noise. */
				for (unsigned i = 0; i < 16; i++)
					addr[i] = rnd8();
				for (unsigned i = 0; i < pl; i++)
					setbit6(addr, i, bit6(prefix, i));
				for (unsigned i = 0; i < n; i++)
					setbit6(addr, pl + i, bit4(ce[k], rl + i));
				for (unsigned i = 0; i < n; i++)
					want |= (uint32_t)bit4(ce[k], rl + i) << (n - 1 - i);
				got = 0xdeadbeef;
				assert_true(sitd_6rd_v4(&r, addr, &got));
				if (got != want)
					fail_msg("pl %u rl %u ce %08x: got %08x want %08x", pl, rl, ce[k], got, want);
				assert_int_equal(sitd_6rd_dst(&r, addr), want);

				/* Inverse: the delegated prefix, exactly those bits, zero after. */
				assert_int_equal(sitd_6rd_delegated(&r, ce[k], out), pl + n);
				for (unsigned i = 0; i < 128; i++) {
					unsigned w = i < pl + n ? bit6(addr, i) : 0;

					if (bit6(out, i) != w)
						fail_msg("pl %u rl %u: delegated bit %u", pl, rl, i);
				}
				/* And back: the CE's low bits under the relay prefix. */
				assert_true(sitd_6rd_v4(&r, out, &got));
				assert_int_equal(got, want);

				/* A bit flipped inside the 6rd prefix: outside, no mapping. */
				if (pl) {
					setbit6(addr, pl - 1, !bit6(addr, pl - 1));
					assert_false(sitd_6rd_v4(&r, addr, &got));
					assert_int_equal(sitd_6rd_dst(&r, addr), 0);
				}
			}
		}
	}
	/* Sum over relay lengths of the prefix lengths allowed: 33 * 33 + (1 + ... + 32). */
	assert_int_equal(combos, 33 * 33 + 32 * 33 / 2);
}

/* ---- Worked examples ---- */

struct example {
	const char *prefix;
	unsigned pl;
	const char *relay;
	unsigned rl;
	const char *ce;
	const char *delegated;
	unsigned dlen;
};

/* Expected values computed independently (Python ipaddress), prefixes from 2001:db8::/32. */
static const struct example examples[] = {
	/* 6to4, RFC 3056 2: 2002:V4ADDR::/48. */
	{ "2002::", 16, "0.0.0.0", 0, "192.0.2.1", "2002:c000:201::", 48 },
	/* 6rd, RFC 5969 4: whole IPv4 address after a /32, a /64 per CE. */
	{ "2001:db8::", 32, "0.0.0.0", 0, "192.0.2.10", "2001:db8:c000:20a::", 64 },
	/* IPv4MaskLen 8 (RFC 5969 7.1.1): 198.0.0.0/8 common, 24 bits carried, a /56. */
	{ "2001:db8::", 32, "198.0.0.0", 8, "198.100.100.1", "2001:db8:6464:100::", 56 },
	/* Offsets and lengths off byte boundaries. */
	{ "2001:db8::", 30, "192.0.0.0", 2, "203.0.113.7", "2001:db8:b007:1070::", 60 },
	{ "2001:db8:f000::", 36, "198.48.0.0", 13, "198.51.100.77", "2001:db8:f6c8:9a00::", 55 },
	{ "2001:db8:ab00::", 41, "198.48.0.0", 12, "198.48.5.200", "2001:db8:ab00:2e40::", 61 },
};

static void test_examples(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(examples); i++) {
		const struct example *e = &examples[i];
		struct sitd_6rd r;
		uint8_t p[16], want[16], out[16], host[16];
		uint32_t got;

		v6(e->prefix, p);
		v6(e->delegated, want);
		assert_int_equal(sitd_6rd_set(&r, p, e->pl, v4(e->relay), e->rl), SITD_6RD_OK);
		assert_int_equal(sitd_6rd_delegated(&r, v4(e->ce), out), e->dlen);
		assert_memory_equal(out, want, 16);
		/* A host inside the delegated prefix maps back to the CE. */
		memcpy(host, want, 16);
		host[15] = 0x42;
		host[9] |= 0x01;	/* subnet bits beyond a /56, /60, /61 or /64 are noise */
		assert_true(sitd_6rd_v4(&r, host, &got));
		assert_int_equal(got, v4(e->ce));
	}
}

static void test_6to4_default(void **state)
{
	struct sitd_6rd r;
	uint8_t a[16], out[16];
	uint32_t got;

	(void)state;
	memset(&r, 0xa5, sizeof(r));
	sitd_6rd_reset(&r);
	assert_int_equal(r.prefixlen, 16);
	assert_int_equal(r.relay_prefixlen, 0);
	assert_int_equal(r.relay_prefix, 0);
	v6("2002::", a);
	assert_memory_equal(r.prefix, a, 16);

	v6("2002:c000:0201::", a);
	assert_int_equal(sitd_6rd_dst(&r, a), A(192, 0, 2, 1));
	v6("2002:c000:0201:1234:abcd::5", a);
	assert_int_equal(sitd_6rd_dst(&r, a), A(192, 0, 2, 1));
	v6("2002:cb00:7101::1", a);
	assert_int_equal(sitd_6rd_dst(&r, a), A(203, 0, 113, 1));
	v6("2001:db8::1", a);
	assert_false(sitd_6rd_v4(&r, a, &got));
	v6("2003:c000:201::1", a);
	assert_int_equal(sitd_6rd_dst(&r, a), 0);
	/* 2002:0000:0000:: embeds 0.0.0.0: check_6rd matches, try_6rd says "none". */
	v6("2002::1", a);
	assert_true(sitd_6rd_v4(&r, a, &got));
	assert_int_equal(got, 0);
	assert_int_equal(sitd_6rd_dst(&r, a), 0);
	assert_int_equal(sitd_6rd_delegated(&r, A(192, 0, 2, 1), out), 48);
	v6("2002:c000:201::", a);
	assert_memory_equal(out, a, 16);
}

/* ---- The setter's rules (ipip6_tunnel_update_6rd) ---- */

struct validity {
	unsigned pl, rl;
	int want;
};

static const struct validity validity[] = {
	{ 0, 0, SITD_6RD_OK },		/* the whole IPv4 address as the first 32 bits */
	{ 16, 0, SITD_6RD_OK },		/* 6to4 */
	{ 32, 0, SITD_6RD_OK },		/* boundary: 32 + 32 = 64 */
	{ 33, 0, SITD_6RD_ELEN },
	{ 48, 16, SITD_6RD_OK },
	{ 49, 16, SITD_6RD_ELEN },
	{ 63, 31, SITD_6RD_OK },
	{ 64, 31, SITD_6RD_ELEN },
	{ 64, 32, SITD_6RD_OK },	/* nothing embedded: every address maps to the relay */
	{ 65, 32, SITD_6RD_ELEN },
	{ 128, 32, SITD_6RD_ELEN },
	{ 0, 32, SITD_6RD_OK },
	{ 0, 33, SITD_6RD_ERELAYLEN },
	{ 64, 33, SITD_6RD_ERELAYLEN },
	{ 0, 255, SITD_6RD_ERELAYLEN },
	{ 65535, 0, SITD_6RD_ELEN },	/* the kernel's u16 fields */
};

static void test_validity(void **state)
{
	const uint8_t zero16[16] = { 0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(validity); i++) {
		struct sitd_6rd r, before;

		sitd_6rd_reset(&r);
		before = r;
		if (sitd_6rd_set(&r, zero16, validity[i].pl, 0, validity[i].rl) != validity[i].want)
			fail_msg("pl %u rl %u: want %d", validity[i].pl, validity[i].rl, validity[i].want);
		if (validity[i].want != SITD_6RD_OK)
			assert_memory_equal(&r, &before, sizeof(r));	/* refused: untouched */
		assert_non_null(sitd_6rd_strerror(validity[i].want));
	}
	/* Every combination against the rule written out. */
	for (unsigned pl = 0; pl <= 130; pl++)
		for (unsigned rl = 0; rl <= 40; rl++) {
			struct sitd_6rd r;
			int ok = rl <= 32 && (int)pl + 32 - (int)rl <= 64;

			assert_int_equal(sitd_6rd_set(&r, zero16, pl, 0, rl) == SITD_6RD_OK, ok);
		}
}

static void test_host_bits(void **state)
{
	struct sitd_6rd r, before;
	uint8_t p[16];

	(void)state;
	sitd_6rd_reset(&r);
	before = r;
	/* The kernel masks and compares: stray bits are EINVAL, not corrected. */
	v6("2001:db8::1", p);
	assert_int_equal(sitd_6rd_set(&r, p, 32, 0, 0), SITD_6RD_EPREFIX);
	v6("2001:db8:8000::", p);			/* bit 32 */
	assert_int_equal(sitd_6rd_set(&r, p, 32, 0, 0), SITD_6RD_EPREFIX);
	assert_int_equal(sitd_6rd_set(&r, p, 33, 0, 1), SITD_6RD_OK);
	v6("2001:db9::", p);				/* bit 31 with a /31 */
	assert_int_equal(sitd_6rd_set(&r, p, 31, 0, 0), SITD_6RD_EPREFIX);
	assert_int_equal(sitd_6rd_set(&r, p, 32, 0, 0), SITD_6RD_OK);
	v6("::", p);
	assert_int_equal(sitd_6rd_set(&r, p, 32, A(198, 0, 0, 1), 8), SITD_6RD_ERELAY);
	assert_int_equal(sitd_6rd_set(&r, p, 32, A(198, 128, 0, 0), 8), SITD_6RD_ERELAY);
	assert_int_equal(sitd_6rd_set(&r, p, 32, A(198, 128, 0, 0), 9), SITD_6RD_OK);
	assert_int_equal(sitd_6rd_set(&r, p, 32, A(0, 0, 0, 1), 0), SITD_6RD_ERELAY);
	assert_int_equal(sitd_6rd_set(&r, p, 64, A(1, 2, 3, 4), 32), SITD_6RD_OK);
	assert_int_equal(r.relay_prefix, A(1, 2, 3, 4));
	sitd_6rd_reset(&r);
	v6("2001:db8::1", p);
	assert_int_equal(sitd_6rd_set(&r, p, 32, 0, 0), SITD_6RD_EPREFIX);
	assert_memory_equal(&r, &before, sizeof(r));
	/* A /0 prefix has nothing to clear, and all of the IPv6 space is inside it. */
	v6("::", p);
	assert_int_equal(sitd_6rd_set(&r, p, 0, 0, 0), SITD_6RD_OK);
	v6("c000:201:ffff::", p);
	assert_int_equal(sitd_6rd_dst(&r, p), A(192, 0, 2, 1));
}

/* ---- Receive checks ---- */

static struct sitd_6rd rd6to4;
static struct sitd_if6 own[2];
static struct sitd_auto tun6to4;

static int setup_6to4(void **state)
{
	(void)state;
	sitd_6rd_reset(&rd6to4);
	memset(own, 0, sizeof(own));
	v6("2002:c000:201::1", own[0].addr);	/* 192.0.2.1's 6to4 prefix */
	own[0].plen = 64;
	v6("fe80::c000:201", own[1].addr);
	own[1].plen = 64;
	memset(&tun6to4, 0, sizeof(tun6to4));
	tun6to4.rd = &rd6to4;
	tun6to4.addrs = own;
	tun6to4.naddrs = 2;
	return 0;
}

struct spoof_case {
	const char *what;
	const char *osrc, *odst, *isrc, *idst;
	enum sitd_spoof want;
};

static const struct spoof_case spoof_cases[] = {
	{ "6to4 both ends consistent", "198.51.100.1", "192.0.2.1", "2002:c633:6401::1",
	  "2002:c000:201::1", SITD_SPOOF_OK },
	{ "native source through a relay", "198.51.100.9", "192.0.2.1", "2001:db8::1",
	  "2002:c000:201::1", SITD_SPOOF_OK },
	{ "native destination", "198.51.100.1", "192.0.2.1", "2002:c633:6401::1", "2001:db8::2",
	  SITD_SPOOF_OK },
	{ "source embeds another address", "198.51.100.1", "192.0.2.1", "2002:cb00:7101::1",
	  "2002:c000:201::1", SITD_SPOOF_SRC },
	{ "destination embeds another address", "198.51.100.1", "192.0.2.1", "2002:c633:6401::1",
	  "2002:cb00:7102::1", SITD_SPOOF_DST },
	{ "both spoofed: the source is checked first", "198.51.100.1", "192.0.2.1",
	  "2002:cb00:7101::1", "2002:cb00:7102::1", SITD_SPOOF_SRC },
	{ "NAT in front: outer destination a NAT's, inner in our own prefix", "198.51.100.1",
	  "203.0.113.5", "2002:c633:6401::1", "2002:c000:201::99", SITD_SPOOF_OK },
	{ "our /48, another subnet: only_dnatted compares 48 bits", "198.51.100.1", "203.0.113.5",
	  "2002:c633:6401::1", "2002:c000:201:ffff::1", SITD_SPOOF_OK },
	{ "NAT but a destination outside our /48", "198.51.100.1", "203.0.113.5", "2002:c633:6401::1",
	  "2002:c000:202::1", SITD_SPOOF_DST },
	{ "the source may not use the NAT excuse", "203.0.113.5", "192.0.2.1", "2002:c000:201::1",
	  "2002:c000:201::1", SITD_SPOOF_SRC },
};

static void test_spoof(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(spoof_cases); i++) {
		const struct spoof_case *c = &spoof_cases[i];
		uint8_t s[16], d[16];
		enum sitd_isatap_node node = SITD_ISATAP_HOST;
		enum sitd_spoof got;

		v6(c->isrc, s);
		v6(c->idst, d);
		got = sitd_packet_is_spoofed(&tun6to4, v4(c->osrc), v4(c->odst), s, d, &node);
		if (got != c->want)
			fail_msg("%s: got %d want %d", c->what, got, c->want);
		assert_int_equal(node, SITD_ISATAP_REFUSED);	/* not an ISATAP tunnel */
		/* A point-to-point tunnel (remote set) checks nothing. */
		tun6to4.remote = v4("203.0.113.1");
		assert_int_equal(sitd_packet_is_spoofed(&tun6to4, v4(c->osrc), v4(c->odst), s, d, NULL),
				 SITD_SPOOF_OK);
		tun6to4.remote = 0;
	}
}

static void test_spoof_6rd_relay(void **state)
{
	struct sitd_6rd r;
	struct sitd_if6 mine = { .plen = 64 };
	struct sitd_auto t = { .rd = &r, .addrs = &mine, .naddrs = 1 };
	uint8_t p[16], s[16], d[16];

	(void)state;
	v6("2001:db8::", p);
	assert_int_equal(sitd_6rd_set(&r, p, 32, A(198, 0, 0, 0), 8), SITD_6RD_OK);
	sitd_6rd_delegated(&r, A(198, 9, 9, 9), mine.addr);	/* our /56 */
	mine.addr[15] = 1;
	v6("2001:db8:0102:0300::1", s);				/* CE 198.1.2.3 */
	v6("2001:db8:0909:0900::5", d);				/* CE 198.9.9.9: us */
	assert_int_equal(sitd_packet_is_spoofed(&t, A(198, 1, 2, 3), A(198, 9, 9, 9), s, d, NULL),
			 SITD_SPOOF_OK);
	/* Outside the relay prefix the embedded address can never match. */
	assert_int_equal(sitd_packet_is_spoofed(&t, A(199, 1, 2, 3), A(198, 9, 9, 9), s, d, NULL),
			 SITD_SPOOF_SRC);
	/* Destination another CE, outer destination us: spoofed (not our /56). */
	v6("2001:db8:0909:0a00::5", d);
	assert_int_equal(sitd_packet_is_spoofed(&t, A(198, 1, 2, 3), A(198, 9, 9, 9), s, d, NULL),
			 SITD_SPOOF_DST);
	/* Inside our /56 whatever the outer destination (a NAT rewrote it). */
	v6("2001:db8:0909:09ff::5", d);
	assert_int_equal(sitd_packet_is_spoofed(&t, A(198, 1, 2, 3), A(192, 168, 1, 2), s, d, NULL),
			 SITD_SPOOF_OK);
	assert_true(sitd_6rd_only_dnatted(&t, d));
	assert_true(sitd_6rd_is_spoofed(&r, A(192, 168, 1, 2), d));
	assert_false(sitd_6rd_is_spoofed(&r, A(198, 9, 9, 9), d));
}

/* ---- ISATAP ---- */

static void test_isatap_chksrc(void **state)
{
	struct sitd_prl_entry st[4];
	struct sitd_prl prl;
	struct sitd_if6 addrs[2];
	struct sitd_6rd r;
	struct sitd_auto t = { .rd = &r, .prl = &prl, .addrs = addrs, .naddrs = 2, .isatap = true };
	static const struct {
		const char *osrc, *isrc;
		enum sitd_isatap_node want;
	} cases[] = {
		{ "192.0.2.254", "2001:db8:99::1", SITD_ISATAP_DEFAULT },	/* PRL: any inner */
		{ "192.0.2.253", "fe80::1", SITD_ISATAP_NODEFAULT },
		{ "192.0.2.7", "fe80::5efe:c000:207", SITD_ISATAP_HOST },
		{ "192.0.2.7", "fe80::200:5efe:c000:207", SITD_ISATAP_HOST },	/* global u bit */
		{ "192.0.2.7", "fe80::300:5efe:c000:207", SITD_ISATAP_REFUSED },	/* g bit */
		{ "192.0.2.7", "fe80::100:5efe:c000:207", SITD_ISATAP_REFUSED },
		{ "192.0.2.7", "fe80::5efe:c000:208", SITD_ISATAP_REFUSED },	/* another v4 */
		{ "192.0.2.7", "fe80::5eff:c000:207", SITD_ISATAP_REFUSED },
		{ "192.0.2.7", "2001:db8:1::5efe:c000:207", SITD_ISATAP_HOST },	/* our /64 */
		{ "192.0.2.7", "2001:db8:2::5efe:c000:207", SITD_ISATAP_REFUSED },	/* not on-link */
		{ "192.0.2.7", "fe81::5efe:c000:207", SITD_ISATAP_REFUSED },	/* not our fe80::/64 */
		{ "192.0.2.7", "2001:db8::1", SITD_ISATAP_REFUSED },
	};
	uint8_t s[16], d[16];

	(void)state;
	sitd_6rd_reset(&r);
	sitd_prl_init(&prl, st, 4);
	assert_int_equal(sitd_prl_add(&prl, A(192, 0, 2, 254), SITD_PRL_DEFAULT, false), 0);
	assert_int_equal(sitd_prl_add(&prl, A(192, 0, 2, 253), 0, false), 0);
	memset(addrs, 0, sizeof(addrs));
	v6("fe80::5efe:c000:201", addrs[0].addr);
	addrs[0].plen = 64;
	v6("2001:db8:1::5efe:c000:201", addrs[1].addr);
	addrs[1].plen = 64;
	v6("2002:c000:201::1", d);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum sitd_isatap_node node = 99;
		enum sitd_spoof want = cases[i].want == SITD_ISATAP_REFUSED ? SITD_SPOOF_ISATAP_SRC
									    : SITD_SPOOF_OK;

		v6(cases[i].isrc, s);
		if (sitd_isatap_chksrc(&t, v4(cases[i].osrc), s) != cases[i].want)
			fail_msg("case %zu (%s from %s)", i, cases[i].isrc, cases[i].osrc);
		/* packet_is_spoofed on ISATAP: the source only, whatever the remote or 6rd. */
		t.remote = 0;
		assert_int_equal(sitd_packet_is_spoofed(&t, v4(cases[i].osrc), A(9, 9, 9, 9), s, d, &node), want);
		assert_int_equal(node, cases[i].want);
		t.remote = A(203, 0, 113, 1);
		assert_int_equal(sitd_packet_is_spoofed(&t, v4(cases[i].osrc), A(9, 9, 9, 9), s, d, NULL), want);
	}
	/* No addresses on the device: no host is on-link. */
	t.naddrs = 0;
	v6("fe80::5efe:c000:207", s);
	assert_int_equal(sitd_isatap_chksrc(&t, A(192, 0, 2, 7), s), SITD_ISATAP_REFUSED);
	/* A /0 address on the device makes every ISATAP address on-link. */
	t.naddrs = 1;
	addrs[0].plen = 0;
	v6("2001:db8:77::5efe:c000:207", s);
	assert_int_equal(sitd_isatap_chksrc(&t, A(192, 0, 2, 7), s), SITD_ISATAP_HOST);
	/* No PRL at all (NULL) is an empty one. */
	t.prl = NULL;
	v6("fe80::1", s);
	assert_int_equal(sitd_isatap_chksrc(&t, A(192, 0, 2, 254), s), SITD_ISATAP_REFUSED);
}

static void test_isatap_addr(void **state)
{
	uint8_t p[16], out[16], want[16];

	(void)state;
	v6("fe80::", p);
	sitd_isatap_addr(p, A(192, 0, 2, 1), false, out);
	v6("fe80::5efe:c000:201", want);
	assert_memory_equal(out, want, 16);
	assert_true(sitd_ip6_is_isatap(out));
	v6("2001:db8:1::", p);
	sitd_isatap_addr(p, A(203, 0, 113, 1), true, out);
	v6("2001:db8:1:0:200:5efe:cb00:7101", want);
	assert_memory_equal(out, want, 16);
	assert_true(sitd_ip6_is_isatap(out));
}

/* ---- Address classes ---- */

static void test_addr_classes(void **state)
{
	static const struct {
		const char *a;
		bool isatap, compat, unicast;
	} cases[] = {
		{ "::", false, false, false },
		{ "::1", false, false, true },		/* loopback: unicast, not compatible */
		{ "::2", false, true, true },		/* 0.0.0.2 is "compatible" */
		{ "::192.0.2.1", false, true, true },
		{ "::ffff:192.0.2.1", false, false, false },	/* mapped: not unicast */
		{ "::1:0:0:c000:201", false, false, true },
		{ "ff02::5efe:c000:201", true, false, false },
		{ "fe80::5efe:c000:201", true, false, true },
		{ "fe80::200:5efe:c000:201", true, false, true },
		{ "fe80::400:5efe:c000:201", false, false, true },
		{ "fc00::5efe:a00:1", true, false, true },
		{ "2001:db8::", false, false, true },
		{ "e000::", false, false, true },
		{ "fec0::1", false, false, true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint8_t a[16];

		v6(cases[i].a, a);
		if (sitd_ip6_is_isatap(a) != cases[i].isatap || sitd_ip6_is_v4compat(a) != cases[i].compat ||
		    sitd_ip6_is_unicast(a) != cases[i].unicast)
			fail_msg("%s", cases[i].a);
	}
}

static void test_prefix_equal(void **state)
{
	uint8_t a[16], b[16];

	(void)state;
	v6("2001:db8:ffff::", a);
	v6("2001:db8:fffe::", b);
	assert_true(sitd_ip6_prefix_equal(a, b, 0));
	assert_true(sitd_ip6_prefix_equal(a, b, 46));
	assert_true(sitd_ip6_prefix_equal(a, b, 46));
	assert_true(sitd_ip6_prefix_equal(a, b, 47));
	assert_false(sitd_ip6_prefix_equal(a, b, 48));
	assert_true(sitd_ip6_prefix_equal(a, a, 128));
	assert_false(sitd_ip6_prefix_equal(a, a, 129));
}

/* ---- Transmit: the outer destination ---- */

struct dst_case {
	const char *what;
	bool isatap;
	const char *remote;
	const char *idst;
	const char *nexthop;	/* NULL: no route */
	enum sitd_auto_dst want;
	const char *v4;
};

static const struct dst_case dst_cases[] = {
	{ "remote set: fixed", false, "203.0.113.1", "2002:c000:201::1", NULL, SITD_DST_OK, "203.0.113.1" },
	{ "6to4 destination", false, "0.0.0.0", "2002:c000:201::1", NULL, SITD_DST_OK, "192.0.2.1" },
	{ "6to4 beats the next hop", false, "0.0.0.0", "2002:c000:201::1", "::198.51.100.1",
	  SITD_DST_OK, "192.0.2.1" },
	{ "native via ::a.b.c.d", false, "0.0.0.0", "2001:db8::1", "::192.0.2.9", SITD_DST_OK,
	  "192.0.2.9" },
	{ "native, no route", false, "0.0.0.0", "2001:db8::1", NULL, SITD_DST_NO_NEXTHOP, "0.0.0.0" },
	{ "native via a link-local router", false, "0.0.0.0", "2001:db8::1", "fe80::1",
	  SITD_DST_NOT_V4COMPAT, "0.0.0.0" },
	{ "next hop :: means the destination itself", false, "0.0.0.0", "::198.51.100.3", "::",
	  SITD_DST_OK, "198.51.100.3" },
	{ "next hop ::, destination native", false, "0.0.0.0", "2001:db8::1", "::",
	  SITD_DST_NOT_V4COMPAT, "0.0.0.0" },
	{ "on-link route: the next hop is the destination", false, "0.0.0.0", "::192.0.2.77",
	  "::192.0.2.77", SITD_DST_OK, "192.0.2.77" },
	{ "v4-mapped next hop is not compatible", false, "0.0.0.0", "2001:db8::1",
	  "::ffff:192.0.2.9", SITD_DST_NOT_V4COMPAT, "0.0.0.0" },
	{ "::1 is not compatible", false, "0.0.0.0", "2001:db8::1", "::1", SITD_DST_NOT_V4COMPAT,
	  "0.0.0.0" },
	{ "2002::/48 embedding 0.0.0.0 falls through", false, "0.0.0.0", "2002::1", "::192.0.2.9",
	  SITD_DST_OK, "192.0.2.9" },
	{ "ISATAP neighbour", true, "0.0.0.0", "2001:db8::1", "fe80::5efe:c000:2fe", SITD_DST_OK,
	  "192.0.2.254" },
	{ "ISATAP replaces the remote", true, "203.0.113.1", "2001:db8::1", "fe80::200:5efe:c000:2fe",
	  SITD_DST_OK, "192.0.2.254" },
	{ "ISATAP comes before 6to4", true, "0.0.0.0", "2002:c000:201::1", "fe80::5efe:c000:2fe",
	  SITD_DST_OK, "192.0.2.254" },
	{ "ISATAP without a route", true, "203.0.113.1", "2001:db8::1", NULL, SITD_DST_NO_NEXTHOP,
	  "0.0.0.0" },
	{ "ISATAP, next hop not ISATAP", true, "0.0.0.0", "2002:c000:201::1", "fe80::1",
	  SITD_DST_NOT_ISATAP, "0.0.0.0" },
	{ "ISATAP, multicast next hop", true, "0.0.0.0", "2001:db8::1", "ff02::5efe:c000:201",
	  SITD_DST_NOT_ISATAP, "0.0.0.0" },
};

static void test_tx_dst(void **state)
{
	struct sitd_6rd r;

	(void)state;
	sitd_6rd_reset(&r);
	for (size_t i = 0; i < ARRAY_SIZE(dst_cases); i++) {
		const struct dst_case *c = &dst_cases[i];
		struct sitd_auto t = { .rd = &r, .remote = v4(c->remote), .isatap = c->isatap };
		uint8_t d[16], nh[16];
		uint32_t got = 0x12345678;

		v6(c->idst, d);
		if (c->nexthop)
			v6(c->nexthop, nh);
		if (sitd_auto_tx_dst(&t, d, c->nexthop ? nh : NULL, &got) != c->want)
			fail_msg("%s", c->what);
		assert_int_equal(got, v4(c->v4));
	}
}

/* ---- PRL ---- */

static void test_prl(void **state)
{
	struct sitd_prl_entry st[3], out[4];
	struct sitd_prl p;
	const uint32_t a = A(192, 0, 2, 1), b = A(192, 0, 2, 2), c = A(192, 0, 2, 3);

	(void)state;
	sitd_prl_init(&p, st, 3);
	assert_int_equal(sitd_prl_add(&p, 0, SITD_PRL_DEFAULT, false), -EINVAL);
	assert_int_equal(sitd_prl_add(&p, 0, 0, true), -EINVAL);
	assert_int_equal(sitd_prl_add(&p, a, SITD_PRL_DEFAULT, false), 0);
	assert_int_equal(sitd_prl_add(&p, a, 0, false), -EEXIST);	/* ADDPRL never changes */
	assert_int_equal(sitd_prl_find(&p, a)->flags, SITD_PRL_DEFAULT);
	assert_int_equal(sitd_prl_add(&p, a, 0, true), 0);		/* CHGPRL does */
	assert_int_equal(sitd_prl_find(&p, a)->flags, 0);
	assert_int_equal(sitd_prl_add(&p, b, 0, true), -ENXIO);	/* CHGPRL never adds */
	assert_null(sitd_prl_find(&p, b));
	assert_int_equal(sitd_prl_add(&p, b, SITD_PRL_DEFAULT, false), 0);
	assert_int_equal(sitd_prl_add(&p, c, 0, false), 0);
	assert_int_equal(sitd_prl_add(&p, A(192, 0, 2, 4), 0, false), -ENOBUFS);	/* full */
	assert_int_equal(p.n, 3);

	/* SIOCGETPRL: newest first; one address alone; at most max. */
	assert_int_equal(sitd_prl_get(&p, 0, out, 4), 3);
	assert_int_equal(out[0].addr, c);
	assert_int_equal(out[1].addr, b);
	assert_int_equal(out[1].flags, SITD_PRL_DEFAULT);
	assert_int_equal(out[2].addr, a);
	assert_int_equal(sitd_prl_get(&p, 0, out, 2), 2);
	assert_int_equal(out[1].addr, b);
	assert_int_equal(sitd_prl_get(&p, b, out, 4), 1);
	assert_int_equal(out[0].addr, b);
	assert_int_equal(sitd_prl_get(&p, A(192, 0, 2, 9), out, 4), 0);

	assert_int_equal(sitd_prl_del(&p, b), 0);
	assert_int_equal(sitd_prl_del(&p, b), -ENXIO);
	assert_null(sitd_prl_find(&p, b));
	assert_int_equal(sitd_prl_get(&p, 0, out, 4), 2);
	assert_int_equal(out[0].addr, c);
	assert_int_equal(out[1].addr, a);
	assert_int_equal(sitd_prl_add(&p, b, 0, false), 0);		/* room again */
	assert_int_equal(sitd_prl_del(&p, 0), 0);			/* INADDR_ANY: flush */
	assert_int_equal(p.n, 0);
	assert_null(sitd_prl_find(&p, a));
	assert_int_equal(sitd_prl_del(&p, 0), 0);			/* flushing nothing is fine */

	sitd_prl_init(&p, NULL, 8);					/* no storage: nothing fits */
	assert_int_equal(sitd_prl_add(&p, a, 0, false), -ENOBUFS);
}

/* ---- MTU (RFC 5969 9.1) ---- */

static void test_mtu(void **state)
{
	struct sitd_conf c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.mode = SITD_MODE_SIT;
	assert_int_equal(sitd_6rd_mtu_default(&c, 0), 1280);		/* unknown */
	assert_int_equal(sitd_6rd_mtu_default(&c, 1500), 1480);	/* the RFC's example */
	assert_int_equal(sitd_6rd_mtu_default(&c, 1492), 1472);	/* PPPoE */
	assert_int_equal(sitd_6rd_mtu_default(&c, 1300), 1280);	/* never below IPv6's minimum */
	assert_int_equal(sitd_6rd_mtu_default(&c, 576), 1280);
	assert_int_equal(sitd_6rd_mtu_default(&c, 70000), 65515);	/* nor above the maximum */
	c.encap = SITD_ENCAP_FOU;
	assert_int_equal(sitd_6rd_mtu_default(&c, 1500), 1472);
	assert_int_equal(sitd_6rd_mtu_default(&c, 0), 1280);
}

/* An independent one's-complement sum over an ICMPv6 packet with its pseudo-header. */
static uint16_t icmp6_sum(const uint8_t *p, uint32_t len)
{
	uint32_t s = 0, plen = len - 40;

	for (int i = 8; i < 40; i += 2)		/* source and destination */
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	s += plen + 58;
	for (uint32_t i = 40; i < len; i += 2)
		s += (uint32_t)(p[i] << 8 | (i + 1 < len ? p[i + 1] : 0));
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* A PRL router without PRL_DEFAULT: its RA's router lifetime 0, the checksum still
 * right; an RA already so, and a solicitation, untouched. */
static void test_ra_no_default(void **state)
{
	uint8_t p[40 + 16] = { 0x60, [4] = 0, [5] = 16, [6] = 58, [7] = 255,
			       [8] = 0xfe, [9] = 0x80, [23] = 1, [24] = 0xfe, [25] = 0x80, [39] = 2,
			       [40] = 134, [44] = 64, [46] = 0x07, [47] = 0x08, [48] = 0, [51] = 5 };
	uint8_t was[sizeof(p)];
	uint16_t c;

	(void)state;
	c = (uint16_t)~icmp6_sum(p, sizeof(p));
	p[42] = (uint8_t)(c >> 8);
	p[43] = (uint8_t)c;
	assert_int_equal(icmp6_sum(p, sizeof(p)), 0xffff);
	assert_int_equal(sitd_isatap_nd_check(p, sizeof(p), SITD_ISATAP_NODEFAULT), SITD_ISATAP_PASS);
	assert_int_equal(p[46] | p[47], 0);
	assert_int_equal(icmp6_sum(p, sizeof(p)), 0xffff);
	memcpy(was, p, sizeof(p));
	assert_int_equal(sitd_isatap_nd_check(p, sizeof(p), SITD_ISATAP_NODEFAULT), SITD_ISATAP_PASS);
	assert_memory_equal(p, was, sizeof(p));		/* lifetime 0 already */
	p[40] = 133;	/* a solicitation: not an advertisement */
	p[46] = 0x07;
	memcpy(was, p, sizeof(p));
	assert_int_equal(sitd_isatap_nd_check(p, sizeof(p), SITD_ISATAP_NODEFAULT), SITD_ISATAP_PASS);
	assert_memory_equal(p, was, sizeof(p));
}

/* sitd_routes6_nexthop: the longest prefix wins; :: on the link; none: NULL. */
static void test_routes6(void **state)
{
	static struct sitd_routes6 rt;
	uint8_t d[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x99, [15] = 7 };
	const uint8_t *nh;

	(void)state;
	assert_null(sitd_routes6_nexthop(NULL, d));
	assert_null(sitd_routes6_nexthop(&rt, d));
	rt.n = 3;
	rt.r[0].len = 0;					/* ::/0 via ::192.0.2.254 */
	rt.r[0].gw[12] = 192, rt.r[0].gw[14] = 2, rt.r[0].gw[15] = 254;
	memcpy(rt.r[1].dst, d, 6);				/* 2001:db8:99::/48 on the link */
	rt.r[1].len = 48;
	memcpy(rt.r[2].dst, d, 4);				/* 2001:db8::/32 via ::192.0.2.9 */
	rt.r[2].len = 32;
	rt.r[2].gw[12] = 192, rt.r[2].gw[14] = 2, rt.r[2].gw[15] = 9;
	nh = sitd_routes6_nexthop(&rt, d);
	assert_ptr_equal(nh, rt.r[1].gw);			/* /48 beats /32 and /0 */
	d[5] = 0x98;
	assert_ptr_equal(sitd_routes6_nexthop(&rt, d), rt.r[2].gw);
	d[2] = 0x0e;
	assert_ptr_equal(sitd_routes6_nexthop(&rt, d), rt.r[0].gw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ra_no_default),
		cmocka_unit_test(test_routes6),
		cmocka_unit_test(test_map_every_length),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_6to4_default),
		cmocka_unit_test(test_validity),
		cmocka_unit_test(test_host_bits),
		cmocka_unit_test_setup(test_spoof, setup_6to4),
		cmocka_unit_test(test_spoof_6rd_relay),
		cmocka_unit_test(test_isatap_chksrc),
		cmocka_unit_test(test_isatap_addr),
		cmocka_unit_test(test_addr_classes),
		cmocka_unit_test(test_prefix_equal),
		cmocka_unit_test(test_tx_dst),
		cmocka_unit_test(test_prl),
		cmocka_unit_test(test_mtu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
