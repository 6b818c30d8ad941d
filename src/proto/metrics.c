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

/*
 * The families, in the order of the text: the process's, then the tunnels' gauges, one
 * per counter of stats.h (per tunnel for those of TUNNEL_CTRS, summed over the process
 * for the rest), then the drops.  A tunnel family is items: its head (cursor next 0),
 * then tunnel next - 1's samples; the others are one item, head and samples.
 */
enum {
	F_BUILD, F_TUNNELS, F_WORKERS, F_NL_OVERRUNS, F_NL_RESYNCS, F_MON_CLIENTS,
	F_MON_DROPPED, F_EVENTS_LOST, F_NETNS_LOST, F_NETNS_BACK, F_SECCOMP, F_HTTP_RESPONSES,
	F_HTTP_TIMEOUTS,
	F_UP, F_MTU, F_PATH_MTU,
	F_CTR,				/* F_CTR + k: counter k of SITD_COUNTERS */
	F_TUNNEL_DROPS = F_CTR + 0
#define METRICS_COUNT(name, desc) +1
	SITD_COUNTERS(METRICS_COUNT)
#undef METRICS_COUNT
	,
	F_DROPS, F_PROCESS_DROPS, F_END
};

struct ctr {
	const char *name, *desc;
	size_t off;
};

static const struct ctr ctrs[] = {
#define METRICS_CTR(name, desc) { #name, desc, offsetof(struct sitd_stats, name) },
	SITD_COUNTERS(METRICS_CTR)
#undef METRICS_CTR
};

static uint64_t ctr_of(const struct sitd_stats *s, unsigned k)
{
	uint64_t v;

	memcpy(&v, (const char *)s + ctrs[k].off, sizeof(v));
	return v;
}

/*
 * The counters graphed per tunnel; the others (GSO, checksums, ICMP, GRO, ...) are for
 * finding out why, which `show -s NAME` tells per tunnel: a series each per tunnel would
 * be 25 more a tunnel, almost all zero or never looked at.
 */
static bool tunnel_ctr(unsigned k)
{
	static const char *const names[] = { "tx_packets", "tx_bytes", "rx_packets", "rx_bytes" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(ctrs[k].name, names[i]))
			return true;
	return false;
}

static bool tunnel_family(unsigned f)
{
	return f == F_UP || f == F_MTU || f == F_PATH_MTU || f == F_TUNNEL_DROPS ||
	       f == F_DROPS || (f >= F_CTR && f < F_TUNNEL_DROPS && tunnel_ctr(f - F_CTR));
}

/* sitd_NAME_total of counter k. */
static void ctr_name(char *s, size_t len, unsigned k)
{
	snprintf(s, len, "sitd_%s_total", ctrs[k].name);
}

static uint64_t drops_of(const struct sitd_stats *s)
{
	uint64_t n = 0;

	for (int r = 0; r < SITD_DROP_MAX; r++)
		n += s->drop[r];
	return n;
}

