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

/*
 * An IPv6 tunnel end ip6_tnl_get_cap() lets transmit and receive: unicast, not the
 * loopback address; nor IPv4-mapped, which ipv6_addr_type() calls neither (and which a
 * raw IPv6 socket would not put on an IPv6 wire).
 */
static bool addr6_is_unicast(const uint8_t *a)
{
	static const uint8_t loopback[16] = { [15] = 1 }, mapped[12] = { [10] = 0xff, [11] = 0xff };

	return !ip6_addr_is_unspecified(a) && !ip6_addr_is_multicast(a) && memcmp(a, loopback, 16) &&
	       memcmp(a, mapped, sizeof(mapped));
}

static bool addr6_is_linklocal(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

enum seen {
	SEEN_MODE = 1 << 0, SEEN_REMOTE = 1 << 1, SEEN_LOCAL = 1 << 2, SEEN_TTL = 1 << 3,
	SEEN_TOS = 1 << 4, SEEN_PMTU = 1 << 5, SEEN_DEV = 1 << 6, SEEN_MTU = 1 << 7,
	SEEN_ENCAP = 1 << 8, SEEN_SPORT = 1 << 9, SEEN_DPORT = 1 << 10, SEEN_CSUM = 1 << 11,
	SEEN_REMCSUM = 1 << 12, SEEN_CSUM6 = 1 << 13, SEEN_ELIM = 1 << 14, SEEN_FLOW = 1 << 15,
	SEEN_DSCP = 1 << 16, SEEN_ALR = 1 << 17,
	SEEN_CLAMP = 1 << 24, SEEN_KA = 1 << 25, SEEN_KAPEER = 1 << 26,	/* clamp-mss, keepalive */
};

/* The underlay a keyword or mode is for: either, IPv4 only (sit, ipip), IPv6 only (ip6tnl). */
enum fam { FAM_ANY = 0, FAM_4 = 4, FAM_6 = 6 };

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
	/*
	 * The underlay's family, known only once every word is read: that of the addresses
	 * (remote_fam, local_fam: 0 for any or none), of the mode (mode_fam), and the first
	 * word that only an IPv4 or an IPv6 underlay takes (at4, at6; -1: none).
	 */
	enum fam remote_fam, local_fam, mode_fam;
	int remote_at, local_at, mode_at, at4, at6, encap_at;
	/* tos as written, for an IPv6 underlay's traffic class (its inherit/XX is IPv4's only). */
	int tos_at;
	bool tos_inherit, tos_slash;
	uint8_t tos_val;
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
	p->mode_at = p->i;
	p->mode_fam = FAM_4;
	if (!strcmp(a, "sit") || !strcmp(a, "ipv6/ip") || !strcmp(a, "ip6ip"))
		c->mode = SITD_MODE_SIT;
	else if (!strcmp(a, "ipip") || !strcmp(a, "ip/ip"))
		c->mode = SITD_MODE_IPIP;
	else if (!strcmp(a, "any"))	/* either underlay: the addresses say which */
		c->mode = SITD_MODE_ANY, p->mode_fam = FAM_ANY;
	else if (!strcmp(a, "isatap"))
		c->mode = SITD_MODE_SIT, c->isatap = true;
	/* ip -6 tunnel's (ip/ip6tunnel.c), each with the name `ip -6 tunnel show` prints. */
	else if (!strcmp(a, "ip6ip6") || !strcmp(a, "ipv6/ipv6"))
		c->mode = SITD_MODE_SIT, p->mode_fam = FAM_6;
	else if (!strcmp(a, "ipip6") || !strcmp(a, "ip4ip6") || !strcmp(a, "ip/ipv6") ||
		 !strcmp(a, "ipv4/ipv6"))
		c->mode = SITD_MODE_IPIP, p->mode_fam = FAM_6;
	else if (!strcmp(a, "any/ipv6"))
		c->mode = SITD_MODE_ANY, p->mode_fam = FAM_6;
	else
		return fail(p->err, p->errlen,
			    "unknown tunnel mode \"%s\": expected sit, ipip, any, isatap, ip6ip6 or ipip6", a);
	return 0;
}

