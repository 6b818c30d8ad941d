/* SPDX-License-Identifier: MIT */
/*
 * Inside privilege separation (privsep.h): privsep.c forks, then hands its end of the
 * socketpair to the monitor (monitor.c) in the parent, to the stubs (ps.c) in the child.
 */
#ifndef SITD_PRIVSEP_INT_H
#define SITD_PRIVSEP_INT_H

#include <sys/socket.h>
#include <sys/types.h>

#include "priv/privsep.h"

/* Room for one descriptor's SCM_RIGHTS, aligned as a cmsghdr. */
union cmsg_fd {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int))];
};

/* The child: the ps_* stubs talk over fd from now on. */
void ps_attach(int fd);

/* The parent: serve child's requests over fd until it ends, then exit with its status. */
_Noreturn void monitor_run(int fd, pid_t child, const struct privsep_opts *o);

#endif
