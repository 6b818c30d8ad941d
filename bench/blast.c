/* SPDX-License-Identifier: MIT */
/*
 * The raw-socket ceiling: how fast this machine moves 1500-byte protocol-41 packets
 * through raw IPv4 sockets with sendmmsg and recvmmsg, with no tunnel logic at all.
 * sitd's outer side can go no faster; the benchmark prints its rows against this one.
 *
 *   blast send SRC DST SECONDS     (IP_HDRINCL, batches of 64)
 *   blast recv SECONDS             prints "<Mbit/s> <packets/s>" of what arrived
 *   blast ring DEV SECONDS         the same through an AF_PACKET TPACKET_V3 receive ring
 *                                  on DEV, a BPF filter keeping protocol 41 only; a raw
 *                                  socket that takes nothing stays open, so the stack, which
 *                                  still sees every packet, does not answer protocol
 *                                  unreachable (what AF_PACKET receive in sitd would cost)
 */
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

static int blast_ring(const char *dev, double secs)
{
	/* Ethernet + IPv4: the protocol byte at 14 + 9. */
	struct sock_filter code[] = {
		{ BPF_LD | BPF_B | BPF_ABS, 0, 0, 23 },
		{ BPF_JMP | BPF_JEQ | BPF_K, 0, 1, IPPROTO_IPV6 },
		{ BPF_RET | BPF_K, 0, 0, 0xffff },
		{ BPF_RET | BPF_K, 0, 0, 0 },
	};
	struct sock_filter none[] = { { BPF_RET | BPF_K, 0, 0, 0 } };
	struct sock_fprog prog = { 4, code }, drop = { 1, none };
	struct tpacket_req3 req = { .tp_block_size = 1 << 20, .tp_block_nr = 64, .tp_frame_size = 2048,
				    .tp_frame_nr = (1 << 20) / 2048 * 64, .tp_retire_blk_tov = 2 };
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP)), raw = socket(AF_INET, SOCK_RAW, IPPROTO_IPV6);
	int v = TPACKET_V3;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP),
				   .sll_ifindex = (int)if_nametoindex(dev) };
	unsigned long long bytes = 0, pkts = 0;
	double start = 0, end = 0, last = 0;
	uint8_t *map;

	if (fd < 0 || raw < 0 || !sll.sll_ifindex ||
	    setsockopt(raw, SOL_SOCKET, SO_ATTACH_FILTER, &drop, sizeof(drop)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("blast: packet socket");
		return 1;
	}
	map = mmap(NULL, (size_t)req.tp_block_size * req.tp_block_nr, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("blast: mmap");
		return 1;
	}
	for (unsigned b = 0;; b = (b + 1) % req.tp_block_nr) {
		struct tpacket_block_desc *bd = (void *)(map + (size_t)b * req.tp_block_size);
		struct tpacket3_hdr *h;
		double t;

		while (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
			struct pollfd p = { .fd = fd, .events = POLLIN | POLLERR };

			if (poll(&p, 1, 200) == 0 && start && now() - last > 1.0)
				goto out;
		}
		t = now();
		if (!start) {
			start = t;
			end = t + secs;
		}
		h = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
		for (unsigned i = 0; i < bd->hdr.bh1.num_pkts; i++) {
			bytes += h->tp_snaplen - ETH_HLEN;
			h = (void *)((uint8_t *)h + h->tp_next_offset);
		}
		pkts += bd->hdr.bh1.num_pkts;
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		last = t;
		if (t > end)
			break;
	}
out:
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
	if (argc == 4 && !strcmp(argv[1], "ring"))
		return blast_ring(argv[2], atof(argv[3]));
	fprintf(stderr, "usage: blast send SRC DST SECONDS | blast recv SECONDS | blast ring DEV SECONDS\n");
	return 2;
}
