/* SPDX-License-Identifier: MIT */
#include "os/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 1, 0)))
static void vlog(const char *fmt, va_list ap, int err)
{
	char line[512];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (n < 0)
		return;
	if (err)
		fprintf(stderr, "sitd: %s: %s\n", line, strerror(err));
	else
		fprintf(stderr, "sitd: %s\n", line);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap, 0);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap, err);
	va_end(ap);
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap, 0);
	va_end(ap);
}

void log_fatal(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap, err);
	va_end(ap);
	exit(1);
}

void log_fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void log_warn_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap, err);
	va_end(ap);
}

void log_fatal_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap, err);
	va_end(ap);
	exit(1);
}
