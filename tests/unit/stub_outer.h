/* SPDX-License-Identifier: MIT */
/*
 * What test_outer.c puts in place of outer.c's calls below it (stub_outer.c): the
 * monitor's socket openers, the socket options, the workers' epoll sets and the log.
 * Sockets are /dev/null opened, so that outer_close closes real fds.
 */
#ifndef SITD_STUB_OUTER_H
#define SITD_STUB_OUTER_H

#include <stdbool.h>

struct stub_outer {
	unsigned opened;	/* sockets handed out */
	unsigned watched, unwatched;
	unsigned warnings;	/* log_warn and log_warnx */
	unsigned tx_setups;
	bool fail_open, fail_watch, fail_tx_setup;
	unsigned last_worker;	/* of the last worker_watch */
};

extern struct stub_outer stub;

#endif
