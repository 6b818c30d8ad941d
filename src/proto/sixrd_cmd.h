/* SPDX-License-Identifier: MIT */
/*
 * The `ip tunnel 6rd` and `ip tunnel prl` grammars, pure: words in, a struct sitd_6rd_cmd
 * or struct sitd_prl_cmd out (core/sixrd.h, which applies them).  Read as iproute2's
 * do_6rd() and do_prl() read them, with its number and address rules.
 */
#ifndef SITD_SIXRD_CMD_H
#define SITD_SIXRD_CMD_H

#include <stddef.h>

#include "core/sixrd.h"

/*
 * `ip tunnel 6rd` after the word "6rd": dev NAME, 6rd-prefix P[/L], 6rd-relay_prefix
 * A[/L], 6rd-reset, in any order, words repeated the last wins (iproute2's do_6rd).  A
 * prefix or relay prefix not given is ::/0 or 0.0.0.0/0: one command sets both.  Returns
 * 0, or -1 with one line naming the bad argument in err.
 */
int sitd_6rd_parse(int argc, const char *const *argv, struct sitd_6rd_cmd *cmd, char *err,
		   size_t errlen);

/*
 * `ip tunnel prl` after the word "prl": dev NAME and exactly one of prl-default ADDR,
 * prl-nodefault ADDR, prl-delete ADDR (iproute2's do_prl).  Returns 0, or -1 with one line
 * naming the bad argument in err.
 */
int sitd_prl_parse(int argc, const char *const *argv, struct sitd_prl_cmd *cmd, char *err,
		   size_t errlen);

#endif
