/* SPDX-License-Identifier: MIT */
/*
 * GRO into TUN (sitd_gro_add / sitd_gro_finish / sitd_gro_unmerge / sitd_gro_reset):
 * consecutive TCP segments of one flow in a receive batch become one super-packet,
 * written as [virtio_net_hdr][head packet][payload of each following segment].
 *
 * The merge rules are wireguard-go's tcpGRO / tcpPacketsCanCoalesce and the kernel's
 * tcp_gro_receive (doc/kernel.md "GRO merge rules"); what a merged write must look like
 * is what virtio_net_hdr_to_skb and tcp_gso_segment accept (doc/kernel.md
 * "virtio_net_hdr rules"): NEEDS_CSUM, csum_start at
 * the TCP header, csum_offset 16, gso_size, and the TCP checksum field holding the folded,
 * uncomplemented pseudo-header sum over the super-packet's TCP length.
 *
 * Every packet is built by pktgen.h and kept as a copy; every output is flattened and
 * compared byte for byte with a super-packet (or the single packet) constructed here from
 * those copies, with the reference checksum routines of pktgen.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pktgen.h"
#include "core/gro.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* VIRTIO_NET_HDR_F_DATA_VALID, include/uapi/linux/virtio_net.h. */
enum { VF_DATA_VALID = 2 };

enum {
	SLOTS = GRO_BATCH + 8,	/* packet buffers: a batch and a few for the next one */
	PKT_MAX = 2048,
	MAXSEG = 8,		/* segments in one table row */
	DEF_GSO = 1000,
};
/*
 * The second byte of the first sequence and ack numbers is 0x10 (ACK) and the first
 * 0x5_ (data offset 20): a parser that looked for TCP right after a 20-byte IPv4
 * header in spite of IHL 6, or right after the IPv6 header in spite of an extension
 * header, would find "ACK" flags there and go on to the checksum, and get caught.
 */
#define SEQ0 0x50100000u
#define ACK0 0x5a100001u
#define FLOW1_SEQ 0x00800000u	/* flow 1 starts this far from flow 0 */

static struct sitd_gro g;
static struct sitd_stats st;
static uint8_t pkts[SLOTS][PKT_MAX];	/* handed to sitd_gro_add */
static uint8_t orig[SLOTS][PKT_MAX];	/* as built */
static size_t plen[SLOTS];
static unsigned l3[SLOTS];		/* where TCP (or UDP, ICMPv6) starts */
static unsigned hl[SLOTS];		/* IP + TCP header length */
static uint8_t flat[PG_VNET_LEN + 65536 + 64];
static uint8_t want[65536 + 64], tmp[65536 + 64];

/* ---- Building the segments of a row ---- */

/* One change to a segment, against the row's defaults. */
enum mut {
	M_NONE,
	M_SPORT,	/* TCP source port 40002 */
	M_DPORT,	/* TCP destination port 444 */
	M_SADDR,	/* source address ::3 / 192.0.2.3 */
	M_DADDR,	/* destination address ::4 / 192.0.2.4 */
	M_ACK,		/* ack number + v */
	M_TSVAL,	/* TSval + v */
	M_TSECR,	/* TSecr + v */
	M_TCPOPT,	/* TCP options v bytes */
	M_DS,		/* TOS / Traffic Class v */
	M_TTL,		/* TTL / Hop Limit v */
	M_DF,		/* IPv4 DF inverted */
	M_ID,		/* IPv4 ID v */
	M_IPOPT,	/* IPv4 options v bytes */
	M_MF,		/* IPv4 More Fragments */
	M_FRAGOFF,	/* IPv4 fragment offset v (8-byte units) */
	M_FLOWLBL,	/* IPv6 flow label 0x12345 ^ 1 */
	M_EXT,		/* IPv6 Destination Options header of v bytes before TCP */
	M_EMPTY,	/* no payload: a pure ACK */
	M_BADCSUM,	/* TCP checksum wrong */
	M_BADIPCSUM,	/* IPv4 header checksum wrong */
	M_UDP,		/* a UDP datagram instead */
	M_ICMP6,	/* an ICMPv6 echo request instead */
};

struct sd {
	uint32_t pay;		/* payload bytes; 0: the row's gso */
	uint8_t flags;		/* TCP flags; 0: ACK */
	uint8_t flow;		/* 0: port 40000, 1: port 40001, each its own seq and ID */
	int32_t dseq;		/* added to the sequence number that would be contiguous */
	enum mut m;
	uint32_t v;
	/* Expected: */
	uint8_t item;		/* output item it belongs to */
	bool nc;		/* not a verified TCP candidate: written alone, vnet flags 0 */
};

struct scen {
	const char *name;
	unsigned version;
	bool nodf;		/* IPv4 DF clear on every segment */
	bool no_ts;		/* no TCP options (else NOP NOP Timestamps) */
	bool disabled;		/* sitd_gro_init(enabled = false) */
	uint16_t gso;		/* default payload; 0: DEF_GSO */
	uint16_t id0;		/* IPv4 ID of flow 0's first segment */
	uint32_t seq0;		/* 0: SEQ0 */
	unsigned n;
	struct sd seg[MAXSEG];
	unsigned csum_bad;	/* rx_csum_bad expected */
};

struct flowstate {
	uint32_t next;		/* contiguous sequence number */
	uint16_t id;
};

static struct flowstate fs[2];
static const struct scen *cur;

/* Recompute the IPv4 header checksum and the TCP checksum of slot k. */
static void fix_csums(unsigned k)
{
	uint8_t *b = pkts[k], *t = b + l3[k];
	uint32_t l4len = (uint32_t)plen[k] - l3[k], ps;

	if (b[0] >> 4 == 4) {
		pg_put16(b + 10, 0);
		pg_put16(b + 10, pg_csum(b, (b[0] & 15u) * 4u));
		ps = pg_pseudo4(pg_get32(b + 12), pg_get32(b + 16), PG_PROTO_TCP, (uint16_t)l4len);
	} else {
		ps = pg_pseudo6(b + 8, b + 24, PG_PROTO_TCP, l4len);
	}
	pg_put16(t + 16, 0);
	pg_put16(t + 16, (uint16_t)~pg_fold(pg_sum(t, l4len, ps)));
}

/* An ICMPv6 echo request (RFC 4443 4.1) with pay pattern bytes. */
static size_t icmp6_packet(uint8_t *b, uint32_t pay, uint8_t seed)
{
	uint16_t l = (uint16_t)(8 + pay);
	uint8_t *c = b + 40;

	pg_ip6(b, 0, 0, l, PG_PROTO_ICMPV6, 64, PG_IN6_SRC, PG_IN6_DST);
	c[0] = 128;
	c[1] = 0;
	pg_put16(c + 2, 0);
	pg_put16(c + 4, 0x1234);
	pg_put16(c + 6, 1);
	pg_pattern(c + 8, pay, seed);
	pg_put16(c + 2, (uint16_t)~pg_fold(pg_sum(c, l, pg_pseudo6(PG_IN6_SRC, PG_IN6_DST,
									PG_PROTO_ICMPV6, l))));
	return 40u + l;
}

static uint32_t seg_payload(const struct scen *s, const struct sd *d)
{
	if (d->m == M_EMPTY)
		return 0;
	return d->pay ? d->pay : s->gso ? s->gso : DEF_GSO;
}

