/* SPDX-License-Identifier: MIT */
/*
 * The packet process's side of privilege separation: the ps_* stubs of privsep.h, each
 * one request to the monitor and one answer, serialised by a mutex (the control thread
 * and the workers may ask at once).
 *
 * Each returns 0 or -errno (an fd: the fd or -errno), the monitor's errno when it refused.
 */
#include "priv/privsep.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "os/log.h"
#include "priv/privsep_int.h"
#include "proto/privmsg.h"

static int chan = -1;			/* the child's end */
static pthread_mutex_t chan_lock = PTHREAD_MUTEX_INITIALIZER;

void ps_attach(int fd)
{
	chan = fd;
}

/* One request, one answer; *fd gets the descriptor that came along, if any.  0 or -errno. */
static int call(const void *req, size_t len, struct priv_rep *rep, int *fd)
{
	union cmsg_fd cbuf;
	struct iovec iov = { .iov_base = rep, .iov_len = sizeof(*rep) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
			    .msg_controllen = sizeof(cbuf.buf) };
	ssize_t n;
	int e = 0;

	if (fd)
		*fd = -1;
	if (chan < 0)
		return -ENOTCONN;
	pthread_mutex_lock(&chan_lock);
	do
		n = send(chan, req, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n >= 0) {
		do
			n = recvmsg(chan, &m, MSG_CMSG_CLOEXEC);
		while (n < 0 && errno == EINTR);
	}
	if (n < 0)
		e = errno;
	pthread_mutex_unlock(&chan_lock);
	if (n < 0)
		return -e;
	if (n != (ssize_t)sizeof(*rep))
		return -EPIPE;	/* the monitor is gone */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int))) {
			int got;

			memcpy(&got, CMSG_DATA(c), sizeof(got));
			if (fd && rep->has_fd)
				*fd = got;
			else
				close(got);
		}
	}
	if (rep->err)
		return -rep->err;
	if (rep->has_fd && fd && *fd < 0)
		return -EPROTO;
	return 0;
}

/* The fd that came with the answer, or -errno. */
static int call_fd(struct priv_req *r, struct priv_rep *rep)
{
	int fd, e = call(r, sizeof(*r), rep, &fd);

	return e < 0 ? e : fd;
}

