/* SPDX-License-Identifier: MIT */
#include "core/mss.h"

#include "core/csum.h"
#include "core/wire.h"

enum { TCPOPT_EOL = 0, TCPOPT_NOP = 1, TCPOPT_MSS = 2, TCPOLEN_MSS = 4 };

uint32_t sitd_mss_find(const uint8_t *th, uint32_t thlen)
{
	uint32_t i = TCP_HDR_LEN;

	while (i < thlen) {
		uint8_t kind = th[i], olen;

		if (kind == TCPOPT_EOL)
			return 0;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		/* RFC 9293 3.2: every other option has a length byte, counting kind and itself. */
		if (i + 1 >= thlen)
			return 0;
		olen = th[i + 1];
		if (olen < 2 || olen > thlen - i)
			return 0;
		if (kind == TCPOPT_MSS)
			return olen == TCPOLEN_MSS ? i : 0;
		i += olen;
	}
	return 0;
}

/*
 * A 16-bit word of the sum at th + w, of which only the bytes before end exist: one past
 * it counts as 0.  Only a difference of two such words is used (RFC 1624: ~m + m'), and
 * a byte that does not change cancels out, whatever it is taken to be.
 */
static uint16_t word_at(const uint8_t *th, uint32_t w, uint32_t end)
{
	uint8_t b[2] = { th[w], w + 1 < end ? th[w + 1] : 0 };

	return csum_ld16(b);
}

/*
 * Write the two bytes at th + off and update the checksum field for each 16-bit word of
 * the sum they touch: one when off is even, two when the option sits at an odd offset
 * (after a single NOP, say), the second perhaps the segment's last byte.  RFC 1624
 * eqn. 3 per word; check NULL: the field is left as it is.
 */
static void put16_csum(uint8_t *th, uint32_t off, uint32_t end, uint16_t v, uint8_t *check)
{
	uint32_t w = off & ~1u, nw = (off & 1u) ? 2 : 1;
	uint16_t old[2];

	for (uint32_t k = 0; k < nw; k++)
		old[k] = word_at(th, w + 2 * k, end);
	wr16(th + off, v);
	for (uint32_t k = 0; check && k < nw; k++)
		csum_replace16(check, old[k], word_at(th, w + 2 * k, end));
}

bool sitd_mss_clamp(uint8_t *pkt, uint32_t len, const struct sitd_ipinfo *ii, uint16_t mss,
		    enum sitd_mss_csum cs)
{
	uint32_t thlen, opt, l4len;
	uint8_t *th, flags;

	if (!mss || ii->l4proto != IPPROTO_TCP || ii->fragment || ii->len < len)
		return false;
	if (ii->l3len > len || len - ii->l3len < TCP_HDR_LEN)
		return false;
	th = pkt + ii->l3len;
	l4len = len - ii->l3len;
	flags = th[TCP_FLAGS];
	if (!(flags & TCP_SYN) || (flags & TCP_RST))
		return false;
	thlen = (th[TCP_OFF] >> 4) * 4u;
	if (thlen <= TCP_HDR_LEN || thlen > l4len)
		return false;
	opt = sitd_mss_find(th, thlen);
	if (!opt || rd16(th + opt + 2) <= mss)
		return false;
	if (cs == SITD_MSS_CSUM_CHECK) {
		uint32_t psum = csum_pseudo_ip(pkt, IPPROTO_TCP, l4len);

		if (csum_fold(csum_partial(th, l4len, psum)) == 0xffff)
			cs = SITD_MSS_CSUM_FULL;
		else if (csum_ld16(th + TCP_CSUM) == csum_fold(psum))
			cs = SITD_MSS_CSUM_PARTIAL;
		else
			return false;	/* wrong: the receiver drops it as it came */
	}
	put16_csum(th, opt + 2, l4len, mss, cs == SITD_MSS_CSUM_FULL ? th + TCP_CSUM : NULL);
	return true;
}
