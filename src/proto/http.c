/* SPDX-License-Identifier: MIT */
/* The exporter's HTTP (http.h): the request head parsed, the answers' heads, -M's address. */
#include "proto/http.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const unsigned codes[SITD_HTTP_STATUS_MAX] = {
#define SITD_HTTP_CODE(code, reason) code,
	SITD_HTTP_STATUSES(SITD_HTTP_CODE)
#undef SITD_HTTP_CODE
};

static const char *const reasons[SITD_HTTP_STATUS_MAX] = {
#define SITD_HTTP_REASON(code, reason) reason,
	SITD_HTTP_STATUSES(SITD_HTTP_REASON)
#undef SITD_HTTP_REASON
};

unsigned sitd_http_code(enum sitd_http_status s)
{
	return s < SITD_HTTP_STATUS_MAX ? codes[s] : 500;
}

const char *sitd_http_reason(enum sitd_http_status s)
{
	return s < SITD_HTTP_STATUS_MAX ? reasons[s] : "Internal Server Error";
}

/* RFC 9110 5.6.2: tchar, what a method and a field name are made of. */
static bool tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool all_tchar(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tchar((unsigned char)s[i]))
			return false;
	return n > 0;
}

static int bad(struct sitd_http_req *r, enum sitd_http_status s, char *err, size_t errlen,
	       const char *why)
{
	r->status = s;
	snprintf(err, errlen, "%s", why);
	return 0;
}

/* The request line: method, target, version, each separated by one SP (RFC 9112 3). */
struct line {
	enum sitd_http_status status;	/* 200, or 404/405/505 once the head is whole */
	const char *why;
	bool http11, head;
};

static int request_line(const char *s, size_t n, struct line *l)
{
	const char *sp1 = memchr(s, ' ', n), *sp2, *t;
	size_t mlen, tlen, plen;

	if (!sp1)
		return -1;
	mlen = (size_t)(sp1 - s);
	t = sp1 + 1;
	sp2 = memchr(t, ' ', n - mlen - 1);
	if (!sp2 || !all_tchar(s, mlen))
		return -1;
	tlen = (size_t)(sp2 - t);
	/* origin-form only (RFC 9112 3.2.1): visible ASCII, from a '/' */
	if (!tlen || t[0] != '/')
		return -1;
	for (size_t i = 0; i < tlen; i++)
		if ((unsigned char)t[i] <= ' ' || (unsigned char)t[i] >= 0x7f)
			return -1;
	/* HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive (RFC 9112 2.3) */
	if ((size_t)(s + n - (sp2 + 1)) != 8 || memcmp(sp2 + 1, "HTTP/", 5) ||
	    sp2[6] < '0' || sp2[6] > '9' || sp2[7] != '.' || sp2[8] < '0' || sp2[8] > '9')
		return -1;
	l->http11 = sp2[6] == '1' && sp2[8] == '1';
	l->head = mlen == 4 && !memcmp(s, "HEAD", 4);
	plen = strcspn(t, "? ");
	if (plen > tlen)
		plen = tlen;
	l->status = SITD_HTTP_200;
	if (sp2[6] != '1') {
		l->status = SITD_HTTP_505;
		l->why = "HTTP version not 1.x";
	} else if (plen != 8 || memcmp(t, "/metrics", 8)) {
		l->status = SITD_HTTP_404;
		l->why = "path not /metrics";
	} else if (!(mlen == 3 && !memcmp(s, "GET", 3)) && !l->head) {
		l->status = SITD_HTTP_405;
		l->why = "method not GET or HEAD";
	}
	return 0;
}

/* A header field's name in s[0 .. n) (case-insensitive, RFC 9110 5.1). */
static bool named(const char *s, size_t n, const char *name)
{
	return n == strlen(name) && !strncasecmp(s, name, n);
}

/* Content-Length: 0, however written ("00"): no body. */
static bool zeros(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != '0')
			return false;
	return n > 0;
}

