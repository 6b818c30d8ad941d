/* SPDX-License-Identifier: MIT */
/*
 * `sitd metrics` (metrics.h): the Prometheus text exposition format 0.0.4.  Label values
 * escaped (backslash, double quote, newline; bytes that are not UTF-8 replaced); each
 * family's # HELP and # TYPE exactly once, before its samples, which come in one group;
 * the label sets of a tunnel's samples, of the drops and of the process; every counter of
 * stats.h's lists for every tunnel with its own value; the length said as snprintf's.
 * Configurations are built field by field, not parsed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/metrics.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { BIG = 1 << 18 };

struct ctr {
	const char *name;
	size_t off;
};

static const struct ctr ctrs[] = {
#define CTR(name, desc) { #name, offsetof(struct sitd_stats, name) },
	SITD_COUNTERS(CTR)
#undef CTR
};

static uint64_t *ctr_at(struct sitd_stats *s, size_t i)
{
	return (uint64_t *)(void *)((char *)s + ctrs[i].off);
}

/* Distinct values everywhere, so that a value under the wrong name or tunnel shows. */
static void fill(struct sitd_stats *s, uint64_t base)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < ARRAY_SIZE(ctrs); i++)
		*ctr_at(s, i) = base + i;
	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		s->drop[i] = base + 500 + i;
}

static struct sitd_conf he, ip6, isatap;
static struct sitd_stats st[3], proc;
static struct sitd_http_stats http;
static char buf[BIG];

static void setup_confs(void)
{
	memset(&he, 0, sizeof(he));
	strcpy(he.name, "he-ipv6");
	he.mode = SITD_MODE_SIT;
	he.remote = 0xc0000201;	/* 192.0.2.1 */
	he.local = 0xc6336402;	/* 198.51.100.2 */
	he.mtu = 1480;
	memset(&ip6, 0, sizeof(ip6));
	strcpy(ip6.name, "t\"6\\x");	/* a device name may hold both */
	ip6.mode = SITD_MODE_IPIP;
	ip6.outer = SITD_OUTER_IPV6;
	ip6.remote6[0] = 0x20, ip6.remote6[1] = 0x01, ip6.remote6[2] = 0x0d, ip6.remote6[3] = 0xb8;
	ip6.remote6[15] = 2;
	ip6.mtu = 1452;
	memset(&isatap, 0, sizeof(isatap));
	strcpy(isatap.name, "isatap0");
	isatap.mode = SITD_MODE_SIT;
	isatap.isatap = true;
	isatap.local = 0xc0000201;
	isatap.mtu = 1280;
	fill(&st[0], 1000);
	fill(&st[1], 2000);
	fill(&st[2], 3000);
	memset(&proc, 0, sizeof(proc));
	proc.drop[SITD_DROP_rx_no_tunnel] = 77;
	proc.drop[SITD_DROP_rx_truncated] = 78;
	memset(&http, 0, sizeof(http));
	http.responses[SITD_HTTP_404] = 4;
	http.timeouts = 9;
}

static const char *const refused_names[] = { "ptrace" };
static const uint64_t refused_counts[] = { 3 };

static size_t format_all(char *out, size_t cap, bool with_http)
{
	struct sitd_metrics_tunnel t[3] = {
		{ .conf = &he, .stats = &st[0], .path_mtu = 1500, .up = true },
		{ .conf = &ip6, .stats = &st[1], .path_mtu = 1492, .up = false },
		{ .conf = &isatap, .stats = &st[2], .path_mtu = 0, .up = true },
	};
	struct sitd_metrics_process p = { .version = "1.2\"3", .workers = 2, .stats = &proc,
					  .refused_names = refused_names,
					  .refused_counts = refused_counts, .nrefused = 1,
					  .netlink_overruns = 5, .netlink_resyncs = 6,
					  .monitor_clients = 2, .monitor_dropped = 3, .events_lost = 4,
					  .netns_lost = 7, .netns_back = 8,
					  .http = with_http ? &http : NULL };

	setup_confs();
	return sitd_metrics_format(out, cap, &p, t, 3);
}

/* The line of the text that is exactly want, present once. */
static void has_line(const char *text, const char *want)
{
	size_t n = strlen(want), found = 0;

	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (len == n && !memcmp(l, want, n))
			found++;
		l += len + (e != NULL);
	}
	if (found != 1)
		fail_msg("line \"%s\" found %zu times", want, found);
}

