/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the transmit path, one TUN frame at a time.
 *
 * Input:
 *	[0]	bits 0-1 mode (0 any, 1 ipip, 2 sit, 3 any); bit 2 nopmtudisc;
 *		bit 3 feed the frame twice without sending in between (outputs of two
 *		frames accumulate, as sitd_tx allows); bit 4 grow the frame (below);
 *		bit 5 feed it 64 times at the same instant (past the ICMP burst of 50);
 *		bits 6-7 encapsulation (0 none, 1 fou, 2 gue, 3 none with an IPv6 outer
 *		header: ip6tnl, below)
 *	[1]	ttl (0 = inherit)
 *	[2]	tos (bit 0 = inherit)
 *	[3..4]	path MTU, big-endian, 0..65535
 *	[5..6]	first outer IPv4 ID; for fou and gue also the encap-dport (0: 5555)
 *	[7]	time in ms, for the ICMP rate limit
 *	[8..9]	grow: bytes of payload appended to the frame, whose IPv4 total length or
 *		IPv6 payload length is raised to match, so that small inputs reach 64 KB
 *		super-packets and the out[] limit of 256 slots
 *	[10]	damper count: errors the receive side could not relay, each of which makes
 *		a transmit also report a link failure (0 = no damper)
 *	[11..]	the frame: [virtio_net_hdr][IP packet]
 *
 * With an IPv6 outer header [5] is the encapsulation limit and [6] bit 0 encaplimit
 * none, bit 1 flowlabel inherit, bit 2 local any, bits 3-4 FOU/GUE over IPv6 (0 none,
 * 1 fou, 2 gue, 3 fou with noencap-udp6-csum; dport 5555), bits 5-7 a fixed flow label
 * (times 0x8421); bit 2 of [0] (nopmtudisc) means nothing.  fou6 outputs carry
 * [UDP][GUE] after the option: ports, length, the checksum over the IPv6 pseudo-header
 * (or 0), GUE's version 0 header naming the inner protocol.  Checked on every output: it parses
 * as IPv6 from remote to local (or ::) with the payload length it has, a next header
 * chain [Fragment]?[Destination Options]?[41 or 4] whose option is init_tel_txopt's
 * byte for byte, with the limit the model expects (the configured one, or the inner
 * packet's own less one), traffic class and hop limit as over UDP, one flow label per
 * frame (the fixed or inherited one when not 0); fragment trains contiguous with one
 * Identification, reassembling to [option][inner]; at most max(path MTU, 1280) bytes.
 * A Parameter Problem points at an inner limit of 0; PTB / Fragmentation Needed say the
 * path MTU less 40 and the option(s), floored at 1280 for IPv6 and 68 for IPv4.  On
 * every output of either family, iovecs into the header area stay inside one slot.
 *
 * Frames that would split into more than MAX_SEGS segments are skipped, for speed.
 *
 * Checked on every output: iovec lengths add up to out[].len, which is at most 65535 and
 * at most the path MTU; the outer header is a valid IPv4 header with this tunnel's
 * addresses and protocol; fragments are a contiguous train; each inner packet
 * (reassembled) parses, and for GSO is exactly segment i of the super-packet as the
 * kernel's TCP segmentation would make it, with a TCP checksum that verifies.  An ICMP
 * reply (Packet Too Big / Fragmentation Needed instead of sending, or a link failure
 * report with it) fits its buffer, parses, quotes the packet, and its checksum verifies;
 * no more than the rate limit's burst are written.  Drop counters move only on drops,
 * one per drop.
 *
 * With fou or gue the kernel writes the outer IPv4 and UDP headers, so an output is the
 * inner packet alone (fou) or behind a 4-byte GUE header 0, Proto (41 or 4, as the inner
 * version), 0, 0 (gue): no outer IPv4 header, len = that header + the inner packet, which
 * is checked as above; exactly one output per inner packet or segment (sitd never
 * fragments over UDP, so never drops for too many fragments); its IPv4 + UDP datagram
 * fits 65535 bytes and, with DF, the path MTU; all outputs of one frame carry the same
 * frame number, flow hash, TOS, TTL and DF, the next frame another number, and a frame
 * fed twice gets the same hash; TOS is RFC 6040 4.1's (the configured or inherited DSCP,
 * the inner ECN with CE sent as ECT(0)), TTL the configured one or the inner one; no DF
 * without pmtudisc unless inner IPv4 DF asks for it; no outer IPv4 ID is used up.  An
 * ICMP error says the MTU less 28 or 32 bytes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/conf.h"
#include "core/csum.h"
#include "core/inet.h"
#include "core/stats.h"
#include "core/tx.h"
#include "core/wire.h"
#include "fuzz.h"

enum {
	CFG_LEN = 11, MAX_FRAMES = 64, MAX_SEGS = 4096,
	ICMP_BURST = 50,		/* tx.c's model of the kernel's ICMP budget */
	LOCAL = 0xc0000201u,		/* 192.0.2.1 */
	REMOTE = 0xc6336402u,		/* 198.51.100.2 */
};

static struct sitd_tx tx;
static struct sitd_stats stats;

