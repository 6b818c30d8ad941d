/* SPDX-License-Identifier: MIT */
/*
 * `sitd show [-s] [-j]` (show.h): the text in `ip tunnel show` style, compared with exact
 * strings; with -s every counter and every drop reason once, with its value; with -j the
 * same as JSON (RFC 8259) with stable keys, read back by a small recursive-descent parser
 * written here that records every scalar under its path ("[0].stats.drops.tx_mode"); a
 * buffer too small gets a NUL-terminated prefix of the whole and nothing past its end.
 *
 * Configurations are built field by field, not parsed, so the printer is tested alone.
 * An IPv6 underlay (ip6tnl) prints as iproute2's `ip -6 tunnel show` (ip/ip6tunnel.c's
 * print_tunnel), with JSON keys of its own; an IPv4 one's keys are left as they were.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/cli.h"
#include "proto/show.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { BIG = 1 << 16, MAXT = 3 };

/* ---- The counters, from stats.h's own lists ---- */

struct ctr {
	const char *name;
	size_t off;
};

static const struct ctr ctrs[] = {
#define CTR(name, desc) { #name, offsetof(struct sitd_stats, name) },
	SITD_COUNTERS(CTR)
#undef CTR
};

static const char *const drop_names[] = {
#define DROP(name, desc) #name,
	SITD_DROP_REASONS(DROP)
#undef DROP
};
_Static_assert(ARRAY_SIZE(drop_names) == SITD_DROP_MAX, "one name per drop reason");

#define NCTR ARRAY_SIZE(ctrs)

static uint64_t *ctr_at(struct sitd_stats *s, size_t i)
{
	return (uint64_t *)(void *)((char *)s + ctrs[i].off);
}

/* Distinct values everywhere, so that a value printed under the wrong name is caught. */
static void fill_stats(struct sitd_stats *s, uint64_t base)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < NCTR; i++)
		*ctr_at(s, i) = base + 1000003u * (i + 1);
	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		s->drop[i] = base + 7000000u + 13u * i;
}

/* ---- A JSON reader (RFC 8259): validates, and records each scalar with its path ---- */

struct jent {
	char path[128];
	char val[96];		/* a string decoded, or the literal / number as written */
	bool str;
};

static struct jent jents[2048];
static unsigned njent;

struct jp {
	const char *s;
	size_t n, i;
	int depth;
};

static void jws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
			       p->s[p->i] == '\r'))
		p->i++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool put_byte(char *out, size_t cap, size_t *k, unsigned c)
{
	if (*k + 1 >= cap)
		return false;
	out[(*k)++] = (char)c;
	return true;
}

/* A string at p->i (the opening quote), decoded into out (UTF-8). */
static bool jstring(struct jp *p, char *out, size_t cap)
{
	size_t k = 0;

	if (p->i >= p->n || p->s[p->i] != '"')
		return false;
	p->i++;
	for (;;) {
		unsigned char c;

		if (p->i >= p->n)
			return false;
		c = (unsigned char)p->s[p->i++];
		if (c == '"')
			break;
		if (c < 0x20)			/* control characters must be escaped */
			return false;
		if (c != '\\') {
			if (!put_byte(out, cap, &k, c))
				return false;
			continue;
		}
		if (p->i >= p->n)
			return false;
		c = (unsigned char)p->s[p->i++];
		switch (c) {
		case '"': case '\\': case '/':
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u': {
			unsigned u = 0;

			if (p->i + 4 > p->n)
				return false;
			for (int j = 0; j < 4; j++) {
				int h = hexval(p->s[p->i++]);

				if (h < 0)
					return false;
				u = u << 4 | (unsigned)h;
			}
			if (u >= 0xd800 && u < 0xe000)	/* no surrogates in what sitd prints */
				return false;
			if (u < 0x80) {
				c = (unsigned char)u;
				break;
			}
			if (u < 0x800) {
				if (!put_byte(out, cap, &k, 0xc0 | u >> 6))
					return false;
			} else {
				if (!put_byte(out, cap, &k, 0xe0 | u >> 12) ||
				    !put_byte(out, cap, &k, 0x80 | (u >> 6 & 0x3f)))
					return false;
			}
			c = (unsigned char)(0x80 | (u & 0x3f));
			break;
		}
		default:
			return false;
		}
		if (!put_byte(out, cap, &k, c))
			return false;
	}
	out[k] = '\0';
	return true;
}

static bool jdigits(struct jp *p)
{
	size_t start = p->i;

	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > start;
}

static bool jnumber(struct jp *p)
{
	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (!jdigits(p))
		return false;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (!jdigits(p))
			return false;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!jdigits(p))
			return false;
	}
	return true;
}

static bool record(const char *path, const char *val, size_t len, bool str)
{
	struct jent *e;

	if (njent == ARRAY_SIZE(jents) || strlen(path) >= sizeof(e->path) || len >= sizeof(e->val))
		return false;
	e = &jents[njent++];
	strcpy(e->path, path);
	memcpy(e->val, val, len);
	e->val[len] = '\0';
	e->str = str;
	return true;
}

static bool jvalue(struct jp *p, const char *path);

