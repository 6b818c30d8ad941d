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

#include <stddef.h>

#include "conf.h"

enum { SITD_MAX_TUNNELS = 64 };

/*
 * Parse `text` into at most `cap` tunnels.  Returns how many, or -1 with "LINE: message"
 * in err, the line being that of the offending word.  Either every tunnel parses or
 * none is returned: a bad line never starts a partial configuration.
 */
int sitd_config_parse(const char *text, size_t len, struct sitd_conf *out, unsigned cap, char *err,
		      size_t errlen);

#endif
