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
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/bpf.h"
#include "core/hindex.h"
#include "core/ratelimit.h"
#include "os/clock.h"
#include "os/file.h"
#include "os/log.h"
#include "os/netns.h"
#include "os/nl.h"
#include "os/sock.h"
#include "os/tun.h"
#include "priv/priv.h"
#include "priv/privsep_int.h"
#include "proto/http.h"
#include "proto/privmsg.h"

struct owned {
	unsigned ifindex;		/* in its namespace */
	char name[IF_NAMESIZE];
	/* `netns`: the namespace the device was made in (an fd, so requests act there, not
	 * in whatever the stanza's name points at now), its identity, and whether it is
	 * gone (no longer the one named: closed, nothing more done there). */
	bool netns, gone;
	int nsfd;
	uint64_t ns_dev, ns_ino;
};

/* The sockets the monitor hands out, counted against what the configuration needs. */
enum grant {
	G_RAW41, G_RAW4, G_RAW_SEND, G_ICMP6, G_UDP_RX, G_UDP_TX, G_PACKET, G_RING,
	G_RAW6_41, G_RAW6_4, G_RAW6_SEND, G_NETNS_NL, G_UDP6_RX, G_ICMP6_PTB, G_COUNT
};

static const char *const grant_name[G_COUNT] = {
	"raw sockets for protocol 41", "raw sockets for protocol 4", "raw send sockets",
	"ICMPv6 sockets", "UDP receive sockets", "UDP send sockets", "AF_PACKET sockets",
	"AF_PACKET rings", "IPv6 raw sockets for next header 41", "IPv6 raw sockets for next header 4",
	"IPv6 raw send sockets", "netlink sockets in other namespaces",
	"IPv6 UDP receive sockets", "ICMPv6 Packet Too Big sockets",
};

enum {
	RAW_PER_PROTO = 4,		/* one outer per protocol, reopened when it comes back */
	UDP_TX_PER_TUNNEL = 8,		/* daemon/internal.h's UDP_TX_MAX, encap-sport auto */
	GRANT_SLACK = 4,
};

static struct {
	int fd;				/* the monitor's end */
	pid_t child;
	const char *config;
	privsep_load_fn load;
	const struct ctl_listener *ctl;
	bool tx_packet, rx_ring;
	unsigned workers;
	/* -M: the exporter's socket (or why not, -errno), until it is handed over */
	bool metrics, metrics_given;
	int metrics_fd;
	struct owned *dev;
	size_t ndev, capdev;
	struct sitd_conf *confs;		/* the configuration, as the monitor read it */
	unsigned nconfs;
	/* Granted since the configuration last changed, and whether the cap was logged. */
	unsigned granted[G_COUNT];
	bool capped[G_COUNT];
	int home;			/* `netns`: the monitor's own namespace, to come back to */
	bool setns;			/* CAP_SYS_ADMIN kept: a stanza had netns at start */
	struct sitd_loglimit refusals;	/* mon_refused's lines */
} mon = { .home = -1 };

/*
 * A refusal, or any line a request makes: the packet process asks as often as it likes,
 * so a compromised or looping one could fill the log.  REFUSAL_BURST at once (`sitd
 * sandbox` alone asks for about 10 refusals), then one every REFUSAL_INTERVAL, about the
 * kernel's printk_ratelimit (10 per 5 s); those left out are said by count, before the
 * next line or once they stop for a second (monitor()).
 */
#define REFUSAL_INTERVAL_NS 500000000ull
#define REFUSAL_QUIET_NS 1000000000ull
enum { REFUSAL_BURST = 20 };

static void say_suppressed(uint64_t n)
{
	log_warnx("monitor: %" PRIu64 " refusal line(s) suppressed (%" PRIu64 " in all)", n,
		  mon.refusals.total);
}

__attribute__((format(printf, 1, 2))) static void mon_refused(const char *fmt, ...)
{
	char line[512];
	uint64_t left;
	va_list ap;

	if (!ll_allow(&mon.refusals, now_ns(), &left))
		return;
	if (left)
		say_suppressed(left);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_warnx("%s", line);
}

/*
 * The stanzas by name, the devices by name and by ifindex (core/hindex.h): each of 10 000
 * tunnels' requests finds its own in O(1), not in a scan of all.  Without memory
 * (ok false), a scan.
 */
struct idx {
	struct sitd_hindex x;
	struct sitd_hslot *mem;
	uint32_t slots;
	bool ok;
};

static struct idx conf_idx, devname_idx, devif_idx;

