/* SPDX-License-Identifier: MIT */
/*
 * The MTU decision for one packet, or for one segment of a GSO super-packet.
 *
 * This is where sitd parts ways with the 2013 kernel: `unit_len` is the length of the
 * largest packet that will actually be put on the wire inside the tunnel, which for a
 * super-packet is one segment (inner headers + TCP header + gso_size), never the
 * super-packet's length.
 */
#ifndef SITD_PMTU_H
#define SITD_PMTU_H

#include <stdbool.h>
#include <stdint.h>

enum sitd_pmtu_verdict {
	PMTU_SEND,		/* encapsulate; outer DF as `df` says */
	PMTU_TOO_BIG,		/* answer with PTB / Fragmentation Needed carrying `mtu` */
	PMTU_DROP_FLOOR,	/* path too small to carry even 68 bytes (kernel: collisions) */
};

struct sitd_pmtu {
	enum sitd_pmtu_verdict verdict;
	bool df;		/* outer Don't Fragment */
	uint32_t mtu;		/* the tunnel MTU the inner packet was judged against */
};

struct sitd_pmtu sitd_pmtu_decide(bool pmtudisc, uint32_t path_mtu, uint32_t encap_len,
				  unsigned inner_version, bool inner_df, uint32_t unit_len);

/*
 * The same for an IPv6 outer header (ip6tnl), as ip6_tnl_xmit judges it: the tunnel MTU
 * is the path MTU less encap_len (40, 8 for the encapsulation limit option when one is
 * written, 8 or 12 for FOU/GUE), raised to IPV6_MIN_MTU for an inner IPv6 packet (RFC
 * 2473 7.1) and to 68 for an inner IPv4 one.  Larger is PMTU_TOO_BIG, for IPv4 whatever
 * its DF (ipxip6_tnl_xmit: "send ICMP error even if DF is not set").  df: the outer
 * packet fits the path whole; when it does not (only below the floors), the entry point
 * fragments it (RFC 2473 7.1).  No PMTU_DROP_FLOOR: IPv6 paths carry 1280 bytes.
 */
struct sitd_pmtu sitd_pmtu_decide6(uint32_t path_mtu, uint32_t encap_len, unsigned inner_version,
				   uint32_t unit_len);

/*
 * remote any (6to4, 6rd, ISATAP): a path MTU per outer destination, as the kernel keeps
 * one per destination in its route exceptions.  A small direct-mapped cache, each slot
 * one 64-bit word (destination << 32 | MTU) read and written whole, so the receive side
 * (which learns from ICMP) and the transmit side (which reads) need no lock.  A slot lost
 * to a colliding destination only means that destination's MTU is read again.
 */
enum { SITD_PMTU_SLOTS = 64 };

struct sitd_pmtu_cache {
	uint64_t slot[SITD_PMTU_SLOTS];
};

/* The path MTU learned for dst, or 0 when none is. */
uint32_t sitd_pmtu_cache_get(const struct sitd_pmtu_cache *c, uint32_t dst);
void sitd_pmtu_cache_put(struct sitd_pmtu_cache *c, uint32_t dst, uint32_t mtu);
/* The destination in slot i (0: empty), to read its MTU again. */
uint32_t sitd_pmtu_cache_dst(const struct sitd_pmtu_cache *c, unsigned i);

#endif
