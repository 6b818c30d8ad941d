/* SPDX-License-Identifier: MIT */
/*
 * Transmit with an IPv6 outer header (ip6tnl): the header chain field by field, the
 * Tunnel Encapsulation Limit option byte by byte, nested tunnels, the GSO split, the MTU
 * answers and the entry point's fragmentation.  The rules are the kernel's
 * ipxip6_tnl_xmit, ip6_tnl_xmit, init_tel_txopt and ip6_tnl_parse_tlv_enc_lim, RFC 2473
 * 4.1.1 and 7.1, RFC 6040 4.1, RFC 6437, RFC 8200 4.5.  Expected bytes are written out
 * here, and checksums computed with pktgen.h's own routine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/inet.h"
#include "core/pmtu.h"
#include "core/sixrd.h"
#include "pktgen.h"
#include "txharness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const uint8_t L6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t R6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

static struct sitd_stats st;
static struct sitd_conf conf;

struct seg {
	uint8_t *p;
	size_t len;
};
static uint8_t pool[4 << 20];
static struct seg segs[2048];
static size_t nsegs, pool_used;

static void collect(void)
{
	for (unsigned k = 0; k < tx.nout; k++) {
		const struct sitd_out *o = &tx.out[k];
		size_t n;

		assert_true(o->iovcnt >= 1 && o->iovcnt <= 3);
		assert_true(nsegs < ARRAY_SIZE(segs));
		n = pg_flatten(o->iov, o->iovcnt, pool + pool_used, sizeof(pool) - pool_used);
		assert_true(n != (size_t)-1);
		assert_int_equal(n, o->len);
		assert_int_equal(o->dst, 0);
		segs[nsegs].p = pool + pool_used;
		segs[nsegs++].len = n;
		pool_used += n;
	}
}

/* An ip6tnl conf: mode, hop limit, traffic class; encaplimit 4; flow label auto. */
static void conf6(enum sitd_mode mode, uint8_t hlim, uint8_t tclass)
{
	memset(&conf, 0, sizeof(conf));
	strcpy(conf.name, "ip6t");
	conf.outer = SITD_OUTER_IPV6;
	conf.mode = mode;
	memcpy(conf.local6, L6, 16);
	memcpy(conf.remote6, R6, 16);
	conf.ttl = hlim;
	conf.tos = tclass;
	conf.encap_limit = SITD_ENCAP_LIMIT_DEFAULT;
}

static void start(void)
{
	memset(&st, 0, sizeof(st));
	sitd_tx_init(&tx, &conf, &st, NULL, 0x100);
	nsegs = pool_used = 0;
}

static uint32_t flowlabel_of(const uint8_t *o)
{
	return pg_get32(o) & 0xfffff;
}

/* The option exactly as init_tel_txopt + ipv6_push_exthdr write it. */
static void check_tel(const uint8_t *d, uint8_t nxt, uint8_t limit)
{
	const uint8_t want[8] = { nxt, 0, 4, 1, limit, 1, 1, 0 };

	assert_memory_equal(d, want, 8);
}

/* ---- Header fields ---- */

struct field_case {
	const char *name;
	unsigned version;
	uint8_t conf_hlim, conf_tclass;
	uint32_t conf_fl;
	bool fl_inherit;
	uint8_t in_ds, in_ttl;
	uint32_t in_fl;
	/* expected: traffic class, hop limit, flow label (0: the auto label, checked apart) */
	uint8_t tc, hlim;
	uint32_t fl;
};

static struct field_case field_cases[] = {
	{ "ip6ip6: hoplimit 64, tclass 0x28 fixed, flowlabel 0xbeef fixed, inner ECT(1)", 6, 64,
	  0x28, 0xbeef, false, 0xb9, 9, 0x12345, 0x29, 64, 0xbeef },
	{ "ip6ip6: all inherited, inner CE sent as ECT(0) (RFC 6040 4.1)", 6, 0, SITD_TOS_INHERIT,
	  0, true, 0xb3, 17, 0xabcde, 0xb2, 17, 0xabcde },
	{ "ip6ip6: flowlabel inherit of an inner label 0: the auto label", 6, 5, 0, 0, true, 0x02,
	  200, 0, 0x02, 5, 0 },
	{ "ipip6: tclass inherit from the IPv4 TOS, hop limit from its TTL", 4, 0,
	  SITD_TOS_INHERIT, 0x777, false, 0x82, 100, 0, 0x82, 100, 0x777 },
	{ "ipip6: flowlabel inherit of IPv4: none to inherit, the auto label", 4, 30, 0x48, 0, true,
	  0x03, 64, 0, 0x4a, 30, 0 },
	{ "ipip6: fixed tclass keeps its DSCP, takes the inner ECN", 4, 1, 0xfc, 1, false, 0x01, 8,
	  0, 0xfd, 1, 1 },
};

