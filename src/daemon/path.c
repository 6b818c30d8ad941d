/* SPDX-License-Identifier: MIT */
/*
 * Path state, read by the workers and kept by the control thread: the path MTU toward a
 * tunnel's remote, the per-destination cache of a remote-any tunnel (pmtu.h), and for
 * -T packet the next hop's Ethernet header.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/internal.h"
#include "os/clock.h"
#include "os/log.h"
#include "os/nl.h"
#include "os/sock.h"
#include "os/tun.h"

/*
 * What the network can trigger is bounded (a forged Fragmentation Needed names any
 * destination): the path MTU lines, a few a second, then how many were left out; the
 * reads asked from the packet path, once a second per destination and PATH_LOOKUPS_PER_SEC
 * in all.  The control thread's alone.
 */
static struct {
	struct sitd_ratelimit log, lookups;
	unsigned suppressed;
	bool ready;
	struct {
		const struct tunnel *t;
		uint32_t dst;
		uint64_t at;
	} recent[PATH_RECENT];
} lim;

static void lim_init(void)
{
	if (lim.ready)
		return;
	rl_init(&lim.log, PATH_LOG_PER_SEC, PATH_LOG_BURST);
	rl_init(&lim.lookups, PATH_LOOKUPS_PER_SEC, PATH_LOOKUPS_PER_SEC);
	lim.ready = true;
}

/* May a path MTU line be logged now?  The first after a pause says how many were not. */
static bool path_log_allow(void)
{
	lim_init();
	if (!rl_allow(&lim.log, now_ns())) {
		lim.suppressed++;
		return false;
	}
	if (lim.suppressed)
		log_info("%u path MTU lines suppressed", lim.suppressed);
	lim.suppressed = 0;
	return true;
}

/* A worker asked to read t's path MTU toward dst: not when it was read in the last second,
 * nor beyond the budget (the next error asks again; path_tick reads the cached ones). */
static bool path_lookup_allow(const struct tunnel *t, uint32_t dst)
{
	uint64_t now = now_ns();
	uint32_t h = (dst * 2654435761u) ^ (uint32_t)((uintptr_t)t >> 4);
	unsigned k = (h ^ (h >> 16)) % PATH_RECENT;

	lim_init();
	if (lim.recent[k].t == t && lim.recent[k].dst == dst && lim.recent[k].at &&
	    now - lim.recent[k].at < 1000000000ull)
		return false;
	if (!rl_allow(&lim.lookups, now))
		return false;
	lim.recent[k].t = t;
	lim.recent[k].dst = dst;
	lim.recent[k].at = now ? now : 1;
	return true;
}

uint32_t path_mtu_get(const struct tunnel *t)
{
	return READ_ONCE(t->path_mtu);
}

static bool addr6_any(const uint8_t *a)
{
	static const uint8_t zero[16];

	return !memcmp(a, zero, 16);
}

/*
 * IPv6 underlay with local any: the source the route toward remote6 chose now, as the
 * kernel's ip6tnl chooses it per packet (ip6_route_output, ipv6_dev_get_saddr), published
 * when it changed.  None (no route): the last one stays.
 */
static void path_src6_set(struct sitd_daemon *d, struct tunnel *t, const uint8_t *src)
{
	struct path_src6 *n;
	char buf[INET6_ADDRSTRLEN];

	if (!addr6_any(t->conf.local6) || addr6_any(src) || (t->src6 && !memcmp(t->src6->a, src, 16)))
		return;
	n = malloc(sizeof(*n));
	if (!n)
		return;
	memcpy(n->a, src, 16);
	if (path_log_allow())
		log_info("%s: outer source toward remote is %s", t->conf.name,
			 inet_ntop(AF_INET6, src, buf, sizeof(buf)) ? buf : "?");
	qsbr_replace(&d->qsbr, t->src6, n);
}

void path_mtu_refresh(struct sitd_daemon *d, struct tunnel *t)
{
	uint32_t mtu;

	if (!sitd_conf_has_remote(&t->conf))
		return;	/* remote any: no one path; each destination's, path_mtu_refresh_dst */
	if (t->conf.outer == SITD_OUTER_IPV6) {
		uint8_t src[16];

		uint32_t learned = load_acquire(t->ptb6_mtu);

		mtu = pmtu6_query(t->conf.remote6, t->conf.dev, src);
		path_src6_set(d, t, src);
		/* What only sitd heard (path_ptb6_learn), for as long as the kernel keeps a
		 * learned route MTU; never raising the route's (RFC 8201 4). */
		if (learned && now_ns() >= READ_ONCE(t->ptb6_until))
			WRITE_ONCE(t->ptb6_mtu, 0);
		else if (learned && (!mtu || learned < mtu))
			mtu = learned;
	} else {
		mtu = pmtu_query(t->conf.local, t->conf.remote, t->conf.dev);
	}

	if (mtu && mtu != path_mtu_get(t)) {
		uint32_t old = path_mtu_get(t);

		WRITE_ONCE(t->path_mtu, mtu);
		if (path_log_allow())
			log_info("%s: path MTU to remote is %u", t->conf.name, mtu);
		if (old)	/* 0: the first reading, the start */
			events_mtu(t, old, mtu);
	}
}

