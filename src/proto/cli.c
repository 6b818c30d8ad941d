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

/* One parse: the words, where it is, and what the checks after the words need. */
struct cli {
	int argc;
	const char *const *argv;
	int i;				/* the word being read */
	int *bad;			/* the word to blame */
	struct sitd_conf *c;
	char *err;
	size_t errlen;
	unsigned seen;			/* enum seen: the keywords given */
	unsigned n6rd;			/* rdw[0..n6rd): "dev", NAME, then the 6rd words */
	const char *rdw[10];
	int remote_any, rd_at;		/* where "remote any" and the last 6rd word were */
};

/* The keyword's value, the next word: NULL with the error written when there is none. */
static const char *cli_value(struct cli *p)
{
	if (++p->i >= p->argc) {
		*p->bad = p->i - 1;
		fail(p->err, p->errlen, "\"%s\" needs a value", p->argv[p->i - 1]);
		return NULL;
	}
	*p->bad = p->i;
	return p->argv[p->i];
}

/*
 * The keywords' parsers: kw is the keyword as written (an alias names itself in the
 * error), p->i its index; each takes its value with cli_value().  0, or -1 with err.
 */

static int kw_mode(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	struct sitd_conf *c = p->c;

	(void)kw;
	if (!a)
		return -1;
	if (!strcmp(a, "sit") || !strcmp(a, "ipv6/ip") || !strcmp(a, "ip6ip"))
		c->mode = SITD_MODE_SIT;
	else if (!strcmp(a, "ipip") || !strcmp(a, "ip/ip"))
		c->mode = SITD_MODE_IPIP;
	else if (!strcmp(a, "any"))
		c->mode = SITD_MODE_ANY;
	else if (!strcmp(a, "isatap"))
		c->mode = SITD_MODE_SIT, c->isatap = true;
	else
		return fail(p->err, p->errlen,
			    "unknown tunnel mode \"%s\": expected sit, ipip, any or isatap", a);
	return 0;
}

static int kw_remote(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);

	(void)kw;
	if (!a)
		return -1;
	if (!strcmp(a, "any")) {
		/* NBMA: 6to4 / 6rd, each packet's remote from its destination. */
		p->c->remote = 0;
		p->remote_any = p->i;
		return 0;
	}
	if (!parse_addr4(a, &p->c->remote) || !addr_is_unicast(p->c->remote))
		return fail(p->err, p->errlen,
			    "invalid \"remote\" address \"%s\": expected a unicast IPv4 address", a);
	return 0;
}

static int kw_local(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);

	(void)kw;
	if (!a)
		return -1;
	if (!strcmp(a, "any"))
		p->c->local = 0;
	else if (!parse_addr4(a, &p->c->local) || !addr_is_unicast(p->c->local))
		return fail(p->err, p->errlen,
			    "invalid \"local\" address \"%s\": expected a unicast IPv4 address or any", a);
	return 0;
}

static int kw_ttl(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	unsigned long v;

	if (!a)
		return -1;
	if (!strcmp(a, "inherit"))
		p->c->ttl = 0;
	else if (parse_uint(a, 0, 255, &v))
		p->c->ttl = (uint8_t)v;
	else
		return fail(p->err, p->errlen, "invalid \"%s\" value \"%s\": expected 1..255 or inherit",
			    kw, a);
	return 0;
}

static int kw_tos(struct cli *p, const char *kw)
{
	const char *a = cli_value(p), *val = a;
	unsigned long v;

	if (!a)
		return -1;
	p->c->tos = 0;
	if (!strncmp(val, "inherit", 7) && (val[7] == '\0' || val[7] == '/')) {
		p->c->tos = SITD_TOS_INHERIT;
		val = val[7] ? val + 8 : NULL;
	}
	if (val) {
		if (!parse_uint(val, 16, 255, &v))
			return fail(p->err, p->errlen,
				    "invalid \"%s\" value \"%s\": expected 00..ff, inherit or inherit/00..ff",
				    kw, a);
		p->c->tos |= (uint8_t)v;
	}
	return 0;
}

