/* SPDX-License-Identifier: MIT */
/*
 * The tunnel table's lifecycle, on the control thread: tunnels in and out, the tables
 * rebuilt and published, and nothing freed while a worker may still hold it (qsbr.h).
 */
#include <errno.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <libmnl/libmnl.h>

#include "proto/cli.h"
#include "daemon/internal.h"
#include "os/clock.h"
#include "os/log.h"
#include "os/netns.h"
#include "os/nl.h"
#include "priv/privsep.h"
#include "os/sock.h"
#include "os/tun.h"

/* ---- one tunnel's device and sockets ------------------------------------------ */

/*
 * Close what the tunnel holds.  The device is persistent: it stays, with its ifindex,
 * addresses and routes, for the next sitd to take over, unless `delete`.
 */
static void tunnel_close(struct tunnel *t, bool delete)
{
	int e;

	if (t->icmp6_fd >= 0)
		close(t->icmp6_fd);
	if (t->nsnl)
		mnl_socket_close(t->nsnl);
	keepalive_close(t);
	for (unsigned i = 0; i < t->n_udp_tx; i++)
		if (!t->path[0] || t->udp_tx_fd[i] != t->path[0]->fd)
			close(t->udp_tx_fd[i]);
	if (t->tun_fd >= 0 && delete && (e = tun_delete(t->tun_fd)) < 0)
		log_warn_errno(-e, "%s: cannot remove the device", t->conf.name);
	else if (t->tun_fd >= 0 && !delete)
		close(t->tun_fd);
	free(t->addrs6);
	free(t->routes6);
	free(t->rd);
	free(t->prl);
	free(t->pcache);
	free(t->l2);
	free(t->src6);
	free(t);
}

/*
 * Remove the devices of t[0..n) at once, before tunnel_close: the kernel unregisters a
 * TUN device closed alone behind an rcu_barrier (netdev_run_todo), 10 to 20 ms each on
 * a busy host, 20 s for a reload that removes 1000; in one link group, removed by the
 * monitor (PRIV_TUN_DOOM, PRIV_TUN_PURGE), all go behind one.  Those it removed have
 * their fd closed here; for the rest (the monitor refused, or is gone) tunnel_close's
 * tun_delete does it, one at a time.  Not a `netns` tunnel's: PRIV_TUN_DOOM names a
 * device by its ifindex in sitd's namespace, and the same number there is another device,
 * maybe one of sitd's that stays.
 */
static void devices_purge(struct tunnel **t, unsigned n)
{
	unsigned doomed = 0;

	for (unsigned i = 0; i < n; i++) {
		t[i]->doomed = n > 1 && t[i]->tun_fd >= 0 && t[i]->ifindex && !t[i]->conf.netns[0] &&
			       ps_tun_doom(t[i]->ifindex) == 0;
		doomed += t[i]->doomed;
	}
	if (!doomed || ps_tun_purge() < 0)
		return;
	for (unsigned i = 0; i < n; i++) {
		if (t[i]->doomed) {
			close(t[i]->tun_fd);
			t[i]->tun_fd = -1;
		}
	}
}

