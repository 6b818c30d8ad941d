/* SPDX-License-Identifier: MIT */
/*
 * ICMP error builders.  Pure: they write a complete IP packet (headers and checksums)
 * into `out` and return its length, or 0 when the rules forbid an error for this packet,
 * in which case nothing is promised about `out`.
 */
#ifndef SITD_ICMP_H
#define SITD_ICMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"

enum {
	ICMP6_DST_UNREACH = 1, ICMP6_PACKET_TOO_BIG = 2, ICMP6_TIME_EXCEEDED = 3,
	ICMP6_PARAM_PROB = 4,
	ICMP4_DEST_UNREACH = 3, ICMP4_TIME_EXCEEDED = 11,
	ICMP4_FRAG_NEEDED = 4,	/* code of DEST_UNREACH */
	ICMP_ERR_HOPLIMIT = 64,
};

/*
 * ICMPv6 error about the IPv6 packet `pkt` (RFC 4443), quoting as much of it as fits in
 * 1280 bytes (2.4(c)).  `src` is the error's source address (16 bytes), or NULL to use the
 * offending packet's destination.  Declines (returns 0) when RFC 4443 2.4(e) forbids an
 * error: the packet is itself an ICMPv6 error, or its source is multicast or unspecified,
 * or its destination is multicast (allowed for Packet Too Big, but then there is no
 * unicast source to send it from unless `src` is given); also when `cap` < 1280 and the
 * packet is malformed.
 */
size_t sitd_icmp6_error(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			const uint8_t *src, const uint8_t *pkt, size_t len);

/*
 * ICMPv4 error about the IPv4 packet `pkt` (RFC 792), quoting as much as fits in 576
 * bytes (RFC 1812 4.3.2.3).  `info` is the 32-bit word after the checksum: for
 * Fragmentation Needed, the next-hop MTU in its low 16 bits (RFC 1191 4).  `src` is the
 * error's source in host order of the wire bytes, or 0 to use the packet's destination.
 * Declines per RFC 1812 4.3.2.7: ICMP errors, later fragments, and packets whose source
 * is not one host (0/8, broadcast, multicast, loopback) or whose destination is multicast
 * or broadcast.
 */
size_t sitd_icmp4_error(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			uint32_t src, const uint8_t *pkt, size_t len);

/*
 * The same about a packet that is itself quoted in an ICMP error and so may be cut
 * short (`len` bytes of it are there): used to relay an error to the inner sender.
 */
size_t sitd_icmp6_error_quote(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			      const uint8_t *src, const uint8_t *pkt, size_t len);
size_t sitd_icmp4_error_quote(uint8_t *out, size_t cap, uint8_t type, uint8_t code, uint32_t info,
			      uint32_t src, const uint8_t *pkt, size_t len);

/*
 * The tunnel device's own IPv6 addresses, as the daemon learns them (rtnetlink): the
 * source of the ICMPv6 errors sitd itself sends to an inner sender.
 */
struct sitd_addrs6 {
	bool has_ll, has_global;
	uint8_t ll[16];			/* link-local (fe80::/10) */
	uint8_t global[16];		/* any other unicast scope */
	uint8_t n;			/* every address, for the 6rd receive checks (sixrd.h) */
	struct sitd_if6 all[8];
};

/* Every global IPv6 address of the host's interfaces, with its prefix length. */
struct sitd_host6 {
	uint32_t n;
	struct sitd_if6 a[64];
};

/*
 * The source for an ICMPv6 error to `sender`, as icmp6_send() picks it: an address of the
 * interface toward the sender (ipv6_dev_get_saddr).  For the host itself, the sender's
 * own address (RFC 6724 rule 1); for a sender on a link of this host, the address whose
 * prefix holds the sender, the longest (rule 8); else the tunnel device's own, of the
 * sender's scope: link-local for a link-local sender, else a global one (rule 2).  NULL
 * when there is none: the caller then uses the packet's destination, what the error is
 * about.
 */
const uint8_t *sitd_icmp6_pick_src(const struct sitd_addrs6 *dev, const struct sitd_host6 *host,
				   const uint8_t *sender);

#endif
