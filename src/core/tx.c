/* SPDX-License-Identifier: MIT */
#include "core/tx.h"

#include <string.h>

#include "core/csum.h"
#include "core/ecn.h"
#include "core/icmp.h"
#include "core/inet.h"
#include "core/mss.h"
#include "core/pmtu.h"
#include "core/sixrd.h"

/* The kernel's global ICMP budget: net.ipv4.icmp_msgs_per_sec 1000, burst 50. */
enum { ICMP_RATE = 1000, ICMP_BURST = 50 };

void sitd_tx_use(struct sitd_tx *tx, const struct sitd_conf *conf, struct sitd_stats *stats,
		 struct sitd_damper *damper)
{
	tx->damper = damper;
	tx->mode = conf->mode;
	tx->encap = conf->encap;
	tx->encap_len = (uint8_t)sitd_encap_len(conf);
	tx->encap_hdr = conf->encap == SITD_ENCAP_NONE ? OUTER_HDR_LEN :
			conf->encap == SITD_ENCAP_GUE ? GUE_HDR_LEN : 0;
	tx->local = conf->local;
	tx->remote = conf->remote;
	tx->rd = &conf->rd;
	tx->isatap = conf->isatap;
	tx->ttl = conf->ttl;
	tx->tos = conf->tos;
	tx->pmtudisc = conf->pmtudisc;
	tx->stats = stats;
	tx->outer6 = conf->outer == SITD_OUTER_IPV6;
	memcpy(tx->local6, conf->local6, 16);
	memcpy(tx->remote6, conf->remote6, 16);
	tx->encap_limit = conf->encap_limit_none ? -1 : conf->encap_limit;
	tx->flowlabel = conf->flowlabel & IP6_FLOWLABEL_MASK;
	tx->flowlabel_inherit = conf->flowlabel_inherit;
	if (tx->outer6 && conf->encap == SITD_ENCAP_NONE)
		tx->encap_hdr = IPV6_HDR_LEN;	/* and more per frame: out_hdr_len() */
	tx->clamp = conf->clamp_mss;
	tx->clamp_n = conf->clamp_mss_n;
	/* `ip link set mtu` changes it on the control thread (linkwatch.c): a relaxed load. */
	tx->dev_mtu = __atomic_load_n(&conf->mtu, __ATOMIC_RELAXED);
	tx->remote6_any = tx->outer6 && ip6_addr_is_unspecified(conf->remote6);
	tx->sport = conf->encap_sport;
	tx->dport = conf->encap_dport;
	tx->csum6 = conf->encap_csum6;
}

void sitd_tx_init(struct sitd_tx *tx, const struct sitd_conf *conf, struct sitd_stats *stats,
		  struct sitd_damper *damper, uint16_t first_id)
{
	sitd_tx_use(tx, conf, stats, damper);
	tx->addrs6 = NULL;
	tx->host6 = NULL;
	tx->routes6 = NULL;
	tx->pcache = NULL;
	tx->frame = 0;
	tx->ip_id = first_id;
	tx->frag_id6 = first_id;
	rl_init(&tx->icmp_rl, ICMP_RATE, ICMP_BURST);
	tx->nout = 0;
	tx->nseg = tx->next_seg = 0;
	tx->icmp_len = 0;
	tx->csum_defer = false;
	tx->pend_start = 0;
}

void sitd_outer_build(uint8_t *o, uint8_t tos, uint16_t totlen, uint16_t id, uint16_t frag,
		      uint8_t ttl, uint8_t proto, uint32_t src, uint32_t dst)
{
	o[IP4_VIHL] = 0x45;
	o[IP4_TOS] = tos;
	wr16(o + IP4_TOTLEN, totlen);
	wr16(o + IP4_ID, id);
	wr16(o + IP4_FRAG, frag);
	o[IP4_TTL] = ttl;
	o[IP4_PROTO] = proto;
	wr32(o + IP4_SRC, src);
	wr32(o + IP4_DST, dst);
	ip4_hdr_csum_set(o, IPV4_HDR_LEN);
}

void sitd_outer6_build(uint8_t *o, uint8_t tclass, uint32_t flowlabel, uint16_t plen,
		       uint8_t nxt, uint8_t hlim, const uint8_t *src, const uint8_t *dst)
{
	/* ip6_flow_hdr: version 6, the traffic class, the flow label's 20 bits. */
	wr32(o + IP6_VTCFL, 0x60000000u | (uint32_t)tclass << 20 | (flowlabel & IP6_FLOWLABEL_MASK));
	wr16(o + IP6_PLEN, plen);
	o[IP6_NXT] = nxt;
	o[IP6_HLIM] = hlim;
	memmove(o + IP6_SRC, src, 16);
	memmove(o + IP6_DST, dst, 16);
}

void sitd_tel_build(uint8_t *o, uint8_t nxt, uint8_t limit)
{
	o[0] = nxt;
	o[1] = 0;		/* hdr ext len: 8 bytes in all */
	o[2] = IP6_OPT_TEL;
	o[3] = 1;
	o[4] = limit;
	o[5] = IP6_OPT_PADN;
	o[6] = 1;
	o[7] = 0;
}

static enum sitd_tx_verdict tx_drop(struct sitd_tx *tx, enum sitd_drop reason)
{
	STAT_INC(tx->stats->drop[reason]);
	return SITD_TX_DROP;
}

/* NEEDS_CSUM's offsets: the field inside the packet, after the IP header(s). */
static bool csum_fits(uint32_t len, const struct sitd_vnet_hdr *vh, const struct sitd_ipinfo *ii)
{
	uint32_t start = vh->csum_start, field = start + vh->csum_offset;

	return start >= ii->l3len && field >= start && field + 2 <= len;
}

/* UDP's checksum, where a computed 0 goes as 0xffff (csum_store_udp)? */
static bool csum_is_udp(const struct sitd_vnet_hdr *vh, const struct sitd_ipinfo *ii)
{
	return ii->l4proto == IPPROTO_UDP && vh->csum_start == ii->l3len;
}

