/* SPDX-License-Identifier: MIT */
#include "core/sixrd.h"

#include "core/csum.h"

#include <errno.h>
#include <string.h>

#include "core/inet.h"
#include "core/wire.h"

enum { ICMP6_HDR_LEN = 8 };	/* struct icmp6hdr: type, code, checksum, 4 bytes */

/* ---- 6rd parameters ---- */

void sitd_6rd_reset(struct sitd_6rd *r)
{
	/* ipip6_tunnel_clone_6rd(): 2002::/16 and no relay prefix, i.e. plain 6to4. */
	memset(r, 0, sizeof(*r));
	r->prefix[0] = 0x20;
	r->prefix[1] = 0x02;
	r->prefixlen = 16;
}

/* The address a with every bit from plen on cleared (ipv6_addr_prefix). */
static void ip6_mask(uint8_t out[16], const uint8_t a[16], unsigned plen)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = plen > 8 * i ? plen - 8 * i : 0;

		out[i] = bits >= 8 ? a[i] : (uint8_t)(a[i] & (0xff00u >> bits));
	}
}

static uint32_t ip4_mask(unsigned plen)
{
	return plen ? 0xffffffffu << (32 - plen) : 0;
}

int sitd_6rd_set(struct sitd_6rd *r, const uint8_t prefix[16], unsigned prefixlen,
		 uint32_t relay_prefix, unsigned relay_prefixlen)
{
	uint8_t masked[16];

	/* ipip6_tunnel_update_6rd(): the delegated prefix must fit in the first 64 bits. */
	if (relay_prefixlen > 32)
		return SITD_6RD_ERELAYLEN;
	if (prefixlen + (32 - relay_prefixlen) > 64)
		return SITD_6RD_ELEN;
	/* It masks and compares: a prefix with host bits is refused, not corrected. */
	ip6_mask(masked, prefix, prefixlen);
	if (memcmp(masked, prefix, 16))
		return SITD_6RD_EPREFIX;
	if ((relay_prefix & ip4_mask(relay_prefixlen)) != relay_prefix)
		return SITD_6RD_ERELAY;
	memcpy(r->prefix, masked, 16);
	r->prefixlen = (uint8_t)prefixlen;
	r->relay_prefix = relay_prefix;
	r->relay_prefixlen = (uint8_t)relay_prefixlen;
	return SITD_6RD_OK;
}

const char *sitd_6rd_strerror(int err)
{
	switch (err) {
	case SITD_6RD_OK:
		return "ok";
	case SITD_6RD_ERELAYLEN:
		return "6rd relay prefix length above 32";
	case SITD_6RD_ELEN:
		return "6rd prefix length + 32 - relay prefix length above 64";
	case SITD_6RD_EPREFIX:
		return "6rd prefix has bits set beyond its length";
	case SITD_6RD_ERELAY:
		return "6rd relay prefix has bits set beyond its length";
	default:
		return "unknown 6rd error";
	}
}

unsigned sitd_6rd_delegated_len(const struct sitd_6rd *r)
{
	return r->prefixlen + 32u - r->relay_prefixlen;
}

/* The n <= 32 bits of a starting at bit off (off + n <= 128), right-aligned. */
static uint32_t ip6_bits(const uint8_t a[16], unsigned off, unsigned n)
{
	uint64_t w = 0;

	if (n == 0)
		return 0;
	/* A 64-bit window from the byte holding bit off; off + n <= 128 keeps it inside. */
	for (unsigned i = 0; i < 8; i++) {
		unsigned b = off / 8 + i;

		w = w << 8 | (b < 16 ? a[b] : 0);
	}
	w <<= off % 8;
	return (uint32_t)(w >> (64 - n));
}

/* Write the low n <= 32 bits of v into a at bit off, leaving the other bits as they are. */
static void ip6_put_bits(uint8_t a[16], unsigned off, unsigned n, uint32_t v)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned bit = off + i;
		unsigned val = (v >> (n - 1 - i)) & 1;
		uint8_t m = (uint8_t)(0x80u >> (bit % 8));

		a[bit / 8] = (uint8_t)(val ? a[bit / 8] | m : a[bit / 8] & ~m);
	}
}

