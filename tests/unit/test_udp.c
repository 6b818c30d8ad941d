/* SPDX-License-Identifier: MIT */
/*
 * FOU and GUE (doc/kernel.md "FOU and GUE"): the UDP payload that sitd_rx_decap_udp
 * takes apart, and the outputs sitd_tx_begin / sitd_tx_next build with conf.encap set.
 *
 * Receive: FOU carries the inner packet directly, its protocol given by the tunnel's
 * mode (mode any: by the version nibble).  GUE version 0 is a 4-byte header
 * Ver(2)=0 | C(1) | Hlen(5), Proto, Flags(16), of which sitd accepts only C = 0, Hlen = 0
 * and no flags (the kernel's validate_gue_flags without remcsum); version 1 ("direct
 * IP") starts with the IPv4 or IPv6 header itself, whose first bits are 01, and takes
 * its protocol from the version nibble (gue_udp_recv); versions 2 and 3 are dropped.
 * After that, the same inner checks as sitd_rx_decap, with RFC 6040 4.2 on the outer TOS.
 *
 * Transmit: no outer IPv4 header (the kernel writes IPv4 + UDP); the payload is the
 * inner packet (fou) or [0, Proto, 0, 0][inner packet] (gue), per segment for GSO; the
 * MTU decision counts the encapsulation's 28 (fou) or 32 (gue) bytes; no outer
 * fragmentation; out[].tos/ttl/df/hash/frame say what to ask of the kernel.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pktgen.h"
#include "txharness.h"
#include "core/rx.h"
#include "core/tx.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define REMOTE_OTHER 0xcb007109u	/* 203.0.113.9 */
#define DPORT 5555

static struct sitd_stats st;

static uint64_t total_drops(void)
{
	uint64_t n = 0;

	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		n += st.drop[i];
	return n;
}

/* ================================================================ receive */

static struct sitd_rx rx;
static uint8_t pl[4096], inner[2048], copy[4096];

/* The three ways a UDP payload can carry an inner packet. */
enum form {
	F_FOU,		/* encap fou: the inner packet */
	F_GUE0,		/* encap gue, version 0: [0, Proto, 0, 0][inner packet] */
	F_GUE1,		/* encap gue, version 1: the inner packet, first bits 01 */
};

static enum sitd_encap encap_of(enum form f)
{
	return f == F_FOU ? SITD_ENCAP_FOU : SITD_ENCAP_GUE;
}

static void rx_setup(enum sitd_mode mode, enum sitd_encap encap)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "udpt");
	c.mode = mode;
	c.remote = PG_OUTER_REMOTE;
	c.local = PG_OUTER_LOCAL;
	c.pmtudisc = true;
	c.encap = encap;
	c.encap_dport = DPORT;
	memset(&st, 0, sizeof(st));
	sitd_rx_init(&rx, &c, &st);
}

/*
 * An inner packet at `inner`: IPv6 or IPv4, `len` bytes, with this TOS / class.  UDP
 * from 48 (IPv6) or 28 (IPv4) bytes up; below that a bare header with no next header
 * (IPv6, 59) or protocol 253 (IPv4, RFC 3692 experimentation).
 */
static size_t mk_inner(unsigned version, size_t len, uint8_t dsfield)
{
	size_t n;

	if (version == 6 && len < 48) {
		pg_ip6(inner, dsfield, 0, (uint16_t)(len - 40), 59, 3, PG_IN6_SRC, PG_IN6_DST);
		return len;
	}
	if (version == 4 && len < 28) {
		pg_ip4(inner, dsfield, (uint16_t)len, 1, 0, 17, 253, PG_IN4_SRC, PG_IN4_DST, 0);
		return len;
	}
	n = pg_udp_packet(inner, version, (uint32_t)(len - (version == 4 ? 28 : 48)), 0x3c, false);
	if (version == 4) {
		inner[1] = dsfield;
		inner[8] = 17;			/* a TTL the decap must leave alone */
		pg_put16(inner + 10, 0);
		pg_put16(inner + 10, pg_csum(inner, 20));
	} else {
		pg_ip6(inner, dsfield, 0x54321, (uint16_t)(n - 40), PG_PROTO_UDP, 3, PG_IN6_SRC, PG_IN6_DST);
	}
	return n;
}

/* The encapsulation's bytes before the inner packet. */
static unsigned form_hl(enum form f)
{
	return f == F_GUE0 ? 4 : 0;
}

/*
 * pl = the UDP payload of this form around `inner` (ilen bytes, of IP version `version`)
 * and `trailing` bytes after it.  Returns its length.
 */
static size_t mk_payload(enum form f, unsigned version, size_t ilen, size_t trailing)
{
	unsigned hl = form_hl(f);

	if (f == F_GUE0) {
		pl[0] = 0;				/* version 0, C 0, Hlen 0 */
		pl[1] = version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP;
		pl[2] = pl[3] = 0;			/* no flags */
	}
	memcpy(pl + hl, inner, ilen);
	memset(pl + hl + ilen, 0xee, trailing);
	return hl + ilen + trailing;
}

/* ---- Accepted forms ---- */

struct good_case {
	const char *name;
	enum sitd_mode mode;
	enum form form;
	unsigned version;
	size_t ilen, trailing;
};

static struct good_case good_cases[] = {
	/* name, mode, form, inner version, inner length, trailing bytes */
	{ "rx fou sit: IPv6 right after the UDP header", SITD_MODE_SIT, F_FOU, 6, 500, 0 },
	{ "rx fou ipip: IPv4 right after the UDP header", SITD_MODE_IPIP, F_FOU, 4, 500, 0 },
	{ "rx fou mode any: IPv6 by its version nibble", SITD_MODE_ANY, F_FOU, 6, 300, 0 },
	{ "rx fou mode any: IPv4 by its version nibble", SITD_MODE_ANY, F_FOU, 4, 300, 0 },
	{ "rx gue v0 sit: [0, 41, 0, 0][IPv6], inner at 4", SITD_MODE_SIT, F_GUE0, 6, 500, 0 },
	{ "rx gue v0 ipip: [0, 4, 0, 0][IPv4], inner at 4", SITD_MODE_IPIP, F_GUE0, 4, 500, 0 },
	{ "rx gue v0 mode any: Proto 41 carries IPv6", SITD_MODE_ANY, F_GUE0, 6, 300, 0 },
	{ "rx gue v0 mode any: Proto 4 carries IPv4", SITD_MODE_ANY, F_GUE0, 4, 300, 0 },
	{ "rx gue v1 (direct IP) sit: IPv6 header at 0", SITD_MODE_SIT, F_GUE1, 6, 400, 0 },
	{ "rx gue v1 (direct IP) ipip: IPv4 header at 0", SITD_MODE_IPIP, F_GUE1, 4, 400, 0 },
	{ "rx gue v1 (direct IP) mode any: IPv6", SITD_MODE_ANY, F_GUE1, 6, 400, 0 },
	{ "rx gue v1 (direct IP) mode any: IPv4", SITD_MODE_ANY, F_GUE1, 4, 400, 0 },
	{ "rx fou sit: 13 trailing bytes trimmed to the IPv6 length", SITD_MODE_SIT, F_FOU, 6, 200, 13 },
	{ "rx fou ipip: 7 trailing bytes trimmed to the IPv4 total length", SITD_MODE_IPIP, F_FOU, 4,
	  200, 7 },
	{ "rx gue v0 sit: 9 trailing bytes trimmed", SITD_MODE_SIT, F_GUE0, 6, 200, 9 },
	{ "rx gue v0 ipip: 1 trailing byte trimmed", SITD_MODE_IPIP, F_GUE0, 4, 200, 1 },
	{ "rx gue v1 mode any: 30 trailing bytes trimmed", SITD_MODE_ANY, F_GUE1, 6, 200, 30 },
	{ "rx fou sit: smallest inner IPv6 packet (41 bytes)", SITD_MODE_SIT, F_FOU, 6, 41, 0 },
	{ "rx gue v0 ipip: smallest inner IPv4 packet (20 bytes)", SITD_MODE_IPIP, F_GUE0, 4, 20, 0 },
};

