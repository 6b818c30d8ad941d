/* SPDX-License-Identifier: MIT */
/*
 * The raw-socket ceiling: how fast this machine moves 1500-byte protocol-41 packets
 * through raw IPv4 sockets with sendmmsg and recvmmsg, with no tunnel logic at all.
 * sitd's outer side can go no faster; the benchmark prints its rows against this one.
 *
 *   blast send SRC DST SECONDS     (IP_HDRINCL, batches of 64)
 *   blast recv SECONDS             prints "<Mbit/s> <packets/s>" of what arrived
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

enum { PKT = 1500, BATCH = 64 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int blast_send(const char *src, const char *dst, double secs)
{
	static unsigned char pkt[PKT];
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct mmsghdr msgs[BATCH];
	struct iovec iov = { pkt, PKT };
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_IPV6), on = 1;
	double end = now() + secs;

	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)) < 0) {
		perror("blast: raw socket");
		return 1;
	}
	if (inet_pton(AF_INET, dst, &to.sin_addr) != 1 || inet_pton(AF_INET, src, pkt + 12) != 1) {
		fprintf(stderr, "blast: bad address\n");
		return 2;
	}
	memcpy(pkt + 16, &to.sin_addr, 4);
	pkt[0] = 0x45;
	pkt[2] = PKT >> 8;
	pkt[3] = PKT & 0xff;
	pkt[6] = 0x40;		/* DF */
	pkt[8] = 64;
	pkt[9] = IPPROTO_IPV6;
	pkt[20] = 0x60;		/* an IPv6 header follows, as sit's payload */
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (now() < end)
		(void)sendmmsg(fd, msgs, BATCH, 0);
	return 0;
}

static int blast_recv(double secs)
{
	static unsigned char bufs[BATCH][PKT + 64];
	struct mmsghdr msgs[BATCH];
	struct iovec iovs[BATCH];
	struct timespec tmo = { 0, 200000000 };
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_IPV6), sz = 4 << 20;
	unsigned long long bytes = 0, pkts = 0;
	double start = 0, end = 0, last = 0;

	if (fd < 0) {
		perror("blast: raw socket");
		return 1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = sizeof(bufs[i]);
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	for (;;) {
		int n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, &tmo);
		double t = now();

		if (n <= 0) {
			if (start && t - last > 1.0)
				break;
			continue;
		}
		if (!start) {
			start = t;
			end = t + secs;
		}
		last = t;
		if (t > end)
			break;
		for (int i = 0; i < n; i++)
			bytes += msgs[i].msg_len;
		pkts += (unsigned)n;
	}
	if (!start) {
		fprintf(stderr, "blast: nothing received\n");
		return 1;
	}
	printf("%.0f %.0f\n", (double)bytes * 8 / (last - start) / 1e6, (double)pkts / (last - start));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "send"))
		return blast_send(argv[2], argv[3], atof(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "recv"))
		return blast_recv(atof(argv[2]));
	fprintf(stderr, "usage: blast send SRC DST SECONDS | blast recv SECONDS\n");
	return 2;
}