/* Finish a CHECKSUM_PARTIAL packet: the field already holds the pseudo-header sum. */
static void complete_csum(uint8_t *pkt, uint32_t len, uint32_t start, uint32_t off, bool udp)
{
	uint32_t sum = csum_partial(pkt + start, len - start, 0);

	if (udp)
		csum_store_udp(pkt + start + off, sum);
	else
		csum_store(pkt + start + off, sum);
}

/*
 * The ICMP error of n bytes built at tx->icmp + VNET_HDR_LEN goes to TUN, behind an
 * empty vnet header, unless none could be built (the rules forbid it) or the budget is
 * spent: false then, counted.
 */
static bool icmp_queue(struct sitd_tx *tx, size_t n, uint64_t now_ns)
{
	if (!n) {
		STAT_INC(tx->stats->tx_icmp_declined);
		return false;
	}
	if (!rl_allow(&tx->icmp_rl, now_ns)) {
		STAT_INC(tx->stats->tx_icmp_ratelimited);
		return false;
	}
	memset(tx->icmp, 0, VNET_HDR_LEN);
	tx->icmp_len = (uint32_t)(VNET_HDR_LEN + n);
	return true;
}

/*
 * ip6_tnl_xmit's nested tunnel rule (RFC 2473 4.1.1): an inner Tunnel Encapsulation Limit
 * of 0 is answered with Parameter Problem, code 0, pointing at the limit (the option's
 * offset + 2, as ipxip6_tnl_xmit); DROP when none may go.
 */
static enum sitd_tx_verdict tx_param_prob(struct sitd_tx *tx, const uint8_t *pkt, uint32_t len,
					  uint32_t ptr, uint64_t now_ns)
{
	uint8_t *ip = tx->icmp + VNET_HDR_LEN;
	size_t cap = sizeof(tx->icmp) - VNET_HDR_LEN, n;

	STAT_INC(tx->stats->drop[SITD_DROP_tx_encap_limit]);
	n = sitd_icmp6_error(ip, cap, ICMP6_PARAM_PROB, ICMP6_PARAMPROB_HDR, ptr,
			     sitd_icmp6_pick_src(tx->addrs6, tx->host6, pkt + IP6_SRC), pkt, len);
	if (!icmp_queue(tx, n, now_ns))
		return SITD_TX_DROP;
	return SITD_TX_ICMP;
}

/* An ICMP error for the sender of a packet that does not fit; DROP when none may go. */
static enum sitd_tx_verdict tx_too_big(struct sitd_tx *tx, const uint8_t *pkt, uint32_t len,
				       unsigned version, uint32_t mtu, uint64_t now_ns)
{
	uint8_t *ip = tx->icmp + VNET_HDR_LEN;
	size_t cap = sizeof(tx->icmp) - VNET_HDR_LEN, n;

	STAT_INC(tx->stats->drop[SITD_DROP_tx_too_big]);
	if (version == 6)
		n = sitd_icmp6_error(ip, cap, ICMP6_PACKET_TOO_BIG, 0, mtu,
				     sitd_icmp6_pick_src(tx->addrs6, tx->host6, pkt + IP6_SRC), pkt, len);
	else	/* from the packet's destination: one from the host's own address, coming in
		 * on a device, would be a martian source (fib_validate_source) and dropped */
		n = sitd_icmp4_error(ip, cap, ICMP4_DEST_UNREACH, ICMP4_FRAG_NEEDED,
				     mtu > 0xffff ? 0xffff : mtu, 0, pkt, len);
	if (!icmp_queue(tx, n, now_ns))
		return SITD_TX_DROP;
	if (version == 6)
		STAT_INC(tx->stats->tx_icmp_ptb);
	else
		STAT_INC(tx->stats->tx_icmp_frag_needed);
	return SITD_TX_ICMP;
}

/*
 * The damper's link failure (the kernel's dst_link_failure): ICMPv6 address unreachable
 * or ICMPv4 host unreachable to the sender, while its packet still goes out.
 */
static void tx_link_failure(struct sitd_tx *tx, const uint8_t *pkt, uint32_t len, unsigned version,
			    uint64_t now_ns)
{
	uint8_t *ip = tx->icmp + VNET_HDR_LEN;
	size_t cap = sizeof(tx->icmp) - VNET_HDR_LEN, n;

	if (version == 6)
		n = sitd_icmp6_error(ip, cap, ICMP6_DST_UNREACH, 3, 0,
				     sitd_icmp6_pick_src(tx->addrs6, tx->host6, pkt + IP6_SRC), pkt, len);
	else
		n = sitd_icmp4_error(ip, cap, ICMP4_DEST_UNREACH, 1, 0, 0, pkt, len);
	if (icmp_queue(tx, n, now_ns))
		STAT_INC(tx->stats->tx_icmp_link_failure);
}

static uint32_t frag_size(uint32_t path_mtu)
{
	return (path_mtu - OUTER_HDR_LEN) & ~7u;	/* RFC 791: offsets in 8-byte units */
}

/* IPv6: what follows [IPv6][Fragment] in each fragment, in 8-byte units (RFC 8200 4.5). */
static uint32_t frag6_size(uint32_t path_mtu)
{
	return (path_mtu - IPV6_HDR_LEN - IP6_FRAG_HDR_LEN) & ~7u;
}

/* The IPv6 outer option's bytes in this frame's outputs: 8, or 0 with none. */
static uint32_t tel_len(const struct sitd_tx *tx)
{
	return tx->tel >= 0 ? IP6_TEL_HDR_LEN : 0;
}

/* fou6 / gue6: the UDP header and GUE's, after the option; 0 without encap. */
static uint32_t udp6_len(const struct sitd_tx *tx)
{
	return tx->encap == SITD_ENCAP_NONE ? 0 : UDP_HDR_LEN + tx->encap_hdr;
}

