/* SPDX-License-Identifier: MIT */
/* `sitd import {ifupdown|networkd} FILE...`: no daemon, no root (proto/import.h). */
#ifndef SITD_CMD_IMPORT_H
#define SITD_CMD_IMPORT_H

/* argv[0] is "import".  The exit status: 0 printed, 1 refused, 2 usage or a file unread. */
int import_main(int argc, const char *const *argv);

#endif
