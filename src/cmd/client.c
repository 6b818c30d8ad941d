/* SPDX-License-Identifier: MIT */
/*
 * The client side of the control socket: `sitd show`, `status` and the other subcommands
 * of request.h's table.  The words are checked with the daemon's own parser (request.c)
 * before anything is sent.
 * Without -S, every daemon of this network namespace is asked, in its directory (ctl.h).
 */
#include "cmd/client.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "os/ctl.h"
#include "proto/request.h"

enum { REQUEST_MAX = 256, ANSWER_MS = 10000, FOLLOW_MAX = 64 };

bool client_is_command(const char *word)
{
	return sitd_request_cmd_find(word, strlen(word)) != NULL;
}

/* How many control sockets the directory holds. */
static unsigned count_sockets(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		n += l >= 6 && !strcmp(e->d_name + l - 5, ".sock");
	}
	closedir(d);
	return n;
}

/* One daemon asked, its answer printed: 0, or -errno (said on stderr). */
static int ask(const char *path, const char *request)
{
	int r = ctl_request(path, request, ANSWER_MS);

	if (r < 0)
		fprintf(stderr, "sitd: %s: %s\n", path,
			r == -ETIMEDOUT ? "no answer in time" : strerror(-r));
	return r;
}

/* `monitor`: follow every daemon asked (fds[0 .. n)) until each has closed; its lines to
 * stdout as they come.  Returns 1: a monitor ends only when a daemon ends it. */
static int follow(int *fds, const char (*paths)[108], unsigned n)
{
	struct pollfd p[FOLLOW_MAX];
	unsigned open = n;
	char buf[8192];

	for (unsigned i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (open) {
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("sitd: poll");
			return 1;
		}
		for (unsigned i = 0; i < n; i++) {
			ssize_t r;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r > 0) {
				fwrite(buf, 1, (size_t)r, stdout);
				fflush(stdout);
				continue;
			}
			fprintf(stderr, "sitd: %s: the daemon closed the connection (it stopped, or "
				"dropped this client for not reading in time)\n", paths[i]);
			close(p[i].fd);
			p[i].fd = -1;
			open--;
		}
	}
	return 1;
}

/* One daemon asked, or for `monitor` followed (into fds, paths): 0, or -errno. */
static int ask_or_open(const struct sitd_request *r, const char *path, const char *req, int *fds,
		       char (*paths)[108], unsigned *nf)
{
	int fd;

	if (r->kind != SITD_REQ_MONITOR)
		return ask(path, req);
	if (*nf == FOLLOW_MAX)
		return 0;
	fd = ctl_open(path, req);
	if (fd < 0) {
		fprintf(stderr, "sitd: %s: %s\n", path, strerror(-fd));
		return fd;
	}
	fds[*nf] = fd;
	snprintf(paths[*nf], sizeof(paths[0]), "%s", path);
	(*nf)++;
	return 0;
}

int client_main(const char *ctl_path, int argc, const char *const *argv)
{
	char line[REQUEST_MAX], req[REQUEST_MAX], err[128], dir[108];
	struct sitd_request r;
	size_t len = 0;
	int asked = 0, failed = 0, rc;
	DIR *d;
	struct dirent *e;
	int fds[FOLLOW_MAX];
	char paths[FOLLOW_MAX][108];
	unsigned nf = 0;

	for (int i = 0; i < argc; i++) {
		int n = snprintf(line + len, sizeof(line) - len, "%s%s", i ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(line) - len || strchr(argv[i], ' ') || !argv[i][0]) {
			fprintf(stderr, "sitd: %s: \"%s\" is not a word of a request\n", argv[0], argv[i]);
			return 2;
		}
		len += (size_t)n;
	}
	if (sitd_request_parse(line, len, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "sitd: %s: %s\n", argv[0], err);
		return 2;
	}
	sitd_request_format(&r, req, sizeof(req));
	if (ctl_path) {
		if (ask_or_open(&r, ctl_path, req, fds, paths, &nf) < 0)
			return 1;
		return nf ? follow(fds, (const char (*)[108])paths, nf) : 0;
	}
	if ((rc = ctl_dir(dir, sizeof(dir))) < 0) {
		fprintf(stderr, "sitd: cannot name this namespace's control directory: %s\n",
			strerror(-rc));
		return 1;
	}
	/* Two expositions one after the other are no exposition: each family twice. */
	if (r.kind == SITD_REQ_METRICS && (rc = (int)count_sockets(dir)) > 1) {
		fprintf(stderr, "sitd: metrics: %d sitd run in this network namespace; name one with "
			"-S PATH (each answers for itself)\n", rc);
		return 1;
	}
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "sitd: no sitd is running in this network namespace (%s: %s)\n", dir,
			strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
		size_t l = strlen(e->d_name);

		if (l < 6 || strcmp(e->d_name + l - 5, ".sock") ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (ask_or_open(&r, path, req, fds, paths, &nf) < 0)
			failed++;
		else
			asked++;
	}
	closedir(d);
	if (!asked && !failed) {
		fprintf(stderr, "sitd: no sitd is running in this network namespace (no socket in %s)\n",
			dir);
		return 1;
	}
	if (nf)
		return follow(fds, (const char (*)[108])paths, nf);
	return failed ? 1 : 0;
}