static void test_udp_rx_good(void **state)
{
	const struct good_case *c = *state;
	size_t ilen, n;
	uint32_t off = 0xdead, il = 0xbeef;
	unsigned hl = form_hl(c->form);

	rx_setup(c->mode, encap_of(c->form));
	ilen = mk_inner(c->version, c->ilen, 0);
	assert_int_equal(ilen, c->ilen);
	n = mk_payload(c->form, c->version, ilen, c->trailing);
	memcpy(copy, pl, n);

	assert_int_equal(sitd_rx_decap_udp(&rx, 0, PG_OUTER_REMOTE, pl, (uint32_t)n, &off, &il), 0);
	assert_int_equal(off, hl);
	assert_int_equal(il, ilen);
	assert_memory_equal(pl, copy, n);	/* Not-ECT inside and outside: nothing to change */
	assert_memory_equal(pl + off, inner, ilen);
	assert_int_equal(total_drops(), 0);
	assert_int_equal(st.rx_ecn_marked, 0);
}

/*
 * The largest inner packets (65535 bytes; IPv6 payload length 65495) behind a GUE header,
 * in a payload of exactly its length: the UDP payload is then 65539 bytes, more than one
 * UDP datagram over IPv4 holds, but the length arithmetic must not care.
 */
static void test_udp_rx_max(void **state)
{
	static uint8_t big[4 + 65535];
	uint32_t off, il;

	(void)state;
	for (unsigned v = 4; v <= 6; v += 2) {
		rx_setup(SITD_MODE_ANY, SITD_ENCAP_GUE);
		big[0] = 0;
		big[1] = v == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP;
		big[2] = big[3] = 0;
		if (v == 6)
			pg_ip6(big + 4, 0, 0, 65535 - 40, 59, 3, PG_IN6_SRC, PG_IN6_DST);
		else
			pg_ip4(big + 4, 0, 65535, 1, 0, 17, 253, PG_IN4_SRC, PG_IN4_DST, 0);
		assert_int_equal(sitd_rx_decap_udp(&rx, 0, PG_OUTER_REMOTE, big, sizeof(big), &off, &il), 0);
		assert_int_equal(off, 4);
		assert_int_equal(il, 65535);
		/* One byte short: truncated. */
		assert_int_equal(sitd_rx_decap_udp(&rx, 0, PG_OUTER_REMOTE, big, sizeof(big) - 1, &off, &il),
				 -1);
		assert_int_equal(st.drop[SITD_DROP_rx_inner_truncated], 1);
		assert_int_equal(total_drops(), 1);
	}
}

/* ---- One case per drop reason ---- */

enum mut_kind {
	M_END,
	M_LEN,		/* payload length = a */
	M_BYTE,		/* payload byte a = b */
	M_INNER_BYTE,	/* inner packet byte a = b */
	M_INNER_LEN,	/* inner IPv6 payload length / IPv4 total length = a */
	M_SWAP,		/* the inner packet replaced by one of the other IP version */
	M_SRC,		/* UDP payload from address a */
	M_TOS,		/* outer TOS a */
};

struct mut {
	enum mut_kind kind;
	unsigned a, b;
};

struct drop_case {
	const char *name;
	enum sitd_mode mode;
	enum form form;
	unsigned version;	/* of the inner packet before any M_SWAP */
	struct mut m[2];
	enum sitd_drop reason;
};

