/* SPDX-License-Identifier: MIT */
/*
 * Receive for an IPv6 outer header (ip6tnl), sitd_rx_decap6: the inner packet as a raw
 * IPv6 socket hands it over, with the outer facts beside it, judged as the kernel's
 * ipxip6_rcv, ip6_tnl_rcv_ctl (ip6_tnl_get_cap) and __ip6_tnl_rcv do; ECN per RFC 6040
 * 4.2 from the outer traffic class, and `dscp inherit` (IP6_TNL_F_RCV_DSCP_COPY).
 * Every drop is one named counter, and leaves the packet unchanged.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "pktgen.h"
#include "core/rx.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Outer endpoints, 2001:db8:ff::1 (local) and 2001:db8:ff::2 (remote). */
static const uint8_t LOCAL6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 1 };
static const uint8_t REMOTE6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 2 };
static const uint8_t OTHER6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 3 };
static const uint8_t LL6[16] = { 0xfe, 0x80, [15] = 2 };
static const uint8_t LOOP6[16] = { [15] = 1 };
static const uint8_t MAPPED6[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 9 };
static const uint8_t MCAST6[16] = { 0xff, 0x0e, [15] = 1 };
static const uint8_t MCAST_NODE6[16] = { 0xff, 0x01, [15] = 1 };
static const uint8_t ANY6[16];

static struct sitd_rx rx;
static struct sitd_stats st;
static uint8_t pkt[2048], orig[2048];

static void setup6(enum sitd_mode mode, bool remote, bool local, bool dscp, bool alr, bool dev)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "ip6t");
	c.outer = SITD_OUTER_IPV6;
	c.mode = mode;
	if (remote)
		memcpy(c.remote6, REMOTE6, 16);
	if (local)
		memcpy(c.local6, LOCAL6, 16);
	if (dev)
		strcpy(c.dev, "eth1");
	c.dscp_inherit = dscp;
	c.allow_localremote = alr;
	c.encap_limit = 4;
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

/* The inner packet: IPv6 or IPv4 UDP, len bytes, this DS field, hop limit / TTL 17. */
static size_t mk_inner(unsigned version, size_t len, uint8_t ds)
{
	size_t n = pg_udp_packet(pkt, version, (uint32_t)(len - (version == 4 ? 28 : 48)), 0x5a, false);

	if (version == 4) {
		pkt[1] = ds;
		pkt[8] = 17;
		pg_put16(pkt + 10, 0);
		pg_put16(pkt + 10, pg_csum(pkt, 20));
	} else {
		pg_ip6(pkt, ds, 0x12345, (uint16_t)(n - 40), PG_PROTO_UDP, 17, PG_IN6_SRC, PG_IN6_DST);
	}
	memcpy(orig, pkt, n);
	return n;
}

static struct sitd_rx6_outer facts(uint8_t nh, uint8_t tclass)
{
	return (struct sitd_rx6_outer){ .src = REMOTE6, .dst = LOCAL6, .ifindex = 2, .nexthdr = nh,
					.tclass = tclass };
}

/* ---- Accepted ---- */

static void good_ip6ip6(void **state)
{
	struct sitd_rx6_outer o = facts(41, 0);
	uint32_t off = 99, ilen = 0;
	size_t n;

	(void)state;
	setup6(SITD_MODE_SIT, true, true, false, false, false);
	n = mk_inner(6, 300, 0);
	memset(pkt + n, 0xee, 9);		/* trailing bytes: trimmed */
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n + 9, &off, &ilen), 0);
	assert_int_equal(off, 0);
	assert_int_equal(ilen, n);
	assert_memory_equal(pkt, orig, n);	/* hop limit 17 untouched */
	assert_int_equal(total_drops(), 0);
	assert_int_equal(st.rx_ecn_marked, 0);
}

static void good_ipip6(void **state)
{
	struct sitd_rx6_outer o = facts(4, 0);
	uint32_t off = 99, ilen = 0;
	size_t n;

	(void)state;
	setup6(SITD_MODE_IPIP, true, true, false, false, false);
	n = mk_inner(4, 100, 0);
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), 0);
	assert_int_equal(ilen, n);
	assert_memory_equal(pkt, orig, n);
}

