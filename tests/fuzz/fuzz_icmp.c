/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the ICMP error builders (icmp.h) and the handling of ICMP errors
 * about sitd's own outer packets (icmperr.h), on arbitrary packets.
 *
 * Input:
 *	[0..1]	cap of the output buffers, big-endian, taken modulo 2048 (each buffer is
 *		allocated with exactly that size, so ASan sees any write past it)
 *	[2]	type, [3] code, [4..7] info
 *	[8]	bit 0: pass [9..24] as the ICMPv6 source; bit 1: pass [9..12] as the
 *		ICMPv4 source (0 there means "use the packet's destination" anyway);
 *		bits 2-3: tunnel mode for sitd_icmp_err (0 any, 1 ipip, 2 sit, 3 any);
 *		bit 4: ttl 64 (else inherit); bit 5: local address 192.0.2.1 (else any)
 *	[9..24]	source address bytes; [21..24] are also the router that sent the error
 *	[25..]	the packet: the offending packet for the builders (whole for
 *		sitd_icmp{6,4}_error, possibly cut short for the _quote variants), and the
 *		quoted outer packet for sitd_icmp_err (the tunnel's remote is 198.51.100.2)
 *
 * A built error is 0 or a packet of at most cap bytes, at most 1280 (v6) or 576 (v4),
 * that parses back as exactly its length, goes from the chosen source back to the
 * packet's source, carries type, code and info as asked, quotes the start of the packet
 * (as much as fits the limit, and no more than is there), and whose checksums verify.
 * sitd_icmp_err relays such a packet only for errors about this tunnel's packets.
 *
 * With bit 6 of [8], the packet is instead quoted in an ICMPv6 error about an
 * IPv6-outer tunnel's packet (sitd_icmp6_err): remote6 2001:db8:ff::2, local6
 * 2001:db8:ff::1 with bit 5 (else any), mode bits 2-3; bit 0: [9..24] is the device's
 * global IPv6 address (the relay's source), bit 1: [9..12] the ICMPv4 relay's source,
 * bit 4: [21..22] the tunnel MTU.  Checked: ERR_PMTU exactly for Packet Too Big, with a
 * path MTU of at least 1280; relays only for the kernel's types, from the right source,
 * with the kernel's type, code and MTU, and each a valid error within cap.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/conf.h"
#include "core/csum.h"
#include "core/icmp.h"
#include "core/icmperr.h"
#include "core/inet.h"
#include "core/wire.h"
#include "fuzz.h"

enum {
	CFG_LEN = 25, CAP_MASK = 0x7ff,
	LOCAL = 0xc0000201u /* 192.0.2.1 */, REMOTE = 0xc6336402u /* 198.51.100.2 */,
};

/* What one built error must be. */
struct expect {
	unsigned version;
	uint8_t type, code;
	uint32_t info;
	const uint8_t *src6;	/* NULL: the packet's destination */
	uint32_t src4;		/* 0: the packet's destination */
	bool partial;		/* the packet may be cut short */
};

static void check_error(const uint8_t *out, size_t n, size_t cap, const struct expect *x,
			const uint8_t *pkt, size_t len)
{
	struct sitd_ipinfo ii, pi;
	size_t hdr = x->version == 6 ? IPV6_HDR_LEN : IPV4_HDR_LEN;
	size_t limit = x->version == 6 ? ICMP6_ERR_MAX : ICMP4_ERR_MAX;
	size_t quote, want;
	uint32_t sum;

	/* The packet built. */
	CHECK(n <= cap && n <= limit && n >= hdr + ICMP_HDR_LEN);
	CHECK(sitd_ip_parse(out, n, &ii) == 0);
	CHECK(ii.version == x->version && ii.len == n && ii.l3len == hdr && !ii.fragment);
	CHECK(ii.l4proto == (x->version == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP));
	CHECK(out[hdr] == x->type && out[hdr + 1] == x->code && rd32(out + hdr + 4) == x->info);

	/* What it is about: a packet of this version, quoted from its start. */
	CHECK((x->partial ? sitd_ip_parse_quote(pkt, len, &pi) : sitd_ip_parse(pkt, len, &pi)) == 0);
	CHECK(pi.version == x->version && pi.len <= len);
	quote = n - hdr - ICMP_HDR_LEN;
	want = limit - hdr - ICMP_HDR_LEN;
	CHECK(quote == (pi.len < want ? pi.len : want));
	CHECK(quote <= len && memcmp(out + hdr + ICMP_HDR_LEN, pkt, quote) == 0);

	if (x->version == 6) {
		/* RFC 4443 2.4(e): never about a packet from nobody or from a group. */
		CHECK(!ip6_addr_is_multicast(pkt + IP6_SRC) &&
		      !ip6_addr_is_unspecified(pkt + IP6_SRC));
		CHECK(memcmp(out + IP6_DST, pkt + IP6_SRC, 16) == 0);
		CHECK(memcmp(out + IP6_SRC, x->src6 ? x->src6 : pkt + IP6_DST, 16) == 0);
		CHECK(x->src6 || !ip6_addr_is_multicast(out + IP6_SRC));
		sum = csum_pseudo6(out + IP6_SRC, out + IP6_DST, IPPROTO_ICMPV6,
				   (uint32_t)(n - IPV6_HDR_LEN));
	} else {
		uint32_t psrc = rd32(pkt + IP4_SRC);

		/* RFC 1812 4.3.2.7: only to one host (not 0/8, loopback, broadcast or
		 * multicast), never about a later fragment. */
		CHECK((psrc >> 24) != 0 && psrc != 0xffffffffu && !ip4_addr_is_multicast(psrc) &&
		      (psrc >> 24) != 127 && !pi.later_fragment);
		CHECK(rd32(out + IP4_DST) == psrc);
		CHECK(rd32(out + IP4_SRC) == (x->src4 ? x->src4 : rd32(pkt + IP4_DST)));
		CHECK(csum_fold(csum_partial(out, IPV4_HDR_LEN, 0)) == 0xffff);
		sum = 0;
	}
	CHECK(csum_fold(csum_partial(out + hdr, n - hdr, sum)) == 0xffff);
	/* Never an error about an error. */
	CHECK(!sitd_ip_is_icmp_error(pkt, &pi));
}

static void builders(const uint8_t *data, size_t cap, const uint8_t *pkt, size_t len,
		     uint8_t *out)
{
	struct expect x = {
		.type = data[2], .code = data[3], .info = rd32(data + 4),
		.src6 = data[8] & 1 ? data + 9 : NULL, .src4 = data[8] & 2 ? rd32(data + 9) : 0,
	};
	size_t n;

	for (int partial = 0; partial < 2; partial++) {
		x.partial = partial;
		x.version = 6;
		n = (partial ? sitd_icmp6_error_quote : sitd_icmp6_error)(out, cap, x.type, x.code,
									   x.info, x.src6, pkt, len);
		if (n)
			check_error(out, n, cap, &x, pkt, len);
		x.version = 4;
		n = (partial ? sitd_icmp4_error_quote : sitd_icmp4_error)(out, cap, x.type, x.code,
									   x.info, x.src4, pkt, len);
		if (n)
			check_error(out, n, cap, &x, pkt, len);
	}
}

/* An ICMPv4 error from a router about our outer packet `pkt` (quoted, maybe short). */
static void tunnel_error(const uint8_t *data, size_t cap, const uint8_t *pkt, size_t len,
			 uint8_t *out)
{
	static const enum sitd_mode modes[4] = {
		SITD_MODE_ANY, SITD_MODE_IPIP, SITD_MODE_SIT, SITD_MODE_ANY,
	};
	struct sitd_conf c;
	struct sitd_err e;
	enum sitd_err_action a;
	size_t n = 12345;
	unsigned hl;

	memset(&c, 0, sizeof(c));
	c.mode = modes[(data[8] >> 2) & 3];
	c.ttl = data[8] & 16 ? 64 : 0;
	c.pmtudisc = true;
	c.remote = REMOTE;
	c.local = data[8] & 32 ? LOCAL : 0;
	memset(&e, 0, sizeof(e));
	e.type = data[2];
	e.code = data[3];
	e.info = rd32(data + 4);
	e.offender = rd32(data + 21);
	e.quoted = pkt;
	e.len = len;

	a = sitd_icmp_err(&c, &e, out, cap, &n);
	CHECK(a == ERR_IGNORE || a == ERR_NOT_OURS || a == ERR_PMTU || a == ERR_RELAY ||
	      a == ERR_DAMP || a == ERR_DECLINED);
	CHECK((a == ERR_RELAY) == (n != 0));
	if (a == ERR_NOT_OURS)
		return;

	/* Ours: from us to the remote, of a protocol this tunnel carries. */
	CHECK(len >= IPV4_HDR_LEN && ip_version(pkt) == 4);
	hl = (pkt[IP4_VIHL] & 0x0f) * 4u;
	CHECK(hl >= IPV4_HDR_LEN && hl <= len);
	CHECK(rd32(pkt + IP4_DST) == REMOTE && (!c.local || rd32(pkt + IP4_SRC) == LOCAL));
	CHECK(pkt[IP4_PROTO] == IPPROTO_IPV6 || pkt[IP4_PROTO] == IPPROTO_IPIP);
	CHECK(c.mode == SITD_MODE_ANY || pkt[IP4_PROTO] == (uint8_t)c.mode);
	CHECK((a == ERR_PMTU) == (e.type == ICMP4_DEST_UNREACH && e.code == ICMP4_FRAG_NEEDED));
	/* Declined: only IPv6 inside, whose header and 8 bytes were quoted. */
	if (a == ERR_DECLINED)
		CHECK(pkt[IP4_PROTO] == IPPROTO_IPV6 && len >= hl + IPV6_HDR_LEN + 8);
	if (a == ERR_RELAY || a == ERR_DAMP || a == ERR_DECLINED)	/* unreachable, or TTL exceeded */
		CHECK(e.type == ICMP4_DEST_UNREACH ||
		      (e.type == ICMP4_TIME_EXCEEDED && e.code == 0));

	if (a == ERR_RELAY) {
		bool exceeded = e.type == ICMP4_TIME_EXCEEDED;
		struct expect x = { .info = 0, .partial = true };
		uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff };

		wr32(mapped + 12, e.offender);
		if (pkt[IP4_PROTO] == IPPROTO_IPV6) {
			/* The kernel's ip6_err_gen_icmpv6_unreach: from ::ffff:router. */
			x.version = 6;
			x.type = exceeded ? ICMP6_TIME_EXCEEDED : ICMP6_DST_UNREACH;
			x.code = exceeded ? 0 : 3;
			x.src6 = mapped;
		} else {
			x.version = 4;
			x.type = exceeded ? ICMP4_TIME_EXCEEDED : ICMP4_DEST_UNREACH;
			x.code = exceeded ? 0 : 1;
			x.src4 = e.offender;
		}
		check_error(out, n, cap, &x, pkt + hl, len - hl);
	}
}

static const uint8_t LOCAL6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 1 };
static const uint8_t REMOTE6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 2 };

