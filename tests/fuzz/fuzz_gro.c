/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: GRO into TUN (sitd_gro_add, sitd_gro_finish, sitd_gro_unmerge,
 * sitd_gro_reset), one receive batch per input.
 *
 * Input:
 *	[0]	bit 0 GRO disabled; bit 1 run the batch a second time after sitd_gro_reset
 *	then up to GRO_BATCH + 1 chunks [flags][len be16][len bytes] (the last may be short):
 *	  flags bit 2 "continue": the bytes are [off][xor][payload len be16]: the packet is
 *		the previous one's IP and TCP headers with the next sequence number (and
 *		IPv4 ID + 1), lengths and checksums made right, payload len pattern bytes,
 *		then header byte off % header length xored with xor (0: none), as if
 *		damaged on the way; otherwise the chunk's bytes are the packet
 *	  flags bit 0: then set the IP length field to the packet's length, and the IPv4
 *		header checksum
 *	  flags bit 1: then set the TCP checksum (when the packet parses as TCP)
 *	  flags bit 3: then set the TCP or UDP checksum field to the pseudo-header sum
 *		alone, as the receiving kernel's GRO leaves a packet it merged
 * Each packet is trimmed to its IP length when it parses, as sitd_rx_decap hands it
 * over, and copied into a heap buffer of exactly its size.  Empty packets are skipped
 * (sitd_rx_decap never gives one).  The chunk after GRO_BATCH must be refused.
 *
 * Checked, against pktgen.h's reference checksum and the pristine copies:
 *   - the outputs' segments are every packet added, once each, and within a flow (same
 *     addresses and TCP ports, as sitd_ip_parse finds them) in arrival order;
 *   - iovecs: a 10-byte vnet header, the head packet, then each later segment's payload
 *     in place (zero copy), item i at iov_start[i] .. + iov_cnt[i];
 *   - a lone packet goes out as received, with vnet flags DATA_VALID exactly when it is a
 *     verified TCP segment that could have merged (ACK or ACK|PSH with payload, IPv4
 *     without options or fragmenting or IPv6 with TCP next, checksum right), else zero;
 *   - a merged item: every segment such a verified segment, same flow, ack, header
 *     length, options, IPv4 TOS/TTL/DF (and ID + 1 unless DF) or IPv6 first word and hop
 *     limit, sequence numbers contiguous, all but the last exactly gso_size long, PSH only
 *     on the last, at most 64 segments and 65535 bytes; the vnet header NEEDS_CSUM,
 *     TCPV4/TCPV6, hdr_len, gso_size = the head's payload, csum_start = the IP header
 *     length, csum_offset 16; the bytes a valid IP packet whose length fields match, the
 *     head's headers but for lengths, checksums and PSH, then every payload in order, and
 *     completing the checksum from csum_start gives a valid TCP checksum;
 *   - TCP whose checksum field is the pseudo-header sum: longer than one segment of a
 *     1480-byte MTU, a packet the kernel merged, which goes out alone, as received, with
 *     NEEDS_CSUM at the TCP header and GSO TCPV4/TCPV6 (ECN with CWR) at the MTU's
 *     segment size, and never merges (rx_gro_kernel); within one segment, a sender left
 *     the sum to the device (rx_csum_partial): its checksum is not checked, it merges as
 *     a verified segment would, and alone it goes out with NEEDS_CSUM, no GSO;
 *   - UDP right after the IP header whose checksum field is the pseudo-header sum and
 *     whose full checksum is wrong
 *     (CHECKSUM_PARTIAL, or merged by the kernel): within 1480 bytes, alone with
 *     NEEDS_CSUM at offset 6; longer, in no output, counted as the drop rx_gro_udp;
 *   - counters: rx_gro_packets, rx_gro_merged, rx_gro_kernel, rx_csum_partial, rx_csum_bad and that drop
 *     as the above says, no other;
 *   - only merged heads' headers were written; sitd_gro_unmerge restores them byte for
 *     byte; a second batch of the same packets groups them the same way.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/pktgen.h"
