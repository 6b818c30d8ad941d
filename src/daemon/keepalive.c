/* SPDX-License-Identifier: MIT */
/*
 * keepalive: liveness of a tunnel's remote, and the device's carrier.
 *
 * The control thread decides: every second (daemon_tick) it reads how many valid
 * packets the receive worker has had from the remote, runs sitd_ka_update, sets the
 * carrier (TUNSETCARRIER) when that changes, and every `keepalive` seconds builds an echo
 * request to the peer from the device's own address.  The request goes out on the
 * worker that owns the device, as if read from it (tx_inject), so that the one-writer
 * rule of the transmit counters holds: the control thread leaves it in the tunnel's
 * buffer and writes the tunnel's eventfd, which that worker watches (EV_KA).  The kernel
 * itself could not send it: with the carrier off its routes through the device are
 * linkdown and the request would leave by the backup route, or not at all.
 *
 * The receive worker counts every valid packet from the remote (ka_heard) and takes the
 * replies to our requests out before GRO (keepalive_heard): they are not written to the
 * device.  While the carrier is off the first packet heard wakes the control thread, so
 * that the carrier comes back at once rather than at the next second.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon/internal.h"
#include "core/keepalive.h"
#include "proto/show.h"
#include "os/clock.h"
#include "os/log.h"
#include "os/tun.h"

struct tunnel_ka {
	int efd;			/* eventfd in the device owner's epoll */
	int pending;			/* atomic: bytes of frame to send, 0 none (owner clears) */
	uint8_t frame[VNET_HDR_LEN + SITD_KA_ECHO_MAX];
	uint16_t id;
	uint16_t seq;			/* atomic: the last sequence number sent */
	struct sitd_ka_state st;	/* control thread */
	uint64_t heard_seen;		/* control thread: ka_heard at the last look */
	uint64_t next_send;
	uint64_t sent, no_source;	/* control thread */
	uint64_t answered;		/* the receive owner */
	bool no_source_logged;
};

/*
 * Where the carrier changes: a line, and `sitd monitor`'s event now rather than when the
 * device's RTM_NEWLINK comes back (events_carrier reports a change once, either way).
 */
static void tunnel_carrier_event(struct tunnel *t, bool up)
{
	log_info("%s: carrier %s (keepalive: %s)", t->conf.name, up ? "on" : "off",
		 up ? "the remote is heard again" : "nothing heard from the remote");
	events_carrier(t, up);
}

int keepalive_open(struct tunnel *t)
{
	struct tunnel_ka *ka;
	int r;

	if (!t->conf.keepalive)
		return 0;
	ka = calloc(1, sizeof(*ka));
	if (!ka)
		return -ENOMEM;
	ka->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ka->efd < 0) {
		r = -errno;
		free(ka);
		return r;
	}
	ka->id = (uint16_t)(now_ns() ^ (uint64_t)getpid() ^ t->ifindex);
	sitd_ka_init(&ka->st, t->conf.keepalive, t->conf.keepalive_retries, now_ns());
	ka->next_send = 0;	/* the first at the next tick */
	/* The carrier is on: tun_set_iff turns it on at every attach, a device taken over
	 * included, and the last close turns it off (__tun_detach). */
	t->ka = ka;
	return 0;
}

void keepalive_close(struct tunnel *t)
{
	if (!t->ka)
		return;
	/* The carrier needs no putting back: the device's next open turns it on. */
	close(t->ka->efd);
	free(t->ka);
	t->ka = NULL;
}

int keepalive_fd(const struct tunnel *t)
{
	return t->ka ? t->ka->efd : -1;
}

static void set_carrier(struct tunnel *t, bool up)
{
	int r = tun_set_carrier(t->tun_fd, up);

	if (r < 0)
		log_warn_errno(-r, "%s: cannot set the carrier %s", t->conf.name, up ? "on" : "off");
	WRITE_ONCE(t->ka_down, !up);
	WRITE_ONCE(t->ka_wake, 0);
	tunnel_carrier_event(t, up);
}

/* The device's own address of the peer's family, for the request's source. */
static bool ka_source(const struct tunnel *t, uint8_t src[16])
{
	const struct sitd_conf *c = &t->conf;
	const struct sitd_addrs6 *a = t->addrs6;	/* the control thread publishes it */
	bool ll_peer = c->keepalive_peer[0] == 0xfe && (c->keepalive_peer[1] & 0xc0) == 0x80;

	if (c->keepalive_peer_family == 4)
		return link_get_addr4(c->name, src) == 0;
	if (a && ll_peer && a->has_ll) {
		memcpy(src, a->ll, 16);
		return true;
	}
	if (a && (a->has_global || a->has_ll)) {
		memcpy(src, a->has_global ? a->global : a->ll, 16);
		return true;
	}
	return false;
}

