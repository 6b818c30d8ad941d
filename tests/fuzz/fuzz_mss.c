/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: clamp-mss (sitd_mss_clamp, sitd_mss_find) on one IP packet.
 *
 * Input:
 *	[0]	bits 0-1: the checksum's form, enum sitd_mss_csum (3 taken as CHECK)
 *	[1..2]	the limit, big-endian (0: nothing to do)
 *	then the IP packet, copied into a heap buffer of exactly its size (ASan: nothing
 *	read or written past it)
 *
 * Checked, when the packet parses (sitd_ip_parse) and against pktgen.h's reference sum:
 *   - false: not a byte changed; true: sitd_mss_maybe_syn said it may be a SYN;
 *   - true: the packet was a TCP SYN without RST, not a fragment, with an MSS option
 *     (sitd_mss_find) above the limit; now that option holds the limit (lowered, never
 *     raised) and no byte but its value and the checksum field changed;
 *   - FULL: the TCP checksum is right after exactly when it was right before;
 *     PARTIAL: the field is unchanged, and when it held the pseudo-header sum the
 *     checksum completed from the TCP header as a device completes it is right; CHECK: only a right checksum (stays right) or
 *     a field holding the pseudo-header sum (unchanged) are clamped.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/pktgen.h"
#include "core/inet.h"
#include "core/mss.h"
#include "core/wire.h"
#include "fuzz.h"

static uint32_t ref_pseudo(const uint8_t *p, const struct sitd_ipinfo *ii, uint32_t l4len)
{
	if (ii->version == 4)
		return pg_pseudo4(pg_get32(p + 12), pg_get32(p + 16), PG_PROTO_TCP, (uint16_t)l4len);
	return pg_pseudo6(p + 8, p + 24, PG_PROTO_TCP, l4len);
}

static bool ref_ok(const uint8_t *p, const struct sitd_ipinfo *ii, uint32_t len)
{
	uint32_t l4len = len - ii->l3len;

	return pg_fold(pg_sum(p + ii->l3len, l4len, ref_pseudo(p, ii, l4len))) == 0xffff;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sitd_ipinfo ii;
	enum sitd_mss_csum cs;
	uint8_t *p, *orig;
	uint32_t len, opt = 0, thlen;
	uint16_t mss, old = 0;
	bool was_ok = false, r;

	if (size < 3)
		return 0;
	cs = (data[0] & 3) == 3 ? SITD_MSS_CSUM_CHECK : (enum sitd_mss_csum)(data[0] & 3);
	mss = (uint16_t)(data[1] << 8 | data[2]);
	size -= 3;
	p = malloc(size ? size : 1);
	orig = malloc(size ? size : 1);
	CHECK(p && orig);
	memcpy(p, data + 3, size);
	memcpy(orig, p, size);
	if (sitd_ip_parse(p, size, &ii) != 0)
		goto out;
	len = ii.len;	/* as the callers pass it: the declared length */
	if (ii.l4proto == IPPROTO_TCP && !ii.fragment && ii.l3len + TCP_HDR_LEN <= len) {
		thlen = (p[ii.l3len + TCP_OFF] >> 4) * 4u;
		if (thlen > TCP_HDR_LEN && ii.l3len + thlen <= len)
			opt = sitd_mss_find(p + ii.l3len, thlen);
		if (opt)
			old = pg_get16(p + ii.l3len + opt + 2);
		was_ok = ref_ok(p, &ii, len);
	}
	r = sitd_mss_clamp(p, len, &ii, mss, cs);
	CHECK(!r || sitd_mss_maybe_syn(orig, len));	/* the receive path's first look */
	if (!r) {
		CHECK(!memcmp(p, orig, size));
		goto out;
	}
	{
		const uint8_t *th = p + ii.l3len;
		uint32_t o = ii.l3len + opt + 2, f = ii.l3len + TCP_CSUM;
		uint8_t flags = th[TCP_FLAGS];

		CHECK(opt && (flags & TCP_SYN) && !(flags & TCP_RST) && mss && old > mss);
		CHECK(pg_get16(p + o) == mss);
		for (uint32_t i = 0; i < size; i++)
			CHECK(p[i] == orig[i] || i == o || i == o + 1 || i == f || i == f + 1);
		if (cs == SITD_MSS_CSUM_FULL)
			CHECK(ref_ok(p, &ii, len) == was_ok);
		if (cs == SITD_MSS_CSUM_CHECK)
			CHECK(was_ok ? ref_ok(p, &ii, len) : !memcmp(p + f, orig + f, 2));
		if (cs == SITD_MSS_CSUM_PARTIAL || (cs == SITD_MSS_CSUM_CHECK && !was_ok)) {
			uint32_t l4len = len - ii.l3len;

			CHECK(!memcmp(p + f, orig + f, 2));
			/* The device's sum over the header as it is now, the field included. */
			pg_put16(p + f, (uint16_t)~pg_fold(pg_sum(th, l4len, 0)));
			/* Right when the field held the pseudo-header sum, as CHECK requires. */
			if (pg_get16(orig + f) == pg_fold(ref_pseudo(orig, &ii, l4len)))
				CHECK(ref_ok(p, &ii, len));
			if (cs == SITD_MSS_CSUM_CHECK)
				CHECK(pg_get16(orig + f) == pg_fold(ref_pseudo(orig, &ii, l4len)));
		}
	}
out:
	free(p);
	free(orig);
	return 0;
}