static struct drop_case drop_cases[] = {
	/* Who sent it. */
	{ "rx fou: source 203.0.113.9 is not the remote", SITD_MODE_SIT, F_FOU, 6,
	  { { M_SRC, REMOTE_OTHER, 0 } }, SITD_DROP_rx_wrong_source },
	{ "rx gue: source 203.0.113.9 is not the remote", SITD_MODE_IPIP, F_GUE0, 4,
	  { { M_SRC, REMOTE_OTHER, 0 } }, SITD_DROP_rx_wrong_source },
	{ "rx gue: the source is checked before the GUE version", SITD_MODE_SIT, F_GUE0, 6,
	  { { M_SRC, REMOTE_OTHER, 0 }, { M_BYTE, 0, 0xc0 } }, SITD_DROP_rx_wrong_source },
	/* The GUE header. */
	{ "rx fou: empty UDP payload", SITD_MODE_SIT, F_FOU, 6, { { M_LEN, 0, 0 } },
	  SITD_DROP_rx_inner_truncated },
	{ "rx gue: empty UDP payload", SITD_MODE_ANY, F_GUE0, 6, { { M_LEN, 0, 0 } },
	  SITD_DROP_rx_inner_truncated },
	{ "rx gue v0: 1 byte, shorter than the GUE header", SITD_MODE_SIT, F_GUE0, 6,
	  { { M_LEN, 1, 0 } }, SITD_DROP_rx_inner_truncated },
	{ "rx gue v0: 3 bytes, shorter than the GUE header", SITD_MODE_SIT, F_GUE0, 6,
	  { { M_LEN, 3, 0 } }, SITD_DROP_rx_inner_truncated },
	{ "rx gue v0: the 4-byte header alone, no inner packet", SITD_MODE_SIT, F_GUE0, 6,
	  { { M_LEN, 4, 0 } }, SITD_DROP_rx_inner_truncated },
	{ "rx gue v0: C bit set (control message)", SITD_MODE_SIT, F_GUE0, 6,
	  { { M_BYTE, 0, 0x20 } }, SITD_DROP_rx_gue_control },
	{ "rx gue v0: C bit set, mode any, Proto 4", SITD_MODE_ANY, F_GUE0, 4,
	  { { M_BYTE, 0, 0x20 } }, SITD_DROP_rx_gue_control },
	{ "rx gue v0: Hlen 1 with no flag to explain it", SITD_MODE_SIT, F_GUE0, 6,
	  { { M_BYTE, 0, 0x01 } }, SITD_DROP_rx_gue_flags },
	{ "rx gue v0: Hlen 31", SITD_MODE_IPIP, F_GUE0, 4, { { M_BYTE, 0, 0x1f } },
	  SITD_DROP_rx_gue_flags },
	{ "rx gue v0: flag GUE_FLAG_PRIV (0x0001), private flags unknown to sitd", SITD_MODE_SIT,
	  F_GUE0, 6, { { M_BYTE, 3, 0x01 } }, SITD_DROP_rx_gue_flags },
	{ "rx gue v0: flags 0x8000", SITD_MODE_SIT, F_GUE0, 6, { { M_BYTE, 2, 0x80 } },
	  SITD_DROP_rx_gue_flags },
	{ "rx gue v0: flag GUE_FLAG_PRIV with Hlen 1 (remcsum not supported)", SITD_MODE_ANY, F_GUE0, 6,
	  { { M_BYTE, 0, 0x01 }, { M_BYTE, 3, 0x01 } }, SITD_DROP_rx_gue_flags },
	{ "rx gue v0: Proto 4 on a mode sit tunnel", SITD_MODE_SIT, F_GUE0, 6,
	  { { M_BYTE, 1, PG_PROTO_IPIP } }, SITD_DROP_rx_proto },
	{ "rx gue v0: Proto 41 on a mode ipip tunnel", SITD_MODE_IPIP, F_GUE0, 4,
	  { { M_BYTE, 1, PG_PROTO_IPV6 } }, SITD_DROP_rx_proto },
	{ "rx gue v0: Proto 17 on a mode any tunnel", SITD_MODE_ANY, F_GUE0, 6,
	  { { M_BYTE, 1, PG_PROTO_UDP } }, SITD_DROP_rx_proto },
	{ "rx gue v0: Proto 0 on a mode any tunnel", SITD_MODE_ANY, F_GUE0, 4, { { M_BYTE, 1, 0 } },
	  SITD_DROP_rx_proto },
	{ "rx gue: version 2", SITD_MODE_SIT, F_GUE0, 6, { { M_BYTE, 0, 0x80 } },
	  SITD_DROP_rx_gue_version },
	{ "rx gue: version 3", SITD_MODE_ANY, F_GUE0, 4, { { M_BYTE, 0, 0xc0 } },
	  SITD_DROP_rx_gue_version },
	/* The inner version against the protocol. */
	{ "rx fou sit: IPv4 inside", SITD_MODE_SIT, F_FOU, 6, { { M_SWAP, 0, 0 } },
	  SITD_DROP_rx_inner_version },
	{ "rx fou ipip: IPv6 inside", SITD_MODE_IPIP, F_FOU, 4, { { M_SWAP, 0, 0 } },
	  SITD_DROP_rx_inner_version },
	{ "rx fou mode any: version nibble 5", SITD_MODE_ANY, F_FOU, 6, { { M_INNER_BYTE, 0, 0x50 } },
	  SITD_DROP_rx_inner_version },
	{ "rx fou mode any: version nibble 0", SITD_MODE_ANY, F_FOU, 4, { { M_INNER_BYTE, 0, 0x05 } },
	  SITD_DROP_rx_inner_version },
	{ "rx fou sit: version nibble 4 with IHL 5 (an IPv4 header)", SITD_MODE_SIT, F_FOU, 6,
	  { { M_INNER_BYTE, 0, 0x45 } }, SITD_DROP_rx_inner_version },
	{ "rx gue v0 mode any: Proto 41 carrying IPv4", SITD_MODE_ANY, F_GUE0, 6, { { M_SWAP, 0, 0 } },
	  SITD_DROP_rx_inner_version },
	{ "rx gue v0 mode any: Proto 4 carrying IPv6", SITD_MODE_ANY, F_GUE0, 4, { { M_SWAP, 0, 0 } },
	  SITD_DROP_rx_inner_version },
	{ "rx gue v1 mode any: version nibble 5", SITD_MODE_ANY, F_GUE1, 4, { { M_INNER_BYTE, 0, 0x55 } },
	  SITD_DROP_rx_inner_version },
	/*
	 * GUE version 1 takes its protocol from the version nibble (gue_udp_recv;
	 * gue_udp_recv returns -IPPROTO_IPIP / -IPPROTO_IPV6), which then must suit the
	 * tunnel's mode, as GUE version 0's Proto must.
	 */
	{ "rx gue v1 on a mode sit tunnel: IPv4 is protocol 4 (gue_udp_recv)", SITD_MODE_SIT,
	  F_GUE1, 6, { { M_SWAP, 0, 0 } }, SITD_DROP_rx_proto },
	{ "rx gue v1 on a mode ipip tunnel: IPv6 is protocol 41 (gue_udp_recv)", SITD_MODE_IPIP,
	  F_GUE1, 4, { { M_SWAP, 0, 0 } }, SITD_DROP_rx_proto },
	/* The inner length. */
	{ "rx fou sit: inner IPv6 header cut at 39 bytes", SITD_MODE_SIT, F_FOU, 6, { { M_LEN, 39, 0 } },
	  SITD_DROP_rx_inner_truncated },
	{ "rx gue v0 ipip: inner IPv4 header cut at 19 bytes", SITD_MODE_IPIP, F_GUE0, 4,
	  { { M_LEN, 4 + 19, 0 } }, SITD_DROP_rx_inner_truncated },
	{ "rx gue v1 sit: a single byte 0x60", SITD_MODE_SIT, F_GUE1, 6, { { M_LEN, 1, 0 } },
	  SITD_DROP_rx_inner_truncated },
	{ "rx fou sit: inner IPv6 payload length one past the UDP payload", SITD_MODE_SIT, F_FOU, 6,
	  { { M_INNER_LEN, 161, 0 } }, SITD_DROP_rx_inner_truncated },
	{ "rx gue v0 ipip: inner IPv4 total length one past the UDP payload", SITD_MODE_IPIP, F_GUE0, 4,
	  { { M_INNER_LEN, 201, 0 } }, SITD_DROP_rx_inner_truncated },
	{ "rx gue v1 ipip: inner IPv4 total length 19 (< IHL)", SITD_MODE_IPIP, F_GUE1, 4,
	  { { M_INNER_LEN, 19, 0 } }, SITD_DROP_rx_inner_truncated },
	{ "rx fou ipip: inner IPv4 IHL 4", SITD_MODE_IPIP, F_FOU, 4, { { M_INNER_BYTE, 0, 0x44 } },
	  SITD_DROP_rx_inner_truncated },
	{ "rx fou sit: inner jumbogram (payload length 0)", SITD_MODE_SIT, F_FOU, 6,
	  { { M_INNER_LEN, 0, 0 } }, SITD_DROP_rx_inner_truncated },
	/* ECN (RFC 6040 4.2). */
	{ "rx fou sit: outer CE on a Not-ECT inner packet", SITD_MODE_SIT, F_FOU, 6,
	  { { M_TOS, 0x03, 0 } }, SITD_DROP_rx_ecn },
	{ "rx gue v0 ipip: outer CE on a Not-ECT inner IPv4 packet", SITD_MODE_IPIP, F_GUE0, 4,
	  { { M_TOS, 0x03, 0 } }, SITD_DROP_rx_ecn },
	{ "rx gue v1 mode any: outer TOS 0xbb (CE) on a Not-ECT inner packet", SITD_MODE_ANY, F_GUE1, 4,
	  { { M_TOS, 0xbb, 0 } }, SITD_DROP_rx_ecn },
};

/*
 * The unmutated packet passes on this tunnel (so the drop is the mutation's doing), the
 * mutated one is dropped for exactly the reason given, untouched.
 */
