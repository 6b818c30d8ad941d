/* SPDX-License-Identifier: MIT */
/*
 * Shared receive paths: one raw socket per outer protocol and one UDP socket per FOU/GUE
 * port, for the whole process, each with the table of the tunnels behind it.  A raw
 * socket receives a copy of every packet of its protocol that reaches the host, so one
 * per tunnel would cost every packet N wake-ups and N parses; one per process costs one.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/bpf.h"
#include "daemon/internal.h"
#include "os/log.h"
#include "priv/privsep.h"
#include "os/sock.h"

static const char *outer_name(const struct outer *o, char *buf, size_t len)
{
	if (outer_is_udp(o->kind))
		snprintf(buf, len, "%s%s port %u", o->encap == SITD_ENCAP_GUE ? "gue" : "fou",
			 o->kind == OUTER_UDP6 ? "6" : "", o->port);
	else if (outer_is6(o->kind))
		snprintf(buf, len, "ipv6 protocol %u", o->kind == OUTER_RAW6_41 ? 41 : 4);
	else
		snprintf(buf, len, "protocol %u", o->kind == OUTER_RAW41 ? 41 : 4);
	return buf;
}

static struct outer *outer_open(struct sitd_daemon *d, const struct sitd_conf *c, enum outer_kind k)
{
	struct outer *o = calloc(1, sizeof(*o));
	char what[32];
	int e;

	if (!o) {
		log_warn("%s: out of memory", c->name);
		return NULL;
	}
	o->kind = k;
	o->ptb_fd = -1;
	if (outer_is_udp(k)) {
		o->port = c->encap_dport;
		o->encap = c->encap;
		o->fd = k == OUTER_UDP6 ? ps_udp6_rx_open(c->encap_dport) : ps_udp_rx_open(c->encap_dport);
		/* The ports' owners are spread over the workers, the raw sockets' is the first. */
		o->worker = d->next_udp_worker++ % d->nw;
	} else if (outer_is6(k)) {
		o->fd = ps_raw6_open(k == OUTER_RAW6_41 ? IPPROTO_IPV6 : IPPROTO_IPIP);
		o->worker = 0;
		/* doc/kernel.md "-R ring does not apply over IPv6": no DF to split by. */
		if (d->rx_ring && o->fd >= 0)
			log_warnx("%s: -R ring is for IPv4 outer packets; ipv6 protocol %u arrives on "
				  "its raw socket", c->name, k == OUTER_RAW6_41 ? 41 : 4);
	} else {
		o->fd = ps_raw_open(k == OUTER_RAW41 ? IPPROTO_IPV6 : IPPROTO_IPIP);
		o->worker = 0;
	}
	if (o->fd < 0) {
		if (!outer_is_udp(k) && (o->fd == -EPERM || o->fd == -EACCES))
			log_warnx("%s: cannot open a raw socket for %s: needs CAP_NET_RAW (%s)", c->name,
				  outer_name(o, what, sizeof(what)), strerror(-o->fd));
		else
			log_warnx("%s: cannot open the receive socket for %s: %s", c->name,
				  outer_name(o, what, sizeof(what)), strerror(-o->fd));
		free(o);
		return NULL;
	}
	e = worker_watch(d, o->worker, o->fd, EPOLLIN, o, EV_OUTER);
	if (e < 0) {
		log_warnx("%s: epoll: %s", c->name, strerror(-e));
		close(o->fd);
		free(o);
		return NULL;
	}
	/* -R ring: its ring comes with outer_rings, once the tunnels' addresses are known;
	 * meanwhile the raw socket takes everything. */
	o->next = d->outers;
	d->outers = o;
	return o;
}

/*
 * fou6 from other ports than encap-dport: a router's Packet Too Big about its packets
 * reaches no socket but an ICMPv6 one (sitd_conf_needs_ptb6).  One per port, so that
 * the port's worker reads it with the port's table; without it the path MTU stays the
 * route's, as before, and the tunnel runs.
 */