/* Why ps_tun_open() answered -e for c's namespace (netns), not its device. */
static int netns_error(const struct sitd_conf *c, int e)
{
	char path[128];

	if (netns_path(c->netns, path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "?");
	errno = e;
	if (e == ENOENT)
		log_warnx("%s: netns %s not found: no %s (the namespace must be there when the "
			  "tunnel starts)", c->name, c->netns, path);
	else if (e == ENOTTY || e == EINVAL)
		log_warnx("%s: netns %s (%s) is not a network namespace", c->name, c->netns, path);
	else if (e == EPERM)
		log_warnx("%s: netns %s refused: sitd started with no netns stanza keeps no "
			  "CAP_SYS_ADMIN to enter one (restart sitd)", c->name, c->netns);
	else
		log_warn("%s: cannot enter netns %s (%s)", c->name, c->netns, path);
	return -1;
}

/* Why ps_tun_open() answered -e, in the operator's terms. */
static int tun_error(const struct sitd_conf *c, int e, bool netns)
{
	if (netns)
		return netns_error(c, e);
	errno = e;	/* log_warn names it */
	if (errno == ENOENT || errno == ENODEV)
		log_warn("cannot open /dev/net/tun (is the tun module there?)");
	else if (errno == EACCES)
		log_warn("cannot open /dev/net/tun for \"%s\" as uid %u (an unprivileged sitd "
			 "needs it readable and writable, mode 0666 as Debian ships it)",
			 c->name, (unsigned)getuid());
	else if (errno == EPERM)
		log_warn("cannot create TUN device \"%s\": needs CAP_NET_ADMIN (run as root)", c->name);
	else if (errno == EBUSY)
		log_warn("cannot take TUN device \"%s\" over: another process holds it (another sitd?)",
			 c->name);
	else if (errno == EEXIST)	/* the monitor's line names its owner */
		log_warnx("TUN device \"%s\" not taken over: it is not sitd's", c->name);
	else if (errno == EINVAL)
		log_warn("cannot create TUN device \"%s\" (does a non-TUN device of that name exist?)",
			 c->name);
	else
		log_warn("cannot create TUN device \"%s\"", c->name);
	return -1;
}

/*
 * FOU/GUE send sockets.  encap-sport auto: a few on ports the kernel picks, one chosen per
 * inner flow by its hash, so flows spread over source ports as udp_flow_src_port()
 * spreads them (over a smaller set).  encap-sport = encap-dport: the port's own socket.
 */
static int udp_tx_all(struct tunnel *t)
{
	struct sitd_conf *c = &t->conf;
	int df = c->pmtudisc ? IP_PMTUDISC_PROBE : IP_PMTUDISC_DONT;
	unsigned want = c->encap_sport ? 1 : UDP_TX_MAX;

	if (c->encap_sport == c->encap_dport) {
		t->udp_tx_fd[t->n_udp_tx++] = t->path[0]->fd;
		return 0;
	}
	while (t->n_udp_tx < want) {
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(c->encap_dport) };
		int fd = ps_udp_tx_open(c->local, c->encap_sport, c->dev, df, c->encap_csum);

		if (fd < 0) {
			log_warnx("%s: cannot open a UDP socket for encap-sport %u: %s", c->name,
				  c->encap_sport, strerror(-fd));
			return -1;
		}
		t->udp_tx_fd[t->n_udp_tx++] = fd;
		/*
		 * Connected: the kernel then numbers the outer IPv4 ID from the socket's counter,
		 * one per segment (ip_select_ident_segs), as its own fou tunnels' iptunnel_xmit()
		 * numbers theirs; an unconnected socket sends ID 0 with DF set (RFC 6864 allows
		 * it, but the kernel's packets do not look so).  It also caches the route.  The
		 * port's own socket (encap-sport = encap-dport) serves several remotes and stays
		 * unconnected: ID 0 there.
		 */
		wr32((uint8_t *)&to.sin_addr, c->remote);
		if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
			log_warn("%s: cannot connect the UDP socket to the remote", c->name);
			return -1;
		}
	}
	return 0;
}

/*
 * An IPv6 underlay: every worker's IPv6 send socket (raw6_send_open), asked of the monitor
 * with the first such tunnel and kept, as the IPv4 ones are.  0, or -1 logged.
 */
static int raw6_tx_all(struct sitd_daemon *d, const struct sitd_conf *c)
{
	for (unsigned i = 0; i < d->nw; i++) {
		int fd;

		if (READ_ONCE(d->w[i]->raw6_tx) >= 0)
			continue;
		fd = ps_raw6_send_open();
		if (fd < 0) {
			log_warnx("%s: cannot open an IPv6 raw send socket: %s%s", c->name, strerror(-fd),
				  fd == -EPERM || fd == -EACCES ? " (needs CAP_NET_RAW)" : "");
			return -1;
		}
		/* Before the tunnel is watched: its worker sees it from its first frame. */
		store_release(d->w[i]->raw6_tx, fd);
	}
	return 0;
}

static bool addr6_any(const uint8_t *a)
{
	static const uint8_t zero[16];

	return !memcmp(a, zero, 16);
}

/*
 * The route toward the remote now: its MTU (0: none, or remote any), and over IPv6 with
 * local any the source it chose, published for the workers (sitd_tx_local6).
 */
