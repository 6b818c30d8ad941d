/* SPDX-License-Identifier: MIT */
#include "proto/cli.h"
#include "core/sixrd.h"
#include "proto/sixrd_cmd.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/show.h"
#include "core/wire.h"

void sitd_conf_defaults(struct sitd_conf *c)
{
	memset(c, 0, sizeof(*c));
	sitd_6rd_reset(&c->rd);	/* 2002::/16, relay 0/0: 6to4 (ipip6_tunnel_clone_6rd) */
	c->mode = SITD_MODE_ANY;
	c->pmtudisc = true;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The kernel's dev_valid_name(): 1..15 bytes, not "." or "..", no '/', ':' or space. */
static bool valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= SITD_IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || *s == ' ' || (*s >= '\t' && *s <= '\r'))
			return false;
	return true;
}

/* A whole string as an unsigned number with strtoul's base rules, at most max. */
static bool parse_uint(const char *s, int base, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	/* strtoul would skip white space and take a sign; iproute2's get_u8 refuses those too. */
	if (!isxdigit((unsigned char)*s))
		return false;
	v = strtoul(s, &end, base);
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_addr4(const char *s, uint32_t *out)
{
	uint8_t b[4];

	if (inet_pton(AF_INET, s, b) != 1)
		return false;
	*out = rd32(b);
	return true;
}

/* "ADDR/LEN" or "ADDR" (a host: /32, /128), IPv4 or IPv6. */
static bool parse_prefix(const char *s, struct sitd_prefix *p)
{
	char a[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long len;

	if (n == 0 || n >= sizeof(a))
		return false;
	memcpy(a, s, n);
	a[n] = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET6, a, p->addr) == 1)
		p->family = 6;
	else if (inet_pton(AF_INET, a, p->addr) == 1)
		p->family = 4;
	else
		return false;
	if (!slash) {
		p->len = p->family == 6 ? 128 : 32;
		return true;
	}
	if (!parse_uint(slash + 1, 10, p->family == 6 ? 128 : 32, &len))
		return false;
	p->len = (uint8_t)len;
	return true;
}

