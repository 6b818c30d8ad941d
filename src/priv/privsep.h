/* SPDX-License-Identifier: MIT */
/*
 * Privilege separation, as OpenBSD's daemons do it (doc/architecture.md, "Two processes").
 *
 * privsep_start() (privsep.c) forks.  The parent becomes the monitor (monitor.c): it keeps
 * uid 0 and only CAP_NET_ADMIN, CAP_NET_RAW, CAP_NET_BIND_SERVICE and CAP_KILL (priv.c),
 * under a seccomp filter of its own, and does nothing but answer the requests of
 * privmsg.h, each checked twice: by
 * priv_req_parse(), then against its own state: a TUN device is opened only for a tunnel
 * of the configuration (as the monitor read it), and a device request names a TUN
 * device the monitor opened, still that one.  It forwards SIGINT,
 * SIGTERM, SIGHUP and SIGUSR1 to the child, removes the control socket when the child
 * ends and exits with the child's status; a child killed by a signal is a failure
 * (exit 1), and the unit's Restart= starts sitd again, which takes the persistent
 * devices over.
 *
 * The child returns from privsep_start() and is the packet process.  It calls the ps_*
 * functions below (ps.c) for anything that needs privilege; each is one request and one
 * answer, serialised by a mutex.
 */
#ifndef SITD_PRIVSEP_H
#define SITD_PRIVSEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"
#include "os/ctl.h"

/*
 * The tunnels the monitor may open devices for: those of the configuration it read
 * itself.  `load` reads and parses `config` again (a reload may name new ones); NULL in
 * its answer when the file is unreadable or invalid.
 */
typedef struct sitd_conf *(*privsep_load_fn)(const char *config, unsigned *n);

/*
 * What the monitor grants follows from these: a socket only for what some stanza uses
 * (raw for its protocol and outer family, an IPv6 send socket for an IPv6 underlay, UDP on its encap ports and addresses, ICMPv6 for ISATAP),
 * AF_PACKET only with -T packet or -R ring, each kind up to a cap the configuration sets
 * (counted again from zero when it changes).
 */
struct privsep_opts {
	const char *config;		/* -c FILE, or NULL */
	privsep_load_fn load;
	const struct sitd_conf *conf;	/* [0..n): the tunnels at start, file or command line */
	unsigned n;
	const struct ctl_listener *ctl;
	bool tx_packet, rx_ring;	/* -T packet, -R ring */
	unsigned workers;		/* -w N, 0: one per CPU */
	const struct sitd_listen *metrics;	/* -M, or NULL: no exporter socket granted */
};

/* Forks; returns 0 in the child.  The monitor never returns.  -errno on failure. */
int privsep_start(const struct privsep_opts *o);

/*
 * Each an fd or -errno (the monitor's refusal, or what the kernel answered it), as
 * tun_open(), raw_open(), ... in tun.h and sock.h open them.
 */
/* ps_tun_open: *netns true when the error is the stanza's namespace's (not there, not
 * one, no setns), not the device's. */
int ps_tun_open(const char *name, bool tso, unsigned *offloads, bool *existed, bool *netns);
int ps_raw_open(uint8_t proto);
int ps_raw_send_open(void);
/* An IPv6 underlay's (sock.h raw6_open, raw6_send_open): only when a stanza has one. */
int ps_raw6_open(uint8_t proto);
int ps_raw6_send_open(void);
int ps_udp_rx_open(uint16_t port);
int ps_udp6_rx_open(uint16_t port);	/* FOU/GUE over IPv6: the port's socket (udp6_rx_open) */
int ps_icmp6_ptb_open(void);		/* fou6, encap-sport auto: ICMPv6 Packet Too Big only */
int ps_udp_tx_open(uint32_t local, uint16_t port, const char *dev, int pmtudisc_mode, int csum);

/*
 * Locked sockets (SO_LOCK_FILTER), fd or -errno: AF_PACKET for sending, taking nothing
 * (-T packet); a -R ring for protocol 41 or 4, bound, with the filter the monitor built
 * from the local addresses of the configuration's stanzas that carry the protocol (as
 * daemon/outer.c's outer_rings builds the raw socket's complement), for ring_map(); the
 * ICMPv6 socket of ISATAP device ifindex, bound to it, receiving nothing.
 */
int ps_packet_tx_open(void);
int ps_ring_open(uint8_t proto);
int ps_icmp6_dev_open(unsigned ifindex);

/* The -c file, opened read-only by the monitor (the packet process may not): fd or -errno. */
int ps_config_open(void);

/*
 * -M's listening TCP socket (sock.h tcp_listen), which the monitor opened at its start
 * where -M said, before its own filter: handed over once, then the monitor holds none.
 * fd or -errno (-EPERM: no -M, or given already; else why it could not listen).
 */
int ps_metrics_listen(void);

/* As link_set_mtu(), nl_link_up(), nl_addr(), ...: 0 or -errno. */
int ps_link_set_mtu(const char *name, unsigned mtu);
int ps_link_up(unsigned ifindex);
/* Removing many TUN devices: each into the monitor's link group, then the group at once
 * (one unregistration for all).  0 or -errno. */
int ps_tun_doom(unsigned ifindex);
int ps_tun_purge(void);
int ps_addr(bool add, unsigned ifindex, const struct sitd_prefix *p);
int ps_route(bool add, unsigned ifindex, const struct sitd_route *r);
int ps_isatap_setup(unsigned ifindex, const uint8_t token[16]);
/*
 * `netns` tunnels: the same on the device `dev` in the tunnel's namespace (NULL: sitd's
 * own); that namespace's link and address notifications (an fd); and whether it is still
 * the one the stanza names: 0, -ENOENT (gone), -ESTALE (another one is there now).
 */
int ps_link_up_on(const char *dev, unsigned ifindex);
int ps_addr_on(const char *dev, bool add, unsigned ifindex, const struct sitd_prefix *p);
int ps_route_on(const char *dev, bool add, unsigned ifindex, const struct sitd_route *r);
int ps_netns_nl_open(const char *name);
int ps_netns_check(const char *name);

/* Started: the monitor tells systemd (Type=notify wants it from the main pid). */
void ps_ready(void);

/* Any bytes as a request (the sandbox self-check): 0, or -errno (the refusal's). */
int ps_raw_request(const void *buf, size_t len);

#endif
