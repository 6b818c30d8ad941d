/* SPDX-License-Identifier: MIT */
/*
 * Wire formats and protocol constants, in one place.
 *
 * Every header is read and written through the byte helpers below, never through
 * casts of packet pointers, so unaligned buffers and strict aliasing are no concern.
 */
#ifndef SITD_WIRE_H
#define SITD_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>	/* IPPROTO_* constants only */

enum sitd_lengths {
	ETH_HDR_LEN = 14,	/* -T packet: destination, source, EtherType */
	IPV4_HDR_LEN = 20,
	IPV4_HDR_MAX = 60,
	IPV6_HDR_LEN = 40,
	TCP_HDR_LEN = 20,
	TCP_HDR_MAX = 60,
	UDP_HDR_LEN = 8,
	ICMP_HDR_LEN = 8,
	VNET_HDR_LEN = 10,		/* struct virtio_net_hdr, no num_buffers */
	IP_MAX_LEN = 65535,
	IPV4_MIN_MTU = 68,		/* RFC 791 */
	IPV6_MIN_MTU = 1280,		/* RFC 8200 section 5 */
	ICMP4_ERR_MAX = 576,		/* RFC 1812 4.3.2.3 */
	ICMP6_ERR_MAX = IPV6_MIN_MTU,	/* RFC 4443 2.4(c) */
	OUTER_HDR_LEN = IPV4_HDR_LEN,	/* sit/ipip: one IPv4 header, no options */
	GUE_HDR_LEN = 4,		/* GUE version 0 without options */
	/* The largest inner L3 header (IPv6 plus extension headers) we will split. */
	INNER_L3_MAX = 216,
};


/*
 * IPv6 outer (ip6tnl, RFC 2473): [IPv6][Fragment, when the entry point fragments]
 * [Destination Options with the Tunnel Encapsulation Limit, unless none][inner packet].
 */
enum {
	IP6_FRAG_HDR_LEN = 8,		/* RFC 8200 4.5 */
	IP6_TEL_HDR_LEN = 8,		/* the Destination Options header init_tel_txopt writes */
	/* fou6 / gue6 put [UDP][GUE] after the option (ip6_tnl_xmit: ip6_tnl_encap first). */
	OUTER6_HDR_MAX = IPV6_HDR_LEN + IP6_FRAG_HDR_LEN + IP6_TEL_HDR_LEN + UDP_HDR_LEN + GUE_HDR_LEN,
	IP6_MAX_PAYLOAD = 65535,	/* the payload length field; no jumbograms (RFC 2675) */
	IP6_OPT_PAD1 = 0, IP6_OPT_PADN = 1,	/* RFC 8200 4.2 */
	IP6_OPT_TEL = 4,		/* IPV6_TLV_TNL_ENCAP_LIMIT, RFC 2473 4.1.1 */
	IP6_FRAG_MF = 1,		/* the Fragment header's M flag, low bit of offset's word */
	ICMP6_PARAMPROB_HDR = 0,	/* Parameter Problem code: erroneous header field */
};
#define IP6_FLOWLABEL_MASK 0xfffffu

/* IPv4 header field offsets (RFC 791). */
enum {
	IP4_VIHL = 0, IP4_TOS = 1, IP4_TOTLEN = 2, IP4_ID = 4, IP4_FRAG = 6,
	IP4_TTL = 8, IP4_PROTO = 9, IP4_CSUM = 10, IP4_SRC = 12, IP4_DST = 16,
};
#define IP4_DF 0x4000u
#define IP4_MF 0x2000u
#define IP4_OFFMASK 0x1fffu

/* IPv6 header field offsets (RFC 8200). */
enum { IP6_VTCFL = 0, IP6_PLEN = 4, IP6_NXT = 6, IP6_HLIM = 7, IP6_SRC = 8, IP6_DST = 24 };

/* TCP header (RFC 9293). */
enum { TCP_SEQ = 4, TCP_ACK = 8, TCP_OFF = 12, TCP_FLAGS = 13, TCP_CSUM = 16 };
enum {
	TCP_FIN = 0x01, TCP_SYN = 0x02, TCP_RST = 0x04, TCP_PSH = 0x08,
	TCP_ACKF = 0x10, TCP_URG = 0x20, TCP_ECE = 0x40, TCP_CWR = 0x80,
};

/* ECN codepoints in the low two bits of TOS / Traffic Class (RFC 3168). */
enum { ECN_NOT_ECT = 0, ECN_ECT1 = 1, ECN_ECT0 = 2, ECN_CE = 3, ECN_MASK = 3 };

/* virtio_net_hdr (include/uapi/linux/virtio_net.h), host byte order on TUN. */
enum {
	VNET_F_NEEDS_CSUM = 1,
	VNET_F_DATA_VALID = 2,
	VNET_GSO_NONE = 0,
	VNET_GSO_TCPV4 = 1,
	VNET_GSO_UDP = 3,
	VNET_GSO_TCPV6 = 4,
	VNET_GSO_UDP_L4 = 5,
	VNET_GSO_ECN = 0x80,
};

struct sitd_vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
};

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Native-order 16-bit field, as TUN lays out the vnet header. */
static inline uint16_t rdh16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void wrh16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void vnet_hdr_read(struct sitd_vnet_hdr *h, const uint8_t *p)
{
	h->flags = p[0];
	h->gso_type = p[1];
	h->hdr_len = rdh16(p + 2);
	h->gso_size = rdh16(p + 4);
	h->csum_start = rdh16(p + 6);
	h->csum_offset = rdh16(p + 8);
}

static inline void vnet_hdr_write(uint8_t *p, const struct sitd_vnet_hdr *h)
{
	p[0] = h->flags;
	p[1] = h->gso_type;
	wrh16(p + 2, h->hdr_len);
	wrh16(p + 4, h->gso_size);
	wrh16(p + 6, h->csum_start);
	wrh16(p + 8, h->csum_offset);
}

static inline unsigned ip_version(const uint8_t *p)
{
	return p[0] >> 4;
}

static inline uint8_t ip6_tclass(const uint8_t *p)
{
	return (uint8_t)((p[0] & 0x0f) << 4 | p[1] >> 4);
}

static inline void ip6_set_tclass(uint8_t *p, uint8_t tc)
{
	p[0] = (uint8_t)((p[0] & 0xf0) | tc >> 4);
	p[1] = (uint8_t)((p[1] & 0x0f) | (uint8_t)(tc << 4));
}

static inline bool ip6_addr_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static inline bool ip6_addr_is_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/* Addresses are kept in network order as uint32_t loaded with rd32(). */
static inline bool ip4_addr_is_multicast(uint32_t a)
{
	return (a & 0xf0000000u) == 0xe0000000u;
}

_Static_assert(sizeof(struct sitd_vnet_hdr) == VNET_HDR_LEN, "virtio_net_hdr is 10 bytes");

#endif
