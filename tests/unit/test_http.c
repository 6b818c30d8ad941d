/* SPDX-License-Identifier: MIT */
/*
 * -M's HTTP (http.h): the request head parser on a table of heads, each with the answer
 * it gets (RFC 9112's rules: the request line's three parts and single spaces, origin
 * form, HTTP/1.x, Host once in 1.1, no body, no obs-fold, no white space before a colon,
 * no control bytes, CRLF or a lone LF); a head given byte by byte asks for more until its
 * empty line; the answers' heads; -M's [ADDR:]PORT.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proto/http.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct head_case {
	const char *head;
	int rc;				/* 0: whole, 1: more */
	enum sitd_http_status status;
	bool head_only;
};

#define H11 "Host: 127.0.0.1:9724\r\n"

static const struct head_case heads[] = {
	/* What Prometheus 2.42 sends, in substance */
	{ "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9724\r\nUser-Agent: Prometheus/2.42.0\r\n"
	  "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
	  "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n", 0, SITD_HTTP_200, false },
	{ "GET /metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_200, false },
	{ "GET /metrics HTTP/1.0\n\n", 0, SITD_HTTP_200, false },	/* lone LF, RFC 9112 2.2 */
	{ "HEAD /metrics HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_200, true },
	{ "GET /metrics?x=1 HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_200, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 "Content-Length: 0\r\n\r\n", 0, SITD_HTTP_200, false },
	{ "GET /metrics HTTP/1.1\r\nhost:x\r\n\r\n", 0, SITD_HTTP_200, false },
	/* Another path, another method, another version */
	{ "GET / HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_404, false },
	{ "GET /metricsx HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_404, false },
	{ "GET /metrics/ HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_404, false },
	{ "GET /Metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_404, false },
	{ "POST /metrics HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_405, false },
	{ "get /metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_405, false },	/* case-sensitive */
	{ "OPTIONS /metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_405, false },
	{ "POST /x HTTP/1.0\r\n\r\n", 0, SITD_HTTP_404, false },
	{ "POST /metrics HTTP/1.1\r\n" H11 "Content-Length: 1\r\n\r\nx", 0, SITD_HTTP_405, false },
	{ "PUT /x HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked\r\n\r\n", 0, SITD_HTTP_404, false },
	{ "GET /metrics HTTP/2.0\r\n\r\n", 0, SITD_HTTP_505, false },
	{ "GET /metrics HTTP/0.9\r\n\r\n", 0, SITD_HTTP_505, false },
	/* Malformed request lines */
	{ "GET /metrics\r\n\r\n", 0, SITD_HTTP_400, false },		/* HTTP/0.9 */
	{ "GET  /metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics  HTTP/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.0 \r\n\r\n", 0, SITD_HTTP_400, false },
	{ " GET /metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET http://h/metrics HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_400, false },
	{ "GET * HTTP/1.1\r\n" H11 "\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics http/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.10\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "G(T /metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /met\x7frics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /m\xc3\xa9trics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "\r\nGET /metrics HTTP/1.0\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.0\r\r\n\r\n", 0, SITD_HTTP_400, false },	/* a bare CR */
	/* Headers */
	{ "GET /metrics HTTP/1.1\r\n\r\n", 0, SITD_HTTP_400, false },	/* no Host */
	{ "GET /metrics HTTP/1.1\r\n" H11 H11 "\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 " folded\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 "NoColon\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 ": empty name\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 "Content-Length: 5\r\n\r\nhello", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 "Content-Length:\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 "X: a\x01" "b\r\n\r\n", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1\r\n" H11 "X: a\tb \xff\r\n\r\n", 0, SITD_HTTP_200, false },
	/* Not whole yet: more, unless what came already is wrong */
	{ "", 1, SITD_HTTP_200, false },
	{ "GET /metr", 1, SITD_HTTP_200, false },
	{ "GET /metrics HTTP/1.1\r\n" H11, 1, SITD_HTTP_200, false },
	{ "GET /x HTTP/1.1\r\n", 1, SITD_HTTP_200, false },	/* 404 only once whole */
	{ "GET /met\x01", 0, SITD_HTTP_400, false },
	{ "GET /metrics HTTP/1.1 x\r\n", 0, SITD_HTTP_400, false },
};

static void table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		struct sitd_http_req r;
		char err[96];
		int rc = sitd_http_parse(heads[i].head, strlen(heads[i].head), &r, err, sizeof(err));

		if (rc != heads[i].rc || (rc == 0 && (r.status != heads[i].status ||
						      r.head != heads[i].head_only)))
			fail_msg("case %zu \"%s\": rc %d status %u (%s)", i, heads[i].head, rc,
				 sitd_http_code(r.status), err);
		if (rc == 0 && r.status != SITD_HTTP_200)
			assert_true(err[0] != '\0');
	}
}

/* A head given a byte at a time asks for more until its last byte, whatever the answer. */
static void byte_by_byte(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		const char *h = heads[i].head;
		size_t n = strlen(h);
		struct sitd_http_req r;
		char err[96];
		size_t k;
		int rc = 1;

		if (heads[i].rc)
			continue;
		for (k = 0; k <= n && rc == 1; k++)
			rc = sitd_http_parse(h, k, &r, err, sizeof(err));
		assert_int_equal(rc, 0);
		assert_int_equal(r.status, heads[i].status);
		/* Errors of syntax show as soon as their line is whole; answers only at the end. */
		if (heads[i].status != SITD_HTTP_400)
			assert_true(k - 1 == n || (strstr(h, "\r\n\r\n") &&
						   k - 1 == (size_t)(strstr(h, "\r\n\r\n") - h) + 4));
	}
}

/* A NUL in the head is a control byte: refused, never read as the end of a string. */
static void nul_refused(void **state)
{
	static const char h[] = "GET /metrics HTTP/1.0\r\nX: a\0b\r\n\r\n";
	struct sitd_http_req r;
	char err[96];

	(void)state;
	assert_int_equal(sitd_http_parse(h, sizeof(h) - 1, &r, err, sizeof(err)), 0);
	assert_int_equal(r.status, SITD_HTTP_400);
	assert_int_equal(sitd_http_parse("GET /\0", 6, &r, err, sizeof(err)), 0);
	assert_int_equal(r.status, SITD_HTTP_400);
}

static void answer_heads(void **state)
{
	char b[256];
	size_t n;

	(void)state;
	n = sitd_http_head(b, sizeof(b), SITD_HTTP_200, 1234);
	assert_string_equal(b, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; "
			       "charset=utf-8\r\nContent-Length: 1234\r\nConnection: close\r\n\r\n");
	assert_int_equal(n, strlen(b));
	sitd_http_head(b, sizeof(b), SITD_HTTP_405, 19);
	assert_string_equal(b, "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; "
			       "charset=utf-8\r\nContent-Length: 19\r\nAllow: GET, HEAD\r\n"
			       "Connection: close\r\n\r\n");
	assert_int_equal(sitd_http_head(NULL, 0, SITD_HTTP_404, 10), strlen(
		"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
		"Content-Length: 10\r\nConnection: close\r\n\r\n"));
	assert_int_equal(sitd_http_code(SITD_HTTP_431), 431);
	assert_string_equal(sitd_http_reason(SITD_HTTP_503), "Service Unavailable");
}

struct listen_case {
	const char *arg;
	int rc;
	const char *canonical;
};

static const struct listen_case listens[] = {
	{ "9724", 0, "127.0.0.1:9724" },
	{ "0.0.0.0:9724", 0, "0.0.0.0:9724" },
	{ "192.0.2.1:80", 0, "192.0.2.1:80" },
	{ "[::]:9724", 0, "[::]:9724" },
	{ "[2001:db8::1]:65535", 0, "[2001:db8::1]:65535" },
	{ "[::1]:1", 0, "[::1]:1" },
	{ "0", -1, NULL },
	{ "65536", -1, NULL },
	{ "", -1, NULL },
	{ ":9724", -1, NULL },
	{ "192.0.2.1:", -1, NULL },
	{ "192.0.2.1", -1, NULL },
	{ "192.0.2:9724", -1, NULL },
	{ "localhost:9724", -1, NULL },
	{ "::1:9724", -1, NULL },
	{ "[::1]9724", -1, NULL },
	{ "[192.0.2.1]:9724", -1, NULL },
	{ "[]:9724", -1, NULL },
	{ "9724x", -1, NULL },
	{ "+80", -1, NULL },
	{ "000080", -1, NULL },
};

static void listen_args(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(listens); i++) {
		struct sitd_listen l;
		char err[160], out[64];
		int rc = sitd_listen_parse(listens[i].arg, &l, err, sizeof(err));

		if (rc != listens[i].rc)
			fail_msg("-M \"%s\": %d", listens[i].arg, rc);
		if (rc < 0) {
			assert_non_null(strstr(err, "-M takes"));
			continue;
		}
		sitd_listen_format(&l, out, sizeof(out));
		assert_string_equal(out, listens[i].canonical);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(byte_by_byte),
		cmocka_unit_test(nul_refused),
		cmocka_unit_test(answer_heads),
		cmocka_unit_test(listen_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
