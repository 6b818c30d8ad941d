/* SPDX-License-Identifier: MIT */
#include "core/icmperr.h"

#include "core/icmp.h"
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