/* Build segment d of the current row into slot k and keep a copy in orig[k]. */
static void build_seg(unsigned k, const struct sd *d)
{
	const struct scen *s = cur;
	struct flowstate *f = &fs[d->flow];
	uint32_t pay = seg_payload(s, d);
	struct pg_tcp_pkt p = {
		.version = s->version, .dsfield = 0, .ttl = 64, .ip_id = f->id, .df = !s->nodf,
		.seq = f->next + (uint32_t)d->dseq, .ack = ACK0, .flags = d->flags ? d->flags : PG_ACK,
		.tcp_optlen = s->no_ts ? 0 : 12, .payload = pay, .seed = (uint8_t)(k * 37 + 1),
	};
	uint8_t *b = pkts[k], *t;
	bool fix = d->flow != 0;

	assert_true(k < SLOTS);
	switch (d->m) {
	case M_ACK: p.ack += d->v; break;
	case M_TCPOPT: p.tcp_optlen = d->v; break;
	case M_DS: p.dsfield = (uint8_t)d->v; break;
	case M_TTL: p.ttl = (uint8_t)d->v; break;
	case M_DF: p.df = !p.df; break;
	case M_ID: p.ip_id = (uint16_t)d->v; break;
	case M_IPOPT: p.ip_optlen = d->v; break;
	case M_EXT: p.ext_len = d->v; break;
	case M_NONE: case M_SPORT: case M_DPORT: case M_SADDR: case M_DADDR: case M_TSVAL: case M_TSECR: case M_MF:
	case M_FRAGOFF: case M_FLOWLBL: case M_EMPTY: case M_BADCSUM: case M_BADIPCSUM: case M_UDP:
	case M_ICMP6:
		break;
	}
	if (d->m == M_UDP) {
		plen[k] = pg_udp_packet(b, s->version, pay, p.seed, false);
		l3[k] = s->version == 4 ? 20 : 40;
		hl[k] = l3[k] + 8;
		memcpy(orig[k], b, plen[k]);
		return;
	}
	if (d->m == M_ICMP6) {
		plen[k] = icmp6_packet(b, pay, p.seed);
		l3[k] = 40;
		hl[k] = 48;
		memcpy(orig[k], b, plen[k]);
		return;
	}
	plen[k] = pg_tcp_packet(b, &p, &l3[k]);
	assert_true(plen[k] <= PKT_MAX);
	hl[k] = l3[k] + 20 + p.tcp_optlen;
	f->next = p.seq + pay;
	f->id = (uint16_t)(p.ip_id + 1);
	t = b + l3[k];
	if (d->flow)
		pg_put16(t, (uint16_t)(40000 + d->flow));
	switch (d->m) {
	case M_SPORT: pg_put16(t, 40002); fix = true; break;
	case M_DPORT: pg_put16(t + 2, 444); fix = true; break;
	case M_SADDR: b[s->version == 4 ? 15 : 23] = 3; fix = true; break;
	case M_DADDR: b[s->version == 4 ? 19 : 39] = 4; fix = true; break;
	case M_TSVAL: pg_put32(t + 24, pg_get32(t + 24) + d->v); fix = true; break;
	case M_TSECR: pg_put32(t + 28, pg_get32(t + 28) + d->v); fix = true; break;
	case M_MF: pg_put16(b + 6, (uint16_t)(pg_get16(b + 6) | PG_IP4_MF)); fix = true; break;
	case M_FRAGOFF: pg_put16(b + 6, (uint16_t)(pg_get16(b + 6) | d->v)); fix = true; break;
	case M_FLOWLBL: b[3] ^= 1; fix = true; break;
	case M_NONE: case M_ACK: case M_TCPOPT: case M_DS: case M_TTL: case M_DF: case M_ID:
	case M_IPOPT: case M_EXT: case M_EMPTY: case M_BADCSUM: case M_BADIPCSUM: case M_UDP:
	case M_ICMP6:
		break;
	}
	if (fix)
		fix_csums(k);
	assert_true(pg_l4_csum_ok(b, l3[k], PG_PROTO_TCP));
	if (d->m == M_BADCSUM) {
		t[17] ^= 0x40;	/* never 0x0000 <-> 0xffff: wrong in one's complement too */
		assert_false(pg_l4_csum_ok(b, l3[k], PG_PROTO_TCP));
	}
	if (d->m == M_BADIPCSUM) {
		b[11] ^= 0x40;
		assert_false(pg_ip4_csum_ok(b));
	} else if (b[0] >> 4 == 4) {
		assert_true(pg_ip4_csum_ok(b));
	}
	memcpy(orig[k], b, plen[k]);
}

/* Start a batch for row s: stats zeroed, sitd_gro_init, flow state at the row's start. */
static void start(const struct scen *s)
{
	uint32_t seq0 = s->seq0 ? s->seq0 : SEQ0;

	cur = s;
	memset(&st, 0, sizeof(st));
	sitd_gro_init(&g, !s->disabled, &st);
	fs[0] = (struct flowstate){ .next = seq0, .id = s->id0 };
	fs[1] = (struct flowstate){ .next = seq0 + FLOW1_SEQ, .id = (uint16_t)(s->id0 + 0x1000) };
}

/* Build segs[0..n) into slots 0..n) and add them all. */
static void prepare(const struct scen *s, const struct sd *segs, unsigned n)
{
	start(s);
	for (unsigned k = 0; k < n; k++)
		build_seg(k, &segs[k]);
	for (unsigned k = 0; k < n; k++)
		assert_true(sitd_gro_add(&g, pkts[k], (uint32_t)plen[k]));
	assert_int_equal(g.npkt, n);
}

/* ---- Checking the outputs ---- */

static uint16_t vnet16(const uint8_t *v, unsigned off)
{
	uint16_t x;

	memcpy(&x, v + off, 2);		/* host order, as TUN has it */
	return x;
}

/* A merged item (cnt >= 2 segments in slots sl[]) flattened at flat[0..len). */
static void check_super(const unsigned *sl, unsigned cnt, size_t len)
{
	unsigned h = sl[0], hdr = hl[h], ip = l3[h];
	const uint8_t *v = flat, *sp = flat + PG_VNET_LEN;
	bool v4 = orig[h][0] >> 4 == 4;
	size_t total = hdr, off;
	uint32_t l4len, ps;
	uint8_t psh = 0;

	for (unsigned j = 0; j < cnt; j++) {
		total += j ? plen[sl[j]] - hl[sl[j]] : plen[h] - hdr;
		psh |= orig[sl[j]][l3[sl[j]] + 13] & PG_PSH;
	}
	assert_true(total <= 65535);
	l4len = (uint32_t)(total - ip);

	/* The virtio_net_hdr (doc/kernel.md "virtio_net_hdr rules"; virtio_net_hdr_to_skb). */
	assert_int_equal(v[0], PG_VNET_F_NEEDS_CSUM);
	assert_int_equal(v[1], v4 ? PG_GSO_TCPV4 : PG_GSO_TCPV6);
	assert_int_equal(vnet16(v, 2), hdr);
	assert_int_equal(vnet16(v, 4), plen[h] - hdr);	/* gso_size: the first segment's payload */
	assert_int_equal(vnet16(v, 6), ip);
	assert_int_equal(vnet16(v, 8), 16);
	assert_int_equal(len, PG_VNET_LEN + total);

	/* The super-packet expected, built from the copies. */
	memcpy(want, orig[h], hdr);
	off = hdr;
	for (unsigned j = 0; j < cnt; j++) {
		unsigned k = sl[j];

		memcpy(want + off, orig[k] + hl[k], plen[k] - hl[k]);
		off += plen[k] - hl[k];
	}
	if (v4) {
		pg_put16(want + 2, (uint16_t)total);
		pg_put16(want + 10, 0);
		pg_put16(want + 10, pg_csum(want, ip));
		ps = pg_pseudo4(pg_get32(want + 12), pg_get32(want + 16), PG_PROTO_TCP, (uint16_t)l4len);
	} else {
		pg_put16(want + 4, (uint16_t)(total - 40));
		ps = pg_pseudo6(want + 8, want + 24, PG_PROTO_TCP, l4len);
	}
	want[ip + 13] |= psh;
	pg_put16(want + ip + 16, pg_fold(ps));

	/* Field by field first, for readable failures, then every byte. */
	if (v4) {
		assert_int_equal(pg_get16(sp + 2), total);
		assert_true(pg_ip4_csum_ok(sp));
		assert_memory_equal(sp + 4, orig[h] + 4, 6);	/* ID, DF, TTL, protocol */
	} else {
		assert_int_equal(pg_get16(sp + 4), total - 40);
	}
	assert_int_equal(pg_get32(sp + ip + 4), pg_get32(orig[h] + ip + 4));	/* head's seq */
	assert_int_equal(sp[ip + 13], orig[h][ip + 13] | psh);
	assert_int_equal(pg_get16(sp + ip + 16), pg_fold(ps));
	assert_memory_equal(sp, want, total);

	/* Completing the sum from csum_start, as the kernel does, gives a valid segment. */
	memcpy(tmp, sp, total);
	pg_put16(tmp + ip + 16, (uint16_t)~pg_fold(pg_sum(tmp + ip, l4len, 0)));
	assert_true(pg_l4_csum_ok(tmp, ip, PG_PROTO_TCP));
}

