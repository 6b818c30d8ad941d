/* SPDX-License-Identifier: MIT */
/*
 * The error queue of a socket sitd sends from (IP_RECVERR): the ICMP errors and local
 * EMSGSIZE about its outer packets, read on the worker that owns the socket.
 */
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "daemon/internal.h"

/*
 * Read one error from fd's queue into w->errpkt (its length in *len, the original
 * destination in *to unless NULL, the device it came in on in w->err_ifindex when the
 * socket asked for IPV6_RECVPKTINFO); NULL when the queue is empty.  IPv4 (IP_RECVERR)
 * and IPv6 (IPV6_RECVERR) sockets alike.
 */
const struct sock_extended_err *errqueue_read(struct worker *w, int fd, size_t *len,
						     struct sockaddr_in *to)
{
	struct iovec iov = { .iov_base = w->errpkt, .iov_len = sizeof(w->errpkt) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = w->ecmsg,
			    .msg_controllen = sizeof(w->ecmsg), .msg_name = to,
			    .msg_namelen = to ? sizeof(*to) : 0 };
	const struct sock_extended_err *ee = NULL;
	ssize_t n = recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);

	if (n < 0)
		return NULL;
	w->err_ifindex = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
		    (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) {
			ee = (const struct sock_extended_err *)CMSG_DATA(c);
		} else if (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			/* ipv6_recv_error gives the ICMPv6 error's own (ip6_datagram_recv_common_ctl). */
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			w->err_ifindex = pi.ipi6_ifindex;
		}
	}
	*len = (size_t)n;
	/* No extended error (it cannot happen): an empty record, skipped by the callers. */
	if (!ee) {
		static const struct sock_extended_err none;

		return &none;
	}
	return ee;
}

/* The path MTU fell: the kernel refused a send for size, or a router said so (RFC 1191).
 * IPv4 only: an IPv6 path's Packet Too Big is sitd_icmp6_err's to judge. */
bool errqueue_frag_needed(const struct sock_extended_err *ee)
{
	return (ee->ee_origin == SO_EE_ORIGIN_LOCAL && ee->ee_errno == EMSGSIZE) ||
	       (ee->ee_origin == SO_EE_ORIGIN_ICMP && ee->ee_type == ICMP4_DEST_UNREACH &&
		ee->ee_code == ICMP4_FRAG_NEEDED);
}