#include "core/gro.h"
#include "core/inet.h"
#include "core/stats.h"
#include "core/wire.h"
#include "fuzz.h"

enum { MAXPKT = GRO_BATCH + 1, KEY_LEN = 1 + 32 + 4, PKT_MAX = 65535, MTU = 1480 };

static struct sitd_gro g;
static struct sitd_stats st;
static unsigned npk;
static uint8_t *pk[MAXPKT];		/* handed to sitd_gro_add */
static uint8_t *orig[MAXPKT];		/* as built */
static uint32_t plen[MAXPKT];
static bool has_flow[MAXPKT];
static uint8_t key[MAXPKT][KEY_LEN];
static uint8_t work[PKT_MAX + 64];
static uint8_t flat[VNET_HDR_LEN + PKT_MAX + 64];
static uint8_t tmp[PKT_MAX + 64];

/* ---- Reference: what may merge, by gro.h's rules, with pktgen.h's checksum ---- */

static bool tcp_csum_ok(const uint8_t *p, uint32_t len, unsigned l3)
{
	uint32_t ps;

	if (p[0] >> 4 == 4)
		ps = pg_pseudo4(pg_get32(p + 12), pg_get32(p + 16), PG_PROTO_TCP, (uint16_t)(len - l3));
	else
		ps = pg_pseudo6(p + 8, p + 24, PG_PROTO_TCP, len - l3);
	return pg_fold(pg_sum(p + l3, len - l3, ps)) == 0xffff;
}

/*
 * A TCP packet whose checksum field holds the pseudo-header sum over its length (gro.h):
 * 0 not; 1 within one segment of the MTU (its sender left the sum to the device); 2
 * longer (merged by the receiving kernel).  *vh: the vnet header it goes up with alone.
 */
static int tcp_partial(const uint8_t *p, uint32_t len, struct sitd_vnet_hdr *vh)
{
	unsigned l3, th, seg;
	uint32_t ps;

	if (len < 40)
		return 0;
	if (p[0] == 0x45 && p[9] == PG_PROTO_TCP && !(pg_get16(p + 6) & 0x3fff))
		l3 = 20;
	else if (p[0] >> 4 == 6 && p[6] == PG_PROTO_TCP && len >= 60)
		l3 = 40;
	else
		return 0;
	th = (p[l3 + 12] >> 4) * 4u;
	if (th < 20 || l3 + th > len)
		return 0;
	if (l3 == 20)
		ps = pg_pseudo4(pg_get32(p + 12), pg_get32(p + 16), PG_PROTO_TCP, (uint16_t)(len - l3));
	else
		ps = pg_pseudo6(p + 8, p + 24, PG_PROTO_TCP, len - l3);
	if (pg_get16(p + l3 + 16) != pg_fold(ps))
		return 0;
	seg = MTU - l3 - th;
	memset(vh, 0, sizeof(*vh));
	vh->flags = VNET_F_NEEDS_CSUM;
	vh->csum_start = (uint16_t)l3;
	vh->csum_offset = 16;
	if (len - l3 - th <= seg)
		return 1;
	vh->gso_type = (uint8_t)((l3 == 20 ? VNET_GSO_TCPV4 : VNET_GSO_TCPV6) |
				 (p[l3 + 13] & 0x80 ? VNET_GSO_ECN : 0));
	vh->gso_size = (uint16_t)seg;
	vh->hdr_len = (uint16_t)(l3 + th);
	return 2;
}

