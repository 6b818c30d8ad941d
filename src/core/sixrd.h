/* SPDX-License-Identifier: MIT */
/*
 * The kernel sit's automatic tunnels, pure: 6to4 (RFC 3056) and 6rd (RFC 5969) address
 * mapping, the receive anti-spoofing checks, ISATAP (RFC 5214) sources and the Potential
 * Router List, the choice of the outer destination, and applying a parsed `ip tunnel 6rd`
 * or `ip tunnel prl` command (the grammars: proto/sixrd_cmd.h).  Each rule follows a
 * function of net/ipv6/sit.c, named where it is used.
 *
 * IPv4 addresses are uint32_t in host order of the wire bytes (rd32), as in conf.h; IPv6
 * addresses are 16 bytes in wire order.  Nothing here allocates: the PRL lives in storage
 * the caller passes.
 */
#ifndef SITD_SIXRD_H
#define SITD_SIXRD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"

/* ---- 6rd / 6to4 parameters (the kernel's struct ip_tunnel_6rd) ---- */

/* struct sitd_6rd: conf.h, a tunnel setting. */

/* Why sitd_6rd_set() refused (the kernel answers EINVAL to all of them). */
enum sitd_6rd_err {
	SITD_6RD_OK = 0,
	SITD_6RD_ERELAYLEN = -1,	/* relay_prefixlen > 32 */
	SITD_6RD_ELEN = -2,		/* prefixlen + 32 - relay_prefixlen > 64 */
	SITD_6RD_EPREFIX = -3,		/* prefix has bits set beyond prefixlen */
	SITD_6RD_ERELAY = -4,		/* relay prefix has bits set beyond relay_prefixlen */
};

/* Plain 6to4: 2002::/16, relay 0.0.0.0/0 (ipip6_tunnel_clone_6rd without a sit0). */
void sitd_6rd_reset(struct sitd_6rd *r);

/*
 * ipip6_tunnel_update_6rd(): refuse relay_prefixlen > 32 or a delegated prefix longer
 * than 64 bits, and refuse (not silently mask) a prefix or relay prefix with bits set past
 * its length.  Returns SITD_6RD_OK and stores, or a negative enum sitd_6rd_err (not an
 * errno: the kernel's EINVAL, each with its reason) and leaves *r untouched.
 */
int sitd_6rd_set(struct sitd_6rd *r, const uint8_t prefix[16], unsigned prefixlen,
		 uint32_t relay_prefix, unsigned relay_prefixlen);

/* One line for an enum sitd_6rd_err. */
const char *sitd_6rd_strerror(int err);

/* prefixlen + 32 - relay_prefixlen: the length of a CE's delegated prefix. */
unsigned sitd_6rd_delegated_len(const struct sitd_6rd *r);

/*
 * check_6rd(): if v6 lies inside the 6rd prefix, store the IPv4 address it embeds (the
 * relay prefix, then the 32 - relay_prefixlen bits following the 6rd prefix) and return
 * true.  With prefixlen 0 every address is inside.
 */
bool sitd_6rd_v4(const struct sitd_6rd *r, const uint8_t v6[16], uint32_t *v4);

/* try_6rd(): the same, 0 when v6 is outside the prefix. */
uint32_t sitd_6rd_dst(const struct sitd_6rd *r, const uint8_t v6[16]);

/*
 * The inverse (RFC 5969 4): the delegated prefix of the CE with IPv4 address v4, the 6rd
 * prefix followed by v4's low 32 - relay_prefixlen bits, zero after; returns its length.
 * The high relay_prefixlen bits of v4 are not carried (they are the relay prefix's).
 */
unsigned sitd_6rd_delegated(const struct sitd_6rd *r, uint32_t v4, uint8_t out[16]);

/* ---- Addresses ---- */

/* An IPv6 address configured on the tunnel device, with its prefix length. */
/* struct sitd_if6: conf.h. */

/* ipv6_prefix_equal(): the first plen bits (plen <= 128) of a and b are equal. */
bool sitd_ip6_prefix_equal(const uint8_t a[16], const uint8_t b[16], unsigned plen);

/*
 * ipv6_addr_is_isatap(): interface identifier 0000:5efe:a.b.c.d or 0200:5efe:a.b.c.d
 * (RFC 5214 6.1; only the universal/local bit may differ).
 */
bool sitd_ip6_is_isatap(const uint8_t a[16]);

/* The ISATAP address prefix::0[2]00:5efe:v4 (RFC 5214 6.1; global: v4 not private). */
void sitd_isatap_addr(const uint8_t prefix64[8], uint32_t v4, bool global, uint8_t out[16]);

