/* SPDX-License-Identifier: MIT */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmnl/libmnl.h>
#include <linux/errqueue.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gro.h"
#include "icmp.h"
#include "icmperr.h"
#include "log.h"
#include "nl.h"
#include "ratelimit.h"
#include "rx.h"
#include "sock.h"
#include "tun.h"
#include "tx.h"
#include "wire.h"

enum {
	FRAME_SIZE = VNET_HDR_LEN + IP_MAX_LEN,
	TX_FRAMES = 16,		/* frames whose segments may wait for one sendmmsg */
	RX_BATCH = GRO_BATCH,
	RX_BUF = IP_MAX_LEN,
	PMTU_REFRESH_MS = 1000,
	DEFAULT_UNDERLAY_MTU = 1500,	/* the kernel's fallback: ETH_DATA_LEN */
};

static int fcntl_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ask both threads to stop: they see the flag, and the eventfd ends their poll(). */
static void tunnel_wake(struct sitd_tunnel *t)
{
	uint64_t one = 1;

	__atomic_store_n(&t->stopping, true, __ATOMIC_RELEASE);
	if (write(t->stop_fd, &one, sizeof(one)) < 0)
		log_warn("%s: cannot wake the threads", t->conf.name);
}

static bool stopping(struct sitd_tunnel *t)
{
	return __atomic_load_n(&t->stopping, __ATOMIC_ACQUIRE);
}

static uint32_t path_mtu_get(struct sitd_tunnel *t)
{
	return __atomic_load_n(&t->path_mtu, __ATOMIC_RELAXED);
}

static void path_mtu_refresh(struct sitd_tunnel *t)
{
	uint32_t mtu = pmtu_probe(t->probe_fd, t->conf.remote);

	if (mtu && mtu != path_mtu_get(t)) {
		__atomic_store_n(&t->path_mtu, mtu, __ATOMIC_RELAXED);
		log_info("%s: path MTU to remote is %u", t->conf.name, mtu);
	}
}

/*
 * FOU/GUE sockets.  encap-sport auto: a few send sockets on ports the kernel picks, one
 * chosen per inner flow by its hash, so flows spread over source ports as the kernel's
 * udp_flow_src_port() spreads them (over a smaller set).
 */
