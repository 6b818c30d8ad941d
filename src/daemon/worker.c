/* SPDX-License-Identifier: MIT */
/*
 * The worker pool: a fixed number of threads (one per CPU by default), each with an epoll
 * set of the TUN devices it transmits for and the outer paths it receives from, and its
 * own buffers and counters.  An idle tunnel costs a TUN fd in one epoll set, nothing else.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon/internal.h"
#include "os/clock.h"
#include "os/log.h"
#include "priv/privsep.h"
#include "os/sock.h"

enum { EVENTS = 64, IDLE_MS = 1000 };

static int ep_add(int ep, int fd, uint32_t events, void *p, enum ev_tag tag)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uintptr_t)p | (uintptr_t)tag };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int worker_watch(struct sitd_daemon *d, unsigned i, int fd, uint32_t events, void *p,
		 enum ev_tag tag)
{
	return ep_add(d->w[i]->ep, fd, events, p, tag);
}

void worker_unwatch(struct sitd_daemon *d, unsigned i, int fd)
{
	(void)epoll_ctl(d->w[i]->ep, EPOLL_CTL_DEL, fd, NULL);
}

void daemon_stats(const struct sitd_daemon *d, struct sitd_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < d->nw; i++)
		sitd_stats_sum(s, &d->w[i]->stats);
}

static bool stopping(const struct sitd_daemon *d)
{
	return load_acquire(d->stopping);
}

/* Quiescent states (qsbr.h): offline while blocked, online while serving. */
static void qs_offline(struct worker *w)
{
	qsbr_offline(&w->qs);
}

static void qs_online(struct worker *w)
{
	qsbr_online(&w->d->qsbr, &w->qs);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct epoll_event ev[EVENTS];

	qs_online(w);
	while (!stopping(w->d)) {
		int n;

		qs_offline(w);
		n = epoll_wait(w->ep, ev, EVENTS, IDLE_MS);
		qs_online(w);
		if (n < 0 && errno != EINTR) {
			/* Not expected; keep serving, slowly enough not to spin. */
			log_warn("worker %u: epoll_wait", w->id);
			usleep(100 * 1000);
			continue;
		}
		for (int i = 0; i < n; i++) {
			uintptr_t u = (uintptr_t)ev[i].data.u64;
			void *p = (void *)(u & ~(uintptr_t)EV_TAG_MASK);

			switch ((enum ev_tag)(u & EV_TAG_MASK)) {
			case EV_TUN:
				tx_tunnel(w, p);
				break;
			case EV_OUTER:
				if (ev[i].events & EPOLLERR)
					rx_outer_errors(w, p);
				if (ev[i].events & EPOLLIN)
					rx_outer(w, p);
				break;
			case EV_RING:
				rx_ring(w, p);
				break;
			case EV_UDPERR:
				tx_udp_errors(w, p);
				break;
			case EV_PTB6:
				rx_ptb6(w, p);
				break;
			case EV_KA:
				keepalive_send(w, p);
				break;
			case EV_STOP:
				break;
			}
		}
	}
	qs_offline(w);
	return NULL;
}

int workers_alloc(struct sitd_daemon *d, unsigned n)
{
	/* A start for the outer ID that differs between runs, as the kernel's is hashed. */
	uint16_t id = (uint16_t)(now_ns() ^ (uint64_t)getpid());
	struct sitd_conf none = { .mode = SITD_MODE_ANY, .pmtudisc = true };

	d->w = calloc(n, sizeof(*d->w));
	if (!d->w) {
		log_warn("out of memory");
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		/* Allocated once; the loops allocate nothing. */
		struct worker *w = calloc(1, sizeof(*w));

		if (!w) {
			log_warn("out of memory for worker %u", i);
			goto fail;
		}
		d->w[i] = w;
		d->nw = i + 1;
		w->d = d;
		w->id = i;
		qsbr_register(&d->qsbr, &w->qs);
		w->raw_tx = w->pkt_tx = w->raw6_tx = -1;
		w->ep = epoll_create1(EPOLL_CLOEXEC);
		w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (w->ep < 0 || w->stop_fd < 0 || ep_add(w->ep, w->stop_fd, EPOLLIN, NULL, EV_STOP) < 0) {
			log_warn("worker %u: epoll", i);
			goto fail;
		}
		/* Without CAP_NET_RAW there is none; raw tunnels then fail to start, and say why. */
		w->raw_tx = ps_raw_send_open();
		if (w->raw_tx < 0)
			w->raw_tx = -1;
		/*
		 * -T packet: the monitor's locked socket, sending only (a drop-everything filter
		 * it cannot detach); without it everything goes the raw socket's way.
		 */
		if (d->tx_packet && (w->pkt_tx = ps_packet_tx_open()) < 0) {
			log_warnx("worker %u: no AF_PACKET socket (%s); sending through the raw socket",
				  i, strerror(-w->pkt_tx));
			w->pkt_tx = -1;
		}
		w->dst.sin_family = AF_INET;
		w->dst6.sin6_family = AF_INET6;
		sitd_tx_init(&w->tx, &none, &w->stats, NULL, (uint16_t)(id + i * 0x4000u));
		sitd_gro_init(&w->gro, true, &w->stats);
		rl_init(&w->relay_rl, 1000, 50);
	}
	return 0;
fail:
	workers_free(d);
	return -1;
}

int daemon_run(struct sitd_daemon *d)
{
	for (unsigned i = 0; i < d->nw; i++) {
		errno = pthread_create(&d->w[i]->thread, NULL, worker_main, d->w[i]);
		if (errno) {
			log_warn("cannot start worker %u", i);
			d->nw = i;	/* the ones running are stopped by daemon_free */
			return -1;
		}
	}
	return 0;
}

void workers_stop(struct sitd_daemon *d)
{
	uint64_t one = 1;

	store_release(d->stopping, true);
	for (unsigned i = 0; i < d->nw; i++)
		if (write(d->w[i]->stop_fd, &one, sizeof(one)) < 0)
			log_warn("cannot wake worker %u", i);
	for (unsigned i = 0; i < d->nw; i++)
		if (d->w[i]->thread)
			pthread_join(d->w[i]->thread, NULL);
}

void workers_free(struct sitd_daemon *d)
{
	for (unsigned i = 0; i < d->nw; i++) {
		struct worker *w = d->w[i];

		if (!w)
			continue;
		qsbr_unregister(&d->qsbr, &w->qs);
		if (w->ep >= 0)
			close(w->ep);
		if (w->stop_fd >= 0)
			close(w->stop_fd);
		if (w->raw_tx >= 0)
			close(w->raw_tx);
		if (w->raw6_tx >= 0)
			close(w->raw6_tx);
		if (w->pkt_tx >= 0)
			close(w->pkt_tx);
		free(w);
	}
	free(d->w);
	d->w = NULL;
	d->nw = 0;
}
