/* SPDX-License-Identifier: MIT */
#include "core/icmperr.h"

#include <string.h>

#include "core/icmp.h"
#include "core/stats.h"
#include "core/wire.h"

enum {
	ICMP4_SR_FAILED = 5,		/* code of DEST_UNREACH */
	ICMP4_HOST_UNREACH = 1,
	ICMP4_EXC_TTL = 0,		/* code of TIME_EXCEEDED */
	ICMP4_REDIRECT = 5,
	ICMP6_ADDR_UNREACH = 3,		/* code of ICMPv6 DST_UNREACH */
	ICMP6_EXC_HOPLIMIT = 0,
};

enum sitd_err_action sitd_icmp_err(const struct sitd_conf *c, const struct sitd_err *e, uint8_t *out,
				   size_t cap, size_t *out_len)
{
	const uint8_t *q = e->quoted, *inner;
	unsigned hl;
	size_t ilen, n;
	uint8_t proto;
	bool exceeded, relayable;

	*out_len = 0;
	/* Ours: an outer packet from local to remote, of a protocol this tunnel sends. */
	if (e->len < IPV4_HDR_LEN || ip_version(q) != 4)
		return ERR_NOT_OURS;
	hl = (q[IP4_VIHL] & 0x0f) * 4u;
	proto = q[IP4_PROTO];
	/* remote any (6to4, 6rd, ISATAP): to any destination. */
	if (hl < IPV4_HDR_LEN || hl > e->len || (c->remote && rd32(q + IP4_DST) != c->remote) ||
	    (c->local && rd32(q + IP4_SRC) != c->local) ||
	    (proto != IPPROTO_IPV6 && proto != IPPROTO_IPIP) ||
	    (c->mode != SITD_MODE_ANY && proto != (uint8_t)c->mode))
		return ERR_NOT_OURS;

	switch (e->type) {
	case ICMP4_DEST_UNREACH:
		if (e->code == ICMP4_FRAG_NEEDED)
			return ERR_PMTU;
		if (e->code == ICMP4_SR_FAILED)
			return ERR_IGNORE;
		exceeded = false;
		break;
	case ICMP4_TIME_EXCEEDED:
		if (e->code != ICMP4_EXC_TTL)
			return ERR_IGNORE;
		exceeded = true;
		break;
	default:
		return ERR_IGNORE;	/* redirects the kernel applies itself; the rest are noise */
	}

	inner = q + hl;
	ilen = e->len - hl;
	relayable = false;
	if (proto == IPPROTO_IPV6 && ilen >= IPV6_HDR_LEN + 8 && ip_version(inner) == 6) {
		uint8_t src[16] = { [10] = 0xff, [11] = 0xff };

		relayable = true;
		wr32(src + 12, e->offender);
		/* The quote may be cut short: relay what there is, with its own length. */
		n = sitd_icmp6_error_quote(out, cap, exceeded ? ICMP6_TIME_EXCEEDED : ICMP6_DST_UNREACH,
					   exceeded ? ICMP6_EXC_HOPLIMIT : ICMP6_ADDR_UNREACH, 0, src,
					   inner, ilen);
	} else if (proto == IPPROTO_IPIP && ilen >= IPV4_HDR_LEN && ip_version(inner) == 4 &&
		   ilen >= (inner[IP4_VIHL] & 0x0fu) * 4u + 8) {
		n = sitd_icmp4_error_quote(out, cap, exceeded ? ICMP4_TIME_EXCEEDED : ICMP4_DEST_UNREACH,
					   exceeded ? ICMP4_EXC_TTL : ICMP4_HOST_UNREACH, 0, e->offender,
					   inner, ilen);
	} else {
		n = 0;
	}
	if (n) {
		*out_len = n;
		return ERR_RELAY;
	}
	if (relayable)
		return ERR_DECLINED;
	if (exceeded && c->ttl == 0)
		return ERR_IGNORE;
	/* No damper on an NBMA tunnel: ipip6_err() stops at `t->parms.iph.daddr == 0`. */
	if (!c->remote)
		return ERR_IGNORE;
	return ERR_DAMP;
}

/* ---- ICMPv6 errors about IPv6 outer packets (ip6tnl) ---- */

enum {
	ICMP6_PARAMPROB = 4, ICMP6_HDR_FIELD = 0,	/* code of PARAMPROB */
	NH_HOP = 0, NH_ROUTING = 43, NH_FRAGMENT = 44, NH_AUTH = 51, NH_NONE = 59, NH_DEST = 60,
	TLV_PAD1 = 0, TLV_ENCAP_LIMIT = 4,		/* IPV6_TLV_TNL_ENCAP_LIMIT */
};

