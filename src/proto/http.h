/* SPDX-License-Identifier: MIT */
/*
 * `-M [ADDR:]PORT`'s HTTP: the one request sitd answers (GET or HEAD /metrics), parsed
 * strictly from whoever may connect, the heads of its answers, the address to listen on.
 * Pure and fuzzed: the head parser reads bytes and says which answer they get.
 *
 * What the parser takes (RFC 9112): a request line `METHOD SP /metrics[?query] SP
 * HTTP/1.x`, header fields `name: value` (no white space before the colon, no obs-fold,
 * no control bytes but HTAB), lines ended by CRLF or a lone LF (RFC 9112 2.2), an empty
 * line at the end.  HTTP/1.1 needs exactly one Host (RFC 9112 3.2); a body (a
 * Transfer-Encoding, a Content-Length other than 0) is refused: a GET has none here.
 */
#ifndef SITD_HTTP_H
#define SITD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(code, reason phrase): every status sitd answers with, and counts. */
#define SITD_HTTP_STATUSES(X)                         \
	X(200, "OK")                                  \
	X(400, "Bad Request")                         \
	X(404, "Not Found")                           \
	X(405, "Method Not Allowed")                  \
	X(431, "Request Header Fields Too Large")     \
	X(503, "Service Unavailable")                 \
	X(505, "HTTP Version Not Supported")

enum sitd_http_status {
#define SITD_HTTP_ENUM(code, reason) SITD_HTTP_##code,
	SITD_HTTP_STATUSES(SITD_HTTP_ENUM)
#undef SITD_HTTP_ENUM
	SITD_HTTP_STATUS_MAX
};

/* The code (200, ...) and reason phrase of a status. */
unsigned sitd_http_code(enum sitd_http_status s);
const char *sitd_http_reason(enum sitd_http_status s);

/* What the exporter counts (the `sitd_http_*` metrics). */
struct sitd_http_stats {
	uint64_t responses[SITD_HTTP_STATUS_MAX];	/* answers sent, by status */
	uint64_t timeouts;	/* closed at the deadline: the request or its reading too slow */
};

/*
 * A request head at most this long (Prometheus sends about 300 bytes): longer is 431.
 * At most SITD_HTTP_CLIENTS_MAX connections at once (more are answered 503), each closed when
 * its request is not whole SITD_HTTP_DEADLINE_MS after it came, or its answer not read
 * SITD_HTTP_ANSWER_MS after that.
 */
enum {
	SITD_HTTP_HEAD_MAX = 4096,
	SITD_HTTP_CLIENTS_MAX = 8,
	SITD_HTTP_DEADLINE_MS = 2000,
	SITD_HTTP_ANSWER_MS = 10000,	/* then to read the answer (Prometheus waits 10 s) */
	SITD_HTTP_BACKLOG = 16,
};

struct sitd_http_req {
	enum sitd_http_status status;	/* the answer: 200, or why not */
	bool head;			/* HEAD: the answer without its body */
	bool http11;			/* HTTP/1.1: the answer may be chunked */
};

/*
 * Parse the request head in buf[0 .. len).  1: no error yet but not whole (read more;
 * at SITD_HTTP_HEAD_MAX bytes the answer is 431); 0: answer r->status, and when it is
 * not 200 a reason in err.  Errors are found as soon as their line is whole.
 */
int sitd_http_parse(const char *buf, size_t len, struct sitd_http_req *r, char *err,
		    size_t errlen);

/*
 * An answer's head: status line, Content-Type, Content-Length, Connection: close (every
 * connection carries one request), and Allow for 405.  The length it needs, as snprintf.
 */
size_t sitd_http_head(char *buf, size_t cap, enum sitd_http_status s, size_t content_length);

/*
 * The head of the metrics' 200, whose length is not known when it is sent: the text is
 * made a part at a time.  To HTTP/1.1 in chunks (RFC 9112 7.1): a text cut short (sitd
 * stopped, the deadline) then lacks its last chunk and Prometheus' Go client fails the
 * scrape (up 0) instead of storing what came as if it were all.  To HTTP/1.0, which
 * must not get chunks, ended by the close (RFC 9112 6.3, rule 8).  The length it needs.
 */
size_t sitd_http_head_stream(char *buf, size_t cap, bool chunked);

/* The Content-Type of the metrics: the text exposition format 0.0.4. */
#define SITD_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* `-M [ADDR:]PORT`: where the exporter listens. */
struct sitd_listen {
	uint8_t family;		/* 4 or 6 */
	uint8_t addr[16];	/* network order; IPv4 in the first 4 bytes */
	uint16_t port;
};

/*
 * PORT (on 127.0.0.1), A.B.C.D:PORT or [IPV6]:PORT, PORT 1..65535.  0, or -1 with a
 * message in err.  sitd_listen_format: the same, canonical ("127.0.0.1:9724").
 */
int sitd_listen_parse(const char *s, struct sitd_listen *l, char *err, size_t errlen);
size_t sitd_listen_format(const struct sitd_listen *l, char *buf, size_t cap);

#endif
