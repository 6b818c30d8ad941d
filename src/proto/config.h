/* SPDX-License-Identifier: MIT */
/*
 * sitd.conf(5): many tunnels in one file.  Each stanza starts with the word "tunnel" and
 * goes on until the next one; its words are the command line's, so
 *
 *	# a tunnel broker
 *	tunnel he-ipv6
 *		mode sit remote 203.0.113.1 local 192.0.2.10
 *		ttl 255
 *	tunnel ipip0 mode ipip remote 198.51.100.7
 *
 * "#" starts a comment to the end of the line.  Pure: the caller reads the file.
 */
#ifndef SITD_CONFIG_H
#define SITD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conf.h"

/*
 * Parse `text` into at most `cap` tunnels.  Returns how many, or -1 with "LINE: message"
 * in err, the line being that of the offending word.  Either every tunnel parses or
 * none is returned: a bad line never starts a partial configuration.
 */
int sitd_config_parse(const char *text, size_t len, struct sitd_conf *out, unsigned cap, char *err,
		      size_t errlen);

/*
 * The same, with the names indexed into ix (empty, core/hindex.h, slots for cap), so a
 * name given twice is found in O(1) rather than by comparing it with every stanza before
 * it; ix then indexes out[] by name (for sitd_config_diff_ix).
 */
struct sitd_hindex;
int sitd_config_parse_ix(const char *text, size_t len, struct sitd_conf *out, unsigned cap,
			 struct sitd_hindex *ix, char *err, size_t errlen);

/* How many stanzas text holds: the size of the array sitd_config_parse needs. */
unsigned sitd_config_count(const char *text, size_t len);

/*
 * A reload, as a pure decision: old[i] keeps running (old_keep[i]) when the new file has a
 * stanza of that name with the very same settings; new[j] is to be started (new_add[j])
 * when its name is new or its settings changed.  A changed tunnel is stopped and started
 * again; every other tunnel is left alone, so its device, addresses and traffic stay.
 */
void sitd_config_diff(const struct sitd_conf *old, unsigned nold, const struct sitd_conf *next,
		      unsigned nnext, bool *old_keep, bool *new_add);
/* The same, next's names found through next_ix (sitd_config_parse_ix's): O(nold + nnext). */
void sitd_config_diff_ix(const struct sitd_conf *old, unsigned nold, const struct sitd_conf *next,
			 unsigned nnext, const struct sitd_hindex *next_ix, bool *old_keep,
			 bool *new_add);

#endif
