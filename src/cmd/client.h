/* SPDX-License-Identifier: MIT */
/* `sitd show`, `status`, ... (request.h): ask the running daemon(s) through the control socket. */
#ifndef SITD_CLIENT_H
#define SITD_CLIENT_H

#include <stdbool.h>

/* word is a subcommand (request.h's table) */
bool client_is_command(const char *word);

/* argv[0] is the command; ctl_path NULL: every daemon of this network namespace. */
int client_main(const char *ctl_path, int argc, const char *const *argv);

#endif
