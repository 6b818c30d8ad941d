/* SPDX-License-Identifier: MIT */
/*
 * The control thread.  It parses nothing from the network; it starts the tunnels, drops
 * privileges, starts the workers, and then serves, one poll() at a time: signals (SIGUSR1
 * prints the counters, SIGHUP reloads the file, SIGTERM stops and leaves the devices for
 * the next start, SIGINT stops and removes them), link notifications, a one-second tick
 * (path MTU refresh, ISATAP's router solicitations), and control clients.  Clients are served without blocking: each has a total deadline and
 * the number at once is capped, so one that dribbles or never reads holds up nobody.
 */
#include "cmd/server.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include "proto/cli.h"
#include "proto/config.h"
#include "os/ctl.h"
#include "daemon/daemon.h"
#include "os/log.h"
#include "priv/priv.h"
#include "proto/privmsg.h"
#include "priv/privsep.h"
#include "proto/request.h"
#include "proto/show.h"

enum {
	CONFIG_MAX = 16 << 20,
	CLIENTS_MAX = 16,
	CLIENT_DEADLINE_MS = 2000,	/* to send the request and read the whole answer */
	REQUEST_MAX = 256,
	SHOW_PER_TUNNEL = 12288,	/* bytes of show -s -j for one tunnel at its most, with room:
					 * counters, 8 addresses, 16 routes, 16 PRL routers */
};

struct client {
	int fd;
	uid_t uid;
	int64_t deadline;
	size_t inlen;
	char in[REQUEST_MAX];
	char *out;			/* the answer, once the request is in */
	size_t outlen, outoff;
};

struct server {
	const struct server_opts *o;
	struct sitd_daemon *d;
	struct ctl_listener ctl;
	int sig_fd, tick_fd;
	struct client c[CLIENTS_MAX];
	unsigned nc;
};

