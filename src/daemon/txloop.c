/* SPDX-License-Identifier: MIT */
/*
 * Transmit, TUN -> network, on the worker that owns the tunnel's device: frames read in a
 * batch, each judged, split and encapsulated by the core (tx.c), the outer packets sent
 * with one sendmmsg.  Raw tunnels send through the worker's send-only raw socket, FOU/GUE
 * ones through their own UDP sockets (or the port's, for encap-sport = encap-dport).
 */
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/internal.h"
#include "os/clock.h"
#include "os/log.h"

/* IP_PKTINFO in an outgoing message: the device a bound tunnel sends through, its source. */
static size_t put_pktinfo(struct cmsghdr *c, const struct tunnel *t)
{
	struct in_pktinfo pi = { .ipi_ifindex = (int)t->link };

	wr32((uint8_t *)&pi.ipi_spec_dst, t->conf.local);
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	return CMSG_SPACE(sizeof(pi));
}

/* Message k through the raw socket: the kernel routes it (and fragments it, if need be). */
static void msg_raw(struct worker *w, struct tunnel *t, unsigned k)
{
	struct msghdr *m = &w->tmsgs[k].msg_hdr;
	struct sitd_out *x = &w->tx.out[k];

	sitd_out_csum_finish(x);	/* a raw socket cannot leave it to the device */
	/* Each packet to its own outer destination: the remote, or (remote any) its own. */
	w->tdst[k].sin_family = AF_INET;
	w->tdst[k].sin_port = 0;
	wr32((uint8_t *)&w->tdst[k].sin_addr, x->dst);
	m->msg_name = &w->tdst[k];
	m->msg_namelen = sizeof(w->tdst[k]);
	m->msg_iov = x->iov;
	m->msg_iovlen = x->iovcnt;
	m->msg_control = NULL;
	m->msg_controllen = 0;
	m->msg_flags = 0;
	w->l2out[k] = false;
	if (t->link) {
		/* CMSG_FIRSTHDR needs the room first, or it gives NULL. */
		m->msg_control = w->tcmsg[k].buf;
		m->msg_controllen = sizeof(w->tcmsg[k].buf);
		m->msg_controllen = put_pktinfo(CMSG_FIRSTHDR(m), t);
	}
}

/*
 * Message k as a whole Ethernet frame through AF_PACKET (-T packet), when it can go so:
 * to the remote the header was resolved for, and no longer than that device's MTU (a
 * packet the kernel would fragment goes through the raw socket).  Its virtio_net_hdr
 * says NEEDS_CSUM when the core left the inner checksum to the device: the kernel then
 * has it finished as for its own packets (by the NIC, or by skb_checksum_help() in
 * validate_xmit_skb()), and between namespaces veth hands it on unfinished.
 */
static bool msg_l2(struct worker *w, struct tunnel *t, const struct l2path *l2, unsigned k)
{
	struct msghdr *m = &w->tmsgs[k].msg_hdr;
	struct sitd_out *x = &w->tx.out[k];
	struct iovec *v = &w->piovs[k * 5];
	struct sitd_vnet_hdr vh = { 0 };

	/* ip6tnl sends to remote6 alone; an IPv4 tunnel with remote any to each its own. */
	if (!l2 || (t->conf.outer != SITD_OUTER_IPV6 && x->dst != t->conf.remote) ||
	    x->len > l2->mtu || x->iovcnt > 3)
		return false;
	if (x->csum_start) {
		vh.flags = VNET_F_NEEDS_CSUM;
		vh.csum_start = (uint16_t)(ETH_HLEN + x->csum_start);
		vh.csum_offset = x->csum_off;
	}
	vnet_hdr_write(w->pvnet[k], &vh);
	v[0].iov_base = w->pvnet[k];
	v[0].iov_len = VNET_HDR_LEN;
	v[1].iov_base = (void *)(uintptr_t)l2->eth;
	v[1].iov_len = sizeof(l2->eth);
	for (unsigned i = 0; i < x->iovcnt; i++)
		v[i + 2] = x->iov[i];
	m->msg_name = &w->lldst;
	m->msg_namelen = sizeof(w->lldst);
	m->msg_iov = v;
	m->msg_iovlen = x->iovcnt + 2;
	m->msg_control = NULL;
	m->msg_controllen = 0;
	m->msg_flags = 0;
	w->l2out[k] = true;
	return true;
}

/*
 * Send the messages w->tmsgs[0..nout), built by msg_l2 or `raw`, in runs that go the same
 * way, in order: the framed ones through pkt_tx, the others through raw_fd.
 */