static bool rd_valid(const struct sitd_6rd *r)
{
	return r->relay_prefixlen <= 32 && sitd_6rd_delegated_len(r) <= 64;
}

bool sitd_6rd_v4(const struct sitd_6rd *r, const uint8_t v6[16], uint32_t *v4)
{
	unsigned n;

	/* check_6rd(): inside the 6rd prefix (with prefixlen 0, everything is). */
	if (!rd_valid(r) || !sitd_ip6_prefix_equal(v6, r->prefix, r->prefixlen))
		return false;
	/*
	 * RFC 5969 4: the bits after the prefix are the CE's IPv4 address without its first
	 * relay_prefixlen bits, which the relay prefix supplies.  The kernel reads them with
	 * a shift over two 32-bit words; a 64-bit window does the same for any offset.
	 */
	n = 32u - r->relay_prefixlen;
	*v4 = r->relay_prefix | ip6_bits(v6, r->prefixlen, n);
	return true;
}

uint32_t sitd_6rd_dst(const struct sitd_6rd *r, const uint8_t v6[16])
{
	uint32_t v4 = 0;

	/* try_6rd(): 0 means "no 6rd destination", so an embedded 0.0.0.0 is none too. */
	if (!sitd_6rd_v4(r, v6, &v4))
		return 0;
	return v4;
}

unsigned sitd_6rd_delegated(const struct sitd_6rd *r, uint32_t v4, uint8_t out[16])
{
	unsigned n = 32u - r->relay_prefixlen;

	memset(out, 0, 16);
	if (!rd_valid(r))
		return 0;
	ip6_mask(out, r->prefix, r->prefixlen);
	ip6_put_bits(out, r->prefixlen, n, n == 32 ? v4 : v4 & ((1u << n) - 1));
	return r->prefixlen + n;
}

/* ---- Addresses ---- */

bool sitd_ip6_prefix_equal(const uint8_t a[16], const uint8_t b[16], unsigned plen)
{
	unsigned whole = plen / 8, rest = plen % 8;

	if (plen > 128)
		return false;
	if (memcmp(a, b, whole))
		return false;
	return rest == 0 || ((a[whole] ^ b[whole]) & (0xff00u >> rest)) == 0;
}

bool sitd_ip6_is_isatap(const uint8_t a[16])
{
	/* ipv6_addr_is_isatap(): bits 64..95 are 0000:5efe, the u/l bit (0x02) ignored. */
	return (a[8] | 0x02) == 0x02 && a[9] == 0 && a[10] == 0x5e && a[11] == 0xfe;
}

void sitd_isatap_addr(const uint8_t prefix64[8], uint32_t v4, bool global, uint8_t out[16])
{
	/* RFC 5214 6.1: [64-bit prefix][0200:5efe when v4 is global, else 0000:5efe][v4]. */
	memcpy(out, prefix64, 8);
	out[8] = global ? 0x02 : 0x00;
	out[9] = 0;
	out[10] = 0x5e;
	out[11] = 0xfe;
	wr32(out + 12, v4);
}

static bool zero(const uint8_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i])
			return false;
	return true;
}

bool sitd_ip6_is_v4compat(const uint8_t a[16])
{
	/* __ipv6_addr_type(): ::/96 other than :: (any) and ::1 (loopback). */
	return zero(a, 12) && rd32(a + 12) > 1;
}

bool sitd_ip6_is_unicast(const uint8_t a[16])
{
	/* __ipv6_addr_type() flags everything unicast but ff00::/8, :: and ::ffff:0:0/96. */
	if (a[0] == 0xff)
		return false;
	if (zero(a, 16))
		return false;
	if (zero(a, 10) && a[10] == 0xff && a[11] == 0xff)
		return false;
	return true;
}