static int kw_pmtudisc(struct cli *p, const char *kw)
{
	(void)kw;
	p->c->pmtudisc = true;
	return 0;
}

static int kw_nopmtudisc(struct cli *p, const char *kw)
{
	(void)kw;
	p->c->pmtudisc = false;
	return 0;
}

static int kw_encap(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);

	(void)kw;
	if (!a)
		return -1;
	if (!strcmp(a, "fou"))
		p->c->encap = SITD_ENCAP_FOU;
	else if (!strcmp(a, "gue"))
		p->c->encap = SITD_ENCAP_GUE;
	else if (!strcmp(a, "none"))
		p->c->encap = SITD_ENCAP_NONE;
	else
		return fail(p->err, p->errlen, "invalid \"encap\" type \"%s\": expected fou, gue or none", a);
	return 0;
}

/* encap-sport and encap-dport: 1..65535, and for the source port auto (0). */
static int encap_port(struct cli *p, const char *kw, bool sport, uint16_t *port)
{
	const char *a = cli_value(p);
	unsigned long v;

	if (!a)
		return -1;
	if (sport && !strcmp(a, "auto"))
		v = 0;
	else if (!parse_uint(a, 0, 65535, &v) || v == 0)
		return fail(p->err, p->errlen, "invalid \"%s\" value \"%s\": expected 1..65535%s", kw, a,
			    sport ? " or auto" : "");
	*port = (uint16_t)v;
	return 0;
}

static int kw_encap_sport(struct cli *p, const char *kw)
{
	return encap_port(p, kw, true, &p->c->encap_sport);
}

static int kw_encap_dport(struct cli *p, const char *kw)
{
	return encap_port(p, kw, false, &p->c->encap_dport);
}

static int kw_encap_csum(struct cli *p, const char *kw)
{
	(void)kw;
	p->c->encap_csum = true;
	return 0;
}

static int kw_noencap_csum(struct cli *p, const char *kw)
{
	(void)kw;
	p->c->encap_csum = false;
	return 0;
}

/* [no]encap-udp6-csum: only about an IPv6 outer header, which sit and ipip never have. */
static int kw_ignored(struct cli *p, const char *kw)
{
	(void)p;
	(void)kw;
	return 0;
}

static int kw_encap_remcsum(struct cli *p, const char *kw)
{
	(void)kw;
	return fail(p->err, p->errlen, "\"encap-remcsum\" is not supported: sitd sends GUE without options");
}

static int kw_nogso(struct cli *p, const char *kw)
{
	(void)kw;
	p->c->nogso = true;
	return 0;
}

static int kw_nogro(struct cli *p, const char *kw)
{
	(void)kw;
	p->c->nogro = true;
	return 0;
}

static int kw_dev(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);

	(void)kw;
	if (!a)
		return -1;
	if (!valid_ifname(a))
		return fail(p->err, p->errlen, "invalid \"dev\" name \"%s\"", a);
	strcpy(p->c->dev, a);
	return 0;
}

/*
 * `ip tunnel 6rd`'s words, here in the tunnel's own line: collected, then read by
 * sitd_6rd_parse() (proto/sixrd_cmd.h) once the name is known.
 */
static int kw_6rd(struct cli *p, const char *kw)
{
	if (p->n6rd + 2 > sizeof(p->rdw) / sizeof(p->rdw[0]))
		return fail(p->err, p->errlen, "too many 6rd words");
	p->rdw[p->n6rd++] = kw;
	if (strcmp(kw, "6rd-reset")) {
		const char *a = cli_value(p);

		if (!a)
			return -1;
		p->rdw[p->n6rd++] = a;
	}
	p->rd_at = p->i;
	return 0;
}