void path_mtu_refresh_dst(struct tunnel *t, uint32_t dst)
{
	uint32_t mtu = pmtu_query(t->conf.local, dst, t->conf.dev);

	if (mtu && mtu != sitd_pmtu_cache_get(t->pcache, dst)) {
		sitd_pmtu_cache_put(t->pcache, dst, mtu);
		if (path_log_allow())
			log_info("%s: path MTU to %u.%u.%u.%u is %u", t->conf.name, dst >> 24, (dst >> 16) & 0xff,
			 (dst >> 8) & 0xff, dst & 0xff, mtu);
	}
}

/*
 * -T packet: the tunnel's outer packets as whole Ethernet frames, straight to the device
 * (doc/architecture.md, "-T packet").  For a tunnel with a fixed remote and local and no
 * encapsulation: the kernel's route toward the remote, then its neighbour entry for the
 * next hop; when either is missing (no ARP answer yet, say) the raw socket carries the
 * packets, and its sending makes the kernel resolve the neighbour.  Looked up at start
 * and every second (path_tick), and published only when it changed.
 */
void path_l2_resolve(struct sitd_daemon *d, struct tunnel *t)
{
	const struct sitd_conf *c = &t->conf;
	struct l2path n = { 0 }, *old = t->l2, *p = NULL;
	char dev[IF_NAMESIZE];
	uint32_t nexthop;
	uint8_t src[6];
	int mtu;
	bool bad = READ_ONCE(t->l2_bad), confirmed = false;

	if (!d->tx_packet || c->encap != SITD_ENCAP_NONE)
		return;
	if (c->outer == SITD_OUTER_IPV6) {
		/*
		 * ip6tnl: the route toward remote6 from the source the packets carry (local6, or
		 * with local any the route's own, path_src6_set), out of a bound tunnel's device;
		 * the next hop's entry in the NDP cache.  Without a source yet: the raw way.
		 */
		const struct path_src6 *s6 = t->src6;
		const uint8_t *from = addr6_any(c->local6) ? (s6 ? s6->a : NULL) : c->local6;
		uint8_t nh6[16];

		if (addr6_any(c->remote6) || !from)
			return;
		if (nl_route_get6(c->remote6, from, t->link, &n.ifindex, nh6) == 0 &&
		    if_indextoname(n.ifindex, dev) && link_get_ether(dev, src) == 0 &&
		    (mtu = link_get_mtu(dev)) > 0 &&
		    nl_neigh_get6(n.ifindex, nh6, n.eth, &confirmed) == 0) {
			n.mtu = (uint32_t)mtu;
			memcpy(n.eth + 6, src, 6);
			n.eth[12] = 0x86;	/* ETH_P_IPV6 */
			n.eth[13] = 0xdd;
			p = &n;
		}
	} else if (c->remote && c->local &&
		   nl_route_get4(c->remote, c->local, t->link, &n.ifindex, &nexthop) == 0 &&
		   if_indextoname(n.ifindex, dev) && link_get_ether(dev, src) == 0 &&
		   (mtu = link_get_mtu(dev)) > 0 &&
		   nl_neigh_get4(n.ifindex, nexthop, n.eth, &confirmed) == 0) {
		n.mtu = (uint32_t)mtu;
		memcpy(n.eth + 6, src, 6);
		n.eth[12] = 0x08;	/* ETH_P_IP */
		n.eth[13] = 0x00;
		p = &n;
	} else if (c->outer != SITD_OUTER_IPV6 && (!c->remote || !c->local)) {
		return;
	}
	/*
	 * Frames sent past the neighbour table never confirm its entry: once stale, one packet
	 * a second goes the kernel's way, which makes it probe the next hop again
	 * (__neigh_event_send: STALE -> DELAY -> PROBE), and a changed address is learned.
	 */
	if (p && !confirmed)
		WRITE_ONCE(t->l2_kick, 1);
	if (!bad && ((!p && !old) || (p && old && !memcmp(p, old, sizeof(*p)))))
		return;
	if (p) {
		p = malloc(sizeof(*p));
		if (!p)
			return;
		*p = n;
	}
	qsbr_publish(t->l2, p);
	WRITE_ONCE(t->l2_bad, 0);
	qsbr_retire(&d->qsbr, old);
}