/* UDP with a partial checksum (gro.h): 0 not, 1 up alone (vnet in *vh), -1 dropped. */
static int udp_partial_ref(const uint8_t *p, uint32_t len, struct sitd_vnet_hdr *vh)
{
	struct sitd_ipinfo ii;
	uint32_t l4, ps;

	if (sitd_ip_parse(p, len, &ii) || ii.l4proto != IPPROTO_UDP || ii.fragment || ii.len != len)
		return 0;
	if (p[ii.version == 4 ? 9 : 6] != PG_PROTO_UDP)	/* no IPv6 extension header */
		return 0;
	l4 = len - ii.l3len;
	if (l4 < 8 || !pg_get16(p + ii.l3len + 6))
		return 0;
	ps = ii.version == 4 ? pg_pseudo4(pg_get32(p + 12), pg_get32(p + 16), PG_PROTO_UDP, (uint16_t)l4)
			     : pg_pseudo6(p + 8, p + 24, PG_PROTO_UDP, l4);
	if (pg_get16(p + ii.l3len + 6) != pg_fold(ps) || pg_fold(pg_sum(p + ii.l3len, l4, ps)) == 0xffff)
		return 0;
	if (len > MTU)
		return -1;
	memset(vh, 0, sizeof(*vh));
	vh->flags = VNET_F_NEEDS_CSUM;
	vh->csum_start = (uint16_t)ii.l3len;
	vh->csum_offset = 6;
	return 1;
}

enum cand { NOT_CAND, CSUM_BAD, CAND };

/*
 * A TCP segment GRO may merge (CAND: its checksum right, or left partial within one
 * segment, then not read), one it must check and refuse (CSUM_BAD), or neither.
 */
static enum cand candidate(const uint8_t *p, uint32_t len, unsigned *l3o, unsigned *hdro)
{
	struct sitd_vnet_hdr vh;
	unsigned l3, th;
	int part = tcp_partial(p, len, &vh);

	if (len < 20)
		return NOT_CAND;
	if (p[0] >> 4 == 4) {
		if (p[0] != 0x45 || p[9] != PG_PROTO_TCP || (pg_get16(p + 6) & 0x3fff) || len < 40)
			return NOT_CAND;
		/* A bad IPv4 header checksum goes up alone for the kernel to drop. */
		if (pg_csum(p, 20) != 0)
			return NOT_CAND;
		l3 = 20;
	} else if (p[0] >> 4 == 6) {
		if (p[6] != PG_PROTO_TCP || len < 60)
			return NOT_CAND;
		l3 = 40;
	} else {
		return NOT_CAND;
	}
	th = (p[l3 + 12] >> 4) * 4u;
	if (th < 20 || l3 + th >= len || (p[l3 + 13] & ~PG_PSH) != PG_ACK)
		return NOT_CAND;
	*l3o = l3;
	*hdro = l3 + th;
	if (part)
		return part == 1 ? CAND : NOT_CAND;
	return tcp_csum_ok(p, len, l3) ? CAND : CSUM_BAD;
}

/* The flow a TCP packet belongs to (version, addresses, ports); false when none. */
static bool flow_key(const uint8_t *p, uint32_t len, uint8_t *k)
{
	struct sitd_ipinfo ii;

	memset(k, 0, KEY_LEN);
	if (sitd_ip_parse(p, len, &ii) || ii.l4proto != IPPROTO_TCP || ii.later_fragment ||
	    ii.l3len + 4 > len)
		return false;
	k[0] = (uint8_t)ii.version;
	memcpy(k + 1, p + (ii.version == 4 ? 12 : 8), ii.version == 4 ? 8 : 32);
	memcpy(k + 33, p + ii.l3len, 4);
	return true;
}

/* ---- Building the packets ---- */

static void fix_len(uint8_t *p, uint32_t len)
{
	unsigned ihl;

	if (p[0] >> 4 == 4 && len >= 20) {
		pg_put16(p + 2, (uint16_t)len);
		ihl = (p[0] & 15u) * 4u;
		if (ihl >= 20 && ihl <= len) {
			pg_put16(p + 10, 0);
			pg_put16(p + 10, pg_csum(p, ihl));
		}
	} else if (p[0] >> 4 == 6 && len >= 40) {
		pg_put16(p + 4, (uint16_t)(len - 40));
	}
}

