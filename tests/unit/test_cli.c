/* SPDX-License-Identifier: MIT */
/*
 * The command line in `ip tunnel` grammar (cli.h): what is accepted and the struct
 * sitd_conf it gives, what is refused and that the error names the offending argument,
 * and sitd_conf_format.  Keywords and aliases as iproute2 spells them
 * (iproute2's ip/iptunnel.c, ip/link_iptnl.c; ip-tunnel(8)), matched exactly.  Over an
 * IPv6 underlay, ip -6 tunnel's words and defaults (ip/ip6tunnel.c, ip/link_ip6tnl.c) and
 * the kernel's ip6tnl bounds (ip6_tnl_change_mtu), and the canonical line parsed back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "proto/cli.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define R "192.0.2.2"
#define R_N 0xc0000202u
#define L "198.51.100.1"
#define L_N 0xc6336401u
#define R6 "2001:db8::2"
#define L6 "2001:db8:1::1"

static int argc_of(const char *const *argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

/* ---- Accepted ---- */

struct want {
	const char *name;
	enum sitd_mode mode;
	uint32_t remote, local;
	uint8_t ttl, tos;
	bool pmtudisc;
	const char *dev;
	uint32_t mtu;
};

struct accept_case {
	const char *name;
	const char *argv[24];
	struct want want;
};