/*
 * Bytes of the header area before the inner packet (where a segment's headers are
 * built): the IPv4 header, the GUE header, nothing for FOU; for an IPv6 outer header
 * [IPv6][Fragment when nf > 1][option].
 */
static uint32_t out_hdr_len(const struct sitd_tx *tx, uint32_t nf)
{
	if (!tx->outer6)
		return tx->encap_hdr;
	return IPV6_HDR_LEN + (nf > 1 ? IP6_FRAG_HDR_LEN : 0) + tel_len(tx) + udp6_len(tx);
}

/* How many outer packets one inner packet of `inner_len` bytes becomes. */
static uint32_t nfrags(const struct sitd_tx *tx, uint32_t inner_len)
{
	uint32_t fs;

	if (tx->outer6) {
		/* The option (and UDP) travels in the fragmentable part, with the inner packet. */
		if (out_hdr_len(tx, 1) + inner_len <= tx->path_mtu)
			return 1;
		fs = frag6_size(tx->path_mtu);
		return (tel_len(tx) + udp6_len(tx) + inner_len + fs - 1) / fs;
	}

	/* Over UDP the kernel writes the outer header, and fragments when DF is clear. */
	if (tx->df || tx->encap != SITD_ENCAP_NONE || inner_len + OUTER_HDR_LEN <= tx->path_mtu)
		return 1;
	fs = frag_size(tx->path_mtu);
	return (inner_len + fs - 1) / fs;
}

/*
 * A hash of the inner flow (addresses, protocol, ports), for encap-sport auto: each flow
 * its own UDP source port, as the kernel's udp_flow_src_port() gives it.  FNV-1a.
 */
static uint32_t flow_hash(const uint8_t *pkt, const struct sitd_ipinfo *ii, uint32_t len)
{
	unsigned a = ii->version == 4 ? IP4_SRC : IP6_SRC, alen = ii->version == 4 ? 8 : 32;
	uint32_t h = 2166136261u;

	for (unsigned i = 0; i < alen; i++)
		h = (h ^ pkt[a + i]) * 16777619u;
	h = (h ^ ii->l4proto) * 16777619u;
	/* Ports only when not a fragment: all pieces of a datagram must leave on one port. */
	if ((ii->l4proto == IPPROTO_TCP || ii->l4proto == IPPROTO_UDP) && !ii->fragment &&
	    ii->l3len + 4 <= len)
		for (unsigned i = 0; i < 4; i++)
			h = (h ^ pkt[ii->l3len + i]) * 16777619u;
	return h;
}

/*
 * An IPv6 outer header's destination, tx->dst6: remote6, or for remote any ip6_tnl_xmit's
 * NBMA rule: an inner IPv6 packet goes to the neighbour its route names (the gateway, or
 * the destination itself on the link: dst_neigh_lookup's key); an inner IPv4 packet has
 * no neighbour to go to (the kernel routes it toward ::, which fails).  A multicast next
 * hop has no one address to send to either: dropped, counted tx_no_nexthop.
 */
static enum sitd_tx_verdict tx_dst6(struct sitd_tx *tx, const uint8_t *pkt,
				    const struct sitd_ipinfo *ii)
{
	static const uint8_t onlink[16];
	const uint8_t *nh;

	memcpy(tx->dst6, tx->remote6, 16);
	if (!tx->remote6_any)
		return SITD_TX_SEND;
	if (ii->version != 6)
		return tx_drop(tx, SITD_DROP_tx_no_nexthop);
	nh = sitd_routes6_nexthop(tx->routes6, pkt + IP6_DST);
	if (!nh || !memcmp(nh, onlink, 16))
		nh = pkt + IP6_DST;
	if (nh[0] == 0xff || ip6_addr_is_unspecified(nh))
		return tx_drop(tx, SITD_DROP_tx_no_nexthop);
	memcpy(tx->dst6, nh, 16);
	return SITD_TX_SEND;
}

/*
 * The frame's outer destination, tx->dst: the configured remote, or for remote any the
 * next hop ipip6_tunnel_xmit() would choose, with that destination's own path MTU in
 * *path_mtu when one was learned.  SITD_TX_SEND to go on, else the counted drop.
 */
static enum sitd_tx_verdict tx_dst(struct sitd_tx *tx, const uint8_t *pkt,
				   const struct sitd_ipinfo *ii, uint32_t *path_mtu)
{
	/*
	 * remote any, as ipip6_tunnel_xmit(): on ISATAP the next hop's embedded IPv4
	 * address (RFC 5214 6.1, the interface identifier's embedded IPv4 address); a
	 * destination inside the 6rd / 6to4 prefix names its IPv4 address (try_6rd); else
	 * the route's next hop must be v4-compatible ::a.b.c.d.  On the link, the next hop is
	 * the destination itself, as the neighbour entry's key is; a route sitd has not seen
	 * counts as on the link: the packet did come out of this device.  Failures are
	 * dropped silently, as the kernel's tx_error.
	 */
	static const uint8_t onlink[16];
	struct sitd_auto au = { .rd = tx->rd, .isatap = tx->isatap };
	const uint8_t *nh;

	tx->dst = tx->remote;
	if (tx->outer6)
		return tx_dst6(tx, pkt, ii);
	if (tx->dst)
		return SITD_TX_SEND;
	if (ii->version != 6)
		return tx_drop(tx, SITD_DROP_tx_no_nexthop);
	nh = sitd_routes6_nexthop(tx->routes6, pkt + IP6_DST);
	if (!nh || !memcmp(nh, onlink, 16))
		nh = pkt + IP6_DST;
	switch (sitd_auto_tx_dst(&au, pkt + IP6_DST, nh, &tx->dst)) {
	case SITD_DST_OK:
		break;
	case SITD_DST_NO_NEXTHOP:
		return tx_drop(tx, SITD_DROP_tx_no_nexthop);
	case SITD_DST_NOT_ISATAP:
		return tx_drop(tx, SITD_DROP_tx_isatap_nexthop);
	case SITD_DST_NOT_V4COMPAT:
		return tx_drop(tx, SITD_DROP_tx_not_v4compat);
	}
	if (!tx->dst || tx->dst == 0xffffffffu || ip4_addr_is_multicast(tx->dst))
		return tx_drop(tx, SITD_DROP_tx_no_nexthop);
	/* This destination's own path MTU, when one was learned (RFC 4213 3.2.2). */
	if (sitd_pmtu_cache_get(tx->pcache, tx->dst))
		*path_mtu = sitd_pmtu_cache_get(tx->pcache, tx->dst);
	return SITD_TX_SEND;
}

