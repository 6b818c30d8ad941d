/* SPDX-License-Identifier: MIT */
/*
 * Test packets, built byte by byte.
 *
 * Every header is written field by field at the offsets of its RFC: IPv4 RFC 791 3.1,
 * IPv6 RFC 8200 3 and its Destination Options header 4.6, TCP RFC 9293 3.1 with the
 * timestamp option of RFC 7323 3, UDP RFC 768, ICMP RFC 792 / ICMPv6 RFC 4443 2.1.
 * Multi-byte fields are stored big-endian by pg_put16/pg_put32 below.  The virtio_net_hdr
 * is laid out as include/uapi/linux/virtio_net.h has it, 16-bit fields in host order as
 * TUN uses them.
 *
 * Nothing here includes or calls src/core: the tests compare the core against an
 * independent construction.  pg_sum() is the RFC 1071 checksum written the plainest way
 * (big-endian 16-bit words added into a uint32), not the core's csum_partial().
 *
 * Addresses come from the documentation ranges only (RFC 5737, RFC 3849).
 */
#ifndef SITD_TEST_PKTGEN_H
#define SITD_TEST_PKTGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

/* Outer (tunnel endpoint) and inner addresses. */
#define PG_OUTER_LOCAL 0xc6336401u	/* 198.51.100.1 */
#define PG_OUTER_REMOTE 0xcb007102u	/* 203.0.113.2 */
#define PG_IN4_SRC 0xc0000201u		/* 192.0.2.1 */
#define PG_IN4_DST 0xc0000202u		/* 192.0.2.2 */
#define PG_IN6_SRC ((const uint8_t[16]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 })
#define PG_IN6_DST ((const uint8_t[16]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 })

enum {
	PG_PROTO_ICMP = 1, PG_PROTO_IPIP = 4, PG_PROTO_TCP = 6, PG_PROTO_UDP = 17,
	PG_PROTO_IPV6 = 41, PG_PROTO_ICMPV6 = 58, PG_PROTO_DSTOPTS = 60,
};
enum { PG_IP4_DF = 0x4000, PG_IP4_MF = 0x2000 };
enum {
	PG_FIN = 0x01, PG_SYN = 0x02, PG_RST = 0x04, PG_PSH = 0x08,
	PG_ACK = 0x10, PG_URG = 0x20, PG_ECE = 0x40, PG_CWR = 0x80,
};

/* virtio_net_hdr constants, from include/uapi/linux/virtio_net.h. */
enum {
	PG_VNET_LEN = 10,
	PG_VNET_F_NEEDS_CSUM = 1,
	PG_GSO_NONE = 0, PG_GSO_TCPV4 = 1, PG_GSO_UDP = 3, PG_GSO_TCPV6 = 4, PG_GSO_UDP_L4 = 5,
	PG_GSO_ECN = 0x80,
};

static inline void pg_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void pg_put32(uint8_t *p, uint32_t v)
{
	pg_put16(p, (uint16_t)(v >> 16));
	pg_put16(p + 2, (uint16_t)v);
}

static inline uint16_t pg_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t pg_get32(const uint8_t *p)
{
	return (uint32_t)pg_get16(p) << 16 | pg_get16(p + 2);
}

/* ---- Reference checksum (RFC 1071 4.1, byte order made explicit) ---- */

/*
 * Add the big-endian 16-bit words of buf to sum; an odd last byte is the high half of a
 * word padded with zero.  The result is unfolded so sums chain at even offsets.  A uint32
 * cannot overflow for the sizes tests use (under 128 KiB).
 */