static void fix_tcp(uint8_t *p, uint32_t len)
{
	struct sitd_ipinfo ii;
	uint32_t l4, ps;
	uint8_t *t;

	if (sitd_ip_parse(p, len, &ii) || ii.l4proto != IPPROTO_TCP || ii.later_fragment ||
	    ii.l3len + 18 > ii.len)
		return;
	t = p + ii.l3len;
	l4 = ii.len - ii.l3len;
	if (ii.version == 4)
		ps = pg_pseudo4(pg_get32(p + 12), pg_get32(p + 16), PG_PROTO_TCP, (uint16_t)l4);
	else
		ps = pg_pseudo6(p + 8, p + 24, PG_PROTO_TCP, l4);
	pg_put16(t + 16, 0);
	pg_put16(t + 16, (uint16_t)~pg_fold(pg_sum(t, l4, ps)));
}

/* The TCP or UDP checksum field as the kernel's GRO leaves it: the pseudo-header sum alone. */
static void partial_l4(uint8_t *p, uint32_t len)
{
	struct sitd_ipinfo ii;
	unsigned at;

	if (sitd_ip_parse(p, len, &ii) || ii.later_fragment ||
	    (ii.l4proto != IPPROTO_TCP && ii.l4proto != IPPROTO_UDP))
		return;
	at = ii.l4proto == IPPROTO_TCP ? 16 : 6;
	if (ii.l3len + at + 2 > ii.len)
		return;
	pg_put16(p + ii.l3len + at,
		 pg_fold(ii.version == 4 ? pg_pseudo4(pg_get32(p + 12), pg_get32(p + 16), ii.l4proto,
						      (uint16_t)(ii.len - ii.l3len))
					 : pg_pseudo6(p + 8, p + 24, ii.l4proto, ii.len - ii.l3len)));
}

/* The segment after packet k - 1 of its flow, into work; its length, or 0 when none. */
static uint32_t next_segment(const uint8_t *c, size_t clen, unsigned k)
{
	struct sitd_ipinfo ii;
	const uint8_t *t;
	uint32_t tl, hdr, th, pay, len;

	if (k == 0 || clen < 4)
		return 0;
	t = orig[k - 1];
	tl = plen[k - 1];
	if (sitd_ip_parse(t, tl, &ii) || ii.l4proto != IPPROTO_TCP || ii.later_fragment ||
	    ii.l3len + 20 > ii.len)
		return 0;
	th = (t[ii.l3len + 12] >> 4) * 4u;
	hdr = ii.l3len + th;
	if (th < 20 || hdr > ii.len)
		return 0;
	pay = pg_get16(c + 2);
	if (hdr + pay > PKT_MAX)
		pay = PKT_MAX - hdr;
	memcpy(work, t, hdr);
	pg_put32(work + ii.l3len + 4, pg_get32(t + ii.l3len + 4) + (ii.len - hdr));
	if (ii.version == 4)
		pg_put16(work + 4, (uint16_t)(pg_get16(t + 4) + 1));
	pg_pattern(work + hdr, pay, (uint8_t)(k * 37 + 1));
	len = hdr + pay;
	fix_len(work, len);
	fix_tcp(work, len);
	work[c[0] % hdr] ^= c[1];
	return len;
}

static void add_packet(uint32_t len)
{
	pk[npk] = malloc(len);
	orig[npk] = malloc(len);
	CHECK(pk[npk] && orig[npk]);
	memcpy(pk[npk], work, len);
	memcpy(orig[npk], work, len);
	plen[npk] = len;
	has_flow[npk] = flow_key(work, len, key[npk]);
	npk++;
}

/* ---- Checking the outputs ---- */

static bool is_hdr_field(unsigned version, unsigned l3, unsigned k)
{
	if (version == 4 && (k == 2 || k == 3 || k == 10 || k == 11))
		return true;	/* total length, header checksum */
	if (version == 6 && (k == 4 || k == 5))
		return true;	/* payload length */
	return k == l3 + 13 || k == l3 + 16 || k == l3 + 17;	/* TCP flags, checksum */
}

