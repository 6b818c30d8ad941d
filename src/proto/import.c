/* SPDX-License-Identifier: MIT */
/* `sitd import` (import.h): ifupdown and systemd-networkd tunnels as sitd.conf stanzas. */
#include "proto/import.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/conf.h"
#include "proto/config.h"

enum {
	LINE_MAX_ = 512,	/* one logical line of interfaces(5), or one key=value */
	ST_LINES = 48,		/* lines of one stanza: settings, 8 addresses, 16 routes */
	ST_LINE = 112,		/* "route PREFIX6/128 via ADDR6 metric N table T" fits */
	TUNNELS_MAX = 16,	/* tunnels of one import */
	ENTRIES_MAX = 256,	/* key=value lines of one networkd file */
};

/* ------------------------------------------------------------------ shared */

/*
 * The refusals are kept and written at the end, in the order of the files and their
 * lines, whatever order the checks found them in.
 */
enum { REFUSALS_MAX = 64, REFUSAL_LEN = 240, FILES_MAX_ = 16 };

struct refusal {
	unsigned file, line;
	char msg[REFUSAL_LEN];
};

struct imp {
	char *out;
	size_t outcap, outlen;
	char *err;
	size_t errcap;
	unsigned nerr;
	const char *files[FILES_MAX_];
	unsigned nfiles;
	struct refusal r[REFUSALS_MAX];
};

__attribute__((format(printf, 4, 5)))
static void refuse(struct imp *im, const char *file, unsigned line, const char *fmt, ...)
{
	struct refusal *r = &im->r[im->nerr < REFUSALS_MAX ? im->nerr : REFUSALS_MAX - 1];
	unsigned k = 0;
	va_list ap;

	if (im->nerr++ >= REFUSALS_MAX)
		return;
	while (k < im->nfiles && im->files[k] != file)
		k++;
	r->file = k;
	r->line = line;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

static void imp_init(struct imp *im, char *out, size_t outcap, char *err, size_t errcap)
{
	im->out = out;
	im->outcap = outcap;
	im->outlen = 0;
	im->err = err;
	im->errcap = errcap;
	im->nerr = 0;
	im->nfiles = 0;
	if (outcap)
		out[0] = '\0';
	if (errcap)
		err[0] = '\0';
}

/* The result: the count, or -1 with out emptied and err written, when anything was refused. */
static int imp_done(struct imp *im, int ntunnels)
{
	unsigned n = im->nerr < REFUSALS_MAX ? im->nerr : REFUSALS_MAX;
	size_t len = 0;

	if (!im->nerr)
		return ntunnels;
	if (im->outcap)
		im->out[0] = '\0';
	/* Insertion sort, stable: by file, then line. */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && (im->r[j - 1].file > im->r[j].file ||
					       (im->r[j - 1].file == im->r[j].file &&
						im->r[j - 1].line > im->r[j].line)); j--) {
			struct refusal t = im->r[j];

			im->r[j] = im->r[j - 1];
			im->r[j - 1] = t;
		}
	for (unsigned i = 0; i <= n && im->errcap; i++) {
		int w;

		if (i == n && im->nerr <= REFUSALS_MAX)
			break;
		if (i == n)
			w = snprintf(im->err + len, im->errcap - len, "sitd: %u more refusals not shown\n",
				     im->nerr - REFUSALS_MAX);
		else
			w = snprintf(im->err + len, im->errcap - len, "%s:%u: %s\n",
				     im->r[i].file < im->nfiles ? im->files[im->r[i].file] : "-",
				     im->r[i].line, im->r[i].msg);
		if (w < 0 || (size_t)w >= im->errcap - len) {
			im->err[len] = '\0';	/* what does not fit whole is left out */
			break;
		}
		len += (size_t)w;
	}
	return -1;
}

/* A device name sitd.conf can hold: dev_valid_name(), and no byte its words end at. */
static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= SITD_IFNAMSIZ || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.') || (n == 6 && !memcmp(s, "tunnel", 6)))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '/' || c == ':' || c == '#' || c <= ' ' || c == 0x7f)
			return false;
	}
	return true;
}

/* Decimal digits only, at most max. */
static bool num(const char *s, size_t n, unsigned long max, unsigned long *v)
{
	unsigned long x = 0;

	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		x = x * 10 + (unsigned long)(s[i] - '0');
	}
	if (x > max)
		return false;
	*v = x;
	return true;
}

struct pfx {
	int fam;		/* 4 or 6 */
	uint8_t a[16];
	unsigned len;
};

/* An address of family fam (0: either); false if it is none. */
static bool addr_of(const char *s, size_t n, int fam, struct pfx *p)
{
	char b[64];

	if (n == 0 || n >= sizeof(b))
		return false;
	memcpy(b, s, n);
	b[n] = '\0';
	memset(p, 0, sizeof(*p));
	if (fam != 4 && inet_pton(AF_INET6, b, p->a) == 1) {
		p->fam = 6;
		p->len = 128;
		return true;
	}
	if (fam != 6 && inet_pton(AF_INET, b, p->a) == 1) {
		p->fam = 4;
		p->len = 32;
		return true;
	}
	return false;
}

/* "A/N" or "A" (*had_len false: a host's length). */
static bool pfx_of(const char *s, size_t n, int fam, struct pfx *p, bool *had_len)
{
	const char *slash = memchr(s, '/', n);
	unsigned long len;

	*had_len = slash != NULL;
	if (!addr_of(s, slash ? (size_t)(slash - s) : n, fam, p))
		return false;
	if (!slash)
		return true;
	if (!num(slash + 1, n - (size_t)(slash + 1 - s), p->fam == 6 ? 128 : 32, &len))
		return false;
	p->len = (unsigned)len;
	return true;
}

static bool pfx_contains(const struct pfx *net, const struct pfx *a)
{
	if (net->fam != a->fam)
		return false;
	for (unsigned b = 0; b < net->len; b++)
		if ((net->a[b / 8] ^ a->a[b / 8]) & (0x80u >> (b % 8)))
			return false;
	return true;
}

/* The prefix with its host bits cleared: what a route names. */
static struct pfx pfx_net(const struct pfx *p)
{
	struct pfx m = *p;

	for (unsigned b = m.len; b < (m.fam == 6 ? 128u : 32u); b++)
		m.a[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
	return m;
}

static const char *ntop(const struct pfx *p, char *b, size_t cap)
{
	if (!inet_ntop(p->fam == 6 ? AF_INET6 : AF_INET, p->a, b, (socklen_t)cap))
		b[0] = '\0';
	return b;
}

static bool ieq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && !strncasecmp(s, lit, n);
}

static bool eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(s, lit, n);
}

/* ------------------------------------------------------------------ stanzas */

/* One stanza being written: one setting per line, each with the line it came from. */
struct stanza {
	char name[SITD_IFNAMSIZ];
	const char *head_file;
	unsigned head_line;
	unsigned n;
	bool full;
	char text[ST_LINES][ST_LINE];
	const char *file[ST_LINES];
	unsigned line[ST_LINES];
};

static void st_init(struct stanza *st, const char *name, size_t len, const char *file, unsigned line)
{
	st->n = 0;
	st->full = false;
	memcpy(st->name, name, len);
	st->name[len] = '\0';
	st->head_file = file;
	st->head_line = line;
}