static void test_udp_rx_drop(void **state)
{
	const struct drop_case *c = *state;
	unsigned hl = form_hl(c->form), version = c->version;
	size_t ilen;
	uint32_t len, src = PG_OUTER_REMOTE, off = 0, il = 0;
	uint8_t tos = 0;

	rx_setup(c->mode, encap_of(c->form));
	ilen = mk_inner(version, 200, 0);
	len = (uint32_t)mk_payload(c->form, version, ilen, 0);
	assert_int_equal(sitd_rx_decap_udp(&rx, 0, PG_OUTER_REMOTE, pl, len, &off, &il), 0);
	assert_int_equal(il, 200);
	assert_int_equal(total_drops(), 0);

	rx_setup(c->mode, encap_of(c->form));
	for (size_t i = 0; i < ARRAY_SIZE(c->m); i++) {
		const struct mut *m = &c->m[i];

		switch (m->kind) {
		case M_END:
			break;
		case M_LEN:
			len = m->a;
			break;
		case M_BYTE:
			pl[m->a] = (uint8_t)m->b;
			break;
		case M_INNER_BYTE:
			pl[hl + m->a] = (uint8_t)m->b;
			break;
		case M_INNER_LEN:
			pg_put16(pl + hl + (version == 4 ? 2 : 4), (uint16_t)m->a);
			break;
		case M_SWAP:
			version = 10 - version;
			ilen = mk_inner(version, 200, 0);
			memcpy(pl + hl, inner, ilen);	/* any GUE header stays as it was */
			break;
		case M_SRC:
			src = m->a;
			break;
		case M_TOS:
			tos = (uint8_t)m->a;
			break;
		}
	}
	memcpy(copy, pl, len);
	off = il = 0x5a5a;
	assert_int_equal(sitd_rx_decap_udp(&rx, tos, src, pl, len, &off, &il), -1);
	if (st.drop[c->reason] != 1) {
		for (size_t i = 0; i < SITD_DROP_MAX; i++)
			if (st.drop[i])
				fail_msg("dropped as %s, expected %s", sitd_drop_names[i],
					 sitd_drop_names[c->reason]);
	}
	assert_int_equal(st.drop[c->reason], 1);
	assert_int_equal(total_drops(), 1);
	assert_int_equal(st.rx_ecn_marked, 0);
	assert_memory_equal(pl, copy, len);	/* a drop changes nothing */
}

/* ---- ECN on decapsulation with the outer TOS (RFC 6040 4.2) ---- */

/* All 16 cells of RFC 6040 Figure 4, for each form and inner version, on mode any. */
static void test_udp_rx_ecn_table(void **state)
{
	static const int want[4][4] = {	/* [inner][outer], -1 = drop */
		{ 0, 0, 0, -1 }, { 1, 1, 1, 3 }, { 2, 1, 2, 3 }, { 3, 3, 3, 3 },
	};

	(void)state;
	for (enum form f = F_FOU; f <= F_GUE1; f++)
		for (unsigned v = 4; v <= 6; v += 2)
			for (int in_ecn = 0; in_ecn < 4; in_ecn++)
				for (int out_ecn = 0; out_ecn < 4; out_ecn++) {
					size_t ilen = mk_inner(v, 120, (uint8_t)(0x28 | in_ecn));
					uint32_t len = (uint32_t)mk_payload(f, v, ilen, 0), off, il;
					unsigned hl = form_hl(f);
					uint8_t *in = pl + hl;
					int w = want[in_ecn][out_ecn];
					int r;

					rx_setup(SITD_MODE_ANY, encap_of(f));
					r = sitd_rx_decap_udp(&rx, (uint8_t)(0x48 | out_ecn), PG_OUTER_REMOTE, pl,
							      len, &off, &il);
					if (w < 0) {
						assert_int_equal(r, -1);
						assert_int_equal(st.drop[SITD_DROP_rx_ecn], 1);
						assert_int_equal(total_drops(), 1);
						continue;
					}
					assert_int_equal(r, 0);
					assert_int_equal(off, hl);
					assert_int_equal(il, ilen);
					if (v == 4) {
						assert_int_equal(in[1], 0x28 | w);
						assert_true(pg_ip4_csum_ok(in));
						assert_memory_equal(in + 2, inner + 2, 8);
						assert_memory_equal(in + 12, inner + 12, ilen - 12);
					} else {
						assert_int_equal(pg_ip6_tclass(in), 0x28 | w);
						assert_int_equal(in[1] & 0x0f, 0x05);	/* flow label kept */
						assert_memory_equal(in + 2, inner + 2, ilen - 2);
					}
					if (f == F_GUE0)
						assert_int_equal(pl[0] | pl[2] | pl[3], 0);
					assert_int_equal(st.rx_ecn_marked, w != in_ecn);
					assert_int_equal(total_drops(), 0);
				}
}

/* Outer CE on ECT(0) IPv4 through fou ipip: CE inside, checksum right for every inner ID. */
static void test_udp_rx_ecn_ce_ipv4_csum(void **state)
{
	(void)state;
	rx_setup(SITD_MODE_IPIP, SITD_ENCAP_FOU);
	for (uint32_t id = 0; id <= 0xffff; id++) {
		size_t ilen = mk_inner(4, 100, 0xb8 | 2);
		uint32_t len, off, il;
		uint16_t got;

		pg_put16(inner + 4, (uint16_t)id);
		pg_put16(inner + 10, 0);
		pg_put16(inner + 10, pg_csum(inner, 20));
		len = (uint32_t)mk_payload(F_FOU, 4, ilen, 0);
		assert_int_equal(sitd_rx_decap_udp(&rx, 0x03, PG_OUTER_REMOTE, pl, len, &off, &il), 0);
		assert_int_equal(pl[1], 0xb8 | 3);
		assert_int_equal(pl[8], 17);			/* TTL untouched */
		got = pg_get16(pl + 10);
		pg_put16(pl + 10, 0);
		assert_int_equal(got, pg_csum(pl, 20));
	}
	assert_int_equal(st.rx_ecn_marked, 0x10000);
	assert_int_equal(total_drops(), 0);
}

/* ================================================================ transmit */


/* Outputs flattened, with their metadata, in order. */
struct rec {
	uint8_t *p;
	size_t len;
	struct sitd_out o;
};
static uint8_t pool[8 << 20];
static struct rec recs[1024];
static size_t nrecs, pool_used;

static void tx_setup(enum sitd_mode mode, enum sitd_encap encap, uint8_t ttl, uint8_t tos, bool pmtudisc)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "udpt");
	c.mode = mode;
	c.remote = PG_OUTER_REMOTE;
	c.local = PG_OUTER_LOCAL;
	c.ttl = ttl;
	c.tos = tos;
	c.pmtudisc = pmtudisc;
	c.encap = encap;
	c.encap_dport = DPORT;
	memset(&st, 0, sizeof(st));
	sitd_tx_init(&tx, &c, &st, NULL, 1);
	nrecs = pool_used = 0;
}

static unsigned encap_hdr(enum sitd_encap e)
{
	return e == SITD_ENCAP_GUE ? 4 : 0;
}

static void collect(void)
{
	for (unsigned k = 0; k < tx.nout; k++) {
		const struct sitd_out *o = &tx.out[k];
		size_t n;

		assert_true(o->iovcnt >= 1 && o->iovcnt <= 3);
		assert_true(nrecs < ARRAY_SIZE(recs));
		n = pg_flatten(o->iov, o->iovcnt, pool + pool_used, sizeof(pool) - pool_used);
		assert_true(n != (size_t)-1);
		assert_int_equal(n, o->len);
		recs[nrecs].p = pool + pool_used;
		recs[nrecs].len = n;
		recs[nrecs++].o = *o;
		pool_used += n;
	}
}

/* The payload recs[k] must carry for inner bytes `in`: [0, proto, 0, 0] for gue, then in. */
static void check_payload(size_t k, enum sitd_encap e, uint8_t proto, const uint8_t *in, size_t ilen)
{
	const uint8_t *p = recs[k].p;
	unsigned h = encap_hdr(e);

	assert_int_equal(recs[k].len, h + ilen);
	if (e == SITD_ENCAP_GUE) {
		assert_int_equal(p[0], 0);	/* version 0, C 0, Hlen 0 */
		assert_int_equal(p[1], proto);
		assert_int_equal(p[2], 0);	/* no flags */
		assert_int_equal(p[3], 0);
	}
	assert_memory_equal(p + h, in, ilen);
}