static bool jobject(struct jp *p, const char *path)
{
	char key[96], sub[128];

	p->i++;
	jws(p);
	if (p->i < p->n && p->s[p->i] == '}') {
		p->i++;
		return true;
	}
	for (;;) {
		jws(p);
		if (!jstring(p, key, sizeof(key)))
			return false;
		if ((size_t)snprintf(sub, sizeof(sub), "%s.%s", path, key) >= sizeof(sub))
			return false;
		jws(p);
		if (p->i >= p->n || p->s[p->i++] != ':')
			return false;
		if (!jvalue(p, sub))
			return false;
		jws(p);
		if (p->i >= p->n)
			return false;
		if (p->s[p->i] == '}') {
			p->i++;
			return true;
		}
		if (p->s[p->i++] != ',')
			return false;
	}
}

static bool jarray(struct jp *p, const char *path)
{
	char sub[128];

	p->i++;
	jws(p);
	if (p->i < p->n && p->s[p->i] == ']') {
		p->i++;
		return true;
	}
	for (unsigned k = 0;; k++) {
		if ((size_t)snprintf(sub, sizeof(sub), "%s[%u]", path, k) >= sizeof(sub))
			return false;
		if (!jvalue(p, sub))
			return false;
		jws(p);
		if (p->i >= p->n)
			return false;
		if (p->s[p->i] == ']') {
			p->i++;
			return true;
		}
		if (p->s[p->i++] != ',')
			return false;
	}
}

static bool jvalue(struct jp *p, const char *path)
{
	char sbuf[96];
	size_t start;
	bool ok;

	jws(p);
	if (p->i >= p->n || p->depth > 16)
		return false;
	start = p->i;
	switch (p->s[p->i]) {
	case '{':
		p->depth++;
		ok = jobject(p, path);
		p->depth--;
		return ok;
	case '[':
		p->depth++;
		ok = jarray(p, path);
		p->depth--;
		return ok;
	case '"':
		return jstring(p, sbuf, sizeof(sbuf)) && record(path, sbuf, strlen(sbuf), true);
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = { "true", "false", "null" };

		for (size_t k = 0; k < ARRAY_SIZE(lit); k++) {
			size_t l = strlen(lit[k]);

			if (p->n - p->i >= l && !memcmp(p->s + p->i, lit[k], l)) {
				p->i += l;
				return record(path, lit[k], l, false);
			}
		}
		return false;
	}
	default:
		return jnumber(p) && record(path, p->s + start, p->i - start, false);
	}
}

/* Parse the whole of s as one JSON text; false when it is not JSON. */
static bool json_parse(const char *s)
{
	struct jp p = { .s = s, .n = strlen(s), .i = 0, .depth = 0 };

	njent = 0;
	if (!jvalue(&p, ""))
		return false;
	jws(&p);
	return p.i == p.n;
}

static unsigned jcount(const char *path)
{
	unsigned n = 0;

	for (unsigned i = 0; i < njent; i++)
		n += !strcmp(jents[i].path, path);
	return n;
}

/* The one scalar at path: it must be there exactly once. */
static const struct jent *jget(const char *path)
{
	for (unsigned i = 0; i < njent; i++)
		if (!strcmp(jents[i].path, path)) {
			if (jcount(path) != 1)
				fail_msg("JSON key %s appears %u times", path, jcount(path));
			return &jents[i];
		}
	fail_msg("JSON key %s missing", path);
	return NULL;
}

static void jexpect_str(const char *path, const char *want)
{
	const struct jent *e = jget(path);

	if (!e->str)
		fail_msg("JSON %s is %s, not a string", path, e->val);
	assert_string_equal(e->val, want);
}

static void jexpect_lit(const char *path, const char *want)
{
	const struct jent *e = jget(path);

	if (e->str)
		fail_msg("JSON %s is the string \"%s\", not %s", path, e->val, want);
	assert_string_equal(e->val, want);
}

static void jexpect_u64(const char *path, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	jexpect_lit(path, buf);
}

/* The parser itself: what it must refuse, so that a pass below means something. */
static void test_json_reader(void **state)
{
	static const char *const bad[] = {
		"", "[", "[}", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "[\"a\"b\"]", "[\"\x01\"]",
		"[\"a\\q\"]", "[01]", "[1.]", "[-]", "[tru]", "{a:1}", "[1] [2]", "[\"\\u12\"]",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (json_parse(bad[i]))
			fail_msg("the JSON reader accepted %s", bad[i]);
	assert_true(json_parse(" [ {\"a\\\"b\" : \"x\\\\y\\u0041\", \"n\":[true,false,null,-0.5e+3]} ]\n"));
	assert_int_equal(njent, 5);
	jexpect_str("[0].a\"b", "x\\yA");
	jexpect_lit("[0].n[3]", "-0.5e+3");
	jexpect_lit("[0].n[2]", "null");
}

/* ---- Configurations ---- */

#define SIT1 { .name = "sit1", .mode = SITD_MODE_SIT, .remote = 0xc0000202u, .local = 0xc0000201u, \
	       .pmtudisc = true, .mtu = 1480 }
#define IPIP1 { .name = "ipip1", .dev = "eth0", .mode = SITD_MODE_IPIP, .remote = 0xc6336407u, \
		.ttl = 64, .tos = 0x21, .pmtudisc = true, .mtu = 1480 }
#define ANYGUE { .name = "t", .mode = SITD_MODE_ANY, .remote = 0xcb007105u, .tos = SITD_TOS_INHERIT, \
		 .pmtudisc = false, .mtu = 1468, .encap = SITD_ENCAP_GUE, .encap_sport = 4000, \
		 .encap_dport = 6080, .encap_csum = true, .nogso = true, .nogro = true }
