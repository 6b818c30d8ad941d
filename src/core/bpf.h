/* SPDX-License-Identifier: MIT */
/*
 * -R ring: the classic BPF programs that split one outer protocol between an AF_PACKET
 * ring and the raw socket, so that each packet goes to exactly one of them.
 *
 * The ring sees every IPv4 packet on every device, before the stack; the raw socket sees
 * what the stack delivers here, fragments reassembled.  The ring takes protocol P with
 * DF set (so never a fragment: RFC 791 3.2), longer than SITD_BPF_SMALL, coming in (not
 * PACKET_OUTGOING), to one of the tunnels' own local addresses; the raw socket takes
 * everything else of P, which includes reassembled packets (ip_frag_reasm() clears DF
 * unless the largest fragment had it), what `local any` tunnels receive, and the small
 * packets: pure ACKs, pings and keystrokes, which should not wait for a ring block.  Loads are relative to the network
 * header (SKF_NET_OFF), so any link type works.
 */
#ifndef SITD_BPF_H
#define SITD_BPF_H

#include <stdint.h>
#include <linux/filter.h>

enum {
	SITD_BPF_MAX = 4096,		/* BPF_MAXINSNS */
	SITD_BPF_ACCEPT = 0x40000,	/* bytes kept: more than any IPv4 packet */
	/* Outer length at most this: the raw socket's.  A pure TCP ACK with timestamps in
	 * sit is 92 bytes, a default ping6 124. */
	SITD_BPF_SMALL = 128,
};

/* The ring's program for protocol proto and locals[0..n); returns its length, 0 if it does not fit in cap. */
unsigned sitd_bpf_ring(struct sock_filter *f, unsigned cap, uint8_t proto, const uint32_t *locals, unsigned n);

/* The raw socket's program: what the ring's does not take; returns its length, or 0. */
unsigned sitd_bpf_raw(struct sock_filter *f, unsigned cap, const uint32_t *locals, unsigned n);

#endif
