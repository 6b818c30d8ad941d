/* SPDX-License-Identifier: MIT */
#include "core/gro.h"

#include <string.h>

#include "core/csum.h"
#include "core/inet.h"

void sitd_gro_init(struct sitd_gro *g, bool enabled, struct sitd_stats *stats)
{
	g->enabled = enabled;
	g->mtu = 0;	/* not known: IPv6's minimum is assumed */
	g->stats = stats;
	sitd_gro_reset(g);
}

/*
 * What both TCP rules below read, once per packet: IPv4 without options or IPv6 with TCP
 * right after it, not a fragment, a whole TCP header; and the pseudo-header sum over the
 * TCP length.  false when the packet is not such a TCP packet.
 */
struct tcp_facts {
	unsigned version, l3len, thlen;
	uint32_t psum;
	bool partial;	/* the field holds the pseudo-header sum: CHECKSUM_PARTIAL's form */
};

static bool tcp_facts(const uint8_t *p, uint32_t len, struct tcp_facts *f)
{
	if (len < IPV4_HDR_LEN + TCP_HDR_LEN)
		return false;
	if (ip_version(p) == 4) {
		if (p[IP4_VIHL] != 0x45 || p[IP4_PROTO] != IPPROTO_TCP ||
		    (rd16(p + IP4_FRAG) & (IP4_MF | IP4_OFFMASK)))
			return false;
		f->l3len = IPV4_HDR_LEN;
	} else if (ip_version(p) == 6) {
		if (p[IP6_NXT] != IPPROTO_TCP || len < IPV6_HDR_LEN + TCP_HDR_LEN)
			return false;
		f->l3len = IPV6_HDR_LEN;
	} else {
		return false;
	}
	f->version = ip_version(p);
	f->psum = csum_pseudo_ip(p, IPPROTO_TCP, len - f->l3len);
	f->thlen = (p[f->l3len + TCP_OFF] >> 4) * 4u;
	f->partial = csum_ld16(p + f->l3len + TCP_CSUM) == csum_fold(f->psum);
	return f->thlen >= TCP_HDR_LEN && f->l3len + f->thlen <= len;
}

/* The TCP checksum of a whole segment, pseudo-header included, folds to 0xffff. */
static bool tcp_csum_ok(const uint8_t *p, uint32_t len, const struct tcp_facts *f)
{
	return csum_fold(csum_partial(p + f->l3len, len - f->l3len, f->psum)) == 0xffff;
}

/*
 * Fill the item's header facts when pkt may merge; false when it goes up alone.  A
 * partial checksum is not read: whether the field holds the pseudo-header sum by chance
 * (and the checksum is right) or as CHECKSUM_PARTIAL (and the device was to finish it),
 * a merge's checksum is finished from its bytes (gro_fix_head), as one alone's is.
 */
static bool gro_candidate(struct sitd_gro *g, struct sitd_gro_item *it, const uint8_t *p, uint32_t len,
			  const struct tcp_facts *f)
{
	/* A head with a bad header checksum would be rewritten into a good one. */
	if (f->version == 4 && csum_fold(csum_partial(p, IPV4_HDR_LEN, 0)) != 0xffff)
		return false;
	if (f->l3len + f->thlen >= len || (p[f->l3len + TCP_FLAGS] & ~TCP_PSH) != TCP_ACKF)
		return false;
	if (!f->partial && !tcp_csum_ok(p, len, f)) {
		STAT_INC(g->stats->rx_csum_bad);
		return false;
	}
	it->version = (uint8_t)f->version;
	it->l3len = (uint16_t)f->l3len;
	it->hdrlen = (uint16_t)(f->l3len + f->thlen);
	it->last_id = f->version == 4 ? rd16(p + IP4_ID) : 0;
	return true;
}

/* The tunnel's MTU; not known: IPv6's minimum. */
static unsigned tunnel_mtu(const struct sitd_gro *g)
{
	return g->mtu ? g->mtu : IPV6_MIN_MTU;
}

/* The payload of one segment of the tunnel's MTU after these headers; 0: none fits. */
static unsigned tunnel_seg(const struct sitd_gro *g, unsigned hdrlen)
{
	return tunnel_mtu(g) > hdrlen ? tunnel_mtu(g) - hdrlen : 0;
}