static void test_tx6_fields(void **state)
{
	const struct field_case *c = *state;
	size_t n;
	const uint8_t *o;

	conf6(SITD_MODE_ANY, c->conf_hlim, c->conf_tclass);
	conf.flowlabel = c->conf_fl;
	conf.flowlabel_inherit = c->fl_inherit;
	start();
	if (c->version == 6) {
		n = ip6_packet(300);
		pg_ip6(ip, c->in_ds, c->in_fl, (uint16_t)(n - 40), PG_PROTO_UDP, c->in_ttl, PG_IN6_SRC,
		       PG_IN6_DST);
	} else {
		n = ip4_packet(300, false);
		ip[1] = c->in_ds;
		ip[8] = c->in_ttl;
		pg_put16(ip + 10, 0);
		pg_put16(ip + 10, pg_csum(ip, 20));
	}
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(nsegs, 1);
	o = segs[0].p;
	assert_int_equal(segs[0].len, 48 + n);
	assert_int_equal(o[0] >> 4, 6);
	assert_int_equal(pg_ip6_tclass(o), c->tc);
	if (c->fl)
		assert_int_equal(flowlabel_of(o), c->fl);
	else	/* the auto label, a hash: not 0 for this flow */
		assert_int_not_equal(flowlabel_of(o), 0);
	assert_int_equal(pg_get16(o + 4), 8 + n);
	assert_int_equal(o[6], 60);
	assert_int_equal(o[7], c->hlim);
	assert_memory_equal(o + 8, L6, 16);
	assert_memory_equal(o + 24, R6, 16);
	check_tel(o + 40, c->version == 6 ? 41 : 4, 4);
	assert_memory_equal(o + 48, orig + PG_VNET_LEN, n);
	assert_int_equal(st.tx_fragments, 0);
}

/* The auto label: a hash of the inner flow, the same for a flow, another for another. */
static void test_tx6_auto_flowlabel(void **state)
{
	uint32_t fl[3];
	size_t n;

	(void)state;
	conf6(SITD_MODE_SIT, 64, 0);
	start();
	for (int k = 0; k < 3; k++) {
		n = ip6_packet(200);
		if (k == 2)
			pg_put16(ip + 40, 5354);	/* another source port: another flow */
		ip[1] = (uint8_t)(ip[1] | (k == 1 ? 0x0f : 0));	/* the inner label is not used */
		assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
		assert_true(sitd_tx_next(&tx));
		collect();
		sitd_tx_reset(&tx);
		fl[k] = flowlabel_of(segs[k].p);
	}
	assert_int_not_equal(fl[0], 0);
	assert_int_equal(fl[0], fl[1]);
	assert_int_not_equal(fl[0], fl[2]);
}

/* encaplimit none: next header 41/4 right after the IPv6 header; 0: an option of 0. */
static void test_tx6_encaplimit_none_and_0(void **state)
{
	size_t n;

	(void)state;
	conf6(SITD_MODE_IPIP, 64, 0);
	conf.encap_limit_none = true;
	start();
	n = ip4_packet(500, true);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(segs[0].len, 40 + n);
	assert_int_equal(pg_get16(segs[0].p + 4), n);
	assert_int_equal(segs[0].p[6], 4);
	assert_memory_equal(segs[0].p + 40, orig + PG_VNET_LEN, n);

	conf6(SITD_MODE_SIT, 64, 0);
	conf.encap_limit = 0;
	start();
	n = ip6_packet(500);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(segs[0].len, 48 + n);
	check_tel(segs[0].p + 40, 41, 0);
}

/* local any: the source stays :: until the daemon gives the one it chose. */
static void test_tx6_local_any(void **state)
{
	static const uint8_t zero[16];
	size_t n;

	(void)state;
	conf6(SITD_MODE_SIT, 64, 0);
	memset(conf.local6, 0, 16);
	start();
	n = ip6_packet(100);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_memory_equal(segs[0].p + 8, zero, 16);
	sitd_tx_reset(&tx);
	sitd_tx_local6(&tx, L6);
	n = ip6_packet(100);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_memory_equal(segs[1].p + 8, L6, 16);
}

/* ip6_tnl_addr_conflict: an inner IPv6 source that is the remote is a loop. */
static void test_tx6_src_is_remote(void **state)
{
	size_t n;

	(void)state;
	conf6(SITD_MODE_ANY, 64, 0);
	start();
	n = ip6_packet(100);
	memcpy(ip + 8, R6, 16);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_src_is_remote], 1);
	assert_int_equal(tx.icmp_len, 0);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 0);
}

/* ---- Nested tunnels ---- */

