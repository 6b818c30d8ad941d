/* SPDX-License-Identifier: MIT */
/*
 * Shared by the daemon's files: tunnel.c (the table's lifecycle, the control thread),
 * path.c (path MTU and -T packet next hops), linkwatch.c (netlink notifications),
 * isatap.c, devconf.c (device addresses and routes), outer.c (shared receive paths),
 * worker.c (the pool), txloop.c (TUN -> network) and rxloop.c (network -> TUN).
 */
#ifndef SITD_INTERNAL_H
#define SITD_INTERNAL_H

#include <linux/if_packet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "daemon/daemon.h"
#include "daemon/qsbr.h"
#include "core/gro.h"
#include "core/hindex.h"
#include "core/icmp.h"
#include "core/icmperr.h"
#include "core/ratelimit.h"
#include "core/rx.h"
#include "core/pmtu.h"
#include "core/sixrd.h"
#include "core/table.h"
#include "core/tx.h"
#include "core/wire.h"
#include "proto/event.h"

enum {
	/* The largest IPv6 packet (40 + 65535) with its virtio_net_hdr, and a byte more: a
	 * read that fills it was longer than any packet can be (tx_frame_too_long). */
	FRAME_MAX = VNET_HDR_LEN + IPV6_HDR_LEN + IP_MAX_LEN,
	FRAME_SIZE = FRAME_MAX + 1,
	TX_FRAMES = 16,		/* frames whose segments may wait for one sendmmsg */
	TX_BUDGET = 64,		/* frames read from one TUN device before the next is served */
	RX_BATCH = GRO_BATCH,
	RX_BUDGET = 4,		/* receive batches from one socket before the next is served */
	RX_BUF = IP_MAX_LEN,
	UDP_TX_MAX = 8,		/* encap-sport auto: send sockets, one picked per inner flow */
	UDP_MAX_SEGS = 64,	/* UDP_MAX_SEGMENTS before 1382e3b6a350 */
	PATH_REQS = 64,		/* remote any: path MTU reads a worker may have asked for */
	PATH_LOG_PER_SEC = 5,	/* path MTU lines (an ICMP error can cause one), a second */
	PATH_LOG_BURST = 10,
	PATH_RECENT = 256,	/* remote any: destinations read lately, hashed (path.c) */
	PATH_LOOKUPS_PER_SEC = 256,	/* what the workers' asks may cost, a second */
};

/* What an epoll event is about: the low bits of its data, the rest a pointer. */
enum ev_tag { EV_TUN = 0, EV_OUTER = 1, EV_UDPERR = 2, EV_STOP = 3, EV_RING = 4,
	      EV_KA = 5 /* keepalive.c: an echo request to send */,
	      EV_PTB6 = 6 /* a fou6 port's ICMPv6 Packet Too Big socket (outer.ptb_fd) */ };
#define EV_TAG_MASK 7u	/* the pointers are malloc's, 8-byte aligned at least */

/* The raw paths of an IPv6 underlay (ip6tnl) are their own kinds: other sockets, keys. */
enum outer_kind { OUTER_RAW41, OUTER_RAW4, OUTER_UDP, OUTER_RAW6_41, OUTER_RAW6_4, OUTER_UDP6 };

/* The kinds whose table is a sitd_table6: the IPv6 raw paths and FOU/GUE over IPv6. */
static inline bool outer_is6(enum outer_kind k)
{
	return k == OUTER_RAW6_41 || k == OUTER_RAW6_4 || k == OUTER_UDP6;
}

/* A FOU/GUE port's socket, IPv4 or IPv6 (port and encap set). */
static inline bool outer_is_udp(enum outer_kind k)
{
	return k == OUTER_UDP || k == OUTER_UDP6;
}

struct outer;

/*
 * -R ring: the monitor's AF_PACKET ring beside a raw path's socket, read by the same
 * worker (EV_RING carries it).  Its filter is locked: it takes DF packets of the path's
 * protocol to `locals` (bpf.h), the raw socket the rest.  Other addresses: another ring,
 * swapped in (outer_rings).
 */
struct outer_ring {
	struct outer *o;
	int fd;
	uint8_t *map;			/* RING_BLOCKS blocks of RING_BLOCK bytes */
	unsigned next;			/* the worker's: the block to read next */
	uint32_t *locals;		/* sorted, as the monitor built the filter from them */
	unsigned nlocals;
	bool split;			/* the raw socket's filter is the complement */
	struct outer_ring *retired;	/* the daemon's list of rings to close */
};

