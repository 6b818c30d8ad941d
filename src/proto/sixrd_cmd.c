/* SPDX-License-Identifier: MIT */
#include "proto/sixrd_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "core/wire.h"

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* One line, whatever bytes the bad argument holds: control characters become '?'. */
	for (size_t i = 0; i < errlen && err[i]; i++)
		if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
			err[i] = '?';
	return -1;
}

/* iproute2's get_unsigned(): strtoul with its base rules, the whole string, <= UINT_MAX. */
static bool ipr_unsigned(const char *s, int base, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!*s)
		return false;
	errno = 0;
	v = strtoul(s, &end, base);
	if (end == s || *end)
		return false;
	if (v == ULONG_MAX && errno == ERANGE)
		return false;
	if (v > UINT_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

/*
 * iproute2's get_addr_ipv4(): one to four parts, each strtoul base 0 and <= 255; missing
 * parts are zero ("198" is 198.0.0.0).
 */
static bool ipr_ipv4(const char *s, uint32_t *out)
{
	uint8_t b[4] = { 0, 0, 0, 0 };

	for (int i = 0; i < 4; i++) {
		unsigned long n;
		char *end;

		n = strtoul(s, &end, 0);
		if (n > 255 || end == s)
			return false;
		b[i] = (uint8_t)n;
		if (*end == '\0')
			break;
		if (i == 3 || *end != '.')
			return false;
		s = end + 1;
	}
	*out = rd32(b);
	return true;
}

/* How iproute2's __get_addr_1() read a word. */
enum ipr_kind { IPR_BAD, IPR_ANY, IPR_DEFAULT, IPR_V4, IPR_V6 };

static enum ipr_kind ipr_addr(const char *s, bool want6, uint8_t out[16])
{
	uint32_t v4;

	memset(out, 0, 16);
	if (!strcmp(s, "default"))
		return IPR_DEFAULT;
	if (!strcmp(s, "all") || !strcmp(s, "any"))
		return IPR_ANY;
	if (strchr(s, ':'))
		return want6 && inet_pton(AF_INET6, s, out) == 1 ? IPR_V6 : IPR_BAD;
	if (want6 || !ipr_ipv4(s, &v4))
		return IPR_BAD;
	wr32(out, v4);
	return IPR_V4;
}

/* iproute2's get_netmask(): a number (base 0), or a dotted mask of contiguous ones. */
static bool ipr_netmask(const char *s, unsigned *plen)
{
	uint8_t a[16];
	uint32_t m, host;
	unsigned bits = 0;

	if (ipr_unsigned(s, 0, plen))
		return true;
	if (ipr_addr(s, false, a) == IPR_BAD)	/* any, all, default read as 0.0.0.0 */
		return false;
	m = rd32(a);
	host = ~m;
	if (host & (host + 1))			/* mask2bits(): ones then zeros only */
		return false;
	for (; m; m <<= 1)
		bits++;
	*plen = bits;
	return true;
}

/* iproute2's get_prefix_1(): ADDR[/LEN]; no LEN is a host prefix, any/default is /0. */
static bool ipr_prefix(const char *arg, bool want6, uint8_t out[16], unsigned *plen)
{
	char buf[128];
	const char *slash = strchr(arg, '/');
	size_t alen = slash ? (size_t)(slash - arg) : strlen(arg);
	enum ipr_kind k;
	unsigned maxlen = want6 ? 128 : 32, len;

	if (alen >= sizeof(buf))
		return false;
	memcpy(buf, arg, alen);
	buf[alen] = '\0';
	k = ipr_addr(buf, want6, out);
	if (k == IPR_BAD)
		return false;
	if (!slash) {
		*plen = k == IPR_ANY || k == IPR_DEFAULT ? 0 : maxlen;
		return true;
	}
	if (k == IPR_ANY || k == IPR_DEFAULT)
		return false;
	if (!ipr_netmask(slash + 1, &len) || len > maxlen)
		return false;
	*plen = len;
	return true;
}

/* iproute2's check_ifname(): 1..15 bytes, not "." or "..", no '/' or white space. */
static bool ipr_ifname(const char *s)
{
	size_t n = strnlen(s, SITD_IFNAMSIZ);

	if (n == 0 || n == SITD_IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || isspace((unsigned char)*s))
			return false;
	return true;
}

int sitd_6rd_parse(int argc, const char *const *argv, struct sitd_6rd_cmd *cmd, char *err,
		   size_t errlen)
{
	uint8_t a[16];

	memset(cmd, 0, sizeof(*cmd));
	if (errlen)
		err[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "6rd-reset")) {
			cmd->op = SITD_6RD_OP_RESET;
			continue;
		}
		if (strcmp(w, "6rd-prefix") && strcmp(w, "6rd-relay_prefix") && strcmp(w, "dev"))
			return fail(err, errlen,
				    "unknown 6rd keyword \"%s\": expected dev, 6rd-prefix, "
				    "6rd-relay_prefix or 6rd-reset", w);
		if (++i >= argc)
			return fail(err, errlen, "\"%s\" needs a value", w);
		if (!strcmp(w, "dev")) {
			if (!ipr_ifname(argv[i]))
				return fail(err, errlen, "invalid \"dev\" name \"%s\"", argv[i]);
			/* The whole buffer: a shorter name after a longer one leaves nothing behind. */
			memset(cmd->dev, 0, sizeof(cmd->dev));
			strcpy(cmd->dev, argv[i]);
		} else if (!strcmp(w, "6rd-prefix")) {
			if (!ipr_prefix(argv[i], true, a, &cmd->prefixlen))
				return fail(err, errlen,
					    "invalid \"6rd-prefix\" value \"%s\": expected an IPv6 prefix ADDR/LEN",
					    argv[i]);
			memcpy(cmd->prefix, a, 16);
			cmd->op = SITD_6RD_OP_SET;
		} else {
			if (!ipr_prefix(argv[i], false, a, &cmd->relay_prefixlen))
				return fail(err, errlen,
					    "invalid \"6rd-relay_prefix\" value \"%s\": expected an IPv4 prefix ADDR/LEN",
					    argv[i]);
			cmd->relay_prefix = rd32(a);
			cmd->op = SITD_6RD_OP_SET;
		}
	}
	if (!cmd->dev[0])
		return fail(err, errlen, "missing \"dev NAME\"");
	if (!cmd->op)
		return fail(err, errlen, "nothing to do: give 6rd-prefix, 6rd-relay_prefix or 6rd-reset");
	return 0;
}

