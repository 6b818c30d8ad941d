/* SPDX-License-Identifier: MIT */
/*
 * sitd.conf(5) (config.h): stanzas that start with the word "tunnel", their words those of
 * the command line (cli.h), "#" comments to the end of the line.  What is accepted must
 * give exactly the struct sitd_conf that sitd_cli_parse gives for the same words; what is
 * refused must say "LINE: message", the line being that of the offending word (or of the
 * stanza's "tunnel" when the whole stanza is at fault), and return -1 whatever came before
 * it (all or nothing).  Limits: words of at most 63 bytes, at most 256 words after
 * "tunnel", at most `cap` tunnels, no NUL byte, no name twice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/hindex.h"

#include "proto/cli.h"
#include "proto/config.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A 63-byte word the command line accepts: mtu 1400 with leading zeros (base 10). */
#define Z59 "00000000000000000000000000000000000000000000000000000000000"
#define MTU63 Z59 "1400"
#define MTU64 "0" Z59 "1400"
_Static_assert(sizeof(MTU63) == 64 && sizeof(MTU64) == 65, "word lengths");

/* 253 x "nogso" (repeatable): with "sit1 remote 192.0.2.2", 256 words after "tunnel". */
#define NOGSO8 " nogso nogso nogso nogso nogso nogso nogso nogso"
#define NOGSO64 NOGSO8 NOGSO8 NOGSO8 NOGSO8 NOGSO8 NOGSO8 NOGSO8 NOGSO8
#define NOGSO253 NOGSO64 NOGSO64 NOGSO64 NOGSO8 NOGSO8 NOGSO8 NOGSO8 NOGSO8 NOGSO8 NOGSO8 \
	" nogso nogso nogso nogso nogso"

/* A broker's stanza at the limits: 8 addresses, 16 routes with every word they take. */
#define ROUTE(n) "\troute 2001:db8:" #n "::/48 via 2001:db8:64::1 metric " #n " table 100\n"
#define FULL_STANZA "tunnel he-ipv6 mode sit remote 203.0.113.1 local 192.0.2.10 ttl 255\n" \
	"\taddress 2001:db8:64::2/64 address 2001:db8:65::1/64 address 2001:db8:66::1/64\n" \
	"\taddress 2001:db8:67::1/64 address 2001:db8:68::1/64 address 2001:db8:69::1/64\n" \
	"\taddress 2001:db8:6a::1/64 address 198.51.100.1/24\n" \
	ROUTE(1) ROUTE(2) ROUTE(3) ROUTE(4) ROUTE(5) ROUTE(6) ROUTE(7) ROUTE(8) ROUTE(9) \
	ROUTE(10) ROUTE(11) ROUTE(12) ROUTE(13) ROUTE(14) ROUTE(15) ROUTE(16)

/* The cap these tests pass (the daemon sizes its array with sitd_config_count). */
enum { SITD_MAX_TUNNELS = 64, MAXT = 4, ERR_LEN = 512 };

/* out[] of SITD_MAX_TUNNELS + 1, the one after `cap` a canary no parse may touch. */
static struct sitd_conf out[SITD_MAX_TUNNELS + 1];

static void fill_canary(void)
{
	memset(out, 0xa5, sizeof(out));
}

static void check_canary(unsigned cap)
{
	struct sitd_conf c;

	memset(&c, 0xa5, sizeof(c));
	assert_memory_equal(&out[cap], &c, sizeof(c));
}

