/* SPDX-License-Identifier: MIT */
/*
 * Receive, network -> TUN, on the worker that owns an outer path: a batch of outer packets
 * read with one recvmmsg, each looked up once in the path's table (table.h) by outer
 * source, destination and arrival device, decapsulated by the core with its tunnel's
 * settings (rx.c), merged (gro.c) and written to that tunnel's device.  A packet that
 * matches no tunnel is counted once, for the process.  ICMP errors about sitd's outer
 * packets arrive on the same socket's error queue and are handled here too.
 */
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "daemon/internal.h"
#include "os/clock.h"
#include "os/log.h"
#include "core/inet.h"
#include "core/mss.h"
#include "core/sixrd.h"
#include "os/sock.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* Write one GRO output; on a refused merged write, fall back to unmerged for good. */
static void rx_write(struct worker *w, struct tunnel *t, unsigned i)
{
	struct sitd_gro *g = &w->gro;
	struct sitd_gro_item *it = &g->item[i];
	struct sitd_stats *st = &t->rx_stats;
	uint32_t bytes = 0;

	for (unsigned k = 1; k < g->iov_cnt[i]; k++)
		bytes += (uint32_t)g->iov[g->iov_start[i] + k].iov_len;
	if (writev(t->tun_fd, g->iov + g->iov_start[i], (int)g->iov_cnt[i]) >= 0) {
		STAT_ADD(st->rx_packets, it->nseg);
		STAT_ADD(st->rx_bytes, bytes);
		return;
	}
	/* A kernel merge the device refuses with GSO goes up as one long packet. */
	if (errno == EINVAL && sitd_gro_kernel_nogso(g, i) &&
	    writev(t->tun_fd, g->iov + g->iov_start[i], (int)g->iov_cnt[i]) >= 0) {
		STAT_INC(st->rx_packets);
		STAT_ADD(st->rx_bytes, bytes);
		return;
	}
	if (errno != EINVAL || it->nseg == 1) {
		STAT_ADD(st->drop[errno == EIO ? SITD_DROP_tun_down : SITD_DROP_tun_write_error],
			 it->nseg);
		return;
	}
	/* Kernels with e269d79c7d35 and without 89add40066f9 refuse a short last segment. */
	if (!t->gro_off)
		log_warnx("%s: the kernel refused a merged write to TUN; GRO off", t->conf.name);
	t->gro_off = true;
	g->enabled = false;
	sitd_gro_unmerge(g, i);
	STAT_INC(st->rx_gro_fallback);
	for (unsigned s = 0; s < it->nseg; s++) {
		uint8_t vnet[VNET_HDR_LEN];
		struct iovec out[2] = { { vnet, VNET_HDR_LEN },
					{ g->pkt[it->idx[s]].p, g->pkt[it->idx[s]].len } };

		sitd_gro_seg_vnet(g, it->idx[s], vnet);
		if (writev(t->tun_fd, out, 2) < 0) {
			STAT_DROP(st, tun_write_error);
			continue;
		}
		STAT_INC(st->rx_packets);
		STAT_ADD(st->rx_bytes, g->pkt[it->idx[s]].len);
	}
}

/* Write what the GRO batch holds to its tunnel. */
static void gro_flush(struct worker *w)
{
	struct tunnel *t = w->gro_t;

	if (!t)
		return;
	for (unsigned i = 0, k = sitd_gro_finish(&w->gro); i < k; i++)
		rx_write(w, t, i);
	sitd_gro_reset(&w->gro);
	w->gro_t = NULL;
}

/*
 * One decapsulated packet for tunnel t.  Packets of one tunnel that come one after the
 * other are merged; a packet of another tunnel writes the batch out first, so nothing
 * is reordered.  A valid packet from the remote also ends the damper's count.  A packet
 * the kernel merged, with its vnet header's type and size (-R ring), goes up as such.
 */
