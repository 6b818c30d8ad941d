/* SPDX-License-Identifier: MIT */
/* Bounds-checked parsing of an IPv4 or IPv6 header chain. */
#ifndef SITD_INET_H
#define SITD_INET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sitd_ipinfo {
	unsigned version;	/* 4 or 6 */
	unsigned l3len;		/* IPv4 IHL * 4; IPv6 40 + extension headers before L4 */
	uint32_t len;		/* IPv4 total length; IPv6 40 + payload length */
	uint8_t l4proto;	/* protocol after the L3 headers */
	uint8_t dsfield;	/* TOS / Traffic Class */
	uint8_t ttl;		/* TTL / Hop Limit */
	bool df;		/* IPv4 Don't Fragment */
	bool fragment;		/* any fragment: IPv4 MF or offset, IPv6 Fragment header */
	bool later_fragment;	/* offset != 0: no L4 header in this packet */
};

/*
 * Parse the IP header(s) at p, of which `avail` bytes are present.  Returns 0, or -1
 * when the header is malformed or claims more bytes than are present.  Bytes after the
 * declared length are allowed (the caller trims).  An IPv6 payload length of 0 is
 * refused as a jumbogram, except with next header 59 (No Next Header): then the packet
 * is its 40-byte header alone.  Stops at the first header that is not an extension
 * header, at a later fragment, or after 8 extension headers.
 */
int sitd_ip_parse(const uint8_t *p, size_t avail, struct sitd_ipinfo *ii);

/*
 * The same for a packet quoted in an ICMP error, which may be cut short: a declared
 * length beyond `avail` is taken as `avail` (ii->len says what is there).
 */
int sitd_ip_parse_quote(const uint8_t *p, size_t avail, struct sitd_ipinfo *ii);

/*
 * sitd_ip_parse() for an IPv6 packet that walks every extension header, not 8: the
 * kernel's receive path (ip6_protocol_deliver_rcu) has no such limit, so a check on what
 * it delivers must not stop before the kernel does.  -1 also for an IPv4 packet.
 */
int sitd_ip6_parse_chain(const uint8_t *p, size_t avail, struct sitd_ipinfo *ii);

/*
 * True when the packet is an ICMP or ICMPv6 message that no error may answer: an error
 * message (not a query), or an ICMPv6 Redirect (RFC 4443 2.4(e.2)).
 */
bool sitd_ip_is_icmp_error(const uint8_t *p, const struct sitd_ipinfo *ii);

/*
 * Where the IPv6 packet p (len bytes) carries a Tunnel Encapsulation Limit option (RFC
 * 2473 4.1.1): the offset of the option's type byte from the start of the packet, its
 * value 2 bytes further on; 0 when there is none.  The kernel's ip6_tnl_parse_tlv_enc_lim
 * walk: Hop-by-Hop, Routing, Fragment, AH and Destination Options headers in any order
 * and number, stopping at anything else, at a header that does not fit, and at a
 * Fragment header whose offset/flags word is not 0; inside each Destination Options
 * header the first option of type 4 with length 1, skipping Pad1 as one byte.
 */
unsigned sitd_ip6_find_enc_lim(const uint8_t *p, size_t len);

#endif
