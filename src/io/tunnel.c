/* SPDX-License-Identifier: MIT */
#include "internal.h"


#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmnl/libmnl.h>
#include <linux/errqueue.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gro.h"
#include "icmp.h"
#include "icmperr.h"
#include "log.h"
#include "nl.h"
#include "ratelimit.h"
#include "rx.h"
#include "sock.h"
#include "tun.h"
#include "tx.h"
#include "wire.h"

int fcntl_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ask both threads to stop: they see the flag, and the eventfd ends their poll(). */
void tunnel_wake(struct sitd_tunnel *t)
{
	uint64_t one = 1;

	__atomic_store_n(&t->stopping, true, __ATOMIC_RELEASE);
	if (write(t->stop_fd, &one, sizeof(one)) < 0)
		log_warn("%s: cannot wake the threads", t->conf.name);
}

bool stopping(struct sitd_tunnel *t)
{
	return __atomic_load_n(&t->stopping, __ATOMIC_ACQUIRE);
}

uint32_t path_mtu_get(struct sitd_tunnel *t)
{
	return __atomic_load_n(&t->path_mtu, __ATOMIC_RELAXED);
}

void path_mtu_refresh(struct sitd_tunnel *t)
{
	uint32_t mtu = pmtu_probe(t->probe_fd, t->conf.remote);

	if (mtu && mtu != path_mtu_get(t)) {
		__atomic_store_n(&t->path_mtu, mtu, __ATOMIC_RELAXED);
		log_info("%s: path MTU to remote is %u", t->conf.name, mtu);
	}
}

/*
 * FOU/GUE sockets.  encap-sport auto: a few send sockets on ports the kernel picks, one
 * chosen per inner flow by its hash, so flows spread over source ports as the kernel's
 * udp_flow_src_port() spreads them (over a smaller set).
 */