/* What the checks need to know about the frame, taken from an untouched copy. */
static struct {
	const uint8_t *pkt;		/* pristine inner packet (after the vnet header) */
	uint32_t path_mtu;
	enum sitd_mode mode;
	bool csum_partial;		/* non-GSO NEEDS_CSUM: the field at csum_field changes */
	uint32_t csum_field;
	uint32_t hdrlen, l3len, len, nseg;	/* the split, as sitd_tx_begin set it up */
	uint16_t gso_size;
	uint32_t seg_seen;		/* inner packets verified so far */
	uint32_t frames_sent;		/* frames whose verdict was SEND */
	uint64_t touched;		/* sum of every output byte */
	enum sitd_encap encap;
	bool pmtudisc;
	uint32_t encap_len;		/* outer bytes on the path: 20, or 28 / 32 over UDP */
	uint8_t want_tos, want_ttl;	/* over UDP: what the kernel is asked to write */
	bool outer6;
	int want_tel;			/* IPv6 outer: the option's limit, -1 none */
	bool csum6;			/* fou6: the UDP checksum is set */
	uint32_t elen;			/* IPv6 outer: bytes the MTU is judged less */
	uint32_t pp_sent;		/* Parameter Problems written */
	uint32_t len6;			/* an inner IPv6 packet's declared length, within the frame */
	bool fl_set;
	uint32_t fl;			/* IPv6 outer: the frame's flow label */
} g;

/* Over UDP: the frame whose outputs are being seen. */
static struct {
	bool set;
	uint32_t frame, hash, nout;
	uint8_t tos, ttl;
	bool df;
} fr;
static volatile uint64_t sink;

/* Reassembly of one inner packet from the outputs. */
static uint8_t flat[IP_MAX_LEN + 1];
static uint8_t inner[IP_MAX_LEN + 1];
static struct {
	bool active;
	uint32_t len;
	uint32_t id;
	uint8_t proto;
} train;

static const uint8_t LOCAL6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 1 };
static const uint8_t REMOTE6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 2 };

static bool hdr_csum_ok(const uint8_t *p, unsigned hlen)
{
	return csum_fold(csum_partial(p, hlen, 0)) == 0xffff;
}

/* Is byte i of the inner headers one that segmentation rewrites? */
static bool seg_field(unsigned version, uint32_t l3len, uint32_t i)
{
	if (version == 4 && (i == 2 || i == 3 || i == 4 || i == 5 || i == 10 || i == 11))
		return true;	/* total length, ID, header checksum */
	if (version == 6 && (i == 4 || i == 5))
		return true;	/* payload length */
	if (i < l3len)
		return false;
	i -= l3len;
	return (i >= TCP_SEQ && i < TCP_SEQ + 4) || i == TCP_FLAGS || i == TCP_CSUM ||
	       i == TCP_CSUM + 1;
}

static void verify_gso_segment(const uint8_t *p, uint32_t n, const struct sitd_ipinfo *ii)
{
	uint32_t i = g.seg_seen % g.nseg, hdrlen = g.hdrlen, l3len = g.l3len;
	uint32_t payload = g.len - hdrlen, off = i * g.gso_size;
	uint32_t plen = payload - off < g.gso_size ? payload - off : g.gso_size;
	const uint8_t *th = p + l3len, *oth = g.pkt + l3len;
	uint8_t flags = oth[TCP_FLAGS];
	uint32_t sum;

	CHECK(ii->l4proto == IPPROTO_TCP && ii->l3len == l3len);
	CHECK(off <= payload && n == hdrlen + plen);
	if (payload)
		CHECK(plen > 0);
	for (uint32_t k = 0; k < hdrlen; k++)
		CHECK(seg_field(ii->version, l3len, k) || p[k] == g.pkt[k]);
	CHECK(memcmp(p + hdrlen, g.pkt + hdrlen + off, plen) == 0);

	/* net/ipv4/tcp_offload.c: seq advances, FIN/PSH on the last, CWR on the first. */
	CHECK(rd32(th + TCP_SEQ) == (uint32_t)(rd32(oth + TCP_SEQ) + i * g.gso_size));
	if (i + 1 < g.nseg)
		flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
	if (i > 0)
		flags &= (uint8_t)~TCP_CWR;
	CHECK(th[TCP_FLAGS] == flags);
	if (ii->version == 4) {
		CHECK(hdr_csum_ok(p, l3len));
		CHECK(rd16(p + IP4_ID) == (uint16_t)(rd16(g.pkt + IP4_ID) + i));
		sum = csum_pseudo4(p + IP4_SRC, p + IP4_DST, IPPROTO_TCP, n - l3len);
	} else {
		sum = csum_pseudo6(p + IP6_SRC, p + IP6_DST, IPPROTO_TCP, n - l3len);
	}
	CHECK(csum_fold(csum_partial(th, n - l3len, sum)) == 0xffff);
}

/* One whole inner packet came out of the tunnel. */
static void verify_inner(const uint8_t *p, uint32_t n, uint8_t outer_proto)
{
	struct sitd_ipinfo ii;

	CHECK(g.nseg > 0);
	CHECK(sitd_ip_parse(p, n, &ii) == 0);
	CHECK(ii.len == n);
	CHECK(outer_proto == (ii.version == 6 ? IPPROTO_IPV6 : IPPROTO_IPIP));
	CHECK(sitd_mode_carries(g.mode, ii.version));
	CHECK(ip_version(g.pkt) == ii.version);
	if (g.hdrlen) {
		verify_gso_segment(p, n, &ii);
	} else {
		CHECK(n == g.len);
		for (uint32_t k = 0; k < n; k++)
			CHECK(p[k] == g.pkt[k] ||
			      (g.csum_partial && (k == g.csum_field || k == g.csum_field + 1)));
	}
	g.seg_seen++;
}