/* `ip tunnel prl`'s words, here in the tunnel's own line (RFC 5214, the Potential Router List). */
static int kw_prl(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	struct sitd_conf *c = p->c;
	uint32_t pa;

	if (!a)
		return -1;
	if (c->nprl == SITD_PRL_MAX)
		return fail(p->err, p->errlen, "more than %d PRL routers", SITD_PRL_MAX);
	if (!parse_addr4(a, &pa) || !addr_is_unicast(pa))
		return fail(p->err, p->errlen, "invalid \"%s\" address \"%s\": expected a unicast IPv4 address",
			    kw, a);
	for (unsigned k = 0; k < c->nprl; k++)
		if (c->prl[k].addr == pa)
			return fail(p->err, p->errlen, "\"%s\" given twice in the PRL", a);
	c->prl[c->nprl].addr = pa;
	c->prl[c->nprl++].flags = strcmp(kw, "prl-default") ? 0 : SITD_PRL_DEFAULT;
	return 0;
}

static int kw_address(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	struct sitd_conf *c = p->c;

	(void)kw;
	if (!a)
		return -1;
	if (c->naddrs == SITD_MAX_ADDRS)
		return fail(p->err, p->errlen, "more than %d \"address\"", SITD_MAX_ADDRS);
	if (!parse_prefix(a, &c->addrs[c->naddrs]))
		return fail(p->err, p->errlen, "invalid \"address\" \"%s\": expected ADDR[/LEN], IPv6 or IPv4",
			    a);
	c->naddrs++;
	return 0;
}

/* A route's own words after its prefix: via, metric, table (ip-route(8)'s). */
static int route_words(struct cli *p, struct sitd_route *r)
{
	while (p->i + 1 < p->argc) {
		const char *w = p->argv[p->i + 1], *a;
		unsigned long v;
		uint8_t b[16];

		if (strcmp(w, "via") && strcmp(w, "metric") && strcmp(w, "table"))
			break;
		p->i++;
		a = cli_value(p);
		if (!a)
			return -1;
		if (!strcmp(w, "via")) {
			memset(b, 0, sizeof(b));
			if (inet_pton(r->dst.family == 6 ? AF_INET6 : AF_INET, a, b) != 1)
				return fail(p->err, p->errlen,
					    "invalid \"via\" \"%s\": expected an IPv%u address like the route's",
					    a, r->dst.family);
			memcpy(r->via, b, sizeof(b));
		} else {
			if (!parse_uint(a, 10, UINT32_MAX, &v))
				return fail(p->err, p->errlen, "invalid \"%s\" value \"%s\"", w, a);
			if (w[0] == 'm')
				r->metric = (uint32_t)v;
			else
				r->table = (uint32_t)v;
		}
	}
	return 0;
}

static int kw_route(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	struct sitd_conf *c = p->c;
	struct sitd_route *r;

	(void)kw;
	if (!a)
		return -1;
	if (c->nroutes == SITD_MAX_ROUTES)
		return fail(p->err, p->errlen, "more than %d \"route\"", SITD_MAX_ROUTES);
	r = &c->routes[c->nroutes];
	if (!parse_prefix(a, &r->dst))
		return fail(p->err, p->errlen, "invalid \"route\" \"%s\": expected PREFIX[/LEN], IPv6 or IPv4",
			    a);
	/* As the kernel: IPv4 refuses host bits (fib_table_insert), IPv6 clears them. */
	if (!prefix_masked(&r->dst)) {
		if (r->dst.family == 4)
			return fail(p->err, p->errlen,
				    "invalid \"route\" \"%s\": host bits set for the prefix length", a);
		prefix_mask(&r->dst);
	}
	if (route_words(p, r) < 0)
		return -1;
	c->nroutes++;
	return 0;
}

static int kw_mtu(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	unsigned long v;

	(void)kw;
	if (!a)
		return -1;
	if (!parse_uint(a, 10, 65535, &v) || v == 0)
		return fail(p->err, p->errlen, "invalid \"mtu\" value \"%s\"", a);
	p->c->mtu = (uint32_t)v;
	return 0;
}

