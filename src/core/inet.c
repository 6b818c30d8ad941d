/* SPDX-License-Identifier: MIT */
#include "core/inet.h"

#include <limits.h>

#include "core/wire.h"

enum { IP6_EXT_MAX = 8 };

static int ip4_parse(const uint8_t *p, size_t avail, bool partial, struct sitd_ipinfo *ii)
{
	unsigned hl, frag;

	if (avail < IPV4_HDR_LEN)
		return -1;
	hl = (p[IP4_VIHL] & 0x0f) * 4u;
	ii->len = rd16(p + IP4_TOTLEN);
	if (partial && ii->len > avail)
		ii->len = (uint32_t)avail;
	if (hl < IPV4_HDR_LEN || hl > ii->len || ii->len > avail)
		return -1;
	frag = rd16(p + IP4_FRAG);
	ii->version = 4;
	ii->l3len = hl;
	ii->l4proto = p[IP4_PROTO];
	ii->dsfield = p[IP4_TOS];
	ii->ttl = p[IP4_TTL];
	ii->df = frag & IP4_DF;
	ii->fragment = frag & (IP4_MF | IP4_OFFMASK);
	ii->later_fragment = frag & IP4_OFFMASK;
	return 0;
}

static int ip6_parse(const uint8_t *p, size_t avail, bool partial, int max_ext,
		     struct sitd_ipinfo *ii)
{
	unsigned off = IPV6_HDR_LEN;
	uint8_t nxt;

	if (avail < IPV6_HDR_LEN)
		return -1;
	ii->len = IPV6_HDR_LEN + (uint32_t)rd16(p + IP6_PLEN);
	/*
	 * Payload length 0 marks a jumbogram (RFC 2675 3), which no IPv4 tunnel can carry;
	 * refuse it except with No Next Header (RFC 8200 4.7), where 0 bytes of payload is
	 * the whole packet: the 40-byte header alone, which ip6_rcv_core accepts.
	 */
	if (ii->len == IPV6_HDR_LEN && p[IP6_NXT] != IPPROTO_NONE)
		return -1;
	if (partial && ii->len > avail)
		ii->len = (uint32_t)avail;
	if (ii->len > avail)
		return -1;
	ii->version = 6;
	ii->dsfield = ip6_tclass(p);
	ii->ttl = p[IP6_HLIM];
	ii->df = false;
	ii->fragment = false;
	ii->later_fragment = false;
	nxt = p[IP6_NXT];

	/* RFC 8200 4.1: walk extension headers in the order they appear. */
	for (int i = 0; i < max_ext; i++) {
		unsigned hl;

		/* A quote may end inside the extension headers: stop there, L4 unknown. */
		if (partial && off + 8 > ii->len &&
		    (nxt == IPPROTO_HOPOPTS || nxt == IPPROTO_ROUTING || nxt == IPPROTO_DSTOPTS ||
		     nxt == IPPROTO_AH || nxt == IPPROTO_FRAGMENT))
			goto done;
		switch (nxt) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			if (off + 2 > ii->len)
				return -1;
			hl = (p[off + 1] + 1u) * 8;
			break;
		case IPPROTO_AH:
			if (off + 2 > ii->len)
				return -1;
			hl = (p[off + 1] + 2u) * 4;	/* RFC 4302 2.2 */
			break;
		case IPPROTO_FRAGMENT:
			if (off + 8 > ii->len)
				return -1;
			hl = 8;
			ii->fragment = true;
			ii->later_fragment = rd16(p + off + 2) & 0xfff8;
			break;
		default:
			goto done;
		}
		if (off + hl > ii->len) {
			if (partial)
				goto done;
			return -1;
		}
		nxt = p[off];
		off += hl;
		if (ii->later_fragment)
			break;
	}
done:
	ii->l3len = off;
	ii->l4proto = nxt;
	return 0;
}

static int ip_parse(const uint8_t *p, size_t avail, bool partial, struct sitd_ipinfo *ii)
{
	if (avail < 1)
		return -1;
	switch (ip_version(p)) {
	case 4:
		return ip4_parse(p, avail, partial, ii);
	case 6:
		return ip6_parse(p, avail, partial, IP6_EXT_MAX, ii);
	default:
		return -1;
	}
}

int sitd_ip_parse(const uint8_t *p, size_t avail, struct sitd_ipinfo *ii)
{
	return ip_parse(p, avail, false, ii);
}

int sitd_ip_parse_quote(const uint8_t *p, size_t avail, struct sitd_ipinfo *ii)
{
	return ip_parse(p, avail, true, ii);
}

int sitd_ip6_parse_chain(const uint8_t *p, size_t avail, struct sitd_ipinfo *ii)
{
	/* Every extension header is 8 bytes or more: the walk ends within avail / 8 steps. */
	if (avail < 1 || ip_version(p) != 6)
		return -1;
	return ip6_parse(p, avail, false, INT_MAX, ii);
}

bool sitd_ip_is_icmp_error(const uint8_t *p, const struct sitd_ipinfo *ii)
{
	uint8_t type;

	if (ii->later_fragment || ii->l3len >= ii->len)
		return false;
	type = p[ii->l3len];
	/* RFC 4443 2.1: types below 128 are errors; 2.4(e.2) adds Redirect (137). */
	if (ii->version == 6)
		return ii->l4proto == IPPROTO_ICMPV6 && (type < 128 || type == 137);
	if (ii->l4proto != IPPROTO_ICMP)
		return false;
	/* RFC 792 / 1812 4.3.2.7: unreachable, quench, redirect, time exceeded, parameter. */
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

unsigned sitd_ip6_find_enc_lim(const uint8_t *p, size_t len)
{
	size_t off = IPV6_HDR_LEN;
	uint8_t nxt;

	if (len < IPV6_HDR_LEN || ip_version(p) != 6)
		return 0;
	nxt = p[IP6_NXT];
	/* ipv6_ext_hdr() less NEXTHDR_NONE; ESP is none of them. */
	while (nxt == IPPROTO_HOPOPTS || nxt == IPPROTO_ROUTING || nxt == IPPROTO_FRAGMENT ||
	       nxt == IPPROTO_AH || nxt == IPPROTO_DSTOPTS) {
		size_t hl;

		if (off + 2 > len)
			break;
		if (nxt == IPPROTO_FRAGMENT)
			hl = 8;
		else if (nxt == IPPROTO_AH)
			hl = (p[off + 1] + 2u) * 4;	/* ipv6_authlen */
		else
			hl = (p[off + 1] + 1u) * 8;	/* ipv6_optlen */
		if (off + hl > len)
			break;
		if (nxt == IPPROTO_FRAGMENT && rd16(p + off + 2))
			break;
		if (nxt == IPPROTO_DSTOPTS) {
			/* The option is 3 bytes: type, length 1, the limit. */
			for (size_t i = 2; i + 3 <= hl;) {
				uint8_t type = p[off + i], olen = p[off + i + 1];

				if (type == IP6_OPT_TEL && olen == 1)
					return (unsigned)(off + i);
				i += type == IP6_OPT_PAD1 ? 1u : olen + 2u;
			}
		}
		nxt = p[off];
		off += hl;
	}
	return 0;
}
