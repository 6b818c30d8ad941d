/* SPDX-License-Identifier: MIT */
/* Link notifications (rtnetlink, through libmnl): the device MTU as `ip link set` changes it. */
#ifndef SITD_NL_H
#define SITD_NL_H

struct mnl_socket;

/* A socket subscribed to RTMGRP_LINK, non-blocking; NULL with errno set on failure. */
struct mnl_socket *nl_link_open(void);
int nl_fd(struct mnl_socket *nl);

/* Read pending notifications; for each link's MTU, call fn. */
void nl_link_read(struct mnl_socket *nl, void (*fn)(void *arg, unsigned ifindex, unsigned mtu),
		  void *arg);

#endif
