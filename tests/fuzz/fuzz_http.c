/* SPDX-License-Identifier: MIT */
/*
 * -M's request head parser (http.h), fed any bytes, as anyone who reaches the port may
 * send them; and -M's [ADDR:]PORT.  Invariants: no crash and no read past the bytes
 * given; a head is whole (0) or asks for more (1); a refusal says why; 200 only for GET
 * or HEAD of /metrics, after an empty line; an answer given for the first k bytes is the
 * answer for all of them (nothing after the head, or after an error, changes it); HTTP/1.1
 * (chunks allowed) only when the request line says so; an
 * accepted -M survives format -> parse unchanged.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto/http.h"

static bool starts(const uint8_t *d, size_t n, const char *s)
{
	return n >= strlen(s) && !memcmp(d, s, strlen(s));
}

static void listen_arg(const uint8_t *data, size_t size)
{
	struct sitd_listen l, again;
	char s[80], err[160], out[80];
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;

	memcpy(s, data, n);
	s[n] = '\0';
	if (sitd_listen_parse(s, &l, err, sizeof(err)) < 0) {
		CHECK(err[0] != '\0');
		return;
	}
	CHECK(l.family == 4 || l.family == 6);
	CHECK(l.port != 0);
	CHECK(sitd_listen_format(&l, out, sizeof(out)) < sizeof(out));
	CHECK(sitd_listen_parse(out, &again, err, sizeof(err)) == 0);
	CHECK(!memcmp(&l, &again, sizeof(l)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sitd_http_req r, part;
	char err[96];
	/* A copy of exactly size bytes: ASan sees any read past them. */
	char *buf = malloc(size ? size : 1);
	size_t k;
	int rc;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(err, 0, sizeof(err));
	rc = sitd_http_parse(buf, size, &r, err, sizeof(err));
	CHECK(rc == 0 || rc == 1);
	if (rc == 0) {
		CHECK(r.status < SITD_HTTP_STATUS_MAX);
		CHECK(r.status == SITD_HTTP_200 || err[0] != '\0');
		if (r.status == SITD_HTTP_200) {
			CHECK(starts(data, size, r.head ? "HEAD /metrics" : "GET /metrics"));
			CHECK(memmem(data, size, "\n\n", 2) || memmem(data, size, "\n\r\n", 3));
		}
		CHECK(sitd_http_head(NULL, 0, r.status, size) > 0);
		/* chunks only for HTTP/1.1 (RFC 9112 7.1): its request line says so */
		if (r.http11) {
			const uint8_t *nl = memchr(data, '\n', size);
			size_t n = (size_t)(nl - data);

			n -= n && data[n - 1] == '\r';
			CHECK(n >= 8 && !memcmp(data + n - 8, "HTTP/1.1", 8));
		}
	}
	/* A prefix: its answer, once it has one, is the whole's. */
	k = size ? data[0] % (size + 1) : 0;
	if (sitd_http_parse(buf, k, &part, err, sizeof(err)) == 0)
		CHECK(rc == 0 && part.status == r.status && part.head == r.head &&
		      part.http11 == r.http11);
	free(buf);
	listen_arg(data, size);
	return 0;
}
