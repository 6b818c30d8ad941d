/* SPDX-License-Identifier: MIT */
/*
 * Transmit pipeline for single packets (sitd_tx_begin / sitd_tx_next): checksum
 * completion, encapsulation, outer fragmentation, and the PMTU answers (ICMPv6 Packet Too
 * Big, ICMPv4 Fragmentation Needed) with their rate limit and decline rules.  The rules
 * are those of ipip6_tunnel_xmit, ip_tunnel_xmit and RFC 4213 3.2.2 (doc/kernel.md
 * "Transmit: DF and the path MTU decision", "ICMP errors sitd generates"); the GSO split
 * itself is in test_gso.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <cmocka.h>

#include "proto/cli.h"
#include "core/icmp.h"
#include "core/pmtu.h"
#include "pktgen.h"
#include "txharness.h"
#include "core/tx.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct sitd_stats st;

struct seg {
	uint8_t *p;
	size_t len;
};
static uint8_t pool[4 << 20];
static struct seg segs[2048];
static size_t nsegs, pool_used;

static void tx_setup_with(enum sitd_mode mode, uint8_t ttl, uint8_t tos, bool pmtudisc,
			  uint16_t first_id, struct sitd_damper *damper)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "tunt");
	c.mode = mode;
	c.remote = PG_OUTER_REMOTE;
	c.local = PG_OUTER_LOCAL;
	c.ttl = ttl;
	c.tos = tos;
	c.pmtudisc = pmtudisc;
	memset(&st, 0, sizeof(st));
	sitd_tx_init(&tx, &c, &st, damper, first_id);
	nsegs = pool_used = 0;
}

static void tx_setup(enum sitd_mode mode, uint8_t ttl, uint8_t tos, bool pmtudisc, uint16_t first_id)
{
	tx_setup_with(mode, ttl, tos, pmtudisc, first_id, NULL);
}

static void collect(void)
{
	for (unsigned k = 0; k < tx.nout; k++) {
		const struct sitd_out *o = &tx.out[k];
		size_t n;

		assert_true(nsegs < ARRAY_SIZE(segs));
		n = pg_flatten(o->iov, o->iovcnt, pool + pool_used, sizeof(pool) - pool_used);
		assert_true(n != (size_t)-1);
		assert_int_equal(n, o->len);
		segs[nsegs].p = pool + pool_used;
		segs[nsegs++].len = n;
		pool_used += n;
	}
}

static uint64_t total_drops(void)
{
	uint64_t n = 0;

	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		n += st.drop[i];
	return n;
}

/* ---- Encapsulation of a plain packet ---- */

struct encap_case {
	const char *name;
	enum sitd_mode mode;
	uint8_t conf_ttl, conf_tos;
	unsigned version;
	uint8_t dsfield, ttl;
	/* expected outer fields, from ipip6_tunnel_xmit's TOS, TTL and ECN steps */
	uint8_t tos, out_ttl, proto;
};

static struct encap_case encap_cases[] = {
	/* name, mode, conf ttl, conf tos, version, inner dsfield, inner ttl -> tos, ttl, proto */
	{ "IPv6 on sit: ttl 64 fixed, tos 0, inner ECT(1) copied outside", SITD_MODE_SIT, 64, 0,
	  6, 0x01, 9, 0x01, 64, PG_PROTO_IPV6 },
	{ "IPv6 on sit: ttl inherit, tos inherit, inner CE -> ECT(0) (RFC 6040 4.1)", SITD_MODE_SIT,
	  0, SITD_TOS_INHERIT, 6, 0xb3, 17, 0xb2, 17, PG_PROTO_IPV6 },
	{ "IPv4 on ipip: ttl inherit, tos 0x48 fixed, inner ECT(0) + DSCP 0x20", SITD_MODE_IPIP, 0,
	  0x48, 4, 0x82, 100, 0x4a, 100, PG_PROTO_IPIP },
	{ "IPv4 in mode any: protocol 4, tos inherit", SITD_MODE_ANY, 30, SITD_TOS_INHERIT, 4, 0x28,
	  64, 0x28, 30, PG_PROTO_IPIP },
	{ "IPv6 in mode any: protocol 41", SITD_MODE_ANY, 0, 0, 6, 0x00, 255, 0x00, 255,
	  PG_PROTO_IPV6 },
};

/* The packet goes unchanged behind one outer header; its bytes are not copied (tx.h). */
static void test_tx_encap(void **state)
{
	const struct encap_case *c = *state;
	size_t n;
	uint32_t len;
	const uint8_t *o;

	tx_setup(c->mode, c->conf_ttl, c->conf_tos, true, 0x1111);
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
	collect();
	o = segs[0].p;
	assert_int_equal(segs[0].len, 20 + n);
	assert_int_equal(o[0], 0x45);
	assert_int_equal(o[1], c->tos);
	assert_int_equal(pg_get16(o + 2), 20 + n);
	assert_int_equal(pg_get16(o + 4), 0x1111);
	assert_int_equal(pg_get16(o + 6), PG_IP4_DF);
	assert_int_equal(o[8], c->out_ttl);
	assert_int_equal(o[9], c->proto);
	assert_true(pg_ip4_csum_ok(o));
	assert_int_equal(pg_get32(o + 12), PG_OUTER_LOCAL);
	assert_int_equal(pg_get32(o + 16), PG_OUTER_REMOTE);
	assert_memory_equal(o + 20, orig + PG_VNET_LEN, n);
	/* Zero copy: the inner packet is the frame itself, which is left as it was. */
	assert_int_equal(tx.out[0].iovcnt, 2);
	assert_ptr_equal(tx.out[0].iov[1].iov_base, ip);
	assert_memory_equal(frame, orig, len);
	assert_int_equal(st.tx_csum_completed, 0);
	assert_int_equal(total_drops(), 0);
	assert_int_equal(tx.icmp_len, 0);
}

/* ---- NEEDS_CSUM completion (doc/kernel.md "virtio_net_hdr rules") ---- */

struct csum_case {
	const char *name, *zero_name, *defer_name;
	unsigned version;
	bool tcp;
};

static struct csum_case csum_cases[] = {
	{ "NEEDS_CSUM: UDP over IPv4", "NEEDS_CSUM: UDP over IPv4 computing 0 sends 0xffff",
	  "NEEDS_CSUM left to the device: UDP over IPv4", 4, false },
	{ "NEEDS_CSUM: UDP over IPv6", "NEEDS_CSUM: UDP over IPv6 computing 0 sends 0xffff",
	  "NEEDS_CSUM left to the device: UDP over IPv6", 6, false },
	{ "NEEDS_CSUM: TCP over IPv4", "NEEDS_CSUM: TCP over IPv4 computing 0 sends 0",
	  "NEEDS_CSUM left to the device: TCP over IPv4", 4, true },
	{ "NEEDS_CSUM: TCP over IPv6", "NEEDS_CSUM: TCP over IPv6 computing 0 sends 0",
	  "NEEDS_CSUM left to the device: TCP over IPv6", 6, true },
};

/* Build the packet at ip with a partial or complete checksum; returns length, *l4 and *field. */
static size_t csum_packet(const struct csum_case *c, bool partial, unsigned *l4, unsigned *field)
{
	size_t n;

	if (c->tcp) {
		const struct pg_tcp_pkt p = { .version = c->version, .ttl = 64, .df = true, .seq = 9,
					      .ack = 8, .flags = PG_ACK | PG_PSH, .tcp_optlen = 12,
					      .payload = 777, .seed = 0x31, .partial = partial };

		n = pg_tcp_packet(ip, &p, l4);
		*field = 16;
	} else {
		n = pg_udp_packet(ip, c->version, 777, 0x31, partial);
		*l4 = c->version == 4 ? 20 : 40;
		*field = 6;
	}
	return n;
}