static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The file at path, or (fd >= 0) the one open on fd, which it takes. */
static int read_file(const char *path, int fd, char **text, size_t *len)
{
	FILE *f = fd >= 0 ? fdopen(fd, "r") : fopen(path, "re");
	size_t cap = 1 << 16;
	char *buf = NULL;

	*len = 0;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (;;) {
		char *nb = realloc(buf, cap);
		size_t got;

		if (!nb)
			break;
		buf = nb;
		got = fread(buf + *len, 1, cap - *len, f);
		*len += got;
		if (*len < cap || cap >= CONFIG_MAX)
			break;
		cap *= 2;
	}
	if (!buf || ferror(f) || *len >= CONFIG_MAX) {
		errno = !buf ? ENOMEM : *len >= CONFIG_MAX ? EFBIG : EIO;
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	*text = buf;
	return 0;
}

struct sitd_conf *server_load_config(const char *path, int fd, unsigned *n, char *err,
				     size_t errlen)
{
	struct sitd_conf *out;
	char msg[300], *text;
	size_t len;
	unsigned cap;
	int r;

	if (read_file(path, fd, &text, &len) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	cap = sitd_config_count(text, len);
	out = calloc(cap ? cap : 1, sizeof(*out));
	if (!out) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	r = sitd_config_parse(text, len, out, cap, msg, sizeof(msg));
	free(text);
	if (r <= 0) {
		if (r < 0)
			snprintf(err, errlen, "%s:%s", path, msg);
		else
			snprintf(err, errlen, "%s: no tunnel", path);
		free(out);
		return NULL;
	}
	*n = (unsigned)r;
	return out;
}

/*
 * SIGHUP or `sitd reload`: stop the tunnels whose stanza went away or changed, start the
 * new and changed ones, leave the others running untouched (sitd_config_diff).  A bad
 * file changes nothing.
 */
static int reload(struct server *s, char *err, size_t errlen)
{
	unsigned n, nold = daemon_count(s->d), nrem = 0, nadd = 0, failed;
	struct sitd_conf *next, *old, *add;
	const char **rem;
	bool *keep, *addf, *ok;
	int fd;

	if (!s->o->config) {
		snprintf(err, errlen, "nothing to reload: sitd was started without -c FILE");
		return -1;
	}
	/* Read as the monitor opens it: the packet process may not read a file of mode 0600. */
	fd = ps_config_open();
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", s->o->config, strerror(errno));
		return -1;
	}
	next = server_load_config(s->o->config, fd, &n, err, errlen);
	if (!next)
		return -1;
	old = calloc(nold + 1, sizeof(*old));
	add = calloc(n, sizeof(*add));
	rem = calloc(nold + 1, sizeof(*rem));
	keep = calloc(nold + 1, sizeof(*keep));
	addf = calloc(n, sizeof(*addf));
	ok = calloc(n, sizeof(*ok));
	if (!old || !add || !rem || !keep || !addf || !ok) {
		snprintf(err, errlen, "out of memory");
		failed = 1;
		goto out;
	}
	for (unsigned i = 0; i < nold; i++)
		old[i] = *tunnel_req(daemon_tunnel(s->d, i));
	sitd_config_diff(old, nold, next, n, keep, addf);
	/* Removed: the device goes.  Changed: it stays, and the new settings take it over. */
	for (unsigned pass = 0; pass < 2; pass++) {
		unsigned k = 0;

		for (unsigned i = 0; i < nold; i++) {
			bool changed = false;

			if (keep[i])
				continue;
			for (unsigned j = 0; j < n && !changed; j++)
				changed = !strcmp(next[j].name, old[i].name);
			if (changed != (pass == 0))
				continue;
			rem[k++] = old[i].name;
			log_info("%s: %s", old[i].name, changed ? "changed, restarting" : "removed");
		}
		daemon_remove(s->d, rem, k, pass == 1);
		nrem += k;
	}
	for (unsigned j = 0; j < n; j++)
		if (addf[j])
			add[nadd++] = next[j];
	failed = daemon_add(s->d, add, nadd, ok);
	for (unsigned j = 0; j < nadd; j++)
		if (ok[j])
			log_info("%s: running", add[j].name);
	log_info("reloaded %s: %u kept, %u started, %u stopped, %u failed", s->o->config,
		 nold - nrem, nadd - failed, nrem, failed);
	if (failed)
		snprintf(err, errlen, "%u tunnel(s) failed to start; see the log", failed);
out:
	free(next);
	free(old);
	free(add);
	free(rem);
	free(keep);
	free(addf);
	free(ok);
	return failed ? -1 : 0;
}

/* ---- requests: each fills c->out -------------------------------------------------- */

static int reply(struct client *c, const char *text)
{
	c->out = strdup(text);
	c->outlen = c->out ? strlen(c->out) : 0;
	return c->out ? 0 : -1;
}

static int req_show(struct server *s, struct client *c, const struct sitd_request *r)
{
	unsigned n = daemon_count(s->d), k = 0;
	struct sitd_show_tunnel *st = calloc(n + 1, sizeof(*st));
	struct sitd_stats *stats = calloc(n + 1, sizeof(*stats));
	const char *name = r->name[0] ? r->name : NULL;
	size_t cap = 256 + (size_t)(n + 1) * SHOW_PER_TUNNEL;

	c->out = malloc(cap);
	if (!st || !stats || !c->out) {
		free(st);
		free(stats);
		free(c->out);
		c->out = NULL;
		return reply(c, "error: out of memory\n");
	}
	for (unsigned i = 0; i < n; i++) {
		const struct tunnel *t = daemon_tunnel(s->d, i);

		if (name && strcmp(name, tunnel_conf(t)->name))
			continue;
		tunnel_stats(t, &stats[k]);
		st[k].conf = tunnel_conf(t);
		st[k].stats = &stats[k];
		st[k].path_mtu = tunnel_path_mtu(t);
		k++;
	}
	if (name && !k)
		c->outlen = (size_t)snprintf(c->out, cap, "error: no tunnel \"%s\"\n", name);
	else
		c->outlen = sitd_show_format(c->out, cap, st, k, r->stats, r->json);
	/* A cut answer would be broken JSON: say so rather than send it. */
	if (c->outlen + 1 >= cap)
		c->outlen = (size_t)snprintf(c->out, cap, "error: the answer does not fit\n");
	free(st);
	free(stats);
	return 0;
}

static int req_status(struct server *s, struct client *c, const struct sitd_request *r)
{
	bool json = r->json;
	struct sitd_stats st;
	char paths[4096], names[32][32];
	const char *rname[32];
	uint64_t rcount[32];
	struct priv_refused ref[32];
	size_t cap = 16384, nref;

	daemon_stats(s->d, &st);
	daemon_describe_paths(s->d, paths, sizeof(paths), json);
	c->out = malloc(cap);
	if (!c->out)
		return reply(c, "error: out of memory\n");
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
								  .nrefused = (unsigned)nref },
				     json);
	return 0;
}