/*
 * An inner IPv6 UDP packet whose headers are [IPv6][Hop-by-Hop 8][Destination Options 16:
 * Pad1, PadN 3, TEL limit, PadN 2] then UDP: the option at 40 + 8 + 2 + 1 + 5 = 56.
 */
static size_t nested_packet(uint8_t limit)
{
	size_t n = 40 + 8 + 16 + 8 + 100;
	uint8_t *h = ip + 40, *d = ip + 48, *u = ip + 64;

	pg_ip6(ip, 0, 0x54321, (uint16_t)(n - 40), 0, 64, PG_IN6_SRC, PG_IN6_DST);
	memset(h, 0, 8);
	h[0] = 60;
	h[2] = 1;	/* PadN 4 */
	h[3] = 4;
	d[0] = 17;
	d[1] = 1;
	d[2] = 0;	/* Pad1 */
	d[3] = 1;	/* PadN 3 */
	d[4] = 3;
	memset(d + 5, 0, 3);
	d[8] = 4;	/* Tunnel Encapsulation Limit */
	d[9] = 1;
	d[10] = limit;
	d[11] = 1;	/* PadN 2 */
	d[12] = 2;
	memset(d + 13, 0, 3);
	pg_put16(u, 7);
	pg_put16(u + 2, 9);
	pg_put16(u + 4, 108);
	pg_put16(u + 6, 0);
	pg_pattern(u + 8, 100, 3);
	pg_put16(u + 6, (uint16_t)~pg_fold(pg_sum(u, 108, pg_pseudo6(PG_IN6_SRC, PG_IN6_DST, 17, 108))));
	return n;
}

static void test_tx6_find_enc_lim(void **state)
{
	size_t n;

	(void)state;
	n = nested_packet(7);
	assert_int_equal(sitd_ip6_find_enc_lim(ip, n), 56);
	/* Cut short inside the header: not found (pskb_may_pull fails). */
	assert_int_equal(sitd_ip6_find_enc_lim(ip, 60), 0);
	/* Behind a Fragment header with offset or M set the walk stops; 0 passes. */
	memmove(ip + 56, ip + 48, n - 48);
	ip[6] = 44;
	ip[40] = 0;	/* fragment header -> hop-by-hop: order is not the walk's concern */
	ip[41] = 0;
	pg_put16(ip + 42, 1);	/* M */
	pg_put32(ip + 44, 99);
	memcpy(ip + 48, (const uint8_t[8]){ 60, 0, 1, 4, 0, 0, 0, 0 }, 8);
	assert_int_equal(sitd_ip6_find_enc_lim(ip, n + 8), 0);
	pg_put16(ip + 42, 0);
	assert_int_equal(sitd_ip6_find_enc_lim(ip, n + 8), 64);
	/* ESP (50) is no extension header to the walk. */
	ip[6] = 50;
	assert_int_equal(sitd_ip6_find_enc_lim(ip, n + 8), 0);
	/* An option of the right type but length 2 is skipped. */
	n = nested_packet(7);
	ip[57] = 2;
	assert_int_equal(sitd_ip6_find_enc_lim(ip, n), 0);
}

static void check_param_prob(const uint8_t *pkt, size_t len, uint32_t ptr)
{
	const uint8_t *e = tx.icmp + PG_VNET_LEN;
	size_t n = tx.icmp_len - PG_VNET_LEN;

	assert_int_equal(n, 48 + len);
	assert_int_equal(e[0] >> 4, 6);
	assert_int_equal(pg_get16(e + 4), 8 + len);
	assert_int_equal(e[6], 58);
	assert_memory_equal(e + 24, PG_IN6_SRC, 16);
	assert_int_equal(e[40], 4);	/* Parameter Problem */
	assert_int_equal(e[41], 0);	/* erroneous header field */
	assert_int_equal(pg_get32(e + 44), ptr);
	assert_memory_equal(e + 48, pkt, len);
	assert_true(pg_l4_csum_ok(e, 40, PG_PROTO_ICMPV6));
}

static void test_tx6_nested_limit0(void **state)
{
	size_t n;

	(void)state;
	for (int none = 0; none < 2; none++) {
		conf6(SITD_MODE_SIT, 64, 0);
		conf.encap_limit_none = none;
		start();
		n = nested_packet(0);
		assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
		assert_int_equal(st.drop[SITD_DROP_tx_encap_limit], 1);
		check_param_prob(orig + PG_VNET_LEN, n, 58);	/* the value: 56 + 2 */
		assert_true(sitd_tx_next(&tx));
		assert_int_equal(tx.nout, 0);
	}
}

