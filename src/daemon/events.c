/* SPDX-License-Identifier: MIT */
/*
 * `sitd monitor`'s events, where they happen: a bounded queue any thread posts into (the
 * control thread for reloads, path MTUs and outer sources; a worker, perhaps, for the
 * carrier) and an eventfd that wakes the control server, which drains it and sends each
 * event to its clients (src/cmd/watch.c).  The daemon runs no command and never waits
 * for a client: a full queue loses the event, counted (`sitd status`).
 *
 * Also here: the outer source address each tunnel uses, checked again when rtnetlink
 * says an address, a route or a link changed (linkwatch.c), and reported when it differs.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "daemon/internal.h"
#include "os/log.h"
#include "os/sock.h"

enum { EVENTS_QUEUE = 1024 };

static struct {
	pthread_mutex_t lock;
	int fd;				/* eventfd; -1 until daemon_events_fd */
	unsigned head, tail;		/* tail: the next to read */
	uint64_t lost;
	struct sitd_event q[EVENTS_QUEUE];
} evq = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

int daemon_events_fd(void)
{
	pthread_mutex_lock(&evq.lock);
	if (evq.fd < 0)
		evq.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_unlock(&evq.lock);
	return evq.fd;
}

static void post(struct sitd_event *e)
{
	struct timespec ts;
	bool wake;

	clock_gettime(CLOCK_REALTIME, &ts);
	e->time_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	pthread_mutex_lock(&evq.lock);
	if (evq.head - evq.tail == EVENTS_QUEUE) {
		evq.lost++;
		pthread_mutex_unlock(&evq.lock);
		return;
	}
	wake = evq.head == evq.tail;
	evq.q[evq.head++ % EVENTS_QUEUE] = *e;
	if (wake && evq.fd >= 0) {
		uint64_t one = 1;
		ssize_t r = write(evq.fd, &one, sizeof(one));

		(void)r;	/* cannot fill: read at each drain */
	}
	pthread_mutex_unlock(&evq.lock);
}