/* A one-item family: the process's, or a counter summed over the tunnels. */
static void process_family(struct mo *m, unsigned f, const struct sitd_metrics_process *p,
			   const struct sitd_metrics_cursor *c)
{
	char lab[LABELS_MAX], v[128], name[64], help[160];

	switch (f) {
	case F_BUILD:
		family(m, "sitd_build_info", "gauge", "sitd's version, in the version label; always 1");
		sitd_metrics_escape(v, sizeof(v), p->version ? p->version : "unknown");
		snprintf(lab, sizeof(lab), "version=\"%s\"", v);
		sample(m, "sitd_build_info", lab, 1);
		return;
	case F_TUNNELS:
		family(m, "sitd_tunnels", "gauge", "tunnels running");
		sample(m, "sitd_tunnels", "", c->ntunnels);
		return;
	case F_WORKERS:
		family(m, "sitd_workers", "gauge", "worker threads");
		sample(m, "sitd_workers", "", p->workers);
		return;
	case F_NL_OVERRUNS:
		family(m, "sitd_netlink_overruns_total", "counter",
		       "link notifications lost to a full netlink queue, ENOBUFS");
		sample(m, "sitd_netlink_overruns_total", "", p->netlink_overruns);
		return;
	case F_NL_RESYNCS:
		family(m, "sitd_netlink_resyncs_total", "counter",
		       "links, addresses and routes dumped again after lost notifications");
		sample(m, "sitd_netlink_resyncs_total", "", p->netlink_resyncs);
		return;
	case F_MON_CLIENTS:
		family(m, "sitd_monitor_clients", "gauge", "clients following `sitd monitor`");
		sample(m, "sitd_monitor_clients", "", p->monitor_clients);
		return;
	case F_MON_DROPPED:
		family(m, "sitd_monitor_dropped_total", "counter",
		       "`sitd monitor` clients dropped for leaving their events unread");
		sample(m, "sitd_monitor_dropped_total", "", p->monitor_dropped);
		return;
	case F_EVENTS_LOST:
		family(m, "sitd_events_lost_total", "counter", "events lost to a full daemon queue");
		sample(m, "sitd_events_lost_total", "", p->events_lost);
		return;
	case F_NETNS_LOST:
		family(m, "sitd_netns_lost_total", "counter",
		       "netns tunnels whose namespace was seen gone (the tunnel down)");
		sample(m, "sitd_netns_lost_total", "", p->netns_lost);
		return;
	case F_NETNS_BACK:
		family(m, "sitd_netns_back_total", "counter",
		       "netns tunnels started again in their namespace come back");
		sample(m, "sitd_netns_back_total", "", p->netns_back);
		return;
	case F_SECCOMP:
		family(m, "sitd_seccomp_refused_total", "counter",
		       "system calls the seccomp filter refused, by name (each one a finding)");
		for (unsigned i = 0; i < p->nrefused; i++) {
			sitd_metrics_escape(v, sizeof(v), p->refused_names[i]);
			snprintf(lab, sizeof(lab), "syscall=\"%s\"", v);
			sample(m, "sitd_seccomp_refused_total", lab, p->refused_counts[i]);
		}
		return;
	case F_HTTP_RESPONSES:
		if (!p->http)
			return;
		family(m, "sitd_http_responses_total", "counter",
		       "answers of the -M exporter, by status code");
		for (unsigned i = 0; i < SITD_HTTP_STATUS_MAX; i++) {
			snprintf(lab, sizeof(lab), "code=\"%u\"",
				 sitd_http_code((enum sitd_http_status)i));
			sample(m, "sitd_http_responses_total", lab, p->http->responses[i]);
		}
		return;
	case F_HTTP_TIMEOUTS:
		if (!p->http)
			return;
		family(m, "sitd_http_timeouts_total", "counter",
		       "connections of the -M exporter closed at their deadline, the request or "
		       "its answer too slow");
		sample(m, "sitd_http_timeouts_total", "", p->http->timeouts);
		return;
	case F_PROCESS_DROPS:
		/* Every reason, zero too: an alert on one needs its series before it counts. */
		family(m, "sitd_process_drops_total", "counter",
		       "packets dropped by the process, every tunnel's and its own, by reason "
		       "(sitd(8)); every reason, zero included");
		for (int r = 0; r < SITD_DROP_MAX; r++) {
			snprintf(lab, sizeof(lab), "reason=\"%s\"", sitd_drop_names[r]);
			sample(m, "sitd_process_drops_total", lab,
			       c->total.drop[r] + (p->stats ? p->stats->drop[r] : 0));
		}
		return;
	default:
		break;
	}
	if (f >= F_CTR && f < F_TUNNEL_DROPS) {	/* a counter summed over the tunnels */
		ctr_name(name, sizeof(name), f - F_CTR);
		snprintf(help, sizeof(help), "%s; every tunnel's, summed", ctrs[f - F_CTR].desc);
		family(m, name, "counter", help);
		sample(m, name, "", ctr_of(&c->total, f - F_CTR));
	}
}

