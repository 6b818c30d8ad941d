/* SPDX-License-Identifier: MIT */
/*
 * `sitd metrics` (metrics.h): the Prometheus text exposition format 0.0.4.  Label values
 * escaped (backslash, double quote, newline; bytes that are not UTF-8 replaced); each
 * family's # HELP and # TYPE exactly once, before its samples, which come in one group;
 * the label sets of a tunnel's samples, of the drops and of the process; per tunnel only
 * packets, bytes, the drops in all and the reasons counted, the other counters and every
 * reason (zero too) summed over the process; the text in parts of whole lines, the same
 * whatever their size, the worst tunnel within SITD_METRICS_PART_MIN.
 * Configurations are built field by field, not parsed.
 */
#include <inttypes.h>
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

/* A third of the reasons counted, the others zero. */
static bool counted(size_t reason)
{
	return reason % 3 == 0;
}

static unsigned ncounted(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		n += counted(i);
	return n;
}

/* The counters graphed per tunnel (metrics.c's tunnel_ctr). */
static bool per_tunnel(const char *name)
{
	return !strcmp(name, "tx_packets") || !strcmp(name, "tx_bytes") ||
	       !strcmp(name, "rx_packets") || !strcmp(name, "rx_bytes");
}

/* Distinct values everywhere, so that a value under the wrong name or tunnel shows. */
static void fill(struct sitd_stats *s, uint64_t base)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < ARRAY_SIZE(ctrs); i++)
		*ctr_at(s, i) = base + i;
	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		s->drop[i] = counted(i) ? base + 500 + i : 0;
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

struct table {
	const struct sitd_metrics_tunnel *t;
	unsigned n, calls;
};

static bool get(void *ctx, unsigned i, struct sitd_metrics_tunnel *t)
{
	struct table *tab = ctx;

	tab->calls++;
	if (i >= tab->n)
		return false;
	*t = tab->t[i];
	return true;
}

/* The whole text into out, in parts of at most part bytes each ending a line. */
static size_t format_parts(char *out, size_t cap, size_t part, const struct sitd_metrics_process *p,
			   struct table *tab)
{
	static char piece[BIG];
	struct sitd_metrics_cursor c;
	size_t len = 0, n;
	int rc;

	assert_true(part <= sizeof(piece));
	sitd_metrics_begin(&c, get, tab);
	do {
		rc = sitd_metrics_part(&c, piece, part, &n, p, get, tab);
		assert_true(rc >= 0);
		assert_true(n > 0 && n < part);
		assert_int_equal(strlen(piece), n);
		assert_int_equal(piece[n - 1], '\n');	/* whole lines only */
		assert_true(len + n < cap);
		memcpy(out + len, piece, n + 1);
		len += n;
	} while (rc > 0);
	assert_true(c.done);
	return len;
}

static struct sitd_metrics_tunnel tunnels[3];
static struct sitd_metrics_process process;

static size_t format_all(char *out, size_t cap, bool with_http)
{
	struct table tab = { .t = tunnels, .n = 3 };

	setup_confs();
	tunnels[0] = (struct sitd_metrics_tunnel){ .conf = &he, .stats = &st[0], .path_mtu = 1500, .up = true };
	tunnels[1] = (struct sitd_metrics_tunnel){ .conf = &ip6, .stats = &st[1], .path_mtu = 1492, .up = false };
	tunnels[2] = (struct sitd_metrics_tunnel){ .conf = &isatap, .stats = &st[2], .path_mtu = 0, .up = true };
	process = (struct sitd_metrics_process){ .version = "1.2\"3", .workers = 2, .stats = &proc,
						 .refused_names = refused_names,
						 .refused_counts = refused_counts, .nrefused = 1,
						 .netlink_overruns = 5, .netlink_resyncs = 6,
						 .monitor_clients = 2, .monitor_dropped = 3,
						 .events_lost = 4, .netns_lost = 7, .netns_back = 8,
						 .http = with_http ? &http : NULL };
	return format_parts(out, cap, BIG, &process, &tab);
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
	/* 11 process families and 2 of HTTP, 3 gauges, the counters, the 3 of drops */
	assert_int_equal(nfam, 13 + 3 + ARRAY_SIZE(ctrs) + 3);
	assert_int_equal(samples, 10 + 1 + SITD_HTTP_STATUS_MAX + 1 + 3 * 3 + 3 * 4 +
				  (ARRAY_SIZE(ctrs) - 4) + 3 + 2 + 3 * ncounted() + SITD_DROP_MAX);
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
		 "remote=\"192.0.2.1\",local=\"198.51.100.2\",reason=\"tx_vnet_bad\"} %u",
		 1500u + SITD_DROP_tx_vnet_bad);
	has_line(buf, want);
	/* A reason not counted: no series for the tunnel */
	assert_false(counted(SITD_DROP_tx_gso_unsupported));
	assert_null(strstr(buf, "local=\"198.51.100.2\",reason=\"tx_gso_unsupported\""));
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

