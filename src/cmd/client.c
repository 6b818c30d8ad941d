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
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "os/ctl.h"
#include "proto/request.h"

enum { REQUEST_MAX = 256, ANSWER_MS = 10000 };

bool client_is_command(const char *word)
{
	return sitd_request_cmd_find(word, strlen(word)) != NULL;
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

int client_main(const char *ctl_path, int argc, const char *const *argv)
{
	char line[REQUEST_MAX], req[REQUEST_MAX], err[128], dir[108];
	struct sitd_request r;
	size_t len = 0;
	int asked = 0, failed = 0, rc;
	DIR *d;
	struct dirent *e;

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
	if (ctl_path)
		return ask(ctl_path, req) < 0;
	if ((rc = ctl_dir(dir, sizeof(dir))) < 0) {
		fprintf(stderr, "sitd: cannot name this namespace's control directory: %s\n",
			strerror(-rc));
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
		if (ask(path, req) < 0)
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
	return failed ? 1 : 0;
}