__attribute__((format(printf, 4, 5)))
static void st_add(struct stanza *st, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (st->n == ST_LINES) {
		st->full = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(st->text[st->n], ST_LINE, fmt, ap);
	va_end(ap);
	st->file[st->n] = file;
	st->line[st->n++] = line;
}

/*
 * The stanza parsed back by sitd's own parser, as the daemon would read it; a refusal
 * there is the line the setting came from.  Then appended to out.
 */
static void st_emit(struct imp *im, struct stanza *st, const char *from)
{
	char text[ST_LINES * (ST_LINE + 2) + 256], msg[256];
	struct sitd_conf conf;
	size_t len = 0;
	unsigned long bad;
	int n;

	if (st->full) {
		refuse(im, st->head_file, st->head_line, "more than %d settings in one tunnel", ST_LINES);
		return;
	}
	n = snprintf(text, sizeof(text), "# %s\ntunnel %s\n", from, st->name);
	len = n > 0 ? (size_t)n : 0;
	for (unsigned i = 0; i < st->n; i++) {
		n = snprintf(text + len, sizeof(text) - len, "\t%s\n", st->text[i]);
		len += n > 0 ? (size_t)n : 0;
	}
	text[len++] = '\n';
	text[len] = '\0';
	if (sitd_config_parse(text, len, &conf, 1, msg, sizeof(msg)) != 1) {
		const char *colon = strchr(msg, ':');
		const char *file = st->head_file;
		unsigned line = st->head_line;

		/* Text line 1 is the comment, 2 "tunnel NAME", 3 + i setting i. */
		if (colon && num(msg, (size_t)(colon - msg), 1u << 20, &bad) && bad >= 3 &&
		    bad - 3 < st->n) {
			file = st->file[bad - 3];
			line = st->line[bad - 3];
		}
		refuse(im, file, line, "sitd refuses it: %s", colon ? colon + 2 : msg);
		return;
	}
	if (strcmp(conf.name, st->name)) {
		refuse(im, st->head_file, st->head_line, "the name \"%s\" reads as a sitd keyword",
		       st->name);
		return;
	}
	if (im->nerr)
		return;	/* nothing is printed anyway: no refusal for the room it would take */
	if (im->outlen + len + 1 > im->outcap) {
		refuse(im, st->head_file, st->head_line, "the output is longer than %zu bytes",
		       im->outcap);
		return;
	}
	memcpy(im->out + im->outlen, text, len + 1);
	im->outlen += len;
}

/* ------------------------------------------------------------------ ifupdown */

/*
 * interfaces(5): "#" at the start of a line (after blanks) makes it a comment; a line
 * ending in "\" goes on on the next.  Gives each logical line and its first line number.
 */
struct lines {
	const char *t;
	size_t len, i;
	unsigned lineno;
};

enum line_res { LINE_END, LINE_OK, LINE_LONG, LINE_NUL };

static enum line_res next_line(struct lines *L, char *buf, size_t cap, unsigned *first)
{
	size_t n = 0;
	bool cont = false, bad_nul = false, too_long = false;

	while (L->i < L->len) {
		size_t s = L->i, e, k;

		while (L->i < L->len && L->t[L->i] != '\n')
			L->i++;
		e = L->i;
		if (L->i < L->len)
			L->i++;
		L->lineno++;
		if (memchr(L->t + s, '\0', e - s))
			bad_nul = true;
		k = s;
		while (k < e && (L->t[k] == ' ' || L->t[k] == '\t'))
			k++;
		if (!cont) {
			*first = L->lineno;
			if (k == e || L->t[k] == '#')
				continue;
		}
		while (e > s && (L->t[e - 1] == '\r' || L->t[e - 1] == ' ' || L->t[e - 1] == '\t'))
			e--;
		cont = e > s && L->t[e - 1] == '\\';
		if (cont)
			e--;
		if (n + (e - s) + 2 > cap)
			too_long = true;
		else {
			memcpy(buf + n, L->t + s, e - s);
			n += e - s;
			if (cont)
				buf[n++] = ' ';
		}
		if (!cont)
			break;
	}
	if (n == 0 && !cont && L->i >= L->len && !bad_nul && !too_long)
		return LINE_END;
	buf[n] = '\0';
	if (bad_nul)
		return LINE_NUL;
	return too_long ? LINE_LONG : LINE_OK;
}

/* The words of a line: at most max, blanks between. */
static unsigned split(char *s, const char **w, size_t *wl, unsigned max)
{
	unsigned n = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (n == max)
			return max + 1;
		w[n] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		wl[n] = (size_t)(s - w[n]);
		n++;
	}
	return n;
}

enum ifopt {
	O_ADDRESS, O_NETMASK, O_ENDPOINT, O_LOCAL, O_TTL, O_GATEWAY, O_MTU, O_METRIC, O_MODE,
	O_COUNT
};

static const char *const ifopt_name[O_COUNT] = {
	[O_ADDRESS] = "address", [O_NETMASK] = "netmask", [O_ENDPOINT] = "endpoint",
	[O_LOCAL] = "local", [O_TTL] = "ttl", [O_GATEWAY] = "gateway", [O_MTU] = "mtu",
	[O_METRIC] = "metric", [O_MODE] = "mode",
};

/* One tunnel stanza of interfaces(5): its options as written. */
struct iface {
	bool active;
	int fam;		/* 6: inet6 v4tunnel, 4: inet tunnel */
	char name[SITD_IFNAMSIZ];
	size_t namelen;
	unsigned line;
	char val[O_COUNT][LINE_MAX_];
	unsigned vline[O_COUNT];	/* 0: not given */
};

/* What interfaces(5) treats as starting a stanza (ifupdown's config.c). */
static bool is_stanza_word(const char *w, size_t n)
{
	return eq(w, n, "iface") || eq(w, n, "mapping") || eq(w, n, "auto") ||
	       (n > 6 && !memcmp(w, "allow-", 6)) || eq(w, n, "source") ||
	       eq(w, n, "source-directory") || eq(w, n, "no-auto-down") ||
	       eq(w, n, "no-scripts") || eq(w, n, "rename");
}

/* ip tunnel's ttl word: 1..255, or 0 and inherit for inherit (iproute2's parse_args). */
static bool ttl_word(const char *v, char *out, size_t cap)
{
	unsigned long t;

	if (!strcmp(v, "inherit") || (num(v, strlen(v), 255, &t) && t == 0)) {
		snprintf(out, cap, "inherit");
		return true;
	}
	if (!num(v, strlen(v), 255, &t))
		return false;
	snprintf(out, cap, "%lu", t);
	return true;
}

/* An IPv4 netmask as inet.defn takes it: a number of bits or a contiguous dotted quad. */
static bool mask4(const char *v, unsigned *len)
{
	unsigned long bits;
	struct pfx p;
	uint32_t m;

	if (num(v, strlen(v), 32, &bits)) {
		*len = (unsigned)bits;
		return true;
	}
	if (!addr_of(v, strlen(v), 4, &p))
		return false;
	m = (uint32_t)p.a[0] << 24 | (uint32_t)p.a[1] << 16 | (uint32_t)p.a[2] << 8 | p.a[3];
	if (m & (~m >> 1))
		return false;	/* a zero bit before a one bit: not contiguous */
	*len = (unsigned)__builtin_popcount(m);
	return true;
}