static int udp_open_all(struct sitd_tunnel *t)
{
	struct sitd_conf *c = &t->conf;
	int df = c->pmtudisc ? IP_PMTUDISC_PROBE : IP_PMTUDISC_DONT;
	unsigned want = c->encap_sport ? 1 : sizeof(t->udp_tx_fd) / sizeof(t->udp_tx_fd[0]);

	t->udp_rx_fd = udp_rx_open(c->local, c->encap_dport, c->dev);
	if (t->udp_rx_fd < 0) {
		log_warn("%s: cannot open the UDP socket for port %u", c->name, c->encap_dport);
		return -1;
	}
	if (c->encap_sport == c->encap_dport) {
		if (udp_tx_setup(t->udp_rx_fd, df, c->encap_csum) < 0) {
			log_warn("%s: cannot set up the UDP socket for port %u", c->name,
				 c->encap_dport);
			return -1;
		}
		t->udp_tx_fd[t->n_udp_tx++] = t->udp_rx_fd;
	}
	while (t->n_udp_tx < want) {
		int fd = udp_tx_open(c->local, c->encap_sport, c->dev, df, c->encap_csum);

		if (fd < 0) {
			log_warn("%s: cannot open a UDP socket for encap-sport %u", c->name,
				 c->encap_sport);
			return -1;
		}
		t->udp_tx_fd[t->n_udp_tx++] = fd;
	}
	/* UDP_SEGMENT needs the checksum: with SO_NO_CHECK the kernel refuses it. */
	t->udp_gso = c->encap_csum;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Close everything tunnel_open() opened; closing the TUN fd removes the device. */
void tunnel_close_only(struct sitd_tunnel *t)
{
	for (unsigned i = 0; i < t->n_udp_tx; i++)
		if (t->udp_tx_fd[i] != t->udp_rx_fd)
			close_fd(&t->udp_tx_fd[i]);
	t->n_udp_tx = 0;
	close_fd(&t->udp_rx_fd);
	close_fd(&t->raw_fd[0]);
	close_fd(&t->raw_fd[1]);
	close_fd(&t->probe_fd);
	close_fd(&t->stop_fd);
	close_fd(&t->tun_fd);
}

int tunnel_open(struct sitd_tunnel *t)
{
	struct sitd_conf *c = &t->conf;
	char desc[256];
	uint32_t underlay;
	int fd;

	t->raw_fd[0] = t->raw_fd[1] = t->udp_rx_fd = t->probe_fd = t->stop_fd = t->tun_fd = -1;
	t->n_udp_tx = 0;
	t->stopping = false;
	memset(&t->damper, 0, sizeof(t->damper));
	if (c->dev[0] && !if_nametoindex(c->dev)) {
		log_warnx("%s: cannot find device \"%s\"", c->name, c->dev);
		return -1;
	}

	/* The TUN device first: it needs CAP_NET_ADMIN, the clearer message. */
	t->tun_fd = tun_open(c->name, !c->nogso, &t->offloads);
	if (t->tun_fd < 0) {
		if (errno == ENOENT || errno == ENODEV)
			log_warn("cannot open /dev/net/tun (is the tun module there?)");
		else if (errno == EACCES)
			log_warn("cannot open /dev/net/tun for \"%s\" as uid %u (an unprivileged sitd "
				 "needs it readable and writable, mode 0666 as Debian ships it)",
				 c->name, (unsigned)getuid());
		else if (errno == EPERM)
			log_warn("cannot create TUN device \"%s\": needs CAP_NET_ADMIN (run as root)",
				 c->name);
		else if (errno == EBUSY || errno == EINVAL)
			log_warn("cannot create TUN device \"%s\" (does a non-TUN device of that name exist?)",
				 c->name);
		else
			log_warn("cannot create TUN device \"%s\"", c->name);
		goto fail;
	}
	t->ifindex = if_nametoindex(c->name);
	t->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->stop_fd < 0) {
		log_warn("%s: eventfd", c->name);
		goto fail;
	}

	if (c->encap != SITD_ENCAP_NONE && udp_open_all(t) < 0)
		goto fail;
	for (int i = 0; i < 2 && c->encap == SITD_ENCAP_NONE; i++) {
		uint8_t proto = i == 0 ? IPPROTO_IPV6 : IPPROTO_IPIP;

		if (c->mode != SITD_MODE_ANY && (uint8_t)c->mode != proto)
			continue;
		fd = raw_open(proto, c->dev);
		if (fd < 0) {
			if (errno == EPERM || errno == EACCES)
				log_warn("cannot open a raw socket for protocol %u: needs CAP_NET_RAW",
					 proto);
			else
				log_warn("cannot open a raw socket for protocol %u", proto);
			goto fail;
		}
		t->raw_fd[i] = fd;
	}
	t->send_fd = t->raw_fd[0] >= 0 ? t->raw_fd[0] : t->raw_fd[1];

	t->probe_fd = pmtu_probe_open(c->local, c->dev);
	if (t->probe_fd < 0) {
		log_warn("%s: cannot open the path MTU probe socket", c->name);
		goto fail;
	}
	underlay = pmtu_probe(t->probe_fd, c->remote);
	if (!underlay) {
		int m = c->dev[0] ? link_get_mtu(c->dev) : -1;

		underlay = m > 0 ? (uint32_t)m : DEFAULT_UNDERLAY_MTU;
		log_warnx("%s: no route to the remote yet; assuming an underlay MTU of %u", c->name,
			  underlay);
	}
	t->path_mtu = underlay;

	/* As the kernel: device MTU = underlay MTU - the encapsulation, unless given. */
	if (!c->mtu) {
		uint32_t m = underlay - sitd_encap_len(c);

		if (m < sitd_mtu_min(c->mode))
			m = sitd_mtu_min(c->mode);
		c->mtu = m;
	}
	if (link_set_mtu(c->name, c->mtu) < 0) {
		log_warn("cannot set the MTU of %s to %u", c->name, c->mtu);
		goto fail;
	}

	sitd_conf_format(c, desc, sizeof(desc));
	log_info("%s, path mtu %u, offloads%s%s%s%s", desc, underlay,
		 t->offloads & TUN_F_CSUM ? " csum" : "", t->offloads & TUN_F_TSO4 ? " tso4" : "",
		 t->offloads & TUN_F_TSO6 ? " tso6" : "", t->offloads & TUN_F_TSO_ECN ? " tso_ecn" : "");
	return 0;
fail:
	tunnel_close_only(t);
	return -1;
}