/* Output item i: its segments are slots sl[0..cnt); verified says a lone one was checked. */
static void check_item(unsigned i, const unsigned *sl, unsigned cnt, bool verified)
{
	const struct sitd_gro_item *it = &g.item[i];
	unsigned start_i = g.iov_start[i];
	const struct iovec *iov = &g.iov[start_i];
	size_t len;

	assert_int_equal(it->nseg, cnt);
	for (unsigned j = 0; j < cnt; j++) {
		assert_true(it->idx[j] < g.npkt);
		assert_ptr_equal(g.pkt[it->idx[j]].p, pkts[sl[j]]);
		assert_int_equal(g.pkt[it->idx[j]].len, plen[sl[j]]);
	}
	assert_int_equal(g.iov_cnt[i], cnt + 1);
	assert_true(start_i + cnt + 1 <= ARRAY_SIZE(g.iov));
	assert_int_equal(iov[0].iov_len, PG_VNET_LEN);
	assert_ptr_equal(iov[1].iov_base, pkts[sl[0]]);
	assert_int_equal(iov[1].iov_len, plen[sl[0]]);
	for (unsigned j = 1; j < cnt; j++) {	/* zero copy: payloads in place */
		assert_ptr_equal(iov[1 + j].iov_base, pkts[sl[j]] + hl[sl[j]]);
		assert_int_equal(iov[1 + j].iov_len, plen[sl[j]] - hl[sl[j]]);
	}
	len = pg_flatten(iov, cnt + 1, flat, sizeof(flat));
	assert_true(len != (size_t)-1);
	if (cnt > 1) {
		check_super(sl, cnt, len);
		return;
	}
	/* Alone: written as received, DATA_VALID only when its checksum was verified. */
	{
		uint8_t vz[PG_VNET_LEN] = { 0 };

		vz[0] = verified ? VF_DATA_VALID : 0;
		assert_int_equal(flat[0], vz[0]);
		assert_memory_equal(flat, vz, PG_VNET_LEN);
		assert_int_equal(len, PG_VNET_LEN + plen[sl[0]]);
		assert_memory_equal(flat + PG_VNET_LEN, orig[sl[0]], plen[sl[0]]);
	}
}

/*
 * Finish the batch of segs[0..n) (slots 0..n) and check every output against the
 * expected items: item numbers must first appear in arrival order.
 */
static void verify(const struct scen *s, const struct sd *segs, unsigned n)
{
	struct sitd_stats want_st;
	unsigned nitem = 0, merged_items = 0, merged_segs = 0;
	bool head_merged[SLOTS] = { false };

	for (unsigned k = 0; k < n; k++) {
		assert_true(segs[k].item <= nitem);	/* the table itself */
		if (segs[k].item == nitem)
			nitem++;
	}
	assert_int_equal(sitd_gro_finish(&g), nitem);
	assert_int_equal(g.nitem, nitem);
	for (unsigned i = 0; i < nitem; i++) {
		unsigned sl[GRO_BATCH], cnt = 0;

		for (unsigned k = 0; k < n; k++)
			if (segs[k].item == i)
				sl[cnt++] = k;
		check_item(i, sl, cnt, !segs[sl[0]].nc);
		if (cnt > 1) {
			merged_items++;
			merged_segs += cnt - 1;
			head_merged[sl[0]] = true;
		}
	}
	/* Only merged heads are rewritten, and only their headers. */
	for (unsigned k = 0; k < n; k++) {
		if (head_merged[k])
			assert_memory_equal(pkts[k] + hl[k], orig[k] + hl[k], plen[k] - hl[k]);
		else
			assert_memory_equal(pkts[k], orig[k], plen[k]);
	}
	memset(&want_st, 0, sizeof(want_st));
	want_st.rx_gro_packets = merged_items;
	want_st.rx_gro_merged = merged_segs;
	want_st.rx_csum_bad = s->csum_bad;
	assert_int_equal(st.rx_gro_packets, want_st.rx_gro_packets);
	assert_int_equal(st.rx_gro_merged, want_st.rx_gro_merged);
	assert_int_equal(st.rx_csum_bad, want_st.rx_csum_bad);
	assert_memory_equal(&st, &want_st, sizeof(st));
}

static void test_row(void **state)
{
	const struct scen *s = *state;

	assert_true(s->n >= 1 && s->n <= MAXSEG);
	prepare(s, s->seg, s->n);
	verify(s, s->seg, s->n);
}

/* ---- Merging ---- */

#define PSHF (PG_ACK | PG_PSH)

static const struct scen merge_cases[] = {
	{
		.name = "merge IPv4: 4 x 1448 + 500, DF, timestamps -> one item of 5 (wireguard-go tcpGRO)",
		.version = 4, .gso = 1448, .id0 = 100, .n = 5,
		.seg = { {0}, {0}, {0}, {0}, { .pay = 500 } },
	},
	{
		.name = "merge IPv6: 3 x 1428 + 1, PSH on the last -> one item, PSH on the head",
		.version = 6, .gso = 1428, .n = 4,
		.seg = { {0}, {0}, {0}, { .pay = 1, .flags = PSHF } },
	},
	{
		.name = "merge IPv4 DF clear: IDs counting up across 0xffff -> 0, seq across 2^32",
		.version = 4, .nodf = true, .id0 = 0xfffe, .seq0 = 0xfffff800u, .n = 4,
		.seg = { {0}, {0}, {0}, { .pay = 300 } },
	},
	{
		.name = "merge IPv4 DF set: IDs not counting up are ignored (RFC 6864, tcp_gro_receive flush_id)",
		.version = 4, .id0 = 7, .n = 3,
		.seg = { { .m = M_ID, .v = 7 }, { .m = M_ID, .v = 7 }, { .m = M_ID, .v = 0x9999 } },
	},
	{
		.name = "merge IPv6 without TCP options: 4 segments all of gso_size",
		.version = 6, .no_ts = true, .gso = 1440, .n = 4,
		.seg = { {0}, {0}, {0}, {0} },
	},
	{
		.name = "merge IPv4 without TCP options, two segments, 1-byte gso_size",
		.version = 4, .no_ts = true, .gso = 1, .n = 2,
		.seg = { {0}, {0} },
	},
	{
		.name = "merge IPv4: PSH in the middle closes the item; the next segment starts a new one",
		.version = 4, .n = 4,
		.seg = { {0}, { .flags = PSHF }, { .item = 1 }, { .item = 1, .pay = 10 } },
	},
	{
		.name = "merge IPv6: a short segment closes the item; the next starts a new one",
		.version = 6, .n = 4,
		.seg = { {0}, { .pay = 999 }, { .item = 1 }, { .item = 1 } },
	},
};

/* ---- Rules that prevent a merge: separate items, in arrival order, as received ---- */

