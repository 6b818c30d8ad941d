/* SPDX-License-Identifier: MIT */
/*
 * -M's exporter: GET /metrics over HTTP/1.x, served without blocking from the control
 * thread's poll loop (server.c), as the control socket's clients are (control.c); the
 * workers never see it.  The listening socket comes from the monitor (ps_metrics_listen).
 * Each connection carries one request, parsed by proto/http.c, and gets one answer, then
 * is closed: a 200's text made a part at a time (requests_metrics_part), each once the
 * last went out, so that a table of thousands needs no buffer of the whole text.  Bounded: at most
 * SITD_HTTP_CLIENTS_MAX at once (beyond, 503 at once), a head of at most
 * SITD_HTTP_HEAD_MAX bytes (beyond, 431), SITD_HTTP_DEADLINE_MS to send it and
 * SITD_HTTP_ANSWER_MS to read the answer (beyond, closed and counted).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/server_int.h"
#include "os/clock.h"
#include "os/log.h"
#include "proto/http.h"

static int64_t now_ms(void)
{
	return (int64_t)(now_ns() / 1000000);
}

static void client_close(struct server *s, unsigned i)
{
	close(s->hc[i].fd);
	free(s->hc[i].out);
	s->hc[i] = s->hc[--s->nhc];
}

void httpd_close_all(struct server *s)
{
	while (s->nhc)
		client_close(s, 0);
}

/* An answer other than the metrics: head and, unless HEAD, body; NULL: no memory. */
static char *answer(struct server *s, enum sitd_http_status st, bool head_only, size_t *len)
{
	char msg[64], *out;
	size_t blen = (size_t)snprintf(msg, sizeof(msg), "%s\n", sitd_http_reason(st));
	size_t hlen = sitd_http_head(NULL, 0, st, blen);

	out = malloc(hlen + blen + 1);
	if (out) {
		sitd_http_head(out, hlen + 1, st, blen);
		memcpy(out + hlen, msg, blen);
		*len = hlen + (head_only ? 0 : blen);
		s->http.responses[st]++;
	}
	return out;
}

/* Room before a part for its chunk's size line, after it for CRLF and the last chunk. */
enum { CHUNK_PRE = 16, CHUNK_POST = 8 };

/* The metrics' 200: its head into c->out, the text to follow (unless HEAD). */
static bool start_metrics(struct server *s, struct httpd_client *c,
			  const struct sitd_http_req *r)
{
	c->out = malloc(CHUNK_PRE + REQUESTS_METRICS_PART + CHUNK_POST);
	if (!c->out)
		return false;
	c->chunked = r->http11;
	c->outlen = sitd_http_head_stream(c->out, CHUNK_PRE + REQUESTS_METRICS_PART,
					  c->chunked);
	c->more = !r->head;
	if (c->more)
		requests_metrics_begin(s, &c->mc);
	s->http.responses[SITD_HTTP_200]++;
	return true;
}

/*
 * The next part of the text into c->out, in a chunk of its own (RFC 9112 7.1), the last
 * chunk after the last part.  false: it could not be made (cannot be, by
 * SITD_METRICS_PART_MIN): the connection is closed without the last chunk, which the
 * client sees.
 */
static bool next_part(struct server *s, struct httpd_client *c)
{
	char *body = c->out + CHUNK_PRE, size[CHUNK_PRE];
	size_t len;
	int rc = requests_metrics_part(s, &c->mc, body, REQUESTS_METRICS_PART, &len), k;

	if (rc < 0) {
		log_warnx("metrics: a part does not fit; the answer is cut");
		return false;
	}
	c->more = rc > 0;
	c->outoff = CHUNK_PRE;
	if (c->chunked && len) {
		k = snprintf(size, sizeof(size), "%zx\r\n", len);
		c->outoff -= (size_t)k;
		memcpy(body - k, size, (size_t)k);
		memcpy(body + len, "\r\n", 2);
		len += 2;
	}
	if (c->chunked && !c->more) {
		memcpy(body + len, "0\r\n\r\n", 5);
		len += 5;
	}
	c->outlen = CHUNK_PRE + len;
	return true;
}

