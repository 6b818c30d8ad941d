/* SPDX-License-Identifier: MIT */
/* Logging to stderr, one line per message, prefixed with "sitd: ". */
#ifndef SITD_LOG_H
#define SITD_LOG_H

__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);
/* log_warn and log_fatal append strerror(errno), as OpenBSD's log_warn and fatal. */
__attribute__((format(printf, 1, 2))) void log_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_warnx(const char *fmt, ...);
__attribute__((format(printf, 1, 2), noreturn)) void log_fatal(const char *fmt, ...);
__attribute__((format(printf, 1, 2), noreturn)) void log_fatalx(const char *fmt, ...);
/* As log_warn and log_fatal, with the error given (an errno value: -r of a 0 / -errno call). */
__attribute__((format(printf, 2, 3))) void log_warn_errno(int err, const char *fmt, ...);
__attribute__((format(printf, 2, 3), noreturn)) void log_fatal_errno(int err, const char *fmt, ...);

#endif
