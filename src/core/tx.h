/* SPDX-License-Identifier: MIT */
/*
 * Transmit pipeline: one frame read from TUN ([virtio_net_hdr][IP packet]) becomes
 * outer IPv4 or IPv6 packets described by iovecs, or an ICMP error to write back into
 * TUN, or a counted drop.
 *
 * Nothing is copied on the way out: each outer packet is [outer header + inner headers,
 * built in a per-slot header area][payload, pointing into the frame].  The frame must
 * therefore stay untouched until the outputs are sent.  All memory lives in struct
 * sitd_tx, allocated once by the caller.
 *
 * Use:
 *	v = sitd_tx_begin(tx, frame, len, path_mtu, now);
 *	if (v == SITD_TX_SEND)
 *		while (!sitd_tx_next(tx)) { send tx->out[0..nout); sitd_tx_reset(tx); }
 *	if (tx->icmp_len) write tx->icmp[0..icmp_len) to TUN.
 * An ICMP error can come with SEND too: the damper's link failure reports (icmperr.h).
 * Outputs of several frames may accumulate before one send; call sitd_tx_reset() after it.
 *
 * An IPv6 outer header (conf->outer == SITD_OUTER_IPV6, ip6tnl): each output is a whole
 * IPv6 packet, [IPv6][Fragment header, only when the entry point fragments (RFC 2473
 * 7.1)][Destination Options with the Tunnel Encapsulation Limit, unless none][inner],
 * for a raw IPv6 socket with IPV6_HDRINCL, sent to conf->remote6 (out.dst is 0), or with
 * remote any (NBMA, ip6_tnl_xmit) to the destination its header names: for an inner IPv6
 * packet the next hop of the device's route toward it (sitd_tx_routes), the destination
 * itself on the link; an inner IPv4 packet has none (tx_no_nexthop).  The
 * kernel sends such a header as written (rawv6_send_hdrinc fills in no source, unlike
 * IPv4's raw_send_hdrinc), so with local6 any the source is written as :: and the daemon
 * must first give the source it chose with sitd_tx_local6(), or refuse to send.  Its
 * check is against the device MTU only: outputs are cut to the path MTU given here.
 * With FOU/GUE (fou6) the outputs are whole packets too, for the same socket:
 * [IPv6][Fragment?][option?][UDP][GUE header, gue only][inner], the order ip6_tnl_xmit
 * writes (ip6_tnl_encap before ipv6_push_frag_opts), the UDP checksum computed here over
 * the IPv6 pseudo-header (RFC 8200 8.1) or 0 with noencap-udp6-csum (RFC 6935 / 6936).
 */
#ifndef SITD_TX_H
#define SITD_TX_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "core/conf.h"
#include "core/icmperr.h"
#include "core/ratelimit.h"
#include "core/stats.h"
#include "core/wire.h"

struct sitd_addrs6;	/* icmp.h */
struct sitd_host6;	/* icmp.h */
struct sitd_routes6;	/* sixrd.h */
struct sitd_pmtu_cache;	/* pmtu.h */

enum {
	SITD_TX_MAX_OUT = 256,
	/* outer header + largest inner L3 header + largest TCP header, rounded up */
	SITD_TX_HDR_AREA = 344,
};
_Static_assert(OUTER_HDR_LEN + INNER_L3_MAX + TCP_HDR_MAX <= SITD_TX_HDR_AREA, "header area");
_Static_assert(OUTER6_HDR_MAX + INNER_L3_MAX + TCP_HDR_MAX <= SITD_TX_HDR_AREA, "header area 6");

struct sitd_out {
	struct iovec iov[3];
	unsigned iovcnt;
	uint32_t len;
	/*
	 * For FOU/GUE, where the kernel writes the outer IPv4 and UDP headers: what to ask of
	 * it (TOS, TTL, DF), which inner flow this is (the source port for encap-sport auto),
	 * and which frame it came from (segments of one frame may go in one UDP_SEGMENT send).
	 */
	uint8_t tos, ttl;
	bool df;
	uint32_t hash;
	uint32_t frame;
	uint32_t dst;			/* the outer destination: remote, or chosen per packet */
	/*
	 * With csum_defer: where the inner checksum left to the sending device starts, from
	 * the outer header on, and where its field is from there; the field holds the
	 * pseudo-header sum (CHECKSUM_PARTIAL).  0: the packet is complete.
	 */
	uint16_t csum_start, csum_off;
	bool csum_udp;			/* UDP's: a computed 0 goes as 0xffff */
};

