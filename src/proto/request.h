/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's requests: one line, words separated by spaces, the first the
 * subcommand's name.  The subcommands are one table, sitd_request_cmds: the parser reads
 * it, the client (client.c) knows its words from it, `sitd --help` prints its usage, and
 * the daemon (requests.c) refuses its root-only ones to any other uid.
 *
 * Parsed by the daemon from whoever may connect, so pure and fuzzed: no I/O, and a
 * request either parses whole or is refused with a message.
 */
#ifndef SITD_REQUEST_H
#define SITD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conf.h"
#include "core/sixrd.h"

enum sitd_req {
	SITD_REQ_SHOW,		/* settings, -s with the counters, -j as JSON */
	SITD_REQ_STATUS,	/* the process: workers, outer paths, drops for no tunnel */
	SITD_REQ_RELOAD,	/* re-read the configuration file */
	SITD_REQ_SANDBOX,	/* the seccomp filter and the monitor's checks, tried */
	SITD_REQ_6RD,		/* a tunnel's 6rd settings, as `ip tunnel 6rd` */
	SITD_REQ_PRL,		/* an ISATAP tunnel's PRL, as `ip tunnel prl` */
	SITD_REQ_MONITOR,	/* follow the events (event.h), -j as JSON lines */
	SITD_REQ_METRICS,	/* every counter, in Prometheus' text format (metrics.h) */
	SITD_REQ_COUNT		/* not a request: how many there are */
};

/* One subcommand. */
struct sitd_request_cmd {
	enum sitd_req kind;
	const char *name;	/* its first word */
	const char *usage;	/* the words after it, for --help ("" when none) */
	bool root_only;		/* it changes something: uid 0 only, by SO_PEERCRED */
	const char *flags;	/* the flag letters it takes (-s, -j) */
	bool takes_name;	/* may name a tunnel */
};

/* Every subcommand, indexed by kind. */
extern const struct sitd_request_cmd sitd_request_cmds[SITD_REQ_COUNT];

/* The subcommand whose name is word[0 .. len), or NULL. */
const struct sitd_request_cmd *sitd_request_cmd_find(const char *word, size_t len);

struct sitd_request {
	enum sitd_req kind;
	bool stats, json;
	char name[SITD_IFNAMSIZ];	/* "" = every tunnel */
	struct sitd_6rd_cmd rd;		/* SITD_REQ_6RD: what to set, on which device */
	struct sitd_prl_cmd prl;	/* SITD_REQ_PRL */
};

/* Parse `len` bytes (no newline); 0, or -1 with one line in err. */
int sitd_request_parse(const char *line, size_t len, struct sitd_request *r, char *err, size_t errlen);

/* The request as its line (what the client sends); the length, cut to fit cap. */
size_t sitd_request_format(const struct sitd_request *r, char *buf, size_t cap);

#endif