/* ---- transmit: TUN -> network ---------------------------------------------------- */

enum { UDP_MAX_SEGS = 64 };	/* UDP_MAX_SEGMENTS before 1382e3b6a350 */

struct tx_worker {
	struct sitd_tunnel *t;
	struct sitd_tx tx;
	struct sockaddr_in dst;
	struct mmsghdr msgs[SITD_TX_MAX_OUT];
	/* FOU/GUE: one message per super-packet (UDP_SEGMENT) or per segment. */
	struct iovec iovs[SITD_TX_MAX_OUT * 3];
	unsigned first_out[SITD_TX_MAX_OUT];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(uint16_t))];
	} cmsg[SITD_TX_MAX_OUT];
	uint8_t frames[TX_FRAMES][FRAME_SIZE];
};

static void tx_flush_raw(struct tx_worker *w);
static void tx_flush_udp(struct tx_worker *w, unsigned from);

static void tx_flush(struct tx_worker *w)
{
	struct sitd_tx *tx = &w->tx;

	if (w->t->conf.encap != SITD_ENCAP_NONE) {
		tx_flush_udp(w, 0);
		sitd_tx_reset(tx);
		return;
	}
	tx_flush_raw(w);
}

static void tx_flush_raw(struct tx_worker *w)
{
	struct sitd_tx *tx = &w->tx;
	struct sitd_stats *st = &w->t->tx_stats;
	unsigned n = tx->nout, i = 0;
	bool retried = false;

	for (unsigned k = 0; k < n; k++) {
		struct msghdr *m = &w->msgs[k].msg_hdr;

		m->msg_name = &w->dst;
		m->msg_namelen = sizeof(w->dst);
		m->msg_iov = tx->out[k].iov;
		m->msg_iovlen = tx->out[k].iovcnt;
		m->msg_control = NULL;
		m->msg_controllen = 0;
		m->msg_flags = 0;
	}
	while (i < n) {
		int r = sendmmsg(w->t->send_fd, w->msgs + i, n - i, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			/*
			 * An ICMP error about an earlier packet leaves its errno on the socket,
			 * and the next send reports it instead of sending (sock_error()): try
			 * once more before counting this message as lost.  A real failure
			 * (EMSGSIZE, no route) fails again; the rest of the batch may still go.
			 */
			if (!retried) {
				retried = true;
				continue;
			}
			STAT_DROP(st, tx_send_error);
			retried = false;
			i++;
			continue;
		}
		retried = false;
		for (int k = 0; k < r; k++)
			STAT_ADD(st->tx_bytes, tx->out[i + k].len);
		STAT_ADD(st->tx_packets, (uint64_t)r);
		i += (unsigned)r;
	}
	sitd_tx_reset(tx);
}

/* Build one FOU/GUE message from outs [o, end); returns how many outs it took. */
static unsigned udp_msg(struct tx_worker *w, unsigned m, unsigned o, unsigned *iovk)
{
	struct sitd_tx *tx = &w->tx;
	struct sitd_out *first = &tx->out[o];
	struct msghdr *h = &w->msgs[m].msg_hdr;
	struct cmsghdr *c;
	unsigned n = 0;
	uint32_t total = 0;
	int v;

	h->msg_name = &w->dst;
	h->msg_namelen = sizeof(w->dst);
	h->msg_iov = &w->iovs[*iovk];
	h->msg_iovlen = 0;
	/* With UDP_SEGMENT: the frame's segments, all as long as the first but the last. */
	do {
		struct sitd_out *x = &tx->out[o + n];

		for (unsigned k = 0; k < x->iovcnt; k++)
			w->iovs[(*iovk)++] = x->iov[k];
		h->msg_iovlen += x->iovcnt;
		total += x->len;
		n++;
	} while (w->t->udp_gso && o + n < tx->nout && n < UDP_MAX_SEGS &&
		 tx->out[o + n].frame == first->frame && tx->out[o + n - 1].len == first->len &&
		 tx->out[o + n].len <= first->len && tx->out[o + n].df == first->df &&
		 total + tx->out[o + n].len <= IP_MAX_LEN - IPV4_HDR_LEN - UDP_HDR_LEN);

	h->msg_control = w->cmsg[m].buf;
	h->msg_controllen = sizeof(w->cmsg[m].buf);
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
	if (n > 1) {
		uint16_t seg = (uint16_t)first->len;

		c = CMSG_NXTHDR(h, c);
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(c), &seg, sizeof(seg));
		h->msg_controllen = CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(seg));
	} else {
		h->msg_controllen = CMSG_SPACE(sizeof(int)) * 2;
	}
	h->msg_flags = 0;
	return n;
}