/*
 * tx_unit's MTU judgement for an IPv6 outer header, as ip6_tnl_xmit makes it (pmtu.h,
 * sitd_pmtu_decide6).  An inner IPv4 packet too big is answered with Fragmentation
 * Needed whatever its DF, as ipxip6_tnl_xmit does, never fragmented; the entry point
 * fragments only what the floors let through (an inner IPv6 packet of up to 1280 bytes
 * on a path that cannot carry it whole, RFC 2473 7.1).
 */
static enum sitd_tx_verdict tx_unit6(struct sitd_tx *tx, uint8_t *pkt, uint32_t len,
				     const struct sitd_ipinfo *ii, uint32_t path_mtu,
				     uint64_t now_ns, uint32_t unit)
{
	/* The option goes also with encaplimit none when the inner packet had one. */
	uint32_t elen = tx->encap_len + (tx->encap_limit < 0 && tx->tel >= 0 ? IP6_TEL_HDR_LEN : 0);
	uint32_t max = IP6_MAX_PAYLOAD + IPV6_HDR_LEN - elen;
	struct sitd_pmtu d;

	/*
	 * Every IPv6 link carries 1280 bytes (RFC 8200 5), and the kernel never learns a
	 * smaller path MTU (__ip6_rt_update_pmtu raises it to IPV6_MIN_MTU).
	 */
	if (path_mtu < IPV6_MIN_MTU)
		path_mtu = IPV6_MIN_MTU;
	/* No payload length (or train to reassemble) beyond 65535 bytes. */
	if (unit > max)
		return tx_too_big(tx, pkt, len, ii->version, max, now_ns);
	d = sitd_pmtu_decide6(path_mtu, elen, ii->version, unit);
	if (d.verdict == PMTU_TOO_BIG)
		return tx_too_big(tx, pkt, len, ii->version, d.mtu, now_ns);
	tx->pkt = pkt;
	tx->len = len;
	tx->path_mtu = path_mtu;
	tx->df = d.df;
	if (nfrags(tx, unit) > SITD_TX_MAX_OUT)
		return tx_drop(tx, SITD_DROP_tx_frag_too_many);
	return SITD_TX_SEND;
}

/*
 * IPv6 outer, before the MTU: ip6_tnl_start_xmit's loop check (an inner IPv6 source
 * that is the remote, ip6_tnl_addr_conflict) and ipxip6_tnl_xmit's nested tunnel rule:
 * the frame's option limit in tx->tel, the configured one, or the inner packet's own
 * less one (also with encaplimit none), or Parameter Problem for an inner limit of 0.
 */
static enum sitd_tx_verdict tx_nested(struct sitd_tx *tx, const uint8_t *pkt, uint32_t len,
				      const struct sitd_ipinfo *ii, uint64_t now_ns)
{
	unsigned off;

	tx->tel = tx->encap_limit;
	if (!tx->outer6 || ii->version != 6)
		return SITD_TX_SEND;
	if (!memcmp(pkt + IP6_SRC, tx->remote6, 16))
		return tx_drop(tx, SITD_DROP_tx_src_is_remote);
	off = sitd_ip6_find_enc_lim(pkt, len);
	if (!off)
		return SITD_TX_SEND;
	if (pkt[off + 2] == 0)
		return tx_param_prob(tx, pkt, len, off + 2, now_ns);
	tx->tel = (int16_t)(pkt[off + 2] - 1);
	return SITD_TX_SEND;
}

/*
 * The kernel's flow label when none is fixed or inherited (ip6_make_flowlabel with
 * net.ipv6.auto_flowlabels 1): a hash of the inner flow, turned by 16 bits, its low 20
 * bits (RFC 6437 3).  The same for every segment and fragment of a flow.
 */
static uint32_t auto_flowlabel(uint32_t hash)
{
	return (hash << 16 | hash >> 16) & IP6_FLOWLABEL_MASK;
}

/*
 * The unit the path must carry: with GSO one segment (the vnet header checked against the
 * packet, never trusted), else the packet, its NEEDS_CSUM finished or left for the device.
 * The MTU is judged on it, and the split set up (tx->pkt, len, hdrlen, gso_size, df,
 * path_mtu; *nseg segments).  SITD_TX_SEND to go on, else the drop or the ICMP error.
 */
