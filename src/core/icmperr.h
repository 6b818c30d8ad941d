/* SPDX-License-Identifier: MIT */
/*
 * ICMPv4 errors about sitd's own outer packets, as the kernel queues them on the raw
 * socket (IP_RECVERR): what they mean for the tunnel, and the error relayed to the inner
 * sender.  The model is the kernel's ipip6_err() (net/ipv6/sit.c) and
 * ip6_err_gen_icmpv6_unreach() (net/ipv6/icmp.c).
 */
#ifndef SITD_ICMPERR_H
#define SITD_ICMPERR_H

#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/icmp.h"

enum sitd_err_action {
	ERR_IGNORE,	/* a type the tunnel does not act on (redirect, parameter problem, ...) */
	ERR_NOT_OURS,	/* the quoted packet is not this tunnel's */
	ERR_PMTU,	/* Fragmentation Needed: the path MTU changed */
	ERR_RELAY,	/* an error for the inner sender is in `out` */
	ERR_DAMP,	/* cannot relay: count it for the damper (see struct sitd_damper) */
	ERR_DECLINED,	/* relayable, but no error may answer this sender (RFC 4443 2.4(e)) */
};

struct sitd_err {
	uint8_t type, code;
	uint32_t info;		/* sock_extended_err.ee_info: the next-hop MTU for type 3 code 4 */
	uint32_t offender;	/* who sent the ICMP error (a router on the path) */
	const uint8_t *quoted;	/* the offending outer packet, from its IPv4 header */
	size_t len;
};

/*
 * Decide, and for ERR_RELAY build the inner error (an IPv6 or IPv4 packet) into out.
 * Relayed: destination unreachable (all codes but source route failed, and but
 * fragmentation needed, which is ERR_PMTU) and time exceeded in transit.  For IPv6 inside
 * it becomes ICMPv6 address unreachable or hop limit exceeded from the router's
 * v4-mapped address, as the kernel does; for IPv4 inside, ICMPv4 host unreachable or time
 * exceeded from the router's address.  The quoted inner packet must hold its IP header
 * and 8 more bytes; when it does not, ERR_DAMP, unless ttl is inherited and the error is
 * time exceeded (the kernel's exception: with ttl inherit, that error is the inner
 * sender's own doing).  For IPv6 inside, a quote long enough to relay counts as relayed
 * even when ICMPv6's rules forbid the error (an inner multicast destination, an inner
 * error, an unspecified source): ERR_DECLINED, not damped, as ipip6_err() returns once
 * ip6_err_gen_icmpv6_unreach() has handed the error to icmp6_send(), which may then
 * decline it.  So a new device's MLD reports and router solicitations, answered by a
 * peer that is not up yet, never turn the first real connection into a link failure.
 */
enum sitd_err_action sitd_icmp_err(const struct sitd_conf *c, const struct sitd_err *e, uint8_t *out,
				   size_t cap, size_t *out_len);

/*
 * ICMPv6 errors about an IPv6-outer tunnel's own packets (ip6tnl), as raw6_icmp_error
 * queues them (IPV6_RECVERR, ee_origin SO_EE_ORIGIN_ICMP6) on the raw sockets of the
 * quoted packet's final next header (41 or 4).  rawv6_err queues the bytes from the
 * quoted outer IPv6 header when the socket has IPV6_HDRINCL, else from the inner packet
 * (payload += offset): the socket they are read from must have IPV6_HDRINCL, as the
 * outer header is what is judged.
 */
struct sitd_err6 {
	uint8_t type, code;
	uint32_t info;			/* ee_info: Packet Too Big's MTU, Parameter Problem's pointer */
	const uint8_t *quoted;		/* the offending outer packet, from its IPv6 header */
	size_t len;
	/* Where a relayed error comes from: the host's address toward the inner sender. */
	const struct sitd_addrs6 *dev6;	/* ICMPv6: sitd_icmp6_pick_src(dev6, host6, sender); */
	const struct sitd_host6 *host6;	/*   none: the inner destination */
	uint32_t src4;			/* ICMPv4: its source; 0 (the daemon's): the inner destination */
	uint32_t tnl_mtu;		/* the tunnel's MTU now (ip4ip6_err's dst_mtu), 0: not known */
};

