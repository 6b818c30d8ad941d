/* SPDX-License-Identifier: MIT */
/*
 * The monitor, the parent of privilege separation (privsep.h), as OpenBSD ntpd's parent:
 * its loop (the child's requests, the signals it forwards, the child's end), and each
 * request checked against its own state before it is served: a TUN device only for a
 * tunnel of the configuration as the monitor read it, a device change only on a device
 * it opened, an address or route added only when that tunnel's stanza lists it.
 * Functions return 0 or -errno (an fd: the fd or -errno); the answer carries a positive
 * errno (privmsg.h).
 */
#include "priv/privsep.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/log.h"
#include "os/nl.h"
#include "os/sock.h"
#include "os/tun.h"
#include "priv/priv.h"
#include "priv/privsep_int.h"
#include "proto/privmsg.h"

struct owned {
	unsigned ifindex;
	char name[IF_NAMESIZE];
};

static struct {
	int fd;				/* the monitor's end */
	pid_t child;
	const char *config;
	privsep_load_fn load;
	const struct ctl_listener *ctl;
	struct owned *dev;
	size_t ndev, capdev;
	struct sitd_conf *confs;		/* the configuration, as the monitor read it */
	unsigned nconfs;
} mon;

static int set_confs(const struct sitd_conf *c, unsigned n)
{
	struct sitd_conf *copy = calloc(n ? n : 1, sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	memcpy(copy, c, n * sizeof(*copy));
	free(mon.confs);
	mon.confs = copy;
	mon.nconfs = n;
	return 0;
}

static const struct sitd_conf *conf_named(const char *name)
{
	for (unsigned i = 0; i < mon.nconfs; i++)
		if (!strcmp(mon.confs[i].name, name))
			return &mon.confs[i];
	return NULL;
}

/* The configuration as the file has it now (a reload adds tunnels, or changes them). */
static void reread(void)
{
	struct sitd_conf *c;
	unsigned n = 0;

	if (!mon.config || !mon.load)
		return;
	c = mon.load(mon.config, &n);
	if (c)
		(void)set_confs(c, n);
	free(c);
}

static bool addr_listed(const struct sitd_conf *c, const struct sitd_prefix *p)
{
	static const uint8_t zero6[6];

	for (unsigned i = 0; i < c->naddrs; i++)
		if (c->addrs[i].family == p->family && c->addrs[i].len == p->len &&
		    !memcmp(c->addrs[i].addr, p->addr, sizeof(p->addr)))
			return true;
	/* ISATAP's own link-local, in fe80::/64 (RFC 5214 6.2). */
	return c->isatap && p->family == 6 && p->len == 64 && p->addr[0] == 0xfe &&
	       p->addr[1] == 0x80 && !memcmp(p->addr + 2, zero6, sizeof(zero6));
}

static bool route_listed(const struct sitd_conf *c, const struct sitd_route *r)
{
	for (unsigned i = 0; i < c->nroutes; i++) {
		const struct sitd_route *x = &c->routes[i];

		if (x->dst.family == r->dst.family && x->dst.len == r->dst.len &&
		    !memcmp(x->dst.addr, r->dst.addr, sizeof(r->dst.addr)) &&
		    !memcmp(x->via, r->via, sizeof(r->via)) && x->metric == r->metric &&
		    x->table == r->table)
			return true;
	}
	return false;
}

/*
 * What the configuration says of the tunnel `name`: a device for it at all (r NULL), or
 * the address or route r adds.  Asked of the configuration read at start, then of the
 * file as it is now.
 */
static bool configured(const char *name, const struct priv_req *r)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct sitd_conf *c = conf_named(name);

		if (c && (!r || (r->type == PRIV_ADDR ? addr_listed(c, &r->route.dst) :
				 route_listed(c, &r->route))))
			return true;
		if (pass == 0)
			reread();
	}
	return false;
}

/* A TUN device the monitor opened, by index or by name, and still the same device. */
static const char *owned_index(unsigned ifindex)
{
	char now[IF_NAMESIZE];

	for (size_t i = 0; i < mon.ndev; i++)
		if (mon.dev[i].ifindex == ifindex)
			return if_indextoname(ifindex, now) && !strcmp(now, mon.dev[i].name) ?
				       mon.dev[i].name : NULL;
	return NULL;
}

