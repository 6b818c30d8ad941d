/* SPDX-License-Identifier: MIT */
/*
 * GSO split through sitd_tx_begin / sitd_tx_next: TCP super-packets as TUN hands them
 * over (virtio_net_hdr NEEDS_CSUM, csum_start at TCP, csum_offset 16, the TCP checksum
 * field holding the pseudo-header sum) become outer IPv4 packets, one per segment.
 *
 * Every segment is checked field by field against the original super-packet, with the
 * kernel's rules (doc/kernel.md "GSO split rules": tcp_gso_segment, inet_gso_segment,
 * ipv6_gso_segment) and the encapsulation of ipip6_tunnel_xmit / ip_tunnel_xmit
 * (doc/kernel.md "Outer header fields").
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pktgen.h"
#include "core/tx.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct sitd_tx tx;
static struct sitd_stats st;
static uint8_t frame[PG_VNET_LEN + 65536 + 256];
static uint8_t orig[sizeof(frame)];

/* Outputs flattened into one pool, one entry per outer packet, in order. */
struct seg {
	uint8_t *p;
	size_t len;
};
static uint8_t pool[4 << 20];
static struct seg segs[1024];
static size_t nsegs, pool_used;

static void tx_setup(enum sitd_mode mode, uint8_t ttl, uint8_t tos, bool pmtudisc, uint16_t first_id)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "sitt");
	c.mode = mode;
	c.remote = PG_OUTER_REMOTE;
	c.local = PG_OUTER_LOCAL;
	c.ttl = ttl;
	c.tos = tos;
	c.pmtudisc = pmtudisc;
	memset(&st, 0, sizeof(st));
	sitd_tx_init(&tx, &c, &st, NULL, first_id);
	nsegs = pool_used = 0;
}

/* Copy tx.out[0..nout) into segs[]; each output's len must match its iovecs. */
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
		segs[nsegs].p = pool + pool_used;
		segs[nsegs++].len = n;
		pool_used += n;
	}
}

/* Drive sitd_tx_next to the end, collecting every batch. */
static void drain(void)
{
	while (!sitd_tx_next(&tx)) {
		assert_int_equal(tx.nout, SITD_TX_MAX_OUT);
		collect();
		sitd_tx_reset(&tx);
	}
	collect();
	sitd_tx_reset(&tx);
}

/* A GSO super-packet frame; returns its length, *l4off = csum_start. */
static size_t gso_frame(const struct pg_tcp_pkt *p, uint8_t gso_type, uint16_t gso_size, unsigned *l4off)
{
	size_t n = pg_tcp_packet(frame + PG_VNET_LEN, p, l4off);

	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, gso_type, (uint16_t)(*l4off + 20 + p->tcp_optlen), gso_size,
		(uint16_t)*l4off, 16);
	return PG_VNET_LEN + n;
}

struct expect {
	uint8_t proto, tos, ttl;
	bool df;
	uint16_t first_id;
	uint32_t nseg;
};

/*
 * Check inner segment k (`in`, `ilen` bytes) against the super-packet `sp` (l4off = L3
 * length): doc/kernel.md "GSO split rules" 1-4.
 */
