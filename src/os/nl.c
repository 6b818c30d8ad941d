/* SPDX-License-Identifier: MIT */
#include "os/nl.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <net/if.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MNL_SOCKET_BUFFER_SIZE_SITD = 1024 };

struct nl_cb_arg {
	const struct nl_handlers *h;
	void *arg;
};

struct mnl_socket *nl_link_open(int rcvbuf)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	/* The kernel clamps it to net.core.rmem_max (sock_setsockopt); a failure leaves the
	 * default, and a lost notification costs a dump, not the state (linkwatch.c). */
	if (rcvbuf > 0)
		(void)setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (mnl_socket_bind(nl, RTMGRP_LINK | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE |
			    RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE, MNL_SOCKET_AUTOPID) < 0) {
		int err = errno;

		mnl_socket_close(nl);
		errno = err;
		return NULL;
	}
	return nl;
}

int nl_netns_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK | RTMGRP_IPV6_IFADDR };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE), e;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

struct mnl_socket *nl_fdopen(int fd)
{
	return mnl_socket_fdopen(fd);
}

int nl_fd(struct mnl_socket *nl)
{
	return mnl_socket_get_fd(nl);
}

/* An IPv6 address of a link, added or removed: RTM_NEWADDR / RTM_DELADDR. */
static void addr_msg(const struct nlmsghdr *nlh, const struct nl_cb_arg *a)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const uint8_t *addr = NULL;
	uint32_t flags;
	struct nlattr *attr;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)) || ifa->ifa_family != AF_INET6 ||
	    !a->h->addr6)
		return;
	flags = ifa->ifa_flags;
	mnl_attr_for_each(attr, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_type(attr) == IFA_ADDRESS && mnl_attr_get_payload_len(attr) == 16)
			addr = mnl_attr_get_payload(attr);
		else if (mnl_attr_get_type(attr) == IFA_FLAGS && mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			flags = mnl_attr_get_u32(attr);
	}
	if (!addr)
		return;
	/* A tentative address (duplicate detection not done) is not a source yet (RFC 4862 5.4). */
	a->h->addr6(a->arg, ifa->ifa_index, nlh->nlmsg_type == RTM_NEWADDR &&
		    !(flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)), addr, ifa->ifa_prefixlen);
}

/* An IPv6 unicast route through one device, added or removed: RTM_NEWROUTE / RTM_DELROUTE. */
static void route_msg(const struct nlmsghdr *nlh, const struct nl_cb_arg *a)
{
	static const uint8_t none[16];
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const uint8_t *dst = none, *gw = none;
	uint32_t oif = 0;
	struct nlattr *attr;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)) || rtm->rtm_family != AF_INET6 ||
	    rtm->rtm_type != RTN_UNICAST || rtm->rtm_dst_len > 128 || !a->h->route6)
		return;
	mnl_attr_for_each(attr, nlh, sizeof(*rtm)) {
		uint16_t type = mnl_attr_get_type(attr);

		if (type == RTA_DST && mnl_attr_get_payload_len(attr) == 16)
			dst = mnl_attr_get_payload(attr);
		else if (type == RTA_GATEWAY && mnl_attr_get_payload_len(attr) == 16)
			gw = mnl_attr_get_payload(attr);
		else if (type == RTA_OIF && mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			oif = mnl_attr_get_u32(attr);
		else if (type == RTA_MULTIPATH)
			return;	/* several next hops: not one sitd could follow */
	}
	if (oif)
		a->h->route6(a->arg, oif, nlh->nlmsg_type == RTM_NEWROUTE, dst, rtm->rtm_dst_len, gw);
}

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nl_cb_arg *a = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nlattr *attr;	/* not const: mnl_attr_for_each casts it */

	if (a->h->changed && nlh->nlmsg_type >= RTM_NEWLINK && nlh->nlmsg_type <= RTM_DELROUTE)
		a->h->changed(a->arg);
	if (nlh->nlmsg_type == RTM_NEWADDR || nlh->nlmsg_type == RTM_DELADDR) {
		addr_msg(nlh, a);
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE) {
		route_msg(nlh, a);
		return MNL_CB_OK;
	}
	/* mnl_cb_run() has checked nlmsg_len against the datagram; the payload too. */
	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return MNL_CB_OK;
	if (a->h->flags)
		a->h->flags(a->arg, (unsigned)ifi->ifi_index, ifi->ifi_flags);
	if (!a->h->mtu && !a->h->group)
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(*ifi)) {
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			continue;
		if (mnl_attr_get_type(attr) == IFLA_MTU && a->h->mtu)
			a->h->mtu(a->arg, (unsigned)ifi->ifi_index, mnl_attr_get_u32(attr));
		else if (mnl_attr_get_type(attr) == IFLA_GROUP && a->h->group)
			a->h->group(a->arg, (unsigned)ifi->ifi_index, mnl_attr_get_u32(attr));
	}
	return MNL_CB_OK;
}