static int req_reload(struct server *s, struct client *c, const struct sitd_request *r)
{
	char err[400], msg[420];

	(void)r;
	/* Changes need root, as SO_PEERCRED says, not as the client says. */
	if (c->uid != 0)
		return reply(c, "error: reload needs root\n");
	if (reload(s, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "error: %s\n", err);
		return reply(c, msg);
	}
	return reply(c, "ok\n");
}

/* One sandbox probe: what a refused call answers (EPERM), or what it did. */
static void probe_line(char *buf, size_t cap, size_t *len, const char *what, long r, int e)
{
	int n = snprintf(buf + *len, cap - *len, "  %-50s %s (%s)\n", what,
			 r < 0 && e == EPERM ? "refused" : "allowed", r < 0 ? strerror(e) : "done");

	if (n > 0 && (size_t)n < cap - *len)
		*len += (size_t)n;
}

/* A request to the monitor: refused with any errno, or allowed (the stanza asks for it). */
static void monitor_line(char *buf, size_t cap, size_t *len, const char *what, int e)
{
	int n = snprintf(buf + *len, cap - *len, "  %-50s %s (%s)\n", what,
			 e ? "refused" : "allowed", e ? strerror(e) : "done");

	if (n > 0 && (size_t)n < cap - *len)
		*len += (size_t)n;
}

/* This process's uid and effective capabilities, as the kernel reports them. */
static void identity(char *buf, size_t cap, size_t *len)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256], uid[64] = "?", caps[64] = "?";
	int n;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			sscanf(line + 4, "%63s", uid);
		else if (!strncmp(line, "CapEff:", 7))
			sscanf(line + 7, "%63s", caps);
	}
	if (f)
		fclose(f);
	n = snprintf(buf + *len, cap - *len, "packet process: pid %u, uid %s, capabilities %s\n",
		     (unsigned)getpid(), uid, caps);
	if (n > 0 && (size_t)n < cap - *len)
		*len += (size_t)n;
}

/*
 * A check an operator (and the tests) can run on the daemon itself: calls it must never
 * make, each tried in a form that does nothing where the filter would let it through
 * (it fails later in the kernel instead); then requests the monitor must refuse.  What a
 * reload needs is tested by a reload.
 */