static bool err6_ext_hdr(uint8_t nh)
{
	return nh == NH_HOP || nh == NH_ROUTING || nh == NH_FRAGMENT || nh == NH_AUTH ||
	       nh == NH_NONE || nh == NH_DEST;
}

/* The length of the extension header at h: ipv6_authlen for AH, ipv6_optlen else. */
static size_t err6_hdrlen(uint8_t nh, const uint8_t *h)
{
	if (nh == NH_FRAGMENT)
		return 8;
	if (nh == NH_AUTH)
		return ((size_t)h[1] + 2) * 4;
	return ((size_t)h[1] + 1) * 8;
}

/* ipv6_skip_exthdr from the end of the fixed header: the inner offset, or -1. */
static long err6_skip(const uint8_t *q, size_t len, uint8_t *nexthdr)
{
	size_t start = IPV6_HDR_LEN;
	uint8_t nh = q[IP6_NXT];

	while (err6_ext_hdr(nh)) {
		if (nh == NH_NONE || start + 2 > len)
			return -1;
		if (nh == NH_FRAGMENT) {
			if (start + 4 > len)
				return -1;
			if (rd16(q + start + 2) & ~7u)
				break;		/* a later fragment: stop at it */
		}
		size_t hl = err6_hdrlen(nh, q + start);

		nh = q[start];
		start += hl;
	}
	*nexthdr = nh;
	return (long)start;
}

/*
 * ip6_tnl_parse_tlv_enc_lim: the offset from the quoted header of the first valid
 * Tunnel Encapsulation Limit option (type 4, length 1) in a Destination Options header
 * of the chain, or 0.
 */
static size_t err6_enc_lim(const uint8_t *q, size_t len)
{
	size_t off = IPV6_HDR_LEN;
	uint8_t nh = q[IP6_NXT];

	while (err6_ext_hdr(nh) && nh != NH_NONE) {
		size_t optlen;

		if (off + 2 > len)
			break;
		optlen = err6_hdrlen(nh, q + off);
		if (off + optlen > len)
			break;
		if (nh == NH_FRAGMENT && rd16(q + off + 2))
			break;
		if (nh == NH_DEST) {
			for (size_t i = 2; i + 3 <= optlen;) {
				const uint8_t *tel = q + off + i;

				if (tel[0] == TLV_ENCAP_LIMIT && tel[1] == 1)
					return off + i;
				i += tel[0] != TLV_PAD1 ? (size_t)tel[1] + 2 : 1;
			}
		}
		nh = q[off];
		off += optlen;
	}
	return 0;
}

/*
 * fou6 (gue6_err, fou6_err): the quoted chain at off must end in UDP to encap-dport; then
 * the inner packet's offset past the UDP and GUE headers and its protocol (*proto), found
 * as the receive finds it (rx.c udp_payload), or -1.
 */
static long err6_udp(const struct sitd_conf *c, const uint8_t *q, size_t len, long off,
		     uint8_t *proto)
{
	size_t o = (size_t)off;

	if (*proto != IPPROTO_UDP || o + UDP_HDR_LEN + 1 > len || rd16(q + o + 2) != c->encap_dport)
		return -1;
	o += UDP_HDR_LEN;
	if (c->encap == SITD_ENCAP_GUE && (q[o] >> 6) == 0) {
		/* Version 0: Ver|C|Hlen, Proto; a control message is not about our data. */
		if (o + GUE_HDR_LEN > len || (q[o] & 0x20))
			return -1;
		*proto = q[o + 1];
		o += GUE_HDR_LEN + (size_t)(q[o] & 0x1f) * 4;
	} else if (c->encap == SITD_ENCAP_GUE && (q[o] >> 6) != 1) {
		return -1;
	} else if (c->encap == SITD_ENCAP_GUE || c->mode == SITD_MODE_ANY) {
		/* GUE version 1 ("direct IP") and FOU of mode any: the version nibble says. */
		*proto = sitd_outer_proto(ip_version(q + o));
	} else {
		*proto = (uint8_t)c->mode;	/* FOU: the port's ipproto */
	}
	return o > len ? -1 : (long)o;
}

int sitd_ptb6_parse(const uint8_t *m, size_t len, struct sitd_ptb6 *p)
{
	const uint8_t *q = m + ICMP_HDR_LEN;
	size_t qlen;
	uint8_t proto;
	long off;

	if (len < ICMP_HDR_LEN + IPV6_HDR_LEN || m[0] != ICMP6_PACKET_TOO_BIG || m[1] != 0)
		return SITD_DROP_ptb6_malformed;
	qlen = len - ICMP_HDR_LEN;
	if (ip_version(q) != 6)
		return SITD_DROP_ptb6_malformed;
	off = err6_skip(q, qlen, &proto);
	if (off < 0 || proto != IPPROTO_UDP || (size_t)off + UDP_HDR_LEN > qlen)
		return SITD_DROP_ptb6_not_udp;
	p->mtu = rd32(m + 4);
	p->quoted = q;
	p->len = qlen;
	p->dport = rd16(q + off + 2);
	return 0;
}