/* ipv6_addr_type() & IPV6_ADDR_COMPATv4: ::a.b.c.d with a.b.c.d neither 0 nor 1. */
bool sitd_ip6_is_v4compat(const uint8_t a[16]);

/* ipv6_addr_type() & IPV6_ADDR_UNICAST: not ::, not multicast, not ::ffff:0:0/96. */
bool sitd_ip6_is_unicast(const uint8_t a[16]);

/* ---- The Potential Router List (RFC 5214; the kernel's t->prl) ---- */

/* SITD_PRL_DEFAULT and struct sitd_prl_entry: conf.h, tunnel settings. */

/* The list over caller storage: e[0..n), oldest first; the kernel lists newest first. */
struct sitd_prl {
	struct sitd_prl_entry *e;
	uint32_t n, cap;
};

void sitd_prl_init(struct sitd_prl *p, struct sitd_prl_entry *storage, uint32_t cap);

/*
 * ipip6_tunnel_add_prl(): address 0 is -EINVAL; with chg (SIOCCHGPRL) only an existing
 * entry's flags change (-ENXIO if absent); without (SIOCADDPRL) an existing address is
 * -EEXIST.  A full list is -ENOBUFS (the kernel's allocation failure).  0 on success.
 */
int sitd_prl_add(struct sitd_prl *p, uint32_t addr, uint16_t flags, bool chg);

/* ipip6_tunnel_del_prl(): address 0 empties the list; an absent address is -ENXIO. */
int sitd_prl_del(struct sitd_prl *p, uint32_t addr);

/* __ipip6_tunnel_locate_prl(): addr's entry, or NULL (also for a NULL list). */
const struct sitd_prl_entry *sitd_prl_find(const struct sitd_prl *p, uint32_t addr);

/*
 * ipip6_tunnel_get_prl(): address 0 lists up to max entries, newest first as the kernel's
 * list; another address lists that entry alone (or none).  Returns the number stored.
 */
uint32_t sitd_prl_get(const struct sitd_prl *p, uint32_t addr, struct sitd_prl_entry *out,
		      uint32_t max);

/* ---- Receive checks ---- */

/* What isatap_chksrc() decides about an ISATAP packet's source (skb->ndisc_nodetype). */
enum sitd_isatap_node {
	SITD_ISATAP_REFUSED = 0,	/* not a PRL router, not an on-link ISATAP host: drop */
	SITD_ISATAP_DEFAULT,		/* PRL router with PRL_DEFAULT (NDISC_NODETYPE_DEFAULT) */
	SITD_ISATAP_NODEFAULT,		/* PRL router without it (NDISC_NODETYPE_NODEFAULT) */
	SITD_ISATAP_HOST,		/* on-link ISATAP host (NDISC_NODETYPE_HOST) */
};

/* A tunnel with automatic destinations, as the checks see it. */
struct sitd_auto {
	const struct sitd_6rd *rd;
	const struct sitd_prl *prl;	/* ISATAP only; NULL is an empty list */
	const struct sitd_if6 *addrs;	/* the tunnel device's IPv6 addresses */
	size_t naddrs;
	uint32_t remote;		/* not 0: point-to-point (IFF_POINTOPOINT) */
	bool isatap;			/* `mode isatap` (IFF_ISATAP) */
};

/*
 * isatap_chksrc(): the outer source is in the PRL (router), or the inner source is an
 * ISATAP address embedding the outer source and on-link: inside the prefix of one of the
 * device's addresses, each with its own length (ipv6_chk_prefix).
 */
enum sitd_isatap_node sitd_isatap_chksrc(const struct sitd_auto *t, uint32_t outer_src,
					 const uint8_t inner_src[16]);

/* is_spoofed_6rd(): v6 is inside the 6rd prefix and embeds another address than v4. */
bool sitd_6rd_is_spoofed(const struct sitd_6rd *r, uint32_t v4, const uint8_t v6[16]);

/*
 * only_dnatted(): v6dst shares its first prefixlen + 32 - relay_prefixlen bits (the
 * delegated prefix) with an address of the device: a NAT in front rewrote the outer
 * destination, and the packet is still ours.
 */
bool sitd_6rd_only_dnatted(const struct sitd_auto *t, const uint8_t v6dst[16]);

/* packet_is_spoofed()'s verdicts, one drop reason each. */
enum sitd_spoof {
	SITD_SPOOF_OK = 0,
	SITD_SPOOF_SRC,			/* rx_6rd_spoofed_src */
	SITD_SPOOF_DST,			/* rx_6rd_spoofed_dst */
	SITD_SPOOF_ISATAP_SRC,		/* rx_isatap_src */
};

/*
 * packet_is_spoofed(), in the kernel's order: ISATAP tunnels check only the source
 * (isatap_chksrc, *node says what it found); point-to-point tunnels (remote set) check
 * nothing; otherwise a 6rd/6to4 inner source must embed the outer source, and a 6rd/6to4
 * inner destination the outer destination unless only_dnatted().  node may be NULL.
 */