/* ---- One plain packet ---- */

struct layout_case {
	const char *name;
	enum sitd_mode mode;
	enum sitd_encap encap;
	uint8_t conf_ttl, conf_tos;
	unsigned version;
	uint8_t dsfield, ttl;
	/* expected: out[].tos (RFC 6040 4.1) and out[].ttl */
	uint8_t tos, out_ttl;
};

static struct layout_case layout_cases[] = {
	/* name, mode, encap, conf ttl, conf tos, version, inner dsfield, inner ttl -> tos, ttl */
	{ "tx fou sit: [IPv6], one iovec, zero copy; ttl 64, inner ECT(1) copied", SITD_MODE_SIT,
	  SITD_ENCAP_FOU, 64, 0, 6, 0x01, 9, 0x01, 64 },
	{ "tx fou ipip: [IPv4]; ttl inherit, tos 0x48 + inner ECT(0)", SITD_MODE_IPIP, SITD_ENCAP_FOU, 0,
	  0x48, 4, 0x82, 100, 0x4a, 100 },
	{ "tx fou mode any: [IPv4]; tos inherit", SITD_MODE_ANY, SITD_ENCAP_FOU, 30, SITD_TOS_INHERIT, 4,
	  0x28, 64, 0x28, 30 },
	{ "tx gue sit: [0, 41, 0, 0][IPv6]; tos inherit, inner CE sent as ECT(0)", SITD_MODE_SIT,
	  SITD_ENCAP_GUE, 0, SITD_TOS_INHERIT, 6, 0xb3, 17, 0xb2, 17 },
	{ "tx gue ipip: [0, 4, 0, 0][IPv4]; ttl 200, tos 0x10", SITD_MODE_IPIP, SITD_ENCAP_GUE, 200, 0x10,
	  4, 0x00, 5, 0x10, 200 },
	{ "tx gue mode any: IPv6 gets Proto 41", SITD_MODE_ANY, SITD_ENCAP_GUE, 0, 0, 6, 0x02, 255, 0x02,
	  255 },
	{ "tx gue mode any: IPv4 gets Proto 4", SITD_MODE_ANY, SITD_ENCAP_GUE, 0, 0, 4, 0x03, 1, 0x02, 1 },
};

static void test_udp_tx_layout(void **state)
{
	const struct layout_case *c = *state;
	uint8_t proto = c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP;
	const struct sitd_out *o = &tx.out[0];
	size_t n;
	uint32_t len;

	tx_setup(c->mode, c->encap, c->conf_ttl, c->conf_tos, true);
	if (c->version == 6) {
		n = ip6_packet(300);
		pg_ip6(ip, c->dsfield, 0xabcde, (uint16_t)(n - 40), PG_PROTO_UDP, c->ttl, PG_IN6_SRC,
		       PG_IN6_DST);
	} else {
		n = ip4_packet(300, true);
		ip[1] = c->dsfield;
		ip[8] = c->ttl;
		pg_put16(ip + 10, 0);
		pg_put16(ip + 10, pg_csum(ip, 20));
	}
	memset(ip + n, 0xee, 50);	/* bytes past the declared length are not carried */
	len = plain_frame(n + 50);

	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 1);
	/* No outer IPv4 header: the payload is [GUE header] + the inner packet, from the frame. */
	if (c->encap == SITD_ENCAP_FOU) {
		assert_int_equal(o->iovcnt, 1);
		assert_ptr_equal(o->iov[0].iov_base, ip);
		assert_int_equal(o->iov[0].iov_len, n);
	} else {
		assert_int_equal(o->iovcnt, 2);
		assert_int_equal(o->iov[0].iov_len, 4);
		assert_ptr_equal(o->iov[1].iov_base, ip);
		assert_int_equal(o->iov[1].iov_len, n);
	}
	assert_int_equal(o->len, encap_hdr(c->encap) + n);
	assert_int_equal(o->tos, c->tos);
	assert_int_equal(o->ttl, c->out_ttl);
	assert_true(o->df);
	collect();
	check_payload(0, c->encap, proto, orig + PG_VNET_LEN, n);
	assert_memory_equal(frame, orig, len);
	assert_int_equal(total_drops(), 0);
	assert_int_equal(st.tx_fragments, 0);
	assert_int_equal(tx.icmp_len, 0);
}

/* ---- GSO: one output per segment, each behind its own GUE header ---- */

struct gso_case {
	const char *name;
	enum sitd_mode mode;
	enum sitd_encap encap;
	unsigned version;
	uint32_t payload;
	uint16_t gso;
	uint32_t nseg;
};

static struct gso_case gso_cases[] = {
	{ "tx fou tcpv6: segments of 40 + 20 + 1412 = 1472 fit a 1500 path exactly; short last",
	  SITD_MODE_SIT, SITD_ENCAP_FOU, 6, 4 * 1412 + 500, 1412, 5 },
	{ "tx gue tcpv6: segments of 1468 behind [0, 41, 0, 0] fit exactly", SITD_MODE_SIT,
	  SITD_ENCAP_GUE, 6, 3 * 1408 + 1, 1408, 4 },
	{ "tx gue tcpv4: [0, 4, 0, 0] before each segment, inner IDs run on", SITD_MODE_IPIP,
	  SITD_ENCAP_GUE, 4, 5 * 1428, 1428, 5 },
	{ "tx fou tcpv4 in mode any: 3 segments of up to 1472", SITD_MODE_ANY, SITD_ENCAP_FOU, 4,
	  2 * 1432 + 7, 1432, 3 },
	{ "tx gue tcpv6: 300 segments, more than out[] holds at once", SITD_MODE_SIT, SITD_ENCAP_GUE, 6,
	  300 * 200, 200, 300 },
};