/* One FOU or GUE output: the UDP payload, [GUE header][inner packet]. */
static void verify_out_udp(const struct sitd_out *o)
{
	uint32_t sum = 0, hdr = g.encap == SITD_ENCAP_GUE ? 4 : 0;
	uint8_t proto;

	CHECK(o->iovcnt >= 1 && o->iovcnt <= 3);
	for (unsigned k = 0; k < o->iovcnt; k++) {
		const uint8_t *b = o->iov[k].iov_base;
		size_t l = o->iov[k].iov_len;

		CHECK(l <= IP_MAX_LEN && sum + l <= IP_MAX_LEN);
		if (l)
			CHECK(b != NULL);
		for (size_t j = 0; j < l; j++)
			g.touched += b[j];
		memcpy(flat + sum, b, l);
		sum += (uint32_t)l;
	}
	CHECK(sum == o->len && o->len > hdr);
	/* The datagram the kernel makes of it (IPv4 + UDP, 28 bytes) is one IPv4 packet. */
	CHECK(o->len + 28 <= IP_MAX_LEN);
	if (o->df)
		CHECK(o->len + 28 <= g.path_mtu);
	else if (g.pmtudisc)	/* IPv6 goes without DF only below 1280 (RFC 4213 3.2.2) */
		CHECK(ip_version(g.pkt) == 4 || g.path_mtu < g.encap_len + IPV6_MIN_MTU);
	if (!g.pmtudisc && (ip_version(g.pkt) == 6 || !(rd16(g.pkt + IP4_FRAG) & IP4_DF)))
		CHECK(!o->df);
	if (hdr) {	/* GUE version 0, no flags, no options (draft-ietf-intarea-gue 3.2) */
		CHECK(flat[0] == 0 && flat[2] == 0 && flat[3] == 0);
		proto = flat[1];
	} else {	/* FOU: the tunnel's protocol, from the inner version */
		proto = ip_version(g.pkt) == 6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
	}
	CHECK(o->tos == g.want_tos && o->ttl == g.want_ttl);
	CHECK((o->tos & ECN_MASK) != ECN_CE);
	/* nseg outputs per frame, each frame its own number (outputs of one frame may go in
	 * one UDP_SEGMENT send, those of two may not). */
	if (fr.set && fr.nout < g.nseg)
		CHECK(o->frame == fr.frame);
	if (!fr.set || fr.nout == g.nseg) {
		if (fr.set)	/* the same packet again: the same flow, the same path */
			CHECK(o->frame != fr.frame && o->hash == fr.hash && o->df == fr.df);
		fr.set = true;
		fr.frame = o->frame;
		fr.hash = o->hash;
		fr.nout = 0;
		fr.tos = o->tos;
		fr.ttl = o->ttl;
		fr.df = o->df;
	}
	CHECK(o->hash == fr.hash && o->tos == fr.tos && o->ttl == fr.ttl && o->df == fr.df);
	fr.nout++;
	verify_inner(flat + hdr, o->len - hdr, proto);
}

/* Iovecs that point into the header area stay inside one slot's SITD_TX_HDR_AREA. */
static void verify_hdr_area(const struct sitd_out *o)
{
	const uint8_t *lo = tx.hdr[0], *hi = tx.hdr[SITD_TX_MAX_OUT - 1] + SITD_TX_HDR_AREA;

	for (unsigned k = 0; k < o->iovcnt; k++) {
		const uint8_t *b = o->iov[k].iov_base;
		size_t l = o->iov[k].iov_len;

		if (!l || b < lo || b >= hi)
			continue;
		CHECK(b + l <= hi);
		CHECK((size_t)(b - lo) / SITD_TX_HDR_AREA == (size_t)(b + l - 1 - lo) / SITD_TX_HDR_AREA);
	}
}

/* The reference walk for an inner limit (ip6_tnl_parse_tlv_enc_lim), written apart. */
static uint32_t ref_enc_lim(const uint8_t *p, uint32_t len)
{
	uint32_t off = 40;
	uint8_t nh;

	if (len < 40 || (p[0] >> 4) != 6)
		return 0;
	nh = p[6];
	for (;;) {
		uint32_t hl;

		if (nh != 0 && nh != 43 && nh != 44 && nh != 51 && nh != 60)
			return 0;
		if (off + 2 > len)
			return 0;
		hl = nh == 44 ? 8 : nh == 51 ? (p[off + 1] + 2u) << 2 : (p[off + 1] + 1u) << 3;
		if (off + hl > len)
			return 0;
		if (nh == 44 && (p[off + 2] | p[off + 3]))
			return 0;
		if (nh == 60)
			for (uint32_t i = 2; i + 3 <= hl; i += p[off + i] ? p[off + i + 1] + 2u : 1u)
				if (p[off + i] == 4 && p[off + i + 1] == 1)
					return off + i;
		nh = p[off];
		off += hl;
	}
}

/* The next header after the IPv6 outer header and option: UDP for fou6, else the inner's. */
static uint8_t proto6(unsigned version)
{
	if (g.encap != SITD_ENCAP_NONE)
		return IPPROTO_UDP;
	return version == 6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
}

/*
 * After the option: fou6's [UDP][GUE] (n bytes in all, from src to REMOTE6) checked
 * field by field with an independent sum over the pseudo-header, then the inner packet;
 * without encap, the inner packet whose protocol nh is.
 */
