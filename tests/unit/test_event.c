/* SPDX-License-Identifier: MIT */
/*
 * `sitd monitor`'s lines (event.h): each kind in text and JSON with its old and new
 * values, the time in UTC with microseconds, names with odd bytes escaped so that a line
 * stays one line and valid UTF-8 JSON, and a buffer too small refused whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "proto/event.h"

/* 2025-01-31T12:34:56.000123Z */
static const uint64_t T = 1738326896ull * 1000000000ull + 123456ull;

static struct sitd_event ev(enum sitd_event_kind k, const char *name)
{
	struct sitd_event e = { .kind = k, .time_ns = T };

	strcpy(e.name, name);
	return e;
}

static void check(const struct sitd_event *e, const char *text, const char *json)
{
	char buf[SITD_EVENT_LINE_MAX];

	assert_int_equal(sitd_event_format(buf, sizeof(buf), e, false), strlen(text));
	assert_string_equal(buf, text);
	assert_int_equal(sitd_event_format(buf, sizeof(buf), e, true), strlen(json));
	assert_string_equal(buf, json);
}

#define TS "2025-01-31T12:34:56.000123Z"
#define JS "{\"time\":\"" TS "\",\"timestamp\":1738326896.000123,\"tunnel\":"

static void kinds(void **state)
{
	struct sitd_event e;

	(void)state;
	e = ev(SITD_EVENT_ADDED, "he-ipv6");
	check(&e, TS " he-ipv6 added\n", JS "\"he-ipv6\",\"event\":\"added\"}\n");
	e = ev(SITD_EVENT_REMOVED, "sit1");
	check(&e, TS " sit1 removed\n", JS "\"sit1\",\"event\":\"removed\"}\n");
	e = ev(SITD_EVENT_CHANGED, "sit1");
	check(&e, TS " sit1 changed\n", JS "\"sit1\",\"event\":\"changed\"}\n");
	e = ev(SITD_EVENT_MTU, "sit1");
	e.old_mtu = 1480;
	e.new_mtu = 1380;
	check(&e, TS " sit1 mtu 1480 -> 1380\n",
	      JS "\"sit1\",\"event\":\"mtu\",\"old\":1480,\"new\":1380}\n");
	e = ev(SITD_EVENT_SOURCE, "sit1");
	e.old_src = (struct sitd_event_addr){ .family = 4, .a = { 192, 0, 2, 10 } };
	e.new_src = (struct sitd_event_addr){ .family = 4, .a = { 192, 0, 2, 20 } };
	check(&e, TS " sit1 source 192.0.2.10 -> 192.0.2.20\n",
	      JS "\"sit1\",\"event\":\"source\",\"old\":\"192.0.2.10\",\"new\":\"192.0.2.20\"}\n");
	e.old_src.family = 0;
	e.new_src = (struct sitd_event_addr){ .family = 6, .a = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
	check(&e, TS " sit1 source none -> 2001:db8::1\n",
	      JS "\"sit1\",\"event\":\"source\",\"old\":null,\"new\":\"2001:db8::1\"}\n");
	e = ev(SITD_EVENT_CARRIER, "sit1");
	check(&e, TS " sit1 carrier down\n",
	      JS "\"sit1\",\"event\":\"carrier\",\"old\":\"up\",\"new\":\"down\"}\n");
	e.up = true;
	check(&e, TS " sit1 carrier up\n",
	      JS "\"sit1\",\"event\":\"carrier\",\"old\":\"down\",\"new\":\"up\"}\n");
}

/* The epoch, a leap day, the end of a year: the civil date from days, by hand. */
static void dates(void **state)
{
	static const struct {
		uint64_t secs;
		const char *date;
	} cases[] = {
		{ 0, "1970-01-01T00:00:00.000000Z" },
		{ 951782400, "2000-02-29T00:00:00.000000Z" },
		{ 1735689599, "2024-12-31T23:59:59.000000Z" },
		{ 4107542400, "2100-03-01T00:00:00.000000Z" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sitd_event e = { .kind = SITD_EVENT_ADDED, .time_ns = cases[i].secs * 1000000000ull };
		char buf[SITD_EVENT_LINE_MAX];

		strcpy(e.name, "t");
		assert_true(sitd_event_format(buf, sizeof(buf), &e, false) > 0);
		assert_memory_equal(buf, cases[i].date, strlen(cases[i].date));
	}
}

/* dev_valid_name() lets '"', '\\', control bytes and bytes above 0x7f through. */
static void escaped(void **state)
{
	struct sitd_event e = ev(SITD_EVENT_ADDED, "a\"b\\c\x01\xff");

	(void)state;
	check(&e, TS " a\"b\\x5cc\\x01\\xff added\n",
	      JS "\"a\\\"b\\\\c\\u0001\\u00ff\",\"event\":\"added\"}\n");
}

/* The longest name with the longest values fits SITD_EVENT_LINE_MAX; one byte less than
 * a line needs gives nothing, not half a line. */
static void sizes(void **state)
{
	struct sitd_event e = ev(SITD_EVENT_SOURCE, "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
					  "\x01\x01\x01\x01");
	char buf[SITD_EVENT_LINE_MAX];
	size_t n;

	(void)state;
	e.time_ns = UINT64_MAX;
	e.old_src.family = e.new_src.family = 6;
	memset(e.old_src.a, 0xff, 16);
	memset(e.new_src.a, 0xff, 16);
	n = sitd_event_format(buf, sizeof(buf), &e, true);
	assert_true(n > 0 && n < sizeof(buf));
	assert_int_equal(sitd_event_format(buf, n, &e, true), 0);
	assert_string_equal(buf, "");
	assert_int_equal(sitd_event_format(buf, n + 1, &e, true), n);
	assert_int_equal(sitd_event_format(buf, 0, &e, true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kinds),
		cmocka_unit_test(dates),
		cmocka_unit_test(escaped),
		cmocka_unit_test(sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