/* Send the NEEDS_CSUM packet at ip (n bytes) through a mode any tunnel: one output. */
static void run_csum(size_t n, unsigned l4, unsigned field)
{
	uint32_t len = plain_frame(n);

	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 0, 0, (uint16_t)l4, (uint16_t)field);
	tx_setup(SITD_MODE_ANY, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 1);
	assert_int_equal(segs[0].len, 20 + n);
	assert_int_equal(st.tx_csum_completed, 1);
}

/* The completed checksum is the full one: the same bytes as a packet built complete. */
static void test_tx_needs_csum(void **state)
{
	const struct csum_case *c = *state;
	static uint8_t full[4096];
	unsigned l4, field;
	size_t n;

	n = csum_packet(c, false, &l4, &field);
	memcpy(full, ip, n);
	assert_true(pg_l4_csum_ok(full, l4, c->tcp ? PG_PROTO_TCP : PG_PROTO_UDP));
	csum_packet(c, true, &l4, &field);
	assert_int_not_equal(pg_get16(ip + l4 + field), pg_get16(full + l4 + field));
	run_csum(n, l4, field);
	assert_memory_equal(segs[0].p + 20, full, n);
}

/*
 * A UDP checksum that computes to 0 is sent as 0xffff (RFC 768: 0 means none); a TCP one
 * is sent as 0, as the kernel's tcp_gso_segment sends it and as Wireshark expects (it
 * flags 0xffff, RFC 1624 section 3).  One payload word is chosen so that the full
 * checksum is 0.
 */
static void test_tx_needs_csum_zero(void **state)
{
	const struct csum_case *c = *state;
	unsigned l4, field, w;
	uint8_t proto = c->tcp ? PG_PROTO_TCP : PG_PROTO_UDP;
	static uint8_t part[4096];
	uint32_t len;
	uint16_t ck;
	size_t n;

	n = csum_packet(c, false, &l4, &field);
	w = l4 + (c->tcp ? 32 : 8) + 10;	/* an even offset inside the payload */
	ck = pg_get16(ip + l4 + field);
	/* Adding ck (one's complement) to one word makes the sum 0xffff, the checksum 0. */
	pg_put16(ip + w, pg_fold((uint32_t)pg_get16(ip + w) + ck));
	pg_put16(ip + l4 + field, 0);
	assert_true(pg_l4_csum_ok(ip, l4, proto));	/* 0 is the right checksum now */
	pg_put16(ip + l4 + field, pg_fold(c->version == 4
			? pg_pseudo4(PG_IN4_SRC, PG_IN4_DST, proto, (uint16_t)(n - l4))
			: pg_pseudo6(PG_IN6_SRC, PG_IN6_DST, proto, (uint32_t)(n - l4))));
	memcpy(part, ip, n);
	run_csum(n, l4, field);
	assert_int_equal(pg_get16(segs[0].p + 20 + l4 + field), c->tcp ? 0x0000 : 0xffff);
	assert_true(pg_l4_csum_ok(segs[0].p + 20, l4, proto));

	/* Left to the device and finished by sitd_out_csum_finish(): the same rule. */
	memcpy(ip, part, n);
	len = plain_frame(n);
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 0, 0, (uint16_t)l4, (uint16_t)field);
	tx_setup(SITD_MODE_ANY, 0, 0, true, 1);
	tx.csum_defer = true;
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.out[0].csum_start, 20 + l4);
	sitd_out_csum_finish(&tx.out[0]);
	assert_int_equal(pg_get16(ip + l4 + field), c->tcp ? 0x0000 : 0xffff);
}

/*
 * csum_defer: a whole packet keeps its partial checksum, untouched, and says where it
 * starts; finished, it is the full one.
 */
static void test_tx_needs_csum_defer(void **state)
{
	const struct csum_case *c = *state;
	static uint8_t full[4096];
	unsigned l4, field;
	uint32_t len;
	size_t n;

	n = csum_packet(c, false, &l4, &field);
	memcpy(full, ip, n);
	csum_packet(c, true, &l4, &field);
	len = plain_frame(n);
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 0, 0, (uint16_t)l4, (uint16_t)field);
	memcpy(orig, frame, len);
	tx_setup(SITD_MODE_ANY, 0, 0, true, 1);
	tx.csum_defer = true;
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 1);
	assert_int_equal(tx.out[0].csum_start, 20 + l4);
	assert_int_equal(tx.out[0].csum_off, field);
	assert_memory_equal(frame, orig, len);
	assert_int_equal(st.tx_csum_completed, 0);
	sitd_out_csum_finish(&tx.out[0]);
	assert_int_equal(tx.out[0].csum_start, 0);
	collect();
	assert_memory_equal(segs[0].p + 20, full, n);
}

/* csum_defer, but the packet is fragmented outside: finished here, before the split. */
static void test_tx_needs_csum_defer_fragments(void **state)
{
	static uint8_t full[4096];
	size_t n = pg_udp_packet(ip, 4, 972, 0x52, false);
	uint32_t len;

	(void)state;
	memcpy(full, ip, n);
	n = pg_udp_packet(ip, 4, 972, 0x52, true);
	for (uint8_t *p = ip; p; p = p == ip ? full : NULL) {	/* without DF: it may be fragmented */
		pg_put16(p + 6, 0);
		pg_put16(p + 10, 0);
		pg_put16(p + 10, pg_csum(p, 20));
	}
	len = plain_frame(n);
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 0, 0, 20, 6);
	tx_setup(SITD_MODE_IPIP, 0, 0, false, 1);
	tx.csum_defer = true;
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 600, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 2);
	for (unsigned k = 0; k < tx.nout; k++)
		assert_int_equal(tx.out[k].csum_start, 0);
	assert_int_equal(st.tx_csum_completed, 1);
	assert_memory_equal(ip, full, n);
}

/*
 * sitd_out_csum_finish() over pieces that split the sum at odd offsets, the field itself
 * across two of them: the sum of a piece at an odd offset is byte-swapped.
 */
static void test_out_csum_finish_odd(void **state)
{
	static uint8_t buf[2048], full[2048];
	struct sitd_out o = { .iovcnt = 3, .csum_start = 40, .csum_off = 6, .csum_udp = true };
	size_t n = pg_udp_packet(full + 20, 4, 101, 0x17, false);

	(void)state;
	memset(full, 0x45, 20);
	memcpy(buf, full, 20);
	pg_udp_packet(buf + 20, 4, 101, 0x17, true);
	o.iov[0] = (struct iovec){ buf, 47 };
	o.iov[1] = (struct iovec){ buf + 47, 33 };
	o.iov[2] = (struct iovec){ buf + 80, 20 + n - 80 };
	o.len = (uint32_t)(20 + n);
	assert_int_not_equal(pg_get16(buf + 46), pg_get16(full + 46));
	sitd_out_csum_finish(&o);
	assert_memory_equal(buf, full, 20 + n);
}