static void iface_finish(struct imp *im, const char *file, struct iface *ifc, struct stanza *st,
			 int *ntunnels)
{
	char a[INET6_ADDRSTRLEN], w[16], from[96];
	const unsigned *L = ifc->vline;
	struct pfx addr, gw, ip4;
	unsigned long v = 0;
	bool had_len = false, ok = true;
	unsigned nerr = im->nerr;
	const char *method = ifc->fam == 6 ? "v4tunnel" : "tunnel";

	if (!ifc->active)
		return;
	ifc->active = false;
	st_init(st, ifc->name, ifc->namelen, file, ifc->line);
	/* ip tunnel add %iface% mode %mode% remote %endpoint% [[local %local%]] [[ttl %ttl%]] */
	if (ifc->fam == 6) {
		st_add(st, file, ifc->line, "mode sit");
	} else if (!L[O_MODE]) {
		refuse(im, file, ifc->line, "method tunnel needs \"mode\" (ipip)");
	} else if (!strcmp(ifc->val[O_MODE], "ipip") || !strcmp(ifc->val[O_MODE], "ip/ip")) {
		st_add(st, file, L[O_MODE], "mode ipip");
	} else if (!strcmp(ifc->val[O_MODE], "gre") || !strcmp(ifc->val[O_MODE], "gre/ip")) {
		refuse(im, file, L[O_MODE], "mode gre: sitd has no GRE, only ipip and sit");
	} else {
		refuse(im, file, L[O_MODE], "mode \"%s\": sitd imports method tunnel with mode ipip%s",
		       ifc->val[O_MODE],
		       !strcmp(ifc->val[O_MODE], "sit") ? " (6in4: iface NAME inet6 v4tunnel)" : "");
	}
	if (!L[O_ENDPOINT])
		refuse(im, file, ifc->line, "method %s needs \"endpoint\"", method);
	else if (!addr_of(ifc->val[O_ENDPOINT], strlen(ifc->val[O_ENDPOINT]), 4, &ip4))
		refuse(im, file, L[O_ENDPOINT], "endpoint \"%s\": expected an IPv4 address",
		       ifc->val[O_ENDPOINT]);
	else
		st_add(st, file, L[O_ENDPOINT], "remote %s", ntop(&ip4, a, sizeof(a)));
	if (L[O_LOCAL]) {
		if (!addr_of(ifc->val[O_LOCAL], strlen(ifc->val[O_LOCAL]), 4, &ip4))
			refuse(im, file, L[O_LOCAL], "local \"%s\": expected an IPv4 address",
			       ifc->val[O_LOCAL]);
		else
			st_add(st, file, L[O_LOCAL], "local %s", ntop(&ip4, a, sizeof(a)));
	}
	if (L[O_TTL]) {
		if (!ttl_word(ifc->val[O_TTL], w, sizeof(w)))
			refuse(im, file, L[O_TTL], "ttl \"%s\": expected 0..255 or inherit",
			       ifc->val[O_TTL]);
		else
			st_add(st, file, L[O_TTL], "ttl %s", w);
	}
	/* ip link set %iface% up [[mtu %mtu%]] */
	if (L[O_MTU]) {
		if (!num(ifc->val[O_MTU], strlen(ifc->val[O_MTU]), 65535, &v))
			refuse(im, file, L[O_MTU], "mtu \"%s\": expected a number", ifc->val[O_MTU]);
		else
			st_add(st, file, L[O_MTU], "mtu %lu", v);
	}
	/* inet6: ip addr add %address%[[/%netmask%]]; inet: ip addr add %address%/%netmask% */
	if (!L[O_ADDRESS]) {
		refuse(im, file, ifc->line, "method %s needs \"address\"", method);
		ok = false;
	} else if (!pfx_of(ifc->val[O_ADDRESS], strlen(ifc->val[O_ADDRESS]), ifc->fam, &addr,
			   &had_len)) {
		refuse(im, file, L[O_ADDRESS], "address \"%s\": expected an IPv%d address%s",
		       ifc->val[O_ADDRESS], ifc->fam, ifc->fam == 6 ? "[/LEN]" : "");
		ok = false;
	} else if (ifc->fam == 4 && had_len) {
		/* inet.defn's tunnel has no conversion: the length is netmask's alone. */
		refuse(im, file, L[O_ADDRESS], "method tunnel takes the length from \"netmask\", "
		       "not from address");
		ok = false;
	}
	if (ok && L[O_NETMASK]) {
		unsigned len = 0;

		if (ifc->fam == 6 && !num(ifc->val[O_NETMASK], strlen(ifc->val[O_NETMASK]), 128, &v)) {
			refuse(im, file, L[O_NETMASK], "netmask \"%s\": expected 0..128",
			       ifc->val[O_NETMASK]);
			ok = false;
		} else if (ifc->fam == 4 && !mask4(ifc->val[O_NETMASK], &len)) {
			refuse(im, file, L[O_NETMASK], "netmask \"%s\": expected 0..32 or a dotted "
			       "quad mask", ifc->val[O_NETMASK]);
			ok = false;
		} else {
			len = ifc->fam == 6 ? (unsigned)v : len;
			if (had_len && len != addr.len) {
				refuse(im, file, L[O_NETMASK], "netmask %u and address's /%u disagree",
				       len, addr.len);
				ok = false;
			}
			addr.len = len;
		}
	} else if (ok && ifc->fam == 4) {
		refuse(im, file, ifc->line, "method tunnel needs \"netmask\"");
		ok = false;
	}
	if (ok)
		st_add(st, file, L[O_ADDRESS], "address %s/%u", ntop(&addr, a, sizeof(a)), addr.len);
	/*
	 * inet6: ip route add %gateway% dev %iface%, then ::/0 via %gateway% [[metric]] onlink.
	 * inet:  ip route add default via %gateway% [[metric]] dev %iface% onlink; sitd's routes
	 * have no onlink, so the gateway must be on the address's own prefix.
	 */
	if (L[O_METRIC] && !num(ifc->val[O_METRIC], strlen(ifc->val[O_METRIC]), 0xffffffffu, &v))
		refuse(im, file, L[O_METRIC], "metric \"%s\": expected a number", ifc->val[O_METRIC]);
	else if (L[O_METRIC] && !L[O_GATEWAY])
		refuse(im, file, L[O_METRIC], "metric is the gateway's route's: no gateway is given");
	if (L[O_GATEWAY]) {
		char m[32] = "";

		if (L[O_METRIC] && num(ifc->val[O_METRIC], strlen(ifc->val[O_METRIC]), 0xffffffffu, &v))
			snprintf(m, sizeof(m), " metric %lu", v);
		if (!addr_of(ifc->val[O_GATEWAY], strlen(ifc->val[O_GATEWAY]), ifc->fam, &gw)) {
			refuse(im, file, L[O_GATEWAY], "gateway \"%s\": expected an IPv%d address",
			       ifc->val[O_GATEWAY], ifc->fam);
		} else if (ifc->fam == 6) {
			st_add(st, file, L[O_GATEWAY], "route %s/128", ntop(&gw, a, sizeof(a)));
			st_add(st, file, L[O_GATEWAY], "route ::/0 via %s%s", a, m);
		} else if (ok && !pfx_contains(&addr, &gw)) {
			refuse(im, file, L[O_GATEWAY], "gateway %s is outside %s/%u: ifupdown adds "
			       "it onlink, sitd's routes have no onlink", ntop(&gw, a, sizeof(a)),
			       ntop(&addr, from, sizeof(from)), addr.len);
		} else if (ok) {
			st_add(st, file, L[O_GATEWAY], "route 0.0.0.0/0 via %s%s", ntop(&gw, a, sizeof(a)),
			       m);
		}
	}
	if (im->nerr != nerr)
		return;
	snprintf(from, sizeof(from), "from ifupdown: iface %s %s %s", ifc->name,
		 ifc->fam == 6 ? "inet6" : "inet", method);
	nerr = im->nerr;
	st_emit(im, st, from);
	if (im->nerr == nerr)
		(*ntunnels)++;
}