/*
 * clamp-mss on a decapsulated packet: to N, or to what the tunnel carries back (its
 * device MTU, or the path MTU when smaller), the checksum verified first (mss.h).  A
 * packet the kernel merged (gso_type) is no SYN.
 */
static void rx_clamp(struct tunnel *t, uint8_t *p, uint32_t len)
{
	uint32_t mtu = READ_ONCE(t->conf.mtu), pmtu = path_mtu_get(t), encap = sitd_encap_len(&t->conf);
	struct sitd_ipinfo ii;
	uint16_t mss = t->conf.clamp_mss_n;

	if (!sitd_mss_maybe_syn(p, len) || sitd_ip_parse(p, len, &ii) || ii.l4proto != IPPROTO_TCP)
		return;
	if (!mss) {
		if (pmtu > encap && pmtu - encap < mtu)
			mtu = pmtu - encap;
		mss = sitd_mss_fit(mtu, ii.version);
	}
	if (sitd_mss_clamp(p, ii.len < len ? ii.len : len, &ii, mss, SITD_MSS_CSUM_CHECK))
		STAT_INC(t->rx_stats.rx_mss_clamped);
}

static void rx_push(struct worker *w, struct tunnel *t, uint8_t *p, uint32_t len, uint8_t gso_type,
		    uint16_t gso_size)
{
	damper_clear(&t->damper);
	if (t->ka && keepalive_heard(w, t, p, len))
		return;
	if (t->conf.clamp_mss && !gso_type)
		rx_clamp(t, p, len);
	if (w->gro_t != t) {
		gro_flush(w);
		w->gro_t = t;
		w->gro.enabled = !t->conf.nogro && !t->gro_off;
		w->gro.stats = &t->rx_stats;
		w->gro.mtu = (uint16_t)READ_ONCE(t->conf.mtu);
	}
	if (sitd_gro_add_merged(&w->gro, p, len, gso_type, gso_size))
		return;
	gro_flush(w);
	w->gro_t = t;
	sitd_gro_add_merged(&w->gro, p, len, gso_type, gso_size);
}

/* Set the receive batch up again (recvmmsg writes the lengths back into it). */
static void rx_msgs_init(struct worker *w)
{
	for (int i = 0; i < RX_BATCH; i++) {
		struct msghdr *h = &w->rmsgs[i].msg_hdr;

		w->riovs[i].iov_base = w->bufs[i];
		w->riovs[i].iov_len = RX_BUF;
		memset(h, 0, sizeof(*h));
		h->msg_iov = &w->riovs[i];
		h->msg_iovlen = 1;
		h->msg_name = &w->names[i];
		h->msg_namelen = sizeof(w->names[i]);
		h->msg_control = w->rcmsgs[i].buf;
		h->msg_controllen = sizeof(w->rcmsgs[i].buf);
	}
}

struct rx_meta {
	uint32_t dst;		/* IP_PKTINFO: the address the packet was sent to */
	uint32_t ifindex;	/* ... and the device it came in on */
	uint32_t seg;		/* UDP_GRO: the size of the datagrams coalesced in it */
	uint8_t tos;		/* IP_RECVTOS */
};

/* Walk every cmsg: UDP_GRO may come after IP_TOS (tailscale#17835). */
static void rx_meta(struct msghdr *h, uint32_t total, struct rx_meta *m)
{
	m->dst = m->ifindex = 0;
	m->seg = total;
	m->tos = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			if (v > 0)
				m->seg = (uint32_t)v;
		} else if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_TOS) {
			m->tos = *CMSG_DATA(c);
		} else if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			m->dst = rd32((const uint8_t *)&pi.ipi_addr);
			m->ifindex = (uint32_t)pi.ipi_ifindex;
		}
	}
}

/*
 * remote any (6to4, 6rd): an inner address inside the prefix must embed the outer one
 * (packet_is_spoofed, check_6rd, only_dnatted in net/ipv6/sit.c).  true: let it in.
 */
