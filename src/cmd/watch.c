/* SPDX-License-Identifier: MIT */
/*
 * The clients of `sitd monitor [-j]` (as `ip monitor`): each takes the daemon's events
 * (daemon_events_read) as lines, text or JSON (proto/event.h), from the moment it asked.
 * Served from the control thread's poll loop and never waited for: writes never block,
 * each client has WATCH_QUEUE bytes of events it has not read (and a send buffer as
 * small), and one that lets them fill is dropped, counted in `sitd status`, while the
 * others and the tunnels go on.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/server_int.h"
#include "daemon/daemon.h"
#include "os/log.h"
#include "proto/event.h"

static size_t queue_size(struct server *s)
{
	/* Test knob: SITD_MONITOR_QUEUE=BYTES, a small queue that fills at once
	 * (tests/integration/test_monitor.sh). */
	if (!s->watch_queue) {
		const char *k = getenv("SITD_MONITOR_QUEUE");
		long v = k ? atol(k) : 0;

		s->watch_queue = v >= SITD_EVENT_LINE_MAX && v <= WATCH_QUEUE ? (size_t)v : WATCH_QUEUE;
	}
	return s->watch_queue;
}

static void watch_close(struct server *s, unsigned i)
{
	close(s->w[i].fd);
	free(s->w[i].q);
	s->w[i] = s->w[--s->nw];
}

void watch_close_all(struct server *s)
{
	while (s->nw)
		watch_close(s, 0);
}

void watch_add(struct server *s, int fd, bool json)
{
	static const char full[] = "error: too many monitor clients\n";
	int sndbuf = (int)queue_size(s);
	struct watch_client *w;
	char *q;

	if (s->nw == WATCH_CLIENTS_MAX || !(q = malloc(queue_size(s)))) {
		ssize_t r = write(fd, full, sizeof(full) - 1);

		(void)r;
		close(fd);
		return;
	}
	/* The kernel's buffer is bounded too: what a client leaves unread is what it loses. */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	w = &s->w[s->nw++];
	*w = (struct watch_client){ .fd = fd, .json = json, .q = q };
}

unsigned watch_pollfds(const struct server *s, struct pollfd *p)
{
	for (unsigned i = 0; i < s->nw; i++)
		p[i] = (struct pollfd){ .fd = s->w[i].fd, .events = s->w[i].len ? POLLOUT : 0 };
	return s->nw;
}

/* What is queued, as much as the socket takes: false when the client is gone. */
static bool flush(struct watch_client *w)
{
	ssize_t n;

	if (!w->len)
		return true;
	n = send(w->fd, w->q, w->len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	memmove(w->q, w->q + n, w->len - (size_t)n);
	w->len -= (size_t)n;
	return true;
}

void watch_poll(struct server *s, const struct pollfd *p, unsigned n)
{
	/* Downwards: a client closed takes the last one's place, already served or new. */
	for (unsigned i = n; i-- > 0;) {
		bool keep = !(p[i].revents & (POLLERR | POLLHUP | POLLNVAL));

		if (keep && (p[i].revents & POLLOUT))
			keep = flush(&s->w[i]);
		if (!keep)
			watch_close(s, i);
	}
}

void watch_events(struct server *s)
{
	struct sitd_event ev[64];
	unsigned n;
	size_t cap = queue_size(s);

	while ((n = daemon_events_read(ev, sizeof(ev) / sizeof(ev[0])))) {
		for (unsigned k = 0; k < n; k++) {
			char line[2][SITD_EVENT_LINE_MAX];
			size_t len[2] = { sitd_event_format(line[0], sizeof(line[0]), &ev[k], false),
					  sitd_event_format(line[1], sizeof(line[1]), &ev[k], true) };

			for (unsigned i = s->nw; i-- > 0;) {
				struct watch_client *w = &s->w[i];
				size_t l = len[w->json];

				if (w->len + l > cap) {
					s->watch_dropped++;
					log_warnx("monitor: a client that does not read dropped (%zu bytes "
						  "unread)", w->len);
					watch_close(s, i);
					continue;
				}
				memcpy(w->q + w->len, line[w->json], l);
				w->len += l;
			}
		}
		if (n < sizeof(ev) / sizeof(ev[0]))
			break;
	}
	for (unsigned i = s->nw; i-- > 0;)
		if (!flush(&s->w[i]))
			watch_close(s, i);
}