/* Mode any takes both; local any takes any destination; multicast destinations pass. */
static void good_any(void **state)
{
	struct sitd_rx6_outer o = facts(4, 0);
	uint32_t off, ilen;
	size_t n;

	(void)state;
	setup6(SITD_MODE_ANY, true, false, false, false, false);
	n = mk_inner(4, 60, 0);
	o.dst = OTHER6;
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), 0);
	o.nexthdr = 41;
	o.dst = MCAST6;
	n = mk_inner(6, 60, 0);
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), 0);
	/* A link-local pair needs `dev` (ip6_tnl_get_cap: p->link). */
	setup6(SITD_MODE_ANY, false, false, false, false, true);
	o.src = LL6;
	o.dst = LL6;
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), 0);
	/* allow-localremote lets a source of ours in. */
	setup6(SITD_MODE_ANY, true, true, false, true, false);
	o = facts(41, 0);
	o.src_is_local = true;
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), 0);
	assert_int_equal(total_drops(), 0);
}

/* ---- Refused ---- */

struct drop_case {
	const char *name;
	enum sitd_mode mode;
	bool remote, local, dev;
	unsigned version;	/* inner */
	uint8_t nh;
	const uint8_t *src, *dst;
	bool src_local;
	long len;		/* bytes handed over; < 0: the packet's length minus this */
	enum sitd_drop reason;
};

static struct drop_case drops[] = {
	{ "ip6: source not the remote", SITD_MODE_SIT, true, true, false, 6, 41, OTHER6, LOCAL6,
	  false, 0, SITD_DROP_rx_wrong_source },
	{ "ip6: destination not the local", SITD_MODE_SIT, true, true, false, 6, 41, REMOTE6, OTHER6,
	  false, 0, SITD_DROP_rx_wrong_dest },
	{ "ip6: ip6ip6 tunnel, next header 4", SITD_MODE_SIT, true, true, false, 4, 4, REMOTE6,
	  LOCAL6, false, 0, SITD_DROP_rx_proto },
	{ "ip6: ipip6 tunnel, next header 41", SITD_MODE_IPIP, true, true, false, 6, 41, REMOTE6,
	  LOCAL6, false, 0, SITD_DROP_rx_proto },
	{ "ip6: next header 17", SITD_MODE_ANY, true, true, false, 6, 17, REMOTE6, LOCAL6, false, 0,
	  SITD_DROP_rx_proto },
	{ "ip6: link-local source without dev", SITD_MODE_ANY, false, true, false, 6, 41, LL6, LOCAL6,
	  false, 0, SITD_DROP_rx_outer_addr },
	{ "ip6: link-local destination without dev", SITD_MODE_ANY, true, false, false, 6, 41,
	  REMOTE6, LL6, false, 0, SITD_DROP_rx_outer_addr },
	{ "ip6: loopback source", SITD_MODE_ANY, false, false, true, 6, 41, LOOP6, LOCAL6, false, 0,
	  SITD_DROP_rx_outer_addr },
	{ "ip6: v4-mapped source (not unicast)", SITD_MODE_ANY, false, false, false, 6, 41, MAPPED6,
	  LOCAL6, false, 0, SITD_DROP_rx_outer_addr },
	{ "ip6: multicast source", SITD_MODE_ANY, false, false, false, 6, 41, MCAST6, LOCAL6, false,
	  0, SITD_DROP_rx_outer_addr },
	{ "ip6: unspecified source", SITD_MODE_ANY, false, false, false, 6, 41, ANY6, LOCAL6, false,
	  0, SITD_DROP_rx_outer_addr },
	{ "ip6: interface-local multicast destination", SITD_MODE_ANY, false, false, false, 6, 41,
	  REMOTE6, MCAST_NODE6, false, 0, SITD_DROP_rx_outer_addr },
	{ "ip6: source is our own address", SITD_MODE_ANY, true, true, false, 6, 41, REMOTE6, LOCAL6,
	  true, 0, SITD_DROP_rx_local_remote },
	{ "ip6: inner IPv4 under next header 41", SITD_MODE_ANY, true, true, false, 4, 41, REMOTE6,
	  LOCAL6, false, 0, SITD_DROP_rx_inner_version },
	{ "ip6: inner IPv6 under next header 4", SITD_MODE_ANY, true, true, false, 6, 4, REMOTE6,
	  LOCAL6, false, 0, SITD_DROP_rx_inner_version },
	{ "ip6: inner IPv6 cut short", SITD_MODE_SIT, true, true, false, 6, 41, REMOTE6, LOCAL6,
	  false, -1, SITD_DROP_rx_inner_truncated },
	{ "ip6: inner IPv4 header only half there", SITD_MODE_IPIP, true, true, false, 4, 4, REMOTE6,
	  LOCAL6, false, 10, SITD_DROP_rx_inner_truncated },
	{ "ip6: nothing inside", SITD_MODE_SIT, true, true, false, 6, 41, REMOTE6, LOCAL6, false, -1000,
	  SITD_DROP_rx_inner_truncated },
};