static bool auto_ok(struct tunnel *t, uint32_t osrc, uint32_t odst, uint8_t *in, uint32_t ilen)
{
	const struct sitd_addrs6 *a = qsbr_read(t->addrs6);
	const struct tunnel_prl *prl = qsbr_read(t->prl);
	struct sitd_auto au = { .rd = qsbr_read(t->rd),
				.prl = prl ? &prl->prl : NULL, .addrs = a ? a->all : NULL,
				.naddrs = a ? a->n : 0, .isatap = t->conf.isatap };
	enum sitd_isatap_node node = SITD_ISATAP_REFUSED;

	if (sitd_conf_has_remote(&t->conf) || ip_version(in) != 6)
		return true;
	switch (sitd_packet_is_spoofed(&au, osrc, odst, in + IP6_SRC, in + IP6_DST, &node)) {
	case SITD_SPOOF_OK:
		break;
	case SITD_SPOOF_SRC:
		STAT_DROP(&t->rx_stats, rx_6rd_spoofed_src);
		return false;
	case SITD_SPOOF_DST:
		STAT_DROP(&t->rx_stats, rx_6rd_spoofed_dst);
		return false;
	case SITD_SPOOF_ISATAP_SRC:
		STAT_DROP(&t->rx_stats, rx_isatap_src);
		return false;
	}
	/*
	 * ISATAP: the kernel tags what came from a PRL router or a host, and its neighbour
	 * discovery ignores a host's router advertisement and redirect and a redirect from
	 * a PRL router without PRL_DEFAULT, and makes no default router of the latter
	 * (ndisc_router_discovery, ndisc_redirect_rcv).  A TUN write carries no tag: sitd
	 * does it here, behind any extension headers (sitd_isatap_nd_check).
	 */
	if (t->conf.isatap) {
		switch (sitd_isatap_nd_check(in, ilen, node)) {
		case SITD_ISATAP_PASS:
			break;
		case SITD_ISATAP_RA_HOST:
			STAT_DROP(&t->rx_stats, rx_isatap_ra_host);
			return false;
		case SITD_ISATAP_ND_HOST:
			STAT_DROP(&t->rx_stats, rx_isatap_nd_host);
			return false;
		case SITD_ISATAP_ND_NODEFAULT:
			STAT_DROP(&t->rx_stats, rx_isatap_nd_nodefault);
			return false;
		}
	}
	return true;
}

/*
 * One outer packet of protocol 41 or 4, its IPv4 header first, in on device ifindex;
 * vh: the kernel's vnet header for it (-R ring), or NULL.
 */
static struct tunnel *rx_ip(struct worker *w, const struct sitd_table *tab, uint8_t *p, uint32_t len,
			    uint32_t ifindex, const struct sitd_vnet_hdr *vh)
{
	uint32_t off, ilen;
	struct tunnel *t;

	if (len < IPV4_HDR_LEN || ip_version(p) != 4) {
		STAT_DROP(&w->stats, rx_truncated);
		return NULL;
	}
	t = sitd_table_lookup(tab, rd32(p + IP4_SRC), rd32(p + IP4_DST), ifindex);
	if (!t) {
		STAT_DROP(&w->stats, rx_no_tunnel);
		return NULL;
	}
	if (sitd_rx_decap(&t->rx, p, len, &off, &ilen) == 0 &&
	    auto_ok(t, rd32(p + IP4_SRC), rd32(p + IP4_DST), p + off, ilen))
		rx_push(w, t, p + off, ilen, vh ? vh->gso_type : VNET_GSO_NONE, vh ? vh->gso_size : 0);
	return t;
}

/* Protocol 41 or 4: the outer header is in the packet, as raw sockets hand it over. */
static void rx_raw(struct worker *w, const struct sitd_table *tab, int n)
{
	for (int i = 0; i < n; i++) {
		struct rx_meta m;

		rx_meta(&w->rmsgs[i].msg_hdr, w->rmsgs[i].msg_len, &m);
		rx_ip(w, tab, w->bufs[i], w->rmsgs[i].msg_len, m.ifindex, NULL);
	}
}

