/* SPDX-License-Identifier: MIT */
#include "proto/show.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/wire.h"

struct pr {
	char *buf;
	size_t cap, len;
	bool json;
	bool comma;	/* a JSON member came before: the next one needs a comma */
};

__attribute__((format(printf, 2, 3)))
static void out(struct pr *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->len >= p->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(p->buf + p->len, p->cap - p->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		p->len = p->len + (size_t)n < p->cap ? p->len + (size_t)n : p->cap - 1;
}

/*
 * A JSON string (RFC 8259 7).  Device names may hold '"', '\\' and control bytes: the
 * kernel's dev_valid_name() refuses only '/', ':' and white space.
 */
static void json_string(struct pr *p, const char *s)
{
	out(p, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			out(p, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			out(p, "\\u%04x", c);
		else
			out(p, "%c", c);
	}
	out(p, "\"");
}

static void key(struct pr *p, const char *k)
{
	out(p, "%s\"%s\":", p->comma ? "," : "", k);
	p->comma = true;
}

/*
 * The text formats come from the callers below, one literal per field (or, for drop
 * reasons, made from the reason's name): checked by reading, as iproute2's print_*.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* A string field: "key":"val" in JSON, text_fmt (with one %s) in text; text_fmt NULL: JSON only. */
static void pr_str(struct pr *p, const char *k, const char *text_fmt, const char *val)
{
	if (p->json) {
		key(p, k);
		json_string(p, val);
	} else if (text_fmt) {
		out(p, text_fmt, val);
	}
}

static void pr_u64(struct pr *p, const char *k, const char *text_fmt, uint64_t val)
{
	if (p->json) {
		key(p, k);
		out(p, "%" PRIu64, val);
	} else if (text_fmt) {
		out(p, text_fmt, val);
	}
}

#pragma GCC diagnostic pop

static void pr_bool(struct pr *p, const char *k, const char *text_if_true, bool val)
{
	if (p->json) {
		key(p, k);
		out(p, "%s", val ? "true" : "false");
	} else if (val && text_if_true) {
		out(p, "%s", text_if_true);
	}
}

static void pr_open(struct pr *p, const char *k, const char *text)
{
	if (p->json) {
		if (k)
			key(p, k);
		else if (p->comma)
			out(p, ",");
		out(p, "{");
		p->comma = false;
	} else if (text) {
		out(p, "%s", text);
	}
}

static void pr_close(struct pr *p)
{
	if (p->json) {
		out(p, "}");
		p->comma = true;
	}
}

static const char *mode_name(enum sitd_mode m)
{
	switch (m) {
	case SITD_MODE_SIT:
		return "ipv6/ip";
	case SITD_MODE_IPIP:
		return "ip/ip";
	case SITD_MODE_ANY:
		break;
	}
	return "any/ip";
}

/* `ip -6 tunnel show`'s: tnl_strproto(proto) "/ipv6". */
static const char *mode6_name(enum sitd_mode m)
{
	switch (m) {
	case SITD_MODE_SIT:
		return "ipv6/ipv6";
	case SITD_MODE_IPIP:
		return "ip/ipv6";
	case SITD_MODE_ANY:
		break;
	}
	return "any/ipv6";
}

static void addr6(char *s, size_t len, const uint8_t *a)
{
	if (ip6_addr_is_unspecified(a))
		snprintf(s, len, "any");
	else
		inet_ntop(AF_INET6, a, s, (socklen_t)len);
}

static void addr(char *s, size_t len, uint32_t a)
{
	uint8_t b[4];

	if (!a) {
		snprintf(s, len, "any");
		return;
	}
	wr32(b, a);
	inet_ntop(AF_INET, b, s, (socklen_t)len);
}

static void prefix(char *s, size_t len, const struct sitd_prefix *x)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(x->family == 6 ? AF_INET6 : AF_INET, x->addr, a, sizeof(a));
	snprintf(s, len, "%s/%u", a, x->len);
}

/* ISATAP's PRL: text as prl-default / prl-nodefault words, JSON as an array. */
static void show_prl(struct pr *p, const struct sitd_conf *c)
{
	char a[INET_ADDRSTRLEN];
	uint8_t b[4];

	if (p->json) {
		key(p, "prl");
		out(p, "[");
		p->comma = false;
	}
	for (unsigned i = 0; i < c->nprl; i++) {
		wr32(b, c->prl[i].addr);
		inet_ntop(AF_INET, b, a, sizeof(a));
		if (p->json) {
			pr_open(p, NULL, NULL);
			pr_str(p, "addr", NULL, a);
			pr_bool(p, "default", NULL, c->prl[i].flags & SITD_PRL_DEFAULT);
			pr_close(p);
		} else {
			out(p, " %s %s", c->prl[i].flags & SITD_PRL_DEFAULT ? "prl-default" : "prl-nodefault", a);
		}
	}
	if (p->json) {
		out(p, "]");
		p->comma = true;
	}
}

/* A remote-any tunnel's 6rd settings, as `ip tunnel show` prints them (6rd-prefix ...). */
static void show_6rd(struct pr *p, const struct sitd_6rd *rd)
{
	char a[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 8];
	uint8_t b[4];

	pr_open(p, "6rd", NULL);
	inet_ntop(AF_INET6, rd->prefix, a, sizeof(a));
	snprintf(buf, sizeof(buf), "%s/%u", a, rd->prefixlen);
	pr_str(p, "prefix", " 6rd-prefix %s", buf);
	wr32(b, rd->relay_prefix);
	inet_ntop(AF_INET, b, a, sizeof(a));
	snprintf(buf, sizeof(buf), "%s/%u", a, rd->relay_prefixlen);
	if (p->json || rd->relay_prefixlen)
		pr_str(p, "relay_prefix", " 6rd-relay_prefix %s", buf);
	pr_close(p);
}

/* `address` and `route` words: text as the command line has them, JSON as arrays. */
static void show_addrs(struct pr *p, const struct sitd_conf *c)
{
	static const uint8_t zero[16];
	char buf[INET6_ADDRSTRLEN + 8];

	if (p->json && c->naddrs) {
		key(p, "addresses");
		out(p, "[");
		p->comma = false;
	}
	for (unsigned i = 0; i < c->naddrs; i++) {
		prefix(buf, sizeof(buf), &c->addrs[i]);
		if (p->json) {
			out(p, "%s", i ? "," : "");
			json_string(p, buf);
		} else {
			out(p, " address %s", buf);
		}
	}
	if (p->json && c->naddrs) {
		out(p, "]");
		p->comma = true;
	}
	if (p->json && c->nroutes) {
		key(p, "routes");
		out(p, "[");
		p->comma = false;
	}
	for (unsigned i = 0; i < c->nroutes; i++) {
		const struct sitd_route *r = &c->routes[i];

		prefix(buf, sizeof(buf), &r->dst);
		pr_open(p, NULL, NULL);
		pr_str(p, "dst", " route %s", buf);
		if (memcmp(r->via, zero, sizeof(zero))) {
			inet_ntop(r->dst.family == 6 ? AF_INET6 : AF_INET, r->via, buf, sizeof(buf));
			pr_str(p, "via", " via %s", buf);
		}
		if (r->metric)
			pr_u64(p, "metric", " metric %" PRIu64, r->metric);
		if (r->table)
			pr_u64(p, "table", " table %" PRIu64, r->table);
		pr_close(p);
	}
	if (p->json && c->nroutes) {
		out(p, "]");
		p->comma = true;
	}
}

/* FOU/GUE's words; over IPv6 also the UDP checksum's, printed also when off (its default is on). */
static void show_encap(struct pr *p, const struct sitd_conf *c)
{
	if (c->encap == SITD_ENCAP_NONE)
		return;
	pr_str(p, "encap", " encap %s", c->encap == SITD_ENCAP_FOU ? "fou" : "gue");
	if (c->encap_sport)
		pr_u64(p, "encap_sport", " encap-sport %" PRIu64, c->encap_sport);
	else
		pr_str(p, "encap_sport", " encap-sport %s", "auto");
	pr_u64(p, "encap_dport", " encap-dport %" PRIu64, c->encap_dport);
	pr_bool(p, "encap_csum", " encap-csum", c->encap_csum);
	if (c->outer != SITD_OUTER_IPV6)
		return;
	if (p->json)
		pr_bool(p, "encap_udp6_csum", NULL, c->encap_csum6);
	else
		out(p, c->encap_csum6 ? " encap-udp6-csum" : " noencap-udp6-csum");
}

/*
 * An IPv6 underlay's settings, in ip6tunnel.c's print_tunnel() order and words ("encaplimit
 * 4 hoplimit 64 tclass 0x00 flowlabel 0x00000 (flowinfo 0x00000000)"), its JSON keys those
 * of this file: a number, or "none" / "inherit", as ttl has them.
 */
static void show_ip6tnl(struct pr *p, const struct sitd_conf *c)
{
	char r[INET6_ADDRSTRLEN], l[INET6_ADDRSTRLEN], buf[16];
	uint32_t flowinfo = 0;

	addr6(r, sizeof(r), c->remote6);
	addr6(l, sizeof(l), c->local6);
	pr_str(p, "mode", " %s", mode6_name(c->mode));
	pr_str(p, "outer", NULL, "ipv6");
	pr_str(p, "remote", " remote %s", r);
	pr_str(p, "local", " local %s", l);
	if (c->dev[0])
		pr_str(p, "dev", " dev %s", c->dev);
	if (c->encap_limit_none)
		pr_str(p, "encaplimit", " encaplimit %s", "none");
	else
		pr_u64(p, "encaplimit", " encaplimit %" PRIu64, c->encap_limit);
	if (c->ttl)
		pr_u64(p, "hoplimit", " hoplimit %" PRIu64, c->ttl);
	else
		pr_str(p, "hoplimit", " hoplimit %s", "inherit");
	if (c->tos == SITD_TOS_INHERIT) {
		pr_str(p, "tclass", " tclass %s", "inherit");
	} else {
		snprintf(buf, sizeof(buf), "0x%02x", c->tos);
		pr_str(p, "tclass", " tclass %s", buf);
		flowinfo |= (uint32_t)c->tos << 20;
	}
	if (c->flowlabel_inherit) {
		pr_str(p, "flowlabel", " flowlabel %s", "inherit");
	} else {
		snprintf(buf, sizeof(buf), "0x%05x", (unsigned)c->flowlabel);
		pr_str(p, "flowlabel", " flowlabel %s", buf);
		flowinfo |= c->flowlabel;
	}
	/* The fixed parts of the first word after the version, as ip6_tnl_parm's flowinfo. */
	snprintf(buf, sizeof(buf), "0x%08x", (unsigned)flowinfo);
	pr_str(p, "flowinfo", " (flowinfo %s)", buf);
	pr_bool(p, "dscp_inherit", " dscp inherit", c->dscp_inherit);
	pr_bool(p, "allow_localremote", " allow-localremote", c->allow_localremote);
	show_encap(p, c);
}

/*
 * clamp-mss and keepalive, additive: their keys only when set, but for the
 * keepalive state, which a running tunnel always shows (off, up or down).
 */
static void show_clamp_keepalive(struct pr *p, const struct sitd_show_tunnel *t)
{
	const struct sitd_conf *c = t->conf;
	const struct sitd_show_keepalive *ka = t->ka;
	char a[INET6_ADDRSTRLEN];

	if (c->clamp_mss) {
		pr_u64(p, "clamp_mss", NULL, c->clamp_mss_n);	/* 0: what fits the tunnel */
		if (!p->json)
			out(p, " clamp-mss");
		if (!p->json && c->clamp_mss_n)
			out(p, " %u", (unsigned)c->clamp_mss_n);
	}
	if (c->keepalive) {
		if (c->keepalive_peer_family == 6)
			addr6(a, sizeof(a), c->keepalive_peer);
		else
			addr(a, sizeof(a), rd32(c->keepalive_peer));
		pr_u64(p, "keepalive", " keepalive %" PRIu64, c->keepalive);
		pr_u64(p, "keepalive_retries", ",%" PRIu64, c->keepalive_retries);
		pr_str(p, "keepalive_peer", " keepalive-peer %s", a);
	}
	if (!ka)
		return;
	pr_open(p, "keepalive_state", NULL);
	pr_str(p, "state", NULL, !c->keepalive ? "off" : ka->up ? "up" : "down");
	if (c->keepalive) {
		if (!p->json)
			out(p, "\n    keepalive %s,", ka->up ? "up" : "down");
		if (ka->since_rx >= 0)
			pr_u64(p, "since_rx", " last from the remote %" PRIu64 "s ago,", (uint64_t)ka->since_rx);
		else if (!p->json)
			out(p, " nothing from the remote yet,");
		pr_u64(p, "transitions", " transitions %" PRIu64, ka->transitions);
		pr_u64(p, "sent", ", sent %" PRIu64, ka->sent);
		pr_u64(p, "answered", ", answered %" PRIu64, ka->answered);
		pr_u64(p, "no_source", ", no source %" PRIu64, ka->no_source);
	}
	pr_close(p);
}

static void show_one(struct pr *p, const struct sitd_show_tunnel *t, bool stats)
{
	const struct sitd_conf *c = t->conf;
	char r[INET_ADDRSTRLEN], l[INET_ADDRSTRLEN], buf[16];

	pr_open(p, NULL, NULL);
	pr_str(p, "ifname", "%s:", c->name);
	if (c->outer == SITD_OUTER_IPV6) {
		show_ip6tnl(p, c);
		goto tail;
	}
	addr(r, sizeof(r), c->remote);
	addr(l, sizeof(l), c->local);
	pr_str(p, "mode", " %s", mode_name(c->mode));
	pr_str(p, "remote", " remote %s", r);
	pr_str(p, "local", " local %s", l);
	if (c->dev[0])
		pr_str(p, "dev", " dev %s", c->dev);
	if (c->ttl)
		pr_u64(p, "ttl", " ttl %" PRIu64, c->ttl);
	else
		pr_str(p, "ttl", " ttl %s", "inherit");
	if (c->tos == SITD_TOS_INHERIT) {
		pr_str(p, "tos", " tos %s", "inherit");
	} else if (c->tos) {
		snprintf(buf, sizeof(buf), "%s0x%x", c->tos & SITD_TOS_INHERIT ? "inherit/" : "",
			 c->tos & ~SITD_TOS_INHERIT);
		pr_str(p, "tos", " tos %s", buf);
	}
	pr_bool(p, "pmtudisc", NULL, c->pmtudisc);
	if (!c->pmtudisc && !p->json)
		out(p, " nopmtudisc");
	show_encap(p, c);
	if (c->isatap)
		pr_bool(p, "isatap", " isatap", true);
	if (c->isatap)
		show_prl(p, c);
	else if (!c->remote)
		show_6rd(p, &c->rd);
tail:
	show_addrs(p, c);
	if (c->mtu)	/* 0 until the device exists: as parsed, "the default" */
		pr_u64(p, "mtu", " mtu %" PRIu64, c->mtu);
	pr_bool(p, "gso", NULL, !c->nogso);
	pr_bool(p, "gro", NULL, !c->nogro);
	if (c->takeover)	/* additive: the key only when set */
		pr_bool(p, "takeover", NULL, true);
	if (!p->json)
		out(p, "%s%s%s", c->nogso ? " nogso" : "", c->nogro ? " nogro" : "",
		    c->takeover ? " takeover" : "");
	/* Where the device lives: the key only when not in sitd's own namespace. */
	if (c->netns[0])
		pr_str(p, "netns", " netns %s", c->netns);
	if (t->netns_gone)
		pr_bool(p, "netns_gone", " (netns gone)", true);
	show_clamp_keepalive(p, t);
	if (!p->json)
		out(p, "\n");
	if (stats) {
		const struct sitd_stats *s = t->stats;

		pr_open(p, "stats", NULL);
		pr_u64(p, "path_mtu", "    path_mtu %" PRIu64 "\n", t->path_mtu);
#define PR_CTR(name, desc) pr_u64(p, #name, "    " #name " %" PRIu64 "\n", s->name);
		SITD_COUNTERS(PR_CTR)
#undef PR_CTR
		pr_open(p, "drops", NULL);
		for (int i = 0; i < SITD_DROP_MAX; i++) {
			char fmt[64];

			snprintf(fmt, sizeof(fmt), "    drop %s %%" PRIu64 "\n", sitd_drop_names[i]);
			pr_u64(p, sitd_drop_names[i], fmt, s->drop[i]);
		}
		pr_close(p);
		pr_close(p);
	}
	pr_close(p);
}

size_t sitd_show_part(char *buf, size_t cap, const struct sitd_show_tunnel *t, unsigned n,
		      bool stats, bool json, bool first, bool last)
{
	struct pr p = { .buf = buf, .cap = cap, .len = 0, .json = json, .comma = !first };

	if (cap == 0)
		return 0;
	buf[0] = '\0';
	if (json && first)
		out(&p, "[");
	for (unsigned i = 0; i < n; i++)
		show_one(&p, &t[i], stats);
	if (json && last)
		out(&p, "]\n");
	return p.len;
}

size_t sitd_show_format(char *buf, size_t cap, const struct sitd_show_tunnel *t, unsigned n,
			bool stats, bool json)
{
	return sitd_show_part(buf, cap, t, n, stats, json, true, true);
}

bool sitd_show_process_drop(int i)
{
	return i == SITD_DROP_rx_no_tunnel || i == SITD_DROP_rx_truncated;
}

size_t sitd_show_status(char *buf, size_t cap, const struct sitd_show_process *sp, bool json)
{
	struct pr p = { .buf = buf, .cap = cap, .len = 0, .json = json, .comma = false };

	if (cap == 0)
		return 0;
	buf[0] = '\0';
	pr_open(&p, NULL, NULL);
	pr_u64(&p, "pid", "sitd: pid %" PRIu64, sp->pid);
	pr_u64(&p, "uid", ", uid %" PRIu64, sp->uid);
	pr_u64(&p, "tunnels", ", %" PRIu64 " tunnel(s)", sp->tunnels);
	pr_u64(&p, "workers", ", %" PRIu64 " worker(s)\n", sp->workers);
	if (json) {
		key(&p, "paths");
		out(&p, "[%s]", sp->paths);
	} else {
		out(&p, "%s", sp->paths);
	}
	pr_open(&p, "drops", NULL);
	for (int i = 0; i < SITD_DROP_MAX; i++) {
		char fmt[64];

		if (!sitd_show_process_drop(i))
			continue;
		snprintf(fmt, sizeof(fmt), "  drop %s %%" PRIu64 "\n", sitd_drop_names[i]);
		pr_u64(&p, sitd_drop_names[i], fmt, sp->stats->drop[i]);
	}
	pr_close(&p);
	/* Refused system calls: none is the normal state; each one is a finding. */
	pr_open(&p, "refused_syscalls", NULL);
	for (unsigned i = 0; i < sp->nrefused; i++) {
		char fmt[80];

		snprintf(fmt, sizeof(fmt), "  refused syscall %.32s %%" PRIu64 "\n",
			 sp->refused_names[i]);
		pr_u64(&p, sp->refused_names[i], fmt, sp->refused_counts[i]);
	}
	pr_close(&p);
	pr_u64(&p, "netlink_overruns", "  netlink overruns %" PRIu64, sp->netlink_overruns);
	pr_u64(&p, "netlink_resyncs", ", resyncs %" PRIu64 "\n", sp->netlink_resyncs);
	pr_u64(&p, "monitor_clients", "  monitor clients %" PRIu64, sp->monitor_clients);
	pr_u64(&p, "monitor_dropped", ", dropped %" PRIu64, sp->monitor_dropped);
	pr_u64(&p, "events_lost", ", events lost %" PRIu64 "\n", sp->events_lost);
	/* netns tunnels: namespaces seen gone (the device's tunnel down), and come back. */
	pr_u64(&p, "netns_lost", "  netns lost %" PRIu64, sp->netns_lost);
	pr_u64(&p, "netns_back", ", back %" PRIu64 "\n", sp->netns_back);
	pr_close(&p);
	if (json)
		out(&p, "\n");
	return p.len;
}