int nl_link_read(struct mnl_socket *nl, const struct nl_handlers *h, void *arg)
{
	char buf[8192];	/* MNL_SOCKET_BUFFER_SIZE, without its VLA */
	struct nl_cb_arg a = { .h = h, .arg = arg };
	int lost = 0;

	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
				    .msg_iovlen = 1 };
		ssize_t n = recvmsg(mnl_socket_get_fd(nl), &m, MSG_DONTWAIT);

		/* The socket overflowed (netlink_overrun): notifications were lost.  Read on, the
		 * rest is older than the dump the caller makes next. */
		if (n < 0 && errno == ENOBUFS) {
			lost = -ENOBUFS;
			continue;
		}
		if (n <= 0)
			return lost;
		/* Only the kernel (port 0) speaks for the links; a truncated datagram is not
		 * read, and what it said is lost as well. */
		if (from.nl_pid != 0)
			continue;
		if (m.msg_flags & MSG_TRUNC) {
			lost = -ENOBUFS;
			continue;
		}
		(void)mnl_cb_run(buf, (size_t)n, 0, 0, msg_cb, &a);
	}
}

/* ---- requests: the device up, its addresses and routes ------------------------------ */

/* A socket of its own for one request and its answer, bound; NULL with errno set. */
static struct mnl_socket *nl_request_open(uint32_t *port)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		mnl_socket_close(nl);
		errno = e;
		return NULL;
	}
	*port = mnl_socket_get_portid(nl);
	return nl;
}

/*
 * One request on a socket of its own, and the kernel's answer: through cb when given (a
 * get), else the ack (NLM_F_ACK: an NLMSG_ERROR with error 0).  0 or -errno, the
 * kernel's NLMSG_ERROR included.
 */
static int nl_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[8192];
	static uint32_t seq_next = 1;
	uint32_t seq = seq_next++, port;
	struct mnl_socket *nl = nl_request_open(&port);
	int r;
	ssize_t n;

	if (!nl)
		return -errno;
	nlh->nlmsg_flags |= NLM_F_REQUEST | (cb ? 0 : NLM_F_ACK);
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		r = -errno;
		goto out;
	}
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0) {
		r = -errno;
		goto out;
	}
	r = mnl_cb_run(buf, (size_t)n, seq, port, cb, data) < 0 ? -errno : 0;
out:
	mnl_socket_close(nl);
	return r;
}

static int nl_talk(struct nlmsghdr *nlh)
{
	return nl_request(nlh, NULL, NULL);
}

int nl_link_up(unsigned ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nl_talk(nlh);
}

/* RTM_NEWLINK / RTM_DELLINK of ifindex (0: none) with IFLA_GROUP. */
static int link_group(uint16_t type, unsigned ifindex, uint32_t group)
{
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, IFLA_GROUP, group);
	return nl_talk(nlh);
}

int nl_link_set_group(unsigned ifindex, uint32_t group)
{
	return link_group(RTM_NEWLINK, ifindex, group);
}

int nl_link_del_group(uint32_t group)
{
	return link_group(RTM_DELLINK, 0, group);
}

