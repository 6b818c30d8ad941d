/* SPDX-License-Identifier: MIT */
#include "os/netns.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int netns_path(const char *spec, char *buf, size_t len)
{
	const char *p = spec;
	int n;

	while (*p >= '0' && *p <= '9')
		p++;
	if (spec[0] == '/')
		n = snprintf(buf, len, "%s", spec);
	else if (!*p && p != spec)
		n = snprintf(buf, len, "/proc/%s/ns/net", spec);
	else
		n = snprintf(buf, len, "/run/netns/%s", spec);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int netns_open(const char *spec)
{
	char path[128];
	int fd, type, e = netns_path(spec, path, sizeof(path));

	if (e < 0)
		return e;
	/* O_NONBLOCK: a FIFO named by mistake does not hang the monitor. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* nsfs answers NS_GET_NSTYPE (fs/nsfs.c ns_ioctl); any other file ENOTTY or EINVAL. */
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET) {
		e = type < 0 ? -ENOTTY : -EINVAL;
		close(fd);
		return e;
	}
	return fd;
}

int netns_id(int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

int netns_enter(int fd)
{
	return setns(fd, CLONE_NEWNET) < 0 ? -errno : 0;
}
