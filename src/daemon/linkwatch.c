/* SPDX-License-Identifier: MIT */
/*
 * Link watch: the kernel's netlink notifications about devices, addresses and routes,
 * applied to the running tunnels (up/down, device MTU, IPv6 addresses, remote-any
 * routes) on the control thread.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <libmnl/libmnl.h>

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* linux/if.h, which net/if.h may not be mixed with */
#endif

#include "daemon/internal.h"
#include "os/log.h"
#include "os/nl.h"
#include "os/sock.h"
#include "os/tun.h"
#include "priv/privsep.h"

/* ---- link notifications ---------------------------------------------------------- */

/*
 * The tunnel of device ifindex: in d->scope's namespace while its socket is read, else
 * in sitd's, where no netns tunnel's device is (its ifindex is another namespace's).
 * Through tunnel.c's index (reindex): a link dump of N devices, or a burst of N
 * notifications, costs O(N), not O(N^2).
 */
static struct tunnel *by_ifindex(struct sitd_daemon *d, unsigned ifindex)
{
	uint32_t h = sitd_hash_u32(ifindex), pos = 0, i;

	if (d->scope)
		return d->scope->ifindex == ifindex ? d->scope : NULL;
	if (!d->idx_ok) {
		for (i = 0; i < d->n; i++)
			if (d->t[i]->ifindex == ifindex && !d->t[i]->nsnl)
				return d->t[i];
		return NULL;
	}
	while ((i = sitd_hindex_next(&d->by_ifindex, h, &pos)) != SITD_HINDEX_NONE)
		if (i < d->n && d->t[i]->ifindex == ifindex && !d->t[i]->nsnl)
			return d->t[i];
	return NULL;
}

/*
 * A tunnel's device went up or down: the lookup skips it while down (table.h).  As
 * link_mtu, the state the device has now, not what a queued notification said: after a
 * burst, an old "down" read last would otherwise stay.
 */
static void link_flags(void *arg, unsigned ifindex, unsigned flags)
{
	struct tunnel *t = by_ifindex(arg, ifindex);

	if (!t)
		return;
	t->resync_seen = true;
	WRITE_ONCE(t->up, !t->ns_gone && link_is_up_at(tunnel_at(t), t->conf.name) != 0);
	/* The carrier as `ip link` shows it (dev_get_flags: IFF_LOWER_UP only while up), in
	 * the notifications' order: a TUNSETCARRIER, or the device set down or up. */
	events_carrier(t, (flags & IFF_UP) && (flags & IFF_LOWER_UP));
}

/* Something changed: the outer sources are read again once this batch is read. */
static void link_changed(void *arg)
{
	struct sitd_daemon *d = arg;

	d->ev_src_dirty = true;
}

/*
 * `ip link set NAME mtu N` goes straight to the TUN device, which takes 68..65535; a
 * kernel sit device takes nothing below 1280 (IPV6_MIN_MTU) and an ipip one nothing below
 * 68 (ip_tunnel_change_mtu), and sitd nothing above what one outer IPv4 packet carries
 * (sitd_mtu_max), so a value outside is put back inside.
 */
static void link_mtu(void *arg, unsigned ifindex, unsigned mtu)
{
	struct sitd_daemon *d = arg;
	struct tunnel *t = by_ifindex(d, ifindex);
	unsigned fixed;
	int now, e;

	if (!t) {
		if (!d->scope)
			path_link_mtu(d, ifindex, mtu);	/* perhaps the device under a tunnel */
		return;
	}
	/* Notifications queue up (the device's creation, sitd's own change): act on the MTU
	 * the device has now, not on what a notification said some time ago. */
	now = link_get_mtu_at(tunnel_at(t), t->conf.name);
	if (now > 0)
		mtu = (unsigned)now;
	fixed = sitd_mtu_clamp(&t->conf, mtu);
	if (fixed != mtu) {
		log_warnx("%s: mtu %u is outside %u..%u for this mode; setting %u", t->conf.name, mtu,
			  sitd_mtu_min(&t->conf), sitd_mtu_max(&t->conf), fixed);
		e = ps_link_set_mtu(t->conf.name, fixed);
		if (e < 0)
			log_warnx("%s: cannot set mtu %u: %s", t->conf.name, fixed, strerror(-e));
		mtu = fixed;
	}
	if (mtu != t->conf.mtu) {
		WRITE_ONCE(t->conf.mtu, mtu);	/* rx reads it (gro.mtu) */
		log_info("%s: device mtu %u", t->conf.name, mtu);
	}
}