/* ---- PRL ---- */

void sitd_prl_init(struct sitd_prl *p, struct sitd_prl_entry *storage, uint32_t cap)
{
	p->e = storage;
	p->n = 0;
	p->cap = storage ? cap : 0;
}

static int prl_index(const struct sitd_prl *p, uint32_t addr)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->e[i].addr == addr)
			return (int)i;
	return -1;
}

int sitd_prl_add(struct sitd_prl *p, uint32_t addr, uint16_t flags, bool chg)
{
	int i;

	/* ipip6_tunnel_add_prl(). */
	if (addr == 0)
		return -EINVAL;
	i = prl_index(p, addr);
	if (i >= 0) {
		if (!chg)
			return -EEXIST;
		p->e[i].flags = flags;
		return 0;
	}
	if (chg)
		return -ENXIO;
	if (p->n >= p->cap)
		return -ENOBUFS;
	p->e[p->n].addr = addr;
	p->e[p->n].flags = flags;
	p->n++;
	return 0;
}

int sitd_prl_del(struct sitd_prl *p, uint32_t addr)
{
	int i;

	/* ipip6_tunnel_del_prl(): INADDR_ANY flushes. */
	if (addr == 0) {
		p->n = 0;
		return 0;
	}
	i = prl_index(p, addr);
	if (i < 0)
		return -ENXIO;
	memmove(&p->e[i], &p->e[i + 1], (p->n - (uint32_t)i - 1) * sizeof(p->e[0]));
	p->n--;
	return 0;
}

const struct sitd_prl_entry *sitd_prl_find(const struct sitd_prl *p, uint32_t addr)
{
	int i;

	if (!p)
		return NULL;
	i = prl_index(p, addr);
	return i < 0 ? NULL : &p->e[i];
}

uint32_t sitd_prl_get(const struct sitd_prl *p, uint32_t addr, struct sitd_prl_entry *out,
		      uint32_t max)
{
	uint32_t c = 0;

	/* ipip6_tunnel_get_prl(): the kernel's list is newest first. */
	for (uint32_t k = p->n; k-- > 0 && c < max;) {
		if (addr && p->e[k].addr != addr)
			continue;
		out[c++] = p->e[k];
		if (addr)
			break;
	}
	return c;
}

/* ---- Receive checks ---- */

enum sitd_isatap_node sitd_isatap_chksrc(const struct sitd_auto *t, uint32_t outer_src,
					 const uint8_t inner_src[16])
{
	const struct sitd_prl_entry *e = sitd_prl_find(t->prl, outer_src);

	/* isatap_chksrc(): a PRL router, whatever the inner source. */
	if (e)
		return e->flags & SITD_PRL_DEFAULT ? SITD_ISATAP_DEFAULT : SITD_ISATAP_NODEFAULT;
	/* Else an ISATAP host: its address embeds the outer source and is on-link. */
	if (!sitd_ip6_is_isatap(inner_src) || rd32(inner_src + 12) != outer_src)
		return SITD_ISATAP_REFUSED;
	/* ipv6_chk_prefix(): each address of the device with its own prefix length. */
	for (size_t i = 0; i < t->naddrs; i++)
		if (sitd_ip6_prefix_equal(inner_src, t->addrs[i].addr, t->addrs[i].plen))
			return SITD_ISATAP_HOST;
	return SITD_ISATAP_REFUSED;
}

bool sitd_6rd_is_spoofed(const struct sitd_6rd *r, uint32_t v4, const uint8_t v6[16])
{
	uint32_t embedded;

	/* is_spoofed_6rd(): outside the 6rd prefix nothing is claimed, so nothing spoofed. */
	return sitd_6rd_v4(r, v6, &embedded) && embedded != v4;
}

