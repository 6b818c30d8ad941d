/* SPDX-License-Identifier: MIT */
/*
 * blast's receiver through AF_XDP: whether an XDP socket on the outer device would beat
 * sitd's raw socket and its -R ring (bench/RESULTS.md, "AF_XDP").  libxdp loads its
 * default program on DEV (native mode, which veth has): every packet of queue 0 goes to
 * the socket, copied into the umem (veth has no zero-copy), and the stack never sees it.
 * A probe, not a part of sitd: it needs libxdp-dev and libbpf-dev.
 *
 *   xskblast DEV SECONDS           prints "<Mbit/s> <packets/s>" of what arrived
 */
#include <errno.h>
#include <linux/if_link.h>
#include <net/ethernet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

enum { FRAMES = 4096, FRAME = XSK_UMEM__DEFAULT_FRAME_SIZE, RING = 2048, BATCH = 64 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_socket_config cfg = {
		.rx_size = RING,
		.tx_size = RING,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP,
	};
	unsigned long long bytes = 0, pkts = 0;
	double secs, start = 0, end = 0, last = 0;
	void *area;
	__u32 idx;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: xskblast DEV SECONDS\n");
		return 2;
	}
	secs = atof(argv[2]);
	if (posix_memalign(&area, (size_t)getpagesize(), (size_t)FRAMES * FRAME)) {
		fprintf(stderr, "xskblast: no memory\n");
		return 1;
	}
	err = xsk_umem__create(&umem, area, (__u64)FRAMES * FRAME, &fq, &cq, NULL);
	if (!err)
		err = xsk_socket__create(&xsk, argv[1], 0, umem, &rx, NULL, &cfg);
	if (err) {
		fprintf(stderr, "xskblast: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	/* Every frame to the kernel to fill. */
	if (xsk_ring_prod__reserve(&fq, RING, &idx) != RING) {
		fprintf(stderr, "xskblast: fill ring\n");
		return 1;
	}
	for (unsigned i = 0; i < RING; i++)
		*xsk_ring_prod__fill_addr(&fq, idx + i) = (__u64)i * FRAME;
	xsk_ring_prod__submit(&fq, RING);

	for (;;) {
		__u32 n = xsk_ring_cons__peek(&rx, BATCH, &idx), fidx;
		double t;

		if (!n) {
			struct pollfd p = { .fd = xsk_socket__fd(xsk), .events = POLLIN };

			if (poll(&p, 1, 200) == 0 && start && now() - last > 1.0)
				break;
			continue;
		}
		t = now();
		if (!start) {
			start = t;
			end = t + secs;
		}
		while (xsk_ring_prod__reserve(&fq, n, &fidx) != n)
			;
		for (__u32 i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&rx, idx + i);

			bytes += d->len - ETH_HLEN;
			*xsk_ring_prod__fill_addr(&fq, fidx + i) = xsk_umem__extract_addr(d->addr);
		}
		xsk_ring_prod__submit(&fq, n);
		xsk_ring_cons__release(&rx, n);
		if (xsk_ring_prod__needs_wakeup(&fq))
			(void)recvfrom(xsk_socket__fd(xsk), NULL, 0, MSG_DONTWAIT, NULL, NULL);
		pkts += n;
		last = t;
		if (t > end)
			break;
	}
	xsk_socket__delete(xsk);
	(void)xsk_umem__delete(umem);
	if (!start) {
		fprintf(stderr, "xskblast: nothing received\n");
		return 1;
	}
	printf("%.0f %.0f\n", (double)bytes * 8 / (last - start) / 1e6, (double)pkts / (last - start));
	return 0;
}