static bool is_ll(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static void addr_apply(struct sitd_addrs6 *n, bool usable, const uint8_t *addr, unsigned plen)
{
	bool ll = is_ll(addr);
	uint8_t *slot = ll ? n->ll : n->global;
	bool *has = ll ? &n->has_ll : &n->has_global;
	unsigned k;

	if (usable && !*has) {
		memcpy(slot, addr, 16);
		*has = true;
	} else if (!usable && *has && !memcmp(slot, addr, 16)) {
		*has = false;
	}
	for (k = 0; k < n->n && memcmp(n->all[k].addr, addr, 16); k++)
		;
	if (usable && k == n->n && n->n < sizeof(n->all) / sizeof(n->all[0])) {
		memcpy(n->all[n->n].addr, addr, 16);
		n->all[n->n++].plen = (uint8_t)plen;
	} else if (!usable && k < n->n) {
		n->all[k] = n->all[--n->n];
	}
}

/* The device's IPv6 addresses now, after one it used went away. */
static void addr_relearn(const struct tunnel *t, struct sitd_addrs6 *n)
{
	struct ifaddrs *ifa, *p;

	/* getifaddrs reads sitd's namespace; a netns device's learns from notifications. */
	if (t->nsnl || getifaddrs(&ifa) < 0)
		return;
	for (p = ifa; p; p = p->ifa_next) {
		const struct sockaddr_in6 *a, *m;
		unsigned plen = 0;

		if (!p->ifa_addr || p->ifa_addr->sa_family != AF_INET6 || strcmp(p->ifa_name, t->conf.name))
			continue;
		a = (const struct sockaddr_in6 *)(const void *)p->ifa_addr;
		m = (const struct sockaddr_in6 *)(const void *)p->ifa_netmask;
		for (unsigned b = 0; m && b < 128 && (m->sin6_addr.s6_addr[b / 8] & (0x80 >> (b % 8))); b++)
			plen++;
		addr_apply(n, true, a->sin6_addr.s6_addr, plen);
	}
	freeifaddrs(ifa);
}

/* One address into the host's list: whether it changed. */
static bool host_apply(struct sitd_host6 *n, bool usable, const uint8_t *addr, unsigned plen)
{
	uint32_t k;

	if (addr[0] == 0xff || is_ll(addr))
		return false;
	for (k = 0; k < n->n && memcmp(n->a[k].addr, addr, 16); k++)
		;
	if (usable && k == n->n && n->n < sizeof(n->a) / sizeof(n->a[0])) {
		memcpy(n->a[n->n].addr, addr, 16);
		n->a[n->n++].plen = (uint8_t)plen;
	} else if (!usable && k < n->n) {
		n->a[k] = n->a[--n->n];
	} else {
		return false;
	}
	return true;
}

/* Any interface's global IPv6 address: the host's list, for sitd_icmp6_pick_src. */
static void host_addr6(struct sitd_daemon *d, bool usable, const uint8_t *addr, unsigned plen)
{
	struct sitd_host6 *old = d->host6, *n;

	if (addr[0] == 0xff || is_ll(addr))
		return;
	n = calloc(1, sizeof(*n));
	if (!n) {
		d->resync_pending = true;	/* the change is lost: a dump brings it */
		return;
	}
	if (old)
		*n = *old;
	if (!host_apply(n, usable, addr, plen)) {
		free(n);
		return;
	}
	qsbr_replace(&d->qsbr, d->host6, n);
}

/*
 * An IPv6 address of a tunnel's device came or went: the source of the ICMPv6 errors
 * sitd sends (sitd_icmp6_pick_src), and what 6rd's only_dnatted compares with.  Published
 * as a new immutable copy; the old one is freed after a grace period.
 */
static void link_addr6(void *arg, unsigned ifindex, bool usable, const uint8_t *addr, unsigned plen)
{
	struct sitd_daemon *d = arg;
	struct tunnel *t = by_ifindex(d, ifindex);
	struct sitd_addrs6 *old, *n;

	if (d->resync_host6) {	/* linkwatch_resync: into what it publishes at the end */
		(void)host_apply(d->resync_host6, usable, addr, plen);
		if (t && addr[0] != 0xff && t->resync_addrs6)
			addr_apply(t->resync_addrs6, usable, addr, plen);
		return;
	}
	if (!d->scope)	/* sitd's namespace's addresses, the host's */
		host_addr6(d, usable, addr, plen);
	if (!t || addr[0] == 0xff)
		return;
	old = t->addrs6;
	n = calloc(1, sizeof(*n));
	if (!n) {
		log_warn("%s: out of memory", t->conf.name);
		d->resync_pending = true;
		return;
	}
	if (old)
		*n = *old;
	addr_apply(n, usable, addr, plen);
	if (!usable && (!n->has_ll || !n->has_global))
		addr_relearn(t, n);
	if (old && !memcmp(old, n, sizeof(*n))) {
		free(n);
		return;
	}
	qsbr_replace(&d->qsbr, t->addrs6, n);
}

/*
 * A route out of a remote-any tunnel's device came or went: its next hop is where the
 * packets it sends there go (sitd_routes6_nexthop).  Published as link_addr6 does.
 */
/* One route into a tunnel's list: false when the list is full (logged). */
static bool route_apply(const struct tunnel *t, struct sitd_routes6 *n, bool add,
			const uint8_t *dst, unsigned len, const uint8_t *gw)
{
	uint32_t k;

	for (k = 0; k < n->n && !(n->r[k].len == len && !memcmp(n->r[k].dst, dst, 16)); k++)
		;
	if (add && k == n->n && n->n == SITD_ROUTES6_MAX) {
		log_warnx("%s: more than %d IPv6 routes; sitd follows the first ones", t->conf.name,
			  SITD_ROUTES6_MAX);
		return false;
	}
	if (add) {
		memcpy(n->r[k].dst, dst, 16);
		n->r[k].len = (uint8_t)len;
		memcpy(n->r[k].gw, gw, 16);
		n->n += k == n->n;
	} else if (k < n->n) {
		n->r[k] = n->r[--n->n];
	}
	return true;
}

static void link_route6(void *arg, unsigned ifindex, bool add, const uint8_t *dst, unsigned len,
			const uint8_t *gw)
{
	struct sitd_daemon *d = arg;
	struct tunnel *t = by_ifindex(d, ifindex);
	struct sitd_routes6 *old, *n;

	if (!t || sitd_conf_has_remote(&t->conf))
		return;
	if (d->resync_host6) {
		if (t->resync_routes6)
			(void)route_apply(t, t->resync_routes6, add, dst, len, gw);
		return;
	}
	old = t->routes6;
	n = calloc(1, sizeof(*n));
	if (!n) {
		log_warn("%s: out of memory", t->conf.name);
		d->resync_pending = true;
		return;
	}
	if (old)
		*n = *old;
	if (!route_apply(t, n, add, dst, len, gw)) {
		free(n);
		return;
	}
	qsbr_replace(&d->qsbr, t->routes6, n);
}

static const struct nl_handlers nl_handlers = { .mtu = link_mtu, .flags = link_flags,
					       .addr6 = link_addr6,
						.route6 = link_route6,
						.changed = link_changed };

void linkwatch_dump(struct sitd_daemon *d, bool routes)
{
	(void)nl_dump6(RTM_GETADDR, &nl_handlers, d);
	if (routes)
		(void)nl_dump6(RTM_GETROUTE, &nl_handlers, d);
}

/*
 * Publish what a resync's dump found, where it differs from what is published (`*pub`,
 * read by the workers): the new copy, or, when the dump failed, nothing.  `*staged` is
 * consumed either way.
 */
static void resync_publish(struct sitd_daemon *d, void **pub, void **staged, size_t size, bool ok)
{
	static const union {
		struct sitd_addrs6 a;
		struct sitd_routes6 r;
		struct sitd_host6 h;
	} zero;
	void *n = *staged;

	*staged = NULL;
	if (!n)
		return;
	/* Unchanged, or empty where nothing was known: the published copy stays. */
	if (!ok || (*pub ? !memcmp(*pub, n, size) : !memcmp(&zero, n, size))) {
		free(n);
		return;
	}
	qsbr_replace(&d->qsbr, *pub, n);
}

int linkwatch_resync(struct sitd_daemon *d)
{
	bool nomem = false, routes = false;
	int r, e;

	d->resync_pending = false;
	for (unsigned i = 0; i < d->n; i++)
		d->t[i]->resync_seen = false;
	/* Links: each tunnel's up state and MTU (link_flags, link_mtu), other links' MTU
	 * (path_link_mtu); a tunnel whose device is no longer there is down. */
	r = nl_dump_links(&nl_handlers, d);
	for (unsigned i = 0; r == 0 && i < d->n; i++)
		if (!d->t[i]->resync_seen && !d->t[i]->nsnl)	/* not in this dump's namespace */
			WRITE_ONCE(d->t[i]->up, false);
	/* Addresses and routes: gathered from nothing, so that those gone are gone. */
	d->resync_host6 = calloc(1, sizeof(*d->resync_host6));
	nomem |= !d->resync_host6;
	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *t = d->t[i];

		if (t->nsnl)	/* its addresses are in another namespace: left as they are */
			continue;
		nomem |= !(t->resync_addrs6 = calloc(1, sizeof(*t->resync_addrs6)));
		if (!sitd_conf_has_remote(&t->conf)) {
			routes = true;
			nomem |= !(t->resync_routes6 = calloc(1, sizeof(*t->resync_routes6)));
		}
	}
	if (nomem) {
		r = -ENOMEM;
	} else {
		e = nl_dump6(RTM_GETADDR, &nl_handlers, d);
		r = r < 0 ? r : e;
		e = routes ? nl_dump6(RTM_GETROUTE, &nl_handlers, d) : 0;
		r = r < 0 ? r : e;
	}
	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *t = d->t[i];

		resync_publish(d, (void **)&t->addrs6, (void **)&t->resync_addrs6,
			       sizeof(*t->addrs6), r == 0);
		resync_publish(d, (void **)&t->routes6, (void **)&t->resync_routes6,
			       sizeof(*t->routes6), r == 0);
	}
	resync_publish(d, (void **)&d->host6, (void **)&d->resync_host6, sizeof(*d->host6), r == 0);
	if (r < 0) {
		log_warnx("netlink: links, addresses and routes not read again: %s; retrying",
			  strerror(-r));
		d->resync_pending = true;
		return r;
	}
	d->nl_resyncs++;
	return 0;
}

