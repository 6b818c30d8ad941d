/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the ISATAP neighbour discovery check behind extension headers
 * (src/core/sixrd.h: sitd_ip6_nd, sitd_isatap_nd_check).
 *
 * Input: [0] & 3 is the node (enum sitd_isatap_node); [0] & 4 selects
 *	0  raw: the rest is an inner IPv6 packet, checked as it is
 *	4  chain: [1] & 15 extension headers follow, one byte each: bits 0-1 the kind
 *	   (Hop-by-Hop, Destination Options, Routing, Fragment with offset 0), bits 2-3 the
 *	   length in 8-byte units less one (Fragment: always 8), bit 4 the Fragment's M
 *	   flag; the rest is an ICMPv6 message, put once right after the IPv6 header and
 *	   once behind that chain
 *
 * Every packet is checked in a buffer of exactly its length (ASan: nothing read or
 * written past it).  Checked: the only bytes written are the Router Lifetime and
 * Checksum of an RA from a NODEFAULT router, the lifetime becomes 0 and the RFC 1071 sum
 * of the message is unchanged (so a right checksum stays right); the verdict follows the
 * node and what sitd_ip6_nd found, which agrees with sitd_ip_parse wherever that one
 * reaches the ICMPv6 header; and a message behind a chain gets the same verdict and the
 * same rewrite as directly after the header, except that a first fragment without the
 * 8-byte ICMPv6 header is undecided.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/inet.h"
#include "core/sixrd.h"
#include "core/wire.h"
#include "fuzz.h"

enum { BODY_MAX = 4096, CHAIN_MAX = 15 * 32 };

static const uint8_t SRC[16] = { 0xfe, 0x80, [10] = 0x5e, [11] = 0xfe, 203, 0, 113, 2 };
static const uint8_t DST[16] = { 0xfe, 0x80, [10] = 0x5e, [11] = 0xfe, 198, 51, 100, 1 };

/* RFC 1071 sum of big-endian words from p (len bytes), folded, 0 and 0xffff the same. */
static unsigned sum16(const uint8_t *p, uint32_t len)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < len; i += 2)
		s += (uint32_t)(p[i] << 8 | (i + 1 < len ? p[i + 1] : 0));
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff ? 0 : (unsigned)s;
}

static enum sitd_isatap_verdict expected(enum sitd_isatap_node node, int rc,
					 const struct sitd_nd *nd)
{
	bool host = node == SITD_ISATAP_HOST;

	if ((!host && node != SITD_ISATAP_NODEFAULT) || rc)
		return SITD_ISATAP_PASS;
	if (nd->undecided || nd->type == SITD_ND_REDIRECT)
		return host ? SITD_ISATAP_ND_HOST : SITD_ISATAP_ND_NODEFAULT;
	if (nd->type == SITD_ND_RA && host)
		return SITD_ISATAP_RA_HOST;
	return SITD_ISATAP_PASS;
}

/*
 * Check pkt (len bytes, in an exact buffer) as node; every property that holds for one
 * packet.  Returns the verdict; *nd what sitd_ip6_nd found before the check.
 */
static enum sitd_isatap_verdict one(uint8_t *pkt, uint32_t len, enum sitd_isatap_node node,
				    struct sitd_nd *nd)
{
	uint8_t *before = malloc(len ? len : 1);
	struct sitd_ipinfo ii;
	enum sitd_isatap_verdict v;
	int rc;

	CHECK(before);
	memcpy(before, pkt, len);
	rc = sitd_ip6_nd(pkt, len, nd);
	CHECK(!memcmp(before, pkt, len));
	CHECK(rc == 0 || rc == -EINVAL);
	if (rc == 0 && nd->type != SITD_ND_NONE) {
		CHECK(nd->off >= 40 && nd->off % 4 == 0 && nd->off < nd->end && nd->end <= len);
		CHECK(pkt[nd->off] == nd->type && !nd->undecided && !nd->later_fragment);
	}
	/* Where the 8-header parser reaches ICMPv6 too, the two agree. */
	if (rc == 0 && sitd_ip_parse(pkt, len, &ii) == 0 && !ii.later_fragment &&
	    ii.l4proto == 58 && ii.l3len < ii.len &&
	    (!ii.fragment || ii.l3len + 8 <= ii.len)) {
		uint8_t t = pkt[ii.l3len];

		CHECK(!nd->undecided);
		CHECK(nd->type == (t >= 133 && t <= 137 ? t : SITD_ND_NONE));
		if (nd->type != SITD_ND_NONE)
			CHECK(nd->off == ii.l3len);
	}