static int kw_remote(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	uint8_t a6[16];

	(void)kw;
	if (!a)
		return -1;
	p->remote_at = p->i;
	if (!strcmp(a, "any")) {
		/* NBMA: 6to4 / 6rd, each packet's remote from its destination. */
		p->c->remote = 0;
		p->remote_any = p->i;
		return 0;
	}
	if (inet_pton(AF_INET6, a, a6) == 1) {
		memcpy(p->c->remote6, a6, sizeof(a6));
		p->remote_fam = FAM_6;
		if (!addr6_is_unicast(p->c->remote6))
			return fail(p->err, p->errlen,
				    "invalid \"remote\" address \"%s\": expected a unicast IPv6 address", a);
		return 0;
	}
	p->remote_fam = FAM_4;
	if (!parse_addr4(a, &p->c->remote) || !addr_is_unicast(p->c->remote))
		return fail(p->err, p->errlen,
			    "invalid \"remote\" address \"%s\": expected a unicast IPv4 address", a);
	return 0;
}

static int kw_local(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	uint8_t a6[16];

	(void)kw;
	if (!a)
		return -1;
	p->local_at = p->i;
	if (!strcmp(a, "any"))
		return 0;
	if (inet_pton(AF_INET6, a, a6) == 1) {
		memcpy(p->c->local6, a6, sizeof(a6));
		p->local_fam = FAM_6;
		if (!addr6_is_unicast(a6))
			return fail(p->err, p->errlen,
				    "invalid \"local\" address \"%s\": expected a unicast IPv6 address or any", a);
		return 0;
	}
	p->local_fam = FAM_4;
	if (!parse_addr4(a, &p->c->local) || !addr_is_unicast(p->c->local))
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
	p->tos_at = p->i;
	p->c->tos = 0;
	if (!strncmp(val, "inherit", 7) && (val[7] == '\0' || val[7] == '/')) {
		p->c->tos = SITD_TOS_INHERIT;
		p->tos_inherit = true;
		p->tos_slash = val[7] != '\0';
		val = val[7] ? val + 8 : NULL;
	}
	if (val) {
		if (!parse_uint(val, 16, 255, &v))
			return fail(p->err, p->errlen,
				    "invalid \"%s\" value \"%s\": expected 00..ff, inherit or inherit/00..ff",
				    kw, a);
		p->c->tos |= (uint8_t)v;
		p->tos_val = (uint8_t)v;
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
	p->encap_at = p->i;
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

static int kw_ignored(struct cli *p, const char *kw)
{
	(void)p;
	(void)kw;
	return 0;
}

/*
 * [no]encap-udp6-csum: the UDP checksum over an IPv6 underlay (TUNNEL_ENCAP_FLAG_CSUM6,
 * fou6_build_udp's udp6_set_csum); on by default as link_ip6tnl.c sets it.  sit and ipip
 * never have an IPv6 outer header: there the words are accepted and mean nothing.
 */
static int kw_encap_csum6(struct cli *p, const char *kw)
{
	p->c->encap_csum6 = strcmp(kw, "encap-udp6-csum") == 0;
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

static int kw_takeover(struct cli *p, const char *kw)
{
	(void)kw;
	p->c->takeover = true;
	return 0;
}

static const char *mode_word(const struct sitd_conf *c);

/*
 * clamp-mss [N]: N is taken when the next word is a number (a tunnel named by digits
 * alone then needs "name").  88 is the smallest MSS the kernel lets a peer set
 * (TCP_MIN_MSS); 65495 what a 65535-byte IPv4 packet carries.
 */
static int kw_clamp_mss(struct cli *p, const char *kw)
{
	const char *a = p->i + 1 < p->argc ? p->argv[p->i + 1] : NULL;
	unsigned long v;

	(void)kw;
	p->c->clamp_mss = true;
	if (!a || !isdigit((unsigned char)a[0]))
		return 0;
	p->i++;
	*p->bad = p->i;
	if (!parse_uint(a, 10, 65495, &v) || v < 88)
		return fail(p->err, p->errlen, "invalid \"clamp-mss\" value \"%s\": expected 88..65495", a);
	p->c->clamp_mss_n = (uint16_t)v;
	return 0;
}

/* keepalive SECONDS[,RETRIES]: 1..3600 seconds, 1..255 retries (MikroTik's interval,retries). */
static int kw_keepalive(struct cli *p, const char *kw)
{
	const char *a = cli_value(p), *comma;
	unsigned long sec, retries = 3;
	char num[16];
	size_t n;

	(void)kw;
	if (!a)
		return -1;
	comma = strchr(a, ',');
	n = comma ? (size_t)(comma - a) : strlen(a);
	if (n == 0 || n >= sizeof(num))
		goto bad;
	memcpy(num, a, n);
	num[n] = '\0';
	if (!parse_uint(num, 10, 3600, &sec) || sec == 0)
		goto bad;
	if (comma && (!parse_uint(comma + 1, 10, 255, &retries) || retries == 0))
		goto bad;
	p->c->keepalive = (uint16_t)sec;
	p->c->keepalive_retries = (uint8_t)retries;
	return 0;
bad:
	return fail(p->err, p->errlen,
		    "invalid \"keepalive\" value \"%s\": expected SECONDS[,RETRIES], 1..3600 and 1..255", a);
}

/* keepalive-peer ADDR: an inner unicast address, IPv4 or IPv6. */
static int kw_keepalive_peer(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	struct sitd_conf *c = p->c;
	uint8_t b[16] = { 0 };
	uint32_t v4;

	(void)kw;
	if (!a)
		return -1;
	if (inet_pton(AF_INET6, a, b) == 1 && !ip6_addr_is_multicast(b) && !ip6_addr_is_unspecified(b)) {
		c->keepalive_peer_family = 6;
	} else if (parse_addr4(a, &v4) && addr_is_unicast(v4)) {
		wr32(b, v4);
		c->keepalive_peer_family = 4;
	} else {
		return fail(p->err, p->errlen,
			    "invalid \"keepalive-peer\" address \"%s\": expected a unicast IPv6 or IPv4 address", a);
	}
	memcpy(c->keepalive_peer, b, 16);
	return 0;
}

/*
 * After the whole line: keepalive needs a peer of a family the mode carries, and a single
 * remote to be alive or not (6to4, 6rd, ISATAP and remote any have many).
 */
static int cli_check_keepalive(struct cli *p)
{
	const struct sitd_conf *c = p->c;

	*p->bad = -1;
	if (c->keepalive_peer_family && !c->keepalive)
		return fail(p->err, p->errlen, "\"keepalive-peer\" needs \"keepalive SECONDS[,RETRIES]\"");
	if (!c->keepalive)
		return 0;
	if (!sitd_conf_has_remote(c))
		return fail(p->err, p->errlen,
			    "\"keepalive\" needs a fixed remote: 6to4, 6rd, ISATAP and remote any have no "
			    "single remote to lose");
	if (!c->keepalive_peer_family)
		return fail(p->err, p->errlen,
			    "\"keepalive\" needs \"keepalive-peer ADDR\": an inner address that answers echo");
	if (!sitd_mode_carries(c->mode, c->keepalive_peer_family))
		return fail(p->err, p->errlen, "\"keepalive-peer\" is IPv%u, which mode %s does not carry",
			    c->keepalive_peer_family, mode_word(c));
	return 0;
}

/* ip -6 tunnel's words (ip/ip6tunnel.c), each an ip6_tnl_parm field (conf.h). */

/* encaplimit none|0..255: RFC 2473 4.1.1's option, or none at all (IP6_TNL_F_IGN_ENCAP_LIMIT). */
static int kw_encaplimit(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	unsigned long v;

	(void)kw;
	if (!a)
		return -1;
	if (!strcmp(a, "none")) {
		p->c->encap_limit_none = true;
		p->c->encap_limit = SITD_ENCAP_LIMIT_DEFAULT;	/* as ip6_tnl_parm_init left it */
	} else if (parse_uint(a, 0, 255, &v)) {
		p->c->encap_limit = (uint8_t)v;
	} else {
		return fail(p->err, p->errlen, "invalid \"encaplimit\" value \"%s\": expected none or 0..255", a);
	}
	return 0;
}

/* flowlabel inherit|0x0..0xfffff: hex, as get_u32(..., 16); 20 bits (RFC 6437). */
static int kw_flowlabel(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	unsigned long v;

	if (!a)
		return -1;
	if (!strcmp(a, "inherit"))
		p->c->flowlabel_inherit = true;
	else if (parse_uint(a, 16, 0xfffff, &v))
		p->c->flowlabel = (uint32_t)v;
	else
		return fail(p->err, p->errlen, "invalid \"%s\" value \"%s\": expected 0x0..0xfffff or inherit",
			    kw, a);
	return 0;
}

/* dscp inherit: the outer DSCP copied into the inner packet on receive (IP6_TNL_F_RCV_DSCP_COPY). */
static int kw_dscp(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);

	(void)kw;
	if (!a)
		return -1;
	if (strcmp(a, "inherit"))
		return fail(p->err, p->errlen, "invalid \"dscp\" value \"%s\": expected inherit", a);
	p->c->dscp_inherit = true;
	return 0;
}

static int kw_allow_localremote(struct cli *p, const char *kw)
{
	p->c->allow_localremote = kw[0] == 'a';	/* allow-localremote, noallow-localremote */
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
 * netns NAME|PATH|PID (conf.h): a name as `ip netns` takes it (no '/', not "." or "..";
 * /run/netns/NAME), an absolute path, or a process id (1..PID_MAX_LIMIT, 2^22).  Printable
 * bytes only, no spaces: a config word.  Whether it is a network namespace only the monitor
 * can tell.
 */
static int kw_netns(struct cli *p, const char *kw)
{
	const char *a = cli_value(p);
	size_t n;
	bool digits = true;

	(void)kw;
	if (!a)
		return -1;
	if (p->c->netns[0])
		return fail(p->err, p->errlen, "\"netns\" given twice");
	n = strlen(a);
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)a[i] <= ' ' || (unsigned char)a[i] >= 0x7f)
			return fail(p->err, p->errlen, "invalid \"netns\" value: printable bytes only");
		digits &= a[i] >= '0' && a[i] <= '9';
	}
	if (n == 0 || n >= SITD_NETNS_MAX - (a[0] == '/' || digits ? 0 : sizeof("/run/netns/") - 1))
		return fail(p->err, p->errlen, "invalid \"netns\" value: 1 to %u bytes",
			    (unsigned)(SITD_NETNS_MAX - sizeof("/run/netns/")));
	if (digits) {
		unsigned long pid = 0;

		for (size_t i = 0; i < n && pid <= 4194304ul; i++)
			pid = pid * 10 + (unsigned long)(a[i] - '0');
		if (a[0] == '0' || pid > 4194304ul)
			return fail(p->err, p->errlen, "invalid \"netns\" process id \"%s\": 1..4194304", a);
	} else if (a[0] != '/' && (strchr(a, '/') || !strcmp(a, ".") || !strcmp(a, ".."))) {
		return fail(p->err, p->errlen,
			    "invalid \"netns\" name \"%s\": a name of `ip netns` (no '/'), an absolute "
			    "path or a process id", a);
	}
	memcpy(p->c->netns, a, n + 1);
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
 * The `ip tunnel` and `ip -6 tunnel` keywords (cli.h).  once: a bit of enum seen, set by
 * the first of the keywords sharing it; another is refused ("given twice"), as ip(8) does
 * for these; 0: the keyword may repeat.  only: the underlay the keyword is for, checked
 * once the addresses have said which it is.  Words and aliases match exactly, never as
 * prefixes.
 */
static const struct cli_keyword {
	const char *word;
	const char *alias[2];
	unsigned once;
	int (*parse)(struct cli *p, const char *kw);
	enum fam only;			/* the underlay it is for (FAM_ANY: either) */
} cli_keywords[] = {
	{ "mode", { NULL }, SEEN_MODE, kw_mode, FAM_ANY },
	{ "remote", { NULL }, SEEN_REMOTE, kw_remote, FAM_ANY },
	{ "local", { NULL }, SEEN_LOCAL, kw_local, FAM_ANY },
	{ "ttl", { "hoplimit", "hlim" }, SEEN_TTL, kw_ttl, FAM_ANY },
	{ "tos", { "tclass", "dsfield" }, SEEN_TOS, kw_tos, FAM_ANY },
	{ "tc", { NULL }, SEEN_TOS, kw_tos, FAM_6 },
	{ "pmtudisc", { NULL }, SEEN_PMTU, kw_pmtudisc, FAM_4 },
	{ "nopmtudisc", { NULL }, SEEN_PMTU, kw_nopmtudisc, FAM_4 },
	{ "encaplimit", { NULL }, SEEN_ELIM, kw_encaplimit, FAM_6 },
	{ "flowlabel", { "fl" }, SEEN_FLOW, kw_flowlabel, FAM_6 },
	{ "dscp", { NULL }, SEEN_DSCP, kw_dscp, FAM_6 },
	{ "allow-localremote", { NULL }, SEEN_ALR, kw_allow_localremote, FAM_6 },
	{ "noallow-localremote", { NULL }, SEEN_ALR, kw_allow_localremote, FAM_6 },
	{ "encap", { NULL }, SEEN_ENCAP, kw_encap, FAM_ANY },
	{ "encap-sport", { NULL }, SEEN_SPORT, kw_encap_sport, FAM_ANY },
	{ "encap-dport", { NULL }, SEEN_DPORT, kw_encap_dport, FAM_ANY },
	{ "encap-csum", { NULL }, SEEN_CSUM, kw_encap_csum, FAM_ANY },
	{ "noencap-csum", { NULL }, SEEN_CSUM, kw_noencap_csum, FAM_ANY },
	{ "encap-udp6-csum", { NULL }, SEEN_CSUM6, kw_encap_csum6, FAM_ANY },
	{ "noencap-udp6-csum", { NULL }, SEEN_CSUM6, kw_encap_csum6, FAM_ANY },
	{ "encap-remcsum", { NULL }, SEEN_REMCSUM, kw_encap_remcsum, FAM_ANY },
	{ "noencap-remcsum", { NULL }, SEEN_REMCSUM, kw_ignored, FAM_ANY },
	{ "nogso", { NULL }, 0, kw_nogso, FAM_ANY },
	{ "nogro", { NULL }, 0, kw_nogro, FAM_ANY },
	{ "takeover", { NULL }, 0, kw_takeover, FAM_ANY },
	{ "clamp-mss", { NULL }, SEEN_CLAMP, kw_clamp_mss, FAM_ANY },
	{ "keepalive", { NULL }, SEEN_KA, kw_keepalive, FAM_ANY },
	{ "keepalive-peer", { NULL }, SEEN_KAPEER, kw_keepalive_peer, FAM_ANY },
	{ "dev", { NULL }, SEEN_DEV, kw_dev, FAM_ANY },
	{ "netns", { NULL }, 0, kw_netns, FAM_ANY },
	{ "6rd-prefix", { NULL }, 0, kw_6rd, FAM_4 },
	{ "6rd-relay_prefix", { NULL }, 0, kw_6rd, FAM_4 },
	{ "6rd-reset", { NULL }, 0, kw_6rd, FAM_4 },
	{ "prl-default", { NULL }, 0, kw_prl, FAM_4 },
	{ "prl-nodefault", { NULL }, 0, kw_prl, FAM_4 },
	{ "address", { NULL }, 0, kw_address, FAM_ANY },
	{ "route", { NULL }, 0, kw_route, FAM_ANY },
	{ "mtu", { NULL }, SEEN_MTU, kw_mtu, FAM_ANY },
	{ "name", { NULL }, 0, kw_name, FAM_ANY },
	{ "help", { NULL }, 0, kw_help, FAM_ANY },
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

/* The mode's name in messages: `ip tunnel`'s for an IPv4 underlay, `ip -6 tunnel`'s for IPv6. */
static const char *mode_word(const struct sitd_conf *c)
{
	if (c->outer == SITD_OUTER_IPV6)
		return c->mode == SITD_MODE_IPIP ? "ipip6" : c->mode == SITD_MODE_SIT ? "ip6ip6" : "any";
	return c->mode == SITD_MODE_IPIP ? "ipip" : c->mode == SITD_MODE_SIT ? "sit" : "any";
}

/*
 * The underlay's family, into c->outer, and the mode when none is given.  `ip tunnel`
 * and `ip -6 tunnel` are two commands; here the words say which: the mode's name
 * (ip6ip6, ipip6 are IPv6's), else the addresses' family (mode any is either, as sit's
 * and ip6tnl's any), else IPv4.  Without a mode, as iproute2: the name's prefix sit or
 * ipip (iptunnel.c), else with an IPv6 address ip6ip6 (ip6_tnl_parm_init).
 */
static int cli_family(struct cli *p)
{
	struct sitd_conf *c = p->c;
	enum fam addr = p->remote_fam ? p->remote_fam : p->local_fam, fam;
	int addr_at = p->remote_fam ? p->remote_at : p->local_at;
	bool named = false;

	if (p->remote_fam && p->local_fam && p->remote_fam != p->local_fam) {
		*p->bad = p->local_at;
		return fail(p->err, p->errlen,
			    "invalid \"local\" address \"%s\": the remote is IPv%u, and both ends are of one family",
			    p->argv[p->local_at], p->remote_fam);
	}
	if (!(p->seen & SEEN_MODE)) {
		named = true;
		if (!strncmp(c->name, "sit", 3)) {
			c->mode = SITD_MODE_SIT, p->mode_fam = FAM_4;
		} else if (!strncmp(c->name, "ipip", 4)) {
			c->mode = SITD_MODE_IPIP, p->mode_fam = FAM_4;
		} else if (addr == FAM_6) {
			c->mode = SITD_MODE_SIT, p->mode_fam = FAM_6, named = false;
		} else {
			return fail(p->err, p->errlen,
				    "cannot determine tunnel mode: give \"mode sit\", \"mode ipip\" or \"mode any\"");
		}
	}
	fam = p->mode_fam ? p->mode_fam : addr ? addr : FAM_4;
	c->outer = fam == FAM_6 ? SITD_OUTER_IPV6 : SITD_OUTER_IPV4;
	if (addr && addr != fam) {
		*p->bad = addr_at;
		return fail(p->err, p->errlen, "invalid \"%s\" address \"%s\": mode %s%s%s%s takes IPv%u addresses",
			    p->argv[addr_at - 1], p->argv[addr_at], c->isatap ? "isatap" : mode_word(c),
			    named ? " (from the name \"" : "", named ? c->name : "", named ? "\")" : "", fam);
	}
	if (fam == FAM_6 && p->at4 >= 0) {
		*p->bad = p->at4;
		return fail(p->err, p->errlen, "\"%s\" is for an IPv4 underlay (sit, ipip), not for mode %s",
			    p->argv[p->at4], mode_word(c));
	}
	if (fam == FAM_4 && p->at6 >= 0) {
		*p->bad = p->at6;
		return fail(p->err, p->errlen,
			    "\"%s\" is for an IPv6 underlay (mode ip6ip6, ipip6, or any with IPv6 addresses)",
			    p->argv[p->at6]);
	}
	return 0;
}

static int cli_check_mtu(struct cli *p)
{
	const struct sitd_conf *c = p->c;

	*p->bad = -1;
	if (c->mtu && (c->mtu < sitd_mtu_min(c) || c->mtu > sitd_mtu_max(c)))
		return fail(p->err, p->errlen, "invalid \"mtu\" value %u: mode %s takes %u..%u", c->mtu,
			    mode_word(c), sitd_mtu_min(c), sitd_mtu_max(c));
	return 0;
}

/* An IPv6 underlay's whole line (ip6tnl): what this round of sitd carries, and its defaults. */
static int cli_check6(struct cli *p)
{
	struct sitd_conf *c = p->c;

	if (!(p->seen & SEEN_REMOTE))
		return fail(p->err, p->errlen, "missing \"remote ADDR\"");
	/*
	 * remote any (NBMA, ip6_tnl_xmit): each packet to its route's next hop, from `local`:
	 * the raw socket sends the source sitd writes, and no route toward :: gives one.
	 */
	if (p->remote_any >= 0 && ip6_addr_is_unspecified(c->local6)) {
		*p->bad = p->remote_any;
		return fail(p->err, p->errlen,
			    "\"remote any\" over an IPv6 underlay needs \"local ADDR\": the source of its packets");
	}
	/* As over IPv4 (sitd_cli_parse_at): next hops from routes, read in sitd's namespace only. */
	if (p->remote_any >= 0 && c->netns[0]) {
		*p->bad = p->remote_any;
		return fail(p->err, p->errlen, "\"netns\" with \"remote any\" is not supported yet");
	}
	/* ip6_tnl_get_cap: a link-local end is usable only on a given link. */
	if (!c->dev[0] && (addr6_is_linklocal(c->remote6) || addr6_is_linklocal(c->local6))) {
		*p->bad = addr6_is_linklocal(c->remote6) ? p->remote_at : p->local_at;
		return fail(p->err, p->errlen, "a link-local \"%s\" address (\"%s\") needs \"dev IFACE\"",
			    p->argv[*p->bad - 1], p->argv[*p->bad]);
	}
	/* fou6 / gue6 as for IPv4: a destination port, and the UDP checksum on unless refused. */
	if (c->encap != SITD_ENCAP_NONE && !c->encap_dport)
		return fail(p->err, p->errlen, "\"encap %s\" needs \"encap-dport PORT\"",
			    c->encap == SITD_ENCAP_FOU ? "fou" : "gue");
	if (c->encap == SITD_ENCAP_NONE && (p->seen & (SEEN_SPORT | SEEN_DPORT | SEEN_CSUM | SEEN_CSUM6)))
		return fail(p->err, p->errlen,
			    "encap-sport, encap-dport, encap-csum and encap-udp6-csum need \"encap fou\" or \"encap gue\"");
	if (!(p->seen & SEEN_CSUM6))
		c->encap_csum6 = c->encap != SITD_ENCAP_NONE;
	if (p->tos_slash) {
		*p->bad = p->tos_at;
		return fail(p->err, p->errlen,
			    "invalid \"%s\" value \"%s\": an IPv6 underlay takes 0x00..0xff or inherit",
			    p->argv[p->tos_at - 1], p->argv[p->tos_at]);
	}
	/*
	 * A fixed traffic class keeps its DSCP: the two ECN bits are the inner packet's (RFC
	 * 6040, ip6_tnl_xmit's INET_ECN_encapsulate), which leaves bit 0 to SITD_TOS_INHERIT.
	 */
	if (!p->tos_inherit)
		c->tos = (uint8_t)(p->tos_val & ~ECN_MASK);
	/* ip -6 tunnel's defaults (ip6_tnl_parm_init): hop limit 64, encapsulation limit 4. */
	if (!(p->seen & SEEN_TTL))
		c->ttl = SITD_HOPLIMIT_DEFAULT;
	if (!(p->seen & SEEN_ELIM))
		c->encap_limit = SITD_ENCAP_LIMIT_DEFAULT;
	return cli_check_mtu(p);
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
		.n6rd = 2, .rdw = { "dev" }, .remote_any = -1, .rd_at = -1, .remote_at = -1,
		.local_at = -1, .mode_at = -1, .at4 = -1, .at6 = -1, .encap_at = -1, .tos_at = -1,
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
		if (kw->only == FAM_4 && p->at4 < 0)
			p->at4 = p->i;
		if (kw->only == FAM_6 && p->at6 < 0)
			p->at6 = p->i;
		if (kw->parse(p, a) < 0)
			return -1;
	}
	*bad = -1;

	if (!c->name[0])
		return fail(err, errlen, "missing tunnel name");
	if (cli_family(p) < 0)
		return -1;
	if (cli_check_keepalive(p) < 0)
		return -1;
	if (c->outer == SITD_OUTER_IPV6)
		return cli_check6(p);
	/* ISATAP is NBMA: remote any, as `ip tunnel add NAME mode isatap` has it. */
	if (c->isatap && !(p->seen & SEEN_REMOTE)) {
		p->seen |= SEEN_REMOTE;
		p->remote_any = 0;
	}
	if (c->isatap && (p->remote_any < 0 || !c->local)) {
		*bad = -1;
		return fail(err, errlen, "mode isatap needs remote any and a local address (its interface identifier)");
	}
	/* Its router solicitations go out of a socket bound to the device, in sitd's namespace. */
	if (c->isatap && c->netns[0])
		return fail(err, errlen, "\"netns\" with mode isatap is not supported yet");
	if (c->nprl && !c->isatap)
		return fail(err, errlen, "a PRL (prl-default, prl-nodefault) is for mode isatap");
	if (!(p->seen & SEEN_REMOTE))
		return fail(err, errlen, "missing \"remote ADDR\"");
	/* Its routes' next hops come from route notifications, which sitd reads only in its own
	 * namespace (daemon/linkwatch.c; a netns tunnel's socket there has no route group,
	 * os/nl.c nl_netns_open). */
	if (p->remote_any >= 0 && c->netns[0]) {
		*bad = p->remote_any;
		return fail(err, errlen, "\"netns\" with \"remote any\" is not supported yet");
	}
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
	c->encap_csum6 = false;	/* no IPv6 outer header */
	return cli_check_mtu(p);
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