/*
 * Send outs [from, nout) over UDP.  A UDP_SEGMENT send the kernel refuses (EIO without
 * checksum offload on the way, EINVAL) turns UDP GSO off for good and is sent again
 * segment by segment.  The rare packet that must leave without DF on a DF socket
 * (RFC 4213 3.2.2, an IPv4 packet without DF) goes alone with IP_PMTUDISC_DONT.
 */
static void tx_flush_udp(struct tx_worker *w, unsigned from)
{
	struct sitd_tx *tx = &w->tx;
	struct sitd_tunnel *t = w->t;
	struct sitd_stats *st = &t->tx_stats;
	unsigned m = 0, iovk = 0;

	for (unsigned o = from; o < tx->nout; m++) {
		w->first_out[m] = o;
		o += udp_msg(w, m, o, &iovk);
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
		r = sendmmsg(fd, &w->msgs[i], run, 0);
		if (r < 0 && errno != EMSGSIZE && errno != EIO && errno != EINVAL)
			r = sendmmsg(fd, &w->msgs[i], run, 0);	/* an earlier ICMP's errno */
		if (nodf) {
			mode = IP_PMTUDISC_PROBE;
			(void)setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &mode, sizeof(mode));
		}
		if (r < 0 && n > 1 && (errno == EIO || errno == EINVAL)) {
			log_warnx("%s: UDP GSO refused by the kernel; sending segment by segment",
				  t->conf.name);
			t->udp_gso = false;
			tx_flush_udp(w, o);
			return;
		}
		if (r <= 0) {
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

static void *tx_main(void *arg)
{
	struct tx_worker *w = arg;
	struct sitd_tunnel *t = w->t;
	unsigned nframe = 0;

	while (!stopping(t)) {
		ssize_t n = read(t->tun_fd, w->frames[nframe], FRAME_SIZE);
		enum sitd_tx_verdict v;

		if (n < 0) {
			if (errno == EAGAIN) {
				struct pollfd p[2] = { { .fd = t->tun_fd, .events = POLLIN },
						       { .fd = t->stop_fd, .events = POLLIN } };

				tx_flush(w);
				nframe = 0;
				(void)poll(p, 2, -1);
			} else if (errno != EINTR) {
				log_warn("%s: read from TUN", t->conf.name);
				return NULL;
			}
			continue;
		}
		v = sitd_tx_begin(&w->tx, w->frames[nframe], (uint32_t)n, path_mtu_get(t), now_ns());
		if (w->tx.icmp_len && write(t->tun_fd, w->tx.icmp, w->tx.icmp_len) < 0)
			STAT_DROP(&t->tx_stats, tun_write_error);
		if (v == SITD_TX_SEND) {
			while (!sitd_tx_next(&w->tx))
				tx_flush(w);
			nframe++;
		}
		/* Flush when frames run out or the next super-packet might not fit. */
		if (nframe == TX_FRAMES || w->tx.nout > SITD_TX_MAX_OUT / 2) {
			tx_flush(w);
			nframe = 0;
		}
	}
	return NULL;
}

/* ---- receive: network -> TUN ----------------------------------------------------- */

struct rx_worker {
	struct sitd_tunnel *t;
	struct sitd_rx rx;
	struct sitd_gro gro;
	struct sitd_ratelimit relay_rl;
	struct mnl_socket *nl;
	uint8_t cmsg[256];
	uint8_t errpkt[RX_BUF];
	uint8_t relay[ICMP6_ERR_MAX];
	struct mmsghdr msgs[RX_BATCH];
	struct iovec iovs[RX_BATCH];
	struct sockaddr_in names[RX_BATCH];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(int))];
	} cmsgs[RX_BATCH];
	uint8_t bufs[RX_BATCH][RX_BUF];
};