/* A limit N goes out as N - 1 in the new option, also with encaplimit none. */
static void test_tx6_nested_limit_n(void **state)
{
	size_t n;

	(void)state;
	for (int none = 0; none < 2; none++) {
		conf6(SITD_MODE_ANY, 64, 0);
		conf.encap_limit_none = none;
		conf.encap_limit = 9;
		start();
		n = nested_packet(3);
		assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
		assert_true(sitd_tx_next(&tx));
		collect();
		assert_int_equal(segs[0].len, 48 + n);
		assert_int_equal(segs[0].p[6], 60);
		check_tel(segs[0].p + 40, 41, 2);
		assert_memory_equal(segs[0].p + 48, orig + PG_VNET_LEN, n);
	}
	/* With none, the option's 8 bytes count against the MTU too (mtu -= 8). */
	conf6(SITD_MODE_SIT, 64, 0);
	conf.encap_limit_none = true;
	start();
	nested_packet(3);
	/* grow the UDP payload so the packet is 1460 bytes: fits 1500 - 40, not 1500 - 48 */
	{
		uint8_t *u = ip + 64;
		uint16_t ulen = (uint16_t)(1460 - 64);

		pg_put16(ip + 4, (uint16_t)(1460 - 40));
		pg_put16(u + 4, ulen);
		pg_pattern(u + 8, ulen - 8u, 5);
		pg_put16(u + 6, 0);
		pg_put16(u + 6, (uint16_t)~pg_fold(pg_sum(u, ulen, pg_pseudo6(PG_IN6_SRC, PG_IN6_DST, 17, ulen))));
		n = 1460;
	}
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
	assert_int_equal(pg_get32(tx.icmp + PG_VNET_LEN + 44), 1452);
	/* Without the inner option the same size goes whole, 40 bytes in front. */
	conf6(SITD_MODE_SIT, 64, 0);
	conf.encap_limit_none = true;
	start();
	n = ip6_packet(1460);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(segs[0].len, 1500);
}

/* ---- The MTU ---- */

static void check_ptb6(uint32_t mtu)
{
	const uint8_t *e = tx.icmp + PG_VNET_LEN;

	assert_int_equal(e[40], 2);
	assert_int_equal(e[41], 0);
	assert_int_equal(pg_get32(e + 44), mtu);
	assert_true(pg_l4_csum_ok(e, 40, PG_PROTO_ICMPV6));
}

static void check_frag_needed(uint16_t mtu)
{
	const uint8_t *e = tx.icmp + PG_VNET_LEN;

	assert_int_equal(e[0], 0x45);
	assert_true(pg_ip4_csum_ok(e));
	assert_int_equal(e[20], 3);
	assert_int_equal(e[21], 4);
	assert_int_equal(pg_get16(e + 26), mtu);
	assert_true(pg_l4_csum_ok(e, 20, PG_PROTO_ICMP));
}

/* ip6_tnl_xmit: mtu = path - 40 - 8; PTB / Frag Needed carry it, IPv4 whatever its DF. */
static void test_tx6_too_big(void **state)
{
	size_t n;

	(void)state;
	conf6(SITD_MODE_ANY, 64, 0);
	start();
	n = ip6_packet(1452);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(segs[0].len, 1500);
	n = ip6_packet(1453);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
	check_ptb6(1452);
	assert_int_equal(st.tx_icmp_ptb, 1);
	for (int df = 0; df < 2; df++) {
		n = ip4_packet(1453, df);
		assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
		check_frag_needed(1452);
	}
	assert_int_equal(st.tx_icmp_frag_needed, 2);
	assert_int_equal(st.drop[SITD_DROP_tx_too_big], 3);
	/* encaplimit none: 1460. */
	conf.encap_limit_none = true;
	start();
	n = ip4_packet(1461, false);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
	check_frag_needed(1460);
}

/* sitd_pmtu_decide6's floors and the df (fits whole) answer. */
static void test_tx6_pmtu_decide(void **state)
{
	struct sitd_pmtu d;

	(void)state;
	d = sitd_pmtu_decide6(1500, 48, 6, 1452);
	assert_true(d.verdict == PMTU_SEND && d.df && d.mtu == 1452);
	d = sitd_pmtu_decide6(1500, 48, 6, 1453);
	assert_true(d.verdict == PMTU_TOO_BIG && d.mtu == 1452);
	d = sitd_pmtu_decide6(1280, 48, 6, 1280);	/* RFC 2473 7.1: carried, fragmented */
	assert_true(d.verdict == PMTU_SEND && !d.df && d.mtu == 1280);
	d = sitd_pmtu_decide6(1280, 48, 6, 1232);
	assert_true(d.verdict == PMTU_SEND && d.df);
	d = sitd_pmtu_decide6(1280, 48, 6, 1281);
	assert_true(d.verdict == PMTU_TOO_BIG && d.mtu == 1280);
	d = sitd_pmtu_decide6(1280, 48, 4, 1233);	/* IPv4: floor 68 only */
	assert_true(d.verdict == PMTU_TOO_BIG && d.mtu == 1232);
	d = sitd_pmtu_decide6(100, 48, 4, 68);
	assert_true(d.verdict == PMTU_SEND && !d.df && d.mtu == 68);
}

