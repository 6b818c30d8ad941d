/* SPDX-License-Identifier: MIT */
/* One tunnel's configuration, as the command line states it. */
#ifndef SITD_CONF_H
#define SITD_CONF_H

#include <stdbool.h>
#include <stdint.h>

enum sitd_mode {
	SITD_MODE_ANY = 0,		/* IPv6 and IPv4, by inner version (sit "any") */
	SITD_MODE_IPIP = 4,		/* IPv4 in IPv4, protocol 4 (RFC 2003) */
	SITD_MODE_SIT = 41,		/* IPv6 in IPv4, protocol 41 (RFC 4213) */
};

/*
 * The outer header's family: IPv4 for the kernel's sit and ipip (net/ipv6/sit.c,
 * net/ipv4/ipip.c), IPv6 for its ip6tnl (net/ipv6/ip6_tunnel.c).  With an IPv6 outer
 * header the mode keeps its meaning for the inner packet, as ip6_tnl_parm's proto:
 * SITD_MODE_SIT is ip6ip6 (next header 41, RFC 2473), SITD_MODE_IPIP is ipip6 (next
 * header 4, the B4 end of DS-Lite, RFC 6333), SITD_MODE_ANY both.
 */
enum sitd_outer {
	SITD_OUTER_IPV4 = 0,
	SITD_OUTER_IPV6 = 6,
};

/* RFC 2473 4.1.1: the Tunnel Encapsulation Limit, as the kernel's ip6tnl defaults it. */
#define SITD_ENCAP_LIMIT_DEFAULT 4u	/* IPV6_DEFAULT_TNL_ENCAP_LIMIT */
#define SITD_HOPLIMIT_DEFAULT 64u	/* iproute2's DEFAULT_TNL_HOP_LIMIT for ip -6 tunnel */

/* The kernel's ip link ... encap fou|gue (TUNNEL_ENCAP_*). */
enum sitd_encap {
	SITD_ENCAP_NONE = 0,		/* IPv4 header only: protocol 41 or 4 */
	SITD_ENCAP_FOU = 1,		/* IPv4 + UDP, the inner packet right after */
	SITD_ENCAP_GUE = 2,		/* IPv4 + UDP + a 4-byte GUE header */
};

#define SITD_IFNAMSIZ 16
#define SITD_MAX_ADDRS 8		/* `address` words per tunnel */
#define SITD_MAX_ROUTES 16		/* `route` words per tunnel */
#define SITD_NETNS_MAX 108		/* `netns` value with its NUL: sun_path's size */

/* An IPv4 or IPv6 prefix: `address` and `route` (wg-quick's Address=, OpenVPN's route). */
struct sitd_prefix {
	uint8_t family;			/* 4 or 6; 0 = none */
	uint8_t len;			/* prefix length */
	uint8_t addr[16];		/* IPv4 in the first 4 bytes */
};

struct sitd_route {
	struct sitd_prefix dst;
	uint8_t via[16];		/* next hop, of dst's family; all zero: on the link */
	uint32_t metric;		/* 0: the kernel's default */
	uint32_t table;			/* 0: main */
};
#define SITD_TOS_INHERIT 1u	/* as the kernel's ip_tunnel_parm: bit 0 of tos */

/*
 * 6rd (RFC 5969) and 6to4 (RFC 3056, the default 2002::/16 with relay prefix 0/0): how a
 * `remote any` tunnel maps an IPv6 destination to an IPv4 one (sixrd.h).
 */
struct sitd_6rd {
	uint8_t prefix[16];		/* zero beyond prefixlen */
	uint32_t relay_prefix;		/* zero beyond relay_prefixlen */
	uint8_t prefixlen;		/* 0..64 */
	uint8_t relay_prefixlen;	/* 0..32 */
};

/* ISATAP's Potential Router List (RFC 5214, the Potential Router List), as the kernel keeps it (ip_tunnel_prl). */
#define SITD_PRL_DEFAULT 0x0001u	/* PRL_DEFAULT (if_tunnel.h): may be a default router */
#define SITD_PRL_MAX 16			/* prl words in a stanza */

struct sitd_prl_entry {
	uint32_t addr;
	uint16_t flags;
};

/* An IPv6 address of a device, with its prefix length. */
struct sitd_if6 {
	uint8_t addr[16];
	uint8_t plen;
};

