/* SPDX-License-Identifier: MIT */
/*
 * `sitd show [-s] [-j]`: the tunnels' settings in `ip tunnel show` style, with -s every
 * counter, with -j the same as JSON with stable keys.  One printing path serves both, as
 * iproute2's print_string(PRINT_ANY, ...): each field names its JSON key and its text
 * form once.  Pure: it writes into a buffer.
 */
#ifndef SITD_SHOW_H
#define SITD_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/stats.h"

/* keepalive's state at run time. */
struct sitd_show_keepalive {
	bool up;			/* the carrier: the remote was heard from lately */
	int64_t since_rx;		/* seconds since the last packet from the remote; -1: never */
	uint64_t transitions;		/* carrier changes */
	uint64_t sent, answered;	/* echo requests sent, their replies taken */
	uint64_t no_source;		/* requests not sent: the device had no address */
};

struct sitd_show_tunnel {
	const struct sitd_conf *conf;
	const struct sitd_stats *stats;
	uint32_t path_mtu;
	bool netns_gone;		/* conf->netns no longer names the device's namespace */
	const struct sitd_show_keepalive *ka;	/* NULL: not known (settings only) */
};

/* Format n tunnels; returns the length written (always NUL-terminated, cut at cap). */
size_t sitd_show_format(char *buf, size_t cap, const struct sitd_show_tunnel *t, unsigned n,
			bool stats, bool json);

/*
 * One part of a list streamed in parts (10 000 tunnels need not be one buffer): the
 * first part opens the JSON array and holds a tunnel at least (unless it is also the
 * last), the last closes it, the others continue it.  The parts of one list, put
 * together, are what sitd_show_format gives for the whole.
 */
size_t sitd_show_part(char *buf, size_t cap, const struct sitd_show_tunnel *t, unsigned n,
		      bool stats, bool json, bool first, bool last);

/* `sitd status`: the process, its outer paths and the drops counted for no tunnel. */
struct sitd_show_process {
	unsigned pid, uid, tunnels, workers;
	const char *paths;		/* preformatted by the daemon: lines, or JSON objects */
	const struct sitd_stats *stats;	/* process-level: only the drops before a lookup */
	const char *const *refused_names; /* system calls seccomp refused, and how often */
	const uint64_t *refused_counts;
	unsigned nrefused;
	/* Link notifications lost to a full socket, and the dumps that read it all again. */
	uint64_t netlink_overruns, netlink_resyncs;
	/* `sitd monitor`: its clients now, those dropped for not reading, events lost. */
	unsigned monitor_clients;
	uint64_t monitor_dropped, events_lost;
	/* netns: namespaces seen gone, and tunnels started again in one come back. */
	uint64_t netns_lost, netns_back;
};

/* The drops a worker counts before it knows the tunnel: these belong to the process. */
bool sitd_show_process_drop(int reason);

size_t sitd_show_status(char *buf, size_t cap, const struct sitd_show_process *p, bool json);

#endif