static void ptb_open(struct sitd_daemon *d, const struct sitd_conf *c, struct outer *o)
{
	int fd = ps_icmp6_ptb_open(), e;

	if (fd >= 0 && (e = worker_watch(d, o->worker, fd, EPOLLIN, o, EV_PTB6)) < 0) {
		close(fd);
		fd = e;
	}
	if (fd < 0) {
		log_warnx("%s: no ICMPv6 socket for Packet Too Big about packets from encap-sport "
			  "%s: %s", c->name, c->encap_sport ? "other than encap-dport" : "auto",
			  strerror(-fd));
		return;
	}
	o->ptb_fd = fd;
}

struct outer *outer_get(struct sitd_daemon *d, const struct sitd_conf *c, enum outer_kind k,
			struct outer **closing)
{
	struct outer *o;

	for (o = d->outers; o; o = o->next)
		if (o->kind == k && (!outer_is_udp(k) || o->port == c->encap_dport))
			break;
	if (o && outer_is_udp(k) && o->encap != c->encap) {
		/* As `ip fou add port P` (with -6: another socket) makes a port either fou or gue. */
		log_warnx("%s: port %u already carries %s%s for other tunnels", c->name, o->port,
			  o->encap == SITD_ENCAP_GUE ? "gue" : "fou", k == OUTER_UDP6 ? " over IPv6" : "");
		return NULL;
	}
	if (!o) {
		o = outer_open(d, c, k);
		if (!o)
			return NULL;
	}
	o->refs++;
	if (k == OUTER_UDP6 && sitd_conf_needs_ptb6(c) && o->ptb_fd < 0)
		ptb_open(d, c, o);
	/* Tunnels that send from the port itself share its send options. */
	if (k == OUTER_UDP && c->encap_sport == c->encap_dport) {
		if (o->tx_set && (o->tx_csum != c->encap_csum || o->tx_pmtudisc != c->pmtudisc)) {
			log_warnx("%s: port %u also sends for tunnels with other encap-csum or pmtudisc "
				  "settings; give this one another encap-sport", c->name, o->port);
			outer_put(d, o, closing);
			return NULL;
		}
		if (!o->tx_set) {
			int r = udp_tx_setup(o->fd, c->pmtudisc ? IP_PMTUDISC_PROBE : IP_PMTUDISC_DONT,
					     c->encap_csum);

			if (r < 0) {
				log_warn_errno(-r, "%s: cannot set up port %u for sending", c->name, o->port);
				outer_put(d, o, closing);
				return NULL;
			}
			o->tx_set = true;
			o->tx_csum = c->encap_csum;
			o->tx_pmtudisc = c->pmtudisc;
		}
	}
	return o;
}

static void ring_free(struct outer_ring *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, (size_t)RING_BLOCK * RING_BLOCKS);
	if (r->fd >= 0)
		close(r->fd);
	free(r->locals);
	free(r);
}