static void drop(void **state)
{
	const struct drop_case *c = *state;
	struct sitd_rx6_outer o = facts(c->nh, 0);
	uint32_t off = 7, ilen = 7, len;
	size_t n;

	setup6(c->mode, c->remote, c->local, true, false, c->dev);
	n = mk_inner(c->version, 120, 0);
	len = c->len > 0 ? (uint32_t)c->len : c->len < -(long)n ? 0 : (uint32_t)((long)n + c->len);
	o.src = c->src;
	o.dst = c->dst;
	o.src_is_local = c->src_local;
	o.tclass = 0xb8;	/* dscp inherit on: a drop must not apply it */
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, len, &off, &ilen), -1);
	assert_int_equal(st.drop[c->reason], 1);
	assert_int_equal(total_drops(), 1);
	assert_memory_equal(pkt, orig, n);
	assert_int_equal(off, 7);
}

/* Outer CE on a Not-ECT inner packet: dropped, counted rx_ecn, packet unchanged. */
static void ecn_ce_not_ect(void **state)
{
	struct sitd_rx6_outer o = facts(41, 0x03);
	uint32_t off, ilen;
	size_t n;

	(void)state;
	setup6(SITD_MODE_SIT, true, true, true, false, false);
	n = mk_inner(6, 100, 0x00);
	assert_int_equal(sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), -1);
	assert_int_equal(st.drop[SITD_DROP_rx_ecn], 1);
	assert_memory_equal(pkt, orig, n);
}

/* RFC 6040 4.2, every pair, both inner versions, without and with dscp inherit. */
static void ecn_dscp_table(void **state)
{
	static const int8_t want[4][4] = {	/* [inner][outer] */
		{ 0, 0, 0, -1 }, { 1, 1, 1, 3 }, { 2, 1, 2, 3 }, { 3, 3, 3, 3 },
	};

	(void)state;
	for (int dscp = 0; dscp < 2; dscp++)
		for (unsigned v = 4; v <= 6; v += 2)
			for (unsigned in = 0; in < 4; in++)
				for (unsigned out = 0; out < 4; out++) {
					uint8_t ods = (uint8_t)(0xa0 | out), ids = (uint8_t)(0x28 | in);
					struct sitd_rx6_outer o = facts(v == 6 ? 41 : 4, ods);
					uint32_t off, ilen;
					size_t n;
					int r, w = want[in][out];
					uint8_t ds;

					setup6(SITD_MODE_ANY, true, true, dscp, false, false);
					n = mk_inner(v, 80, ids);
					r = sitd_rx_decap6(&rx, &o, pkt, (uint32_t)n, &off, &ilen);
					if (w < 0) {
						assert_int_equal(r, -1);
						assert_memory_equal(pkt, orig, n);
						continue;
					}
					assert_int_equal(r, 0);
					ds = (uint8_t)((dscp ? 0xa0 : 0x28) | w);
					if (v == 4) {
						assert_int_equal(pkt[1], ds);
						assert_true(pg_ip4_csum_ok(pkt));
						assert_int_equal(pkt[8], 17);
						assert_memory_equal(pkt + 2, orig + 2, 8);
						assert_memory_equal(pkt + 12, orig + 12, n - 12);
					} else {
						assert_int_equal(pg_ip6_tclass(pkt), ds);
						assert_int_equal(pkt[0] >> 4, 6);
						assert_int_equal(pkt[1] & 0x0f, orig[1] & 0x0f);
						assert_memory_equal(pkt + 2, orig + 2, n - 2);
					}
					assert_int_equal(st.rx_ecn_marked, (unsigned)w != in);
				}
}