/* Item i, nseg >= 2, flattened at flat[0..flen). */
static void check_merged(const struct sitd_gro_item *it, uint32_t flen)
{
	const uint8_t *h = orig[it->idx[0]], *o = flat + VNET_HDR_LEN;
	unsigned l3, hdr, version = h[0] >> 4;
	uint32_t gso, total, seq, off;
	struct sitd_vnet_hdr vh;
	struct sitd_ipinfo ii;
	uint8_t psh;

	CHECK(candidate(h, plen[it->idx[0]], &l3, &hdr) == CAND);
	gso = plen[it->idx[0]] - hdr;
	total = plen[it->idx[0]];
	seq = pg_get32(h + l3 + 4) + gso;
	CHECK(it->nseg <= GRO_MAX_SEGS);
	for (unsigned s = 1; s < it->nseg; s++) {
		const uint8_t *p = orig[it->idx[s]], *prev = orig[it->idx[s - 1]];
		unsigned l3b, hdrb;
		uint32_t pay;

		CHECK(candidate(p, plen[it->idx[s]], &l3b, &hdrb) == CAND);
		CHECK(l3b == l3 && hdrb == hdr);
		CHECK(!(prev[l3 + 13] & PG_PSH));	/* PSH closes */
		CHECK(!memcmp(p + (version == 4 ? 12 : 8), h + (version == 4 ? 12 : 8), version == 4 ? 8 : 32));
		CHECK(!memcmp(p + l3, h + l3, 4));				/* ports */
		CHECK(!memcmp(p + l3 + 8, h + l3 + 8, 4));			/* ack */
		CHECK(!memcmp(p + l3 + 20, h + l3 + 20, hdr - l3 - 20));	/* options */
		if (version == 4) {
			CHECK(p[1] == h[1] && p[8] == h[8] && pg_get16(p + 6) == pg_get16(h + 6));
			if (!(pg_get16(h + 6) & PG_IP4_DF))
				CHECK(pg_get16(p + 4) == (uint16_t)(pg_get16(h + 4) + s));
		} else {
			CHECK(!memcmp(p, h, 4) && p[7] == h[7]);
		}
		CHECK(pg_get32(p + l3 + 4) == seq);
		pay = plen[it->idx[s]] - hdr;
		CHECK(pay > 0 && pay <= gso);
		if (s + 1 < it->nseg)
			CHECK(pay == gso);
		seq += pay;
		total += pay;
	}
	CHECK(total <= IP_MAX_LEN);
	psh = orig[it->idx[it->nseg - 1]][l3 + 13] & PG_PSH;

	/* The vnet header: a CHECKSUM_PARTIAL TCP super-packet (virtio_net_hdr_to_skb). */
	vnet_hdr_read(&vh, flat);
	CHECK(vh.flags == VNET_F_NEEDS_CSUM);
	CHECK(vh.gso_type == (version == 4 ? VNET_GSO_TCPV4 : VNET_GSO_TCPV6));
	CHECK(vh.hdr_len == hdr && vh.gso_size == gso);
	CHECK(vh.csum_start == l3 && vh.csum_offset == 16);

	/* A valid IP packet whose lengths are the super-packet's. */
	CHECK(flen == VNET_HDR_LEN + total);
	CHECK(sitd_ip_parse(o, total, &ii) == 0 && ii.len == total && ii.l3len == l3 &&
	      ii.l4proto == IPPROTO_TCP);
	if (version == 4)
		CHECK(pg_get16(o + 2) == total && pg_ip4_csum_ok(o));
	else
		CHECK(pg_get16(o + 4) == total - 40);
	for (unsigned k = 0; k < hdr; k++)
		CHECK(is_hdr_field(version, l3, k) || o[k] == h[k]);
	CHECK(o[l3 + 13] == (h[l3 + 13] | psh));
	off = hdr;
	for (unsigned s = 0; s < it->nseg; s++) {
		uint32_t pay = plen[it->idx[s]] - hdr;

		CHECK(!memcmp(o + off, orig[it->idx[s]] + hdr, pay));
		off += pay;
	}

	/* The kernel completes the sum from csum_start: a valid TCP checksum results. */
	memcpy(tmp, o, total);
	pg_put16(tmp + l3 + 16, (uint16_t)~pg_fold(pg_sum(tmp + l3, total - l3, 0)));
	CHECK(tcp_csum_ok(tmp, total, l3));
}