static enum sitd_tx_verdict tx_unit(struct sitd_tx *tx, const struct sitd_vnet_hdr *vh,
				    uint8_t *pkt, uint32_t len, const struct sitd_ipinfo *ii,
				    uint32_t path_mtu, uint64_t now_ns, uint32_t *nseg)
{
	struct sitd_pmtu d;
	uint32_t unit, payload;

	*nseg = 1;
	tx->hdrlen = 0;
	tx->l3len = ii->l3len;
	if (vh->gso_type != VNET_GSO_NONE) {
		unsigned type = vh->gso_type & (unsigned)~VNET_GSO_ECN;
		uint32_t thlen;

		if (type != VNET_GSO_TCPV4 && type != VNET_GSO_TCPV6)
			return tx_drop(tx, SITD_DROP_tx_gso_unsupported);
		/* Never trust hdr_len; csum_start, when given, must be where TCP starts. */
		if ((type == VNET_GSO_TCPV4) != (ii->version == 4) || vh->gso_size == 0 ||
		    ii->fragment || ii->l4proto != IPPROTO_TCP ||
		    ((vh->flags & VNET_F_NEEDS_CSUM) && vh->csum_start != ii->l3len))
			return tx_drop(tx, SITD_DROP_tx_vnet_bad);
		if (ii->l3len > INNER_L3_MAX)
			return tx_drop(tx, SITD_DROP_tx_hdr_too_long);
		if (ii->l3len + TCP_HDR_LEN > len)
			return tx_drop(tx, SITD_DROP_tx_malformed);
		thlen = (pkt[ii->l3len + TCP_OFF] >> 4) * 4u;
		if (thlen < TCP_HDR_LEN || ii->l3len + thlen > len)
			return tx_drop(tx, SITD_DROP_tx_malformed);
		tx->hdrlen = ii->l3len + thlen;
		tx->gso_size = vh->gso_size;
		payload = len - tx->hdrlen;
		*nseg = payload ? (payload + vh->gso_size - 1) / vh->gso_size : 1;
		unit = tx->hdrlen + (payload < vh->gso_size ? payload : vh->gso_size);
	} else {
		if ((vh->flags & VNET_F_NEEDS_CSUM) && !csum_fits(len, vh, ii))
			return tx_drop(tx, SITD_DROP_tx_vnet_bad);
		/* Left as it is while it may yet go whole to a device that finishes it. */
		if ((vh->flags & VNET_F_NEEDS_CSUM) && tx->csum_defer && tx->encap == SITD_ENCAP_NONE) {
			tx->pend_start = vh->csum_start;
			tx->pend_off = vh->csum_offset;
			tx->pend_udp = csum_is_udp(vh, ii);
		} else if (vh->flags & VNET_F_NEEDS_CSUM) {
			complete_csum(pkt, len, vh->csum_start, vh->csum_offset, csum_is_udp(vh, ii));
			STAT_INC(tx->stats->tx_csum_completed);
		}
		unit = len;
	}

	if (tx->outer6)
		return tx_unit6(tx, pkt, len, ii, path_mtu, now_ns, unit);
	/*
	 * No outer packet (or fragment train) can exceed 65535 bytes: larger is too big
	 * whatever the path, and may not be fragmented into a train no one can reassemble.
	 */
	if (unit > (uint32_t)IP_MAX_LEN - tx->encap_len) {
		if (ii->version == 6 || ii->df)
			return tx_too_big(tx, pkt, len, ii->version, IP_MAX_LEN - tx->encap_len, now_ns);
		return tx_drop(tx, SITD_DROP_tx_oversize);
	}
	d = sitd_pmtu_decide(tx->pmtudisc, path_mtu, tx->encap_len, ii->version, ii->df, unit);
	if (d.verdict == PMTU_DROP_FLOOR || (!d.df && path_mtu < IPV4_MIN_MTU))
		return tx_drop(tx, SITD_DROP_tx_mtu_floor);
	if (d.verdict == PMTU_TOO_BIG)
		return tx_too_big(tx, pkt, len, ii->version, d.mtu, now_ns);

	tx->pkt = pkt;
	tx->len = len;
	tx->path_mtu = path_mtu;
	tx->df = d.df;
	if (nfrags(tx, unit) > SITD_TX_MAX_OUT)
		return tx_drop(tx, SITD_DROP_tx_frag_too_many);
	return SITD_TX_SEND;
}

/*
 * clamp-mss on a frame from TUN, before its checksum may be completed (tx_unit).  A SYN
 * is never a GSO frame: those are skipped unread.  NEEDS_CSUM with the sum starting at
 * the TCP header leaves the field holding the pseudo-header sum, which the option does
 * not enter (SITD_MSS_CSUM_PARTIAL); a partial sum that starts elsewhere is no TCP
 * checksum sitd could keep right, and is left alone.
 */
static void tx_clamp(struct sitd_tx *tx, const struct sitd_vnet_hdr *vh, uint8_t *pkt, uint32_t len,
		     const struct sitd_ipinfo *ii, uint32_t path_mtu)
{
	enum sitd_mss_csum cs = SITD_MSS_CSUM_FULL;
	uint32_t mtu = tx->dev_mtu;
	uint16_t mss = tx->clamp_n;

	if (vh->gso_type != VNET_GSO_NONE || ii->l4proto != IPPROTO_TCP)
		return;
	if (vh->flags & VNET_F_NEEDS_CSUM) {
		if (vh->csum_start != ii->l3len || vh->csum_offset != TCP_CSUM)
			return;
		cs = SITD_MSS_CSUM_PARTIAL;
	}
	if (!mss) {
		if (path_mtu > tx->encap_len && path_mtu - tx->encap_len < mtu)
			mtu = path_mtu - tx->encap_len;
		mss = sitd_mss_fit(mtu, ii->version);
	}
	if (sitd_mss_clamp(pkt, len, ii, mss, cs))
		STAT_INC(tx->stats->tx_mss_clamped);
}