static const struct scen rule_cases[] = {
	{ .name = "no merge: different source port (flow key, tcpGRO)", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_SPORT, .item = 1 } } },
	{ .name = "no merge IPv6: different source port", .version = 6, .n = 2,
	  .seg = { {0}, { .m = M_SPORT, .item = 1 } } },
	{ .name = "no merge: different destination port", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_DPORT, .item = 1 } } },
	{ .name = "no merge: different source address", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_SADDR, .item = 1 } } },
	{ .name = "no merge IPv6: different source address", .version = 6, .n = 2,
	  .seg = { {0}, { .m = M_SADDR, .item = 1 } } },
	{ .name = "no merge: different destination address", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_DADDR, .item = 1 } } },
	{ .name = "no merge IPv6: different destination address", .version = 6, .n = 2,
	  .seg = { {0}, { .m = M_DADDR, .item = 1 } } },
	{ .name = "no merge: different ack number (tcp_gro_receive ack_seq, tcpGRO flow key)",
	  .version = 4, .n = 2, .seg = { {0}, { .m = M_ACK, .v = 1, .item = 1 } } },
	{ .name = "no merge: sequence gap", .version = 4, .n = 2,
	  .seg = { {0}, { .dseq = 1000, .item = 1 } } },
	{ .name = "no merge IPv6: sequence gap of one byte", .version = 6, .n = 2,
	  .seg = { {0}, { .dseq = 1, .item = 1 } } },
	{ .name = "no merge: retransmission (same seq again)", .version = 4, .n = 2,
	  .seg = { {0}, { .dseq = -DEF_GSO, .item = 1 } } },
	{ .name = "no merge: TSval differs (options byte for byte, tcpPacketsCanCoalesce)",
	  .version = 4, .n = 2, .seg = { {0}, { .m = M_TSVAL, .v = 1, .item = 1 } } },
	{ .name = "no merge IPv6: TSecr differs", .version = 6, .n = 2,
	  .seg = { {0}, { .m = M_TSECR, .v = 1, .item = 1 } } },
	{ .name = "no merge: TCP header length differs (32 then 36 bytes)", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_TCPOPT, .v = 16, .item = 1 } } },
	{ .name = "no merge: SYN|ACK (flags exactly ACK or ACK|PSH)", .version = 4, .n = 2,
	  .seg = { {0}, { .flags = PG_SYN | PG_ACK, .item = 1, .nc = true } } },
	{ .name = "no merge: FIN|ACK", .version = 4, .n = 2,
	  .seg = { {0}, { .flags = PG_FIN | PG_ACK, .item = 1, .nc = true } } },
	{ .name = "no merge: RST|ACK", .version = 4, .n = 2,
	  .seg = { {0}, { .flags = PG_RST | PG_ACK, .item = 1, .nc = true } } },
	{ .name = "no merge: URG|ACK", .version = 4, .n = 2,
	  .seg = { {0}, { .flags = PG_URG | PG_ACK, .item = 1, .nc = true } } },
	{ .name = "no merge IPv6: CWR|ACK (tcp_gro_receive flushes on CWR)", .version = 6, .n = 2,
	  .seg = { {0}, { .flags = PG_CWR | PG_ACK, .item = 1, .nc = true } } },
	{ .name = "no merge IPv6: ECE|ACK", .version = 6, .n = 2,
	  .seg = { {0}, { .flags = PG_ECE | PG_ACK, .item = 1, .nc = true } } },
	{ .name = "no merge: no ACK flag at all", .version = 4, .n = 2,
	  .seg = { {0}, { .flags = PG_PSH, .item = 1, .nc = true } } },
	{ .name = "no merge: a head with FIN is not a candidate either", .version = 4, .n = 2,
	  .seg = { { .flags = PG_FIN | PG_ACK, .nc = true }, { .item = 1 } } },
	{ .name = "no merge: a segment after a PSH (PSH closes the item)", .version = 4, .n = 2,
	  .seg = { { .flags = PSHF }, { .item = 1 } } },
	{ .name = "no merge: a segment after a short one (even one as short)", .version = 6, .n = 3,
	  .seg = { {0}, { .pay = 500 }, { .pay = 500, .item = 1 } } },
	{ .name = "no merge: a segment larger than gso_size (tcp_gro_receive len > mss)",
	  .version = 4, .n = 2, .seg = { {0}, { .pay = DEF_GSO + 1, .item = 1 } } },
	{ .name = "no merge IPv4: TOS differs (ECN CE on the second)", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_DS, .v = 0x03, .item = 1 } } },
	{ .name = "no merge IPv4: TTL differs", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_TTL, .v = 63, .item = 1 } } },
	{ .name = "no merge IPv4: DF differs", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_DF, .item = 1 } } },
	{ .name = "no merge IPv4 DF clear: ID not incremented (RFC 6864)", .version = 4, .nodf = true,
	  .id0 = 500, .n = 2, .seg = { {0}, { .m = M_ID, .v = 500, .item = 1 } } },
	{ .name = "no merge IPv4 DF clear: ID incremented by 2", .version = 4, .nodf = true,
	  .id0 = 500, .n = 2, .seg = { {0}, { .m = M_ID, .v = 502, .item = 1 } } },
	{ .name = "no merge IPv4: options (IHL 6) on both (packetIsGROCandidate)", .version = 4, .n = 2,
	  .seg = { { .m = M_IPOPT, .v = 4, .nc = true }, { .m = M_IPOPT, .v = 4, .item = 1, .nc = true } } },
	{ .name = "no merge IPv4: first fragment (MF) of the flow", .version = 4, .nodf = true, .n = 2,
	  .seg = { { .m = M_MF, .nc = true }, { .item = 1 } } },
	{ .name = "no merge IPv4: fragment offset on the second", .version = 4, .nodf = true, .n = 2,
	  .seg = { {0}, { .m = M_FRAGOFF, .v = 125, .item = 1, .nc = true } } },
	{ .name = "no merge IPv6: traffic class differs", .version = 6, .n = 2,
	  .seg = { {0}, { .m = M_DS, .v = 0x02, .item = 1 } } },
	{ .name = "no merge IPv6: flow label differs", .version = 6, .n = 2,
	  .seg = { {0}, { .m = M_FLOWLBL, .item = 1 } } },
	{ .name = "no merge IPv6: hop limit differs", .version = 6, .n = 2,
	  .seg = { {0}, { .m = M_TTL, .v = 65, .item = 1 } } },
	{ .name = "no merge IPv6: destination options header before TCP on both", .version = 6, .n = 2,
	  .seg = { { .m = M_EXT, .v = 8, .nc = true }, { .m = M_EXT, .v = 8, .item = 1, .nc = true } } },
	{ .name = "no merge: empty payload (pure ACK) after a segment", .version = 4, .n = 2,
	  .seg = { {0}, { .m = M_EMPTY, .item = 1, .nc = true } } },
	{ .name = "no merge IPv6: a segment after a pure ACK", .version = 6, .n = 2,
	  .seg = { { .m = M_EMPTY, .nc = true }, { .item = 1 } } },
	{ .name = "no merge: wrong TCP checksum on the second (never merged, rx_csum_bad)",
	  .version = 4, .n = 2, .csum_bad = 1,
	  .seg = { {0}, { .m = M_BADCSUM, .item = 1, .nc = true } } },
	{ .name = "no merge: wrong IPv4 header checksum on the head (inet_gro_receive refuses it too)",
	  .version = 4, .n = 2,
	  .seg = { { .m = M_BADIPCSUM, .nc = true }, { .item = 1 } } },
	{ .name = "no merge IPv6: wrong TCP checksum on the head; the next two merge without it",
	  .version = 6, .n = 3, .csum_bad = 1,
	  .seg = { { .m = M_BADCSUM, .nc = true }, { .item = 1 }, { .item = 1 } } },
};

/* ---- Several flows, and order ---- */

static const struct scen flow_cases[] = {
	{
		.name = "flows: two flows alternating merge into two items, each in order",
		.version = 4, .n = 6,
		.seg = { {0}, { .flow = 1, .item = 1 }, {0}, { .flow = 1, .item = 1 },
			 { .pay = 10 }, { .flow = 1, .item = 1, .pay = 20 } },
	},
	{
		.name = "flows IPv6: two flows alternating merge into two items, each in order",
		.version = 6, .n = 5,
		.seg = { {0}, { .flow = 1, .item = 1 }, {0}, { .flow = 1, .item = 1 }, {0} },
	},
	{
		.name = "flows: A cannot append (gap), starts a new item; A's next joins it, B is unaffected",
		.version = 4, .n = 6,
		.seg = { {0}, { .flow = 1, .item = 1 }, { .dseq = 5000, .item = 2 },
			 { .flow = 1, .item = 1 }, { .item = 2 }, { .flow = 1, .item = 1 } },
	},
	{
		.name = "flows: a late segment that fits A's older item goes to a new one (no reordering)",
		.version = 4, .n = 3,
		.seg = { {0}, { .dseq = DEF_GSO, .item = 1 }, { .dseq = -2 * DEF_GSO, .item = 2 } },
	},
	{
		.name = "flows IPv6: a new ack starts a new item; later segments with that ack join it",
		.version = 6, .n = 4,
		.seg = { {0}, { .m = M_ACK, .v = 1, .item = 1 }, { .m = M_ACK, .v = 1, .item = 1 },
			 { .m = M_ACK, .v = 1, .item = 1 } },
	},
	{
		.name = "flows: a TTL change starts a new item; the old TTL back starts a third",
		.version = 4, .n = 3,
		.seg = { {0}, { .m = M_TTL, .v = 60, .item = 1 }, { .item = 2 } },
	},
	{
		.name = "flows: a UDP datagram between two segments of a TCP flow does not separate them",
		.version = 4, .n = 3,
		.seg = { {0}, { .m = M_UDP, .pay = 100, .item = 1, .nc = true }, {0} },
	},
	{
		.name = "flows IPv6: an ICMPv6 echo between two segments does not separate them",
		.version = 6, .n = 3,
		.seg = { {0}, { .m = M_ICMP6, .pay = 56, .item = 1, .nc = true }, {0} },
	},
	{
		/*
		 * A window update or duplicate ACK of the same flow, between two data
		 * segments: merging the third into the first would put its bytes before
		 * the ACK (gro.h: "Nothing is reordered within a flow"; tcp_gro_receive
		 * flushes the held packet when the pure ACK arrives).
		 */
		.name = "flows: a pure ACK of the same flow between two segments: no merge across it",
		.version = 4, .n = 3,
		.seg = { {0}, { .m = M_EMPTY, .item = 1, .nc = true }, { .item = 2 } },
	},
	{
		.name = "flows IPv6: a pure ACK of the same flow between two segments: no merge across it",
		.version = 6, .n = 3,
		.seg = { {0}, { .m = M_EMPTY, .item = 1, .nc = true }, { .item = 2 } },
	},
};