/*
 * A TCP packet whose checksum field holds the pseudo-header sum over its length (gro.h)
 * that goes up alone: one the receiving kernel's GRO merged, as tcp4/tcp6_gro_complete()
 * leave it, after the kernel verified each segment; or a single segment that does not
 * merge.  Fills the item's vnet header: NEEDS_CSUM, and GSO when it is longer than one
 * segment of the tunnel's MTU (CWR: GSO_ECN, as tcp_gro_complete() sets
 * SKB_GSO_TCP_ECN).  A packet whose checksum is right and holds that value by chance
 * (one in 65536) is delivered intact all the same: the sum finished over its bytes is
 * the checksum it has.
 */
static void partial_alone(const struct sitd_gro *g, struct sitd_gro_item *it, const uint8_t *p,
			  uint32_t len, const struct tcp_facts *f)
{
	struct sitd_vnet_hdr vh = { .flags = VNET_F_NEEDS_CSUM, .csum_offset = TCP_CSUM };
	unsigned hdrlen = f->l3len + f->thlen, seg = tunnel_seg(g, hdrlen);

	it->version = (uint8_t)f->version;
	it->l3len = (uint16_t)f->l3len;
	it->hdrlen = (uint16_t)hdrlen;
	it->total = len;
	vh.csum_start = it->l3len;
	if (seg && len - hdrlen > seg) {
		vh.gso_type = f->version == 4 ? VNET_GSO_TCPV4 : VNET_GSO_TCPV6;
		if (p[f->l3len + TCP_FLAGS] & TCP_CWR)
			vh.gso_type |= VNET_GSO_ECN;
		vh.gso_size = (uint16_t)seg;
		vh.hdr_len = it->hdrlen;
	}
	it->gso_size = vh.gso_size;
	vnet_hdr_write(it->vnet, &vh);
}

/*
 * UDP whose checksum field holds only the pseudo-header sum (CHECKSUM_PARTIAL), its full
 * checksum wrong: a datagram from a kernel whose device was to finish the sum (veth
 * passes such packets on unfinished), or datagrams the receiving device's GRO merged for
 * a socket with UDP_GRO (udp_gro_receive_segment, udp4/udp6_gro_complete).  One that
 * fits the tunnel's MTU goes up alone with NEEDS_CSUM.  A longer one is a merge whose
 * datagram sizes a raw socket does not give, and which cannot be split again: dropped as
 * rx_gro_udp (B's stack would drop it for its checksum).  1: it is such a packet, and
 * the item is filled or (0 returned in *keep) the packet dropped; 0: it is not.
 */
static int udp_partial(const struct sitd_gro *g, struct sitd_gro_item *it, const uint8_t *p,
		       uint32_t len, bool *keep)
{
	struct sitd_vnet_hdr vh = { .flags = VNET_F_NEEDS_CSUM, .csum_offset = 6 };
	struct sitd_ipinfo ii;
	uint32_t l4, sum;

	/* Per packet: only UDP right after the IP header is parsed further. */
	if (len < IPV4_HDR_LEN + UDP_HDR_LEN || p[ip_version(p) == 4 ? IP4_PROTO : IP6_NXT] != IPPROTO_UDP ||
	    sitd_ip_parse(p, len, &ii) || ii.l4proto != IPPROTO_UDP || ii.fragment || ii.len != len)
		return 0;
	l4 = len - ii.l3len;
	if (l4 < UDP_HDR_LEN || !csum_ld16(p + ii.l3len + 6))
		return 0;
	sum = csum_pseudo_ip(p, IPPROTO_UDP, l4);
	if (csum_ld16(p + ii.l3len + 6) != csum_fold(sum) ||
	    csum_fold(csum_partial(p + ii.l3len, l4, sum)) == 0xffff)
		return 0;
	*keep = len <= tunnel_mtu(g);
	if (!*keep)
		return 1;
	it->version = (uint8_t)ii.version;
	it->l3len = (uint16_t)ii.l3len;
	it->hdrlen = (uint16_t)(ii.l3len + UDP_HDR_LEN);
	it->total = len;
	it->gso_size = 0;
	vh.csum_start = (uint16_t)ii.l3len;
	vnet_hdr_write(it->vnet, &vh);
	return 1;
}

/* Drop a kernel-merged item's GSO, keeping NEEDS_CSUM; false when it has none. */
bool sitd_gro_kernel_nogso(struct sitd_gro *g, unsigned i)
{
	struct sitd_gro_item *it = &g->item[i];
	struct sitd_vnet_hdr vh;

	if (!it->kernel || !it->gso_size)
		return false;
	vnet_hdr_read(&vh, it->vnet);
	vh.gso_type = VNET_GSO_NONE;
	vh.gso_size = vh.hdr_len = 0;
	it->gso_size = 0;
	vnet_hdr_write(it->vnet, &vh);
	return true;
}