int nl_addr(bool add, unsigned ifindex, const struct sitd_prefix *p)
{
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	size_t alen = p->family == 6 ? 16 : 4;

	nlh->nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	/* NLM_F_REPLACE: applying it again after a restart is not an error. */
	nlh->nlmsg_flags = add ? NLM_F_CREATE | NLM_F_REPLACE : 0;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = p->family == 6 ? AF_INET6 : AF_INET;
	ifa->ifa_prefixlen = p->len;
	ifa->ifa_index = ifindex;
	/* As `ip address add`: the local address, and the same as the peer's. */
	mnl_attr_put(nlh, IFA_LOCAL, alen, p->addr);
	mnl_attr_put(nlh, IFA_ADDRESS, alen, p->addr);
	return nl_talk(nlh);
}

int nl_route(bool add, unsigned ifindex, const struct sitd_route *r)
{
	static const uint8_t zero[16];
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;
	size_t alen = r->dst.family == 6 ? 16 : 4;
	bool via = memcmp(r->via, zero, alen) != 0;

	nlh->nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
	nlh->nlmsg_flags = add ? NLM_F_CREATE | NLM_F_REPLACE : 0;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = r->dst.family == 6 ? AF_INET6 : AF_INET;
	rtm->rtm_dst_len = r->dst.len;
	rtm->rtm_table = r->table && r->table < 256 ? (uint8_t)r->table : r->table ? RT_TABLE_UNSPEC : RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = add ? (via ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK) : RT_SCOPE_NOWHERE;
	rtm->rtm_type = add ? RTN_UNICAST : RTN_UNSPEC;
	if (r->dst.len)
		mnl_attr_put(nlh, RTA_DST, alen, r->dst.addr);
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);
	if (via)
		mnl_attr_put(nlh, RTA_GATEWAY, alen, r->via);
	if (r->metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, r->metric);
	if (r->table >= 256)
		mnl_attr_put_u32(nlh, RTA_TABLE, r->table);
	return nl_talk(nlh);
}

/* A dump of `type` (RTM_GET*) for `family`, through msg_cb: 0 or -errno; -EINTR when the
 * kernel says the table changed during it (NLM_F_DUMP_INTR), so it is not whole. */
static int nl_dump(uint16_t type, uint8_t family, const struct nl_handlers *h, void *arg)
{
	char buf[16384];	/* a link's message without its counters fits a few times */
	struct nl_cb_arg a = { .h = h, .arg = arg };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	uint32_t port;
	struct mnl_socket *nl = nl_request_open(&port);
	int r = 0;
	bool intr = false;

	if (!nl)
		return -errno;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = 1;
	if (type == RTM_GETLINK) {
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

		ifi->ifi_family = family;
		/* No counters: fewer and smaller messages (rtnl_dump_ifinfo). */
		mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	} else {
		/* rtmsg and ifaddrmsg both start with their family byte. */
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		rtm->rtm_family = family;
	}
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		r = -errno;
		goto out;
	}
	for (;;) {
		ssize_t len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		int cb, rest;

		if (len <= 0) {
			r = len < 0 ? -errno : 0;
			break;
		}
		rest = (int)len;
		for (struct nlmsghdr *m = (void *)buf; mnl_nlmsg_ok(m, rest); m = mnl_nlmsg_next(m, &rest))
			intr |= (m->nlmsg_flags & NLM_F_DUMP_INTR) != 0;
		cb = mnl_cb_run(buf, (size_t)len, 1, port, msg_cb, &a);
		if (cb <= MNL_CB_STOP) {
			r = cb < 0 ? -errno : 0;
			break;
		}
	}
out:
	mnl_socket_close(nl);
	return r < 0 ? r : intr ? -EINTR : 0;
}

int nl_dump6(uint16_t type, const struct nl_handlers *h, void *arg)
{
	return nl_dump(type, AF_INET6, h, arg);
}

int nl_dump_links(const struct nl_handlers *h, void *arg)
{
	return nl_dump(RTM_GETLINK, AF_UNSPEC, h, arg);
}

int nl_isatap_setup(unsigned ifindex, const uint8_t token[16])
{
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct nlattr *spec, *af;
	int r;

	/* No link-local of the kernel's own making: the ISATAP one is added instead. */
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	af = mnl_attr_nest_start(nlh, AF_INET6);
	mnl_attr_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE, IN6_ADDR_GEN_MODE_NONE);
	mnl_attr_nest_end(nlh, af);
	mnl_attr_nest_end(nlh, spec);
	r = nl_talk(nlh);
	if (r < 0)
		return r;
	/* The token: addresses from router advertisements end in ::0[2]00:5efe:a.b.c.d
	 * (`ip token set`). */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_SETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_INET6;
	ifi->ifi_index = (int)ifindex;
	spec = mnl_attr_nest_start(nlh, IFLA_PROTINFO);
	mnl_attr_put(nlh, IFLA_INET6_TOKEN, 16, token);
	mnl_attr_nest_end(nlh, spec);
	return nl_talk(nlh);
}