/* A tunnel family's head: # HELP, # TYPE and, for the drops, the process's own. */
static void tunnel_head(struct mo *m, unsigned f, const struct sitd_metrics_process *p)
{
	char name[64], lab[LABELS_MAX];

	switch (f) {
	case F_UP:
		family(m, "sitd_tunnel_up", "gauge", "1 when the tunnel's device is up (IFF_UP)");
		return;
	case F_MTU:
		family(m, "sitd_tunnel_mtu", "gauge", "the tunnel device's MTU");
		return;
	case F_PATH_MTU:
		family(m, "sitd_tunnel_path_mtu", "gauge",
		       "the path MTU toward the remote, as sitd uses it");
		return;
	case F_TUNNEL_DROPS:
		family(m, "sitd_tunnel_drops_total", "counter",
		       "packets the tunnel dropped, every reason; by reason in sitd_drops_total");
		return;
	case F_DROPS:
		family(m, "sitd_drops_total", "counter",
		       "packets dropped, by reason (sitd(8)): a tunnel's only once it counted one, "
		       "the process's own without tunnel labels");
		for (int r = 0; r < SITD_DROP_MAX; r++) {
			if (!sitd_show_process_drop(r) || !p->stats)
				continue;
			snprintf(lab, sizeof(lab), "reason=\"%s\"", sitd_drop_names[r]);
			sample(m, "sitd_drops_total", lab, p->stats->drop[r]);
		}
		return;
	default:
		ctr_name(name, sizeof(name), f - F_CTR);
		family(m, name, "counter", ctrs[f - F_CTR].desc);
		return;
	}
}

/* One tunnel's samples of family f. */
static void tunnel_item(struct mo *m, unsigned f, const struct sitd_metrics_tunnel *t)
{
	char lab[LABELS_MAX], drop[LABELS_MAX + 64], name[64];

	tunnel_labels(lab, sizeof(lab), t->conf);
	switch (f) {
	case F_UP:
		sample(m, "sitd_tunnel_up", lab, t->up);
		return;
	case F_MTU:
		sample(m, "sitd_tunnel_mtu", lab, t->conf->mtu);
		return;
	case F_PATH_MTU:
		sample(m, "sitd_tunnel_path_mtu", lab, t->path_mtu);
		return;
	case F_TUNNEL_DROPS:
		sample(m, "sitd_tunnel_drops_total", lab, drops_of(t->stats));
		return;
	case F_DROPS:
		/*
		 * Only the reasons counted: 41 reasons a tunnel, almost all zero, were 90% of
		 * the text.  A series that appears at its first drop loses that increase to
		 * rate(); sitd_process_drops_total has every reason from the start.
		 */
		for (int r = 0; r < SITD_DROP_MAX; r++) {
			if (!t->stats->drop[r])
				continue;
			snprintf(drop, sizeof(drop), "%s,reason=\"%s\"", lab, sitd_drop_names[r]);
			sample(m, "sitd_drops_total", drop, t->stats->drop[r]);
		}
		return;
	default:
		ctr_name(name, sizeof(name), f - F_CTR);
		sample(m, name, lab, ctr_of(t->stats, f - F_CTR));
		return;
	}
}

void sitd_metrics_begin(struct sitd_metrics_cursor *c, sitd_metrics_tunnel_fn *get, void *ctx)
{
	struct sitd_metrics_tunnel t;

	memset(c, 0, sizeof(*c));
	while (get(ctx, c->ntunnels, &t)) {
		sitd_stats_sum(&c->total, t.stats);
		c->ntunnels++;
	}
}

/* The item at c into m, c moved past it (an empty one: a family without samples). */
static void item(struct mo *m, struct sitd_metrics_cursor *c,
		 const struct sitd_metrics_process *p, sitd_metrics_tunnel_fn *get, void *ctx)
{
	struct sitd_metrics_tunnel t;

	if (!tunnel_family(c->family)) {
		process_family(m, c->family, p, c);
		c->family++;
	} else if (c->next == 0) {
		tunnel_head(m, c->family, p);
		c->next = 1;
	} else if (get(ctx, c->next - 1, &t)) {
		tunnel_item(m, c->family, &t);
		c->next++;
	} else {
		c->family++;
		c->next = 0;
	}
	c->done = c->family == F_END;
}

int sitd_metrics_part(struct sitd_metrics_cursor *c, char *buf, size_t cap, size_t *len,
		      const struct sitd_metrics_process *p, sitd_metrics_tunnel_fn *get, void *ctx)
{
	struct mo m = { .buf = buf, .cap = cap, .len = 0 };

	*len = 0;
	if (!cap)
		return c->done ? 0 : -1;
	buf[0] = '\0';
	while (!c->done) {
		unsigned family = c->family, next = c->next;
		size_t before = m.len;

		item(&m, c, p, get, ctx);
		if (m.len < cap)
			continue;
		/* Cut: the item waits for the next part, whole. */
		c->family = family, c->next = next, c->done = false;
		buf[before] = '\0';
		if (!before)
			return -1;
		m.len = before;
		break;
	}
	*len = m.len;
	return c->done ? 0 : 1;
}
