/* SPDX-License-Identifier: MIT */
/*
 * Inside the control thread (server.h): the state its files share and what each offers
 * the others.  Calls run one way: server.c (setup, the loop) -> control.c (the clients)
 * -> requests.c (the answers) -> reload.c (the file), sandbox.c (the self-check).
 * Functions return 0 or -errno unless said otherwise.
 */
#ifndef SITD_SERVER_INT_H
#define SITD_SERVER_INT_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cmd/server.h"
#include "os/ctl.h"
#include "proto/http.h"
#include "proto/metrics.h"

struct sitd_daemon;

enum {
	CONTROL_CLIENTS_MAX = 16,
	CONTROL_REQUEST_MAX = 256,
	WATCH_CLIENTS_MAX = 64,		/* `sitd monitor` clients at once (watch.c) */
	WATCH_QUEUE = 65536,		/* bytes of events one may have unread, then it is dropped */
	REQUESTS_SHOW_PER_TUNNEL = 12288,	/* bytes of show -s -j for one tunnel at its
						 * most, with room: counters, 8 addresses,
						 * 16 routes, 16 PRL routers */
	REQUESTS_METRICS_PART = 32768,	/* bytes of metrics made at a time, a client */
};

/* One client of the control socket: its request line coming in, then its answer going out. */
struct control_client {
	int fd;
	uid_t uid;			/* SO_PEERCRED's, not what the client says */
	int64_t deadline;		/* ms, CLOCK_MONOTONIC */
	size_t inlen;
	char in[CONTROL_REQUEST_MAX];
	char *out;			/* the answer, once the request is in */
	size_t outlen, outoff;
	bool watch, watch_json;		/* `monitor [-j]`: handed to watch.c once read */
	/* show of every tunnel, streamed a part at a time (requests_more): from tunnel `next` */
	bool more, stats, json;
	unsigned next;
	/* metrics, streamed the same way (more): where the text is */
	bool metrics;
	struct sitd_metrics_cursor mc;
};

/* A client of `sitd monitor`: the events it has not taken yet. */
struct watch_client {
	int fd;
	bool json;
	char *q;
	size_t len;
};

/* One client of -M's exporter: its request head coming in, then its answer going out. */
struct httpd_client {
	int fd;
	int64_t deadline;		/* ms, CLOCK_MONOTONIC */
	size_t inlen;
	char in[SITD_HTTP_HEAD_MAX];
	char *out;			/* the head, then each part of the body */
	size_t outlen, outoff;
	bool more, chunked;		/* 200 to a GET: parts to come; in chunks */
	struct sitd_metrics_cursor mc;
};

struct server {
	const struct server_opts *o;
	struct sitd_daemon *d;
	struct ctl_listener ctl;
	pid_t monitor;			/* the parent: its signals count (server.c) */
	int sig_fd, tick_fd;
	struct control_client c[CONTROL_CLIENTS_MAX];
	unsigned nc;
	struct watch_client w[WATCH_CLIENTS_MAX];	/* watch.c */
	unsigned nw;
	size_t watch_queue;		/* WATCH_QUEUE, or the test knob's */
	uint64_t watch_dropped;		/* clients dropped for not reading */
	/* -M (httpd.c): the listening socket (-1: none), its clients, what it counted */
	int http_fd;
	struct httpd_client hc[SITD_HTTP_CLIENTS_MAX];
	unsigned nhc;
	struct sitd_http_stats http;
};

/* ---- control.c ---- */

/* The clients' pollfds into p[0 .. s->nc); the poll timeout (ms, -1: none) their deadlines allow. */
int control_pollfds(const struct server *s, struct pollfd *p);

/* After poll(): serve the clients of p[0 .. nc), closing those done or past their deadline. */
void control_poll(struct server *s, struct pollfd *p);

/* Take the waiting connections, up to the cap. */
void control_accept(struct server *s);

void control_close_all(struct server *s);

/* ---- watch.c ---- */

/* A client that asked for `monitor [-j]`: fd is watch.c's from now on. */
void watch_add(struct server *s, int fd, bool json);

/* The clients' pollfds into p; how many. */
unsigned watch_pollfds(const struct server *s, struct pollfd *p);

/* After poll(): the first n clients, as watch_pollfds gave them. */
void watch_poll(struct server *s, const struct pollfd *p, unsigned n);

/* The daemon's events (daemon_events_fd readable): to every client, or it is dropped. */
void watch_events(struct server *s);

void watch_close_all(struct server *s);
/* ---- httpd.c: -M's exporter, on the same loop ---- */

/* The clients' pollfds into p[0 .. s->nhc); the poll timeout (ms, -1: none) they allow. */
int httpd_pollfds(const struct server *s, struct pollfd *p);

/* After poll(): serve the clients of p[0 .. nhc), closing those done or past their deadline. */
void httpd_poll(struct server *s, struct pollfd *p);

/* Take the waiting connections; beyond the cap each is answered 503 and closed. */
void httpd_accept(struct server *s);

void httpd_close_all(struct server *s);

/* ---- requests.c ---- */

/* Answer c->in, a whole line, into c->out.  -ENOMEM when not even an error fits. */
int requests_answer(struct server *s, struct control_client *c);

/*
 * Every counter in Prometheus' text format (metrics.h), `sitd metrics` and GET /metrics,
 * a part at a time: begin, then each part into buf, as sitd_metrics_part (1: more).
 */
void requests_metrics_begin(struct server *s, struct sitd_metrics_cursor *c);
int requests_metrics_part(struct server *s, struct sitd_metrics_cursor *c, char *buf,
			  size_t cap, size_t *len);

/* The next part of a streamed answer into c->out, once the last went out (c->more). */
int requests_more(struct server *s, struct control_client *c);

/* c->out = a copy of text.  -ENOMEM: no answer. */
int requests_reply(struct control_client *c, const char *text);

/* ---- reload.c ---- */

/*
 * Read (from fd when >= 0, which it takes) and parse the configuration file; NULL, with
 * a message in err, on any error.  The array (*n tunnels) is the caller's to free.
 */
struct sitd_conf *reload_load_config(const char *path, int fd, unsigned *n, char *err,
				     size_t errlen);

/* Re-read s->o->config and apply what changed; -errno with a message in err. */
int reload_run(struct server *s, char *err, size_t errlen);

/* ---- sandbox.c ---- */

/* The self-check's report, a NUL-terminated text into buf; its length. */
size_t sandbox_report(const struct sitd_daemon *d, char *buf, size_t cap);

#endif