/* The tunnel's name: after "name", or any word that is no keyword. */
static int cli_name(struct cli *p, const char *a)
{
	if (p->c->name[0])
		return fail(p->err, p->errlen, "unexpected \"%s\": the name is already \"%s\" (unknown keyword?)",
			    a, p->c->name);
	if (!valid_ifname(a))
		return fail(p->err, p->errlen, "invalid tunnel name \"%s\": 1 to 15 bytes, no '/', ':' or spaces",
			    a);
	strcpy(p->c->name, a);
	return 0;
}

static int kw_name(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);

	(void)kw;
	return a ? cli_name(p, a) : -1;
}

static int kw_help(struct cli *p, const char *kw)
{
	(void)kw;
	return fail(p->err, p->errlen, "help");
}

/*
 * The `ip tunnel` keywords (cli.h).  once: a bit of enum seen, set by the first of the
 * keywords sharing it; another is refused ("given twice"), as ip(8) does for these; 0:
 * the keyword may repeat.  Words and aliases match exactly, never as prefixes.
 */
static const struct cli_keyword {
	const char *word;
	const char *alias[2];
	unsigned once;
	int (*parse)(struct cli *p, const char *kw);
} cli_keywords[] = {
	{ "mode", { NULL }, SEEN_MODE, kw_mode },
	{ "remote", { NULL }, SEEN_REMOTE, kw_remote },
	{ "local", { NULL }, SEEN_LOCAL, kw_local },
	{ "ttl", { "hoplimit", "hlim" }, SEEN_TTL, kw_ttl },
	{ "tos", { "tclass", "dsfield" }, SEEN_TOS, kw_tos },
	{ "pmtudisc", { NULL }, SEEN_PMTU, kw_pmtudisc },
	{ "nopmtudisc", { NULL }, SEEN_PMTU, kw_nopmtudisc },
	{ "encap", { NULL }, SEEN_ENCAP, kw_encap },
	{ "encap-sport", { NULL }, SEEN_SPORT, kw_encap_sport },
	{ "encap-dport", { NULL }, SEEN_DPORT, kw_encap_dport },
	{ "encap-csum", { NULL }, SEEN_CSUM, kw_encap_csum },
	{ "noencap-csum", { NULL }, SEEN_CSUM, kw_noencap_csum },
	{ "encap-udp6-csum", { NULL }, SEEN_CSUM6, kw_ignored },
	{ "noencap-udp6-csum", { NULL }, SEEN_CSUM6, kw_ignored },
	{ "encap-remcsum", { NULL }, SEEN_REMCSUM, kw_encap_remcsum },
	{ "noencap-remcsum", { NULL }, SEEN_REMCSUM, kw_ignored },
	{ "nogso", { NULL }, 0, kw_nogso },
	{ "nogro", { NULL }, 0, kw_nogro },
	{ "dev", { NULL }, SEEN_DEV, kw_dev },
	{ "6rd-prefix", { NULL }, 0, kw_6rd },
	{ "6rd-relay_prefix", { NULL }, 0, kw_6rd },
	{ "6rd-reset", { NULL }, 0, kw_6rd },
	{ "prl-default", { NULL }, 0, kw_prl },
	{ "prl-nodefault", { NULL }, 0, kw_prl },
	{ "address", { NULL }, 0, kw_address },
	{ "route", { NULL }, 0, kw_route },
	{ "mtu", { NULL }, SEEN_MTU, kw_mtu },
	{ "name", { NULL }, 0, kw_name },
	{ "help", { NULL }, 0, kw_help },
};

static const struct cli_keyword *cli_keyword(const char *w)
{
	for (size_t k = 0; k < sizeof(cli_keywords) / sizeof(cli_keywords[0]); k++) {
		const struct cli_keyword *kw = &cli_keywords[k];

		if (!strcmp(w, kw->word))
			return kw;
		for (size_t j = 0; j < sizeof(kw->alias) / sizeof(kw->alias[0]) && kw->alias[j]; j++)
			if (!strcmp(w, kw->alias[j]))
				return kw;
	}
	return NULL;
}

