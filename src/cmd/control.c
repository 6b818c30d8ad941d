/* SPDX-License-Identifier: MIT */
/*
 * The control server: the clients of the control socket, served without blocking from
 * the control thread's poll loop (server.c).  Each sends one line and reads one answer
 * (requests.c) within a total deadline, and the number at once is capped (the rest wait
 * in the listen backlog), so one that dribbles or never reads holds up nobody.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/server_int.h"
#include "os/clock.h"
#include "os/log.h"

enum { CONTROL_DEADLINE_MS = 2000 };	/* to send the request and read the whole answer */

static int64_t now_ms(void)
{
	return (int64_t)(now_ns() / 1000000);
}

static void client_close(struct server *s, unsigned i)
{
	if (s->c[i].fd >= 0)
		close(s->c[i].fd);
	free(s->c[i].out);
	s->c[i] = s->c[--s->nc];
}

void control_close_all(struct server *s)
{
	while (s->nc)
		client_close(s, 0);
}

void control_accept(struct server *s)
{
	while (s->nc < CONTROL_CLIENTS_MAX) {
		struct control_client *c = &s->c[s->nc];
		struct ucred cred;
		socklen_t cl = sizeof(cred);
		int fd = accept4(s->ctl.fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0) {
			close(fd);
			continue;
		}
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->uid = cred.uid;
		c->deadline = now_ms() + CONTROL_DEADLINE_MS;
		s->nc++;
	}
}

int control_pollfds(const struct server *s, struct pollfd *p)
{
	int64_t now = now_ms();
	int timeout = -1;

	for (unsigned i = 0; i < s->nc; i++) {
		const struct control_client *c = &s->c[i];

		p[i] = (struct pollfd){ .fd = c->fd, .events = c->out ? POLLOUT : POLLIN };
		if (timeout < 0 || c->deadline - now < timeout)
			timeout = c->deadline > now ? (int)(c->deadline - now) : 0;
	}
	return timeout;
}

/* Read what the client sent; once a whole line is in, the answer is made. false: done. */
static bool client_read(struct server *s, struct control_client *c)
{
	ssize_t n = read(c->fd, c->in + c->inlen, sizeof(c->in) - 1 - c->inlen);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n == 0)
		return false;	/* closed before a whole line: nothing to answer */
	c->inlen += (size_t)n;
	c->in[c->inlen] = '\0';
	if (memchr(c->in, '\n', c->inlen)) {
		if (requests_answer(s, c) < 0)
			log_warnx("control: out of memory");
	} else if (c->inlen == sizeof(c->in) - 1) {
		(void)requests_reply(c, "error: request too long\n");
	}
	return true;
}

/* A streamed answer (show of every tunnel) is made a part at a time, each once the last
 * went out: the next poll sends it, so other clients take turns. */
static bool client_write(struct server *s, struct control_client *c)
{
	ssize_t n = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	c->outoff += (size_t)n;
	if (c->outoff == c->outlen && c->more && requests_more(s, c) < 0)
		return false;
	return c->outoff < c->outlen;
}

void control_poll(struct server *s, struct pollfd *p)
{
	int64_t now = now_ms();

	for (unsigned i = 0; i < s->nc;) {
		struct control_client *c = &s->c[i];
		bool keep = true;

		if (p[i].revents & (POLLERR | POLLNVAL)) {
			keep = false;
		} else if (!c->out && (p[i].revents & (POLLIN | POLLHUP))) {
			keep = client_read(s, c);
			if (keep && c->watch) {	/* `monitor`: no answer, the events follow */
				watch_add(s, c->fd, c->watch_json);
				c->fd = -1;
				keep = false;
			}
		} else if (c->out && (p[i].revents & POLLOUT)) {
			keep = client_write(s, c);
		}
		/* An answer made just now may go out at once (most fit the socket buffer). */
		if (keep && c->out && c->outoff == 0 && c->outlen)
			keep = client_write(s, c);
		else if (keep && c->out && !c->outlen)
			keep = false;
		if (keep && now >= c->deadline)
			keep = false;	/* too slow: the deadline is for the whole exchange */
		if (!keep) {
			client_close(s, i);
			p[i] = p[s->nc];
			continue;
		}
		i++;
	}
}