unsigned daemon_events_read(struct sitd_event *out, unsigned max)
{
	uint64_t n;
	unsigned k = 0;

	pthread_mutex_lock(&evq.lock);
	if (evq.fd >= 0 && read(evq.fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_warn("events: eventfd");
	while (k < max && evq.tail != evq.head)
		out[k++] = evq.q[evq.tail++ % EVENTS_QUEUE];
	/* More than max waiting: the fd must say so again. */
	if (evq.tail != evq.head && evq.fd >= 0) {
		uint64_t one = 1;
		ssize_t r = write(evq.fd, &one, sizeof(one));

		(void)r;
	}
	pthread_mutex_unlock(&evq.lock);
	return k;
}

uint64_t daemon_events_lost(void)
{
	uint64_t n;

	pthread_mutex_lock(&evq.lock);
	n = evq.lost;
	pthread_mutex_unlock(&evq.lock);
	return n;
}

static struct sitd_event named(enum sitd_event_kind kind, const char *name)
{
	struct sitd_event e = { .kind = kind };

	snprintf(e.name, sizeof(e.name), "%s", name);
	return e;
}

void daemon_event_tunnel(const char *name, enum sitd_event_kind kind)
{
	struct sitd_event e = named(kind, name);

	post(&e);
}

void events_mtu(const struct tunnel *t, uint32_t old, uint32_t mtu)
{
	struct sitd_event e = named(SITD_EVENT_MTU, t->conf.name);

	e.old_mtu = old;
	e.new_mtu = mtu;
	post(&e);
}

/* The first state known is the start, not a change: only changes after it are events. */
void events_carrier(struct tunnel *t, bool up)
{
	int now = up ? 2 : 1, was = xchg(t->ev_carrier, now);
	struct sitd_event e;

	if (!was || was == now)
		return;
	e = named(SITD_EVENT_CARRIER, t->conf.name);
	e.up = up;
	post(&e);
}

/* ---- the outer source address ------------------------------------------------------ */

static bool zero6(const uint8_t *a)
{
	static const uint8_t z[16];

	return !memcmp(a, z, 16);
}

/* Is a (family 4 or 6, as struct sitd_event_addr) on one of the host's interfaces? */
static bool on_host(const struct ifaddrs *ifa, const struct sitd_event_addr *a)
{
	for (const struct ifaddrs *p = ifa; p; p = p->ifa_next) {
		const struct sockaddr *sa = p->ifa_addr;

		if (!sa)
			continue;
		if (a->family == 4 && sa->sa_family == AF_INET &&
		    !memcmp(&((const struct sockaddr_in *)(const void *)sa)->sin_addr, a->a, 4))
			return true;
		if (a->family == 6 && sa->sa_family == AF_INET6 &&
		    !memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, a->a, 16))
			return true;
	}
	return false;
}

/*
 * The source t's outer packets leave with now: a configured local while the host has it
 * (none when it is gone: the kernel's raw send then fails, EADDRNOTAVAIL), else the one
 * the route toward the remote gives.  false: no one source (local any, remote any: each
 * destination's route has its own).
 */
static bool source_now(const struct tunnel *t, const struct ifaddrs *ifa, struct sitd_event_addr *a)
{
	const struct sitd_conf *c = &t->conf;

	memset(a, 0, sizeof(*a));
	if (c->outer == SITD_OUTER_IPV6) {
		uint8_t src[16];

		if (!zero6(c->local6)) {
			a->family = 6;
			memcpy(a->a, c->local6, 16);
		} else if (!sitd_conf_has_remote(c)) {
			return false;
		} else {
			(void)pmtu6_query(c->remote6, c->dev, src);
			if (!zero6(src)) {
				a->family = 6;
				memcpy(a->a, src, 16);
			}
			return true;
		}
	} else if (c->local) {
		a->family = 4;
		wr32(a->a, c->local);
	} else if (!sitd_conf_has_remote(c)) {
		return false;
	} else {
		uint32_t src;

		if (route_src4(c->remote, c->dev, &src) == 0 && src) {
			a->family = 4;
			wr32(a->a, src);
		}
		return true;
	}
	if (!on_host(ifa, a))
		a->family = 0;
	return true;
}

static bool configured_local(const struct sitd_conf *c)
{
	return c->outer == SITD_OUTER_IPV6 ? !zero6(c->local6) : c->local != 0;
}

void events_sources(struct sitd_daemon *d)
{
	struct ifaddrs *ifa = NULL;
	bool need = false;

	d->ev_src_dirty = false;
	for (unsigned i = 0; i < d->n && !need; i++)
		need = configured_local(&d->t[i]->conf);
	if (need && getifaddrs(&ifa) < 0) {
		d->ev_src_dirty = true;	/* the next tick tries again */
		return;
	}
	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *t = d->t[i];
		struct sitd_event_addr now;
		struct sitd_event e;
		char was_s[INET6_ADDRSTRLEN] = "none", now_s[INET6_ADDRSTRLEN] = "none";

		if (!source_now(t, ifa, &now))
			continue;
		if (t->ev_src_known && !memcmp(&now, &t->ev_src, sizeof(now)))
			continue;
		if (!t->ev_src_known) {	/* the start: what it is, not a change */
			t->ev_src = now;
			t->ev_src_known = true;
			continue;
		}
		e = named(SITD_EVENT_SOURCE, t->conf.name);
		e.old_src = t->ev_src;
		e.new_src = now;
		t->ev_src = now;
		if (e.old_src.family)
			inet_ntop(e.old_src.family == 4 ? AF_INET : AF_INET6, e.old_src.a, was_s, sizeof(was_s));
		if (now.family)
			inet_ntop(now.family == 4 ? AF_INET : AF_INET6, now.a, now_s, sizeof(now_s));
		log_info("%s: outer source %s (was %s)", t->conf.name, now_s, was_s);
		post(&e);
	}
	if (ifa)
		freeifaddrs(ifa);
}