enum sitd_tx_verdict sitd_tx_begin(struct sitd_tx *tx, uint8_t *frame, uint32_t len,
				   uint32_t path_mtu, uint64_t now_ns)
{
	enum sitd_tx_verdict v;
	struct sitd_vnet_hdr vh;
	struct sitd_ipinfo ii;
	uint32_t nseg;
	uint8_t *pkt;
	uint8_t base_tos;

	tx->nseg = tx->next_seg = 0;
	tx->icmp_len = 0;
	tx->pend_start = 0;
	if (len < VNET_HDR_LEN)
		return tx_drop(tx, SITD_DROP_tx_vnet_bad);
	vnet_hdr_read(&vh, frame);
	pkt = frame + VNET_HDR_LEN;
	len -= VNET_HDR_LEN;

	if (sitd_ip_parse(pkt, len, &ii))
		return tx_drop(tx, SITD_DROP_tx_malformed);
	if (!sitd_mode_carries(tx->mode, ii.version))
		return tx_drop(tx, SITD_DROP_tx_mode);
	len = ii.len;	/* the kernel never pads, but a declared length is what we carry */
	v = tx_dst(tx, pkt, &ii, &path_mtu);
	if (v != SITD_TX_SEND)
		return v;
	if (tx->clamp)
		tx_clamp(tx, &vh, pkt, len, &ii, path_mtu);
	v = tx_nested(tx, pkt, len, &ii, now_ns);
	if (v != SITD_TX_SEND)
		return v;
	v = tx_unit(tx, &vh, pkt, len, &ii, path_mtu, now_ns, &nseg);
	if (v != SITD_TX_SEND)
		return v;

	base_tos = (tx->tos & SITD_TOS_INHERIT) ? ii.dsfield : tx->tos;
	tx->outer_tos = ecn_encapsulate(base_tos, ii.dsfield);
	tx->outer_ttl = tx->ttl ? tx->ttl : ii.ttl;
	tx->outer_proto = sitd_outer_proto(ii.version);
	tx->frame++;
	if (tx->encap != SITD_ENCAP_NONE || tx->outer6)
		tx->hash = flow_hash(pkt, &ii, len);
	if (tx->outer6) {
		/* ipxip6_tnl_xmit: fixed, or inherited from an inner IPv6 packet; else auto. */
		tx->outer_fl = tx->flowlabel;
		if (tx->flowlabel_inherit)
			tx->outer_fl = ii.version == 6 ? rd32(pkt + IP6_VTCFL) & IP6_FLOWLABEL_MASK : 0;
		if (!tx->outer_fl)
			tx->outer_fl = auto_flowlabel(tx->hash);
	}
	if (tx->damper && damper_take(tx->damper, now_ns))
		tx_link_failure(tx, pkt, len, ii.version, now_ns);
	/* Only now: after any other verdict, sitd_tx_next() must find nothing to send. */
	tx->nseg = nseg;
	if (tx->hdrlen) {
		STAT_INC(tx->stats->tx_gso_packets);
		STAT_ADD(tx->stats->tx_gso_segments, tx->nseg);
	}
	return SITD_TX_SEND;
}

/* Add bytes [off, off + n) of the body made of slices a and b to an iovec list. */
static void iov_range(struct sitd_out *o, const struct iovec *a, const struct iovec *b,
		      uint32_t off, uint32_t n)
{
	if (off < a->iov_len) {
		uint32_t take = (uint32_t)a->iov_len - off;

		if (take > n)
			take = n;
		o->iov[o->iovcnt].iov_base = (uint8_t *)a->iov_base + off;
		o->iov[o->iovcnt++].iov_len = take;
		n -= take;
		off = 0;
	} else {
		off -= (uint32_t)a->iov_len;
	}
	if (n) {
		o->iov[o->iovcnt].iov_base = (uint8_t *)b->iov_base + off;
		o->iov[o->iovcnt++].iov_len = n;
	}
}

/* The one's complement sum of n bytes that start at an odd (odd = true) offset of a sum. */
static uint32_t csum_at(const void *p, size_t n, bool odd)
{
	uint32_t s = csum_fold(csum_partial(p, n, 0));

	return odd ? (uint16_t)(s << 8 | s >> 8) : s;
}

/*
 * fou6 / gue6's UDP source port: encap-sport, or for auto one of the kernel's ephemeral
 * range (udp_flow_src_port with ip_local_port_range's default 32768..60999) by the flow.
 */
uint16_t sitd_udp6_sport(uint16_t sport, uint32_t hash)
{
	enum { PORT_MIN = 32768, PORT_MAX = 60999 };

	if (sport)
		return sport;
	return (uint16_t)((((uint64_t)hash * (PORT_MAX - PORT_MIN)) >> 32) + PORT_MIN);
}

/*
 * [UDP][GUE] for one inner packet (slices a, b) as fou6_build_udp writes them: the ports,
 * the length, and the checksum over the IPv6 pseudo-header, the UDP header, GUE and the
 * inner packet (RFC 8200 8.1: mandatory over IPv6, a computed 0 sent as 0xffff), or 0 with
 * noencap-udp6-csum (udp6_set_csum's nocheck: RFC 6935 / 6936's zero checksum).
 */
static void udp6_build(const struct sitd_tx *tx, uint8_t *u, const struct iovec *a,
		       const struct iovec *b, uint32_t inner_len)
{
	uint32_t ulen = udp6_len(tx), len = ulen + inner_len, sum;

	wr16(u, sitd_udp6_sport(tx->sport, tx->hash));
	wr16(u + 2, tx->dport);
	wr16(u + 4, (uint16_t)len);
	u[6] = u[7] = 0;
	if (tx->encap == SITD_ENCAP_GUE) {
		/* GUE version 0, no flags, no options: the inner protocol only. */
		u[8] = 0;
		u[9] = tx->outer_proto;
		u[10] = u[11] = 0;
	}
	if (!tx->csum6)
		return;
	sum = csum_pseudo6(tx->local6, tx->dst6, IPPROTO_UDP, len);
	sum = csum_add(sum, csum_at(u, ulen, false));
	sum = csum_add(sum, csum_at(a->iov_base, a->iov_len, false));
	if (b->iov_len)
		sum = csum_add(sum, csum_at(b->iov_base, b->iov_len, (ulen + a->iov_len) & 1));
	csum_store_udp(u + 6, sum);
}

/*
 * emit() for an IPv6 outer header: [IPv6][option][inner], or when the packet must be
 * fragmented (RFC 8200 4.5) a train of [IPv6][Fragment][fragmentable part], in which the
 * option counts as fragmentable (it is no header routers en route read) and goes in the
 * first fragment with the start of the inner packet.  (The kernel's ip6_find_1stfragopt
 * would put the Fragment header after a Destination Options header.)
 */