static void ka_request(struct tunnel *t)
{
	struct tunnel_ka *ka = t->ka;
	uint8_t src[16];
	uint16_t seq;
	size_t n;
	uint64_t one = 1;

	if (load_acquire(ka->pending))
		return;		/* the last one not sent yet: the worker is busy */
	if (!ka_source(t, src)) {
		ka->no_source++;
		if (!ka->no_source_logged)
			log_warnx("%s: keepalive: the device has no IPv%u address to send from; "
				  "counted in show (no_source) until it has one", t->conf.name,
				  t->conf.keepalive_peer_family);
		ka->no_source_logged = true;
		return;
	}
	ka->no_source_logged = false;
	seq = (uint16_t)(READ_ONCE(ka->seq) + 1);
	memset(ka->frame, 0, VNET_HDR_LEN);
	n = sitd_ka_echo(ka->frame + VNET_HDR_LEN, sizeof(ka->frame) - VNET_HDR_LEN,
			 t->conf.keepalive_peer_family, src, t->conf.keepalive_peer, ka->id, seq);
	WRITE_ONCE(ka->seq, seq);
	store_release(ka->pending, (int)(VNET_HDR_LEN + n));
	if (write(ka->efd, &one, sizeof(one)) < 0)
		log_warn("%s: keepalive: eventfd", t->conf.name);
	ka->sent++;
}

void keepalive_tick(struct tunnel *t, uint64_t now)
{
	struct tunnel_ka *ka = t->ka;
	uint64_t heard;
	int ch;

	if (!ka)
		return;
	heard = READ_ONCE(t->ka_heard);
	ch = sitd_ka_update(&ka->st, now, heard != ka->heard_seen);
	ka->heard_seen = heard;
	if (ch)
		set_carrier(t, ch > 0);
	if (now >= ka->next_send) {
		ka->next_send = now + ka->st.interval_ns;
		ka_request(t);
	}
}

void keepalive_woken(struct sitd_daemon *d)
{
	uint64_t now = now_ns();

	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *t = d->t[i];

		if (t->ka && READ_ONCE(t->ka_wake))
			keepalive_tick(t, now);
	}
}

void keepalive_send(struct worker *w, struct tunnel *t)
{
	struct tunnel_ka *ka = t->ka;
	uint64_t n;
	int len;

	if (read(ka->efd, &n, sizeof(n)) < 0)
		return;
	len = load_acquire(ka->pending);
	if (!len)
		return;
	tx_inject(w, t, ka->frame, (uint32_t)len);
	store_release(ka->pending, 0);
}

bool keepalive_heard(struct worker *w, struct tunnel *t, const uint8_t *p, uint32_t len)
{
	struct tunnel_ka *ka = t->ka;
	bool reply;

	STAT_INC(t->ka_heard);
	if (READ_ONCE(t->ka_down) && !xchg(t->ka_wake, 1) && !xchg(w->d->wake_pending, 1) &&
	    w->d->wake_fd >= 0) {
		uint64_t one = 1;
		ssize_t r = write(w->d->wake_fd, &one, sizeof(one));

		(void)r;	/* drained at each wake */
	}
	reply = sitd_ka_is_reply(p, len, t->conf.keepalive_peer_family, t->conf.keepalive_peer, ka->id,
				 READ_ONCE(ka->seq), (uint16_t)(t->conf.keepalive_retries + 1));
	if (reply)
		STAT_INC(ka->answered);
	return reply;
}

void tunnel_keepalive(const struct tunnel *t, struct sitd_show_keepalive *s, uint64_t now)
{
	const struct tunnel_ka *ka = t->ka;

	memset(s, 0, sizeof(*s));
	s->since_rx = -1;
	if (!ka)
		return;
	s->up = ka->st.up;
	if (ka->st.heard_ever)
		s->since_rx = (int64_t)((now - ka->st.last_heard_ns) / 1000000000u);
	s->transitions = ka->st.transitions;
	s->sent = ka->sent;
	s->answered = __atomic_load_n(&ka->answered, __ATOMIC_RELAXED);
	s->no_source = ka->no_source;
}
