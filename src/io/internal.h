/* SPDX-License-Identifier: MIT */
/* Shared by the daemon's files (tunnel.c, txloop.c, rxloop.c). */
#ifndef SITD_INTERNAL_H
#define SITD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "gro.h"
#include "icmp.h"
#include "ratelimit.h"
#include "rx.h"
#include "tx.h"
#include "wire.h"

enum {
	FRAME_SIZE = VNET_HDR_LEN + IP_MAX_LEN,
	TX_FRAMES = 16,		/* frames whose segments may wait for one sendmmsg */
	RX_BATCH = GRO_BATCH,
	RX_BUF = IP_MAX_LEN,
	PMTU_REFRESH_MS = 1000,
	DEFAULT_UNDERLAY_MTU = 1500,	/* the kernel's fallback: ETH_DATA_LEN */
};

enum { UDP_MAX_SEGS = 64 };	/* UDP_MAX_SEGMENTS before 1382e3b6a350 */

struct tx_worker {
	struct sitd_tunnel *t;
	struct sitd_tx tx;
	struct sockaddr_in dst;
	struct mmsghdr msgs[SITD_TX_MAX_OUT];
	/* FOU/GUE: one message per super-packet (UDP_SEGMENT) or per segment. */
	struct iovec iovs[SITD_TX_MAX_OUT * 3];
	unsigned first_out[SITD_TX_MAX_OUT];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(uint16_t))];
	} cmsg[SITD_TX_MAX_OUT];
	uint8_t frames[TX_FRAMES][FRAME_SIZE];
};

struct rx_worker {
	struct sitd_tunnel *t;
	struct sitd_rx rx;
	struct sitd_gro gro;
	struct sitd_ratelimit relay_rl;
	struct mnl_socket *nl;
	uint8_t cmsg[256];
	uint8_t errpkt[RX_BUF];
	uint8_t relay[ICMP6_ERR_MAX];
	struct mmsghdr msgs[RX_BATCH];
	struct iovec iovs[RX_BATCH];
	struct sockaddr_in names[RX_BATCH];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(int))];
	} cmsgs[RX_BATCH];
	uint8_t bufs[RX_BATCH][RX_BUF];
};

int fcntl_nonblock(int fd);
uint64_t now_ns(void);
void tunnel_wake(struct sitd_tunnel *t);
bool stopping(struct sitd_tunnel *t);
uint32_t path_mtu_get(struct sitd_tunnel *t);
void path_mtu_refresh(struct sitd_tunnel *t);

void *tx_main(void *arg);
void *rx_main(void *arg);

#endif
