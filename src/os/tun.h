/* SPDX-License-Identifier: MIT */
/* The inner side: a TUN device with virtio_net_hdr offloads, and link settings. */
#ifndef SITD_TUN_H
#define SITD_TUN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Create TUN device `name` (IFF_TUN | IFF_NO_PI | IFF_VNET_HDR), or take over the one an
 * earlier sitd left (*existed), persistent, owned by root (TUNSETOWNER 0: no one else
 * attaches), and enable checksum and TSO offloads, so the kernel hands over TCP
 * super-packets.  The fd (non-blocking), or -errno; *offloads gets
 * the TUN_F_* bits the kernel accepted.
 */
int tun_open(const char *name, bool tso, unsigned *offloads, bool *existed);

/*
 * Remove the TUN device `name` that sitd is to make anew (`takeover`): attached (as a TAP
 * or multiqueue device when it is one), no longer persistent, closed.  Whoever could
 * attach to it (its owner, group) cannot attach to the one tun_open() makes next: its
 * group cannot be unset in place (TUNSETGROUP -1 is EINVAL).
 * 0 or -errno (-EBUSY: another process still holds it after 2 s).
 */
int tun_remove(const char *name, bool tap, bool multi_queue);

/* Close a device's fd and remove the device (it is persistent until then): 0 or
 * -errno. */
int tun_delete(int fd);

/* The device's MTU, or -errno. */
int link_get_mtu(const char *name);
/* An Ethernet device's address: 0, -EAFNOSUPPORT (not Ethernet), or -errno (gone...). */
int link_get_ether(const char *name, uint8_t mac[6]);
/* 1 when the device is up (IFF_UP), else 0 (down, gone or unreadable). */
int link_is_up(const char *name);
/* 0 or -errno. */
int link_set_mtu(const char *name, unsigned mtu);
/*
 * The carrier of the TUN device behind fd (TUNSETCARRIER, which tun.c's __tun_chr_ioctl
 * takes from whoever holds the fd, no capability): 0 or -errno.
 */
int tun_set_carrier(int fd, bool on);
/* The device's (first) IPv4 address, SIOCGIFADDR: 0 or -errno. */
int link_get_addr4(const char *name, uint8_t addr[4]);

/* The same reads in the namespace of socket `at` (a `netns` tunnel's netlink socket,
 * nl_netns_open), or at < 0 in this process's; and the device's ifindex (or -errno). */
int link_is_up_at(int at, const char *name);
int link_get_mtu_at(int at, const char *name);
int link_index_at(int at, const char *name);

#endif