/* Write one GRO output; on a refused merged write, fall back to unmerged for good. */
static void rx_write(struct rx_worker *w, unsigned i)
{
	static uint8_t vnet_none[VNET_HDR_LEN];
	struct sitd_gro *g = &w->gro;
	struct sitd_gro_item *it = &g->item[i];
	struct sitd_stats *st = &w->t->rx_stats;
	uint32_t bytes = 0;

	for (unsigned k = 1; k < g->iov_cnt[i]; k++)
		bytes += (uint32_t)g->iov[g->iov_start[i] + k].iov_len;
	if (writev(w->t->tun_fd, g->iov + g->iov_start[i], (int)g->iov_cnt[i]) >= 0) {
		STAT_ADD(st->rx_packets, it->nseg);
		STAT_ADD(st->rx_bytes, bytes);
		return;
	}
	if (errno != EINVAL || it->nseg == 1) {
		STAT_ADD(st->drop[SITD_DROP_tun_write_error], it->nseg);
		return;
	}
	/* Kernels with e269d79c7d35 and without 89add40066f9 refuse a short last segment. */
	if (g->enabled)
		log_warnx("%s: the kernel refused a merged write to TUN; GRO off", w->t->conf.name);
	g->enabled = false;
	sitd_gro_unmerge(g, i);
	STAT_INC(st->rx_gro_fallback);
	for (unsigned s = 0; s < it->nseg; s++) {
		struct iovec out[2] = { { vnet_none, VNET_HDR_LEN },
					{ g->pkt[it->idx[s]].p, g->pkt[it->idx[s]].len } };

		if (writev(w->t->tun_fd, out, 2) < 0) {
			STAT_DROP(st, tun_write_error);
			continue;
		}
		STAT_INC(st->rx_packets);
		STAT_ADD(st->rx_bytes, g->pkt[it->idx[s]].len);
	}
}

/* Set the receive batch up again (recvmmsg writes the lengths back into it). */
static void rx_msgs_init(struct rx_worker *w, bool udp)
{
	for (int i = 0; i < RX_BATCH; i++) {
		struct msghdr *h = &w->msgs[i].msg_hdr;

		w->iovs[i].iov_base = w->bufs[i];
		w->iovs[i].iov_len = RX_BUF;
		memset(h, 0, sizeof(*h));
		h->msg_iov = &w->iovs[i];
		h->msg_iovlen = 1;
		if (udp) {
			h->msg_name = &w->names[i];
			h->msg_namelen = sizeof(w->names[i]);
			h->msg_control = w->cmsgs[i].buf;
			h->msg_controllen = sizeof(w->cmsgs[i].buf);
		}
	}
}

static void rx_batch(struct rx_worker *w, int fd)
{
	int n;

	rx_msgs_init(w, false);
	n = recvmmsg(fd, w->msgs, RX_BATCH, MSG_DONTWAIT, NULL);
	sitd_gro_reset(&w->gro);
	for (int i = 0; i < n; i++) {
		uint32_t off, len;

		if (sitd_rx_decap(&w->rx, w->bufs[i], w->msgs[i].msg_len, &off, &len))
			continue;
		sitd_gro_add(&w->gro, w->bufs[i] + off, len);
	}
	for (unsigned i = 0, k = sitd_gro_finish(&w->gro); i < k; i++)
		rx_write(w, i);
}

/* Add a decapsulated packet to the GRO batch, writing the batch out when it is full. */
static void rx_push(struct rx_worker *w, uint8_t *p, uint32_t len)
{
	if (sitd_gro_add(&w->gro, p, len))
		return;
	for (unsigned i = 0, k = sitd_gro_finish(&w->gro); i < k; i++)
		rx_write(w, i);
	sitd_gro_reset(&w->gro);
	sitd_gro_add(&w->gro, p, len);
}

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/*
 * FOU/GUE: one recvmmsg of UDP datagrams, each possibly several coalesced by UDP_GRO
 * (the cmsg gives their size), split, decapsulated, and merged again for TUN.
 */
