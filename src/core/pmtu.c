/* SPDX-License-Identifier: MIT */
#include "core/pmtu.h"

#include "core/wire.h"

struct sitd_pmtu sitd_pmtu_decide(bool pmtudisc, uint32_t path_mtu, uint32_t encap_len,
				  unsigned inner_version, bool inner_df, uint32_t unit_len)
{
	struct sitd_pmtu d = { .verdict = PMTU_SEND, .df = false, .mtu = 0 };
	uint32_t mtu = path_mtu > encap_len ? path_mtu - encap_len : 0;

	if (inner_version == 6) {
		/* nopmtudisc: no DF, no check; the outer packet may be fragmented. */
		if (!pmtudisc)
			return d;
		if (mtu < IPV4_MIN_MTU) {
			d.verdict = PMTU_DROP_FLOOR;
			return d;
		}
		d.df = true;
		/*
		 * RFC 4213 3.2.2: below 1280 the tunnel still carries IPv6 up to 1280 bytes
		 * and lets IPv4 fragment it, because IPv6 promises every link 1280.
		 */
		if (mtu < IPV6_MIN_MTU) {
			mtu = IPV6_MIN_MTU;
			d.df = false;
		}
		d.mtu = mtu;
		if (unit_len > mtu)
			d.verdict = PMTU_TOO_BIG;
		return d;
	}

	/*
	 * IPv4 inside (the kernel's ip_tunnel_xmit): outer DF is the tunnel's pmtudisc OR the
	 * inner DF, and only then is the packet judged against the path.
	 */
	if (!pmtudisc && !inner_df)
		return d;
	if (mtu < IPV4_MIN_MTU) {
		d.verdict = PMTU_DROP_FLOOR;
		return d;
	}
	d.mtu = mtu;
	d.df = true;
	if (unit_len > mtu) {
		/*
		 * The sender forbade fragmentation: tell it.  Otherwise the sender allowed it,
		 * so the outer header copies its DF clear (RFC 2003 3.1) and the packet is
		 * fragmented outside instead of being lost.
		 */
		if (inner_df)
			d.verdict = PMTU_TOO_BIG;
		else
			d.df = false;
	}
	return d;
}

struct sitd_pmtu sitd_pmtu_decide6(uint32_t path_mtu, uint32_t encap_len, unsigned inner_version,
				   uint32_t unit_len)
{
	struct sitd_pmtu d = { .verdict = PMTU_SEND, .df = true, .mtu = 0 };
	uint32_t floor = inner_version == 6 ? IPV6_MIN_MTU : IPV4_MIN_MTU;
	uint32_t mtu = path_mtu > encap_len ? path_mtu - encap_len : 0;

	d.mtu = mtu < floor ? floor : mtu;
	if (unit_len > d.mtu)
		d.verdict = PMTU_TOO_BIG;
	else if (unit_len > mtu)
		d.df = false;
	return d;
}

static unsigned slot_of(uint32_t dst)
{
	return (dst * 0x9e3779b1u) >> 26;	/* the top 6 bits: SITD_PMTU_SLOTS */
}

uint32_t sitd_pmtu_cache_get(const struct sitd_pmtu_cache *c, uint32_t dst)
{
	uint64_t v;

	if (!c || !dst)
		return 0;
	v = __atomic_load_n(&c->slot[slot_of(dst)], __ATOMIC_RELAXED);
	return (uint32_t)(v >> 32) == dst ? (uint32_t)v : 0;
}

void sitd_pmtu_cache_put(struct sitd_pmtu_cache *c, uint32_t dst, uint32_t mtu)
{
	if (c && dst)
		__atomic_store_n(&c->slot[slot_of(dst)], (uint64_t)dst << 32 | mtu, __ATOMIC_RELAXED);
}

uint32_t sitd_pmtu_cache_dst(const struct sitd_pmtu_cache *c, unsigned i)
{
	return i < SITD_PMTU_SLOTS ? (uint32_t)(__atomic_load_n(&c->slot[i], __ATOMIC_RELAXED) >> 32) : 0;
}