#define SIT2FOU { .name = "sit2", .mode = SITD_MODE_SIT, .remote = 0xc0000209u, .local = 0xc6336401u, \
		  .ttl = 255, .tos = 0x10, .pmtudisc = true, .mtu = 1472, .encap = SITD_ENCAP_FOU, \
		  .encap_dport = 5555 }

struct text_case {
	const char *name;
	unsigned n;
	struct sitd_conf conf[MAXT];
	const char *want;
};

static const struct text_case text_cases[] = {
	{ "text: sit, local, ttl inherit, mtu (the integration test's line)", 1, { SIT1 },
	  "sit1: ipv6/ip remote 192.0.2.2 local 192.0.2.1 ttl inherit mtu 1480\n" },
	{ "text: ipip, local any, dev, ttl 64, tos inherit/0x20", 1, { IPIP1 },
	  "ipip1: ip/ip remote 198.51.100.7 local any dev eth0 ttl 64 tos inherit/0x20 mtu 1480\n" },
	{ "text: any, tos inherit, nopmtudisc, encap gue with ports and csum, nogso nogro", 1, { ANYGUE },
	  "t: any/ip remote 203.0.113.5 local any ttl inherit tos inherit nopmtudisc encap gue "
	  "encap-sport 4000 encap-dport 6080 encap-csum mtu 1468 nogso nogro\n" },
	{ "text: sit over fou, encap-sport auto, ttl 255, tos 0x10", 1, { SIT2FOU },
	  "sit2: ipv6/ip remote 192.0.2.9 local 198.51.100.1 ttl 255 tos 0x10 encap fou "
	  "encap-sport auto encap-dport 5555 mtu 1472\n" },
	{ "text: three tunnels, one line each, in the order given", 3, { SIT2FOU, SIT1, IPIP1 },
	  "sit2: ipv6/ip remote 192.0.2.9 local 198.51.100.1 ttl 255 tos 0x10 encap fou "
	  "encap-sport auto encap-dport 5555 mtu 1472\n"
	  "sit1: ipv6/ip remote 192.0.2.2 local 192.0.2.1 ttl inherit mtu 1480\n"
	  "ipip1: ip/ip remote 198.51.100.7 local any dev eth0 ttl 64 tos inherit/0x20 mtu 1480\n" },
	{ "text: takeover, after nogso nogro", 1,
	  { { .name = "sit1", .mode = SITD_MODE_SIT, .remote = 0xc0000202u, .pmtudisc = true,
	      .nogso = true, .nogro = true, .takeover = true } },
	  "sit1: ipv6/ip remote 192.0.2.2 local any ttl inherit nogso nogro takeover\n" },
	{ "text: no tunnel: nothing", 0, { SIT1 }, "" },
};

static struct sitd_stats stats[MAXT];
static struct sitd_show_tunnel shown[MAXT];
static char buf[BIG];

static void setup_shown(const struct sitd_conf *conf, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		fill_stats(&stats[i], 100000000u * i);
		shown[i] = (struct sitd_show_tunnel){ .conf = &conf[i], .stats = &stats[i],
						      .path_mtu = 1400 + 11 * i };
	}
}

/* Format into buf (large); the result must be a NUL-terminated string of the returned length. */
static size_t format(unsigned n, bool st, bool json)
{
	size_t len;

	memset(buf, 'Z', sizeof(buf));
	len = sitd_show_format(buf, sizeof(buf), shown, n, st, json);
	assert_true(len < sizeof(buf) - 1);	/* not cut */
	assert_int_equal(strlen(buf), len);
	return len;
}

static void test_text(void **state)
{
	const struct text_case *c = *state;

	setup_shown(c->conf, c->n);
	assert_int_equal(format(c->n, false, false), strlen(c->want));
	assert_string_equal(buf, c->want);
}

/* The tunnel's settings as JSON, against its configuration. */
static void check_json_conf(unsigned i, const struct sitd_conf *c, const char *text_line)
{
	const char *mode = c->mode == SITD_MODE_SIT ? "ipv6/ip" : c->mode == SITD_MODE_IPIP ? "ip/ip" : "any/ip";
	char p[64], v[32];

#define K(key) (snprintf(p, sizeof(p), "[%u].%s", i, key), p)
	jexpect_str(K("ifname"), c->name);
	jexpect_str(K("mode"), mode);
	snprintf(v, sizeof(v), "%u.%u.%u.%u", c->remote >> 24, c->remote >> 16 & 255, c->remote >> 8 & 255,
		 c->remote & 255);
	jexpect_str(K("remote"), v);
	if (c->local)
		snprintf(v, sizeof(v), "%u.%u.%u.%u", c->local >> 24, c->local >> 16 & 255,
			 c->local >> 8 & 255, c->local & 255);
	jexpect_str(K("local"), c->local ? v : "any");
	if (c->ttl)
		jexpect_u64(K("ttl"), c->ttl);
	else
		jexpect_str(K("ttl"), "inherit");
	jexpect_lit(K("pmtudisc"), c->pmtudisc ? "true" : "false");
	if (c->mtu)	/* 0, "not known yet", is left out */
		jexpect_u64(K("mtu"), c->mtu);
	jexpect_lit(K("gso"), c->nogso ? "false" : "true");
	jexpect_lit(K("gro"), c->nogro ? "false" : "true");
	/* Additive: the key only when set, so the keys of every other line stay as they were. */
	if (c->takeover)
		jexpect_lit(K("takeover"), "true");
	else
		assert_int_equal(jcount(K("takeover")), 0);
	if (c->dev[0])
		jexpect_str(K("dev"), c->dev);
	else
		assert_int_equal(jcount(K("dev")), 0);
	if (c->encap != SITD_ENCAP_NONE) {
		jexpect_str(K("encap"), c->encap == SITD_ENCAP_FOU ? "fou" : "gue");
		jexpect_u64(K("encap_dport"), c->encap_dport);
		jexpect_lit(K("encap_csum"), c->encap_csum ? "true" : "false");
		if (c->encap_sport)
			jexpect_u64(K("encap_sport"), c->encap_sport);
		else
			jexpect_str(K("encap_sport"), "auto");
	} else {
		assert_int_equal(jcount(K("encap")), 0);
	}
	/* The tos value is the text's, where the text has one. */
	if (c->tos) {
		const char *t = strstr(text_line, " tos ");

		assert_non_null(t);
		jget(K("tos"));
		assert_memory_equal(t + 5, jget(K("tos"))->val, strlen(jget(K("tos"))->val));
	} else {
		assert_int_equal(jcount(K("tos")), 0);
	}
#undef K
}