enum sitd_tx_verdict { SITD_TX_SEND, SITD_TX_ICMP, SITD_TX_DROP };

struct sitd_tx {
	/* Settings, fixed after sitd_tx_init(). */
	enum sitd_mode mode;
	enum sitd_encap encap;
	uint8_t encap_hdr;		/* bytes sitd writes before the inner packet: 20, 0 (fou), 4 (gue) */
	uint8_t encap_len;		/* what the encapsulation costs on the path: 20, 28, 32 */
	uint32_t local, remote;		/* remote 0: any, chosen per packet by rd */
	const struct sitd_6rd *rd;
	bool isatap;			/* remote any by ISATAP's rules: the next hop's IPv4 */
	const struct sitd_routes6 *routes6;	/* remote any: the device's routes; NULL: none */
	const struct sitd_pmtu_cache *pcache;	/* remote any: path MTUs per destination */
	uint8_t ttl, tos;
	bool pmtudisc;
	/*
	 * Set by the caller per batch: outer packets that go whole (not fragmented) may leave
	 * the inner TCP/UDP checksum to the device (out.csum_start), to be sent with a
	 * virtio_net_hdr saying NEEDS_CSUM, or finished by sitd_out_csum_finish().  Raw
	 * encapsulation only.
	 */
	bool csum_defer;
	struct sitd_stats *stats;
	struct sitd_damper *damper;	/* NULL: none */
	const struct sitd_addrs6 *addrs6;	/* the device's addresses; NULL: none known */
	const struct sitd_host6 *host6;		/* the host's; NULL: none known */
	struct sitd_ratelimit icmp_rl;
	uint16_t ip_id;			/* outer IPv4 ID, one per outer packet */
	/* IPv6 outer (ip6tnl): conf's outer6 settings. */
	bool outer6;
	uint8_t local6[16], remote6[16];
	int16_t encap_limit;		/* -1: encaplimit none (IP6_TNL_F_IGN_ENCAP_LIMIT) */
	uint32_t flowlabel;		/* 0: the kernel's auto flow label */
	bool flowlabel_inherit;
	uint32_t frag_id6;		/* IPv6 Fragment Identification, one per train */
	/* clamp-mss (mss.h): off, or N (0: what fits dev_mtu and the path MTU). */
	bool clamp;
	uint16_t clamp_n;
	uint32_t dev_mtu;		/* the device's MTU, as the tunnel had it at sitd_tx_use */
	bool remote6_any;		/* remote any (NBMA): the outer destination per packet */
	uint16_t sport, dport;		/* fou6: encap-sport (0: auto, per flow), encap-dport */
	bool csum6;			/* fou6: encap-udp6-csum */

	/* The frame being split. */
	uint8_t *pkt;			/* inner IP packet inside the frame */
	uint32_t len;			/* its length */
	uint32_t hdrlen;		/* GSO: L3 + TCP headers; 0 when not splitting */
	uint32_t l3len;
	uint16_t gso_size;
	uint32_t nseg, next_seg;
	uint32_t path_mtu;
	uint8_t outer_tos, outer_ttl, outer_proto;
	bool df;
	uint32_t hash, frame;
	uint32_t dst;			/* this frame's outer destination */
	uint16_t pend_start, pend_off;	/* a whole frame's NEEDS_CSUM left for later; 0: none */
	int16_t tel;			/* IPv6 outer: this frame's option limit, -1 none */
	uint8_t dst6[16];		/* IPv6 outer: this frame's destination, remote6 or the next hop */
	uint32_t outer_fl;		/* IPv6 outer: this frame's flow label */
	bool pend_udp;

