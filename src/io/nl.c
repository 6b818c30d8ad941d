/* SPDX-License-Identifier: MIT */
#include "nl.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <sys/uio.h>

struct nl_cb_arg {
	void (*fn)(void *arg, unsigned ifindex, unsigned mtu);
	void *arg;
};

struct mnl_socket *nl_link_open(void)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
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

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nl_cb_arg *a = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nlattr *attr;	/* not const: mnl_attr_for_each casts it */

	/* mnl_cb_run() has checked nlmsg_len against the datagram; the payload too. */
	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(attr) == IFLA_MTU && mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			a->fn(a->arg, (unsigned)ifi->ifi_index, mnl_attr_get_u32(attr));
	}
	return MNL_CB_OK;
}

void nl_link_read(struct mnl_socket *nl, void (*fn)(void *arg, unsigned ifindex, unsigned mtu),
		  void *arg)
{
	char buf[8192];	/* MNL_SOCKET_BUFFER_SIZE, without its VLA */
	struct nl_cb_arg a = { .fn = fn, .arg = arg };

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
		(void)mnl_cb_run(buf, (size_t)n, 0, 0, link_cb, &a);
	}
}