/* The same configurations as JSON: it parses, one object per tunnel, every stable key once. */
static void test_json(void **state)
{
	const struct text_case *c = *state;
	char p[32];

	setup_shown(c->conf, c->n);
	for (int st = 0; st <= 1; st++) {
		format(c->n, st, true);
		if (!json_parse(buf))
			fail_msg("not JSON: %s", buf);
		assert_int_equal(buf[strlen(buf) - 1], '\n');
		for (unsigned i = 0; i < c->n; i++) {
			const char *line = c->want;

			for (unsigned k = 0; k < i; k++)
				line = strchr(line, '\n') + 1;
			check_json_conf(i, &c->conf[i], line);
			snprintf(p, sizeof(p), "[%u].stats.path_mtu", i);
			assert_int_equal(jcount(p), (unsigned)st);
		}
		snprintf(p, sizeof(p), "[%u].ifname", c->n);
		assert_int_equal(jcount(p), 0);
	}
}

/* A small case compared whole, and an empty list. */
static void test_json_exact(void **state)
{
	static const struct sitd_conf c[2] = { SIT1, IPIP1 };

	(void)state;
	setup_shown(c, 2);
	format(1, false, true);
	assert_string_equal(buf, "[{\"ifname\":\"sit1\",\"mode\":\"ipv6/ip\",\"remote\":\"192.0.2.2\","
				 "\"local\":\"192.0.2.1\",\"ttl\":\"inherit\",\"pmtudisc\":true,"
				 "\"mtu\":1480,\"gso\":true,\"gro\":true}]\n");
	format(2, false, true);
	assert_string_equal(buf, "[{\"ifname\":\"sit1\",\"mode\":\"ipv6/ip\",\"remote\":\"192.0.2.2\","
				 "\"local\":\"192.0.2.1\",\"ttl\":\"inherit\",\"pmtudisc\":true,"
				 "\"mtu\":1480,\"gso\":true,\"gro\":true},"
				 "{\"ifname\":\"ipip1\",\"mode\":\"ip/ip\",\"remote\":\"198.51.100.7\","
				 "\"local\":\"any\",\"dev\":\"eth0\",\"ttl\":64,\"tos\":\"inherit/0x20\","
				 "\"pmtudisc\":true,\"mtu\":1480,\"gso\":true,\"gro\":true}]\n");
	format(0, false, true);
	assert_string_equal(buf, "[]\n");
	format(0, true, true);
	assert_string_equal(buf, "[]\n");
}

/* ---- An IPv6 underlay: `ip -6 tunnel show` ---- */

#define A6(...) { 0x20, 0x01, 0x0d, 0xb8, __VA_ARGS__ }
#define T6 { .name = "t6", .mode = SITD_MODE_SIT, .outer = SITD_OUTER_IPV6, \
	     .remote6 = A6([15] = 2), .local6 = A6([15] = 1), .ttl = 64, .pmtudisc = true, \
	     .encap_limit = 4, .mtu = 1452 }
#define B4 { .name = "b4", .dev = "eth0", .mode = SITD_MODE_IPIP, .outer = SITD_OUTER_IPV6, \
	     .remote6 = A6(0xff, 0xff, [15] = 1), .tos = 0xb8, .pmtudisc = true, .encap_limit = 4, \
	     .encap_limit_none = true, .flowlabel = 0x12345, .dscp_inherit = true, \
	     .allow_localremote = true, .mtu = 1460, .nogso = true }
#define ANY6 { .name = "any6", .mode = SITD_MODE_ANY, .outer = SITD_OUTER_IPV6, \
	       .remote6 = A6([15] = 9), .ttl = 1, .tos = SITD_TOS_INHERIT, .pmtudisc = true, \
	       .encap_limit = 0, .flowlabel_inherit = true, .naddrs = 1, \
	       .addrs = { { .family = 4, .len = 29, .addr = { 192, 0, 0, 2 } } } }