static int req_sandbox(struct server *s, struct client *c, const struct sitd_request *req)
{
	struct priv_req mtu_lo = { .type = PRIV_LINK_MTU, .mtu = 1280, .name = "lo" };
	struct priv_req tun_other = { .type = PRIV_TUN_OPEN, .name = "sitdprobe0" };
	/* A default route into the first tunnel: the hijack its stanza does not ask for. */
	struct priv_req route_own = { .type = PRIV_ROUTE, .flag = 1, .route.dst.family = 6 };
	struct priv_req addr_lo = { .type = PRIV_ADDR, .ifindex = 1, .flag = 1,
				    .route.dst = { .family = 6, .len = 128, .addr = { 0x20, 0x01, 0x0d, 0xb8 } } };
	static const char junk[] = "not a request";
	char msg[2048];
	size_t len = 0;
	long r;
	int e;

	(void)req;
	if (daemon_count(s->d))
		route_own.ifindex = if_nametoindex(tunnel_conf(daemon_tunnel(s->d, 0))->name);
	identity(msg, sizeof(msg), &len);
	priv_probing(true);
	/* uname(NULL): EFAULT where allowed, EPERM where refused. */
	r = syscall(SYS_uname, NULL);
	e = r < 0 ? errno : 0;
	len += (size_t)snprintf(msg + len, sizeof(msg) - len,
				"seccomp: %s (a forbidden call, uname: %s)\n",
				e == EPERM ? "on" : "off", e ? strerror(e) : "allowed");
	/* "/" is a directory: allowed, these fail with EISDIR and create nothing. */
	r = syscall(SYS_openat, AT_FDCWD, "/", O_CREAT | O_WRONLY, 0600);
	e = errno;
	probe_line(msg, sizeof(msg), &len, "create a file (O_CREAT)", r, e);
	r = syscall(SYS_openat, AT_FDCWD, "/", O_WRONLY | O_TRUNC);
	e = errno;
	probe_line(msg, sizeof(msg), &len, "open a file to write (O_WRONLY|O_TRUNC)", r, e);
	r = syscall(SYS_openat, AT_FDCWD, "/", O_RDWR);
	e = errno;
	probe_line(msg, sizeof(msg), &len, "open a file read-write (O_RDWR)", r, e);
	r = syscall(SYS_openat, AT_FDCWD, "/dev/net/tun", O_RDWR | O_CLOEXEC);
	e = errno;
	if (r >= 0)
		close((int)r);
	probe_line(msg, sizeof(msg), &len, "open /dev/net/tun (the monitor does)", r, e);
	r = syscall(SYS_socket, AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	e = errno;
	if (r >= 0)
		close((int)r);
	probe_line(msg, sizeof(msg), &len, "an AF_PACKET socket", r, e);
	r = syscall(SYS_socket, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	e = errno;
	if (r >= 0)
		close((int)r);
	probe_line(msg, sizeof(msg), &len, "a raw socket (the monitor opens them)", r, e);
	/* CLONE_NEWUSER with CLONE_FS: EINVAL in the kernel where allowed (copy_process). */
	r = syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNET | CLONE_FS, NULL, NULL, NULL, 0);
	e = errno;
	probe_line(msg, sizeof(msg), &len, "clone into new user and net namespaces", r, e);
	/* Another process's thread group with our own thread id: ESRCH where allowed. */
	r = syscall(SYS_tgkill, 1, syscall(SYS_gettid), 0);
	e = errno;
	probe_line(msg, sizeof(msg), &len, "signal another process (tgkill)", r, e);
	/* Signal 0 to init: a check only, it sends nothing where allowed. */
	r = syscall(SYS_kill, 1, 0);
	e = errno;
	probe_line(msg, sizeof(msg), &len, "signal another process (kill)", r, e);
	/* Back to root: as an unprivileged uid the kernel refuses it too. */
	r = syscall(SYS_setresuid, 0, 0, 0);
	e = errno;
	probe_line(msg, sizeof(msg), &len, "become root again (setresuid)", r, e);
	priv_probing(false);
	monitor_line(msg, sizeof(msg), &len, "monitor: a TUN device no tunnel is named",
		     ps_raw_request(&tun_other, sizeof(tun_other)));
	if (route_own.ifindex)
		monitor_line(msg, sizeof(msg), &len, "monitor: a default route into the tunnel",
			     ps_raw_request(&route_own, sizeof(route_own)));
	monitor_line(msg, sizeof(msg), &len, "monitor: the MTU of lo (not sitd's device)",
		     ps_raw_request(&mtu_lo, sizeof(mtu_lo)));
	monitor_line(msg, sizeof(msg), &len, "monitor: an address on ifindex 1 (lo)",
		     ps_raw_request(&addr_lo, sizeof(addr_lo)));
	monitor_line(msg, sizeof(msg), &len, "monitor: a malformed request",
		     ps_raw_request(junk, sizeof(junk)));
	return reply(c, msg);
}

/* `sitd 6rd dev NAME ...`, as `ip tunnel 6rd`: root only, the kernel's validity rules. */
static int req_6rd(struct server *s, struct client *c, const struct sitd_request *r)
{
	const struct tunnel *t;
	struct sitd_6rd rd;
	char msg[160];
	int e;

	if (c->uid != 0)
		return reply(c, "error: 6rd needs root\n");
	t = daemon_find(s->d, r->rd.dev);
	if (!t) {
		snprintf(msg, sizeof(msg), "error: no tunnel \"%s\"\n", r->rd.dev);
		return reply(c, msg);
	}
	rd = tunnel_conf(t)->rd;
	e = sitd_6rd_apply(&rd, &r->rd);
	if (e < 0) {
		snprintf(msg, sizeof(msg), "error: %s\n", sitd_6rd_strerror(e));
		return reply(c, msg);
	}
	if (daemon_set_6rd(s->d, r->rd.dev, &rd) < 0)
		return reply(c, "error: out of memory\n");
	log_info("%s: 6rd settings changed", r->rd.dev);
	return reply(c, "ok\n");
}

/* `sitd prl dev NAME ...`, as `ip tunnel prl`: root only, an ISATAP tunnel. */
static int req_prl(struct server *s, struct client *c, const struct sitd_request *r)
{
	char msg[160];
	int e;

	if (c->uid != 0)
		return reply(c, "error: prl needs root\n");
	e = daemon_prl(s->d, &r->prl);
	if (e == -ENODEV)
		snprintf(msg, sizeof(msg), "error: no ISATAP tunnel \"%s\"\n", r->prl.dev);
	else if (e < 0)
		snprintf(msg, sizeof(msg), "error: prl: %s\n", strerror(-e));
	else
		snprintf(msg, sizeof(msg), "ok\n");
	if (e == 0)
		log_info("%s: PRL changed", r->prl.dev);
	return reply(c, msg);
}

/* Indexed by enum sitd_req. */
static int (*const requests[])(struct server *s, struct client *c, const struct sitd_request *r) = {
	[SITD_REQ_SHOW] = req_show,
	[SITD_REQ_STATUS] = req_status,
	[SITD_REQ_RELOAD] = req_reload,
	[SITD_REQ_SANDBOX] = req_sandbox,
	[SITD_REQ_6RD] = req_6rd,
	[SITD_REQ_PRL] = req_prl,
};

static void answer(struct server *s, struct client *c)
{
	struct sitd_request r;
	char err[128], msg[160];

	if (sitd_request_parse(c->in, strcspn(c->in, "\r\n"), &r, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "error: %s\n", err);
		(void)reply(c, msg);
		return;
	}
	if (requests[r.kind](s, c, &r) < 0)
		log_warnx("control: out of memory");
}

/* ---- clients ------------------------------------------------------------------------ */

static void client_close(struct server *s, unsigned i)
{
	close(s->c[i].fd);
	free(s->c[i].out);
	s->c[i] = s->c[--s->nc];
}

static void client_accept(struct server *s)
{
	while (s->nc < CLIENTS_MAX) {
		struct client *c = &s->c[s->nc];
		struct ucred cred;
		socklen_t cl = sizeof(cred);
		int fd = accept4(s->ctl.fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0) {
			close(fd);
			continue;
		}
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->uid = cred.uid;
		c->deadline = ms_now() + CLIENT_DEADLINE_MS;
		s->nc++;
	}
}

/* Read what the client sent; once a whole line is in, the answer is made. false: done. */
static bool client_read(struct server *s, struct client *c)
{
	ssize_t n = read(c->fd, c->in + c->inlen, sizeof(c->in) - 1 - c->inlen);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n == 0)
		return false;	/* closed before a whole line: nothing to answer */
	c->inlen += (size_t)n;
	c->in[c->inlen] = '\0';
	if (memchr(c->in, '\n', c->inlen)) {
		answer(s, c);
	} else if (c->inlen == sizeof(c->in) - 1) {
		(void)reply(c, "error: request too long\n");
	}
	return true;
}