static void idx_reset(struct idx *ix, uint32_t n)
{
	uint32_t s = sitd_hindex_slots(n);

	ix->ok = false;
	if (!s)
		return;
	if (s > ix->slots) {
		struct sitd_hslot *m = realloc(ix->mem, s * sizeof(*m));

		if (!m)
			return;
		ix->mem = m;
		ix->slots = s;
	}
	sitd_hindex_init(&ix->x, ix->mem, s);
	ix->ok = true;
}

static void idx_put(struct idx *ix, uint32_t hash, uint32_t i)
{
	if (ix->ok && sitd_hindex_put(&ix->x, hash, i) < 0)
		ix->ok = false;
}

/* The device named `name`, or (name NULL) of ifindex `ifindex` in the monitor's own
 * namespace (a netns device's ifindex is its namespace's): its index, or mon.ndev. */
static size_t dev_find(const char *name, unsigned ifindex)
{
	uint32_t pos = 0, i;
	size_t k;

	if (name && devname_idx.ok) {
		while ((i = sitd_hindex_next(&devname_idx.x, sitd_hash_name(name), &pos)) != SITD_HINDEX_NONE)
			if (i < mon.ndev && !strcmp(mon.dev[i].name, name))
				return i;
		return mon.ndev;
	}
	if (!name && devif_idx.ok) {
		while ((i = sitd_hindex_next(&devif_idx.x, sitd_hash_u32(ifindex), &pos)) != SITD_HINDEX_NONE)
			if (i < mon.ndev && mon.dev[i].ifindex == ifindex && !mon.dev[i].netns)
				return i;
		return mon.ndev;
	}
	for (k = 0; k < mon.ndev; k++)
		if (name ? !strcmp(mon.dev[k].name, name) :
			   mon.dev[k].ifindex == ifindex && !mon.dev[k].netns)
			break;
	return k;
}

/* Device i got its name and ifindex: into both indexes (stale keys stay, compared away). */
static void dev_index(size_t i)
{
	idx_put(&devname_idx, sitd_hash_name(mon.dev[i].name), (uint32_t)i);
	idx_put(&devif_idx, sitd_hash_u32(mon.dev[i].ifindex), (uint32_t)i);
	if (devname_idx.ok && devif_idx.ok)
		return;
	/* Full of stale keys, or new: anew, with room to grow. */
	idx_reset(&devname_idx, (uint32_t)(2 * mon.ndev));
	idx_reset(&devif_idx, (uint32_t)(2 * mon.ndev));
	for (size_t k = 0; k < mon.ndev; k++) {
		idx_put(&devname_idx, sitd_hash_name(mon.dev[k].name), (uint32_t)k);
		idx_put(&devif_idx, sitd_hash_u32(mon.dev[k].ifindex), (uint32_t)k);
	}
}

/* A new configuration: the caps count from zero (a reload reopens what changed). */
static int set_confs(const struct sitd_conf *c, unsigned n)
{
	struct sitd_conf *copy;

	if (mon.confs && n == mon.nconfs && !memcmp(c, mon.confs, n * sizeof(*c)))
		return 0;
	copy = calloc(n ? n : 1, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, c, n * sizeof(*copy));
	free(mon.confs);
	mon.confs = copy;
	mon.nconfs = n;
	idx_reset(&conf_idx, n);
	for (unsigned i = 0; i < n; i++)
		idx_put(&conf_idx, sitd_hash_name(copy[i].name), i);
	memset(mon.granted, 0, sizeof(mon.granted));
	memset(mon.capped, 0, sizeof(mon.capped));
	return 0;
}

static const struct sitd_conf *conf_named(const char *name)
{
	uint32_t pos = 0, k;

	while (conf_idx.ok &&
	       (k = sitd_hindex_next(&conf_idx.x, sitd_hash_name(name), &pos)) != SITD_HINDEX_NONE)
		if (k < mon.nconfs && !strcmp(mon.confs[k].name, name))
			return &mon.confs[k];
	if (conf_idx.ok)
		return NULL;
	for (unsigned i = 0; i < mon.nconfs; i++)
		if (!strcmp(mon.confs[i].name, name))
			return &mon.confs[i];
	return NULL;
}

/*
 * The configuration as the file has it now, read when the packet process opens it for a
 * reload (and never on a refused request: what is granted follows the file root wrote,
 * as file_open_config() checks it, not how often the packet process asks).
 */
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
 * the address or route r adds.
 */
static bool configured(const char *name, const struct priv_req *r)
{
	const struct sitd_conf *c = conf_named(name);

	return c && (!r || (r->type == PRIV_ADDR ? addr_listed(c, &r->route.dst) :
			    route_listed(c, &r->route)));
}