static int udp_open_all(struct sitd_tunnel *t)
{
	struct sitd_conf *c = &t->conf;
	int df = c->pmtudisc ? IP_PMTUDISC_PROBE : IP_PMTUDISC_DONT;
	unsigned want = c->encap_sport ? 1 : sizeof(t->udp_tx_fd) / sizeof(t->udp_tx_fd[0]);

	t->udp_rx_fd = udp_rx_open(c->local, c->encap_dport, c->dev);
	if (t->udp_rx_fd < 0) {
		log_warn("%s: cannot open the UDP socket for port %u", c->name, c->encap_dport);
		return -1;
	}
	if (c->encap_sport == c->encap_dport) {
		if (udp_tx_setup(t->udp_rx_fd, df, c->encap_csum) < 0) {
			log_warn("%s: cannot set up the UDP socket for port %u", c->name,
				 c->encap_dport);
			return -1;
		}
		t->udp_tx_fd[t->n_udp_tx++] = t->udp_rx_fd;
	}
	while (t->n_udp_tx < want) {
		int fd = udp_tx_open(c->local, c->encap_sport, c->dev, df, c->encap_csum);

		if (fd < 0) {
			log_warn("%s: cannot open a UDP socket for encap-sport %u", c->name,
				 c->encap_sport);
			return -1;
		}
		t->udp_tx_fd[t->n_udp_tx++] = fd;
	}
	/* UDP_SEGMENT needs the checksum: with SO_NO_CHECK the kernel refuses it. */
	t->udp_gso = c->encap_csum;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Close everything tunnel_open() opened; closing the TUN fd removes the device. */
void tunnel_close_only(struct sitd_tunnel *t)
{
	for (unsigned i = 0; i < t->n_udp_tx; i++)
		if (t->udp_tx_fd[i] != t->udp_rx_fd)
			close_fd(&t->udp_tx_fd[i]);
	t->n_udp_tx = 0;
	close_fd(&t->udp_rx_fd);
	close_fd(&t->raw_fd[0]);
	close_fd(&t->raw_fd[1]);
	close_fd(&t->probe_fd);
	close_fd(&t->stop_fd);
	close_fd(&t->tun_fd);
}

int tunnel_open(struct sitd_tunnel *t)
{
	struct sitd_conf *c = &t->conf;
	char desc[256];
	uint32_t underlay;
	int fd;

	t->raw_fd[0] = t->raw_fd[1] = t->udp_rx_fd = t->probe_fd = t->stop_fd = t->tun_fd = -1;
	t->n_udp_tx = 0;
	t->stopping = false;
	memset(&t->damper, 0, sizeof(t->damper));
	if (c->dev[0] && !if_nametoindex(c->dev)) {
		log_warnx("%s: cannot find device \"%s\"", c->name, c->dev);
		return -1;
	}

	/* The TUN device first: it needs CAP_NET_ADMIN, the clearer message. */
	t->tun_fd = tun_open(c->name, !c->nogso, &t->offloads);
	if (t->tun_fd < 0) {
		if (errno == ENOENT || errno == ENODEV)
			log_warn("cannot open /dev/net/tun (is the tun module there?)");
		else if (errno == EACCES)
			log_warn("cannot open /dev/net/tun for \"%s\" as uid %u (an unprivileged sitd "
				 "needs it readable and writable, mode 0666 as Debian ships it)",
				 c->name, (unsigned)getuid());
		else if (errno == EPERM)
			log_warn("cannot create TUN device \"%s\": needs CAP_NET_ADMIN (run as root)",
				 c->name);
		else if (errno == EBUSY || errno == EINVAL)
			log_warn("cannot create TUN device \"%s\" (does a non-TUN device of that name exist?)",
				 c->name);
		else
			log_warn("cannot create TUN device \"%s\"", c->name);
		goto fail;
	}
	t->ifindex = if_nametoindex(c->name);
	t->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->stop_fd < 0) {
		log_warn("%s: eventfd", c->name);
		goto fail;
	}

	if (c->encap != SITD_ENCAP_NONE && udp_open_all(t) < 0)
		goto fail;
	for (int i = 0; i < 2 && c->encap == SITD_ENCAP_NONE; i++) {
		uint8_t proto = i == 0 ? IPPROTO_IPV6 : IPPROTO_IPIP;

		if (c->mode != SITD_MODE_ANY && (uint8_t)c->mode != proto)
			continue;
		fd = raw_open(proto, c->dev);
		if (fd < 0) {
			if (errno == EPERM || errno == EACCES)
				log_warn("cannot open a raw socket for protocol %u: needs CAP_NET_RAW",
					 proto);
			else
				log_warn("cannot open a raw socket for protocol %u", proto);
			goto fail;
		}
		t->raw_fd[i] = fd;
	}
	t->send_fd = t->raw_fd[0] >= 0 ? t->raw_fd[0] : t->raw_fd[1];

	t->probe_fd = pmtu_probe_open(c->local, c->dev);
	if (t->probe_fd < 0) {
		log_warn("%s: cannot open the path MTU probe socket", c->name);
		goto fail;
	}
	underlay = pmtu_probe(t->probe_fd, c->remote);
	if (!underlay) {
		int m = c->dev[0] ? link_get_mtu(c->dev) : -1;

		underlay = m > 0 ? (uint32_t)m : DEFAULT_UNDERLAY_MTU;
		log_warnx("%s: no route to the remote yet; assuming an underlay MTU of %u", c->name,
			  underlay);
	}
	t->path_mtu = underlay;

	/* As the kernel: device MTU = underlay MTU - the encapsulation, unless given. */
	if (!c->mtu) {
		uint32_t m = underlay - sitd_encap_len(c);

		if (m < sitd_mtu_min(c->mode))
			m = sitd_mtu_min(c->mode);
		c->mtu = m;
	}
	if (link_set_mtu(c->name, c->mtu) < 0) {
		log_warn("cannot set the MTU of %s to %u", c->name, c->mtu);
		goto fail;
	}

	sitd_conf_format(c, desc, sizeof(desc));
	log_info("%s, path mtu %u, offloads%s%s%s%s", desc, underlay,
		 t->offloads & TUN_F_CSUM ? " csum" : "", t->offloads & TUN_F_TSO4 ? " tso4" : "",
		 t->offloads & TUN_F_TSO6 ? " tso6" : "", t->offloads & TUN_F_TSO_ECN ? " tso_ecn" : "");
	return 0;
fail:
	tunnel_close_only(t);
	return -1;
}