static void emit6(struct sitd_tx *tx, const struct iovec *a, const struct iovec *b,
		  uint32_t inner_len, uint32_t nfrag)
{
	uint32_t optlen = tel_len(tx), ulen = udp6_len(tx), pre = optlen + ulen;
	uint32_t body = pre + inner_len;
	uint32_t fs = nfrag > 1 ? frag6_size(tx->path_mtu) : body, id = 0;
	uint8_t proto = ulen ? IPPROTO_UDP : tx->outer_proto;
	uint8_t first = optlen ? IPPROTO_DSTOPTS : proto;
	uint8_t udp[UDP_HDR_LEN + GUE_HDR_LEN];

	if (ulen)
		udp6_build(tx, udp, a, b, inner_len);
	if (nfrag > 1)
		id = tx->frag_id6++;
	for (uint32_t k = 0, off = 0; k < nfrag; k++, off += fs) {
		struct sitd_out *o = &tx->out[tx->nout];
		uint8_t *h = tx->hdr[tx->nout];
		uint32_t n = body - off < fs ? body - off : fs, hl = IPV6_HDR_LEN, data;

		if (nfrag > 1) {
			h[hl] = first;
			h[hl + 1] = 0;
			wr16(h + hl + 2, (uint16_t)(off | (k + 1 < nfrag ? IP6_FRAG_MF : 0)));
			wr32(h + hl + 4, id);
			hl += IP6_FRAG_HDR_LEN;
		}
		if (k == 0 && optlen) {
			sitd_tel_build(h + hl, proto, (uint8_t)tx->tel);
			hl += IP6_TEL_HDR_LEN;
		}
		if (k == 0 && ulen) {
			memcpy(h + hl, udp, ulen);
			hl += ulen;
		}
		data = k == 0 ? n - pre : n;
		sitd_outer6_build(h, tx->outer_tos, tx->outer_fl, (uint16_t)(hl - IPV6_HDR_LEN + data),
				  nfrag > 1 ? IPPROTO_FRAGMENT : first, tx->outer_ttl, tx->local6,
				  tx->dst6);
		o->dst = 0;
		o->iov[0].iov_base = h;
		o->iov[0].iov_len = hl;
		o->iovcnt = 1;
		iov_range(o, a, b, k == 0 ? 0 : off - pre, data);
		o->len = hl + data;
		o->csum_start = 0;
		tx->nout++;
	}
	if (nfrag > 1)
		STAT_ADD(tx->stats->tx_fragments, nfrag);
}

/*
 * Put one inner packet (body = slice a then slice b) behind an outer header in slot
 * tx->nout, or, when it must be fragmented, behind one outer header per fragment in the
 * slots that follow (RFC 791 3.2: same ID, offsets in 8-byte units, MF on all but the
 * last).  The caller checked that the slots are free.
 */
static void emit(struct sitd_tx *tx, const struct iovec *a, const struct iovec *b,
		 uint32_t inner_len, uint32_t nfrag)
{
	uint16_t id;
	uint32_t fs;

	if (tx->outer6) {
		emit6(tx, a, b, inner_len, nfrag);
		return;
	}
	if (tx->encap != SITD_ENCAP_NONE) {
		struct sitd_out *o = &tx->out[tx->nout];
		uint8_t *h = tx->hdr[tx->nout];

		if (tx->encap == SITD_ENCAP_GUE) {
			/* GUE version 0, no flags, no options: the inner protocol only. */
			h[0] = 0;
			h[1] = tx->outer_proto;
			h[2] = h[3] = 0;
		}
		if (a->iov_base == h + tx->encap_hdr) {
			/* A segment: its headers were built right after the GUE header. */
			o->iov[0].iov_base = h;
			o->iov[0].iov_len = tx->encap_hdr + a->iov_len;
			o->iovcnt = 1;
		} else {
			o->iovcnt = 0;
			if (tx->encap_hdr) {
				o->iov[0].iov_base = h;
				o->iov[0].iov_len = tx->encap_hdr;
				o->iovcnt = 1;
			}
			o->iov[o->iovcnt++] = *a;
		}
		if (b->iov_len)
			o->iov[o->iovcnt++] = *b;
		o->len = tx->encap_hdr + inner_len;
		o->tos = tx->outer_tos;
		o->ttl = tx->outer_ttl;
		o->df = tx->df;
		o->hash = tx->hash;
		o->frame = tx->frame;
		o->dst = tx->dst;
		o->csum_start = 0;
		tx->nout++;
		return;
	}
	id = tx->ip_id++;
	fs = nfrag > 1 ? frag_size(tx->path_mtu) : inner_len;

	for (uint32_t k = 0, off = 0; k < nfrag; k++, off += fs) {
		struct sitd_out *o = &tx->out[tx->nout];
		uint8_t *h = tx->hdr[tx->nout];
		uint32_t n = inner_len - off < fs ? inner_len - off : fs;
		uint16_t frag = tx->df ? IP4_DF : 0;

		if (nfrag > 1)
			frag = (uint16_t)(off / 8 | (k + 1 < nfrag ? IP4_MF : 0));
		sitd_outer_build(h, tx->outer_tos, (uint16_t)(OUTER_HDR_LEN + n), id, frag,
				 tx->outer_ttl, tx->outer_proto, tx->local, tx->dst);
		o->dst = tx->dst;
		o->iov[0].iov_base = h;
		o->iov[0].iov_len = OUTER_HDR_LEN;
		o->iovcnt = 1;
		iov_range(o, a, b, off, n);
		o->len = OUTER_HDR_LEN + n;
		o->csum_start = 0;
		tx->nout++;
	}
	if (nfrag > 1)
		STAT_ADD(tx->stats->tx_fragments, nfrag);
}

