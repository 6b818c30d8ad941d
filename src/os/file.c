/* SPDX-License-Identifier: MIT */
#include "os/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

int file_open_config(const char *path, const char **why)
{
	bool root = geteuid() == 0;
	struct stat st;
	int fd, e, fl;

	*why = NULL;
	/* A symbolic link only root could have made, as `-c <(...)`'s /dev/fd/N is. */
	if (root && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0) {
		*why = "a symbolic link not owned by root (give the file's own path)";
		return -EPERM;
	}
	/* Not blocking on a FIFO no one writes to, until it is known to be one of root's. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (root && fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	/* A regular file, or a pipe (-c <(...)). */
	if (root && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		*why = "not a regular file";
	else if (root && st.st_uid != 0)
		*why = "not owned by root (chown root)";
	else if (root && (st.st_mode & (S_IWGRP | S_IWOTH)))
		*why = "writable by group or others (chmod go-w)";
	if (*why) {
		close(fd);
		return -EPERM;
	}
	if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}
