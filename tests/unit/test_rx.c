/* SPDX-License-Identifier: MIT */
/*
 * Receive pipeline, sitd_rx_decap: outer IPv4 packets as a raw socket hands them over,
 * validated in layers (doc/kernel.md "Receive checks") as the kernel's ipip6_rcv /
 * ip_tunnel_rcv and then ip_rcv_core / ip6_rcv_core do, with ECN decapsulation per
 * RFC 6040 4.2.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pktgen.h"
#include "core/rx.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct sitd_rx rx;
static struct sitd_stats st;
static uint8_t buf[4096], inner[2048], copy[4096];

static void rx_setup(enum sitd_mode mode, uint32_t local)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "rxt");
	c.mode = mode;
	c.remote = PG_OUTER_REMOTE;
	c.local = local;
	c.pmtudisc = true;
	memset(&st, 0, sizeof(st));
	sitd_rx_init(&rx, &c, &st);
}

static uint64_t total_drops(void)
{
	uint64_t n = 0;

	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		n += st.drop[i];
	return n;
}

/* An inner packet at `inner`: IPv6 or IPv4 UDP, `len` bytes, with this TOS / class. */
static size_t mk_inner(unsigned version, size_t len, uint8_t dsfield)
{
	size_t n = pg_udp_packet(inner, version, (uint32_t)(len - (version == 4 ? 28 : 20 + 28)), 0x3c,
				 false);

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

/*
 * buf = outer IPv4 header (optlen bytes of options) + `inner` (ilen bytes) + `trailing`
 * bytes inside the outer total length; from the remote to the local endpoint.
 */
static size_t mk_outer(uint8_t proto, uint8_t tos, size_t ilen, size_t trailing, unsigned optlen)
{
	unsigned hl = 20 + optlen;

	memcpy(buf + hl, inner, ilen);
	memset(buf + hl + ilen, 0xee, trailing);
	pg_ip4(buf, tos, (uint16_t)(hl + ilen + trailing), 0x2222, PG_IP4_DF, 50, proto, PG_OUTER_REMOTE,
	       PG_OUTER_LOCAL, optlen);
	return hl + ilen + trailing;
}

static void refresh_csum(void)
{
	pg_put16(buf + 10, 0);
	pg_put16(buf + 10, pg_csum(buf, (buf[0] & 15u) * 4));
}

/* ---- Accepted packets ---- */

struct good_case {
	const char *name;
	enum sitd_mode mode;
	uint32_t local;
	unsigned version;
	size_t ilen;
	unsigned optlen;	/* outer IPv4 options */
	size_t trailing;	/* inside the outer total length, after the inner packet */
	size_t extra;		/* received after the outer total length */
	uint32_t dst;		/* outer destination; 0: the local endpoint */
};

static struct good_case good_cases[] = {
	/* name, mode, local, version, ilen, optlen, trailing, extra, dst */
	{ "sit: IPv6 in protocol 41", SITD_MODE_SIT, PG_OUTER_LOCAL, 6, 500, 0, 0, 0, 0 },
	{ "ipip: IPv4 in protocol 4", SITD_MODE_IPIP, PG_OUTER_LOCAL, 4, 500, 0, 0, 0, 0 },
	{ "mode any: protocol 41", SITD_MODE_ANY, PG_OUTER_LOCAL, 6, 300, 0, 0, 0, 0 },
	{ "mode any: protocol 4", SITD_MODE_ANY, PG_OUTER_LOCAL, 4, 300, 0, 0, 0, 0 },
	{ "outer IPv4 options (IHL 7): inner at 28", SITD_MODE_SIT, PG_OUTER_LOCAL, 6, 200, 8, 0, 0, 0 },
	{ "sit: outer carries 13 trailing bytes: trimmed to the IPv6 length", SITD_MODE_SIT,
	  PG_OUTER_LOCAL, 6, 200, 0, 13, 0, 0 },
	{ "ipip: outer carries 7 trailing bytes: trimmed to the IPv4 total length", SITD_MODE_IPIP,
	  PG_OUTER_LOCAL, 4, 200, 0, 7, 0, 0 },
	{ "bytes received past the outer total length are ignored", SITD_MODE_SIT, PG_OUTER_LOCAL, 6,
	  200, 0, 0, 30, 0 },
	{ "local any: any outer destination is accepted", SITD_MODE_SIT, 0, 6, 200, 0, 0, 0, 0xc6336463 },
	{ "smallest inner IPv6 packet (41 bytes)", SITD_MODE_SIT, PG_OUTER_LOCAL, 6, 41, 0, 0, 0, 0 },
	{ "smallest inner IPv4 packet (20 bytes)", SITD_MODE_IPIP, PG_OUTER_LOCAL, 4, 20, 0, 0, 0, 0 },
};

static void test_rx_good(void **state)
{
	const struct good_case *c = *state;
	size_t ilen, n;
	uint32_t off = 0xdead, ilen_out = 0xbeef;

	rx_setup(c->mode, c->local);
	if (c->version == 6 && c->ilen < 48) {
		pg_ip6(inner, 0, 0, (uint16_t)(c->ilen - 40), 59, 3, PG_IN6_SRC, PG_IN6_DST);
		ilen = c->ilen;
	} else if (c->version == 4 && c->ilen < 28) {
		pg_ip4(inner, 0, (uint16_t)c->ilen, 1, 0, 17, 253, PG_IN4_SRC, PG_IN4_DST, 0);
		ilen = c->ilen;
	} else {
		ilen = mk_inner(c->version, c->ilen, 0);
	}
	assert_int_equal(ilen, c->ilen);
	n = mk_outer(c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP, 0, ilen, c->trailing, c->optlen);
	if (c->dst) {
		pg_put32(buf + 16, c->dst);
		refresh_csum();
	}
	memset(buf + n, 0x77, c->extra);
	memcpy(copy, buf, n + c->extra);

	assert_int_equal(sitd_rx_decap(&rx, buf, (uint32_t)(n + c->extra), &off, &ilen_out), 0);
	assert_int_equal(off, 20 + c->optlen);
	assert_int_equal(ilen_out, ilen);
	assert_memory_equal(buf, copy, n + c->extra);	/* nothing to change: Not-ECT both */
	assert_int_equal(total_drops(), 0);
	assert_int_equal(st.rx_ecn_marked, 0);
}

/* ---- One case per drop reason ---- */

enum rx_mutation {
	RXM_NONE,
	RXM_RECV_LEN,		/* bytes received = val */
	RXM_BYTE0,		/* outer version/IHL byte = val, checksum fixed */
	RXM_TOTLEN,		/* outer total length = val, checksum fixed */
	RXM_IHL15,		/* outer IHL 15 and total length = val, checksum fixed */
	RXM_CSUM,		/* outer checksum off by one */
	RXM_FRAG,		/* outer fragment field = val, checksum fixed */
	RXM_PROTO,		/* outer protocol = val, checksum fixed */
	RXM_SRC,		/* outer source = val, checksum fixed */
	RXM_DST,		/* outer destination = val, checksum fixed */
	RXM_INNER_LEN,		/* inner IPv6 payload length / IPv4 total length = val */
	RXM_INNER_BYTE0,	/* inner version/IHL byte = val */
	RXM_OUTER_ECN,		/* outer ECN = val, checksum fixed */
};

struct drop_case {
	const char *name;
	enum sitd_mode mode;
	unsigned version;	/* inner */
	enum rx_mutation mut;
	unsigned val;
	enum sitd_drop reason;
};

#define REMOTE_OTHER 0xcb007109u	/* 203.0.113.9 */
#define LOCAL_OTHER 0xc6336409u		/* 198.51.100.9 */

static struct drop_case drop_cases[] = {
	/* name, mode, inner version, mutation, value -> reason */
	{ "19 bytes: shorter than an IPv4 header",
	  SITD_MODE_SIT, 6, RXM_RECV_LEN, 19, SITD_DROP_rx_truncated },
	{ "0 bytes", SITD_MODE_SIT, 6, RXM_RECV_LEN, 0, SITD_DROP_rx_truncated },
	{ "outer version 6", SITD_MODE_SIT, 6, RXM_BYTE0, 0x65, SITD_DROP_rx_truncated },
	{ "outer IHL 4 (RFC 791: at least 5)", SITD_MODE_SIT, 6, RXM_BYTE0, 0x44, SITD_DROP_rx_truncated },
	{ "outer IHL 15 with total length 40: header past the packet", SITD_MODE_SIT, 6, RXM_IHL15, 40,
	  SITD_DROP_rx_truncated },
	{ "outer total length beyond the bytes received", SITD_MODE_SIT, 6, RXM_TOTLEN, 221,
	  SITD_DROP_rx_truncated },
	{ "outer header checksum wrong", SITD_MODE_SIT, 6, RXM_CSUM, 0, SITD_DROP_rx_outer_csum },
	{ "outer fragment: MF set", SITD_MODE_SIT, 6, RXM_FRAG, PG_IP4_MF, SITD_DROP_rx_fragment },
	{ "outer fragment: offset 1", SITD_MODE_SIT, 6, RXM_FRAG, 1, SITD_DROP_rx_fragment },
	{ "outer fragment: offset 100 (with DF)", SITD_MODE_IPIP, 4, RXM_FRAG, PG_IP4_DF | 100,
	  SITD_DROP_rx_fragment },
	{ "protocol 4 on a mode sit tunnel", SITD_MODE_SIT, 4, RXM_PROTO, PG_PROTO_IPIP, SITD_DROP_rx_proto },
	{ "protocol 41 on a mode ipip tunnel",
	  SITD_MODE_IPIP, 6, RXM_PROTO, PG_PROTO_IPV6, SITD_DROP_rx_proto },
	{ "protocol 17 on a mode sit tunnel", SITD_MODE_SIT, 6, RXM_PROTO, PG_PROTO_UDP, SITD_DROP_rx_proto },
	{ "protocol 17 on a mode any tunnel", SITD_MODE_ANY, 6, RXM_PROTO, PG_PROTO_UDP, SITD_DROP_rx_proto },
	{ "protocol 47 (GRE) on a mode any tunnel", SITD_MODE_ANY, 4, RXM_PROTO, 47, SITD_DROP_rx_proto },
	{ "source is not the remote", SITD_MODE_SIT, 6, RXM_SRC, REMOTE_OTHER, SITD_DROP_rx_wrong_source },
	{ "destination is not the local address",
	  SITD_MODE_SIT, 6, RXM_DST, LOCAL_OTHER, SITD_DROP_rx_wrong_dest },
	{ "IPv4 inside protocol 41 (mode any)", SITD_MODE_ANY, 4, RXM_PROTO, PG_PROTO_IPV6,
	  SITD_DROP_rx_inner_version },
	{ "IPv6 inside protocol 4 (mode any)", SITD_MODE_ANY, 6, RXM_PROTO, PG_PROTO_IPIP,
	  SITD_DROP_rx_inner_version },
	{ "inner version 5 in protocol 41",
	  SITD_MODE_SIT, 6, RXM_INNER_BYTE0, 0x50, SITD_DROP_rx_inner_version },
	{ "no inner packet: outer total length = IHL", SITD_MODE_SIT, 6, RXM_TOTLEN, 20,
	  SITD_DROP_rx_inner_truncated },
	{ "inner IPv6 header cut to 30 bytes",
	  SITD_MODE_SIT, 6, RXM_TOTLEN, 50, SITD_DROP_rx_inner_truncated },
	{ "inner IPv6 header cut, the rest received past the outer length", SITD_MODE_SIT, 6, RXM_TOTLEN,
	  60, SITD_DROP_rx_inner_truncated },
	{ "inner IPv6 payload length beyond what is left", SITD_MODE_SIT, 6, RXM_INNER_LEN, 161,
	  SITD_DROP_rx_inner_truncated },
	{ "inner IPv4 total length beyond what is left", SITD_MODE_IPIP, 4, RXM_INNER_LEN, 201,
	  SITD_DROP_rx_inner_truncated },
	{ "inner IPv4 IHL 4", SITD_MODE_IPIP, 4, RXM_INNER_BYTE0, 0x44, SITD_DROP_rx_inner_truncated },
	{ "outer CE on a Not-ECT inner packet (RFC 6040 4.2)", SITD_MODE_SIT, 6, RXM_OUTER_ECN, 3,
	  SITD_DROP_rx_ecn },
	{ "outer CE on a Not-ECT inner IPv4 packet (RFC 6040 4.2)", SITD_MODE_IPIP, 4, RXM_OUTER_ECN, 3,
	  SITD_DROP_rx_ecn },
};

static void test_rx_drop(void **state)
{
	const struct drop_case *c = *state;
	size_t ilen = mk_inner(c->version, 200, 0);
	size_t n = mk_outer(c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP, 0, ilen, 0, 0);
	uint32_t len = (uint32_t)n, off = 0, il = 0;

	rx_setup(c->mode, PG_OUTER_LOCAL);
	switch (c->mut) {
	case RXM_NONE:
		break;
	case RXM_RECV_LEN:
		len = c->val;
		break;
	case RXM_BYTE0:
		buf[0] = (uint8_t)c->val;
		refresh_csum();
		break;
	case RXM_IHL15:
		buf[0] = 0x4f;
		__attribute__((fallthrough));
	case RXM_TOTLEN:
		pg_put16(buf + 2, (uint16_t)c->val);
		refresh_csum();
		break;
	case RXM_CSUM:
		pg_put16(buf + 10, (uint16_t)(pg_get16(buf + 10) + 1));
		break;
	case RXM_FRAG:
		pg_put16(buf + 6, (uint16_t)c->val);
		refresh_csum();
		break;
	case RXM_PROTO:
		buf[9] = (uint8_t)c->val;
		refresh_csum();
		break;
	case RXM_SRC:
		pg_put32(buf + 12, c->val);
		refresh_csum();
		break;
	case RXM_DST:
		pg_put32(buf + 16, c->val);
		refresh_csum();
		break;
	case RXM_INNER_LEN:
		pg_put16(buf + 20 + (c->version == 4 ? 2 : 4), (uint16_t)c->val);
		break;
	case RXM_INNER_BYTE0:
		buf[20] = (uint8_t)c->val;
		break;
	case RXM_OUTER_ECN:
		buf[1] = (uint8_t)((buf[1] & ~3u) | c->val);
		refresh_csum();
		break;
	}
	assert_int_equal(sitd_rx_decap(&rx, buf, len, &off, &il), -1);
	assert_int_equal(st.drop[c->reason], 1);
	assert_int_equal(total_drops(), 1);
	assert_int_equal(st.rx_ecn_marked, 0);
}

/* The same packet passes once the offending field is put right: the drops are not spurious. */
static void test_rx_drop_baseline(void **state)
{
	uint32_t off, il;
	size_t ilen, n;

	(void)state;
	for (unsigned v = 4; v <= 6; v += 2) {
		ilen = mk_inner(v, 200, 0);
		n = mk_outer(v == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP, 0, ilen, 0, 0);
		rx_setup(SITD_MODE_ANY, PG_OUTER_LOCAL);
		assert_int_equal(sitd_rx_decap(&rx, buf, (uint32_t)n, &off, &il), 0);
		assert_int_equal(n, 220);
		assert_int_equal(il, 200);
	}
}

/* ---- A bare inner header: the smallest whole packets, and their truncations ---- */

enum { BARE_OK = -1 };

struct bare_case {
	const char *name;
	enum sitd_mode mode;
	unsigned version;	/* inner */
	uint8_t nxt;		/* IPv6 next header / IPv4 protocol */
	uint16_t declared;	/* IPv6 payload length / IPv4 total length */
	size_t avail;		/* inner bytes inside the outer total length */
	int reason;		/* BARE_OK, or the drop */
	uint32_t inner_len;	/* when delivered */
};

static struct bare_case bare_cases[] = {
	/* name, mode, version, nxt, declared, avail -> reason, inner_len */
	{ "IPv6 header alone (payload length 0, next header 59, RFC 8200 4.7): delivered, 40 bytes",
	  SITD_MODE_SIT, 6, 59, 0, 40, BARE_OK, 40 },
	{ "IPv6 header alone on a mode any tunnel: delivered, 40 bytes",
	  SITD_MODE_ANY, 6, 59, 0, 40, BARE_OK, 40 },
	{ "IPv6 header alone with 24 padding bytes in the outer packet: trimmed to 40",
	  SITD_MODE_SIT, 6, 59, 0, 64, BARE_OK, 40 },
	{ "IPv6 header alone cut to 39 bytes: rx_inner_truncated",
	  SITD_MODE_SIT, 6, 59, 0, 39, SITD_DROP_rx_inner_truncated, 0 },
	{ "IPv6 payload length 1, next header 59, only the 40-byte header: rx_inner_truncated",
	  SITD_MODE_SIT, 6, 59, 1, 40, SITD_DROP_rx_inner_truncated, 0 },
	{ "IPv6 payload length 0, next header Hop-by-Hop (a jumbogram, RFC 2675 3): rx_inner_truncated",
	  SITD_MODE_SIT, 6, 0, 0, 48, SITD_DROP_rx_inner_truncated, 0 },
	{ "IPv6 payload length 0, next header UDP: rx_inner_truncated",
	  SITD_MODE_SIT, 6, 17, 0, 48, SITD_DROP_rx_inner_truncated, 0 },
	{ "IPv4 header alone (total length 20, ip_rcv_core accepts it): delivered, 20 bytes",
	  SITD_MODE_IPIP, 4, 253, 20, 20, BARE_OK, 20 },
	{ "IPv4 header alone on a mode any tunnel: delivered, 20 bytes",
	  SITD_MODE_ANY, 4, 253, 20, 20, BARE_OK, 20 },
	{ "IPv4 total length 20 with 19 bytes there: rx_inner_truncated",
	  SITD_MODE_IPIP, 4, 253, 20, 19, SITD_DROP_rx_inner_truncated, 0 },
	{ "IPv4 total length 19, below its header: rx_inner_truncated",
	  SITD_MODE_IPIP, 4, 253, 19, 20, SITD_DROP_rx_inner_truncated, 0 },
};

static void test_rx_bare(void **state)
{
	const struct bare_case *c = *state;
	uint32_t off = 0xdead, il = 0xbeef;
	size_t n;
	int r;

	rx_setup(c->mode, PG_OUTER_LOCAL);
	memset(inner, 0xee, sizeof(inner));
	if (c->version == 6) {
		pg_ip6(inner, 0, 0, c->declared, c->nxt, 3, PG_IN6_SRC, PG_IN6_DST);
		if (c->nxt == 0) {
			/* Hop-by-Hop: Pad2, then a Jumbo Payload option (RFC 2675 2) of 65536. */
			static const uint8_t hbh[8] = { 59, 0, 0xc2, 4, 0, 1, 0, 0 };

			memcpy(inner + 40, hbh, sizeof(hbh));
		}
	} else {
		pg_ip4(inner, 0, c->declared, 1, 0, 17, c->nxt, PG_IN4_SRC, PG_IN4_DST, 0);
	}
	n = mk_outer(c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP, 0, c->avail, 0, 0);
	memcpy(copy, buf, n);

	r = sitd_rx_decap(&rx, buf, (uint32_t)n, &off, &il);
	assert_memory_equal(buf, copy, n);
	if (c->reason != BARE_OK) {
		assert_int_equal(r, -1);
		assert_int_equal(st.drop[c->reason], 1);
		assert_int_equal(total_drops(), 1);
		return;
	}
	assert_int_equal(r, 0);
	assert_int_equal(off, 20);
	assert_int_equal(il, c->inner_len);
	assert_int_equal(total_drops(), 0);
}

/* ---- ECN on decapsulation (RFC 6040 4.2) ---- */

/* Outer CE on ECT(0) inner IPv4: CE inside, DSCP kept, header checksum right for every ID. */
static void test_rx_ecn_ce_ipv4(void **state)
{
	(void)state;
	rx_setup(SITD_MODE_IPIP, PG_OUTER_LOCAL);
	for (uint32_t id = 0; id <= 0xffff; id++) {
		size_t ilen = mk_inner(4, 100, 0xb8 | 2);
		size_t n;
		uint32_t off, il;
		uint8_t *in = buf + 20;
		uint16_t want;

		pg_put16(inner + 4, (uint16_t)id);
		pg_put16(inner + 10, 0);
		pg_put16(inner + 10, pg_csum(inner, 20));
		n = mk_outer(PG_PROTO_IPIP, 0x03, ilen, 0, 0);
		assert_int_equal(sitd_rx_decap(&rx, buf, (uint32_t)n, &off, &il), 0);
		assert_int_equal(in[1], 0xb8 | 3);
		assert_int_equal(in[8], 17);			/* TTL untouched */
		/* RFC 1624 eqn. 3 gives exactly the recomputed checksum, 0x0000 included. */
		want = pg_get16(in + 10);
		pg_put16(in + 10, 0);
		assert_int_equal(want, pg_csum(in, 20));
	}
	assert_int_equal(st.rx_ecn_marked, 0x10000);
}

/* Outer ECT(1) on ECT(0) inner IPv6: ECT(1) inside, class and flow label otherwise kept. */
static void test_rx_ecn_ect1_ipv6(void **state)
{
	size_t ilen = mk_inner(6, 300, 0xb8 | 2);
	size_t n = mk_outer(PG_PROTO_IPV6, 0x01, ilen, 0, 0);
	uint32_t off, il;
	uint8_t *in = buf + 20;

	(void)state;
	rx_setup(SITD_MODE_SIT, PG_OUTER_LOCAL);
	assert_int_equal(sitd_rx_decap(&rx, buf, (uint32_t)n, &off, &il), 0);
	assert_int_equal(pg_ip6_tclass(in), 0xb8 | 1);
	assert_int_equal(in[1] & 0x0f, 0x05);		/* flow label 0x54321 intact */
	assert_int_equal(pg_get16(in + 2), 0x4321);
	assert_int_equal(in[7], 3);			/* hop limit untouched */
	assert_memory_equal(in + 4, inner + 4, ilen - 4);
	assert_int_equal(st.rx_ecn_marked, 1);
}

/* All 16 cells of RFC 6040 Figure 4 through the decapsulator, for both inner versions. */
static void test_rx_ecn_table(void **state)
{
	static const int want[4][4] = {	/* [inner][outer], -1 = drop */
		{ 0, 0, 0, -1 }, { 1, 1, 1, 3 }, { 2, 1, 2, 3 }, { 3, 3, 3, 3 },
	};

	(void)state;
	for (unsigned v = 4; v <= 6; v += 2)
		for (int in_ecn = 0; in_ecn < 4; in_ecn++)
			for (int out_ecn = 0; out_ecn < 4; out_ecn++) {
				size_t ilen = mk_inner(v, 120, (uint8_t)(0x28 | in_ecn));
				size_t n = mk_outer(v == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP,
						    (uint8_t)(0x48 | out_ecn), ilen, 0, 0);
				uint32_t off, il;
				uint8_t *in = buf + 20;
				int w = want[in_ecn][out_ecn];
				int r;

				rx_setup(SITD_MODE_ANY, PG_OUTER_LOCAL);
				r = sitd_rx_decap(&rx, buf, (uint32_t)n, &off, &il);
				if (w < 0) {
					assert_int_equal(r, -1);
					assert_int_equal(st.drop[SITD_DROP_rx_ecn], 1);
					continue;
				}
				assert_int_equal(r, 0);
				if (v == 4) {
					assert_int_equal(in[1], 0x28 | w);
					assert_true(pg_ip4_csum_ok(in));
					assert_memory_equal(in + 2, inner + 2, 8);
					assert_memory_equal(in + 12, inner + 12, ilen - 12);
				} else {
					assert_int_equal(pg_ip6_tclass(in), 0x28 | w);
					assert_memory_equal(in + 2, inner + 2, ilen - 2);
				}
				assert_int_equal(st.rx_ecn_marked, w != in_ecn);
			}
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = &(arr)[i] }

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(good_cases) + ARRAY_SIZE(drop_cases) + ARRAY_SIZE(bare_cases) + 4];
	size_t n = 0;

	TABLE(good_cases, test_rx_good);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_rx_drop_baseline);
	TABLE(drop_cases, test_rx_drop);
	TABLE(bare_cases, test_rx_bare);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_rx_ecn_ce_ipv4);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_rx_ecn_ect1_ipv6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_rx_ecn_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
