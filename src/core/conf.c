/* SPDX-License-Identifier: MIT */
#include "core/conf.h"

#include "core/wire.h"

/* IP6_MAX_MTU (include/net/ipv6.h): the largest IPv6 payload, 65535, and its header. */
static const unsigned conf_ip6_max_mtu = IP_MAX_LEN + IPV6_HDR_LEN;

unsigned sitd_mtu_min(const struct sitd_conf *c)
{
	/* ip6_tnl_change_mtu: IPV6_MIN_MTU for ip6ip6 only, ETH_MIN_MTU (68) for ipip6 and any. */
	if (c->outer == SITD_OUTER_IPV6)
		return c->mode == SITD_MODE_SIT ? IPV6_MIN_MTU : IPV4_MIN_MTU;
	return c->mode == SITD_MODE_IPIP ? IPV4_MIN_MTU : IPV6_MIN_MTU;
}

unsigned sitd_mtu_max(const struct sitd_conf *c)
{
	unsigned enc = sitd_encap_len(c);

	if (c->outer != SITD_OUTER_IPV6)
		return IP_MAX_LEN - enc;
	/*
	 * ipip6: ip6_tnl_change_mtu's IP_MAX_MTU minus the IPv6 header and fou/gue (t_hlen, the
	 * option not counted), below what one packet carries; else the payload that fits.
	 */
	if (c->mode == SITD_MODE_IPIP)
		return IP_MAX_LEN - (enc - (c->encap_limit_none ? 0u : 8u));
	return conf_ip6_max_mtu - enc;
}

unsigned sitd_mtu_clamp(const struct sitd_conf *c, unsigned mtu)
{
	unsigned lo = sitd_mtu_min(c), hi = sitd_mtu_max(c);

	return mtu < lo ? lo : mtu > hi ? hi : mtu;
}

unsigned sitd_mtu_default(const struct sitd_conf *c, unsigned underlay_mtu)
{
	unsigned enc = sitd_encap_len(c);
	unsigned mtu = underlay_mtu > enc ? underlay_mtu - enc : 0;

	/* ip6_tnl_link_config: never below IPV6_MIN_MTU, for ipip6 and any too. */
	if (c->outer == SITD_OUTER_IPV6 && mtu < IPV6_MIN_MTU)
		mtu = IPV6_MIN_MTU;
	return sitd_mtu_clamp(c, mtu);
}

unsigned sitd_mtu_start(const struct sitd_conf *c, uint32_t route_mtu, int dev_mtu, int cur_mtu,
			uint32_t *path_mtu, bool *guessed)
{
	unsigned def;

	bool fixed = sitd_conf_has_remote(c);

	*path_mtu = fixed ? route_mtu : 0;
	*guessed = false;
	if (!*path_mtu) {
		*path_mtu = dev_mtu > 0 ? (uint32_t)dev_mtu : SITD_UNDERLAY_MTU_DEFAULT;
		*guessed = fixed;
	}
	if (c->mtu)
		return c->mtu;
	/*
	 * remote any: many destinations, many paths.  The IPv4 MTU is known only for a tunnel
	 * bound to a device: that device's, minus the encapsulation; else 1280 (RFC 5969 9.1,
	 * as sitd_6rd_mtu_default).
	 */
	if (!fixed)
		return dev_mtu > 0 ? sitd_mtu_default(c, (unsigned)dev_mtu) : sitd_mtu_clamp(c, IPV6_MIN_MTU);
	/*
	 * Taken over (a restart, or a stanza changed on reload): the MTU it has, perhaps set
	 * with `ip link`, stays while it fits this tunnel's encapsulation.
	 */
	def = sitd_mtu_default(c, *path_mtu);
	return cur_mtu > 0 && (unsigned)cur_mtu <= def ? sitd_mtu_clamp(c, (unsigned)cur_mtu) : def;
}
