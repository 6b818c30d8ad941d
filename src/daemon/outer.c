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
#include <unistd.h>

#include "core/bpf.h"
#include "daemon/internal.h"
#include "os/log.h"
#include "priv/privsep.h"
#include "os/sock.h"

static const char *outer_name(const struct outer *o, char *buf, size_t len)
{
	if (o->kind == OUTER_UDP)
		snprintf(buf, len, "%s port %u", o->encap == SITD_ENCAP_GUE ? "gue" : "fou", o->port);
	else
		snprintf(buf, len, "protocol %u", o->kind == OUTER_RAW41 ? 41 : 4);
	return buf;
}

/*
 * -R ring: the AF_PACKET ring beside the raw socket, read by the same worker.  It takes
 * nothing until outer_rebuild attaches the filters; without it the raw socket does all.
 */
static void ring_open(struct sitd_daemon *d, struct outer *o, const struct sitd_conf *c)
{
	char what[32];

	o->ring_fd = ps_packet_open();
	if (o->ring_fd >= 0 && ring_setup(o->ring_fd, &o->ring) == 0 &&
	    worker_watch(d, o->worker, o->ring_fd, EPOLLIN, o, EV_RING) == 0)
		return;
	log_warn("%s: no AF_PACKET ring for %s; receiving through the raw socket", c->name,
		 outer_name(o, what, sizeof(what)));
	if (o->ring) {
		munmap(o->ring, (size_t)RING_BLOCK * RING_BLOCKS);
		o->ring = NULL;
	}
	if (o->ring_fd >= 0)
		close(o->ring_fd);
	o->ring_fd = -1;
}

static struct outer *outer_open(struct sitd_daemon *d, const struct sitd_conf *c, enum outer_kind k)
{
	struct outer *o = calloc(1, sizeof(*o));
	char what[32];

	if (!o) {
		log_warn("%s: out of memory", c->name);
		return NULL;
	}
	o->kind = k;
	o->ring_fd = -1;
	if (k == OUTER_UDP) {
		o->port = c->encap_dport;
		o->encap = c->encap;
		o->fd = ps_udp_rx_open(c->encap_dport);
		/* The ports' owners are spread over the workers, the raw sockets' is the first. */
		o->worker = d->next_udp_worker++ % d->nw;
	} else {
		o->fd = ps_raw_open(k == OUTER_RAW41 ? IPPROTO_IPV6 : IPPROTO_IPIP);
		o->worker = 0;
	}
	if (o->fd < 0) {
		if (k != OUTER_UDP && (errno == EPERM || errno == EACCES))
			log_warn("%s: cannot open a raw socket for %s: needs CAP_NET_RAW", c->name,
				 outer_name(o, what, sizeof(what)));
		else
			log_warn("%s: cannot open the receive socket for %s", c->name,
				 outer_name(o, what, sizeof(what)));
		free(o);
		return NULL;
	}
	if (worker_watch(d, o->worker, o->fd, EPOLLIN, o, EV_OUTER) < 0) {
		log_warn("%s: epoll", c->name);
		close(o->fd);
		free(o);
		return NULL;
	}
	if (k != OUTER_UDP && d->rx_ring)
		ring_open(d, o, c);
	o->next = d->outers;
	d->outers = o;
	return o;
}

struct outer *outer_get(struct sitd_daemon *d, const struct sitd_conf *c, enum outer_kind k,
			struct outer **closing)
{
	struct outer *o;