/* An IPv4-outer tunnel's rx is unchanged by the new fields (sitd_rx_init). */
static void ipv4_untouched(void **state)
{
	struct sitd_conf c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.mode = SITD_MODE_SIT;
	c.remote = PG_OUTER_REMOTE;
	c.dscp_inherit = false;
	sitd_rx_init(&rx, &c, &st);
	assert_int_equal(rx.outer, SITD_OUTER_IPV4);
	assert_false(rx.dscp_inherit);
	assert_int_equal(rx.remote, PG_OUTER_REMOTE);
}

/* ---- FOU / GUE over IPv6 (sitd_rx_decap_udp6): the UDP payload, the same rules ---- */

static void fou6_rx(void **state)
{
	struct sitd_rx6_outer o = facts(17, 0x02);
	uint32_t off = 99, ilen = 0;
	size_t n;

	(void)state;
	/* fou, mode ip6ip6: the payload is the inner packet; ECT(0) outside, Not-ECT in. */
	setup6(SITD_MODE_SIT, true, true, false, false, false);
	rx.encap = SITD_ENCAP_FOU;
	n = mk_inner(6, 200, 0x02);
	assert_int_equal(sitd_rx_decap_udp6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), 0);
	assert_int_equal(off, 0);
	assert_int_equal(ilen, n);
	assert_memory_equal(pkt, orig, n);
	/* gue, mode ipip6: [0, 4, 0, 0] then IPv4; dscp inherit copies the outer DSCP. */
	setup6(SITD_MODE_IPIP, true, false, true, false, false);
	rx.encap = SITD_ENCAP_GUE;
	o = facts(17, 0xb8);
	n = mk_inner(4, 100, 0);
	memmove(pkt + 4, pkt, n);
	pkt[0] = 0;
	pkt[1] = 4;
	pkt[2] = pkt[3] = 0;
	assert_int_equal(sitd_rx_decap_udp6(&rx, &o, pkt, (uint32_t)n + 4, &off, &ilen), 0);
	assert_int_equal(off, 4);
	assert_int_equal(ilen, n);
	assert_int_equal(pkt[4 + 1], 0xb8);
	assert_int_equal(pg_csum(pkt + 4, 20), 0);
	/* gue naming IPv6 on an ipip6 tunnel: rx_proto. */
	pkt[1] = 41;
	assert_int_equal(sitd_rx_decap_udp6(&rx, &o, pkt, (uint32_t)n + 4, &off, &ilen), -1);
	assert_int_equal(st.drop[SITD_DROP_rx_proto], 1);
	/* From another address: rx_wrong_source, before the payload is read. */
	o.src = OTHER6;
	assert_int_equal(sitd_rx_decap_udp6(&rx, &o, pkt, 0, &off, &ilen), -1);
	assert_int_equal(st.drop[SITD_DROP_rx_wrong_source], 1);
	/* remote any and a multicast source: ip6_tnl_get_cap refuses it (rx_outer_addr). */
	setup6(SITD_MODE_ANY, false, false, false, false, false);
	rx.encap = SITD_ENCAP_FOU;
	o = facts(17, 0);
	o.src = MCAST6;
	n = mk_inner(6, 120, 0);
	assert_int_equal(sitd_rx_decap_udp6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), -1);
	assert_int_equal(st.drop[SITD_DROP_rx_outer_addr], 1);
	/* One of our own addresses as the source: rx_local_remote, unless allowed. */
	o = facts(17, 0);
	o.src_is_local = true;
	assert_int_equal(sitd_rx_decap_udp6(&rx, &o, pkt, (uint32_t)n, &off, &ilen), -1);
	assert_int_equal(st.drop[SITD_DROP_rx_local_remote], 1);
	assert_int_equal(total_drops(), 2);
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(drops) + 8];
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(good_ip6ip6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(good_ipip6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(good_any);
	for (size_t i = 0; i < ARRAY_SIZE(drops); i++)
		tests[n++] = (struct CMUnitTest){ .name = drops[i].name, .test_func = drop,
						  .initial_state = &drops[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(ecn_ce_not_ect);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(ecn_dscp_table);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(ipv4_untouched);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(fou6_rx);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
