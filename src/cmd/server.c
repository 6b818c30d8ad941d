/* SPDX-License-Identifier: MIT */
/*
 * The control thread: setup, then the poll loop.  It parses nothing from the network; it
 * opens the control socket, forks the monitor off (privsep.h), drops privileges, starts
 * the tunnels and the workers, and then serves, one poll() at a time: signals (SIGUSR1
 * prints the counters, SIGHUP reloads the file, SIGTERM stops and leaves the devices for
 * the next start, SIGINT stops and removes them), link notifications, a one-second tick
 * (path MTU refresh, ISATAP's router solicitations), and control clients (control.c).
 */
#include "cmd/server.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd/server_int.h"
#include "core/ratelimit.h"
#include "daemon/daemon.h"
#include "os/clock.h"
#include "os/ctl.h"
#include "os/log.h"
#include "priv/priv.h"
#include "priv/privsep.h"
#include "proto/show.h"

static void print_stats(struct server *s)
{
	unsigned n = daemon_count(s->d);

	for (unsigned i = 0; i < n; i++) {
		const struct tunnel *t = daemon_tunnel(s->d, i);
		struct sitd_stats st;
		struct sitd_show_tunnel one = { .conf = tunnel_conf(t), .stats = &st,
						.path_mtu = tunnel_path_mtu(t) };
		char buf[REQUESTS_SHOW_PER_TUNNEL];

		tunnel_stats(t, &st);
		sitd_show_format(buf, sizeof(buf), &one, 1, true, false);
		fprintf(stderr, "sitd: %s", buf);
	}
}

/* No process of this uid or gid runs now (/proc/PID/status, every pid). */
static bool id_unused(unsigned id)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool used = false;

	if (!d)
		return false;
	while (!used && (e = readdir(d))) {
		char path[300], line[256];
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (!used && fgets(line, sizeof(line), f)) {
			unsigned v[4];

			if ((!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4)) &&
			    sscanf(line + 4, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) == 4)
				used = v[0] == id || v[1] == id || v[2] == id || v[3] == id;
		}
		fclose(f);
	}
	closedir(d);
	return !used;
}

/*
 * The uid and gid the packet process becomes: -u USER's, else the dedicated user `sitd`'s
 * (the package creates it), else, as systemd's DynamicUser=, one of 61184..65519 that
 * names no user or group and no running process uses; never `nobody`, whose uid other
 * daemons share (a signal from any of them would stop sitd).  Said in the log.  Only
 * root can change its uid: started unprivileged, sitd stays who it is (-1).
 */
static void packet_user(const char *asked, uid_t *uid, gid_t *gid)
{
	enum { DYN_FIRST = 61184, DYN_LAST = 65519 };
	const char *name = asked ? asked : "sitd";
	struct passwd *pw;
	unsigned span = DYN_LAST - DYN_FIRST + 1, start;

	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (geteuid() != 0)
		return;
	if ((pw = getpwnam(name))) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		log_info("the packet process runs as user \"%s\" (uid %u)", name,
			 (unsigned)pw->pw_uid);
		return;
	}
	if (asked)
		log_fatalx("no such user \"%s\" (-u)", asked);
	/* From a point of its own, so that two starting at once seldom meet. */
	start = (unsigned)getpid() % span;
	for (unsigned k = 0; k < span; k++) {
		unsigned id = DYN_FIRST + (start + k) % span;

		if (getpwuid((uid_t)id) || getgrgid((gid_t)id) || !id_unused(id))
			continue;
		*uid = (uid_t)id;
		*gid = (gid_t)id;
		log_info("no user \"sitd\": the packet process runs as uid and gid %u, of no user "
			 "and no other process (create a system user sitd, or give -u USER)", id);
		return;
	}
	log_fatalx("no user \"sitd\" and no unused uid in %u..%u: give -u USER", DYN_FIRST,
		   DYN_LAST);
}

/* The monitor's own reading of the file (privsep.h): quiet, NULL on any error. */
static struct sitd_conf *monitor_load(const char *path, unsigned *n)
{
	char err[400];
	struct sitd_conf *c = reload_load_config(path, -1, n, err, sizeof(err));

	if (!c)
		log_warnx("monitor: %s", err);
	return c;
}