static void check_inner(const uint8_t *in, size_t ilen, const uint8_t *sp, unsigned l4off,
			const struct pg_tcp_pkt *p, uint16_t gso, uint32_t k, uint32_t nseg)
{
	unsigned thlen = 20 + p->tcp_optlen;
	uint32_t off = k * gso;
	uint32_t plen = p->payload - off < gso ? p->payload - off : gso;
	const uint8_t *t = in + l4off, *ot = sp + l4off;
	uint8_t flags = p->flags;

	assert_int_equal(ilen, l4off + thlen + plen);
	if (p->version == 6) {
		assert_int_equal(in[0] >> 4, 6);
		assert_memory_equal(in, sp, 4);			/* version, class, flow label */
		assert_int_equal(pg_get16(in + 4), ilen - 40);	/* ext headers count (RFC 8200 3) */
		assert_memory_equal(in + 6, sp + 6, 34);	/* next header, hop limit, addresses */
		assert_memory_equal(in + 40, sp + 40, l4off - 40);	/* extension headers copied */
	} else {
		assert_memory_equal(in, sp, 2);			/* version, IHL, TOS */
		assert_int_equal(pg_get16(in + 2), ilen);
		assert_int_equal(pg_get16(in + 4), (uint16_t)(p->ip_id + k));	/* inet_gso_segment */
		assert_memory_equal(in + 6, sp + 6, 4);		/* DF copied, TTL, protocol */
		assert_memory_equal(in + 12, sp + 12, l4off - 12);	/* addresses, options */
		assert_true(pg_ip4_csum_ok(in));
	}
	assert_memory_equal(t, ot, 4);				/* ports */
	assert_int_equal(pg_get32(t + 4), (uint32_t)(p->seq + off));
	assert_memory_equal(t + 8, ot + 8, 5);			/* ack, data offset */
	if (k + 1 < nseg)
		flags &= (uint8_t)~(PG_FIN | PG_PSH);		/* only the last keeps FIN, PSH */
	if (k > 0)
		flags &= (uint8_t)~PG_CWR;			/* only the first keeps CWR */
	assert_int_equal(t[13], flags);
	assert_memory_equal(t + 14, ot + 14, 2);		/* window */
	assert_memory_equal(t + 18, ot + 18, thlen - 18);	/* urgent pointer, options */
	assert_memory_equal(t + thlen, ot + thlen + off, plen);
	assert_true(pg_l4_csum_ok(in, l4off, PG_PROTO_TCP));
}

/* Check segs[0..nsegs) as the unfragmented segments of the super-packet `sp`. */
static void check_segments(const uint8_t *sp, unsigned l4off, const struct pg_tcp_pkt *p, uint16_t gso,
			   const struct expect *e)
{
	assert_int_equal(nsegs, e->nseg);
	for (uint32_t k = 0; k < nsegs; k++) {
		const uint8_t *o = segs[k].p;

		/* The outer header: RFC 791, doc/kernel.md "Outer header fields". */
		assert_int_equal(o[0], 0x45);
		assert_int_equal(o[1], e->tos);
		assert_int_equal(pg_get16(o + 2), segs[k].len);
		assert_int_equal(pg_get16(o + 4), (uint16_t)(e->first_id + k));
		assert_int_equal(pg_get16(o + 6), e->df ? PG_IP4_DF : 0);
		assert_int_equal(o[8], e->ttl);
		assert_int_equal(o[9], e->proto);
		assert_true(pg_ip4_csum_ok(o));
		assert_int_equal(pg_get32(o + 12), PG_OUTER_LOCAL);
		assert_int_equal(pg_get32(o + 16), PG_OUTER_REMOTE);
		check_inner(o + 20, segs[k].len - 20, sp, l4off, p, gso, k, e->nseg);
	}
}

/* ---- The main table ---- */

enum hdr_len_kind { HDR_LEN_TRUE, HDR_LEN_ZERO, HDR_LEN_WHOLE };

struct gso_case {
	const char *name;
	enum sitd_mode mode;
	uint8_t conf_ttl, conf_tos;
	bool pmtudisc;
	uint32_t path_mtu;
	uint16_t first_id;
	struct pg_tcp_pkt pkt;
	uint8_t gso_type;
	uint16_t gso_size;
	enum hdr_len_kind hdr_len;	/* never trusted: doc/kernel.md "virtio_net_hdr rules" */
	/* Expected, worked out by hand from ipip6_tunnel_xmit's TOS, TTL and ECN steps. */
	uint32_t nseg;
	bool df;
	uint8_t tos, ttl;
};