	/* Outputs. */
	unsigned nout;
	struct sitd_out out[SITD_TX_MAX_OUT];
	uint8_t hdr[SITD_TX_MAX_OUT][SITD_TX_HDR_AREA];

	/* An ICMP error for TUN: [zeroed virtio_net_hdr][IP packet]. */
	uint32_t icmp_len;
	uint8_t icmp[VNET_HDR_LEN + ICMP6_ERR_MAX];
};

void sitd_tx_init(struct sitd_tx *tx, const struct sitd_conf *conf, struct sitd_stats *stats,
		  struct sitd_damper *damper, uint16_t first_id);

/*
 * Point the pipeline at another tunnel (a worker serves many): its settings, counters and
 * damper.  The outer ID sequence and the ICMP rate limit go on, as the kernel's are per
 * host; outputs must have been sent first.
 */
void sitd_tx_use(struct sitd_tx *tx, const struct sitd_conf *conf, struct sitd_stats *stats,
		 struct sitd_damper *damper);

/*
 * The device's IPv6 addresses, for the source of the ICMPv6 errors sitd sends (icmp.h,
 * sitd_icmp6_pick_src); NULL: none known, the error comes from the packet's destination.
 */
static inline void sitd_tx_addrs(struct sitd_tx *tx, const struct sitd_addrs6 *a,
				 const struct sitd_host6 *host)
{
	tx->addrs6 = a;
	tx->host6 = host;
}

/*
 * IPv6 outer with local6 any: the source the daemon chose for remote6 (the kernel's
 * ip6_route_output / ipv6_dev_get_saddr), written into every outer header from now on.
 */
static inline void sitd_tx_local6(struct sitd_tx *tx, const uint8_t src[16])
{
	memcpy(tx->local6, src, 16);
}

/* remote any: the device's IPv6 routes, for the next hop a route chose (sixrd.h). */
static inline void sitd_tx_routes(struct sitd_tx *tx, const struct sitd_routes6 *r)
{
	tx->routes6 = r;
}

/*
 * Take one TUN frame of len bytes, path_mtu the outer path's (remote any: unless the
 * per-destination cache knows better).  SITD_TX_SEND: outputs to take with sitd_tx_next();
 * SITD_TX_ICMP: none, tx->icmp holds the error for TUN; SITD_TX_DROP: none, the drop
 * counted in tx->stats.  tx->icmp_len may be set with SEND too (the damper, above).
 */
enum sitd_tx_verdict sitd_tx_begin(struct sitd_tx *tx, uint8_t *frame, uint32_t len,
				   uint32_t path_mtu, uint64_t now_ns);

/* Emit pending outer packets; true when the frame is done, false when out[] is full. */
bool sitd_tx_next(struct sitd_tx *tx);

/*
 * Finish the inner checksum an output left to the device (out.csum_start), for one that
 * goes another way after all; it is then complete.
 */
void sitd_out_csum_finish(struct sitd_out *o);

static inline void sitd_tx_reset(struct sitd_tx *tx)
{
	tx->nout = 0;
}

/* fou6's UDP source port: sport, or for 0 (auto) one by the flow's hash (tx.c). */
uint16_t sitd_udp6_sport(uint16_t sport, uint32_t hash);

/* Build an outer IPv4 header (RFC 791) with its checksum. */
void sitd_outer_build(uint8_t *o, uint8_t tos, uint16_t totlen, uint16_t id, uint16_t frag,
		      uint8_t ttl, uint8_t proto, uint32_t src, uint32_t dst);

/* Build an outer IPv6 header (RFC 8200 3): traffic class, 20-bit flow label, lengths. */
void sitd_outer6_build(uint8_t *o, uint8_t tclass, uint32_t flowlabel, uint16_t plen,
		       uint8_t nxt, uint8_t hlim, const uint8_t *src, const uint8_t *dst);

/*
 * The Tunnel Encapsulation Limit's Destination Options header, 8 bytes, as the kernel's
 * init_tel_txopt and ipv6_push_exthdr write it: next header, length 0, option type 4
 * length 1 value limit, PadN length 1 value 0.
 */
void sitd_tel_build(uint8_t *o, uint8_t nxt, uint8_t limit);

#endif
