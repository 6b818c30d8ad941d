/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the `ip tunnel` command-line grammar.
 *
 * The input, split on NUL bytes, is the argument vector (at most MAX_ARGS; a trailing
 * NUL ends the last argument rather than starting an empty one).
 *
 * On success: the configuration obeys the parser's own rules (a valid name, a unicast
 * remote, mtu within the mode's bounds, no ttl with nopmtudisc, a destination port for
 * fou/gue and no UDP settings without them; over IPv6 unicast IPv6 ends only, a fixed
 * remote, no encap, a 20-bit flow label, a traffic class without ECN bits), formats
 * within bounds as snprintf does, and survives a round trip through a canonical command
 * line built from it; an IPv6 underlay's formatted line parses back to the same bytes.  On failure: the error is a non-empty NUL-terminated line, and with a smaller
 * buffer it is the same message cut short.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/cli.h"
#include "core/conf.h"
#include "core/wire.h"
#include "fuzz.h"

enum { MAX_ARGS = 64, ERR_LEN = 512, FMT_LEN = 4096, PORT_LEN = 8 };

static bool valid_name(const char *s)
{
	size_t n = strnlen(s, SITD_IFNAMSIZ);

	if (n == 0 || n >= SITD_IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || *s == ' ' || (*s >= '\t' && *s <= '\r'))
			return false;
	return true;
}

static bool unicast(uint32_t a)
{
	return a != 0 && a != 0xffffffffu && !ip4_addr_is_multicast(a);
}

static void addr_str(uint32_t a, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

static bool conf_eq(const struct sitd_conf *a, const struct sitd_conf *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->dev, b->dev) && a->mode == b->mode &&
	       a->remote == b->remote && a->local == b->local && a->ttl == b->ttl &&
	       a->tos == b->tos && a->pmtudisc == b->pmtudisc && a->mtu == b->mtu &&
	       a->encap == b->encap && a->encap_sport == b->encap_sport &&
	       a->encap_dport == b->encap_dport && a->encap_csum == b->encap_csum &&
	       a->nogso == b->nogso && a->nogro == b->nogro && a->isatap == b->isatap &&
	       a->takeover == b->takeover &&
	       a->outer == b->outer && !memcmp(a->remote6, b->remote6, 16) &&
	       !memcmp(a->local6, b->local6, 16) && a->encap_limit == b->encap_limit &&
	       a->encap_limit_none == b->encap_limit_none && a->flowlabel == b->flowlabel &&
	       a->flowlabel_inherit == b->flowlabel_inherit && a->dscp_inherit == b->dscp_inherit &&
	       a->allow_localremote == b->allow_localremote && a->encap_csum6 == b->encap_csum6;
}

static bool unicast6(const uint8_t *a)
{
	static const uint8_t loopback[16] = { [15] = 1 }, mapped[12] = { [10] = 0xff, [11] = 0xff };

	return !ip6_addr_is_unspecified(a) && !ip6_addr_is_multicast(a) && memcmp(a, loopback, 16) &&
	       memcmp(a, mapped, 12);
}

/* *c's fou/gue words, the same over both underlays, put at argv[n]: the new n. */
static int encap_words(const struct sitd_conf *c, const char **argv, int n,
		       char sport[PORT_LEN], char dport[PORT_LEN])
{
	argv[n++] = "encap";
	argv[n++] = c->encap == SITD_ENCAP_FOU ? "fou" : "gue";
	snprintf(sport, PORT_LEN, "%u", c->encap_sport);
	argv[n++] = "encap-sport";
	argv[n++] = c->encap_sport ? sport : "auto";
	snprintf(dport, PORT_LEN, "%u", c->encap_dport);
	argv[n++] = "encap-dport";
	argv[n++] = dport;
	argv[n++] = c->encap_csum ? "encap-csum" : "noencap-csum";
	return n;
}