static void escaping(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(sitd_metrics_escape(out, sizeof(out), "a\\b\"c\nd"), 10);
	assert_string_equal(out, "a\\\\b\\\"c\\nd");
	/* UTF-8 stays; a byte that is none becomes U+FFFD; an overlong form too */
	assert_int_equal(sitd_metrics_escape(out, sizeof(out), "\xc3\xa9x\xff"), 6);
	assert_string_equal(out, "\xc3\xa9x\xef\xbf\xbd");
	sitd_metrics_escape(out, sizeof(out), "\xc0\xaf");
	assert_string_equal(out, "\xef\xbf\xbd\xef\xbf\xbd");
	sitd_metrics_escape(out, sizeof(out), "\xe2\x82");	/* cut short */
	assert_string_equal(out, "\xef\xbf\xbd\xef\xbf\xbd");
	sitd_metrics_escape(out, sizeof(out), "\xed\xa0\x80");	/* a surrogate */
	assert_string_equal(out, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* As snprintf: the whole length, a NUL-terminated prefix */
	assert_int_equal(sitd_metrics_escape(out, 4, "ab\"cd"), 6);
	assert_string_equal(out, "ab\\");
	assert_int_equal(sitd_metrics_escape(NULL, 0, "\"\""), 4);
}

/*
 * Every family: # HELP then # TYPE, each once, then its samples, all named by it and in
 * one group; no sample outside a family; counters end in _total (OpenMetrics).
 */
static void families_once(void **state)
{
	char fam[64][80], cur[80] = "";
	unsigned nfam = 0, samples = 0;
	bool help_seen = false;
	size_t len = format_all(buf, sizeof(buf), true);

	(void)state;
	assert_true(len < sizeof(buf));
	for (char *l = buf; *l;) {
		char *e = strchr(l, '\n'), name[80], type[16];

		assert_non_null(e);	/* every line ends in \n, the last too */
		*e = '\0';
		if (!strncmp(l, "# HELP ", 7)) {
			assert_int_equal(sscanf(l + 7, "%79s", name), 1);
			for (unsigned i = 0; i < nfam; i++)
				if (!strcmp(fam[i], name))
					fail_msg("family %s twice", name);
			assert_true(nfam < ARRAY_SIZE(fam) && !help_seen);
			strcpy(fam[nfam++], name);
			strcpy(cur, name);
			help_seen = true;
		} else if (!strncmp(l, "# TYPE ", 7)) {
			assert_int_equal(sscanf(l + 7, "%79s %15s", name, type), 2);
			assert_true(help_seen);
			assert_string_equal(name, cur);
			if (!strcmp(type, "counter"))
				assert_string_equal(name + strlen(name) - 6, "_total");
			else
				assert_string_equal(type, "gauge");
			help_seen = false;
		} else {
			size_t k = strcspn(l, "{ ");

			assert_false(help_seen);
			assert_true(cur[0] && k == strlen(cur) && !strncmp(l, cur, k));
			assert_int_not_equal(l[0], '#');
			samples++;
		}
		*e = '\n';
		l = e + 1;
	}
	/* 11 process families and 2 of HTTP, 3 gauges, the counters, the drops */
	assert_int_equal(nfam, 13 + 3 + ARRAY_SIZE(ctrs) + 1);
	assert_int_equal(samples, 10 + 1 + SITD_HTTP_STATUS_MAX + 1 + 3 * 3 +
				  3 * ARRAY_SIZE(ctrs) + 2 + 3 * SITD_DROP_MAX);
}

static void label_sets(void **state)
{
	char want[400];

	(void)state;
	format_all(buf, sizeof(buf), false);
	has_line(buf, "sitd_tx_packets_total{tunnel=\"he-ipv6\",mode=\"sit\",remote=\"192.0.2.1\","
		      "local=\"198.51.100.2\"} 1000");
	has_line(buf, "sitd_rx_bytes_total{tunnel=\"t\\\"6\\\\x\",mode=\"ipip6\","
		      "remote=\"2001:db8::2\",local=\"any\"} 2018");
	has_line(buf, "sitd_tunnel_up{tunnel=\"isatap0\",mode=\"isatap\",remote=\"any\","
		      "local=\"192.0.2.1\"} 1");
	has_line(buf, "sitd_tunnel_up{tunnel=\"t\\\"6\\\\x\",mode=\"ipip6\",remote=\"2001:db8::2\","
		      "local=\"any\"} 0");
	has_line(buf, "sitd_tunnel_mtu{tunnel=\"he-ipv6\",mode=\"sit\",remote=\"192.0.2.1\","
		      "local=\"198.51.100.2\"} 1480");
	has_line(buf, "sitd_tunnel_path_mtu{tunnel=\"he-ipv6\",mode=\"sit\",remote=\"192.0.2.1\","
		      "local=\"198.51.100.2\"} 1500");
	/* The drops: one family, a reason label; the process's own without a tunnel */
	has_line(buf, "sitd_drops_total{reason=\"rx_no_tunnel\"} 77");
	has_line(buf, "sitd_drops_total{reason=\"rx_truncated\"} 78");
	snprintf(want, sizeof(want), "sitd_drops_total{tunnel=\"he-ipv6\",mode=\"sit\","
		 "remote=\"192.0.2.1\",local=\"198.51.100.2\",reason=\"tx_too_big\"} %u",
		 1500u + SITD_DROP_tx_too_big);
	has_line(buf, want);
	has_line(buf, "sitd_build_info{version=\"1.2\\\"3\"} 1");
	has_line(buf, "sitd_tunnels 3");
	has_line(buf, "sitd_workers 2");
	has_line(buf, "sitd_netlink_overruns_total 5");
	has_line(buf, "sitd_netlink_resyncs_total 6");
	has_line(buf, "sitd_monitor_clients 2");
	has_line(buf, "sitd_monitor_dropped_total 3");
	has_line(buf, "sitd_events_lost_total 4");
	has_line(buf, "sitd_netns_lost_total 7");
	has_line(buf, "sitd_netns_back_total 8");
	has_line(buf, "sitd_seccomp_refused_total{syscall=\"ptrace\"} 3");
	has_line(buf, "# TYPE sitd_drops_total counter");
	has_line(buf, "# TYPE sitd_tunnel_up gauge");
	/* Without -M, no HTTP families */
	assert_null(strstr(buf, "sitd_http_"));
	format_all(buf, sizeof(buf), true);
	has_line(buf, "sitd_http_responses_total{code=\"404\"} 4");
	has_line(buf, "sitd_http_responses_total{code=\"200\"} 0");
	has_line(buf, "sitd_http_timeouts_total 9");
}

/* Every counter of stats.h, for every tunnel, with its own value; every drop reason too. */
static void every_counter(void **state)
{
	static const char *const lab[3] = {
		"tunnel=\"he-ipv6\",mode=\"sit\",remote=\"192.0.2.1\",local=\"198.51.100.2\"",
		"tunnel=\"t\\\"6\\\\x\",mode=\"ipip6\",remote=\"2001:db8::2\",local=\"any\"",
		"tunnel=\"isatap0\",mode=\"isatap\",remote=\"any\",local=\"192.0.2.1\"",
	};
	char want[400];

	(void)state;
	format_all(buf, sizeof(buf), false);
	for (unsigned t = 0; t < 3; t++) {
		for (size_t i = 0; i < ARRAY_SIZE(ctrs); i++) {
			snprintf(want, sizeof(want), "sitd_%s_total{%s} %zu", ctrs[i].name, lab[t],
				 (t + 1) * 1000 + i);
			has_line(buf, want);
		}
		for (size_t i = 0; i < SITD_DROP_MAX; i++) {
			snprintf(want, sizeof(want), "sitd_drops_total{%s,reason=\"%s\"} %zu", lab[t],
				 sitd_drop_names[i], (t + 1) * 1000 + 500 + i);
			has_line(buf, want);
		}
	}
}

/* The length of the whole, as snprintf; a small buffer gets a NUL-terminated prefix. */
static void length_and_cut(void **state)
{
	static char small[1000];
	size_t whole = format_all(buf, sizeof(buf), true);

	(void)state;
	assert_int_equal(strlen(buf), whole);
	assert_int_equal(format_all(NULL, 0, true), whole);
	memset(small, 'x', sizeof(small));
	assert_int_equal(format_all(small, 500, true), whole);
	assert_int_equal(strlen(small), 499);
	assert_memory_equal(small, buf, 499);
	assert_int_equal(small[500], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escaping),
		cmocka_unit_test(families_once),
		cmocka_unit_test(label_sets),
		cmocka_unit_test(every_counter),
		cmocka_unit_test(length_and_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