static void prefix_mask(struct sitd_prefix *p)
{
	for (unsigned b = p->len; b < (p->family == 6 ? 128u : 32u); b++)
		p->addr[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
}

static bool prefix_masked(const struct sitd_prefix *p)
{
	struct sitd_prefix m = *p;

	prefix_mask(&m);
	return !memcmp(&m, p, sizeof(m));
}

static bool addr_is_unicast(uint32_t a)
{
	return a != 0 && a != 0xffffffffu && !ip4_addr_is_multicast(a);
}

enum seen {
	SEEN_MODE = 1 << 0, SEEN_REMOTE = 1 << 1, SEEN_LOCAL = 1 << 2, SEEN_TTL = 1 << 3,
	SEEN_TOS = 1 << 4, SEEN_PMTU = 1 << 5, SEEN_DEV = 1 << 6, SEEN_MTU = 1 << 7,
	SEEN_ENCAP = 1 << 8, SEEN_SPORT = 1 << 9, SEEN_DPORT = 1 << 10, SEEN_CSUM = 1 << 11,
	SEEN_REMCSUM = 1 << 12, SEEN_CSUM6 = 1 << 13,
};

int sitd_cli_parse(int argc, const char *const *argv, struct sitd_conf *c, char *err, size_t errlen)
{
	int bad;

	return sitd_cli_parse_at(argc, argv, c, err, errlen, &bad);
}

int sitd_cli_parse_at(int argc, const char *const *argv, struct sitd_conf *c, char *err, size_t errlen,
		      int *bad)
{
	unsigned seen = 0, n6rd = 2;
	unsigned long v;
	const char *rdw[10] = { "dev" };
	int remote_any = -1, rd_at = -1;

	sitd_conf_defaults(c);
	if (errlen)
		err[0] = '\0';
	*bad = -1;	/* the checks after the loop are about the whole line */

#define NEXT_ARG()                                                                          \
	do {                                                                                \
		if (++i >= argc) {                                                          \
			*bad = i - 1;                                                       \
			return fail(err, errlen, "\"%s\" needs a value", argv[i - 1]);      \
		}                                                                           \
		*bad = i;                                                                   \
	} while (0)
#define ONCE(bit)                                                                           \
	do {                                                                                \
		if (seen & (bit))                                                           \
			return fail(err, errlen, "\"%s\" given twice", argv[i]);           \
		seen |= (bit);                                                              \
	} while (0)

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		*bad = i;
		if (!strcmp(a, "mode")) {
			ONCE(SEEN_MODE);
			NEXT_ARG();
			a = argv[i];
			if (!strcmp(a, "sit") || !strcmp(a, "ipv6/ip") || !strcmp(a, "ip6ip"))
				c->mode = SITD_MODE_SIT;
			else if (!strcmp(a, "ipip") || !strcmp(a, "ip/ip"))
				c->mode = SITD_MODE_IPIP;
			else if (!strcmp(a, "any"))
				c->mode = SITD_MODE_ANY;
			else if (!strcmp(a, "isatap"))
				c->mode = SITD_MODE_SIT, c->isatap = true;
			else
				return fail(err, errlen,
					    "unknown tunnel mode \"%s\": expected sit, ipip, any or isatap", a);
		} else if (!strcmp(a, "remote")) {
			ONCE(SEEN_REMOTE);
			NEXT_ARG();
			if (!strcmp(argv[i], "any")) {
				/* NBMA: 6to4 / 6rd, each packet's remote from its destination. */
				c->remote = 0;
				remote_any = i;
				continue;
			}
			if (!parse_addr4(argv[i], &c->remote) || !addr_is_unicast(c->remote))
				return fail(err, errlen,
					    "invalid \"remote\" address \"%s\": expected a unicast IPv4 address",
					    argv[i]);
		} else if (!strcmp(a, "local")) {
			ONCE(SEEN_LOCAL);
			NEXT_ARG();
			if (!strcmp(argv[i], "any"))
				c->local = 0;
			else if (!parse_addr4(argv[i], &c->local) || !addr_is_unicast(c->local))
				return fail(err, errlen,
					    "invalid \"local\" address \"%s\": expected a unicast IPv4 address or any",
					    argv[i]);
		} else if (!strcmp(a, "ttl") || !strcmp(a, "hoplimit") || !strcmp(a, "hlim")) {
			ONCE(SEEN_TTL);
			NEXT_ARG();
			if (!strcmp(argv[i], "inherit"))
				c->ttl = 0;
			else if (parse_uint(argv[i], 0, 255, &v))
				c->ttl = (uint8_t)v;
			else
				return fail(err, errlen,
					    "invalid \"%s\" value \"%s\": expected 1..255 or inherit", a,
					    argv[i]);
		} else if (!strcmp(a, "tos") || !strcmp(a, "tclass") || !strcmp(a, "dsfield")) {
			const char *val;

			ONCE(SEEN_TOS);
			NEXT_ARG();
			val = argv[i];
			c->tos = 0;
			if (!strncmp(val, "inherit", 7) && (val[7] == '\0' || val[7] == '/')) {
				c->tos = SITD_TOS_INHERIT;
				val = val[7] ? val + 8 : NULL;
			}
			if (val) {
				if (!parse_uint(val, 16, 255, &v))
					return fail(err, errlen,
						    "invalid \"%s\" value \"%s\": expected 00..ff, inherit or inherit/00..ff",
						    a, argv[i]);
				c->tos |= (uint8_t)v;
			}
		} else if (!strcmp(a, "pmtudisc") || !strcmp(a, "nopmtudisc")) {
			ONCE(SEEN_PMTU);
			c->pmtudisc = a[0] == 'p';
		} else if (!strcmp(a, "encap")) {
			ONCE(SEEN_ENCAP);
			NEXT_ARG();
			if (!strcmp(argv[i], "fou"))
				c->encap = SITD_ENCAP_FOU;
			else if (!strcmp(argv[i], "gue"))
				c->encap = SITD_ENCAP_GUE;
			else if (!strcmp(argv[i], "none"))
				c->encap = SITD_ENCAP_NONE;
			else
				return fail(err, errlen,
					    "invalid \"encap\" type \"%s\": expected fou, gue or none", argv[i]);
		} else if (!strcmp(a, "encap-sport") || !strcmp(a, "encap-dport")) {
			bool sport = a[6] == 's';

			ONCE(sport ? SEEN_SPORT : SEEN_DPORT);
			NEXT_ARG();
			if (sport && !strcmp(argv[i], "auto"))
				v = 0;
			else if (!parse_uint(argv[i], 0, 65535, &v) || v == 0)
				return fail(err, errlen, "invalid \"%s\" value \"%s\": expected 1..65535%s",
					    a, argv[i], sport ? " or auto" : "");
			if (sport)
				c->encap_sport = (uint16_t)v;
			else
				c->encap_dport = (uint16_t)v;
		} else if (!strcmp(a, "encap-csum") || !strcmp(a, "noencap-csum")) {
			ONCE(SEEN_CSUM);
			c->encap_csum = a[0] == 'e';
		} else if (!strcmp(a, "encap-udp6-csum") || !strcmp(a, "noencap-udp6-csum")) {
			/* Only about an IPv6 outer header, which sit and ipip never have. */
			ONCE(SEEN_CSUM6);
		} else if (!strcmp(a, "encap-remcsum") || !strcmp(a, "noencap-remcsum")) {
			ONCE(SEEN_REMCSUM);
			if (a[0] == 'e')
				return fail(err, errlen,
					    "\"encap-remcsum\" is not supported: sitd sends GUE without options");
		} else if (!strcmp(a, "nogso")) {
			c->nogso = true;
		} else if (!strcmp(a, "nogro")) {
			c->nogro = true;
		} else if (!strcmp(a, "dev")) {
			ONCE(SEEN_DEV);
			NEXT_ARG();
			if (!valid_ifname(argv[i]))
				return fail(err, errlen, "invalid \"dev\" name \"%s\"", argv[i]);
			strcpy(c->dev, argv[i]);
		} else if (!strcmp(a, "6rd-prefix") || !strcmp(a, "6rd-relay_prefix") ||
			   !strcmp(a, "6rd-reset")) {
			/* `ip tunnel 6rd`'s words, here in the tunnel's own line (proto/sixrd_cmd.h). */
			if (n6rd + 2 > sizeof(rdw) / sizeof(rdw[0]))
				return fail(err, errlen, "too many 6rd words");
			rdw[n6rd++] = a;
			if (strcmp(a, "6rd-reset")) {
				NEXT_ARG();
				rdw[n6rd++] = argv[i];
			}
			rd_at = i;
		} else if (!strcmp(a, "prl-default") || !strcmp(a, "prl-nodefault")) {
			/* `ip tunnel prl`'s words, here in the tunnel's own line (RFC 5214, the Potential Router List). */
			uint32_t pa;

			NEXT_ARG();
			if (c->nprl == SITD_PRL_MAX)
				return fail(err, errlen, "more than %d PRL routers", SITD_PRL_MAX);
			if (!parse_addr4(argv[i], &pa) || !addr_is_unicast(pa))
				return fail(err, errlen, "invalid \"%s\" address \"%s\": expected a unicast IPv4 address",
					    a, argv[i]);
			for (unsigned k = 0; k < c->nprl; k++)
				if (c->prl[k].addr == pa)
					return fail(err, errlen, "\"%s\" given twice in the PRL", argv[i]);
			c->prl[c->nprl].addr = pa;
			c->prl[c->nprl++].flags = strcmp(a, "prl-default") ? 0 : SITD_PRL_DEFAULT;
		} else if (!strcmp(a, "address")) {
			NEXT_ARG();
			if (c->naddrs == SITD_MAX_ADDRS)
				return fail(err, errlen, "more than %d \"address\"", SITD_MAX_ADDRS);
			if (!parse_prefix(argv[i], &c->addrs[c->naddrs]))
				return fail(err, errlen,
					    "invalid \"address\" \"%s\": expected ADDR[/LEN], IPv6 or IPv4",
					    argv[i]);
			c->naddrs++;
		} else if (!strcmp(a, "route")) {
			struct sitd_route *r;

			NEXT_ARG();
			if (c->nroutes == SITD_MAX_ROUTES)
				return fail(err, errlen, "more than %d \"route\"", SITD_MAX_ROUTES);
			r = &c->routes[c->nroutes];
			if (!parse_prefix(argv[i], &r->dst))
				return fail(err, errlen,
					    "invalid \"route\" \"%s\": expected PREFIX[/LEN], IPv6 or IPv4",
					    argv[i]);
			/* As the kernel: IPv4 refuses host bits (fib_table_insert), IPv6 clears them. */
			if (!prefix_masked(&r->dst)) {
				if (r->dst.family == 4)
					return fail(err, errlen,
						    "invalid \"route\" \"%s\": host bits set for the prefix length",
						    argv[i]);
				prefix_mask(&r->dst);
			}
			/* Its own words follow it: via, metric, table (ip-route(8)'s). */
			while (i + 1 < argc) {
				const char *w = argv[i + 1];
				uint8_t b[16];

				if (!strcmp(w, "via")) {
					i++;
					NEXT_ARG();
					memset(b, 0, sizeof(b));
					if (inet_pton(r->dst.family == 6 ? AF_INET6 : AF_INET, argv[i], b) != 1)
						return fail(err, errlen,
							    "invalid \"via\" \"%s\": expected an IPv%u address like the route's",
							    argv[i], r->dst.family);
					memcpy(r->via, b, sizeof(b));
				} else if (!strcmp(w, "metric") || !strcmp(w, "table")) {
					i++;
					NEXT_ARG();
					if (!parse_uint(argv[i], 10, UINT32_MAX, &v))
						return fail(err, errlen, "invalid \"%s\" value \"%s\"", w, argv[i]);
					if (w[0] == 'm')
						r->metric = (uint32_t)v;
					else
						r->table = (uint32_t)v;
				} else {
					break;
				}
			}
			c->nroutes++;
		} else if (!strcmp(a, "mtu")) {
			ONCE(SEEN_MTU);
			NEXT_ARG();
			if (!parse_uint(argv[i], 10, 65535, &v) || v == 0)
				return fail(err, errlen, "invalid \"mtu\" value \"%s\"", argv[i]);
			c->mtu = (uint32_t)v;
		} else {
			if (!strcmp(a, "name"))
				NEXT_ARG();
			else if (!strcmp(a, "help"))
				return fail(err, errlen, "help");
			if (c->name[0])
				return fail(err, errlen,
					    "unexpected \"%s\": the name is already \"%s\" (unknown keyword?)",
					    argv[i], c->name);
			if (!valid_ifname(argv[i]))
				return fail(err, errlen,
					    "invalid tunnel name \"%s\": 1 to 15 bytes, no '/', ':' or spaces",
					    argv[i]);
			strcpy(c->name, argv[i]);
		}
	}
#undef NEXT_ARG
#undef ONCE
	*bad = -1;

	if (!c->name[0])
		return fail(err, errlen, "missing tunnel name");
	/* As iproute2: without a mode, the name's prefix decides. */
	if (!(seen & SEEN_MODE)) {
		if (!strncmp(c->name, "sit", 3))
			c->mode = SITD_MODE_SIT;
		else if (!strncmp(c->name, "ipip", 4))
			c->mode = SITD_MODE_IPIP;
		else
			return fail(err, errlen,
				    "cannot determine tunnel mode: give \"mode sit\", \"mode ipip\" or \"mode any\"");
	}
	/* ISATAP is NBMA: remote any, as `ip tunnel add NAME mode isatap` has it. */
	if (c->isatap && !(seen & SEEN_REMOTE)) {
		seen |= SEEN_REMOTE;
		remote_any = 0;
	}
	if (c->isatap && (remote_any < 0 || !c->local)) {
		*bad = -1;
		return fail(err, errlen, "mode isatap needs remote any and a local address (its interface identifier)");
	}
	if (c->nprl && !c->isatap)
		return fail(err, errlen, "a PRL (prl-default, prl-nodefault) is for mode isatap");
	if (!(seen & SEEN_REMOTE))
		return fail(err, errlen, "missing \"remote ADDR\"");
	if (remote_any >= 0 && (c->mode != SITD_MODE_SIT || c->encap != SITD_ENCAP_NONE)) {
		*bad = remote_any;
		return fail(err, errlen,
			    "\"remote any\" (6to4, 6rd) needs mode sit and no encap: IPv4 inside or "
			    "UDP outside would need a next hop sitd does not know");
	}
	if (n6rd > 2) {
		struct sitd_6rd_cmd cmd;
		char msg[160];
		int r;

		rdw[1] = c->name;
		*bad = rd_at;
		if (sitd_6rd_parse((int)n6rd, rdw, &cmd, msg, sizeof(msg)) < 0)
			return fail(err, errlen, "%s", msg);
		r = sitd_6rd_apply(&c->rd, &cmd);
		if (r < 0)
			return fail(err, errlen, "6rd: %s", sitd_6rd_strerror(r));
		*bad = -1;
	}
	if (c->ttl && !c->pmtudisc)
		return fail(err, errlen, "ttl != 0 and nopmtudisc are incompatible");
	if (c->encap != SITD_ENCAP_NONE && !c->encap_dport)
		return fail(err, errlen, "\"encap %s\" needs \"encap-dport PORT\"",
			    c->encap == SITD_ENCAP_FOU ? "fou" : "gue");
	if (c->encap == SITD_ENCAP_NONE && (seen & (SEEN_SPORT | SEEN_DPORT | SEEN_CSUM)))
		return fail(err, errlen, "encap-sport, encap-dport and encap-csum need \"encap fou\" or \"encap gue\"");
	if (c->mtu && (c->mtu < sitd_mtu_min(c->mode) || c->mtu > sitd_mtu_max(c)))
		return fail(err, errlen, "invalid \"mtu\" value %u: mode %s takes %u..%u", c->mtu,
			    c->mode == SITD_MODE_IPIP ? "ipip" : c->mode == SITD_MODE_SIT ? "sit" : "any",
			    sitd_mtu_min(c->mode), sitd_mtu_max(c));
	return 0;
}

size_t sitd_conf_format(const struct sitd_conf *c, char *buf, size_t len)
{
	/* show's text printer is the one place that knows how a tunnel is written. */
	struct sitd_show_tunnel t = { .conf = c, .stats = NULL, .path_mtu = 0 };
	size_t n = sitd_show_format(buf, len, &t, 1, false, false);

	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}