/*
 * Whether c's TUN device may be opened: none there yet, or one as sitd makes them
 * (tun_open: IFF_TUN | IFF_NO_PI | IFF_VNET_HDR, one queue, owner root, no group; or
 * no owner, as sitd made them before), which restarts and upgrades take over.  Any
 * other TUN device is refused, in one line naming it, unless c says takeover: then it
 * is removed for tun_open to make anew, so whoever could attach no longer can (a group
 * cannot be unset: TUNSETGROUP -1 is EINVAL, make_kgid).  0 or -errno (-EEXIST:
 * refused).  Not a TUN device at all: left to tun_open's EINVAL, as before.
 */
static int tun_claim(const struct sitd_conf *c)
{
	char owner[24] = "none", group[24] = "none";
	const char *why;
	struct nl_tun t;
	int e = nl_tun_get(c->name, &t);

	if (e == -ENODEV)
		return 0;
	if (e < 0) {
		log_warn_errno(-e, "monitor: cannot read TUN device \"%s\"", c->name);
		return e;
	}
	if (!t.tun || (t.known && t.type == IFF_TUN && !t.pi && t.vnet_hdr && !t.multi_queue &&
		       t.owner <= 0 && t.group < 0))
		return 0;
	if (t.owner >= 0)
		snprintf(owner, sizeof(owner), "%lld", (long long)t.owner);
	if (t.group >= 0)
		snprintf(group, sizeof(group), "%lld", (long long)t.group);
	if (!t.known)
		why = "the kernel does not say who may attach to it";
	else if (t.owner > 0 || t.group >= 0)
		why = "its owner or group may attach to it";
	else
		why = "not made as sitd makes them (tun mode, vnet headers, one queue)";
	if (!c->takeover) {
		mon_refused("monitor: TUN device \"%s\" of owner %s, group %s not taken over: %s "
			    "(\"takeover\" in its stanza makes it anew)", c->name, owner, group, why);
		return -EEXIST;
	}
	log_info("monitor: TUN device \"%s\" of owner %s, group %s taken over and made anew: %s",
		 c->name, owner, group, why);
	return tun_remove(c->name, t.type == IFF_TAP, t.multi_queue);
}

/* ---- what the configuration needs --------------------------------------------------- */

/*
 * Protocol 41 or 4 received on a raw socket of the outer family `outer` for c
 * (daemon/tunnel.c: outer_get): an IPv4 one for sit/ipip, an IPv6 one for ip6tnl.
 */
static bool carries(const struct sitd_conf *c, enum sitd_outer outer, uint8_t proto)
{
	return c->encap == SITD_ENCAP_NONE && c->outer == outer &&
	       (proto == IPPROTO_IPV6 ? c->mode != SITD_MODE_IPIP : c->mode != SITD_MODE_SIT);
}

static bool any_carries(enum sitd_outer outer, uint8_t proto)
{
	for (unsigned i = 0; i < mon.nconfs; i++)
		if (carries(&mon.confs[i], outer, proto))
			return true;
	return false;
}

/* Some stanza sends over an IPv6 underlay: ip6tnl, and FOU/GUE over IPv6 (fou6), both raw. */
static bool any_outer6(void)
{
	for (unsigned i = 0; i < mon.nconfs; i++)
		if (mon.confs[i].outer == SITD_OUTER_IPV6)
			return true;
	return false;
}

/* Some stanza is fou6 with another encap-sport than encap-dport (sitd_conf_needs_ptb6). */
static bool any_ptb6(void)
{
	for (unsigned i = 0; i < mon.nconfs; i++)
		if (sitd_conf_needs_ptb6(&mon.confs[i]))
			return true;
	return false;
}

static unsigned count_isatap(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < mon.nconfs; i++)
		n += mon.confs[i].isatap;
	return n;
}

/* A stanza receives FOU/GUE on port (its encap-dport). */
static bool udp_rx_listed(uint16_t port, enum sitd_outer outer)
{
	for (unsigned i = 0; i < mon.nconfs; i++)
		if (mon.confs[i].encap != SITD_ENCAP_NONE && mon.confs[i].encap_dport == port &&
		    mon.confs[i].outer == outer)
			return true;
	return false;
}

/* A stanza sends from (local, encap-sport, dev): tunnel.c's udp_tx_all asks so. */
static bool udp_tx_listed(const struct priv_req *r)
{
	for (unsigned i = 0; i < mon.nconfs; i++) {
		const struct sitd_conf *c = &mon.confs[i];

		if (c->encap != SITD_ENCAP_NONE && c->outer == SITD_OUTER_IPV4 && c->local == r->local &&
		    c->encap_sport == r->port && !strncmp(c->dev, r->name, sizeof(c->dev)))
			return true;
	}
	return false;
}