/*
 * Per tunnel: packets and bytes each way with their own values, the drops in all, the
 * reasons counted and no other; the other counters summed over the tunnels, without
 * labels; every reason summed over the tunnels and the process, zero included.
 */
static void per_tunnel_and_summed(void **state)
{
	static const char *const lab[3] = {
		"tunnel=\"he-ipv6\",mode=\"sit\",remote=\"192.0.2.1\",local=\"198.51.100.2\"",
		"tunnel=\"t\\\"6\\\\x\",mode=\"ipip6\",remote=\"2001:db8::2\",local=\"any\"",
		"tunnel=\"isatap0\",mode=\"isatap\",remote=\"any\",local=\"192.0.2.1\"",
	};
	char want[400], prefix[400];

	(void)state;
	format_all(buf, sizeof(buf), false);
	for (unsigned t = 0; t < 3; t++) {
		uint64_t total = 0;

		for (size_t i = 0; i < ARRAY_SIZE(ctrs); i++) {
			snprintf(want, sizeof(want), "sitd_%s_total{%s} %zu", ctrs[i].name, lab[t],
				 (t + 1) * 1000 + i);
			if (per_tunnel(ctrs[i].name))
				has_line(buf, want);
			else
				assert_null(strstr(buf, want));
		}
		for (size_t i = 0; i < SITD_DROP_MAX; i++) {
			snprintf(want, sizeof(want), "sitd_drops_total{%s,reason=\"%s\"} %zu", lab[t],
				 sitd_drop_names[i], (t + 1) * 1000 + 500 + i);
			snprintf(prefix, sizeof(prefix), "sitd_drops_total{%s,reason=\"%s\"}", lab[t],
				 sitd_drop_names[i]);
			if (counted(i)) {
				has_line(buf, want);
				total += (t + 1) * 1000 + 500 + i;
			} else {
				assert_null(strstr(buf, prefix));
			}
		}
		snprintf(want, sizeof(want), "sitd_tunnel_drops_total{%s} %" PRIu64, lab[t], total);
		has_line(buf, want);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ctrs); i++) {
		if (per_tunnel(ctrs[i].name))
			continue;
		snprintf(want, sizeof(want), "sitd_%s_total %zu", ctrs[i].name, 6000 + 3 * i);
		has_line(buf, want);
	}
	for (size_t i = 0; i < SITD_DROP_MAX; i++) {
		uint64_t v = proc.drop[i] + (counted(i) ? 6000 + 3 * (500 + i) : 0);

		snprintf(want, sizeof(want), "sitd_process_drops_total{reason=\"%s\"} %" PRIu64,
			 sitd_drop_names[i], v);
		has_line(buf, want);
	}
	has_line(buf, "sitd_process_drops_total{reason=\"tx_gso_unsupported\"} 0");
	has_line(buf, "# TYPE sitd_process_drops_total counter");
	has_line(buf, "# TYPE sitd_tunnel_drops_total counter");
}

/*
 * The parts: whole lines each, within their cap, the same text whatever the cap; a cap
 * below the next item refused without moving the cursor; a tunnel that leaves the table
 * between parts ends its families early, the text still whole.
 */
