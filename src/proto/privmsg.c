/* SPDX-License-Identifier: MIT */
#include "proto/privmsg.h"

#include <string.h>

/* The fields each type uses; every other one must be zero. */
enum {
	F_FLAG = 1 << 0,
	F_PROTO = 1 << 1,
	F_PORT = 1 << 2,
	F_PMTUDISC = 1 << 3,
	F_IFINDEX = 1 << 4,
	F_LOCAL = 1 << 5,
	F_MTU = 1 << 6,
	F_NAME = 1 << 7,	/* a device name, required */
	F_DEV = 1 << 8,		/* a device name or "" */
	F_PREFIX = 1 << 9,	/* route.dst only */
	F_ROUTE = 1 << 10,
	F_TOKEN = 1 << 11,
};

static const struct {
	const char *name;
	unsigned fields;
} types[PRIV_TYPE_MAX + 1] = {
	[PRIV_TUN_OPEN] = { "tun-open", F_NAME | F_FLAG },
	[PRIV_RAW_OPEN] = { "raw-open", F_PROTO },
	[PRIV_RAW_SEND_OPEN] = { "raw-send-open", 0 },
	[PRIV_UDP_RX_OPEN] = { "udp-rx-open", F_PORT },
	[PRIV_UDP_TX_OPEN] = { "udp-tx-open", F_LOCAL | F_PORT | F_DEV | F_PMTUDISC | F_FLAG },
	[PRIV_LINK_MTU] = { "link-mtu", F_NAME | F_MTU },
	[PRIV_LINK_UP] = { "link-up", F_IFINDEX | F_DEV },
	[PRIV_ADDR] = { "addr", F_IFINDEX | F_FLAG | F_PREFIX | F_DEV },
	[PRIV_ROUTE] = { "route", F_IFINDEX | F_FLAG | F_ROUTE | F_DEV },
	[PRIV_ISATAP] = { "isatap", F_IFINDEX | F_TOKEN },
	[PRIV_CONFIG_OPEN] = { "config-open", 0 },
	[PRIV_READY] = { "ready", 0 },
	[PRIV_PACKET_TX_OPEN] = { "packet-tx-open", 0 },
	[PRIV_RING_OPEN] = { "ring-open", F_PROTO },
	[PRIV_ICMP6_DEV_OPEN] = { "icmp6-dev-open", F_IFINDEX },
	[PRIV_RAW6_OPEN] = { "raw6-open", F_PROTO },
	[PRIV_RAW6_SEND_OPEN] = { "raw6-send-open", 0 },
	[PRIV_NETNS_NL_OPEN] = { "netns-nl-open", F_NAME },
	[PRIV_NETNS_CHECK] = { "netns-check", F_NAME },
	[PRIV_METRICS_LISTEN] = { "metrics-listen", 0 },
	[PRIV_TUN_DOOM] = { "tun-doom", F_IFINDEX },
	[PRIV_TUN_PURGE] = { "tun-purge", 0 },
	[PRIV_UDP6_RX_OPEN] = { "udp6-rx-open", F_PORT },
	[PRIV_ICMP6_PTB_OPEN] = { "icmp6-ptb-open", 0 },
};

const char *priv_type_name(unsigned type)
{
	return type >= 1 && type <= PRIV_TYPE_MAX ? types[type].name : "?";
}

int priv_ifname_valid(const char *name, size_t cap)
{
	size_t n = strnlen(name, cap);

	if (n == 0 || n >= cap || n >= 16 || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch == '/' || ch == ':' || ch <= ' ' || ch == 0x7f)
			return 0;
	}
	/* Nothing after the terminator: the name is the whole field. */
	for (size_t i = n; i < cap; i++)
		if (name[i])
			return 0;
	return 1;
}

static int zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* A prefix of family 4 or 6 within its length, no bits past the address's size. */
static int prefix_valid(const struct sitd_prefix *p)
{
	if (p->family == 4)
		return p->len <= 32 && zero(p->addr + 4, 12);
	return p->family == 6 && p->len <= 128;
}

static int route_valid(const struct sitd_route *r)
{
	if (!prefix_valid(&r->dst))
		return 0;
	/* The next hop is of the destination's family (all zero: on the link). */
	return r->dst.family == 6 || zero(r->via + 4, 12);
}

int priv_req_parse(const void *buf, size_t len, struct priv_req *out, const char **why)
{
	struct priv_req r;
	unsigned f;

	if (len != sizeof(r)) {
		*why = "wrong size";
		return -1;
	}
	memcpy(&r, buf, sizeof(r));
	if (r.type < 1 || r.type > PRIV_TYPE_MAX) {
		*why = "unknown type";
		return -1;
	}
	f = types[r.type].fields;
	if (r.pad || (!(f & F_FLAG) && r.flag) || (!(f & F_PROTO) && r.proto) ||
	    (!(f & F_PORT) && r.port) || (!(f & F_PMTUDISC) && r.pmtudisc) ||
	    (!(f & F_IFINDEX) && r.ifindex) || (!(f & F_LOCAL) && r.local) ||
	    (!(f & F_MTU) && r.mtu) || (!(f & (F_NAME | F_DEV)) && !zero(r.name, sizeof(r.name))) ||
	    (!(f & (F_PREFIX | F_ROUTE)) && !zero(&r.route, sizeof(r.route))) ||
	    ((f & F_PREFIX) && !zero((const uint8_t *)&r.route + sizeof(r.route.dst),
				     sizeof(r.route) - sizeof(r.route.dst))) ||
	    (!(f & F_TOKEN) && !zero(r.token, sizeof(r.token)))) {
		*why = "a field this request does not take is set";
		return -1;
	}
	if (r.flag > 1) {
		*why = "flag not 0 or 1";
		return -1;
	}
	if ((f & F_NAME) && !priv_ifname_valid(r.name, sizeof(r.name))) {
		*why = "invalid device name";
		return -1;
	}
	if ((f & F_DEV) && (r.name[0] ? !priv_ifname_valid(r.name, sizeof(r.name)) :
				       !zero(r.name, sizeof(r.name)))) {
		*why = "invalid device name";
		return -1;
	}
	if ((f & F_PROTO) && r.proto != 4 && r.proto != 41) {
		*why = "protocol not 4 or 41";
		return -1;
	}
	if ((r.type == PRIV_UDP_RX_OPEN || r.type == PRIV_UDP6_RX_OPEN) && !r.port) {
		*why = "port 0";
		return -1;
	}
	/* IP_PMTUDISC_DONT or IP_PMTUDISC_PROBE, the two sitd uses. */
	if ((f & F_PMTUDISC) && r.pmtudisc != 0 && r.pmtudisc != 3) {
		*why = "pmtudisc mode not DONT or PROBE";
		return -1;
	}
	if ((f & F_MTU) && (r.mtu < 68 || r.mtu > 65535)) {
		*why = "mtu outside 68..65535";
		return -1;
	}
	if ((f & F_IFINDEX) && !r.ifindex) {
		*why = "ifindex 0";
		return -1;
	}
	if ((f & F_PREFIX) && !prefix_valid(&r.route.dst)) {
		*why = "invalid prefix";
		return -1;
	}
	if ((f & F_ROUTE) && !route_valid(&r.route)) {
		*why = "invalid route";
		return -1;
	}
	/* An interface identifier: the token's network half is zero (`ip token`). */
	if ((f & F_TOKEN) && (!zero(r.token, 8) || zero(r.token + 8, 8))) {
		*why = "invalid token";
		return -1;
	}
	*out = r;
	return 0;
}