/* How many of kind g the configuration (and -w, -T, -R) can need between two changes. */
static unsigned grant_cap(enum grant g)
{
	unsigned n = 0;

	switch (g) {
	case G_RAW41:
	case G_RAW4:
	case G_RAW6_41:
	case G_RAW6_4:
	case G_ICMP6_PTB:
		return RAW_PER_PROTO;
	case G_ICMP6:
		/* One per ISATAP tunnel, opened again when it is restarted. */
		return 2 * count_isatap() + GRANT_SLACK;
	case G_RAW_SEND:
	case G_RAW6_SEND:
		/* One per worker; the IPv6 ones opened with the first IPv6 tunnel, and kept. */
		return mon.workers + GRANT_SLACK;
	case G_UDP_RX:
	case G_UDP6_RX:
		for (unsigned i = 0; i < mon.nconfs; i++)
			n += mon.confs[i].encap != SITD_ENCAP_NONE &&
			     (mon.confs[i].outer == SITD_OUTER_IPV6) == (g == G_UDP6_RX);
		return 2 * n + GRANT_SLACK;
	case G_UDP_TX:
		for (unsigned i = 0; i < mon.nconfs; i++) {
			const struct sitd_conf *c = &mon.confs[i];

			/* fou6 sends through the IPv6 raw send socket (G_RAW6_SEND). */
			if (c->encap != SITD_ENCAP_NONE && c->outer == SITD_OUTER_IPV4 &&
			    c->encap_sport != c->encap_dport)
				n += c->encap_sport ? 1 : UDP_TX_PER_TUNNEL;
		}
		return 2 * n + GRANT_SLACK;
	case G_PACKET:
		return (mon.tx_packet ? mon.workers : 0) + GRANT_SLACK;
	case G_RING:
		return 2 * RAW_PER_PROTO;
	case G_NETNS_NL:
		/* One per netns tunnel, again when it is started again. */
		for (unsigned i = 0; i < mon.nconfs; i++)
			n += mon.confs[i].netns[0] != 0;
		return 2 * n + GRANT_SLACK;
	case G_COUNT:
		break;
	}
	return 0;
}

/*
 * One more socket of kind g, if `needed` (else why not; NULL: refused without a word)
 * and within its cap: 0 or -EPERM.
 */
static int grant(const struct priv_req *r, enum grant g, bool needed, const char *why)
{
	if (!needed) {
		if (why)
			mon_refused("monitor: %s refused: %s", priv_type_name(r->type), why);
		return -EPERM;
	}
	if (mon.granted[g] >= grant_cap(g)) {
		if (!mon.capped[g])
			mon_refused("monitor: %s refused: %u %s granted, as many as the configuration "
				    "needs", priv_type_name(r->type), mon.granted[g], grant_name[g]);
		mon.capped[g] = true;
		return -EPERM;
	}
	mon.granted[g]++;
	return 0;
}

/* The -R ring's filter for proto, from the monitor's own view of the local addresses, as
 * daemon/outer.c's ring_filters builds it; everything dropped when they do not fit. */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int ring_locked(uint8_t proto)
{
	static struct sock_filter f[SITD_BPF_MAX];
	struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
	uint32_t *l = calloc(mon.nconfs ? mon.nconfs : 1, sizeof(*l));
	unsigned n = 0, k = 0, nf;

	if (!l)
		return -ENOMEM;
	for (unsigned i = 0; i < mon.nconfs; i++)
		if (carries(&mon.confs[i], SITD_OUTER_IPV4, proto) && mon.confs[i].local)
			l[n++] = mon.confs[i].local;
	qsort(l, n, sizeof(*l), cmp_u32);
	for (unsigned i = 0; i < n; i++)
		if (!k || l[k - 1] != l[i])
			l[k++] = l[i];
	nf = sitd_bpf_ring(f, SITD_BPF_MAX, proto, l, k);
	free(l);
	return nf ? ring_locked_open(f, nf) : ring_locked_open(&none, 1);
}

/* ---- namespaces (`netns`) ------------------------------------------------------- */

/* Into the namespace nsfd (-1: stay): 0 or -errno. */
static int ns_enter(int nsfd)
{
	return nsfd < 0 ? 0 : netns_enter(nsfd);
}

/* Back home after entering another namespace (entered): a monitor left elsewhere would
 * open the next sockets there, so failing that is fatal. */
static void ns_leave(bool entered)
{
	int e;

	if (!entered || (e = netns_enter(mon.home)) == 0)
		return;
	kill(mon.child, SIGTERM);
	log_fatalx("monitor: cannot return to its own network namespace: %s", strerror(-e));
}