int sitd_http_parse(const char *buf, size_t len, struct sitd_http_req *r, char *err,
		    size_t errlen)
{
	struct line l = { .status = SITD_HTTP_200 };
	unsigned hosts = 0;
	bool body = false;
	size_t pos = 0;

	memset(r, 0, sizeof(*r));
	err[0] = '\0';
	for (unsigned k = 0;; k++) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos), *colon, *v;
		size_t n, vlen;

		if (!nl)
			break;
		n = (size_t)(nl - s);
		pos += n + 1;
		if (n && s[n - 1] == '\r')
			n--;
		/* A CR anywhere else is invalid (RFC 9112 2.2); so is any other control byte. */
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)s[i];

			if ((c < ' ' && c != '\t') || c == 0x7f)
				return bad(r, SITD_HTTP_400, err, errlen, "a control byte in the head");
		}
		if (k == 0) {
			if (request_line(s, n, &l) < 0)
				return bad(r, SITD_HTTP_400, err, errlen, "malformed request line");
			continue;
		}
		if (n == 0) {	/* the end of the head */
			if (l.http11 && hosts != 1)
				return bad(r, SITD_HTTP_400, err, errlen,
					   "HTTP/1.1 without exactly one Host");
			r->head = l.head;
			r->http11 = l.http11;
			/* Another path or method is said so, body or not; a GET has none. */
			if (l.status != SITD_HTTP_200)
				return bad(r, l.status, err, errlen, l.why);
			if (body)
				return bad(r, SITD_HTTP_400, err, errlen, "a body in a GET or HEAD");
			r->status = SITD_HTTP_200;
			return 0;
		}
		/* field-line = field-name ":" OWS field-value OWS (RFC 9112 5); no obs-fold. */
		colon = memchr(s, ':', n);
		if (!colon || !all_tchar(s, (size_t)(colon - s)))
			return bad(r, SITD_HTTP_400, err, errlen, "malformed header field");
		v = colon + 1;
		vlen = n - (size_t)(v - s);
		while (vlen && (*v == ' ' || *v == '\t'))
			v++, vlen--;
		while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
			vlen--;
		if (named(s, (size_t)(colon - s), "Host"))
			hosts++;
		else if (named(s, (size_t)(colon - s), "Transfer-Encoding") ||
			 (named(s, (size_t)(colon - s), "Content-Length") && !zeros(v, vlen)))
			body = true;
	}
	/* Not whole yet: what came of the line cut short holds no control byte either. */
	for (size_t i = pos; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if ((c < ' ' && c != '\t' && c != '\r') || c == 0x7f)
			return bad(r, SITD_HTTP_400, err, errlen, "a control byte in the head");
	}
	return 1;
}

size_t sitd_http_head(char *buf, size_t cap, enum sitd_http_status s, size_t content_length)
{
	int n = snprintf(buf, cap,
			 "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n",
			 sitd_http_code(s), sitd_http_reason(s),
			 s == SITD_HTTP_200 ? SITD_METRICS_CONTENT_TYPE : "text/plain; charset=utf-8",
			 content_length, s == SITD_HTTP_405 ? "Allow: GET, HEAD\r\n" : "");

	return n < 0 ? 0 : (size_t)n;
}

size_t sitd_http_head_stream(char *buf, size_t cap, bool chunked)
{
	int n = snprintf(buf, cap, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n%sConnection: close\r\n\r\n",
			 SITD_METRICS_CONTENT_TYPE, chunked ? "Transfer-Encoding: chunked\r\n" : "");

	return n < 0 ? 0 : (size_t)n;
}

static int port_of(const char *s, uint16_t *port)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 5 || strspn(s, "0123456789") != strlen(s))
		return -1;
	for (; *s; s++)
		v = v * 10 + (unsigned long)(*s - '0');
	if (v < 1 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

int sitd_listen_parse(const char *s, struct sitd_listen *l, char *err, size_t errlen)
{
	char a[64];
	const char *colon;
	size_t n;

	memset(l, 0, sizeof(*l));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		n = end ? (size_t)(end - s - 1) : 0;
		if (!end || end[1] != ':' || n == 0 || n >= sizeof(a))
			goto fail;
		memcpy(a, s + 1, n);
		a[n] = '\0';
		if (inet_pton(AF_INET6, a, l->addr) != 1 || port_of(end + 2, &l->port) < 0)
			goto fail;
		l->family = 6;
		return 0;
	}
	colon = strrchr(s, ':');
	if (!colon) {
		/* A port alone: loopback (sitd.8, "-M"): the counters name the peers. */
		static const uint8_t lo[4] = { 127, 0, 0, 1 };

		memcpy(l->addr, lo, 4);
		l->family = 4;
		if (port_of(s, &l->port) < 0)
			goto fail;
		return 0;
	}
	n = (size_t)(colon - s);
	if (n == 0 || n >= sizeof(a))
		goto fail;
	memcpy(a, s, n);
	a[n] = '\0';
	if (inet_pton(AF_INET, a, l->addr) != 1 || port_of(colon + 1, &l->port) < 0)
		goto fail;
	l->family = 4;
	return 0;
fail:
	memset(l, 0, sizeof(*l));
	snprintf(err, errlen, "-M takes PORT, A.B.C.D:PORT or [IPV6]:PORT (PORT 1..65535), not \"%.64s\"",
		 s);
	return -1;
}

size_t sitd_listen_format(const struct sitd_listen *l, char *buf, size_t cap)
{
	char a[INET6_ADDRSTRLEN] = "?";
	int n;

	inet_ntop(l->family == 6 ? AF_INET6 : AF_INET, l->addr, a, sizeof(a));
	n = snprintf(buf, cap, l->family == 6 ? "[%s]:%u" : "%s:%u", a, l->port);
	return n < 0 ? 0 : (size_t)n;
}
