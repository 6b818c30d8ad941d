/* SPDX-License-Identifier: MIT */
/*
 * One tunnel at run time: the TUN device, the raw sockets, and one thread per direction,
 * each with its own buffers and counters (DESIGN.md section 3).
 */
#ifndef SITD_DAEMON_H
#define SITD_DAEMON_H

#include <pthread.h>
#include <stdbool.h>
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
	int stop_fd;			/* eventfd: wakes the threads to stop */
	bool stopping;
	void *tx_worker, *rx_worker;
	pthread_t tx_thread, rx_thread;
};

/*
 * Open the device and sockets for t->conf and start one thread per direction; on any
 * failure, log one clear line, undo everything and return -1.
 */
int tunnel_open(struct sitd_tunnel *t);
int tunnel_start(struct sitd_tunnel *t);
/* Undo tunnel_open() of a tunnel that was never started. */
void tunnel_close_only(struct sitd_tunnel *t);
/* Stop the threads, close everything (the device goes away), free the workers. */
void tunnel_stop(struct sitd_tunnel *t);
/* The counters of both directions, summed. */
void tunnel_stats(struct sitd_tunnel *t, struct sitd_stats *s);
uint32_t tunnel_path_mtu(struct sitd_tunnel *t);
/* Print the summed counters to stderr. */
void tunnel_print_stats(struct sitd_tunnel *t);

#endif