/* c's namespace, opened and checked (os/netns.h), each refusal in one line: fd or -errno. */
static int ns_open(const struct sitd_conf *c)
{
	char path[128];
	int fd = netns_open(c->netns);

	if (fd >= 0)
		return fd;
	if (netns_path(c->netns, path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "?");
	if (fd == -ENOTTY || fd == -EINVAL)
		mon_refused("monitor: %s: netns %s (%s) refused: %s", c->name, c->netns, path,
			    fd == -EINVAL ? "a namespace, but not a network namespace" :
					    "not a namespace (ip netns, /proc/PID/ns/net)");
	else if (fd == -ENOENT)
		mon_refused("monitor: %s: netns %s (%s) not found", c->name, c->netns, path);
	else
		mon_refused("monitor: %s: netns %s (%s): %s", c->name, c->netns, path, strerror(-fd));
	return fd;
}

/* A TUN device the monitor opened, by index or by name, and still the same device. */
static struct owned *owned_entry(const char *name)
{
	size_t i = dev_find(name, 0);

	return i < mon.ndev ? &mon.dev[i] : NULL;
}

/* One in sitd's own namespace, by index: requests without a device name. */
static const char *owned_index(unsigned ifindex)
{
	char now[IF_NAMESIZE];

	size_t i = dev_find(NULL, ifindex);

	if (i < mon.ndev)
		return if_indextoname(ifindex, now) && !strcmp(now, mon.dev[i].name) ?
			       mon.dev[i].name : NULL;
	return NULL;
}

/*
 * The device `name` of index ifindex (0: any), entered into when it lives in another
 * namespace, and still the same device there: its entry (ns_leave(o->netns) after), or
 * NULL (refused, and home).
 */
static struct owned *owned_enter(const char *name, unsigned ifindex)
{
	struct owned *o = owned_entry(name);
	unsigned now;

	if (!o || (ifindex && o->ifindex != ifindex) || o->gone)
		return NULL;
	if (ns_enter(o->netns ? o->nsfd : -1) < 0)
		return NULL;
	now = if_nametoindex(name);
	if (now != o->ifindex) {
		ns_leave(o->netns);
		return NULL;
	}
	return o;
}

/* Note the device `name` opened, in the namespace the monitor is in now (nsfd: that
 * namespace, taken over; -1: its own). */
static void own(const char *name, int nsfd)
{
	unsigned ifindex = if_nametoindex(name);
	size_t i = dev_find(name, 0), j = dev_find(NULL, ifindex);

	if (nsfd < 0 && j < i)
		i = j;	/* the first with either, as a scan finds it */
	if (i == mon.ndev) {
		if (mon.ndev == mon.capdev) {
			size_t cap = mon.capdev ? mon.capdev * 2 : 64;
			struct owned *n = realloc(mon.dev, cap * sizeof(*n));

			if (!n) {
				if (nsfd >= 0)
					close(nsfd);
				return;	/* then its later requests are refused: safe */
			}
			mon.dev = n;
			mon.capdev = cap;
		}
		mon.ndev++;
	} else if (mon.dev[i].netns && mon.dev[i].nsfd >= 0) {
		close(mon.dev[i].nsfd);
	}
	memset(&mon.dev[i], 0, sizeof(mon.dev[i]));
	mon.dev[i].ifindex = ifindex;
	mon.dev[i].nsfd = nsfd;
	mon.dev[i].netns = nsfd >= 0;
	if (nsfd >= 0 && netns_id(nsfd, &mon.dev[i].ns_dev, &mon.dev[i].ns_ino) < 0)
		mon.dev[i].gone = true;
	snprintf(mon.dev[i].name, sizeof(mon.dev[i].name), "%s", name);
	dev_index(i);
}

/*
 * PRIV_TUN_OPEN: c's device, made or taken over in c's namespace.  A TUN device belongs
 * to the namespace its /dev/net/tun fd was opened in (tun_chr_open: sk_alloc of
 * current->nsproxy->net_ns; tun_set_iff looks the name up in sock_net), so the monitor
 * opens it from inside, and comes back.  The fd or -errno.
 */
static int tun_open_in(const struct sitd_conf *c, const struct priv_req *r, struct priv_rep *rep)
{
	bool existed = false;
	int nsfd = -1, fd, e;

	/* What fails before the device is the namespace's: the packet process says so. */
	rep->netns = c->netns[0] != 0;
	if (c->netns[0] && !mon.setns) {
		mon_refused("monitor: %s: netns %s refused: the monitor keeps CAP_SYS_ADMIN only when a "
			    "stanza has netns at start (restart sitd)", c->name, c->netns);
		return -EPERM;
	}
	if (c->netns[0]) {
		if ((nsfd = ns_open(c)) < 0)
			return nsfd;
		if ((e = netns_enter(nsfd)) < 0) {
			mon_refused("monitor: %s: cannot enter netns %s: %s", c->name, c->netns,
				    strerror(-e));
			close(nsfd);
			return e;
		}
	}
	rep->netns = 0;
	if ((e = tun_claim(c)) < 0) {
		fd = e;
	} else {
		fd = tun_open(r->name, r->flag, &rep->offloads, &existed);
		rep->existed = existed;
	}
	if (fd >= 0) {
		own(r->name, nsfd);
		nsfd = -2;	/* the entry has it */
	}
	ns_leave(c->netns[0] != 0);
	if (nsfd >= 0)
		close(nsfd);
	return fd;
}

/*
 * PRIV_NETNS_CHECK: whether the namespace c names now is the one its device was made in:
 * 0, -ENOENT (none, or not a network namespace: the container stopped, `ip netns del`),
 * -ESTALE (another one: it came back).  Gone, the monitor lets go of the old one.
 */
static int netns_check(const struct sitd_conf *c, struct owned *o)
{
	uint64_t dev, ino;
	int fd = netns_open(c->netns), e;

	if (fd < 0) {
		if (!o->gone) {
			log_warnx("monitor: %s: netns %s is gone: %s", c->name, c->netns, strerror(-fd));
			o->gone = true;
			close(o->nsfd);
			o->nsfd = -1;
		}
		return -ENOENT;
	}
	e = netns_id(fd, &dev, &ino);
	close(fd);
	if (e < 0)
		return e;
	return !o->gone && dev == o->ns_dev && ino == o->ns_ino ? 0 : -ESTALE;
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

/*
 * ISATAP's router solicitations: sent only, so every type is blocked from its receive
 * queue (ICMP6_FILTER); bound to the device when ifindex is given.
 */
static int icmp6_open(unsigned ifindex)
{
	int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6), e;
	int hops = 255;	/* neighbour discovery is refused with any other (RFC 4861 6.1.1) */
	int idx = (int)ifindex;
	struct icmp6_filter none;

	if (fd < 0)
		return -errno;
	ICMP6_FILTER_SETBLOCKALL(&none);
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof(hops)) < 0 ||
	    setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &none, sizeof(none)) < 0 ||
	    (ifindex && setsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &idx, sizeof(idx)) < 0)) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/*
 * fou6 with encap-sport auto: Packet Too Big about packets from ports no socket owns
 * (__udp6_lib_err finds none).  Every other type is blocked before the kernel clones
 * anything for this socket (ipv6_raw_deliver -> icmpv6_filter), so the host's other
 * ICMPv6 traffic costs it nothing.  Received from only; non-blocking for the worker.
 */
