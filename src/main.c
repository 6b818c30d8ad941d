/* SPDX-License-Identifier: MIT */
/*
 * sitd: the Linux kernel's SIT and IPIP tunnels in userspace.
 *
 * The main thread parses the command line or the configuration file, opens every
 * tunnel, drops privileges, starts one thread per direction per tunnel, and then only
 * serves signals and the control socket.  SIGUSR1 prints the counters; SIGHUP reloads
 * the configuration file, touching only the tunnels whose stanza changed; SIGINT and
 * SIGTERM stop everything, which closes the TUN devices and so removes them.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "ctl.h"
#include "daemon.h"
#include "log.h"
#include "priv.h"
#include "show.h"

enum { CONFIG_MAX = 1 << 20 };

static struct {
	const char *config;		/* -c FILE, or NULL for one tunnel from the command line */
	const char *ctl_path;
	const char *user;
	gid_t gid;
	struct sitd_conf req[SITD_MAX_TUNNELS];	/* as asked, to compare on reload */
	struct sitd_tunnel *tun[SITD_MAX_TUNNELS];
	unsigned n;
	int ctl_fd, sig_fd;
} d;

static char answer[256 * 1024];

static void usage(FILE *f)
{
	fputs("Usage: sitd [OPTIONS] [name] NAME [mode {sit|ipip|any}] remote ADDR [local {ADDR|any}]\n"
	      "            [ttl {1..255|inherit}] [tos {00..ff|inherit|inherit/00..ff}]\n"
	      "            [pmtudisc|nopmtudisc] [dev PHYS_DEV] [mtu N]\n"
	      "            [encap {fou|gue|none}] [encap-sport {PORT|auto}] [encap-dport PORT]\n"
	      "            [[no]encap-csum] [nogso] [nogro]\n"
	      "       sitd [OPTIONS] -c FILE\n"
	      "       sitd [-S PATH] show [-s] [-j] [NAME]\n"
	      "       sitd [-S PATH] reload\n"
	      "       sitd [-S PATH] sandbox\n"
	      "OPTIONS: -S PATH  control socket (default " SITD_RUNDIR "/NAME.sock, or sitd.sock with -c)\n"
	      "         -u USER  run as USER once everything is open\n"
	      "         -G GROUP group allowed to use the control socket (default: sitd, if it exists)\n"
	      "\n"
	      "Creates TUN device NAME and runs the tunnel in the foreground, as\n"
	      "`ip tunnel add NAME ...` would in the kernel.  See sitd(8), sitd.conf(5).\n",
	      f);
}

static int read_file(const char *path, char *buf, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	*len = fread(buf, 1, cap, f);
	if (ferror(f) || *len == cap) {
		fclose(f);
		errno = *len == cap ? EFBIG : EIO;
		return -1;
	}
	fclose(f);
	return 0;
}

/* Read and parse the configuration file; -1 with the reason in err. */
static int load_config(struct sitd_conf *out, char *err, size_t errlen)
{
	static char text[CONFIG_MAX];
	char msg[300];
	size_t len;
	int n;

	if (read_file(d.config, text, sizeof(text), &len) < 0) {
		snprintf(err, errlen, "%s: %s", d.config, strerror(errno));
		return -1;
	}
	n = sitd_config_parse(text, len, out, SITD_MAX_TUNNELS, msg, sizeof(msg));
	if (n < 0) {
		snprintf(err, errlen, "%s:%s", d.config, msg);
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: no tunnel", d.config);
		return -1;
	}
	return n;
}

/* Open and start one tunnel; NULL (logged) on failure. */
static struct sitd_tunnel *tunnel_new(const struct sitd_conf *c, bool start)
{
	struct sitd_tunnel *t = calloc(1, sizeof(*t));

	if (!t) {
		log_warn("%s: out of memory", c->name);
		return NULL;
	}
	t->conf = *c;
	if (tunnel_open(t) < 0 || (start && tunnel_start(t) < 0)) {
		free(t);
		return NULL;
	}
	return t;
}