bool sitd_6rd_only_dnatted(const struct sitd_auto *t, const uint8_t v6dst[16])
{
	unsigned plen = sitd_6rd_delegated_len(t->rd);

	/* only_dnatted(): ipv6_chk_custom_prefix() at the delegated prefix length. */
	for (size_t i = 0; i < t->naddrs; i++)
		if (sitd_ip6_prefix_equal(v6dst, t->addrs[i].addr, plen))
			return true;
	return false;
}

enum sitd_spoof sitd_packet_is_spoofed(const struct sitd_auto *t, uint32_t outer_src,
				       uint32_t outer_dst, const uint8_t inner_src[16],
				       const uint8_t inner_dst[16], enum sitd_isatap_node *node)
{
	enum sitd_isatap_node nd = SITD_ISATAP_REFUSED;
	enum sitd_spoof v = SITD_SPOOF_OK;

	if (t->isatap) {
		/* packet_is_spoofed(): ISATAP checks the source only, remote or not. */
		nd = sitd_isatap_chksrc(t, outer_src, inner_src);
		v = nd == SITD_ISATAP_REFUSED ? SITD_SPOOF_ISATAP_SRC : SITD_SPOOF_OK;
	} else if (t->remote) {
		/* A point-to-point tunnel: the lookup by remote already vouched for it. */
		v = SITD_SPOOF_OK;
	} else if (sitd_6rd_is_spoofed(t->rd, outer_src, inner_src)) {
		v = SITD_SPOOF_SRC;
	} else if (sitd_6rd_is_spoofed(t->rd, outer_dst, inner_dst) &&
		   !sitd_6rd_only_dnatted(t, inner_dst)) {
		v = SITD_SPOOF_DST;
	}
	if (node)
		*node = nd;
	return v;
}

/* ---- Transmit ---- */

enum sitd_auto_dst sitd_auto_tx_dst(const struct sitd_auto *t, const uint8_t inner_dst[16],
				    const uint8_t *nexthop, uint32_t *v4)
{
	uint32_t dst = t->remote;
	const uint8_t *a;

	*v4 = 0;
	/* ipip6_tunnel_xmit(): ISATAP first (RFC 5214 6.1, the interface identifier's embedded IPv4 address), the neighbour's embedded IPv4. */
	if (t->isatap) {
		if (!nexthop)
			return SITD_DST_NO_NEXTHOP;
		if (!sitd_ip6_is_unicast(nexthop) || !sitd_ip6_is_isatap(nexthop))
			return SITD_DST_NOT_ISATAP;
		dst = rd32(nexthop + 12);
	}
	if (!dst)
		dst = sitd_6rd_dst(t->rd, inner_dst);
	if (!dst) {
		/* Else the next hop, or the inner destination when it is ::, as ::a.b.c.d. */
		if (!nexthop)
			return SITD_DST_NO_NEXTHOP;
		a = zero(nexthop, 16) ? inner_dst : nexthop;
		if (!sitd_ip6_is_v4compat(a))
			return SITD_DST_NOT_V4COMPAT;
		dst = rd32(a + 12);
	}
	*v4 = dst;
	return SITD_DST_OK;
}

/* ---- MTU ---- */

unsigned sitd_6rd_mtu_default(const struct sitd_conf *c, unsigned ipv4_mtu)
{
	/* RFC 5969 9.1: "Absent more specific information, ... SHOULD default to 1280". */
	if (ipv4_mtu == 0)
		return sitd_mtu_clamp(c, IPV6_MIN_MTU);
	/* "... the known IPv4 MTU minus the size of the encapsulating IPv4 header". */
	return sitd_mtu_default(c, ipv4_mtu);
}

/* ---- Commands ---- */

int sitd_6rd_apply(struct sitd_6rd *r, const struct sitd_6rd_cmd *cmd)
{
	if (cmd->op == SITD_6RD_OP_RESET) {
		sitd_6rd_reset(r);
		return SITD_6RD_OK;
	}
	return sitd_6rd_set(r, cmd->prefix, cmd->prefixlen, cmd->relay_prefix,
			    cmd->relay_prefixlen);
}

