/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: sitd.conf(5) (sitd_config_parse, and sitd_config_parse_ix with the
 * names indexed, which must agree), then `sitd show` (sitd_show_format) over what it
 * accepted.
 *
 * Input: the file's text, as is (any bytes).
 *
 * The parse is compared with an oracle written here another way: the text cut into
 * lines, each line cut at its first "#", the rest split on blanks; a NUL byte there, a
 * word of 64 bytes or more, a word before the first "tunnel", a 257th word after
 * "tunnel" refuse the file at that word's line; each stanza, when the next "tunnel" or
 * the end of the file closes it, goes through sitd_cli_parse_at (its line is that of the
 * argument it names, else of the stanza's "tunnel"), then the cap, then duplicate names.
 * The two must agree on the verdict, on the number of tunnels, on each struct sitd_conf
 * byte for byte, and on the line of the error.  Every tunnel accepted is valid (name
 * non-empty, under 16 bytes, unique; remote non-zero unless sit's remote any or an IPv6
 * NBMA tunnel's with a local, an IPv6 underlay's ends in remote6 and local6 only), at most cap
 * of them; every error is
 * a NUL-terminated "N: message" with 1 <= N <= the number of lines, and with a short
 * error buffer it is the same cut short.  Parsed again with a small cap into an array of
 * exactly that size, so that ASan sees any write past it.
 *
 * Then sitd_show_format, text and JSON, with and without -s, with zeroed counters: into a
 * large buffer (not cut: the length returned is strlen, the text has one line per tunnel,
 * or 2 + counters + drop reasons with -s, each starting "NAME: "; the JSON is valid RFC
 * 8259 JSON, an array of one object per tunnel), into a small exact-size heap buffer (a
 * NUL-terminated prefix of the whole, the length returned is the prefix's), and into cap 0
 * (nothing written).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/cli.h"
#include "core/conf.h"
#include "core/hindex.h"
#include "proto/config.h"
#include "proto/show.h"
#include "core/stats.h"

/* The cap the fuzzer passes; the daemon sizes its array with sitd_config_count. */
enum { SITD_MAX_TUNNELS = 64 };
#include "fuzz.h"

enum {
	TEXT_MAX = 1 << 16, ERR_LEN = 512, WORDS_MAX = 256, WORD_MAX = 64,
	PER_TUNNEL = 4096,	/* show's output for one tunnel, -s included, is well under */
#define ONE(name, desc) +1
	NCTR = 0 SITD_COUNTERS(ONE),
#undef ONE
	STATS_LINES = 2 + NCTR + SITD_DROP_MAX,	/* the tunnel's, path_mtu, counters, drops */
};

/* ---- The oracle ---- */

struct otok {
	const char *w;
	size_t len;
	unsigned line;
	bool nul;		/* a NUL byte, not a word */
};

struct oracle {
	int n;			/* tunnels, or -1 */
	unsigned line;		/* of the error */
	struct sitd_conf *out;
};

static struct otok *toks;
static size_t ntok;

/* Cut the text into words and NUL markers, in order, with their lines. */
static void tokenize(const char *t, size_t size)
{
	unsigned line = 1;

	ntok = 0;
	for (size_t ls = 0; ls <= size;) {
		const char *nl = memchr(t + ls, '\n', size - ls);
		size_t le = nl ? (size_t)(nl - t) : size;
		const char *hash = memchr(t + ls, '#', le - ls);
		size_t e = hash ? (size_t)(hash - t) : le;

		for (size_t i = ls; i < e;) {
			char c = t[i];

			if (c == ' ' || c == '\t' || c == '\r') {
				i++;
				continue;
			}
			if (c == '\0') {
				toks[ntok++] = (struct otok){ .w = t + i, .len = 1, .line = line, .nul = true };
				i++;
				continue;
			}
			toks[ntok] = (struct otok){ .w = t + i, .len = 0, .line = line, .nul = false };
			while (i < e && t[i] != ' ' && t[i] != '\t' && t[i] != '\r' && t[i] != '\0')
				i++;
			toks[ntok].len = (size_t)(t + i - toks[ntok].w);
			ntok++;
		}
		if (!nl)
			break;
		ls = le + 1;
		line++;
	}
}

/* Close a stanza of nw words (words[], lines[]) begun on first_line. */
static bool oracle_finish(struct oracle *o, unsigned cap, char (*words)[WORD_MAX], const unsigned *lines,
			  int nw, unsigned first_line)
{
	const char *argv[WORDS_MAX];
	char err[256];
	int bad;

	if ((unsigned)o->n == cap) {
		o->line = first_line;
		return false;
	}
	for (int i = 0; i < nw; i++)
		argv[i] = words[i];
	if (sitd_cli_parse_at(nw, argv, &o->out[o->n], err, sizeof(err), &bad)) {
		CHECK(bad >= -1 && bad < nw);
		o->line = bad >= 0 ? lines[bad] : first_line;
		return false;
	}
	for (int k = 0; k < o->n; k++)
		if (!strcmp(o->out[k].name, o->out[o->n].name)) {
			o->line = first_line;
			return false;
		}
	o->n++;
	return true;
}

static void oracle_run(struct oracle *o, unsigned cap)
{
	static char words[WORDS_MAX][WORD_MAX];
	static unsigned lines[WORDS_MAX];
	unsigned first_line = 0;
	bool in_stanza = false;
	int nw = 0;

	o->n = 0;
	for (size_t k = 0; k < ntok; k++) {
		const struct otok *tk = &toks[k];

		if (tk->nul || tk->len >= WORD_MAX) {
			o->line = tk->line;
			o->n = -1;
			return;
		}
		if (tk->len == 6 && !memcmp(tk->w, "tunnel", 6)) {
			if (in_stanza && !oracle_finish(o, cap, words, lines, nw, first_line)) {
				o->n = -1;
				return;
			}
			in_stanza = true;
			first_line = tk->line;
			nw = 0;
			continue;
		}
		if (!in_stanza || nw == WORDS_MAX) {
			o->line = tk->line;
			o->n = -1;
			return;
		}
		memcpy(words[nw], tk->w, tk->len);
		words[nw][tk->len] = '\0';
		lines[nw++] = tk->line;
	}
	if (in_stanza && !oracle_finish(o, cap, words, lines, nw, first_line))
		o->n = -1;
}

/* ---- A JSON validator (RFC 8259); counts the elements of the top-level array ---- */

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

static bool jlit(struct jp *p, const char *lit)
{
	size_t l = strlen(lit);

	if (p->n - p->i < l || memcmp(p->s + p->i, lit, l))
		return false;
	p->i += l;
	return true;
}

static bool jstring(struct jp *p)
{
	if (p->i >= p->n || p->s[p->i] != '"')
		return false;
	for (p->i++; p->i < p->n; p->i++) {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c == '"') {
			p->i++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		if (++p->i >= p->n)
			return false;
		c = (unsigned char)p->s[p->i];
		if (c == 'u') {
			for (int k = 0; k < 4; k++) {
				if (++p->i >= p->n || !strchr("0123456789abcdefABCDEF", p->s[p->i]) ||
				    !p->s[p->i])
					return false;
			}
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
	return false;
}

static bool jdigits(struct jp *p)
{
	size_t s = p->i;

	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > s;
}

static bool jnumber(struct jp *p)
{
	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (!jdigits(p))
		return false;
	if (p->i < p->n && p->s[p->i] == '.' && (++p->i, !jdigits(p)))
		return false;
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!jdigits(p))
			return false;
	}
	return true;
}

static bool jvalue(struct jp *p, unsigned *count)
{
	char close;

	jws(p);
	if (p->i >= p->n || p->depth > 32)
		return false;
	switch (p->s[p->i]) {
	case '"':
		return jstring(p);
	case 't':
		return jlit(p, "true");
	case 'f':
		return jlit(p, "false");
	case 'n':
		return jlit(p, "null");
	case '{':
	case '[':
		break;
	default:
		return jnumber(p);
	}
	close = p->s[p->i] == '{' ? '}' : ']';
	p->i++;
	p->depth++;
	jws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
	} else {
		for (;;) {
			if (close == '}') {
				jws(p);
				if (!jstring(p))
					return false;
				jws(p);
				if (p->i >= p->n || p->s[p->i++] != ':')
					return false;
			}
			if (!jvalue(p, NULL))
				return false;
			if (count)
				(*count)++;
			jws(p);
			if (p->i >= p->n)
				return false;
			if (p->s[p->i] == close) {
				p->i++;
				break;
			}
			if (p->s[p->i++] != ',')
				return false;
		}
	}
	p->depth--;
	return true;
}

/* s is one JSON text: an array of n objects. */
static bool json_array_of(const char *s, size_t len, unsigned n)
{
	struct jp p = { .s = s, .n = len, .i = 0, .depth = 0 };
	unsigned count = 0;

	jws(&p);
	if (p.i >= p.n || s[p.i] != '[')
		return false;
	if (!jvalue(&p, &count))
		return false;
	jws(&p);
	return p.i == p.n && count == n;
}

/* ---- show ---- */

static void check_show(const struct sitd_conf *c, unsigned n, size_t small)
{
	static const struct sitd_stats zero;
	static struct sitd_show_tunnel t[SITD_MAX_TUNNELS];
	size_t cap = (size_t)n * PER_TUNNEL + 64;
	char *big = malloc(cap), *tiny = malloc(small), none = 'Z';

	CHECK(big && tiny);
	for (unsigned i = 0; i < n; i++)
		t[i] = (struct sitd_show_tunnel){ .conf = &c[i], .stats = &zero,
						  .path_mtu = c[i].mtu ? c[i].mtu : 1480 };
	for (int mode = 0; mode < 4; mode++) {
		bool stats = mode & 1, json = mode & 2;
		size_t len, m, lines = 0, want = small - 1;

		memset(big, 'Z', cap);
		len = sitd_show_format(big, cap, t, n, stats, json);
		CHECK(len + 1 < cap && strlen(big) == len);	/* not cut */
		for (size_t k = 0; k < len; k++)
			lines += big[k] == '\n';
		if (json) {
			CHECK(json_array_of(big, len, n));
			CHECK(lines == 1);
		} else {
			const char *l = big;

			CHECK(lines == n * (stats ? STATS_LINES : 1));
			for (unsigned i = 0; i < n; i++) {
				size_t nl = strlen(c[i].name);

				CHECK(!strncmp(l, c[i].name, nl) && l[nl] == ':' && l[nl + 1] == ' ');
				for (int k = 0; k < (stats ? STATS_LINES : 1); k++)
					l = strchr(l, '\n') + 1;
			}
			CHECK(*l == '\0');
		}

		/* Cut short: a NUL-terminated prefix, nothing past the end (ASan). */
		if (len < want)
			want = len;
		memset(tiny, 'Z', small);
		m = sitd_show_format(tiny, small, t, n, stats, json);
		CHECK(m == want && tiny[m] == '\0' && !memcmp(tiny, big, m));

		CHECK(sitd_show_format(&none, 0, t, n, stats, json) == 0 && none == 'Z');
	}
	free(tiny);
	free(big);
}

/* ---- The target ---- */

static bool valid_name(const char *s)
{
	size_t k = strnlen(s, SITD_IFNAMSIZ);

	return k > 0 && k < SITD_IFNAMSIZ;
}

/* err is "N: message", 1 <= N <= lines; returns N. */
static unsigned err_line(const char *err, size_t errlen, unsigned nlines)
{
	size_t k = strnlen(err, errlen);
	unsigned long v;
	char *end;

	CHECK(k > 0 && k < errlen);
	CHECK(err[0] >= '1' && err[0] <= '9');
	v = strtoul(err, &end, 10);
	CHECK(end[0] == ':' && end[1] == ' ' && end[2] != '\0');
	CHECK(v >= 1 && v <= nlines);
	return (unsigned)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[ERR_LEN], err2[ERR_LEN], *serr, *text;
	struct sitd_conf *out, *sout;
	struct oracle o;
	unsigned nlines = 1, scap;
	size_t serrlen;
	int n, sn;

	if (size > TEXT_MAX)
		return -1;
	/* An exact-size copy (no NUL after it), so that ASan sees any read past len. */
	text = malloc(size ? size : 1);
	toks = malloc((size + 1) * sizeof(*toks));	/* "a\0b\0": a token per byte */
	out = malloc(SITD_MAX_TUNNELS * sizeof(*out));
	o.out = malloc(SITD_MAX_TUNNELS * sizeof(*o.out));
	CHECK(text && toks && out && o.out);
	memcpy(text, data, size);
	for (size_t i = 0; i < size; i++)
		nlines += text[i] == '\n';
	tokenize(text, size);

	memset(err, 0x55, sizeof(err));
	n = sitd_config_parse(text, size, out, SITD_MAX_TUNNELS, err, sizeof(err));
	oracle_run(&o, SITD_MAX_TUNNELS);
	CHECK(n == o.n);
	{
		/* With the names indexed (the daemon's way): the same tunnels, the same error. */
		static struct sitd_conf xout[SITD_MAX_TUNNELS];
		static struct sitd_hslot slots[2 * SITD_MAX_TUNNELS];
		struct sitd_hindex ix;
		char xerr[sizeof(err)];

		sitd_hindex_init(&ix, slots, sitd_hindex_slots(SITD_MAX_TUNNELS));
		CHECK(sitd_hindex_slots(SITD_MAX_TUNNELS) <= 2 * SITD_MAX_TUNNELS);
		memset(xerr, 0x55, sizeof(xerr));
		CHECK(sitd_config_parse_ix(text, size, xout, SITD_MAX_TUNNELS, &ix, xerr, sizeof(xerr)) == n);
		CHECK(n < 0 ? !strcmp(xerr, err) : !memcmp(xout, out, (size_t)n * sizeof(*out)));
	}
	if (n >= 0) {
		CHECK(n <= SITD_MAX_TUNNELS);
		CHECK((unsigned)n <= sitd_config_count(text, size));
		for (int i = 0; i < n; i++) {
			CHECK(valid_name(out[i].name));
			/* remote any over IPv4 only for 6to4, 6rd and ISATAP: mode sit, protocol 41;
			 * over IPv6 (NBMA) with a local address. */
			CHECK(sitd_conf_has_remote(&out[i]) ||
			      (out[i].outer == SITD_OUTER_IPV4 && out[i].mode == SITD_MODE_SIT &&
			       out[i].encap == SITD_ENCAP_NONE) ||
			      (out[i].outer == SITD_OUTER_IPV6 && !ip6_addr_is_unspecified(out[i].local6)));
			/* An IPv6 underlay: its ends are remote6 and local6 only; fou6 with a port. */
			CHECK(out[i].outer == SITD_OUTER_IPV4 ||
			      (out[i].outer == SITD_OUTER_IPV6 && !out[i].remote && !out[i].local &&
			       (out[i].encap == SITD_ENCAP_NONE || out[i].encap_dport)));
			for (int k = 0; k < i; k++)
				CHECK(strcmp(out[i].name, out[k].name) != 0);
			CHECK(!memcmp(&out[i], &o.out[i], sizeof(out[i])));
		}
	} else {
		CHECK(n == -1);
		CHECK(err_line(err, sizeof(err), nlines) == o.line);
	}

	/* A small cap, into an array of exactly that many (0: a zero-size one). */
	scap = (unsigned)(size % 4);
	sout = malloc(scap * sizeof(*sout) + 1);
	CHECK(sout);
	sn = sitd_config_parse(text, size, sout, scap, err2, sizeof(err2));
	oracle_run(&o, scap);
	CHECK(sn == o.n);
	if (n >= 0 && (unsigned)n <= scap) {
		CHECK(sn == n && !memcmp(sout, out, (size_t)n * sizeof(*sout)));
	} else {
		CHECK(sn == -1);	/* what failed with cap 64 fails with a smaller one */
		CHECK(err_line(err2, sizeof(err2), nlines) == o.line);
	}

	/* A short error buffer: the same verdict, the same error cut short. */
	serrlen = 1 + size % 24;
	serr = malloc(serrlen);
	CHECK(serr);
	memset(serr, 0x55, serrlen);
	CHECK(sitd_config_parse(text, size, sout, scap, serr, serrlen) == sn);
	if (sn < 0) {
		size_t k = strnlen(serr, serrlen);

		CHECK(k < serrlen);
		CHECK(!strncmp(serr, err2, k) && (k == serrlen - 1 || k == strlen(err2)));
	}

	if (n >= 0)
		check_show(out, (unsigned)n, 1 + size % 200);

	free(serr);
	free(sout);
	free(o.out);
	free(out);
	free(toks);
	free(text);
	return 0;
}