/* A shared receive path: one socket, the tunnels that receive through it, their table. */
struct outer {
	enum outer_kind kind;
	uint16_t port;			/* OUTER_UDP, OUTER_UDP6 */
	enum sitd_encap encap;		/* fou or gue, one per port (and family) as the kernel's */
	int fd;
	struct outer_ring *ring;	/* -R ring (raw kinds), or NULL; control thread */
	unsigned refs;			/* tunnels using it */
	unsigned worker;		/* the one that reads it */
	struct sitd_table *table;	/* published: the owner worker reads it, lock-free */
	struct sitd_table6 *table6;	/* the same, for the IPv6 kinds */
	/* A port that tunnels with encap-sport = encap-dport also send from. */
	bool tx_set, tx_csum, tx_pmtudisc;
	/* OUTER_UDP6 with a tunnel that sends from other ports (sitd_conf_needs_ptb6): its
	 * ICMPv6 Packet Too Big socket, read by the port's worker with the port's table;
	 * -1: none.  Kept while the port is. */
	int ptb_fd;
	struct outer *next;
};

/*
 * -T packet: the Ethernet header that takes this tunnel's outer packets to the next hop
 * (from the kernel's route and neighbour tables), its device and MTU.  Immutable,
 * published whole by the control thread.
 */
struct l2path {
	unsigned ifindex;
	uint32_t mtu;
	uint8_t eth[ETH_HDR_LEN];
};

/* IPv6 underlay with local any: the source the route toward remote6 chose (pmtu6_query). */
struct path_src6 {
	uint8_t a[16];
};

struct tunnel {
	struct sitd_conf req;		/* as asked: compared on reload */
	struct sitd_conf conf;		/* in effect (the MTU filled in) */
	int tun_fd;
	bool existed;			/* the device was there before: taken over */
	unsigned ifindex;		/* of the TUN device */
	int up;				/* atomic: the device is up (IFF_UP), for the lookup */
	unsigned link;			/* ifindex of `dev`, 0 = any */
	unsigned offloads;
	unsigned worker;		/* the one that reads the TUN device */
	struct outer *path[2];		/* receive paths: raw 41 and/or raw 4, or one UDP port */
	int udp_tx_fd[UDP_TX_MAX];	/* FOU/GUE send sockets; may be rx[0]'s */
	unsigned n_udp_tx;
	bool udp_gso;			/* UDP_SEGMENT works: one send per super-packet */
	bool gro_off;			/* the kernel refused a merged write: written by rx */
	uint32_t path_mtu;		/* atomic */
	/* path_ptb6_learn: a Packet Too Big no kernel socket took (fou6 from other ports),
	 * which the route does not know: its MTU, until when; atomic, 0: none. */
	uint32_t ptb6_mtu;
	uint64_t ptb6_until;
	struct path_src6 *src6;		/* published; NULL: none known (or local6 given) */
	struct sitd_damper damper;	/* noted by rx, consumed by tx */
	struct sitd_addrs6 *addrs6;	/* published by the control thread; NULL: none */
	struct sitd_routes6 *routes6;	/* remote any: the device's routes, likewise */
	/* linkwatch_resync, control thread: what a dump found, published at its end */
	struct sitd_addrs6 *resync_addrs6;
	struct sitd_routes6 *resync_routes6;
	bool resync_seen;		/* its device was in the link dump */
	struct sitd_6rd *rd;		/* the 6rd settings in effect, likewise (never NULL) */
	struct tunnel_prl *prl;		/* ISATAP's PRL, likewise; NULL: not ISATAP */
	struct sitd_pmtu_cache *pcache;	/* remote any: path MTU per destination (pmtu.h) */
	int pmtu_stale;			/* atomic: a worker saw the path MTU fall, read it again */
	struct l2path *l2;		/* -T packet: published; NULL: through the raw socket */
	int l2_bad;			/* atomic: a send through it failed, resolve again */
	int l2_kick;			/* atomic: the neighbour is stale, one packet the raw way */
	int icmp6_fd;			/* ISATAP: its router solicitations, bound to the device */
	uint64_t rs_next;		/* ISATAP: when to solicit the PRL routers next */
	unsigned rs_sent;
	struct sitd_rx rx;		/* receive settings for sitd_rx_decap */
	/* One writer each: the TUN owner writes tx_stats, the outer owner rx_stats. */
	struct sitd_stats tx_stats, rx_stats;
	uint64_t pmtu_seen_tx;		/* control thread: tx_packets at the last refresh */
	/* events.c: the outer source last reported (control thread), the carrier (atomic:
	 * 0 not known yet, 1 down, 2 up). */
	struct sitd_event_addr ev_src;
	bool ev_src_known;
	int ev_carrier;
	/* `netns`: the device's namespace's link and address notifications (the monitor's,
	 * opened there), its fd also what the device's MTU and flags are read through
	 * (tunnel_at); and whether that namespace is gone (the tunnel down till it is back). */
	struct mnl_socket *nsnl;
	int ns_at;			/* its fd; -1: sitd's namespace */
	bool ns_gone;
	bool leaving;			/* daemon_remove: out of the list in one pass */
	bool doomed;			/* devices_purge: in the monitor's link group */
	/* keepalive (keepalive.c); ka NULL: off */
	struct tunnel_ka *ka;
	uint64_t ka_heard;		/* the receive owner: valid packets from the remote */
	int ka_down;			/* atomic: carrier off; the next packet wakes the control thread */
	int ka_wake;			/* atomic: ... and has woken it */
};

