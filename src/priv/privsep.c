/* SPDX-License-Identifier: MIT */
/*
 * The start of privilege separation (privsep.h): one socketpair, one fork; the parent
 * becomes the monitor (monitor.c), the child the packet process, whose privileged
 * requests go through the stubs (ps.c).
 */
#include "priv/privsep.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "priv/privsep_int.h"

int privsep_start(const struct privsep_opts *o)
{
	int sv[2], e;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	/* Output written before the fork must not be written twice. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		close(sv[0]);
		ps_attach(sv[1]);
		/* Its parent-death signal: priv_drop_child(), after the uid change. */
		return 0;
	}
	close(sv[1]);
	monitor_run(sv[0], pid, o);
}