int sitd_prl_apply(struct sitd_prl *p, const struct sitd_prl_cmd *cmd)
{
	switch (cmd->op) {
	case SITD_PRL_OP_ADD:
		return sitd_prl_add(p, cmd->addr, cmd->flags, false);
	case SITD_PRL_OP_DEL:
		return sitd_prl_del(p, cmd->addr);
	default:
		return -EINVAL;
	}
}

const uint8_t *sitd_routes6_nexthop(const struct sitd_routes6 *rt, const uint8_t dst[16])
{
	const struct sitd_route6 *best = NULL;

	for (uint32_t i = 0; rt && i < rt->n && i < SITD_ROUTES6_MAX; i++)
		if ((!best || rt->r[i].len > best->len) && rt->r[i].len <= 128 &&
		    sitd_ip6_prefix_equal(rt->r[i].dst, dst, rt->r[i].len))
			best = &rt->r[i];
	return best ? best->gw : NULL;
}

/*
 * The Router Advertisement at ra, n bytes of it present: Router Lifetime (RFC 4861 4.2,
 * bytes 6-7) set to 0, not a default router.  RFC 1624: the checksum mended from the
 * word's old and new values, in the sums' order; both words lie at even offsets of the
 * message, so this holds in a first fragment too.  true when it changed.
 */
static bool ra_zero_lifetime(uint8_t *ra, uint32_t n)
{
	uint16_t old;

	if (n < ICMP6_HDR_LEN || !(ra[6] | ra[7]))
		return false;
	old = csum_ld16(ra + 6);
	wr16(ra + 6, 0);
	csum_replace16(ra + 2, old, 0);
	return true;
}

int sitd_ip6_nd(const uint8_t *pkt, uint32_t len, struct sitd_nd *nd)
{
	struct sitd_ipinfo ii;
	uint8_t type;

	memset(nd, 0, sizeof(*nd));
	if (len < IPV6_HDR_LEN || ip_version(pkt) != 6)
		return -EINVAL;
	if (sitd_ip6_parse_chain(pkt, len, &ii)) {
		nd->undecided = true;
		return 0;
	}
	nd->end = ii.len;
	nd->fragment = ii.fragment;
	nd->later_fragment = ii.later_fragment;
	if (ii.later_fragment || ii.l4proto != IPPROTO_ICMPV6)
		return 0;
	if (ii.fragment && ii.l3len + ICMP6_HDR_LEN > ii.len) {
		nd->undecided = true;	/* RFC 8200 4.5: the first fragment holds it all */
		return 0;
	}
	if (ii.l3len >= ii.len)
		return 0;		/* no ICMPv6 byte: icmpv6_rcv discards it */
	type = pkt[ii.l3len];
	if (type < SITD_ND_RS || type > SITD_ND_REDIRECT)
		return 0;
	nd->type = (enum sitd_nd_type)type;
	nd->off = ii.l3len;
	return 0;
}

enum sitd_isatap_verdict sitd_isatap_nd_check(uint8_t *in, uint32_t ilen,
					      enum sitd_isatap_node node)
{
	bool host = node == SITD_ISATAP_HOST;
	struct sitd_nd nd;

	if ((!host && node != SITD_ISATAP_NODEFAULT) || sitd_ip6_nd(in, ilen, &nd))
		return SITD_ISATAP_PASS;
	/* ndisc_redirect_rcv(): NDISC_NODETYPE_HOST and _NODEFAULT are both ignored. */
	if (nd.undecided || nd.type == SITD_ND_REDIRECT)
		return host ? SITD_ISATAP_ND_HOST : SITD_ISATAP_ND_NODEFAULT;
	if (nd.type != SITD_ND_RA)
		return SITD_ISATAP_PASS;
	/* ndisc_router_discovery(): a host's RA is ignored, a NODEFAULT one's router isn't. */
	if (host)
		return SITD_ISATAP_RA_HOST;
	ra_zero_lifetime(in + nd.off, nd.end - nd.off);
	return SITD_ISATAP_PASS;
}
