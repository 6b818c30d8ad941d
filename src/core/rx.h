/* SPDX-License-Identifier: MIT */
/*
 * Receive pipeline: one outer IPv4 packet, as a raw socket hands it over (outer header
 * included), is validated in layers and decapsulated in place.
 */
#ifndef SITD_RX_H
#define SITD_RX_H

#include <stdint.h>

#include "core/conf.h"
#include "core/stats.h"

struct sitd_rx {
	enum sitd_mode mode;
	enum sitd_encap encap;
	uint32_t local, remote;
	struct sitd_stats *stats;
};

void sitd_rx_init(struct sitd_rx *rx, const struct sitd_conf *conf, struct sitd_stats *stats);

/*
 * Validate and decapsulate.  On success returns 0 and sets *off and *len to the inner
 * packet, trimmed to its declared length, with its ECN field updated per RFC 6040; the
 * inner TTL / hop limit is left alone, as the kernel leaves it.  Otherwise counts the
 * drop reason and returns -1.
 */
int sitd_rx_decap(struct sitd_rx *rx, uint8_t *pkt, uint32_t len, uint32_t *off, uint32_t *inner_len);

/*
 * The same for a FOU or GUE tunnel: `pl` is one UDP payload from source address `src`,
 * received with outer TOS `outer_tos` (IP_RECVTOS).  GUE version 0 must carry no flags,
 * options or control bit; version 1 (direct IP) is accepted, as the kernel accepts it.
 */
int sitd_rx_decap_udp(struct sitd_rx *rx, uint8_t outer_tos, uint32_t src, uint8_t *pl, uint32_t len,
		      uint32_t *off, uint32_t *inner_len);

#endif