static void tx_send(struct worker *w, struct tunnel *t, int raw_fd,
		    void (*raw)(struct worker *, struct tunnel *, unsigned))
{
	struct sitd_tx *tx = &w->tx;
	struct sitd_stats *st = &t->tx_stats;
	unsigned n = tx->nout, i = 0;
	bool retried = false;

	while (i < n) {
		/* A run of messages that go the same way, in order. */
		bool framed = w->l2out[i];
		unsigned run = 1;
		int r;

		while (i + run < n && w->l2out[i + run] == framed)
			run++;
		r = sendmmsg(framed ? w->pkt_tx : raw_fd, w->tmsgs + i, run, 0);
		if (r < 0 && framed) {
			/* The device went, or its address: these go the kernel's way; the control
			 * thread looks the next hop up again. */
			WRITE_ONCE(t->l2_bad, 1);
			for (unsigned k = i; k < n; k++)
				raw(w, t, k);
			continue;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* The route's MTU fell below what sitd thought (ip6_fragment refuses over
			 * IPv6): the control thread reads it. */
			if (errno == EMSGSIZE)
				path_mtu_stale(w, t, tx->out[i].dst);
			/* One retry, then this message is lost; the rest of the batch may still go. */
			if (!retried && errno != EMSGSIZE) {
				retried = true;
				continue;
			}
			STAT_DROP(st, tx_send_error);
			retried = false;
			i++;
			continue;
		}
		retried = false;
		for (int k = 0; k < r; k++) {
			STAT_ADD(st->tx_bytes, tx->out[i + k].len);
			if (tx->out[i + k].csum_start)
				STAT_INC(st->tx_csum_offloaded);
		}
		STAT_ADD(st->tx_packets, (uint64_t)r);
		if (framed)
			STAT_ADD(st->tx_packet_socket, (uint64_t)r);
		i += (unsigned)r;
	}
	sitd_tx_reset(tx);
}

/* -T packet: t's resolved next hop, unless a send through it failed; NULL: none. */
static const struct l2path *tx_l2(struct worker *w, struct tunnel *t, uint16_t ethertype)
{
	const struct l2path *l2 = NULL;

	if (w->pkt_tx >= 0 && !READ_ONCE(t->l2_bad))
		l2 = qsbr_read(t->l2);
	if (l2) {
		w->lldst.sll_family = AF_PACKET;
		w->lldst.sll_protocol = htons(ethertype);
		w->lldst.sll_ifindex = (int)l2->ifindex;
	}
	return l2;
}

static void tx_flush_raw(struct worker *w, struct tunnel *t)
{
	const struct l2path *l2 = tx_l2(w, t, ETH_P_IP);

	for (unsigned k = 0; k < w->tx.nout; k++)
		if (!msg_l2(w, t, l2, k))
			msg_raw(w, t, k);
	if (l2 && READ_ONCE(t->l2_kick)) {
		WRITE_ONCE(t->l2_kick, 0);
		msg_raw(w, t, 0);	/* through the neighbour table: it probes again */
	}
	tx_send(w, t, w->raw_tx, msg_raw);
}

/*
 * An IPv6 underlay (ip6tnl), message k: a whole IPv6 packet the core built, through the
 * worker's IPV6_HDRINCL socket to remote6 (the kernel routes it).  The route lookup needs
 * the source, else ip6_dst_lookup_tail() selects one for each packet (ipv6_dev_get_saddr),
 * which the header already names: the socket's bound address gives it (raw6_bind), or,
 * for a tunnel bound to a device or while that bind fails, an IPV6_PKTINFO per message.
 */
static void msg_raw6(struct worker *w, struct tunnel *t, unsigned k)
{
	struct msghdr *m = &w->tmsgs[k].msg_hdr;
	struct sitd_out *x = &w->tx.out[k];
	struct in6_pktinfo pi = { .ipi6_ifindex = t->link };
	struct cmsghdr *c;

	sitd_out_csum_finish(x);
	m->msg_name = &w->dst6;
	/* remote any (NBMA): where the core's header sends it, the next hop it chose. */
	if (w->tx.remote6_any) {
		struct sockaddr_in6 *a = &w->dst6s[k];

		*a = w->dst6;
		memcpy(&a->sin6_addr, (const uint8_t *)x->iov[0].iov_base + IP6_DST, 16);
		a->sin6_scope_id = IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr) ? t->link : 0;
		m->msg_name = a;
	}
	m->msg_namelen = sizeof(w->dst6);
	m->msg_iov = x->iov;
	m->msg_iovlen = x->iovcnt;
	m->msg_flags = 0;
	w->l2out[k] = false;
	/*
	 * Bound: no cmsg.  Each one costs ip6_datagram_send_ctl's address check, and its
	 * 40 bytes are over ____sys_sendmsg's on-stack buffer: a sock_kmalloc per message.
	 */
	if (!t->link && !memcmp(w->raw6_src, w->tx.local6, 16)) {
		m->msg_control = NULL;
		m->msg_controllen = 0;
		return;
	}
	memcpy(&pi.ipi6_addr, w->tx.local6, 16);
	m->msg_control = w->tcmsg[k].buf;
	m->msg_controllen = CMSG_SPACE(sizeof(pi));
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_IPV6;
	c->cmsg_type = IPV6_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
}