/*
 * For a TCP packet that will not merge: where its ports are, so that later segments of
 * its flow do not jump over it into an older item.  0 when it is not TCP (or its ports
 * are not in this packet).
 */
static uint16_t tcp_l3len(const uint8_t *p, uint32_t len)
{
	struct sitd_ipinfo ii;

	if (sitd_ip_parse(p, len, &ii) || ii.l4proto != IPPROTO_TCP || ii.later_fragment ||
	    ii.l3len + 4 > len)
		return 0;
	return (uint16_t)ii.l3len;
}

/* Same addresses and ports (the ack number is checked for merging, not for order). */
static bool same_flow(const uint8_t *h, const struct sitd_gro_item *it, const uint8_t *p,
		      const struct sitd_gro_item *n)
{
	unsigned a = it->version == 4 ? IP4_SRC : IP6_SRC, alen = it->version == 4 ? 8 : 32;

	return it->version == n->version && !memcmp(h + a, p + a, alen) &&
	       !memcmp(h + it->l3len, p + n->l3len, 4);
}

/* Can segment p (facts in n) go after item it? */
static bool gro_fits(const struct sitd_gro *g, const struct sitd_gro_item *it,
		     const struct sitd_gro_item *n, const uint8_t *p, uint32_t len)
{
	const uint8_t *h = g->pkt[it->idx[0]].p;
	uint32_t payload = len - n->hdrlen;

	if (it->closed || it->hdrlen != n->hdrlen || it->nseg >= GRO_MAX_SEGS ||
	    payload > it->gso_size || it->total + payload > IP_MAX_LEN)
		return false;
	if (!same_flow(h, it, p, n) || memcmp(h + it->l3len + TCP_ACK, p + n->l3len + TCP_ACK, 4))
		return false;
	if (rd32(p + n->l3len + TCP_SEQ) != it->next_seq)
		return false;
	/* Same options, byte for byte (timestamps included). */
	if (memcmp(h + it->l3len + TCP_HDR_LEN, p + n->l3len + TCP_HDR_LEN,
		   it->hdrlen - it->l3len - TCP_HDR_LEN))
		return false;
	if (it->version == 4) {
		uint16_t frag = rd16(p + IP4_FRAG);

		if (h[IP4_TOS] != p[IP4_TOS] || h[IP4_TTL] != p[IP4_TTL] || rd16(h + IP4_FRAG) != frag)
			return false;
		/* RFC 6864: the ID means nothing when DF is set; otherwise it must count up. */
		if (!(frag & IP4_DF) && n->last_id != (uint16_t)(it->last_id + 1))
			return false;
	} else if (memcmp(h, p, 4) || h[IP6_HLIM] != p[IP6_HLIM]) {
		return false;
	}
	return true;
}

/* Item it (the next one) is batch packet idx alone, its vnet header already written. */
static void alone(struct sitd_gro *g, struct sitd_gro_item *it, uint8_t idx)
{
	g->nitem++;
	it->idx[0] = idx;
	it->nseg = 1;
	it->candidate = false;
	it->closed = it->kernel = true;
}

