/* SPDX-License-Identifier: MIT */
#include "core/keepalive.h"

#include <string.h>

#include "core/csum.h"
#include "core/inet.h"
#include "core/wire.h"

enum {
	ICMP4_ECHO = 8, ICMP4_ECHOREPLY = 0,		/* RFC 792 */
	ICMP6_ECHO = 128, ICMP6_ECHOREPLY = 129,	/* RFC 4443 4.1, 4.2 */
	KA_HOPS = 64,
};

static const uint8_t ka_payload[SITD_KA_PAYLOAD] = "sitd-ka";

size_t sitd_ka_echo(uint8_t *buf, size_t cap, unsigned family, const uint8_t *src, const uint8_t *dst,
		    uint16_t id, uint16_t seq)
{
	size_t l3 = family == 6 ? IPV6_HDR_LEN : IPV4_HDR_LEN, n = l3 + ICMP_HDR_LEN + SITD_KA_PAYLOAD;
	uint8_t *m = buf + l3;
	uint32_t sum;

	if (cap < n || (family != 4 && family != 6))
		return 0;
	memset(buf, 0, n);
	m[0] = family == 6 ? ICMP6_ECHO : ICMP4_ECHO;
	wr16(m + 4, id);
	wr16(m + 6, seq);
	memcpy(m + ICMP_HDR_LEN, ka_payload, SITD_KA_PAYLOAD);
	if (family == 6) {
		wr32(buf, 0x60000000u);
		wr16(buf + IP6_PLEN, (uint16_t)(n - l3));
		buf[IP6_NXT] = IPPROTO_ICMPV6;
		buf[IP6_HLIM] = KA_HOPS;
		memcpy(buf + IP6_SRC, src, 16);
		memcpy(buf + IP6_DST, dst, 16);
		sum = csum_pseudo6(buf + IP6_SRC, buf + IP6_DST, IPPROTO_ICMPV6, (uint32_t)(n - l3));
	} else {
		buf[IP4_VIHL] = 0x45;
		wr16(buf + IP4_TOTLEN, (uint16_t)n);
		wr16(buf + IP4_ID, seq);
		buf[IP4_TTL] = KA_HOPS;
		buf[IP4_PROTO] = IPPROTO_ICMP;
		memcpy(buf + IP4_SRC, src, 4);
		memcpy(buf + IP4_DST, dst, 4);
		ip4_hdr_csum_set(buf, IPV4_HDR_LEN);
		sum = 0;	/* ICMPv4 has no pseudo-header (RFC 792) */
	}
	csum_store(m + 2, csum_partial(m, n - l3, sum));
	return n;
}

bool sitd_ka_is_reply(const uint8_t *p, uint32_t len, unsigned family, const uint8_t *peer,
		      uint16_t id, uint16_t seq_last, uint16_t window)
{
	struct sitd_ipinfo ii;
	const uint8_t *m;
	uint32_t mlen, sum;

	if (sitd_ip_parse(p, len, &ii) || ii.version != family || ii.fragment || ii.len > len)
		return false;
	if (ii.l4proto != (family == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP) || ii.len - ii.l3len < ICMP_HDR_LEN)
		return false;
	m = p + ii.l3len;
	mlen = ii.len - ii.l3len;
	if (m[0] != (family == 6 ? ICMP6_ECHOREPLY : ICMP4_ECHOREPLY) || m[1] != 0 || rd16(m + 4) != id)
		return false;
	if ((uint16_t)(seq_last - rd16(m + 6)) > window)
		return false;
	if (memcmp(p + (family == 6 ? IP6_SRC : IP4_SRC), peer, family == 6 ? 16 : 4))
		return false;
	sum = family == 6 ? csum_pseudo6(p + IP6_SRC, p + IP6_DST, IPPROTO_ICMPV6, mlen) : 0;
	return csum_fold(csum_partial(m, mlen, sum)) == 0xffff;
}

void sitd_ka_init(struct sitd_ka_state *s, uint16_t seconds, uint8_t retries, uint64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	s->interval_ns = (uint64_t)seconds * 1000000000u;
	s->retries = retries;
	s->up = true;
	s->last_heard_ns = start_ns;
}

int sitd_ka_update(struct sitd_ka_state *s, uint64_t now_ns, bool heard)
{
	if (heard) {
		s->last_heard_ns = now_ns;
		s->heard_ever = true;
		if (s->up)
			return 0;
		s->up = true;
		s->transitions++;
		return 1;
	}
	if (!s->up || now_ns - s->last_heard_ns < s->interval_ns * s->retries)
		return 0;
	s->up = false;
	s->transitions++;
	return -1;
}
