/* SPDX-License-Identifier: MIT */
/*
 * The answers to the control socket's requests (request.h): show, status, reload,
 * sandbox, 6rd and prl, each read from the daemon (daemon.h) or done there, and written
 * into the client's buffer for control.c to send.  A handler returns 0, or -ENOMEM when
 * not even an error message could be made.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/server_int.h"
#include "core/sixrd.h"
#include "daemon/daemon.h"
#include "os/clock.h"
#include "os/log.h"
#include "priv/priv.h"
#include "proto/metrics.h"
#include "proto/request.h"
#include "proto/show.h"

int requests_reply(struct control_client *c, const char *text)
{
	c->out = strdup(text);
	c->outlen = c->out ? strlen(c->out) : 0;
	return c->out ? 0 : -ENOMEM;
}

/*
 * show: one tunnel, or all of them streamed in parts of SHOW_PART (control.c sends each
 * once the last has gone), so 10 000 tunnels need no buffer of 10 000 answers.  A reload
 * between two parts may move the list under the stream: a tunnel then comes twice or not
 * at all, but the answer stays whole (the JSON valid).
 */
enum { SHOW_PART = 16 };

/* The next part of `sitd metrics`, REQUESTS_METRICS_PART bytes at most. */
static int more_metrics(struct server *s, struct control_client *c)
{
	int rc;

	if (!c->out && !(c->out = malloc(REQUESTS_METRICS_PART)))
		return -ENOMEM;
	c->outoff = 0;
	rc = requests_metrics_part(s, &c->mc, c->out, REQUESTS_METRICS_PART, &c->outlen);
	c->more = rc > 0;
	/* Not by SITD_METRICS_PART_MIN: say so rather than send a text cut short. */
	if (rc < 0)
		c->outlen = (size_t)snprintf(c->out, REQUESTS_METRICS_PART,
					     "error: the answer does not fit\n");
	return 0;
}

int requests_more(struct server *s, struct control_client *c)
{
	static struct sitd_show_tunnel st[SHOW_PART];
	static struct sitd_stats stats[SHOW_PART];	/* the control thread's only */
	static struct sitd_show_keepalive ka[SHOW_PART];
	uint64_t now = now_ns();
	unsigned n = daemon_count(s->d), k = 0, i;
	size_t cap = 256 + (size_t)SHOW_PART * REQUESTS_SHOW_PER_TUNNEL;
	bool first = c->next == 0;

	if (c->metrics)
		return more_metrics(s, c);
	if (!c->out && !(c->out = malloc(cap)))
		return -ENOMEM;
	for (i = c->next; i < n && k < SHOW_PART; i++, k++) {
		const struct tunnel *t = daemon_tunnel(s->d, i);

		tunnel_stats(t, &stats[k]);
		st[k] = (struct sitd_show_tunnel){ .conf = tunnel_conf(t), .stats = &stats[k],
						   .path_mtu = tunnel_path_mtu(t),
						   .netns_gone = tunnel_netns_gone(t), .ka = &ka[k] };
		tunnel_keepalive(t, &ka[k], now);
	}
	c->next = i;
	c->more = i < n;
	c->outoff = 0;
	c->outlen = sitd_show_part(c->out, cap, st, k, c->stats, c->json, first, !c->more);
	/* Cut (it cannot be, by REQUESTS_SHOW_PER_TUNNEL), the JSON would be broken: stop. */
	if (c->outlen + 1 >= cap) {
		c->more = false;
		c->outlen = (size_t)snprintf(c->out, cap, "error: the answer does not fit\n");
	}
	return 0;
}

static int req_show(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	struct sitd_show_tunnel st;
	struct sitd_show_keepalive ka;
	struct sitd_stats stats;
	const struct tunnel *t;
	size_t cap = 256 + REQUESTS_SHOW_PER_TUNNEL;

	c->stats = r->stats;
	c->json = r->json;
	c->next = 0;
	if (!r->name[0] && requests_more(s, c) < 0)
		return requests_reply(c, "error: out of memory\n");
	if (!r->name[0])
		return 0;
	c->out = malloc(cap);
	if (!c->out)
		return requests_reply(c, "error: out of memory\n");
	t = daemon_find(s->d, r->name);
	if (!t) {
		c->outlen = (size_t)snprintf(c->out, cap, "error: no tunnel \"%s\"\n", r->name);
		return 0;
	}
	tunnel_stats(t, &stats);
	tunnel_keepalive(t, &ka, now_ns());
	st = (struct sitd_show_tunnel){ .conf = tunnel_conf(t), .stats = &stats,
					.path_mtu = tunnel_path_mtu(t),
					.netns_gone = tunnel_netns_gone(t), .ka = &ka };
	c->outlen = sitd_show_format(c->out, cap, &st, 1, r->stats, r->json);
	/* A cut answer would be broken JSON: say so rather than send it. */
	if (c->outlen + 1 >= cap)
		c->outlen = (size_t)snprintf(c->out, cap, "error: the answer does not fit\n");
	return 0;
}

