/* SPDX-License-Identifier: MIT */
/* The outer side: raw IPv4 sockets, and the path MTU toward the remote. */
#ifndef SITD_SOCK_H
#define SITD_SOCK_H

#include <stdint.h>

/*
 * A raw IPv4 socket for `proto` (41 or 4) with IP_HDRINCL, so sitd writes every outer
 * header field itself (ID, DF, TTL, TOS per packet), bound to `dev` when given.
 * It is left unconnected and unbound so that packets from a wrong source reach sitd and
 * are counted, rather than vanishing in the kernel.
 */
int raw_open(uint8_t proto, const char *dev);

/*
 * A UDP socket that never sends: connect() makes the kernel look up the route to the
 * remote, and IP_MTU then reads that route's MTU, including what the kernel learned from
 * ICMP Fragmentation Needed.  Returns the fd or -1.
 */
int pmtu_probe_open(uint32_t local, const char *dev);

/* The current path MTU toward remote, or 0 when there is no route. */
uint32_t pmtu_probe(int fd, uint32_t remote);

/*
 * FOU/GUE.  The receive socket is bound to (local, port) with UDP_GRO and IP_RECVTOS;
 * a send socket to (local, port or 0), with DF as pmtudisc says (IP_PMTUDISC_PROBE: DF
 * set, sitd makes the MTU decision; IP_PMTUDISC_DONT) and a zero UDP checksum unless
 * csum (SO_NO_CHECK).  Both get IP_RECVERR.  -1 with errno set on failure.
 */
int udp_rx_open(uint32_t local, uint16_t port, const char *dev);
int udp_tx_open(uint32_t local, uint16_t port, const char *dev, int pmtudisc_mode, int csum);
/* The send options alone, for a receive socket that also sends (encap-sport = encap-dport). */
int udp_tx_setup(int fd, int pmtudisc_mode, int csum);

#endif
