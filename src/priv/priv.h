/* SPDX-License-Identifier: MIT */
/*
 * Least privilege for sitd's two processes (privsep.h), each set once, before its threads
 * start (capabilities are per thread; threads inherit them).  Every failure is fatal with
 * a clear message.
 *
 * The packet process: becomes uid and gid (unless -1), with no supplementary group, stops when its
 * monitor is gone (SIGTERM), keeps no capability at all, sets no_new_privs and allows
 * only the system calls it makes, some with their arguments checked (seccomp, the
 * equivalent of OpenBSD's pledge).
 *
 * The monitor: keeps uid 0 (to open a /dev/net/tun of mode 0600) with CAP_NET_ADMIN,
 * CAP_NET_RAW, CAP_NET_BIND_SERVICE and CAP_KILL (to forward signals to the packet
 * process, which runs as another uid), of those it has, and a filter of its own; with a
 * `netns` stanza also CAP_SYS_ADMIN and CAP_SYS_PTRACE (into another namespace).
 *
 * A call a filter refuses fails with EPERM, is counted, and is logged once per system
 * call: a path missed here fails like any refused call, visibly, and a tunnel other hosts
 * depend on stays up.
 */
#ifndef SITD_PRIV_H
#define SITD_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

void priv_drop_child(uid_t uid, gid_t gid, pid_t monitor);
/* setns: a stanza has `netns`; the monitor also keeps CAP_SYS_ADMIN and CAP_SYS_PTRACE,
 * and may call setns(2) for network namespaces. */
void priv_drop_monitor(pid_t child, bool setns);

/* The system calls refused so far in this process: up to max of them, by number. */
struct priv_refused {
	int nr;
	uint64_t count;
};
size_t priv_refused(struct priv_refused *out, size_t max);

/* Calls refused while on (the sandbox self-check's) are counted, and logged as probes. */
void priv_probing(bool on);

/* The name of a system call number, into buf. */
const char *priv_syscall_name(int nr, char *buf, size_t len);

#endif