/*
 * A receive buffer for bursts: thousands of devices created or set up at once queue a
 * notification each (a few hundred bytes to a kilobyte).  SO_RCVBUF, capped by
 * net.core.rmem_max, as the packet process has no CAP_NET_ADMIN for SO_RCVBUFFORCE; what
 * still overflows costs a resync (linkwatch_resync), not the state.
 */
enum { LINKWATCH_RCVBUF = 8 << 20 };

void linkwatch_open(struct sitd_daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN };
	/* Test knob: SITD_NL_RCVBUF=BYTES, a tiny buffer that overflows at once
	 * (tests/integration/test_linkstate.sh). */
	const char *knob = getenv("SITD_NL_RCVBUF");
	int rcvbuf = knob && atoi(knob) > 0 ? atoi(knob) : LINKWATCH_RCVBUF;

	d->nl = nl_link_open(rcvbuf);
	if (!d->nl)
		log_warn("no link notifications; mtu bounds are not enforced");
	d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->ctl_ep = epoll_create1(EPOLL_CLOEXEC);
	if (d->wake_fd < 0 || d->ctl_ep < 0 || epoll_ctl(d->ctl_ep, EPOLL_CTL_ADD, d->wake_fd, &ev) < 0 ||
	    (d->nl && epoll_ctl(d->ctl_ep, EPOLL_CTL_ADD, nl_fd(d->nl), &ev) < 0)) {
		/* Then the path MTU a worker asks for is read at the next tick. */
		log_warn("no wake-up for the control thread; path MTU read once a second");
		if (d->ctl_ep >= 0)
			close(d->ctl_ep);
		d->ctl_ep = -1;
	}
}

