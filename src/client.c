/* SPDX-License-Identifier: MIT */
/*
 * The client side of the control socket: `sitd show`, `status`, `reload`, `sandbox`, as a
 * table (wireguard-tools' wg.c is the model).  Without -S, every daemon of this network
 * namespace is asked, in its directory (ctl.h).
 */
#include "client.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "ctl.h"

enum { REQUEST_MAX = 256, ANSWER_MS = 10000 };

struct command {
	const char *name;
	int max_args;		/* words after the name */
	const char *const *flags;	/* allowed flags; NULL: none */
	int names;		/* how many non-flag words (a tunnel name) */
};

static const char *const show_flags[] = { "-s", "-j", NULL };
static const char *const status_flags[] = { "-j", NULL };

static const struct command commands[] = {
	{ "show", 3, show_flags, 1 },
	{ "status", 1, status_flags, 0 },
	{ "reload", 0, NULL, 0 },
	{ "sandbox", 0, NULL, 0 },
};

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

bool client_is_command(const char *word)
{
	return find(word) != NULL;
}

static bool is_flag(const struct command *c, const char *w)
{
	for (const char *const *f = c->flags; f && *f; f++)
		if (!strcmp(*f, w))
			return true;
	return false;
}

static int ask(const char *path, const char *request)
{
	if (ctl_request(path, request, ANSWER_MS) < 0) {
		fprintf(stderr, "sitd: %s: %s\n", path,
			errno == ETIMEDOUT ? "no answer in time" : strerror(errno));
		return -1;
	}
	return 0;
}

int client_main(const char *ctl_path, int argc, const char *const *argv)
{
	const struct command *c = find(argv[0]);
	char req[REQUEST_MAX], dir[108];
	size_t len;
	int names = 0, asked = 0, failed = 0;
	DIR *d;
	struct dirent *e;

	if (argc - 1 > c->max_args) {
		fprintf(stderr, "sitd: %s: too many arguments\n", c->name);
		return 2;
	}
	len = (size_t)snprintf(req, sizeof(req), "%s", c->name);
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' ? !is_flag(c, argv[i]) : ++names > c->names) {
			fprintf(stderr, "sitd: %s: unexpected \"%s\"\n", c->name, argv[i]);
			return 2;
		}
		if (strchr(argv[i], '\n') || len + 1 + strlen(argv[i]) >= sizeof(req)) {
			fprintf(stderr, "sitd: %s: \"%s\" is not a name\n", c->name, argv[i]);
			return 2;
		}
		len += (size_t)snprintf(req + len, sizeof(req) - len, " %s", argv[i]);
	}
	if (ctl_path)
		return ask(ctl_path, req) < 0;
	if (ctl_dir(dir, sizeof(dir)) < 0) {
		fprintf(stderr, "sitd: cannot name this namespace's control directory: %s\n",
			strerror(errno));
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
