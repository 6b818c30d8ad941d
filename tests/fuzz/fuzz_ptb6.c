/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a Packet Too Big as fou6's ICMPv6 socket hands it over
 * (sitd_ptb6_parse), then judged for a FOU or GUE tunnel over IPv6 (sitd_icmp6_err).
 *
 * Input:
 *	[0]	bits 0-1: the tunnel mode (0 any, 1 ipip6, 2 ip6ip6, 3 any); bit 2: gue (else
 *		fou); bit 3: the tunnel's encap-dport is the quoted port (else 5555)
 *	then the ICMPv6 message from its header, copied into a heap buffer of exactly its
 *	size (ASan: nothing read past it)
 *
 * Checked: a parse that succeeds says type 2 code 0, the MTU field, the quote right after
 * the 8-byte header with the rest of the message, and a destination port inside it;
 * the judge gives ERR_PMTU or ERR_NOT_OURS only, a path MTU of at least 1280 with
 * ERR_PMTU, and a relay of at most 1280 bytes (IPv6) or 576 (IPv4) and the buffer.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/conf.h"
#include "core/icmperr.h"
#include "core/wire.h"
#include "fuzz.h"

static const uint8_t LOCAL6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 1 };
static const uint8_t REMOTE6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum sitd_mode modes[4] = { SITD_MODE_ANY, SITD_MODE_IPIP, SITD_MODE_SIT,
						 SITD_MODE_ANY };
	static uint8_t out[1500];
	struct sitd_conf c = { 0 };
	struct sitd_ptb6 p;
	struct sitd_err6 e;
	enum sitd_err_action a;
	uint8_t *m;
	size_t len, n;
	uint32_t pmtu;
	int r;

	if (size < 1)
		return 0;
	len = size - 1;
	m = malloc(len ? len : 1);
	if (!m)
		return 0;
	memcpy(m, data + 1, len);
	r = sitd_ptb6_parse(m, len, &p);
	CHECK(r == 0 || r == SITD_DROP_ptb6_malformed || r == SITD_DROP_ptb6_not_udp);
	if (r) {
		free(m);
		return 0;
	}
	CHECK(len >= 8 + 40 + 8 && m[0] == 2 && m[1] == 0);
	CHECK(p.mtu == rd32(m + 4) && p.quoted == m + 8 && p.len == len - 8);
	CHECK((p.quoted[0] >> 4) == 6);

	c.outer = SITD_OUTER_IPV6;
	c.mode = modes[data[0] & 3];
	c.encap = data[0] & 4 ? SITD_ENCAP_GUE : SITD_ENCAP_FOU;
	c.encap_dport = data[0] & 8 ? p.dport : 5555;
	c.encap_limit = 4;
	memcpy(c.local6, LOCAL6, 16);
	memcpy(c.remote6, REMOTE6, 16);
	e = (struct sitd_err6){ .type = 2, .code = 0, .info = p.mtu, .quoted = p.quoted,
				.len = p.len, .tnl_mtu = 1444 };
	a = sitd_icmp6_err(&c, &e, out, sizeof(out), &n, &pmtu);
	CHECK(a == ERR_PMTU || a == ERR_NOT_OURS);
	if (a == ERR_PMTU)
		CHECK(pmtu >= 1280 && (pmtu == p.mtu || p.mtu < 1280));
	else
		CHECK(n == 0);
	CHECK(n <= sizeof(out) && n <= ICMP6_ERR_MAX);
	if (n && (out[0] >> 4) == 4)
		CHECK(n <= ICMP4_ERR_MAX);
	free(m);
	return 0;
}