/* ---- lookups: the next hop toward an IPv4 address, its link-layer address ------------ */

struct route4 {
	unsigned oif;
	uint32_t gw;
	uint8_t gw6[16];
	bool unicast, has_gw6;
};

static int route4_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct route4 *r = data;
	struct nlattr *attr;	/* not const: mnl_attr_for_each casts it */

	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return MNL_CB_OK;
	r->unicast = rtm->rtm_type == RTN_UNICAST;
	mnl_attr_for_each(attr, nlh, sizeof(*rtm)) {
		if (mnl_attr_get_type(attr) == RTA_OIF && mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			r->oif = mnl_attr_get_u32(attr);
		else if (mnl_attr_get_type(attr) == RTA_GATEWAY && mnl_attr_get_payload_len(attr) == 4)
			memcpy(&r->gw, mnl_attr_get_payload(attr), 4);
		else if (mnl_attr_get_type(attr) == RTA_GATEWAY && mnl_attr_get_payload_len(attr) == 16) {
			memcpy(r->gw6, mnl_attr_get_payload(attr), 16);
			r->has_gw6 = true;
		}
	}
	return MNL_CB_OK;
}

int nl_route_get4(uint32_t dst, uint32_t src, unsigned oif, unsigned *out_oif, uint32_t *nexthop)
{
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct route4 r = { 0 };
	struct rtmsg *rtm;
	uint32_t be;
	int e;

	nlh->nlmsg_type = RTM_GETROUTE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 32;
	be = htonl(dst);
	mnl_attr_put(nlh, RTA_DST, 4, &be);
	if (src) {
		rtm->rtm_src_len = 32;
		be = htonl(src);
		mnl_attr_put(nlh, RTA_SRC, 4, &be);
	}
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	e = nl_request(nlh, route4_cb, &r);
	if (e < 0)
		return e;
	/* Local, broadcast, blackhole...: not something to put on a wire by hand. */
	if (!r.unicast || !r.oif)
		return -ENETUNREACH;
	*out_oif = r.oif;
	*nexthop = r.gw ? ntohl(r.gw) : dst;
	return 0;
}

int nl_route_get6(const uint8_t dst[16], const uint8_t src[16], unsigned oif, unsigned *out_oif,
		  uint8_t nexthop[16])
{
	static const uint8_t zero[16];
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct route4 r = { 0 };
	struct rtmsg *rtm;
	int e;

	nlh->nlmsg_type = RTM_GETROUTE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = 128;
	mnl_attr_put(nlh, RTA_DST, 16, dst);
	if (src && memcmp(src, zero, 16)) {
		rtm->rtm_src_len = 128;
		mnl_attr_put(nlh, RTA_SRC, 16, src);
	}
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	e = nl_request(nlh, route4_cb, &r);
	if (e < 0)
		return e;
	/* inet6_rtm_getroute answers RTN_UNICAST for a routed destination, RTN_LOCAL for
	 * ours, RTN_UNREACHABLE etc. for a reject route, RTN_MULTICAST for a group. */
	if (!r.unicast || !r.oif)
		return -ENETUNREACH;
	*out_oif = r.oif;
	memcpy(nexthop, r.has_gw6 ? r.gw6 : dst, 16);
	return 0;
}

struct neigh4 {
	uint8_t mac[6];
	bool found;
	uint16_t state;
};