/* The batch as sitd_gro_finish left it. */
static void check_batch(bool enabled, unsigned nb, unsigned ni)
{
	unsigned seen[GRO_BATCH] = { 0 }, order[GRO_BATCH], no = 0, kiov = 0, ndrop;
	bool head_merged[GRO_BATCH] = { false };
	struct sitd_stats want;

	CHECK(ni == g.nitem && ni <= nb && (nb != 0 || ni == 0));
	memset(&want, 0, sizeof(want));
	for (unsigned i = 0; i < ni; i++) {
		const struct sitd_gro_item *it = &g.item[i];
		const struct iovec *iov = &g.iov[g.iov_start[i]];
		unsigned h = it->idx[0];
		size_t flen = 0;

		CHECK(it->nseg >= 1 && it->nseg <= GRO_MAX_SEGS);
		CHECK(g.iov_start[i] == kiov && g.iov_cnt[i] == it->nseg + 1u);
		kiov += g.iov_cnt[i];
		CHECK(kiov <= 2 * GRO_BATCH);
		for (unsigned s = 0; s < it->nseg; s++) {
			CHECK(it->idx[s] < nb);
			seen[it->idx[s]]++;
			order[no++] = it->idx[s];
		}
		CHECK(iov[0].iov_len == VNET_HDR_LEN && iov[0].iov_base != NULL);
		CHECK(iov[1].iov_base == pk[h] && iov[1].iov_len == plen[h]);
		for (unsigned s = 1; s < it->nseg; s++) {
			const uint8_t *b = iov[1 + s].iov_base, *p = pk[it->idx[s]];

			/* In place: the tail of the segment's own buffer. */
			CHECK(b > p && b + iov[1 + s].iov_len == p + plen[it->idx[s]]);
		}
		for (unsigned k = 0; k < g.iov_cnt[i]; k++) {
			CHECK(flen + iov[k].iov_len <= sizeof(flat));
			memcpy(flat + flen, iov[k].iov_base, iov[k].iov_len);
			flen += iov[k].iov_len;
		}
		if (it->nseg > 1) {
			CHECK(enabled);
			check_merged(it, (uint32_t)flen);
			head_merged[h] = true;
			want.rx_gro_packets++;
			want.rx_gro_merged += it->nseg - 1u;
		} else {
			uint8_t vz[VNET_HDR_LEN] = { 0 };
			struct sitd_vnet_hdr kv;
			unsigned l3, hdr;

			CHECK(udp_partial_ref(orig[h], plen[h], &kv) >= 0);
			if (udp_partial_ref(orig[h], plen[h], &kv) == 1 || tcp_partial(orig[h], plen[h], &kv)) {
				vnet_hdr_write(vz, &kv);
			} else if (enabled && candidate(orig[h], plen[h], &l3, &hdr) == CAND) {
				vz[0] = VNET_F_DATA_VALID;
			}
			CHECK(!memcmp(flat, vz, VNET_HDR_LEN));
			CHECK(flen == VNET_HDR_LEN + plen[h]);
			CHECK(!memcmp(flat + VNET_HDR_LEN, orig[h], plen[h]));
		}
	}
	ndrop = 0;
	for (unsigned b = 0; b < nb; b++) {
		struct sitd_vnet_hdr kv;
		bool dropped = udp_partial_ref(orig[b], plen[b], &kv) < 0;

		int part = tcp_partial(orig[b], plen[b], &kv);

		CHECK(seen[b] == !dropped);
		want.drop[SITD_DROP_rx_gro_udp] += dropped;
		want.rx_csum_partial += part == 1;
		want.rx_gro_kernel += part == 2;
		ndrop += dropped;
	}
	CHECK(no + ndrop == nb);
	/* Within a flow, arrival order. */
	for (unsigned x = 0; x < no; x++)
		for (unsigned y = x + 1; y < no; y++)
			if (has_flow[order[x]] && has_flow[order[y]] &&
			    !memcmp(key[order[x]], key[order[y]], KEY_LEN))
				CHECK(order[x] < order[y]);
	/* Zero copy: only merged heads' headers were written. */
	for (unsigned b = 0; b < nb; b++) {
		unsigned l3, hdr;

		if (!head_merged[b]) {
			CHECK(!memcmp(pk[b], orig[b], plen[b]));
			continue;
		}
		CHECK(candidate(orig[b], plen[b], &l3, &hdr) == CAND);
		CHECK(!memcmp(pk[b] + hdr, orig[b] + hdr, plen[b] - hdr));
	}
	if (enabled)
		for (unsigned b = 0; b < nb; b++) {
			unsigned l3, hdr;

			struct sitd_vnet_hdr kv;

			want.rx_csum_bad += !udp_partial_ref(orig[b], plen[b], &kv) &&
					    candidate(orig[b], plen[b], &l3, &hdr) == CSUM_BAD;
		}
	CHECK(!memcmp(&st, &want, sizeof(st)));
}

