/* SPDX-License-Identifier: MIT */
/*
 * `sitd metrics` and `-M`'s GET /metrics: the counters of `show -s` and `status` in the
 * Prometheus text exposition format 0.0.4, with names OpenMetrics also takes (a counter
 * is sitd_NAME_total).  Each family has its # HELP and # TYPE once, its samples after
 * them in one group.  Sized for thousands of tunnels: per tunnel, labelled
 * {tunnel, mode, remote, local}, only what is graphed per tunnel (the device's state,
 * MTU and path MTU, packets and bytes each way, the drops in all, and a drop reason only
 * once it counted one); the other counters, and every drop reason (zero included), summed
 * over the process; gauges for the number of tunnels, the build.
 * Pure: the text comes in parts (sitd_metrics_part) of whole lines into the caller's
 * buffer, the tunnels asked for one at a time through a callback, so that neither side
 * holds the text of the whole table.
 */
#ifndef SITD_METRICS_H
#define SITD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/stats.h"
#include "proto/http.h"

struct sitd_metrics_tunnel {
	const struct sitd_conf *conf;
	const struct sitd_stats *stats;
	uint32_t path_mtu;
	bool up;			/* the device is up (IFF_UP) */
};

struct sitd_metrics_process {
	const char *version;
	unsigned workers;
	const struct sitd_stats *stats;	/* process-level: the drops before a lookup */
	const char *const *refused_names; /* system calls seccomp refused, and how often */
	const uint64_t *refused_counts;
	unsigned nrefused;
	uint64_t netlink_overruns, netlink_resyncs;
	/* `sitd monitor`'s clients now, those dropped, events lost; netns gone and back */
	unsigned monitor_clients;
	uint64_t monitor_dropped, events_lost, netns_lost, netns_back;
	const struct sitd_http_stats *http;	/* -M's exporter; NULL: not listening */
};

/*
 * Tunnel i of the table (0, 1, ...) into *t; false when there is none (the list ends).
 * What t points at stays valid until the next call.  A table that changes between
 * two parts (a reload) may give a tunnel twice or not at all in a family.
 */
typedef bool sitd_metrics_tunnel_fn(void *ctx, unsigned i, struct sitd_metrics_tunnel *t);

/* Where a text is: the family next, the tunnel in it; the tunnels' counters summed. */
struct sitd_metrics_cursor {
	unsigned family, next, ntunnels;
	bool done;
	struct sitd_stats total;
};

/*
 * The longest item a part holds: one tunnel's samples of one family (every drop reason
 * counted, the longest labels), or one process family.  A part's buffer holds at least
 * this (unit-tested against the worst case).
 */
enum { SITD_METRICS_PART_MIN = 16384 };

/* A new text: every tunnel read once, its counters summed into c->total. */
void sitd_metrics_begin(struct sitd_metrics_cursor *c, sitd_metrics_tunnel_fn *get, void *ctx);

/*
 * The next part into buf (NUL-terminated): as many whole items as fit in cap bytes,
 * their length in *len.  1: more to come; 0: that was the last (c->done); -1: cap is
 * too small for the next item (nothing written).  p is read for the process's families,
 * which come first.
 */
int sitd_metrics_part(struct sitd_metrics_cursor *c, char *buf, size_t cap, size_t *len,
		      const struct sitd_metrics_process *p, sitd_metrics_tunnel_fn *get, void *ctx);

/*
 * A label value as the format writes it between its quotes: backslash, double quote and
 * newline escaped (\\, \", \n), any byte that is not UTF-8 made U+FFFD (Prometheus
 * refuses a scrape with invalid UTF-8).  Returns the length, as snprintf.
 */
size_t sitd_metrics_escape(char *buf, size_t cap, const char *s);

#endif