/*
 * Bind the worker's IPv6 send socket to src, the source of the tunnel about to send, when
 * it is bound to another: a syscall per change of source, not a cmsg per packet.  rawv6_bind
 * takes a local address only, and again and again (a raw socket stays TCP_CLOSE); it moves
 * nothing but np->saddr, as IPPROTO_RAW receives nothing.  While it fails (the address is
 * tentative, or link-local and needs a scope) the messages carry IPV6_PKTINFO, which the
 * kernel checks the same way, and the bind is tried again RAW6_BIND_RETRY flushes later.
 */
#define RAW6_BIND_RETRY 1024

static void raw6_bind(struct worker *w, int fd, const uint8_t *src)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };

	/* fe80::/10 by its bytes: src is the tx state's, not aligned as an in6_addr. */
	if (!memcmp(w->raw6_src, src, 16) || (src[0] == 0xfe && (src[1] & 0xc0) == 0x80))
		return;
	if (w->raw6_src_retry) {
		w->raw6_src_retry--;
		return;
	}
	memcpy(&a.sin6_addr, src, 16);
	if (bind(fd, (const struct sockaddr *)&a, sizeof(a)) == 0) {
		memcpy(w->raw6_src, src, 16);
		return;
	}
	/* Unbound now or still bound to the old address: either way not src. */
	memset(w->raw6_src, 0, 16);
	w->raw6_src_retry = RAW6_BIND_RETRY;
}

/*
 * The same send for an IPv6 underlay: as frames with -T packet (msg_l2), or through the
 * raw socket.  Without a source (local any and no route yet) nothing can go:
 * rawv6_send_hdrinc would send ::.
 */
static void tx_flush_raw6(struct worker *w, struct tunnel *t)
{
	static const uint8_t zero[16];
	struct sitd_tx *tx = &w->tx;
	int fd = load_acquire(w->raw6_tx);
	const struct l2path *l2;

	if (fd < 0 || !memcmp(tx->local6, zero, 16)) {
		STAT_ADD(t->tx_stats.drop[SITD_DROP_tx_send_error], tx->nout);
		sitd_tx_reset(tx);
		return;
	}
	if (!t->link)
		raw6_bind(w, fd, tx->local6);
	/* remote any: a next hop per packet, which one resolved frame cannot follow. */
	l2 = tx->remote6_any ? NULL : tx_l2(w, t, ETH_P_IPV6);
	memcpy(&w->dst6.sin6_addr, t->conf.remote6, 16);
	w->dst6.sin6_port = 0;	/* rawv6_sendmsg: 0 or the socket's own protocol */
	w->dst6.sin6_scope_id = IN6_IS_ADDR_LINKLOCAL(&w->dst6.sin6_addr) ? t->link : 0;
	for (unsigned k = 0; k < tx->nout; k++)
		if (!msg_l2(w, t, l2, k))
			msg_raw6(w, t, k);
	if (l2 && READ_ONCE(t->l2_kick)) {
		WRITE_ONCE(t->l2_kick, 0);
		msg_raw6(w, t, 0);	/* through the NDP cache: it probes again (ndisc) */
	}
	tx_send(w, t, fd, msg_raw6);
}