/* csum_start before the L4 header, or the field past the end: tx_vnet_bad. */
static void test_tx_needs_csum_bad(void **state)
{
	static const struct {
		uint16_t start, offset;
	} bad[] = {
		{ 10, 6 },		/* inside the IPv4 header */
		{ 0, 16 },
		{ 20, 1000 },		/* field beyond the 100-byte packet */
		{ 20, 79 },		/* field's second byte one past the end */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t n = pg_udp_packet(ip, 4, 72, 1, true);
		uint32_t len;

		assert_int_equal(n, 100);
		len = plain_frame(n);
		pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 0, 0, bad[i].start, bad[i].offset);
		tx_setup(SITD_MODE_IPIP, 0, 0, true, 1);
		assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_DROP);
		assert_int_equal(st.drop[SITD_DROP_tx_vnet_bad], 1);
		assert_int_equal(total_drops(), 1);
	}
	/* The last byte pair of the packet is still a valid field. */
	{
		size_t n = pg_udp_packet(ip, 4, 72, 1, true);

		pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 0, 0, 20, 78);
		tx_setup(SITD_MODE_IPIP, 0, 0, true, 1);
		assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)(PG_VNET_LEN + n), 1500, 0),
				 SITD_TX_SEND);
	}
}

/* ---- Outer fragmentation (RFC 791 3.2; the kernel's ip_fragment) ---- */

/*
 * segs[0..nsegs) must be the fragments of one inner packet `in` (ilen bytes): one ID, MF
 * on all but the last, offsets in 8-byte units, each at most path_mtu and all but the last
 * carrying exactly fs bytes; their bodies concatenated are the inner packet.
 */
static void check_fragments(const uint8_t *in, size_t ilen, uint32_t path_mtu, uint32_t fs,
			    size_t nfrag, uint8_t proto)
{
	size_t body = 0;
	uint16_t id;

	assert_int_equal(nsegs, nfrag);
	id = pg_get16(segs[0].p + 4);
	for (size_t k = 0; k < nsegs; k++) {
		const uint8_t *o = segs[k].p;
		uint16_t frag = pg_get16(o + 6);
		size_t blen = segs[k].len - 20;

		assert_true(segs[k].len <= path_mtu);
		assert_int_equal(pg_get16(o + 2), segs[k].len);
		assert_true(pg_ip4_csum_ok(o));
		assert_int_equal(o[9], proto);
		assert_int_equal(pg_get16(o + 4), id);
		assert_int_equal(frag & PG_IP4_DF, 0);
		assert_int_equal((frag & 0x1fffu) * 8u, body);
		assert_int_equal(!!(frag & PG_IP4_MF), k + 1 < nsegs);
		if (k + 1 < nsegs)
			assert_int_equal(blen, fs);
		assert_memory_equal(o + 20, in + body, blen);
		body += blen;
	}
	assert_int_equal(body, ilen);
}

struct frag_case {
	const char *name;
	unsigned version;
	bool pmtudisc, inner_df;
	size_t len;
	uint32_t path_mtu;
	size_t nfrag;
	uint32_t fs;	/* (path_mtu - 20) & ~7 */
};

static struct frag_case frag_cases[] = {
	/* name, version, pmtudisc, inner DF, length, path_mtu -> fragments, fragment size */
	{ "nopmtudisc: IPv6 of 3000 on a 1500 path -> 1480 + 1480 + 40",
	  6, false, false, 3000, 1500, 3, 1480 },
	{ "nopmtudisc: IPv6 of 1481 (outer 1501) -> 2 fragments", 6, false, false, 1481, 1500, 2, 1480 },
	{ "nopmtudisc: IPv6 of 1480 (outer 1500) fits, DF clear", 6, false, false, 1480, 1500, 1, 0 },
	{ "nopmtudisc: path 1006, fragments of 984 (8-byte units)", 6, false, false, 2000, 1006, 3, 984 },
	{ "RFC 4213 3.2.2: path 1200, IPv6 of 1280 sent without DF, fragmented", 6, true, false, 1280,
	  1200, 2, 1176 },
	{ "RFC 4213 3.2.2: path 1200, IPv6 of 1000 fits, without DF", 6, true, false, 1000, 1200, 1, 0 },
	{ "IPv4 without DF, too big, pmtudisc: fragmented outside, no ICMP (RFC 2003 3.1)", 4, true,
	  false, 1500, 1500, 2, 1480 },
	{ "IPv4 without DF, nopmtudisc: 4000 on a 1500 path", 4, false, false, 4000, 1500, 3, 1480 },
};

static void test_tx_fragment(void **state)
{
	const struct frag_case *c = *state;
	size_t n = c->version == 6 ? ip6_packet(c->len) : ip4_packet(c->len, c->inner_df);
	uint32_t len = plain_frame(n);

	tx_setup(SITD_MODE_ANY, 0, 0, c->pmtudisc, 777);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, c->path_mtu, 0), SITD_TX_SEND);
	drain();
	check_fragments(orig + PG_VNET_LEN, n, c->path_mtu, c->fs, c->nfrag,
			c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP);
	assert_int_equal(pg_get16(segs[0].p + 4), 777);
	assert_int_equal(st.tx_fragments, c->nfrag > 1 ? c->nfrag : 0);
	assert_int_equal(tx.icmp_len, 0);
	assert_int_equal(total_drops(), 0);
}

/* ---- ICMP answers ---- */

/* tx.icmp must hold [zero vnet hdr][ICMPv6 type 2 code 0 about orig, MTU mtu] (RFC 4443 3.1). */
static void check_ptb6(const uint8_t *pkt, size_t len, uint32_t mtu)
{
	static const uint8_t zero[PG_VNET_LEN];
	const uint8_t *e = tx.icmp + PG_VNET_LEN;
	size_t quote = len < 1280 - 48 ? len : 1280 - 48;	/* RFC 4443 2.4(c) */

	assert_int_equal(tx.icmp_len, PG_VNET_LEN + 48 + quote);
	assert_memory_equal(tx.icmp, zero, PG_VNET_LEN);
	assert_int_equal(e[0] >> 4, 6);
	assert_int_equal(pg_get16(e + 4), 8 + quote);
	assert_int_equal(e[6], PG_PROTO_ICMPV6);
	assert_int_equal(e[7], 64);				/* the kernel's default hop limit */
	assert_memory_equal(e + 8, pkt + 24, 16);		/* from the original destination */
	assert_memory_equal(e + 24, pkt + 8, 16);		/* to the original source */
	assert_int_equal(e[40], 2);
	assert_int_equal(e[41], 0);
	assert_int_equal(pg_get32(e + 44), mtu);
	assert_memory_equal(e + 48, pkt, quote);
	assert_true(pg_l4_csum_ok(e, 40, PG_PROTO_ICMPV6));
}

/* tx.icmp must hold [zero vnet hdr][ICMP type 3 code 4, next-hop MTU] (RFC 1191 4). */
static void check_frag_needed(const uint8_t *pkt, size_t len, uint16_t mtu)
{
	static const uint8_t zero[PG_VNET_LEN];
	const uint8_t *e = tx.icmp + PG_VNET_LEN;
	size_t quote = len < 576 - 28 ? len : 576 - 28;		/* RFC 1812 4.3.2.3 */

	assert_int_equal(tx.icmp_len, PG_VNET_LEN + 28 + quote);
	assert_memory_equal(tx.icmp, zero, PG_VNET_LEN);
	assert_int_equal(e[0], 0x45);
	assert_int_equal(pg_get16(e + 2), 28 + quote);
	assert_true(e[8] > 0);
	assert_int_equal(e[9], PG_PROTO_ICMP);
	assert_true(pg_ip4_csum_ok(e));
	assert_memory_equal(e + 12, pkt + 16, 4);
	assert_memory_equal(e + 16, pkt + 12, 4);
	assert_int_equal(e[20], 3);
	assert_int_equal(e[21], 4);
	assert_int_equal(pg_get16(e + 24), 0);
	assert_int_equal(pg_get16(e + 26), mtu);
	assert_memory_equal(e + 28, pkt, quote);
	assert_true(pg_l4_csum_ok(e, 20, PG_PROTO_ICMP));
}