static void tunnel_free(struct sitd_tunnel *t)
{
	tunnel_stop(t);
	free(t);
}

/*
 * SIGHUP or `sitd reload`: stop the tunnels whose stanza went away or changed, start the
 * new and changed ones, leave the others running untouched.  A bad file changes nothing.
 */
static int reload(char *err, size_t errlen)
{
	static struct sitd_conf next[SITD_MAX_TUNNELS];
	unsigned kept = 0, added = 0, removed = 0, failed = 0;
	int n;

	if (!d.config) {
		snprintf(err, errlen, "nothing to reload: sitd was started without -c FILE");
		return -1;
	}
	n = load_config(next, err, errlen);
	if (n < 0)
		return -1;
	for (unsigned i = 0; i < d.n;) {
		int j;

		for (j = 0; j < n && strcmp(next[j].name, d.req[i].name); j++)
			;
		if (j < n && !memcmp(&next[j], &d.req[i], sizeof(next[j]))) {
			i++;
			kept++;
			continue;
		}
		log_info("%s: %s", d.req[i].name, j < n ? "changed, restarting" : "removed");
		tunnel_free(d.tun[i]);
		d.tun[i] = d.tun[d.n - 1];
		d.req[i] = d.req[d.n - 1];
		d.n--;
		removed++;
	}
	for (int j = 0; j < n; j++) {
		struct sitd_tunnel *t;
		unsigned i;

		for (i = 0; i < d.n && strcmp(next[j].name, d.req[i].name); i++)
			;
		if (i < d.n)
			continue;
		t = tunnel_new(&next[j], true);
		if (!t) {
			failed++;
			continue;
		}
		log_info("%s: running", t->conf.name);
		d.req[d.n] = next[j];
		d.tun[d.n++] = t;
		added++;
	}
	log_info("reloaded %s: %u kept, %u started, %u stopped, %u failed", d.config, kept, added,
		 removed, failed);
	if (failed) {
		snprintf(err, errlen, "%u tunnel(s) failed to start; see the log", failed);
		return -1;
	}
	return 0;
}

static void answer_show(int fd, char *args)
{
	static struct sitd_show_tunnel st[SITD_MAX_TUNNELS];
	static struct sitd_stats stats[SITD_MAX_TUNNELS];
	bool s = false, j = false;
	const char *name = NULL;
	unsigned n = 0;
	size_t len;

	for (char *w = strtok(args, " "); w; w = strtok(NULL, " ")) {
		if (!strcmp(w, "-s"))
			s = true;
		else if (!strcmp(w, "-j"))
			j = true;
		else
			name = w;
	}
	for (unsigned i = 0; i < d.n; i++) {
		if (name && strcmp(name, d.tun[i]->conf.name))
			continue;
		tunnel_stats(d.tun[i], &stats[n]);
		st[n].conf = &d.tun[i]->conf;
		st[n].stats = &stats[n];
		st[n].path_mtu = tunnel_path_mtu(d.tun[i]);
		n++;
	}
	if (name && !n) {
		len = (size_t)snprintf(answer, sizeof(answer), "error: no tunnel \"%s\"\n", name);
	} else {
		len = sitd_show_format(answer, sizeof(answer), st, n, s, j);
	}
	if (write(fd, answer, len) < 0)
		log_warn("control: write");
}