static void test_udp_tx_gso(void **state)
{
	const struct gso_case *c = *state;
	const struct pg_tcp_pkt p = { .version = c->version, .dsfield = 0x02, .ttl = 50, .ip_id = 0xfffe,
				      .df = true, .seq = 0xfffff000u, .ack = 77,
				      .flags = PG_ACK | PG_PSH | PG_FIN, .payload = c->payload,
				      .seed = 9, .partial = true };
	uint8_t proto = c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP;
	unsigned l4, h = encap_hdr(c->encap);
	size_t n = pg_tcp_packet(ip, &p, &l4);
	unsigned hdrlen = l4 + 20;
	const uint8_t *sp = orig + PG_VNET_LEN;

	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, c->version == 6 ? PG_GSO_TCPV6 : PG_GSO_TCPV4,
		(uint16_t)hdrlen, c->gso, (uint16_t)l4, 16);
	memcpy(orig, frame, PG_VNET_LEN + n);
	tx_setup(c->mode, c->encap, 0, SITD_TOS_INHERIT, true);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)(PG_VNET_LEN + n), 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nrecs, c->nseg);
	for (uint32_t k = 0; k < nrecs; k++) {
		const struct sitd_out *o = &recs[k].o;
		const uint8_t *q = recs[k].p, *in = q + h, *t = in + l4;
		uint32_t off = k * c->gso;
		uint32_t plen = c->payload - off < c->gso ? c->payload - off : c->gso;
		uint8_t flags = (uint8_t)(k + 1 < c->nseg ? PG_ACK : PG_ACK | PG_PSH | PG_FIN);

		assert_int_equal(recs[k].len, h + hdrlen + plen);
		assert_true(recs[k].len <= 1500 - 28);
		/* [GUE header + inner headers, built together][payload, in the frame] */
		assert_int_equal(o->iovcnt, 2);
		assert_int_equal(o->iov[0].iov_len, h + hdrlen);
		assert_ptr_equal(o->iov[1].iov_base, ip + hdrlen + off);
		assert_int_equal(o->iov[1].iov_len, plen);
		if (c->encap == SITD_ENCAP_GUE) {
			assert_int_equal(q[0], 0);
			assert_int_equal(q[1], proto);
			assert_int_equal(q[2] | q[3], 0);
		}
		/* The inner segment (doc/kernel.md "GSO split rules"). */
		assert_int_equal(in[0] >> 4, c->version);
		if (c->version == 6) {
			assert_int_equal(pg_get16(in + 4), hdrlen + plen - 40);
			assert_memory_equal(in + 6, sp + 6, 34);
		} else {
			assert_int_equal(pg_get16(in + 2), hdrlen + plen);
			assert_int_equal(pg_get16(in + 4), (uint16_t)(0xfffe + k));
			assert_true(pg_ip4_csum_ok(in));
		}
		assert_int_equal(pg_get32(t + 4), (uint32_t)(0xfffff000u + off));
		assert_int_equal(t[13], flags);
		assert_memory_equal(t + 20, sp + hdrlen + off, plen);
		assert_true(pg_l4_csum_ok(in, l4, PG_PROTO_TCP));
		/* One frame: one set of metadata for all its segments. */
		assert_int_equal(o->tos, 0x02);
		assert_int_equal(o->ttl, 50);
		assert_true(o->df);
		assert_int_equal(o->hash, recs[0].o.hash);
		assert_int_equal(o->frame, recs[0].o.frame);
	}
	assert_memory_equal(frame, orig, PG_VNET_LEN + n);
	assert_int_equal(st.tx_gso_packets, 1);
	assert_int_equal(st.tx_gso_segments, c->nseg);
	assert_int_equal(st.tx_fragments, 0);
	assert_int_equal(total_drops(), 0);
	assert_int_equal(tx.icmp_len, 0);
}

/* ---- The MTU decision counts 28 (fou) or 32 (gue) bytes ---- */

/* tx.icmp must hold [zero vnet hdr][ICMPv6 Packet Too Big with this MTU] about pkt. */
static void check_ptb6(const uint8_t *pkt, size_t len, uint32_t mtu)
{
	static const uint8_t zero[PG_VNET_LEN];
	const uint8_t *e = tx.icmp + PG_VNET_LEN;
	size_t quote = len < 1280 - 48 ? len : 1280 - 48;	/* RFC 4443 2.4(c) */

	assert_int_equal(tx.icmp_len, PG_VNET_LEN + 48 + quote);
	assert_memory_equal(tx.icmp, zero, PG_VNET_LEN);
	assert_int_equal(e[0] >> 4, 6);
	assert_int_equal(e[6], PG_PROTO_ICMPV6);
	assert_memory_equal(e + 8, pkt + 24, 16);
	assert_memory_equal(e + 24, pkt + 8, 16);
	assert_int_equal(e[40], 2);
	assert_int_equal(e[41], 0);
	assert_int_equal(pg_get32(e + 44), mtu);
	assert_memory_equal(e + 48, pkt, quote);
	assert_true(pg_l4_csum_ok(e, 40, PG_PROTO_ICMPV6));
}

/* tx.icmp must hold [zero vnet hdr][ICMP 3/4 Fragmentation Needed, next-hop MTU]. */
static void check_frag_needed(const uint8_t *pkt, size_t len, uint16_t mtu)
{
	static const uint8_t zero[PG_VNET_LEN];
	const uint8_t *e = tx.icmp + PG_VNET_LEN;
	size_t quote = len < 576 - 28 ? len : 576 - 28;		/* RFC 1812 4.3.2.3 */

	assert_int_equal(tx.icmp_len, PG_VNET_LEN + 28 + quote);
	assert_memory_equal(tx.icmp, zero, PG_VNET_LEN);
	assert_int_equal(e[0], 0x45);
	assert_int_equal(e[9], PG_PROTO_ICMP);
	assert_true(pg_ip4_csum_ok(e));
	assert_memory_equal(e + 12, pkt + 16, 4);
	assert_memory_equal(e + 16, pkt + 12, 4);
	assert_int_equal(e[20], 3);
	assert_int_equal(e[21], 4);
	assert_int_equal(pg_get16(e + 26), mtu);
	assert_memory_equal(e + 28, pkt, quote);
	assert_true(pg_l4_csum_ok(e, 20, PG_PROTO_ICMP));
}

struct mtu_case {
	const char *name;
	enum sitd_encap encap;
	unsigned version;
	bool gso;		/* a TCP super-packet of 3 segments of `len` bytes each */
	size_t len;		/* the packet, or one segment */
	uint32_t path_mtu;
	uint32_t mtu;		/* 0: sent; else the MTU the ICMP error carries */
	bool df;		/* when sent: out[].df */
};

static struct mtu_case mtu_cases[] = {
	{ "tx fou: IPv6 of 1473 on a 1500 path: Packet Too Big 1472", SITD_ENCAP_FOU, 6, false, 1473,
	  1500, 1472, false },
	{ "tx fou: IPv6 of 1472 fits (1500 with IPv4 + UDP), with DF", SITD_ENCAP_FOU, 6, false, 1472,
	  1500, 0, true },
	{ "tx gue: IPv6 of 1469 on a 1500 path: Packet Too Big 1468", SITD_ENCAP_GUE, 6, false, 1469,
	  1500, 1468, false },
	{ "tx gue: IPv6 of 1468 fits (1500 with IPv4 + UDP + GUE), with DF", SITD_ENCAP_GUE, 6, false,
	  1468, 1500, 0, true },
	{ "tx fou: IPv4 with DF of 1473: Fragmentation Needed 1472", SITD_ENCAP_FOU, 4, false, 1473,
	  1500, 1472, false },
	{ "tx gue: IPv4 with DF of 1469: Fragmentation Needed 1468", SITD_ENCAP_GUE, 4, false, 1469,
	  1500, 1468, false },
	{ "tx gue: IPv4 with DF of 1468 fits", SITD_ENCAP_GUE, 4, false, 1468, 1500, 0, true },
	{ "tx fou: TCPv6 segments of 1473: Packet Too Big 1472", SITD_ENCAP_FOU, 6, true, 1473, 1500,
	  1472, false },
	{ "tx gue: TCPv6 segments of 1469: Packet Too Big 1468", SITD_ENCAP_GUE, 6, true, 1469, 1500,
	  1468, false },
	{ "tx gue: TCPv4 segments of 1469 with DF: Fragmentation Needed 1468", SITD_ENCAP_GUE, 4, true,
	  1469, 1500, 1468, false },
	{ "tx fou: TCPv4 segments of 1472 fit", SITD_ENCAP_FOU, 4, true, 1472, 1500, 0, true },
	{ "tx fou: path 9000, IPv6 of 8973: Packet Too Big 8972", SITD_ENCAP_FOU, 6, false, 8973, 9000,
	  8972, false },
	{ "tx fou, path 1300: IPv6 of 1280 sent without DF (RFC 4213 3.2.2)", SITD_ENCAP_FOU, 6, false,
	  1280, 1300, 0, false },
	{ "tx gue, path 1300: IPv6 of 1281: Packet Too Big 1280 (RFC 4213 3.2.2)", SITD_ENCAP_GUE, 6,
	  false, 1281, 1300, 1280, false },
};