/* pmtudisc, path 1500: IPv6 of 1500 > 1480 gets Packet Too Big 1480, quoting 1232 bytes. */
static void test_tx_ptb6(void **state)
{
	size_t n = ip6_packet(1500);
	uint32_t len = plain_frame(n);

	(void)state;
	tx_setup(SITD_MODE_SIT, 64, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	check_ptb6(orig + PG_VNET_LEN, n, 1480);
	assert_int_equal(tx.nout, 0);
	assert_int_equal(st.tx_icmp_ptb, 1);
	assert_int_equal(st.drop[SITD_DROP_tx_too_big], 1);
	assert_int_equal(total_drops(), 1);
}

/*
 * The Packet Too Big comes from the device's own address toward the sender, as
 * icmp6_send() picks it: a global one for a global sender, the link-local one for a
 * link-local sender; with none of the sender's scope, from the packet's destination.
 */
static void test_tx_ptb6_source(void **state)
{
	struct sitd_addrs6 a = { .has_ll = true, .has_global = true,
				 .ll = { 0xfe, 0x80, [15] = 0x01 },
				 .global = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0xff, [15] = 0x01 } };
	size_t n = ip6_packet(1500);
	uint32_t len;
	const uint8_t *e = tx.icmp + PG_VNET_LEN;

	(void)state;
	tx_setup(SITD_MODE_SIT, 64, 0, true, 1);
	sitd_tx_addrs(&tx, &a, NULL);
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	assert_memory_equal(e + 8, a.global, 16);
	assert_memory_equal(e + 24, orig + PG_VNET_LEN + 8, 16);
	assert_true(pg_l4_csum_ok(e, 40, PG_PROTO_ICMPV6));
	/* A link-local sender: the link-local address. */
	ip[8] = 0xfe;
	ip[9] = 0x80;
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	assert_memory_equal(e + 8, a.ll, 16);
	assert_memory_equal(e + 24, orig + PG_VNET_LEN + 8, 16);
	/* No link-local address on the device: from the packet's destination, as before. */
	a.has_ll = false;
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	assert_memory_equal(e + 8, orig + PG_VNET_LEN + 24, 16);
	assert_true(pg_l4_csum_ok(e, 40, PG_PROTO_ICMPV6));
}

/*
 * remote any (6to4): the outer destination from the inner one (try_6rd), that
 * destination's own path MTU when one was learned, and a destination with no mapping
 * dropped and counted as the kernel drops it.
 */
static void test_tx_remote_any(void **state)
{
	static struct sitd_conf c;
	static struct sitd_pmtu_cache pc;
	static const uint8_t to[16] = { 0x20, 0x02, 0xc0, 0x00, 0x02, 0x02, [15] = 1 };
	size_t n;
	uint32_t len;

	(void)state;
	sitd_conf_defaults(&c);
	strcpy(c.name, "tun6to4");
	c.mode = SITD_MODE_SIT;
	c.local = PG_OUTER_LOCAL;
	c.pmtudisc = true;
	memset(&st, 0, sizeof(st));
	sitd_tx_init(&tx, &c, &st, NULL, 1);
	tx.pcache = &pc;
	n = ip6_packet(1400);
	memcpy(ip + 24, to, 16);
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	assert_int_equal(tx.dst, 0xc0000202u);
	while (!sitd_tx_next(&tx))
		;
	assert_int_equal(tx.out[0].dst, 0xc0000202u);
	assert_int_equal(pg_get32((const uint8_t *)tx.out[0].iov[0].iov_base + 16), 0xc0000202u);
	sitd_tx_reset(&tx);
	/* 1300 learned toward 192.0.2.2: the same packet is now too big, mtu 1280. */
	sitd_pmtu_cache_put(&pc, 0xc0000202u, 1300);
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	assert_int_equal(pg_get32(tx.icmp + PG_VNET_LEN + 44), 1280);
	/* Outside 2002::/16, not ::a.b.c.d, no route: dropped, as ipip6_tunnel_xmit's tx_error. */
	ip[24] = 0x20, ip[25] = 0x01;
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_not_v4compat], 1);
}

/* The boundary: 1480 goes out with DF, 1481 is too big; a small packet is quoted whole. */
static void test_tx_ptb6_boundary(void **state)
{
	size_t n = ip6_packet(1480);
	uint32_t len = plain_frame(n);

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 1);
	assert_int_equal(pg_get16(segs[0].p + 6), PG_IP4_DF);
	n = ip6_packet(1481);
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	check_ptb6(orig + PG_VNET_LEN, n, 1480);
	/* Path 1020 leaves 1000 < 1280: PTB 1280 (RFC 4213 3.2.2), quoting 1232 of 1300 bytes. */
	n = ip6_packet(1300);
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1000 + 20, 0), SITD_TX_ICMP);
	check_ptb6(orig + PG_VNET_LEN, n, 1280);
}

/* RFC 4213 3.2.2: path 1200 (mtu 1180 < 1280): 1281 bytes get Packet Too Big 1280. */
static void test_tx_rfc4213_ptb_1280(void **state)
{
	size_t n = ip6_packet(1281);
	uint32_t len = plain_frame(n);

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1200, 0), SITD_TX_ICMP);
	check_ptb6(orig + PG_VNET_LEN, n, 1280);
}

/* A TCPv6 super-packet frame at `frame`: payload bytes in gso-sized segments, no TCP options. */
static uint32_t gso6_frame(uint32_t payload, uint16_t gso)
{
	const struct pg_tcp_pkt p = { .version = 6, .ttl = 64, .seq = 1, .ack = 1,
				      .flags = PG_ACK | PG_PSH, .payload = payload, .seed = 0x77,
				      .partial = true };
	unsigned l4;
	size_t n = pg_tcp_packet(ip, &p, &l4);

	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_TCPV6, 60, gso, 40, 16);
	memcpy(orig, frame, PG_VNET_LEN + n);
	return (uint32_t)(PG_VNET_LEN + n);
}

/*
 * The 2013 regression (doc/kernel.md "The founding lesson", commit 58a4782449c5): the
 * MTU decision for a super-packet is made on one segment, never on its length.
 * Segment 40 + 20 + 1440 = 1500
 * exceeds 1480: Packet Too Big 1480 so TCP lowers its MSS.
 */
static void test_tx_gso_segment_too_big(void **state)
{
	uint32_t len = gso6_frame(10 * 1440, 1440);

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	check_ptb6(orig + PG_VNET_LEN, len - PG_VNET_LEN, 1480);
	assert_int_equal(tx.nout, 0);
	assert_int_equal(st.tx_icmp_ptb, 1);
}

/* ...while a 64 KB super-packet of 1420-byte segments (1480 each) goes out, no PTB at all. */
static void test_tx_gso_64k_fits(void **state)
{
	uint32_t len = gso6_frame(65535 - 60, 1420);

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, (65535 - 60 + 1419) / 1420);	/* 47 */
	for (size_t k = 0; k < nsegs; k++) {
		assert_true(segs[k].len <= 1500);
		assert_int_equal(pg_get16(segs[k].p + 6), PG_IP4_DF);
	}
	assert_int_equal(st.tx_icmp_ptb, 0);
	assert_int_equal(st.drop[SITD_DROP_tx_too_big], 0);
	assert_int_equal(tx.icmp_len, 0);
	/* A small super-packet, 3000 bytes long, of fitting segments: also sent. */
	len = gso6_frame(2 * 1420 + 100, 1420);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	assert_int_equal(st.tx_icmp_ptb, 0);
}

