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
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (root ? O_NOFOLLOW : 0)), e;
	struct stat st;

	*why = NULL;
	if (fd < 0) {
		e = errno;
		if (e == ELOOP && root) {
			*why = "a symbolic link (sitd reads the file itself: give its path)";
			return -EPERM;
		}
		return -e;
	}
	if (!root)
		return fd;
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (st.st_uid != 0)
		*why = "not owned by root (chown root)";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		*why = "writable by group or others (chmod go-w)";
	if (*why) {
		close(fd);
		return -EPERM;
	}
	return fd;
}