void linkwatch_close(struct sitd_daemon *d)
{
	if (d->nl)
		mnl_socket_close(d->nl);
	if (d->ctl_ep >= 0)
		close(d->ctl_ep);
	if (d->wake_fd >= 0)
		close(d->wake_fd);
	d->nl = NULL;
	d->ctl_ep = d->wake_fd = -1;
}

/*
 * What the control thread polls: an epoll of the netlink socket and of the workers'
 * wake-up (path_mtu_stale), so that src/cmd's loop needs to know of neither; without that
 * epoll, the netlink socket.
 */
int daemon_netlink_fd(const struct sitd_daemon *d)
{
	if (d->ctl_ep >= 0)
		return d->ctl_ep;
	return d->nl ? nl_fd(d->nl) : -1;
}

/*
 * `netns` tunnels: each one's namespace's notifications, read as d->nl's with the lookups
 * scoped to its device.  Lost ones (ENOBUFS): its device's state read again, which is all
 * that socket is for.
 */
void linkwatch_netns_read(struct sitd_daemon *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *t = d->t[i];
		int mtu;

		if (!t->nsnl)
			continue;
		d->scope = t;
		if (nl_link_read(t->nsnl, &nl_handlers, d) < 0) {
			d->nl_overruns++;
			link_flags(d, t->ifindex, 0);
			if ((mtu = link_get_mtu_at(tunnel_at(t), t->conf.name)) > 0)
				link_mtu(d, t->ifindex, (unsigned)mtu);
		}
		d->scope = NULL;
	}
}

void daemon_netlink_read(struct sitd_daemon *d)
{
	uint64_t n;

	if (d->nl && nl_link_read(d->nl, &nl_handlers, d) < 0) {
		d->nl_overruns++;
		d->resync_pending = true;
		log_warnx("netlink: notifications lost (overrun %" PRIu64 "); reading links, "
			  "addresses and routes again", d->nl_overruns);
	}
	if (d->resync_pending)
		(void)linkwatch_resync(d);
	if (d->ev_src_dirty)
		events_sources(d);
	linkwatch_netns_read(d);
	if (d->wake_fd >= 0 && read(d->wake_fd, &n, sizeof(n)) == sizeof(n)) {
		path_drain(d);
		keepalive_woken(d);	/* after path_drain took wake_pending */
	}
}

void daemon_netlink_stats(const struct sitd_daemon *d, uint64_t *overruns, uint64_t *resyncs)
{
	*overruns = d->nl_overruns;
	*resyncs = d->nl_resyncs;
}