bool sitd_gro_add_merged(struct sitd_gro *g, uint8_t *p, uint32_t len, uint8_t gso_type, uint16_t gso_size)
{
	struct sitd_vnet_hdr vh = { .flags = VNET_F_NEEDS_CSUM };
	uint8_t type = gso_type & (uint8_t)~VNET_GSO_ECN;
	struct sitd_gro_item *it;
	struct sitd_ipinfo ii;
	unsigned l4hdr;
	uint8_t *l4;

	if (!gso_size)
		return sitd_gro_add(g, p, len);
	if (g->npkt == GRO_BATCH)
		return false;
	if (sitd_ip_parse(p, len, &ii) || ii.fragment || ii.len != len ||
	    !(type == (ii.version == 4 ? VNET_GSO_TCPV4 : VNET_GSO_TCPV6) ? ii.l4proto == IPPROTO_TCP
	      : type == VNET_GSO_UDP_L4 && ii.l4proto == IPPROTO_UDP))
		return sitd_gro_add(g, p, len);
	l4 = p + ii.l3len;
	l4hdr = ii.l4proto == IPPROTO_TCP ? (len >= ii.l3len + TCP_HDR_LEN ? (l4[TCP_OFF] >> 4) * 4u : 0)
					  : UDP_HDR_LEN;
	if (l4hdr < (ii.l4proto == IPPROTO_TCP ? TCP_HDR_LEN : UDP_HDR_LEN) || ii.l3len + l4hdr > len)
		return sitd_gro_add(g, p, len);
	if (ii.l4proto == IPPROTO_UDP && !csum_ld16(l4 + 6)) {
		/* Without a UDP checksum (IPv4): the segments get one, from the pseudo-header. */
		csum_st16(l4 + 6, csum_fold(csum_pseudo_ip(p, IPPROTO_UDP, len - ii.l3len)));
	}
	vh.csum_start = (uint16_t)ii.l3len;
	vh.csum_offset = ii.l4proto == IPPROTO_TCP ? TCP_CSUM : 6;
	if (len - ii.l3len - l4hdr > gso_size) {
		vh.gso_type = ii.l4proto == IPPROTO_TCP ? gso_type : VNET_GSO_UDP_L4;
		vh.gso_size = gso_size;
		vh.hdr_len = (uint16_t)(ii.l3len + l4hdr);
	}
	it = &g->item[g->nitem];
	g->pkt[g->npkt].p = p;
	g->pkt[g->npkt].len = len;
	g->pkt[g->npkt].csum_start = 0;
	alone(g, it, (uint8_t)g->npkt++);
	it->version = (uint8_t)ii.version;
	it->l3len = (uint16_t)ii.l3len;
	it->hdrlen = (uint16_t)(ii.l3len + l4hdr);
	it->total = len;
	it->gso_size = vh.gso_size;
	vnet_hdr_write(it->vnet, &vh);
	STAT_INC(g->stats->rx_gro_kernel);
	return true;
}

bool sitd_gro_add(struct sitd_gro *g, uint8_t *p, uint32_t len)
{
	struct sitd_gro_item n, *it;
	struct tcp_facts f;
	bool keep, tcp;
	uint8_t idx;

	if (g->npkt == GRO_BATCH)
		return false;
	idx = (uint8_t)g->npkt++;
	g->pkt[idx].p = p;
	g->pkt[idx].len = len;
	g->pkt[idx].csum_start = 0;

	it = &g->item[g->nitem];
	if (udp_partial(g, it, p, len, &keep)) {
		if (!keep) {	/* its slot stays taken, with no item */
			STAT_DROP(g->stats, rx_gro_udp);
			return true;
		}
		alone(g, it, idx);
		return true;
	}
	tcp = tcp_facts(p, len, &f);
	if (tcp && f.partial) {
		/* One segment may merge; a longer one is the receiving device's merge. */
		bool one = len - f.l3len - f.thlen <= tunnel_seg(g, f.l3len + f.thlen);

		g->pkt[idx].csum_start = (uint16_t)f.l3len;
		if (one)
			STAT_INC(g->stats->rx_csum_partial);
		else
			STAT_INC(g->stats->rx_gro_kernel);
		n.candidate = one && g->enabled && gro_candidate(g, &n, p, len, &f);
		if (!n.candidate) {
			partial_alone(g, it, p, len, &f);
			alone(g, it, idx);
			return true;
		}
	} else {
		n.candidate = g->enabled && tcp && gro_candidate(g, &n, p, len, &f);
	}
	if (n.candidate) {
		/* Only the newest item of a flow may grow: never reorder within a flow. */
		for (unsigned i = g->nitem; i-- > 0;) {
			it = &g->item[i];
			if (!it->candidate) {
				/* A packet of this flow that went up alone: nothing may pass it. */
				if (it->l3len && same_flow(g->pkt[it->idx[0]].p, it, p, &n))
					break;
				continue;
			}
			if (gro_fits(g, it, &n, p, len)) {
				uint32_t payload = len - n.hdrlen;

				it->idx[it->nseg++] = idx;
				it->next_seq += payload;
				it->total += payload;
				it->last_id = n.last_id;
				if (payload < it->gso_size)
					it->closed = true;
				if (p[n.l3len + TCP_FLAGS] & TCP_PSH)
					it->closed = it->psh = true;
				STAT_INC(g->stats->rx_gro_merged);
				return true;
			}
			/* The same flow's newest item did not fit: start a new one after it. */
			if (same_flow(g->pkt[it->idx[0]].p, it, p, &n))
				break;
		}
	}
	it = &g->item[g->nitem++];
	it->idx[0] = idx;
	it->nseg = 1;
	it->candidate = n.candidate;
	it->closed = true;
	it->kernel = false;
	if (!n.candidate) {
		it->l3len = g->enabled ? tcp_l3len(p, len) : 0;
		it->version = (uint8_t)ip_version(p);
	} else {
		uint32_t payload = len - n.hdrlen;

		it->version = n.version;
		it->l3len = n.l3len;
		it->hdrlen = n.hdrlen;
		it->last_id = n.last_id;
		it->gso_size = (uint16_t)payload;
		it->next_seq = rd32(p + n.l3len + TCP_SEQ) + payload;
		it->total = len;
		it->psh = p[n.l3len + TCP_FLAGS] & TCP_PSH;
		it->closed = it->psh;
	}
	return true;
}