struct sitd_conf {
	char name[SITD_IFNAMSIZ];
	char dev[SITD_IFNAMSIZ];	/* underlay device, "" = any */
	enum sitd_mode mode;
	uint32_t remote;		/* outer addresses, host order of the wire bytes */
	uint32_t local;			/* 0 = any: routing picks the source */
	uint8_t ttl;			/* 0 = inherit the inner TTL / hop limit */
	uint8_t tos;			/* SITD_TOS_INHERIT, or a fixed DS field */
	bool pmtudisc;
	uint32_t mtu;			/* 0 = underlay MTU - 20, as the kernel */
	enum sitd_encap encap;
	uint16_t encap_sport;		/* 0 = auto: a hash of the inner flow */
	uint16_t encap_dport;
	bool encap_csum;		/* UDP checksum; without it 0, as the kernel's default */
	bool nogso;			/* no TSO on the TUN device: the kernel segments */
	bool nogro;			/* write received segments one by one */
	struct sitd_6rd rd;		/* used when remote is any */
	bool isatap;			/* mode isatap: sit, remote any, ISATAP rules (RFC 5214) */
	uint8_t nprl;
	struct sitd_prl_entry prl[SITD_PRL_MAX];
	/* Put on the device when it comes up, again after a restart, gone with it. */
	uint8_t naddrs, nroutes;
	struct sitd_prefix addrs[SITD_MAX_ADDRS];
	struct sitd_route routes[SITD_MAX_ROUTES];
	/*
	 * outer = SITD_OUTER_IPV6 (ip6tnl): the outer addresses are remote6 and local6 (all
	 * zero: any), and remote and local stay 0; ttl is the hop limit (0 = inherit, as
	 * ip6_tnl_xmit), tos the traffic class (SITD_TOS_INHERIT: IP6_TNL_F_USE_ORIG_TCLASS).
	 * The other fields are ip6_tnl_parm's, each named after its `ip -6 tunnel` word.
	 */
	enum sitd_outer outer;
	uint8_t remote6[16], local6[16];
	uint8_t encap_limit;		/* `encaplimit N`: the option's value */
	bool encap_limit_none;		/* `encaplimit none`: IP6_TNL_F_IGN_ENCAP_LIMIT */
	uint32_t flowlabel;		/* `flowlabel N`: 20 bits, fixed */
	bool flowlabel_inherit;		/* `flowlabel inherit`: IP6_TNL_F_USE_ORIG_FLOWLABEL */
	bool dscp_inherit;		/* `dscp inherit`: IP6_TNL_F_RCV_DSCP_COPY, on receive */
	bool allow_localremote;		/* `allow-localremote`: IP6_TNL_F_ALLOW_LOCAL_REMOTE */
	/* FOU/GUE over IPv6: `[no]encap-udp6-csum`, TUNNEL_ENCAP_FLAG_CSUM6 (default on). */
	bool encap_csum6;
	/*
	 * `takeover`, sitd's own: a TUN device of that name that another owner or group may
	 * attach to, or not made as sitd makes them, is removed and made anew; without it
	 * such a device is refused (priv/monitor.c).
	 */
	bool takeover;
	/*
	 * `netns NAME|PATH|PID`, sitd's form of the kernel's link-netns: the TUN device lives
	 * in that network namespace (NAME: /run/netns/NAME, as `ip netns`; PATH: absolute,
	 * e.g. /proc/PID/ns/net; PID: /proc/PID/ns/net), the outer sockets in sitd's own.
	 * "" = sitd's namespace.  Resolved and checked by the monitor (priv/monitor.c).
	 */
	char netns[SITD_NETNS_MAX];
	/*
	 * sitd's own.  `clamp-mss [N]`: the MSS option of TCP SYNs both ways lowered
	 * to what fits the tunnel, or to N (core/mss.h).  `keepalive S[,R]`, `keepalive-peer
	 * ADDR`: an echo request to the peer every S seconds; after R intervals with nothing
	 * from the remote the device loses its carrier (daemon/keepalive.c).
	 */
	bool clamp_mss;
	uint16_t clamp_mss_n;		/* 0: what fits the tunnel */
	uint16_t keepalive;		/* seconds; 0: off */
	uint8_t keepalive_retries;	/* 0 with keepalive off; default 3 */
	uint8_t keepalive_peer_family;	/* 4 or 6; 0: none */
	uint8_t keepalive_peer[16];	/* an inner address; IPv4 in the first 4 bytes */
};