/* IPv4 inside with DF, too big: Fragmentation Needed with next-hop MTU 1480, quoting to 576. */
static void test_tx_frag_needed(void **state)
{
	size_t n = ip4_packet(1500, true);
	uint32_t len = plain_frame(n);

	(void)state;
	tx_setup(SITD_MODE_IPIP, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_ICMP);
	check_frag_needed(orig + PG_VNET_LEN, n, 1480);
	assert_int_equal(st.tx_icmp_frag_needed, 1);
	assert_int_equal(st.drop[SITD_DROP_tx_too_big], 1);
	/* nopmtudisc: the inner DF alone still asks for the check (ip_tunnel_xmit, 1.3). */
	tx_setup(SITD_MODE_IPIP, 0, 0, false, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1400, 0), SITD_TX_ICMP);
	check_frag_needed(orig + PG_VNET_LEN, n, 1380);
	/* A 500-byte packet is quoted whole. */
	n = ip4_packet(500, true);
	len = plain_frame(n);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 400, 0), SITD_TX_ICMP);
	check_frag_needed(orig + PG_VNET_LEN, n, 380);
}

/* A TCPv4 super-packet with DF whose segments do not fit: Fragmentation Needed. */
static void test_tx_gso4_frag_needed(void **state)
{
	const struct pg_tcp_pkt p = { .version = 4, .ttl = 64, .df = true, .seq = 1, .ack = 1,
				      .flags = PG_ACK, .payload = 5 * 1460, .seed = 3, .partial = true };
	unsigned l4;
	size_t n = pg_tcp_packet(ip, &p, &l4);

	(void)state;
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_TCPV4, 40, 1460, 20, 16);
	memcpy(orig, frame, PG_VNET_LEN + n);
	tx_setup(SITD_MODE_IPIP, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)(PG_VNET_LEN + n), 1500, 0), SITD_TX_ICMP);
	check_frag_needed(orig + PG_VNET_LEN, n, 1480);
}

/*
 * The kernel's ICMP budget (icmp_msgs_per_sec 1000, burst 50): 60 errors at one instant
 * give 50 ICMP and 10 counted in tx_icmp_ratelimited; 1 ms later one more token.
 */
static void test_tx_icmp_ratelimit(void **state)
{
	size_t n = ip6_packet(1500);
	uint32_t len = plain_frame(n);
	const uint64_t t0 = 5000000000ull;
	int icmp = 0;

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, true, 1);
	for (int i = 0; i < 60; i++)
		icmp += sitd_tx_begin(&tx, frame, len, 1500, t0) == SITD_TX_ICMP;
	assert_int_equal(icmp, 50);
	assert_int_equal(st.tx_icmp_ptb, 50);
	assert_int_equal(st.tx_icmp_ratelimited, 10);
	assert_int_equal(st.drop[SITD_DROP_tx_too_big], 60);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, t0), SITD_TX_DROP);
	assert_int_equal(tx.icmp_len, 0);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, t0 + 1000000), SITD_TX_ICMP);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, t0 + 1000000), SITD_TX_DROP);
	/* Ten seconds later the bucket is full again, but holds no more than the burst. */
	icmp = 0;
	for (int i = 0; i < 60; i++)
		icmp += sitd_tx_begin(&tx, frame, len, 1500, t0 + 10000000000ull) == SITD_TX_ICMP;
	assert_int_equal(icmp, 50);
}

/* No ICMP error about these (RFC 4443 2.4(e), RFC 1812 4.3.2.7): counted tx_icmp_declined. */
enum decline_kind {
	DECL_ICMP6_ERROR, DECL_SRC6_MULTICAST, DECL_SRC6_UNSPEC, DECL_DST6_MULTICAST,
	DECL_ICMP4_ERROR, DECL_SRC4_LOOPBACK, DECL_SRC4_BROADCAST, DECL_DST4_BROADCAST,
};

struct decline_case {
	const char *name;
	enum decline_kind kind;
};

static struct decline_case decline_cases[] = {
	{ "no PTB about an ICMPv6 error (RFC 4443 2.4(e.1))", DECL_ICMP6_ERROR },
	{ "no PTB to a multicast source (RFC 4443 2.4(e.6))", DECL_SRC6_MULTICAST },
	{ "no PTB to the unspecified source (RFC 4443 2.4(e.6))", DECL_SRC6_UNSPEC },
	{ "no PTB from a multicast destination: no unicast source for it", DECL_DST6_MULTICAST },
	{ "no Fragmentation Needed about an ICMP error (RFC 1812 4.3.2.7)", DECL_ICMP4_ERROR },
	{ "no Fragmentation Needed to a loopback source (RFC 1812 4.3.2.7)", DECL_SRC4_LOOPBACK },
	{ "no Fragmentation Needed to a broadcast source (RFC 1812 4.3.2.7)", DECL_SRC4_BROADCAST },
	{ "no Fragmentation Needed about a broadcast (RFC 1812 4.3.2.7)", DECL_DST4_BROADCAST },
};

static void test_tx_icmp_declined(void **state)
{
	const struct decline_case *c = *state;
	size_t n;

	switch (c->kind) {
	case DECL_ICMP6_ERROR:
		n = ip6_packet(1500);
		ip[6] = PG_PROTO_ICMPV6;
		ip[40] = 1;		/* Destination Unreachable */
		ip[41] = 3;
		break;
	case DECL_SRC6_MULTICAST:
		n = ip6_packet(1500);
		ip[8] = 0xff;
		break;
	case DECL_SRC6_UNSPEC:
		n = ip6_packet(1500);
		memset(ip + 8, 0, 16);
		break;
	case DECL_DST6_MULTICAST:
		n = ip6_packet(1500);
		ip[24] = 0xff;
		ip[25] = 0x0e;
		break;
	case DECL_ICMP4_ERROR:
		n = ip4_packet(1500, true);
		ip[9] = PG_PROTO_ICMP;
		ip[20] = 3;		/* Destination Unreachable */
		break;
	case DECL_SRC4_LOOPBACK:
		n = ip4_packet(1500, true);
		pg_put32(ip + 12, 0x7f000001);
		break;
	case DECL_SRC4_BROADCAST:
		n = ip4_packet(1500, true);
		pg_put32(ip + 12, 0xffffffff);
		break;
	case DECL_DST4_BROADCAST:
		n = ip4_packet(1500, true);
		pg_put32(ip + 16, 0xffffffff);
		break;
	default:
		fail();
		return;
	}
	if (ip[0] >> 4 == 4) {
		pg_put16(ip + 10, 0);
		pg_put16(ip + 10, pg_csum(ip, 20));
	}
	tx_setup(SITD_MODE_ANY, 0, 0, true, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.tx_icmp_declined, 1);
	assert_int_equal(st.drop[SITD_DROP_tx_too_big], 1);
	assert_int_equal(total_drops(), 1);
	assert_int_equal(st.tx_icmp_ptb + st.tx_icmp_frag_needed + st.tx_icmp_ratelimited, 0);
	assert_int_equal(tx.icmp_len, 0);
}

/* ---- Paths too small (kernel: collisions) ---- */

struct floor_case {
	const char *name;
	unsigned version;
	bool pmtudisc, inner_df;
	uint32_t path_mtu;
	bool drop;
};