static const struct text_case text6_cases[] = {
	{ "text6: ip6ip6 with ip -6 tunnel add's defaults", 1, { T6 },
	  "t6: ipv6/ipv6 remote 2001:db8::2 local 2001:db8::1 encaplimit 4 hoplimit 64 tclass 0x00 "
	  "flowlabel 0x00000 (flowinfo 0x00000000) mtu 1452\n" },
	{ "text6: ipip6, dev, encaplimit none, hoplimit inherit, fixed tclass and flowlabel, dscp, "
	  "allow-localremote, nogso", 1, { B4 },
	  "b4: ip/ipv6 remote 2001:db8:ffff::1 local any dev eth0 encaplimit none hoplimit inherit "
	  "tclass 0xb8 flowlabel 0x12345 (flowinfo 0x0b812345) dscp inherit allow-localremote mtu 1460 "
	  "nogso\n" },
	{ "text6: any, encaplimit 0, tclass and flowlabel inherit, an address, mtu not known yet", 1,
	  { ANY6 },
	  "any6: any/ipv6 remote 2001:db8::9 local any encaplimit 0 hoplimit 1 tclass inherit "
	  "flowlabel inherit (flowinfo 0x00000000) address 192.0.0.2/29\n" },
	{ "text6: beside sit, in the order given", 2, { T6, SIT1 },
	  "t6: ipv6/ipv6 remote 2001:db8::2 local 2001:db8::1 encaplimit 4 hoplimit 64 tclass 0x00 "
	  "flowlabel 0x00000 (flowinfo 0x00000000) mtu 1452\n"
	  "sit1: ipv6/ip remote 192.0.2.2 local 192.0.2.1 ttl inherit mtu 1480\n" },
};

/* The JSON, whole: the new keys, and none of sit's ttl, tos, pmtudisc. */
static void test_json6_exact(void **state)
{
	static const struct sitd_conf c[3] = { T6, B4, SIT1 };

	(void)state;
	setup_shown(c, 3);
	format(3, false, true);
	assert_string_equal(buf,
		"[{\"ifname\":\"t6\",\"mode\":\"ipv6/ipv6\",\"outer\":\"ipv6\",\"remote\":\"2001:db8::2\","
		"\"local\":\"2001:db8::1\",\"encaplimit\":4,\"hoplimit\":64,\"tclass\":\"0x00\","
		"\"flowlabel\":\"0x00000\",\"flowinfo\":\"0x00000000\",\"dscp_inherit\":false,"
		"\"allow_localremote\":false,\"mtu\":1452,\"gso\":true,\"gro\":true},"
		"{\"ifname\":\"b4\",\"mode\":\"ip/ipv6\",\"outer\":\"ipv6\",\"remote\":\"2001:db8:ffff::1\","
		"\"local\":\"any\",\"dev\":\"eth0\",\"encaplimit\":\"none\",\"hoplimit\":\"inherit\","
		"\"tclass\":\"0xb8\",\"flowlabel\":\"0x12345\",\"flowinfo\":\"0x0b812345\","
		"\"dscp_inherit\":true,\"allow_localremote\":true,\"mtu\":1460,\"gso\":false,\"gro\":true},"
		"{\"ifname\":\"sit1\",\"mode\":\"ipv6/ip\",\"remote\":\"192.0.2.2\","
		"\"local\":\"192.0.2.1\",\"ttl\":\"inherit\",\"pmtudisc\":true,"
		"\"mtu\":1480,\"gso\":true,\"gro\":true}]\n");
}

/* Parsed back: every key once, the text's values, and with -s the counters too. */
static void test_json6(void **state)
{
	static const struct sitd_conf c[3] = { T6, B4, ANY6 };
	static const char *const gone[] = { "ttl", "tos", "pmtudisc", "encap", "6rd", "prl" };
	char p[64];

	(void)state;
	setup_shown(c, 3);
	for (int st = 0; st <= 1; st++) {
		format(3, st, true);
		if (!json_parse(buf))
			fail_msg("not JSON: %s", buf);
		for (unsigned i = 0; i < 3; i++) {
#define K(key) (snprintf(p, sizeof(p), "[%u].%s", i, key), p)
			jexpect_str(K("outer"), "ipv6");
			for (size_t g = 0; g < ARRAY_SIZE(gone); g++)
				assert_int_equal(jcount(K(gone[g])), 0);
			assert_int_equal(jcount(K("stats.path_mtu")), (unsigned)st);
		}
		jexpect_str("[2].mode", "any/ipv6");
		jexpect_str("[2].remote", "2001:db8::9");
		jexpect_u64("[2].encaplimit", 0);
		jexpect_u64("[2].hoplimit", 1);
		jexpect_str("[2].tclass", "inherit");
		jexpect_str("[2].flowlabel", "inherit");
		jexpect_str("[2].addresses[0]", "192.0.0.2/29");
		assert_int_equal(jcount("[2].mtu"), 0);
		jexpect_lit("[1].dscp_inherit", "true");
		jexpect_lit("[0].allow_localremote", "false");
#undef K
	}
}