/* An address of this host (its global ones, linkwatch.c), for ip6_tnl_rcv_ctl's check. */
static bool host6_has(const struct sitd_host6 *h, const uint8_t *a)
{
	for (uint32_t k = 0; h && k < h->n; k++)
		if (!memcmp(h->a[k].addr, a, 16))
			return true;
	return false;
}

/*
 * Message i of an IPv6 receive socket (raw6 or UDPv6): its outer facts into ro (the
 * source msg_name's, destination and device IPV6_PKTINFO's, traffic class IPV6_TCLASS's,
 * with seg: UDP_GRO's segment size) and its tunnel in ip6_tnl_lookup's order
 * (sitd_table6); NULL, counted, when it is cut short or no tunnel has it.
 */
static struct tunnel *rx6_lookup(struct worker *w, const struct sitd_host6 *host,
				 const struct sitd_table6 *tab, int i, struct sitd_rx6_outer *ro,
				 uint8_t dst[16], uint32_t *seg)
{
	struct msghdr *h = &w->rmsgs[i].msg_hdr;
	struct tunnel *t;

	if ((h->msg_flags & MSG_TRUNC) || h->msg_namelen < sizeof(struct sockaddr_in6) ||
	    w->names[i].v6.sin6_family != AF_INET6) {
		STAT_DROP(&w->stats, rx_truncated);
		return NULL;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		int v;

		if (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			memcpy(dst, &pi.ipi6_addr, 16);
			ro->ifindex = pi.ipi6_ifindex;
		} else if (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_TCLASS) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			ro->tclass = (uint8_t)v;
		} else if (seg && c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			if (v > 0)
				*seg = (uint32_t)v;
		}
	}
	ro->src = w->names[i].v6.sin6_addr.s6_addr;
	ro->dst = dst;
	ro->src_is_local = host6_has(host, ro->src);
	t = sitd_table6_lookup(tab, ro->src, dst, ro->ifindex);
	if (!t)
		STAT_DROP(&w->stats, rx_no_tunnel);
	return t;
}

/*
 * An IPv6 underlay (ip6tnl): what a raw IPv6 socket of next header `nexthdr` hands over
 * is the inner packet alone; the outer source is msg_name's, the destination and device
 * IPV6_PKTINFO's, the traffic class IPV6_TCLASS's.  Looked up by them in ip6_tnl_lookup's
 * order (sitd_table6), decapsulated as ip6_tnl_rcv does (sitd_rx_decap6).
 */
static void rx_raw6(struct worker *w, const struct sitd_table6 *tab, uint8_t nexthdr, int n)
{
	const struct sitd_host6 *host = qsbr_read(w->d->host6);

	for (int i = 0; i < n; i++) {
		struct sitd_rx6_outer ro = { .nexthdr = nexthdr };
		uint8_t dst[16] = { 0 };
		struct tunnel *t = rx6_lookup(w, host, tab, i, &ro, dst, NULL);
		uint32_t off, ilen;

		if (t && sitd_rx_decap6(&t->rx, &ro, w->bufs[i], w->rmsgs[i].msg_len, &off, &ilen) == 0)
			rx_push(w, t, w->bufs[i] + off, ilen, VNET_GSO_NONE, 0);
	}
}

/*
 * -R ring: the blocks the kernel has handed over, in order, each given back once its
 * packets are written (GRO points into it).  The device is the ring's sockaddr_ll, the
 * destination the header's: the ring's filter took only packets to our tunnels' own
 * addresses (bpf.h).
 */