enum sitd_spoof sitd_packet_is_spoofed(const struct sitd_auto *t, uint32_t outer_src,
				       uint32_t outer_dst, const uint8_t inner_src[16],
				       const uint8_t inner_dst[16], enum sitd_isatap_node *node);

/* ---- Transmit: the outer destination (ipip6_tunnel_xmit) ---- */

enum sitd_auto_dst {
	SITD_DST_OK = 0,		/* *v4 is the outer destination */
	SITD_DST_NO_NEXTHOP,		/* a next hop was needed and the route gave none */
	SITD_DST_NOT_ISATAP,		/* ISATAP: next hop not a unicast ISATAP address */
	SITD_DST_NOT_V4COMPAT,		/* next hop (or :: -> inner dst) not ::a.b.c.d */
};

/*
 * The kernel's order: the configured remote; on an ISATAP tunnel the next hop's embedded
 * IPv4 address, which replaces the remote; if still none, try_6rd() on the inner
 * destination; if still none, the next hop, or the inner destination when the next hop is
 * ::, must be IPv4-compatible ::a.b.c.d.  nexthop is the IPv6 route's gateway, or the inner
 * destination for an on-link route; NULL when there is no route.  The kernel drops every
 * failure here without an ICMP error (tx_error, not tx_error_icmp).
 */
enum sitd_auto_dst sitd_auto_tx_dst(const struct sitd_auto *t, const uint8_t inner_dst[16],
				    const uint8_t *nexthop, uint32_t *v4);

/* ---- Routes ---- */

/*
 * The device's IPv6 routes, as the daemon mirrors them from the kernel (rtnetlink): a TUN
 * device is not told the next hop a route chose, which ipip6_tunnel_xmit() reads from the
 * neighbour entry (a v4-compatible ::a.b.c.d, or on ISATAP fe80::5efe:a.b.c.d).
 */
enum { SITD_ROUTES6_MAX = 64 };

struct sitd_route6 {
	uint8_t dst[16];
	uint8_t len;
	uint8_t gw[16];			/* all zero: on the link */
};

struct sitd_routes6 {
	uint32_t n;
	struct sitd_route6 r[SITD_ROUTES6_MAX];
};

/* The next hop toward dst by longest prefix: the gateway, or :: on the link; NULL: none. */
const uint8_t *sitd_routes6_nexthop(const struct sitd_routes6 *rt, const uint8_t dst[16]);

/* ---- Neighbour discovery behind extension headers (ISATAP receive) ---- */

/* RFC 4861 4: the ICMPv6 types of neighbour discovery. */
enum sitd_nd_type {
	SITD_ND_NONE = 0,		/* not a neighbour discovery message */
	SITD_ND_RS = 133,
	SITD_ND_RA = 134,
	SITD_ND_NS = 135,
	SITD_ND_NA = 136,
	SITD_ND_REDIRECT = 137,
};

/* What sitd_ip6_nd() found in an IPv6 packet. */
struct sitd_nd {
	enum sitd_nd_type type;
	uint32_t off;			/* the ICMPv6 header, when type is not NONE */
	uint32_t end;			/* 40 + payload length: where the message ends */
	bool fragment;			/* behind a Fragment header with offset 0 */
	bool later_fragment;		/* offset != 0: no ICMPv6 header here, type NONE */
	bool undecided;			/* cannot tell: see sitd_ip6_nd() */
};

/*
 * Walk pkt's extension headers, all of them (sitd_ip6_parse_chain: Hop-by-Hop, Routing,
 * Destination Options, AH, Fragment, in any order and number, as ip6_protocol_deliver_rcu
 * does), and say whether a neighbour discovery message follows, and which.  ndisc_rcv()
 * takes one behind any chain, testing only its hop limit (255: RFC 4861 6.1.2, 8.1) and
 * code, which an ISATAP host sets as it likes: decapsulation leaves the hop limit alone.
 *
 * Fragments (RFC 6980 5): a first fragment carries the ICMPv6 header (RFC 8200 4.5; the
 * kernel discards a first fragment without it, ipv6_frag_thdr_truncated) and is told
 * apart like a whole packet.  A later fragment carries no header and cannot be: it is
 * harmless alone, for reassembly needs the first fragment, which this check saw; and the
 * kernel drops a reassembled neighbour discovery message anyway unless
 * net.ipv6.conf.*.suppress_frag_ndisc is 0 (ndisc_suppress_frag_ndisc).
 *
 * undecided: the chain runs past the packet's end (in a whole packet the kernel discards it
 * at that header; in a first fragment the rest of the chain is in a later one), or a first
 * fragment of ICMPv6 holds less than its 8-byte header (struct icmp6hdr).  A kernel older
 * than the RFC 8200 4.5 check would reassemble either and might find an RA.
 *
 * Returns 0 (also for a packet that is no neighbour discovery), or -EINVAL when pkt is not
 * an IPv6 header.  Nothing is read at or past pkt + len.
 */