/*
 * Build segment i's L3 and TCP headers at ih (kernel rules: net/ipv4/tcp_offload.c).
 * partial: the checksum field gets the pseudo-header sum only, for the device to finish.
 */
static void gso_seg_headers(struct sitd_tx *tx, uint8_t *ih, uint32_t i, const uint8_t *payload,
			    uint32_t plen, bool partial)
{
	const uint8_t *pkt = tx->pkt;
	uint32_t seglen = tx->hdrlen + plen, thlen = tx->hdrlen - tx->l3len;
	uint8_t *th = ih + tx->l3len;
	uint32_t sum;
	uint8_t flags;

	memcpy(ih, pkt, tx->hdrlen);
	if (ip_version(pkt) == 4) {
		wr16(ih + IP4_TOTLEN, (uint16_t)seglen);
		wr16(ih + IP4_ID, (uint16_t)(rd16(pkt + IP4_ID) + i));
		ip4_hdr_csum_set(ih, tx->l3len);
		sum = csum_pseudo4(ih + IP4_SRC, ih + IP4_DST, IPPROTO_TCP, thlen + plen);
	} else {
		/* Extension headers count as payload (RFC 8200 3). */
		wr16(ih + IP6_PLEN, (uint16_t)(seglen - IPV6_HDR_LEN));
		sum = csum_pseudo6(ih + IP6_SRC, ih + IP6_DST, IPPROTO_TCP, thlen + plen);
	}
	wr32(th + TCP_SEQ, rd32(pkt + tx->l3len + TCP_SEQ) + i * tx->gso_size);
	flags = th[TCP_FLAGS];
	if (i + 1 < tx->nseg)
		flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
	if (i > 0)
		flags &= (uint8_t)~TCP_CWR;	/* CWR once per window: the first segment */
	th[TCP_FLAGS] = flags;
	if (partial) {
		csum_st16(th + TCP_CSUM, csum_fold(sum));
		return;
	}
	th[TCP_CSUM] = th[TCP_CSUM + 1] = 0;
	sum = csum_partial(th, thlen, sum);
	csum_store(th + TCP_CSUM, csum_partial(payload, plen, sum));
}

bool sitd_tx_next(struct sitd_tx *tx)
{
	while (tx->next_seg < tx->nseg) {
		struct iovec a, b;
		uint32_t inner_len, nf, start, field;
		bool partial, udp;

		if (tx->hdrlen) {
			uint32_t i = tx->next_seg, off = tx->hdrlen + i * tx->gso_size;
			uint32_t plen = tx->len - off < tx->gso_size ? tx->len - off : tx->gso_size;
			uint8_t *ih;

			inner_len = tx->hdrlen + plen;
			nf = nfrags(tx, inner_len);
			if (tx->nout + nf > SITD_TX_MAX_OUT)
				return false;
			ih = tx->hdr[tx->nout] + out_hdr_len(tx, nf);
			partial = tx->csum_defer && tx->encap == SITD_ENCAP_NONE && nf == 1;
			gso_seg_headers(tx, ih, i, tx->pkt + off, plen, partial);
			a.iov_base = ih;
			a.iov_len = tx->hdrlen;
			b.iov_base = tx->pkt + off;
			b.iov_len = plen;
			start = partial ? tx->l3len : 0;
			field = TCP_CSUM;
			udp = false;
		} else {
			inner_len = tx->len;
			nf = nfrags(tx, inner_len);
			if (tx->nout + nf > SITD_TX_MAX_OUT)
				return false;
			/* A fragmented packet cannot be finished by the device: here, then. */
			if (tx->pend_start && nf > 1) {
				complete_csum(tx->pkt, tx->len, tx->pend_start, tx->pend_off, tx->pend_udp);
				STAT_INC(tx->stats->tx_csum_completed);
				tx->pend_start = 0;
			}
			a.iov_base = tx->pkt;
			a.iov_len = tx->len;
			b.iov_base = NULL;
			b.iov_len = 0;
			start = tx->pend_start;
			field = tx->pend_off;
			udp = tx->pend_udp;
		}
		emit(tx, &a, &b, inner_len, nf);
		if (start) {
			struct sitd_out *o = &tx->out[tx->nout - 1];

			o->csum_start = (uint16_t)(out_hdr_len(tx, 1) + start);
			o->csum_off = (uint16_t)field;
			o->csum_udp = udp;
		}
		tx->next_seg++;
	}
	return true;
}

/* The byte at offset off of an output. */
static uint8_t *out_byte(struct sitd_out *o, uint32_t off)
{
	unsigned k = 0;

	while (off >= o->iov[k].iov_len)
		off -= (uint32_t)o->iov[k++].iov_len;
	return (uint8_t *)o->iov[k].iov_base + off;
}

void sitd_out_csum_finish(struct sitd_out *o)
{
	uint32_t sum = 0, pos = 0, start = o->csum_start;
	uint16_t c;

	if (!start)
		return;
	for (unsigned k = 0; k < o->iovcnt; pos += (uint32_t)o->iov[k++].iov_len) {
		uint32_t from = start > pos ? start - pos : 0, n = (uint32_t)o->iov[k].iov_len, s;

		if (from >= n)
			continue;
		s = csum_fold(csum_partial((uint8_t *)o->iov[k].iov_base + from, n - from, 0));
		/* A piece that starts at an odd offset of the sum has its bytes swapped in it. */
		if ((pos + from - start) & 1)
			s = (uint16_t)(s << 8 | s >> 8);
		sum = csum_add(sum, s);
	}
	c = (uint16_t)~csum_fold(sum);
	if (!c && o->csum_udp)
		c = 0xffff;
	memcpy(out_byte(o, start + o->csum_off), &c, 1);
	memcpy(out_byte(o, start + o->csum_off + 1), (uint8_t *)&c + 1, 1);
	o->csum_start = 0;
}
