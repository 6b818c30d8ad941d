/* SPDX-License-Identifier: MIT */
/*
 * TCP MSS clamping (`clamp-mss [N]`), as iptables' TCPMSS target does it
 * (net/netfilter/xt_TCPMSS.c, tcpmss_mangle_packet): the MSS option (RFC 9293 3.7.1) of a
 * SYN, SYN-ACK included, is lowered to a limit and never raised, the TCP checksum updated
 * incrementally (RFC 1624 eqn. 3).  Unlike TCPMSS, a SYN without the option is left alone
 * (TCPMSS inserts one with 536 or 1220; sitd never grows a packet): RFC 9293 3.7.1's
 * default MSS without the option, 536 (IPv4) or 1220 (IPv6), fits every tunnel MTU
 * but ipip's below 576.
 *
 * Nothing is changed in a packet whose options cannot be walked to the MSS option (a
 * length below 2 or beyond the header), in a fragment, in an RST, or in one whose
 * checksum is wrong (SITD_MSS_CSUM_CHECK): what the receiver would drop stays as it is.
 */
#ifndef SITD_MSS_H
#define SITD_MSS_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>	/* IPPROTO_TCP */

#include "core/inet.h"

/* What the TCP checksum field holds. */
enum sitd_mss_csum {
	/* The full checksum: updated with the option (a frame from TUN without NEEDS_CSUM). */
	SITD_MSS_CSUM_FULL,
	/*
	 * The pseudo-header sum only (NEEDS_CSUM with csum_start at the TCP header,
	 * CHECKSUM_PARTIAL): whoever finishes it sums the header as it is then, the new
	 * option included, so the field is left alone; updating it would count the change
	 * twice.
	 */
	SITD_MSS_CSUM_PARTIAL,
	/*
	 * Not known (a packet received): verified first.  Right: updated as FULL; the
	 * pseudo-header sum alone (a sender behind veth left it, gro.h): as PARTIAL; anything
	 * else: wrong, the packet is left alone.
	 */
	SITD_MSS_CSUM_CHECK,
};

/*
 * The largest MSS a tunnel of inner MTU mtu carries without fragments: the MTU less the
 * IP and TCP headers without options, 40 for IPv4 and 60 for IPv6 (xt_TCPMSS's minlen,
 * RFC 9293 3.7.1); 0 (do not clamp) when the MTU leaves nothing.
 */
static inline uint16_t sitd_mss_fit(uint32_t mtu, unsigned version)
{
	uint32_t hdrs = version == 6 ? 60u : 40u;

	if (mtu <= hdrs)
		return 0;
	return (uint16_t)(mtu - hdrs > 65535u ? 65535u : mtu - hdrs);
}

/*
 * A look at a few bytes before any parse, for the receive path where every packet passes:
 * false when p (len bytes) is surely no TCP SYN (IPv4 of another protocol or without
 * SYN; IPv6 with TCP right after the header and no SYN); true when it may be one.
 */
static inline bool sitd_mss_maybe_syn(const uint8_t *p, uint32_t len)
{
	uint32_t l3;

	if (len < 40)
		return false;	/* smaller than IPv4 + TCP */
	if (p[0] >> 4 == 4) {
		l3 = (p[0] & 0x0fu) * 4u;
		return p[9] == IPPROTO_TCP && (l3 + 14 > len || (p[l3 + 13] & 0x02));
	}
	if (p[6] != IPPROTO_TCP)
		return true;	/* extension headers, or not TCP: sitd_ip_parse says */
	return len < 54 || (p[40 + 13] & 0x02);
}

/*
 * The offset in the TCP header th (thlen bytes, options after the first 20) of its MSS
 * option, kind 2 length 4; 0 when there is none or the options are malformed before it.
 */
uint32_t sitd_mss_find(const uint8_t *th, uint32_t thlen);

/*
 * Clamp the MSS of the IP packet pkt, ii its sitd_ip_parse() and len its declared length,
 * to at most mss (0: nothing done).  true when the option was lowered.  Only a TCP SYN
 * without RST, not a fragment, whose TCP header lies within len.
 */
bool sitd_mss_clamp(uint8_t *pkt, uint32_t len, const struct sitd_ipinfo *ii, uint16_t mss,
		    enum sitd_mss_csum cs);

#endif
