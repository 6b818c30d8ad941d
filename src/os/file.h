/* SPDX-License-Identifier: MIT */
/* The configuration file, opened as only its owner could have written it. */
#ifndef SITD_FILE_H
#define SITD_FILE_H

/*
 * path read-only.  Run as root (the monitor, and sitd before it forks), the file must be
 * a regular file (or a pipe: `-c <(...)`) owned by root and writable by no one else, and
 * the path, if a symbolic link, one of root's: what sitd grants follows from the file,
 * which only root may then have written.
 * Refused: -EPERM with *why saying which of these it failed (a static string).  Any other
 * failure: -errno.  The fd otherwise.
 */
int file_open_config(const char *path, const char **why);

#endif
