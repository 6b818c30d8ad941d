/* SPDX-License-Identifier: MIT */
/*
 * Receive pipeline: one outer IPv4 packet, as a raw socket hands it over (outer header
 * included), is validated in layers and decapsulated in place.
 */
#ifndef SITD_RX_H
#define SITD_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/stats.h"

struct sitd_rx {
	enum sitd_mode mode;
	enum sitd_encap encap;
	uint32_t local, remote;
	struct sitd_stats *stats;
	/* outer = SITD_OUTER_IPV6 (ip6tnl): sitd_rx_decap6's */
	enum sitd_outer outer;
	uint8_t local6[16], remote6[16];
	bool bound;			/* `dev` given: ip6_tnl_get_cap's p->link */
	bool dscp_inherit;		/* IP6_TNL_F_RCV_DSCP_COPY */
	bool allow_localremote;		/* IP6_TNL_F_ALLOW_LOCAL_REMOTE */
};

void sitd_rx_init(struct sitd_rx *rx, const struct sitd_conf *conf, struct sitd_stats *stats);

/*
 * Validate and decapsulate.  On success returns 0 and sets *off and *len to the inner
 * packet, trimmed to its declared length, with its ECN field updated per RFC 6040; the
 * inner TTL / hop limit is left alone, as the kernel leaves it.  Otherwise counts the
 * drop reason and returns -1.
 */
int sitd_rx_decap(struct sitd_rx *rx, uint8_t *pkt, uint32_t len, uint32_t *off, uint32_t *inner_len);

/*
 * The same for a FOU or GUE tunnel: `pl` is one UDP payload from source address `src`,
 * received with outer TOS `outer_tos` (IP_RECVTOS).  GUE version 0 must carry no flags,
 * options or control bit; version 1 (direct IP) is accepted, as the kernel accepts it.
 */
int sitd_rx_decap_udp(struct sitd_rx *rx, uint8_t outer_tos, uint32_t src, uint8_t *pl, uint32_t len,
		      uint32_t *off, uint32_t *inner_len);

/*
 * What a raw IPv6 socket (protocol 41 or 4) says about the outer packet beside the bytes
 * it hands over, which are only the inner packet: the kernel has taken off the outer
 * header and every extension header (ip6_protocol_deliver_rcu), reassembled fragments
 * and checked that the destination is ours (or a group we joined).
 */
struct sitd_rx6_outer {
	const uint8_t *src;		/* msg_name's sin6_addr (16 bytes) */
	const uint8_t *dst;		/* IPV6_PKTINFO's ipi6_addr */
	uint32_t ifindex;		/* IPV6_PKTINFO's ipi6_ifindex (for the table lookup) */
	uint8_t nexthdr;		/* the socket's protocol: 41 or 4 */
	uint8_t tclass;			/* IPV6_TCLASS */
	/*
	 * src is an address of this host (any device, not tentative): what
	 * ipv6_chk_addr_and_flags(net, raddr, ldev, true, 0, IFA_F_TENTATIVE) answers in
	 * ip6_tnl_rcv_ctl.  Only the daemon knows its addresses.
	 */
	bool src_is_local;
};

/*
 * Validate and decapsulate the inner packet `pkt` (len bytes) of an IPv6-outer tunnel,
 * as ipxip6_rcv, ip6_tnl_rcv_ctl and __ip6_tnl_rcv do: the next header against the mode
 * (rx_proto), the source against remote6 (rx_wrong_source) and the destination against
 * local6 (rx_wrong_dest) unless any, then ip6_tnl_get_cap's receive rule on the packet's
 * addresses (rx_outer_addr: a source that is not unicast, :: or v4-mapped or
 * multicast; a loopback address either side; a link-local one on a tunnel without
 * `dev`), then the source not one of ours unless allow-localremote (rx_local_remote);
 * then the inner packet as sitd_rx_decap's: version, header and declared length
 * (trimmed), ECN per RFC 6040 4.2 from the outer traffic class, and with dscp inherit
 * the outer DSCP copied into it (ip4ip6/ip6ip6_dscp_ecn_decapsulate, the IPv4 header
 * checksum mended).  Hop limit / TTL untouched.  0 with *off = 0 and *inner_len, or -1
 * with one drop counted.
 */
int sitd_rx_decap6(struct sitd_rx *rx, const struct sitd_rx6_outer *o, uint8_t *pkt, uint32_t len,
		   uint32_t *off, uint32_t *inner_len);

/*
 * FOU/GUE over IPv6 (fou6): `pl` is one UDP payload (len bytes) an IPv6 UDP socket handed
 * over, o its addresses (msg_name, IPV6_PKTINFO) and traffic class (IPV6_TCLASS); the
 * kernel checked the UDP checksum, or took a zero one (UDP_NO_CHECK6_RX, as fou's
 * udp_sock_create6 sets it), and removed the option.  The rules of sitd_rx_decap6 with
 * the inner protocol from FOU / GUE as sitd_rx_decap_udp finds it (o->nexthdr unused).
 */
int sitd_rx_decap_udp6(struct sitd_rx *rx, const struct sitd_rx6_outer *o, uint8_t *pl, uint32_t len,
		       uint32_t *off, uint32_t *inner_len);

#endif
