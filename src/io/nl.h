/* SPDX-License-Identifier: MIT */
/*
 * Link and address notifications (rtnetlink, through libmnl): the device MTU as `ip link
 * set` changes it, and the IPv6 addresses `ip addr` puts on it.
 */
#ifndef SITD_NL_H
#define SITD_NL_H

struct mnl_socket;

#include <stdbool.h>
#include <stdint.h>

/* A socket subscribed to RTMGRP_LINK and RTMGRP_IPV6_IFADDR, non-blocking; NULL on failure. */
struct mnl_socket *nl_link_open(void);
int nl_fd(struct mnl_socket *nl);

struct nl_handlers {
	void (*mtu)(void *arg, unsigned ifindex, unsigned mtu);
	/* usable: added and no longer tentative; false: removed (or not usable yet) */
	void (*addr6)(void *arg, unsigned ifindex, bool usable, const uint8_t *addr);
};

/* Read pending notifications, only the kernel's (nl_pid 0), and call the handlers. */
void nl_link_read(struct mnl_socket *nl, const struct nl_handlers *h, void *arg);

#endif
