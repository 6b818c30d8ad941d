/* SPDX-License-Identifier: MIT */
#include "core/csum.h"

#include "core/wire.h"

/*
 * 32-bit words go into a 64-bit accumulator, so carries pile up in the upper half and
 * are folded once at the end; 32 bytes per iteration keep the loop out of the way of
 * the loads.  This is the one loop every transmitted segment's payload passes through.
 */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t acc = sum;

	while (len >= 32) {
		uint32_t w[8];

		memcpy(w, p, sizeof(w));
		acc += (uint64_t)w[0] + w[1] + w[2] + w[3];
		acc += (uint64_t)w[4] + w[5] + w[6] + w[7];
		p += 32;
		len -= 32;
	}
	while (len >= 4) {
		uint32_t w;

		memcpy(&w, p, sizeof(w));
		acc += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		acc += csum_ld16(p);
		p += 2;
		len -= 2;
	}
	if (len) {
		/* An odd last byte is padded with a zero byte after it (RFC 1071 4.1). */
		const uint8_t last[2] = { p[0], 0 };

		acc += csum_ld16(last);
	}
	acc = (acc & 0xffffffffu) + (acc >> 32);
	acc = (acc & 0xffffffffu) + (acc >> 32);
	return (uint32_t)acc;
}

uint32_t csum_pseudo4(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len)
{
	uint8_t tail[4] = { 0, proto, (uint8_t)(len >> 8), (uint8_t)len };
	uint32_t s = csum_partial(src, 4, 0);

	s = csum_partial(dst, 4, s);
	return csum_partial(tail, sizeof(tail), s);
}

uint32_t csum_pseudo6(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len)
{
	uint8_t tail[8] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
			    (uint8_t)len, 0, 0, 0, proto };
	uint32_t s = csum_partial(src, 16, 0);

	s = csum_partial(dst, 16, s);
	return csum_partial(tail, sizeof(tail), s);
}

uint32_t csum_pseudo_ip(const uint8_t *ip, uint8_t proto, uint32_t len)
{
	return ip[0] >> 4 == 4 ? csum_pseudo4(ip + IP4_SRC, ip + IP4_DST, proto, len)
			       : csum_pseudo6(ip + IP6_SRC, ip + IP6_DST, proto, len);
}

void ip4_hdr_csum_set(uint8_t *iph, unsigned hlen)
{
	iph[IP4_CSUM] = 0;
	iph[IP4_CSUM + 1] = 0;
	csum_st16(iph + IP4_CSUM, (uint16_t)~csum_fold(csum_partial(iph, hlen, 0)));
}
