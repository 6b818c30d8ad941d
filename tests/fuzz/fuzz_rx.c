/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: decapsulation of one outer packet from the raw socket.
 *
 * Input:
 *	[0]	bits 0-1 mode (0 any, 1 ipip, 2 sit, 3 any); bit 2 check the remote;
 *		bit 3 check the local address; bit 4 set the outer header checksum right
 *		first, so that mutations of the outer header get past the checksum test
 *	[1..4]	remote, [5..8] local (wire order), used when their bit is set
 *	[9..]	the outer IPv4 packet, outer header included
 *
 * Checked on success: the inner packet lies inside the bytes received and inside the
 * outer total length, re-parses with exactly the returned length and the version the
 * outer protocol names; the outer packet met every rule (checksum, no fragment,
 * protocol for the mode, addresses); nothing changed but the inner ECN field (and the
 * inner IPv4 header checksum with it, which stays valid if it was); the ECN result is
 * RFC 6040 4.2's.  On failure exactly one drop counter moved.
 *
 * With bit 7 of [0] set, an IPv6-outer tunnel (sitd_rx_decap6) instead:
 *	[0]	bits 0-1 mode; bit 2 remote6 set; bit 3 local6 set; bit 4 dscp inherit;
 *		bit 5 `dev` given; bit 6 allow-localremote
 *	[1]	the outer next header, [2] the outer traffic class
 *	[3]	bit 0 the source is ours; bit 1 the source differs from remote6 in its
 *		last byte, bit 2 the destination from local6
 *	[4..19]	remote6, [20..35] local6 (and the source and destination)
 *	[36..]	the inner packet, as the raw IPv6 socket hands it over
 * Checked: on success the next header, addresses and local-remote rule held, the packet
 * re-parses with exactly the returned length inside the bytes given, and only its DS
 * field (and IPv4 checksum) changed: ECN per RFC 6040, DSCP the outer one with dscp
 * inherit, else its own; on failure one drop and the packet untouched.
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

enum { CFG_LEN = 9 };

enum { CFG6_LEN = 36 };