/* Rewrite the head of a merged item as the super-packet's headers (CHECKSUM_PARTIAL). */
static void gro_fix_head(struct sitd_gro_item *it, uint8_t *h)
{
	struct sitd_vnet_hdr vh = {
		.flags = VNET_F_NEEDS_CSUM,
		.gso_type = it->version == 4 ? VNET_GSO_TCPV4 : VNET_GSO_TCPV6,
		.hdr_len = it->hdrlen,
		.gso_size = it->gso_size,
		.csum_start = it->l3len,
		.csum_offset = TCP_CSUM,
	};
	uint8_t *th = h + it->l3len;
	uint32_t l4 = it->total - it->l3len, sum;

	memcpy(it->orig, h, it->hdrlen);
	if (it->version == 4) {
		wr16(h + IP4_TOTLEN, (uint16_t)it->total);
		ip4_hdr_csum_set(h, IPV4_HDR_LEN);
		sum = csum_pseudo4(h + IP4_SRC, h + IP4_DST, IPPROTO_TCP, l4);
	} else {
		wr16(h + IP6_PLEN, (uint16_t)(it->total - IPV6_HDR_LEN));
		sum = csum_pseudo6(h + IP6_SRC, h + IP6_DST, IPPROTO_TCP, l4);
	}
	if (it->psh)
		th[TCP_FLAGS] |= TCP_PSH;
	/* The kernel finishes the sum from csum_start; the field holds the pseudo-header. */
	csum_st16(th + TCP_CSUM, csum_fold(sum));
	vnet_hdr_write(it->vnet, &vh);
}

unsigned sitd_gro_finish(struct sitd_gro *g)
{
	unsigned k = 0;

	for (unsigned i = 0; i < g->nitem; i++) {
		struct sitd_gro_item *it = &g->item[i];
		uint8_t *h = g->pkt[it->idx[0]].p;

		g->iov_start[i] = k;
		g->iov[k].iov_base = it->vnet;
		g->iov[k++].iov_len = VNET_HDR_LEN;
		g->iov[k].iov_base = h;
		g->iov[k++].iov_len = g->pkt[it->idx[0]].len;
		if (it->nseg > 1) {
			gro_fix_head(it, h);
			for (unsigned s = 1; s < it->nseg; s++) {
				uint8_t *p = g->pkt[it->idx[s]].p;

				g->iov[k].iov_base = p + it->hdrlen;
				g->iov[k++].iov_len = g->pkt[it->idx[s]].len - it->hdrlen;
			}
			STAT_INC(g->stats->rx_gro_packets);
		} else if (!it->kernel) {	/* a kernel merge has its header already */
			sitd_gro_seg_vnet(g, it->idx[0], it->vnet);
			/* Verified above: spare the kernel a second pass over the bytes. */
			if (it->candidate && !g->pkt[it->idx[0]].csum_start)
				it->vnet[0] = VNET_F_DATA_VALID;
		}
		g->iov_cnt[i] = k - g->iov_start[i];
	}
	return g->nitem;
}

void sitd_gro_seg_vnet(const struct sitd_gro *g, unsigned idx, uint8_t vnet[VNET_HDR_LEN])
{
	struct sitd_vnet_hdr vh = { 0 };

	if (g->pkt[idx].csum_start) {
		vh.flags = VNET_F_NEEDS_CSUM;
		vh.csum_start = g->pkt[idx].csum_start;
		vh.csum_offset = TCP_CSUM;
	}
	vnet_hdr_write(vnet, &vh);
}

void sitd_gro_unmerge(struct sitd_gro *g, unsigned i)
{
	struct sitd_gro_item *it = &g->item[i];

	if (it->nseg > 1)
		memcpy(g->pkt[it->idx[0]].p, it->orig, it->hdrlen);
}
