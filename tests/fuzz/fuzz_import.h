/* SPDX-License-Identifier: MIT */
/*
 * What the two importers' fuzz targets check of one result (proto/import.h): either
 * tunnels (r >= 0), err empty and out a sitd.conf that sitd_config_parse reads back as
 * exactly r tunnels, each named; or a refusal (r == -1), out empty and err lines of
 * "FILE:LINE: message" naming one of the files given (or "-"), with LINE >= 1, at most
 * one "sitd: N more refusals not shown" last.  Then the same input into buffers of a
 * few sizes, each exactly as large as told, so ASan sees a write past one: the verdict
 * never changes, and what is written is a NUL-terminated prefix of the whole.
 */
#ifndef SITD_FUZZ_IMPORT_H
#define SITD_FUZZ_IMPORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "core/conf.h"
#include "proto/config.h"
#include "proto/import.h"

enum { FI_OUT = 256 << 10, FI_ERR = 64 << 10, FI_TUNNELS = 16 };

typedef int (*fi_run)(const struct sitd_import_file *files, unsigned n, char *out, size_t outcap,
		      char *err, size_t errcap);

static void fi_check_err(const char *err, const struct sitd_import_file *files, unsigned n)
{
	const char *p = err;

	CHECK(*err);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t k;
		int ok = 0;

		CHECK(nl);
		if (!strncmp(p, "sitd: ", 6) && strstr(p, " more refusals not shown\n") == nl - 24) {
			CHECK(nl[1] == '\0');
			break;
		}
		for (unsigned i = 0; i <= n && !ok; i++) {
			const char *name = i < n ? files[i].name : "-";

			k = strlen(name);
			if (strncmp(p, name, k) || p[k] != ':' || p[k + 1] < '1' || p[k + 1] > '9')
				continue;
			k += 1;
			while (p[k] >= '0' && p[k] <= '9')
				k++;
			ok = p[k] == ':' && p[k + 1] == ' ' && p + k + 2 < nl;
		}
		CHECK(ok);
		p = nl + 1;
	}
}

static void fi_check(fi_run run, const struct sitd_import_file *files, unsigned n)
{
	static char out[FI_OUT], err[FI_ERR], err2[FI_ERR];
	static struct sitd_conf conf[FI_TUNNELS + 1];
	static const size_t caps[] = { 0, 1, 17, 200, 1000 };
	char msg[256];
	size_t outlen, errlen;
	int r = run(files, n, out, sizeof(out), err, sizeof(err));

	CHECK(r >= -1 && r <= FI_TUNNELS);
	outlen = strlen(out);
	errlen = strlen(err);
	if (r >= 0) {
		CHECK(errlen == 0 && outlen > 0);
		CHECK(sitd_config_count(out, outlen) == (unsigned)r);
		/* The output is what the daemon would run: its own parser reads all of it. */
		CHECK(sitd_config_parse(out, outlen, conf, FI_TUNNELS + 1, msg, sizeof(msg)) == r);
		for (int i = 0; i < r; i++)
			CHECK(conf[i].name[0]);
	} else {
		CHECK(outlen == 0);
		fi_check_err(err, files, n);
	}
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		char *o = caps[i] ? malloc(caps[i]) : NULL, *e = caps[i] ? malloc(caps[i]) : NULL;
		int r2;

		/* Only err short: the verdict and out are the same. */
		r2 = run(files, n, out, sizeof(out), e, caps[i]);
		CHECK(r2 == r);
		if (caps[i]) {
			CHECK(strlen(e) < caps[i] && !memcmp(e, err, strlen(e)));
			CHECK(r >= 0 ? strlen(out) == outlen : strlen(out) == 0);
		}
		/* Only out short: what fits is written, or it is refused with out empty. */
		r2 = run(files, n, o, caps[i], err2, sizeof(err2));
		CHECK(r2 == r || (r >= 0 && r2 == -1));
		if (caps[i])
			CHECK(r2 >= 0 ? strlen(o) < caps[i] : o[0] == '\0');
		free(o);
		free(e);
	}
}

#endif
