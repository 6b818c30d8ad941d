/* SPDX-License-Identifier: MIT */
/* The Prometheus text exposition format 0.0.4 of every counter (metrics.h). */
#include "proto/metrics.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/wire.h"
#include "proto/show.h"

/* The output: what fits in buf, and the length of the whole. */
struct mo {
	char *buf;
	size_t cap, len;
};

static void put(struct mo *m, const char *s, size_t n)
{
	if (m->cap && m->len < m->cap - 1) {
		size_t room = m->cap - 1 - m->len, k = n < room ? n : room;

		memcpy(m->buf + m->len, s, k);
		m->buf[m->len + k] = '\0';
	}
	m->len += n;
}

static void puts_(struct mo *m, const char *s)
{
	put(m, s, strlen(s));
}

static void put_u64(struct mo *m, uint64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRIu64, v);

	put(m, b, (size_t)n);
}

/* The length of the UTF-8 sequence at s (RFC 3629 4), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], min, cp;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also a NUL: the sequence is cut */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Escaped as label values are; HELP text (help true) escapes only \ and newline. */
static void escape(struct mo *m, const char *s, bool help)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '\\')
			put(m, "\\\\", 2);
		else if (*p == '\n')
			put(m, "\\n", 2);
		else if (*p == '"' && !help)
			put(m, "\\\"", 2);
		else if (!n)
			put(m, "\xef\xbf\xbd", 3);	/* U+FFFD REPLACEMENT CHARACTER */
		else
			put(m, (const char *)p, n);
		p += n ? n : 1;
	}
}

size_t sitd_metrics_escape(char *buf, size_t cap, const char *s)
{
	struct mo m = { .buf = buf, .cap = cap, .len = 0 };

	if (cap)
		buf[0] = '\0';
	escape(&m, s, false);
	return m.len;
}

/* # HELP and # TYPE, once per family. */
static void family(struct mo *m, const char *name, const char *type, const char *help)
{
	puts_(m, "# HELP ");
	puts_(m, name);
	put(m, " ", 1);
	escape(m, help, true);
	puts_(m, "\n# TYPE ");
	puts_(m, name);
	put(m, " ", 1);
	puts_(m, type);
	put(m, "\n", 1);
}

/* name{labels} value; labels already written as the format has them, or "". */
static void sample(struct mo *m, const char *name, const char *labels, uint64_t v)
{
	puts_(m, name);
	if (labels[0]) {
		put(m, "{", 1);
		puts_(m, labels);
		put(m, "}", 1);
	}
	put(m, " ", 1);
	put_u64(m, v);
	put(m, "\n", 1);
}

/* `ip tunnel`'s mode word, `ip -6 tunnel`'s for an IPv6 underlay (cli.c's mode_word). */
static const char *mode_label(const struct sitd_conf *c)
{
	if (c->isatap)
		return "isatap";
	if (c->outer == SITD_OUTER_IPV6)
		return c->mode == SITD_MODE_IPIP ? "ipip6" : c->mode == SITD_MODE_SIT ? "ip6ip6" : "any";
	return c->mode == SITD_MODE_IPIP ? "ipip" : c->mode == SITD_MODE_SIT ? "sit" : "any";
}

/* An outer address as `show` has it: "any" when unset. */
static void addr_label(char *s, size_t len, const struct sitd_conf *c, bool remote)
{
	static const uint8_t zero[16];
	const uint8_t *a6 = remote ? c->remote6 : c->local6;
	uint32_t a = remote ? c->remote : c->local;
	uint8_t b[4];

	snprintf(s, len, "any");
	if (c->outer == SITD_OUTER_IPV6) {
		if (memcmp(a6, zero, 16))
			inet_ntop(AF_INET6, a6, s, (socklen_t)len);
	} else if (a) {
		wr32(b, a);
		inet_ntop(AF_INET, b, s, (socklen_t)len);
	}
}

/* tunnel="..",mode="..",remote="..",local="..", into s. */
static void tunnel_labels(char *s, size_t len, const struct sitd_conf *c)
{
	char r[INET6_ADDRSTRLEN], l[INET6_ADDRSTRLEN], name[SITD_IFNAMSIZ * 3 + 1];

	sitd_metrics_escape(name, sizeof(name), c->name);
	addr_label(r, sizeof(r), c, true);
	addr_label(l, sizeof(l), c, false);
	snprintf(s, len, "tunnel=\"%s\",mode=\"%s\",remote=\"%s\",local=\"%s\"", name,
		 mode_label(c), r, l);
}

enum { LABELS_MAX = 256 };

