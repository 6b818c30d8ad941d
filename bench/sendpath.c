/* SPDX-License-Identifier: MIT */
/*
 * What one outer packet costs the kernel's send path, for each way sitd could send it:
 * 1500-byte protocol-41 packets, sendmmsg in batches of 64, and the CPU time of the
 * sending thread per packet (the veth peer's receive runs in its softirq, so that counts
 * too).  bench/sendpath.sh runs the modes side by side between two namespaces.
 *
 *   sendpath MODE COUNT SRC DST
 *     v4         AF_INET IPPROTO_RAW, our header (sit's way)
 *     v6-cmsg    AF_INET6 IPPROTO_RAW with IPV6_HDRINCL, an IPV6_PKTINFO naming the source
 *     v6-bound   the same socket bound to the source, no cmsg (txloop.c raw6_bind)
 *     v6-nosrc   the same unbound, no cmsg: the kernel selects a source per packet
 *     v6-conn    AF_INET6 protocol 41 without IPV6_HDRINCL, bound and connected: the
 *                kernel writes the header (ip6_append_data)
 *   sendpath sink                a raw socket for protocol 41 of each family that never
 *                                reads, so the receiver answers no ICMP error
 * Prints "MODE NS_PER_PACKET".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

enum { PKT = 1500, BATCH = 64 };

static uint8_t pkts[BATCH][PKT];
static struct mmsghdr msgs[BATCH];
static struct iovec iovs[BATCH];
static union {
	struct cmsghdr align;
	uint8_t buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
} cmsgs[BATCH];

static double thread_cpu(void)
{
	struct rusage r;

	getrusage(RUSAGE_THREAD, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

static uint16_t csum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

static int die(const char *what)
{
	fprintf(stderr, "sendpath: %s: %s\n", what, strerror(errno));
	return 1;
}

static int sink(void)
{
	int a = socket(AF_INET, SOCK_RAW, IPPROTO_IPV6), b = socket(AF_INET6, SOCK_RAW, IPPROTO_IPV6);
	int one = 1;

	if (a < 0 || b < 0)
		return die("socket");
	setsockopt(a, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
	setsockopt(b, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 d6 = { .sin6_family = AF_INET6 }, s6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in d4 = { .sin_family = AF_INET }, s4 = { .sin_family = AF_INET };
	const char *mode = argc > 1 ? argv[1] : "";
	bool v4 = !strcmp(mode, "v4"), conn = !strcmp(mode, "v6-conn");
	bool cmsg = !strcmp(mode, "v6-cmsg"), bound = !strcmp(mode, "v6-bound");
	long count, sent = 0;
	int fd, on = 1, buf = 4 << 20;
	double t0;

	if (!strcmp(mode, "sink"))
		return sink();
	if (argc != 5 || (!v4 && !conn && !cmsg && !bound && strcmp(mode, "v6-nosrc")) ||
	    (count = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: sendpath v4|v6-cmsg|v6-bound|v6-nosrc|v6-conn COUNT SRC DST"
				" | sendpath sink\n");
		return 2;
	}
	if (v4 ? inet_pton(AF_INET, argv[3], &s4.sin_addr) != 1 ||
		 inet_pton(AF_INET, argv[4], &d4.sin_addr) != 1
	       : inet_pton(AF_INET6, argv[3], &s6.sin6_addr) != 1 ||
		 inet_pton(AF_INET6, argv[4], &d6.sin6_addr) != 1) {
		fprintf(stderr, "sendpath: SRC and DST must be addresses of the mode's family\n");
		return 2;
	}
	if (v4)
		fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	else if (conn)
		fd = socket(AF_INET6, SOCK_RAW, IPPROTO_IPV6);
	else
		fd = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		return die("socket");
	if (!v4 && !conn && setsockopt(fd, IPPROTO_IPV6, IPV6_HDRINCL, &on, sizeof(on)) < 0)
		return die("IPV6_HDRINCL");
	if ((bound || conn) && bind(fd, (struct sockaddr *)&s6, sizeof(s6)) < 0)
		return die("bind");
	if (conn && connect(fd, (struct sockaddr *)&d6, sizeof(d6)) < 0)
		return die("connect");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));

	for (int k = 0; k < BATCH; k++) {
		uint8_t *p = pkts[k];
		struct msghdr *m = &msgs[k].msg_hdr;
		size_t inner = 0;

		if (v4) {
			struct iphdr h = { .version = 4, .ihl = 5, .tot_len = htons(PKT), .ttl = 64,
					   .protocol = IPPROTO_IPV6, .frag_off = htons(IP_DF),
					   .saddr = s4.sin_addr.s_addr, .daddr = d4.sin_addr.s_addr };

			h.check = csum(&h, sizeof(h));
			memcpy(p, &h, sizeof(h));
			inner = sizeof(h);
			m->msg_name = &d4;
			m->msg_namelen = sizeof(d4);
		} else if (!conn) {
			struct ip6_hdr h = { .ip6_flow = htonl(6u << 28), .ip6_plen = htons(PKT - 40),
					     .ip6_nxt = IPPROTO_IPV6, .ip6_hlim = 64,
					     .ip6_src = s6.sin6_addr, .ip6_dst = d6.sin6_addr };

			memcpy(p, &h, sizeof(h));
			inner = sizeof(h);
			m->msg_name = &d6;
			m->msg_namelen = sizeof(d6);
		}
		p[inner] = 0x60;	/* an inner IPv6 header's first byte; the rest zero */
		iovs[k] = (struct iovec){ .iov_base = p, .iov_len = conn ? PKT - 40 : PKT };
		m->msg_iov = &iovs[k];
		m->msg_iovlen = 1;
		if (cmsg) {
			struct in6_pktinfo pi = { .ipi6_addr = s6.sin6_addr };
			struct cmsghdr *c;

			m->msg_control = cmsgs[k].buf;
			m->msg_controllen = sizeof(cmsgs[k].buf);
			c = CMSG_FIRSTHDR(m);
			c->cmsg_level = IPPROTO_IPV6;
			c->cmsg_type = IPV6_PKTINFO;
			c->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		}
	}

	t0 = thread_cpu();
	while (sent < count) {
		int r = sendmmsg(fd, msgs, BATCH, 0);

		if (r < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			return die("sendmmsg");
		sent += r > 0 ? r : 0;
	}
	printf("%s %.0f\n", mode, (thread_cpu() - t0) * 1e9 / (double)sent);
	return 0;
}
