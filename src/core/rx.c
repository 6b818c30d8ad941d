/* SPDX-License-Identifier: MIT */
#include "core/rx.h"

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
}

static int rx_drop(struct sitd_rx *rx, enum sitd_drop reason)
{
	STAT_INC(rx->stats->drop[reason]);
	return -1;
}

/*
 * The inner packet at `in`, `avail` bytes left after the encapsulation: its version
 * against the outer protocol, its length against what is left, then ECN (RFC 6040 4.2).
 */
static int rx_inner(struct sitd_rx *rx, uint8_t outer_tos, uint8_t proto, uint8_t *in, uint32_t avail,
		    uint32_t *inner_len)
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
	if (ecn != (ii.dsfield & ECN_MASK)) {
		uint8_t ds = (uint8_t)((ii.dsfield & ~ECN_MASK) | ecn);

		if (ii.version == 4) {
			uint16_t old = csum_ld16(in);

			in[IP4_TOS] = ds;
			csum_replace16(in + IP4_CSUM, old, csum_ld16(in));
		} else {
			ip6_set_tclass(in, ds);
		}
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

	if (rx_inner(rx, pkt[IP4_TOS], proto, pkt + hl, tot - hl, inner_len))
		return -1;
	*off = hl;
	return 0;
}


int sitd_rx_decap_udp(struct sitd_rx *rx, uint8_t outer_tos, uint32_t src, uint8_t *pl, uint32_t len,
		      uint32_t *off, uint32_t *inner_len)
{
	uint32_t hl = 0;
	uint8_t proto;

	if (rx->remote && src != rx->remote)
		return rx_drop(rx, SITD_DROP_rx_wrong_source);
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
		proto = pl[1];
		hl = GUE_HDR_LEN;
	} else if (rx->encap == SITD_ENCAP_GUE && (pl[0] >> 6) != 1) {
		return rx_drop(rx, SITD_DROP_rx_gue_version);
	} else if (rx->encap == SITD_ENCAP_GUE) {
		/* GUE version 1, "direct IP": the version nibble says which (gue_udp_recv). */
		proto = sitd_outer_proto(ip_version(pl));
	} else {
		/* FOU: the tunnel's protocol, or for mode any what the version nibble says. */
		proto = rx->mode != SITD_MODE_ANY ? (uint8_t)rx->mode : sitd_outer_proto(ip_version(pl));
	}
	if (!proto_ok(rx, proto))
		return rx_drop(rx, SITD_DROP_rx_proto);
	if (rx_inner(rx, outer_tos, proto, pl + hl, len - hl, inner_len))
		return -1;
	*off = hl;
	return 0;
}
