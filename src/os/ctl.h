/* SPDX-License-Identifier: MIT */
/*
 * The control socket: a unix stream socket, one request line per connection, text back,
 * then close (wireguard-tools' UAPI is the model: easy to script, test and fuzz).  The
 * requests and their rights are server.c's; this file has the socket's life.
 *
 * Its default place is per network namespace, /run/sitd/ns-INODE/NAME.sock, INODE being
 * that of /proc/self/ns/net (namespaces(7): the namespace's identity): the same tunnel
 * name can then run in several namespaces at once, and `sitd show` run inside one finds
 * that namespace's daemons, whatever `ip netns` called it.
 */
#ifndef SITD_CTL_H
#define SITD_CTL_H

#include <stddef.h>
#include <sys/types.h>

#define SITD_RUNDIR "/run/sitd"

/* This namespace's directory of control sockets, into buf: 0 or -errno. */
int ctl_dir(char *buf, size_t len);

struct ctl_listener {
	int fd;
	dev_t dev;
	ino_t ino;
	char path[108];
};

/*
 * Listen on path, mode 0660 and group gid (-1: unchanged), its directory created (mode
 * 0755; the monitor, which stays root, removes the socket at exit).  0 or -errno.  A
 * stale socket is replaced; a live one is an error (-EADDRINUSE), and so is a file that
 * is not a socket (-EEXIST): nothing but a socket is ever removed.  The socket is created
 * with mode 0600 and only then opened to the group: never wider than promised.
 */
int ctl_listen(struct ctl_listener *l, const char *path, gid_t gid);

/* Remove the socket, if the path still names the one ctl_listen bound. */
void ctl_unlink(const struct ctl_listener *l);

/*
 * Client: send one request to path and copy the answer to stdout, within timeout_ms in
 * all: 0 or -errno (-ETIMEDOUT when the daemon did not answer in time).
 */
int ctl_request(const char *path, const char *request, int timeout_ms);

/*
 * Client: connect to path and send one request; the socket (blocking), for the caller to
 * read the answer from as long as it lasts (`sitd monitor`), or -errno.
 */
int ctl_open(const char *path, const char *request);

#endif