static struct gso_case gso_cases[] = {
	{
		/* Segment 40 + 32 + 1408 = 1480 = path MTU - 20: fits exactly. */
		.name = "tcpv6: 6 segments, short last; ttl 64, tos inherit, inner CE -> ECT(0) outside",
		.mode = SITD_MODE_SIT, .conf_ttl = 64, .conf_tos = SITD_TOS_INHERIT, .pmtudisc = true,
		.path_mtu = 1500, .first_id = 100,
		.pkt = { .version = 6, .dsfield = 0xbb, .ttl = 50, .seq = 1000, .ack = 5555,
			 .flags = PG_ACK | PG_PSH | PG_FIN | PG_CWR, .tcp_optlen = 12,
			 .payload = 5 * 1408 + 700, .seed = 1, .partial = true },
		.gso_type = PG_GSO_TCPV6 | PG_GSO_ECN, .gso_size = 1408,
		.nseg = 6, .df = true, .tos = 0xba, .ttl = 64,
	},
	{
		.name = "tcpv4 on ipip: seq, inner ID and outer ID wrap; ttl inherit, tos 0x28 + inner ECT(1)",
		.mode = SITD_MODE_IPIP, .conf_ttl = 0, .conf_tos = 0x28, .pmtudisc = true,
		.path_mtu = 1500, .first_id = 0xfffd,
		.pkt = { .version = 4, .dsfield = 0x01, .ttl = 33, .ip_id = 0xfffe, .df = true,
			 .seq = 0xfffff000u, .ack = 1, .flags = PG_ACK | PG_PSH, .payload = 4 * 1000 + 1,
			 .seed = 2, .partial = true },
		.gso_type = PG_GSO_TCPV4, .gso_size = 1000,
		.nseg = 5, .df = true, .tos = 0x29, .ttl = 33,
	},
	{
		.name = "tcpv4 in mode any: IPv4 options, 40 bytes of TCP options, payload 3 x gso_size, hdr_len 0",
		.mode = SITD_MODE_ANY, .conf_ttl = 255, .conf_tos = 0, .pmtudisc = true,
		.path_mtu = 1500, .first_id = 7,
		.pkt = { .version = 4, .dsfield = 0x02, .ttl = 64, .ip_id = 1000, .df = false,
			 .ip_optlen = 8, .seq = 77, .ack = 88, .flags = PG_ACK | PG_FIN, .tcp_optlen = 40,
			 .payload = 3000, .seed = 3, .partial = true },
		.gso_type = PG_GSO_TCPV4, .gso_size = 1000, .hdr_len = HDR_LEN_ZERO,
		.nseg = 3, .df = true, .tos = 0x02, .ttl = 255,
	},
	{
		/* RFC 8200 4.1: a Destination Options header before TCP; csum_start = 64. */
		.name = "tcpv6 behind a destination options header; tos 0x10, ttl inherit, hdr_len = whole",
		.mode = SITD_MODE_SIT, .conf_ttl = 0, .conf_tos = 0x10, .pmtudisc = true,
		.path_mtu = 1500, .first_id = 1,
		.pkt = { .version = 6, .dsfield = 0x00, .ttl = 77, .ext_len = 24, .seq = 4242,
			 .ack = 99, .flags = PG_ACK | PG_PSH, .tcp_optlen = 12, .payload = 2500,
			 .seed = 4, .partial = true },
		.gso_type = PG_GSO_TCPV6, .gso_size = 1200, .hdr_len = HDR_LEN_WHOLE,
		.nseg = 3, .df = true, .tos = 0x10, .ttl = 77,
	},
	{
		.name = "tcpv6 with nopmtudisc: outer DF clear",
		.mode = SITD_MODE_SIT, .conf_ttl = 0, .conf_tos = 0, .pmtudisc = false,
		.path_mtu = 9000, .first_id = 500,
		.pkt = { .version = 6, .dsfield = 0x01, .ttl = 64, .seq = 1, .ack = 2,
			 .flags = PG_ACK, .payload = 9000, .seed = 5, .partial = true },
		.gso_type = PG_GSO_TCPV6, .gso_size = 1440,
		.nseg = 7, .df = false, .tos = 0x01, .ttl = 64,
	},
	{
		.name = "payload below gso_size: one segment keeping FIN, PSH and CWR",
		.mode = SITD_MODE_SIT, .conf_ttl = 64, .conf_tos = 0, .pmtudisc = true,
		.path_mtu = 1500, .first_id = 9,
		.pkt = { .version = 6, .dsfield = 0x00, .ttl = 64, .seq = 10, .ack = 20,
			 .flags = PG_ACK | PG_PSH | PG_FIN | PG_CWR, .tcp_optlen = 12, .payload = 500,
			 .seed = 6, .partial = true },
		.gso_type = PG_GSO_TCPV6 | PG_GSO_ECN, .gso_size = 1408,
		.nseg = 1, .df = true, .tos = 0x00, .ttl = 64,
	},
	{
		/* Segment 20 + 20 + 1440 = 1480 fits; the last carries 1 byte. */
		.name = "tcpv4 in mode any: tos inherit with inner CE, inner DF, last segment 1 byte",
		.mode = SITD_MODE_ANY, .conf_ttl = 0, .conf_tos = SITD_TOS_INHERIT, .pmtudisc = true,
		.path_mtu = 1500, .first_id = 0,
		.pkt = { .version = 4, .dsfield = 0xbb, .ttl = 200, .ip_id = 0x1234, .df = true,
			 .seq = 0x80000000u, .ack = 3, .flags = PG_ACK | PG_PSH | PG_CWR | PG_ECE,
			 .payload = 2 * 1440 + 1, .seed = 7, .partial = true },
		.gso_type = PG_GSO_TCPV4 | PG_GSO_ECN, .gso_size = 1440,
		.nseg = 3, .df = true, .tos = 0xba, .ttl = 200,
	},
};

