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