void rx_ring(struct worker *w, struct outer_ring *r)
{
	const struct sitd_table *tab = qsbr_read(r->o->table);

	for (unsigned b = 0; b < RING_BLOCKS; b++) {
		struct tpacket_block_desc *bd = (void *)(r->map + (size_t)r->next * RING_BLOCK);
		uint8_t *h;

		if (!(load_acquire(bd->hdr.bh1.block_status) & TP_STATUS_USER))
			break;
		h = (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
		for (uint32_t i = 0; i < bd->hdr.bh1.num_pkts; i++) {
			const struct tpacket3_hdr *th = (const void *)h;
			const struct sockaddr_ll *sll =
				(const void *)(h + TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));
			uint32_t skip = th->tp_net - th->tp_mac;
			struct sitd_vnet_hdr vh;
			struct tunnel *t;

			/* tp_snaplen counts from the link header; cut short: as truncated. */
			if (th->tp_snaplen < th->tp_len || th->tp_snaplen < skip) {
				STAT_DROP(&w->stats, rx_truncated);
			} else {
				/* PACKET_VNET_HDR: the kernel's virtio_net_hdr is right before the frame. */
				vnet_hdr_read(&vh, h + th->tp_mac - VNET_HDR_LEN);
				t = rx_ip(w, tab, h + th->tp_net, th->tp_snaplen - skip, (uint32_t)sll->sll_ifindex,
					  &vh);
				if (t)
					STAT_INC(t->rx_stats.rx_ring);
			}
			h += th->tp_next_offset;
		}
		gro_flush(w);
		store_release(bd->hdr.bh1.block_status, TP_STATUS_KERNEL);
		r->next = (r->next + 1) % RING_BLOCKS;
	}
}

/*
 * FOU/GUE: UDP datagrams, each possibly several coalesced by UDP_GRO (the cmsg gives
 * their size), looked up by the UDP packet's source and destination, split and
 * decapsulated.
 */
static void rx_udp(struct worker *w, const struct sitd_table *tab, int n)
{
	for (int i = 0; i < n; i++) {
		struct msghdr *h = &w->rmsgs[i].msg_hdr;
		uint32_t total = w->rmsgs[i].msg_len, src;
		struct rx_meta m;
		struct tunnel *t;

		if (h->msg_flags & MSG_TRUNC) {
			STAT_DROP(&w->stats, rx_truncated);
			continue;
		}
		rx_meta(h, total, &m);
		src = rd32((const uint8_t *)&w->names[i].v4.sin_addr);
		t = sitd_table_lookup(tab, src, m.dst, m.ifindex);
		if (!t) {
			STAT_DROP(&w->stats, rx_no_tunnel);
			continue;
		}
		for (uint32_t off = 0; off < total; off += m.seg) {
			uint32_t dlen = total - off < m.seg ? total - off : m.seg, ioff, ilen;
			uint8_t *d = w->bufs[i] + off;

			if (sitd_rx_decap_udp(&t->rx, m.tos, src, d, dlen, &ioff, &ilen) == 0)
				rx_push(w, t, d + ioff, ilen, 0, 0);
		}
	}
}

/*
 * FOU/GUE over IPv6 (fou6): UDP payloads as rx_udp's, the outer facts as rx_raw6's (the
 * source msg_name's, destination and device IPV6_PKTINFO's, traffic class IPV6_TCLASS's),
 * looked up in ip6_tnl_lookup's order and judged by sitd_rx_decap_udp6.
 */
static void rx_udp6(struct worker *w, const struct sitd_table6 *tab, int n)
{
	const struct sitd_host6 *host = qsbr_read(w->d->host6);

	for (int i = 0; i < n; i++) {
		uint32_t total = w->rmsgs[i].msg_len, seg = total;
		struct sitd_rx6_outer ro = { .nexthdr = IPPROTO_UDP };
		uint8_t dst[16] = { 0 };
		struct tunnel *t = rx6_lookup(w, host, tab, i, &ro, dst, &seg);

		for (uint32_t off = 0; t && off < total; off += seg) {
			uint32_t dlen = total - off < seg ? total - off : seg, ioff, ilen;
			uint8_t *d = w->bufs[i] + off;

			if (sitd_rx_decap_udp6(&t->rx, &ro, d, dlen, &ioff, &ilen) == 0)
				rx_push(w, t, d + ioff, ilen, 0, 0);
		}
	}
}