static void test_gso_case(void **state)
{
	const struct gso_case *c = *state;
	struct expect e = { .proto = c->pkt.version == 6 ? PG_PROTO_IPV6 : PG_PROTO_IPIP,
			    .tos = c->tos, .ttl = c->ttl, .df = c->df, .first_id = c->first_id,
			    .nseg = c->nseg };
	unsigned l4off;
	size_t len;

	tx_setup(c->mode, c->conf_ttl, c->conf_tos, c->pmtudisc, c->first_id);
	len = gso_frame(&c->pkt, c->gso_type, c->gso_size, &l4off);
	if (c->hdr_len != HDR_LEN_TRUE) {
		uint16_t h = c->hdr_len == HDR_LEN_ZERO ? 0 : (uint16_t)(len - PG_VNET_LEN);

		memcpy(frame + 2, &h, 2);
	}
	memcpy(orig, frame, len);

	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, c->path_mtu, 0), SITD_TX_SEND);
	drain();
	check_segments(orig + PG_VNET_LEN, l4off, &c->pkt, c->gso_size, &e);
	/* The payload iovecs point into the frame, which must be left as it was (tx.h). */
	assert_memory_equal(frame, orig, len);
	assert_int_equal(st.tx_gso_packets, 1);
	assert_int_equal(st.tx_gso_segments, c->nseg);
	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		assert_int_equal(st.drop[i], 0);
	assert_int_equal(tx.icmp_len, 0);
}

/*
 * out[] holds SITD_TX_MAX_OUT packets: 300 segments need two batches.  sitd_tx_next says
 * false with out[] full, then continues after sitd_tx_reset; the IDs run on.
 */
static void test_gso_out_full(void **state)
{
	const struct pg_tcp_pkt p = { .version = 6, .ttl = 64, .seq = 123456, .ack = 1,
				      .flags = PG_ACK | PG_PSH | PG_FIN, .tcp_optlen = 12,
				      .payload = 300 * 100, .seed = 9, .partial = true };
	const struct expect e = { .proto = PG_PROTO_IPV6, .tos = 0, .ttl = 64, .df = true,
				  .first_id = 40000, .nseg = 300 };
	unsigned l4off;
	size_t len;

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, true, 40000);
	len = gso_frame(&p, PG_GSO_TCPV6, 100, &l4off);
	memcpy(orig, frame, len);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_SEND);
	assert_false(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, SITD_TX_MAX_OUT);
	collect();
	sitd_tx_reset(&tx);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 300 - SITD_TX_MAX_OUT);
	collect();
	sitd_tx_reset(&tx);
	assert_true(sitd_tx_next(&tx));		/* done: nothing more */
	assert_int_equal(tx.nout, 0);
	check_segments(orig + PG_VNET_LEN, l4off, &p, 100, &e);
	assert_int_equal(st.tx_gso_segments, 300);
}

/*
 * nopmtudisc and segments bigger than the path: each segment is fragmented outside
 * (RFC 791 3.2), its fragments sharing one ID; reassembled, they are the segments.
 */