int sitd_ip6_nd(const uint8_t *pkt, uint32_t len, struct sitd_nd *nd);

/* The drop reasons of sitd_isatap_nd_check(), one stats.h counter each. */
enum sitd_isatap_verdict {
	SITD_ISATAP_PASS = 0,		/* write it (an RA may have been rewritten) */
	SITD_ISATAP_RA_HOST,		/* rx_isatap_ra_host */
	SITD_ISATAP_ND_HOST,		/* rx_isatap_nd_host */
	SITD_ISATAP_ND_NODEFAULT,	/* rx_isatap_nd_nodefault */
};

/*
 * What the kernel's neighbour discovery does with skb->ndisc_nodetype, for a TUN write that
 * cannot carry it, on the ISATAP packet in (ilen bytes) whose source isatap_chksrc() found
 * to be `node`, behind any extension headers (sitd_ip6_nd):
 *
 *   HOST       RA: dropped (ndisc_router_discovery ignores it whole).  Redirect: dropped
 *              (ndisc_redirect_rcv ignores a host's), as is an undecided packet.  RS, NS,
 *              NA pass: ndisc_recv_rs/ns/na take them from any node, and ISATAP hosts
 *              resolve and probe each other with NS/NA (RFC 5214 8, RFC 4861 7).
 *   NODEFAULT  RA: router lifetime set to 0 and the ICMPv6 checksum mended in place,
 *              also in a first fragment.  Redirect:
 *              dropped (ndisc_redirect_rcv ignores a PRL router without prl-default), as
 *              is an undecided packet.  RS, NS, NA pass.
 *   DEFAULT    everything passes, as from any router on a link.
 *
 * Anything else (REFUSED: sitd_packet_is_spoofed dropped it already) passes untouched.
 * The only bytes ever written are the RA's Router Lifetime and Checksum.
 */
enum sitd_isatap_verdict sitd_isatap_nd_check(uint8_t *in, uint32_t ilen,
					      enum sitd_isatap_node node);

/* ---- MTU ---- */

/*
 * RFC 5969 9.1: the 6rd tunnel MTU is the IPv4 MTU minus the encapsulation when known,
 * 1280 when not (ipv4_mtu 0), kept within sitd_mtu_min/max as sitd_mtu_default does.
 */
unsigned sitd_6rd_mtu_default(const struct sitd_conf *c, unsigned ipv4_mtu);

/* ---- Commands: ip tunnel 6rd ..., ip tunnel prl ... (parsed by proto/sixrd_cmd.h) ---- */

enum sitd_6rd_op {
	SITD_6RD_OP_SET = 1,		/* SIOCADD6RD: 6rd-prefix and/or 6rd-relay_prefix */
	SITD_6RD_OP_RESET,		/* SIOCDEL6RD: 6rd-reset */
};

struct sitd_6rd_cmd {
	char dev[SITD_IFNAMSIZ];
	enum sitd_6rd_op op;		/* the last of the words decides, as in iproute2 */
	uint8_t prefix[16];		/* as written: the setter refuses stray bits */
	unsigned prefixlen;		/* 0..128 */
	uint32_t relay_prefix;
	unsigned relay_prefixlen;	/* 0..32 */
};


/*
 * Apply a parsed command: sitd_6rd_set() or sitd_6rd_reset().  SITD_6RD_OK, or the
 * setter's negative enum sitd_6rd_err (a reason for sitd_6rd_strerror(), not an errno).
 */
int sitd_6rd_apply(struct sitd_6rd *r, const struct sitd_6rd_cmd *cmd);

enum sitd_prl_op {
	SITD_PRL_OP_ADD = 1,		/* SIOCADDPRL: prl-default, prl-nodefault */
	SITD_PRL_OP_DEL,		/* SIOCDELPRL: prl-delete */
};

struct sitd_prl_cmd {
	char dev[SITD_IFNAMSIZ];
	enum sitd_prl_op op;
	uint32_t addr;			/* 0 (any, all, default, 0.0.0.0): delete = flush */
	uint16_t flags;			/* SITD_PRL_DEFAULT for prl-default */
};

/* Apply a parsed command as the kernel's ipip6_tunnel_prl_ctl(): 0 or a negative errno. */
int sitd_prl_apply(struct sitd_prl *p, const struct sitd_prl_cmd *cmd);

#endif
