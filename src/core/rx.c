/* SPDX-License-Identifier: MIT */
#include "core/rx.h"

#include <string.h>

#include "core/csum.h"
#include "core/ecn.h"
#include "core/inet.h"
#include "core/wire.h"

void sitd_rx_init(struct sitd_rx *rx, const struct sitd_conf *conf, struct sitd_stats *stats)
{
	rx->encap = conf->encap;
	rx->mode = conf->mode;
	rx->local = conf->local;
	rx->remote = conf->remote;
	rx->stats = stats;
	rx->outer = conf->outer;
	memcpy(rx->local6, conf->local6, 16);
	memcpy(rx->remote6, conf->remote6, 16);
	rx->bound = conf->dev[0] != '\0';
	rx->dscp_inherit = conf->dscp_inherit;
	rx->allow_localremote = conf->allow_localremote;
}

static int rx_drop(struct sitd_rx *rx, enum sitd_drop reason)
{
	STAT_INC(rx->stats->drop[reason]);
	return -1;
}

/*
 * The inner packet at `in`, `avail` bytes left after the encapsulation: its version
 * against the outer protocol, its length against what is left, then ECN (RFC 6040 4.2)
 * and, with dscp_copy, the outer DSCP (IP6_TNL_F_RCV_DSCP_COPY).
 */
static int rx_inner(struct sitd_rx *rx, uint8_t outer_tos, bool dscp_copy, uint8_t proto, uint8_t *in,
		    uint32_t avail, uint32_t *inner_len)
{
	struct sitd_ipinfo ii;
	int ecn;

	if (avail == 0)
		return rx_drop(rx, SITD_DROP_rx_inner_truncated);
	if (ip_version(in) != (proto == IPPROTO_IPV6 ? 6u : 4u))
		return rx_drop(rx, SITD_DROP_rx_inner_version);
	if (sitd_ip_parse(in, avail, &ii))
		return rx_drop(rx, SITD_DROP_rx_inner_truncated);
	ecn = ecn_decapsulate(outer_tos, ii.dsfield);
	if (ecn < 0)
		return rx_drop(rx, SITD_DROP_rx_ecn);
	if (ecn != (ii.dsfield & ECN_MASK) ||
	    (dscp_copy && (outer_tos & ~ECN_MASK) != (ii.dsfield & ~ECN_MASK))) {
		uint8_t ds = (uint8_t)(((dscp_copy ? outer_tos : ii.dsfield) & ~ECN_MASK) | ecn);

		if (ii.version == 4) {
			uint16_t old = csum_ld16(in);

			in[IP4_TOS] = ds;
			csum_replace16(in + IP4_CSUM, old, csum_ld16(in));
		} else {
			ip6_set_tclass(in, ds);
		}
		if (ecn != (ii.dsfield & ECN_MASK))
			STAT_INC(rx->stats->rx_ecn_marked);
	}
	*inner_len = ii.len;
	return 0;
}

static bool proto_ok(const struct sitd_rx *rx, uint8_t proto)
{
	return (proto == IPPROTO_IPV6 || proto == IPPROTO_IPIP) &&
	       (rx->mode == SITD_MODE_ANY || proto == (uint8_t)rx->mode);
}

int sitd_rx_decap(struct sitd_rx *rx, uint8_t *pkt, uint32_t len, uint32_t *off, uint32_t *inner_len)
{
	uint32_t hl, tot;
	uint8_t proto;

	/* 1. The outer header, against the bytes actually received. */
	if (len < IPV4_HDR_LEN || ip_version(pkt) != 4)
		return rx_drop(rx, SITD_DROP_rx_truncated);
	hl = (pkt[IP4_VIHL] & 0x0f) * 4u;
	tot = rd16(pkt + IP4_TOTLEN);
	if (hl < IPV4_HDR_LEN || tot < hl || tot > len)
		return rx_drop(rx, SITD_DROP_rx_truncated);
	if (csum_fold(csum_partial(pkt, hl, 0)) != 0xffff)
		return rx_drop(rx, SITD_DROP_rx_outer_csum);
	if (rd16(pkt + IP4_FRAG) & (IP4_MF | IP4_OFFMASK))
		return rx_drop(rx, SITD_DROP_rx_fragment);

	/* 2. Protocol, then who sent it and to whom. */
	proto = pkt[IP4_PROTO];
	if (!proto_ok(rx, proto))
		return rx_drop(rx, SITD_DROP_rx_proto);
	if (rx->remote && rd32(pkt + IP4_SRC) != rx->remote)
		return rx_drop(rx, SITD_DROP_rx_wrong_source);
	if (rx->local && rd32(pkt + IP4_DST) != rx->local)
		return rx_drop(rx, SITD_DROP_rx_wrong_dest);

	if (rx_inner(rx, pkt[IP4_TOS], false, proto, pkt + hl, tot - hl, inner_len))
		return -1;
	*off = hl;
	return 0;
}