/* An IPv6 underlay's command line in ip -6 tunnel's words, every setting stated. */
static void round_trip6(const struct sitd_conf *c)
{
	char remote[INET6_ADDRSTRLEN], local[INET6_ADDRSTRLEN], ttl[8], tos[8], elim[8], fl[12],
	     mtu[8], err[ERR_LEN], sport[PORT_LEN], dport[PORT_LEN];
	const char *argv[48];
	struct sitd_conf d;
	int n = 0;

	CHECK(inet_ntop(AF_INET6, c->remote6, remote, sizeof(remote)) != NULL);
	CHECK(inet_ntop(AF_INET6, c->local6, local, sizeof(local)) != NULL);
	argv[n++] = "name";
	argv[n++] = c->name;
	argv[n++] = "mode";
	argv[n++] = c->mode == SITD_MODE_SIT ? "ip6ip6" : c->mode == SITD_MODE_IPIP ? "ip4ip6" : "any/ipv6";
	argv[n++] = "remote";
	argv[n++] = ip6_addr_is_unspecified(c->remote6) ? "any" : remote;
	argv[n++] = "local";
	argv[n++] = ip6_addr_is_unspecified(c->local6) ? "any" : local;
	if (c->encap != SITD_ENCAP_NONE) {
		n = encap_words(c, argv, n, sport, dport);
		argv[n++] = c->encap_csum6 ? "encap-udp6-csum" : "noencap-udp6-csum";
	}
	snprintf(ttl, sizeof(ttl), "%u", c->ttl);
	argv[n++] = "hlim";
	argv[n++] = ttl;
	snprintf(tos, sizeof(tos), "%x", c->tos);
	argv[n++] = "tc";
	argv[n++] = c->tos == SITD_TOS_INHERIT ? "inherit" : tos;
	snprintf(elim, sizeof(elim), "%u", c->encap_limit);
	argv[n++] = "encaplimit";
	argv[n++] = c->encap_limit_none ? "none" : elim;
	snprintf(fl, sizeof(fl), "%x", (unsigned)c->flowlabel);
	argv[n++] = "fl";
	argv[n++] = c->flowlabel_inherit ? "inherit" : fl;
	if (c->dscp_inherit) {
		argv[n++] = "dscp";
		argv[n++] = "inherit";
	}
	argv[n++] = c->allow_localremote ? "allow-localremote" : "noallow-localremote";
	if (c->dev[0]) {
		argv[n++] = "dev";
		argv[n++] = c->dev;
	}
	if (c->mtu) {
		snprintf(mtu, sizeof(mtu), "%u", c->mtu);
		argv[n++] = "mtu";
		argv[n++] = mtu;
	}
	if (c->nogso)
		argv[n++] = "nogso";
	if (c->nogro)
		argv[n++] = "nogro";
	if (c->takeover)
		argv[n++] = "takeover";
	CHECK(sitd_cli_parse(n, argv, &d, err, sizeof(err)) == 0);
	CHECK(conf_eq(&d, c));
}

/*
 * sitd_conf_format's line of an IPv6 underlay, back into words (cli.h): "name" before the
 * name, "mode" before the mode, the flowinfo left out; it must give the very same bytes.
 */
static void format_round_trip6(const struct sitd_conf *c, const char *line)
{
	static char copy[FMT_LEN];
	const char *argv[MAX_ARGS * 2];
	char err[ERR_LEN], *save = NULL;
	struct sitd_conf d;
	int n = 0, w = 0;

	strcpy(copy, line);
	for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save), w++) {
		CHECK(n + 2 < (int)(sizeof(argv) / sizeof(argv[0])));
		if (w == 0) {
			tok[strlen(tok) - 1] = '\0';
			argv[n++] = "name";
		} else if (w == 1) {
			argv[n++] = "mode";
		} else if (!strcmp(tok, "(flowinfo") && strcmp(argv[n - 1], "dev")) {
			CHECK(strtok_r(NULL, " ", &save) != NULL);
			continue;
		}
		argv[n++] = tok;
	}
	CHECK(sitd_cli_parse(n, argv, &d, err, sizeof(err)) == 0);
	CHECK(!memcmp(&d, c, sizeof(d)));
}