void rx_outer(struct worker *w, struct outer *o)
{
	/* The table as published now; it stays valid until this worker is quiescent. */
	const struct sitd_table *tab = qsbr_read(o->table);
	const struct sitd_table6 *tab6 = qsbr_read(o->table6);

	for (unsigned b = 0; b < RX_BUDGET; b++) {
		int n;

		rx_msgs_init(w);
		n = recvmmsg(o->fd, w->rmsgs, RX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		if (o->kind == OUTER_UDP)
			rx_udp(w, tab, n);
		else if (o->kind == OUTER_UDP6)
			rx_udp6(w, tab6, n);
		else if (outer_is6(o->kind))
			rx_raw6(w, tab6, o->kind == OUTER_RAW6_41 ? IPPROTO_IPV6 : IPPROTO_IPIP, n);
		else
			rx_raw(w, tab, n);
		gro_flush(w);
		if (n < RX_BATCH)
			break;
	}
}

/*
 * A port's errors: the kernel gives the original destination, not the quoted headers, so
 * every tunnel of the port toward that remote reads its path MTU again.
 */
static void rx_udp_error(struct worker *w, const struct sitd_table *tab,
			 const struct sock_extended_err *ee, uint32_t remote)
{
	if (!errqueue_frag_needed(ee) || !tab)
		return;
	for (uint32_t k = 0; k < tab->n; k++) {
		struct tunnel *t = tab->ent[k].tunnel;

		if (tab->ent[k].remote == remote) {
			STAT_INC(t->rx_stats.err_frag_needed);
			path_mtu_stale(w, t, remote);
		}
	}
}

/* An ICMP error for the inner sender, w->relay[0..len), written to t's device. */
static void relay_write(struct worker *w, struct tunnel *t, size_t len)
{
	static uint8_t vnet_none[VNET_HDR_LEN];	/* never written */
	struct iovec out[2] = { { vnet_none, VNET_HDR_LEN }, { w->relay, len } };
	struct sitd_stats *st = &t->rx_stats;

	if (!rl_allow(&w->relay_rl, now_ns())) {
		STAT_INC(st->tx_icmp_ratelimited);
		return;
	}
	if (writev(t->tun_fd, out, 2) < 0)
		STAT_DROP(st, tun_write_error);
	else
		STAT_INC(st->err_relayed);
}

/*
 * ICMP errors about our outer packets, queued by the kernel (IP_RECVERR).  The kernel
 * has already applied Fragmentation Needed to its route (raw_err() ->
 * ipv4_sk_update_pmtu()); sitd reads the new path MTU back and relays the rest.
 */
static void rx_raw_error(struct worker *w, const struct sitd_table *tab,
			 const struct sock_extended_err *ee, size_t n)
{
	struct sockaddr_in off;
	struct sitd_err e;
	struct sitd_stats *st;
	struct tunnel *t;
	size_t len;

	if (ee->ee_origin != SO_EE_ORIGIN_ICMP || n < IPV4_HDR_LEN || ip_version(w->errpkt) != 4)
		return;
	/* Which tunnel sent it: the quoted outer header, from local to remote. */
	t = sitd_table_lookup(tab, rd32(w->errpkt + IP4_DST), rd32(w->errpkt + IP4_SRC), 0);
	if (!t)
		return;
	st = &t->rx_stats;
	/* SO_EE_OFFENDER(ee), without its cast away of const. */
	memcpy(&off, ee + 1, sizeof(off));
	e.type = ee->ee_type;
	e.code = ee->ee_code;
	e.info = ee->ee_info;
	e.offender = off.sin_family == AF_INET ? rd32((const uint8_t *)&off.sin_addr) : 0;
	e.quoted = w->errpkt;
	e.len = n;
	switch (sitd_icmp_err(&t->conf, &e, w->relay, sizeof(w->relay), &len)) {
	case ERR_NOT_OURS:
	case ERR_IGNORE:
		return;
	case ERR_DECLINED:
		STAT_INC(st->err_received);
		STAT_INC(st->tx_icmp_declined);
		return;
	case ERR_PMTU:
		STAT_INC(st->err_received);
		STAT_INC(st->err_frag_needed);
		/* remote any: the quoted packet's own destination */
		path_mtu_stale(w, t, rd32(w->errpkt + IP4_DST));
		return;
	case ERR_DAMP:
		STAT_INC(st->err_received);
		STAT_INC(st->err_damped);
		damper_note(&t->damper, now_ns());
		return;
	case ERR_RELAY:
		STAT_INC(st->err_received);
		relay_write(w, t, len);
		return;
	}
}

/*
 * An ICMPv6 error about t's outer packet quoted[0..n), judged by sitd_icmp6_err.  learn:
 * no socket of the kernel's took it, so its route knows nothing; sitd keeps the MTU
 * itself (path_ptb6_learn) for path_mtu_refresh to honour.
 */
static enum sitd_err_action err6_judge(struct worker *w, struct tunnel *t, uint8_t type,
				       uint8_t code, uint32_t info, const uint8_t *quoted, size_t n,
				       bool learn)
{
	enum sitd_err_action a;
	struct sitd_err6 e;
	struct sitd_stats *st = &t->rx_stats;
	size_t len = 0;
	uint32_t pmtu = 0;

	e = (struct sitd_err6){ .type = type, .code = code, .info = info,
				.quoted = quoted, .len = n, .dev6 = qsbr_read(t->addrs6),
				.host6 = qsbr_read(w->d->host6),
				/* ICMPv4 from the inner destination, never the device's own
				 * address: written into TUN that is a martian source, which
				 * fib_validate_source drops (doc/kernel.md) */
				.src4 = 0,
				.tnl_mtu = READ_ONCE(t->conf.mtu) };
	switch ((a = sitd_icmp6_err(&t->conf, &e, w->relay, sizeof(w->relay), &len, &pmtu))) {
	case ERR_NOT_OURS:
	case ERR_IGNORE:
		return a;
	case ERR_DECLINED:
		STAT_INC(st->err_received);
		STAT_INC(st->tx_icmp_declined);
		return a;
	case ERR_PMTU:
		STAT_INC(st->err_received);
		STAT_INC(st->err_frag_needed);
		if (learn && pmtu)
			path_ptb6_learn(t, pmtu);
		if (pmtu && pmtu < path_mtu_get(t))
			WRITE_ONCE(t->path_mtu, pmtu);
		path_mtu_stale(w, t, 0);
		if (len)
			relay_write(w, t, len);
		return a;
	case ERR_DAMP:
		STAT_INC(st->err_received);
		STAT_INC(st->err_damped);
		damper_note(&t->damper, now_ns());
		return a;
	case ERR_RELAY:
		STAT_INC(st->err_received);
		relay_write(w, t, len);
		return a;
	}
	return a;
}

/*
 * ICMPv6 errors about our IPv6 outer packets (IPV6_RECVERR), quoted from the outer
 * header on (IPV6_HDRINCL on the receive socket), judged as ip6_tnl_err does.  The kernel
 * has applied Packet Too Big to its route (rawv6_err -> ip6_sk_update_pmtu); sitd takes
 * the MTU at once, reads the route again, and sends the inner sender its own error when
 * the packet it sent did not fit.
 */
static void rx_raw6_error(struct worker *w, const struct sitd_table6 *tab,
			  const struct sock_extended_err *ee, size_t n)
{
	struct tunnel *t;

	if (ee->ee_origin != SO_EE_ORIGIN_ICMP6 || n < IPV6_HDR_LEN || ip_version(w->errpkt) != 6)
		return;
	/* Which tunnel sent it: the quoted outer header, from local to remote. */
	t = sitd_table6_lookup(tab, w->errpkt + IP6_DST, w->errpkt + IP6_SRC, w->err_ifindex);
	if (t)
		err6_judge(w, t, ee->ee_type, ee->ee_code, ee->ee_info, w->errpkt, n, false);
}

/*
 * fou6: an error about a packet sent from the port (encap-sport = encap-dport: the kernel's
 * __udp6_lib_err finds the socket by that source port and has applied Packet Too Big to
 * its route, ip6_sk_update_pmtu).  The quoted headers are not given, so every tunnel of
 * the port reads its own route's path MTU again.
 */
static void rx_udp6_error(struct worker *w, const struct sitd_table6 *tab,
			  const struct sock_extended_err *ee)
{
	bool ptb = (ee->ee_origin == SO_EE_ORIGIN_ICMP6 && ee->ee_type == 2) ||	/* RFC 4443 3.2 */
		   (ee->ee_origin == SO_EE_ORIGIN_LOCAL && ee->ee_errno == EMSGSIZE);

	if (!ptb || !tab)
		return;
	for (uint32_t k = 0; k < tab->n; k++) {
		struct tunnel *t = tab->ent[k].tunnel;

		STAT_INC(t->rx_stats.err_frag_needed);
		path_mtu_stale(w, t, 0);
	}
}

/*
 * fou6 from other ports than encap-dport: a Packet Too Big from the port's ICMPv6 socket
 * (sitd_ptb6_parse), about a packet from one of the port's tunnels, judged as one
 * IPV6_RECVERR gave (ip6_tnl_err): the path MTU learned and the inner sender told from
 * the first error.  Every copy of every other Packet Too Big the host receives comes
 * here too (one socket per port), each counted as a drop of the worker's.
 */
void rx_ptb6(struct worker *w, struct outer *o)
{
	const struct sitd_table6 *tab = qsbr_read(o->table6);

	for (unsigned b = 0; b < RX_BUDGET; b++) {
		int n;

		rx_msgs_init(w);
		n = recvmmsg(o->ptb_fd, w->rmsgs, RX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (int i = 0; i < n; i++) {
			struct sitd_ptb6 p;
			struct tunnel *t;
			int why = sitd_ptb6_parse(w->bufs[i], w->rmsgs[i].msg_len, &p);

			if (why) {
				STAT_INC(w->stats.drop[why]);
				continue;
			}
			if (p.dport != o->port) {
				STAT_DROP(&w->stats, ptb6_wrong_port);
				continue;
			}
			t = tab ? sitd_table6_lookup(tab, p.quoted + IP6_DST, p.quoted + IP6_SRC, 0) : NULL;
			if (!t) {
				STAT_DROP(&w->stats, ptb6_no_tunnel);
				continue;
			}
			/* The addresses are a tunnel's, but not its mode's or port's packet. */
			if (err6_judge(w, t, ICMP6_PACKET_TOO_BIG, 0, p.mtu, p.quoted, p.len, true) ==
			    ERR_NOT_OURS)
				STAT_DROP(&w->stats, ptb6_no_tunnel);
		}
		if (n < RX_BATCH)
			return;
	}
}

void rx_outer_errors(struct worker *w, struct outer *o)
{
	const struct sitd_table *tab = qsbr_read(o->table);
	const struct sitd_table6 *tab6 = qsbr_read(o->table6);

	for (;;) {
		struct sockaddr_in to = { 0 };
		size_t n;
		const struct sock_extended_err *ee =
			errqueue_read(w, o->fd, &n, outer_is6(o->kind) ? NULL : &to);

		if (!ee)
			return;
		if (o->kind == OUTER_UDP6)
			rx_udp6_error(w, tab6, ee);
		else if (outer_is6(o->kind))
			rx_raw6_error(w, tab6, ee, n);
		else if (o->kind == OUTER_UDP)
			rx_udp_error(w, tab, ee, rd32((const uint8_t *)&to.sin_addr));
		else
			rx_raw_error(w, tab, ee, n);
	}
}