static void unmerge_all(unsigned nb, unsigned ni)
{
	for (unsigned i = 0; i < ni; i++)
		sitd_gro_unmerge(&g, i);
	for (unsigned b = 0; b < nb; b++)
		CHECK(!memcmp(pk[b], orig[b], plen[b]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t idx0[GRO_BATCH][GRO_MAX_SEGS], nseg0[GRO_BATCH];
	bool enabled;
	unsigned nb, ni;

	if (size < 1 || size > (1u << 20))
		return -1;
	enabled = !(data[0] & 1);
	npk = 0;
	for (size_t i = 1; i + 3 <= size && npk < MAXPKT;) {
		uint8_t fl = data[i];
		size_t clen = pg_get16(data + i + 1);
		const uint8_t *c = data + i + 3;
		struct sitd_ipinfo ii;
		uint32_t len;

		i += 3;
		if (clen > size - i)
			clen = size - i;
		i += clen;
		if (fl & 4) {
			len = next_segment(c, clen, npk);
		} else {
			memcpy(work, c, clen);
			len = (uint32_t)clen;
		}
		if (len == 0)
			continue;
		if (fl & 1)
			fix_len(work, len);
		if (fl & 2)
			fix_tcp(work, len);
		if (fl & 8)
			partial_l4(work, len);
		if (!sitd_ip_parse(work, len, &ii))
			len = ii.len;	/* trimmed, as sitd_rx_decap hands it over */
		add_packet(len);
	}

	memset(&st, 0, sizeof(st));
	sitd_gro_init(&g, enabled, &st);
	g.mtu = MTU;
	for (unsigned k = 0; k < npk; k++)
		CHECK(sitd_gro_add(&g, pk[k], plen[k]) == (k < GRO_BATCH));
	nb = npk < GRO_BATCH ? npk : GRO_BATCH;
	CHECK(g.npkt == nb);
	ni = sitd_gro_finish(&g);
	check_batch(enabled, nb, ni);
	unmerge_all(nb, ni);

	/* The same packets again, in a batch of the same table: the same grouping. */
	if (data[0] & 2) {
		for (unsigned i = 0; i < ni; i++) {
			nseg0[i] = g.item[i].nseg;
			memcpy(idx0[i], g.item[i].idx, g.item[i].nseg);
		}
		memset(&st, 0, sizeof(st));
		sitd_gro_reset(&g);
		CHECK(sitd_gro_finish(&g) == 0);
		for (unsigned k = 0; k < nb; k++)
			CHECK(sitd_gro_add(&g, pk[k], plen[k]));
		CHECK(sitd_gro_finish(&g) == ni);
		for (unsigned i = 0; i < ni; i++)
			CHECK(g.item[i].nseg == nseg0[i] && !memcmp(g.item[i].idx, idx0[i], nseg0[i]));
		check_batch(enabled, nb, ni);
		unmerge_all(nb, ni);
	}

	for (unsigned k = 0; k < npk; k++) {
		free(pk[k]);
		free(orig[k]);
	}
	return 0;
}