static bool client_write(struct client *c)
{
	ssize_t n = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	c->outoff += (size_t)n;
	return c->outoff < c->outlen;
}

static void client_poll(struct server *s, struct pollfd *p)
{
	int64_t now = ms_now();

	for (unsigned i = 0; i < s->nc;) {
		struct client *c = &s->c[i];
		bool keep = true;

		if (p[i].revents & (POLLERR | POLLNVAL)) {
			keep = false;
		} else if (!c->out && (p[i].revents & (POLLIN | POLLHUP))) {
			keep = client_read(s, c);
		} else if (c->out && (p[i].revents & POLLOUT)) {
			keep = client_write(c);
		}
		/* An answer made just now may go out at once (most fit the socket buffer). */
		if (keep && c->out && c->outoff == 0 && c->outlen)
			keep = client_write(c);
		else if (keep && c->out && !c->outlen)
			keep = false;
		if (keep && now >= c->deadline)
			keep = false;	/* too slow: the deadline is for the whole exchange */
		if (!keep) {
			client_close(s, i);
			p[i] = p[s->nc];
			continue;
		}
		i++;
	}
}

/* ---- the loop ---------------------------------------------------------------------- */

static void print_stats(struct server *s)
{
	unsigned n = daemon_count(s->d);

	for (unsigned i = 0; i < n; i++) {
		const struct tunnel *t = daemon_tunnel(s->d, i);
		struct sitd_stats st;
		struct sitd_show_tunnel one = { .conf = tunnel_conf(t), .stats = &st,
						.path_mtu = tunnel_path_mtu(t) };
		char buf[SHOW_PER_TUNNEL];

		tunnel_stats(t, &st);
		sitd_show_format(buf, sizeof(buf), &one, 1, true, false);
		fprintf(stderr, "sitd: %s", buf);
	}
}