/*
 * Reassemble segs[first..first+count) as one IPv6 fragment train (RFC 8200 4.5) into
 * buf; returns the fragmentable part's length.
 */
static size_t reassemble(size_t first, size_t count, uint32_t path_mtu, uint8_t *buf, uint8_t nxt)
{
	size_t total = 0;
	uint32_t id = pg_get32(segs[first].p + 44);

	for (size_t k = first; k < first + count; k++) {
		const uint8_t *o = segs[k].p;
		uint16_t offm = pg_get16(o + 42);

		assert_true(segs[k].len <= path_mtu);
		assert_int_equal(o[0] >> 4, 6);
		assert_int_equal(pg_get16(o + 4), segs[k].len - 40);
		assert_int_equal(o[6], 44);
		assert_int_equal(o[40], nxt);
		assert_int_equal(o[41], 0);
		assert_int_equal(pg_get32(o + 44), id);
		assert_int_equal(offm & ~7u, total);
		assert_int_equal(offm & 6, 0);
		assert_int_equal(offm & 1, k + 1 < first + count);
		if (k + 1 < first + count)
			assert_int_equal((segs[k].len - 48) % 8, 0);
		memcpy(buf + total, o + 48, segs[k].len - 48);
		total += segs[k].len - 48;
	}
	return total;
}

/* Path 1280: an inner IPv6 packet of up to 1280 bytes is fragmented outside. */
static void test_tx6_fragment(void **state)
{
	static uint8_t buf[70000];
	size_t n, len;

	(void)state;
	conf6(SITD_MODE_SIT, 64, 0x20);
	start();
	n = ip6_packet(1280);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1280, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(nsegs, 2);
	assert_int_equal(segs[0].len, 1280);	/* 48 + 1232 */
	assert_int_equal(segs[1].len, 48 + 8 + 1280 - 1232);
	assert_int_equal(pg_get32(segs[0].p + 44), 0x100);
	assert_int_equal(pg_ip6_tclass(segs[1].p), 0x20);
	assert_int_equal(flowlabel_of(segs[0].p), flowlabel_of(segs[1].p));
	len = reassemble(0, 2, 1280, buf, 60);
	assert_int_equal(len, 8 + n);
	check_tel(buf, 41, 4);
	assert_memory_equal(buf + 8, orig + PG_VNET_LEN, n);
	assert_int_equal(st.tx_fragments, 2);
	/* The next train its own Identification; 1232 goes whole. */
	sitd_tx_reset(&tx);
	nsegs = pool_used = 0;
	n = ip6_packet(1233);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1280, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(nsegs, 2);
	assert_int_equal(pg_get32(segs[0].p + 44), 0x101);
	n = ip6_packet(1232);
	sitd_tx_reset(&tx);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1280, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(nsegs, 3);
	assert_int_equal(segs[2].len, 1280);
	assert_int_equal(segs[2].p[6], 60);
	/* A path MTU below 1280 is taken as 1280 (no IPv6 path is smaller). */
	sitd_tx_reset(&tx);
	nsegs = pool_used = 0;
	n = ip6_packet(1280);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 600, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	assert_int_equal(nsegs, 2);
	/* encaplimit none: the Fragment header's next header is the inner packet's. */
	conf.encap_limit_none = true;
	start();
	n = ip6_packet(1280);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1280, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	collect();
	len = reassemble(0, nsegs, 1280, buf, 41);
	assert_int_equal(len, n);
	assert_memory_equal(buf, orig + PG_VNET_LEN, n);
}

/* ---- GSO ---- */

static size_t gso_frame(const struct pg_tcp_pkt *p, uint8_t gso_type, uint16_t gso_size, unsigned *l4off)
{
	size_t n = pg_tcp_packet(ip, p, l4off);

	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, gso_type, (uint16_t)(*l4off + 20 + p->tcp_optlen),
		gso_size, (uint16_t)*l4off, 16);
	memcpy(orig, frame, PG_VNET_LEN + n);
	return PG_VNET_LEN + n;
}

