/* SPDX-License-Identifier: MIT */
/*
 * One tunnel at run time: the TUN device, the raw sockets, and one thread per direction,
 * each with its own buffers and counters (DESIGN.md section 3).
 */
#ifndef SITD_DAEMON_H
#define SITD_DAEMON_H

#include <pthread.h>
#include <stdint.h>

#include "conf.h"
#include "icmperr.h"
#include "stats.h"

struct sitd_tunnel {
	struct sitd_conf conf;
	int tun_fd;
	int raw_fd[2];			/* [0] protocol 41, [1] protocol 4; -1 when unused */
	int send_fd;			/* the one the transmit thread writes to */
	int probe_fd;			/* path MTU probe, see sock.h */
	int udp_rx_fd;			/* FOU/GUE: bound to encap-dport; -1 otherwise */
	int udp_tx_fd[8];		/* FOU/GUE: one per source port in use */
	unsigned n_udp_tx;
	bool udp_gso;			/* UDP_SEGMENT works: one send per super-packet */
	unsigned offloads;
	unsigned ifindex;		/* of the TUN device */
	uint32_t path_mtu;		/* atomic: written by rx, read by tx */
	struct sitd_damper damper;	/* written by rx, read by tx */
	struct sitd_stats tx_stats, rx_stats;
	pthread_t tx_thread, rx_thread;
};

/* Open devices and sockets; every failure is fatal with a clear message. */
void tunnel_open(struct sitd_tunnel *t);
void tunnel_start(struct sitd_tunnel *t);
/* Print the summed counters to stderr. */
void tunnel_print_stats(struct sitd_tunnel *t);

#endif