/* The socket the device's MTU, flags and index are read through (tun.h *_at): the
 * netns tunnel's netlink socket, -1 in sitd's own namespace. */
static inline int tunnel_at(const struct tunnel *t)
{
	return t->ns_at;
}

/* A PRL with its own storage, published whole (copy on change). */
struct tunnel_prl {
	struct sitd_prl prl;
	struct sitd_prl_entry e[SITD_PRL_MAX];
};

/* remote any: read the path MTU of tunnel t toward dst again (path_mtu_stale). */
struct path_req {
	struct tunnel *t;
	uint32_t dst;
};

/* Per worker, allocated once: nothing on the per-packet path allocates or locks. */
struct worker {
	struct sitd_daemon *d;
	unsigned id;
	pthread_t thread;
	int ep, stop_fd, raw_tx;
	int raw6_tx;			/* IPv6 underlay: opened with the first such tunnel; atomic */
	uint8_t raw6_src[16];		/* ... the address raw6_tx is bound to; :: while none */
	unsigned raw6_src_retry;	/* ... flushes until a failed bind is tried again */
	uint32_t err_ifindex;		/* errqueue_read: the error's arrival device, 0: unknown */
	int pkt_tx;			/* -T packet: AF_PACKET, or -1 */
	struct qsbr_reader qs;		/* offline while blocked in epoll_wait */
	struct sitd_stats stats;	/* process-level drops this worker saw */
	/* A ring of path MTU reads to do, one producer (the worker: preq_head) and one
	 * consumer (the control thread: preq_tail); path.c. */
	struct path_req preq[PATH_REQS];
	unsigned preq_head, preq_tail;

	/* transmit */
	struct sitd_tx tx;
	struct sockaddr_in dst;
	struct sockaddr_in6 dst6;	/* IPv6 underlay: remote6 */
	struct sockaddr_in6 dst6s[SITD_TX_MAX_OUT];	/* ... remote any: each output's own */
	struct sockaddr_in tdst[SITD_TX_MAX_OUT];	/* per packet, for remote any */
	struct mmsghdr tmsgs[SITD_TX_MAX_OUT];
	struct iovec tiovs[SITD_TX_MAX_OUT * 3];
	struct iovec piovs[SITD_TX_MAX_OUT * 5];	/* -T packet: vnet, Ethernet header, an out's */
	uint8_t pvnet[SITD_TX_MAX_OUT][VNET_HDR_LEN];
	bool l2out[SITD_TX_MAX_OUT];		/* this message goes through pkt_tx */
	struct sockaddr_ll lldst;
	unsigned first_out[SITD_TX_MAX_OUT];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(uint16_t)) +
			    CMSG_SPACE(sizeof(struct in_pktinfo))];
	} tcmsg[SITD_TX_MAX_OUT];
	uint8_t frames[TX_FRAMES][FRAME_SIZE];

	/* receive */
	struct sitd_gro gro;
	struct tunnel *gro_t;		/* the tunnel the GRO batch is for */
	struct sitd_ratelimit relay_rl;
	uint8_t ecmsg[256];
	uint8_t errpkt[RX_BUF];
	uint8_t relay[ICMP6_ERR_MAX];
	struct mmsghdr rmsgs[RX_BATCH];
	struct iovec riovs[RX_BATCH];
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;	/* the raw IPv6 paths' outer source */
	} names[RX_BATCH];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int)) * 2 + CMSG_SPACE(sizeof(struct in_pktinfo)) +
			    CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} rcmsgs[RX_BATCH];
	uint8_t bufs[RX_BATCH][RX_BUF];
};