static bool err6_any(const uint8_t *a)
{
	return ip6_addr_is_unspecified(a);
}

enum sitd_err_action sitd_icmp6_err(const struct sitd_conf *c, const struct sitd_err6 *e, uint8_t *out,
				    size_t cap, size_t *out_len, uint32_t *pmtu)
{
	const uint8_t *q = e->quoted, *inner;
	enum sitd_err_action done = ERR_RELAY;
	uint8_t proto, rel_type = ICMP6_DST_UNREACH, rel_code = ICMP6_ADDR_UNREACH;
	uint32_t rel_info = 0, mtu;
	size_t ilen, n, teli;
	long off;
	bool relay = false;

	*out_len = 0;
	*pmtu = 0;
	/* Ours: from local6 to remote6, its chain ending in a protocol of this tunnel. */
	if (e->len < IPV6_HDR_LEN || ip_version(q) != 6 ||
	    (!err6_any(c->remote6) && memcmp(q + IP6_DST, c->remote6, 16)) ||
	    (!err6_any(c->local6) && memcmp(q + IP6_SRC, c->local6, 16)))
		return ERR_NOT_OURS;
	off = err6_skip(q, e->len, &proto);
	if (off >= 0 && c->encap != SITD_ENCAP_NONE)
		off = err6_udp(c, q, e->len, off, &proto);
	if (off < 0 || (size_t)off + 8 > e->len || (proto != IPPROTO_IPV6 && proto != IPPROTO_IPIP) ||
	    (c->mode != SITD_MODE_ANY && proto != (uint8_t)c->mode))
		return ERR_NOT_OURS;

	/* ip6_tnl_err: what is relayed is "address unreachable" unless the MTU is. */
	switch (e->type) {
	case ICMP6_DST_UNREACH:
		relay = true;
		break;
	case ICMP6_TIME_EXCEEDED:
		relay = e->code == ICMP6_EXC_HOPLIMIT;
		break;
	case ICMP6_PARAMPROB:
		teli = e->code == ICMP6_HDR_FIELD ? err6_enc_lim(q, e->len) : 0;
		relay = teli && teli == (uint32_t)(e->info - 2) && q[teli + 2] == 0;
		break;
	case ICMP6_PACKET_TOO_BIG:
		done = ERR_PMTU;
		*pmtu = e->info < IPV6_MIN_MTU ? IPV6_MIN_MTU : e->info;
		/* u32 as the kernel's: an info below the headers wraps and relays nothing. */
		mtu = e->info - (uint32_t)off;
		if (mtu < IPV6_MIN_MTU)
			mtu = IPV6_MIN_MTU;
		if (IPV6_HDR_LEN + (uint32_t)rd16(q + IP6_PLEN) > mtu) {
			rel_type = ICMP6_PACKET_TOO_BIG;
			rel_code = 0;
			rel_info = mtu;
			relay = true;
		}
		break;
	default:
		break;		/* redirects the kernel applies itself; the rest are noise */
	}
	if (!relay)
		return done == ERR_PMTU ? ERR_PMTU : ERR_IGNORE;

	inner = q + off;
	ilen = e->len - (size_t)off;
	if (proto == IPPROTO_IPV6) {
		/* ip6ip6_err: the inner IPv6 header whole, then icmpv6_send. */
		if (ilen < IPV6_HDR_LEN)
			return done == ERR_PMTU ? ERR_PMTU : ERR_IGNORE;
		n = sitd_icmp6_error_quote(out, cap, rel_type, rel_code, rel_info,
					   sitd_icmp6_pick_src(e->dev6, e->host6, inner + IP6_SRC),
					   inner, ilen);
	} else {
		/* ip4ip6_err: host unreachable, or fragmentation needed not above the route's. */
		if (ilen < IPV4_HDR_LEN || (rel_type == ICMP6_PACKET_TOO_BIG && e->tnl_mtu &&
					    rel_info > e->tnl_mtu))
			return done == ERR_PMTU ? ERR_PMTU : ERR_IGNORE;
		n = sitd_icmp4_error_quote(out, cap, ICMP4_DEST_UNREACH,
					   rel_type == ICMP6_PACKET_TOO_BIG ? ICMP4_FRAG_NEEDED
									    : ICMP4_HOST_UNREACH,
					   rel_info, e->src4, inner, ilen);
	}
	*out_len = n;
	if (done == ERR_PMTU)
		return ERR_PMTU;
	return n ? ERR_RELAY : ERR_DECLINED;
}
