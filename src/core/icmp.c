/* SPDX-License-Identifier: MIT */
#include "core/icmp.h"

#include <string.h>

#include "core/csum.h"
#include "core/inet.h"
#include "core/wire.h"

static size_t icmp6_error(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			  const uint8_t *src, const uint8_t *pkt, size_t len, bool partial)
{
	struct sitd_ipinfo ii;
	size_t quote, total;
	uint8_t *icmp;

	if ((partial ? sitd_ip_parse_quote(pkt, len, &ii) : sitd_ip_parse(pkt, len, &ii)) ||
	    ii.version != 6)
		return 0;
	if (sitd_ip_is_icmp_error(pkt, &ii))
		return 0;
	if (ip6_addr_is_multicast(pkt + IP6_SRC) || ip6_addr_is_unspecified(pkt + IP6_SRC))
		return 0;
	if (!src) {
		if (ip6_addr_is_multicast(pkt + IP6_DST))
			return 0;
		src = pkt + IP6_DST;
	} else if (ip6_addr_is_multicast(pkt + IP6_DST) && type != ICMP6_PACKET_TOO_BIG) {
		return 0;
	}

	quote = ii.len;
	if (quote > ICMP6_ERR_MAX - IPV6_HDR_LEN - ICMP_HDR_LEN)
		quote = ICMP6_ERR_MAX - IPV6_HDR_LEN - ICMP_HDR_LEN;
	total = IPV6_HDR_LEN + ICMP_HDR_LEN + quote;
	if (total > cap)
		return 0;

	memset(out, 0, IPV6_HDR_LEN + ICMP_HDR_LEN);
	out[0] = 0x60;
	wr16(out + IP6_PLEN, (uint16_t)(ICMP_HDR_LEN + quote));
	out[IP6_NXT] = IPPROTO_ICMPV6;
	out[IP6_HLIM] = ICMP_ERR_HOPLIMIT;
	memmove(out + IP6_SRC, src, 16);
	memcpy(out + IP6_DST, pkt + IP6_SRC, 16);

	icmp = out + IPV6_HDR_LEN;
	icmp[0] = type;
	icmp[1] = code;
	wr32(icmp + 4, info);
	memcpy(icmp + ICMP_HDR_LEN, pkt, quote);
	csum_store(icmp + 2, csum_partial(icmp, ICMP_HDR_LEN + quote,
					  csum_pseudo6(out + IP6_SRC, out + IP6_DST, IPPROTO_ICMPV6,
						       (uint32_t)(ICMP_HDR_LEN + quote))));
	return total;
}

/* RFC 1812 4.3.2.7: not 0/8 ("this network"), loopback, broadcast or multicast. */
static bool ip4_is_one_host(uint32_t a)
{
	return (a >> 24) != 0 && (a >> 24) != 127 && a != 0xffffffffu && !ip4_addr_is_multicast(a);
}

static size_t icmp4_error(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			  uint32_t src, const uint8_t *pkt, size_t len, bool partial)
{
	struct sitd_ipinfo ii;
	uint32_t osrc, odst;
	size_t quote, total;
	uint8_t *icmp;

	if ((partial ? sitd_ip_parse_quote(pkt, len, &ii) : sitd_ip_parse(pkt, len, &ii)) ||
	    ii.version != 4)
		return 0;
	if (ii.later_fragment || sitd_ip_is_icmp_error(pkt, &ii))
		return 0;
	osrc = rd32(pkt + IP4_SRC);
	odst = rd32(pkt + IP4_DST);
	if (!ip4_is_one_host(osrc) || ip4_addr_is_multicast(odst) || odst == 0xffffffffu)
		return 0;
	if (!src)
		src = odst;

	quote = ii.len;
	if (quote > ICMP4_ERR_MAX - IPV4_HDR_LEN - ICMP_HDR_LEN)
		quote = ICMP4_ERR_MAX - IPV4_HDR_LEN - ICMP_HDR_LEN;
	total = IPV4_HDR_LEN + ICMP_HDR_LEN + quote;
	if (total > cap)
		return 0;

	memset(out, 0, IPV4_HDR_LEN + ICMP_HDR_LEN);
	out[IP4_VIHL] = 0x45;
	out[IP4_TOS] = 0xc0;	/* precedence "internetwork control", as the kernel's icmp_send */
	wr16(out + IP4_TOTLEN, (uint16_t)total);
	out[IP4_TTL] = ICMP_ERR_HOPLIMIT;
	out[IP4_PROTO] = IPPROTO_ICMP;
	wr32(out + IP4_SRC, src);
	wr32(out + IP4_DST, osrc);
	ip4_hdr_csum_set(out, IPV4_HDR_LEN);

	icmp = out + IPV4_HDR_LEN;
	icmp[0] = type;
	icmp[1] = code;
	wr32(icmp + 4, info);
	memcpy(icmp + ICMP_HDR_LEN, pkt, quote);
	csum_store(icmp + 2, csum_partial(icmp, ICMP_HDR_LEN + quote, 0));
	return total;
}

size_t sitd_icmp6_error(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			const uint8_t *src, const uint8_t *pkt, size_t len)
{
	return icmp6_error(out, cap, type, code, info, src, pkt, len, false);
}

size_t sitd_icmp6_error_quote(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			      const uint8_t *src, const uint8_t *pkt, size_t len)
{
	return icmp6_error(out, cap, type, code, info, src, pkt, len, true);
}

size_t sitd_icmp4_error(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			uint32_t src, const uint8_t *pkt, size_t len)
{
	return icmp4_error(out, cap, type, code, info, src, pkt, len, false);
}

size_t sitd_icmp4_error_quote(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			      uint32_t src, const uint8_t *pkt, size_t len)
{
	return icmp4_error(out, cap, type, code, info, src, pkt, len, true);
}

static bool prefix_holds(const uint8_t *p, unsigned plen, const uint8_t *a)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (plen > 128 || memcmp(p, a, full))
		return false;
	return !rest || !((p[full] ^ a[full]) & (uint8_t)(0xff00u >> rest));
}

const uint8_t *sitd_icmp6_pick_src(const struct sitd_addrs6 *dev, const struct sitd_host6 *host,
				   const uint8_t *sender)
{
	bool ll = sender[0] == 0xfe && (sender[1] & 0xc0) == 0x80;
	const struct sitd_if6 *best = NULL;

	for (uint32_t i = 0; host && !ll && i < host->n && i < 64; i++) {
		/* A sender on this host: its own address (RFC 6724 rule 1, which
		 * ipv6_dev_get_saddr ranks first), not the prefix's first one. */
		if (!memcmp(host->a[i].addr, sender, 16))
			return host->a[i].addr;
		if (host->a[i].plen && (!best || host->a[i].plen > best->plen) &&
		    prefix_holds(host->a[i].addr, host->a[i].plen, sender))
			best = &host->a[i];
	}
	if (best)
		return best->addr;
	if (!dev)
		return NULL;
	if (ll)
		return dev->has_ll ? dev->ll : NULL;
	return dev->has_global ? dev->global : NULL;
}