static void test_gso_nopmtudisc_fragments(void **state)
{
	const struct pg_tcp_pkt p = { .version = 6, .ttl = 64, .seq = 5, .ack = 6,
				      .flags = PG_ACK | PG_PSH, .payload = 3 * 1440 + 10, .seed = 10,
				      .partial = true };
	const struct expect e = { .proto = PG_PROTO_IPV6, .tos = 0, .ttl = 64, .df = false,
				  .first_id = 10, .nseg = 4 };
	static uint8_t re[4][2048];
	unsigned l4off;
	size_t len, f = 0, n = 0;

	(void)state;
	tx_setup(SITD_MODE_SIT, 0, 0, false, 10);
	len = gso_frame(&p, PG_GSO_TCPV6, 1440, &l4off);
	memcpy(orig, frame, len);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_SEND);
	drain();
	/* Segments of 1500 inside: 1480 + 20 bytes outside; the last (70 bytes) fits. */
	assert_int_equal(nsegs, 3 * 2 + 1);
	while (f < nsegs) {
		uint16_t id = pg_get16(segs[f].p + 4);
		size_t body = 0;

		assert_true(n < 4);
		memcpy(re[n], segs[f].p, 20);
		for (;;) {
			const uint8_t *o = segs[f].p;
			uint16_t frag = pg_get16(o + 6);

			assert_true(segs[f].len <= 1500);
			assert_true(pg_ip4_csum_ok(o));
			assert_int_equal(pg_get16(o + 4), id);
			assert_int_equal((frag & 0x1fff) * 8u, body);
			assert_int_equal(frag & PG_IP4_DF, 0);
			memcpy(re[n] + 20 + body, o + 20, segs[f].len - 20);
			body += segs[f].len - 20;
			f++;
			if (!(frag & PG_IP4_MF))
				break;
			assert_int_equal((segs[f - 1].len - 20) % 8, 0);
			assert_true(f < nsegs);
		}
		/* Stand the reassembled packet in for the fragments. */
		pg_put16(re[n] + 2, (uint16_t)(20 + body));
		pg_put16(re[n] + 6, 0);
		pg_put16(re[n] + 10, 0);
		pg_put16(re[n] + 10, pg_csum(re[n], 20));
		n++;
	}
	for (size_t k = 0; k < n; k++) {
		segs[k].p = re[k];
		segs[k].len = pg_get16(re[k] + 2);
	}
	nsegs = n;
	check_segments(orig + PG_VNET_LEN, l4off, &p, 1440, &e);
	assert_int_equal(st.tx_fragments, 6);
}

/* ---- Drops: each counted under its own reason (stats.h) ---- */

/* One change to an otherwise good super-packet (IPv6: 3000 bytes in 1000-byte segments). */
enum mutation {
	MUT_NONE,
	MUT_GSO_SIZE,		/* gso_size = val */
	MUT_CSUM_START,		/* csum_start = val */
	MUT_DOFF,		/* TCP data offset = val words */
	MUT_LEN,		/* IPv6 payload length / IPv4 total length = val */
	MUT_BYTE0,		/* first IP byte = val */
	MUT_CUT,		/* the frame cut to val bytes */
	MUT_MF,			/* IPv4 More Fragments set */
	MUT_UDP,		/* a UDP packet instead of TCP */
};

struct drop_case {
	const char *name;
	enum sitd_mode mode;
	unsigned version;
	uint8_t gso_type;
	unsigned ext_len;
	uint32_t payload;	/* 0: 3000 */
	enum mutation mut;
	int val;
	enum sitd_drop reason;
};