/* ---- Lone packets, and GRO disabled ---- */

static const struct scen single_cases[] = {
	{ .name = "single: one verified IPv4 TCP segment -> DATA_VALID, gso_type 0", .version = 4,
	  .n = 1, .seg = { {0} } },
	{ .name = "single: one verified IPv6 TCP segment -> DATA_VALID, gso_type 0", .version = 6,
	  .n = 1, .seg = { { .flags = PSHF, .pay = 1 } } },
	{ .name = "single: UDP over IPv4 -> vnet flags 0", .version = 4, .n = 1,
	  .seg = { { .m = M_UDP, .pay = 200, .nc = true } } },
	{ .name = "single: UDP over IPv6 -> vnet flags 0", .version = 6, .n = 1,
	  .seg = { { .m = M_UDP, .pay = 1, .nc = true } } },
	{ .name = "single: ICMPv6 echo request -> vnet flags 0", .version = 6, .n = 1,
	  .seg = { { .m = M_ICMP6, .pay = 56, .nc = true } } },
	{ .name = "single: IPv4 TCP segment with a wrong checksum -> vnet flags 0, rx_csum_bad",
	  .version = 4, .n = 1, .csum_bad = 1, .seg = { { .m = M_BADCSUM, .nc = true } } },
	{ .name = "disabled IPv4: contiguous segments stay apart, none verified", .version = 4,
	  .disabled = true, .n = 3,
	  .seg = { { .nc = true }, { .item = 1, .nc = true }, { .item = 2, .nc = true } } },
	{ .name = "disabled IPv6: contiguous segments stay apart, none verified", .version = 6,
	  .disabled = true, .n = 2, .seg = { { .nc = true }, { .item = 1, .nc = true } } },
	{ .name = "disabled: a wrong checksum is not even looked at", .version = 4,
	  .disabled = true, .n = 2,
	  .seg = { { .nc = true }, { .m = M_BADCSUM, .item = 1, .nc = true } } },
};

/* ---- Caps ---- */

static struct sd gen[GRO_BATCH + 1];

/*
 * The 64-segment cap: 64 one-byte segments fill the batch and make one item of 64
 * (GRO_MAX_SEGS == GRO_BATCH, so an item cannot grow past the cap within a batch); the
 * 65th is refused, and after sitd_gro_reset it goes up alone in the next batch.
 */
static void test_cap_segments(void **state)
{
	static const struct scen s = { .version = 4, .no_ts = true, .gso = 1 };

	(void)state;
	assert_int_equal(GRO_MAX_SEGS, 64);
	memset(gen, 0, sizeof(gen));
	prepare(&s, gen, GRO_MAX_SEGS);
	build_seg(GRO_MAX_SEGS, &gen[GRO_MAX_SEGS]);
	assert_false(sitd_gro_add(&g, pkts[GRO_MAX_SEGS], (uint32_t)plen[GRO_MAX_SEGS]));
	assert_int_equal(g.npkt, GRO_MAX_SEGS);
	verify(&s, gen, GRO_MAX_SEGS);
	assert_int_equal(g.item[0].nseg, GRO_MAX_SEGS);

	sitd_gro_reset(&g);
	assert_true(sitd_gro_add(&g, pkts[GRO_MAX_SEGS], (uint32_t)plen[GRO_MAX_SEGS]));
	assert_int_equal(sitd_gro_finish(&g), 1);
	check_item(0, (const unsigned[]){ GRO_MAX_SEGS }, 1, true);
	assert_int_equal(st.rx_gro_packets, 1);
	assert_int_equal(st.rx_gro_merged, GRO_MAX_SEGS - 1);
}

/* The 65535-byte cap: 45 segments of gso_size and a last one to 65535 bytes, or one past. */
struct bytes_case {
	const char *name;
	unsigned version;
	uint16_t gso;
	uint32_t last;
	bool fits;
};

static const struct bytes_case bytes_cases[] = {
	{ "cap 65535 IPv4: 52 + 45 x 1448 + 323 = 65535 bytes merge into one", 4, 1448, 323, true },
	{ "cap 65535 IPv4: 52 + 45 x 1448 + 324 = 65536: the last goes alone", 4, 1448, 324, false },
	{ "cap 65535 IPv6: 72 + 45 x 1428 + 1203 = 65535 bytes merge into one", 6, 1428, 1203, true },
	{ "cap 65535 IPv6: 72 + 45 x 1428 + 1204 = 65536: the last goes alone", 6, 1428, 1204, false },
};

static void test_cap_bytes(void **state)
{
	const struct bytes_case *c = *state;
	const struct scen s = { .version = c->version, .gso = c->gso };
	const unsigned n = 46;

	memset(gen, 0, sizeof(gen));
	gen[n - 1].pay = c->last;
	gen[n - 1].item = c->fits ? 0 : 1;
	prepare(&s, gen, n);
	assert_int_equal(hl[0] + 45u * c->gso + c->last, c->fits ? 65535 : 65536);
	verify(&s, gen, n);
}

/* ---- The batch ---- */

/* GRO_BATCH packets fill it (each its own item: PSH closes); one more is refused. */
static void test_batch_full(void **state)
{
	static const struct scen s = { .version = 6, .gso = 100 };

	(void)state;
	memset(gen, 0, sizeof(gen));
	for (unsigned k = 0; k <= GRO_BATCH; k++) {
		gen[k].flags = PSHF;
		gen[k].item = (uint8_t)k;
	}
	prepare(&s, gen, GRO_BATCH);
	build_seg(GRO_BATCH, &gen[GRO_BATCH]);
	assert_false(sitd_gro_add(&g, pkts[GRO_BATCH], (uint32_t)plen[GRO_BATCH]));
	assert_false(sitd_gro_add(&g, pkts[GRO_BATCH], (uint32_t)plen[GRO_BATCH]));
	assert_int_equal(g.npkt, GRO_BATCH);
	verify(&s, gen, GRO_BATCH);
	assert_memory_equal(pkts[GRO_BATCH], orig[GRO_BATCH], plen[GRO_BATCH]);
}

/* A batch of GRO_BATCH segments of one flow, where gso_size leaves room for them all. */
static void test_batch_full_one_item(void **state)
{
	static const struct scen s = { .version = 6, .gso = 900 };

	(void)state;
	memset(gen, 0, sizeof(gen));
	prepare(&s, gen, GRO_BATCH);
	build_seg(GRO_BATCH, &gen[GRO_BATCH]);
	assert_false(sitd_gro_add(&g, pkts[GRO_BATCH], (uint32_t)plen[GRO_BATCH]));
	verify(&s, gen, GRO_BATCH);
}

/* ---- sitd_gro_unmerge ---- */

struct unmerge_case {
	const char *name;
	struct scen s;
};