static int req_status(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	bool json = r->json;
	struct sitd_stats st;
	char paths[4096], names[32][32];
	const char *rname[32];
	uint64_t rcount[32];
	struct priv_refused ref[32];
	size_t cap = 16384, nref;
	uint64_t overruns, resyncs, lost, back;

	daemon_stats(s->d, &st);
	daemon_netlink_stats(s->d, &overruns, &resyncs);
	daemon_netns_stats(s->d, &lost, &back);
	daemon_describe_paths(s->d, paths, sizeof(paths), json);
	c->out = malloc(cap);
	if (!c->out)
		return requests_reply(c, "error: out of memory\n");
	nref = priv_refused(ref, sizeof(ref) / sizeof(ref[0]));
	for (size_t i = 0; i < nref; i++) {
		priv_syscall_name(ref[i].nr, names[i], sizeof(names[i]));
		rname[i] = names[i];
		rcount[i] = ref[i].count;
	}
	c->outlen = sitd_show_status(c->out, cap,
				     &(struct sitd_show_process){ .pid = (unsigned)getpid(),
								  .uid = (unsigned)getuid(),
								  .tunnels = daemon_count(s->d),
								  .workers = daemon_workers(s->d),
								  .paths = paths,
								  .stats = &st,
								  .refused_names = rname,
								  .refused_counts = rcount,
								  .nrefused = (unsigned)nref,
								  .netlink_overruns = overruns,
								  .netlink_resyncs = resyncs,
								  .monitor_clients = s->nw,
								  .monitor_dropped = s->watch_dropped,
								  .events_lost = daemon_events_lost(),
								  .netns_lost = lost,
								  .netns_back = back },
				     json);
	return 0;
}

static int req_reload(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	char err[400], msg[420];

	(void)r;
	if (reload_run(s, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "error: %s\n", err);
		return requests_reply(c, msg);
	}
	return requests_reply(c, "ok\n");
}

/* `sitd sandbox`: the report of sandbox.c. */
static int req_sandbox(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	char msg[4096];

	(void)r;
	sandbox_report(s->d, msg, sizeof(msg));
	return requests_reply(c, msg);
}

/* `sitd 6rd dev NAME ...`, as `ip tunnel 6rd`: the kernel's validity rules. */
static int req_6rd(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	const struct tunnel *t;
	struct sitd_6rd rd;
	char msg[160];
	int e;

	t = daemon_find(s->d, r->rd.dev);
	if (!t) {
		snprintf(msg, sizeof(msg), "error: no tunnel \"%s\"\n", r->rd.dev);
		return requests_reply(c, msg);
	}
	rd = tunnel_conf(t)->rd;
	e = sitd_6rd_apply(&rd, &r->rd);
	if (e < 0) {
		snprintf(msg, sizeof(msg), "error: %s\n", sitd_6rd_strerror(e));
		return requests_reply(c, msg);
	}
	if (daemon_set_6rd(s->d, r->rd.dev, &rd) < 0)
		return requests_reply(c, "error: out of memory\n");
	log_info("%s: 6rd settings changed", r->rd.dev);
	daemon_event_tunnel(r->rd.dev, SITD_EVENT_CHANGED);
	return requests_reply(c, "ok\n");
}

/* `sitd prl dev NAME ...`, as `ip tunnel prl`: an ISATAP tunnel. */
static int req_prl(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	char msg[160];
	int e;

	e = daemon_prl(s->d, &r->prl);
	if (e == -ENODEV)
		snprintf(msg, sizeof(msg), "error: no ISATAP tunnel \"%s\"\n", r->prl.dev);
	else if (e < 0)
		snprintf(msg, sizeof(msg), "error: prl: %s\n", strerror(-e));
	else
		snprintf(msg, sizeof(msg), "ok\n");
	if (e == 0)
		log_info("%s: PRL changed", r->prl.dev);
	return requests_reply(c, msg);
}