static void serve_ctl(void)
{
	for (;;) {
		char line[256], err[400];
		uid_t uid;
		int fd = accept4(d.ctl_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			return;
		if (ctl_read_request(fd, line, sizeof(line), &uid) == 0) {
			if (!strcmp(line, "show") || !strncmp(line, "show ", 5)) {
				answer_show(fd, line + 4);
			} else if (!strcmp(line, "reload")) {
				const char *msg = "ok\n";

				/* Changes need root, as SO_PEERCRED says, not as the client says. */
				if (uid != 0)
					msg = "error: reload needs root\n";
				else if (reload(err, sizeof(err)) < 0)
					msg = err;
				if (write(fd, msg, strlen(msg)) < 0 ||
				    (msg == err && write(fd, "\n", 1) < 0))
					log_warn("control: write");
			} else if (!strcmp(line, "sandbox")) {
				/*
				 * A check an operator can run: uname(NULL) fails with EFAULT where it
				 * is allowed, and with EPERM where the seccomp filter refuses it.
				 */
				long r = syscall(SYS_uname, NULL);
				int e = r < 0 ? errno : 0;
				int n = snprintf(err, sizeof(err), "seccomp: %s (a forbidden call, uname: %s)\n",
						 e == EPERM ? "on" : "off", e ? strerror(e) : "allowed");

				if (write(fd, err, (size_t)n) < 0)
					log_warn("control: write");
			} else if (write(fd, "error: unknown request\n", 23) < 0) {
				log_warn("control: write");
			}
		}
		close(fd);
	}
}

static void print_stats(void)
{
	for (unsigned i = 0; i < d.n; i++)
		tunnel_print_stats(d.tun[i]);
}

/* Readiness for systemd (Type=notify): the documented datagram to $NOTIFY_SOCKET. */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0';	/* an abstract socket */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa, len) < 0)
		log_warn("cannot tell systemd that sitd is ready");
	if (fd >= 0)
		close(fd);
}

/* `sitd show` / `sitd reload`: ask the running daemon(s). */
static int client(const char *request)
{
	DIR *dir;
	struct dirent *e;
	int asked = 0;

	if (d.ctl_path) {
		if (ctl_request(d.ctl_path, request) < 0) {
			fprintf(stderr, "sitd: %s: %s\n", d.ctl_path, strerror(errno));
			return 1;
		}
		return 0;
	}
	dir = opendir(SITD_RUNDIR);
	if (!dir) {
		fprintf(stderr, "sitd: no sitd is running (%s: %s)\n", SITD_RUNDIR, strerror(errno));
		return 1;
	}
	while ((e = readdir(dir))) {
		char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
		size_t l = strlen(e->d_name);

		if (l < 6 || strcmp(e->d_name + l - 5, ".sock") ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", SITD_RUNDIR, e->d_name) >= sizeof(path))
			continue;
		if (ctl_request(path, request) < 0)
			fprintf(stderr, "sitd: %s: %s\n", path, strerror(errno));
		else
			asked++;
	}
	closedir(dir);
	if (!asked) {
		fprintf(stderr, "sitd: no sitd is running (no socket in %s)\n", SITD_RUNDIR);
		return 1;
	}
	return 0;
}

static gid_t group_id(const char *g)
{
	struct group *gr;
	char *end;
	unsigned long v;

	if (!g) {
		gr = getgrnam("sitd");
		return gr ? gr->gr_gid : 0;
	}
	v = strtoul(g, &end, 10);
	if (*g && !*end)
		return (gid_t)v;
	gr = getgrnam(g);
	if (!gr) {
		fprintf(stderr, "sitd: no such group \"%s\"\n", g);
		exit(2);
	}
	return gr->gr_gid;
}

static int parse_options(int argc, char **argv, const char **group)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (strcmp(o, "-c") && strcmp(o, "-S") && strcmp(o, "-u") && strcmp(o, "-G"))
			break;	/* "show -s" and the like: not ours */
		if (i + 1 >= argc) {
			fprintf(stderr, "sitd: \"%s\" needs a value\n", o);
			exit(2);
		}
		if (o[1] == 'c')
			d.config = argv[++i];
		else if (o[1] == 'S')
			d.ctl_path = argv[++i];
		else if (o[1] == 'u')
			d.user = argv[++i];
		else
			*group = argv[++i];
	}
	return i;
}

static void stop_all(void)
{
	for (unsigned i = 0; i < d.n; i++)
		tunnel_free(d.tun[i]);
	d.n = 0;
}