static int argc_of(const char *const *argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

/* ---- Accepted ---- */

struct accept_case {
	const char *name;
	const char *text;
	size_t len;			/* 0: strlen(text) */
	unsigned cap;			/* 0: SITD_MAX_TUNNELS */
	int n;
	const char *tname[MAXT];	/* each tunnel's name, as a readable first check */
	uint32_t remote[MAXT];
	const char *argv[MAXT][160];	/* each tunnel as a command line */
};

static const struct accept_case accept_cases[] = {
	{ "accept: one tunnel on one line",
	  "tunnel sit1 mode sit remote 192.0.2.2 local 192.0.2.1 ttl 64\n", 0, 0, 1,
	  { "sit1" }, { 0xc0000202u },
	  { { "sit1", "mode", "sit", "remote", "192.0.2.2", "local", "192.0.2.1", "ttl", "64", NULL } } },
	{ "accept: one tunnel, no newline at the end of the file",
	  "tunnel ipip0 remote 198.51.100.7", 0, 0, 1, { "ipip0" }, { 0xc6336407u },
	  { { "ipip0", "remote", "198.51.100.7", NULL } } },
	{ "accept: the sitd.conf(5) example: stanzas over several lines, tabs, comments",
	  "# A 6in4 tunnel to a tunnel broker.\n"
	  "tunnel he-ipv6\n"
	  "\tmode sit remote 203.0.113.1 local 192.0.2.10\n"
	  "\tttl 255\n"
	  "\n"
	  "# IPv4 in IPv4 inside UDP, to cross a NAT.\n"
	  "tunnel ipip0 mode ipip remote 198.51.100.7 local 192.0.2.10\n"
	  "\tencap fou encap-dport 5555 encap-csum\n",
	  0, 0, 2, { "he-ipv6", "ipip0" }, { 0xcb007101u, 0xc6336407u },
	  { { "he-ipv6", "mode", "sit", "remote", "203.0.113.1", "local", "192.0.2.10", "ttl", "255", NULL },
	    { "ipip0", "mode", "ipip", "remote", "198.51.100.7", "local", "192.0.2.10", "encap", "fou",
	      "encap-dport", "5555", "encap-csum", NULL } } },
	{ "accept: a keyword and its value on different lines; tunnel alone on its line",
	  "tunnel\n  sit1\n  remote\n\n\t192.0.2.2   \n  ttl # the hop limit\n 17\n", 0, 0, 1,
	  { "sit1" }, { 0xc0000202u }, { { "sit1", "remote", "192.0.2.2", "ttl", "17", NULL } } },
	{ "accept: comments after words with and without a space, and a comment saying tunnel",
	  "# tunnel bogus remote 0.0.0.0\n"
	  "tunnel sit1#no space\n"
	  "  remote 192.0.2.2 # a space\n"
	  "  #tunnel sit1 remote 192.0.2.9\n"
	  "  nogro#\n",
	  0, 0, 1, { "sit1" }, { 0xc0000202u }, { { "sit1", "remote", "192.0.2.2", "nogro", NULL } } },
	{ "accept: takeover on a line of its own, as the command line has it",
	  "tunnel sit1 remote 192.0.2.2\n\ttakeover\ntunnel sit2 remote 192.0.2.3\n", 0, 0, 2,
	  { "sit1", "sit2" }, { 0xc0000202u, 0xc0000203u },
	  { { "sit1", "remote", "192.0.2.2", "takeover", NULL }, { "sit2", "remote", "192.0.2.3", NULL } } },
	{ "accept: CRLF line ends (the CR is white space, not part of a word)",
	  "# made on Windows\r\ntunnel sit1\r\n\tremote 192.0.2.2\r\n\r\n"
	  "tunnel ipip1 remote 198.51.100.7 ttl 64\r\n\tmtu 1400\r\n",
	  0, 0, 2, { "sit1", "ipip1" }, { 0xc0000202u, 0xc6336407u },
	  { { "sit1", "remote", "192.0.2.2", NULL },
	    { "ipip1", "remote", "198.51.100.7", "ttl", "64", "mtu", "1400", NULL } } },
	{ "accept: three tunnels, every mode and encap",
	  "tunnel sit1 remote 192.0.2.2\n"
	  "tunnel t-any mode any remote 203.0.113.9 tos inherit nopmtudisc encap gue encap-dport 6080\n"
	  "tunnel ipip2 remote 198.51.100.1 dev eth0 encap fou encap-sport 4000 encap-dport 5555 nogso\n",
	  0, 0, 3, { "sit1", "t-any", "ipip2" }, { 0xc0000202u, 0xcb007109u, 0xc6336401u },
	  { { "sit1", "remote", "192.0.2.2", NULL },
	    { "t-any", "mode", "any", "remote", "203.0.113.9", "tos", "inherit", "nopmtudisc", "encap",
	      "gue", "encap-dport", "6080", NULL },
	    { "ipip2", "remote", "198.51.100.1", "dev", "eth0", "encap", "fou", "encap-sport", "4000",
	      "encap-dport", "5555", "nogso", NULL } } },
	{ "accept: exactly cap tunnels (cap 2)",
	  "tunnel sit1 remote 192.0.2.2\ntunnel sit2 remote 192.0.2.3\n", 0, 2, 2,
	  { "sit1", "sit2" }, { 0xc0000202u, 0xc0000203u },
	  { { "sit1", "remote", "192.0.2.2", NULL }, { "sit2", "remote", "192.0.2.3", NULL } } },
	{ "accept: a word of 63 bytes (the longest)",
	  "tunnel sit1 remote 192.0.2.2 mtu " MTU63 "\n", 0, 0, 1, { "sit1" }, { 0xc0000202u },
	  { { "sit1", "remote", "192.0.2.2", "mtu", "1400", NULL } } },
	{ "accept: 256 words after tunnel (the most)",
	  "tunnel sit1 remote 192.0.2.2\n" NOGSO253 "\n", 0, 0, 1, { "sit1" }, { 0xc0000202u },
	  { { "sit1", "remote", "192.0.2.2", "nogso", NULL } } },
	{ "accept: 8 addresses and 16 routes with via, metric and table (135 words)",
	  FULL_STANZA, 0, 0, 1, { "he-ipv6" }, { 0xcb007101u },
	  { { "he-ipv6", "mode", "sit", "remote", "203.0.113.1", "local", "192.0.2.10", "ttl",
	      "255", "address", "2001:db8:64::2/64", "address", "2001:db8:65::1/64", "address",
	      "2001:db8:66::1/64", "address", "2001:db8:67::1/64", "address", "2001:db8:68::1/64",
	      "address", "2001:db8:69::1/64", "address", "2001:db8:6a::1/64", "address",
	      "198.51.100.1/24", "route", "2001:db8:1::/48", "via", "2001:db8:64::1", "metric",
	      "1", "table", "100", "route", "2001:db8:2::/48", "via", "2001:db8:64::1", "metric",
	      "2", "table", "100", "route", "2001:db8:3::/48", "via", "2001:db8:64::1", "metric",
	      "3", "table", "100", "route", "2001:db8:4::/48", "via", "2001:db8:64::1", "metric",
	      "4", "table", "100", "route", "2001:db8:5::/48", "via", "2001:db8:64::1", "metric",
	      "5", "table", "100", "route", "2001:db8:6::/48", "via", "2001:db8:64::1", "metric",
	      "6", "table", "100", "route", "2001:db8:7::/48", "via", "2001:db8:64::1", "metric",
	      "7", "table", "100", "route", "2001:db8:8::/48", "via", "2001:db8:64::1", "metric",
	      "8", "table", "100", "route", "2001:db8:9::/48", "via", "2001:db8:64::1", "metric",
	      "9", "table", "100", "route", "2001:db8:10::/48", "via", "2001:db8:64::1", "metric",
	      "10", "table", "100", "route", "2001:db8:11::/48", "via", "2001:db8:64::1", "metric",
	      "11", "table", "100", "route", "2001:db8:12::/48", "via", "2001:db8:64::1", "metric",
	      "12", "table", "100", "route", "2001:db8:13::/48", "via", "2001:db8:64::1", "metric",
	      "13", "table", "100", "route", "2001:db8:14::/48", "via", "2001:db8:64::1", "metric",
	      "14", "table", "100", "route", "2001:db8:15::/48", "via", "2001:db8:64::1", "metric",
	      "15", "table", "100", "route", "2001:db8:16::/48", "via", "2001:db8:64::1", "metric",
	      "16", "table", "100", NULL } } },
	{ "accept: names that differ only in case are different names",
	  "tunnel sit1 remote 192.0.2.2\ntunnel SIT1 mode sit remote 192.0.2.2\n", 0, 0, 2,
	  { "sit1", "SIT1" }, { 0xc0000202u, 0xc0000202u },
	  { { "sit1", "remote", "192.0.2.2", NULL }, { "SIT1", "mode", "sit", "remote", "192.0.2.2", NULL } } },
	{ "accept: IPv6 underlays beside sit: ip6ip6, ipip6 (a DS-Lite B4), any, each over lines",
	  "# IPv6 in IPv6 (RFC 2473)\n"
	  "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1\n"
	  "\tencaplimit none hoplimit 255 tclass inherit flowlabel 0x12345\n"
	  "# IPv4 over an IPv6-only access network (RFC 6333): to the AFTR\n"
	  "tunnel b4\n\tmode ipip6 remote 2001:db8:ffff::1 local 2001:db8:1::2\n"
	  "\tdscp inherit allow-localremote mtu 1452 address 192.0.0.2/29\n"
	  "\troute 0.0.0.0/0\n"
	  "tunnel anyv6 mode any remote 2001:db8::9 tc 0x20 fl inherit encaplimit 0 dev eth0\n"
	  "tunnel sit1 remote 192.0.2.2\n",
	  0, 0, 4, { "t6", "b4", "anyv6", "sit1" }, { 0, 0, 0, 0xc0000202u },
	  { { "t6", "mode", "ip6ip6", "remote", "2001:db8::2", "local", "2001:db8::1", "encaplimit", "none",
	      "hoplimit", "255", "tclass", "inherit", "flowlabel", "0x12345", NULL },
	    { "b4", "mode", "ipip6", "remote", "2001:db8:ffff::1", "local", "2001:db8:1::2", "dscp", "inherit",
	      "allow-localremote", "mtu", "1452", "address", "192.0.0.2/29", "route", "0.0.0.0/0", NULL },
	    { "anyv6", "mode", "any", "remote", "2001:db8::9", "tc", "0x20", "fl", "inherit", "encaplimit",
	      "0", "dev", "eth0", NULL },
	    { "sit1", "remote", "192.0.2.2", NULL } } },
	{ "accept: an empty file: no tunnel", "", 0, 0, 0, { NULL }, { 0 }, { { NULL } } },
	{ "accept: only comments, blank lines and white space: no tunnel",
	  "# nothing\n\n   \t\r\n# tunnel sit1 remote 192.0.2.2\n", 0, 0, 0, { NULL }, { 0 }, { { NULL } } },
};

static void test_accept(void **state)
{
	const struct accept_case *c = *state;
	size_t len = c->len ? c->len : strlen(c->text);
	unsigned cap = c->cap ? c->cap : SITD_MAX_TUNNELS;
	char err[ERR_LEN] = "untouched";

	fill_canary();
	assert_int_equal(sitd_config_parse(c->text, len, out, cap, err, sizeof(err)), c->n);
	check_canary(cap);
	for (int i = 0; i < c->n; i++) {
		const char *const *argv = c->argv[i];
		struct sitd_conf want;
		char cerr[256];

		assert_string_equal(out[i].name, c->tname[i]);
		assert_int_equal(out[i].remote, c->remote[i]);
		/* The same words on the command line give the same configuration, byte for byte. */
		if (sitd_cli_parse(argc_of(argv), argv, &want, cerr, sizeof(cerr)))
			fail_msg("the table's command line for %s is refused: %s", c->tname[i], cerr);
		assert_memory_equal(&out[i], &want, sizeof(want));
	}
}

/* SITD_MAX_TUNNELS stanzas, one per line: all accepted, in order. */
static void test_accept_max_tunnels(void **state)
{
	static char text[SITD_MAX_TUNNELS * 64];
	char err[ERR_LEN], name[16];
	size_t len = 0;

	(void)state;
	for (unsigned i = 0; i < SITD_MAX_TUNNELS; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"tunnel sit%u remote 198.51.100.%u ttl %u\n", i, i + 1, i + 1);
	assert_true(len < sizeof(text));
	fill_canary();
	assert_int_equal(sitd_config_parse(text, len, out, SITD_MAX_TUNNELS, err, sizeof(err)),
			 SITD_MAX_TUNNELS);
	for (unsigned i = 0; i < SITD_MAX_TUNNELS; i++) {
		snprintf(name, sizeof(name), "sit%u", i);
		assert_string_equal(out[i].name, name);
		assert_int_equal(out[i].mode, SITD_MODE_SIT);
		assert_int_equal(out[i].remote, 0xc6336400u + i + 1);
		assert_int_equal(out[i].ttl, i + 1);
	}
	check_canary(SITD_MAX_TUNNELS);
}

/* ---- Refused: "LINE: message" ---- */

struct reject_case {
	const char *name;
	const char *text;
	size_t len;		/* 0: strlen(text) */
	unsigned cap;		/* 0: SITD_MAX_TUNNELS; UINT32_MAX: 0 */
	const char *err;	/* the whole error */
};

#define CAP0 UINT32_MAX
/* A text with NUL bytes in it: its length is the literal's, without the final NUL. */
#define WITH_NUL(nm, lit, e) { nm, lit, sizeof(lit) - 1, 0, e }

static const struct reject_case reject_cases[] = {
	{ "refuse: a word before the first tunnel, on line 1",
	  "mode sit\ntunnel sit1 remote 192.0.2.2\n", 0, 0, "1: expected \"tunnel NAME\", not \"mode\"" },
	{ "refuse: a word before the first tunnel, after comments and blank lines (line 4)",
	  "# sitd.conf\n\n\t# nothing yet\n  sit1 remote 192.0.2.2\n", 0, 0,
	  "4: expected \"tunnel NAME\", not \"sit1\"" },
	{ "refuse: \"tunnels\" is not the word tunnel",
	  "tunnels sit1 remote 192.0.2.2\n", 0, 0, "1: expected \"tunnel NAME\", not \"tunnels\"" },
	{ "refuse: a bad value on line 7 is reported as 7 (the sitd.conf(5) example)",
	  "# sitd.conf\n"
	  "tunnel sit1\n"
	  "\tmode sit\n"
	  "\tremote 192.0.2.2\n"
	  "\n"
	  "# the hop limit\n"
	  "\tttl 300\n",
	  0, 0, "7: invalid \"ttl\" value \"300\": expected 1..255 or inherit" },
	{ "refuse: the line is the value's, not its keyword's",
	  "tunnel sit1 remote 192.0.2.2 ttl\n\n300\n", 0, 0,
	  "3: invalid \"ttl\" value \"300\": expected 1..255 or inherit" },
	{ "refuse: a keyword without a value at the end of a stanza: the keyword's line",
	  "tunnel sit1 remote 192.0.2.2\n\tttl\ntunnel sit2 remote 192.0.2.3\n", 0, 0,
	  "2: \"ttl\" needs a value" },
	{ "refuse: a keyword without a value at the end of the file: the keyword's line",
	  "tunnel sit1\n remote 192.0.2.2\n\n mode\n\n# end\n", 0, 0, "4: \"mode\" needs a value" },
	{ "refuse: an unknown keyword on line 3",
	  "tunnel sit1\n remote 192.0.2.2\n rem0te 192.0.2.3\n", 0, 0,
	  "3: unexpected \"rem0te\": the name is already \"sit1\" (unknown keyword?)" },
	{ "refuse: a missing remote is reported at the stanza's first line",
	  "tunnel sit1 remote 192.0.2.2\n"
	  "# second\n"
	  "tunnel sit2\n"
	  "\tmode sit\n"
	  "\tlocal 192.0.2.1\n",
	  0, 0, "3: missing \"remote ADDR\"" },
	{ "refuse: no mode given or implied: the stanza's first line",
	  "\n\ntunnel\ntun0\nremote 192.0.2.2\n", 0, 0,
	  "3: cannot determine tunnel mode: give \"mode sit\", \"mode ipip\" or \"mode any\"" },
	{ "refuse: ttl with nopmtudisc (a whole-stanza error): the stanza's first line",
	  "tunnel sit1 remote 192.0.2.2\ntunnel sit2\n remote 192.0.2.3\n ttl 64\n nopmtudisc\n", 0, 0,
	  "2: ttl != 0 and nopmtudisc are incompatible" },
	{ "refuse: an empty stanza (tunnel alone): missing name at its line",
	  "tunnel sit1 remote 192.0.2.2\n\ntunnel\n", 0, 0, "3: missing tunnel name" },
	{ "refuse: tunnel tunnel: the first stanza is empty",
	  "tunnel tunnel sit1 remote 192.0.2.2\n", 0, 0, "1: missing tunnel name" },
	{ "refuse: a duplicate name, at the second stanza's first line",
	  "tunnel sit1 remote 192.0.2.2\n"
	  "tunnel ipip1 remote 192.0.2.3\n"
	  "tunnel sit1\n"
	  "\tremote 192.0.2.4\n",
	  0, 0, "3: tunnel \"sit1\" given twice" },
	{ "refuse: a duplicate name given with the name keyword",
	  "tunnel sit1 remote 192.0.2.2\n\ntunnel mode sit\n name sit1 remote 192.0.2.3\n", 0, 0,
	  "3: tunnel \"sit1\" given twice" },
	{ "refuse: a word of 64 bytes, on line 2",
	  "tunnel sit1 remote 192.0.2.2\n\tmtu " MTU64 "\n", 0, 0, "2: a word longer than 63 bytes" },
	{ "refuse: a word of 64 bytes before any tunnel",
	  MTU64 "\n", 0, 0, "1: a word longer than 63 bytes" },
	{ "refuse: 257 words after tunnel: the 257th word's line",
	  "tunnel sit1 remote 192.0.2.2\n" NOGSO253 "\n\n nogro\n", 0, 0,
	  "4: more than 256 words in one tunnel" },
	{ "refuse: more tunnels than cap (cap 2): the line of the third",
	  "tunnel sit1 remote 192.0.2.2\ntunnel sit2 remote 192.0.2.3\n\n# third\n"
	  "tunnel sit3 remote 192.0.2.4\n",
	  0, 2, "5: more than 2 tunnels" },
	{ "refuse: cap 0: one tunnel is one too many",
	  "tunnel sit1 remote 192.0.2.2\n", 0, CAP0, "1: more than 0 tunnels" },
	WITH_NUL("refuse: a NUL byte inside a word, on line 2",
		 "tunnel sit1 remote 192.0.2.2\n\tmtu 14\0" "00\n", "2: a NUL byte"),
	WITH_NUL("refuse: a NUL byte at the start of line 3",
		 "tunnel sit1\n remote 192.0.2.2\n\0\n", "3: a NUL byte"),
	WITH_NUL("refuse: a NUL byte between words", "tunnel sit1 \0remote 192.0.2.2\n", "1: a NUL byte"),
	WITH_NUL("refuse: a NUL byte as the last byte of the file",
		 "tunnel sit1 remote 192.0.2.2\n\0", "2: a NUL byte"),
	{ "refuse: a bad line counted across CRLF line ends",
	  "tunnel sit1\r\n\tremote 192.0.2.2\r\n\r\n\tttl 300\r\n", 0, 0,
	  "4: invalid \"ttl\" value \"300\": expected 1..255 or inherit" },
	{ "refuse: an IPv6 word in an IPv4 stanza: the word's line",
	  "tunnel sit1 remote 192.0.2.2\n\tttl 64\n\tencaplimit 4\n", 0, 0,
	  "3: \"encaplimit\" is for an IPv6 underlay (mode ip6ip6, ipip6, or any with IPv6 addresses)" },
	{ "refuse: a sit word in an IPv6 stanza: the word's line",
	  "tunnel t6\n mode ip6ip6\n remote 2001:db8::2\n nopmtudisc\n", 0, 0,
	  "4: \"nopmtudisc\" is for an IPv4 underlay (sit, ipip), not for mode ip6ip6" },
	{ "refuse: an IPv4 remote for ipip6: the address's line",
	  "tunnel b4 mode ipip6\n\tremote 192.0.2.2\n", 0, 0,
	  "2: invalid \"remote\" address \"192.0.2.2\": mode ipip6 takes IPv6 addresses" },
	{ "refuse: ends of two families: the local's line",
	  "tunnel t mode any remote 2001:db8::2\n\n local 192.0.2.1\n", 0, 0,
	  "3: invalid \"local\" address \"192.0.2.1\": the remote is IPv6, and both ends are of one family" },
	{ "refuse: remote any over IPv6 without local: its line",
	  "tunnel t\n mode ip6ip6\n local any\n remote any\n", 0, 0,
	  "4: \"remote any\" over an IPv6 underlay needs \"local ADDR\": the source of its packets" },
	{ "refuse: encaplimit out of range: its line",
	  "tunnel t mode ip6ip6 remote 2001:db8::2\n encaplimit 300\n", 0, 0,
	  "2: invalid \"encaplimit\" value \"300\": expected none or 0..255" },
	{ "refuse: an IPv6 mtu out of bounds: the stanza's line",
	  "tunnel sit1 remote 192.0.2.2\ntunnel t mode ip6ip6 remote 2001:db8::2\n mtu 1279\n", 0, 0,
	  "2: invalid \"mtu\" value 1279: mode ip6ip6 takes 1280..65527" },
	/* All or nothing: two good stanzas before the bad one do not make a result of 2. */
	{ "refuse: all or nothing: two good tunnels, then a bad remote on line 3",
	  "tunnel sit1 remote 192.0.2.2\ntunnel sit2 remote 192.0.2.3\ntunnel sit3 remote 224.0.0.1\n",
	  0, 0, "3: invalid \"remote\" address \"224.0.0.1\": expected a unicast IPv4 address" },
	{ "refuse: all or nothing: a good tunnel, then a word too long in the next",
	  "tunnel sit1 remote 192.0.2.2\ntunnel " MTU64 "\n", 0, 0, "2: a word longer than 63 bytes" },
};

static void test_reject(void **state)
{
	const struct reject_case *c = *state;
	size_t len = c->len ? c->len : strlen(c->text);
	unsigned cap = c->cap == CAP0 ? 0 : c->cap ? c->cap : SITD_MAX_TUNNELS;
	char err[ERR_LEN];

	memset(err, 'x', sizeof(err));
	fill_canary();
	assert_int_equal(sitd_config_parse(c->text, len, out, cap, err, sizeof(err)), -1);
	assert_non_null(memchr(err, '\0', sizeof(err)));
	assert_string_equal(err, c->err);
	check_canary(cap);
}

/* After a refused file, the same array takes a good one: nothing is carried over. */
static void test_reject_then_accept(void **state)
{
	static const char bad[] = "tunnel sit1 remote 192.0.2.2\ntunnel sit2 remote 192.0.2.2 ttl 0x100\n";
	static const char good[] = "tunnel ipip7 remote 203.0.113.7\n";
	char err[ERR_LEN];

	(void)state;
	fill_canary();
	assert_int_equal(sitd_config_parse(bad, sizeof(bad) - 1, out, SITD_MAX_TUNNELS, err, sizeof(err)), -1);
	assert_string_equal(err, "2: invalid \"ttl\" value \"0x100\": expected 1..255 or inherit");
	assert_int_equal(sitd_config_parse(good, sizeof(good) - 1, out, SITD_MAX_TUNNELS, err, sizeof(err)), 1);
	assert_string_equal(out[0].name, "ipip7");
	assert_int_equal(out[0].mode, SITD_MODE_IPIP);
	assert_int_equal(out[0].remote, 0xcb007107u);
}

/* Only `len` bytes are read: the text need not be NUL-terminated, and what follows is ignored. */
static void test_len_bounds(void **state)
{
	static const char text[] = "tunnel sit1 remote 192.0.2.2 ttl 300";
	char err[ERR_LEN];

	(void)state;
	/* Cut before " ttl 300": accepted. */
	assert_int_equal(sitd_config_parse(text, 28, out, SITD_MAX_TUNNELS, err, sizeof(err)), 1);
	assert_int_equal(out[0].ttl, 0);
	/* Cut inside "192.0.2.2": "192.0.2" is refused. */
	assert_int_equal(sitd_config_parse(text, 26, out, SITD_MAX_TUNNELS, err, sizeof(err)), -1);
	assert_string_equal(err, "1: invalid \"remote\" address \"192.0.2\": expected a unicast IPv4 address");
	/* Length 0 of a non-empty text: nothing. */
	assert_int_equal(sitd_config_parse(text, 0, out, SITD_MAX_TUNNELS, err, sizeof(err)), 0);
}

/* The error is cut to errlen, NUL included, and nothing past it is written; errlen 0 writes nothing. */
static void test_err_buffer(void **state)
{
	/* The bad value on line 12: two digits in the line number. */
	static const char text[] = "tunnel sit1\n remote 192.0.2.2\n" "\n\n\n\n\n\n\n\n\n" " ttl 300\n";
	char err[32];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(sitd_config_parse(text, sizeof(text) - 1, out, SITD_MAX_TUNNELS, err, 8), -1);
	assert_string_equal(err, "12: inv");
	for (size_t i = 8; i < sizeof(err); i++)
		assert_int_equal(err[i], 'x');
	memset(err, 'x', sizeof(err));
	assert_int_equal(sitd_config_parse(text, sizeof(text) - 1, out, SITD_MAX_TUNNELS, err, 1), -1);
	assert_int_equal(err[0], '\0');
	assert_int_equal(err[1], 'x');
	memset(err, 'x', sizeof(err));
	assert_int_equal(sitd_config_parse(text, sizeof(text) - 1, out, SITD_MAX_TUNNELS, err, 0), -1);
	for (size_t i = 0; i < sizeof(err); i++)
		assert_int_equal(err[i], 'x');
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = (void *)(uintptr_t)&(arr)[i] }

/* sitd_config_count: stanzas, not words inside comments or longer words. */
static void test_count(void **state)
{
	static const char t[] = "# tunnel in a comment\n"
				"tunnel sit1 remote 192.0.2.2 # tunnel\n"
				"tunnel\tsit2 remote 192.0.2.3\r\n"
				"tunnels tunnelx xtunnel\n"
				"tunnel";
	char err[ERR_LEN];

	(void)state;
	assert_int_equal(sitd_config_count(t, sizeof(t) - 1), 3);
	assert_int_equal(sitd_config_count(t, 0), 0);
	assert_int_equal(sitd_config_count("tunnel a remote 192.0.2.2", 6), 1);
	/* The count is what a successful parse needs: never fewer. */
	assert_int_equal(sitd_config_parse(t, sizeof(t) - 7, out, sitd_config_count(t, sizeof(t) - 7),
					   err, sizeof(err)), -1);	/* "tunnels" is no keyword */
}

static void parse_one(struct sitd_conf *c, const char *text)
{
	char err[ERR_LEN];

	assert_int_equal(sitd_config_parse(text, strlen(text), c, 1, err, sizeof(err)), 1);
}

/*
 * sitd_config_diff: kept when name and settings are equal; changed = stopped and started
 * again; removed; added; order does not matter.
 */
static void test_diff(void **state)
{
	struct sitd_conf old[4], next[4];
	bool keep[4], add[4];

	(void)state;
	parse_one(&old[0], "tunnel sit1 remote 192.0.2.2");
	parse_one(&old[1], "tunnel sit2 remote 192.0.2.3");
	parse_one(&old[2], "tunnel sit3 remote 192.0.2.4");
	parse_one(&old[3], "tunnel ipip1 remote 192.0.2.5");
	parse_one(&next[0], "tunnel sit3 remote 192.0.2.4");		/* same, moved */
	parse_one(&next[1], "tunnel sit1 remote 192.0.2.2 ttl 64");	/* changed */
	parse_one(&next[2], "tunnel sit9 remote 192.0.2.9");		/* new */
	parse_one(&next[3], "tunnel ipip1 remote 192.0.2.5");		/* same, same place */
	sitd_config_diff(old, 4, next, 4, keep, add);
	assert_false(keep[0]);	/* sit1 changed */
	assert_false(keep[1]);	/* sit2 removed */
	assert_true(keep[2]);
	assert_true(keep[3]);
	assert_false(add[0]);
	assert_true(add[1]);
	assert_true(add[2]);
	assert_false(add[3]);
	/* Nothing before: everything is new; nothing after: everything goes. */
	sitd_config_diff(old, 0, next, 4, keep, add);
	assert_true(add[0] && add[1] && add[2] && add[3]);
	sitd_config_diff(old, 4, next, 0, keep, add);
	assert_true(!keep[0] && !keep[1] && !keep[2] && !keep[3]);
	/* takeover said or no longer said: the tunnel starts again, its device checked anew. */
	parse_one(&next[0], "tunnel sit1 remote 192.0.2.2 takeover");
	sitd_config_diff(old, 1, next, 1, keep, add);
	assert_false(keep[0]);
	assert_true(add[0]);
	sitd_config_diff(next, 1, old, 1, keep, add);
	assert_false(keep[0]);
	assert_true(add[0]);
	parse_one(&old[1], "tunnel sit1\n takeover remote 192.0.2.2\n");
	sitd_config_diff(next, 1, &old[1], 1, keep, add);
	assert_true(keep[0]);
	assert_false(add[0]);
}

/*
 * 10 000 stanzas (a broker's file), the names indexed (sitd_config_parse_ix): the same
 * tunnels as without the index, a name given twice refused on the same line, and the
 * diff through the index the same as without, for 1000 removed and 1000 added.
 */
enum { BIG_N = 10000 };

static char *big_file(unsigned n, unsigned skip_from, unsigned skip_to, const char *extra)
{
	size_t cap = (size_t)n * 80 + 200, len = 0;
	char *text = malloc(cap);

	assert_non_null(text);
	for (unsigned i = 0; i < n; i++)
		if (i < skip_from || i >= skip_to)
			len += (size_t)snprintf(text + len, cap - len,
						"tunnel t%u mode sit remote 203.0.113.%u local 192.0.2.%u\n", i,
						1 + i % 250, 1 + i / 250);
	for (unsigned i = skip_from; i < skip_to; i++)
		len += (size_t)snprintf(text + len, cap - len, "tunnel n%u mode sit remote 198.51.100.%u\n",
					i, 1 + i % 250);
	snprintf(text + len, cap - len, "%s", extra);
	return text;
}

static void test_many_indexed(void **state)
{
	uint32_t slots = sitd_hindex_slots(BIG_N + 1);
	struct sitd_hslot *mem = malloc(slots * sizeof(*mem));
	struct sitd_conf *a = calloc(BIG_N + 1, sizeof(*a)), *b = calloc(BIG_N + 1, sizeof(*b));
	bool *keep = calloc(BIG_N, sizeof(*keep)), *add = calloc(BIG_N, sizeof(*add));
	bool *keep2 = calloc(BIG_N, sizeof(*keep2)), *add2 = calloc(BIG_N, sizeof(*add2));
	char *text = big_file(BIG_N, 0, 0, ""), err[300], err2[300];
	struct sitd_hindex ix;
	unsigned kept = 0, added = 0;

	(void)state;
	assert_true(mem && a && b && keep && add && keep2 && add2);
	sitd_hindex_init(&ix, mem, slots);
	assert_int_equal(sitd_config_parse_ix(text, strlen(text), a, BIG_N + 1, &ix, err, sizeof(err)),
			 BIG_N);
	assert_int_equal(sitd_config_parse(text, strlen(text), b, BIG_N + 1, err, sizeof(err)), BIG_N);
	assert_memory_equal(a, b, BIG_N * sizeof(*a));
	free(text);
	/* t5000 again, last: line 10 001, with the index and without. */
	text = big_file(BIG_N, 0, 0, "tunnel t5000 mode sit remote 192.0.2.77\n");
	sitd_hindex_init(&ix, mem, slots);
	assert_int_equal(sitd_config_parse_ix(text, strlen(text), b, BIG_N + 1, &ix, err, sizeof(err)), -1);
	assert_int_equal(sitd_config_parse(text, strlen(text), b, BIG_N + 1, err2, sizeof(err2)), -1);
	assert_string_equal(err, "10001: tunnel \"t5000\" given twice");
	assert_string_equal(err, err2);
	free(text);
	/* The reload: t4000..t4999 go, n4000..n4999 come at the end. */
	text = big_file(BIG_N, 4000, 5000, "");
	sitd_hindex_init(&ix, mem, slots);
	assert_int_equal(sitd_config_parse_ix(text, strlen(text), b, BIG_N + 1, &ix, err, sizeof(err)),
			 BIG_N);
	sitd_config_diff_ix(a, BIG_N, b, BIG_N, &ix, keep, add);
	sitd_config_diff(a, BIG_N, b, BIG_N, keep2, add2);
	assert_memory_equal(keep, keep2, BIG_N * sizeof(*keep));
	assert_memory_equal(add, add2, BIG_N * sizeof(*add));
	for (unsigned i = 0; i < BIG_N; i++) {
		kept += keep[i];
		added += add[i];
		assert_true(keep[i] == (i < 4000 || i >= 5000));
	}
	assert_int_equal(kept, BIG_N - 1000);
	assert_int_equal(added, 1000);
	free(text);
	free(mem);
	free(a);
	free(b);
	free(keep);
	free(add);
	free(keep2);
	free(add2);
}

/*
 * A reload of an IPv6 tunnel: each ip6tnl setting is part of the comparison, so a change
 * to any one restarts the tunnel; the same words in another order, or a default written
 * out, keep it.
 */
static void test_diff6(void **state)
{
	static const char base[] = "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1";
	static const struct {
		const char *text;
		bool keep;
	} next[] = {
		{ "tunnel t6 local 2001:db8::1 remote 2001:db8::2 mode ipv6/ipv6", true },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 encaplimit 4 hoplimit 64 "
		  "tclass 0x00 flowlabel 0x0 noallow-localremote", true },	/* the defaults written out */
		{ "tunnel t6 mode ipip6 remote 2001:db8::2 local 2001:db8::1", false },
		{ "tunnel t6 mode any remote 2001:db8::2 local 2001:db8::1", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::3 local 2001:db8::1", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::4", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 encaplimit 3", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 encaplimit none", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 hoplimit 63", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 hoplimit inherit", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 tclass 0x20", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 tclass inherit", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 flowlabel 0x1", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 flowlabel inherit", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 dscp inherit", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 allow-localremote", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 dev eth0", false },
		{ "tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1 mtu 1400", false },
		/* The same name now a sit tunnel: another underlay altogether. */
		{ "tunnel t6 mode sit remote 192.0.2.2 local 192.0.2.1", false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(next); i++) {
		struct sitd_conf o, nx;
		bool keep, add;

		parse_one(&o, base);
		parse_one(&nx, next[i].text);
		sitd_config_diff(&o, 1, &nx, 1, &keep, &add);
		if (keep != next[i].keep || add == next[i].keep)
			fail_msg("reload to \"%s\": keep %d, add %d", next[i].text, keep, add);
	}
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(accept_cases) + ARRAY_SIZE(reject_cases) + 8];
	size_t n = 0;

	TABLE(accept_cases, test_accept);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_accept_max_tunnels);
	TABLE(reject_cases, test_reject);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_reject_then_accept);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_len_bounds);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_err_buffer);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_count);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_diff);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_many_indexed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_diff6);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