static struct floor_case floor_cases[] = {
	/* name, version, pmtudisc, inner DF, path_mtu -> dropped */
	{ "pmtudisc, IPv6: path 87 leaves 67 < 68, drop (ipip6_tunnel_xmit)", 6, true, false, 87, true },
	{ "pmtudisc, IPv6: path 88 leaves 68, carried (to 1280, no DF)", 6, true, false, 88, false },
	{ "pmtudisc, IPv4 with DF: path 87, drop (tnl_update_pmtu)", 4, true, true, 87, true },
	{ "pmtudisc, IPv4 without DF: path 87, drop", 4, true, false, 87, true },
	{ "nopmtudisc, IPv4 with DF: path 87, drop", 4, false, true, 87, true },
	{ "nopmtudisc, IPv6: path 67 is no IPv4 link (RFC 791 minimum 68), drop", 6, false, false, 67, true },
	{ "pmtudisc, path 0, drop", 6, true, false, 0, true },
};

static void test_tx_mtu_floor(void **state)
{
	const struct floor_case *c = *state;
	size_t n = c->version == 6 ? ip6_packet(100) : ip4_packet(100, c->inner_df);
	uint32_t len = plain_frame(n);

	tx_setup(SITD_MODE_ANY, 0, 0, c->pmtudisc, 1);
	if (c->drop) {
		assert_int_equal(sitd_tx_begin(&tx, frame, len, c->path_mtu, 0), SITD_TX_DROP);
		assert_int_equal(st.drop[SITD_DROP_tx_mtu_floor], 1);
		assert_int_equal(total_drops(), 1);
		assert_int_equal(tx.icmp_len, 0);
	} else {
		assert_int_equal(sitd_tx_begin(&tx, frame, len, c->path_mtu, 0), SITD_TX_SEND);
		drain();
		check_fragments(orig + PG_VNET_LEN, n, c->path_mtu, (c->path_mtu - 20) & ~7u,
				(n + ((c->path_mtu - 20) & ~7u) - 1) / ((c->path_mtu - 20) & ~7u),
				PG_PROTO_IPV6);
	}
}

/* More fragments than out[] holds: nopmtudisc, path 68, 64 KB inside. */
static void test_tx_frag_too_many(void **state)
{
	size_t n = ip6_packet(65000);	/* 65000 / 48-byte fragments: far more than SITD_TX_MAX_OUT */
	uint32_t len = plain_frame(n);

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, false, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 68, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_frag_too_many], 1);
	assert_int_equal(total_drops(), 1);
}

/*
 * Nothing may leave larger than 65535 bytes once encapsulated, not even as fragments
 * (a train no one could reassemble): IPv6 of 65535 gets Packet Too Big 65515 even with
 * nopmtudisc; IPv4 without DF cannot be told, so it is a counted drop.
 */
static void test_tx_oversize(void **state)
{
	size_t n = ip6_packet(65535);
	const uint8_t *icmp = tx.icmp + PG_VNET_LEN + 40;

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, false, 1);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_ICMP);
	assert_int_equal(icmp[0], 2);
	assert_int_equal(pg_get32(icmp + 4), 65515);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 0);
	n = ip6_packet(65515);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	tx_setup(SITD_MODE_IPIP, 0, 0, true, 1);
	n = ip4_packet(65535, false);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_oversize], 1);
	assert_int_equal(tx.icmp_len, 0);
}

/*
 * The outer ID runs on per outer packet and wraps (inet_gso_segment, iptunnel_xmit;
 * doc/kernel.md "Outer header fields"); the
 * fragments of one packet share one.  Outputs of several frames accumulate until reset.
 */
static void test_tx_outer_ids(void **state)
{
	size_t n;

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, false, 0xfffe);
	for (int i = 0; i < 3; i++) {
		n = ip6_packet(100 + (size_t)i);
		assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
		assert_true(sitd_tx_next(&tx));
		assert_int_equal(tx.nout, (unsigned)i + 1);
	}
	n = ip6_packet(3000);
	assert_int_equal(sitd_tx_begin(&tx, frame, plain_frame(n), 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 3 + 3);
	for (unsigned k = 0; k < tx.nout; k++) {
		uint8_t *o = tx.out[k].iov[0].iov_base;
		static const uint16_t want[] = { 0xfffe, 0xffff, 0, 1, 1, 1 };

		assert_int_equal(pg_get16(o + 4), want[k]);
		assert_true(pg_ip4_csum_ok(o));
		if (k < 3)
			assert_int_equal(tx.out[k].len, 20 + 100 + k);
	}
}

/*
 * After a verdict other than SEND the frame has nothing to send: sitd_tx_next must say
 * done and emit nothing (tx.h: it emits the frame's pending outer packets).  A caller
 * that drains after every frame must not send stale packets, or spin on one that never
 * fits out[].
 */
enum after_kind { AFTER_PTB, AFTER_GSO_PTB, AFTER_MTU_FLOOR, AFTER_FRAG_TOO_MANY };

struct after_case {
	const char *name;
	enum after_kind kind;
};

static struct after_case after_cases[] = {
	{ "sitd_tx_next after an ICMP verdict (PTB) sends nothing", AFTER_PTB },
	{ "sitd_tx_next after an ICMP verdict for a GSO super-packet sends nothing", AFTER_GSO_PTB },
	{ "sitd_tx_next after a tx_mtu_floor drop sends nothing", AFTER_MTU_FLOOR },
	{ "sitd_tx_next after a tx_frag_too_many drop sends nothing", AFTER_FRAG_TOO_MANY },
};

static void test_tx_next_after_no_send(void **state)
{
	const struct after_case *c = *state;
	enum sitd_tx_verdict want = SITD_TX_DROP;
	uint32_t len = 0, path_mtu = 1500;

	tx_setup(SITD_MODE_SIT, 0, 0, c->kind != AFTER_FRAG_TOO_MANY, 1);
	/* A good frame first, so that the state a later one may leave behind is real. */
	len = plain_frame(ip6_packet(60));
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 1);
	sitd_tx_reset(&tx);

	switch (c->kind) {
	case AFTER_PTB:
		len = plain_frame(ip6_packet(1500));
		want = SITD_TX_ICMP;
		break;
	case AFTER_GSO_PTB:
		len = gso6_frame(10 * 1440, 1440);
		want = SITD_TX_ICMP;
		break;
	case AFTER_MTU_FLOOR:
		len = plain_frame(ip6_packet(100));
		path_mtu = 80;
		break;
	case AFTER_FRAG_TOO_MANY:
		len = plain_frame(ip6_packet(65000));
		path_mtu = 68;
		break;
	}
	assert_int_equal(sitd_tx_begin(&tx, frame, len, path_mtu, 0), want);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 0);
}

/* ---- The damper's link failure (ipip6_err, dst_link_failure; icmperr.h) ---- */

static struct sitd_damper damper;
#define SEC 1000000000ull
#define T0 (100 * SEC)

/*
 * tx.icmp must hold [zero vnet hdr][ICMPv6 Destination Unreachable, code 3 address
 * unreachable] about pkt, from its destination to its source (RFC 4443 3.1), as the
 * kernel's dst_link_failure sends it.
 */