static void verify_body6(const uint8_t *u, uint32_t n, uint8_t nh, const uint8_t *src)
{
	uint32_t hl = UDP_HDR_LEN + (g.encap == SITD_ENCAP_GUE ? GUE_HDR_LEN : 0);
	uint8_t inner_proto = ip_version(g.pkt) == 6 ? IPPROTO_IPV6 : IPPROTO_IPIP;

	if (g.encap == SITD_ENCAP_NONE) {
		verify_inner(u, n, nh);
		return;
	}
	CHECK(nh == IPPROTO_UDP && n > hl);
	CHECK(rd16(u + 2) == 5555 && rd16(u + 4) == n);
	CHECK(rd16(u) >= 32768 && rd16(u) <= 60999);	/* encap-sport auto */
	if (g.csum6)
		CHECK(rd16(u + 6) != 0 &&
		      csum_fold(csum_partial(u, n, csum_pseudo6(src, REMOTE6, IPPROTO_UDP, n))) == 0xffff);
	else
		CHECK(rd16(u + 6) == 0);
	if (g.encap == SITD_ENCAP_GUE)
		CHECK(u[8] == 0 && u[9] == inner_proto && u[10] == 0 && u[11] == 0);
	verify_inner(u + hl, n - hl, inner_proto);
}

/* The option's 8 bytes at d, for an inner packet of this version. */
static void verify_tel(const uint8_t *d, unsigned version)
{
	CHECK(g.want_tel >= 0);
	CHECK(d[0] == proto6(version));
	CHECK(d[1] == 0 && d[2] == 4 && d[3] == 1 && d[4] == (uint8_t)g.want_tel);
	CHECK(d[5] == 1 && d[6] == 1 && d[7] == 0);
}

static void verify_out6(const struct sitd_out *o)
{
	uint32_t sum = 0, fl, hl = IPV6_HDR_LEN, dlen, off = 0;
	uint32_t pm = g.path_mtu < IPV6_MIN_MTU ? IPV6_MIN_MTU : g.path_mtu;
	unsigned version = ip_version(g.pkt);
	uint8_t nh;
	bool frag = false, more = false;

	CHECK(o->iovcnt >= 1 && o->iovcnt <= 3);
	for (unsigned k = 0; k < o->iovcnt; k++) {
		const uint8_t *b = o->iov[k].iov_base;
		size_t l = o->iov[k].iov_len;

		CHECK(l <= IP_MAX_LEN + IPV6_HDR_LEN && sum + l <= IP_MAX_LEN + IPV6_HDR_LEN);
		if (l)
			CHECK(b != NULL);
		for (size_t j = 0; j < l; j++)
			g.touched += b[j];
		memcpy(flat + sum, b, l);
		sum += (uint32_t)l;
	}
	CHECK(sum == o->len && o->len > IPV6_HDR_LEN && o->len <= pm && o->dst == 0);
	CHECK(flat[0] >> 4 == 6 && rd16(flat + IP6_PLEN) == o->len - IPV6_HDR_LEN);
	CHECK(memcmp(flat + IP6_DST, REMOTE6, 16) == 0);
	CHECK(memcmp(flat + IP6_SRC, LOCAL6, 16) == 0 || ip6_addr_is_unspecified(flat + IP6_SRC));
	CHECK(ip6_tclass(flat) == g.want_tos && flat[IP6_HLIM] == g.want_ttl);
	if ((ip6_tclass(flat) & ECN_MASK) == ECN_CE)
		__builtin_trap();
	fl = rd32(flat) & 0xfffffu;
	if (g.fl_set)
		CHECK(fl == g.fl);
	else if (!tx.flowlabel_inherit && tx.flowlabel)
		CHECK(fl == tx.flowlabel);
	else if (tx.flowlabel_inherit && version == 6 && (rd32(g.pkt) & 0xfffffu))
		CHECK(fl == (rd32(g.pkt) & 0xfffffu));
	g.fl_set = true;
	g.fl = fl;

	nh = flat[IP6_NXT];
	if (nh == IPPROTO_FRAGMENT) {
		CHECK(o->len >= hl + 8 && flat[hl + 1] == 0);
		frag = true;
		off = rd16(flat + hl + 2) & ~7u;
		more = rd16(flat + hl + 2) & 1;
		CHECK(!(rd16(flat + hl + 2) & 6));
		nh = flat[hl];
		hl += 8;
		CHECK(more || off);	/* no atomic fragments (RFC 8021) */
	}
	dlen = o->len - hl;
	if (!frag) {
		CHECK(!train.active);
		if (nh == IPPROTO_DSTOPTS) {
			CHECK(dlen >= 8);
			verify_tel(flat + hl, version);
			verify_body6(flat + hl + 8, dlen - 8, flat[hl], flat + IP6_SRC);
		} else {
			CHECK(g.want_tel < 0);
			verify_body6(flat + hl, dlen, nh, flat + IP6_SRC);
		}
		return;
	}
	if (off == 0) {
		CHECK(!train.active);
		train.active = true;
		train.len = 0;
		train.id = rd32(flat + IPV6_HDR_LEN + 4);
		train.proto = nh;
	}
	CHECK(train.active && off == train.len && nh == train.proto);
	CHECK(rd32(flat + IPV6_HDR_LEN + 4) == train.id);
	CHECK(train.len + dlen <= IP_MAX_LEN);	/* the reassembled payload length */
	memcpy(inner + train.len, flat + hl, dlen);
	train.len += dlen;
	if (more) {
		CHECK(dlen % 8 == 0 && dlen > 0);
		return;
	}
	train.active = false;
	if (train.proto == IPPROTO_DSTOPTS) {
		CHECK(train.len >= 8);
		verify_tel(inner, version);
		verify_body6(inner + 8, train.len - 8, inner[0], flat + IP6_SRC);
	} else {
		CHECK(g.want_tel < 0);
		verify_body6(inner, train.len, train.proto, flat + IP6_SRC);
	}
}