static void test_udp_tx_mtu(void **state)
{
	const struct mtu_case *c = *state;
	enum sitd_mode mode = c->version == 6 ? SITD_MODE_SIT : SITD_MODE_IPIP;
	size_t n;
	uint32_t len;

	if (c->gso) {
		unsigned l3 = c->version == 6 ? 40 : 20, l4;
		const struct pg_tcp_pkt p = { .version = c->version, .ttl = 64, .df = true, .seq = 1,
					      .ack = 1, .flags = PG_ACK,
					      .payload = (uint32_t)(3 * (c->len - l3 - 20)), .seed = 5,
					      .partial = true };

		n = pg_tcp_packet(ip, &p, &l4);
		pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, c->version == 6 ? PG_GSO_TCPV6 : PG_GSO_TCPV4,
			(uint16_t)(l3 + 20), (uint16_t)(c->len - l3 - 20), (uint16_t)l3, 16);
		memcpy(orig, frame, PG_VNET_LEN + n);
		len = (uint32_t)(PG_VNET_LEN + n);
	} else {
		n = c->version == 6 ? ip6_packet(c->len) : ip4_packet(c->len, true);
		len = plain_frame(n);
	}
	tx_setup(mode, c->encap, 0, 0, true);
	if (c->mtu) {
		assert_int_equal(sitd_tx_begin(&tx, frame, len, c->path_mtu, 0), SITD_TX_ICMP);
		if (c->version == 6)
			check_ptb6(orig + PG_VNET_LEN, n, c->mtu);
		else
			check_frag_needed(orig + PG_VNET_LEN, n, (uint16_t)c->mtu);
		assert_true(sitd_tx_next(&tx));
		assert_int_equal(tx.nout, 0);
		assert_int_equal(st.drop[SITD_DROP_tx_too_big], 1);
		assert_int_equal(total_drops(), 1);
		assert_int_equal(c->version == 6 ? st.tx_icmp_ptb : st.tx_icmp_frag_needed, 1);
		return;
	}
	assert_int_equal(sitd_tx_begin(&tx, frame, len, c->path_mtu, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nrecs, c->gso ? 3 : 1);
	for (size_t k = 0; k < nrecs; k++) {
		assert_int_equal(recs[k].len, encap_hdr(c->encap) + c->len);
		assert_int_equal(recs[k].o.df, c->df);
	}
	assert_int_equal(tx.icmp_len, 0);
	assert_int_equal(total_drops(), 0);
}

/* ---- No outer fragmentation over UDP: the kernel fragments, when DF allows ---- */

struct nofrag_case {
	const char *name;
	enum sitd_encap encap;
	unsigned version;
	bool pmtudisc, inner_df;
	size_t len;
	uint32_t path_mtu;
};

static struct nofrag_case nofrag_cases[] = {
	{ "tx fou nopmtudisc: IPv6 of 3000 on a 1500 path: one output of 3000, no DF", SITD_ENCAP_FOU, 6,
	  false, false, 3000, 1500 },
	{ "tx gue nopmtudisc: IPv6 of 3000 on a 1500 path: one output of 4 + 3000, no DF",
	  SITD_ENCAP_GUE, 6, false, false, 3000, 1500 },
	{ "tx gue: IPv4 without DF of 1500, pmtudisc: one output, no DF (RFC 2003 3.1)", SITD_ENCAP_GUE,
	  4, true, false, 1500, 1500 },
	{ "tx fou nopmtudisc: IPv4 without DF of 4000: one output", SITD_ENCAP_FOU, 4, false, false, 4000,
	  1500 },
	{ "tx gue nopmtudisc, path 68: IPv6 of 65503 (65535 - 32) is one output, not tx_frag_too_many",
	  SITD_ENCAP_GUE, 6, false, false, 65503, 68 },
	{ "tx fou, path 1200: IPv6 of 1280 (RFC 4213 3.2.2): one output, no DF", SITD_ENCAP_FOU, 6, true,
	  false, 1280, 1200 },
};

static void test_udp_tx_nofrag(void **state)
{
	const struct nofrag_case *c = *state;
	size_t n = c->version == 6 ? ip6_packet(c->len) : ip4_packet(c->len, c->inner_df);
	uint32_t len = plain_frame(n);
	const struct sitd_out *o = &tx.out[0];

	tx_setup(c->version == 6 ? SITD_MODE_SIT : SITD_MODE_IPIP, c->encap, 0, 0, c->pmtudisc);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, c->path_mtu, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 1);
	assert_int_equal(o->len, encap_hdr(c->encap) + n);
	assert_int_equal(o->iovcnt, c->encap == SITD_ENCAP_GUE ? 2 : 1);
	assert_false(o->df);
	collect();
	check_payload(0, c->encap, c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP, orig + PG_VNET_LEN,
		      n);
	assert_int_equal(st.tx_fragments, 0);
	assert_int_equal(total_drops(), 0);
	assert_int_equal(tx.icmp_len, 0);
}

/* ---- Per-output metadata: hash (encap-sport auto) and frame ---- */

/* Send the frame at `frame` (len bytes): one output, whose hash is returned. */
static uint32_t hash_of(uint32_t len)
{
	uint32_t h;

	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_true(tx.nout >= 1);
	h = tx.out[0].hash;
	for (unsigned k = 1; k < tx.nout; k++)
		assert_int_equal(tx.out[k].hash, h);
	sitd_tx_reset(&tx);
	return h;
}

/* UDP packet of this version at ip, ports and length as given; returns the frame length. */
static uint32_t flow_frame(unsigned version, uint16_t sport, uint16_t dport, size_t len, uint8_t ttl)
{
	unsigned l3 = version == 6 ? 40 : 20;
	size_t n = version == 6 ? ip6_packet(len) : ip4_packet(len, true);

	pg_put16(ip + l3, sport);
	pg_put16(ip + l3 + 2, dport);
	if (version == 6) {
		ip[7] = ttl;
	} else {
		ip[8] = ttl;
		pg_put16(ip + 10, 0);
		pg_put16(ip + 10, pg_csum(ip, 20));
	}
	return plain_frame(n);
}

/*
 * Packets of one flow (addresses, protocol, ports) have one hash whatever their length,
 * TTL or payload; each other source port, destination port or address its own.
 */
static void test_udp_tx_hash_flow(void **state)
{
	static uint32_t seen[200];

	(void)state;
	for (unsigned v = 4; v <= 6; v += 2) {
		uint32_t base;
		size_t ns = 0;

		tx_setup(SITD_MODE_ANY, v == 6 ? SITD_ENCAP_GUE : SITD_ENCAP_FOU, 0, 0, true);
		base = hash_of(flow_frame(v, 40000, 443, 100, 64));
		assert_int_equal(hash_of(flow_frame(v, 40000, 443, 1000, 3)), base);
		assert_int_equal(hash_of(flow_frame(v, 40000, 443, 61, 255)), base);
		seen[ns++] = base;
		for (uint16_t p = 1; p <= 64; p++) {
			seen[ns++] = hash_of(flow_frame(v, (uint16_t)(40000 + p), 443, 100, 64));
			seen[ns++] = hash_of(flow_frame(v, 40000, (uint16_t)(443 + p), 100, 64));
		}
		/* Another inner destination address. */
		flow_frame(v, 40000, 443, 100, 64);
		ip[v == 6 ? 39 : 19] ^= 0x80;
		if (v == 4) {
			pg_put16(ip + 10, 0);
			pg_put16(ip + 10, pg_csum(ip, 20));
		}
		seen[ns++] = hash_of(plain_frame(100));
		for (size_t i = 0; i < ns; i++)
			for (size_t j = i + 1; j < ns; j++)
				if (seen[i] == seen[j])
					fail_msg("IPv%u: flows %zu and %zu share hash 0x%08x", v, i, j,
						 seen[i]);
	}
}