static void check_link_failure6(const uint8_t *pkt, size_t len)
{
	static const uint8_t zero[PG_VNET_LEN];
	const uint8_t *e = tx.icmp + PG_VNET_LEN;
	size_t quote = len < 1280 - 48 ? len : 1280 - 48;

	assert_int_equal(tx.icmp_len, PG_VNET_LEN + 48 + quote);
	assert_memory_equal(tx.icmp, zero, PG_VNET_LEN);
	assert_int_equal(e[0] >> 4, 6);
	assert_int_equal(pg_get16(e + 4), 8 + quote);
	assert_int_equal(e[6], PG_PROTO_ICMPV6);
	assert_int_equal(e[7], 64);
	assert_memory_equal(e + 8, pkt + 24, 16);
	assert_memory_equal(e + 24, pkt + 8, 16);
	assert_int_equal(e[40], 1);
	assert_int_equal(e[41], 3);
	assert_int_equal(pg_get32(e + 44), 0);
	assert_memory_equal(e + 48, pkt, quote);
	assert_true(pg_l4_csum_ok(e, 40, PG_PROTO_ICMPV6));
}

/* The same for IPv4: ICMP Destination Unreachable, code 1 host unreachable (RFC 792). */
static void check_link_failure4(const uint8_t *pkt, size_t len)
{
	static const uint8_t zero[PG_VNET_LEN];
	const uint8_t *e = tx.icmp + PG_VNET_LEN;
	size_t quote = len < 576 - 28 ? len : 576 - 28;

	assert_int_equal(tx.icmp_len, PG_VNET_LEN + 28 + quote);
	assert_memory_equal(tx.icmp, zero, PG_VNET_LEN);
	assert_int_equal(e[0], 0x45);
	assert_int_equal(pg_get16(e + 2), 28 + quote);
	assert_int_equal(pg_get16(e + 6) & 0x3fff, 0);
	assert_true(e[8] > 0);
	assert_int_equal(e[9], PG_PROTO_ICMP);
	assert_true(pg_ip4_csum_ok(e));
	assert_memory_equal(e + 12, pkt + 16, 4);
	assert_memory_equal(e + 16, pkt + 12, 4);
	assert_int_equal(e[20], 3);
	assert_int_equal(e[21], 1);
	assert_int_equal(pg_get32(e + 24), 0);
	assert_memory_equal(e + 28, pkt, quote);
	assert_true(pg_l4_csum_ok(e, 20, PG_PROTO_ICMP));
}

/* Send the frame of len bytes at `at`; it must go out whole as one outer packet. */
static void send_one(uint32_t len, uint64_t at, uint8_t proto)
{
	size_t n = len - PG_VNET_LEN;

	nsegs = pool_used = 0;
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, at), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 1);
	assert_int_equal(segs[0].len, 20 + n);
	assert_int_equal(segs[0].p[9], proto);
	assert_int_equal(pg_get32(segs[0].p + 16), PG_OUTER_REMOTE);
	assert_true(pg_ip4_csum_ok(segs[0].p));
	assert_memory_equal(segs[0].p + 20, orig + PG_VNET_LEN, n);
	assert_memory_equal(frame, orig, len);
}

struct lf_case {
	const char *name;
	enum sitd_mode mode;
	unsigned version;
	size_t len;
};

static struct lf_case lf_cases[] = {
	{ "link failure: IPv6 of 300 on sit -> ICMPv6 1/3, still sent", SITD_MODE_SIT, 6, 300 },
	{ "link failure: IPv6 of 1480 on sit -> ICMPv6 1/3 quoting 1232, still sent", SITD_MODE_SIT, 6,
	  1480 },
	{ "link failure: IPv4 of 300 on ipip -> ICMPv4 3/1, still sent", SITD_MODE_IPIP, 4, 300 },
	{ "link failure: IPv4 of 1480 on ipip -> ICMPv4 3/1 quoting 548, still sent", SITD_MODE_IPIP, 4,
	  1480 },
	{ "link failure: IPv6 on mode any -> ICMPv6 1/3", SITD_MODE_ANY, 6, 300 },
	{ "link failure: IPv4 on mode any -> ICMPv4 3/1", SITD_MODE_ANY, 4, 300 },
};

/*
 * One error noted: the next fitting packet is sent and its sender also gets the
 * unreachable error (the kernel's err_count-- and dst_link_failure); the one after that
 * is only sent.
 */
static void test_tx_link_failure(void **state)
{
	const struct lf_case *c = *state;
	uint8_t proto = c->version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP;
	uint32_t len;

	memset(&damper, 0, sizeof(damper));
	tx_setup_with(c->mode, 0, 0, true, 1, &damper);
	damper_note(&damper, T0);
	len = plain_frame(c->version == 6 ? ip6_packet(c->len) : ip4_packet(c->len, true));
	send_one(len, T0 + SEC, proto);
	if (c->version == 6)
		check_link_failure6(orig + PG_VNET_LEN, c->len);
	else
		check_link_failure4(orig + PG_VNET_LEN, c->len);
	assert_int_equal(st.tx_icmp_link_failure, 1);
	assert_int_equal(st.tx_icmp_ptb + st.tx_icmp_frag_needed, 0);
	assert_int_equal(total_drops(), 0);
	assert_int_equal(damper.count, 0);

	send_one(len, T0 + 2 * SEC, proto);
	assert_int_equal(tx.icmp_len, 0);
	assert_int_equal(st.tx_icmp_link_failure, 1);
	assert_int_equal(total_drops(), 0);
}

/* Three errors noted: the next three packets report, the fourth and fifth do not. */
static void test_tx_link_failure_count(void **state)
{
	uint32_t len = plain_frame(ip6_packet(200));

	(void)state;
	memset(&damper, 0, sizeof(damper));
	tx_setup_with(SITD_MODE_SIT, 64, 0, true, 1, &damper);
	for (int i = 0; i < 3; i++)
		damper_note(&damper, T0 + (uint64_t)i * SEC);
	for (int i = 0; i < 5; i++) {
		send_one(len, T0 + 10 * SEC + (uint64_t)i, PG_PROTO_IPV6);
		if (i < 3)
			check_link_failure6(orig + PG_VNET_LEN, 200);
		else
			assert_int_equal(tx.icmp_len, 0);
		assert_int_equal(st.tx_icmp_link_failure, i < 3 ? i + 1 : 3);
	}
}

/* 30 s after the last noted error the damper is spent: no error, and its count cleared. */
static void test_tx_link_failure_expired(void **state)
{
	uint32_t len = plain_frame(ip4_packet(200, false));

	(void)state;
	memset(&damper, 0, sizeof(damper));
	tx_setup_with(SITD_MODE_IPIP, 0, 0, true, 1, &damper);
	damper_note(&damper, T0);
	damper_note(&damper, T0);
	send_one(len, T0 + 30 * SEC, PG_PROTO_IPIP);
	assert_int_equal(tx.icmp_len, 0);
	assert_int_equal(st.tx_icmp_link_failure, 0);
	assert_int_equal(damper.count, 0);
	send_one(len, T0 + 31 * SEC, PG_PROTO_IPIP);
	assert_int_equal(tx.icmp_len, 0);
}

/*
 * A packet too big gets its Packet Too Big and does not use the damper (in
 * ipip6_tunnel_xmit the err_count check comes after the MTU check); the next fitting
 * packet does.  Nor does a dropped packet.
 */