/*
 * The user the packet process becomes: -u USER, else the dedicated `sitd` (the package
 * creates it), else `nobody`, said in the log.  Only root can change its uid: started
 * unprivileged, sitd stays who it is.
 */
static const char *packet_user(const char *asked)
{
	if (geteuid() != 0)
		return NULL;
	if (asked) {
		if (!getpwnam(asked))
			log_fatalx("no such user \"%s\" (-u)", asked);
		return asked;
	}
	if (getpwnam("sitd"))
		return "sitd";
	if (getpwnam("nobody")) {
		log_warnx("no user \"sitd\": the packet process runs as \"nobody\" (create a "
			  "system user sitd, as the package does, or give -u USER)");
		return "nobody";
	}
	log_fatalx("neither user \"sitd\" nor \"nobody\" exists: give -u USER");
}

/* The monitor's own reading of the file (privsep.h): quiet, NULL on any error. */
static struct sitd_conf *monitor_load(const char *path, unsigned *n)
{
	char err[400];
	struct sitd_conf *c = server_load_config(path, -1, n, err, sizeof(err));

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
		if (ctl_dir(dir, sizeof(dir)) < 0 ||
		    (size_t)snprintf(dflt, sizeof(dflt), "%s/%s.sock", dir, base) >= sizeof(dflt))
			log_fatal("cannot name the control socket (use -S PATH)");
		path = dflt;
	}
	/* The monitor removes it at the end: the directory stays root's. */
	if (ctl_listen(&s->ctl, path, o->gid) < 0) {
		int e = errno;

		if (e == EADDRINUSE)
			log_fatalx("%s: another sitd answers there (use -S PATH)", path);
		if (e == EEXIST)
			log_fatalx("%s: exists and is not a socket; left alone (use -S PATH)", path);
		if ((e == EACCES || e == EPERM) && geteuid() != 0)
			log_fatal("cannot open the control socket %s (sitd runs as root: it creates "
				  "TUN devices; or give -S PATH)", path);
		log_fatal("cannot open the control socket %s", path);
	}
}