/* Build one FOU/GUE message from outs [o, end); returns how many outs it took. */
static unsigned udp_msg(struct worker *w, struct tunnel *t, bool shared, unsigned m, unsigned o,
			unsigned *iovk)
{
	struct sitd_tx *tx = &w->tx;
	struct sitd_out *first = &tx->out[o];
	struct msghdr *h = &w->tmsgs[m].msg_hdr;
	struct cmsghdr *c;
	unsigned n = 0;
	uint32_t total = 0;
	size_t used;
	int v;

	h->msg_name = &w->dst;
	h->msg_namelen = sizeof(w->dst);
	h->msg_iov = &w->tiovs[*iovk];
	h->msg_iovlen = 0;
	/* With UDP_SEGMENT: the frame's segments, all as long as the first but the last. */
	do {
		struct sitd_out *x = &tx->out[o + n];

		for (unsigned k = 0; k < x->iovcnt; k++)
			w->tiovs[(*iovk)++] = x->iov[k];
		h->msg_iovlen += x->iovcnt;
		total += x->len;
		n++;
	} while (t->udp_gso && o + n < tx->nout && n < UDP_MAX_SEGS &&
		 tx->out[o + n].frame == first->frame && tx->out[o + n - 1].len == first->len &&
		 tx->out[o + n].len <= first->len && tx->out[o + n].df == first->df &&
		 total + tx->out[o + n].len <= IP_MAX_LEN - IPV4_HDR_LEN - UDP_HDR_LEN);

	/* The whole buffer while building: CMSG_NXTHDR checks against msg_controllen. */
	h->msg_control = w->tcmsg[m].buf;
	h->msg_controllen = sizeof(w->tcmsg[m].buf);
	c = CMSG_FIRSTHDR(h);
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_TTL;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	v = first->ttl;
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	c = CMSG_NXTHDR(h, c);
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_TOS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	v = first->tos;
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	used = CMSG_SPACE(sizeof(int)) * 2;
	if (n > 1) {
		uint16_t seg = (uint16_t)first->len;

		c = CMSG_NXTHDR(h, c);
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(c), &seg, sizeof(seg));
		used += CMSG_SPACE(sizeof(seg));
	}
	/* The port's socket is bound to no address: say which source, and which device. */
	if (shared && (t->link || t->conf.local)) {
		c = CMSG_NXTHDR(h, c);
		used += put_pktinfo(c, t);
	}
	h->msg_controllen = used;
	h->msg_flags = 0;
	return n;
}

/*
 * Send outs [from, nout) over UDP.  A UDP_SEGMENT send the kernel refuses (EIO without
 * checksum offload on the way, EINVAL) turns UDP GSO off for good and is sent again
 * segment by segment.  The rare packet that must leave without DF on a DF socket
 * (RFC 4213 3.2.2, an IPv4 packet without DF) goes alone with IP_PMTUDISC_DONT.
 */
static void tx_flush_udp(struct worker *w, struct tunnel *t, unsigned from)
{
	struct sitd_tx *tx = &w->tx;
	struct sitd_stats *st = &t->tx_stats;
	bool shared = t->udp_tx_fd[0] == t->path[0]->fd;
	unsigned m = 0, iovk = 0;

	for (unsigned o = from; o < tx->nout; m++) {
		w->first_out[m] = o;
		o += udp_msg(w, t, shared, m, o, &iovk);
	}
	for (unsigned i = 0; i < m;) {
		unsigned o = w->first_out[i], n = (i + 1 < m ? w->first_out[i + 1] : tx->nout) - o;
		int fd = t->udp_tx_fd[tx->out[o].hash % t->n_udp_tx];
		bool nodf = t->conf.pmtudisc && !tx->out[o].df;
		unsigned run = 1;
		int mode = IP_PMTUDISC_DONT, r;

		/* Messages to the same socket, with DF as the socket has it, go in one call. */
		while (!nodf && i + run < m &&
		       t->udp_tx_fd[tx->out[w->first_out[i + run]].hash % t->n_udp_tx] == fd &&
		       (!t->conf.pmtudisc || tx->out[w->first_out[i + run]].df))
			run++;
		if (nodf)
			(void)setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &mode, sizeof(mode));
		r = sendmmsg(fd, &w->tmsgs[i], run, 0);
		if (r < 0 && errno != EMSGSIZE && errno != EIO && errno != EINVAL)
			r = sendmmsg(fd, &w->tmsgs[i], run, 0);	/* an earlier ICMP's errno */
		if (nodf) {
			mode = IP_PMTUDISC_PROBE;
			(void)setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &mode, sizeof(mode));
		}
		if (r < 0 && n > 1 && (errno == EIO || errno == EINVAL)) {
			log_warnx("%s: UDP GSO refused by the kernel; sending segment by segment",
				  t->conf.name);
			t->udp_gso = false;
			tx_flush_udp(w, t, o);
			return;
		}
		if (r <= 0) {
			if (r < 0 && errno == EMSGSIZE)
				path_mtu_stale(w, t, t->conf.remote);
			/* This message failed; count its segments and go on with the next. */
			STAT_ADD(st->drop[SITD_DROP_tx_send_error], n);
			i++;
			continue;
		}
		for (int k = 0; k < r; k++, i++) {
			unsigned oo = w->first_out[i];
			unsigned nn = (i + 1 < m ? w->first_out[i + 1] : tx->nout) - oo;

			STAT_ADD(st->tx_packets, nn);
			for (unsigned x = 0; x < nn; x++)
				STAT_ADD(st->tx_bytes, tx->out[oo + x].len);
		}
	}
}