/* Each segment behind its own IPv6 header and option, lengths per segment. */
static void check_gso6(const struct pg_tcp_pkt *p, uint16_t gso, uint32_t path_mtu, bool frag)
{
	static uint8_t buf[70000];
	const uint8_t *sp = orig + PG_VNET_LEN;
	unsigned l4off, thlen = 20 + p->tcp_optlen;
	uint32_t nseg = (p->payload + gso - 1) / gso, fl = 0;
	size_t k = 0;

	l4off = p->version == 4 ? 20 + p->ip_optlen : 40 + p->ext_len;
	for (uint32_t i = 0; i < nseg; i++) {
		uint32_t plen = p->payload - i * gso < gso ? p->payload - i * gso : gso;
		size_t ilen = l4off + thlen + plen, got;
		const uint8_t *in, *t;

		assert_true(k < nsegs);
		if (frag && 48 + ilen > path_mtu) {
			size_t cnt = (8 + ilen + ((path_mtu - 48) & ~7u) - 1) / ((path_mtu - 48) & ~7u);

			got = reassemble(k, cnt, path_mtu, buf, 60);
			if (!fl)
				fl = flowlabel_of(segs[k].p);
			assert_int_equal(flowlabel_of(segs[k].p), fl);
			k += cnt;
			assert_int_equal(got, 8 + ilen);
			check_tel(buf, p->version == 6 ? 41 : 4, 4);
			in = buf + 8;
		} else {
			const uint8_t *o = segs[k++].p;

			assert_int_equal(segs[k - 1].len, 48 + ilen);
			assert_true(segs[k - 1].len <= path_mtu);
			assert_int_equal(pg_get16(o + 4), 8 + ilen);
			assert_int_equal(o[6], 60);
			check_tel(o + 40, p->version == 6 ? 41 : 4, 4);
			if (!fl)
				fl = flowlabel_of(o);
			assert_int_equal(flowlabel_of(o), fl);	/* one flow, one label */
			in = o + 48;
		}
		t = in + l4off;
		if (p->version == 6) {
			assert_int_equal(pg_get16(in + 4), ilen - 40);
		} else {
			assert_int_equal(pg_get16(in + 2), ilen);
			assert_int_equal(pg_get16(in + 4), (uint16_t)(p->ip_id + i));
			assert_true(pg_ip4_csum_ok(in));
		}
		assert_int_equal(pg_get32(t + 4), p->seq + i * gso);
		assert_memory_equal(t + thlen, sp + l4off + thlen + i * gso, plen);
		assert_true(pg_l4_csum_ok(in, l4off, PG_PROTO_TCP));	/* pktgen's own sum */
	}
	assert_int_equal(k, nsegs);
}

static void test_tx6_gso(void **state)
{
	struct pg_tcp_pkt p6 = { .version = 6, .dsfield = 0x02, .ttl = 64, .seq = 1000, .ack = 7,
				 .flags = PG_ACK | PG_PSH, .tcp_optlen = 12, .payload = 20000,
				 .seed = 9, .partial = true, .ext_len = 8 };
	struct pg_tcp_pkt p4 = { .version = 4, .ttl = 60, .ip_id = 0xfff0, .df = true, .seq = 77,
				 .flags = PG_ACK, .payload = 9000, .seed = 4, .partial = true };
	unsigned l4off;
	size_t len;

	(void)state;
	/* 1500 - 48 = 1452: 40 + 8 + 32 + 1372 = 1452 exactly. */
	conf6(SITD_MODE_ANY, 0, SITD_TOS_INHERIT);
	start();
	len = gso_frame(&p6, PG_GSO_TCPV6, 1372, &l4off);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, (20000 + 1371) / 1372);
	assert_int_equal(pg_ip6_tclass(segs[0].p), 0x02);
	assert_int_equal(segs[0].p[7], 64);
	check_gso6(&p6, 1372, 1500, false);
	/* One more byte per segment: the segment, not the super-packet, is too big. */
	start();
	len = gso_frame(&p6, PG_GSO_TCPV6, 1373, &l4off);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_ICMP);
	check_ptb6(1452);
	/* IPv4 inside, MSS 1412 = 1452 - 40. */
	start();
	len = gso_frame(&p4, PG_GSO_TCPV4, 1412, &l4off);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_SEND);
	drain();
	check_gso6(&p4, 1412, 1500, false);
	start();
	len = gso_frame(&p4, PG_GSO_TCPV4, 1413, &l4off);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_ICMP);
	check_frag_needed(1452);
	/* Path 1280: IPv6 segments of 1280 bytes, each its own fragment train. */
	start();
	p6.payload = 5000;
	len = gso_frame(&p6, PG_GSO_TCPV6, 1200, &l4off);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1280, 0), SITD_TX_SEND);
	drain();
	check_gso6(&p6, 1200, 1280, true);
	assert_true(st.tx_fragments >= 8);
}

/* ---- FOU / GUE over IPv6 (fou6) ---- */

