/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: decapsulation of one FOU or GUE UDP payload (sitd_rx_decap_udp, and
 * with bit 5 sitd_rx_decap_udp6 for an IPv6 underlay, fou6).
 *
 * Input:
 *	[0]	bits 0-1 mode (0 any, 1 ipip, 2 sit, 3 any); bit 2 encap gue (else fou);
 *		bit 3 the payload comes from the remote (else from [6..9]); bit 4 no remote
 *		configured (any source); bit 5 IPv6 outer: remote 2001:db8::[2..5], source
 *		2001:db8::[6..9] unless from the remote, destination local 2001:db8::1, the
 *		traffic class [1]
 *	[1]	outer TOS, as IP_RECVTOS reports it
 *	[2..5]	remote, [6..9] source (wire order)
 *	[10..]	the UDP payload
 *
 * Checked on success: the inner packet lies inside the payload (off + len, without
 * overflow), behind nothing (fou, GUE version 1) or behind a 4-byte GUE version 0 header
 * with no C bit, Hlen or flags and a Proto of 41 or 4; it re-parses with sitd_ip_parse
 * with exactly the returned length, and its version is the one the mode or the GUE Proto
 * names; the source is the remote; nothing changed but the inner ECN field (and the IPv4
 * header checksum with it, which stays valid if it was); the ECN result is RFC 6040 4.2's.
 * On failure exactly one drop counter moved, one of those this path may count, the
 * payload is untouched, and the reasons that follow from the first bytes alone are the
 * ones counted: wrong source, empty payload, GUE versions 2 and 3, the C bit, Hlen or flags.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/conf.h"
#include "core/csum.h"
#include "core/inet.h"
#include "core/rx.h"
#include "core/stats.h"
#include "core/wire.h"
#include "fuzz.h"

enum { CFG_LEN = 10 };

/* The one drop reason counted; SITD_DROP_MAX when none or several. */
static enum sitd_drop the_drop(const struct sitd_stats *st)
{
	enum sitd_drop r = SITD_DROP_MAX;

	for (size_t i = 0; i < SITD_DROP_MAX; i++) {
		if (st->drop[i] == 0)
			continue;
		if (st->drop[i] != 1 || r != SITD_DROP_MAX)
			return SITD_DROP_MAX;
		r = (enum sitd_drop)i;
	}
	return r;
}