/* The control socket: -S PATH, else this namespace's NAME.sock. */
static void listen_ctl(struct server *s, const struct sitd_conf *c)
{
	const struct server_opts *o = s->o;
	char dflt[sizeof(s->ctl.path)], dir[sizeof(s->ctl.path)];
	const char *path = o->ctl_path;
	int e;

	if (!path) {
		const char *base = c[0].name;
		char stem[64];

		if (o->config) {
			const char *b = strrchr(o->config, '/');
			size_t l;

			b = b ? b + 1 : o->config;
			l = strcspn(b, ".");
			snprintf(stem, sizeof(stem), "%.*s", (int)(l ? l : strlen(b)), b);
			base = stem;
		}
		if ((e = ctl_dir(dir, sizeof(dir))) < 0)
			log_fatal_errno(-e, "cannot name the control socket (use -S PATH)");
		if ((size_t)snprintf(dflt, sizeof(dflt), "%s/%s.sock", dir, base) >= sizeof(dflt))
			log_fatal_errno(ENAMETOOLONG, "cannot name the control socket (use -S PATH)");
		path = dflt;
	}
	/* The monitor removes it at the end: the directory stays root's. */
	if ((e = ctl_listen(&s->ctl, path, o->gid)) < 0) {
		if (e == -EADDRINUSE)
			log_fatalx("%s: another sitd answers there (use -S PATH)", path);
		if (e == -EEXIST)
			log_fatalx("%s: exists and is not a socket; left alone (use -S PATH)", path);
		if ((e == -EACCES || e == -EPERM) && geteuid() != 0)
			log_fatal_errno(-e, "cannot open the control socket %s (sitd runs as root: it "
					"creates TUN devices; or give -S PATH)", path);
		log_fatal_errno(-e, "cannot open the control socket %s", path);
	}
}

/*
 * Start: the control socket (first: a second sitd on the same socket must not touch the
 * first one's devices), then the fork into monitor and packet process (privsep.h).  The
 * packet process drops everything before it opens anything: its devices and sockets come
 * from the monitor at start as on a reload, by one path.
 */
static void setup(struct server *s, const struct sitd_conf *c, unsigned n)
{
	const struct server_opts *o = s->o;
	struct itimerspec tick = { .it_interval.tv_sec = 1, .it_value.tv_sec = 1 };
	struct privsep_opts po = { .config = o->config, .load = monitor_load, .conf = c, .n = n,
				   .ctl = &s->ctl, .tx_packet = o->tx_packet, .rx_ring = o->rx_ring,
				   .workers = o->workers, .metrics = o->metrics };
	bool *ok = calloc(n, sizeof(*ok));
	sigset_t set;
	uid_t uid;
	gid_t gid;
	int e;

	if (!ok)
		log_fatalx("out of memory");
	packet_user(o->user, &uid, &gid);
	listen_ctl(s, c);
	/* Signals arrive through a signalfd in this loop, never in the workers. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->monitor = getpid();
	e = privsep_start(&po);
	if (e < 0) {
		ctl_unlink(&s->ctl);
		log_fatal_errno(-e, "cannot start the monitor");
	}
	priv_drop_child(uid, gid, s->monitor);
	if (o->metrics) {
		char where[64];

		sitd_listen_format(o->metrics, where, sizeof(where));
		if ((s->http_fd = ps_metrics_listen()) < 0)
			log_fatal_errno(-s->http_fd, "-M %s: cannot listen", where);
		log_info("metrics on http://%s/metrics", where);
	}

	s->sig_fd = signalfd(-1, &set, SFD_CLOEXEC);
	s->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->sig_fd < 0 || s->tick_fd < 0 || timerfd_settime(s->tick_fd, 0, &tick, NULL) < 0)
		log_fatal("signalfd/timerfd");

	s->d = daemon_new(o->workers, o->tx_packet, o->rx_ring);
	if (!s->d)
		log_fatalx("not started");
	/* Everything opens, or nothing runs: never a partial start. */
	if (daemon_add(s->d, c, n, ok)) {
		for (unsigned i = 0; i < n; i++)
			if (!ok[i])
				log_warnx("%s: not started", c[i].name);
		daemon_free(s->d, DAEMON_UNDO);
		log_fatalx("not started: %u tunnel(s) failed", n);
	}
	free(ok);
	if (daemon_run(s->d) < 0) {
		daemon_free(s->d, DAEMON_UNDO);
		log_fatalx("not started");
	}
	for (unsigned i = 0; i < n; i++)
		log_info("%s: running", c[i].name);
	log_info("%u tunnel(s), %u worker(s), control socket %s, as uid %u", n,
		 daemon_workers(s->d), s->ctl.path, (unsigned)getuid());
}

/*
 * Signals that stop or reconfigure sitd count from its monitor (which forwards the
 * operator's and systemd's), from root (the kernel's own, a terminal's Ctrl-C, included)
 * or from this process; from anyone else (another process of the same user) they are
 * ignored, and logged at most once a second.
 */