/* One reference less; the last one takes the path out of the daemon's list (and epoll). */
void outer_put(struct sitd_daemon *d, struct outer *o, struct outer **closing)
{
	struct outer **pp;

	if (!o || --o->refs)
		return;
	for (pp = &d->outers; *pp && *pp != o; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = o->next;
	worker_unwatch(d, o->worker, o->fd);
	if (o->ptb_fd >= 0)
		worker_unwatch(d, o->worker, o->ptb_fd);
	if (o->ring)
		worker_unwatch(d, o->worker, o->ring->fd);
	o->next = *closing;
	*closing = o;
}

/* After a grace period: no worker can be reading it any more. */
void outer_close(struct outer *o)
{
	while (o) {
		struct outer *next = o->next;

		close(o->fd);
		if (o->ptb_fd >= 0)
			close(o->ptb_fd);
		ring_free(o->ring);
		free(o->table);
		free(o->table6);
		free(o);
		o = next;
	}
}

static bool uses(const struct tunnel *t, const struct outer *o)
{
	return t->path[0] == o || t->path[1] == o;
}

/*
 * Room for o's next table, IPv4 or IPv6 alike: the tunnels that use o counted (*n), an
 * entry array for them (*in, esize bytes each) and the table itself, tsize bytes and
 * then *mem = memfn(*n) for its buckets.  NULL (nothing kept) without memory.
 */
static void *table_alloc(const struct sitd_daemon *d, const struct outer *o, size_t tsize,
			 size_t (*memfn)(uint32_t), void **in, size_t esize, uint32_t *n,
			 size_t *mem)
{
	void *t;

	*n = 0;
	for (unsigned i = 0; i < d->n; i++)
		*n += uses(d->t[i], o);
	*mem = memfn(*n);
	*in = calloc(*n ? *n : 1, esize);
	t = malloc(tsize + *mem);
	if (!*in || !t) {
		free(*in);
		free(t);
		return NULL;
	}
	return t;
}

/* A table for o, from the running tunnels that use it: [struct sitd_table][entries]. */
static struct sitd_table *build(struct sitd_daemon *d, struct outer *o, struct tunnel **later,
				struct tunnel **earlier)
{
	struct sitd_tent *in;
	struct sitd_table *t;
	void *ein;
	uint32_t n, a, b;
	size_t mem;

	t = table_alloc(d, o, sizeof(*t), sitd_table_mem, &ein, sizeof(*in), &n, &mem);
	if (!t)
		return NULL;
	in = ein;
	n = 0;
	for (unsigned i = 0; i < d->n; i++) {
		struct tunnel *x = d->t[i];

		if (!uses(x, o))
			continue;
		in[n++] = (struct sitd_tent){ .remote = x->conf.remote, .local = x->conf.local,
					      .link = x->link, .tunnel = x, .up = &x->up };
	}
	if (sitd_table_build(t, t + 1, mem, in, n, &a, &b) < 0) {
		*earlier = in[a].tunnel;
		*later = in[b].tunnel;
		free(in);
		free(t);
		return NULL;
	}
	free(in);
	return t;
}

/*
 * The same for an IPv6 path (table.h, sitd_table6): the newest tunnel listed first, as
 * ip6_tnl_link() puts each new one at the head of its chain, so that it is found first.
 */
static struct sitd_table6 *build6(struct sitd_daemon *d, struct outer *o, struct tunnel **later,
				  struct tunnel **earlier)
{
	struct sitd_tent6 *in;
	struct sitd_table6 *t;
	void *ein;
	uint32_t n, a, b;
	size_t mem;

	t = table_alloc(d, o, sizeof(*t), sitd_table6_mem, &ein, sizeof(*in), &n, &mem);
	if (!t)
		return NULL;
	in = ein;
	n = 0;
	for (unsigned i = d->n; i-- > 0;) {
		struct tunnel *x = d->t[i];

		if (!uses(x, o))
			continue;
		in[n] = (struct sitd_tent6){ .link = x->link, .tunnel = x, .up = &x->up };
		memcpy(in[n].remote, x->conf.remote6, 16);
		memcpy(in[n].local, x->conf.local6, 16);
		n++;
	}
	if (sitd_table6_build(t, t + 1, mem, in, n, &a, &b) < 0) {
		/* Newest first: the later index is the tunnel that was there before. */
		*earlier = in[b].tunnel;
		*later = in[a].tunnel;
		free(in);
		free(t);
		return NULL;
	}
	free(in);
	return t;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The protocol that stanza c receives on a raw socket: as outer_get is asked for it, and
 * as the monitor's carries() counts it. */
static bool ring_carries(const struct sitd_conf *c, uint8_t proto)
{
	return c->encap == SITD_ENCAP_NONE && c->outer == SITD_OUTER_IPV4 &&
	       (proto == IPPROTO_IPV6 ? c->mode != SITD_MODE_IPIP : c->mode != SITD_MODE_SIT);
}

/*
 * The local addresses, sorted and each once, of the stanzas that carry proto: the running
 * tunnels' and c[0..n)'s (those just started or failed to).  That is the configuration
 * the monitor read (a reload's file, or the start's), whose stanzas it builds the ring's
 * filter from (monitor.c ring_locked): the two filters then split by one set, so that no
 * packet is taken by both nor by neither.  NULL on no memory.
 */
static uint32_t *ring_set(const struct sitd_daemon *d, const struct sitd_conf *c, unsigned n,
			  uint8_t proto, unsigned *k)
{
	uint32_t *l = calloc(d->n + n + 1, sizeof(*l));
	unsigned m = 0;

	if (!l)
		return NULL;
	for (unsigned i = 0; i < d->n + n; i++) {
		const struct sitd_conf *x = i < d->n ? &d->t[i]->req : &c[i - d->n];

		if (ring_carries(x, proto) && x->local)
			l[m++] = x->local;
	}
	qsort(l, m, sizeof(*l), cmp_u32);
	*k = 0;
	for (unsigned i = 0; i < m; i++)
		if (!*k || l[*k - 1] != l[i])
			l[(*k)++] = l[i];
	return l;
}

/* The raw socket's filter: the complement of ring r's, or everything (r NULL, or its
 * addresses more than a filter holds).  1: the complement, 0: everything, -1: failed
 * (logged; what it had stays). */
static int raw_filter(struct outer *o, const struct outer_ring *r)
{
	static struct sock_filter ring[SITD_BPF_MAX], raw[SITD_BPF_MAX];
	struct sock_filter all = BPF_STMT(BPF_RET | BPF_K, SITD_BPF_ACCEPT);
	uint8_t proto = o->kind == OUTER_RAW41 ? IPPROTO_IPV6 : IPPROTO_IPIP;
	int e;
	unsigned nw = 0;
	char what[32];

	/* The ring's program as the monitor made it: when it did not fit, the ring takes
	 * nothing (monitor.c ring_locked), and the raw socket everything. */
	if (r && sitd_bpf_ring(ring, SITD_BPF_MAX, proto, r->locals, r->nlocals))
		nw = sitd_bpf_raw(raw, SITD_BPF_MAX, r->locals, r->nlocals);
	if ((e = sock_filter_set(o->fd, nw ? raw : &all, nw ? nw : 1)) < 0) {
		log_warn_errno(-e, "%s: cannot set the raw socket's filter",
			       outer_name(o, what, sizeof(what)));
		return -1;
	}
	return nw != 0;
}

/*
 * A new ring for o taking l[0..k) (kept by it), swapped in without loss: the raw socket
 * takes everything first, so that while two rings or a ring and the raw socket overlap a
 * packet may come twice, but none is missed; then what the new ring does not take.
 */
static void ring_swap(struct sitd_daemon *d, struct outer *o, uint32_t *l, unsigned k)
{
	uint8_t proto = o->kind == OUTER_RAW41 ? IPPROTO_IPV6 : IPPROTO_IPIP;
	struct outer_ring *old = o->ring, *r = calloc(1, sizeof(*r));
	char what[32];
	int e = 0;

	outer_name(o, what, sizeof(what));
	if (old && old->split && raw_filter(o, NULL) < 0) {
		free(r);
		free(l);
		return;	/* the old ring stays, and the raw socket's split with it */
	}
	if (!r) {
		e = -ENOMEM;
	} else {
		r->o = o;
		r->locals = l;
		r->nlocals = k;
		r->fd = ps_ring_open(proto);
		if (r->fd < 0) {
			e = r->fd;
		} else {
			errno = 0;
			e = ring_map(r->fd, &r->map);
			if (e < 0)
				e = errno ? -errno : e;
			else
				e = worker_watch(d, o->worker, r->fd, EPOLLIN, r, EV_RING);
		}
	}
	if (e < 0) {
		log_warnx("%s: no new AF_PACKET ring (%s); receiving through the raw socket%s",
			  what, strerror(-e), old ? " and the ring it had" : "");
		if (r)
			ring_free(r);	/* and l with it */
		else
			free(l);
		if (old && old->split)
			old->split = raw_filter(o, old) > 0;
		return;
	}
	e = raw_filter(o, r);
	r->split = e > 0;
	if (e == 0)
		log_warnx("%s: %u local addresses are more than the ring's filter holds; receiving "
			  "through the raw socket", what, k);
	o->ring = r;
	if (old) {
		old->retired = d->rings_retired;
		d->rings_retired = old;
	}
}

/* Some block of a ring handed over to the worker and not yet given back. */
static bool ring_pending(const struct outer_ring *r)
{
	for (unsigned b = 0; b < RING_BLOCKS; b++) {
		struct tpacket_block_desc *bd = (void *)(r->map + (size_t)b * RING_BLOCK);

		if (load_acquire(bd->hdr.bh1.block_status) & TP_STATUS_USER)
			return true;
	}
	return false;
}

void outer_rings(struct sitd_daemon *d, const struct sitd_conf *c, unsigned n)
{
	struct timespec ms = { .tv_nsec = 1000000 };

	if (!d->rx_ring)
		return;
	for (struct outer *o = d->outers; o; o = o->next) {
		uint8_t proto = o->kind == OUTER_RAW41 ? IPPROTO_IPV6 : IPPROTO_IPIP;
		unsigned k;
		uint32_t *l;

		if (outer_is_udp(o->kind) || outer_is6(o->kind))
			continue;	/* -R ring is for the IPv4 raw paths */
		l = ring_set(d, c, n, proto, &k);
		if (!l) {
			log_warnx("out of memory for the ring's filter");
			continue;
		}
		if (o->ring && k == o->ring->nlocals &&
		    (!k || !memcmp(l, o->ring->locals, k * sizeof(*l)))) {
			free(l);
			continue;
		}
		ring_swap(d, o, l, k);
	}
	if (!d->rings_retired)
		return;
	/*
	 * What an old ring took before the raw socket took everything, the worker reads: its
	 * last block is handed over within a few RING_TIMEOUT_MS (the kernel's retire
	 * timer), then read; a busy worker is given 200 ms.  What comes later, the raw
	 * socket has too.
	 */
	for (unsigned i = 0; i < 10 * RING_TIMEOUT_MS; i++)
		nanosleep(&ms, NULL);
	for (unsigned i = 0; i < 200; i++) {
		bool pending = false;

		for (const struct outer_ring *r = d->rings_retired; r; r = r->retired)
			pending |= ring_pending(r);
		if (!pending)
			break;
		nanosleep(&ms, NULL);
	}
	for (struct outer_ring *r = d->rings_retired; r; r = r->retired)
		worker_unwatch(d, r->o->worker, r->fd);
}

void outer_rings_free(struct sitd_daemon *d)
{
	while (d->rings_retired) {
		struct outer_ring *r = d->rings_retired;

		d->rings_retired = r->retired;
		ring_free(r);
	}
}

int outer_rebuild(struct sitd_daemon *d, void **old, unsigned *nold, struct tunnel **later,
		  struct tunnel **earlier)
{
	unsigned no = 0, k = 0;
	void **next;

	for (struct outer *o = d->outers; o; o = o->next)
		no++;
	next = calloc(no ? no : 1, sizeof(*next));
	if (!next)
		return -1;
	*later = *earlier = NULL;
	for (struct outer *o = d->outers; o; o = o->next, k++) {
		next[k] = outer_is6(o->kind) ? (void *)build6(d, o, later, earlier) :
					       (void *)build(d, o, later, earlier);
		if (!next[k]) {
			while (k--)
				free(next[k]);
			free(next);
			if (!*later)
				log_warnx("out of memory building the tunnel table");
			return -1;
		}
	}
	/* Publish: the owner sees the new table at its next batch. */
	k = 0;
	for (struct outer *o = d->outers; o; o = o->next, k++) {
		if (outer_is6(o->kind)) {
			old[(*nold)++] = o->table6;
			qsbr_publish(o->table6, (struct sitd_table6 *)next[k]);
		} else {
			old[(*nold)++] = o->table;
			qsbr_publish(o->table, (struct sitd_table *)next[k]);
		}
	}
	free(next);
	return 0;
}

size_t daemon_describe_paths(const struct sitd_daemon *d, char *buf, size_t cap, bool json)
{
	size_t len = 0;
	bool first = true;

	if (cap)
		buf[0] = '\0';
	for (const struct outer *o = d->outers; o && len < cap; o = o->next) {
		char what[32];
		int n;

		outer_name(o, what, sizeof(what));
		if (json)
			n = snprintf(buf + len, cap - len,
				     "%s{\"path\":\"%s\",\"tunnels\":%u,\"worker\":%u,\"ring\":%s}",
				     first ? "" : ",", what, o->refs, o->worker, o->ring ? "true" : "false");
		else
			n = snprintf(buf + len, cap - len, "  %-16s %u tunnel(s), worker %u%s\n", what,
				     o->refs, o->worker, o->ring ? ", AF_PACKET ring" : "");
		if (n < 0)
			break;
		len += (size_t)n < cap - len ? (size_t)n : cap - len - 1;
		first = false;
	}
	return len;
}