static inline uint32_t pg_sum(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

static inline uint16_t pg_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The checksum field value for buf (field itself zero), as a big-endian number. */
static inline uint16_t pg_csum(const void *buf, size_t len)
{
	return (uint16_t)~pg_fold(pg_sum(buf, len, 0));
}

/* Pseudo-header sums: RFC 9293 3.1 (IPv4, 12 bytes) and RFC 8200 8.1 (IPv6, 40 bytes). */
static inline uint32_t pg_pseudo4(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
	uint8_t ph[12];

	pg_put32(ph, src);
	pg_put32(ph + 4, dst);
	ph[8] = 0;
	ph[9] = proto;
	pg_put16(ph + 10, len);
	return pg_sum(ph, sizeof(ph), 0);
}

static inline uint32_t pg_pseudo6(const uint8_t *src, const uint8_t *dst, uint8_t nxt, uint32_t len)
{
	uint8_t ph[40];

	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	pg_put32(ph + 32, len);
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = nxt;
	return pg_sum(ph, sizeof(ph), 0);
}

/* True when the IPv4 header at ip has a correct header checksum. */
static inline bool pg_ip4_csum_ok(const uint8_t *ip)
{
	return pg_fold(pg_sum(ip, (ip[0] & 0x0fu) * 4u, 0)) == 0xffff;
}

/*
 * True when the upper-layer checksum of the packet at ip is correct: the L4 data at
 * l4off (to the end of the IP packet) summed with the pseudo-header of proto.  ICMPv4
 * has no pseudo-header (RFC 792).
 */
static inline bool pg_l4_csum_ok(const uint8_t *ip, unsigned l4off, uint8_t proto)
{
	uint32_t len, sum;

	if (ip[0] >> 4 == 4) {
		len = pg_get16(ip + 2) - l4off;
		sum = proto == PG_PROTO_ICMP ? 0
					     : pg_pseudo4(pg_get32(ip + 12), pg_get32(ip + 16), proto,
							  (uint16_t)len);
	} else {
		len = 40u + pg_get16(ip + 4) - l4off;
		sum = pg_pseudo6(ip + 8, ip + 24, proto, len);
	}
	return pg_fold(pg_sum(ip + l4off, len, sum)) == 0xffff;
}

/* ---- Headers ---- */

/*
 * IPv4 header (RFC 791 3.1) with optlen bytes of options (a multiple of 4, at most 40:
 * NOPs and a final End of Option List) and its checksum.  Returns the header length.
 */
static inline unsigned pg_ip4(uint8_t *p, uint8_t tos, uint16_t totlen, uint16_t id, uint16_t frag,
			      uint8_t ttl, uint8_t proto, uint32_t src, uint32_t dst, unsigned optlen)
{
	unsigned hl = 20 + optlen;

	p[0] = (uint8_t)(0x40 | hl / 4);
	p[1] = tos;
	pg_put16(p + 2, totlen);
	pg_put16(p + 4, id);
	pg_put16(p + 6, frag);
	p[8] = ttl;
	p[9] = proto;
	pg_put16(p + 10, 0);
	pg_put32(p + 12, src);
	pg_put32(p + 16, dst);
	if (optlen) {
		memset(p + 20, 1, optlen);	/* NOP */
		p[hl - 1] = 0;			/* EOL */
	}
	pg_put16(p + 10, pg_csum(p, hl));
	return hl;
}

/* IPv6 header (RFC 8200 3). */
static inline void pg_ip6(uint8_t *p, uint8_t tclass, uint32_t flow, uint16_t plen, uint8_t nxt,
			  uint8_t hlim, const uint8_t *src, const uint8_t *dst)
{
	p[0] = (uint8_t)(0x60 | tclass >> 4);
	p[1] = (uint8_t)(tclass << 4 | (flow >> 16 & 0x0f));
	pg_put16(p + 2, (uint16_t)flow);
	pg_put16(p + 4, plen);
	p[6] = nxt;
	p[7] = hlim;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
}

/* Traffic Class of an IPv6 header. */
static inline uint8_t pg_ip6_tclass(const uint8_t *p)
{
	return (uint8_t)((p[0] & 0x0f) << 4 | p[1] >> 4);
}

/*
 * Destination Options header (RFC 8200 4.6) of len bytes (a multiple of 8), its options
 * area filled by one PadN option (RFC 8200 4.2).
 */
static inline void pg_ip6_dstopts(uint8_t *p, uint8_t nxt, unsigned len)
{
	p[0] = nxt;
	p[1] = (uint8_t)(len / 8 - 1);
	p[2] = 1;			/* PadN */
	p[3] = (uint8_t)(len - 4);
	memset(p + 4, 0, len - 4);
}

/*
 * The 8-byte Destination Options header ip6_tnl_xmit writes: the Tunnel Encapsulation
 * Limit option (RFC 2473 4.1.1, type 4, length 1) and a PadN of one byte.
 */
static inline void pg_ip6_enc_lim(uint8_t *p, uint8_t nxt, uint8_t limit)
{
	p[0] = nxt;
	p[1] = 0;
	p[2] = 4;
	p[3] = 1;
	p[4] = limit;
	p[5] = 1;	/* PadN */
	p[6] = 1;
	p[7] = 0;
}

/*
 * TCP header (RFC 9293 3.1), checksum zero, with optlen bytes of options (a multiple of
 * 4, at most 40): NOP NOP Timestamps (RFC 7323 3) when 12 or more, NOPs for the rest.
 * Returns the header length.
 */
static inline unsigned pg_tcp(uint8_t *p, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
			      uint8_t flags, uint16_t win, unsigned optlen)
{
	unsigned hl = 20 + optlen;

	pg_put16(p, sport);
	pg_put16(p + 2, dport);
	pg_put32(p + 4, seq);
	pg_put32(p + 8, ack);
	p[12] = (uint8_t)(hl / 4 << 4);
	p[13] = flags;
	pg_put16(p + 14, win);
	pg_put16(p + 16, 0);
	pg_put16(p + 18, 0);		/* urgent pointer */
	memset(p + 20, 1, optlen);	/* NOP */
	if (optlen >= 12) {
		p[22] = 8;		/* Timestamps, length 10 */
		p[23] = 10;
		pg_put32(p + 24, 0x01020304);
		pg_put32(p + 28, 0x0a0b0c0d);
	}
	return hl;
}

/* Payload byte i of a pattern that does not repeat with period 256 or any gso_size. */
static inline uint8_t pg_pattern_byte(size_t i, uint8_t seed)
{
	return (uint8_t)(i * 7 + (i >> 8) * 13 + (i >> 16) * 29 + seed);
}

static inline void pg_pattern(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pg_pattern_byte(i, seed);
}

/* ---- Whole packets ---- */

/* An IPv4 or IPv6 TCP packet. */
struct pg_tcp_pkt {
	unsigned version;	/* 4 or 6 */
	uint8_t dsfield;	/* TOS / Traffic Class */
	uint8_t ttl;		/* TTL / Hop Limit */
	uint16_t ip_id;		/* IPv4 */
	bool df;		/* IPv4 */
	unsigned ip_optlen;	/* IPv4 options bytes */
	unsigned ext_len;	/* IPv6: Destination Options header of this size before TCP */
	uint32_t seq, ack;
	uint8_t flags;
	unsigned tcp_optlen;
	uint32_t payload;	/* payload bytes, pg_pattern(seed) */
	uint8_t seed;
	/*
	 * false: a complete TCP checksum.  true: the checksum field holds the folded,
	 * uncomplemented pseudo-header sum (L4 length of the whole packet), as the kernel
	 * leaves a CHECKSUM_PARTIAL packet (tcp_v4_send_check / tcp_v6_send_check).
	 */
	bool partial;
};

/* Build the packet at p; returns its length and sets *l4off to where TCP starts. */
static inline size_t pg_tcp_packet(uint8_t *p, const struct pg_tcp_pkt *s, unsigned *l4off)
{
	unsigned l3, th;
	uint32_t l4len, total, psum;
	uint8_t *t;

	l3 = s->version == 4 ? 20 + s->ip_optlen : 40 + s->ext_len;
	t = p + l3;
	th = pg_tcp(t, 40000, 443, s->seq, s->ack, s->flags, 0x7210, s->tcp_optlen);
	pg_pattern(t + th, s->payload, s->seed);
	l4len = th + s->payload;
	total = l3 + l4len;
	if (s->version == 4) {
		pg_ip4(p, s->dsfield, (uint16_t)total, s->ip_id, s->df ? PG_IP4_DF : 0, s->ttl,
		       PG_PROTO_TCP, PG_IN4_SRC, PG_IN4_DST, s->ip_optlen);
		psum = pg_pseudo4(PG_IN4_SRC, PG_IN4_DST, PG_PROTO_TCP, (uint16_t)l4len);
	} else {
		pg_ip6(p, s->dsfield, 0x12345, (uint16_t)(total - 40),
		       s->ext_len ? PG_PROTO_DSTOPTS : PG_PROTO_TCP, s->ttl, PG_IN6_SRC, PG_IN6_DST);
		if (s->ext_len)
			pg_ip6_dstopts(p + 40, PG_PROTO_TCP, s->ext_len);
		psum = pg_pseudo6(PG_IN6_SRC, PG_IN6_DST, PG_PROTO_TCP, l4len);
	}
	if (s->partial)
		pg_put16(t + 16, pg_fold(psum));
	else
		pg_put16(t + 16, (uint16_t)~pg_fold(pg_sum(t, l4len, psum)));
	*l4off = l3;
	return total;
}

/*
 * An IPv4 or IPv6 UDP packet with `payload` pattern bytes; checksum complete or, when
 * partial, the pseudo-header sum as the kernel leaves it (udp_v4/v6 CHECKSUM_PARTIAL).
 * The UDP header starts at 20 or 40.  Returns the length.
 */
static inline size_t pg_udp_packet(uint8_t *p, unsigned version, uint32_t payload, uint8_t seed,
				   bool partial)
{
	unsigned l3 = version == 4 ? 20 : 40;
	uint16_t ulen = (uint16_t)(8 + payload);
	uint8_t *u = p + l3;
	uint32_t psum;

	pg_put16(u, 5353);
	pg_put16(u + 2, 53);
	pg_put16(u + 4, ulen);
	pg_put16(u + 6, 0);
	pg_pattern(u + 8, payload, seed);
	if (version == 4) {
		pg_ip4(p, 0, (uint16_t)(l3 + ulen), 0x4242, PG_IP4_DF, 64, PG_PROTO_UDP, PG_IN4_SRC,
		       PG_IN4_DST, 0);
		psum = pg_pseudo4(PG_IN4_SRC, PG_IN4_DST, PG_PROTO_UDP, ulen);
	} else {
		pg_ip6(p, 0, 0, ulen, PG_PROTO_UDP, 64, PG_IN6_SRC, PG_IN6_DST);
		psum = pg_pseudo6(PG_IN6_SRC, PG_IN6_DST, PG_PROTO_UDP, ulen);
	}
	if (partial)
		pg_put16(u + 6, pg_fold(psum));
	else
		pg_put16(u + 6, (uint16_t)~pg_fold(pg_sum(u, ulen, psum)));
	return l3 + ulen;
}

/* ---- TUN frames ---- */

/* virtio_net_hdr at the front of a TUN frame. */
static inline void pg_vnet(uint8_t *f, uint8_t flags, uint8_t gso_type, uint16_t hdr_len,
			   uint16_t gso_size, uint16_t csum_start, uint16_t csum_offset)
{
	f[0] = flags;
	f[1] = gso_type;
	memcpy(f + 2, &hdr_len, 2);
	memcpy(f + 4, &gso_size, 2);
	memcpy(f + 6, &csum_start, 2);
	memcpy(f + 8, &csum_offset, 2);
}

/* Concatenate an iovec list into buf (at most cap bytes); returns the length. */
static inline size_t pg_flatten(const struct iovec *iov, unsigned n, uint8_t *buf, size_t cap)
{
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		if (len + iov[i].iov_len > cap)
			return (size_t)-1;
		memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	return len;
}

/* xorshift32 (Marsaglia 2003): reproducible random test data. */
static inline uint32_t pg_rand(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

#endif