static bool signal_trusted(struct server *s, const struct signalfd_siginfo *si)
{
	static struct sitd_ratelimit rl = { .interval_ns = 1000000000ull,
					    .burst_ns = 1000000000ull,
					    .credit_ns = 1000000000ull };

	if (si->ssi_pid == (uint32_t)s->monitor || si->ssi_uid == 0 ||
	    si->ssi_pid == (uint32_t)getpid())
		return true;
	if (rl_allow(&rl, now_ns()))
		log_warnx("signal %u from pid %u (uid %u) ignored: only sitd's monitor or root may "
			  "stop or reload it", si->ssi_signo, si->ssi_pid, si->ssi_uid);
	return false;
}

int server_main(const struct server_opts *o)
{
	struct server s = { .o = o, .http_fd = -1 };
	struct sitd_conf *c;
	unsigned n = 1;
	char err[400];

	if (o->config) {
		c = reload_load_config(o->config, -1, &n, err, sizeof(err));
		if (!c) {
			fprintf(stderr, "sitd: %s\n", err);
			return 2;
		}
	} else {
		c = malloc(sizeof(*c));
		if (!c)
			log_fatalx("out of memory");
		*c = *o->cli;
	}
	setup(&s, c, n);
	free(c);
	ps_ready();

	for (;;) {
		struct pollfd p[CONTROL_CLIENTS_MAX + SITD_HTTP_CLIENTS_MAX + 6 + WATCH_CLIENTS_MAX];
		unsigned nc = s.nc, np = s.nc + s.nhc, base = s.nc + s.nhc, nw;
		struct signalfd_siginfo si;
		/* Clients first (control_poll walks p[0 .. nc), httpd_poll the -M ones after
		 * them), then the fixed ones. */
		int timeout = control_pollfds(&s, p), t2 = httpd_pollfds(&s, p + nc);

		if (t2 >= 0 && (timeout < 0 || t2 < timeout))
			timeout = t2;

		p[np++] = (struct pollfd){ .fd = s.sig_fd, .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = s.tick_fd, .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = daemon_netlink_fd(s.d), .events = POLLIN };
		/* At the cap, new clients wait in the backlog. */
		p[np++] = (struct pollfd){ .fd = s.nc < CONTROL_CLIENTS_MAX ? s.ctl.fd : -1, .events = POLLIN };
		/* `sitd monitor`: the daemon's events; -M's socket, always: beyond its cap the
		 * exporter answers 503 at once; then the monitor's clients. */
		p[np++] = (struct pollfd){ .fd = daemon_events_fd(), .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = s.http_fd, .events = POLLIN };
		nw = watch_pollfds(&s, p + np);
		np += nw;
		if (poll(p, np, timeout) < 0 && errno != EINTR)
			log_warn("poll");
		watch_poll(&s, p + base + 6, nw);
		control_poll(&s, p);
		httpd_poll(&s, p + nc);
		if (p[base + 5].revents & POLLIN)
			httpd_accept(&s);
		if (p[base + 4].revents & POLLIN)
			watch_events(&s);
		if (p[base + 3].revents & POLLIN)
			control_accept(&s);
		if (p[base + 2].revents & POLLIN)
			daemon_netlink_read(s.d);
		if (p[base + 1].revents & POLLIN) {
			uint64_t ticks;

			if (read(s.tick_fd, &ticks, sizeof(ticks)) > 0)
				daemon_tick(s.d);
		}
		if (!(p[base].revents & POLLIN) || read(s.sig_fd, &si, sizeof(si)) != sizeof(si) ||
		    !signal_trusted(&s, &si))
			continue;
		if (si.ssi_signo == SIGUSR1) {
			print_stats(&s);
		} else if (si.ssi_signo == SIGHUP) {
			if (reload_run(&s, err, sizeof(err)) < 0)
				log_warnx("reload: %s", err);
		} else {
			/*
			 * SIGTERM (systemctl stop or restart, an upgrade): the devices stay, with
			 * their addresses and routes, for the next start to take over.  SIGINT
			 * (Ctrl-C in the foreground): the session ends, the devices go.
			 */
			bool term = si.ssi_signo == SIGTERM;

			log_info("%s, stopping; the devices %s", term ? "SIGTERM" : "SIGINT",
				 term ? "stay" : "are removed");
			print_stats(&s);
			control_close_all(&s);
			watch_close_all(&s);
			httpd_close_all(&s);
			/* The monitor removes the control socket once this process is gone. */
			daemon_free(s.d, term ? DAEMON_KEEP : DAEMON_DELETE);
			return 0;
		}
	}
}
