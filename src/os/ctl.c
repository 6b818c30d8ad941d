/* SPDX-License-Identifier: MIT */
#include "os/ctl.h"

#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "os/clock.h"

static int addr_of(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

int ctl_dir(char *buf, size_t len)
{
	struct stat st;
	int n;

	if (stat("/proc/self/ns/net", &st) < 0)
		return -errno;
	n = snprintf(buf, len, "%s/ns-%lu", SITD_RUNDIR, (unsigned long)st.st_ino);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * mkdir -p for the socket's directory: each missing component root's, and 0755 set with
 * chmod (a umask such as the unit's UMask=0077 would leave it 0700, and the group of the
 * socket could not reach it); the socket's own mode (0660) decides who connects.
 */
static int make_dir(const char *dir)
{
	if (mkdir(dir, 0755) < 0)
		return errno == EEXIST ? 0 : -errno;
	return chmod(dir, 0755) < 0 ? -errno : 0;
}

static int make_dirs(const char *path)
{
	char dir[108];
	char *slash;
	int r;

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if ((r = make_dir(dir)) < 0)
			return r;
		*p = '/';
	}
	return make_dir(dir);
}

int ctl_listen(struct ctl_listener *l, const char *path, gid_t gid)
{
	struct sockaddr_un sa;
	struct stat st;
	mode_t old;
	bool as_gid;
	gid_t egid;
	int fd, err, r;

	l->fd = -1;
	if ((r = addr_of(path, &sa)) < 0 || (r = make_dirs(path)) < 0)
		return r;
	if (lstat(path, &st) == 0) {
		int probe;

		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;	/* not ours to remove */
		/* A socket someone still answers on belongs to a running sitd. */
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(probe);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/*
	 * The socket is born 0660 in its group (umask, effective gid): nothing is changed by
	 * path after the bind, where -S PATH in a directory others can write would let them
	 * swap what the path names.  Not root, sitd cannot take another gid: then its group
	 * is set by path, as before (the directory is the user's own).
	 */
	egid = getegid();
	as_gid = gid != (gid_t)-1 && gid != egid && geteuid() == 0;
	if (as_gid && setegid(gid) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	old = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	err = errno;
	umask(old);
	if (as_gid && setegid(egid) < 0)
		r = -1, err = errno;
	if (r < 0) {
		close(fd);
		return -err;
	}
	if ((gid != (gid_t)-1 && !as_gid && geteuid() != 0 && chown(path, (uid_t)-1, gid) < 0) ||
	    lstat(path, &st) < 0 || listen(fd, 16) < 0) {
		err = errno;
		unlink(path);
		close(fd);
		return -err;
	}
	l->fd = fd;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	snprintf(l->path, sizeof(l->path), "%s", path);
	return 0;
}

void ctl_unlink(const struct ctl_listener *l)
{
	struct stat st;

	if (l->fd < 0)
		return;
	if (lstat(l->path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == l->dev &&
	    st.st_ino == l->ino)
		unlink(l->path);
}

static int64_t ms_now(void)
{
	return (int64_t)(now_ns() / 1000000);
}

int ctl_request(const char *path, const char *request, int timeout_ms)
{
	int64_t end = ms_now() + timeout_ms;
	struct sockaddr_un sa;
	char buf[65536];
	int fd, err;

	if ((err = addr_of(path, &sa)) < 0)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, request, strlen(request)) < 0 || write(fd, "\n", 1) < 0)
		goto fail;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - ms_now();
		ssize_t n;

		if (left <= 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (!p.revents)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		fwrite(buf, 1, (size_t)n, stdout);
	}
	fflush(stdout);
	close(fd);
	return 0;
fail:
	err = errno;
	close(fd);
	return -err;
}

int ctl_open(const char *path, const char *request)
{
	struct sockaddr_un sa;
	int fd, err;

	if ((err = addr_of(path, &sa)) < 0)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, request, strlen(request)) < 0 || write(fd, "\n", 1) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}