static bool owned_name(const char *name)
{
	for (size_t i = 0; i < mon.ndev; i++)
		if (!strcmp(mon.dev[i].name, name))
			return if_nametoindex(name) == mon.dev[i].ifindex;
	return false;
}

static void own(const char *name)
{
	unsigned ifindex = if_nametoindex(name);
	size_t i;

	for (i = 0; i < mon.ndev; i++)
		if (!strcmp(mon.dev[i].name, name) || mon.dev[i].ifindex == ifindex)
			break;
	if (i == mon.ndev) {
		if (mon.ndev == mon.capdev) {
			size_t cap = mon.capdev ? mon.capdev * 2 : 64;
			struct owned *n = realloc(mon.dev, cap * sizeof(*n));

			if (!n)
				return;	/* then its later requests are refused: safe */
			mon.dev = n;
			mon.capdev = cap;
		}
		mon.ndev++;
	}
	mon.dev[i].ifindex = ifindex;
	snprintf(mon.dev[i].name, sizeof(mon.dev[i].name), "%s", name);
}

/* Readiness for systemd (Type=notify): the documented datagram to $NOTIFY_SOCKET. */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0';	/* an abstract socket */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa, len) < 0)
		log_warn("cannot tell systemd that sitd is ready");
	if (fd >= 0)
		close(fd);
}

static int icmp6_open(void)
{
	int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6), e;
	int hops = 255;	/* neighbour discovery is refused with any other (RFC 4861 6.1.1) */

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof(hops)) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static int refuse(const struct priv_req *r)
{
	log_warnx("monitor: %s refused: not a device sitd opened", priv_type_name(r->type));
	return -EPERM;
}

/* An os/ call's fd, or -1 with errno, as fd or -errno. */
static int fd_or_errno(int fd)
{
	return fd >= 0 ? fd : errno ? -errno : -EIO;
}

/* Do what r asks; an fd to pass in *fd; 0 or -errno. */
static int serve(const struct priv_req *r, struct priv_rep *rep, int *fd)
{
	bool existed = false;
	const char *dev;
	int e;

	*fd = -1;
	errno = 0;
	switch ((enum priv_type)r->type) {
	case PRIV_TUN_OPEN:
		if (!configured(r->name, NULL)) {
			log_warnx("monitor: tun-open refused: \"%s\" is no tunnel of the configuration",
				  r->name);
			return -EPERM;
		}
		*fd = fd_or_errno(tun_open(r->name, r->flag, &rep->offloads, &existed));
		rep->existed = existed;
		if (*fd >= 0)
			own(r->name);
		break;
	case PRIV_RAW_OPEN:
		*fd = fd_or_errno(raw_open(r->proto));
		break;
	case PRIV_RAW_SEND_OPEN:
		*fd = fd_or_errno(raw_send_open());
		break;
	case PRIV_ICMP6_OPEN:
		*fd = icmp6_open();
		break;
	case PRIV_UDP_RX_OPEN:
		*fd = fd_or_errno(udp_rx_open(r->port));
		break;
	case PRIV_UDP_TX_OPEN:
		*fd = fd_or_errno(udp_tx_open(r->local, r->port, r->name, r->pmtudisc, r->flag));
		break;
	case PRIV_CONFIG_OPEN:
		if (!mon.config)
			return -ENOENT;
		*fd = fd_or_errno(open(mon.config, O_RDONLY | O_CLOEXEC | O_NOCTTY));
		break;
	case PRIV_LINK_MTU:
		if (!owned_name(r->name))
			return refuse(r);
		return link_set_mtu(r->name, r->mtu) < 0 ? -errno : 0;
	case PRIV_LINK_UP:
	case PRIV_ADDR:
	case PRIV_ROUTE:
	case PRIV_ISATAP:
		if (!(dev = owned_index(r->ifindex)))
			return refuse(r);
		/* Added: only what the tunnel's stanza lists (taking off is always allowed). */
		if ((r->type == PRIV_ADDR || r->type == PRIV_ROUTE) && r->flag &&
		    !configured(dev, r)) {
			log_warnx("monitor: %s refused: not in %s's configuration",
				  priv_type_name(r->type), dev);
			return -EPERM;
		}
		if (r->type == PRIV_LINK_UP)
			e = nl_link_up(r->ifindex);
		else if (r->type == PRIV_ADDR)
			e = nl_addr(r->flag, r->ifindex, &r->route.dst);
		else if (r->type == PRIV_ROUTE)
			e = nl_route(r->flag, r->ifindex, &r->route);
		else
			e = nl_isatap_setup(r->ifindex, r->token);
		return e;
	case PRIV_READY:
		notify_ready();
		return 0;
	case PRIV_PACKET_OPEN:
		*fd = fd_or_errno(packet_open());
		break;
	}
	if (*fd < 0) {
		e = *fd;
		*fd = -1;
		return e;
	}
	rep->has_fd = 1;
	return 0;
}