static int neigh4_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	struct neigh4 *n = data;
	struct nlattr *attr;	/* not const: mnl_attr_for_each casts it */

	if (nlh->nlmsg_type != RTM_NEWNEIGH || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nd)))
		return MNL_CB_OK;
	/* Usable entries only; INCOMPLETE and FAILED have no address to trust. */
	if (!(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT |
			       NUD_NOARP)))
		return MNL_CB_OK;
	n->state = nd->ndm_state;
	mnl_attr_for_each(attr, nlh, sizeof(*nd)) {
		if (mnl_attr_get_type(attr) == NDA_LLADDR && mnl_attr_get_payload_len(attr) == 6) {
			memcpy(n->mac, mnl_attr_get_payload(attr), 6);
			n->found = true;
		}
	}
	return MNL_CB_OK;
}

/* The neighbour entry of address a (alen bytes, family af) on ifindex. */
static int neigh_get(int af, unsigned ifindex, const void *a, size_t alen, uint8_t mac[6],
		     bool *confirmed)
{
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct neigh4 n = { .found = false };
	struct ndmsg *nd;
	int e;

	nlh->nlmsg_type = RTM_GETNEIGH;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = (uint8_t)af;
	nd->ndm_ifindex = (int)ifindex;
	mnl_attr_put(nlh, NDA_DST, alen, a);
	e = nl_request(nlh, neigh4_cb, &n);
	if (e < 0)
		return e;
	if (!n.found)
		return -ENOENT;
	memcpy(mac, n.mac, 6);
	*confirmed = n.state & (NUD_REACHABLE | NUD_PERMANENT | NUD_NOARP);
	return 0;
}

int nl_neigh_get4(unsigned ifindex, uint32_t ip, uint8_t mac[6], bool *confirmed)
{
	uint32_t be = htonl(ip);

	return neigh_get(AF_INET, ifindex, &be, 4, mac, confirmed);
}

int nl_neigh_get6(unsigned ifindex, const uint8_t ip[16], uint8_t mac[6], bool *confirmed)
{
	/* The NDP cache answers as ARP's: the same ndmsg, a 16-byte NDA_DST (ndisc_tbl). */
	return neigh_get(AF_INET6, ifindex, ip, 16, mac, confirmed);
}

static int tun_info_cb(const struct nlattr *attr, void *data)
{
	struct nl_tun *t = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type == IFLA_TUN_OWNER || type == IFLA_TUN_GROUP) {
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		*(type == IFLA_TUN_OWNER ? &t->owner : &t->group) = mnl_attr_get_u32(attr);
	} else if (type == IFLA_TUN_TYPE || type == IFLA_TUN_PI || type == IFLA_TUN_VNET_HDR ||
		   type == IFLA_TUN_MULTI_QUEUE) {
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		if (type == IFLA_TUN_TYPE)
			t->type = mnl_attr_get_u8(attr);
		else
			*(type == IFLA_TUN_PI ? &t->pi : type == IFLA_TUN_VNET_HDR ? &t->vnet_hdr :
			  &t->multi_queue) = mnl_attr_get_u8(attr) != 0;
	}
	return MNL_CB_OK;
}

static int tun_linkinfo_cb(const struct nlattr *attr, void *data)
{
	struct nl_tun *t = data;

	if (mnl_attr_get_type(attr) == IFLA_INFO_KIND) {
		t->tun = mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0 &&
			 !strcmp(mnl_attr_get_str(attr), "tun");
	} else if (mnl_attr_get_type(attr) == IFLA_INFO_DATA && t->tun) {
		/* tun_fill_info leaves out the owner and group that were never set. */
		t->known = true;
		return mnl_attr_parse_nested(attr, tun_info_cb, t);
	}
	return MNL_CB_OK;
}

static int tun_link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr;	/* not const: mnl_attr_for_each casts it */

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct ifinfomsg)))
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(struct ifinfomsg)) {
		/* IFLA_INFO_KIND comes before IFLA_INFO_DATA (rtnl_link_fill). */
		if (mnl_attr_get_type(attr) == IFLA_LINKINFO &&
		    mnl_attr_parse_nested(attr, tun_linkinfo_cb, data) < 0)
			return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int nl_tun_get(const char *name, struct nl_tun *t)
{
	char buf[MNL_SOCKET_BUFFER_SIZE_SITD];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	memset(t, 0, sizeof(*t));
	t->owner = t->group = -1;
	nlh->nlmsg_type = RTM_GETLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	/* No counters: the answer then fits nl_request's buffer whatever the device. */
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return nl_request(nlh, tun_link_cb, t);
}