static const struct unmerge_case unmerge_cases[] = {
	{ "unmerge IPv4 DF clear, PSH on the last: head restored byte for byte",
	  { .version = 4, .nodf = true, .id0 = 0x4000, .n = 4,
	    .seg = { {0}, {0}, { .pay = 10, .flags = PSHF }, { .m = M_SPORT, .item = 1 } } } },
	{ "unmerge IPv6, PSH on the last: head restored byte for byte",
	  { .version = 6, .n = 4,
	    .seg = { {0}, {0}, { .flags = PSHF }, { .m = M_SPORT, .item = 1 } } } },
	{ "unmerge IPv4 without TCP options, no PSH: head restored byte for byte",
	  { .version = 4, .no_ts = true, .n = 4,
	    .seg = { {0}, {0}, {0}, { .m = M_SPORT, .item = 1 } } } },
};

static void test_unmerge(void **state)
{
	const struct unmerge_case *c = *state;
	const struct scen *s = &c->s;
	static uint8_t copy[SLOTS][PKT_MAX];

	prepare(s, s->seg, s->n);
	for (unsigned k = 0; k < s->n; k++)
		memcpy(copy[k], pkts[k], plen[k]);
	verify(s, s->seg, s->n);
	/* The merged head was rewritten (lengths, checksums): the test means something. */
	assert_true(memcmp(pkts[0], copy[0], hl[0]) != 0);

	sitd_gro_unmerge(&g, 0);
	sitd_gro_unmerge(&g, 1);	/* a lone item: nothing to restore */
	for (unsigned k = 0; k < s->n; k++)
		assert_memory_equal(pkts[k], copy[k], plen[k]);
	/* Each segment of item 0 can now go up alone, as received. */
	for (unsigned j = 0; j < g.item[0].nseg; j++) {
		unsigned b = g.item[0].idx[j];

		assert_ptr_equal(g.pkt[b].p, pkts[b]);
		assert_int_equal(g.pkt[b].len, plen[b]);
		assert_memory_equal(g.pkt[b].p, orig[b], plen[b]);
		assert_true(pg_l4_csum_ok(g.pkt[b].p, l3[b], PG_PROTO_TCP));
	}
}

/* ---- sitd_gro_reset ---- */

/* After a merged batch, reset; the flow's next segments form a fresh item of the new batch. */
static void test_reset(void **state)
{
	static const struct scen s = { .version = 6, .n = 3, .seg = { {0}, {0}, {0} } };
	static const struct sd next[2] = { {0}, {0} };

	(void)state;
	prepare(&s, s.seg, s.n);
	verify(&s, s.seg, s.n);
	sitd_gro_reset(&g);
	assert_int_equal(g.npkt, 0);
	assert_int_equal(g.nitem, 0);
	assert_int_equal(sitd_gro_finish(&g), 0);	/* an empty batch writes nothing */

	build_seg(3, &next[0]);
	build_seg(4, &next[1]);
	assert_true(sitd_gro_add(&g, pkts[3], (uint32_t)plen[3]));
	assert_true(sitd_gro_add(&g, pkts[4], (uint32_t)plen[4]));
	assert_int_equal(g.npkt, 2);
	assert_int_equal(sitd_gro_finish(&g), 1);
	assert_int_equal(g.item[0].idx[0], 0);
	assert_int_equal(g.item[0].idx[1], 1);
	check_item(0, (const unsigned[]){ 3, 4 }, 2, true);
	assert_int_equal(st.rx_gro_packets, 2);
	assert_int_equal(st.rx_gro_merged, 2 + 1);
	/* The first batch's packets were not touched again. */
	assert_memory_equal(pkts[1], orig[1], plen[1]);
	assert_memory_equal(pkts[2], orig[2], plen[2]);
}

/* After reset, a batch whose first packet is not a candidate: nothing left over. */
static void test_reset_then_lone(void **state)
{
	static const struct scen s = { .version = 4, .n = 2, .seg = { {0}, {0} } };
	static const struct sd udp = { .m = M_UDP, .pay = 30, .nc = true };

	(void)state;
	prepare(&s, s.seg, s.n);
	verify(&s, s.seg, s.n);
	sitd_gro_reset(&g);
	build_seg(2, &udp);
	assert_true(sitd_gro_add(&g, pkts[2], (uint32_t)plen[2]));
	assert_int_equal(sitd_gro_finish(&g), 1);
	check_item(0, (const unsigned[]){ 2 }, 1, false);
	assert_int_equal(st.rx_gro_packets, 1);
	assert_int_equal(st.rx_gro_merged, 1);
}

/* ---- A packet the receiving kernel's GRO merged ---- */

struct kmerge_case {
	const char *name;
	unsigned version;
	uint32_t payload;
	uint8_t flags;		/* 0: ACK */
	bool corrupt;		/* the checksum field neither partial nor complete */
	bool whole;		/* a complete packet whose field holds the partial value by chance */
	bool disabled;		/* sitd's own GRO off (nogro) */
	uint16_t mtu;		/* the tunnel's; 0: not known */
	/* Expected vnet header: */
	uint8_t vflags, gso_type;
	uint16_t gso_size;
};

/* 12 bytes of timestamps: IPv6 + TCP headers are 72 bytes, IPv4 + TCP 52. */
static const struct kmerge_case kmerge_cases[] = {
	{ "kernel merge, IPv6: GSO at the tunnel MTU's segment size", 6, 20000, 0, false, false, false, 1480,
	  PG_VNET_F_NEEDS_CSUM, 4, 1480 - 72 },
	{ "kernel merge, IPv4 with CWR: GSO TCPV4 | ECN", 4, 30000, PG_ACK | 0x80, false, false, false, 1480,
	  PG_VNET_F_NEEDS_CSUM, 1 | 0x80, 1480 - 52 },
	{ "partial checksum within one segment: NEEDS_CSUM, no GSO, not read", 6, 1408, 0, false, false,
	  false, 1480, PG_VNET_F_NEEDS_CSUM, 0, 0 },
	{ "partial checksum within one segment, sitd's GRO off: NEEDS_CSUM", 4, 1000, 0, false, false,
	  true, 1480, PG_VNET_F_NEEDS_CSUM, 0, 0 },
	{ "partial checksum on a SYN: alone, NEEDS_CSUM", 6, 0, 0x02, false, false, false, 1480,
	  PG_VNET_F_NEEDS_CSUM, 0, 0 },
	{ "kernel merge, sitd's GRO off: still NEEDS_CSUM and GSO", 6, 9000, 0, false, false, true, 1400,
	  PG_VNET_F_NEEDS_CSUM, 4, 1400 - 72 },
	{ "kernel merge, MTU not known: IPv6's minimum", 6, 9000, 0, false, false, false, 0,
	  PG_VNET_F_NEEDS_CSUM, 4, 1280 - 72 },
	{ "a wrong checksum is not a kernel merge", 6, 9000, 0, true, false, 0, 1480, 0, 0, 0 },
	{ "a whole segment with the partial value by chance: NEEDS_CSUM finishes it unchanged", 6, 1000, 0,
	  false, true, false, 1480, PG_VNET_F_NEEDS_CSUM, 0, 0 },
};

/*
 * The kernel's merge (tcp_gro_complete) leaves the TCP checksum field holding the
 * pseudo-header sum; it goes up alone, as received, with the vnet header above.
 */