/* A request that is its type alone, answered with an fd or -errno. */
static int call_type_fd(enum priv_type type)
{
	struct priv_req r = { .type = (uint16_t)type };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

static void name_of(char dst[16], const char *src)
{
	memset(dst, 0, 16);
	if (src)
		strncpy(dst, src, 15);
}

int ps_tun_open(const char *name, bool tso, unsigned *offloads, bool *existed, bool *netns)
{
	struct priv_req r = { .type = PRIV_TUN_OPEN, .flag = tso };
	struct priv_rep rep = { 0 };
	int fd;

	name_of(r.name, name);
	fd = call_fd(&r, &rep);
	*netns = fd < 0 && rep.netns;
	if (fd >= 0) {
		*offloads = rep.offloads;
		*existed = rep.existed;
	}
	return fd;
}

int ps_raw_open(uint8_t proto)
{
	struct priv_req r = { .type = PRIV_RAW_OPEN, .proto = proto };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

int ps_raw_send_open(void)
{
	return call_type_fd(PRIV_RAW_SEND_OPEN);
}

int ps_raw6_open(uint8_t proto)
{
	struct priv_req r = { .type = PRIV_RAW6_OPEN, .proto = proto };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

int ps_raw6_send_open(void)
{
	return call_type_fd(PRIV_RAW6_SEND_OPEN);
}

int ps_udp_rx_open(uint16_t port)
{
	struct priv_req r = { .type = PRIV_UDP_RX_OPEN, .port = port };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

int ps_udp6_rx_open(uint16_t port)
{
	struct priv_req r = { .type = PRIV_UDP6_RX_OPEN, .port = port };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

int ps_icmp6_ptb_open(void)
{
	struct priv_req r = { .type = PRIV_ICMP6_PTB_OPEN };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

int ps_udp_tx_open(uint32_t local, uint16_t port, const char *dev, int pmtudisc_mode, int csum)
{
	struct priv_req r = { .type = PRIV_UDP_TX_OPEN, .local = local, .port = port,
			      .pmtudisc = (uint8_t)pmtudisc_mode, .flag = csum != 0 };
	struct priv_rep rep;

	name_of(r.name, dev);
	return call_fd(&r, &rep);
}

int ps_packet_tx_open(void)
{
	return call_type_fd(PRIV_PACKET_TX_OPEN);
}

int ps_ring_open(uint8_t proto)
{
	struct priv_req r = { .type = PRIV_RING_OPEN, .proto = proto };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

int ps_icmp6_dev_open(unsigned ifindex)
{
	struct priv_req r = { .type = PRIV_ICMP6_DEV_OPEN, .ifindex = ifindex };
	struct priv_rep rep;

	return call_fd(&r, &rep);
}

int ps_config_open(void)
{
	return call_type_fd(PRIV_CONFIG_OPEN);
}

int ps_metrics_listen(void)
{
	return call_type_fd(PRIV_METRICS_LISTEN);
}

int ps_link_set_mtu(const char *name, unsigned mtu)
{
	struct priv_req r = { .type = PRIV_LINK_MTU, .mtu = mtu };
	struct priv_rep rep;

	name_of(r.name, name);
	return call(&r, sizeof(r), &rep, NULL);
}

static int call_nl(struct priv_req *r)
{
	struct priv_rep rep;

	return call(r, sizeof(*r), &rep, NULL);
}

int ps_link_up_on(const char *dev, unsigned ifindex)
{
	struct priv_req r = { .type = PRIV_LINK_UP, .ifindex = ifindex };

	name_of(r.name, dev);
	return call_nl(&r);
}

int ps_link_up(unsigned ifindex)
{
	return ps_link_up_on(NULL, ifindex);
}

int ps_addr_on(const char *dev, bool add, unsigned ifindex, const struct sitd_prefix *p)
{
	struct priv_req r = { .type = PRIV_ADDR, .ifindex = ifindex, .flag = add };

	name_of(r.name, dev);
	r.route.dst = *p;
	return call_nl(&r);
}

int ps_tun_doom(unsigned ifindex)
{
	struct priv_req r = { .type = PRIV_TUN_DOOM, .ifindex = ifindex };

	return call_nl(&r);
}

int ps_tun_purge(void)
{
	struct priv_req r = { .type = PRIV_TUN_PURGE };

	return call_nl(&r);
}

int ps_addr(bool add, unsigned ifindex, const struct sitd_prefix *p)
{
	return ps_addr_on(NULL, add, ifindex, p);
}

int ps_route_on(const char *dev, bool add, unsigned ifindex, const struct sitd_route *rt)
{
	struct priv_req r = { .type = PRIV_ROUTE, .ifindex = ifindex, .flag = add };

	name_of(r.name, dev);
	/* Field by field: the padding inside struct sitd_route stays zero. */
	r.route.dst = rt->dst;
	memcpy(r.route.via, rt->via, sizeof(r.route.via));
	r.route.metric = rt->metric;
	r.route.table = rt->table;
	return call_nl(&r);
}

int ps_route(bool add, unsigned ifindex, const struct sitd_route *rt)
{
	return ps_route_on(NULL, add, ifindex, rt);
}

int ps_netns_nl_open(const char *name)
{
	struct priv_req r = { .type = PRIV_NETNS_NL_OPEN };
	struct priv_rep rep;

	name_of(r.name, name);
	return call_fd(&r, &rep);
}

int ps_netns_check(const char *name)
{
	struct priv_req r = { .type = PRIV_NETNS_CHECK };

	name_of(r.name, name);
	return call_nl(&r);
}

int ps_isatap_setup(unsigned ifindex, const uint8_t token[16])
{
	struct priv_req r = { .type = PRIV_ISATAP, .ifindex = ifindex };

	memcpy(r.token, token, sizeof(r.token));
	return call_nl(&r);
}

void ps_ready(void)
{
	struct priv_req r = { .type = PRIV_READY };
	struct priv_rep rep;
	int e = call(&r, sizeof(r), &rep, NULL);

	if (e < 0) {
		errno = -e;
		log_warn("cannot tell the monitor sitd is ready");
	}
}

int ps_raw_request(const void *buf, size_t len)
{
	struct priv_rep rep;
	int fd, e = call(buf, len, &rep, &fd);

	if (e == 0 && fd >= 0)
		close(fd);
	return e;
}