static void verify_out(const struct sitd_out *o)
{
	uint32_t sum = 0, frag, off, dlen;

	verify_hdr_area(o);
	if (g.outer6) {
		verify_out6(o);
		return;
	}

	if (g.encap != SITD_ENCAP_NONE) {
		verify_out_udp(o);
		return;
	}

	CHECK(o->iovcnt >= 1 && o->iovcnt <= 3);
	for (unsigned k = 0; k < o->iovcnt; k++) {
		const uint8_t *b = o->iov[k].iov_base;
		size_t l = o->iov[k].iov_len;

		CHECK(l <= IP_MAX_LEN && sum + l <= IP_MAX_LEN);
		if (l)
			CHECK(b != NULL);
		for (size_t j = 0; j < l; j++)	/* touch every byte */
			g.touched += b[j];
		memcpy(flat + sum, b, l);
		sum += (uint32_t)l;
	}
	CHECK(sum == o->len);
	CHECK(o->len <= IP_MAX_LEN);
	CHECK(o->len > OUTER_HDR_LEN);
	/* Every output fits the path: DF set means it was judged against it, DF clear
	 * means it was fragmented to it. */
	CHECK(o->len <= g.path_mtu);

	/* The outer header (RFC 791), as the tunnel's configuration says. */
	CHECK(flat[IP4_VIHL] == 0x45);
	CHECK(rd16(flat + IP4_TOTLEN) == o->len);
	CHECK(hdr_csum_ok(flat, IPV4_HDR_LEN));
	CHECK(rd32(flat + IP4_SRC) == LOCAL && rd32(flat + IP4_DST) == REMOTE);
	CHECK(flat[IP4_PROTO] == IPPROTO_IPV6 || flat[IP4_PROTO] == IPPROTO_IPIP);
	if (tx.ttl)
		CHECK(flat[IP4_TTL] == tx.ttl);
	if ((flat[IP4_TOS] & ECN_MASK) == ECN_CE)
		__builtin_trap();	/* RFC 6040 4.1: CE never goes outside */
	frag = rd16(flat + IP4_FRAG);
	CHECK(!(frag & 0x8000u));
	off = (frag & IP4_OFFMASK) * 8u;
	dlen = o->len - OUTER_HDR_LEN;
	if (frag & IP4_DF)
		CHECK(!(frag & (IP4_MF | IP4_OFFMASK)));

	if (!(frag & (IP4_MF | IP4_OFFMASK))) {
		CHECK(!train.active);
		verify_inner(flat + OUTER_HDR_LEN, dlen, flat[IP4_PROTO]);
		return;
	}
	/* A fragment: the train is contiguous, in order, within one batch. */
	if (off == 0) {
		CHECK(!train.active);
		train.active = true;
		train.len = 0;
		train.id = rd16(flat + IP4_ID);
		train.proto = flat[IP4_PROTO];
	}
	CHECK(train.active && off == train.len);
	CHECK(rd16(flat + IP4_ID) == train.id && flat[IP4_PROTO] == train.proto);
	/* RFC 791: the datagram reassembled from the train is an IPv4 packet too, at
	 * most 65535 bytes with its header, so the inner packet at most 65515. */
	CHECK(OUTER_HDR_LEN + train.len + dlen <= IP_MAX_LEN);
	memcpy(inner + train.len, flat + OUTER_HDR_LEN, dlen);
	train.len += dlen;
	if (frag & IP4_MF) {
		CHECK(dlen % 8 == 0 && dlen > 0);
		return;
	}
	train.active = false;
	verify_inner(inner, train.len, train.proto);
}

/* "Send" the pending outputs. */
static void flush(void)
{
	CHECK(tx.nout <= SITD_TX_MAX_OUT);
	for (unsigned i = 0; i < tx.nout; i++)
		verify_out(&tx.out[i]);
	CHECK(!train.active);
	sitd_tx_reset(&tx);
}