static void test_kernel_merged(void **state)
{
	const struct kmerge_case *c = *state;
	static uint8_t big[65536], copy[65536];
	struct pg_tcp_pkt p = {
		.version = c->version, .ttl = 64, .df = true, .seq = SEQ0, .ack = ACK0,
		.flags = c->flags ? c->flags : PG_ACK, .tcp_optlen = 12, .payload = c->payload,
		.seed = 7, .partial = true,
	};
	unsigned l4;
	size_t len = pg_tcp_packet(big, &p, &l4), flen;
	uint8_t vh[PG_VNET_LEN];

	if (c->corrupt)
		big[l4 + 17] ^= 0x40;
	if (c->whole) {
		/* Make the full sum come out right by the last payload word, field unchanged. */
		uint16_t fix = (uint16_t)~pg_fold(pg_sum(big + l4, len - l4,
			pg_pseudo6(big + 8, big + 24, PG_PROTO_TCP, (uint32_t)(len - l4))));
		uint32_t w = (uint32_t)pg_get16(big + len - 2) + fix;

		pg_put16(big + len - 2, (uint16_t)((w & 0xffff) + (w >> 16)));
		assert_true(pg_l4_csum_ok(big, l4, PG_PROTO_TCP));
	}
	memcpy(copy, big, len);
	memset(&st, 0, sizeof(st));
	sitd_gro_init(&g, !c->disabled, &st);
	g.mtu = c->mtu;
	assert_true(sitd_gro_add(&g, big, (uint32_t)len));
	assert_int_equal(sitd_gro_finish(&g), 1);
	assert_int_equal(g.iov_cnt[0], 2);
	flen = pg_flatten(&g.iov[g.iov_start[0]], 2, flat, sizeof(flat));
	assert_int_equal(flen, PG_VNET_LEN + len);
	assert_memory_equal(flat + PG_VNET_LEN, copy, len);	/* the packet untouched */
	if (c->vflags == VF_DATA_VALID)
		pg_vnet(vh, VF_DATA_VALID, 0, 0, 0, 0, 0);
	else if (c->vflags)
		pg_vnet(vh, c->vflags, c->gso_type, c->gso_type ? (uint16_t)(l4 + 32) : 0, c->gso_size,
			(uint16_t)l4, 16);
	else
		memset(vh, 0, sizeof(vh));
	assert_memory_equal(flat, vh, PG_VNET_LEN);
	assert_int_equal(st.rx_gro_kernel, c->vflags == PG_VNET_F_NEEDS_CSUM && c->gso_type ? 1 : 0);
	assert_int_equal(st.rx_csum_partial, c->vflags == PG_VNET_F_NEEDS_CSUM && !c->gso_type ? 1 : 0);
	assert_int_equal(st.rx_csum_bad, c->corrupt && !c->disabled ? 1 : 0);
	if (c->whole)	/* what the kernel finishes over the bytes is the checksum they have */
		assert_int_equal((uint16_t)~pg_fold(pg_sum(big + l4, len - l4, 0)), pg_get16(big + l4 + 16));
	assert_int_equal(st.rx_gro_packets, 0);

	/* Written again without GSO when the device refuses it; NEEDS_CSUM stays. */
	assert_int_equal(sitd_gro_kernel_nogso(&g, 0), c->gso_type != 0);
	if (c->vflags == PG_VNET_F_NEEDS_CSUM)
		pg_vnet(vh, c->vflags, 0, 0, 0, (uint16_t)l4, 16);
	assert_memory_equal(g.item[0].vnet, vh, PG_VNET_LEN);
	assert_false(sitd_gro_kernel_nogso(&g, 0));
}

/*
 * Segments whose sender left the checksum to the device (sitd -T packet, or a kernel,
 * behind veth) merge without their bytes being summed: one verified segment, then
 * three partial ones, become one super-packet: the payloads in order behind the first
 * segment's headers, the pseudo-header sum over the whole in its field, which the kernel
 * finishes into the right checksum.
 */
static void test_partial_merge(void **state)
{
	static const uint32_t pay[4] = { 1408, 1408, 1408, 500 };
	unsigned l4 = 0;
	uint32_t seq = SEQ0, total = 0, off;
	size_t flen;
	uint8_t vh[PG_VNET_LEN];

	(void)state;
	memset(&st, 0, sizeof(st));
	sitd_gro_init(&g, true, &st);
	g.mtu = 1480;
	for (unsigned k = 0; k < 4; k++) {
		struct pg_tcp_pkt p = { .version = 6, .ttl = 64, .seq = seq, .ack = ACK0,
					.flags = k == 3 ? PG_ACK | PG_PSH : PG_ACK, .tcp_optlen = 12,
					.payload = pay[k], .seed = (uint8_t)(k + 3), .partial = k > 0 };

		plen[k] = pg_tcp_packet(pkts[k], &p, &l4);
		memcpy(orig[k], pkts[k], plen[k]);
		assert_true(sitd_gro_add(&g, pkts[k], (uint32_t)plen[k]));
		seq += pay[k];
	}
	assert_int_equal(st.rx_csum_partial, 3);
	assert_int_equal(st.rx_gro_merged, 3);
	assert_int_equal(st.rx_csum_bad, 0);
	assert_int_equal(st.rx_gro_kernel, 0);
	assert_int_equal(sitd_gro_finish(&g), 1);
	flen = pg_flatten(&g.iov[g.iov_start[0]], g.iov_cnt[0], flat, sizeof(flat));
	pg_vnet(vh, PG_VNET_F_NEEDS_CSUM, PG_GSO_TCPV6, (uint16_t)(l4 + 32), 1408, (uint16_t)l4, 16);
	assert_memory_equal(flat, vh, PG_VNET_LEN);
	/* The payloads in order, behind the first segment's headers. */
	memcpy(want, orig[0], plen[0]);
	total = (uint32_t)plen[0];
	for (unsigned k = 1; k < 4; k++) {
		memcpy(want + total, orig[k] + l4 + 32, plen[k] - l4 - 32);
		total += (uint32_t)(plen[k] - l4 - 32);
	}
	assert_int_equal(flen, PG_VNET_LEN + total);
	off = l4 + 32;
	assert_memory_equal(flat + PG_VNET_LEN + off, want + off, total - off);
	/* Finished as the kernel will (skb_checksum_help), the checksum is right. */
	{
		uint8_t *t = flat + PG_VNET_LEN + l4;
		uint32_t l4len = total - l4;

		assert_int_equal(pg_get16(t + 16), pg_fold(pg_pseudo6(flat + PG_VNET_LEN + 8,
				 flat + PG_VNET_LEN + 24, PG_PROTO_TCP, l4len)));
		pg_put16(t + 16, (uint16_t)~pg_fold(pg_sum(t, l4len, 0)));
		assert_true(pg_l4_csum_ok(flat + PG_VNET_LEN, l4, PG_PROTO_TCP));
	}
	/* Unmerged (a kernel that refuses the write), each goes with its own header. */
	sitd_gro_unmerge(&g, 0);
	for (unsigned k = 0; k < 4; k++) {
		uint8_t got[PG_VNET_LEN];

		assert_memory_equal(pkts[k], orig[k], plen[k]);
		sitd_gro_seg_vnet(&g, k, got);
		if (k == 0)
			memset(vh, 0, sizeof(vh));
		else
			pg_vnet(vh, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 0, 0, (uint16_t)l4, 16);
		assert_memory_equal(got, vh, PG_VNET_LEN);
	}
}

/*
 * A segment of the same flow after a kernel merge starts an item of its own behind it
 * (never merged into an older one), and segments after it merge as usual.
 */
static void test_kernel_merged_order(void **state)
{
	static const struct scen s = { .version = 6, .n = 3, .seg = { {0}, {0}, {0} } };
	static uint8_t big[16384];
	struct pg_tcp_pkt p = {
		.version = 6, .ttl = 64, .seq = SEQ0 - 8000, .ack = ACK0, .flags = PG_ACK,
		.tcp_optlen = 12, .payload = 8000, .seed = 9, .partial = true,
	};
	unsigned l4;
	size_t len = pg_tcp_packet(big, &p, &l4);

	(void)state;
	start(&s);
	g.mtu = 1480;
	assert_true(sitd_gro_add(&g, big, (uint32_t)len));
	for (unsigned k = 0; k < 3; k++) {
		build_seg(k, &s.seg[k]);
		assert_true(sitd_gro_add(&g, pkts[k], (uint32_t)plen[k]));
	}
	assert_int_equal(sitd_gro_finish(&g), 2);
	assert_true(g.item[0].kernel);
	assert_int_equal(g.item[0].nseg, 1);
	assert_false(g.item[1].kernel);
	assert_int_equal(g.item[1].nseg, 3);
	assert_int_equal(st.rx_gro_kernel, 1);
	assert_int_equal(st.rx_gro_packets, 1);
}

/* ---- A kernel merge with its vnet header's type and size (-R ring) ---- */