/*
 * Start: the control socket (first: a second sitd on the same socket must not touch the
 * first one's devices), then the fork into monitor and packet process (privsep.h).  The
 * packet process drops everything before it opens anything: its devices and sockets come
 * from the monitor at start as on a reload, by one path.
 */
static int setup(struct server *s, const struct sitd_conf *c, unsigned n)
{
	const struct server_opts *o = s->o;
	struct itimerspec tick = { .it_interval.tv_sec = 1, .it_value.tv_sec = 1 };
	const char *user = packet_user(o->user);
	bool *ok = calloc(n, sizeof(*ok));
	sigset_t set;
	pid_t monitor;

	if (!ok)
		log_fatalx("out of memory");
	listen_ctl(s, c);
	/* Signals arrive through a signalfd in this loop, never in the workers. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	monitor = getpid();
	if (privsep_start(o->config, monitor_load, c, n, &s->ctl) < 0) {
		ctl_unlink(&s->ctl);
		log_fatal("cannot start the monitor");
	}
	priv_drop_child(user, monitor);

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
	return 0;
}

int server_main(const struct server_opts *o)
{
	struct server s = { .o = o };
	struct sitd_conf *c;
	unsigned n = 1;
	char err[400];

	if (o->config) {
		c = server_load_config(o->config, -1, &n, err, sizeof(err));
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
		struct pollfd p[CLIENTS_MAX + 4];
		unsigned np = s.nc, base = s.nc;
		struct signalfd_siginfo si;
		int timeout = -1;
		int64_t now = ms_now();

		/* Clients first (client_poll walks p[0 .. nc)), then the fixed ones. */
		for (unsigned i = 0; i < s.nc; i++) {
			p[i] = (struct pollfd){ .fd = s.c[i].fd,
						.events = s.c[i].out ? POLLOUT : POLLIN };
			if (timeout < 0 || s.c[i].deadline - now < timeout)
				timeout = s.c[i].deadline > now ? (int)(s.c[i].deadline - now) : 0;
		}
		p[np++] = (struct pollfd){ .fd = s.sig_fd, .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = s.tick_fd, .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = daemon_netlink_fd(s.d), .events = POLLIN };
		/* At the cap, new clients wait in the backlog. */
		p[np++] = (struct pollfd){ .fd = s.nc < CLIENTS_MAX ? s.ctl.fd : -1, .events = POLLIN };
		if (poll(p, np, timeout) < 0 && errno != EINTR)
			log_warn("poll");
		client_poll(&s, p);
		if (p[base + 3].revents & POLLIN)
			client_accept(&s);
		if (p[base + 2].revents & POLLIN)
			daemon_netlink_read(s.d);
		if (p[base + 1].revents & POLLIN) {
			uint64_t ticks;

			if (read(s.tick_fd, &ticks, sizeof(ticks)) > 0)
				daemon_tick(s.d);
		}
		if (!(p[base].revents & POLLIN) || read(s.sig_fd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR1) {
			print_stats(&s);
		} else if (si.ssi_signo == SIGHUP) {
			if (reload(&s, err, sizeof(err)) < 0)
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
			while (s.nc)
				client_close(&s, 0);
			/* The monitor removes the control socket once this process is gone. */
			daemon_free(s.d, term ? DAEMON_KEEP : DAEMON_DELETE);
			return 0;
		}
	}
}