int main(int argc, char **argv)
{
	static char ctl_default[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *group = NULL;
	char err[400];
	bool low_port = false;
	sigset_t set;
	int i = parse_options(argc, argv, &group);

	if (i < argc && !strcmp(argv[i], "show")) {
		char req[256] = "show";

		for (int k = i + 1; k < argc; k++) {
			if (strlen(req) + strlen(argv[k]) + 2 > sizeof(req)) {
				fprintf(stderr, "sitd: show: too many arguments\n");
				return 2;
			}
			strcat(req, " ");
			strcat(req, argv[k]);
		}
		return client(req);
	}
	if (i < argc && (!strcmp(argv[i], "reload") || !strcmp(argv[i], "sandbox"))) {
		if (i + 1 < argc) {
			fprintf(stderr, "sitd: %s takes no argument\n", argv[i]);
			return 2;
		}
		return client(argv[i]);
	}
	if (i < argc && (!strcmp(argv[i], "help") || !strcmp(argv[i], "-h"))) {
		usage(stdout);
		return 0;
	}

	if (d.config) {
		int n;

		if (i < argc) {
			fprintf(stderr, "sitd: with -c FILE the tunnels come from the file, not \"%s\"\n",
				argv[i]);
			return 2;
		}
		n = load_config(d.req, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "sitd: %s\n", err);
			return 2;
		}
		d.n = (unsigned)n;
	} else {
		if (sitd_cli_parse(argc - i, (const char *const *)argv + i, &d.req[0], err, sizeof(err))) {
			if (!strcmp(err, "help")) {
				usage(stdout);
				return 0;
			}
			fprintf(stderr, "sitd: %s\n", err);
			fprintf(stderr, "Try \"sitd help\".\n");
			return 2;
		}
		d.n = 1;
	}
	d.gid = group_id(group);
	if (!d.ctl_path) {
		snprintf(ctl_default, sizeof(ctl_default), "%s/%s.sock", SITD_RUNDIR,
			 d.config ? "sitd" : d.req[0].name);
		d.ctl_path = ctl_default;
	}

	/* Signals arrive through a signalfd in the main loop, never in the threads. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	d.sig_fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (d.sig_fd < 0)
		log_fatal("signalfd");
	/* Everything opens, or nothing runs: never a partial start. */
	for (unsigned k = 0; k < d.n; k++) {
		struct sitd_tunnel *t = tunnel_new(&d.req[k], false);

		if (!t) {
			d.n = k;
			for (unsigned m = 0; m < k; m++)
				tunnel_close_only(d.tun[m]);
			log_fatalx("%s: not started", d.req[k].name);
		}
		d.tun[k] = t;
		low_port |= d.req[k].encap != SITD_ENCAP_NONE &&
			    ((d.req[k].encap_dport && d.req[k].encap_dport < 1024) ||
			     (d.req[k].encap_sport && d.req[k].encap_sport < 1024));
	}
	/* After the devices: without privileges, theirs is the error to report. */
	d.ctl_fd = ctl_listen(d.ctl_path, d.gid);
	if (d.ctl_fd < 0) {
		int e = errno;

		for (unsigned m = 0; m < d.n; m++)
			tunnel_close_only(d.tun[m]);
		errno = e;
		if (e == EADDRINUSE)
			log_fatalx("%s: another sitd answers there (use -S PATH)", d.ctl_path);
		log_fatal("cannot open the control socket %s", d.ctl_path);
	}
	priv_drop(d.user, low_port);
	for (unsigned k = 0; k < d.n; k++) {
		if (tunnel_start(d.tun[k]) < 0)
			log_fatalx("%s: not started", d.tun[k]->conf.name);
		log_info("%s: running", d.tun[k]->conf.name);
	}
	notify_ready();

	for (;;) {
		struct pollfd p[2] = { { .fd = d.sig_fd, .events = POLLIN },
				       { .fd = d.ctl_fd, .events = POLLIN } };
		struct signalfd_siginfo si;

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents & POLLIN)
			serve_ctl();
		if (!(p[0].revents & POLLIN) || read(d.sig_fd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR1) {
			print_stats();
		} else if (si.ssi_signo == SIGHUP) {
			if (reload(err, sizeof(err)) < 0)
				log_warnx("reload: %s", err);
		} else {
			log_info("%s, stopping", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
			print_stats();
			stop_all();
			unlink(d.ctl_path);
			return 0;
		}
	}
}