	v = sitd_isatap_nd_check(pkt, len, node);
	CHECK(v == expected(node, rc, nd));
	for (uint32_t i = 0; i < len; i++) {
		if (pkt[i] == before[i])
			continue;
		/* Only an RA from a NODEFAULT router, only its lifetime and checksum. */
		CHECK(node == SITD_ISATAP_NODEFAULT && v == SITD_ISATAP_PASS && rc == 0 &&
		      nd->type == SITD_ND_RA);
		CHECK(i == nd->off + 2 || i == nd->off + 3 || i == nd->off + 6 ||
		      i == nd->off + 7);
	}
	if (memcmp(pkt, before, len)) {
		CHECK(rd16(pkt + nd->off + 6) == 0);
		CHECK(sum16(pkt + nd->off, nd->end - nd->off) ==
		      sum16(before + nd->off, nd->end - nd->off));
	}
	free(before);
	return v;
}

/* An exact-size copy of hdr(40) + mid(midlen) + body(blen), payload length set. */
static uint8_t *build(const uint8_t *mid, uint32_t midlen, uint8_t first_nxt, const uint8_t *body,
		      uint32_t blen, uint32_t *len)
{
	uint8_t *p;

	*len = 40 + midlen + blen;
	p = malloc(*len);
	CHECK(p);
	memset(p, 0, 40);
	p[0] = 0x60;
	wr16(p + IP6_PLEN, (uint16_t)(midlen + blen));
	p[IP6_NXT] = first_nxt;
	p[IP6_HLIM] = 255;
	memcpy(p + IP6_SRC, SRC, 16);
	memcpy(p + IP6_DST, DST, 16);
	if (midlen)
		memcpy(p + 40, mid, midlen);
	memcpy(p + 40 + midlen, body, blen);
	return p;
}

static void fuzz_chain(enum sitd_isatap_node node, const uint8_t *d, size_t n)
{
	static const uint8_t kinds[4] = { 0, 60, 43, 44 };
	uint8_t chain[CHAIN_MAX], *plain, *behind;
	uint32_t clen = 0, blen, plen_, blen_;
	enum sitd_isatap_verdict vp, vc;
	struct sitd_nd ndp, ndc;
	unsigned nh;
	bool frag = false;

	if (n < 1)
		return;
	nh = d[0] & 15;
	if (n < 1 + nh)
		return;
	for (unsigned i = 0; i < nh; i++) {
		uint8_t b = d[1 + i], kind = kinds[b & 3];
		uint32_t hl = kind == 44 ? 8 : 8u * (((b >> 2) & 3) + 1);
		uint8_t nxt = i + 1 < nh ? kinds[d[2 + i] & 3] : 58;

		memset(chain + clen, 0, hl);
		chain[clen] = nxt;
		if (kind == 44) {
			chain[clen + 3] = (b >> 4) & 1;		/* offset 0, M */
			frag = true;
		} else {
			chain[clen + 1] = (uint8_t)(hl / 8 - 1);
			if (kind != 43) {
				chain[clen + 2] = 1;		/* PadN */
				chain[clen + 3] = (uint8_t)(hl - 4);
			}
		}
		clen += hl;
	}
	blen = (uint32_t)(n - 1 - nh);
	if (blen > BODY_MAX)
		blen = BODY_MAX;
	plain = build(NULL, 0, 58, d + 1 + nh, blen, &plen_);
	behind = build(chain, clen, nh ? kinds[d[1] & 3] : 58, d + 1 + nh, blen, &blen_);
	vp = one(plain, plen_, node, &ndp);
	vc = one(behind, blen_, node, &ndc);
	if (frag && blen < 8) {
		CHECK(ndc.undecided);
		CHECK(vc == expected(node, 0, &ndc));
	} else if (blen > 0) {
		/* (An empty body directly after the header is a refused jumbogram.) */
		CHECK(vp == vc);
		CHECK(ndp.type == ndc.type);
		CHECK(!memcmp(plain + 40, behind + 40 + clen, blen));
	}
	free(plain);
	free(behind);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum sitd_isatap_node node;
	struct sitd_nd nd;

	if (size < 1)
		return 0;
	node = (enum sitd_isatap_node)(data[0] & 3);
	if (data[0] & 4) {
		fuzz_chain(node, data + 1, size - 1);
	} else {
		uint32_t len = (uint32_t)(size - 1 > 70000 ? 70000 : size - 1);
		uint8_t *p = malloc(len ? len : 1);

		CHECK(p);
		memcpy(p, data + 1, len);
		one(p, len, node, &nd);
		free(p);
	}
	return 0;
}