static int icmp6_ptb_open(void)
{
	int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ICMPV6), e;
	struct icmp6_filter f;

	if (fd < 0)
		return -errno;
	ICMP6_FILTER_SETBLOCKALL(&f);
	ICMP6_FILTER_SETPASS(ICMP6_PACKET_TOO_BIG, &f);
	if (setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f)) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/*
 * Removing TUN devices one at a time costs the kernel an rcu_barrier each
 * (netdev_run_todo): 1000 took 20 s here.  So the packet process has the devices it
 * removes put into a link group of the monitor's own (PRIV_TUN_DOOM), then asks for the
 * group to go (PRIV_TUN_PURGE), one rtnl_group_dellink and one unregister_netdevice_many
 * for all: 0.3 s.  Only when every link of the group is a device this monitor opened:
 * another process may have put one of its own there.
 */
static uint32_t doom_group(void)
{
	/* Not 0 (the default group, which rtnl_group_dellink refuses), one per monitor. */
	return 0x51740000u | ((uint32_t)getpid() & 0xffffu);
}

static void doom_member(void *arg, unsigned ifindex, uint32_t group)
{
	bool *foreign = arg;

	if (group == doom_group() && !owned_index(ifindex))
		*foreign = true;
}

static int tun_purge(void)
{
	static const struct nl_handlers h = { .group = doom_member };
	bool foreign = false;
	int e = nl_dump_links(&h, &foreign);

	if (e < 0)
		return e;
	if (foreign) {
		mon_refused("monitor: tun-purge refused: link group %u holds a device sitd did not open",
			    doom_group());
		return -EPERM;
	}
	e = nl_link_del_group(doom_group());
	return e == -ENODEV ? 0 : e;
}

static int refuse(const struct priv_req *r)
{
	mon_refused("monitor: %s refused: not a device sitd opened", priv_type_name(r->type));
	return -EPERM;
}