/* `sitd monitor [-j]`: the client follows the events (watch.c) once this returns. */
static int req_monitor(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	(void)s;
	c->watch = true;
	c->watch_json = r->json;
	return 0;
}

#ifndef SITD_VERSION
#define SITD_VERSION "unknown"
#endif

/* The tunnels for metrics.c, read one at a time (the control thread's only). */
static bool metrics_tunnel(void *ctx, unsigned i, struct sitd_metrics_tunnel *mt)
{
	static struct sitd_stats stats;
	struct server *s = ctx;
	const struct tunnel *t;

	if (i >= daemon_count(s->d))
		return false;
	t = daemon_tunnel(s->d, i);
	tunnel_stats(t, &stats);
	*mt = (struct sitd_metrics_tunnel){ .conf = tunnel_conf(t), .stats = &stats,
					    .path_mtu = tunnel_path_mtu(t), .up = tunnel_up(t) };
	return true;
}

void requests_metrics_begin(struct server *s, struct sitd_metrics_cursor *c)
{
	sitd_metrics_begin(c, metrics_tunnel, s);
}

int requests_metrics_part(struct server *s, struct sitd_metrics_cursor *c, char *buf,
			  size_t cap, size_t *len)
{
	struct sitd_stats st;
	struct priv_refused ref[32];
	char names[32][32];
	const char *rname[32];
	uint64_t rcount[32];
	struct sitd_metrics_process p = { .version = SITD_VERSION, .workers = daemon_workers(s->d),
					  .stats = &st, .refused_names = rname,
					  .refused_counts = rcount,
					  .http = s->http_fd >= 0 ? &s->http : NULL };
	unsigned nref;

	/* The process's, read for each part: cheap, and only the first writes them. */
	daemon_stats(s->d, &st);
	daemon_netlink_stats(s->d, &p.netlink_overruns, &p.netlink_resyncs);
	daemon_netns_stats(s->d, &p.netns_lost, &p.netns_back);
	p.monitor_clients = s->nw;
	p.monitor_dropped = s->watch_dropped;
	p.events_lost = daemon_events_lost();
	nref = (unsigned)priv_refused(ref, sizeof(ref) / sizeof(ref[0]));
	for (unsigned i = 0; i < nref; i++) {
		priv_syscall_name(ref[i].nr, names[i], sizeof(names[i]));
		rname[i] = names[i];
		rcount[i] = ref[i].count;
	}
	p.nrefused = nref;
	return sitd_metrics_part(c, buf, cap, len, &p, metrics_tunnel, s);
}

/* `sitd metrics`: the same text as GET /metrics, streamed as show is (requests_more). */
static int req_metrics(struct server *s, struct control_client *c, const struct sitd_request *r)
{
	(void)r;
	c->metrics = true;
	requests_metrics_begin(s, &c->mc);
	if (requests_more(s, c) < 0)
		return requests_reply(c, "error: out of memory\n");
	return 0;
}

typedef int requests_fn(struct server *s, struct control_client *c, const struct sitd_request *r);

/*
 * The handler of each subcommand of sitd_request_cmds.  A switch rather than an array:
 * with -Wswitch-enum and -Werror the build refuses a kind without its handler, which an
 * array's size cannot.
 */
static requests_fn *handler(enum sitd_req kind)
{
	switch (kind) {
	case SITD_REQ_SHOW:
		return req_show;
	case SITD_REQ_STATUS:
		return req_status;
	case SITD_REQ_RELOAD:
		return req_reload;
	case SITD_REQ_SANDBOX:
		return req_sandbox;
	case SITD_REQ_6RD:
		return req_6rd;
	case SITD_REQ_PRL:
		return req_prl;
	case SITD_REQ_MONITOR:
		return req_monitor;
	case SITD_REQ_METRICS:
		return req_metrics;
	case SITD_REQ_COUNT:
		break;
	}
	return NULL;
}

int requests_answer(struct server *s, struct control_client *c)
{
	const struct sitd_request_cmd *cmd;
	struct sitd_request r;
	char err[128], msg[160];

	if (sitd_request_parse(c->in, strcspn(c->in, "\r\n"), &r, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "error: %s\n", err);
		return requests_reply(c, msg);
	}
	cmd = &sitd_request_cmds[r.kind];
	/* Changes need root, as SO_PEERCRED says, not as the client says. */
	if (cmd->root_only && c->uid != 0) {
		snprintf(msg, sizeof(msg), "error: %s needs root\n", cmd->name);
		return requests_reply(c, msg);
	}
	return handler(r.kind)(s, c, &r);
}