int sitd_cli_parse(int argc, const char *const *argv, struct sitd_conf *c, char *err, size_t errlen)
{
	int bad;

	return sitd_cli_parse_at(argc, argv, c, err, errlen, &bad);
}

int sitd_cli_parse_at(int argc, const char *const *argv, struct sitd_conf *c, char *err, size_t errlen,
		      int *bad)
{
	struct cli st = {
		.argc = argc, .argv = argv, .bad = bad, .c = c, .err = err, .errlen = errlen,
		.n6rd = 2, .rdw = { "dev" }, .remote_any = -1, .rd_at = -1,
	};
	struct cli *p = &st;

	sitd_conf_defaults(c);
	if (errlen)
		err[0] = '\0';
	*bad = -1;	/* the checks after the loop are about the whole line */

	for (p->i = 0; p->i < argc; p->i++) {
		const char *a = argv[p->i];
		const struct cli_keyword *kw = cli_keyword(a);

		*bad = p->i;
		if (!kw) {
			if (cli_name(p, a) < 0)
				return -1;
			continue;
		}
		if (kw->once) {
			if (p->seen & kw->once)
				return fail(err, errlen, "\"%s\" given twice", a);
			p->seen |= kw->once;
		}
		if (kw->parse(p, a) < 0)
			return -1;
	}
	*bad = -1;

	if (!c->name[0])
		return fail(err, errlen, "missing tunnel name");
	/* As iproute2: without a mode, the name's prefix decides. */
	if (!(p->seen & SEEN_MODE)) {
		if (!strncmp(c->name, "sit", 3))
			c->mode = SITD_MODE_SIT;
		else if (!strncmp(c->name, "ipip", 4))
			c->mode = SITD_MODE_IPIP;
		else
			return fail(err, errlen,
				    "cannot determine tunnel mode: give \"mode sit\", \"mode ipip\" or \"mode any\"");
	}
	/* ISATAP is NBMA: remote any, as `ip tunnel add NAME mode isatap` has it. */
	if (c->isatap && !(p->seen & SEEN_REMOTE)) {
		p->seen |= SEEN_REMOTE;
		p->remote_any = 0;
	}
	if (c->isatap && (p->remote_any < 0 || !c->local)) {
		*bad = -1;
		return fail(err, errlen, "mode isatap needs remote any and a local address (its interface identifier)");
	}
	if (c->nprl && !c->isatap)
		return fail(err, errlen, "a PRL (prl-default, prl-nodefault) is for mode isatap");
	if (!(p->seen & SEEN_REMOTE))
		return fail(err, errlen, "missing \"remote ADDR\"");
	if (p->remote_any >= 0 && (c->mode != SITD_MODE_SIT || c->encap != SITD_ENCAP_NONE)) {
		*bad = p->remote_any;
		return fail(err, errlen,
			    "\"remote any\" (6to4, 6rd) needs mode sit and no encap: IPv4 inside or "
			    "UDP outside would need a next hop sitd does not know");
	}
	if (p->n6rd > 2) {
		struct sitd_6rd_cmd cmd;
		char msg[160];
		int r;

		p->rdw[1] = c->name;
		*bad = p->rd_at;
		if (sitd_6rd_parse((int)p->n6rd, p->rdw, &cmd, msg, sizeof(msg)) < 0)
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
	if (c->encap == SITD_ENCAP_NONE && (p->seen & (SEEN_SPORT | SEEN_DPORT | SEEN_CSUM)))
		return fail(err, errlen, "encap-sport, encap-dport and encap-csum need \"encap fou\" or \"encap gue\"");
	if (c->mtu && (c->mtu < sitd_mtu_min(c) || c->mtu > sitd_mtu_max(c)))
		return fail(err, errlen, "invalid \"mtu\" value %u: mode %s takes %u..%u", c->mtu,
			    c->mode == SITD_MODE_IPIP ? "ipip" : c->mode == SITD_MODE_SIT ? "sit" : "any",
			    sitd_mtu_min(c), sitd_mtu_max(c));
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