static void reply(struct priv_rep *rep, int fd)
{
	union cmsg_fd cbuf;
	struct iovec iov = { .iov_base = rep, .iov_len = sizeof(*rep) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf.buf;
		m.msg_controllen = sizeof(cbuf.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	/* A child that cannot take the answer is ending: its SIGCHLD ends the monitor. */
	(void)sendmsg(mon.fd, &m, MSG_NOSIGNAL);
	if (fd >= 0)
		close(fd);
}

static void handle(const void *buf, size_t len)
{
	struct priv_rep rep;
	struct priv_req r;
	const char *why;
	int fd = -1;

	memset(&rep, 0, sizeof(rep));
	if (priv_req_parse(buf, len, &r, &why) < 0) {
		log_warnx("monitor: a malformed request refused (%s)", why);
		rep.err = EINVAL;
	} else {
		rep.err = -serve(&r, &rep, &fd);
	}
	reply(&rep, fd);
}

static _Noreturn void finish(int status)
{
	int code = 1;

	ctl_unlink(mon.ctl);
	if (WIFEXITED(status)) {
		code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		/* A crash: the devices stay (persistent), and so do their addresses and routes;
		 * the next start takes them over. */
		log_warnx("the packet process died of signal %d; the devices stay for the next start",
			  WTERMSIG(status));
	}
	exit(code);
}

static _Noreturn void monitor(void)
{
	sigset_t set;
	int sfd, status;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		kill(mon.child, SIGTERM);
		log_fatal("monitor: signalfd");
	}
	priv_drop_monitor(mon.child);
	for (;;) {
		struct pollfd p[2] = { { .fd = mon.fd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
		uint8_t buf[sizeof(struct priv_req) + 1];

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGCHLD) {
					if (waitpid(mon.child, &status, WNOHANG) == mon.child)
						finish(status);
				} else {
					kill(mon.child, (int)si.ssi_signo);
				}
			}
		}
		if (p[0].revents & POLLIN) {
			/* One byte more than a request: a longer one is seen, and refused. */
			ssize_t n = recv(mon.fd, buf, sizeof(buf), 0);

			if (n > 0)
				handle(buf, (size_t)n);
			else if (n == 0)
				p[0].revents |= POLLHUP;
		}
		if (p[0].revents & (POLLHUP | POLLERR) && !(p[0].revents & POLLIN)) {
			/* The child closed its end: it is ending; wait for it. */
			while (waitpid(mon.child, &status, 0) < 0)
				if (errno != EINTR)
					finish(0);
			finish(status);
		}
	}
}

_Noreturn void monitor_run(int fd, pid_t child, const char *config, privsep_load_fn load,
			  const struct sitd_conf *conf, unsigned n, const struct ctl_listener *ctl)
{
	mon.fd = fd;
	mon.child = child;
	mon.config = config;
	mon.load = load;
	mon.ctl = ctl;
	if (set_confs(conf, n) < 0) {
		kill(child, SIGTERM);
		log_fatalx("monitor: out of memory");
	}
	monitor();
}