static void rx_batch_udp(struct rx_worker *w, int fd)
{
	int n;

	rx_msgs_init(w, true);
	n = recvmmsg(fd, w->msgs, RX_BATCH, MSG_DONTWAIT, NULL);
	sitd_gro_reset(&w->gro);
	for (int i = 0; i < n; i++) {
		struct msghdr *h = &w->msgs[i].msg_hdr;
		uint32_t total = w->msgs[i].msg_len, seg = total, src;
		uint8_t tos = 0;

		if (h->msg_flags & MSG_TRUNC) {
			STAT_DROP(&w->t->rx_stats, rx_truncated);
			continue;
		}
		/* Walk every cmsg: UDP_GRO may come after IP_TOS (tailscale#17835). */
		for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
			if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
				int v;

				memcpy(&v, CMSG_DATA(c), sizeof(v));
				if (v > 0)
					seg = (uint32_t)v;
			} else if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_TOS) {
				tos = *CMSG_DATA(c);
			}
		}
		src = rd32((const uint8_t *)&w->names[i].sin_addr);
		for (uint32_t off = 0; off < total; off += seg) {
			uint32_t dlen = total - off < seg ? total - off : seg, ioff, ilen;
			uint8_t *d = w->bufs[i] + off;

			if (sitd_rx_decap_udp(&w->rx, tos, src, d, dlen, &ioff, &ilen) == 0)
				rx_push(w, d + ioff, ilen);
		}
	}
	for (unsigned i = 0, k = sitd_gro_finish(&w->gro); i < k; i++)
		rx_write(w, i);
}

/* FOU/GUE sockets report ICMP errors too: a path MTU change is all sitd takes from them. */
static void rx_errqueue_udp(struct rx_worker *w, int fd)
{
	for (;;) {
		struct iovec iov = { .iov_base = w->errpkt, .iov_len = sizeof(w->errpkt) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = w->cmsg,
				    .msg_controllen = sizeof(w->cmsg) };
		const struct sock_extended_err *ee = NULL;

		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR)
				ee = (const struct sock_extended_err *)CMSG_DATA(c);
		if (!ee)
			continue;
		if ((ee->ee_origin == SO_EE_ORIGIN_LOCAL && ee->ee_errno == EMSGSIZE) ||
		    (ee->ee_origin == SO_EE_ORIGIN_ICMP && ee->ee_type == ICMP4_DEST_UNREACH &&
		     ee->ee_code == ICMP4_FRAG_NEEDED)) {
			STAT_INC(w->t->rx_stats.err_frag_needed);
			path_mtu_refresh(w->t);
		}
	}
}

/*
 * ICMP errors about our outer packets, queued by the kernel (IP_RECVERR).  The kernel
 * has already applied Fragmentation Needed to its route (raw_err() ->
 * ipv4_sk_update_pmtu()); sitd reads the new path MTU back and relays the rest.
 */
static void rx_errqueue(struct rx_worker *w, int fd)
{
	static uint8_t vnet_none[VNET_HDR_LEN];
	struct sitd_tunnel *t = w->t;
	struct sitd_stats *st = &t->rx_stats;

	for (;;) {
		struct iovec iov = { .iov_base = w->errpkt, .iov_len = sizeof(w->errpkt) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = w->cmsg,
				    .msg_controllen = sizeof(w->cmsg) };
		const struct sock_extended_err *ee = NULL;
		struct sitd_err e;
		struct sockaddr_in off;
		size_t len;
		ssize_t n = recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);

		if (n < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR)
				ee = (const struct sock_extended_err *)CMSG_DATA(c);
		if (!ee)
			continue;
		if (ee->ee_origin == SO_EE_ORIGIN_LOCAL) {
			/* Our own send was refused as too big for the device. */
			if (ee->ee_errno == EMSGSIZE)
				path_mtu_refresh(t);
			continue;
		}
		if (ee->ee_origin != SO_EE_ORIGIN_ICMP)
			continue;
		/* SO_EE_OFFENDER(ee), without its cast away of const. */
		memcpy(&off, ee + 1, sizeof(off));
		e.type = ee->ee_type;
		e.code = ee->ee_code;
		e.info = ee->ee_info;
		e.offender = off.sin_family == AF_INET ? rd32((const uint8_t *)&off.sin_addr) : 0;
		e.quoted = w->errpkt;
		e.len = (size_t)n;
		switch (sitd_icmp_err(&t->conf, &e, w->relay, sizeof(w->relay), &len)) {
		case ERR_NOT_OURS:
		case ERR_IGNORE:
			continue;
		case ERR_PMTU:
			STAT_INC(st->err_received);
			STAT_INC(st->err_frag_needed);
			path_mtu_refresh(t);
			continue;
		case ERR_DAMP:
			STAT_INC(st->err_received);
			STAT_INC(st->err_damped);
			damper_note(&t->damper, now_ns());
			continue;
		case ERR_RELAY:
			STAT_INC(st->err_received);
			if (!rl_allow(&w->relay_rl, now_ns())) {
				STAT_INC(st->tx_icmp_ratelimited);
				continue;
			}
			{
				struct iovec out[2] = { { vnet_none, VNET_HDR_LEN }, { w->relay, len } };

				if (writev(t->tun_fd, out, 2) < 0)
					STAT_DROP(st, tun_write_error);
				else
					STAT_INC(st->err_relayed);
			}
			continue;
		}
	}
}