/* The ICMP error in tx.icmp: Packet Too Big / Fragmentation Needed, or a link failure. */
static void verify_icmp(bool link_failure, bool param_prob)
{
	const uint8_t *ip = tx.icmp + VNET_HDR_LEN;
	struct sitd_ipinfo ii;
	uint32_t n, sum;

	CHECK(tx.icmp_len > VNET_HDR_LEN && tx.icmp_len <= sizeof(tx.icmp));
	for (unsigned k = 0; k < VNET_HDR_LEN; k++)
		CHECK(tx.icmp[k] == 0);
	n = tx.icmp_len - VNET_HDR_LEN;
	for (uint32_t k = 0; k < n; k++)
		g.touched += ip[k];
	CHECK(sitd_ip_parse(ip, n, &ii) == 0);
	CHECK(ii.len == n && ii.version == ip_version(g.pkt));
	CHECK(n >= ii.l3len + ICMP_HDR_LEN);
	if (ii.version == 6) {
		CHECK(ii.l4proto == IPPROTO_ICMPV6 && n <= ICMP6_ERR_MAX);
		if (link_failure) {	/* address unreachable */
			CHECK(ip[ii.l3len] == 1 && ip[ii.l3len + 1] == 3);
		} else if (param_prob) {	/* pointing at an inner limit of 0 */
			uint32_t ptr = rd32(ip + ii.l3len + 4);

			CHECK(ip[ii.l3len] == 4 && ip[ii.l3len + 1] == 0);
			CHECK(ptr == ref_enc_lim(g.pkt, g.len6) + 2 && g.pkt[ptr] == 0);
		} else {		/* Packet Too Big */
			CHECK(ip[ii.l3len] == 2 && ip[ii.l3len + 1] == 0);
			CHECK(rd32(ip + ii.l3len + 4) >= IPV6_MIN_MTU);
		}
		CHECK(memcmp(ip + IP6_DST, g.pkt + IP6_SRC, 16) == 0);
		sum = csum_pseudo6(ip + IP6_SRC, ip + IP6_DST, IPPROTO_ICMPV6, n - ii.l3len);
	} else {
		CHECK(ii.l4proto == IPPROTO_ICMP && n <= ICMP4_ERR_MAX);
		CHECK(hdr_csum_ok(ip, ii.l3len));
		if (link_failure) {	/* host unreachable */
			CHECK(ip[ii.l3len] == 3 && ip[ii.l3len + 1] == 1);
		} else {		/* Fragmentation Needed */
			CHECK(ip[ii.l3len] == 3 && ip[ii.l3len + 1] == 4);
			CHECK(rd16(ip + ii.l3len + 6) >= IPV4_MIN_MTU);
		}
		CHECK(memcmp(ip + IP4_DST, g.pkt + IP4_SRC, 4) == 0);
		sum = 0;
	}
	CHECK(csum_fold(csum_partial(ip + ii.l3len, n - ii.l3len, sum)) == 0xffff);
	/* The quote is the start of the offending packet (whose checksum may be done). */
	for (uint32_t k = 0; k < n - ii.l3len - ICMP_HDR_LEN; k++)
		CHECK(ip[ii.l3len + ICMP_HDR_LEN + k] == g.pkt[k] ||
		      (g.csum_partial && (k == g.csum_field || k == g.csum_field + 1)));
}

/*
 * The founding lesson (doc/kernel.md "The founding lesson"): a packet is refused as too
 * big only when the unit that goes on the wire, one segment for GSO, does not fit; and
 * the error says the MTU.
 */
static void verify_too_big(uint32_t flen)
{
	struct sitd_ipinfo ii;
	uint32_t unit, mtu, info;
	const uint8_t *ip = tx.icmp + VNET_HDR_LEN;

	CHECK(sitd_ip_parse(g.pkt, flen - VNET_HDR_LEN, &ii) == 0);
	unit = ii.len;
	if (tx.hdrlen) {
		uint32_t payload = ii.len - tx.hdrlen;

		CHECK(tx.hdrlen <= ii.len && tx.gso_size > 0);
		unit = tx.hdrlen + (payload < tx.gso_size ? payload : tx.gso_size);
	}
	if (g.outer6) {
		uint32_t pm = g.path_mtu < IPV6_MIN_MTU ? IPV6_MIN_MTU : g.path_mtu;

		if (unit > IP_MAX_LEN + IPV6_HDR_LEN - g.elen) {
			mtu = IP_MAX_LEN + IPV6_HDR_LEN - g.elen;
		} else {
			mtu = pm - g.elen;
			if (mtu < (ii.version == 6 ? IPV6_MIN_MTU : IPV4_MIN_MTU))
				mtu = ii.version == 6 ? IPV6_MIN_MTU : IPV4_MIN_MTU;
		}
		CHECK(unit > mtu);
		if (ii.version == 6)
			info = rd32(ip + IPV6_HDR_LEN + 4);
		else	/* whatever DF says (ipxip6_tnl_xmit) */
			info = rd16(ip + (ip[0] & 0x0f) * 4u + 6);
		CHECK(info == (mtu > 0xffff && ii.version == 4 ? 0xffff : mtu));
		return;
	}
	if (unit > IP_MAX_LEN - g.encap_len) {
		/* Too big for any path: nothing over 65535 bytes may leave, not even in fragments. */
		mtu = IP_MAX_LEN - g.encap_len;
	} else {
		CHECK(g.path_mtu > g.encap_len);
		mtu = g.path_mtu - g.encap_len;
		if (ii.version == 6 && mtu < IPV6_MIN_MTU)
			mtu = IPV6_MIN_MTU;	/* RFC 4213 3.2.2 */
	}
	CHECK(unit > mtu);
	if (ii.version == 6) {
		info = rd32(ip + IPV6_HDR_LEN + 4);
	} else {
		CHECK(ii.df);
		info = rd16(ip + (ip[0] & 0x0f) * 4u + 6);
	}
	CHECK(info == mtu);
}

/*
 * What a FOU/GUE output must ask the kernel for, from the pristine inner header: TOS per
 * RFC 6040 4.1 (the fixed DSCP, or the inner one with tos inherit; the inner ECN, CE sent
 * as ECT(0)), TTL the configured one or else the inner one.
 */
static void set_want_outer(const struct sitd_conf *c)
{
	uint8_t ds = ip_version(g.pkt) == 4 ? g.pkt[IP4_TOS] : ip6_tclass(g.pkt);
	uint8_t ttl = ip_version(g.pkt) == 4 ? g.pkt[IP4_TTL] : g.pkt[IP6_HLIM];
	uint8_t base = (c->tos & SITD_TOS_INHERIT) ? ds : c->tos, ecn = ds & ECN_MASK;

	g.want_tos = (uint8_t)((base & ~ECN_MASK) | (ecn == ECN_CE ? ECN_ECT0 : ecn));
	g.want_ttl = c->ttl ? c->ttl : ttl;
}

