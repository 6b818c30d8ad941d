/* SPDX-License-Identifier: MIT */
/*
 * The control socket: a unix stream socket under /run/sitd, one request line per
 * connection, text back, then close (wireguard-tools' UAPI is the model: easy to script,
 * test and fuzz).  Requests:
 *
 *	show [-s] [-j] [NAME]	anyone who may connect (mode 0660, the control group)
 *	reload			root only, by SO_PEERCRED (never by what the client says)
 *	sandbox			anyone: is the seccomp filter in force?
 */
#ifndef SITD_CTL_H
#define SITD_CTL_H

#include <stddef.h>
#include <sys/types.h>

#define SITD_RUNDIR "/run/sitd"

/* Listen on path: stale sockets are replaced, a live one is an error (-1, errno EADDRINUSE). */
int ctl_listen(const char *path, gid_t gid);

/* The request of one accepted connection, its sender's uid; -1 when none came in time. */
int ctl_read_request(int fd, char *line, size_t len, uid_t *uid);

/* Client: send one request to path and copy the answer to stdout; -1 with errno set. */
int ctl_request(const char *path, const char *request);

#endif