/* Build the command line that states *c explicitly, parse it, and compare. */
static void round_trip(const struct sitd_conf *c)
{
	char remote[16], local[16], ttl[8], tos[24], mtu[8], sport[PORT_LEN], dport[PORT_LEN],
	     err[ERR_LEN];
	const char *argv[32];
	struct sitd_conf d;
	int n = 0;

	addr_str(c->remote, remote, sizeof(remote));
	addr_str(c->local, local, sizeof(local));
	argv[n++] = "name";
	argv[n++] = c->name;
	argv[n++] = "mode";
	argv[n++] = c->isatap ? "isatap" : c->mode == SITD_MODE_SIT ? "sit" :
		    c->mode == SITD_MODE_IPIP ? "ipip" : "any";
	argv[n++] = "remote";
	argv[n++] = c->remote ? remote : "any";
	argv[n++] = "local";
	argv[n++] = c->local ? local : "any";
	argv[n++] = "ttl";
	if (c->ttl)
		snprintf(ttl, sizeof(ttl), "%u", c->ttl);
	argv[n++] = c->ttl ? ttl : "inherit";
	argv[n++] = "tos";
	if (c->tos & SITD_TOS_INHERIT)
		snprintf(tos, sizeof(tos), "inherit/%02x", c->tos & ~SITD_TOS_INHERIT);
	else
		snprintf(tos, sizeof(tos), "%02x", c->tos);
	argv[n++] = tos;
	argv[n++] = c->pmtudisc ? "pmtudisc" : "nopmtudisc";
	if (c->dev[0]) {
		argv[n++] = "dev";
		argv[n++] = c->dev;
	}
	if (c->mtu) {
		snprintf(mtu, sizeof(mtu), "%u", c->mtu);
		argv[n++] = "mtu";
		argv[n++] = mtu;
	}
	if (c->encap != SITD_ENCAP_NONE)
		n = encap_words(c, argv, n, sport, dport);
	if (c->nogso)
		argv[n++] = "nogso";
	if (c->nogro)
		argv[n++] = "nogro";
	if (c->takeover)
		argv[n++] = "takeover";
	CHECK(sitd_cli_parse(n, argv, &d, err, sizeof(err)) == 0);
	CHECK(conf_eq(&d, c));
}

/* An IPv4 underlay's rules (sit, ipip). */
static void check_ok4(const struct sitd_conf *c)
{
	/* The ip6tnl settings stay zero on an IPv4 underlay. */
	CHECK(ip6_addr_is_unspecified(c->remote6) && ip6_addr_is_unspecified(c->local6));
	CHECK(!c->encap_csum6);	/* [no]encap-udp6-csum means nothing without IPv6 outside */
	CHECK(!c->encap_limit && !c->encap_limit_none && !c->flowlabel && !c->flowlabel_inherit &&
	      !c->dscp_inherit && !c->allow_localremote);
	/* remote any: 6to4, 6rd, ISATAP, which carry IPv6 in plain protocol 41 only. */
	if (c->remote)
		CHECK(unicast(c->remote));
	else
		CHECK(c->mode == SITD_MODE_SIT && c->encap == SITD_ENCAP_NONE);
	CHECK(!c->isatap || (c->mode == SITD_MODE_SIT && !c->remote && c->local));
	CHECK(!c->nprl || c->isatap);
	CHECK(c->local == 0 || unicast(c->local));
	CHECK(c->mtu == 0 || (c->mtu >= sitd_mtu_min(c) && c->mtu <= sitd_mtu_max(c)));
	CHECK(sitd_mtu_max(c) + sitd_encap_len(c) <= IP_MAX_LEN);
	CHECK(c->encap == SITD_ENCAP_NONE || c->encap == SITD_ENCAP_FOU ||
	      c->encap == SITD_ENCAP_GUE);
	if (c->encap == SITD_ENCAP_NONE)	/* the UDP settings need a UDP encapsulation */
		CHECK(!c->encap_sport && !c->encap_dport && !c->encap_csum);
	else
		CHECK(c->encap_dport != 0);
	CHECK(!(c->ttl && !c->pmtudisc));
}