/* An option line of a tunnel stanza. */
static void iface_option(struct imp *im, const char *file, unsigned line, struct iface *ifc,
			 const char *key, size_t klen, const char *val)
{
	static const char *const cmds[] = { "up", "down", "pre-up", "post-up", "pre-down",
					    "post-down" };

	for (unsigned k = 0; k < O_COUNT; k++) {
		if (!eq(key, klen, ifopt_name[k]) || (k == O_MODE && ifc->fam == 6))
			continue;
		if (ifc->vline[k]) {
			refuse(im, file, line, "%s given twice (first on line %u)", ifopt_name[k],
			       ifc->vline[k]);
			return;
		}
		if (!*val) {
			refuse(im, file, line, "%s needs a value", ifopt_name[k]);
			return;
		}
		snprintf(ifc->val[k], sizeof(ifc->val[k]), "%s", val);
		ifc->vline[k] = line;
		return;
	}
	for (unsigned k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
		if (eq(key, klen, cmds[k])) {
			refuse(im, file, line, "%.*s: sitd runs no commands; not imported", (int)klen,
			       key);
			return;
		}
	if (ifc->fam == 4 && eq(key, klen, "dstaddr"))
		refuse(im, file, line, "dstaddr (ip addr ... peer): sitd puts no peer address on "
		       "a device");
	else if (ifc->fam == 6 && eq(key, klen, "preferred-lifetime"))
		refuse(im, file, line, "preferred-lifetime: sitd sets no address lifetime");
	else
		refuse(im, file, line, "option \"%.*s\" of method %s has no sitd equivalent",
		       (int)(klen > 40 ? 40 : klen), key, ifc->fam == 6 ? "v4tunnel" : "tunnel");
}

/* The tunnel stanzas' names, first (a second stanza for one of them is refused). */
static unsigned tunnel_names(const struct sitd_import_file *f, char names[][SITD_IFNAMSIZ],
			     unsigned cap)
{
	struct lines L = { .t = f->text, .len = f->len };
	char buf[LINE_MAX_];
	const char *w[5];
	size_t wl[5];
	unsigned first, n = 0;
	enum line_res r;

	while ((r = next_line(&L, buf, sizeof(buf), &first)) != LINE_END) {
		unsigned nw;

		if (r != LINE_OK)
			continue;
		nw = split(buf, w, wl, 4);
		if (nw >= 4 && eq(w[0], wl[0], "iface") && name_ok(w[1], wl[1]) &&
		    ((eq(w[2], wl[2], "inet6") && eq(w[3], wl[3], "v4tunnel")) ||
		     (eq(w[2], wl[2], "inet") && eq(w[3], wl[3], "tunnel"))) && n < cap) {
			memcpy(names[n], w[1], wl[1]);
			names[n++][wl[1]] = '\0';
		}
	}
	return n;
}

int sitd_import_ifupdown(const struct sitd_import_file *f, char *out, size_t outcap, char *err,
			 size_t errcap)
{
	struct lines L = { .t = f->text, .len = f->len };
	char names[TUNNELS_MAX * 2][SITD_IFNAMSIZ], buf[LINE_MAX_], copy[LINE_MAX_];
	static const char *const fams[] = { "inet", "inet6" };
	unsigned nnames, first, ndone = 0, seen_line[TUNNELS_MAX * 2] = { 0 };
	struct iface ifc = { .active = false };
	struct stanza st;
	struct imp im;
	enum { NONE, SKIP, TUNNEL } state = NONE;
	enum line_res r;
	int ntunnels = 0;

	imp_init(&im, out, outcap, err, errcap);
	im.files[im.nfiles++] = f->name;
	nnames = tunnel_names(f, names, TUNNELS_MAX * 2);
	while ((r = next_line(&L, buf, sizeof(buf), &first)) != LINE_END) {
		const char *w[8];
		size_t wl[8];
		unsigned nw;

		if (r == LINE_NUL) {
			refuse(&im, f->name, first, "a NUL byte");
			continue;
		}
		if (r == LINE_LONG) {
			refuse(&im, f->name, first, "a line longer than %d bytes", LINE_MAX_ - 1);
			continue;
		}
		memcpy(copy, buf, sizeof(buf));
		nw = split(buf, w, wl, 7);
		if (nw == 0)
			continue;
		if (is_stanza_word(w[0], wl[0])) {
			iface_finish(&im, f->name, &ifc, &st, &ntunnels);
			state = NONE;
		}
		if (eq(w[0], wl[0], "iface")) {
			bool v4t = nw >= 4 && eq(w[2], wl[2], "inet6") && eq(w[3], wl[3], "v4tunnel");
			bool t4 = nw >= 4 && eq(w[2], wl[2], "inet") && eq(w[3], wl[3], "tunnel");
			long idx = -1;

			state = SKIP;
			for (unsigned k = 0; nw >= 2 && k < nnames; k++)
				if (eq(w[1], wl[1], names[k]))
					idx = k;
			if (!v4t && !t4) {
				/* Not a tunnel: left alone, unless it adds to one. */
				if (idx >= 0)
					refuse(&im, f->name, first, "a second stanza for tunnel %s is not "
					       "imported: give its settings in the tunnel's own", names[idx]);
				else if (nw >= 4 && eq(w[3], wl[3], "6to4"))
					refuse(&im, f->name, first, "method 6to4 is not imported (sitd's "
					       "\"remote any\" is it)");
				continue;
			}
			if (nw != 4) {
				refuse(&im, f->name, first, "expected \"iface NAME %s %s\"",
				       fams[v4t], v4t ? "v4tunnel" : "tunnel");
				continue;
			}
			if (!name_ok(w[1], wl[1])) {
				refuse(&im, f->name, first, "\"%.*s\" is no device name sitd takes",
				       (int)(wl[1] > 32 ? 32 : wl[1]), w[1]);
				continue;
			}
			if (idx < 0 || seen_line[idx]) {
				refuse(&im, f->name, first, "a second stanza for tunnel %.*s (the first "
				       "on line %u)", (int)wl[1], w[1], idx < 0 ? 0 : seen_line[idx]);
				continue;
			}
			if (ndone == TUNNELS_MAX) {
				refuse(&im, f->name, first, "more than %d tunnels", TUNNELS_MAX);
				continue;
			}
			ndone++;
			seen_line[idx] = first;
			memset(&ifc, 0, sizeof(ifc));
			ifc.active = true;
			ifc.fam = v4t ? 6 : 4;
			memcpy(ifc.name, w[1], wl[1]);
			ifc.namelen = wl[1];
			ifc.line = first;
			state = TUNNEL;
		} else if (eq(w[0], wl[0], "mapping")) {
			state = SKIP;
		} else if (eq(w[0], wl[0], "source") || eq(w[0], wl[0], "source-directory")) {
			refuse(&im, f->name, first, "%.*s: import each included file by itself",
			       (int)wl[0], w[0]);
		} else if (is_stanza_word(w[0], wl[0])) {
			/* auto, allow-*, no-auto-down, no-scripts, rename: sitd runs every tunnel. */
		} else if (state == NONE) {
			refuse(&im, f->name, first, "\"%.*s\" outside an iface stanza",
			       (int)(wl[0] > 32 ? 32 : wl[0]), w[0]);
		} else if (state == TUNNEL) {
			/* The option's value: the rest of the line, as ifupdown keeps it. */
			const char *val = copy + (w[0] - buf) + wl[0];

			while (*val == ' ' || *val == '\t')
				val++;
			iface_option(&im, f->name, first, &ifc, w[0], wl[0], val);
		}
	}
	iface_finish(&im, f->name, &ifc, &st, &ntunnels);
	if (!im.nerr && ntunnels == 0)
		refuse(&im, f->name, L.lineno ? L.lineno : 1,
		       "no \"iface NAME inet6 v4tunnel\" or \"iface NAME inet tunnel\" stanza");
	return imp_done(&im, ntunnels);
}

/* ------------------------------------------------------------------ networkd */

/* One key=value of a systemd unit file (systemd's config_parse), pointing into its text. */
struct entry {
	const char *sec, *key, *val;
	size_t seclen, keylen, vallen;
	unsigned line;
};

struct unitfile {
	const struct sitd_import_file *f;
	bool netdev;
	unsigned n;
	struct entry e[ENTRIES_MAX];
};

/* Comments start with "#" or ";"; "[Section]"; "Key=Value", blanks around both trimmed. */
static void unit_parse(struct imp *im, struct unitfile *u)
{
	const char *t = u->f->text, *sec = NULL;
	size_t len = u->f->len, i = 0, seclen = 0;
	unsigned line = 0;

	u->n = 0;
	while (i < len) {
		size_t s = i, e;

		while (i < len && t[i] != '\n')
			i++;
		e = i;
		if (i < len)
			i++;
		line++;
		if (memchr(t + s, '\0', e - s)) {
			refuse(im, u->f->name, line, "a NUL byte");
			continue;
		}
		while (s < e && isspace((unsigned char)t[s]))
			s++;
		while (e > s && isspace((unsigned char)t[e - 1]))
			e--;
		if (s == e || t[s] == '#' || t[s] == ';')
			continue;
		if (t[e - 1] == '\\') {
			refuse(im, u->f->name, line, "a line continued with \"\\\" is not imported");
			continue;
		}
		if (t[s] == '[') {
			if (t[e - 1] != ']' || e - s < 3) {
				refuse(im, u->f->name, line, "expected \"[Section]\"");
				sec = NULL;
				continue;
			}
			sec = t + s + 1;
			seclen = e - s - 2;
			if (u->n < ENTRIES_MAX) {	/* a section header: an entry without key */
				u->e[u->n] = (struct entry){ .sec = sec, .seclen = seclen, .line = line };
				u->n++;
			}
			continue;
		}
		const char *eqs = memchr(t + s, '=', e - s);

		if (!eqs) {
			refuse(im, u->f->name, line, "expected \"Key=Value\"");
			continue;
		}
		if (!sec) {
			refuse(im, u->f->name, line, "a setting before any [Section]");
			continue;
		}
		if (u->n == ENTRIES_MAX) {
			refuse(im, u->f->name, line, "more than %d lines of settings", ENTRIES_MAX);
			continue;
		}
		struct entry *en = &u->e[u->n++];
		size_t ke = (size_t)(eqs - t), vs = ke + 1;

		while (ke > s && isspace((unsigned char)t[ke - 1]))
			ke--;
		while (vs < e && isspace((unsigned char)t[vs]))
			vs++;
		*en = (struct entry){ .sec = sec, .seclen = seclen, .key = t + s, .keylen = ke - s,
				      .val = t + vs, .vallen = e - vs, .line = line };
	}
}

/* systemd's parse_boolean(). */
static int boolean(const char *v, size_t n)
{
	if (ieq(v, n, "1") || ieq(v, n, "yes") || ieq(v, n, "y") || ieq(v, n, "true") ||
	    ieq(v, n, "t") || ieq(v, n, "on"))
		return 1;
	if (ieq(v, n, "0") || ieq(v, n, "no") || ieq(v, n, "n") || ieq(v, n, "false") ||
	    ieq(v, n, "f") || ieq(v, n, "off"))
		return 0;
	return -1;
}

struct route_in {
	const char *file;
	unsigned line;
	bool has_dst, has_gw;
	struct pfx dst, gw;
	unsigned long metric, table;
	unsigned metric_line, table_line;
};

/* One tunnel: its .netdev settings and what the .network files add. */
struct ndtunnel {
	const char *file;
	unsigned line;		/* [NetDev] Name= */
	char name[SITD_IFNAMSIZ];
	size_t namelen;
	int kind;		/* 41 sit, 4 ipip, 0 unknown */
	unsigned kind_line, mtu_line, local_line, remote_line, ttl_line, pmtu_line, rd_line,
		 isatap_line, indep_line, fou_line, dport_line, sport_line, encap_line;
	unsigned long mtu, ttl, dport, sport;
	struct pfx local, remote, rd;
	bool local_any, remote_any, pmtudisc, isatap, independent, fou, gue;
	/* From the .network files. */
	char dev[SITD_IFNAMSIZ];
	const char *dev_file;
	unsigned dev_line, network_line;
	unsigned naddrs, nroutes;
	struct pfx addrs[SITD_MAX_ADDRS];
	const char *addr_file[SITD_MAX_ADDRS];
	unsigned addr_line[SITD_MAX_ADDRS];
	struct route_in routes[SITD_MAX_ROUTES];
};

#define SEC(en, lit) eq((en)->sec, (en)->seclen, lit)
#define KEY(en, lit) eq((en)->key, (en)->keylen, lit)

/* Bad value of a key: the message names both. */
static void bad_value(struct imp *im, const char *file, const struct entry *en, const char *what)
{
	refuse(im, file, en->line, "%.*s=%.*s: expected %s", (int)(en->keylen > 40 ? 40 : en->keylen),
	       en->key, (int)(en->vallen > 64 ? 64 : en->vallen), en->val, what);
}

/* A key given twice in a file: systemd takes the last, which a reader may not expect. */
static bool once(struct imp *im, const char *file, const struct entry *en, unsigned *seen)
{
	if (*seen) {
		refuse(im, file, en->line, "%.*s= given twice (first on line %u)", (int)en->keylen,
		       en->key, *seen);
		return false;
	}
	*seen = en->line;
	return true;
}

/* IPv4 or "any" (config_parse_tunnel_address). */
static bool tunnel_addr(const struct entry *en, struct pfx *p, bool *any)
{
	*any = eq(en->val, en->vallen, "any");
	return *any || addr_of(en->val, en->vallen, 4, p);
}

static void netdev_read(struct imp *im, const struct unitfile *u, struct ndtunnel *t)
{
	const char *file = u->f->name;
	unsigned name_line = 0;

	memset(t, 0, sizeof(*t));
	t->file = file;
	t->pmtudisc = true;	/* tunnel_init(): pmtudisc on */
	t->remote_any = t->local_any = true;
	for (unsigned i = 0; i < u->n; i++) {
		const struct entry *en = &u->e[i];
		bool any;
		int b;

		if (!en->key) {
			if (!SEC(en, "NetDev") && !SEC(en, "Tunnel"))
				refuse(im, file, en->line, "section [%.*s] is not imported",
				       (int)(en->seclen > 32 ? 32 : en->seclen), en->sec);
			continue;
		}
		if (SEC(en, "NetDev") && KEY(en, "Name")) {
			if (!once(im, file, en, &name_line))
				continue;
			if (!name_ok(en->val, en->vallen)) {
				bad_value(im, file, en, "a device name sitd takes");
				continue;
			}
			memcpy(t->name, en->val, en->vallen);
			t->name[en->vallen] = '\0';
			t->namelen = en->vallen;
			t->line = en->line;
		} else if (SEC(en, "NetDev") && KEY(en, "Kind")) {
			if (!once(im, file, en, &t->kind_line))
				continue;
			if (eq(en->val, en->vallen, "sit"))
				t->kind = SITD_MODE_SIT;
			else if (eq(en->val, en->vallen, "ipip"))
				t->kind = SITD_MODE_IPIP;
			else
				refuse(im, file, en->line, "Kind=%.*s: sitd imports sit and ipip",
				       (int)(en->vallen > 32 ? 32 : en->vallen), en->val);
		} else if (SEC(en, "NetDev") && KEY(en, "MTUBytes")) {
			if (once(im, file, en, &t->mtu_line) && !num(en->val, en->vallen, 65535, &t->mtu))
				bad_value(im, file, en, "a number of bytes");
		} else if (SEC(en, "NetDev") && KEY(en, "Description")) {
			/* Text for people; nothing to configure. */
		} else if (SEC(en, "Tunnel") && (KEY(en, "Local") || KEY(en, "Remote"))) {
			bool l = KEY(en, "Local");

			if (!once(im, file, en, l ? &t->local_line : &t->remote_line))
				continue;
			if (!tunnel_addr(en, l ? &t->local : &t->remote, &any))
				bad_value(im, file, en, "an IPv4 address or any");
			else if (l)
				t->local_any = any;
			else
				t->remote_any = any;
		} else if (SEC(en, "Tunnel") && KEY(en, "TTL")) {
			if (once(im, file, en, &t->ttl_line) && !num(en->val, en->vallen, 255, &t->ttl))
				bad_value(im, file, en, "0..255");
		} else if (SEC(en, "Tunnel") && (KEY(en, "DiscoverPathMTU") || KEY(en, "ISATAP") ||
						 KEY(en, "Independent") || KEY(en, "FooOverUDP"))) {
			unsigned *l = KEY(en, "DiscoverPathMTU") ? &t->pmtu_line :
				      KEY(en, "ISATAP") ? &t->isatap_line :
				      KEY(en, "Independent") ? &t->indep_line : &t->fou_line;
			bool *v = KEY(en, "DiscoverPathMTU") ? &t->pmtudisc : KEY(en, "ISATAP") ?
				  &t->isatap : KEY(en, "Independent") ? &t->independent : &t->fou;

			if (!once(im, file, en, l))
				continue;
			b = boolean(en->val, en->vallen);
			if (b < 0)
				bad_value(im, file, en, "a boolean");
			else
				*v = b;
		} else if (SEC(en, "Tunnel") && KEY(en, "IPv6RapidDeploymentPrefix")) {
			bool had_len;

			if (once(im, file, en, &t->rd_line) &&
			    (!pfx_of(en->val, en->vallen, 6, &t->rd, &had_len) || !had_len))
				bad_value(im, file, en, "an IPv6 prefix P/L");
		} else if (SEC(en, "Tunnel") && (KEY(en, "FOUDestinationPort") ||
						 KEY(en, "FOUSourcePort"))) {
			bool d = KEY(en, "FOUDestinationPort");

			if (once(im, file, en, d ? &t->dport_line : &t->sport_line) &&
			    !num(en->val, en->vallen, 65535, d ? &t->dport : &t->sport))
				bad_value(im, file, en, "a port");
		} else if (SEC(en, "Tunnel") && KEY(en, "Encapsulation")) {
			if (!once(im, file, en, &t->encap_line))
				continue;
			if (eq(en->val, en->vallen, "GenericUDPEncapsulation"))
				t->gue = true;
			else if (!eq(en->val, en->vallen, "FooOverUDP"))
				bad_value(im, file, en, "FooOverUDP or GenericUDPEncapsulation");
		} else if (SEC(en, "Tunnel") && KEY(en, "TOS")) {
			/* netdev_ipip_sit_fill_message_create() sends no IFLA_IPTUN_TOS. */
			refuse(im, file, en->line, "TOS=: networkd does not set it on sit or ipip");
		} else {
			refuse(im, file, en->line, "[%.*s] %.*s= is not imported: sitd has no such "
			       "setting", (int)(en->seclen > 32 ? 32 : en->seclen), en->sec,
			       (int)(en->keylen > 40 ? 40 : en->keylen), en->key);
		}
	}
	if (!name_line)
		refuse(im, file, 1, "no [NetDev] Name=");
	if (!t->kind_line)
		refuse(im, file, name_line ? name_line : 1, "no [NetDev] Kind=");
	if (t->isatap && t->kind == SITD_MODE_IPIP)
		refuse(im, file, t->isatap_line, "ISATAP= is for Kind=sit");
	if (t->rd_line && t->kind == SITD_MODE_IPIP)
		refuse(im, file, t->rd_line, "IPv6RapidDeploymentPrefix= is for Kind=sit");
	/* netdev_tunnel_verify(): FooOverUDP=yes needs the port; without it these do nothing. */
	if (t->fou && !t->dport_line)
		refuse(im, file, t->fou_line, "FooOverUDP=yes needs FOUDestinationPort=");
	if (!t->fou) {
		if (t->dport_line)
			refuse(im, file, t->dport_line, "FOUDestinationPort= without FooOverUDP=yes");
		if (t->sport_line)
			refuse(im, file, t->sport_line, "FOUSourcePort= without FooOverUDP=yes");
		if (t->encap_line)
			refuse(im, file, t->encap_line, "Encapsulation= without FooOverUDP=yes");
	}
}

/* The route's destination is on the tunnel's link: an address's prefix holds the gateway. */
static bool gw_reachable(const struct ndtunnel *t, const struct pfx *gw)
{
	for (unsigned i = 0; i < t->naddrs; i++)
		if (pfx_contains(&t->addrs[i], gw))
			return true;
	return false;
}

static void add_route(struct imp *im, struct ndtunnel *t, const struct route_in *r)
{
	if (t->nroutes == SITD_MAX_ROUTES) {
		refuse(im, r->file, r->line, "more than %d routes", SITD_MAX_ROUTES);
		return;
	}
	t->routes[t->nroutes++] = *r;
}

static void add_addr(struct imp *im, struct ndtunnel *t, const char *file, const struct entry *en)
{
	struct pfx p;
	bool had_len;

	/* config_parse_address: an address with its prefix length; without, a host's. */
	if (!pfx_of(en->val, en->vallen, 0, &p, &had_len)) {
		bad_value(im, file, en, "an address ADDR/LEN");
		return;
	}
	if (t->naddrs == SITD_MAX_ADDRS) {
		refuse(im, file, en->line, "more than %d addresses", SITD_MAX_ADDRS);
		return;
	}
	t->addr_file[t->naddrs] = file;
	t->addr_line[t->naddrs] = en->line;
	t->addrs[t->naddrs++] = p;
}

/* A [Route] section, from its header at e[*i], up to the next section. */
static void route_section(struct imp *im, const struct unitfile *u, unsigned *i, struct ndtunnel *t)
{
	const char *file = u->f->name;
	struct route_in r = { .file = file, .line = u->e[*i].line };
	unsigned dst_line = 0, gw_line = 0, nerr = im->nerr;
	bool had_len;

	for (; *i + 1 < u->n && u->e[*i + 1].key; (*i)++) {
		const struct entry *en = &u->e[*i + 1];

		if (KEY(en, "Destination")) {
			if (once(im, file, en, &dst_line) &&
			    !pfx_of(en->val, en->vallen, 0, &r.dst, &had_len))
				bad_value(im, file, en, "a prefix ADDR/LEN");
			r.has_dst = true;
		} else if (KEY(en, "Gateway")) {
			if (once(im, file, en, &gw_line) && !addr_of(en->val, en->vallen, 0, &r.gw))
				bad_value(im, file, en, "an address");
			r.has_gw = true;
		} else if (KEY(en, "Metric")) {
			if (once(im, file, en, &r.metric_line) &&
			    !num(en->val, en->vallen, 0xffffffffu, &r.metric))
				bad_value(im, file, en, "a number");
		} else if (KEY(en, "Table")) {
			if (!once(im, file, en, &r.table_line))
				continue;
			if (eq(en->val, en->vallen, "main"))
				r.table = 0;
			else if (!num(en->val, en->vallen, 0xffffffffu, &r.table))
				bad_value(im, file, en, "main or a table number");
		} else {
			refuse(im, file, en->line, "[Route] %.*s= is not imported: sitd's routes take "
			       "Destination=, Gateway=, Metric=, Table=", (int)(en->keylen > 40 ? 40 :
			       en->keylen), en->key);
		}
	}
	if (im->nerr != nerr)
		return;
	if (!r.has_dst && !r.has_gw) {
		refuse(im, file, r.line, "[Route] with neither Destination= nor Gateway=");
		return;
	}
	if (!r.has_dst) {	/* a default route of the gateway's family */
		memset(&r.dst, 0, sizeof(r.dst));
		r.dst.fam = r.gw.fam;
	}
	if (r.has_gw && r.gw.fam != r.dst.fam) {
		refuse(im, file, gw_line, "Gateway= and Destination= of two families");
		return;
	}
	add_route(im, t, &r);
}

/* The tunnel's own .network: its addresses and routes. */
static void network_own(struct imp *im, const struct unitfile *u, struct ndtunnel *t)
{
	const char *file = u->f->name;

	for (unsigned i = 0; i < u->n; i++) {
		const struct entry *en = &u->e[i];

		if (!en->key) {
			if (SEC(en, "Route"))
				route_section(im, u, &i, t);
			else if (!SEC(en, "Match") && !SEC(en, "Network") && !SEC(en, "Address"))
				refuse(im, file, en->line, "section [%.*s] is not imported",
				       (int)(en->seclen > 32 ? 32 : en->seclen), en->sec);
			continue;
		}
		if ((SEC(en, "Match") && KEY(en, "Name")) || (SEC(en, "Address") && !KEY(en, "Address")))
			continue;	/* read by the caller, refused by address_sections_once */
		if ((SEC(en, "Network") || SEC(en, "Address")) && KEY(en, "Address")) {
			add_addr(im, t, file, en);
		} else if (SEC(en, "Network") && KEY(en, "Gateway")) {
			struct route_in r = { .file = file, .line = en->line, .has_gw = true };

			if (!addr_of(en->val, en->vallen, 0, &r.gw)) {
				bad_value(im, file, en, "an address");
				continue;
			}
			r.dst.fam = r.gw.fam;
			add_route(im, t, &r);
		} else if (SEC(en, "Network") && KEY(en, "Tunnel")) {
			refuse(im, file, en->line, "Tunnel= on the tunnel itself: sitd puts no tunnel "
			       "over another");
		} else {
			refuse(im, file, en->line, "[%.*s] %.*s= is not imported: sitd has no such "
			       "setting", (int)(en->seclen > 32 ? 32 : en->seclen), en->sec,
			       (int)(en->keylen > 40 ? 40 : en->keylen), en->key);
		}
	}
}

/* An [Address] section takes one Address=; a second would replace the first in systemd. */
static void address_sections_once(struct imp *im, const struct unitfile *u)
{
	unsigned seen = 0;
	bool in_addr = false;

	for (unsigned i = 0; i < u->n; i++) {
		const struct entry *en = &u->e[i];

		if (!en->key) {
			in_addr = SEC(en, "Address");
			seen = 0;
		} else if (in_addr && !KEY(en, "Address")) {
			refuse(im, u->f->name, en->line, "[Address] %.*s= is not imported: sitd's "
			       "addresses take only Address=", (int)(en->keylen > 40 ? 40 : en->keylen),
			       en->key);
		} else if (in_addr) {
			(void)once(im, u->f->name, en, &seen);
		}
	}
}

/* Whether s[0..n) holds one of the bytes of set: a glob or a negation in [Match] Name=. */
static bool strpbrk_n(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (strchr(set, s[i]))
			return true;
	return false;
}

static void network_read(struct imp *im, const struct unitfile *u, struct ndtunnel *t, unsigned nt)
{
	const char *file = u->f->name;
	const struct entry *name = NULL;
	unsigned bound = 0, nmatch = 0;

	for (unsigned i = 0; i < u->n; i++) {
		const struct entry *en = &u->e[i];

		if (en->key && SEC(en, "Match")) {
			nmatch++;
			if (KEY(en, "Name"))
				name = en;
		}
	}
	for (unsigned k = 0; name && k < nt; k++) {
		if (!eq(name->val, name->vallen, t[k].name))
			continue;
		if (nmatch != 1) {
			refuse(im, file, name->line, "[Match] with more than Name=%s is not imported",
			       t[k].name);
			return;
		}
		if (t[k].network_line) {
			refuse(im, file, name->line, "a second .network for tunnel %s", t[k].name);
			return;
		}
		t[k].network_line = name->line;
		address_sections_once(im, u);
		network_own(im, u, &t[k]);
		return;
	}
	/* An underlay's .network: its Tunnel= lines bind tunnels to it, the rest is its own. */
	for (unsigned i = 0; i < u->n; i++) {
		const struct entry *en = &u->e[i];
		bool known = false;

		if (!en->key || !SEC(en, "Network") || !KEY(en, "Tunnel"))
			continue;
		for (unsigned k = 0; k < nt; k++) {
			if (!eq(en->val, en->vallen, t[k].name))
				continue;
			known = true;
			if (!name || nmatch != 1 || !name_ok(name->val, name->vallen) ||
			    strpbrk_n(name->val, name->vallen, "*?[!"))
				refuse(im, file, en->line, "Tunnel=%s: sitd's dev needs this file's "
				       "[Match] to be one device's Name=, no pattern", t[k].name);
			else if (t[k].dev_line)
				refuse(im, file, en->line, "Tunnel=%s: already bound to %s (%s:%u)",
				       t[k].name, t[k].dev, t[k].dev_file, t[k].dev_line);
			else if (t[k].independent)
				refuse(im, file, en->line, "Tunnel=%s: the tunnel is Independent= (%s:%u)",
				       t[k].name, t[k].file, t[k].indep_line);
			else {
				memcpy(t[k].dev, name->val, name->vallen);
				t[k].dev[name->vallen] = '\0';
				t[k].dev_file = file;
				t[k].dev_line = en->line;
			}
			bound++;
		}
		if (!known)
			refuse(im, file, en->line, "Tunnel=%.*s: no .netdev given names it",
			       (int)(en->vallen > 32 ? 32 : en->vallen), en->val);
	}
	if (!bound && name)
		refuse(im, file, name->line, "matches no tunnel of the .netdev files given, and "
		       "names none in [Network] Tunnel=");
	else if (!bound && !name)
		refuse(im, file, 1, "no [Match] Name= of a tunnel, and no [Network] Tunnel=");
}

/* sitd's routes have no onlink (GatewayOnLink=): each gateway must be on the link. */
static void check_gateways(struct imp *im, const struct ndtunnel *t)
{
	char a[INET6_ADDRSTRLEN];

	for (unsigned i = 0; i < t->nroutes; i++)
		if (t->routes[i].has_gw && !gw_reachable(t, &t->routes[i].gw))
			refuse(im, t->routes[i].file, t->routes[i].line, "gateway %s is on none of "
			       "the tunnel's address prefixes; sitd's routes have no onlink",
			       ntop(&t->routes[i].gw, a, sizeof(a)));
}

static void route_line(struct stanza *st, const struct route_in *r)
{
	char d[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN], via[64] = "", m[32] = "", tb[32] = "";
	struct pfx net = pfx_net(&r->dst);

	if (r->has_gw)
		snprintf(via, sizeof(via), " via %s", ntop(&r->gw, g, sizeof(g)));
	if (r->metric)
		snprintf(m, sizeof(m), " metric %lu", r->metric);
	if (r->table)
		snprintf(tb, sizeof(tb), " table %lu", r->table);
	st_add(st, r->file, r->line, "route %s/%u%s%s%s", ntop(&net, d, sizeof(d)), r->dst.len, via,
	       m, tb);
}

static void ndtunnel_emit(struct imp *im, struct ndtunnel *t, struct stanza *st, int *ntunnels)
{
	char a[INET6_ADDRSTRLEN], from[64];
	unsigned nerr = im->nerr;

	st_init(st, t->name, t->namelen, t->file, t->line);
	st_add(st, t->file, t->kind_line, "mode %s", t->isatap ? "isatap" :
	       t->kind == SITD_MODE_SIT ? "sit" : "ipip");
	if (t->remote_any)
		st_add(st, t->file, t->remote_line ? t->remote_line : t->line, "remote any");
	else
		st_add(st, t->file, t->remote_line, "remote %s", ntop(&t->remote, a, sizeof(a)));
	if (!t->local_any)
		st_add(st, t->file, t->local_line, "local %s", ntop(&t->local, a, sizeof(a)));
	if (t->ttl)	/* 0: inherit, as the kernel's ttl 0 */
		st_add(st, t->file, t->ttl_line, "ttl %lu", t->ttl);
	if (!t->pmtudisc)
		st_add(st, t->file, t->pmtu_line, "nopmtudisc");
	if (t->mtu_line)
		st_add(st, t->file, t->mtu_line, "mtu %lu", t->mtu);
	if (t->dev_line)
		st_add(st, t->dev_file, t->dev_line, "dev %s", t->dev);
	if (t->rd_line)
		st_add(st, t->file, t->rd_line, "6rd-prefix %s/%u", ntop(&t->rd, a, sizeof(a)),
		       t->rd.len);
	if (t->fou) {
		st_add(st, t->file, t->encap_line ? t->encap_line : t->fou_line, "encap %s",
		       t->gue ? "gue" : "fou");
		st_add(st, t->file, t->dport_line, "encap-dport %lu", t->dport);
		if (t->sport)	/* 0: the kernel picks one per flow */
			st_add(st, t->file, t->sport_line, "encap-sport %lu", t->sport);
	}
	for (unsigned i = 0; i < t->naddrs; i++)
		st_add(st, t->addr_file[i], t->addr_line[i], "address %s/%u",
		       ntop(&t->addrs[i], a, sizeof(a)), t->addrs[i].len);
	/* Routes on the link first, so that those through a gateway find it. */
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < t->nroutes; i++) {
			const struct route_in *r = &t->routes[i];

			if (r->has_gw != (pass == 1))
				continue;
			route_line(st, r);
		}
	if (im->nerr != nerr)
		return;
	snprintf(from, sizeof(from), "from systemd-networkd: Kind=%s",
		 t->kind == SITD_MODE_SIT ? "sit" : "ipip");
	st_emit(im, st, from);
	if (im->nerr == nerr)
		(*ntunnels)++;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

int sitd_import_networkd(const struct sitd_import_file *files, unsigned nfiles, char *out,
			 size_t outcap, char *err, size_t errcap)
{
	struct ndtunnel t[TUNNELS_MAX];
	struct unitfile u;
	struct stanza st;
	struct imp im;
	unsigned nt = 0;
	int ntunnels = 0;

	imp_init(&im, out, outcap, err, errcap);
	for (unsigned i = 0; i < nfiles && i < FILES_MAX_; i++)
		im.files[im.nfiles++] = files[i].name;
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < nfiles; i++) {
			bool netdev = ends_with(files[i].name, ".netdev");

			if (!netdev && !ends_with(files[i].name, ".network")) {
				if (pass == 0)
					refuse(&im, files[i].name, 1, "neither a .netdev nor a .network");
				continue;
			}
			if (netdev != (pass == 0))
				continue;
			u.f = &files[i];
			u.netdev = netdev;
			unit_parse(&im, &u);
			if (!netdev) {
				network_read(&im, &u, t, nt);
				continue;
			}
			if (nt == TUNNELS_MAX) {
				refuse(&im, files[i].name, 1, "more than %d tunnels", TUNNELS_MAX);
				continue;
			}
			netdev_read(&im, &u, &t[nt]);
			for (unsigned k = 0; k < nt; k++)
				if (t[nt].namelen && !strcmp(t[k].name, t[nt].name))
					refuse(&im, files[i].name, t[nt].line, "tunnel %s given twice (%s:%u)",
					       t[nt].name, t[k].file, t[k].line);
			nt++;
		}
	for (unsigned k = 0; k < nt; k++)
		check_gateways(&im, &t[k]);
	if (nt == 0 && !im.nerr)
		refuse(&im, nfiles ? files[0].name : "-", 1, "no .netdev file");
	if (im.nerr)
		return imp_done(&im, 0);
	for (unsigned k = 0; k < nt; k++)
		ndtunnel_emit(&im, &t[k], &st, &ntunnels);
	return imp_done(&im, ntunnels);
}
