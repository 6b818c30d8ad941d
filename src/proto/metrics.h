/* SPDX-License-Identifier: MIT */
/*
 * `sitd metrics` and `-M`'s GET /metrics: every counter of `show -s` and `status` in the
 * Prometheus text exposition format 0.0.4, with names OpenMetrics also takes (a counter
 * is sitd_NAME_total).  Each family has its # HELP and # TYPE once, its samples after
 * them in one group: counters of stats.h's X-lists per tunnel, labelled
 * {tunnel, mode, remote, local}; the drops one family, sitd_drops_total, with a `reason`
 * label (the process's own, rx_no_tunnel and rx_truncated, without the tunnel labels);
 * gauges for the device's state, MTU and path MTU, the number of tunnels, the build.
 * Pure: it writes into a buffer, and says how long the whole text is.
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
 * The text for the process and n tunnels into buf (NUL-terminated, cut at cap); returns
 * the length of the whole text, as snprintf: cut when it is cap or more.
 */
size_t sitd_metrics_format(char *buf, size_t cap, const struct sitd_metrics_process *p,
			   const struct sitd_metrics_tunnel *t, unsigned n);

/*
 * A label value as the format writes it between its quotes: backslash, double quote and
 * newline escaped (\\, \", \n), any byte that is not UTF-8 made U+FFFD (Prometheus
 * refuses a scrape with invalid UTF-8).  Returns the length, as snprintf.
 */
size_t sitd_metrics_escape(char *buf, size_t cap, const char *s);

#endif
