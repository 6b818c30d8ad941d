/* SPDX-License-Identifier: MIT */
/*
 * What the transmit tests share: one TUN frame buffer (with a pristine copy), packets of
 * an exact length built in it, and a drain of sitd_tx_next() batch by batch.  The test
 * file defines `collect()`, which takes tx.out[0..nout) into its own records, before
 * including this.
 */
#ifndef SITD_TEST_TXHARNESS_H
#define SITD_TEST_TXHARNESS_H

#include "pktgen.h"
#include "core/tx.h"

static struct sitd_tx tx;
static uint8_t frame[PG_VNET_LEN + 65536 + 256];
static uint8_t orig[sizeof(frame)];
static uint8_t *const ip = frame + PG_VNET_LEN;

static void collect(void);

/* Drive sitd_tx_next to the end, collecting every full batch. */
static inline void drain(void)
{
	while (!sitd_tx_next(&tx)) {
		assert_int_equal(tx.nout, SITD_TX_MAX_OUT);
		collect();
		sitd_tx_reset(&tx);
	}
	collect();
	sitd_tx_reset(&tx);
}

/* A frame with no offload: all-zero virtio_net_hdr, packet already at ip. */
static inline uint32_t plain_frame(size_t pktlen)
{
	pg_vnet(frame, 0, PG_GSO_NONE, 0, 0, 0, 0);
	memcpy(orig, frame, PG_VNET_LEN + pktlen);
	return (uint32_t)(PG_VNET_LEN + pktlen);
}

/* An IPv6 (UDP) packet of exactly `len` bytes at ip. */
static inline size_t ip6_packet(size_t len)
{
	return pg_udp_packet(ip, 6, (uint32_t)(len - 48), 0x66, false);
}

/* An IPv4 (UDP) packet of exactly `len` bytes at ip, DF as given. */
static inline size_t ip4_packet(size_t len, bool df)
{
	size_t n = pg_udp_packet(ip, 4, (uint32_t)(len - 28), 0x44, false);

	pg_put16(ip + 6, df ? PG_IP4_DF : 0);
	pg_put16(ip + 10, 0);
	pg_put16(ip + 10, pg_csum(ip, 20));
	return n;
}

#endif
