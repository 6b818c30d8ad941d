/* SPDX-License-Identifier: MIT */
#include "core/conf.h"

#include "core/wire.h"

unsigned sitd_mtu_min(enum sitd_mode m)
{
	return m == SITD_MODE_IPIP ? IPV4_MIN_MTU : IPV6_MIN_MTU;
}

unsigned sitd_mtu_max(const struct sitd_conf *c)
{
	return IP_MAX_LEN - sitd_encap_len(c);
}

unsigned sitd_mtu_clamp(const struct sitd_conf *c, unsigned mtu)
{
	unsigned lo = sitd_mtu_min(c->mode), hi = sitd_mtu_max(c);

	return mtu < lo ? lo : mtu > hi ? hi : mtu;
}

unsigned sitd_mtu_default(const struct sitd_conf *c, unsigned underlay_mtu)
{
	unsigned enc = sitd_encap_len(c);

	return sitd_mtu_clamp(c, underlay_mtu > enc ? underlay_mtu - enc : 0);
}

unsigned sitd_mtu_start(const struct sitd_conf *c, uint32_t route_mtu, int dev_mtu, int cur_mtu,
			uint32_t *path_mtu, bool *guessed)
{
	unsigned def;

	*path_mtu = c->remote ? route_mtu : 0;
	*guessed = false;
	if (!*path_mtu) {
		*path_mtu = dev_mtu > 0 ? (uint32_t)dev_mtu : SITD_UNDERLAY_MTU_DEFAULT;
		*guessed = c->remote != 0;
	}
	if (c->mtu)
		return c->mtu;
	/*
	 * remote any: many destinations, many paths.  The IPv4 MTU is known only for a tunnel
	 * bound to a device: that device's, minus the encapsulation; else 1280 (RFC 5969 9.1,
	 * as sitd_6rd_mtu_default).
	 */
	if (!c->remote)
		return dev_mtu > 0 ? sitd_mtu_default(c, (unsigned)dev_mtu) : sitd_mtu_clamp(c, IPV6_MIN_MTU);
	/*
	 * Taken over (a restart, or a stanza changed on reload): the MTU it has, perhaps set
	 * with `ip link`, stays while it fits this tunnel's encapsulation.
	 */
	def = sitd_mtu_default(c, *path_mtu);
	return cur_mtu > 0 && (unsigned)cur_mtu <= def ? sitd_mtu_clamp(c, (unsigned)cur_mtu) : def;
}