/* Whether the tunnel has a fixed remote (else `remote any`), for either outer family. */
static inline bool sitd_conf_has_remote(const struct sitd_conf *c)
{
	static const uint8_t zero[16];

	if (c->outer == SITD_OUTER_IPV6) {
		for (unsigned i = 0; i < 16; i++)
			if (c->remote6[i] != zero[i])
				return true;
		return false;
	}
	return c->remote != 0;
}

static inline bool sitd_mode_carries(enum sitd_mode m, unsigned ip_version)
{
	if (m == SITD_MODE_ANY)
		return ip_version == 4 || ip_version == 6;
	return (m == SITD_MODE_SIT && ip_version == 6) || (m == SITD_MODE_IPIP && ip_version == 4);
}

/*
 * Bytes the tunnel puts in front of an inner packet: the outer header (20, or 40 for
 * IPv6, and 8 more for the encapsulation limit's destination option, as ip6_tnl's
 * t_hlen and its mtu -= 8), then 8 for fou, 12 for gue.
 */
static inline unsigned sitd_encap_len(const struct sitd_conf *c)
{
	unsigned ip = c->outer == SITD_OUTER_IPV6 ? 40u + (c->encap_limit_none ? 0u : 8u) : 20u;

	return ip + (c->encap == SITD_ENCAP_FOU ? 8u : c->encap == SITD_ENCAP_GUE ? 12u : 0u);
}

/*
 * fou6 sending from another port than encap-dport (auto among them): a router's Packet
 * Too Big quotes a source port no socket owns, so only an ICMPv6 raw socket hears it
 * (icmperr.h sitd_ptb6_parse; the monitor's PRIV_ICMP6_PTB_OPEN).
 */
static inline bool sitd_conf_needs_ptb6(const struct sitd_conf *c)
{
	return c->outer == SITD_OUTER_IPV6 && c->encap != SITD_ENCAP_NONE &&
	       c->encap_sport != c->encap_dport;
}

/* Outer protocol for an inner packet of this version: 41 for IPv6, 4 for IPv4. */
static inline uint8_t sitd_outer_proto(unsigned ip_version)
{
	return ip_version == 6 ? SITD_MODE_SIT : SITD_MODE_IPIP;
}

/*
 * Device MTU bounds: at least the kernel's, 1280 for sit (IPV6_MIN_MTU) and 68 for ipip
 * (ip_tunnel_change_mtu); at most what one outer IPv4 packet can carry, 65535 minus the
 * encapsulation (the kernel's sit allows more, 65555, which no packet could use).
 * Over IPv6 (ip6_tnl_change_mtu): at least 1280 for ip6ip6, 68 (ETH_MIN_MTU) for ipip6
 * and any; at most what one outer IPv6 packet carries, 65535 bytes of payload with the
 * encapsulation limit option and fou/gue in it (IP6_MAX_MTU 65575 minus the
 * encapsulation), and for ipip6 the kernel's IP_MAX_MTU minus the headers, 65495.
 */
unsigned sitd_mtu_min(const struct sitd_conf *c);
unsigned sitd_mtu_max(const struct sitd_conf *c);

/*
 * The device MTU when none is given, as ip_tunnel_bind_dev() picks it: the underlay's
 * MTU (the route to the remote) minus the encapsulation, kept within the bounds.  Over
 * IPv6 as ip6_tnl_link_config(): minus 40, minus 8 more with the encapsulation limit
 * option (1452 over 1500), and never below 1280 whatever the mode.
 */
unsigned sitd_mtu_default(const struct sitd_conf *c, unsigned underlay_mtu);

/* An MTU set with `ip link set NAME mtu N`, put back within the bounds. */
unsigned sitd_mtu_clamp(const struct sitd_conf *c, unsigned mtu);

/* The underlay MTU assumed when nothing says better: the kernel's ETH_DATA_LEN. */
#define SITD_UNDERLAY_MTU_DEFAULT 1500u

/*
 * A starting tunnel's device MTU (returned) and the path MTU it starts with (*path_mtu).
 * route_mtu: the route's toward the remote (0: no route yet; ignored for remote any);
 * dev_mtu: the MTU of `dev` (<= 0: no dev); cur_mtu: the device's own, when it was taken
 * over (<= 0: created).  *guessed: a fixed remote had no route, the underlay's MTU is
 * assumed (`dev`'s, else 1500).
 */
unsigned sitd_mtu_start(const struct sitd_conf *c, uint32_t route_mtu, int dev_mtu, int cur_mtu,
			uint32_t *path_mtu, bool *guessed);

#endif
