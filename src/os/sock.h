/* SPDX-License-Identifier: MIT */
/* The outer side: raw IPv4 and IPv6 sockets, and the path MTU toward the remote. */
#ifndef SITD_SOCK_H
#define SITD_SOCK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The receive socket of protocol `proto` (41 or 4), shared by every tunnel of the
 * process, non-blocking, with IP_HDRINCL, IP_RECVERR and IP_PKTINFO.  Unbound, so that
 * every packet of the protocol reaches sitd, and one with no tunnel is counted.  The fd,
 * or -errno.
 */
int raw_open(uint8_t proto);

/* A send-only raw socket (IPPROTO_RAW): sitd writes every outer header field itself.  The
 * fd, or -errno. */
int raw_send_open(void);

/*
 * An IPv6 underlay (ip6tnl).  The receive socket of next header `proto` (41 or 4), shared
 * as raw_open()'s, non-blocking, with IPV6_RECVPKTINFO (destination and device),
 * IPV6_RECVTCLASS (the outer traffic class, for RFC 6040 and dscp inherit), IPV6_RECVERR
 * and IPV6_HDRINCL: with it rawv6_err() queues an ICMPv6 error's quote from the outer
 * IPv6 header on, which is what sitd_icmp6_err() judges.  The kernel hands over what
 * follows the outer headers, the outer source in msg_name.  The fd, or -errno.
 */
int raw6_open(uint8_t proto);

/*
 * The IPv6 send socket: IPPROTO_RAW with IPV6_HDRINCL, receiving nothing.  The kernel
 * sends the header as written (rawv6_send_hdrinc: no source filled in, the flow label and
 * hop limit ours), checks only the device MTU (EMSGSIZE above it) and never fragments: a
 * packet above the route's path MTU fails with EMSGSIZE (ip6_fragment's fail_toobig,
 * which also queues a Packet Too Big).  The fd, or -errno.
 */
int raw6_send_open(void);

/* AF_PACKET for sending whole Ethernet frames, past the qdisc: the fd, or -errno. */
int packet_open(void);

/* -R ring: a TPACKET_V3 receive ring of RING_BLOCKS blocks of RING_BLOCK bytes, each
 * packet after the kernel's virtio_net_hdr (packet_open sets PACKET_VNET_HDR). */
enum { RING_BLOCK = 256 << 10, RING_BLOCKS = 16, RING_TIMEOUT_MS = 1 };

/*
 * What the monitor hands out locked (SO_LOCK_FILTER), so that the packet process cannot
 * widen it: packet_tx_open() as packet_open() with a drop-everything filter (a bind to
 * ETH_P_ALL or PACKET_ADD_MEMBERSHIP then gains nothing); ring_locked_open() a ring
 * with f attached, bound to IPv4 on every device, for the holder
 * to map with ring_map().  The fd, or -errno; ring_map 0 or -errno.
 */
struct sock_filter;
int packet_tx_open(void);
int ring_locked_open(struct sock_filter *f, unsigned n);
int ring_map(int fd, uint8_t **map);

/*
 * -M's exporter: a TCP socket listening on l (SO_REUSEADDR, so that a restart need not
 * wait for the last connections' TIME_WAIT), non-blocking, with room for `backlog`
 * connections.  The monitor opens it before its own filter is in.  The fd, or -errno.
 */
struct sitd_listen;
int tcp_listen(const struct sitd_listen *l, int backlog);

/* Attach a classic BPF program (bpf.h) to fd, replacing the one it had: 0 or -errno. */
int sock_filter_set(int fd, struct sock_filter *f, unsigned n);

/* The current path MTU toward remote (from local, through dev), or 0 without a route. */
uint32_t pmtu_query(uint32_t local, uint32_t remote, const char *dev);

/*
 * The current path MTU toward remote6 (through dev; a link-local remote needs it), or 0
 * without a route; the source the route chose, for a tunnel with local any, in src (16
 * bytes).  A connected UDPv6 socket that never sends, as pmtu_query's: IPV6_MTU reads
 * the route's MTU with what the kernel learned from Packet Too Big.  Unbound (the packet
 * process may not bind an IPv6 address): the route is the destination's.
 */
uint32_t pmtu6_query(const uint8_t remote6[16], const char *dev, uint8_t src[16]);

/*
 * The source address the kernel's route toward remote (through dev, "" any) gives a
 * packet sent with none, as a raw socket's with local any gets it (raw_send_hdrinc): a
 * UDP socket connected, never sending.  0 with *src (host order), or -errno (no route).
 */
int route_src4(uint32_t remote, const char *dev, uint32_t *src);

/*
 * FOU/GUE.  The receive socket of a port, shared by its tunnels, is bound to (any, port),
 * non-blocking, with UDP_GRO, IP_RECVTOS and IP_PKTINFO;
 * a send socket to (local, port or 0), with DF as pmtudisc says (IP_PMTUDISC_PROBE: DF
 * set, sitd makes the MTU decision; IP_PMTUDISC_DONT) and a zero UDP checksum unless
 * csum (SO_NO_CHECK).  Both get IP_RECVERR.  The fd, or -errno.
 */
int udp_rx_open(uint16_t port);
int udp_tx_open(uint32_t local, uint16_t port, const char *dev, int pmtudisc_mode, int csum);
/* The send options alone, for a receive socket that also sends (encap-sport = encap-dport):
 * 0 or -errno. */
int udp_tx_setup(int fd, int pmtudisc_mode, int csum);

/*
 * FOU/GUE over IPv6 (fou6): a port's receive socket, bound to ([::], port) with
 * IPV6_V6ONLY (IPv4 FOU on the same port is another socket), non-blocking, with UDP_GRO,
 * IPV6_RECVPKTINFO (the destination and device, for the lookup), IPV6_RECVTCLASS (ECN),
 * IPV6_RECVERR (Packet Too Big about packets sent from the port), and UDP_NO_CHECK6_RX:
 * zero checksums taken, as fou's udp_sock_create6 leaves use_udp6_rx_checksums off
 * (RFC 6936); a non-zero one is still checked by the kernel.  The fd, or -errno.
 */
int udp6_rx_open(uint16_t port);
#ifndef UDP_NO_CHECK6_RX
#define UDP_NO_CHECK6_RX 102	/* linux/udp.h; the monitor's seccomp filter names it too */
#endif

#endif
