/* SPDX-License-Identifier: MIT */
#include "internal.h"


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

/* ---- transmit: TUN -> network ---------------------------------------------------- */


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

void *tx_main(void *arg)
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