/* The inner packet's offset, walked independently of icmperr.c (RFC 8200 4). */
static long skip6(const uint8_t *q, size_t len, uint8_t *nh)
{
	size_t off = IPV6_HDR_LEN;

	*nh = q[IP6_NXT];
	for (;;) {
		size_t hl;

		if (*nh != 0 && *nh != 43 && *nh != 44 && *nh != 51 && *nh != 59 && *nh != 60)
			return (long)off;
		if (*nh == 59 || off + 2 > len)
			return -1;
		if (*nh == 44) {
			if (off + 4 > len)
				return -1;
			if (rd16(q + off + 2) & 0xfff8)
				return (long)off;
			hl = 8;
		} else {
			hl = *nh == 51 ? (q[off + 1] + 2u) * 4u : (q[off + 1] + 1u) * 8u;
		}
		*nh = q[off];
		off += hl;
	}
}

static void tunnel_error6(const uint8_t *data, size_t cap, const uint8_t *pkt, size_t len,
			  uint8_t *out)
{
	static const enum sitd_mode modes[4] = {
		SITD_MODE_ANY, SITD_MODE_IPIP, SITD_MODE_SIT, SITD_MODE_ANY,
	};
	struct sitd_conf c;
	struct sitd_addrs6 dev;
	struct sitd_err6 e;
	struct expect x = { .partial = true };
	enum sitd_err_action a;
	size_t n = 12345;
	uint32_t pmtu = 777, mtu;
	uint8_t nh;
	long off;

	memset(&c, 0, sizeof(c));
	c.outer = SITD_OUTER_IPV6;
	c.mode = modes[(data[8] >> 2) & 3];
	memcpy(c.remote6, REMOTE6, 16);
	if (data[8] & 32)
		memcpy(c.local6, LOCAL6, 16);
	memset(&dev, 0, sizeof(dev));
	dev.has_global = true;
	memcpy(dev.global, data + 9, 16);
	memset(&e, 0, sizeof(e));
	e.type = data[2];
	e.code = data[3];
	e.info = rd32(data + 4);
	e.quoted = pkt;
	e.len = len;
	e.dev6 = data[8] & 1 ? &dev : NULL;
	e.src4 = data[8] & 2 ? rd32(data + 9) : 0;
	e.tnl_mtu = data[8] & 16 ? rd16(data + 21) : 0;

	a = sitd_icmp6_err(&c, &e, out, cap, &n, &pmtu);
	CHECK(a == ERR_IGNORE || a == ERR_NOT_OURS || a == ERR_PMTU || a == ERR_RELAY ||
	      a == ERR_DECLINED);
	CHECK(n == 0 || a == ERR_RELAY || a == ERR_PMTU);
	CHECK((a == ERR_RELAY) <= (n != 0));
	CHECK((a == ERR_PMTU) == (pmtu != 0));
	if (a == ERR_NOT_OURS)
		return;

	CHECK(len >= IPV6_HDR_LEN && ip_version(pkt) == 6);
	CHECK(!memcmp(pkt + IP6_DST, REMOTE6, 16) && (!(data[8] & 32) || !memcmp(pkt + IP6_SRC, LOCAL6, 16)));
	off = skip6(pkt, len, &nh);
	CHECK(off >= 0 && (size_t)off + 8 <= len && (nh == 41 || nh == 4));
	CHECK(c.mode == SITD_MODE_ANY || nh == (uint8_t)c.mode);
	CHECK((a == ERR_PMTU) == (e.type == 2));
	if (a == ERR_PMTU)
		CHECK(pmtu >= 1280 && (e.info < 1280 || pmtu == e.info));
	if (a == ERR_RELAY || a == ERR_DECLINED)
		CHECK(e.type == 1 || (e.type == 3 && e.code == 0) || (e.type == 4 && e.code == 0));
	if (!n)
		return;

	x.version = nh == 41 ? 6 : 4;
	if (a == ERR_PMTU) {
		mtu = e.info - (uint32_t)off;
		mtu = mtu < 1280 ? 1280 : mtu;
		CHECK(IPV6_HDR_LEN + (uint32_t)rd16(pkt + IP6_PLEN) > mtu);
		CHECK(nh == 41 || !e.tnl_mtu || mtu <= e.tnl_mtu);
		x.type = nh == 41 ? 2 : 3;
		x.code = nh == 41 ? 0 : 4;
		x.info = mtu;
	} else {
		x.type = nh == 41 ? 1 : 3;
		x.code = nh == 41 ? 3 : 1;
		x.info = 0;
	}
	if (x.version == 6) {
		const uint8_t *s6 = pkt + off + IP6_SRC;
		bool ll = s6[0] == 0xfe && (s6[1] & 0xc0) == 0x80;

		x.src6 = e.dev6 && !ll ? dev.global : NULL;
	} else {
		x.src4 = e.src4;
	}
	check_error(out, n, cap, &x, pkt + off, len - (size_t)off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *pkt, *out;
	size_t cap, len;

	if (size < CFG_LEN || size - CFG_LEN > 0x20000)
		return -1;
	cap = rd16(data) & CAP_MASK;
	len = size - CFG_LEN;

	/* Exact sizes, so ASan sees any access outside the packet or the cap. */
	pkt = malloc(len ? len : 1);
	out = malloc(cap ? cap : 1);
	CHECK(pkt && out);
	memcpy(pkt, data + CFG_LEN, len);

	builders(data, cap, pkt, len, out);
	if (data[8] & 64)
		tunnel_error6(data, cap, pkt, len, out);
	else
		tunnel_error(data, cap, pkt, len, out);
	CHECK(memcmp(pkt, data + CFG_LEN, len) == 0);	/* the packet is read only */

	free(pkt);
	free(out);
	return 0;
}