/*
 * The UDP datagram at u (ulen bytes) checked against pktgen's own sum over the IPv6
 * pseudo-header (RFC 8200 8.1): it must come out 0 (or the field be 0 with csum off).
 */
static void check_udp6(const uint8_t *u, size_t ulen, uint16_t sport, uint16_t dport, bool csum)
{
	if (sport)
		assert_int_equal(pg_get16(u), sport);
	else
		assert_true(pg_get16(u) >= 32768 && pg_get16(u) <= 60999);
	assert_int_equal(pg_get16(u + 2), dport);
	assert_int_equal(pg_get16(u + 4), ulen);
	if (!csum) {
		assert_int_equal(pg_get16(u + 6), 0);
		return;
	}
	assert_int_not_equal(pg_get16(u + 6), 0);
	assert_int_equal(pg_fold(pg_sum(u, ulen, pg_pseudo6(L6, R6, 17, (uint32_t)ulen))), 0xffff);
}

static void conf_fou6(enum sitd_encap e, uint16_t sport, bool csum6)
{
	conf6(SITD_MODE_ANY, 64, 0);
	conf.encap = e;
	conf.encap_sport = sport;
	conf.encap_dport = 5555;
	conf.encap_csum6 = csum6;
	conf.flowlabel = 0x4242;
}

/*
 * fou: [IPv6][option][UDP][inner], the order ip6_tnl_xmit pushes them (ip6_tnl_encap then
 * ipv6_push_frag_opts); the option's limit the nested packet's less one; the checksum.
 */
static void test_tx6_fou(void **state)
{
	const uint8_t *o;
	size_t n;

	(void)state;
	conf_fou6(SITD_ENCAP_FOU, 4444, true);
	start();
	n = nested_packet(2);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 1);
	o = segs[0].p;
	assert_int_equal(segs[0].len, 40 + 8 + 8 + n);
	assert_int_equal(pg_get32(o) >> 28, 6);
	assert_int_equal(flowlabel_of(o), 0x4242);
	assert_int_equal(pg_get16(o + 4), 8 + 8 + n);
	assert_int_equal(o[6], 60);
	assert_int_equal(o[7], 64);
	assert_memory_equal(o + 8, L6, 16);
	assert_memory_equal(o + 24, R6, 16);
	check_tel(o + 40, 17, 1);
	check_udp6(o + 48, 8 + n, 4444, 5555, true);
	assert_memory_equal(o + 56, orig + PG_VNET_LEN, n);
	/* 1500 - 40 - 8 - 8 = 1444 */
	start();
	n = ip6_packet(1444);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(segs[0].len, 1500);
	start();
	n = ip6_packet(1445);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
	check_ptb6(1444);
}

/* gue with encaplimit none, an IPv4 inner packet: [IPv6][UDP][GUE 0, proto 4][inner]. */
static void test_tx6_gue(void **state)
{
	const uint8_t *o;
	size_t n;

	(void)state;
	conf_fou6(SITD_ENCAP_GUE, 0, true);
	conf.encap_limit_none = true;
	start();
	n = ip4_packet(301, true);	/* odd: the sum's last byte alone */
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 1);
	o = segs[0].p;
	assert_int_equal(segs[0].len, 40 + 8 + 4 + n);
	assert_int_equal(o[6], 17);
	assert_int_equal(pg_get16(o + 4), 8 + 4 + n);
	check_udp6(o + 40, 12 + n, 0, 5555, true);
	assert_int_equal(o[48], 0);	/* version 0, C 0, no options */
	assert_int_equal(o[49], 4);	/* IPPROTO_IPIP */
	assert_int_equal(pg_get16(o + 50), 0);
	assert_memory_equal(o + 52, orig + PG_VNET_LEN, n);
	/* 1500 - 40 - 12 = 1448 for an IPv4 packet: one more is Fragmentation Needed. */
	start();
	n = ip4_packet(1449, false);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
	check_frag_needed(1448);
}

/* noencap-udp6-csum: a zero checksum (RFC 6935, udp6_set_csum with nocheck). */
static void test_tx6_fou_nocsum(void **state)
{
	size_t n;

	(void)state;
	conf_fou6(SITD_ENCAP_FOU, 4444, false);
	start();
	n = ip6_packet(200);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	drain();
	check_udp6(segs[0].p + 48, 8 + n, 4444, 5555, false);
}

/* encap-sport auto: one port per flow, in the kernel's ephemeral range. */
static void test_tx6_fou_sport(void **state)
{
	(void)state;
	assert_int_equal(sitd_udp6_sport(7, 123), 7);
	assert_int_equal(sitd_udp6_sport(0, 0), 32768);
	assert_int_equal(sitd_udp6_sport(0, 0xffffffffu), 60998);
}