struct sitd_daemon {
	unsigned nw;
	struct worker **w;
	struct tunnel **t;		/* running tunnels, control thread only */
	unsigned n, cap;
	/* d->t by name and by ifindex (tunnel.c's reindex, read by linkwatch.c too); idx_ok
	 * false: none, scan d->t. */
	struct sitd_hindex by_name, by_ifindex;
	struct sitd_hslot *idx_mem;	/* both indexes' slots, idx_slots each */
	uint32_t idx_slots;
	bool idx_ok;
	struct outer *outers;
	struct outer_ring *rings_retired;	/* unwatched, to close after a grace period */
	unsigned next_tun_worker, next_udp_worker;
	struct qsbr qsbr;		/* what the workers may hold (qsbr.h) */
	bool stopping;
	bool tx_packet;			/* -T packet */
	bool rx_ring;			/* -R ring */
	struct mnl_socket *nl;
	int wake_fd;			/* eventfd: a worker has work for the control thread */
	int wake_pending;		/* atomic: wake_fd was written and not yet drained */
	int ctl_ep;			/* epoll of nl and wake_fd: daemon_netlink_fd */
	struct sitd_host6 *host6;	/* the host's IPv6 addresses, published */
	/* Netlink state that may be stale (linkwatch.c), control thread only: */
	struct sitd_host6 *resync_host6; /* non-NULL: a resync's dumps are being read */
	bool resync_pending;		/* a notification was lost, or a resync failed */
	uint64_t nl_overruns;		/* ENOBUFS or truncated reads of d->nl */
	uint64_t nl_resyncs;		/* dumps that put the mirrored state right */
	struct {			/* other links' last MTU, by ifindex (a small hash) */
		unsigned ifindex, mtu;
	} link_mtu[64];
	/* Settings of tunnels stopped to start again (a changed stanza), for tunnel_open to
	 * take off what the new settings no longer have. */
	struct sitd_conf *prev;
	unsigned nprev;
	bool ev_src_dirty;		/* events.c: an address, route or link changed */
	/* linkwatch.c: a netns tunnel whose socket is being read (its ifindexes are its
	 * namespace's); NULL: d->nl, sitd's own namespace, where netns tunnels are not. */
	struct tunnel *scope;
	uint64_t netns_lost, netns_back;	/* namespaces seen gone, tunnels back */
};

/* tunnel.c */

/* path.c */
uint32_t path_mtu_get(const struct tunnel *t);
/* -T packet: look the tunnel's next hop up again and publish its Ethernet header. */
void path_l2_resolve(struct sitd_daemon *d, struct tunnel *t);
/* Every second: the next hop, and the path MTUs of a tunnel that sent, read again. */
void path_tick(struct sitd_daemon *d, struct tunnel *t);
/* A link that is no tunnel's device has this MTU now. */
void path_link_mtu(struct sitd_daemon *d, unsigned ifindex, unsigned mtu);
/*
 * A worker's send to dst failed for size, or an ICMP error said so: ask the control
 * thread, woken, to read the path MTU again (path_drain), off the packet path.
 */
void path_mtu_stale(struct worker *w, struct tunnel *t, uint32_t dst);
void path_ptb6_learn(struct tunnel *t, uint32_t mtu);	/* a worker's; path.c */
/* The control thread: the path MTU reads the workers asked for.  Also to be called after
 * a grace period that retires tunnels, before they are freed: it empties the rings. */
void path_drain(struct sitd_daemon *d);
/* The path MTU toward the fixed remote again; IPv6 with local any: the route's source too. */
void path_mtu_refresh(struct sitd_daemon *d, struct tunnel *t);
/* remote any: read the path MTU toward dst again, into the tunnel's cache. */
void path_mtu_refresh_dst(struct tunnel *t, uint32_t dst);

/* linkwatch.c */
/* What the devices have now: IPv6 addresses (all, and the host's), and with routes, the
 * IPv6 routes (remote any). */
void linkwatch_dump(struct sitd_daemon *d, bool routes);
/* After a lost notification: every link, address and (remote any) route dumped again and
 * what sitd mirrors set from the dumps, entries not there removed.  0 or -errno (then
 * d->resync_pending: daemon_tick tries again). */
int linkwatch_resync(struct sitd_daemon *d);
/* The netlink socket, and the control thread's wake-up (path_mtu_stale), in one epoll. */
void linkwatch_open(struct sitd_daemon *d);
void linkwatch_close(struct sitd_daemon *d);
/* `netns` tunnels' notifications, each read in its namespace's scope (also at the tick:
 * without the control epoll they wake nothing). */
void linkwatch_netns_read(struct sitd_daemon *d);