/* A TCP super-packet's segments hash as a plain packet of the same TCP flow does. */
static void test_udp_tx_hash_gso(void **state)
{
	const struct pg_tcp_pkt big = { .version = 6, .ttl = 64, .seq = 1, .ack = 1, .flags = PG_ACK,
					.payload = 5000, .seed = 1, .partial = true };
	const struct pg_tcp_pkt small = { .version = 6, .ttl = 60, .seq = 99999, .ack = 1,
					  .flags = PG_ACK | PG_PSH, .payload = 10, .seed = 2 };
	unsigned l4;
	size_t n;
	uint32_t h;

	(void)state;
	tx_setup(SITD_MODE_SIT, SITD_ENCAP_FOU, 0, 0, true);
	n = pg_tcp_packet(ip, &big, &l4);
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_TCPV6, 60, 1400, 40, 16);
	h = hash_of((uint32_t)(PG_VNET_LEN + n));
	n = pg_tcp_packet(ip, &small, &l4);
	assert_int_equal(hash_of(plain_frame(n)), h);
}

/*
 * The fragments of one inner datagram are one flow: the later ones carry no ports, so
 * the first must not be hashed by its ports either, or the fragments leave on different
 * UDP source ports (and send sockets).  The kernel's udp_flow_src_port() hashes with the
 * flow dissector, which without FLOW_DISSECTOR_F_PARSE_1ST_FRAG stops at the addresses
 * for every fragment, the first included.
 */
static void test_udp_tx_hash_fragments(void **state)
{
	uint32_t first, later;
	size_t n;

	(void)state;
	/* IPv4: a first fragment (MF, offset 0) with the UDP header, and one at 1480. */
	tx_setup(SITD_MODE_IPIP, SITD_ENCAP_FOU, 0, 0, true);
	n = pg_udp_packet(ip, 4, 572, 0x21, false);
	pg_put16(ip + 6, PG_IP4_MF);
	pg_put16(ip + 10, 0);
	pg_put16(ip + 10, pg_csum(ip, 20));
	first = hash_of(plain_frame(n));
	pg_ip4(ip, 0, 20 + 600, 0x4242, 1480 / 8, 64, PG_PROTO_UDP, PG_IN4_SRC, PG_IN4_DST, 0);
	pg_pattern(ip + 20, 600, 0x22);
	later = hash_of(plain_frame(20 + 600));
	assert_int_equal(first, later);

	/* IPv6: Fragment header (RFC 8200 4.5), offset 0 with M, then offset 1232. */
	tx_setup(SITD_MODE_SIT, SITD_ENCAP_GUE, 0, 0, true);
	pg_ip6(ip, 0, 0, 8 + 8 + 500, 44, 64, PG_IN6_SRC, PG_IN6_DST);
	ip[40] = PG_PROTO_UDP;
	ip[41] = 0;
	pg_put16(ip + 42, 0 | 1);
	pg_put32(ip + 44, 0x01020304);
	pg_put16(ip + 48, 5353);
	pg_put16(ip + 50, 53);
	pg_put16(ip + 52, 2000);
	pg_put16(ip + 54, 0);
	pg_pattern(ip + 56, 500, 0x23);
	first = hash_of(plain_frame(40 + 8 + 8 + 500));
	pg_ip6(ip, 0, 0, 8 + 500, 44, 64, PG_IN6_SRC, PG_IN6_DST);
	pg_put16(ip + 42, 1232);
	pg_pattern(ip + 48, 500, 0x24);
	later = hash_of(plain_frame(40 + 8 + 500));
	assert_int_equal(first, later);
}

/* Each frame its own out[].frame, also when the outputs of several frames accumulate. */
static void test_udp_tx_frames(void **state)
{
	uint32_t len;
	unsigned l4;
	size_t n;
	const struct pg_tcp_pkt p = { .version = 4, .ttl = 64, .df = true, .seq = 1, .ack = 1,
				      .flags = PG_ACK, .payload = 3 * 1000, .seed = 3, .partial = true };

	(void)state;
	tx_setup(SITD_MODE_ANY, SITD_ENCAP_GUE, 0, 0, true);
	for (int i = 0; i < 3; i++) {
		len = plain_frame(ip6_packet(100 + (size_t)i));
		assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
		assert_true(sitd_tx_next(&tx));
		assert_int_equal(tx.nout, (unsigned)i + 1);
	}
	n = pg_tcp_packet(ip, &p, &l4);
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_TCPV4, 40, 1000, 20, 16);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)(PG_VNET_LEN + n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 3 + 3);
	for (unsigned a = 0; a < 4; a++)
		for (unsigned b = a + 1; b < 4; b++)
			assert_int_not_equal(tx.out[a].frame, tx.out[b].frame);
	assert_int_equal(tx.out[4].frame, tx.out[3].frame);
	assert_int_equal(tx.out[5].frame, tx.out[3].frame);
	for (unsigned k = 0; k < tx.nout; k++) {
		const uint8_t *g = tx.out[k].iov[0].iov_base;

		assert_int_equal(tx.out[k].len, 4 + (k < 3 ? 100 + k : 20 + 20 + 1000));
		assert_int_equal(g[1], k < 3 ? PG_PROTO_IPV6 : PG_PROTO_IPIP);
	}
}

/* The tunnel's mode still decides what it carries: IPv4 into fou sit is tx_mode. */
static void test_udp_tx_mode(void **state)
{
	(void)state;
	tx_setup(SITD_MODE_SIT, SITD_ENCAP_FOU, 0, 0, true);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(ip4_packet(200, true)), 1500, 0),
			 SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_mode], 1);
	assert_int_equal(total_drops(), 1);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 0);
	tx_setup(SITD_MODE_IPIP, SITD_ENCAP_GUE, 0, 0, true);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(ip6_packet(200)), 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_mode], 1);
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = &(arr)[i] }

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(good_cases) + ARRAY_SIZE(drop_cases) + ARRAY_SIZE(layout_cases) +
				ARRAY_SIZE(gso_cases) + ARRAY_SIZE(mtu_cases) + ARRAY_SIZE(nofrag_cases) +
				8];
	size_t n = 0;

	TABLE(good_cases, test_udp_rx_good);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_rx_max);
	TABLE(drop_cases, test_udp_rx_drop);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_rx_ecn_table);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_rx_ecn_ce_ipv4_csum);
	TABLE(layout_cases, test_udp_tx_layout);
	TABLE(gso_cases, test_udp_tx_gso);
	TABLE(mtu_cases, test_udp_tx_mtu);
	TABLE(nofrag_cases, test_udp_tx_nofrag);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_tx_hash_flow);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_tx_hash_gso);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_tx_hash_fragments);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_tx_frames);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_tx_mode);
	if (n != ARRAY_SIZE(tests)) {
		fprintf(stderr, "test_udp: %zu of %zu tests filled in\n", n, ARRAY_SIZE(tests));
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