static struct drop_case drop_cases[] = {
	{ .name = "gso_type UDP_L4: only TCP is split (wireguard-go handleVirtioRead)",
	  .mode = SITD_MODE_SIT, .version = 6, .gso_type = PG_GSO_UDP_L4,
	  .reason = SITD_DROP_tx_gso_unsupported },
	{ .name = "gso_type UDP (UFO)", .mode = SITD_MODE_SIT, .version = 6, .gso_type = PG_GSO_UDP,
	  .reason = SITD_DROP_tx_gso_unsupported },
	{ .name = "TCPV4 on an IPv6 packet (type must match the version)", .mode = SITD_MODE_SIT,
	  .version = 6, .gso_type = PG_GSO_TCPV4, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "TCPV6 on an IPv4 packet", .mode = SITD_MODE_ANY, .version = 4,
	  .gso_type = PG_GSO_TCPV6, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "csum_start 40 with a 24-byte extension header (must be the L3 length)",
	  .mode = SITD_MODE_SIT, .version = 6, .gso_type = PG_GSO_TCPV6, .ext_len = 24,
	  .mut = MUT_CSUM_START, .val = 40, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "csum_start 60, past the start of TCP", .mode = SITD_MODE_SIT, .version = 6,
	  .gso_type = PG_GSO_TCPV6, .mut = MUT_CSUM_START, .val = 60, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "gso_size 0 (virtio_net_hdr_to_skb)", .mode = SITD_MODE_SIT, .version = 6,
	  .gso_type = PG_GSO_TCPV6, .mut = MUT_GSO_SIZE, .val = 0, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "TCPV6 on a UDP packet", .mode = SITD_MODE_SIT, .version = 6, .gso_type = PG_GSO_TCPV6,
	  .mut = MUT_UDP, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "TCPV4 on an IPv4 fragment (MF)", .mode = SITD_MODE_IPIP, .version = 4,
	  .gso_type = PG_GSO_TCPV4, .mut = MUT_MF, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "TCP data offset 4 (RFC 9293 3.1: at least 5)", .mode = SITD_MODE_SIT, .version = 6,
	  .gso_type = PG_GSO_TCPV6, .mut = MUT_DOFF, .val = 4, .reason = SITD_DROP_tx_malformed },
	{ .name = "TCP data offset 0", .mode = SITD_MODE_IPIP, .version = 4, .gso_type = PG_GSO_TCPV4,
	  .mut = MUT_DOFF, .val = 0, .reason = SITD_DROP_tx_malformed },
	{ .name = "TCP data offset 15 (60 bytes) with 40 bytes of TCP", .mode = SITD_MODE_SIT,
	  .version = 6, .gso_type = PG_GSO_TCPV6, .payload = 20, .mut = MUT_DOFF, .val = 15,
	  .reason = SITD_DROP_tx_malformed },
	{ .name = "IPv6 payload length 12: no room for a TCP header", .mode = SITD_MODE_SIT,
	  .version = 6, .gso_type = PG_GSO_TCPV6, .mut = MUT_LEN, .val = 12,
	  .reason = SITD_DROP_tx_malformed },
	{ .name = "IPv6 payload length beyond the frame", .mode = SITD_MODE_SIT, .version = 6,
	  .gso_type = PG_GSO_TCPV6, .mut = MUT_LEN, .val = 4000, .reason = SITD_DROP_tx_malformed },
	{ .name = "IPv4 total length beyond the frame", .mode = SITD_MODE_IPIP, .version = 4,
	  .gso_type = PG_GSO_TCPV4, .mut = MUT_LEN, .val = 4000, .reason = SITD_DROP_tx_malformed },
	{ .name = "truncated IPv6 header (30 bytes)", .mode = SITD_MODE_SIT, .version = 6,
	  .gso_type = PG_GSO_TCPV6, .mut = MUT_CUT, .val = PG_VNET_LEN + 30,
	  .reason = SITD_DROP_tx_malformed },
	{ .name = "truncated IPv4 header (19 bytes)", .mode = SITD_MODE_IPIP, .version = 4,
	  .gso_type = PG_GSO_TCPV4, .mut = MUT_CUT, .val = PG_VNET_LEN + 19,
	  .reason = SITD_DROP_tx_malformed },
	{ .name = "IPv4 IHL 4 (RFC 791: at least 5)", .mode = SITD_MODE_IPIP, .version = 4,
	  .gso_type = PG_GSO_TCPV4, .mut = MUT_BYTE0, .val = 0x44, .reason = SITD_DROP_tx_malformed },
	{ .name = "IP version 5", .mode = SITD_MODE_ANY, .version = 6, .gso_type = PG_GSO_TCPV6,
	  .mut = MUT_BYTE0, .val = 0x50, .reason = SITD_DROP_tx_malformed },
	{ .name = "IPv4 on a mode sit tunnel (ip6ip carries IPv6 only)", .mode = SITD_MODE_SIT,
	  .version = 4, .gso_type = PG_GSO_TCPV4, .reason = SITD_DROP_tx_mode },
	{ .name = "IPv6 on a mode ipip tunnel", .mode = SITD_MODE_IPIP, .version = 6,
	  .gso_type = PG_GSO_TCPV6, .reason = SITD_DROP_tx_mode },
	{ .name = "frame of 9 bytes, shorter than the virtio_net_hdr", .mode = SITD_MODE_SIT,
	  .version = 6, .gso_type = PG_GSO_TCPV6, .mut = MUT_CUT, .val = 9,
	  .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "empty frame", .mode = SITD_MODE_SIT, .version = 6, .gso_type = PG_GSO_TCPV6,
	  .mut = MUT_CUT, .val = 0, .reason = SITD_DROP_tx_vnet_bad },
	{ .name = "inner L3 headers of 224 bytes, over INNER_L3_MAX", .mode = SITD_MODE_SIT,
	  .version = 6, .gso_type = PG_GSO_TCPV6, .ext_len = 184, .reason = SITD_DROP_tx_hdr_too_long },
};

