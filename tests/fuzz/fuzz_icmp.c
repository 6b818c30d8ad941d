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
	tunnel_error(data, cap, pkt, len, out);
	CHECK(memcmp(pkt, data + CFG_LEN, len) == 0);	/* the packet is read only */

	free(pkt);
	free(out);
	return 0;
}