/*
 * The UDP payload's inner protocol and the bytes before the inner packet: FOU's from the
 * tunnel (or the version nibble for mode any), GUE's from its header.  0, or -1 counted.
 */
static int udp_payload(struct sitd_rx *rx, const uint8_t *pl, uint32_t len, uint8_t *proto,
		       uint32_t *hl)
{
	*hl = 0;
	if (len == 0)
		return rx_drop(rx, SITD_DROP_rx_inner_truncated);
	if (rx->encap == SITD_ENCAP_GUE && (pl[0] >> 6) == 0) {
		/* GUE version 0 (draft-ietf-intarea-gue 3.2): Ver|C|Hlen, Proto, Flags. */
		if (len < GUE_HDR_LEN)
			return rx_drop(rx, SITD_DROP_rx_inner_truncated);
		if (pl[0] & 0x20)
			return rx_drop(rx, SITD_DROP_rx_gue_control);
		/* No flag or option is known to sitd (as validate_gue_flags without remcsum). */
		if ((pl[0] & 0x1f) || pl[2] || pl[3])
			return rx_drop(rx, SITD_DROP_rx_gue_flags);
		*proto = pl[1];
		*hl = GUE_HDR_LEN;
	} else if (rx->encap == SITD_ENCAP_GUE && (pl[0] >> 6) != 1) {
		return rx_drop(rx, SITD_DROP_rx_gue_version);
	} else if (rx->encap == SITD_ENCAP_GUE) {
		/* GUE version 1, "direct IP": the version nibble says which (gue_udp_recv). */
		*proto = sitd_outer_proto(ip_version(pl));
	} else {
		/* FOU: the tunnel's protocol, or for mode any what the version nibble says. */
		*proto = rx->mode != SITD_MODE_ANY ? (uint8_t)rx->mode : sitd_outer_proto(ip_version(pl));
	}
	if (!proto_ok(rx, *proto))
		return rx_drop(rx, SITD_DROP_rx_proto);
	return 0;
}

int sitd_rx_decap_udp(struct sitd_rx *rx, uint8_t outer_tos, uint32_t src, uint8_t *pl, uint32_t len,
		      uint32_t *off, uint32_t *inner_len)
{
	uint32_t hl;
	uint8_t proto;

	if (rx->remote && src != rx->remote)
		return rx_drop(rx, SITD_DROP_rx_wrong_source);
	if (udp_payload(rx, pl, len, &proto, &hl))
		return -1;
	if (rx_inner(rx, outer_tos, false, proto, pl + hl, len - hl, inner_len))
		return -1;
	*off = hl;
	return 0;
}

/* The bits of the kernel's __ipv6_addr_type (net/ipv6/addrconf_core.c) get_cap reads. */
enum { A6_UNICAST = 1, A6_MULTICAST = 2, A6_LOOPBACK = 4, A6_LINKLOCAL = 8 };