static void tx_flush(struct worker *w, struct tunnel *t)
{
	if (!w->tx.nout)
		return;
	/* fou6 too: the core wrote the IPv6 and UDP headers (tx.h). */
	if (t->conf.outer == SITD_OUTER_IPV6) {
		tx_flush_raw6(w, t);
		return;
	}
	if (t->conf.encap != SITD_ENCAP_NONE) {
		tx_flush_udp(w, t, 0);
		sitd_tx_reset(&w->tx);
		return;
	}
	tx_flush_raw(w, t);
}

/*
 * The frames the device has, up to TX_BUDGET so that one busy tunnel does not starve the
 * others on this worker (epoll is level-triggered: what is left is reported again).
 */
static void tx_prepare(struct worker *w, struct tunnel *t)
{
	sitd_tx_use(&w->tx, &t->conf, &t->tx_stats, &t->damper);
	sitd_tx_addrs(&w->tx, qsbr_read(t->addrs6), qsbr_read(w->d->host6));
	sitd_tx_routes(&w->tx, qsbr_read(t->routes6));
	w->tx.rd = qsbr_read(t->rd);
	w->tx.pcache = t->pcache;
	/* IPv6 underlay with local any: the source the route chose (path.c), none yet: :: */
	if (t->conf.outer == SITD_OUTER_IPV6) {
		const struct path_src6 *s = qsbr_read(t->src6);

		if (s)
			sitd_tx_local6(&w->tx, s->a);
	}
	/* Inner checksums to the device only where outer packets will go as frames. */
	w->tx.csum_defer = w->pkt_tx >= 0 && t->conf.encap == SITD_ENCAP_NONE &&
			   (t->conf.outer == SITD_OUTER_IPV6 || t->conf.remote) &&
			   qsbr_read(t->l2) && !READ_ONCE(t->l2_bad);
	w->dst.sin_port = htons(t->conf.encap_dport);	/* 0 for raw sockets, which ignore it */
	wr32((uint8_t *)&w->dst.sin_addr, t->conf.remote);
}

void tx_inject(struct worker *w, struct tunnel *t, uint8_t *frame, uint32_t len)
{
	tx_prepare(w, t);
	if (sitd_tx_begin(&w->tx, frame, len, path_mtu_get(t), now_ns()) == SITD_TX_SEND)
		while (!sitd_tx_next(&w->tx))
			tx_flush(w, t);
	tx_flush(w, t);
}

void tx_tunnel(struct worker *w, struct tunnel *t)
{
	unsigned nframe = 0;

	tx_prepare(w, t);
	for (unsigned budget = TX_BUDGET; budget; budget--) {
		ssize_t n = read(t->tun_fd, w->frames[nframe], FRAME_SIZE);
		enum sitd_tx_verdict v;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				STAT_DROP(&t->tx_stats, tun_read_error);
			break;
		}
		if (n > FRAME_MAX) {
			STAT_DROP(&t->tx_stats, tx_frame_too_long);
			continue;
		}
		v = sitd_tx_begin(&w->tx, w->frames[nframe], (uint32_t)n, path_mtu_get(t), now_ns());
		if (w->tx.icmp_len && write(t->tun_fd, w->tx.icmp, w->tx.icmp_len) < 0)
			STAT_DROP(&t->tx_stats, tun_write_error);
		if (v == SITD_TX_SEND) {
			while (!sitd_tx_next(&w->tx))
				tx_flush(w, t);
			nframe++;
		}
		/* Flush when frames run out or the next super-packet might not fit. */
		if (nframe == TX_FRAMES || w->tx.nout > SITD_TX_MAX_OUT / 2) {
			tx_flush(w, t);
			nframe = 0;
		}
	}
	tx_flush(w, t);
}

/* The tunnel's own UDP send sockets report ICMP errors: the path MTU is what sitd takes. */
void tx_udp_errors(struct worker *w, struct tunnel *t)
{
	for (unsigned i = 0; i < t->n_udp_tx; i++) {
		const struct sock_extended_err *ee;
		size_t n;

		if (t->udp_tx_fd[i] == t->path[0]->fd)
			continue;	/* the port's own: its owner reads it (rx_outer_errors) */
		while ((ee = errqueue_read(w, t->udp_tx_fd[i], &n, NULL))) {
			if (errqueue_frag_needed(ee)) {
				STAT_INC(t->tx_stats.err_frag_needed);
				path_mtu_stale(w, t, t->conf.remote);
			}
		}
	}
}
