/* SPDX-License-Identifier: MIT */
/*
 * Internet checksum (RFC 1071) with incremental update (RFC 1624).
 *
 * Sums are kept in native memory order: 16-bit words are loaded with memcpy, and a
 * finished checksum is stored the same way, so it lands in network order on any host
 * (RFC 1071 2(B), byte-order independence).  Every value summed therefore goes through
 * csum_partial() or csum_ld16() on bytes as they are on the wire.
 *
 * csum_partial() returns an unfolded 32-bit sum that can be chained: the sum of a buffer
 * split at an even offset equals the sum of its parts.
 */
#ifndef SITD_CSUM_H
#define SITD_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);

static inline uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static inline uint32_t csum_add(uint32_t a, uint32_t b)
{
	a += b;
	return a + (a < b);
}

/* A 16-bit word of a packet, in the sums' native order. */
static inline uint16_t csum_ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void csum_st16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Store the checksum of a sum into a field, as TCP and ICMP send it. */
static inline void csum_store(uint8_t *field, uint32_t sum)
{
	csum_st16(field, (uint16_t)~csum_fold(sum));
}

/*
 * The same for UDP, where a computed 0 is sent as 0xffff because 0 means "no checksum"
 * (RFC 768).  The two are equal in one's complement, but TCP senders (the kernel's
 * tcp_gso_segment among them) send 0, and so does sitd.
 */
static inline void csum_store_udp(uint8_t *field, uint32_t sum)
{
	uint16_t c = (uint16_t)~csum_fold(sum);

	csum_st16(field, c ? c : 0xffff);
}

/* Pseudo-header sums (RFC 9293 3.1, RFC 8200 8.1); addresses point into headers. */
uint32_t csum_pseudo4(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len);
uint32_t csum_pseudo6(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len);
/* The same for the IPv4 or IPv6 header at ip, by its version. */
uint32_t csum_pseudo_ip(const uint8_t *ip, uint8_t proto, uint32_t len);

/*
 * RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'): update the checksum field at `check` for one
 * 16-bit word of the covered data changing from `old` to `new_` (native-order words).
 */
static inline void csum_replace16(uint8_t *check, uint16_t old, uint16_t new_)
{
	uint32_t s = (uint16_t)~csum_ld16(check);

	s += (uint16_t)~old;
	s += new_;
	csum_st16(check, (uint16_t)~csum_fold(s));
}

/* Recompute an IPv4 header checksum in place; hlen is IHL * 4. */
void ip4_hdr_csum_set(uint8_t *iph, unsigned hlen);

#endif
