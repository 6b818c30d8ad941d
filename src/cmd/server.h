/* SPDX-License-Identifier: MIT */
/*
 * The daemon's control thread: start every tunnel, drop privileges, then serve signals,
 * the control socket and reloads until SIGINT or SIGTERM (server.c; its parts in
 * server_int.h).
 */
#ifndef SITD_SERVER_H
#define SITD_SERVER_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/conf.h"
#include "proto/http.h"

struct server_opts {
	const char *config;		/* -c FILE, or NULL: the tunnel is `cli` */
	const struct sitd_conf *cli;
	const char *ctl_path;		/* -S PATH, or NULL for the namespace's default */
	const char *user;		/* -u USER */
	gid_t gid;			/* the control socket's group */
	unsigned workers;		/* -w N, 0: one per CPU */
	bool tx_packet;			/* -T packet: outer packets through AF_PACKET */
	bool rx_ring;			/* -R ring: received through an AF_PACKET ring */
	const struct sitd_listen *metrics;	/* -M [ADDR:]PORT, or NULL: no exporter */
};

/* Runs until stopped; returns the exit status. */
int server_main(const struct server_opts *o);

#endif