/*
 * `ip link set NAME mtu N` goes straight to the TUN device, which takes 68..65535; the
 * kernel's sit takes 1280..65515 and its ipip 68..65515 (kernel-sit-ipip.md 2.1), so
 * sitd puts a value outside those bounds back inside them.
 */
static void rx_link_mtu(void *arg, unsigned mtu)
{
	struct sitd_tunnel *t = arg;
	unsigned lo = sitd_mtu_min(t->conf.mode), hi = sitd_mtu_max(&t->conf);
	unsigned fixed = mtu < lo ? lo : mtu > hi ? hi : mtu;

	if (fixed != mtu) {
		log_warnx("%s: mtu %u is outside %u..%u for this mode; setting %u", t->conf.name, mtu,
			  lo, hi, fixed);
		if (link_set_mtu(t->conf.name, fixed) < 0)
			log_warn("%s: cannot set mtu %u", t->conf.name, fixed);
		mtu = fixed;
	}
	if (mtu != __atomic_load_n(&t->conf.mtu, __ATOMIC_RELAXED)) {
		__atomic_store_n(&t->conf.mtu, mtu, __ATOMIC_RELAXED);
		log_info("%s: device mtu %u", t->conf.name, mtu);
	}
}

static void *rx_main(void *arg)
{
	struct rx_worker *w = arg;
	struct sitd_tunnel *t = w->t;
	struct pollfd p[2 + 1 + 8 + 1 + 1];
	int np = 0, nraw, nudp;
	uint64_t next_refresh = now_ns();

	p[np++] = (struct pollfd){ .fd = t->stop_fd, .events = POLLIN };
	for (int i = 0; i < 2; i++)
		if (t->raw_fd[i] >= 0)
			p[np++] = (struct pollfd){ .fd = t->raw_fd[i], .events = POLLIN };
	if (t->udp_rx_fd >= 0)
		p[np++] = (struct pollfd){ .fd = t->udp_rx_fd, .events = POLLIN };
	/* Send sockets only ever have errors to read (POLLERR needs no request). */
	for (unsigned i = 0; i < t->n_udp_tx; i++)
		if (t->udp_tx_fd[i] != t->udp_rx_fd)
			p[np++] = (struct pollfd){ .fd = t->udp_tx_fd[i], .events = 0 };
	nraw = np;
	nudp = t->udp_rx_fd >= 0;
	if (w->nl)
		p[np++] = (struct pollfd){ .fd = nl_fd(w->nl), .events = POLLIN };
	while (!stopping(t)) {
		int r = poll(p, (nfds_t)np, PMTU_REFRESH_MS);
		uint64_t now;

		if (r < 0 && errno != EINTR) {
			/* Not expected; keep serving, slowly enough not to spin. */
			struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };

			log_warn("%s: poll", t->conf.name);
			nanosleep(&ts, NULL);
			continue;
		}
		for (int i = 1; r > 0 && i < nraw; i++) {
			if ((p[i].revents & POLLERR) && nudp)
				rx_errqueue_udp(w, p[i].fd);
			else if (p[i].revents & POLLERR)
				rx_errqueue(w, p[i].fd);
			if ((p[i].revents & POLLIN) && nudp)
				rx_batch_udp(w, p[i].fd);
			else if (p[i].revents & POLLIN)
				rx_batch(w, p[i].fd);
		}
		if (r > 0 && np > nraw && (p[nraw].revents & POLLIN))
			nl_link_read(w->nl, t->ifindex, rx_link_mtu, t);
		now = now_ns();
		if (now >= next_refresh) {
			path_mtu_refresh(t);
			next_refresh = now + PMTU_REFRESH_MS * 1000000ull;
		}
	}
	return NULL;
}