/* Append `grow` bytes to the frame and raise the IP length to match, when it fits. */
static uint32_t grow_frame(uint8_t *f, uint32_t len, uint32_t grow)
{
	uint8_t *p = f + VNET_HDR_LEN;
	unsigned field;

	if (len <= VNET_HDR_LEN)
		return len;
	if (ip_version(p) == 4)
		field = IP4_TOTLEN;
	else if (ip_version(p) == 6)
		field = IP6_PLEN;
	else
		return len;
	if (len < VNET_HDR_LEN + field + 2)
		return len;
	if (rd16(p + field) + grow > 0xffff)
		return len;
	wr16(p + field, (uint16_t)(rd16(p + field) + grow));
	for (uint32_t k = 0; k < grow; k++)
		f[len + k] = (uint8_t)(k * 7 + 1);
	return len + grow;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sitd_conf conf;
	struct sitd_damper damper;
	struct sitd_vnet_hdr vh;
	uint8_t *pristine, *frames[MAX_FRAMES] = { NULL };
	uint32_t flen, grow, nframes;
	uint64_t now;
	static const enum sitd_mode modes[4] = {
		SITD_MODE_ANY, SITD_MODE_IPIP, SITD_MODE_SIT, SITD_MODE_ANY,
	};
	static const enum sitd_encap encaps[4] = {
		SITD_ENCAP_NONE, SITD_ENCAP_FOU, SITD_ENCAP_GUE, SITD_ENCAP_NONE,
	};

	if (size < CFG_LEN || size - CFG_LEN > IP_MAX_LEN + VNET_HDR_LEN)
		return -1;
	memset(&conf, 0, sizeof(conf));
	memcpy(conf.name, "sit0", 5);
	conf.mode = modes[data[0] & 3];
	conf.pmtudisc = !(data[0] & 4);
	conf.ttl = data[1];
	conf.tos = data[2];
	conf.local = LOCAL;
	conf.remote = REMOTE;
	conf.encap = encaps[data[0] >> 6];
	if (data[0] >> 6 == 3) {
		conf.outer = SITD_OUTER_IPV6;
		memcpy(conf.remote6, REMOTE6, 16);
		if (!(data[6] & 4))
			memcpy(conf.local6, LOCAL6, 16);
		conf.encap_limit = data[5];
		conf.encap_limit_none = data[6] & 1;
		conf.flowlabel_inherit = data[6] & 2;
		conf.flowlabel = ((uint32_t)(data[6] >> 5) * 0x8421u) & 0xfffffu;
		conf.encap = (data[6] >> 3 & 3) == 2 ? SITD_ENCAP_GUE :
			     (data[6] >> 3 & 3) ? SITD_ENCAP_FOU : SITD_ENCAP_NONE;
		conf.encap_csum6 = (data[6] >> 3 & 3) != 3;
	}
	if (conf.encap != SITD_ENCAP_NONE)
		conf.encap_dport = rd16(data + 5) && !conf.outer ? rd16(data + 5) : 5555;
	nframes = data[0] & 32 ? MAX_FRAMES : data[0] & 8 ? 2 : 1;
	grow = data[0] & 16 ? rd16(data + 8) : 0;
	now = (uint64_t)data[7] * 1000000u;

	memset(&stats, 0, sizeof(stats));
	memset(&g, 0, sizeof(g));
	memset(&train, 0, sizeof(train));
	memset(&fr, 0, sizeof(fr));
	memset(&damper, 0, sizeof(damper));
	damper.count = data[10];
	damper.time_ns = now;
	sitd_tx_init(&tx, &conf, &stats, data[10] ? &damper : NULL, rd16(data + 5));
	g.path_mtu = rd16(data + 3);
	g.mode = conf.mode;
	g.encap = conf.encap;
	g.pmtudisc = conf.pmtudisc;
	g.encap_len = conf.encap == SITD_ENCAP_FOU ? 28 : conf.encap == SITD_ENCAP_GUE ? 32 : 20;
	g.outer6 = conf.outer == SITD_OUTER_IPV6;

	/* Exact-size heap copies, so that ASan sees any read past the frame. */
	flen = (uint32_t)(size - CFG_LEN);
	pristine = malloc(flen + grow + 1);
	CHECK(pristine != NULL);
	memcpy(pristine, data + CFG_LEN, flen);
	flen = grow_frame(pristine, flen, grow);
	g.pkt = pristine + VNET_HDR_LEN;
	if (g.outer6) {
		/* The model of ipxip6_tnl_xmit's limit: the inner one less one, else conf's. */
		uint32_t avail = flen > VNET_HDR_LEN ? flen - VNET_HDR_LEN : 0, off;

		g.len6 = avail >= IPV6_HDR_LEN ? IPV6_HDR_LEN + rd16(g.pkt + IP6_PLEN) : 0;
		if (g.len6 > avail)
			g.len6 = 0;
		g.want_tel = conf.encap_limit_none ? -1 : conf.encap_limit;
		off = g.len6 ? ref_enc_lim(g.pkt, g.len6) : 0;
		if (off && g.pkt[off + 2])
			g.want_tel = g.pkt[off + 2] - 1;
		g.elen = IPV6_HDR_LEN + (g.want_tel >= 0 ? 8u : 0u) +
			 (conf.encap == SITD_ENCAP_FOU ? 8u : conf.encap == SITD_ENCAP_GUE ? 12u : 0u);
		g.csum6 = conf.encap_csum6;
	}
	if (flen >= VNET_HDR_LEN) {
		vnet_hdr_read(&vh, pristine);
		g.csum_partial = vh.gso_type == VNET_GSO_NONE && (vh.flags & VNET_F_NEEDS_CSUM);
		g.csum_field = (uint32_t)vh.csum_start + vh.csum_offset;
		/* Speed, not safety: 64 KB in 1-byte segments costs 100 ms and finds nothing
		 * that 4096 segments (16 batches of out[]) do not. */
		if (vh.gso_type != VNET_GSO_NONE && vh.gso_size &&
		    (flen - VNET_HDR_LEN) / vh.gso_size > MAX_SEGS) {
			free(pristine);
			return -1;
		}
	}

	for (uint32_t f = 0; f < nframes; f++) {
		uint64_t before = drops_total(&stats);
		uint64_t before_pp = stats.drop[SITD_DROP_tx_encap_limit];
		enum sitd_tx_verdict v;

		/* Each frame its own copy: outputs point into the frame until flushed. */
		frames[f] = malloc(flen ? flen : 1);
		CHECK(frames[f] != NULL);
		memcpy(frames[f], pristine, flen);
		v = sitd_tx_begin(&tx, frames[f], flen, g.path_mtu, now);

		switch (v) {
		case SITD_TX_SEND:
			CHECK(drops_total(&stats) == before);
			CHECK(tx.nseg >= 1 && tx.next_seg == 0);
			CHECK(tx.hdrlen == 0 || tx.gso_size > 0);
			CHECK(tx.len <= flen - VNET_HDR_LEN && tx.hdrlen <= tx.len);
			if (g.frames_sent)	/* the same frame again: the same split */
				CHECK(g.nseg == tx.nseg && g.hdrlen == tx.hdrlen && g.len == tx.len);
			g.hdrlen = tx.hdrlen;
			g.l3len = tx.l3len;
			g.len = tx.len;
			g.nseg = tx.nseg;
			g.gso_size = tx.gso_size;
			g.frames_sent++;
			set_want_outer(&conf);
			if (tx.icmp_len)	/* a link failure report, while sending */
				verify_icmp(true, false);
			while (!sitd_tx_next(&tx)) {
				CHECK(tx.nout > 0);	/* else the caller loops for ever */
				flush();
			}
			CHECK(tx.next_seg == tx.nseg);
			break;
		case SITD_TX_ICMP:
			CHECK(drops_total(&stats) == before + 1);
			CHECK(stats.drop[SITD_DROP_tx_too_big] + stats.drop[SITD_DROP_tx_encap_limit] >= 1);
			if (stats.drop[SITD_DROP_tx_encap_limit] == before_pp + 1) {
				CHECK(g.outer6);
				verify_icmp(false, true);
				g.pp_sent++;
				break;
			}
			verify_icmp(false, false);
			verify_too_big(flen);
			break;
		case SITD_TX_DROP:
			CHECK(drops_total(&stats) == before + 1);
			CHECK(tx.icmp_len == 0);
			break;
		default:
			__builtin_trap();
		}
		if (v == SITD_TX_SEND && f >= 1)
			break;	/* the 64 are for the ICMP limit; two frames show accumulation */
	}
	flush();
	if (g.frames_sent)
		CHECK(g.seg_seen == g.frames_sent * g.nseg);
	if (g.encap != SITD_ENCAP_NONE && !g.outer6) {
		/* One output per segment, the last frame's too; no outer IPv4 header built. */
		if (g.frames_sent)
			CHECK(fr.set && fr.nout == g.nseg);
		CHECK(tx.ip_id == rd16(data + 5) && stats.tx_fragments == 0);
		CHECK(stats.drop[SITD_DROP_tx_frag_too_many] == 0);	/* the kernel fragments */
	}
	/* The kernel's ICMP budget that tx.c models: a burst of 50, then 1 per ms. */
	CHECK(stats.tx_icmp_ptb + stats.tx_icmp_frag_needed + stats.tx_icmp_link_failure +
	      g.pp_sent <= ICMP_BURST);
	/* Each error either went, was declined, or was rate-limited: one per too-big drop
	 * and one per damper count taken. */
	CHECK(damper.count <= data[10]);
	CHECK(stats.tx_icmp_ptb + stats.tx_icmp_frag_needed + stats.tx_icmp_link_failure +
	      g.pp_sent + stats.tx_icmp_ratelimited + stats.tx_icmp_declined ==
	      stats.drop[SITD_DROP_tx_too_big] + stats.drop[SITD_DROP_tx_encap_limit] +
	      (data[10] - damper.count));
	if (g.outer6)	/* no IPv4 ID, no IPv4-only drops */
		CHECK(tx.ip_id == rd16(data + 5) && stats.drop[SITD_DROP_tx_oversize] == 0 &&
		      stats.drop[SITD_DROP_tx_mtu_floor] == 0);
	else
		CHECK(stats.drop[SITD_DROP_tx_encap_limit] == 0 &&
		      stats.drop[SITD_DROP_tx_src_is_remote] == 0);
	CHECK(stats.tx_icmp_link_failure <= data[10]);

	sink = g.touched;
	for (uint32_t f = 0; f < MAX_FRAMES; f++)
		free(frames[f]);
	free(pristine);
	return 0;
}
