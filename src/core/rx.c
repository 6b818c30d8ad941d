/* SPDX-License-Identifier: MIT */
#include "rx.h"

#include "csum.h"
#include "ecn.h"
#include "inet.h"
#include "wire.h"

void sitd_rx_init(struct sitd_rx *rx, const struct sitd_conf *conf, struct sitd_stats *stats)
{
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

int sitd_rx_decap(struct sitd_rx *rx, uint8_t *pkt, uint32_t len, uint32_t *off, uint32_t *inner_len)
{
	uint32_t hl, tot;
	uint8_t *in;
	uint8_t proto;
	struct sitd_ipinfo ii;
	int ecn;

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
	if ((proto != IPPROTO_IPV6 && proto != IPPROTO_IPIP) ||
	    (rx->mode != SITD_MODE_ANY && proto != (uint8_t)rx->mode))
		return rx_drop(rx, SITD_DROP_rx_proto);
	if (rx->remote && rd32(pkt + IP4_SRC) != rx->remote)
		return rx_drop(rx, SITD_DROP_rx_wrong_source);
	if (rx->local && rd32(pkt + IP4_DST) != rx->local)
		return rx_drop(rx, SITD_DROP_rx_wrong_dest);

	/* 3. The inner header, against what is left; then trim to its declared length. */
	in = pkt + hl;
	if (tot == hl)
		return rx_drop(rx, SITD_DROP_rx_inner_truncated);
	if (ip_version(in) != (proto == IPPROTO_IPV6 ? 6u : 4u))
		return rx_drop(rx, SITD_DROP_rx_inner_version);
	if (sitd_ip_parse(in, tot - hl, &ii))
		return rx_drop(rx, SITD_DROP_rx_inner_truncated);

	/* 4. ECN (RFC 6040 4.2). */
	ecn = ecn_decapsulate(pkt[IP4_TOS], ii.dsfield);
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
	*off = hl;
	*inner_len = ii.len;
	return 0;
}