int tunnel_start(struct sitd_tunnel *t)
{
	/* Allocated once; the loops allocate nothing. */
	struct tx_worker *tw = calloc(1, sizeof(*tw));
	struct rx_worker *rw = calloc(1, sizeof(*rw));
	uint16_t id;

	if (!tw || !rw) {
		log_warn("%s: out of memory", t->conf.name);
		goto fail;
	}
	tw->t = rw->t = t;
	tw->dst.sin_family = AF_INET;
	tw->dst.sin_port = htons(t->conf.encap_dport);	/* 0 for raw sockets, which ignore it */
	wr32((uint8_t *)&tw->dst.sin_addr, t->conf.remote);
	/* A start for the outer ID that differs between runs, as the kernel's is hashed. */
	id = (uint16_t)(now_ns() ^ (uint64_t)getpid());
	sitd_tx_init(&tw->tx, &t->conf, &t->tx_stats, &t->damper, id);
	sitd_rx_init(&rw->rx, &t->conf, &t->rx_stats);
	sitd_gro_init(&rw->gro, !t->conf.nogro, &t->rx_stats);
	rl_init(&rw->relay_rl, 1000, 50);
	rw->nl = nl_link_open();
	if (!rw->nl)
		log_warn("%s: no link notifications; mtu bounds are not enforced", t->conf.name);

	if (fcntl_nonblock(t->tun_fd) < 0) {
		log_warn("%s: O_NONBLOCK", t->conf.name);
		goto fail;
	}
	errno = pthread_create(&t->tx_thread, NULL, tx_main, tw);
	if (errno) {
		log_warn("%s: pthread_create", t->conf.name);
		goto fail;
	}
	errno = pthread_create(&t->rx_thread, NULL, rx_main, rw);
	if (errno) {
		log_warn("%s: pthread_create", t->conf.name);
		tunnel_wake(t);
		pthread_join(t->tx_thread, NULL);
		goto fail;
	}
	t->tx_worker = tw;
	t->rx_worker = rw;
	return 0;
fail:
	if (rw && rw->nl)
		mnl_socket_close(rw->nl);
	free(tw);
	free(rw);
	tunnel_close_only(t);
	return -1;
}

void tunnel_stop(struct sitd_tunnel *t)
{
	struct rx_worker *rw = t->rx_worker;

	tunnel_wake(t);
	pthread_join(t->tx_thread, NULL);
	pthread_join(t->rx_thread, NULL);
	if (rw->nl)
		mnl_socket_close(rw->nl);
	free(t->tx_worker);
	free(t->rx_worker);
	t->tx_worker = t->rx_worker = NULL;
	tunnel_close_only(t);
}

void tunnel_stats(struct sitd_tunnel *t, struct sitd_stats *s)
{
	memset(s, 0, sizeof(*s));
	sitd_stats_sum(s, &t->tx_stats);
	sitd_stats_sum(s, &t->rx_stats);
}

uint32_t tunnel_path_mtu(struct sitd_tunnel *t)
{
	return path_mtu_get(t);
}

void tunnel_print_stats(struct sitd_tunnel *t)
{
	struct sitd_stats s;

	tunnel_stats(t, &s);
	fprintf(stderr, "sitd: %s: stats\n", t->conf.name);
	fprintf(stderr, "  %-22s %u\n", "path_mtu", path_mtu_get(t));
#define PRINT_CTR(name, desc) fprintf(stderr, "  %-22s %" PRIu64 "\n", #name, s.name);
	SITD_COUNTERS(PRINT_CTR)
#undef PRINT_CTR
	for (int i = 0; i < SITD_DROP_MAX; i++)
		fprintf(stderr, "  drop_%-17s %" PRIu64 "\n", sitd_drop_names[i], s.drop[i]);
	fprintf(stderr, "sitd: %s: end stats\n", t->conf.name);
}
