/* SPDX-License-Identifier: MIT */
#include "os/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/wire.h"
#include "proto/http.h"

enum { SOCK_BUF = 4 << 20 };

static int fcntl_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Close fd, failed half-way, keeping the error: -errno as it was. */
static int close_errno(int fd)
{
	int e = errno;

	close(fd);
	return -e;
}

static void set_bufs(int fd)
{
	int sz = SOCK_BUF;

	/* The FORCE variants pass net.core.[rw]mem_max; as root they work. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
}

static int bind_dev(int fd, const char *dev)
{
	if (!dev || !dev[0])
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, (socklen_t)strlen(dev));
}

int raw_open(uint8_t proto)
{
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, proto), on = 1;

	if (fd < 0)
		return -errno;
	/*
	 * IP_RECVERR: ICMP errors about our packets arrive on the error queue, for sitd to
	 * learn the path MTU from and relay to inner senders (raw_err() queues them on every
	 * raw socket of the protocol, so the receive socket sees them).  IP_PKTINFO: the
	 * device a packet came in on, for tunnels bound to one.
	 */
	if (setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) < 0)
		return close_errno(fd);
	set_bufs(fd);
	return fd;
}

int raw6_open(uint8_t proto)
{
	int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, proto), on = 1;

	if (fd < 0)
		return -errno;
	/* As raw_open's; IPV6_RECVERR: rawv6_err() queues errors on every raw socket of the
	 * quoted packet's next header, so the receive socket sees those about our sends. */
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_HDRINCL, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &on, sizeof(on)) < 0)
		return close_errno(fd);
	set_bufs(fd);
	return fd;
}

int raw6_send_open(void)
{
	/* IPPROTO_RAW implies IPV6_HDRINCL (inet6_create); said again for older kernels. */
	int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW), on = 1;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_HDRINCL, &on, sizeof(on)) < 0)
		return close_errno(fd);
	set_bufs(fd);
	return fd;
}

int packet_open(void)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0), on = 1;

	/*
	 * Protocol 0: it receives nothing.  Bypassing the qdisc is the point (packet(7)).  A
	 * virtio_net_hdr before each frame lets the device finish inner checksums; on a ring
	 * (-R ring) it gives a merged packet's segment size (virtio_net_hdr_from_skb).
	 */
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &on, sizeof(on)) < 0)
		return close_errno(fd);
	set_bufs(fd);
	return fd;
}

int sock_filter_set(int fd, struct sock_filter *f, unsigned n)
{
	struct sock_fprog prog = { .len = (unsigned short)n, .filter = f };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ? -errno : 0;
}

/* Attach f and lock it (SO_LOCK_FILTER): whoever holds fd can no longer change it.
 * 0 or -errno. */
static int filter_lock(int fd, struct sock_filter *f, unsigned n)
{
	int on = 1, r = sock_filter_set(fd, f, n);

	if (r < 0)
		return r;
	return setsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &on, sizeof(on)) < 0 ? -errno : 0;
}

int packet_tx_open(void)
{
	struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
	int fd = packet_open();

	/* Bound later to ETH_P_ALL, or with memberships added, it still takes nothing. */
	if (fd < 0)
		return fd;
	if (filter_lock(fd, &none, 1) < 0)
		return close_errno(fd);	/* errno is still the failed call's */
	return fd;
}

/* The ring's version and size.  Blocks hand over when full or after the timeout: a 64 KB
 * packet merged by the device's GRO fits in one. */
static int ring_config(int fd)
{
	int v = TPACKET_V3;
	struct tpacket_req3 req = { .tp_block_size = RING_BLOCK, .tp_block_nr = RING_BLOCKS,
				    .tp_frame_size = 2048, .tp_frame_nr = RING_BLOCK / 2048 * RING_BLOCKS,
				    .tp_retire_blk_tov = RING_TIMEOUT_MS };

	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
		return -errno;
	return 0;
}

int ring_locked_open(struct sock_filter *f, unsigned n)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	int fd = packet_open();

	if (fd < 0)
		return fd;
	/* The filter before the bind: nothing else reaches the ring first. */
	if (filter_lock(fd, f, n) < 0 || ring_config(fd) < 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return close_errno(fd);
	return fd;
}

int ring_map(int fd, uint8_t **map)
{
	void *m = mmap(NULL, (size_t)RING_BLOCK * RING_BLOCKS, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	*map = m;
	return 0;
}

int raw_send_open(void)
{
	/* IPPROTO_RAW sends any protocol with our header and receives nothing (raw(7)). */
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);

	if (fd < 0)
		return -errno;
	set_bufs(fd);
	return fd;
}