static unsigned rx_addr6_type(const uint8_t *a)
{
	static const uint8_t zero[12];
	unsigned scope;

	if ((a[0] & 0xe0) != 0x00 && (a[0] & 0xe0) != 0xe0)
		return A6_UNICAST;				/* global unicast */
	if (a[0] == 0xff) {
		scope = a[1] & 0x0f;			/* IPV6_ADDR_MC_SCOPE */
		return A6_MULTICAST | (scope == 1 ? A6_LOOPBACK : scope == 2 ? A6_LINKLOCAL : 0u);
	}
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return A6_UNICAST | A6_LINKLOCAL;
	if (memcmp(a, zero, 8) == 0) {
		if (memcmp(a + 8, zero, 4) == 0) {
			if (rd32(a + 12) == 0)
				return 0;			/* IPV6_ADDR_ANY */
			if (rd32(a + 12) == 1)
				return A6_UNICAST | A6_LOOPBACK;
			return A6_UNICAST;			/* IPv4-compatible */
		}
		if (rd32(a + 8) == 0xffff)
			return 0;				/* v4-mapped: not unicast */
	}
	return A6_UNICAST;	/* site-local, unique local, reserved: unicast all */
}

/*
 * ip6_tnl_get_cap(t, laddr, raddr) & IP6_TNL_F_CAP_RCV on the packet's addresses: for a
 * tunnel with both ends set they are its own (the lookup matched them), for one with an
 * end any the kernel judges each packet's (IP6_TNL_F_CAP_PER_PACKET).
 */
static bool rx_cap_rcv(const struct sitd_rx *rx, const uint8_t *laddr, const uint8_t *raddr)
{
	unsigned lt = rx_addr6_type(laddr), rt = rx_addr6_type(raddr);

	return (lt & (A6_UNICAST | A6_MULTICAST)) && (rt & A6_UNICAST) &&
	       !((lt | rt) & A6_LOOPBACK) && (!((lt | rt) & A6_LINKLOCAL) || rx->bound);
}

static bool any6(const uint8_t *a)
{
	return ip6_addr_is_unspecified(a);
}

/* ip6_tnl_lookup's match on the outer addresses, then ip6_tnl_rcv_ctl's rules. */
static int rx6_ends(struct sitd_rx *rx, const struct sitd_rx6_outer *o)
{
	if (!any6(rx->remote6) && memcmp(o->src, rx->remote6, 16) != 0)
		return rx_drop(rx, SITD_DROP_rx_wrong_source);
	if (!any6(rx->local6) && memcmp(o->dst, rx->local6, 16) != 0)
		return rx_drop(rx, SITD_DROP_rx_wrong_dest);
	return 0;
}

/* ip6_tnl_rcv_ctl.  The destination is ours: the kernel delivered it here. */
static int rx6_ctl(struct sitd_rx *rx, const struct sitd_rx6_outer *o)
{
	if (!rx_cap_rcv(rx, o->dst, o->src))
		return rx_drop(rx, SITD_DROP_rx_outer_addr);
	if (o->src_is_local && !rx->allow_localremote)
		return rx_drop(rx, SITD_DROP_rx_local_remote);
	return 0;
}

int sitd_rx_decap6(struct sitd_rx *rx, const struct sitd_rx6_outer *o, uint8_t *pkt, uint32_t len,
		   uint32_t *off, uint32_t *inner_len)
{
	/* 1. Who sent it and to whom: ip6_tnl_lookup's match, then its proto check. */
	if (rx6_ends(rx, o))
		return -1;
	if (!proto_ok(rx, o->nexthdr))
		return rx_drop(rx, SITD_DROP_rx_proto);

	/* 2. ip6_tnl_rcv_ctl. */
	if (rx6_ctl(rx, o))
		return -1;

	/* 3. The inner packet, as for an IPv4 outer header (__ip6_tnl_rcv). */
	if (rx_inner(rx, o->tclass, rx->dscp_inherit, o->nexthdr, pkt, len, inner_len))
		return -1;
	*off = 0;
	return 0;
}

int sitd_rx_decap_udp6(struct sitd_rx *rx, const struct sitd_rx6_outer *o, uint8_t *pl, uint32_t len,
		       uint32_t *off, uint32_t *inner_len)
{
	uint32_t hl;
	uint8_t proto;

	if (rx6_ends(rx, o))
		return -1;
	if (udp_payload(rx, pl, len, &proto, &hl))
		return -1;
	if (rx6_ctl(rx, o))
		return -1;
	if (rx_inner(rx, o->tclass, rx->dscp_inherit, proto, pl + hl, len - hl, inner_len))
		return -1;
	*off = hl;
	return 0;
}
