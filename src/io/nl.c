/* SPDX-License-Identifier: MIT */
#include "nl.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <sys/uio.h>

struct nl_cb_arg {
	const struct nl_handlers *h;
	void *arg;
};

struct mnl_socket *nl_link_open(void)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, RTMGRP_LINK | RTMGRP_IPV6_IFADDR, MNL_SOCKET_AUTOPID) < 0) {
		int err = errno;

		mnl_socket_close(nl);
		errno = err;
		return NULL;
	}
	return nl;
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
		    !(flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)), addr);
}

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nl_cb_arg *a = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nlattr *attr;	/* not const: mnl_attr_for_each casts it */

	if (nlh->nlmsg_type == RTM_NEWADDR || nlh->nlmsg_type == RTM_DELADDR) {
		addr_msg(nlh, a);
		return MNL_CB_OK;
	}
	/* mnl_cb_run() has checked nlmsg_len against the datagram; the payload too. */
	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)) ||
	    !a->h->mtu)
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(attr) == IFLA_MTU && mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			a->h->mtu(a->arg, (unsigned)ifi->ifi_index, mnl_attr_get_u32(attr));
	}
	return MNL_CB_OK;
}

void nl_link_read(struct mnl_socket *nl, const struct nl_handlers *h, void *arg)
{
	char buf[8192];	/* MNL_SOCKET_BUFFER_SIZE, without its VLA */
	struct nl_cb_arg a = { .h = h, .arg = arg };

	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
				    .msg_iovlen = 1 };
		ssize_t n = recvmsg(mnl_socket_get_fd(nl), &m, MSG_DONTWAIT);

		if (n < 0 && errno == ENOBUFS)
			continue;	/* notifications were lost while sitd was busy; read on */
		if (n <= 0)
			return;
		/* Only the kernel (port 0) speaks for the links; a truncated datagram is not read. */
		if (from.nl_pid != 0 || (m.msg_flags & MSG_TRUNC))
			continue;
		(void)mnl_cb_run(buf, (size_t)n, 0, 0, msg_cb, &a);
	}
}