/*
 * Over the cap: 503 at once, without a slot.  What the client sent already is read
 * first, so that the close is a FIN, not a reset that could lose the answer.
 */
static void busy(struct server *s, int fd)
{
	char buf[SITD_HTTP_HEAD_MAX], *out;
	size_t len;

	(void)!read(fd, buf, sizeof(buf));
	out = answer(s, SITD_HTTP_503, false, &len);
	if (out)
		(void)!write(fd, out, len);	/* non-blocking: what fits, and it all does */
	free(out);
	close(fd);
}

void httpd_accept(struct server *s)
{
	/* Bounded per round, so that a flood of connections cannot hold the loop. */
	for (unsigned k = 0; k < 2 * SITD_HTTP_CLIENTS_MAX; k++) {
		int fd = accept4(s->http_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct httpd_client *c;

		if (fd < 0)
			return;
		if (s->nhc == SITD_HTTP_CLIENTS_MAX) {
			busy(s, fd);
			continue;
		}
		c = &s->hc[s->nhc++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->deadline = now_ms() + SITD_HTTP_DEADLINE_MS;
	}
}

int httpd_pollfds(const struct server *s, struct pollfd *p)
{
	int64_t now = now_ms();
	int timeout = -1;

	for (unsigned i = 0; i < s->nhc; i++) {
		const struct httpd_client *c = &s->hc[i];

		p[i] = (struct pollfd){ .fd = c->fd, .events = c->out ? POLLOUT : POLLIN };
		if (timeout < 0 || c->deadline - now < timeout)
			timeout = c->deadline > now ? (int)(c->deadline - now) : 0;
	}
	return timeout;
}

/* Read what the client sent; once the head is whole (or too long), the answer. false: done. */
static bool client_read(struct server *s, struct httpd_client *c)
{
	struct sitd_http_req r;
	char err[96];
	ssize_t n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	int rc;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n == 0)
		return false;	/* closed before a whole head: nothing to answer */
	c->inlen += (size_t)n;
	rc = sitd_http_parse(c->in, c->inlen, &r, err, sizeof(err));
	if (rc > 0 && c->inlen < sizeof(c->in))
		return true;
	if (rc > 0)
		r = (struct sitd_http_req){ .status = SITD_HTTP_431 };
	if (r.status != SITD_HTTP_200 || !start_metrics(s, c, &r))
		c->out = answer(s, r.status == SITD_HTTP_200 ? SITD_HTTP_503 : r.status, r.head,
				&c->outlen);	/* 503 for 200: no memory for it, try later */
	if (!c->out) {
		log_warnx("metrics: out of memory");
		return false;
	}
	c->deadline = now_ms() + SITD_HTTP_ANSWER_MS;
	return true;
}

/* What fits of c->out; once it all went, the next part.  false: done (or failed). */
static bool client_write(struct server *s, struct httpd_client *c)
{
	ssize_t n = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	c->outoff += (size_t)n;
	if (c->outoff == c->outlen && c->more && !next_part(s, c))
		return false;
	return c->outoff < c->outlen;
}

void httpd_poll(struct server *s, struct pollfd *p)
{
	int64_t now = now_ms();

	for (unsigned i = 0; i < s->nhc;) {
		struct httpd_client *c = &s->hc[i];
		bool keep = true;

		if ((p[i].revents & (POLLERR | POLLNVAL)) ||
		    (c->out && (p[i].revents & POLLHUP))) {
			keep = false;	/* gone: an answer could not reach it */
		} else if (!c->out && (p[i].revents & (POLLIN | POLLHUP))) {
			keep = client_read(s, c);
			/* An answer made just now may go out at once (most fit the socket buffer). */
			if (keep && c->out)
				keep = client_write(s, c);
		} else if (c->out && (p[i].revents & POLLOUT)) {
			keep = client_write(s, c);
		}
		if (keep && now >= c->deadline) {
			s->http.timeouts++;	/* the head, or the reading of the answer, too slow */
			keep = false;
		}
		if (!keep) {
			client_close(s, i);
			p[i] = p[s->nhc];
			continue;
		}
		i++;
	}
}