uint32_t pmtu_query(uint32_t local, uint32_t remote, const char *dev)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(9) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = 0;
	socklen_t len = sizeof(mtu);

	if (fd < 0)
		return 0;
	/*
	 * A new socket each time: a connected socket's cached route would not see a new
	 * exception.  It never sends: connect() looks the route up, IP_MTU reads its MTU,
	 * with what the kernel learned from Fragmentation Needed.
	 */
	if (bind_dev(fd, dev) < 0)
		goto out;
	if (local) {
		wr32((uint8_t *)&sa.sin_addr, local);
		sa.sin_port = 0;
		/* A local address not (yet) on this host: routing chooses the source. */
		(void)bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		sa.sin_port = htons(9);
	}
	wr32((uint8_t *)&sa.sin_addr, remote);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len) < 0 || mtu <= 0)
		mtu = 0;
out:
	close(fd);
	return (uint32_t)mtu;
}

uint32_t pmtu6_query(const uint8_t remote6[16], const char *dev, uint8_t src[16])
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), mtu = 0;
	socklen_t len = sizeof(mtu);

	memset(src, 0, 16);
	if (fd < 0)
		return 0;
	if (bind_dev(fd, dev) < 0)
		goto out;
	memcpy(&sa.sin6_addr, remote6, 16);
	/* A link-local remote is on `dev`'s link (ip6_tnl_get_cap wants dev for it). */
	if (dev && dev[0] && IN6_IS_ADDR_LINKLOCAL(&sa.sin6_addr))
		sa.sin6_scope_id = if_nametoindex(dev);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &len) < 0 || mtu <= 0) {
		mtu = 0;
		goto out;
	}
	len = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sin6_family == AF_INET6)
		memcpy(src, &sa.sin6_addr, 16);
out:
	close(fd);
	return (uint32_t)mtu;
}

int route_src4(uint32_t remote, const char *dev, uint32_t *src)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(9) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

	if (fd < 0)
		return -errno;
	wr32((uint8_t *)&sa.sin_addr, remote);
	if (bind_dev(fd, dev) < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		r = -errno;
	else
		*src = rd32((const uint8_t *)&sa.sin_addr);
	close(fd);
	return r;
}

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* The fd, or -errno. */
static int udp_open(uint32_t local, uint16_t port, const char *dev)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), on = 1;

	if (fd < 0)
		return -errno;
	wr32((uint8_t *)&sa.sin_addr, local);
	if (setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on)) < 0 || bind_dev(fd, dev) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return close_errno(fd);
	set_bufs(fd);
	return fd;
}

int udp_rx_open(uint16_t port)
{
	int fd = udp_open(0, port, NULL), on = 1;

	if (fd < 0)
		return fd;
	/* IP_PKTINFO: the destination address and device, for the lookup. */
	if (setsockopt(fd, IPPROTO_UDP, UDP_GRO, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) < 0 || fcntl_nonblock(fd) < 0)
		return close_errno(fd);
	return fd;
}

int udp_tx_setup(int fd, int pmtudisc_mode, int csum)
{
	int nocheck = !csum;

	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtudisc_mode, sizeof(pmtudisc_mode)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &nocheck, sizeof(nocheck)) < 0)
		return -errno;
	return 0;
}

int udp_tx_open(uint32_t local, uint16_t port, const char *dev, int pmtudisc_mode, int csum)
{
	int fd = udp_open(local, port, dev);

	if (fd < 0)
		return fd;
	if (udp_tx_setup(fd, pmtudisc_mode, csum) < 0)
		return close_errno(fd);
	return fd;
}

int tcp_listen(const struct sitd_listen *l, int backlog)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(l->port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(l->port) };
	int fd = socket(l->family == 6 ? AF_INET6 : AF_INET,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), on = 1;

	if (fd < 0)
		return -errno;
	memcpy(&a4.sin_addr, l->addr, 4);
	memcpy(&a6.sin6_addr, l->addr, 16);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
	    (l->family == 6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) :
			      bind(fd, (struct sockaddr *)&a4, sizeof(a4))) < 0 ||
	    listen(fd, backlog) < 0)
		return close_errno(fd);
	return fd;
}

int udp6_rx_open(uint16_t port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), on = 1;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_UDP, UDP_GRO, &on, sizeof(on)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || fcntl_nonblock(fd) < 0)
		return close_errno(fd);
	set_bufs(fd);
	return fd;
}