	for (o = d->outers; o; o = o->next)
		if (o->kind == k && (k != OUTER_UDP || o->port == c->encap_dport))
			break;
	if (o && k == OUTER_UDP && o->encap != c->encap) {
		/* As `ip fou add port P` makes a port either fou or gue. */
		log_warnx("%s: port %u already carries %s for other tunnels", c->name, o->port,
			  o->encap == SITD_ENCAP_GUE ? "gue" : "fou");
		return NULL;
	}
	if (!o) {
		o = outer_open(d, c, k);
		if (!o)
			return NULL;
	}
	o->refs++;
	/* Tunnels that send from the port itself share its send options. */
	if (k == OUTER_UDP && c->encap_sport == c->encap_dport) {
		if (o->tx_set && (o->tx_csum != c->encap_csum || o->tx_pmtudisc != c->pmtudisc)) {
			log_warnx("%s: port %u also sends for tunnels with other encap-csum or pmtudisc "
				  "settings; give this one another encap-sport", c->name, o->port);
			outer_put(d, o, closing);
			return NULL;
		}
		if (!o->tx_set) {
			if (udp_tx_setup(o->fd, c->pmtudisc ? IP_PMTUDISC_PROBE : IP_PMTUDISC_DONT,
					 c->encap_csum) < 0) {
				log_warn("%s: cannot set up port %u for sending", c->name, o->port);
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
	if (o->ring_fd >= 0)
		worker_unwatch(d, o->worker, o->ring_fd);
	o->next = *closing;
	*closing = o;
}

/* After a grace period: no worker can be reading it any more. */
void outer_close(struct outer *o)
{
	while (o) {
		struct outer *next = o->next;

		close(o->fd);
		if (o->ring)
			munmap(o->ring, (size_t)RING_BLOCK * RING_BLOCKS);
		if (o->ring_fd >= 0)
			close(o->ring_fd);
		free(o->ring_locals);
		free(o->table);
		free(o);
		o = next;
	}
}

static bool uses(const struct tunnel *t, const struct outer *o)
{
	return t->path[0] == o || t->path[1] == o;
}

/* A table for o, from the running tunnels that use it: [struct sitd_table][entries]. */
static struct sitd_table *build(struct sitd_daemon *d, struct outer *o, struct tunnel **later,
				struct tunnel **earlier)
{
	struct sitd_tent *in;
	struct sitd_table *t;
	uint32_t n = 0, a, b;
	size_t mem;

	for (unsigned i = 0; i < d->n; i++)
		n += uses(d->t[i], o);
	mem = sitd_table_mem(n);
	in = calloc(n ? n : 1, sizeof(*in));
	t = malloc(sizeof(*t) + mem);
	if (!in || !t) {
		free(in);
		free(t);
		return NULL;
	}
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * -R ring: split o's protocol between the ring and the raw socket by the tunnels' local
 * addresses (bpf.h), when they changed.  Meanwhile the raw socket takes everything, so
 * that a packet may come twice for a moment but none is lost.
 */
static void ring_filters(struct sitd_daemon *d, struct outer *o)
{
	static struct sock_filter ring[SITD_BPF_MAX], raw[SITD_BPF_MAX];
	struct sock_filter all = BPF_STMT(BPF_RET | BPF_K, SITD_BPF_ACCEPT), none = BPF_STMT(BPF_RET | BPF_K, 0);
	uint32_t *l = calloc(d->n ? d->n : 1, sizeof(*l));
	unsigned n = 0, k = 0, nr, nw;
	char what[32];

	if (!l) {
		log_warn("out of memory for the ring's filter");
		return;
	}
	for (unsigned i = 0; i < d->n; i++)
		if (uses(d->t[i], o) && d->t[i]->conf.local)
			l[n++] = d->t[i]->conf.local;
	qsort(l, n, sizeof(*l), cmp_u32);
	for (unsigned i = 0; i < n; i++)
		if (!k || l[k - 1] != l[i])
			l[k++] = l[i];
	if (k == o->ring_nlocals && (!k || !memcmp(l, o->ring_locals, k * sizeof(*l)))) {
		free(l);
		return;
	}
	nr = sitd_bpf_ring(ring, SITD_BPF_MAX, o->kind == OUTER_RAW41 ? IPPROTO_IPV6 : IPPROTO_IPIP, l, k);
	nw = sitd_bpf_raw(raw, SITD_BPF_MAX, l, k);
	if (sock_filter_set(o->fd, &all, 1) < 0 ||
	    (nr && nw ? sock_filter_set(o->ring_fd, ring, nr) < 0 || sock_filter_set(o->fd, raw, nw) < 0
		      : sock_filter_set(o->ring_fd, &none, 1) < 0))
		log_warn("%s: cannot set the ring's filters", outer_name(o, what, sizeof(what)));
	else if (!(nr && nw))
		log_warnx("%s: %u local addresses are more than the ring's filter holds; receiving "
			  "through the raw socket", outer_name(o, what, sizeof(what)), k);
	free(o->ring_locals);
	o->ring_locals = l;
	o->ring_nlocals = k;
}

int outer_rebuild(struct sitd_daemon *d, void **old, unsigned *nold, struct tunnel **later,
		  struct tunnel **earlier)
{
	unsigned no = 0, k = 0;
	struct sitd_table **next;

	for (struct outer *o = d->outers; o; o = o->next)
		no++;
	next = calloc(no ? no : 1, sizeof(*next));
	if (!next)
		return -1;
	*later = *earlier = NULL;
	for (struct outer *o = d->outers; o; o = o->next, k++) {
		next[k] = build(d, o, later, earlier);
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
		old[(*nold)++] = o->table;
		qsbr_publish(o->table, next[k]);
		if (o->ring_fd >= 0)
			ring_filters(d, o);
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
				     first ? "" : ",", what, o->refs, o->worker, o->ring_fd >= 0 ? "true" : "false");
		else
			n = snprintf(buf + len, cap - len, "  %-16s %u tunnel(s), worker %u%s\n", what,
				     o->refs, o->worker, o->ring_fd >= 0 ? ", AF_PACKET ring" : "");
		if (n < 0)
			break;
		len += (size_t)n < cap - len ? (size_t)n : cap - len - 1;
		first = false;
	}
	return len;
}