/*
 * Decide as ip6_tnl_err with ip6ip6_err / ip4ip6_err (net/ipv6/ip6_tunnel.c), for the
 * tunnel the caller found with sitd_table6_lookup(quoted dst, quoted src, link).  Ours:
 * an IPv6 packet from local6 to remote6 (each unless any) whose header chain
 * (ipv6_skip_exthdr) ends in a next header the mode carries, with 8 bytes after it
 * (icmpv6_notify); for FOU/GUE over IPv6 (fou6) in UDP to encap-dport, then the GUE
 * header (gue6_err: version 0 without options, or 1) and the inner protocol as the
 * receive finds it; else ERR_NOT_OURS.  Then:
 *
 *	Destination Unreachable (any code), Time Exceeded code 0, Parameter Problem code 0
 *	whose pointer is the value byte of an Encapsulation Limit option of 0 in the
 *	quoted header chain (ip6_tnl_parse_tlv_enc_lim): ERR_RELAY of "address
 *	unreachable" for IPv6 inside (ICMPv6 1/3), "host unreachable" for IPv4 inside
 *	(ICMPv4 3/1), whatever the original type, as the kernel relays them;
 *	Packet Too Big: ERR_PMTU, *pmtu the outer path MTU, info raised to 1280 as
 *	__ip6_rt_update_pmtu does; and when the quoted outer packet (40 + payload length)
 *	exceeds info minus the headers before the inner packet (at least 1280), *out_len
 *	!= 0: the inner sender's Packet Too Big (IPv6) or Fragmentation Needed (IPv4, not
 *	above tnl_mtu) with that MTU, to send now;
 *	anything else (redirects, which the kernel applies, other codes): ERR_IGNORE.
 *
 * The inner packet must be quoted to its full IP header, else ERR_IGNORE (no damper:
 * ip6tnl keeps no err_count).  An error the ICMP rules forbid (RFC 4443 2.4(e), RFC
 * 1812 4.3.2.7) is ERR_DECLINED.  A relay never exceeds `cap` nor quotes more than
 * 1280 (IPv6) or 576 (IPv4) bytes in all.
 */
enum sitd_err_action sitd_icmp6_err(const struct sitd_conf *c, const struct sitd_err6 *e, uint8_t *out,
				    size_t cap, size_t *out_len, uint32_t *pmtu);

/*
 * FOU/GUE over IPv6 with `encap-sport auto` (or any encap-sport other than encap-dport):
 * a router's Packet Too Big quotes a UDP packet from a port no socket owns, so
 * __udp6_lib_err hands it to nobody.  sitd reads it from an ICMPv6 raw socket that
 * passes only type 2 (ICMP6_FILTER): m[0..len) as such a socket gives it, from the
 * ICMPv6 header (RFC 3542 3: no IPv6 header).  0 with *p filled, or the drop reason:
 * SITD_DROP_ptb6_malformed (not type 2 code 0, or shorter than 8 + 40), _not_udp (the
 * quoted chain, ipv6_skip_exthdr, ends in no whole UDP header).  The tunnel is the
 * caller's: sitd_table6_lookup(quoted dst, quoted src), its encap-dport = p->dport,
 * then sitd_icmp6_err with type 2 and info = p->mtu, as for an error IPV6_RECVERR gave.
 */
struct sitd_ptb6 {
	uint32_t mtu;			/* as sent; sitd_icmp6_err applies the 1280 floor */
	const uint8_t *quoted;		/* the offending outer packet, from its IPv6 header */
	size_t len;
	uint16_t dport;			/* the quoted UDP header's destination port */
};

int sitd_ptb6_parse(const uint8_t *m, size_t len, struct sitd_ptb6 *p);

/*
 * The kernel's err_count / err_time (IPTUNNEL_ERR_TIMEO, 30 s): errors that could not be
 * relayed make the next transmits report a link failure to their senders, one per error,
 * while still sending.  Written by the receive thread, consumed by the transmit thread.
 */
struct sitd_damper {
	uint32_t count;
	uint64_t time_ns;
};

#define SITD_ERR_TIMEO_NS (30ull * 1000000000ull)

/*
 * A valid packet from the remote ends the count.  The kernel keeps counting until the
 * 30 s pass, but its peers answer a tunnel that is not up yet with errors it can relay;
 * sitd's peer may be a host whose sitd starts a moment later and whose kernel answers
 * "protocol unreachable" until then.  Traffic from the remote proves the path works, so
 * the reports of the errors before it would be false.
 */
static inline void damper_clear(struct sitd_damper *d)
{
	if (__atomic_load_n(&d->count, __ATOMIC_RELAXED))
		__atomic_store_n(&d->count, 0, __ATOMIC_RELAXED);
}

static inline void damper_note(struct sitd_damper *d, uint64_t now_ns)
{
	uint64_t t = __atomic_load_n(&d->time_ns, __ATOMIC_RELAXED);
	uint32_t n = __atomic_load_n(&d->count, __ATOMIC_RELAXED);

	__atomic_store_n(&d->count, now_ns < t + SITD_ERR_TIMEO_NS ? n + 1 : 1, __ATOMIC_RELAXED);
	__atomic_store_n(&d->time_ns, now_ns, __ATOMIC_RELEASE);
}

/* True when this transmit should report a link failure. */
static inline bool damper_take(struct sitd_damper *d, uint64_t now_ns)
{
	uint32_t n = __atomic_load_n(&d->count, __ATOMIC_ACQUIRE);

	if (n == 0)
		return false;
	if (now_ns < __atomic_load_n(&d->time_ns, __ATOMIC_RELAXED) + SITD_ERR_TIMEO_NS) {
		/* A lost race with damper_note() only changes the count by one. */
		__atomic_compare_exchange_n(&d->count, &n, n - 1, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		return true;
	}
	__atomic_store_n(&d->count, 0, __ATOMIC_RELAXED);
	return false;
}

#endif