static void test_tx_link_failure_not_on_ptb(void **state)
{
	size_t n = ip6_packet(1500);
	uint32_t len = plain_frame(n);

	(void)state;
	memset(&damper, 0, sizeof(damper));
	tx_setup_with(SITD_MODE_SIT, 0, 0, true, 1, &damper);
	damper_note(&damper, T0);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, T0 + SEC), SITD_TX_ICMP);
	check_ptb6(orig + PG_VNET_LEN, n, 1480);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 0);
	assert_int_equal(damper.count, 1);
	assert_int_equal(st.tx_icmp_link_failure, 0);
	/* IPv4 on a sit tunnel: tx_mode drop, damper untouched. */
	len = plain_frame(ip4_packet(200, true));
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, T0 + SEC), SITD_TX_DROP);
	assert_int_equal(tx.icmp_len, 0);
	assert_int_equal(damper.count, 1);
	len = plain_frame(ip6_packet(400));
	send_one(len, T0 + 2 * SEC, PG_PROTO_IPV6);
	check_link_failure6(orig + PG_VNET_LEN, 400);
	assert_int_equal(st.tx_icmp_link_failure, 1);
	assert_int_equal(damper.count, 0);
}

/*
 * No error about an ICMPv6 error (RFC 4443 2.4(e.1)): the packet is sent, none is
 * written, and the count is used all the same (the kernel decrements err_count, then
 * dst_link_failure's icmp6_send declines).
 */
static void test_tx_link_failure_declined(void **state)
{
	size_t n = ip6_packet(300);
	uint32_t len;

	(void)state;
	ip[6] = PG_PROTO_ICMPV6;
	ip[40] = 1;
	ip[41] = 4;
	len = plain_frame(n);
	memset(&damper, 0, sizeof(damper));
	tx_setup_with(SITD_MODE_SIT, 0, 0, true, 1, &damper);
	damper_note(&damper, T0);
	send_one(len, T0 + SEC, PG_PROTO_IPV6);
	assert_int_equal(tx.icmp_len, 0);
	assert_int_equal(st.tx_icmp_link_failure, 0);
	assert_int_equal(damper.count, 0);
}

/* The shared ICMP budget (burst 50): 60 noted errors, 60 packets at one instant, 50 errors. */
static void test_tx_link_failure_ratelimit(void **state)
{
	uint32_t len = plain_frame(ip6_packet(100));
	int icmp = 0;

	(void)state;
	memset(&damper, 0, sizeof(damper));
	tx_setup_with(SITD_MODE_SIT, 0, 0, true, 1, &damper);
	for (int i = 0; i < 60; i++)
		damper_note(&damper, T0);
	for (int i = 0; i < 60; i++) {
		send_one(len, T0, PG_PROTO_IPV6);
		if (tx.icmp_len) {
			check_link_failure6(orig + PG_VNET_LEN, 100);
			icmp++;
		}
	}
	assert_int_equal(icmp, 50);
	assert_int_equal(st.tx_icmp_link_failure, 50);
	assert_int_equal(damper.count, 0);
	assert_int_equal(total_drops(), 0);
}

/* A GSO super-packet: all its segments go out, and the error quotes the super-packet. */
static void test_tx_link_failure_gso(void **state)
{
	uint32_t len = gso6_frame(3 * 1420 - 100, 1420);

	(void)state;
	memset(&damper, 0, sizeof(damper));
	tx_setup_with(SITD_MODE_SIT, 0, 0, true, 1, &damper);
	damper_note(&damper, T0);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, T0), SITD_TX_SEND);
	check_link_failure6(orig + PG_VNET_LEN, len - PG_VNET_LEN);
	drain();
	assert_int_equal(nsegs, 3);
	for (size_t k = 0; k < nsegs; k++) {
		assert_true(segs[k].len <= 1500);
		assert_int_equal(segs[k].p[9], PG_PROTO_IPV6);
		assert_true(pg_l4_csum_ok(segs[k].p + 20, 40, PG_PROTO_TCP));
	}
	assert_int_equal(st.tx_icmp_link_failure, 1);
	assert_int_equal(st.tx_gso_packets, 1);
}

/*
 * A bare header is a whole packet: IPv6 with payload length 0 and next header 59
 * (RFC 8200 4.7), IPv4 of total length 20.  Both go out behind one outer header, as
 * ipip6_tunnel_xmit / ip_tunnel_xmit send them; payload length 0 with any other next
 * header is still refused as a jumbogram (RFC 2675 3).
 */
static void test_tx_bare_header(void **state)
{
	uint32_t len;

	(void)state;
	tx_setup(SITD_MODE_ANY, 64, 0, true, 0x2222);
	pg_ip6(ip, 0, 0, 0, 59, 9, PG_IN6_SRC, PG_IN6_DST);
	len = plain_frame(40);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 1);
	assert_int_equal(segs[0].len, 60);
	assert_int_equal(segs[0].p[9], PG_PROTO_IPV6);
	assert_memory_equal(segs[0].p + 20, orig + PG_VNET_LEN, 40);

	pg_ip4(ip, 0, 20, 7, PG_IP4_DF, 9, 253, PG_IN4_SRC, PG_IN4_DST, 0);
	len = plain_frame(20);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_SEND);
	drain();
	assert_int_equal(nsegs, 2);
	assert_int_equal(segs[1].len, 40);
	assert_int_equal(segs[1].p[9], PG_PROTO_IPIP);
	assert_memory_equal(segs[1].p + 20, orig + PG_VNET_LEN, 20);
	assert_int_equal(total_drops(), 0);

	pg_ip6(ip, 0, 0, 0, PG_PROTO_UDP, 9, PG_IN6_SRC, PG_IN6_DST);
	memset(ip + 40, 0, 8);
	len = plain_frame(48);
	assert_int_equal(sitd_tx_begin(&tx, frame, len, 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[SITD_DROP_tx_malformed], 1);
	assert_int_equal(total_drops(), 1);
	assert_int_equal(nsegs, 2);
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = &(arr)[i] }

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(encap_cases) + 3 * ARRAY_SIZE(csum_cases) +
				ARRAY_SIZE(frag_cases) + ARRAY_SIZE(decline_cases) +
				ARRAY_SIZE(floor_cases) + ARRAY_SIZE(after_cases) + ARRAY_SIZE(lf_cases) +
				12 + 9 + 2];
	size_t n = 0;

	TABLE(encap_cases, test_tx_encap);
	TABLE(csum_cases, test_tx_needs_csum);
	for (size_t i = 0; i < ARRAY_SIZE(csum_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = csum_cases[i].zero_name,
						  .test_func = test_tx_needs_csum_zero,
						  .initial_state = &csum_cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_needs_csum_bad);
	for (size_t i = 0; i < ARRAY_SIZE(csum_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = csum_cases[i].defer_name,
						  .test_func = test_tx_needs_csum_defer,
						  .initial_state = &csum_cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_needs_csum_defer_fragments);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_out_csum_finish_odd);
	TABLE(frag_cases, test_tx_fragment);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_ptb6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_ptb6_boundary);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_ptb6_source);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_remote_any);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_rfc4213_ptb_1280);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_gso_segment_too_big);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_gso_64k_fits);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_frag_needed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_gso4_frag_needed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_icmp_ratelimit);
	TABLE(decline_cases, test_tx_icmp_declined);
	TABLE(floor_cases, test_tx_mtu_floor);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_frag_too_many);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_oversize);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_outer_ids);
	TABLE(after_cases, test_tx_next_after_no_send);
	TABLE(lf_cases, test_tx_link_failure);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_link_failure_count);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_link_failure_expired);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_link_failure_not_on_ptb);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_link_failure_declined);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_link_failure_ratelimit);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_link_failure_gso);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_bare_header);
	if (n != ARRAY_SIZE(tests)) {
		fprintf(stderr, "test_tx: %zu of %zu tests filled in\n", n, ARRAY_SIZE(tests));
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