static uint32_t route_mtu(struct tunnel *t)
{
	const struct sitd_conf *c = &t->conf;
	uint8_t src[16];
	uint32_t mtu;

	if (!sitd_conf_has_remote(c))
		return 0;
	if (c->outer == SITD_OUTER_IPV4)
		return pmtu_query(c->local, c->remote, c->dev);
	mtu = pmtu6_query(c->remote6, c->dev, src);
	if (addr6_any(c->local6) && !addr6_any(src) && (t->src6 = malloc(sizeof(*t->src6))))
		memcpy(t->src6->a, src, 16);
	return mtu;
}

/*
 * `netns`: the device's namespace's notifications, from the monitor (it opened the socket
 * there; the packet process never leaves its own namespace), watched by the control thread
 * with d->nl.  0, or -1 logged.
 */
static int netns_watch(struct sitd_daemon *d, struct tunnel *t)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = ps_netns_nl_open(t->conf.name);

	if (fd < 0 || !(t->nsnl = nl_fdopen(fd))) {
		log_warnx("%s: no notifications from netns %s: %s", t->conf.name, t->conf.netns,
			  strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	t->ns_at = fd;
	if (d->ctl_ep >= 0 && epoll_ctl(d->ctl_ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		log_warn("%s: netns notifications read once a second only", t->conf.name);
	return 0;
}

static struct tunnel *tunnel_open(struct sitd_daemon *d, const struct sitd_conf *c,
				  struct outer **closing)
{
	struct tunnel *t = calloc(1, sizeof(*t));
	char desc[256];
	bool guessed, ns_err;
	int r;

	if (!t) {
		log_warn("%s: out of memory", c->name);
		return NULL;
	}
	t->req = *c;
	t->conf = *c;
	t->tun_fd = t->icmp6_fd = t->ns_at = -1;
	t->rd = malloc(sizeof(*t->rd));
	if (!sitd_conf_has_remote(c))
		t->pcache = calloc(1, sizeof(*t->pcache));
	if (c->isatap)
		t->prl = calloc(1, sizeof(*t->prl));
	if (!t->rd || (!sitd_conf_has_remote(c) && !t->pcache) || (c->isatap && !t->prl)) {
		log_warn("%s: out of memory", c->name);
		goto fail;	/* tunnel_close frees what there is */
	}
	*t->rd = c->rd;
	if (c->isatap) {
		sitd_prl_init(&t->prl->prl, t->prl->e, SITD_PRL_MAX);
		/* In the order given, as `ip tunnel prl` commands would add them. */
		for (unsigned k = 0; k < c->nprl; k++)
			(void)sitd_prl_add(&t->prl->prl, c->prl[k].addr, c->prl[k].flags, false);
	}
	if (c->dev[0]) {
		t->link = if_nametoindex(c->dev);
		if (!t->link) {
			log_warnx("%s: cannot find device \"%s\"", c->name, c->dev);
			goto fail;
		}
	}
	/* The device first: it needs CAP_NET_ADMIN, the clearer message. */
	t->tun_fd = ps_tun_open(c->name, !c->nogso, &t->offloads, &t->existed, &ns_err);
	if (t->tun_fd < 0) {
		tun_error(c, -t->tun_fd, ns_err);
		t->tun_fd = -1;
		goto fail;
	}
	if (c->netns[0]) {
		int ix;

		if (netns_watch(d, t) < 0)
			goto fail;
		if ((ix = link_index_at(tunnel_at(t), c->name)) < 0) {
			log_warnx("%s: no such device in netns %s: %s", c->name, c->netns, strerror(-ix));
			goto fail;
		}
		t->ifindex = (unsigned)ix;
	} else {
		t->ifindex = if_nametoindex(c->name);
	}

	if (c->encap != SITD_ENCAP_NONE && c->outer == SITD_OUTER_IPV6) {
		/* fou6: whole packets the core builds, sent as ip6ip6's; the port's socket receives. */
		if (raw6_tx_all(d, c) < 0 || !(t->path[0] = outer_get(d, c, OUTER_UDP6, closing)))
			goto fail;
	} else if (c->encap != SITD_ENCAP_NONE) {
		t->path[0] = outer_get(d, c, OUTER_UDP, closing);
		if (!t->path[0] || udp_tx_all(t) < 0)
			goto fail;
		/* UDP_SEGMENT needs the checksum: with SO_NO_CHECK the kernel refuses it. */
		t->udp_gso = c->encap_csum;
	} else {
		bool six = c->outer == SITD_OUTER_IPV6;

		if (six && raw6_tx_all(d, c) < 0)
			goto fail;
		if (c->mode != SITD_MODE_IPIP &&
		    !(t->path[0] = outer_get(d, c, six ? OUTER_RAW6_41 : OUTER_RAW41, closing)))
			goto fail;
		if (c->mode != SITD_MODE_SIT &&
		    !(t->path[1] = outer_get(d, c, six ? OUTER_RAW6_4 : OUTER_RAW4, closing)))
			goto fail;
	}

	t->conf.mtu = sitd_mtu_start(c, route_mtu(t), c->dev[0] ? link_get_mtu(c->dev) : -1,
				     t->existed ? link_get_mtu_at(tunnel_at(t), c->name) : -1,
				     &t->path_mtu, &guessed);
	if (guessed)
		log_warnx("%s: no route to the remote yet; assuming an underlay MTU of %u", c->name,
			  t->path_mtu);
	/* rawv6_send_hdrinc sends the source as written: none known, nothing goes out. */
	if (c->outer == SITD_OUTER_IPV6 && addr6_any(c->local6) && !t->src6)
		log_warnx("%s: no source address toward the remote yet (local any); sending once "
			  "a route gives one", c->name);
	if (link_get_mtu_at(tunnel_at(t), c->name) != (int)t->conf.mtu &&
	    (r = ps_link_set_mtu(c->name, t->conf.mtu)) < 0) {
		log_warnx("cannot set the MTU of %s to %u: %s", c->name, t->conf.mtu, strerror(-r));
		goto fail;
	}
	sitd_rx_init(&t->rx, &t->conf, &t->rx_stats);
	devconf_apply(d, t);
	if (c->isatap)
		isatap_open(t);
	if ((r = keepalive_open(t)) < 0) {
		log_warn_errno(-r, "%s: keepalive", c->name);
		goto fail;
	}
	/* Read once configured (devconf_apply may set it up), before the table has it. */
	t->up = link_is_up_at(tunnel_at(t), c->name);
	path_l2_resolve(d, t);

	sitd_conf_format(&t->conf, desc, sizeof(desc));
	log_info("%s, path mtu %u,%s offloads%s%s%s%s", desc, t->path_mtu,
		 t->existed ? " device taken over (ifindex kept)," : "",
		 t->offloads & TUN_F_CSUM ? " csum" : "", t->offloads & TUN_F_TSO4 ? " tso4" : "",
		 t->offloads & TUN_F_TSO6 ? " tso6" : "", t->offloads & TUN_F_TSO_ECN ? " tso_ecn" : "");
	return t;
fail:
	outer_put(d, t->path[0], closing);
	outer_put(d, t->path[1], closing);
	tunnel_close(t, !t->existed);
	return NULL;
}

/* ---- the table ------------------------------------------------------------------ */

static unsigned outer_count(const struct sitd_daemon *d)
{
	unsigned n = 0;

	for (const struct outer *o = d->outers; o; o = o->next)
		n++;
	return n;
}

/*
 * d->t by name and by ifindex, with room for `more` tunnels put later (index_put).  Done
 * once per batch, not per tunnel: 10 000 tunnels from one file would otherwise cost
 * O(N^2) name comparisons.  Without memory, lookups scan d->t (idx_ok false).
 */
static void index_put(struct sitd_daemon *d, unsigned i)
{
	const struct tunnel *t = d->t[i];

	if (d->idx_ok && (sitd_hindex_put(&d->by_name, sitd_hash_name(t->conf.name), i) < 0 ||
			  sitd_hindex_put(&d->by_ifindex, sitd_hash_u32(t->ifindex), i) < 0))
		d->idx_ok = false;
}

static void reindex(struct sitd_daemon *d, unsigned more)
{
	uint32_t slots = sitd_hindex_slots(d->n + more);

	d->idx_ok = false;
	if (!slots)
		return;
	if (slots > d->idx_slots) {
		struct sitd_hslot *m = realloc(d->idx_mem, 2 * (size_t)slots * sizeof(*m));

		if (!m)
			return;
		d->idx_mem = m;
		d->idx_slots = slots;
	}
	sitd_hindex_init(&d->by_name, d->idx_mem, slots);
	sitd_hindex_init(&d->by_ifindex, d->idx_mem + slots, slots);
	d->idx_ok = true;
	for (unsigned i = 0; i < d->n; i++)
		index_put(d, i);
}

/* Out of d->t: those marked `leaving`, in one pass. */
static void forget_marked(struct sitd_daemon *d)
{
	unsigned k = 0;

	for (unsigned i = 0; i < d->n; i++)
		if (!d->t[i]->leaving)
			d->t[k++] = d->t[i];
	d->n = k;
	reindex(d, 0);
}

static void forget(struct sitd_daemon *d, struct tunnel *t)
{
	t->leaving = true;
	forget_marked(d);
}

/* Register a published tunnel with the worker that reads its device. */
static int tunnel_attach(struct sitd_daemon *d, struct tunnel *t)
{
	int r;

	t->worker = d->next_tun_worker++ % d->nw;
	r = worker_watch(d, t->worker, t->tun_fd, EPOLLIN, t, EV_TUN);
	if (r < 0)
		return r;
	r = keepalive_fd(t) < 0 ? 0 : worker_watch(d, t->worker, keepalive_fd(t), EPOLLIN, t, EV_KA);
	if (r < 0) {
		worker_unwatch(d, t->worker, t->tun_fd);
		return r;
	}
	/* The send sockets have errors to read (EPOLLERR needs no request). */
	for (unsigned i = 0; i < t->n_udp_tx; i++) {
		if (t->udp_tx_fd[i] == t->path[0]->fd)
			continue;
		r = worker_watch(d, t->worker, t->udp_tx_fd[i], 0, t, EV_UDPERR);
		if (r < 0) {
			for (unsigned k = 0; k < i; k++)
				if (t->udp_tx_fd[k] != t->path[0]->fd)
					worker_unwatch(d, t->worker, t->udp_tx_fd[k]);
			if (keepalive_fd(t) >= 0)
				worker_unwatch(d, t->worker, keepalive_fd(t));
			worker_unwatch(d, t->worker, t->tun_fd);
			return r;
		}
	}
	return 0;
}

static void tunnel_detach(struct sitd_daemon *d, struct tunnel *t)
{
	worker_unwatch(d, t->worker, t->tun_fd);
	if (keepalive_fd(t) >= 0)
		worker_unwatch(d, t->worker, keepalive_fd(t));
	for (unsigned i = 0; i < t->n_udp_tx; i++)
		if (t->udp_tx_fd[i] != t->path[0]->fd)
			worker_unwatch(d, t->worker, t->udp_tx_fd[i]);
}

static int grow(struct sitd_daemon *d, unsigned more)
{
	struct tunnel **t;
	unsigned cap = d->cap ? d->cap : 64;

	while (cap < d->n + more)
		cap *= 2;
	if (cap == d->cap)
		return 0;
	t = realloc(d->t, cap * sizeof(*t));
	if (!t)
		return -1;
	d->t = t;
	d->cap = cap;
	return 0;
}

static void drop_new(struct sitd_daemon *d, struct tunnel **added, unsigned nadded,
		     struct tunnel *t, struct outer **closing)
{
	forget(d, t);
	outer_put(d, t->path[0], closing);
	outer_put(d, t->path[1], closing);
	for (unsigned i = 0; i < nadded; i++)
		if (added[i] == t)
			added[i] = NULL;
	tunnel_close(t, !t->existed);
}

/*
 * Publish the tables of the tunnels in d->t (the tables replaced go to old[], to free
 * after a grace period).  Of two tunnels that clash, the later, a new one, is dropped; without
 * memory every new one is, and the tables stay as they were (false: nothing published).
 */
static bool publish(struct sitd_daemon *d, struct tunnel **added, unsigned nadded, void ***old,
		    unsigned *nold, struct outer **closing)
{
	for (;;) {
		struct tunnel *later, *earlier;
		void **o = realloc(*old, (*nold + outer_count(d) + 1) * sizeof(*o));

		if (o) {
			*old = o;
			if (outer_rebuild(d, *old, nold, &later, &earlier) == 0)
				return true;
		} else {
			later = NULL;
		}
		if (!later) {
			bool any = false;

			for (unsigned i = 0; i < nadded; i++) {
				if (added[i]) {
					drop_new(d, added, nadded, added[i], closing);
					any = true;
				}
			}
			if (!any)
				return false;
			continue;
		}
		/* As the kernel answers EEXIST for a second tunnel with the same parameters. */
		log_warnx("%s: tunnel \"%s\" already has this remote, local and dev", later->conf.name,
			  earlier->conf.name);
		drop_new(d, added, nadded, later, closing);
	}
}

unsigned daemon_add(struct sitd_daemon *d, const struct sitd_conf *c, unsigned n, bool *ok)
{
	struct tunnel **added = calloc(n ? n : 1, sizeof(*added));
	struct outer *closing = NULL;
	unsigned failed = 0, nold = 0;
	void **old = NULL;
	bool again = false, may_free, any_routes = false;

	if (!added || grow(d, n) < 0) {
		log_warn("out of memory for %u tunnels", n);
		free(added);
		for (unsigned i = 0; i < n; i++)
			ok[i] = false;
		return n;
	}
	reindex(d, n);
	for (unsigned i = 0; i < n; i++) {
		if (daemon_find(d, c[i].name)) {
			log_warnx("%s: a tunnel of that name is running", c[i].name);
			continue;
		}
		added[i] = tunnel_open(d, &c[i], &closing);
		if (added[i]) {
			d->t[d->n++] = added[i];
			index_put(d, d->n - 1);
		}
	}
	(void)publish(d, added, n, &old, &nold, &closing);
	for (unsigned i = 0; i < n; i++) {
		if (added[i] && tunnel_attach(d, added[i]) < 0) {
			log_warn("%s: epoll", added[i]->conf.name);
			/* Out of the list; its entries leave the tables below. */
			forget(d, added[i]);
			outer_put(d, added[i]->path[0], &closing);
			outer_put(d, added[i]->path[1], &closing);
			again = true;
		}
	}
	/* Without memory for the tables without them, they stay named there: kept, not freed. */
	may_free = !again || publish(d, NULL, 0, &old, &nold, &closing);
	/* -R ring: the rings' filters follow the configuration's addresses, c's included. */
	outer_rings(d, c, n);
	free(d->prev);
	d->prev = NULL;
	d->nprev = 0;
	/* What the devices already have (taken over after a restart): addresses, and for
	 * remote any, routes; and the host's addresses, once. */
	for (unsigned i = 0; i < n; i++)
		any_routes |= added[i] && !sitd_conf_has_remote(&added[i]->conf);
	linkwatch_dump(d, any_routes);
	events_sources(d);	/* the new tunnels' outer source: their start */
	qsbr_synchronize(&d->qsbr);
	path_drain(d);	/* and the rings hold no tunnel freed below */
	for (unsigned i = 0; i < nold; i++)
		free(old[i]);
	free(old);
	outer_rings_free(d);
	outer_close(closing);
	for (unsigned i = 0; i < n; i++) {
		ok[i] = added[i] && daemon_find(d, c[i].name) == added[i];
		if (added[i] && !ok[i] && may_free)
			tunnel_close(added[i], !added[i]->existed);
		failed += !ok[i];
	}
	free(added);
	return failed;
}

void daemon_remove(struct sitd_daemon *d, const char *const *names, unsigned n, bool delete)
{
	struct tunnel **gone = calloc(n ? n : 1, sizeof(*gone));
	struct outer *closing = NULL;
	unsigned ngone = 0, nold = 0;
	void **old;

	if (!gone) {
		log_warn("out of memory removing %u tunnels", n);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct tunnel *t = daemon_find(d, names[i]);

		if (!t)
			continue;
		tunnel_detach(d, t);
		t->leaving = true;	/* out of d->t below, all at once */
		outer_put(d, t->path[0], &closing);
		outer_put(d, t->path[1], &closing);
		gone[ngone++] = t;
		if (!delete) {
			struct sitd_conf *p = realloc(d->prev, (d->nprev + 1) * sizeof(*p));

			if (p) {
				d->prev = p;
				d->prev[d->nprev++] = t->conf;
			}
		}
	}
	forget_marked(d);
	/* Fewer tunnels cannot clash; without memory the old tables stay, naming the removed
	 * ones, which then stay allocated (their devices closed) rather than be freed. */
	old = NULL;
	if (!publish(d, NULL, 0, &old, &nold, &closing)) {
		log_warnx("cannot rebuild the tunnel table: out of memory");
		for (unsigned i = 0; i < ngone; i++) {
			if (delete)
				(void)tun_delete(gone[i]->tun_fd);
			else
				close(gone[i]->tun_fd);
			gone[i]->tun_fd = -1;
		}
		qsbr_synchronize(&d->qsbr);
		free(old);
		outer_close(closing);
		free(gone);
		return;
	}
	qsbr_synchronize(&d->qsbr);
	path_drain(d);	/* and the rings hold no tunnel freed below */
	for (unsigned i = 0; i < nold; i++)
		free(old[i]);
	free(old);
	outer_close(closing);
	if (delete)
		devices_purge(gone, ngone);
	for (unsigned i = 0; i < ngone; i++)
		tunnel_close(gone[i], delete);
	free(gone);
}

int daemon_set_6rd(struct sitd_daemon *d, const char *name, const struct sitd_6rd *rd)
{
	struct tunnel *t = daemon_find(d, name);
	struct sitd_6rd *n;

	if (!t)
		return -1;
	n = malloc(sizeof(*n));
	if (!n)
		return -1;
	*n = *rd;
	t->conf.rd = *rd;
	qsbr_replace(&d->qsbr, t->rd, n);
	return 0;
}

int daemon_prl(struct sitd_daemon *d, const struct sitd_prl_cmd *cmd)
{
	struct tunnel *t = daemon_find(d, cmd->dev);
	struct tunnel_prl *n;
	int e;

	if (!t || !t->prl)
		return -ENODEV;
	n = malloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = *t->prl;
	n->prl.e = n->e;	/* the copy's own storage */
	e = sitd_prl_apply(&n->prl, cmd);
	if (e < 0) {
		free(n);
		return e;
	}
	/* What show prints, newest first as the kernel lists them. */
	t->conf.nprl = (uint8_t)sitd_prl_get(&n->prl, 0, t->conf.prl, SITD_PRL_MAX);
	qsbr_replace(&d->qsbr, t->prl, n);
	return 0;
}

/* ---- what the control thread reads ---------------------------------------------- */

unsigned daemon_count(const struct sitd_daemon *d)
{
	return d->n;
}

struct tunnel *daemon_tunnel(const struct sitd_daemon *d, unsigned i)
{
	return i < d->n ? d->t[i] : NULL;
}

struct tunnel *daemon_find(const struct sitd_daemon *d, const char *name)
{
	uint32_t h = sitd_hash_name(name), pos = 0, i;

	if (!d->idx_ok) {
		for (i = 0; i < d->n; i++)
			if (!strcmp(d->t[i]->conf.name, name))
				return d->t[i];
		return NULL;
	}
	while ((i = sitd_hindex_next(&d->by_name, h, &pos)) != SITD_HINDEX_NONE)
		if (i < d->n && !strcmp(d->t[i]->conf.name, name))
			return d->t[i];
	return NULL;
}

const struct sitd_conf *tunnel_req(const struct tunnel *t)
{
	return &t->req;
}

const struct sitd_conf *tunnel_conf(const struct tunnel *t)
{
	return &t->conf;
}

void tunnel_stats(const struct tunnel *t, struct sitd_stats *s)
{
	memset(s, 0, sizeof(*s));
	sitd_stats_sum(s, &t->tx_stats);
	sitd_stats_sum(s, &t->rx_stats);
}

uint32_t tunnel_path_mtu(const struct tunnel *t)
{
	return path_mtu_get(t);
}

bool tunnel_up(const struct tunnel *t)
{
	return READ_ONCE(t->up) != 0;
}

unsigned daemon_workers(const struct sitd_daemon *d)
{
	return d->nw;
}

bool tunnel_netns_gone(const struct tunnel *t)
{
	return t->ns_gone;
}

void daemon_netns_stats(const struct sitd_daemon *d, uint64_t *lost, uint64_t *back)
{
	*lost = d->netns_lost;
	*back = d->netns_back;
}

/*
 * `netns` tunnels, once a second: is the namespace the stanza names still the one the
 * device is in (the monitor compares the nsfs inodes)?  Gone (the container stopped, `ip
 * netns del`): the tunnel down, counted, logged, once.  Another one there (it came back):
 * the tunnel started again in it, its old device removed.  The kernel's sit device would
 * go with its namespace (default_device_exit_batch); sitd's stays in the table, down,
 * holding the old namespace, until it comes back or a reload removes it.
 */
static void netns_tick(struct sitd_daemon *d)
{
	struct sitd_conf *again = NULL;
	const char **names = NULL;
	unsigned n = 0, failed;
	bool *ok;

	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *t = d->t[i];
		int r;

		if (!t->conf.netns[0])
			continue;
		r = ps_netns_check(t->conf.name);
		if (r == -ENOENT && !t->ns_gone) {
			t->ns_gone = true;
			WRITE_ONCE(t->up, false);
			d->netns_lost++;
			log_warnx("%s: netns %s is gone; the tunnel is down until it comes back",
				  t->conf.name, t->conf.netns);
		} else if (r == -ESTALE) {
			struct sitd_conf *a = realloc(again, (n + 1) * sizeof(*a));

			if (!a)
				break;
			again = a;
			again[n++] = t->req;
		}
	}
	if (!n)
		return;
	names = calloc(n, sizeof(*names));
	ok = calloc(n, sizeof(*ok));
	if (names && ok) {
		for (unsigned i = 0; i < n; i++) {
			names[i] = again[i].name;
			log_info("%s: netns %s is there again; starting the tunnel in it", again[i].name,
				 again[i].netns);
		}
		/* The old device goes with the old namespace's last reference, now. */
		daemon_remove(d, names, n, true);
		failed = daemon_add(d, again, n, ok);
		d->netns_back += n - failed;
		for (unsigned i = 0; i < n; i++)
			if (!ok[i])
				log_warnx("%s: not started again in netns %s; a reload retries",
					  again[i].name, again[i].netns);
	}
	free(names);
	free(ok);
	free(again);
}

void daemon_tick(struct sitd_daemon *d)
{
	uint64_t now = now_ns();

	netns_tick(d);
	linkwatch_netns_read(d);

	path_drain(d);	/* what a worker asked and no wake-up brought */
	if (d->resync_pending)	/* a resync that failed, or a change lost for memory */
		(void)linkwatch_resync(d);
	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *t = d->t[i];

		isatap_solicit(t, now);
		path_tick(d, t);
		keepalive_tick(t, now);
	}
	if (d->ev_src_dirty)
		events_sources(d);
}

/* ---- the daemon ------------------------------------------------------------------ */

struct sitd_daemon *daemon_new(unsigned workers, bool tx_packet, bool rx_ring)
{
	struct sitd_daemon *d = calloc(1, sizeof(*d));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!d) {
		log_warn("out of memory");
		return NULL;
	}
	qsbr_init(&d->qsbr);
	d->wake_fd = d->ctl_ep = -1;
	d->tx_packet = tx_packet;
	d->rx_ring = rx_ring;
	if (!workers)
		workers = cpus > 0 ? (unsigned)cpus : 1;
	/* The first TUN device goes to another worker than the raw sockets' (worker 0). */
	d->next_tun_worker = d->next_udp_worker = workers > 1 ? 1 : 0;
	if (workers_alloc(d, workers) < 0) {
		free(d);
		return NULL;
	}
	linkwatch_open(d);
	return d;
}

void daemon_free(struct sitd_daemon *d, enum daemon_end end)
{
	if (!d)
		return;
	/* The workers are gone after this: nothing needs a grace period any more. */
	workers_stop(d);
	if (end != DAEMON_KEEP) {
		unsigned k = 0;

		/* d->t reordered: the ones to remove first, removed at once. */
		for (unsigned i = 0; i < d->n; i++) {
			if (end == DAEMON_DELETE || !d->t[i]->existed) {
				struct tunnel *x = d->t[k];

				d->t[k++] = d->t[i];
				d->t[i] = x;
			}
		}
		devices_purge(d->t, k);
	}
	for (unsigned i = 0; i < d->n; i++)
		tunnel_close(d->t[i], end == DAEMON_DELETE || (end == DAEMON_UNDO && !d->t[i]->existed));
	d->n = 0;
	outer_rings_free(d);
	outer_close(d->outers);
	d->outers = NULL;
	workers_free(d);
	linkwatch_close(d);
	free(d->host6);
	free(d->prev);
	free(d->idx_mem);
	free(d->t);
	free(d);
}