/* `sitd status`: the process line, then the refused system calls, text and JSON. */
static void test_status(void **state)
{
	static const char *const names[] = { "uname", "kill" };
	static const uint64_t counts[] = { 1, 7 };
	struct sitd_stats st;
	struct sitd_show_process sp = { .pid = 42, .uid = 65534, .tunnels = 2, .workers = 1,
					.paths = "", .stats = &st };

	(void)state;
	memset(&st, 0, sizeof(st));
	st.drop[SITD_DROP_rx_no_tunnel] = 3;
	sitd_show_status(buf, BIG, &sp, false);
	assert_non_null(strstr(buf, "sitd: pid 42, uid 65534, 2 tunnel(s), 1 worker(s)\n"));
	assert_non_null(strstr(buf, "  drop rx_no_tunnel 3\n"));
	assert_null(strstr(buf, "refused"));
	sp.refused_names = names;
	sp.refused_counts = counts;
	sp.nrefused = 2;
	sitd_show_status(buf, BIG, &sp, false);
	assert_non_null(strstr(buf, "  refused syscall uname 1\n  refused syscall kill 7\n"));
	sitd_show_status(buf, BIG, &sp, true);
	assert_true(json_parse(buf));
	jexpect_lit(".pid", "42");
	jexpect_lit(".uid", "65534");
	jexpect_lit(".drops.rx_no_tunnel", "3");
	jexpect_lit(".refused_syscalls.uname", "1");
	jexpect_lit(".refused_syscalls.kill", "7");
	sp.netlink_overruns = 5;
	sp.netlink_resyncs = 4;
	sitd_show_status(buf, BIG, &sp, false);
	assert_non_null(strstr(buf, "  netlink overruns 5, resyncs 4\n"));
	sitd_show_status(buf, BIG, &sp, true);
	assert_true(json_parse(buf));
	jexpect_lit(".netlink_overruns", "5");
	jexpect_lit(".netlink_resyncs", "4");
	/* netns: the block after the monitor clients'. */
	sp.netns_lost = 2;
	sp.netns_back = 1;
	sitd_show_status(buf, BIG, &sp, false);
	assert_non_null(strstr(buf, "  netns lost 2, back 1\n"));
	sitd_show_status(buf, BIG, &sp, true);
	assert_true(json_parse(buf));
	jexpect_lit(".netns_lost", "2");
	jexpect_lit(".netns_back", "1");
}

/* netns: where the device lives, and whether that namespace is gone; no key without. */
static void test_netns(void **state)
{
	struct sitd_conf c;
	struct sitd_show_tunnel t = { .conf = &c };

	(void)state;
	memset(&c, 0, sizeof(c));
	strcpy(c.name, "sit1");
	c.mode = SITD_MODE_SIT;
	c.remote = 0xc0000202;
	c.pmtudisc = true;
	sitd_show_format(buf, BIG, &t, 1, false, false);
	assert_null(strstr(buf, "netns"));
	sitd_show_format(buf, BIG, &t, 1, false, true);
	assert_null(strstr(buf, "netns"));
	strcpy(c.netns, "c1");
	t.netns_gone = true;
	sitd_show_format(buf, BIG, &t, 1, false, false);
	assert_non_null(strstr(buf, " netns c1 (netns gone)\n"));
	sitd_show_format(buf, BIG, &t, 1, false, true);
	assert_true(json_parse(buf));
	jexpect_lit("[0].netns_gone", "true");
	assert_int_equal(jcount("[0].netns"), 1);
}