int tunnel_start(struct sitd_tunnel *t)
{
	/* Allocated once; the loops allocate nothing. */
	struct tx_worker *tw = calloc(1, sizeof(*tw));
	struct rx_worker *rw = calloc(1, sizeof(*rw));
	uint16_t id;

	if (!tw || !rw) {
		log_warn("%s: out of memory", t->conf.name);
		goto fail;
	}
	tw->t = rw->t = t;
	tw->dst.sin_family = AF_INET;
	tw->dst.sin_port = htons(t->conf.encap_dport);	/* 0 for raw sockets, which ignore it */
	wr32((uint8_t *)&tw->dst.sin_addr, t->conf.remote);
	/* A start for the outer ID that differs between runs, as the kernel's is hashed. */
	id = (uint16_t)(now_ns() ^ (uint64_t)getpid());
	sitd_tx_init(&tw->tx, &t->conf, &t->tx_stats, &t->damper, id);
	sitd_rx_init(&rw->rx, &t->conf, &t->rx_stats);
	sitd_gro_init(&rw->gro, !t->conf.nogro, &t->rx_stats);
	rl_init(&rw->relay_rl, 1000, 50);
	rw->nl = nl_link_open();
	if (!rw->nl)
		log_warn("%s: no link notifications; mtu bounds are not enforced", t->conf.name);

	if (fcntl_nonblock(t->tun_fd) < 0) {
		log_warn("%s: O_NONBLOCK", t->conf.name);
		goto fail;
	}
	errno = pthread_create(&t->tx_thread, NULL, tx_main, tw);
	if (errno) {
		log_warn("%s: pthread_create", t->conf.name);
		goto fail;
	}
	errno = pthread_create(&t->rx_thread, NULL, rx_main, rw);
	if (errno) {
		log_warn("%s: pthread_create", t->conf.name);
		tunnel_wake(t);
		pthread_join(t->tx_thread, NULL);
		goto fail;
	}
	t->tx_worker = tw;
	t->rx_worker = rw;
	return 0;
fail:
	if (rw && rw->nl)
		mnl_socket_close(rw->nl);
	free(tw);
	free(rw);
	tunnel_close_only(t);
	return -1;
}

void tunnel_stop(struct sitd_tunnel *t)
{
	struct rx_worker *rw = t->rx_worker;

	tunnel_wake(t);
	pthread_join(t->tx_thread, NULL);
	pthread_join(t->rx_thread, NULL);
	if (rw->nl)
		mnl_socket_close(rw->nl);
	free(t->tx_worker);
	free(t->rx_worker);
	t->tx_worker = t->rx_worker = NULL;
	tunnel_close_only(t);
}

void tunnel_stats(struct sitd_tunnel *t, struct sitd_stats *s)
{
	memset(s, 0, sizeof(*s));
	sitd_stats_sum(s, &t->tx_stats);
	sitd_stats_sum(s, &t->rx_stats);
}

uint32_t tunnel_path_mtu(struct sitd_tunnel *t)
{
	return path_mtu_get(t);
}

void tunnel_print_stats(struct sitd_tunnel *t)
{
	struct sitd_stats s;

	tunnel_stats(t, &s);
	fprintf(stderr, "sitd: %s: stats\n", t->conf.name);
	fprintf(stderr, "  %-22s %u\n", "path_mtu", path_mtu_get(t));
#define PRINT_CTR(name, desc) fprintf(stderr, "  %-22s %" PRIu64 "\n", #name, s.name);
	SITD_COUNTERS(PRINT_CTR)
#undef PRINT_CTR
	for (int i = 0; i < SITD_DROP_MAX; i++)
		fprintf(stderr, "  drop_%-17s %" PRIu64 "\n", sitd_drop_names[i], s.drop[i]);
	fprintf(stderr, "sitd: %s: end stats\n", t->conf.name);
}