static void test_gso_drop(void **state)
{
	const struct drop_case *c = *state;
	const struct pg_tcp_pkt p = { .version = c->version, .ttl = 64, .ip_id = 1, .ext_len = c->ext_len,
				      .seq = 1, .ack = 1, .flags = PG_ACK,
				      .payload = c->payload ? c->payload : 3000, .seed = 11,
				      .partial = true };
	uint8_t *ip = frame + PG_VNET_LEN;
	uint16_t gso_size = 1000;
	unsigned l4off;
	size_t len;
	uint64_t total = 0;

	tx_setup(c->mode, 0, 0, true, 1);
	if (c->mut == MUT_UDP) {
		len = PG_VNET_LEN + pg_udp_packet(ip, c->version, 3000, 11, true);
		l4off = c->version == 4 ? 20 : 40;
	} else {
		len = gso_frame(&p, c->gso_type, gso_size, &l4off);
	}
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, c->gso_type, (uint16_t)(l4off + 20), gso_size,
		(uint16_t)l4off, 16);
	switch (c->mut) {
	case MUT_NONE:
	case MUT_UDP:
		break;
	case MUT_GSO_SIZE:
		pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, c->gso_type, (uint16_t)(l4off + 20),
			(uint16_t)c->val, (uint16_t)l4off, 16);
		break;
	case MUT_CSUM_START:
		pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, c->gso_type, (uint16_t)(l4off + 20), gso_size,
			(uint16_t)c->val, 16);
		break;
	case MUT_DOFF:
		ip[l4off + 12] = (uint8_t)(c->val << 4);
		break;
	case MUT_LEN:
		pg_put16(ip + (c->version == 4 ? 2 : 4), (uint16_t)c->val);
		break;
	case MUT_BYTE0:
		ip[0] = (uint8_t)c->val;
		break;
	case MUT_CUT:
		len = (size_t)c->val;
		break;
	case MUT_MF:
		pg_put16(ip + 6, PG_IP4_MF);
		break;
	}
	if (c->version == 4 && c->mut != MUT_CUT) {	/* keep the inner header checksum right */
		pg_put16(ip + 10, 0);
		pg_put16(ip + 10, pg_csum(ip, (ip[0] & 15u) * 4 < 20 ? 20 : (ip[0] & 15u) * 4));
	}

	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_DROP);
	assert_int_equal(st.drop[c->reason], 1);
	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		total += st.drop[i];
	assert_int_equal(total, 1);
	assert_int_equal(st.tx_gso_packets, 0);
	assert_int_equal(tx.icmp_len, 0);
	assert_true(sitd_tx_next(&tx));		/* a dropped frame leaves nothing to send */
	assert_int_equal(tx.nout, 0);
}

/* ---- Checksums left to the device (tx.csum_defer, -T packet) ---- */

struct defer_case {
	const char *name;
	unsigned version;
	uint32_t payload;
	uint16_t gso;
	bool pmtudisc;
	enum sitd_encap encap;
	unsigned left, finished;	/* expected: outputs left to the device, finished by sitd */
};

static struct defer_case defer_cases[] = {
	{ "defer: IPv6 segments carry the pseudo-header sum; finished, the bytes of a full split", 6,
	  20000, 1408, true, SITD_ENCAP_NONE, 15, 0 },
	{ "defer: IPv4 segments likewise", 4, 9000 + 7, 1428, true, SITD_ENCAP_NONE, 7, 0 },
	{ "defer: fragments (nopmtudisc) are finished by sitd; the whole last segment is left", 6,
	  3 * 1440 + 10, 1440, false, SITD_ENCAP_NONE, 1, 6 },
	{ "defer: FOU segments are finished by sitd (a UDP socket takes no vnet header)", 6, 5000, 1400,
	  true, SITD_ENCAP_FOU, 0, 4 },
};