/* How many times needle occurs in hay. */
static unsigned occurrences(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *s = hay; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* -s in text: after each tunnel's line, path_mtu, every counter and every drop, once each. */
static void test_text_stats(void **state)
{
	static const struct sitd_conf c[2] = { SIT1, ANYGUE };
	char want[128];
	size_t len;

	(void)state;
	setup_shown(c, 2);
	stats[1].drop[SITD_DROP_tun_write_error] = UINT64_MAX;
	len = format(2, true, false);
	assert_int_equal(occurrences(buf, "\n"), 2 * (2 + NCTR + SITD_DROP_MAX));
	assert_int_equal(buf[len - 1], '\n');
	assert_memory_equal(buf, text_cases[0].want, strlen(text_cases[0].want));
	assert_int_equal(occurrences(buf, text_cases[2].want), 1);
	for (unsigned t = 0; t < 2; t++) {
		snprintf(want, sizeof(want), "\n    path_mtu %u\n", 1400 + 11 * t);
		assert_int_equal(occurrences(buf, want), 1);
		for (size_t i = 0; i < NCTR; i++) {
			snprintf(want, sizeof(want), "\n    %s %llu\n", ctrs[i].name,
				 (unsigned long long)*ctr_at(&stats[t], i));
			if (occurrences(buf, want) != 1)
				fail_msg("\"%s\" appears %u times", want + 1, occurrences(buf, want));
		}
		for (size_t i = 0; i < SITD_DROP_MAX; i++) {
			snprintf(want, sizeof(want), "\n    drop %s %llu\n", drop_names[i],
				 (unsigned long long)stats[t].drop[i]);
			if (occurrences(buf, want) != 1)
				fail_msg("\"%s\" appears %u times", want + 1, occurrences(buf, want));
		}
	}
	/* Each counter's name once per tunnel, so twice in all, and nothing else named so. */
	for (size_t i = 0; i < NCTR; i++) {
		snprintf(want, sizeof(want), "\n    %s ", ctrs[i].name);
		assert_int_equal(occurrences(buf, want), 2);
	}
	for (size_t i = 0; i < SITD_DROP_MAX; i++) {
		snprintf(want, sizeof(want), "\n    drop %s ", drop_names[i]);
		assert_int_equal(occurrences(buf, want), 2);
	}
	/* The second tunnel's stats come after its line. */
	assert_true(strstr(buf, text_cases[2].want) < strstr(buf, "\n    path_mtu 1411\n"));
	assert_non_null(strstr(buf, "\n    drop tun_write_error 18446744073709551615\n"));
}

/* -s -j: stats.path_mtu, stats.<counter> and stats.drops.<reason> for every one, once. */
static void test_json_stats(void **state)
{
	static const struct sitd_conf c[2] = { IPIP1, SIT2FOU };
	char p[96];
	unsigned drops = 0;

	(void)state;
	setup_shown(c, 2);
	stats[0].tx_packets = UINT64_MAX;
	format(2, true, true);
	if (!json_parse(buf))
		fail_msg("not JSON: %s", buf);
	for (unsigned t = 0; t < 2; t++) {
		snprintf(p, sizeof(p), "[%u].stats.path_mtu", t);
		jexpect_u64(p, 1400 + 11 * t);
		for (size_t i = 0; i < NCTR; i++) {
			snprintf(p, sizeof(p), "[%u].stats.%s", t, ctrs[i].name);
			jexpect_u64(p, *ctr_at(&stats[t], i));
		}
		for (size_t i = 0; i < SITD_DROP_MAX; i++) {
			snprintf(p, sizeof(p), "[%u].stats.drops.%s", t, drop_names[i]);
			jexpect_u64(p, stats[t].drop[i]);
		}
	}
	jexpect_lit("[0].stats.tx_packets", "18446744073709551615");
	/* Nothing else under drops: one key per reason. */
	for (unsigned i = 0; i < njent; i++)
		drops += !strncmp(jents[i].path, "[1].stats.drops.", 16);
	assert_int_equal(drops, SITD_DROP_MAX);
	/* And nothing else at all: ipip1 has 11 settings (dev, tos), sit2 14 (tos, 4 of encap). */
	assert_int_equal(njent, 2 * (1 + NCTR + SITD_DROP_MAX) + 11 + 14);
}

/*
 * Names and devices are any bytes the kernel's dev_valid_name() allows, and the command
 * line accepts them; JSON must still parse and give the name back (RFC 8259 7: '"', '\'
 * and control characters escaped).
 */
struct esc_case {
	const char *name;
	const char *ifname;
	const char *dev;
};

static const struct esc_case esc_cases[] = {
	{ "json: a name with a double quote stays JSON", "sit\"1", "" },
	{ "json: a name with a backslash stays JSON", "sit\\1", "" },
	{ "json: a name with a control byte (0x01) stays JSON", "sit\x01", "" },
	{ "json: a dev with a double quote stays JSON", "sit1", "e\"th0" },
};

static void test_json_escape(void **state)
{
	const struct esc_case *e = *state;
	const char *argv[] = { e->ifname, "mode", "sit", "remote", "192.0.2.2", "dev",
			       e->dev[0] ? e->dev : "eth0" };
	struct sitd_conf c;
	char err[256];

	/* A configuration sitd accepts (and so can show). */
	if (sitd_cli_parse(7, argv, &c, err, sizeof(err)))
		fail_msg("%s", err);
	if (!e->dev[0])
		c.dev[0] = '\0';
	setup_shown(&c, 1);
	for (int st = 0; st <= 1; st++) {
		format(1, st, true);
		if (!json_parse(buf))
			fail_msg("not JSON: %s", buf);
		jexpect_str("[0].ifname", e->ifname);
		if (e->dev[0])
			jexpect_str("[0].dev", e->dev);
	}
}

/* ---- A buffer too small: a NUL-terminated prefix, nothing written past cap ---- */

struct short_case {
	const char *name;
	bool stats, json;
};

static const struct short_case short_cases[] = {
	{ "short buffer: text", false, false },
	{ "short buffer: text -s", true, false },
	{ "short buffer: json", false, true },
	{ "short buffer: json -s", true, true },
};

static void test_short(void **state)
{
	const struct short_case *c = *state;
	static const struct sitd_conf conf[2] = { SIT1, ANYGUE };
	static char full[BIG], out[BIG + 64];
	size_t flen, caps[16], ncap = 0;

	setup_shown(conf, 2);
	flen = format(2, c->stats, c->json);
	memcpy(full, buf, flen + 1);
	for (size_t k = 1; k <= 3; k++)
		caps[ncap++] = k;
	caps[ncap++] = 17;
	caps[ncap++] = flen / 2;
	caps[ncap++] = flen - 1;
	caps[ncap++] = flen;		/* the NUL does not fit: the last byte is cut */
	caps[ncap++] = flen + 1;	/* exactly fits */
	caps[ncap++] = flen + 2;
	for (size_t k = 0; k < ncap; k++) {
		size_t cap = caps[k], want = flen < cap ? flen : cap - 1, got;

		memset(out, 'Z', sizeof(out));
		got = sitd_show_format(out, cap, shown, 2, c->stats, c->json);
		if (got != want)
			fail_msg("cap %zu: returned %zu, expected %zu", cap, got, want);
		assert_int_equal(out[want], '\0');
		assert_memory_equal(out, full, want);
		for (size_t j = cap; j < cap + 64; j++)
			if (out[j] != 'Z')
				fail_msg("cap %zu: byte %zu written", cap, j);
	}
	/* cap 0: nothing at all is written. */
	memset(out, 'Z', sizeof(out));
	assert_int_equal(sitd_show_format(out, 0, shown, 2, c->stats, c->json), 0);
	assert_int_equal(out[0], 'Z');
}

/*
 * Streamed (requests.c): the parts of a list, at every split into two or three (the
 * first holding a tunnel, the others perhaps none), put together are the whole list,
 * text and JSON, with and without counters.
 */
static void test_parts(void **state)
{
	static const struct sitd_conf conf[3] = { SIT2FOU, SIT1, IPIP1 };
	static char full[BIG], joined[BIG];

	(void)state;
	setup_shown(conf, 3);
	for (int m = 0; m < 4; m++) {
		bool st = m & 1, json = m & 2;
		size_t flen = format(3, st, json);

		memcpy(full, buf, flen + 1);
		for (unsigned a = 1; a <= 3; a++) {
			for (unsigned b = a; b <= 3; b++) {
				size_t len = 0;

				len += sitd_show_part(joined + len, sizeof(joined) - len, shown, a, st, json,
						      true, false);
				len += sitd_show_part(joined + len, sizeof(joined) - len, shown + a, b - a,
						      st, json, false, false);
				len += sitd_show_part(joined + len, sizeof(joined) - len, shown + b, 3 - b,
						      st, json, false, true);
				assert_int_equal(len, flen);
				assert_string_equal(joined, full);
			}
		}
	}
	/* An empty list in one part: "[]" as the whole's. */
	assert_int_equal(sitd_show_part(joined, sizeof(joined), shown, 0, false, true, true, true), 3);
	assert_string_equal(joined, "[]\n");
}

#define TABLE(arr, fn)                                                                     \
	for (size_t i = 0; i < ARRAY_SIZE(arr); i++)                                      \
		tests[n++] = (struct CMUnitTest){ .name = (arr)[i].name, .test_func = (fn), \
						  .initial_state = (void *)(uintptr_t)&(arr)[i] }

/* clamp-mss and keepalive: their keys, the state of each kind, the text line. */
static void test_clamp_keepalive(void **state)
{
	struct sitd_conf c[3] = { IPIP1, IPIP1, IPIP1 };
	struct sitd_show_keepalive ka[3] = {
		{ .up = true, .since_rx = 2, .transitions = 4, .sent = 10, .answered = 9 },
		{ .up = false, .since_rx = -1, .sent = 3, .no_source = 1 },
		{ .since_rx = -1 },
	};

	(void)state;
	for (int i = 0; i < 2; i++) {
		c[i].keepalive = 5;
		c[i].keepalive_retries = 3;
		c[i].keepalive_peer_family = 4;
		memcpy(c[i].keepalive_peer, (const uint8_t[]){ 198, 51, 100, 9 }, 4);
	}
	c[0].clamp_mss = true;
	c[1].clamp_mss = true;
	c[1].clamp_mss_n = 1200;
	setup_shown(c, 3);
	for (int i = 0; i < 3; i++)
		shown[i].ka = &ka[i];
	format(3, false, true);
	if (!json_parse(buf))
		fail_msg("not JSON: %s", buf);
	jexpect_u64("[0].clamp_mss", 0);
	jexpect_u64("[1].clamp_mss", 1200);
	assert_int_equal(jcount("[2].clamp_mss"), 0);
	jexpect_u64("[0].keepalive", 5);
	jexpect_u64("[0].keepalive_retries", 3);
	jexpect_str("[0].keepalive_peer", "198.51.100.9");
	jexpect_str("[0].keepalive_state.state", "up");
	jexpect_u64("[0].keepalive_state.since_rx", 2);
	jexpect_u64("[0].keepalive_state.transitions", 4);
	jexpect_u64("[0].keepalive_state.sent", 10);
	jexpect_u64("[0].keepalive_state.answered", 9);
	jexpect_str("[1].keepalive_state.state", "down");
	assert_int_equal(jcount("[1].keepalive_state.since_rx"), 0);
	jexpect_u64("[1].keepalive_state.no_source", 1);
	jexpect_str("[2].keepalive_state.state", "off");
	assert_int_equal(jcount("[2].keepalive"), 0);
	format(3, false, false);
	assert_non_null(strstr(buf, " clamp-mss keepalive 5,3 keepalive-peer 198.51.100.9\n"
				    "    keepalive up, last from the remote 2s ago, transitions 4, sent 10, "
				    "answered 9, no source 0\n"));
	assert_non_null(strstr(buf, " clamp-mss 1200 keepalive 5,3 keepalive-peer 198.51.100.9\n"
				    "    keepalive down, nothing from the remote yet, transitions 0, sent 3"));
}

int main(void)
{
	static const char *json_names[ARRAY_SIZE(text_cases)];
	struct CMUnitTest tests[2 * ARRAY_SIZE(text_cases) + ARRAY_SIZE(esc_cases) +
				ARRAY_SIZE(short_cases) + ARRAY_SIZE(text6_cases) + 10];
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_json_reader);
	TABLE(text_cases, test_text);
	for (size_t i = 0; i < ARRAY_SIZE(text_cases); i++) {
		static char names[ARRAY_SIZE(text_cases)][160];

		snprintf(names[i], sizeof(names[i]), "json of the %s", text_cases[i].name);
		json_names[i] = names[i];
		tests[n++] = (struct CMUnitTest){ .name = json_names[i], .test_func = test_json,
						  .initial_state = (void *)(uintptr_t)&text_cases[i] };
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_json_exact);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_text_stats);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_json_stats);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_status);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_netns);
	TABLE(text6_cases, test_text);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_json6_exact);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_json6);
	TABLE(esc_cases, test_json_escape);
	TABLE(short_cases, test_short);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_parts);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_clamp_keepalive);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