void path_tick(struct sitd_daemon *d, struct tunnel *t)
{
	uint64_t sent = READ_ONCE(t->tx_stats.tx_packets);

	path_l2_resolve(d, t);
	/* remote any: each destination's path MTU again, so a learned one can expire. */
	for (unsigned k = 0; t->pcache && k < SITD_PMTU_SLOTS; k++)
		if (sitd_pmtu_cache_dst(t->pcache, k))
			path_mtu_refresh_dst(t, sitd_pmtu_cache_dst(t->pcache, k));
	/* local any over IPv6 with no source yet: nothing is sent until the route gives one. */
	if (sent != t->pmtu_seen_tx ||
	    (t->conf.outer == SITD_OUTER_IPV6 && addr6_any(t->conf.local6) && !t->src6)) {
		t->pmtu_seen_tx = sent;
		path_mtu_refresh(d, t);
	}
}

/*
 * Another device's MTU changed, perhaps the one under a tunnel: read every path MTU again
 * now, as the kernel's tunnels see the route's MTU at their next send, so the first packet
 * that no longer fits already gets its Packet Too Big.  Only on a change: links announce
 * themselves for many other reasons.
 */
void path_link_mtu(struct sitd_daemon *d, unsigned ifindex, unsigned mtu)
{
	unsigned k = ifindex % (sizeof(d->link_mtu) / sizeof(d->link_mtu[0]));

	if (d->link_mtu[k].ifindex == ifindex && d->link_mtu[k].mtu == mtu)
		return;
	d->link_mtu[k].ifindex = ifindex;
	d->link_mtu[k].mtu = mtu;
	for (unsigned i = 0; i < d->n; i++)
		path_mtu_refresh(d, d->t[i]);
}

/*
 * fou6 from other ports than encap-dport: the router's Packet Too Big reached only sitd's
 * ICMPv6 socket, so the route never learns it.  Kept for ip6_rt_mtu_expires (600 s,
 * RFC 8201 4's "at least 5 minutes", 10 recommended); path_mtu_refresh takes it over the
 * route's.  One not higher replaces it and starts its time again; a higher one is
 * ignored while it lasts (RFC 8201 4: a Packet Too Big never raises the estimate).
 */
void path_ptb6_learn(struct tunnel *t, uint32_t mtu)
{
	uint32_t old = READ_ONCE(t->ptb6_mtu);

	if (old && old < mtu && now_ns() < READ_ONCE(t->ptb6_until))
		return;
	WRITE_ONCE(t->ptb6_until, now_ns() + 600ull * 1000000000ull);
	store_release(t->ptb6_mtu, mtu);
}

/*
 * Asked from the packet path, done on the control thread: reading a path MTU takes a
 * socket, connect, getsockopt and close (pmtu_query) and logs a line.  A fixed remote:
 * its flag.  remote any: {tunnel, dst} in the worker's ring; a request that does not fit
 * is dropped (the next error asks again, and path_tick reads every cached one each
 * second).  The control thread is woken once until it drains, as -T packet's l2_bad is
 * read every second.
 */
void path_mtu_stale(struct worker *w, struct tunnel *t, uint32_t dst)
{
	struct sitd_daemon *d = w->d;

	if (sitd_conf_has_remote(&t->conf)) {
		if (READ_ONCE(t->pmtu_stale))
			return;		/* asked already */
		WRITE_ONCE(t->pmtu_stale, 1);
	} else {
		unsigned head = w->preq_head;

		if (!dst || head - load_acquire(w->preq_tail) >= PATH_REQS)
			return;
		w->preq[head % PATH_REQS] = (struct path_req){ .t = t, .dst = dst };
		store_release(w->preq_head, head + 1);
	}
	if (!xchg(d->wake_pending, 1) && d->wake_fd >= 0) {
		uint64_t one = 1;
		ssize_t r = write(d->wake_fd, &one, sizeof(one));

		(void)r;	/* it cannot fill: drained at each wake */
	}
}

static bool running(const struct sitd_daemon *d, const struct tunnel *t)
{
	for (unsigned i = 0; i < d->n; i++)
		if (d->t[i] == t)
			return true;
	return false;
}

void path_drain(struct sitd_daemon *d)
{
	/* Taken first: what a worker asks from now on wakes the control thread again. */
	(void)xchg(d->wake_pending, 0);
	for (unsigned i = 0; i < d->n; i++)
		if (READ_ONCE(d->t[i]->pmtu_stale) && xchg(d->t[i]->pmtu_stale, 0))
			path_mtu_refresh(d, d->t[i]);
	for (unsigned k = 0; k < d->nw; k++) {
		struct worker *w = d->w[k];
		unsigned head = load_acquire(w->preq_head);

		for (unsigned tail = w->preq_tail; tail != head; tail++) {
			struct path_req r = w->preq[tail % PATH_REQS];

			/* A tunnel removed since: its entry goes unread (freed only after this). */
			if (running(d, r.t) && path_lookup_allow(r.t, r.dst))
				path_mtu_refresh_dst(r.t, r.dst);
		}
		store_release(w->preq_tail, head);
	}
}