static void defer_setup(const struct defer_case *c, bool defer)
{
	struct sitd_conf conf;

	memset(&conf, 0, sizeof(conf));
	strcpy(conf.name, "sitt");
	conf.mode = c->version == 6 ? SITD_MODE_SIT : SITD_MODE_IPIP;
	conf.remote = PG_OUTER_REMOTE;
	conf.local = PG_OUTER_LOCAL;
	conf.pmtudisc = c->pmtudisc;
	conf.encap = c->encap;
	conf.encap_dport = 5555;
	memset(&st, 0, sizeof(st));
	sitd_tx_init(&tx, &conf, &st, NULL, 77);
	tx.csum_defer = defer;
}

/*
 * The same super-packet split with and without csum_defer: with it, each whole output
 * says where its inner checksum starts and holds the pseudo-header sum there, and
 * sitd_out_csum_finish() makes it byte for byte the output of the full split.
 */
static void test_gso_defer(void **state)
{
	const struct defer_case *c = *state;
	const struct pg_tcp_pkt p = { .version = c->version, .ttl = 64, .df = true, .seq = 99,
				      .ack = 5, .flags = PG_ACK | PG_PSH, .tcp_optlen = 12,
				      .payload = c->payload, .seed = 21, .partial = true };
	unsigned l4off, outer = c->encap == SITD_ENCAP_NONE ? 20 : 0;
	size_t len, ref, k = 0;
	unsigned left = 0, finished = 0;
	bool done = false;

	defer_setup(c, false);
	nsegs = pool_used = 0;
	len = gso_frame(&p, c->version == 6 ? PG_GSO_TCPV6 : PG_GSO_TCPV4, c->gso, &l4off);
	memcpy(orig, frame, len);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_SEND);
	drain();
	ref = nsegs;
	assert_true(ref >= 4);

	memcpy(frame, orig, len);
	defer_setup(c, true);
	assert_int_equal(sitd_tx_begin(&tx, frame, (uint32_t)len, 1500, 0), SITD_TX_SEND);
	while (!done) {
		done = sitd_tx_next(&tx);
		for (unsigned i = 0; i < tx.nout; i++, k++) {
			struct sitd_out *o = &tx.out[i];
			static uint8_t flat[2048];
			size_t n = pg_flatten(o->iov, o->iovcnt, flat, sizeof(flat));
			const uint8_t *in = flat + outer, *th = in + l4off;
			uint32_t tcplen = (uint32_t)(n - outer - l4off);

			assert_true(k < ref);
			/* Only a whole packet: a fragment's checksum covers bytes in others. */
			if (c->encap != SITD_ENCAP_NONE || (pg_get16(flat + 6) & 0x3fff)) {
				finished++;
				assert_int_equal(o->csum_start, 0);
				assert_int_equal(n, segs[k].len);
				assert_memory_equal(flat, segs[k].p, n);
				continue;
			}
			left++;
			assert_int_equal(o->csum_start, 20 + l4off);
			assert_int_equal(o->csum_off, 16);
			assert_int_equal(pg_get16(th + 16),
					 pg_fold(c->version == 6
						 ? pg_pseudo6(in + 8, in + 24, PG_PROTO_TCP, tcplen)
						 : pg_pseudo4(pg_get32(in + 12), pg_get32(in + 16), PG_PROTO_TCP,
							      (uint16_t)tcplen)));
			sitd_out_csum_finish(o);
			assert_int_equal(o->csum_start, 0);
			n = pg_flatten(o->iov, o->iovcnt, flat, sizeof(flat));
			assert_int_equal(n, segs[k].len);
			assert_memory_equal(flat, segs[k].p, n);
		}
		sitd_tx_reset(&tx);
	}
	assert_int_equal(k, ref);
	assert_int_equal(left, c->left);
	assert_int_equal(finished, c->finished);
	assert_memory_equal(frame + PG_VNET_LEN + l4off + 20 + 12, orig + PG_VNET_LEN + l4off + 20 + 12,
			    c->payload);	/* the payload is never written */
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(gso_cases) + ARRAY_SIZE(drop_cases) + ARRAY_SIZE(defer_cases) + 2];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(gso_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = gso_cases[i].name, .test_func = test_gso_case,
						  .initial_state = &gso_cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_gso_out_full);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_gso_nopmtudisc_fragments);
	for (size_t i = 0; i < ARRAY_SIZE(drop_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = drop_cases[i].name, .test_func = test_gso_drop,
						  .initial_state = &drop_cases[i] };
	for (size_t i = 0; i < ARRAY_SIZE(defer_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = defer_cases[i].name, .test_func = test_gso_defer,
						  .initial_state = &defer_cases[i] };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
