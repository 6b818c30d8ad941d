/* SPDX-License-Identifier: MIT */
/*
 * The tunnel table at run time (doc/architecture.md, "The daemon"):
 *
 *  - tunnels: a TUN device each, with its settings and counters, nothing else;
 *  - outer paths: one receive socket per outer protocol (raw 41, raw 4) and per FOU/GUE
 *    port, shared by every tunnel that receives through it, each with a lookup table
 *    (table.h) that says which tunnel a packet belongs to;
 *  - a fixed pool of workers: each owns some TUN devices (it transmits what they give)
 *    and some outer paths (it receives, looks up, decapsulates, merges and writes to the
 *    tunnel's TUN device).
 *
 * Only the control thread (the caller of this API) adds or removes tunnels.  It builds new
 * tables and publishes them; workers never lock.  What a worker might still be using is
 * freed only once every worker has passed a quiescent state (qsbr.h).
 */
#ifndef SITD_DAEMON_H
#define SITD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/stats.h"
#include "proto/event.h"

struct sitd_daemon;
struct tunnel;

/*
 * Prepare `workers` workers (0: one per CPU); NULL (logged) on failure.  Their threads
 * start with daemon_run(), after the privileges are dropped: capabilities are per thread.
 */
struct sitd_daemon *daemon_new(unsigned workers, bool tx_packet, bool rx_ring);
int daemon_run(struct sitd_daemon *d);
unsigned daemon_workers(const struct sitd_daemon *d);

/*
 * Create the devices and sockets of n tunnels and put them in the table, all in one
 * publication.  ok[i] says whether c[i] runs; a failure is logged with its reason.
 * Returns how many failed.
 */
unsigned daemon_add(struct sitd_daemon *d, const struct sitd_conf *c, unsigned n, bool *ok);

/*
 * Take the named tunnels out of the table, then close their devices: removed with
 * `delete`, else left (persistent) for the tunnel to be started again with other
 * settings, as `ip tunnel change` keeps the device.
 */
void daemon_remove(struct sitd_daemon *d, const char *const *names, unsigned n, bool delete);

/* Change a running tunnel's 6rd settings (`sitd 6rd`); -1: no such tunnel, or no memory. */
struct sitd_6rd;
int daemon_set_6rd(struct sitd_daemon *d, const char *name, const struct sitd_6rd *rd);

/* Change an ISATAP tunnel's PRL (`sitd prl`): 0, -ENODEV (no such ISATAP tunnel), or the
 * kernel's errno for the change (sitd_prl_apply). */
struct sitd_prl_cmd;
int daemon_prl(struct sitd_daemon *d, const struct sitd_prl_cmd *cmd);

/* The running tunnels, in the order they were added. */
unsigned daemon_count(const struct sitd_daemon *d);
struct tunnel *daemon_tunnel(const struct sitd_daemon *d, unsigned i);
struct tunnel *daemon_find(const struct sitd_daemon *d, const char *name);

/* A tunnel's settings as asked (before defaults), as in effect, and its counters. */
const struct sitd_conf *tunnel_req(const struct tunnel *t);
const struct sitd_conf *tunnel_conf(const struct tunnel *t);
void tunnel_stats(const struct tunnel *t, struct sitd_stats *s);
uint32_t tunnel_path_mtu(const struct tunnel *t);
/* The device is up (IFF_UP), as the link notifications last said. */
bool tunnel_up(const struct tunnel *t);
/* Its keepalive state for show at now (now_ns); all zero, since_rx -1, when off. */
struct sitd_show_keepalive;
void tunnel_keepalive(const struct tunnel *t, struct sitd_show_keepalive *s, uint64_t now);

/* Counters of the process: packets that matched no tunnel, and the like. */
void daemon_stats(const struct sitd_daemon *d, struct sitd_stats *s);

/* What `sitd status` shows of the outer paths: one line each, into buf. */
size_t daemon_describe_paths(const struct sitd_daemon *d, char *buf, size_t cap, bool json);

/*
 * The control thread's periodic work (every second): read the path MTU again for the
 * tunnels that sent since the last time, so that a learned MTU that expired grows back.
 */
void daemon_tick(struct sitd_daemon *d);

/*
 * Link notifications (the device MTU as `ip link set` changes it) and the workers' asks
 * (a path MTU to read again, path.c): one fd to poll, an epoll of both, and read.
 */
int daemon_netlink_fd(const struct sitd_daemon *d);
void daemon_netlink_read(struct sitd_daemon *d);
/* How often notifications were lost (the socket overflowed) and the state dumped again. */
void daemon_netlink_stats(const struct sitd_daemon *d, uint64_t *overruns, uint64_t *resyncs);
/* `netns`: whether the tunnel's namespace is gone; namespaces seen gone, tunnels back. */
bool tunnel_netns_gone(const struct tunnel *t);
void daemon_netns_stats(const struct sitd_daemon *d, uint64_t *lost, uint64_t *back);

/*
 * `sitd monitor`'s events (daemon/events.c): an eventfd readable while events wait, and
 * up to max of them read, oldest first; how many were lost to a full queue.  A reload's
 * tunnels added, removed and changed are posted by the caller.  The queue is the process's.
 */
int daemon_events_fd(void);
unsigned daemon_events_read(struct sitd_event *out, unsigned max);
uint64_t daemon_events_lost(void);
void daemon_event_tunnel(const char *name, enum sitd_event_kind kind);

/*
 * Stop the workers and close everything.  The devices stay (DAEMON_KEEP: a restart or
 * an upgrade takes them over with their addresses and routes), or go (DAEMON_DELETE), or
 * only those this sitd created go (DAEMON_UNDO: a start that failed).
 */
enum daemon_end { DAEMON_KEEP, DAEMON_DELETE, DAEMON_UNDO };
void daemon_free(struct sitd_daemon *d, enum daemon_end end);

#endif
