/* SPDX-License-Identifier: MIT */
/*
 * Inside privilege separation (privsep.h): what the monitor (monitor.c) and the
 * packet process's stubs (ps.c) share.
 */
#ifndef SITD_PRIVSEP_INT_H
#define SITD_PRIVSEP_INT_H

#include <sys/socket.h>

/* The child's end of the socketpair (ps.c); privsep_start() sets it. */
extern int chan;

/* Room for one descriptor's SCM_RIGHTS, aligned as a cmsghdr. */
union cmsg_fd {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int))];
};

#endif