/* isatap.c */
bool isatap_global(uint32_t a);
void isatap_setup(const struct tunnel *t);
/* The socket of t's solicitations, from the monitor once its device exists. */
void isatap_open(struct tunnel *t);
void isatap_solicit(struct tunnel *t, uint64_t now);

/* devconf.c */
void devconf_apply(struct sitd_daemon *d, struct tunnel *t);

/* outer.c */
struct outer *outer_get(struct sitd_daemon *d, const struct sitd_conf *c, enum outer_kind k,
			struct outer **closing);
void outer_put(struct sitd_daemon *d, struct outer *o, struct outer **closing);
void outer_close(struct outer *o);
/*
 * -R ring: after daemon_add's tunnels c[0..n), give each raw path the ring whose filter
 * takes the local addresses of the configuration now (the running tunnels' and c's, the
 * stanzas the monitor read); a path whose addresses changed gets a new ring, and its
 * old one, drained, goes to d->rings_retired, for outer_rings_free after a grace period.
 */
void outer_rings(struct sitd_daemon *d, const struct sitd_conf *c, unsigned n);
void outer_rings_free(struct sitd_daemon *d);
/*
 * Build every path's table from the running tunnels and publish them; the tables they
 * replace are appended to old[] (to free after a grace period).  -1 when two tunnels have
 * the same remote, local and device (then *later and *earlier are they) or on no memory.
 */
int outer_rebuild(struct sitd_daemon *d, void **old, unsigned *nold, struct tunnel **later,
		  struct tunnel **earlier);

/* worker.c */
/*
 * Worker i's epoll set: watch fd for events, reporting p with its tag (0 or -errno), and
 * no longer.  Only the control thread adds and removes; the worker only waits.
 */
int worker_watch(struct sitd_daemon *d, unsigned i, int fd, uint32_t events, void *p,
		 enum ev_tag tag);
void worker_unwatch(struct sitd_daemon *d, unsigned i, int fd);
int workers_alloc(struct sitd_daemon *d, unsigned n);
void workers_stop(struct sitd_daemon *d);
void workers_free(struct sitd_daemon *d);

/* txloop.c */
void tx_tunnel(struct worker *w, struct tunnel *t);
/* Send one frame ([vnet header][IP packet]) of sitd's own through t as if read from its
 * device (keepalive); the frame stays untouched until this returns. */
void tx_inject(struct worker *w, struct tunnel *t, uint8_t *frame, uint32_t len);
void tx_udp_errors(struct worker *w, struct tunnel *t);

/* keepalive.c */
struct tunnel_ka;
/* Set up (control thread, tunnel_open) and take down (tunnel_close) t's keepalive. */
int keepalive_open(struct tunnel *t);
void keepalive_close(struct tunnel *t);
/* Its eventfd, for the epoll of the worker that owns the device (EV_KA); -1: off. */
int keepalive_fd(const struct tunnel *t);
/* Every second: liveness, the carrier, and an echo request when one is due. */
void keepalive_tick(struct tunnel *t, uint64_t now);
/* After a wake-up: the tunnels whose remote was heard again while down. */
void keepalive_woken(struct sitd_daemon *d);
/* The worker (EV_KA): send the request the control thread left. */
void keepalive_send(struct worker *w, struct tunnel *t);
/* The receive worker, for each valid packet from the remote: true when it was the
 * reply to a keepalive, consumed. */
bool keepalive_heard(struct worker *w, struct tunnel *t, const uint8_t *p, uint32_t len);

/* errqueue.c */
struct sock_extended_err;
const struct sock_extended_err *errqueue_read(struct worker *w, int fd, size_t *len,
					      struct sockaddr_in *to);
bool errqueue_frag_needed(const struct sock_extended_err *ee);

/* events.c */
/* The path MTU toward t's remote changed (path.c). */
void events_mtu(const struct tunnel *t, uint32_t old, uint32_t mtu);
/*
 * t's carrier is up or down now: an event when it differs from the last one given (the
 * first is the start, not a change).  Any thread; linkwatch.c gives the device's
 * IFF_LOWER_UP, keepalive its verdict.
 */
void events_carrier(struct tunnel *t, bool up);
/* Every tunnel's outer source read again; an event for each that changed (control thread;
 * the first reading of a tunnel is its start). */
void events_sources(struct sitd_daemon *d);

/* rxloop.c */
void rx_outer(struct worker *w, struct outer *o);
void rx_ring(struct worker *w, struct outer_ring *r);
void rx_outer_errors(struct worker *w, struct outer *o);
void rx_ptb6(struct worker *w, struct outer *o);	/* EV_PTB6: outer.ptb_fd readable */

#endif
