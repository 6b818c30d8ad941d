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

/* ---- receive: network -> TUN ----------------------------------------------------- */


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

void *rx_main(void *arg)
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