static struct accept_case accept_cases[] = {
	{ "accept: name starting with sit gives mode sit; defaults as ip tunnel add",
	  { "sit1", "remote", R, NULL }, { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: name starting with ipip gives mode ipip",
	  { "ipip0", "remote", R, NULL }, { "ipip0", SITD_MODE_IPIP, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: name NAME, mode sit, local",
	  { "name", "tun6", "mode", "sit", "remote", R, "local", L, NULL },
	  { "tun6", SITD_MODE_SIT, R_N, L_N, 0, 0, true, "", 0 } },
	{ "accept: mode ipv6/ip", { "t", "mode", "ipv6/ip", "remote", R, NULL },
	  { "t", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: mode ip6ip", { "t", "mode", "ip6ip", "remote", R, NULL },
	  { "t", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: mode ipip", { "t", "mode", "ipip", "remote", R, NULL },
	  { "t", SITD_MODE_IPIP, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: mode ip/ip", { "t", "mode", "ip/ip", "remote", R, NULL },
	  { "t", SITD_MODE_IPIP, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: mode any", { "t", "mode", "any", "remote", R, NULL },
	  { "t", SITD_MODE_ANY, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: an explicit mode any wins over a sit name", { "sit1", "mode", "any", "remote", R, NULL },
	  { "sit1", SITD_MODE_ANY, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: an explicit mode ipip wins over a sit name", { "sit1", "mode", "ipip", "remote", R, NULL },
	  { "sit1", SITD_MODE_IPIP, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: keywords before the name", { "remote", R, "mode", "sit", "tun0", NULL },
	  { "tun0", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: local any", { "sit1", "remote", R, "local", "any", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: ttl 64", { "sit1", "remote", R, "ttl", "64", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 64, 0, true, "", 0 } },
	{ "accept: hoplimit 255", { "sit1", "remote", R, "hoplimit", "255", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 255, 0, true, "", 0 } },
	{ "accept: hlim 1", { "sit1", "remote", R, "hlim", "1", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 1, 0, true, "", 0 } },
	{ "accept: ttl inherit", { "sit1", "remote", R, "ttl", "inherit", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: tos 20 (hex, as rtnl_dsfield_a2n)", { "sit1", "remote", R, "tos", "20", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0x20, true, "", 0 } },
	{ "accept: tos 0x28", { "sit1", "remote", R, "tos", "0x28", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0x28, true, "", 0 } },
	{ "accept: tclass b8", { "sit1", "remote", R, "tclass", "b8", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0xb8, true, "", 0 } },
	{ "accept: dsfield 10", { "sit1", "remote", R, "dsfield", "10", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0x10, true, "", 0 } },
	{ "accept: tos inherit", { "sit1", "remote", R, "tos", "inherit", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, SITD_TOS_INHERIT, true, "", 0 } },
	{ "accept: tos inherit/20 (inherit bit | 0x20)", { "sit1", "remote", R, "tos", "inherit/20", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0x21, true, "", 0 } },
	{ "accept: nopmtudisc (with ttl inherit)", { "sit1", "remote", R, "nopmtudisc", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, false, "", 0 } },
	{ "accept: pmtudisc", { "sit1", "remote", R, "pmtudisc", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: dev eth0", { "sit1", "remote", R, "dev", "eth0", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, true, "eth0", 0 } },
	{ "accept: mtu 1280, the sit minimum", { "sit1", "remote", R, "mtu", "1280", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 1280 } },
	{ "accept: mtu 65515 (65535 - 20), the sit maximum", { "sit1", "remote", R, "mtu", "65515", NULL },
	  { "sit1", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 65515 } },
	{ "accept: mtu 68, the ipip minimum", { "ipip1", "remote", R, "mtu", "68", NULL },
	  { "ipip1", SITD_MODE_IPIP, R_N, 0, 0, 0, true, "", 68 } },
	{ "accept: mtu 65515, the ipip maximum", { "ipip1", "remote", R, "mtu", "65515", NULL },
	  { "ipip1", SITD_MODE_IPIP, R_N, 0, 0, 0, true, "", 65515 } },
	{ "accept: a name of 15 bytes (IFNAMSIZ - 1)", { "sit456789abcdef", "remote", R, NULL },
	  { "sit456789abcdef", SITD_MODE_SIT, R_N, 0, 0, 0, true, "", 0 } },
	{ "accept: everything at once",
	  { "name", "sit6", "mode", "ip6ip", "remote", R, "local", L, "hoplimit", "200", "tclass",
	    "inherit/b8", "pmtudisc", "dev", "veth0", "mtu", "1400", NULL },
	  { "sit6", SITD_MODE_SIT, R_N, L_N, 200, 0xb9, true, "veth0", 1400 } },
};

static void test_cli_accept(void **state)
{
	const struct accept_case *c = *state;
	const struct want *w = &c->want;
	struct sitd_conf conf;
	char err[256] = "untouched";

	memset(&conf, 0xa5, sizeof(conf));
	assert_int_equal(sitd_cli_parse(argc_of(c->argv), c->argv, &conf, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_string_equal(conf.name, w->name);
	assert_int_equal(conf.mode, w->mode);
	assert_int_equal(conf.remote, w->remote);
	assert_int_equal(conf.local, w->local);
	assert_int_equal(conf.ttl, w->ttl);
	assert_int_equal(conf.tos, w->tos);
	assert_int_equal(conf.pmtudisc, w->pmtudisc);
	assert_string_equal(conf.dev, w->dev);
	assert_int_equal(conf.mtu, w->mtu);
}

/* ---- encap (ip-link(8) for sit/ipip, ip/link_iptnl.c; doc/kernel.md "FOU and GUE") ---- */

struct encap_want {
	enum sitd_mode mode;
	uint32_t mtu;
	enum sitd_encap encap;
	uint16_t sport, dport;
	bool csum;
};

struct encap_case {
	const char *name;
	const char *argv[24];
	struct encap_want want;
};

static struct encap_case encap_cases[] = {
	{ "accept: no encap keyword: encap none, no ports, no checksum",
	  { "sit1", "remote", R, NULL }, { SITD_MODE_SIT, 0, SITD_ENCAP_NONE, 0, 0, false } },
	{ "accept: encap fou encap-dport 5555: encap-sport auto and no checksum by default",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_FOU, 0, 5555, false } },
	{ "accept: encap gue, encap-sport 4000, encap-dport 6080, encap-csum",
	  { "ipip1", "remote", R, "encap", "gue", "encap-sport", "4000", "encap-dport", "6080",
	    "encap-csum", NULL },
	  { SITD_MODE_IPIP, 0, SITD_ENCAP_GUE, 4000, 6080, true } },
	{ "accept: encap-sport auto",
	  { "sit1", "remote", R, "encap", "gue", "encap-sport", "auto", "encap-dport", "5555", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_GUE, 0, 5555, false } },
	{ "accept: noencap-csum",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555", "noencap-csum", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_FOU, 0, 5555, false } },
	{ "accept: encap-sport 1 and encap-dport 65535, the bounds",
	  { "sit1", "remote", R, "encap", "fou", "encap-sport", "1", "encap-dport", "65535", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_FOU, 1, 65535, false } },
	{ "accept: encap-dport 0x15b3 (get_u16 with base 0)",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "0x15b3", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_FOU, 0, 5555, false } },
	{ "accept: encap none, the default, alone", { "sit1", "remote", R, "encap", "none", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_NONE, 0, 0, false } },
	{ "accept: encap-udp6-csum (only about an IPv6 outer header: no effect)",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555", "encap-udp6-csum", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_FOU, 0, 5555, false } },
	{ "accept: noencap-udp6-csum",
	  { "sit1", "remote", R, "encap", "gue", "encap-dport", "5555", "noencap-udp6-csum", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_GUE, 0, 5555, false } },
	{ "accept: noencap-remcsum",
	  { "sit1", "remote", R, "encap", "gue", "encap-dport", "5555", "noencap-remcsum", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_GUE, 0, 5555, false } },
	{ "accept: encap-dport and encap-csum before encap gue",
	  { "sit1", "encap-dport", "5555", "encap-csum", "remote", R, "encap", "gue", NULL },
	  { SITD_MODE_SIT, 0, SITD_ENCAP_GUE, 0, 5555, true } },
	{ "accept: mtu 65507 (65535 - 28) with encap fou",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555", "mtu", "65507", NULL },
	  { SITD_MODE_SIT, 65507, SITD_ENCAP_FOU, 0, 5555, false } },
	{ "accept: mtu 65503 (65535 - 32) with encap gue",
	  { "t", "mode", "any", "remote", R, "encap", "gue", "encap-dport", "5555", "mtu", "65503", NULL },
	  { SITD_MODE_ANY, 65503, SITD_ENCAP_GUE, 0, 5555, false } },
	{ "accept: mtu 68 on ipip with encap gue",
	  { "ipip1", "remote", R, "mtu", "68", "encap", "gue", "encap-dport", "5555", NULL },
	  { SITD_MODE_IPIP, 68, SITD_ENCAP_GUE, 0, 5555, false } },
};

static void test_cli_encap(void **state)
{
	const struct encap_case *c = *state;
	const struct encap_want *w = &c->want;
	struct sitd_conf conf;
	char err[256] = "untouched";

	memset(&conf, 0xa5, sizeof(conf));
	assert_int_equal(sitd_cli_parse(argc_of(c->argv), c->argv, &conf, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(conf.mode, w->mode);
	assert_int_equal(conf.remote, R_N);
	assert_int_equal(conf.mtu, w->mtu);
	assert_int_equal(conf.encap, w->encap);
	assert_int_equal(conf.encap_sport, w->sport);
	assert_int_equal(conf.encap_dport, w->dport);
	assert_int_equal(conf.encap_csum, w->csum);
	assert_true(conf.pmtudisc);
}

/* ---- Refused: the message must name the offending argument ---- */

struct reject_case {
	const char *name;
	const char *argv[20];
	const char *expect[2];	/* substrings of the error text */
};

static struct reject_case reject_cases[] = {
	{ "reject: unknown mode gre", { "tun0", "mode", "gre", "remote", R, NULL }, { "\"gre\"", "mode" } },
	{ "reject: mode isatap without a local address",
	  { "tun0", "mode", "isatap", NULL }, { "isatap", NULL } },
	{ "reject: \"rem\" is no prefix of remote", { "sit1", "rem", R, NULL }, { "\"rem\"", NULL } },
	{ "reject: \"pmtu\" is no prefix of pmtudisc",
	  { "sit1", "remote", R, "pmtu", NULL }, { "\"pmtu\"", NULL } },
	{ "reject: \"loc\" is no prefix of local",
	  { "sit1", "remote", R, "loc", L, NULL }, { "\"loc\"", NULL } },
	{ "reject: \"Remote\" is not remote", { "sit1", "Remote", R, NULL }, { "\"Remote\"", NULL } },
	{ "reject: remote without a value", { "sit1", "remote", NULL }, { "\"remote\"", NULL } },
	{ "reject: mode without a value", { "sit1", "remote", R, "mode", NULL }, { "\"mode\"", NULL } },
	{ "reject: ttl without a value", { "sit1", "remote", R, "ttl", NULL }, { "\"ttl\"", NULL } },
	{ "reject: tclass without a value", { "sit1", "remote", R, "tclass", NULL }, { "\"tclass\"", NULL } },
	{ "reject: dev without a value", { "sit1", "remote", R, "dev", NULL }, { "\"dev\"", NULL } },
	{ "reject: mtu without a value", { "sit1", "remote", R, "mtu", NULL }, { "\"mtu\"", NULL } },
	{ "reject: name without a value", { "remote", R, "name", NULL }, { "\"name\"", NULL } },
	{ "reject: remote 192.0.2 (three parts)",
	  { "sit1", "remote", "192.0.2", NULL }, { "\"192.0.2\"", "remote" } },
	{ "reject: remote 192.0.2.256",
	  { "sit1", "remote", "192.0.2.256", NULL }, { "\"192.0.2.256\"", NULL } },
	{ "reject: remote an IPv6 address",
	  { "sit1", "remote", "2001:db8::1", NULL }, { "\"2001:db8::1\"", NULL } },
	{ "reject: remote a host name",
	  { "sit1", "remote", "gw.example", NULL }, { "\"gw.example\"", NULL } },
	{ "reject: multicast remote 224.0.0.1",
	  { "sit1", "remote", "224.0.0.1", NULL }, { "\"224.0.0.1\"", "remote" } },
	{ "reject: multicast remote 239.1.2.3",
	  { "sit1", "remote", "239.1.2.3", NULL }, { "\"239.1.2.3\"", NULL } },
	{ "reject: broadcast remote",
	  { "sit1", "remote", "255.255.255.255", NULL }, { "\"255.255.255.255\"", NULL } },
	{ "reject: remote 0.0.0.0", { "sit1", "remote", "0.0.0.0", NULL }, { "\"0.0.0.0\"", NULL } },
	{ "reject: remote any for ipip (no next hop for IPv4 inside)",
	  { "ipip1", "remote", "any", NULL }, { "remote any", NULL } },
	{ "reject: multicast local",
	  { "sit1", "remote", R, "local", "224.0.0.1", NULL }, { "\"224.0.0.1\"", "local" } },
	{ "reject: ttl 256", { "sit1", "remote", R, "ttl", "256", NULL }, { "\"256\"", "ttl" } },
	{ "reject: ttl -1", { "sit1", "remote", R, "ttl", "-1", NULL }, { "\"-1\"", "ttl" } },
	{ "reject: ttl 1a", { "sit1", "remote", R, "ttl", "1a", NULL }, { "\"1a\"", NULL } },
	{ "reject: hlim 300 names the alias",
	  { "sit1", "remote", R, "hlim", "300", NULL }, { "\"300\"", "hlim" } },
	{ "reject: tos 0x100", { "sit1", "remote", R, "tos", "0x100", NULL }, { "\"0x100\"", "tos" } },
	{ "reject: tos 100 (hex: 0x100)", { "sit1", "remote", R, "tos", "100", NULL }, { "\"100\"", NULL } },
	{ "reject: tos inherit/ with nothing after",
	  { "sit1", "remote", R, "tos", "inherit/", NULL }, { "\"inherit/\"", NULL } },
	{ "reject: dsfield inherit/zz",
	  { "sit1", "remote", R, "dsfield", "inherit/zz", NULL }, { "\"inherit/zz\"", "dsfield" } },
	{ "reject: ttl 64 with nopmtudisc", { "sit1", "remote", R, "ttl", "64", "nopmtudisc", NULL },
	  { "ttl != 0 and nopmtudisc are incompatible", NULL } },
	{ "reject: nopmtudisc then hoplimit 1", { "sit1", "nopmtudisc", "remote", R, "hoplimit", "1", NULL },
	  { "ttl != 0 and nopmtudisc are incompatible", NULL } },
	{ "reject: mtu 1279 on sit", { "sit1", "remote", R, "mtu", "1279", NULL }, { "1279", "mtu" } },
	{ "reject: mtu 1279 on mode any (a sit device)",
	  { "t", "mode", "any", "remote", R, "mtu", "1279", NULL }, { "1279", "mtu" } },
	{ "reject: mtu 67 on ipip", { "ipip1", "remote", R, "mtu", "67", NULL }, { "67", "mtu" } },
	{ "reject: mtu 65516 on sit", { "sit1", "remote", R, "mtu", "65516", NULL }, { "65516", "mtu" } },
	{ "reject: mtu 65516 on ipip", { "ipip1", "remote", R, "mtu", "65516", NULL }, { "65516", "mtu" } },
	{ "reject: mtu 0", { "sit1", "remote", R, "mtu", "0", NULL }, { "\"0\"", "mtu" } },
	{ "reject: mtu 70000", { "sit1", "remote", R, "mtu", "70000", NULL }, { "70000", "mtu" } },
	{ "reject: mtu abc", { "sit1", "remote", R, "mtu", "abc", NULL }, { "\"abc\"", "mtu" } },
	{ "reject: name of 16 bytes",
	  { "sit456789abcdefg", "remote", R, NULL }, { "\"sit456789abcdefg\"", "name" } },
	{ "reject: name with '/' (dev_valid_name)",
	  { "name", "sit/1", "remote", R, NULL }, { "\"sit/1\"", "name" } },
	{ "reject: name with ':'", { "sit:1", "remote", R, NULL }, { "\"sit:1\"", NULL } },
	{ "reject: name \"..\"", { "name", "..", "mode", "sit", "remote", R, NULL }, { "\"..\"", NULL } },
	{ "reject: empty name", { "name", "", "mode", "sit", "remote", R, NULL }, { "\"\"", "name" } },
	{ "reject: dev with '/'", { "sit1", "remote", R, "dev", "eth/0", NULL }, { "\"eth/0\"", "dev" } },
	{ "reject: dev of 16 bytes",
	  { "sit1", "remote", R, "dev", "eth0123456789abc", NULL }, { "\"eth0123456789abc\"", "dev" } },
	{ "reject: missing name", { "mode", "sit", "remote", R, NULL }, { "name", NULL } },
	{ "reject: empty command line", { NULL }, { "name", NULL } },
	{ "reject: missing remote", { "sit1", NULL }, { "remote", NULL } },
	{ "reject: mode neither given nor implied by the name",
	  { "tun0", "remote", R, NULL }, { "mode", NULL } },
	{ "reject: \"ip6tnl0\" starts with neither sit nor ipip (iptunnel.c compares 4 bytes)",
	  { "ip6tnl0", "remote", R, NULL }, { "mode", NULL } },
	{ "reject: \"si1\" does not start with sit", { "si1", "remote", R, NULL }, { "mode", NULL } },
	{ "reject: remote given twice",
	  { "sit1", "remote", R, "remote", "192.0.2.3", NULL }, { "\"remote\"", "twice" } },
	{ "reject: local given twice",
	  { "sit1", "remote", R, "local", L, "local", "any", NULL }, { "\"local\"", "twice" } },
	{ "reject: mode given twice",
	  { "t", "mode", "sit", "remote", R, "mode", "ipip", NULL }, { "\"mode\"", "twice" } },
	{ "reject: ttl then its alias hlim",
	  { "sit1", "remote", R, "ttl", "1", "hlim", "2", NULL }, { "\"hlim\"", "twice" } },
	{ "reject: tos then its alias dsfield",
	  { "sit1", "remote", R, "tos", "1", "dsfield", "2", NULL }, { "\"dsfield\"", "twice" } },
	{ "reject: pmtudisc then nopmtudisc",
	  { "sit1", "remote", R, "pmtudisc", "nopmtudisc", NULL }, { "\"nopmtudisc\"", "twice" } },
	{ "reject: dev given twice",
	  { "sit1", "remote", R, "dev", "a", "dev", "b", NULL }, { "\"dev\"", "twice" } },
	{ "reject: mtu given twice",
	  { "sit1", "remote", R, "mtu", "1400", "mtu", "1500", NULL }, { "\"mtu\"", "twice" } },
	{ "reject: a second name", { "sit1", "remote", R, "sit2", NULL }, { "\"sit2\"", NULL } },
	{ "reject: name NAME twice",
	  { "name", "a", "name", "b", "mode", "sit", "remote", R, NULL }, { "\"b\"", NULL } },
	/* encap */
	{ "reject: encap gre", { "sit1", "remote", R, "encap", "gre", "encap-dport", "5555", NULL },
	  { "\"gre\"", "encap" } },
	{ "reject: encap FOU (matched exactly)",
	  { "sit1", "remote", R, "encap", "FOU", "encap-dport", "5555", NULL }, { "\"FOU\"", "encap" } },
	{ "reject: encap without a value", { "sit1", "remote", R, "encap", NULL }, { "\"encap\"", NULL } },
	{ "reject: encap fou without encap-dport (no default port)",
	  { "sit1", "remote", R, "encap", "fou", NULL }, { "encap-dport", "fou" } },
	{ "reject: encap gue with encap-sport but without encap-dport",
	  { "sit1", "remote", R, "encap", "gue", "encap-sport", "4000", NULL }, { "encap-dport", "gue" } },
	{ "reject: encap-dport without encap", { "sit1", "remote", R, "encap-dport", "5555", NULL },
	  { "encap-dport", "encap fou" } },
	{ "reject: encap-sport without encap", { "sit1", "remote", R, "encap-sport", "auto", NULL },
	  { "encap-sport", "encap fou" } },
	{ "reject: encap-csum without encap", { "sit1", "remote", R, "encap-csum", NULL },
	  { "encap-csum", "encap fou" } },
	{ "reject: encap none with encap-dport",
	  { "sit1", "remote", R, "encap", "none", "encap-dport", "5555", NULL }, { "encap-dport", NULL } },
	{ "reject: encap-dport 0",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "0", NULL }, { "\"0\"", "encap-dport" } },
	{ "reject: encap-dport 65536",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "65536", NULL },
	  { "\"65536\"", "encap-dport" } },
	{ "reject: encap-dport auto (only the source port may be auto)",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "auto", NULL },
	  { "\"auto\"", "encap-dport" } },
	{ "reject: encap-dport 5555x",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555x", NULL },
	  { "\"5555x\"", "encap-dport" } },
	{ "reject: encap-sport 70000",
	  { "sit1", "remote", R, "encap", "fou", "encap-sport", "70000", "encap-dport", "5555", NULL },
	  { "\"70000\"", "encap-sport" } },
	{ "reject: encap-sport -1",
	  { "sit1", "remote", R, "encap", "fou", "encap-sport", "-1", "encap-dport", "5555", NULL },
	  { "\"-1\"", "encap-sport" } },
	{ "reject: encap-dport without a value",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", NULL }, { "\"encap-dport\"", NULL } },
	{ "reject: encap-sport without a value",
	  { "sit1", "remote", R, "encap", "fou", "encap-sport", NULL }, { "\"encap-sport\"", NULL } },
	{ "reject: encap-remcsum (sitd sends GUE without options)",
	  { "sit1", "remote", R, "encap", "gue", "encap-dport", "5555", "encap-remcsum", NULL },
	  { "encap-remcsum", "not supported" } },
	{ "reject: encap given twice",
	  { "sit1", "remote", R, "encap", "fou", "encap", "gue", "encap-dport", "5555", NULL },
	  { "\"encap\"", "twice" } },
	{ "reject: encap-dport given twice",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555", "encap-dport", "5556", NULL },
	  { "\"encap-dport\"", "twice" } },
	{ "reject: encap-csum then noencap-csum",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "1", "encap-csum", "noencap-csum", NULL },
	  { "\"noencap-csum\"", "twice" } },
	{ "reject: mtu 65508 with encap fou (65535 - 28 = 65507)",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555", "mtu", "65508", NULL },
	  { "65508", "mtu" } },
	{ "reject: mtu 65504 with encap gue (65535 - 32 = 65503)",
	  { "sit1", "remote", R, "encap", "gue", "encap-dport", "5555", "mtu", "65504", NULL },
	  { "65504", "mtu" } },
	{ "reject: mtu 65508 given before encap fou",
	  { "ipip1", "mtu", "65508", "remote", R, "encap", "fou", "encap-dport", "5555", NULL },
	  { "65508", "mtu" } },
	{ "reject: \"encap-port\" is no keyword",
	  { "sit1", "remote", R, "encap", "fou", "encap-port", "5555", NULL }, { "\"encap-port\"", NULL } },
	/* An IPv6 underlay (ip6tnl) */
	{ "reject6: mode ip6ip6 with an IPv4 remote", { "t", "mode", "ip6ip6", "remote", R, NULL },
	  { "\"" R "\"", "IPv6" } },
	{ "reject6: mode ipip6 with an IPv4 local", { "t", "mode", "ipip6", "remote", R6, "local", L, NULL },
	  { "\"" L "\"", "family" } },
	{ "reject6: mode ip4ip6 with IPv4 addresses", { "t", "mode", "ip4ip6", "remote", R, NULL },
	  { "\"" R "\"", "ipip6" } },
	{ "reject6: mode sit with an IPv6 remote", { "t", "mode", "sit", "remote", R6, NULL },
	  { "\"" R6 "\"", "IPv4" } },
	{ "reject6: mode ipip with an IPv6 local", { "t", "mode", "ipip", "remote", R, "local", L6, NULL },
	  { "\"" L6 "\"", "family" } },
	{ "reject6: a sit name and an IPv6 remote: the name's mode", { "sit1", "remote", R6, NULL },
	  { "\"" R6 "\"", "from the name" } },
	{ "reject6: mode any, IPv4 remote, IPv6 local: families mixed",
	  { "t", "mode", "any", "remote", R, "local", L6, NULL }, { "\"" L6 "\"", "one family" } },
	{ "reject6: mode any, IPv6 remote, IPv4 local: families mixed",
	  { "t", "mode", "any", "remote", R6, "local", L, NULL }, { "\"" L "\"", "one family" } },
	{ "reject6: mode isatap with an IPv6 local", { "t", "mode", "isatap", "local", L6, NULL },
	  { "\"" L6 "\"", "isatap" } },
	{ "reject6: remote any over IPv6 without local", { "t", "mode", "ip6ip6", "remote", "any", NULL },
	  { "remote any", "needs \"local ADDR\"" } },
	{ "reject6: missing remote", { "t", "mode", "ip6ip6", "local", L6, NULL }, { "remote", NULL } },
	{ "reject6: remote ::", { "t", "mode", "ip6ip6", "remote", "::", NULL }, { "\"::\"", "remote" } },
	{ "reject6: remote ::1 (loopback, ip6_tnl_get_cap)", { "t", "mode", "ip6ip6", "remote", "::1", NULL },
	  { "\"::1\"", "unicast IPv6" } },
	{ "reject6: multicast remote ff02::1", { "t", "mode", "ip6ip6", "remote", "ff02::1", NULL },
	  { "\"ff02::1\"", "remote" } },
	{ "reject6: IPv4-mapped remote", { "t", "mode", "ip6ip6", "remote", "::ffff:192.0.2.1", NULL },
	  { "\"::ffff:192.0.2.1\"", NULL } },
	{ "reject6: multicast local", { "t", "mode", "ip6ip6", "remote", R6, "local", "ff05::2", NULL },
	  { "\"ff05::2\"", "local" } },
	{ "reject6: local ::1", { "t", "mode", "ip6ip6", "remote", R6, "local", "::1", NULL },
	  { "\"::1\"", "local" } },
	{ "reject6: remote 2001:db8::1::2", { "t", "mode", "ip6ip6", "remote", "2001:db8::1::2", NULL },
	  { "\"2001:db8::1::2\"", "remote" } },
	{ "reject6: a link-local remote without dev", { "t", "mode", "ip6ip6", "remote", "fe80::1", NULL },
	  { "\"fe80::1\"", "dev" } },
	{ "reject6: a link-local local without dev",
	  { "t", "mode", "ip6ip6", "remote", R6, "local", "fe80::2", NULL }, { "\"fe80::2\"", "dev" } },
	{ "reject6: unknown mode ip6gre", { "t", "mode", "ip6gre", "remote", R6, NULL }, { "\"ip6gre\"", "mode" } },
	{ "reject6: unknown mode vti6", { "t", "mode", "vti6", "remote", R6, NULL }, { "\"vti6\"", NULL } },
	{ "reject6: encaplimit 256", { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "256", NULL },
	  { "\"256\"", "encaplimit" } },
	{ "reject6: encaplimit -1", { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "-1", NULL },
	  { "\"-1\"", "encaplimit" } },
	{ "reject6: encaplimit four", { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "four", NULL },
	  { "\"four\"", "none or 0..255" } },
	{ "reject6: encaplimit without a value", { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", NULL },
	  { "\"encaplimit\"", "value" } },
	{ "reject6: encaplimit given twice",
	  { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "1", "encaplimit", "none", NULL },
	  { "\"encaplimit\"", "twice" } },
	{ "reject6: hoplimit 256", { "t", "mode", "ip6ip6", "remote", R6, "hoplimit", "256", NULL },
	  { "\"256\"", "hoplimit" } },
	{ "reject6: tclass 0x100", { "t", "mode", "ip6ip6", "remote", R6, "tclass", "0x100", NULL },
	  { "\"0x100\"", "tclass" } },
	{ "reject6: tclass inherit/20 (sit's only)",
	  { "t", "mode", "ip6ip6", "remote", R6, "tclass", "inherit/20", NULL },
	  { "\"inherit/20\"", "IPv6 underlay" } },
	{ "reject6: tc then tclass", { "t", "mode", "ip6ip6", "remote", R6, "tc", "1", "tclass", "2", NULL },
	  { "\"tclass\"", "twice" } },
	{ "reject6: flowlabel 0x100000 (21 bits)",
	  { "t", "mode", "ip6ip6", "remote", R6, "flowlabel", "0x100000", NULL }, { "\"0x100000\"", "flowlabel" } },
	{ "reject6: fl xyz names the alias", { "t", "mode", "ip6ip6", "remote", R6, "fl", "xyz", NULL },
	  { "\"xyz\"", "\"fl\"" } },
	{ "reject6: flowlabel then fl", { "t", "mode", "ip6ip6", "remote", R6, "flowlabel", "1", "fl", "2", NULL },
	  { "\"fl\"", "twice" } },
	{ "reject6: flowlabel without a value", { "t", "mode", "ip6ip6", "remote", R6, "flowlabel", NULL },
	  { "\"flowlabel\"", NULL } },
	{ "reject6: dscp 10 (only inherit)", { "t", "mode", "ip6ip6", "remote", R6, "dscp", "10", NULL },
	  { "\"10\"", "dscp" } },
	{ "reject6: dscp without a value", { "t", "mode", "ip6ip6", "remote", R6, "dscp", NULL },
	  { "\"dscp\"", NULL } },
	{ "reject6: allow-localremote then noallow-localremote",
	  { "t", "mode", "ip6ip6", "remote", R6, "allow-localremote", "noallow-localremote", NULL },
	  { "\"noallow-localremote\"", "twice" } },
	{ "reject6: pmtudisc (ip6tnl has none)", { "t", "mode", "ip6ip6", "remote", R6, "pmtudisc", NULL },
	  { "\"pmtudisc\"", "IPv4 underlay" } },
	{ "reject6: nopmtudisc", { "t", "mode", "ipip6", "remote", R6, "nopmtudisc", NULL },
	  { "\"nopmtudisc\"", "ipip6" } },
	{ "reject6: 6rd-prefix", { "t", "mode", "ip6ip6", "remote", R6, "6rd-prefix", "2001:db8::/32", NULL },
	  { "\"6rd-prefix\"", "IPv4 underlay" } },
	{ "reject6: 6rd-reset", { "t", "remote", R6, "6rd-reset", NULL }, { "\"6rd-reset\"", NULL } },
	{ "reject6: prl-default", { "t", "mode", "any", "remote", R6, "prl-default", R, NULL },
	  { "\"prl-default\"", "IPv4 underlay" } },
	{ "reject6: encap fou over IPv6 needs encap-dport",
	  { "t", "mode", "ip6ip6", "remote", R6, "encap", "fou", NULL },
	  { "encap fou", "encap-dport" } },
	{ "reject6: noencap-udp6-csum without encap",
	  { "t", "mode", "ipip6", "remote", R6, "noencap-udp6-csum", NULL },
	  { "encap-udp6-csum", "encap fou" } },
	{ "reject6: encap-remcsum over IPv6 too",
	  { "t", "mode", "ipip6", "remote", R6, "encap", "gue", "encap-dport", "1", "encap-remcsum", NULL },
	  { "encap-remcsum", "not supported" } },
	{ "reject6: encap-dport without encap", { "t", "mode", "ipip6", "remote", R6, "encap-dport", "5555", NULL },
	  { "encap-dport", "encap fou" } },
	{ "reject6: mtu 1279 on ip6ip6 (IPV6_MIN_MTU)", { "t", "mode", "ip6ip6", "remote", R6, "mtu", "1279", NULL },
	  { "1279", "1280..65527" } },
	{ "reject6: mtu 67 on ipip6 (ETH_MIN_MTU)", { "t", "mode", "ipip6", "remote", R6, "mtu", "67", NULL },
	  { "67", "68..65495" } },
	{ "reject6: mtu 67 on any over IPv6", { "t", "mode", "any", "remote", R6, "mtu", "67", NULL },
	  { "67", "mode any" } },
	{ "reject6: mtu 65528 on ip6ip6 (65535 of payload, the option in it)",
	  { "t", "mode", "ip6ip6", "remote", R6, "mtu", "65528", NULL }, { "65528", "mtu" } },
	{ "reject6: mtu 65496 on ipip6 (IP_MAX_MTU - 40)",
	  { "t", "mode", "ipip6", "remote", R6, "mtu", "65496", NULL }, { "65496", "mtu" } },
	/* The IPv6 words on an IPv4 underlay */
	{ "reject6: encaplimit on sit", { "sit1", "remote", R, "encaplimit", "4", NULL },
	  { "\"encaplimit\"", "IPv6 underlay" } },
	{ "reject6: flowlabel on ipip", { "ipip1", "remote", R, "flowlabel", "0x1", NULL },
	  { "\"flowlabel\"", "IPv6 underlay" } },
	{ "reject6: fl on mode any with IPv4 addresses", { "t", "mode", "any", "remote", R, "fl", "inherit", NULL },
	  { "\"fl\"", "IPv6 underlay" } },
	{ "reject6: dscp inherit on sit", { "sit1", "remote", R, "dscp", "inherit", NULL },
	  { "\"dscp\"", "IPv6 underlay" } },
	{ "reject6: allow-localremote on sit", { "sit1", "remote", R, "allow-localremote", NULL },
	  { "\"allow-localremote\"", "IPv6 underlay" } },
	{ "reject6: noallow-localremote on ipip", { "ipip1", "remote", R, "noallow-localremote", NULL },
	  { "\"noallow-localremote\"", "IPv6 underlay" } },
	{ "reject6: tc on sit (ip tunnel has no tc)", { "sit1", "remote", R, "tc", "10", NULL },
	  { "\"tc\"", "IPv6 underlay" } },
	{ "reject6: encaplimit on isatap", { "isatap0", "mode", "isatap", "local", L, "encaplimit", "1", NULL },
	  { "\"encaplimit\"", NULL } },
};

static void test_cli_reject(void **state)
{
	const struct reject_case *c = *state;
	struct sitd_conf conf;
	char err[256] = "";

	assert_int_equal(sitd_cli_parse(argc_of(c->argv), c->argv, &conf, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	assert_null(strchr(err, '\n'));		/* one line */
	for (size_t i = 0; i < ARRAY_SIZE(c->expect) && c->expect[i]; i++)
		if (!strstr(err, c->expect[i]))
			fail_msg("error \"%s\" does not mention %s", err, c->expect[i]);
}

/* The error text is cut to errlen, NUL included; errlen 0 writes nothing. */
static void test_cli_err_buffer(void **state)
{
	const char *const argv[] = { "sit1", "remote", "224.0.0.1" };
	struct sitd_conf conf;
	char err[16];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(sitd_cli_parse(3, argv, &conf, err, 8), -1);
	assert_int_equal(strlen(err), 7);
	for (size_t i = 8; i < sizeof(err); i++)
		assert_int_equal(err[i], 'x');
	memset(err, 'x', sizeof(err));
	assert_int_equal(sitd_cli_parse(3, argv, &conf, err, 0), -1);
	for (size_t i = 0; i < sizeof(err); i++)
		assert_int_equal(err[i], 'x');
}

/* ---- sitd_conf_format: as `ip tunnel show` prints a tunnel ---- */

struct format_case {
	const char *name;
	const char *argv[16];
	const char *want;
};

static struct format_case format_cases[] = {
	{ "format: sit with local", { "sit1", "mode", "sit", "remote", R, "local", L, NULL },
	  "sit1: ipv6/ip remote 192.0.2.2 local 198.51.100.1 ttl inherit" },
	{ "format: ipip with dev, ttl, tos inherit/20",
	  { "ipip1", "remote", R, "ttl", "64", "tos", "inherit/20", "dev", "eth0", NULL },
	  "ipip1: ip/ip remote 192.0.2.2 local any dev eth0 ttl 64 tos inherit/0x20" },
	{ "format: mode any, tos inherit, nopmtudisc",
	  { "t6", "mode", "any", "remote", R, "tos", "inherit", "nopmtudisc", NULL },
	  "t6: any/ip remote 192.0.2.2 local any ttl inherit tos inherit nopmtudisc" },
	{ "format: fixed tos", { "sit2", "remote", "203.0.113.7", "tos", "10", "hlim", "1", NULL },
	  "sit2: ipv6/ip remote 203.0.113.7 local any ttl 1 tos 0x10" },
	{ "format: encap fou, encap-sport auto",
	  { "sit1", "remote", R, "encap", "fou", "encap-dport", "5555", NULL },
	  "sit1: ipv6/ip remote 192.0.2.2 local any ttl inherit encap fou encap-sport auto encap-dport 5555" },
	{ "format: encap gue, encap-sport 4000, encap-csum, after nopmtudisc",
	  { "t", "mode", "any", "remote", R, "nopmtudisc", "encap", "gue", "encap-sport", "4000",
	    "encap-dport", "6080", "encap-csum", NULL },
	  "t: any/ip remote 192.0.2.2 local any ttl inherit nopmtudisc encap gue encap-sport 4000 "
	  "encap-dport 6080 encap-csum" },
	{ "format: takeover, sitd's own word, last, after nogso nogro",
	  { "sit1", "takeover", "remote", R, "nogro", "nogso", NULL },
	  "sit1: ipv6/ip remote 192.0.2.2 local any ttl inherit nogso nogro takeover" },
	{ "format: encap none, encap-udp6-csum and noencap-remcsum leave no trace",
	  { "ipip1", "remote", R, "encap", "none", "noencap-remcsum", "encap-udp6-csum", NULL },
	  "ipip1: ip/ip remote 192.0.2.2 local any ttl inherit" },
};

static void test_cli_format(void **state)
{
	const struct format_case *c = *state;
	struct sitd_conf conf;
	char err[256], out[256];

	assert_int_equal(sitd_cli_parse(argc_of(c->argv), c->argv, &conf, err, sizeof(err)), 0);
	assert_int_equal(sitd_conf_format(&conf, out, sizeof(out)), strlen(c->want));
	assert_string_equal(out, c->want);
}

/* A short buffer gets a NUL-terminated prefix and nothing past its end. */
static void test_cli_format_short(void **state)
{
	const char *const argv[] = { "sit1", "remote", R };
	struct sitd_conf conf;
	char err[256], out[32];

	(void)state;
	assert_int_equal(sitd_cli_parse(3, argv, &conf, err, sizeof(err)), 0);
	memset(out, 'x', sizeof(out));
	sitd_conf_format(&conf, out, 10);
	assert_string_equal(out, "sit1: ipv");
	for (size_t i = 10; i < sizeof(out); i++)
		assert_int_equal(out[i], 'x');
}

/* ---- An IPv6 underlay: ip -6 tunnel's words (ip/ip6tunnel.c) and defaults ---- */

struct want6 {
	enum sitd_mode mode;
	const char *remote, *local;	/* as inet_pton reads them; NULL: all zero (any) */
	uint8_t hoplimit, tclass, elim;
	bool elim_none;
	uint32_t flowlabel;
	bool fl_inherit, dscp_inherit, allow_lr;
	const char *dev;
	uint32_t mtu;
};

struct accept6_case {
	const char *name;
	const char *argv[24];
	struct want6 want;
};

/* mode, remote, local, hoplimit, tclass, encaplimit, none, flowlabel, inherit, dscp, alr, dev, mtu */
static struct accept6_case accept6_cases[] = {
	{ "accept6: mode ip6ip6: ip -6 tunnel add's defaults (hoplimit 64, encaplimit 4, tclass 0)",
	  { "t", "mode", "ip6ip6", "remote", R6, NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode ipv6/ipv6, local", { "t", "mode", "ipv6/ipv6", "remote", R6, "local", L6, NULL },
	  { SITD_MODE_SIT, R6, L6, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode ipip6", { "t", "mode", "ipip6", "remote", R6, NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode ip4ip6", { "t", "mode", "ip4ip6", "remote", R6, NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode ip/ipv6", { "t", "mode", "ip/ipv6", "remote", R6, NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode ipv4/ipv6", { "t", "mode", "ipv4/ipv6", "remote", R6, NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode any with an IPv6 remote: ip6tnl's any", { "t", "mode", "any", "remote", R6, NULL },
	  { SITD_MODE_ANY, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode any/ipv6", { "t", "mode", "any/ipv6", "remote", R6, "local", "any", NULL },
	  { SITD_MODE_ANY, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: no mode, a name neither sit nor ipip: ip6ip6 (ip6_tnl_parm_init)",
	  { "ip6tnl1", "remote", R6, NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: the family from local when remote comes later", { "t", "local", L6, "mode", "any", "remote", R6, NULL },
	  { SITD_MODE_ANY, R6, L6, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: encaplimit 0", { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "0", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 0, false, 0, false, false, false, "", 0 } },
	{ "accept6: encaplimit 255", { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "255", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 255, false, 0, false, false, false, "", 0 } },
	{ "accept6: encaplimit 0x10 (get_u8 with base 0)", { "t", "mode", "ipip6", "remote", R6, "encaplimit", "0x10", NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 16, false, 0, false, false, false, "", 0 } },
	{ "accept6: encaplimit none (IP6_TNL_F_IGN_ENCAP_LIMIT)",
	  { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "none", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, true, 0, false, false, false, "", 0 } },
	{ "accept6: hoplimit 1", { "t", "mode", "ip6ip6", "remote", R6, "hoplimit", "1", NULL },
	  { SITD_MODE_SIT, R6, NULL, 1, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: ttl 255", { "t", "mode", "ip6ip6", "remote", R6, "ttl", "255", NULL },
	  { SITD_MODE_SIT, R6, NULL, 255, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: hlim inherit", { "t", "mode", "ip6ip6", "remote", R6, "hlim", "inherit", NULL },
	  { SITD_MODE_SIT, R6, NULL, 0, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: hoplimit 0 is inherit (ip6_tnl_xmit)", { "t", "mode", "ip6ip6", "remote", R6, "hoplimit", "0", NULL },
	  { SITD_MODE_SIT, R6, NULL, 0, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: tclass 0xb8", { "t", "mode", "ip6ip6", "remote", R6, "tclass", "0xb8", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0xb8, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: tclass b9: the ECN bits are the inner packet's (RFC 6040), the DSCP kept",
	  { "t", "mode", "ip6ip6", "remote", R6, "tclass", "b9", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0xb8, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: tclass 0x01 is not inherit", { "t", "mode", "ip6ip6", "remote", R6, "tclass", "0x01", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: tclass inherit", { "t", "mode", "ip6ip6", "remote", R6, "tclass", "inherit", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, SITD_TOS_INHERIT, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: tos 28", { "t", "mode", "ipip6", "remote", R6, "tos", "28", NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0x28, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: tc inherit", { "t", "mode", "ipip6", "remote", R6, "tc", "inherit", NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, SITD_TOS_INHERIT, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: dsfield 10", { "t", "mode", "ip6ip6", "remote", R6, "dsfield", "10", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0x10, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: flowlabel 0xfffff (20 bits)", { "t", "mode", "ip6ip6", "remote", R6, "flowlabel", "0xfffff", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0xfffff, false, false, false, "", 0 } },
	{ "accept6: fl 12345 (hex)", { "t", "mode", "ip6ip6", "remote", R6, "fl", "12345", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0x12345, false, false, false, "", 0 } },
	{ "accept6: flowlabel inherit", { "t", "mode", "ip6ip6", "remote", R6, "flowlabel", "inherit", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, true, false, false, "", 0 } },
	{ "accept6: dscp inherit", { "t", "mode", "ipip6", "remote", R6, "dscp", "inherit", NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 4, false, 0, false, true, false, "", 0 } },
	{ "accept6: allow-localremote", { "t", "mode", "ip6ip6", "remote", R6, "allow-localremote", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, false, false, true, "", 0 } },
	{ "accept6: noallow-localremote, the default", { "t", "mode", "ip6ip6", "remote", R6, "noallow-localremote", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: a link-local remote with dev", { "t", "mode", "ip6ip6", "remote", "fe80::1", "dev", "eth0", NULL },
	  { SITD_MODE_SIT, "fe80::1", NULL, 64, 0, 4, false, 0, false, false, false, "eth0", 0 } },
	{ "accept6: mtu 1280, the ip6ip6 minimum", { "t", "mode", "ip6ip6", "remote", R6, "mtu", "1280", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 1280 } },
	{ "accept6: mtu 65527, the ip6ip6 maximum (65535 - 8)", { "t", "mode", "ip6ip6", "remote", R6, "mtu", "65527", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 65527 } },
	{ "accept6: mtu 65535 on ip6ip6 with encaplimit none",
	  { "t", "mode", "ip6ip6", "remote", R6, "encaplimit", "none", "mtu", "65535", NULL },
	  { SITD_MODE_SIT, R6, NULL, 64, 0, 4, true, 0, false, false, false, "", 65535 } },
	{ "accept6: mtu 68, the ipip6 minimum (ETH_MIN_MTU)", { "t", "mode", "ipip6", "remote", R6, "mtu", "68", NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 68 } },
	{ "accept6: mtu 65495, the ipip6 maximum", { "t", "mode", "ipip6", "remote", R6, "mtu", "65495", NULL },
	  { SITD_MODE_IPIP, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 65495 } },
	{ "accept6: mtu 68 on any (ip6_tnl_change_mtu)", { "t", "mode", "any", "remote", R6, "mtu", "68", NULL },
	  { SITD_MODE_ANY, R6, NULL, 64, 0, 4, false, 0, false, false, false, "", 68 } },
	{ "accept6: remote any with a local: NBMA (ip6_tnl_xmit's next hop per packet)",
	  { "t", "mode", "ip6ip6", "remote", "any", "local", L6, NULL },
	  { SITD_MODE_SIT, "::", L6, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: mode any, remote any, an IPv6 local",
	  { "t", "mode", "any", "remote", "any", "local", L6, NULL },
	  { SITD_MODE_ANY, "::", L6, 64, 0, 4, false, 0, false, false, false, "", 0 } },
	{ "accept6: everything at once",
	  { "name", "b4", "mode", "ipip6", "remote", R6, "local", L6, "dev", "eth0", "encaplimit", "none",
	    "hoplimit", "200", "tclass", "0x2e", "flowlabel", "0xabcde", "dscp", "inherit",
	    "allow-localremote", "mtu", "1460", NULL },
	  { SITD_MODE_IPIP, R6, L6, 200, 0x2c, 4, true, 0xabcde, false, true, true, "eth0", 1460 } },
};

static void test_cli_accept6(void **state)
{
	const struct accept6_case *c = *state;
	const struct want6 *w = &c->want;
	uint8_t r[16] = { 0 }, l[16] = { 0 };
	struct sitd_conf conf;
	char err[256] = "untouched";

	memset(&conf, 0xa5, sizeof(conf));
	if (sitd_cli_parse(argc_of(c->argv), c->argv, &conf, err, sizeof(err)))
		fail_msg("refused: %s", err);
	assert_string_equal(err, "");
	assert_int_equal(conf.outer, SITD_OUTER_IPV6);
	assert_int_equal(conf.mode, w->mode);
	assert_int_equal(inet_pton(AF_INET6, w->remote, r), 1);
	if (w->local)
		assert_int_equal(inet_pton(AF_INET6, w->local, l), 1);
	assert_memory_equal(conf.remote6, r, 16);
	assert_memory_equal(conf.local6, l, 16);
	assert_int_equal(conf.remote, 0);	/* the IPv4 ends stay zero */
	assert_int_equal(conf.local, 0);
	assert_int_equal(sitd_conf_has_remote(&conf), strcmp(w->remote, "::") != 0);
	assert_int_equal(conf.ttl, w->hoplimit);
	assert_int_equal(conf.tos, w->tclass);
	assert_int_equal(conf.encap_limit, w->elim);
	assert_int_equal(conf.encap_limit_none, w->elim_none);
	assert_int_equal(conf.flowlabel, w->flowlabel);
	assert_int_equal(conf.flowlabel_inherit, w->fl_inherit);
	assert_int_equal(conf.dscp_inherit, w->dscp_inherit);
	assert_int_equal(conf.allow_localremote, w->allow_lr);
	assert_string_equal(conf.dev, w->dev);
	assert_int_equal(conf.mtu, w->mtu);
	assert_int_equal(conf.encap, SITD_ENCAP_NONE);
	assert_false(conf.isatap);
}

/* An IPv4 line leaves the IPv6 fields zero: the same bytes as before ip6tnl. */
static void test_cli_ipv4_unchanged(void **state)
{
	static const uint8_t zero[16];
	const char *const argv[] = { "t", "mode", "any", "remote", R, "local", L, "ttl", "9", NULL };
	struct sitd_conf c;
	char err[256];

	(void)state;
	assert_int_equal(sitd_cli_parse(argc_of(argv), argv, &c, err, sizeof(err)), 0);
	assert_int_equal(c.outer, SITD_OUTER_IPV4);
	assert_memory_equal(c.remote6, zero, 16);
	assert_memory_equal(c.local6, zero, 16);
	assert_int_equal(c.encap_limit, 0);
	assert_false(c.encap_limit_none || c.flowlabel_inherit || c.dscp_inherit || c.allow_localremote);
	assert_int_equal(c.flowlabel, 0);
}

/* ---- The canonical line parsed back (cli.h) ---- */

struct format6_case {
	const char *name;
	const char *argv[28];
	const char *want;
};

static struct format6_case format6_cases[] = {
	{ "format6: fou6 with encap-udp6-csum, link_ip6tnl.c's default",
	  { "f6", "mode", "ip6ip6", "remote", R6, "encap", "fou", "encap-dport", "5555", "encap-sport", "5555", NULL },
	  "f6: ipv6/ipv6 remote 2001:db8::2 local any encaplimit 4 hoplimit 64 tclass 0x00 "
	  "flowlabel 0x00000 (flowinfo 0x00000000) encap fou encap-sport 5555 encap-dport 5555 "
	  "encap-udp6-csum" },
	{ "format6: gue6 without the UDP checksum, sport auto",
	  { "g6", "mode", "ipip6", "remote", R6, "encap", "gue", "encap-dport", "6080", "noencap-udp6-csum",
	    "encaplimit", "none", NULL },
	  "g6: ip/ipv6 remote 2001:db8::2 local any encaplimit none hoplimit 64 tclass 0x00 "
	  "flowlabel 0x00000 (flowinfo 0x00000000) encap gue encap-sport auto encap-dport 6080 "
	  "noencap-udp6-csum" },
	{ "format6: ip6ip6 with the defaults, as ip -6 tunnel show prints them",
	  { "t0", "mode", "ip6ip6", "remote", R6, "local", L6, NULL },
	  "t0: ipv6/ipv6 remote 2001:db8::2 local 2001:db8:1::1 encaplimit 4 hoplimit 64 tclass 0x00 "
	  "flowlabel 0x00000 (flowinfo 0x00000000)" },
	{ "format6: ipip6, encaplimit none, hoplimit inherit, fixed tclass and flowlabel, dev",
	  { "b4", "mode", "ipip6", "remote", R6, "dev", "eth0", "encaplimit", "none", "hlim", "inherit",
	    "tclass", "0xb8", "flowlabel", "0x12345", NULL },
	  "b4: ip/ipv6 remote 2001:db8::2 local any dev eth0 encaplimit none hoplimit inherit tclass 0xb8 "
	  "flowlabel 0x12345 (flowinfo 0x0b812345)" },
	{ "format6: any, tclass and flowlabel inherit, dscp inherit, allow-localremote, mtu, nogso",
	  { "t", "mode", "any", "remote", R6, "tc", "inherit", "fl", "inherit", "dscp", "inherit",
	    "allow-localremote", "encaplimit", "0", "hoplimit", "1", "mtu", "1400", "nogso", "nogro", NULL },
	  "t: any/ipv6 remote 2001:db8::2 local any encaplimit 0 hoplimit 1 tclass inherit flowlabel inherit "
	  "(flowinfo 0x00000000) dscp inherit allow-localremote mtu 1400 nogso nogro" },
	{ "format6: takeover on an IPv6 underlay too",
	  { "t0", "mode", "ip6ip6", "remote", R6, "local", L6, "takeover", NULL },
	  "t0: ipv6/ipv6 remote 2001:db8::2 local 2001:db8:1::1 encaplimit 4 hoplimit 64 tclass 0x00 "
	  "flowlabel 0x00000 (flowinfo 0x00000000) takeover" },
	{ "format6: address and route words",
	  { "t", "mode", "ip6ip6", "remote", R6, "address", "2001:db8:64::1/64", "address", "198.51.100.1/24",
	    "route", "2001:db8:99::/48", "via", "2001:db8:64::2", "metric", "5", "table", "100", NULL },
	  "t: ipv6/ipv6 remote 2001:db8::2 local any encaplimit 4 hoplimit 64 tclass 0x00 flowlabel 0x00000 "
	  "(flowinfo 0x00000000) address 2001:db8:64::1/64 address 198.51.100.1/24 route 2001:db8:99::/48 "
	  "via 2001:db8:64::2 metric 5 table 100" },
};

/*
 * The line's words back into an argument vector: "name" before the name (its ':' cut),
 * "mode" before the mode, the flowinfo (tclass and flowlabel summed) left out.
 */
static int canonical_argv(char *line, const char **argv, int max)
{
	int n = 0, w = 0;

	for (char *tok = strtok(line, " "); tok && n + 2 < max; tok = strtok(NULL, " "), w++) {
		if (w == 0) {
			tok[strlen(tok) - 1] = '\0';
			argv[n++] = "name";
		} else if (w == 1) {
			argv[n++] = "mode";
		} else if (!strcmp(tok, "(flowinfo")) {
			tok = strtok(NULL, " ");
			continue;
		}
		argv[n++] = tok;
	}
	return n;
}

static void test_cli_format6(void **state)
{
	const struct format6_case *c = *state;
	struct sitd_conf conf, again;
	char err[256], out[512];
	const char *argv[64];
	int n;

	if (sitd_cli_parse(argc_of(c->argv), c->argv, &conf, err, sizeof(err)))
		fail_msg("refused: %s", err);
	assert_int_equal(sitd_conf_format(&conf, out, sizeof(out)), strlen(c->want));
	assert_string_equal(out, c->want);
	n = canonical_argv(out, argv, 64);
	if (sitd_cli_parse(n, argv, &again, err, sizeof(err)))
		fail_msg("the canonical line is refused: %s", err);
	assert_memory_equal(&again, &conf, sizeof(conf));
}

/* Every accepted IPv6 line of this file gives back the same configuration. */
static void test_cli_round_trip6(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(accept6_cases); i++) {
		const struct accept6_case *c = &accept6_cases[i];
		struct sitd_conf conf, again;
		char err[256], out[512];
		const char *argv[64];
		int n;

		assert_int_equal(sitd_cli_parse(argc_of(c->argv), c->argv, &conf, err, sizeof(err)), 0);
		sitd_conf_format(&conf, out, sizeof(out));
		n = canonical_argv(out, argv, 64);
		if (sitd_cli_parse(n, argv, &again, err, sizeof(err)))
			fail_msg("%s: the canonical line is refused: %s", c->name, err);
		if (memcmp(&again, &conf, sizeof(conf)))
			fail_msg("%s: not the same configuration", c->name);
	}
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = &(arr)[i] }

static int parse_line(const char *const *argv, struct sitd_conf *c, char *err, size_t errlen)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return sitd_cli_parse(argc, argv, c, err, errlen);
}

/* `address` and `route` (wg-quick's Address=, ip-route(8)'s words after the prefix). */
static void test_cli_addresses_routes(void **state)
{
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x64, [15] = 1 };
	static const uint8_t r6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x99 };
	static const uint8_t via[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x64, [15] = 2 };
	const char *argv[] = { "sit1", "remote", "192.0.2.2", "address", "2001:db8:64::1/64",
			       "address", "198.51.100.1", "route", "2001:db8:99::1/48", "via",
			       "2001:db8:64::2", "metric", "10", "table", "1000", "route",
			       "203.0.113.0/24", "ttl", "64", NULL };
	struct sitd_conf c;
	char err[256];

	(void)state;
	assert_int_equal(parse_line(argv, &c, err, sizeof(err)), 0);
	assert_int_equal(c.naddrs, 2);
	assert_int_equal(c.addrs[0].family, 6);
	assert_int_equal(c.addrs[0].len, 64);
	assert_memory_equal(c.addrs[0].addr, a6, 16);
	assert_int_equal(c.addrs[1].family, 4);
	assert_int_equal(c.addrs[1].len, 32);	/* no length: one host */
	assert_int_equal(c.nroutes, 2);
	assert_memory_equal(c.routes[0].dst.addr, r6, 16);	/* host bits cleared, as IPv6 does */
	assert_int_equal(c.routes[0].dst.len, 48);
	assert_memory_equal(c.routes[0].via, via, 16);
	assert_int_equal(c.routes[0].metric, 10);
	assert_int_equal(c.routes[0].table, 1000);
	assert_int_equal(c.routes[1].dst.family, 4);
	assert_int_equal(c.routes[1].metric, 0);
	assert_int_equal(c.ttl, 64);	/* the route's words end where a tunnel's begin */
}

/* remote any with the 6rd words: 6to4's default, or the given prefixes (sixrd.h). */
static void test_cli_remote_any(void **state)
{
	static const uint8_t p6to4[16] = { 0x20, 0x02 }, p6rd[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	const char *to4[] = { "tun6to4", "mode", "sit", "remote", "any", "local", "192.0.2.1", NULL };
	const char *rd[] = { "6rd", "mode", "sit", "remote", "any", "local", "192.0.2.1",
			     "6rd-prefix", "2001:db8::/32", "6rd-relay_prefix", "192.0.2.0/24", NULL };
	const char *bad[] = { "6rd", "mode", "sit", "remote", "any", "6rd-prefix", "2001:db8::1/32", NULL };
	const char *fou[] = { "6rd", "mode", "sit", "remote", "any", "encap", "fou", "encap-dport", "5555",
			      NULL };
	struct sitd_conf c;
	char err[256];

	(void)state;
	assert_int_equal(parse_line(to4, &c, err, sizeof(err)), 0);
	assert_int_equal(c.remote, 0);
	assert_memory_equal(c.rd.prefix, p6to4, 16);
	assert_int_equal(c.rd.prefixlen, 16);
	assert_int_equal(c.rd.relay_prefixlen, 0);
	assert_int_equal(parse_line(rd, &c, err, sizeof(err)), 0);
	assert_memory_equal(c.rd.prefix, p6rd, 16);
	assert_int_equal(c.rd.prefixlen, 32);
	assert_int_equal(c.rd.relay_prefix, 0xc0000200u);
	assert_int_equal(c.rd.relay_prefixlen, 24);
	/* The kernel's rule: a prefix with stray bits is refused, not masked. */
	assert_int_equal(parse_line(bad, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "6rd"));
	assert_int_equal(parse_line(fou, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "remote any"));
}

/* mode isatap: remote any implied, a local address needed, the PRL words. */
static void test_cli_isatap(void **state)
{
	const char *ok[] = { "isatap0", "mode", "isatap", "local", "192.0.2.1", "prl-default",
			     "192.0.2.254", "prl-nodefault", "192.0.2.253", NULL };
	const char *twice[] = { "isatap0", "mode", "isatap", "local", "192.0.2.1", "prl-default",
				"192.0.2.254", "prl-nodefault", "192.0.2.254", NULL };
	const char *nolocal[] = { "isatap0", "mode", "isatap", NULL };
	const char *notisatap[] = { "sit1", "remote", "192.0.2.2", "prl-default", "192.0.2.254", NULL };
	struct sitd_conf c;
	char err[256];

	(void)state;
	assert_int_equal(parse_line(ok, &c, err, sizeof(err)), 0);
	assert_true(c.isatap);
	assert_int_equal(c.mode, SITD_MODE_SIT);
	assert_int_equal(c.remote, 0);
	assert_int_equal(c.nprl, 2);
	assert_int_equal(c.prl[0].addr, 0xc00002feu);
	assert_int_equal(c.prl[0].flags, SITD_PRL_DEFAULT);
	assert_int_equal(c.prl[1].flags, 0);
	assert_int_equal(parse_line(twice, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "twice"));
	assert_int_equal(parse_line(nolocal, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "local"));
	assert_int_equal(parse_line(notisatap, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "isatap"));
}

static void test_cli_addresses_routes_refused(void **state)
{
	static const struct {
		const char *argv[24];
		const char *err;
	} bad[] = {
		{ { "sit1", "remote", "192.0.2.2", "address", "2001:db8::1/129", NULL },
		  "invalid \"address\" \"2001:db8::1/129\": expected ADDR[/LEN], IPv6 or IPv4" },
		{ { "sit1", "remote", "192.0.2.2", "address", "/64", NULL },
		  "invalid \"address\" \"/64\": expected ADDR[/LEN], IPv6 or IPv4" },
		{ { "sit1", "remote", "192.0.2.2", "address", NULL }, "\"address\" needs a value" },
		{ { "sit1", "remote", "192.0.2.2", "route", "203.0.113.1/24", NULL },
		  "invalid \"route\" \"203.0.113.1/24\": host bits set for the prefix length" },
		{ { "sit1", "remote", "192.0.2.2", "route", "::/0", "via", "192.0.2.1", NULL },
		  "invalid \"via\" \"192.0.2.1\": expected an IPv6 address like the route's" },
		{ { "sit1", "remote", "192.0.2.2", "route", "::/0", "metric", "ten", NULL },
		  "invalid \"metric\" value \"ten\"" },
		{ { "sit1", "remote", "192.0.2.2", "route", "::/0", "table", NULL },
		  "\"table\" needs a value" },
		{ { "sit1", "remote", "192.0.2.2", "address", "::1", "address", "::2", "address", "::3",
		    "address", "::4", "address", "::5", "address", "::6", "address", "::7", "address",
		    "::8", "address", "::9", NULL },
		  "more than 8 \"address\"" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct sitd_conf c;
		char err[256];

		assert_int_equal(parse_line(bad[i].argv, &c, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
	}
}

/*
 * takeover (conf.h): off unless given, on wherever it stands, again is no error (as nogso),
 * and sitd_conf_format's line gives the same configuration back, byte for byte.
 */
static void test_cli_takeover(void **state)
{
	static const char *const plain[] = { "sit1", "remote", R, "local", L, NULL },
			  *const first[] = { "takeover", "sit1", "remote", R, "local", L, NULL },
			  *const twice[] = { "sit1", "remote", R, "takeover", "local", L, "takeover", NULL },
			  *const isatap[] = { "isatap0", "mode", "isatap", "local", L, "takeover", NULL };
	const char *const *const on[] = { first, twice, isatap };
	struct sitd_conf c, back;
	char err[256], line[512], *words[64], *save;
	const char *argv[64];
	int n;

	(void)state;
	assert_int_equal(sitd_cli_parse(argc_of(plain), plain, &c, err, sizeof(err)), 0);
	assert_false(c.takeover);
	sitd_conf_format(&c, line, sizeof(line));
	assert_null(strstr(line, "takeover"));
	for (size_t i = 0; i < ARRAY_SIZE(on); i++) {
		assert_int_equal(sitd_cli_parse(argc_of(on[i]), on[i], &c, err, sizeof(err)), 0);
		assert_true(c.takeover);
		sitd_conf_format(&c, line, sizeof(line));
		assert_non_null(strstr(line, " takeover"));
		if (c.isatap)	/* its line says isatap and remote any both: no command line */
			continue;
		/* "NAME: MODE ..." back into words: name NAME mode MODE, the rest as printed. */
		n = 0;
		for (char *w = strtok_r(line, " ", &save); w && n < 60; w = strtok_r(NULL, " ", &save))
			words[n++] = w;
		words[0][strlen(words[0]) - 1] = '\0';
		argv[0] = "name";
		argv[1] = words[0];
		argv[2] = "mode";
		for (int k = 1; k < n; k++)
			argv[k + 2] = words[k];
		assert_int_equal(sitd_cli_parse(n + 2, argv, &back, err, sizeof(err)), 0);
		assert_memory_equal(&back, &c, sizeof(c));
	}
}

/*
 * netns (conf.h): a name of `ip netns`, an absolute path or a process id, kept as
 * written, printed last in the line, and given back by it byte for byte; everything else
 * refused with its reason.
 */
static void test_cli_netns(void **state)
{
	static const struct {
		const char *v, *err;	/* err NULL: accepted */
	} cases[] = {
		{ "c1", NULL }, { "my.container-1_x", NULL }, { "/proc/1234/ns/net", NULL },
		{ "/run/netns/c1", NULL }, { "4321", NULL }, { "4194304", NULL },
		{ "a/b", "invalid \"netns\" name \"a/b\"" }, { ".", "invalid \"netns\" name" },
		{ "..", "invalid \"netns\" name" }, { "0", "invalid \"netns\" process id" },
		{ "0123", "invalid \"netns\" process id" }, { "4194305", "invalid \"netns\" process id" },
		{ "99999999999999999999", "invalid \"netns\" process id" },
		{ "c\x01", "printable bytes only" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "1 to 96 bytes" },
	};
	struct sitd_conf c, back;
	char err[256], line[512], want[256];
	int bad;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *argv[] = { "sit1", "remote", R, "local", L, "netns", cases[i].v, NULL };
		int r = sitd_cli_parse_at(argc_of(argv), argv, &c, err, sizeof(err), &bad);

		if (!cases[i].err) {
			assert_int_equal(r, 0);
			assert_string_equal(c.netns, cases[i].v);
			sitd_conf_format(&c, line, sizeof(line));
			snprintf(want, sizeof(want), "sit1: ipv6/ip remote %s local %s ttl inherit netns %s",
				 R, L, cases[i].v);
			assert_string_equal(line, want);
			/* The line's words back: the same configuration. */
			{
				const char *w[] = { "name", "sit1", "mode", "ipv6/ip", "remote", R, "local", L,
						    "ttl", "inherit", "netns", cases[i].v, NULL };

				assert_int_equal(sitd_cli_parse(argc_of(w), w, &back, err, sizeof(err)), 0);
				assert_memory_equal(&back, &c, sizeof(c));
			}
		} else {
			assert_int_equal(r, -1);
			assert_non_null(strstr(err, cases[i].err));
			assert_int_equal(bad, 6);
		}
	}
	{
		const char *twice[] = { "sit1", "remote", R, "netns", "a", "netns", "b", NULL };
		const char *isatap[] = { "isatap0", "mode", "isatap", "local", L, "netns", "c1", NULL };
		const char *any[] = { "sit1", "remote", "any", "local", L, "netns", "c1", NULL };
		const char *any6[] = { "t6", "mode", "ip6ip6", "remote", "any", "local", "2001:db8:ff::1",
				       "netns", "c1", NULL };
		const char *none[] = { "sit1", "remote", R, "netns", NULL };

		assert_int_equal(sitd_cli_parse(argc_of(twice), twice, &c, err, sizeof(err)), -1);
		assert_string_equal(err, "\"netns\" given twice");
		assert_int_equal(sitd_cli_parse(argc_of(isatap), isatap, &c, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "mode isatap is not supported yet"));
		assert_int_equal(sitd_cli_parse(argc_of(any), any, &c, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "\"remote any\" is not supported yet"));
		/* ip6tnl's NBMA too: its next hops are routes' as well (cli_check6). */
		assert_int_equal(sitd_cli_parse_at(argc_of(any6), any6, &c, err, sizeof(err), &bad), -1);
		assert_non_null(strstr(err, "\"remote any\" is not supported yet"));
		assert_int_equal(bad, 4);
		assert_int_equal(sitd_cli_parse(argc_of(none), none, &c, err, sizeof(err)), -1);
		assert_string_equal(err, "\"netns\" needs a value");
	}
}

/* The line sitd_conf_format writes, parsed again: the same configuration. */
static void round_trip(const struct sitd_conf *c)
{
	struct sitd_conf back;
	char err[256], line[512], *words[64], *save;
	const char *argv[64];
	int n = 0;

	words[0] = NULL;
	sitd_conf_format(c, line, sizeof(line));
	for (char *w = strtok_r(line, " ", &save); w && n < 60; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	assert_true(n > 1 && words[0]);
	words[0][strlen(words[0]) - 1] = '\0';
	argv[0] = "name";
	argv[1] = words[0];
	argv[2] = "mode";
	for (int k = 1; k < n; k++)
		argv[k + 2] = words[k];
	if (sitd_cli_parse(n + 2, argv, &back, err, sizeof(err)))
		fail_msg("%s: %s", line, err);
	assert_memory_equal(&back, c, sizeof(*c));
}

/* clamp-mss [N], keepalive S[,R], keepalive-peer ADDR. */
static void test_cli_clamp_keepalive(void **state)
{
	static const char *const off[] = { "sit1", "remote", R, "local", L, NULL },
			  *const auto_[] = { "sit1", "remote", R, "clamp-mss", "local", L, NULL },
			  *const last[] = { "sit1", "remote", R, "local", L, "clamp-mss", NULL },
			  *const fixed[] = { "sit1", "clamp-mss", "1200", "remote", R, NULL },
			  *const ka[] = { "sit1", "remote", R, "keepalive", "10", "keepalive-peer", "2001:db8::1", NULL },
			  *const ka4[] = { "ipip1", "remote", R, "keepalive", "5,7", "keepalive-peer", "203.0.113.1",
					   "clamp-mss", NULL },
			  *const ka6[] = { "t6", "mode", "ipip6", "remote", R6, "keepalive", "2,2", "keepalive-peer",
					   "192.0.2.9", NULL };
	static const struct {
		const char *argv[12];
		const char *err;
	} bad[] = {
		{ { "sit1", "remote", R, "clamp-mss", "87", NULL },
		  "invalid \"clamp-mss\" value \"87\": expected 88..65495" },
		{ { "sit1", "remote", R, "clamp-mss", "65496", NULL },
		  "invalid \"clamp-mss\" value \"65496\": expected 88..65495" },
		{ { "sit1", "remote", R, "clamp-mss", "clamp-mss", NULL }, "\"clamp-mss\" given twice" },
		{ { "sit1", "remote", R, "keepalive", "0", "keepalive-peer", "2001:db8::1", NULL },
		  "invalid \"keepalive\" value \"0\": expected SECONDS[,RETRIES], 1..3600 and 1..255" },
		{ { "sit1", "remote", R, "keepalive", "10,", "keepalive-peer", "2001:db8::1", NULL },
		  "invalid \"keepalive\" value \"10,\": expected SECONDS[,RETRIES], 1..3600 and 1..255" },
		{ { "sit1", "remote", R, "keepalive", "10,256", "keepalive-peer", "2001:db8::1", NULL },
		  "invalid \"keepalive\" value \"10,256\": expected SECONDS[,RETRIES], 1..3600 and 1..255" },
		{ { "sit1", "remote", R, "keepalive", "10", NULL },
		  "\"keepalive\" needs \"keepalive-peer ADDR\": an inner address that answers echo" },
		{ { "sit1", "remote", R, "keepalive-peer", "2001:db8::1", NULL },
		  "\"keepalive-peer\" needs \"keepalive SECONDS[,RETRIES]\"" },
		{ { "sit1", "remote", R, "keepalive", "10", "keepalive-peer", "203.0.113.1", NULL },
		  "\"keepalive-peer\" is IPv4, which mode sit does not carry" },
		{ { "sit1", "remote", R, "keepalive", "10", "keepalive-peer", "ff02::1", NULL },
		  "invalid \"keepalive-peer\" address \"ff02::1\": expected a unicast IPv6 or IPv4 address" },
		{ { "sit1", "remote", "any", "keepalive", "10", "keepalive-peer", "2001:db8::1", NULL },
		  "\"keepalive\" needs a fixed remote: 6to4, 6rd, ISATAP and remote any have no single remote to lose" },
		{ { "isatap0", "mode", "isatap", "local", L, "keepalive", "10", "keepalive-peer", "2001:db8::1", NULL },
		  "\"keepalive\" needs a fixed remote: 6to4, 6rd, ISATAP and remote any have no single remote to lose" },
	};
	struct sitd_conf c;
	char err[256];

	(void)state;
	assert_int_equal(sitd_cli_parse(argc_of(off), off, &c, err, sizeof(err)), 0);
	assert_false(c.clamp_mss);
	assert_int_equal(c.keepalive, 0);
	assert_int_equal(sitd_cli_parse(argc_of(auto_), auto_, &c, err, sizeof(err)), 0);
	assert_true(c.clamp_mss);
	assert_int_equal(c.clamp_mss_n, 0);
	assert_int_equal(c.local, L_N);	/* "local" was not taken as clamp-mss's value */
	round_trip(&c);
	assert_int_equal(sitd_cli_parse(argc_of(last), last, &c, err, sizeof(err)), 0);
	assert_true(c.clamp_mss);
	assert_int_equal(sitd_cli_parse(argc_of(fixed), fixed, &c, err, sizeof(err)), 0);
	assert_int_equal(c.clamp_mss_n, 1200);
	round_trip(&c);
	assert_int_equal(sitd_cli_parse(argc_of(ka), ka, &c, err, sizeof(err)), 0);
	assert_int_equal(c.keepalive, 10);
	assert_int_equal(c.keepalive_retries, 3);
	assert_int_equal(c.keepalive_peer_family, 6);
	round_trip(&c);
	assert_int_equal(sitd_cli_parse(argc_of(ka4), ka4, &c, err, sizeof(err)), 0);
	assert_int_equal(c.keepalive, 5);
	assert_int_equal(c.keepalive_retries, 7);
	assert_int_equal(c.keepalive_peer_family, 4);
	assert_int_equal(c.keepalive_peer[0], 203);
	assert_true(c.clamp_mss);
	round_trip(&c);
	assert_int_equal(sitd_cli_parse(argc_of(ka6), ka6, &c, err, sizeof(err)), 0);
	assert_int_equal(c.keepalive_peer_family, 4);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(sitd_cli_parse(argc_of(bad[i].argv), bad[i].argv, &c, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
	}
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(accept_cases) + ARRAY_SIZE(encap_cases) +
				ARRAY_SIZE(reject_cases) + ARRAY_SIZE(format_cases) +
				ARRAY_SIZE(accept6_cases) + ARRAY_SIZE(format6_cases) + 11];
	size_t n = 0;

	TABLE(accept_cases, test_cli_accept);
	TABLE(encap_cases, test_cli_encap);
	TABLE(reject_cases, test_cli_reject);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_err_buffer);
	TABLE(format_cases, test_cli_format);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_format_short);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_addresses_routes);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_addresses_routes_refused);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_remote_any);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_isatap);
	TABLE(accept6_cases, test_cli_accept6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_ipv4_unchanged);
	TABLE(format6_cases, test_cli_format6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_round_trip6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_takeover);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_netns);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cli_clamp_keepalive);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