/* A drop for which this function may count: the UDP path's reasons only. */
static bool udp_reason(enum sitd_drop r, bool gue)
{
	if (r == SITD_DROP_rx_gue_version || r == SITD_DROP_rx_gue_control || r == SITD_DROP_rx_gue_flags)
		return gue;
	return r == SITD_DROP_rx_wrong_source || r == SITD_DROP_rx_inner_truncated ||
	       r == SITD_DROP_rx_proto || r == SITD_DROP_rx_inner_version || r == SITD_DROP_rx_ecn;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum sitd_mode modes[4] = {
		SITD_MODE_ANY, SITD_MODE_IPIP, SITD_MODE_SIT, SITD_MODE_ANY,
	};
	struct sitd_conf conf;
	struct sitd_stats stats;
	struct sitd_rx rx;
	struct sitd_ipinfo ii, before;
	struct sitd_rx6_outer o6;
	uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8 }, dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	bool six;
	uint8_t *orig, *pl, *in, tos;
	uint32_t len, src, off = 0xdeadbeef, ilen = 0xdeadbeef;
	bool gue, src_ok, inner_csum_ok = false;
	unsigned ver = 0;
	int r, want;

	if (size < CFG_LEN || size - CFG_LEN > 0x20000)
		return -1;
	memset(&conf, 0, sizeof(conf));
	memset(&stats, 0, sizeof(stats));
	conf.mode = modes[data[0] & 3];
	conf.encap = data[0] & 4 ? SITD_ENCAP_GUE : SITD_ENCAP_FOU;
	conf.encap_dport = 5555;
	conf.remote = data[0] & 16 ? 0 : rd32(data + 2);
	src = data[0] & 8 ? rd32(data + 2) : rd32(data + 6);
	six = data[0] & 32;
	if (six) {
		/* Global unicast ends: ip6_tnl_get_cap takes them all; the source never ours. */
		conf.outer = SITD_OUTER_IPV6;
		if (conf.remote) {
			memcpy(conf.remote6, src6, 16);
			wr32(conf.remote6 + 12, conf.remote);
		}
		memcpy(conf.local6, dst6, 16);
		conf.remote = 0;
		wr32(src6 + 12, src);
		o6 = (struct sitd_rx6_outer){ .src = src6, .dst = dst6, .tclass = data[1] };
	}
	tos = data[1];
	gue = conf.encap == SITD_ENCAP_GUE;
	sitd_rx_init(&rx, &conf, &stats);

	len = (uint32_t)(size - CFG_LEN);
	orig = malloc(len ? len : 1);
	pl = malloc(len ? len : 1);	/* exact size: ASan sees reads past the payload */
	CHECK(orig != NULL && pl != NULL);
	memcpy(orig, data + CFG_LEN, len);
	memcpy(pl, orig, len);
	if (len)
		ver = orig[0] >> 6;
	src_ok = six ? ip6_addr_is_unspecified(conf.remote6) || !memcmp(src6, conf.remote6, 16)
		     : !conf.remote || src == conf.remote;

	if (six)
		r = sitd_rx_decap_udp6(&rx, &o6, pl, len, &off, &ilen);
	else
		r = sitd_rx_decap_udp(&rx, tos, src, pl, len, &off, &ilen);
	if (r != 0) {
		enum sitd_drop why = the_drop(&stats);

		CHECK(r == -1);
		CHECK(drops_total(&stats) == 1 && why != SITD_DROP_MAX);
		CHECK(udp_reason(why, gue));
		CHECK(stats.rx_ecn_marked == 0);
		CHECK(len == 0 || memcmp(pl, orig, len) == 0);	/* a drop leaves it alone */
		CHECK((why == SITD_DROP_rx_wrong_source) == !src_ok);
		if (src_ok && len == 0)
			CHECK(why == SITD_DROP_rx_inner_truncated);
		if (src_ok && gue && len >= GUE_HDR_LEN) {
			bool c = orig[0] & 0x20, extra = (orig[0] & 0x1f) || orig[2] || orig[3];

			if (ver >= 2)
				CHECK(why == SITD_DROP_rx_gue_version);
			if (ver == 0 && c && !extra)
				CHECK(why == SITD_DROP_rx_gue_control);
			if (ver == 0 && !c && extra)
				CHECK(why == SITD_DROP_rx_gue_flags);
			if (ver == 0 && !c && !extra && orig[1] != IPPROTO_IPV6 && orig[1] != IPPROTO_IPIP)
				CHECK(why == SITD_DROP_rx_proto);
		}
		free(pl);
		free(orig);
		return 0;
	}
	CHECK(r == 0);
	CHECK(drops_total(&stats) == 0);
	CHECK(src_ok);

	/* Where the inner packet is. */
	CHECK(ilen > 0 && off <= len && ilen <= len - off);
	if (gue && ver == 0) {
		CHECK(off == GUE_HDR_LEN);
		CHECK(orig[0] == 0 && orig[2] == 0 && orig[3] == 0);
		CHECK(orig[1] == IPPROTO_IPV6 || orig[1] == IPPROTO_IPIP);
		CHECK(conf.mode == SITD_MODE_ANY || orig[1] == (uint8_t)conf.mode);
	} else {
		CHECK(!gue || ver == 1);
		CHECK(off == 0);
	}

	/* It re-parses, at exactly its length, and is of the version its protocol names. */
	in = pl + off;
	CHECK(sitd_ip_parse(in, ilen, &ii) == 0);
	CHECK(ii.len == ilen);
	CHECK(ip_version(in) == ii.version);
	CHECK(sitd_mode_carries(conf.mode, ii.version));
	if (gue && ver == 0)
		CHECK(ii.version == (orig[1] == IPPROTO_IPV6 ? 6u : 4u));
	CHECK(sitd_ip_parse(orig + off, len - off, &before) == 0);
	CHECK(before.len == ilen && before.version == ii.version);

	/* Only the ECN bits (and the IPv4 header checksum) may have changed. */
	if (ii.version == 4)
		inner_csum_ok = csum_fold(csum_partial(orig + off, before.l3len, 0)) == 0xffff;
	for (uint32_t k = 0; k < len; k++) {
		uint32_t rel = k - off;

		if (k >= off && ii.version == 4 && (rel == IP4_TOS || rel == IP4_CSUM ||
						    rel == IP4_CSUM + 1))
			continue;
		if (k >= off && ii.version == 6 && (rel == 0 || rel == 1))
			continue;
		CHECK(pl[k] == orig[k]);
	}
	CHECK((ii.dsfield & ~ECN_MASK) == (before.dsfield & ~ECN_MASK));
	if (ii.version == 6)
		CHECK(ip_version(in) == 6 && (in[1] & 0x0f) == (orig[off + 1] & 0x0f));
	want = rfc6040(tos, before.dsfield);
	CHECK(want >= 0 && (ii.dsfield & ECN_MASK) == (unsigned)want);
	CHECK(stats.rx_ecn_marked == ((ii.dsfield != before.dsfield) ? 1u : 0u));
	if (ii.version == 4)
		CHECK((csum_fold(csum_partial(in, ii.l3len, 0)) == 0xffff) == inner_csum_ok);
	free(pl);
	free(orig);
	return 0;
}
