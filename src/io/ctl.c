/* SPDX-License-Identifier: MIT */
#include "ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static int addr_of(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa->sun_path, path);
	return 0;
}

int ctl_listen(const char *path, gid_t gid)
{
	struct sockaddr_un sa;
	int fd, probe, err;

	if (addr_of(path, &sa) < 0)
		return -1;
	if (!strncmp(path, SITD_RUNDIR "/", sizeof(SITD_RUNDIR)) && mkdir(SITD_RUNDIR, 0755) < 0 &&
	    errno != EEXIST)
		return -1;
	/* A socket someone still answers on belongs to a running sitd; anything else is stale. */
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(probe);
		errno = EADDRINUSE;
		return -1;
	}
	if (probe >= 0)
		close(probe);
	if (unlink(path) < 0 && errno != ENOENT)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0660) < 0 ||
	    chown(path, (uid_t)-1, gid) < 0 || listen(fd, 8) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int ctl_read_request(int fd, char *line, size_t len, uid_t *uid)
{
	struct timeval tv = { .tv_sec = 1 };
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	size_t got = 0;

	/* A client that says nothing does not hold the daemon up for long. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0)
		return -1;
	*uid = cred.uid;
	while (got + 1 < len) {
		ssize_t n = read(fd, line + got, len - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(line, '\n', got))
			break;
	}
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	return got ? 0 : -1;
}

int ctl_request(const char *path, const char *request)
{
	struct sockaddr_un sa;
	char buf[4096];
	ssize_t n;
	int fd;

	if (addr_of(path, &sa) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, request, strlen(request)) < 0 || write(fd, "\n", 1) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return 0;
}
