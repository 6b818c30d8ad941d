/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's requests: one line, words separated by spaces.
 *
 *	show [-s] [-j] [NAME]	settings, -s with the counters, -j as JSON
 *	status [-j]		the process: workers, outer paths, drops for no tunnel
 *	reload			re-read the configuration file (root only, server.c)
 *	sandbox			is the seccomp filter in force?
 *	6rd dev NAME ...	a tunnel's 6rd settings, as `ip tunnel 6rd` (root only)
 *	prl dev NAME ...	an ISATAP tunnel's PRL, as `ip tunnel prl` (root only)
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

enum sitd_req { SITD_REQ_SHOW, SITD_REQ_STATUS, SITD_REQ_RELOAD, SITD_REQ_SANDBOX, SITD_REQ_6RD,
	       SITD_REQ_PRL };

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
