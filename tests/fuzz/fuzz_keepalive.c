/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: which packets keepalive takes as the peer's echo reply
 * (sitd_ka_is_reply), and the requests it builds (sitd_ka_echo).
 *
 * Input:
 *	[0]	bit 0: family 6 (else 4)
 *	[1..2]	identifier, [3..4] the last sequence number sent, [5] the window
 *	then the inner packet, in a heap buffer of exactly its size
 * The peer is 2001:db8::1 or 198.51.100.2.
 *
 * Checked: a packet taken is an Echo Reply (129, or 0) of that family from the peer
 * with that identifier, a sequence number within the window, and a checksum right by
 * pktgen.h's reference; a request built from the input's addresses and numbers is
 * never taken as a reply, and its checksum is right.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/pktgen.h"
#include "core/inet.h"
#include "core/keepalive.h"
#include "fuzz.h"

static const uint8_t peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, peer4[4] = { 198, 51, 100, 2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned family, l3;
	const uint8_t *peer;
	uint16_t id, seq, win;
	uint8_t *p, req[SITD_KA_ECHO_MAX];
	size_t n;

	if (size < 6)
		return 0;
	family = data[0] & 1 ? 6 : 4;
	peer = family == 6 ? peer6 : peer4;
	id = (uint16_t)(data[1] << 8 | data[2]);
	seq = (uint16_t)(data[3] << 8 | data[4]);
	win = data[5];
	size -= 6;
	p = malloc(size ? size : 1);
	CHECK(p);
	memcpy(p, data + 6, size);
	if (sitd_ka_is_reply(p, (uint32_t)size, family, peer, id, seq, win)) {
		struct sitd_ipinfo ii;

		CHECK(sitd_ip_parse(p, size, &ii) == 0 && ii.version == family);
		l3 = ii.l3len;
		CHECK(ii.len >= l3 + 8 && ii.len <= size);
		CHECK(p[l3] == (family == 6 ? 129 : 0) && pg_get16(p + l3 + 4) == id);
		CHECK((uint16_t)(seq - pg_get16(p + l3 + 6)) <= win);
		CHECK(!memcmp(p + (family == 6 ? 8 : 12), peer, family == 6 ? 16 : 4));
		CHECK(pg_l4_csum_ok(p, l3, family == 6 ? PG_PROTO_ICMPV6 : PG_PROTO_ICMP));
	}
	/* A request from the peer's own address with these numbers: never a reply. */
	n = sitd_ka_echo(req, sizeof(req), family, peer, peer, id, seq);
	CHECK(n == (family == 6 ? 56u : 36u));
	CHECK(!sitd_ka_is_reply(req, (uint32_t)n, family, peer, id, seq, win));
	CHECK(pg_l4_csum_ok(req, family == 6 ? 40 : 20, family == 6 ? PG_PROTO_ICMPV6 : PG_PROTO_ICMP));
	free(p);
	return 0;
}
