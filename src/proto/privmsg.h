/* SPDX-License-Identifier: MIT */
/*
 * The messages between sitd's two processes (doc/architecture.md, "Two processes").
 *
 * The packet process runs as an unprivileged user with no capabilities; what needs
 * privilege it asks of the monitor over a socketpair, one fixed-size request at a time,
 * and gets back a fixed-size answer, with a file descriptor when the request was for one.
 * This file is the monitor's first line of defence and does no I/O: priv_req_parse()
 * accepts a request only when its size is exact, its type known, every field its type
 * uses valid (device names as dev_valid_name() takes them, prefix lengths within their
 * family, flags 0 or 1) and every field its type does not use zero.  Whether the device
 * is one the monitor opened is the monitor's own second check (priv/monitor.c).
 */
#ifndef SITD_PRIVMSG_H
#define SITD_PRIVMSG_H

#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"

enum priv_type {
	PRIV_TUN_OPEN = 1,	/* name, flag = TSO wanted -> fd, offloads, existed; or netns */
	PRIV_RAW_OPEN,		/* proto 4 or 41: a receive socket -> fd */
	PRIV_RAW_SEND_OPEN,	/* IPPROTO_RAW, for sending with our own headers -> fd */
	PRIV_UDP_RX_OPEN,	/* port (not 0) -> fd */
	PRIV_UDP_TX_OPEN,	/* local, port (0: any), name = dev or "", pmtudisc, flag = csum -> fd */
	PRIV_LINK_MTU,		/* name, mtu */
	PRIV_LINK_UP,		/* ifindex */
	PRIV_ADDR,		/* ifindex, flag = add, route.dst = the prefix */
	PRIV_ROUTE,		/* ifindex, flag = add, route */
	PRIV_ISATAP,		/* ifindex, token (its upper 64 bits zero) */
	PRIV_CONFIG_OPEN,	/* the -c file, read-only -> fd */
	PRIV_READY,		/* started: the monitor tells systemd */
	/* Locked (SO_LOCK_FILTER): what the packet process may not change. */
	PRIV_PACKET_TX_OPEN,	/* AF_PACKET, sending only, qdisc bypassed, a drop-everything
				 * filter (-T packet) -> fd */
	PRIV_RING_OPEN,		/* proto 4 or 41: a bound -R ring, the monitor's filter -> fd */
	PRIV_ICMP6_DEV_OPEN,	/* ifindex: ICMPv6 raw, hop limit 255, receiving nothing, bound
				 * to that ISATAP device (its solicitations) -> fd */
	/* An IPv6 underlay (ip6tnl). */
	PRIV_RAW6_OPEN,		/* proto 4 or 41: an IPv6 receive socket, IPV6_HDRINCL -> fd */
	PRIV_RAW6_SEND_OPEN,	/* IPv6 IPPROTO_RAW, IPV6_HDRINCL, sending only -> fd */
	/* `netns` (conf.h): name = the tunnel, whose device lives in another namespace.
	 * PRIV_LINK_UP, PRIV_ADDR and PRIV_ROUTE take its name too (else "": sitd's own). */
	PRIV_NETNS_NL_OPEN,	/* name: link and address notifications from there -> fd */
	PRIV_NETNS_CHECK,	/* name: 0 (the device's namespace is still the one named),
				 * ENOENT (none named now), ESTALE (another one is) */
	/* -M: the exporter's TCP socket, listening where -M says (the request says nothing) */
	PRIV_METRICS_LISTEN,	/* -> fd, once */
	/* Removing many TUN devices at once: one unregistration for all (monitor.c). */
	PRIV_TUN_DOOM,		/* ifindex: a device the monitor opened, into its link group */
	PRIV_TUN_PURGE,		/* the link group removed, if it holds only such devices */
	/* FOU/GUE over IPv6 (fou6) */
	PRIV_UDP6_RX_OPEN,	/* port (not 0): FOU/GUE over IPv6, bound to [::] -> fd */
	PRIV_ICMP6_PTB_OPEN,	/* ICMPv6 raw receiving Packet Too Big only (fou6 with another
				 * encap-sport than encap-dport) -> fd */
	PRIV_TYPE_MAX = PRIV_ICMP6_PTB_OPEN,
};

struct priv_req {
	uint16_t type;
	uint8_t flag;
	uint8_t proto;
	uint16_t port;
	uint8_t pmtudisc;
	uint8_t pad;
	uint32_t ifindex;
	uint32_t local;
	uint32_t mtu;
	char name[16];			/* IFNAMSIZ */
	struct sitd_route route;
	uint8_t token[16];
};

struct priv_rep {
	int32_t err;			/* 0, or the errno the monitor met */
	uint32_t offloads;		/* PRIV_TUN_OPEN: the TUN_F_* flags in force */
	uint8_t existed;		/* PRIV_TUN_OPEN: the device was there before */
	uint8_t has_fd;			/* an fd rides along (SCM_RIGHTS) */
	uint8_t netns;			/* PRIV_TUN_OPEN: err is the stanza's netns's, not the device's */
	uint8_t pad[1];
};

/* A request's name, for logs; "?" for a type out of range. */
const char *priv_type_name(unsigned type);

/* 0 and *out filled, or -1 with *why saying what was wrong (a static string). */
int priv_req_parse(const void *buf, size_t len, struct priv_req *out, const char **why);

/* A device name as the kernel's dev_valid_name() takes it: 1..15 bytes, none of '/', ':'
 * or white space, not "." or "..". */
int priv_ifname_valid(const char *name, size_t cap);

#endif
