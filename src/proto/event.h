/* SPDX-License-Identifier: MIT */
/*
 * `sitd monitor`'s events (as `ip monitor`): one line of text, or one JSON object, per
 * event, each with its time, tunnel, kind and, where they apply, the old and new value.
 * The daemon fills a struct sitd_event where a change happens (daemon/events.c); the
 * control server formats it here once per format and sends it to every client.
 *
 * Pure: the time comes in the event (CLOCK_REALTIME, taken by the daemon).
 */
#ifndef SITD_EVENT_H
#define SITD_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"

#define SITD_EVENT_KINDS(X)						\
	X(ADDED, "added")		/* a tunnel started by a reload */	\
	X(REMOVED, "removed")		/* stopped by a reload */		\
	X(CHANGED, "changed")		/* restarted with other settings */	\
	X(MTU, "mtu")			/* the path MTU toward the remote */	\
	X(SOURCE, "source")		/* the outer source address in use */	\
	X(CARRIER, "carrier")		/* the device's carrier */

enum sitd_event_kind {
#define SITD_EVENT_ENUM(k, s) SITD_EVENT_##k,
	SITD_EVENT_KINDS(SITD_EVENT_ENUM)
#undef SITD_EVENT_ENUM
	SITD_EVENT_COUNT
};

extern const char *const sitd_event_names[SITD_EVENT_COUNT];

/* An outer address: family 0 (none: the address is not on the host, or no route), 4 or 6. */
struct sitd_event_addr {
	uint8_t family;
	uint8_t a[16];		/* IPv4 in the first 4 bytes, network order */
};

struct sitd_event {
	enum sitd_event_kind kind;
	char name[SITD_IFNAMSIZ];
	uint64_t time_ns;		/* CLOCK_REALTIME */
	uint32_t old_mtu, new_mtu;	/* SITD_EVENT_MTU */
	struct sitd_event_addr old_src, new_src;	/* SITD_EVENT_SOURCE */
	bool up;			/* SITD_EVENT_CARRIER: the new state */
};

/*
 * One event as one line, newline included, into buf (NUL-terminated): text
 *   2025-01-31T12:00:00.000123Z he-ipv6 source 192.0.2.10 -> 192.0.2.20
 * or JSON (json_escape rules: always valid UTF-8, bytes of a name above 0x7f as \u00XX)
 *   {"time":"2025-...Z","timestamp":1738324800.000123,"tunnel":"he-ipv6","event":"source",
 *    "old":"192.0.2.10","new":"192.0.2.20"}
 * Returns the length; 0 when it does not fit cap (SITD_EVENT_LINE_MAX always does).
 */
enum { SITD_EVENT_LINE_MAX = 384 };
size_t sitd_event_format(char *buf, size_t cap, const struct sitd_event *e, bool json);

#endif