/* Do what r asks; an fd to pass in *fd; 0 or -errno. */
static int serve(const struct priv_req *r, struct priv_rep *rep, int *fd)
{
	const char *dev;
	int e;

	*fd = -1;
	switch ((enum priv_type)r->type) {
	case PRIV_TUN_OPEN:
		if (!configured(r->name, NULL)) {
			mon_refused("monitor: tun-open refused: \"%s\" is no tunnel of the configuration",
				    r->name);
			return -EPERM;
		}
		*fd = tun_open_in(conf_named(r->name), r, rep);
		break;
	case PRIV_NETNS_NL_OPEN:
	case PRIV_NETNS_CHECK: {
		const struct sitd_conf *c = conf_named(r->name);
		struct owned *o = owned_entry(r->name);

		if (!c || !c->netns[0] || !o || !o->netns) {
			mon_refused("monitor: %s refused: \"%s\" is no netns tunnel sitd opened",
				    priv_type_name(r->type), r->name);
			return -EPERM;
		}
		if (r->type == PRIV_NETNS_CHECK)
			return netns_check(c, o);
		if ((e = grant(r, G_NETNS_NL, true, "")) < 0)
			return e;
		if (!owned_enter(r->name, 0))
			return -ENODEV;
		*fd = nl_netns_open();
		ns_leave(true);
		break;
	}
	case PRIV_RAW_OPEN:
		if ((e = grant(r, r->proto == IPPROTO_IPV6 ? G_RAW41 : G_RAW4,
			       any_carries(SITD_OUTER_IPV4, r->proto),
			       "no stanza receives that protocol")) < 0)
			return e;
		*fd = raw_open(r->proto);
		break;
	case PRIV_RAW6_OPEN:
		if ((e = grant(r, r->proto == IPPROTO_IPV6 ? G_RAW6_41 : G_RAW6_4,
			       any_carries(SITD_OUTER_IPV6, r->proto),
			       "no stanza receives that protocol over an IPv6 underlay")) < 0)
			return e;
		*fd = raw6_open(r->proto);
		break;
	case PRIV_RAW6_SEND_OPEN:
		if ((e = grant(r, G_RAW6_SEND, any_outer6(), "no stanza has an IPv6 underlay")) < 0)
			return e;
		*fd = raw6_send_open();
		break;
	case PRIV_RAW_SEND_OPEN:
		if ((e = grant(r, G_RAW_SEND, true, "")) < 0)
			return e;
		*fd = raw_send_open();
		break;
	case PRIV_ICMP6_DEV_OPEN:
		dev = owned_index(r->ifindex);
		if ((e = grant(r, G_ICMP6, dev && conf_named(dev) && conf_named(dev)->isatap,
			       "not an ISATAP device sitd opened")) < 0)
			return e;
		*fd = icmp6_open(r->ifindex);
		break;
	case PRIV_UDP_RX_OPEN:
		if ((e = grant(r, G_UDP_RX, udp_rx_listed(r->port, SITD_OUTER_IPV4),
			       "no stanza's encap-dport is that port")) < 0)
			return e;
		*fd = udp_rx_open(r->port);
		break;
	case PRIV_UDP6_RX_OPEN:
		if ((e = grant(r, G_UDP6_RX, udp_rx_listed(r->port, SITD_OUTER_IPV6),
			       "no IPv6 stanza's encap-dport is that port")) < 0)
			return e;
		*fd = udp6_rx_open(r->port);
		break;
	case PRIV_ICMP6_PTB_OPEN:
		if ((e = grant(r, G_ICMP6_PTB, any_ptb6(),
			       "no fou6 stanza sends from another encap-sport than its encap-dport")) < 0)
			return e;
		*fd = icmp6_ptb_open();
		break;
	case PRIV_UDP_TX_OPEN:
		if ((e = grant(r, G_UDP_TX, udp_tx_listed(r),
			       "no stanza sends from that local address, encap-sport and dev")) < 0)
			return e;
		*fd = udp_tx_open(r->local, r->port, r->name, r->pmtudisc, r->flag);
		break;
	case PRIV_CONFIG_OPEN: {
		const char *why;

		if (!mon.config)
			return -ENOENT;
		*fd = file_open_config(mon.config, &why);
		if (*fd == -EPERM && why)
			mon_refused("monitor: %s: %s", mon.config, why);
		/* A reload: what it may ask for is what the file says now. */
		if (*fd >= 0)
			reread();
		break;
	}
	case PRIV_LINK_MTU: {
		struct owned *o = owned_enter(r->name, 0);

		if (!o)
			return refuse(r);
		e = link_set_mtu(r->name, r->mtu);
		ns_leave(o->netns);
		return e;
	}
	case PRIV_LINK_UP:
	case PRIV_ADDR:
	case PRIV_ROUTE:
	case PRIV_ISATAP: {
		struct owned *o = NULL;

		/* A device name: the tunnel's, in its namespace; none: one in sitd's. */
		if (r->name[0]) {
			if (!(o = owned_enter(r->name, r->ifindex)))
				return refuse(r);
			dev = o->name;
		} else if (!(dev = owned_index(r->ifindex))) {
			return refuse(r);
		}
		/* Added: only what the tunnel's stanza lists (taking off is always allowed). */
		if ((r->type == PRIV_ADDR || r->type == PRIV_ROUTE) && r->flag &&
		    !configured(dev, r)) {
			mon_refused("monitor: %s refused: not in %s's configuration",
				    priv_type_name(r->type), dev);
			e = -EPERM;
		} else if (r->type == PRIV_LINK_UP) {
			e = nl_link_up(r->ifindex);
		} else if (r->type == PRIV_ADDR) {
			e = nl_addr(r->flag, r->ifindex, &r->route.dst);
		} else if (r->type == PRIV_ROUTE) {
			e = nl_route(r->flag, r->ifindex, &r->route);
		} else {
			e = nl_isatap_setup(r->ifindex, r->token);
		}
		ns_leave(o && o->netns);
		return e;
	}
	case PRIV_TUN_DOOM:
		if (!owned_index(r->ifindex))
			return refuse(r);
		return nl_link_set_group(r->ifindex, doom_group());
	case PRIV_TUN_PURGE:
		return tun_purge();
	case PRIV_READY:
		notify_ready();
		return 0;
	case PRIV_PACKET_TX_OPEN:
		if ((e = grant(r, G_PACKET, mon.tx_packet, "sitd runs without -T packet")) < 0)
			return e;
		*fd = packet_tx_open();
		break;
	case PRIV_METRICS_LISTEN:
		if (!mon.metrics) {
			mon_refused("monitor: metrics-listen refused: sitd runs without -M");
			return -EPERM;
		}
		if (mon.metrics_given) {
			mon_refused("monitor: metrics-listen refused: handed over already");
			return -EPERM;
		}
		*fd = mon.metrics_fd;	/* an error, or the socket, which reply() closes here */
		mon.metrics_given = true;
		break;
	case PRIV_RING_OPEN:
		if ((e = grant(r, G_RING, mon.rx_ring && any_carries(SITD_OUTER_IPV4, r->proto),
			       "sitd runs without -R ring, or no stanza receives that protocol")) < 0)
			return e;
		*fd = ring_locked(r->proto);
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
	/*
	 * Never blocking: a child that does not take its answer (its socket buffer full) loses
	 * it and is treated as ending; its SIGCHLD, or the hang-up, ends the monitor.
	 */
	if (sendmsg(mon.fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK)) {
		log_warnx("monitor: the packet process does not read its answers; stopping it");
		shutdown(mon.fd, SHUT_RDWR);
		kill(mon.child, SIGTERM);
	}
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
		mon_refused("monitor: a malformed request refused (%s)", why);
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
	priv_drop_monitor(mon.child, mon.setns);
	for (;;) {
		struct pollfd p[2] = { { .fd = mon.fd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
		uint8_t buf[sizeof(struct priv_req) + 1];
		uint64_t wait = ll_wait_ns(&mon.refusals, now_ns()), left;

		/* Refusal lines left out and not said: said once they have stopped a while. */
		if (poll(p, 2, wait == UINT64_MAX ? -1 : (int)(wait / 1000000 + 1)) < 0)
			continue;
		if ((left = ll_flush(&mon.refusals, now_ns())))
			say_suppressed(left);
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

_Noreturn void monitor_run(int fd, pid_t child, const struct privsep_opts *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	mon.fd = fd;
	mon.child = child;
	mon.config = o->config;
	mon.load = o->load;
	mon.ctl = o->ctl;
	mon.tx_packet = o->tx_packet;
	mon.rx_ring = o->rx_ring;
	ll_init(&mon.refusals, REFUSAL_INTERVAL_NS, REFUSAL_BURST, REFUSAL_QUIET_NS);
	/*
	 * -M: listened on now, before the monitor's filter, which therefore needs no
	 * listen(), no IPv6 bind and no SO_REUSEADDR; the packet process gets it once.
	 */
	mon.metrics = o->metrics != NULL;
	mon.metrics_fd = o->metrics ? tcp_listen(o->metrics, SITD_HTTP_BACKLOG) : -1;
	/* As daemon_new() counts them: -w N, else one per CPU. */
	mon.workers = o->workers ? o->workers : cpus > 0 ? (unsigned)cpus : 1;
	if (set_confs(o->conf, o->n) < 0) {
		kill(child, SIGTERM);
		log_fatalx("monitor: out of memory");
	}
	/* `netns`: setns(2) and its capability only when a stanza has one (least grant). */
	for (unsigned i = 0; i < mon.nconfs; i++)
		mon.setns |= mon.confs[i].netns[0] != 0;
	if (mon.setns && (mon.home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
		kill(child, SIGTERM);
		log_fatal("monitor: /proc/self/ns/net");
	}
	monitor();
}