static void parts(void **state)
{
	static char whole[BIG], cut[BIG];
	struct table tab = { .t = tunnels, .n = 3 };
	struct sitd_metrics_cursor c;
	char small[64];
	size_t len = format_all(whole, sizeof(whole), true), n;

	(void)state;
	for (size_t part = SITD_METRICS_PART_MIN; part < 3 * SITD_METRICS_PART_MIN; part += 997) {
		assert_int_equal(format_parts(cut, sizeof(cut), part, &process, &tab), len);
		assert_memory_equal(cut, whole, len + 1);
	}
	/* 4096 bytes: more parts, each holding a few of the largest items */
	assert_int_equal(format_parts(cut, sizeof(cut), 4096, &process, &tab), len);
	assert_memory_equal(cut, whole, len + 1);
	sitd_metrics_begin(&c, get, &tab);
	assert_int_equal(c.ntunnels, 3);
	assert_int_equal(sitd_metrics_part(&c, small, sizeof(small), &n, &process, get, &tab), -1);
	assert_int_equal(n, 0);
	assert_string_equal(small, "");
	assert_int_equal(c.family, 0);
	assert_int_equal(c.next, 0);
	assert_int_equal(sitd_metrics_part(&c, NULL, 0, &n, &process, get, &tab), -1);
	/* The table shrinks under the stream: fewer samples, every family still whole */
	sitd_metrics_begin(&c, get, &tab);
	assert_int_equal(sitd_metrics_part(&c, cut, 2000, &n, &process, get, &tab), 1);
	tab.n = 1;
	while (sitd_metrics_part(&c, cut, sizeof(cut), &n, &process, get, &tab) > 0)
		;
	assert_true(c.done);
	assert_non_null(strstr(cut, "# TYPE sitd_process_drops_total counter"));
}

/*
 * The worst tunnel: the longest escaped name and addresses, every reason counted with the
 * largest value, and 32 refused system calls: every item within SITD_METRICS_PART_MIN,
 * and a table of 2000 such tunnels within it part by part, every get answered in O(1) a
 * family.
 */
static void worst_case(void **state)
{
	static struct sitd_metrics_tunnel many[2000];
	static struct sitd_conf w;
	static struct sitd_stats ws;
	static char part[SITD_METRICS_PART_MIN];
	const char *names[32];
	uint64_t counts[32];
	struct table tab = { .t = many, .n = 2000 };
	struct sitd_metrics_process p = { .version = "\xff\xff\xff\xff\xff\xff\xff\xff",
					  .stats = &ws, .refused_names = names,
					  .refused_counts = counts, .nrefused = 32, .http = &http };
	struct sitd_metrics_cursor c;
	size_t n, total = 0, parts = 0;
	int rc;

	(void)state;
	memset(&w, 0, sizeof(w));
	memset(w.name, 0xff, SITD_IFNAMSIZ - 1);	/* each byte U+FFFD: 3 bytes */
	w.outer = SITD_OUTER_IPV6;
	memset(w.remote6, 0xfe, 16);
	memset(w.local6, 0xfe, 16);
	w.mtu = UINT32_MAX;
	memset(&ws, 0xff, sizeof(ws));
	for (unsigned i = 0; i < 32; i++) {
		names[i] = "rt_tgsigqueueinfo_and_more_char";
		counts[i] = UINT64_MAX;
	}
	for (unsigned i = 0; i < 2000; i++)
		many[i] = (struct sitd_metrics_tunnel){ .conf = &w, .stats = &ws,
							 .path_mtu = UINT32_MAX, .up = true };
	sitd_metrics_begin(&c, get, &tab);
	tab.calls = 0;
	do {
		rc = sitd_metrics_part(&c, part, sizeof(part), &n, &p, get, &tab);
		assert_true(rc >= 0);
		total += n;
		parts++;
	} while (rc > 0);
	/* Bounded: a tunnel's lines at their longest, then parts that are mostly full */
	assert_true(total > 2000u * SITD_DROP_MAX * 200);
	assert_true(parts < 3 * total / sizeof(part) + 4);
	/* Each tunnel asked for once a family (and again for an item cut) */
	assert_true(tab.calls < 2000u * 9 + 2 * parts + 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escaping),
		cmocka_unit_test(families_once),
		cmocka_unit_test(label_sets),
		cmocka_unit_test(per_tunnel_and_summed),
		cmocka_unit_test(parts),
		cmocka_unit_test(worst_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