int sitd_prl_parse(int argc, const char *const *argv, struct sitd_prl_cmd *cmd, char *err,
		   size_t errlen)
{
	const char *first = NULL;
	uint8_t a[16];

	memset(cmd, 0, sizeof(*cmd));
	if (errlen)
		err[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		bool def = !strcmp(w, "prl-default"), nodef = !strcmp(w, "prl-nodefault");
		bool del = !strcmp(w, "prl-delete");

		if (!def && !nodef && !del && strcmp(w, "dev"))
			return fail(err, errlen,
				    "unknown PRL keyword \"%s\": expected dev, prl-default, "
				    "prl-nodefault or prl-delete", w);
		if (++i >= argc)
			return fail(err, errlen, "\"%s\" needs a value", w);
		if (!def && !nodef && !del) {
			if (!ipr_ifname(argv[i]))
				return fail(err, errlen, "invalid \"dev\" name \"%s\"", argv[i]);
			/* The whole buffer: a shorter name after a longer one leaves nothing behind. */
			memset(cmd->dev, 0, sizeof(cmd->dev));
			strcpy(cmd->dev, argv[i]);
			continue;
		}
		/* get_addr32(): an IPv4 address; any, all and default are 0.0.0.0. */
		if (ipr_addr(argv[i], false, a) == IPR_BAD)
			return fail(err, errlen, "invalid \"%s\" address \"%s\": expected an IPv4 address",
				    w, argv[i]);
		/* do_prl(): "One PRL entry at a time", checked once the address is read. */
		if (first)
			return fail(err, errlen, "unexpected \"%s\": one PRL entry at a time (\"%s\" given)",
				    w, first);
		first = w;
		cmd->addr = rd32(a);
		cmd->op = del ? SITD_PRL_OP_DEL : SITD_PRL_OP_ADD;
		cmd->flags = def ? SITD_PRL_DEFAULT : 0;
	}
	if (!cmd->dev[0])
		return fail(err, errlen, "missing \"dev NAME\"");
	if (!cmd->op)
		return fail(err, errlen, "nothing to do: give prl-default, prl-nodefault or prl-delete");
	return 0;
}