static int rx6(const uint8_t *data, size_t size)
{
	static const enum sitd_mode modes[4] = {
		SITD_MODE_ANY, SITD_MODE_IPIP, SITD_MODE_SIT, SITD_MODE_ANY,
	};
	struct sitd_conf conf;
	struct sitd_stats stats;
	struct sitd_rx rx;
	struct sitd_rx6_outer o;
	struct sitd_ipinfo ii, before;
	uint8_t src[16], dst[16], *pkt, *orig;
	uint32_t len, off = 0xdeadbeef, ilen = 0xdeadbeef;
	uint8_t want_ds;
	int r, want;

	if (size < CFG6_LEN || size - CFG6_LEN > 0x20000)
		return -1;
	memset(&conf, 0, sizeof(conf));
	memset(&stats, 0, sizeof(stats));
	conf.outer = SITD_OUTER_IPV6;
	conf.mode = modes[data[0] & 3];
	if (data[0] & 4)
		memcpy(conf.remote6, data + 4, 16);
	if (data[0] & 8)
		memcpy(conf.local6, data + 20, 16);
	conf.dscp_inherit = data[0] & 16;
	if (data[0] & 32)
		memcpy(conf.dev, "eth0", 5);
	conf.allow_localremote = data[0] & 64;
	sitd_rx_init(&rx, &conf, &stats);
	memcpy(src, data + 4, 16);
	memcpy(dst, data + 20, 16);
	src[15] ^= data[3] & 2 ? 1 : 0;
	dst[15] ^= data[3] & 4 ? 1 : 0;
	o = (struct sitd_rx6_outer){ .src = src, .dst = dst, .ifindex = 1, .nexthdr = data[1],
				     .tclass = data[2], .src_is_local = data[3] & 1 };

	len = (uint32_t)(size - CFG6_LEN);
	pkt = malloc(len ? len : 1);	/* exact size: ASan sees reads past the packet */
	orig = malloc(len ? len : 1);
	CHECK(pkt && orig);
	memcpy(pkt, data + CFG6_LEN, len);
	memcpy(orig, pkt, len);

	r = sitd_rx_decap6(&rx, &o, pkt, len, &off, &ilen);
	if (r != 0) {
		CHECK(r == -1 && drops_total(&stats) == 1 && stats.rx_ecn_marked == 0);
		CHECK(memcmp(pkt, orig, len) == 0);
		free(pkt);
		free(orig);
		return 0;
	}
	CHECK(drops_total(&stats) == 0);
	CHECK(o.nexthdr == IPPROTO_IPV6 || o.nexthdr == IPPROTO_IPIP);
	CHECK(conf.mode == SITD_MODE_ANY || o.nexthdr == (uint8_t)conf.mode);
	CHECK(!(data[0] & 4) || !(data[3] & 2));
	CHECK(!(data[0] & 8) || !(data[3] & 4));
	CHECK(!o.src_is_local || conf.allow_localremote);
	CHECK(src[0] != 0xff);				/* a multicast source never */
	CHECK(off == 0 && ilen > 0 && ilen <= len);
	CHECK(sitd_ip_parse(pkt, ilen, &ii) == 0 && ii.len == ilen);
	CHECK(ii.version == (o.nexthdr == IPPROTO_IPV6 ? 6u : 4u));
	CHECK(sitd_ip_parse(orig, len, &before) == 0 && before.len == ilen);
	for (uint32_t k = 0; k < len; k++) {
		if (ii.version == 4 && (k == IP4_TOS || k == IP4_CSUM || k == IP4_CSUM + 1))
			continue;
		if (ii.version == 6 && (k == 0 || k == 1))
			continue;
		CHECK(pkt[k] == orig[k]);
	}
	if (ii.version == 6) {
		CHECK(ip_version(pkt) == 6 && (pkt[1] & 0x0f) == (orig[1] & 0x0f));
	} else {
		bool ok = csum_fold(csum_partial(orig, (orig[0] & 0x0f) * 4u, 0)) == 0xffff;

		CHECK((csum_fold(csum_partial(pkt, (pkt[0] & 0x0f) * 4u, 0)) == 0xffff) == ok);
	}
	want = rfc6040(o.tclass, before.dsfield);
	CHECK(want >= 0);
	want_ds = (uint8_t)(((conf.dscp_inherit ? o.tclass : before.dsfield) & ~ECN_MASK) | want);
	CHECK(ii.dsfield == want_ds);
	CHECK(stats.rx_ecn_marked == ((want != (before.dsfield & ECN_MASK)) ? 1u : 0u));
	free(pkt);
	free(orig);
	return 0;
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
	const uint8_t *orig;
	uint8_t *copy, *pkt, *in;
	uint32_t len, off = 0xdeadbeef, ilen = 0xdeadbeef, hl, tot;
	bool inner_ok = false, inner_csum_ok = false;
	int r, want;

	if (size >= 1 && (data[0] & 0x80))
		return rx6(data, size);
	if (size < CFG_LEN || size - CFG_LEN > 0x20000)
		return -1;
	memset(&conf, 0, sizeof(conf));
	memset(&stats, 0, sizeof(stats));
	conf.mode = modes[data[0] & 3];
	conf.remote = data[0] & 4 ? rd32(data + 1) : 0;
	conf.local = data[0] & 8 ? rd32(data + 5) : 0;
	sitd_rx_init(&rx, &conf, &stats);

	len = (uint32_t)(size - CFG_LEN);
	copy = malloc(len ? len : 1);
	pkt = malloc(len ? len : 1);	/* exact size: ASan sees reads past the packet */
	CHECK(copy != NULL && pkt != NULL);
	memcpy(copy, data + CFG_LEN, len);
	if ((data[0] & 16) && len >= IPV4_HDR_LEN && (copy[0] & 0x0f) * 4u <= len &&
	    (copy[0] & 0x0f) * 4u >= IPV4_HDR_LEN)
		ip4_hdr_csum_set(copy, (copy[0] & 0x0f) * 4u);
	orig = copy;
	memcpy(pkt, orig, len);

	r = sitd_rx_decap(&rx, pkt, len, &off, &ilen);
	if (r != 0) {
		CHECK(r == -1);
		CHECK(drops_total(&stats) == 1);
		CHECK(stats.rx_ecn_marked == 0);
		CHECK(memcmp(pkt, orig, len) == 0);	/* a drop leaves the packet alone */
		free(pkt);
		free(copy);
		return 0;
	}
	CHECK(drops_total(&stats) == 0);

	/* The outer packet, which was accepted. */
	CHECK(len >= IPV4_HDR_LEN && ip_version(orig) == 4);
	hl = (orig[IP4_VIHL] & 0x0f) * 4u;
	tot = rd16(orig + IP4_TOTLEN);
	CHECK(hl >= IPV4_HDR_LEN && hl <= tot && tot <= len);
	CHECK(csum_fold(csum_partial(orig, hl, 0)) == 0xffff);
	CHECK(!(rd16(orig + IP4_FRAG) & (IP4_MF | IP4_OFFMASK)));
	CHECK(orig[IP4_PROTO] == IPPROTO_IPV6 || orig[IP4_PROTO] == IPPROTO_IPIP);
	if (conf.mode != SITD_MODE_ANY)
		CHECK(orig[IP4_PROTO] == (uint8_t)conf.mode);
	if (conf.remote)
		CHECK(rd32(orig + IP4_SRC) == conf.remote);
	if (conf.local)
		CHECK(rd32(orig + IP4_DST) == conf.local);

	/* The inner packet: inside what was received and what the outer header declares. */
	CHECK(off == hl);
	CHECK(ilen > 0 && off + ilen <= tot && off + ilen <= len && off + ilen > off);
	in = pkt + off;
	CHECK(sitd_ip_parse(in, ilen, &ii) == 0);
	CHECK(ii.len == ilen);
	CHECK(ii.version == (orig[IP4_PROTO] == IPPROTO_IPV6 ? 6u : 4u));
	CHECK(sitd_mode_carries(conf.mode, ii.version));

	/* Only the ECN bits (and the IPv4 header checksum) may have changed. */
	CHECK(sitd_ip_parse(orig + off, tot - off, &before) == 0);
	if (before.version == 4) {
		unsigned ihl = (orig[off] & 0x0f) * 4u;

		inner_ok = true;
		inner_csum_ok = csum_fold(csum_partial(orig + off, ihl, 0)) == 0xffff;
	}
	for (uint32_t k = 0; k < len; k++) {
		uint32_t rel = k - off;

		if (k >= off && ii.version == 4 && (rel == IP4_TOS || rel == IP4_CSUM ||
						    rel == IP4_CSUM + 1))
			continue;
		if (k >= off && ii.version == 6 && (rel == 0 || rel == 1))
			continue;
		CHECK(pkt[k] == orig[k]);
	}
	CHECK((ii.dsfield & ~ECN_MASK) == (before.dsfield & ~ECN_MASK));
	if (ii.version == 6)
		CHECK(ip_version(in) == 6 && (in[1] & 0x0f) == (orig[off + 1] & 0x0f));
	want = rfc6040(orig[IP4_TOS], before.dsfield);
	CHECK(want >= 0 && (ii.dsfield & ECN_MASK) == (unsigned)want);
	CHECK(stats.rx_ecn_marked == ((ii.dsfield != before.dsfield) ? 1u : 0u));
	if (inner_ok) {
		unsigned ihl = (in[0] & 0x0f) * 4u;

		CHECK((csum_fold(csum_partial(in, ihl, 0)) == 0xffff) == inner_csum_ok);
	}
	free(pkt);
	free(copy);
	return 0;
}
