/* SPDX-License-Identifier: MIT */
/*
 * Network namespaces, for `netns` (conf.h): a tunnel's TUN device in another namespace
 * than sitd's, as the kernel's link-netns keeps a tunnel device apart from its underlay.
 * The monitor's only: entering one needs CAP_SYS_ADMIN (setns(2)).
 */
#ifndef SITD_NETNS_H
#define SITD_NETNS_H

#include <stddef.h>
#include <stdint.h>

/* The file a `netns` value names: NAME -> /run/netns/NAME (ip-netns(8)), PID ->
 * /proc/PID/ns/net, an absolute path as it is.  0, or -ENAMETOOLONG. */
int netns_path(const char *spec, char *buf, size_t len);

/*
 * The namespace spec names, opened read-only and checked to be a network namespace
 * (ioctl NS_GET_NSTYPE == CLONE_NEWNET, kernel 4.11 on): the fd, or -errno: -ENOENT
 * (none there: the container stopped, `ip netns del`), -ENOTTY (a file, but no namespace:
 * /etc/hostname), -EINVAL (a namespace of another type: /proc/self/ns/uts).
 */
int netns_open(const char *spec);

/* The namespace's identity (its nsfs inode, as `ip netns identify` compares them):
 * 0 or -errno. */
int netns_id(int fd, uint64_t *dev, uint64_t *ino);

/* This thread into the namespace fd is of (setns(2)): 0 or -errno (-EPERM: no
 * CAP_SYS_ADMIN). */
int netns_enter(int fd);

#endif
