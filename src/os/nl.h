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

#include "core/conf.h"

/* A socket subscribed to RTMGRP_LINK, RTMGRP_IPV6_IFADDR and RTMGRP_IPV6_ROUTE (and the
 * IPv4 ones, for the outer source address: nl_handlers.changed),
 * non-blocking, with a receive buffer of rcvbuf bytes (0: the default; the kernel caps it
 * at net.core.rmem_max); NULL with errno set on failure. */
struct mnl_socket *nl_link_open(int rcvbuf);
int nl_fd(struct mnl_socket *nl);

/* A `netns` tunnel's: a notification socket of RTMGRP_LINK and RTMGRP_IPV6_IFADDR in the
 * namespace the caller is in (the monitor, inside the tunnel's), non-blocking: the fd or
 * -errno.  nl_fdopen wraps one received for nl_link_read (NULL with errno). */
int nl_netns_open(void);
struct mnl_socket *nl_fdopen(int fd);

struct nl_handlers {
	void (*mtu)(void *arg, unsigned ifindex, unsigned mtu);
	/* a link's flags (IFF_UP ...), from the same RTM_NEWLINK */
	void (*flags)(void *arg, unsigned ifindex, unsigned flags);
	/* usable: added and no longer tentative; false: removed (or not usable yet) */
	void (*addr6)(void *arg, unsigned ifindex, bool usable, const uint8_t *addr, unsigned plen);
	/* an IPv6 unicast route out of ifindex; gw all zero: on the link */
	void (*route6)(void *arg, unsigned ifindex, bool add, const uint8_t *dst, unsigned len,
		       const uint8_t *gw);
	/* any link, address or route message, either family, before the calls above */
	void (*changed)(void *arg);
	/* a link's group (IFLA_GROUP), from the same RTM_NEWLINK */
	void (*group)(void *arg, unsigned ifindex, uint32_t group);
};

/* Read pending notifications, only the kernel's (nl_pid 0), and call the handlers: 0, or
 * -ENOBUFS when some were lost (the socket overflowed, or a datagram came truncated): what
 * they said is then only in a dump. */
int nl_link_read(struct mnl_socket *nl, const struct nl_handlers *h, void *arg);

/* Every IPv6 route (RTM_GETROUTE) or address (RTM_GETADDR) the kernel has, through the
 * handlers, as notifications would bring them: 0 or -errno. */
int nl_dump6(uint16_t type, const struct nl_handlers *h, void *arg);
/* Every link (RTM_GETLINK), likewise: its flags and MTU.  Both: -EINTR when the kernel
 * says the table changed during the dump (NLM_F_DUMP_INTR), so it may miss an entry. */
int nl_dump_links(const struct nl_handlers *h, void *arg);

/* Requests, each on a socket of its own, acknowledged: 0 or -errno. */
int nl_link_up(unsigned ifindex);
/* The link into group (IFLA_GROUP); every link of group removed at once, in one
 * unregister_netdevice_many (rtnl_group_dellink): -ENODEV when there is none. */
int nl_link_set_group(unsigned ifindex, uint32_t group);
int nl_link_del_group(uint32_t group);
/* Add (NLM_F_REPLACE: again is no error) or remove an address or a route on ifindex. */
int nl_addr(bool add, unsigned ifindex, const struct sitd_prefix *p);
int nl_route(bool add, unsigned ifindex, const struct sitd_route *r);
/* ISATAP: no link-local of the kernel's making, and this token for SLAAC (`ip token set`). */
int nl_isatap_setup(unsigned ifindex, const uint8_t token[16]);

/*
 * The kernel's route toward dst (from src, out of oif, each when not 0): the device and
 * the next hop (dst itself when on the link).  0, or -errno (-ENETUNREACH for a route
 * that is not unicast).  Host byte order, as sitd_conf.
 */
int nl_route_get4(uint32_t dst, uint32_t src, unsigned oif, unsigned *out_oif, uint32_t *nexthop);

/* ip's link-layer address on ifindex, when its neighbour entry is usable: 0, -ENOENT, or
 * -errno.  *confirmed: reachable (recently confirmed) or fixed, not stale or being probed. */
int nl_neigh_get4(unsigned ifindex, uint32_t ip, uint8_t mac[6], bool *confirmed);

/* The same over IPv6: the route toward dst (from src unless NULL or ::, out of oif unless
 * 0), the next hop its gateway or dst; the NDP cache's entry for an IPv6 next hop. */
int nl_route_get6(const uint8_t dst[16], const uint8_t src[16], unsigned oif, unsigned *out_oif,
		  uint8_t nexthop[16]);
int nl_neigh_get6(unsigned ifindex, const uint8_t ip[16], uint8_t mac[6], bool *confirmed);

/*
 * A device as rtnetlink describes it (RTM_GETLINK; a TUN device's IFLA_TUN_* from
 * tun_fill_info, kernel 4.15 on): who may attach to it and how it was made.
 */
struct nl_tun {
	bool tun;			/* IFLA_INFO_KIND "tun" (TUN or TAP) */
	bool known;			/* IFLA_INFO_DATA came: the fields below are the kernel's */
	uint8_t type;			/* IFF_TUN or IFF_TAP */
	bool pi, vnet_hdr, multi_queue;
	int64_t owner, group;		/* TUNSETOWNER / TUNSETGROUP; -1: never set */
};

/* The device `name`: 0, -ENODEV when there is none, or -errno. */
int nl_tun_get(const char *name, struct nl_tun *t);

#endif
