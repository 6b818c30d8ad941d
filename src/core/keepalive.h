/* SPDX-License-Identifier: MIT */
/*
 * keepalive: the echo requests sitd sends through a tunnel to its keepalive
 * peer, the replies it takes back, and the liveness decision.  The kernel's sit and ipip
 * have nothing of the kind; MikroTik's `keepalive interval,retries` is the model.
 *
 * Request: ICMPv6 Echo Request (RFC 4443 4.1) or ICMP Echo (RFC 792), hop limit / TTL
 * 64, identifier and sequence number as given, a fixed 8-byte payload "sitd-ka" + NUL.
 * Reply: an Echo Reply from the peer to our source with our identifier, a sequence
 * number among the last `window` sent, and a right checksum; nothing else is taken.
 */
#ifndef SITD_KEEPALIVE_H
#define SITD_KEEPALIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	SITD_KA_PAYLOAD = 8,
	SITD_KA_ECHO_MAX = 40 + 8 + SITD_KA_PAYLOAD,	/* IPv6 + ICMPv6 echo + payload */
};

/*
 * Build the request at buf (cap bytes) for family 4 or 6, src and dst the inner
 * addresses (4 or 16 bytes); IPv4 ID = seq.  Returns its length, 0 when cap is short.
 */
size_t sitd_ka_echo(uint8_t *buf, size_t cap, unsigned family, const uint8_t *src, const uint8_t *dst,
		    uint16_t id, uint16_t seq);

/*
 * Whether the inner packet p (len bytes, as decapsulated) is the peer's reply to one of
 * our requests: seq_last the last sequence number sent, window how many before it still
 * count (the retries).
 */
bool sitd_ka_is_reply(const uint8_t *p, uint32_t len, unsigned family, const uint8_t *peer,
		      uint16_t id, uint16_t seq_last, uint16_t window);

/*
 * The liveness decision, driven by the caller's clock: heard is whether anything valid
 * came from the remote since the last call (a reply included).  Up until nothing was
 * heard for retries intervals; the first thing heard brings it back.  Starts up, as if
 * heard at start_ns.
 */
struct sitd_ka_state {
	uint64_t interval_ns;
	uint8_t retries;
	bool up;
	bool heard_ever;
	uint64_t last_heard_ns;
	uint64_t transitions;
};

void sitd_ka_init(struct sitd_ka_state *s, uint16_t seconds, uint8_t retries, uint64_t start_ns);

/* +1: the carrier comes back; -1: it goes; 0: no change. */
int sitd_ka_update(struct sitd_ka_state *s, uint64_t now_ns, bool heard);

#endif
