/* SPDX-License-Identifier: MIT */
/*
 * `sitd import`: the files read here, translated by proto/import.c, the stanzas on
 * stdout and the refusals (FILE:LINE: message) on stderr.  Needs neither a daemon nor
 * root: it only reads the files it is given.
 */
#include "cmd/import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/import.h"

enum { FILES_MAX = 16, FILE_MAX = 1 << 20, OUT_MAX = 256 << 10, ERR_MAX = 64 << 10 };

static const char usage[] = "usage: sitd import ifupdown FILE\n"
			    "       sitd import networkd FILE.netdev [FILE.network]...\n";

/* The whole file ("-": stdin) into a buffer of its own; 0, or -errno. */
static int slurp(const char *path, char **text, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t n = 0, cap = 4096;
	char *b;
	ssize_t r;

	if (fd < 0)
		return -errno;
	b = malloc(cap);
	while (b) {
		if (n == cap) {
			char *nb = cap < FILE_MAX ? realloc(b, cap * 2) : NULL;

			if (!nb) {
				free(b);
				b = NULL;
				errno = cap < FILE_MAX ? ENOMEM : EFBIG;
				break;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			b = NULL;
			errno = e;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (!b) {
		int e = errno ? errno : ENOMEM;

		if (fd)
			close(fd);
		return -e;
	}
	if (fd)
		close(fd);
	*text = b;
	*len = n;
	return 0;
}

int import_main(int argc, const char *const *argv)
{
	struct sitd_import_file files[FILES_MAX];
	char *out = NULL, *err = NULL;
	int nfiles = argc - 2, r, status = 2;
	bool ifupdown;

	if (argc < 3 || (strcmp(argv[1], "ifupdown") && strcmp(argv[1], "networkd"))) {
		fputs(usage, stderr);
		return 2;
	}
	ifupdown = !strcmp(argv[1], "ifupdown");
	if ((ifupdown && nfiles != 1) || nfiles > FILES_MAX) {
		fputs(usage, stderr);
		return 2;
	}
	memset(files, 0, sizeof(files));
	for (int i = 0; i < nfiles; i++) {
		char *text = NULL;

		files[i].name = argv[2 + i];
		r = slurp(argv[2 + i], &text, &files[i].len);
		if (r < 0) {
			fprintf(stderr, "sitd: %s: %s\n", argv[2 + i], strerror(-r));
			goto out;
		}
		files[i].text = text;
	}
	out = malloc(OUT_MAX);
	err = malloc(ERR_MAX);
	if (!out || !err) {
		fputs("sitd: out of memory\n", stderr);
		goto out;
	}
	r = ifupdown ? sitd_import_ifupdown(&files[0], out, OUT_MAX, err, ERR_MAX) :
		       sitd_import_networkd(files, (unsigned)nfiles, out, OUT_MAX, err, ERR_MAX);
	fputs(err, stderr);
	if (r < 0) {
		status = 1;
		goto out;
	}
	fputs(out, stdout);
	status = fflush(stdout) ? 2 : 0;
	if (status)
		fprintf(stderr, "sitd: standard output: %s\n", strerror(errno));
out:
	for (int i = 0; i < nfiles; i++)
		free((char *)(uintptr_t)files[i].text);
	free(out);
	free(err);
	return status;
}