/* TSO over fou6: each segment its own IPv6 + option + UDP, checksummed, judged alone. */
static void test_tx6_fou_gso(void **state)
{
	struct pg_tcp_pkt p6 = { .version = 6, .ttl = 64, .seq = 1000, .ack = 7,
				 .flags = PG_ACK | PG_PSH, .payload = 20001, .seed = 9,
				 .partial = true };
	unsigned l4off;
	size_t len;
	uint32_t nseg;

	(void)state;
	/* 1500 - 40 - 8 - 12 = 1440 = 40 + 20 + 1380 */
	conf_fou6(SITD_ENCAP_GUE, 0, true);
	start();
	len = gso_frame(&p6, PG_GSO_TCPV6, 1380, &l4off);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_SEND);
	drain();
	nseg = (20001 + 1379) / 1380;
	assert_int_equal(nsegs, nseg);
	for (uint32_t i = 0; i < nseg; i++) {
		const uint8_t *o = segs[i].p, *in = o + 40 + 8 + 12;
		uint32_t plen = i + 1 < nseg ? 1380 : 20001 - 1380 * (nseg - 1);

		assert_int_equal(segs[i].len, 40 + 8 + 12 + 60 + plen);
		assert_true(segs[i].len <= 1500);
		check_tel(o + 40, 17, 4);
		check_udp6(o + 48, 12 + 60 + plen, 0, 5555, true);
		assert_int_equal(pg_get16(o + 48), pg_get16(segs[0].p + 48));	/* one flow */
		assert_int_equal(o[57], 41);
		assert_int_equal(pg_get32(in + 40 + 4), 1000 + i * 1380);
		assert_true(pg_l4_csum_ok(in, 40, PG_PROTO_TCP));
	}
	/* One byte more per segment: too big, Packet Too Big with 1440. */
	start();
	len = gso_frame(&p6, PG_GSO_TCPV6, 1381, &l4off);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_ICMP);
	check_ptb6(1440);
}

/* ---- remote any (NBMA): the outer destination per packet, ip6_tnl_xmit's ---- */

static void test_tx6_nbma(void **state)
{
	static const uint8_t GW[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 9 };
	static struct sitd_routes6 rt;
	const uint8_t *o;
	size_t n;

	(void)state;
	conf6(SITD_MODE_ANY, 64, 0);
	memset(conf.remote6, 0, 16);
	start();
	/* No route known: the destination itself, as the neighbour on the link. */
	n = ip6_packet(300);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 1);
	assert_memory_equal(segs[0].p + 24, PG_IN6_DST, 16);
	assert_memory_equal(segs[0].p + 8, L6, 16);
	/* A route through the device via a gateway: the gateway. */
	memset(&rt, 0, sizeof(rt));
	memcpy(rt.r[0].dst, PG_IN6_DST, 16);
	memset(rt.r[0].dst + 6, 0, 10);
	rt.r[0].len = 48;
	memcpy(rt.r[0].gw, GW, 16);
	rt.n = 1;
	sitd_tx_routes(&tx, &rt);
	nsegs = pool_used = 0;
	n = ip6_packet(300);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	drain();
	assert_memory_equal(segs[0].p + 24, GW, 16);
	/* fou6 too, its UDP checksum over the gateway as destination. */
	conf.encap = SITD_ENCAP_FOU;
	conf.encap_dport = 5555;
	conf.encap_csum6 = true;
	start();
	sitd_tx_routes(&tx, &rt);
	n = ip6_packet(300);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	drain();
	o = segs[0].p;
	assert_memory_equal(o + 24, GW, 16);
	assert_int_equal(pg_fold(pg_sum(o + 48, 8 + n, pg_pseudo6(L6, GW, 17, (uint32_t)(8 + n)))), 0xffff);
	/* An inner IPv4 packet has no next hop (the kernel routes it toward ::). */
	n = ip4_packet(200, true);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_no_nexthop], 1);
	/* Nor a multicast destination on the link (MLD, router solicitations). */
	n = ip6_packet(100);
	memset(ip + 24, 0, 16);
	ip[24] = 0xff;
	ip[25] = 0x02;
	ip[39] = 2;
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_no_nexthop], 2);
}

int main(void)
{
	struct CMUnitTest tests[64];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(field_cases); i++) {
		tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_tx6_fields, &field_cases[i]);
		tests[n++].name = field_cases[i].name;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_auto_flowlabel);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_encaplimit_none_and_0);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_local_any);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_src_is_remote);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_find_enc_lim);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_nested_limit0);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_nested_limit_n);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_too_big);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_pmtu_decide);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_fragment);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_gso);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_fou);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_gue);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_fou_nocsum);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_fou_sport);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_fou_gso);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx6_nbma);
	return _cmocka_run_group_tests("tx6", tests, n, NULL, NULL);
}