static void test_add_merged(void **state)
{
	static uint8_t big[65536], copy[65536];
	struct pg_tcp_pkt tp = { .version = 6, .ttl = 64, .seq = SEQ0, .ack = ACK0, .flags = PG_ACK,
				 .tcp_optlen = 12, .payload = 20000, .seed = 3, .partial = true };
	uint8_t vh[PG_VNET_LEN];
	unsigned l4;
	size_t len;

	(void)state;
	/* TCP over IPv6: the kernel's size, not the MTU's. */
	len = pg_tcp_packet(big, &tp, &l4);
	memcpy(copy, big, len);
	memset(&st, 0, sizeof(st));
	sitd_gro_init(&g, true, &st);
	g.mtu = 1480;
	assert_true(sitd_gro_add_merged(&g, big, (uint32_t)len, 4, 1000));
	assert_int_equal(sitd_gro_finish(&g), 1);
	pg_vnet(vh, PG_VNET_F_NEEDS_CSUM, 4, 72, 1000, 40, 16);
	assert_memory_equal(g.item[0].vnet, vh, PG_VNET_LEN);
	assert_memory_equal(big, copy, len);
	assert_int_equal(st.rx_gro_kernel, 1);

	/* UDP over IPv6 (partial checksum): UDP_L4, the checksum at 6. */
	len = pg_udp_packet(big, 6, 5000, 9, true);
	memcpy(copy, big, len);
	sitd_gro_reset(&g);
	assert_true(sitd_gro_add_merged(&g, big, (uint32_t)len, 5, 1000));
	assert_int_equal(sitd_gro_finish(&g), 1);
	pg_vnet(vh, PG_VNET_F_NEEDS_CSUM, 5, 48, 1000, 40, 6);
	assert_memory_equal(g.item[0].vnet, vh, PG_VNET_LEN);
	assert_memory_equal(big, copy, len);
	/* Without GSO when the device refuses it: the checksum offset stays UDP's. */
	assert_true(sitd_gro_kernel_nogso(&g, 0));
	pg_vnet(vh, PG_VNET_F_NEEDS_CSUM, 0, 0, 0, 40, 6);
	assert_memory_equal(g.item[0].vnet, vh, PG_VNET_LEN);

	/* UDP over IPv4 without a checksum: the field gets the pseudo-header sum. */
	len = pg_udp_packet(big, 4, 3000, 9, false);
	pg_put16(big + 26, 0);
	sitd_gro_reset(&g);
	assert_true(sitd_gro_add_merged(&g, big, (uint32_t)len, 5, 1000));
	assert_int_equal(sitd_gro_finish(&g), 1);
	assert_int_equal(pg_get16(big + 26), pg_fold(pg_pseudo4(PG_IN4_SRC, PG_IN4_DST, PG_PROTO_UDP,
								 (uint16_t)(len - 20))));
	pg_vnet(vh, PG_VNET_F_NEEDS_CSUM, 5, 28, 1000, 20, 6);
	assert_memory_equal(g.item[0].vnet, vh, PG_VNET_LEN);

	/* A TCP header shorter than 20 bytes (data offset 4): not taken as a merge. */
	len = pg_tcp_packet(big, &tp, &l4);
	big[l4 + 12] = 0x40;
	sitd_gro_reset(&g);
	assert_true(sitd_gro_add_merged(&g, big, (uint32_t)len, 4, 1000));
	assert_int_equal(sitd_gro_finish(&g), 1);
	assert_false(g.item[0].kernel);

	/* A type that does not match the packet (UDP_L4 on TCP): the usual way, not a merge. */
	tp.partial = false;
	tp.payload = 1000;
	len = pg_tcp_packet(big, &tp, &l4);
	memset(&st, 0, sizeof(st));
	sitd_gro_reset(&g);
	assert_true(sitd_gro_add_merged(&g, big, (uint32_t)len, 5, 1000));
	assert_int_equal(sitd_gro_finish(&g), 1);
	assert_false(g.item[0].kernel);
	assert_int_equal(g.item[0].vnet[0], VF_DATA_VALID);
	assert_int_equal(st.rx_gro_kernel, 0);
}

/*
 * UDP with a partial checksum (CHECKSUM_PARTIAL: a kernel sender behind veth, or a merge
 * by the receiving GRO): within the MTU, up alone with NEEDS_CSUM at the UDP checksum;
 * longer, a merge whose sizes are lost: dropped as rx_gro_udp.  A datagram whose field
 * holds that value by chance, its checksum right, goes up as usual.
 */
static void test_udp_partial(void **state)
{
	static uint8_t b[4096], copy[4096];
	uint8_t vh[PG_VNET_LEN];
	size_t len;

	(void)state;
	for (unsigned v = 4; v <= 6; v += 2) {
		unsigned l3len = v == 4 ? 20 : 40;

		len = pg_udp_packet(b, v, 500, 5, true);
		memcpy(copy, b, len);
		memset(&st, 0, sizeof(st));
		sitd_gro_init(&g, true, &st);
		g.mtu = 1480;
		assert_true(sitd_gro_add(&g, b, (uint32_t)len));
		assert_int_equal(sitd_gro_finish(&g), 1);
		pg_vnet(vh, PG_VNET_F_NEEDS_CSUM, 0, 0, 0, (uint16_t)l3len, 6);
		assert_memory_equal(g.item[0].vnet, vh, PG_VNET_LEN);
		assert_memory_equal(b, copy, len);
		assert_int_equal(st.drop[SITD_DROP_rx_gro_udp], 0);

		/* 2000 bytes over a 1480-byte tunnel: merged, and its datagrams' sizes lost. */
		len = pg_udp_packet(b, v, 2000 - 8 - l3len, 5, true);
		sitd_gro_reset(&g);
		assert_true(sitd_gro_add(&g, b, (uint32_t)len));
		assert_int_equal(g.npkt, 1);
		assert_int_equal(sitd_gro_finish(&g), 0);
		assert_int_equal(st.drop[SITD_DROP_rx_gro_udp], 1);
	}
	/* The partial value by chance, the checksum right: as usual (vnet header zero). */
	len = pg_udp_packet(b, 6, 500, 5, true);
	{
		uint16_t field = pg_get16(b + 46);
		uint32_t w;
		uint16_t fix = (uint16_t)~pg_fold(pg_sum(b + 40, len - 40, pg_pseudo6(b + 8, b + 24, PG_PROTO_UDP,
										       (uint32_t)(len - 40))));

		w = (uint32_t)pg_get16(b + len - 2) + fix;
		pg_put16(b + len - 2, (uint16_t)((w & 0xffff) + (w >> 16)));
		assert_int_equal(pg_get16(b + 46), field);
		assert_true(pg_l4_csum_ok(b, 40, PG_PROTO_UDP));
	}
	memset(&st, 0, sizeof(st));
	sitd_gro_init(&g, true, &st);
	assert_true(sitd_gro_add(&g, b, (uint32_t)len));
	assert_int_equal(sitd_gro_finish(&g), 1);
	memset(vh, 0, sizeof(vh));
	assert_memory_equal(g.item[0].vnet, vh, PG_VNET_LEN);
	assert_false(g.item[0].kernel);
}

#define ROWS(tab)                                                                          \
	for (size_t i = 0; i < ARRAY_SIZE(tab); i++)                                       \
		tests[n++] = (struct CMUnitTest){ .name = tab[i].name, .test_func = test_row,    \
						  .initial_state = (void *)(uintptr_t)&tab[i] }

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(merge_cases) + ARRAY_SIZE(rule_cases) +
				ARRAY_SIZE(flow_cases) + ARRAY_SIZE(single_cases) +
				ARRAY_SIZE(bytes_cases) + ARRAY_SIZE(unmerge_cases) +
				ARRAY_SIZE(kmerge_cases) + 9];
	size_t n = 0;

	ROWS(merge_cases);
	ROWS(rule_cases);
	ROWS(flow_cases);
	ROWS(single_cases);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cap_segments);
	for (size_t i = 0; i < ARRAY_SIZE(bytes_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = bytes_cases[i].name, .test_func = test_cap_bytes,
						  .initial_state = (void *)(uintptr_t)&bytes_cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_batch_full);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_batch_full_one_item);
	for (size_t i = 0; i < ARRAY_SIZE(unmerge_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = unmerge_cases[i].name, .test_func = test_unmerge,
						  .initial_state = (void *)(uintptr_t)&unmerge_cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_reset);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_reset_then_lone);
	for (size_t i = 0; i < ARRAY_SIZE(kmerge_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = kmerge_cases[i].name, .test_func = test_kernel_merged,
						  .initial_state = (void *)(uintptr_t)&kmerge_cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_kernel_merged_order);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_partial_merge);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_add_merged);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_udp_partial);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
