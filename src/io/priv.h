/* SPDX-License-Identifier: MIT */
/*
 * Least privilege, after the devices and sockets are open and before the threads start
 * (capabilities are per thread; threads inherit them): become `user` when given, keep
 * only the capabilities still needed (CAP_NET_ADMIN to create TUN devices and set their
 * MTU on reload, CAP_NET_RAW for raw sockets, CAP_NET_BIND_SERVICE for a UDP port below
 * 1024), set no_new_privs, and allow only the system calls sitd makes (seccomp, the
 * equivalent of OpenBSD's pledge).  Every failure is fatal with a clear message.
 */
#ifndef SITD_PRIV_H
#define SITD_PRIV_H

#include <stdbool.h>

void priv_drop(const char *user, bool bind_service);

#endif