static void process(struct mo *m, const struct sitd_metrics_process *p, unsigned ntunnels)
{
	char lab[LABELS_MAX], v[128];

	family(m, "sitd_build_info", "gauge", "sitd's version, in the version label; always 1");
	sitd_metrics_escape(v, sizeof(v), p->version ? p->version : "unknown");
	snprintf(lab, sizeof(lab), "version=\"%s\"", v);
	sample(m, "sitd_build_info", lab, 1);
	family(m, "sitd_tunnels", "gauge", "tunnels running");
	sample(m, "sitd_tunnels", "", ntunnels);
	family(m, "sitd_workers", "gauge", "worker threads");
	sample(m, "sitd_workers", "", p->workers);
	family(m, "sitd_netlink_overruns_total", "counter",
	       "link notifications lost to a full netlink queue, ENOBUFS");
	sample(m, "sitd_netlink_overruns_total", "", p->netlink_overruns);
	family(m, "sitd_netlink_resyncs_total", "counter",
	       "links, addresses and routes dumped again after lost notifications");
	sample(m, "sitd_netlink_resyncs_total", "", p->netlink_resyncs);
	family(m, "sitd_monitor_clients", "gauge", "clients following `sitd monitor`");
	sample(m, "sitd_monitor_clients", "", p->monitor_clients);
	family(m, "sitd_monitor_dropped_total", "counter",
	       "`sitd monitor` clients dropped for leaving their events unread");
	sample(m, "sitd_monitor_dropped_total", "", p->monitor_dropped);
	family(m, "sitd_events_lost_total", "counter", "events lost to a full daemon queue");
	sample(m, "sitd_events_lost_total", "", p->events_lost);
	family(m, "sitd_netns_lost_total", "counter",
	       "netns tunnels whose namespace was seen gone (the tunnel down)");
	sample(m, "sitd_netns_lost_total", "", p->netns_lost);
	family(m, "sitd_netns_back_total", "counter",
	       "netns tunnels started again in their namespace come back");
	sample(m, "sitd_netns_back_total", "", p->netns_back);
	family(m, "sitd_seccomp_refused_total", "counter",
	       "system calls the seccomp filter refused, by name (each one a finding)");
	for (unsigned i = 0; i < p->nrefused; i++) {
		sitd_metrics_escape(v, sizeof(v), p->refused_names[i]);
		snprintf(lab, sizeof(lab), "syscall=\"%s\"", v);
		sample(m, "sitd_seccomp_refused_total", lab, p->refused_counts[i]);
	}
	if (!p->http)
		return;
	family(m, "sitd_http_responses_total", "counter",
	       "answers of the -M exporter, by status code");
	for (unsigned i = 0; i < SITD_HTTP_STATUS_MAX; i++) {
		snprintf(lab, sizeof(lab), "code=\"%u\"", sitd_http_code((enum sitd_http_status)i));
		sample(m, "sitd_http_responses_total", lab, p->http->responses[i]);
	}
	family(m, "sitd_http_timeouts_total", "counter",
	       "connections of the -M exporter closed at their deadline, the request or "
	       "its answer too slow");
	sample(m, "sitd_http_timeouts_total", "", p->http->timeouts);
}

size_t sitd_metrics_format(char *buf, size_t cap, const struct sitd_metrics_process *p,
			   const struct sitd_metrics_tunnel *t, unsigned n)
{
	struct mo m = { .buf = buf, .cap = cap, .len = 0 };
	char lab[LABELS_MAX], drop[LABELS_MAX + 64];

	if (cap)
		buf[0] = '\0';
	process(&m, p, n);
	family(&m, "sitd_tunnel_up", "gauge", "1 when the tunnel's device is up (IFF_UP)");
	for (unsigned i = 0; i < n; i++) {
		tunnel_labels(lab, sizeof(lab), t[i].conf);
		sample(&m, "sitd_tunnel_up", lab, t[i].up);
	}
	family(&m, "sitd_tunnel_mtu", "gauge", "the tunnel device's MTU");
	for (unsigned i = 0; i < n; i++) {
		tunnel_labels(lab, sizeof(lab), t[i].conf);
		sample(&m, "sitd_tunnel_mtu", lab, t[i].conf->mtu);
	}
	family(&m, "sitd_tunnel_path_mtu", "gauge", "the path MTU toward the remote, as sitd uses it");
	for (unsigned i = 0; i < n; i++) {
		tunnel_labels(lab, sizeof(lab), t[i].conf);
		sample(&m, "sitd_tunnel_path_mtu", lab, t[i].path_mtu);
	}
	/* One family per counter of stats.h, its samples one per tunnel. */
#define METRICS_CTR(name, desc)                                                         \
	family(&m, "sitd_" #name "_total", "counter", desc);                            \
	for (unsigned i = 0; i < n; i++) {                                               \
		tunnel_labels(lab, sizeof(lab), t[i].conf);                               \
		sample(&m, "sitd_" #name "_total", lab, t[i].stats->name);                \
	}
	SITD_COUNTERS(METRICS_CTR)
#undef METRICS_CTR
	family(&m, "sitd_drops_total", "counter",
	       "packets dropped, by reason (sitd(8)); the process's own without tunnel labels");
	for (int r = 0; r < SITD_DROP_MAX; r++) {
		if (!sitd_show_process_drop(r) || !p->stats)
			continue;
		snprintf(drop, sizeof(drop), "reason=\"%s\"", sitd_drop_names[r]);
		sample(&m, "sitd_drops_total", drop, p->stats->drop[r]);
	}
	for (unsigned i = 0; i < n; i++) {
		tunnel_labels(lab, sizeof(lab), t[i].conf);
		for (int r = 0; r < SITD_DROP_MAX; r++) {
			snprintf(drop, sizeof(drop), "%s,reason=\"%s\"", lab, sitd_drop_names[r]);
			sample(&m, "sitd_drops_total", drop, t[i].stats->drop[r]);
		}
	}
	return m.len;
}
