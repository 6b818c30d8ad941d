/* SPDX-License-Identifier: MIT */
/* `sitd monitor`'s lines (event.h): text or JSON, one per event. */
#include "proto/event.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const sitd_event_names[SITD_EVENT_COUNT] = {
#define SITD_EVENT_NAME(k, s) [SITD_EVENT_##k] = s,
	SITD_EVENT_KINDS(SITD_EVENT_NAME)
#undef SITD_EVENT_NAME
};

struct line {
	char *buf;
	size_t cap, len;
	bool full;
};

__attribute__((format(printf, 2, 3)))
static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= l->cap - l->len)
		l->full = true;
	else
		l->len += (size_t)n;
}

/*
 * A device name may hold any byte but '/', ':', white space and NUL (dev_valid_name).
 * JSON (RFC 8259 7): '"' and '\\' escaped, control bytes and, so that the line stays
 * UTF-8 whatever the name, bytes above 0x7f as \u00XX.  Text: one line, so control bytes,
 * DEL, '\\' and bytes above 0x7f as \xNN.
 */
static void name(struct line *l, const char *s, bool json)
{
	if (json)
		put(l, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (json && (c == '"' || c == '\\'))
			put(l, "\\%c", c);
		else if (json && (c < 0x20 || c >= 0x7f))
			put(l, "\\u%04x", c);
		else if (!json && (c < 0x20 || c >= 0x7f || c == '\\'))
			put(l, "\\x%02x", c);
		else
			put(l, "%c", c);
	}
	if (json)
		put(l, "\"");
}

/* Days since 1970-01-01 to a civil date (H. Hinnant's days_from_civil, inverted). */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static void addr(struct line *l, const struct sitd_event_addr *a, bool json)
{
	char s[INET6_ADDRSTRLEN];

	if (a->family == 4 || a->family == 6) {
		inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->a, s, sizeof(s));
		put(l, json ? "\"%s\"" : "%s", s);
	} else {
		put(l, json ? "null" : "none");
	}
}

size_t sitd_event_format(char *buf, size_t cap, const struct sitd_event *e, bool json)
{
	struct line l = { .buf = buf, .cap = cap };
	uint64_t secs = e->time_ns / 1000000000u;
	unsigned us = (unsigned)(e->time_ns % 1000000000u / 1000u), mo, dd;
	unsigned sod = (unsigned)(secs % 86400u);
	const char *kind = e->kind < SITD_EVENT_COUNT ? sitd_event_names[e->kind] : "unknown";
	int64_t yy;

	if (!cap)
		return 0;
	buf[0] = '\0';
	civil((int64_t)(secs / 86400u), &yy, &mo, &dd);
	put(&l, json ? "{\"time\":\"%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%06uZ\"" :
		       "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%06uZ ",
	    yy, mo, dd, sod / 3600, sod / 60 % 60, sod % 60, us);
	if (json) {
		put(&l, ",\"timestamp\":%" PRIu64 ".%06u,\"tunnel\":", secs, us);
		name(&l, e->name, true);
		put(&l, ",\"event\":\"%s\"", kind);
	} else {
		name(&l, e->name, false);
		put(&l, " %s", kind);
	}
	switch (e->kind) {
	case SITD_EVENT_MTU:
		put(&l, json ? ",\"old\":%" PRIu32 ",\"new\":%" PRIu32 : " %" PRIu32 " -> %" PRIu32,
		    e->old_mtu, e->new_mtu);
		break;
	case SITD_EVENT_SOURCE:
		put(&l, json ? ",\"old\":" : " ");
		addr(&l, &e->old_src, json);
		put(&l, json ? ",\"new\":" : " -> ");
		addr(&l, &e->new_src, json);
		break;
	case SITD_EVENT_CARRIER:
		put(&l, json ? ",\"old\":\"%s\",\"new\":\"%s\"" : " %.0s%s", e->up ? "down" : "up",
		    e->up ? "up" : "down");
		break;
	case SITD_EVENT_ADDED:
	case SITD_EVENT_REMOVED:
	case SITD_EVENT_CHANGED:
	case SITD_EVENT_COUNT:
		break;
	}
	put(&l, json ? "}\n" : "\n");
	if (l.full) {
		buf[0] = '\0';
		return 0;
	}
	return l.len;
}