static void check_ok(const struct sitd_conf *c, size_t small)
{
	char buf[FMT_LEN], *tiny;
	size_t n, m;

	CHECK(valid_name(c->name));
	CHECK(strnlen(c->dev, SITD_IFNAMSIZ) < SITD_IFNAMSIZ);
	CHECK(!c->dev[0] || valid_name(c->dev));
	CHECK(c->mode == SITD_MODE_ANY || c->mode == SITD_MODE_SIT || c->mode == SITD_MODE_IPIP);
	CHECK(c->outer == SITD_OUTER_IPV4 || c->outer == SITD_OUTER_IPV6);
	CHECK(c->naddrs <= SITD_MAX_ADDRS && c->nroutes <= SITD_MAX_ROUTES && c->nprl <= SITD_PRL_MAX);
	for (unsigned i = 0; i < c->naddrs; i++)
		CHECK((c->addrs[i].family == 6 && c->addrs[i].len <= 128) ||
		      (c->addrs[i].family == 4 && c->addrs[i].len <= 32));
	if (c->outer == SITD_OUTER_IPV6) {
		/*
		 * ip6tnl: unicast IPv6 ends, remote any (NBMA) only with a local; no IPv4 words;
		 * fou6 with its destination port, the csum6 word only with encap.
		 */
		CHECK(!c->remote && !c->local);
		CHECK(unicast6(c->remote6) || (ip6_addr_is_unspecified(c->remote6) && unicast6(c->local6)));
		CHECK(ip6_addr_is_unspecified(c->local6) || unicast6(c->local6));
		if (c->encap == SITD_ENCAP_NONE)
			CHECK(!c->encap_sport && !c->encap_dport && !c->encap_csum && !c->encap_csum6);
		else
			CHECK(c->encap_dport != 0);
		CHECK(!c->isatap && !c->nprl && c->pmtudisc);
		CHECK(c->flowlabel <= 0xfffff && (!c->flowlabel_inherit || !c->flowlabel));
		CHECK(c->tos == SITD_TOS_INHERIT || !(c->tos & ECN_MASK));
		CHECK(!c->encap_limit_none || c->encap_limit == SITD_ENCAP_LIMIT_DEFAULT);
		CHECK(c->mtu == 0 || (c->mtu >= sitd_mtu_min(c) && c->mtu <= sitd_mtu_max(c)));
		CHECK(sitd_mtu_max(c) + sitd_encap_len(c) <= IP_MAX_LEN + IPV6_HDR_LEN);
		CHECK(sitd_mtu_min(c) == (c->mode == SITD_MODE_SIT ? IPV6_MIN_MTU : IPV4_MIN_MTU));
	} else {
		check_ok4(c);
	}

	n = sitd_conf_format(c, buf, sizeof(buf));
	CHECK(n > 0 && n < sizeof(buf) && strlen(buf) == n);
	CHECK(!strncmp(buf, c->name, strlen(c->name)) && buf[strlen(c->name)] == ':');
	CHECK(!strchr(buf, '\n'));

	/* A short buffer: a truncated copy, and its length (cli.h). */
	tiny = malloc(small);
	CHECK(tiny != NULL);
	m = sitd_conf_format(c, tiny, small);
	CHECK(m == (n < small ? n : small - 1));
	CHECK(strlen(tiny) == (n < small ? n : small - 1) && !strncmp(tiny, buf, strlen(tiny)));
	free(tiny);

	if (c->outer == SITD_OUTER_IPV6) {
		format_round_trip6(c, buf);
		round_trip6(c);
	} else {
		round_trip(c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[MAX_ARGS];
	char err[ERR_LEN], *buf, *small_err;
	struct sitd_conf c, c2;
	size_t small, k;
	int argc = 0, r;

	if (size > 4096)
		return -1;
	buf = malloc(size + 1);
	CHECK(buf != NULL);
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i < size && argc < MAX_ARGS;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	small = 1 + size % 24;

	memset(err, 0x55, sizeof(err));
	r = sitd_cli_parse(argc, argv, &c, err, sizeof(err));
	if (r == 0) {
		CHECK(err[0] == '\0');
		check_ok(&c, small);
	} else {
		CHECK(r == -1);
		k = strnlen(err, sizeof(err));
		CHECK(k > 0 && k < sizeof(err));
	}

	/* Again with a short error buffer: the same verdict, the same error cut short. */
	small_err = malloc(small);
	CHECK(small_err != NULL);
	memset(small_err, 0x55, small);
	CHECK(sitd_cli_parse(argc, argv, &c2, small_err, small) == r);
	k = strnlen(small_err, small);
	CHECK(k < small);
	if (r == 0)
		CHECK(k == 0 && conf_eq(&c, &c2));
	else
		CHECK(!strncmp(small_err, err, k) && (k == small - 1 || k == strlen(err)));
	free(small_err);
	free(buf);
	return 0;
}
