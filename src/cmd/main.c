/* SPDX-License-Identifier: MIT */
/*
 * sitd: the Linux kernel's SIT and IPIP tunnels in userspace.
 *
 * The options, then either a subcommand (a client of a running sitd, client.c; the
 * subcommands are request.h's table, which the usage prints too) or the tunnels to run
 * (the daemon, server.c): one from the command line in `ip tunnel add` grammar, or many
 * from -c FILE.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/cli.h"
#include "proto/http.h"
#include "proto/request.h"
#include "cmd/client.h"
#include "cmd/import.h"
#include "cmd/server.h"

#ifndef SITD_VERSION
#define SITD_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fputs("Usage: sitd [OPTIONS] [name] NAME [mode {sit|ipip|any|isatap}] remote {ADDR|any}\n"
	      "            [local {ADDR|any}] [ttl {1..255|inherit}] [tos {00..ff|inherit|inherit/00..ff}]\n"
	      "            [pmtudisc|nopmtudisc] [dev PHYS_DEV] [mtu N]\n"
	      "            [encap {fou|gue|none}] [encap-sport {PORT|auto}] [encap-dport PORT]\n"
	      "            [[no]encap-csum] [nogso] [nogro] [takeover]\n"
	      "            [clamp-mss [N]] [keepalive SECONDS[,RETRIES] keepalive-peer ADDR]\n"
	      "            [6rd-prefix P/L] [6rd-relay_prefix A/L] [prl-default A] [prl-nodefault A]\n"
	      "            [address PREFIX]... [route PREFIX [via ADDR] [metric N] [table T]]...\n"
	      "       sitd [OPTIONS] -c FILE\n",
	      f);
	/* The subcommands, from the table the client and the daemon read (request.h). */
	for (size_t k = 0; k < SITD_REQ_COUNT; k++) {
		const struct sitd_request_cmd *cmd = &sitd_request_cmds[k];

		fprintf(f, "       sitd [-S PATH] %s%s%s\n", cmd->name, cmd->usage[0] ? " " : "",
			cmd->usage);
	}
	fputs("       sitd import {ifupdown FILE | networkd FILE.netdev [FILE.network]...}\n",
	      f);
	fputs("       sitd {-V|--version|-h|--help}\n"
	      "OPTIONS: -S PATH  control socket (default /run/sitd/ns-INODE/NAME.sock, NAME the\n"
	      "                  tunnel's, or with -c the file's name without .conf)\n"
	      "         -u USER  run as USER once everything is open\n"
	      "         -G GROUP group allowed to use the control socket (default: sitd, if it exists)\n"
	      "         -w N     worker threads (default: one per CPU)\n"
	      "         -T PATH  how outer packets leave: raw (default: a raw socket, through\n"
	      "                  routing, netfilter and the qdisc) or packet (AF_PACKET, whole\n"
	      "                  frames to the next hop: faster, past netfilter and the qdisc)\n"
	      "         -R PATH  how protocol 41 and 4 arrive: raw (default: a raw socket) or\n"
	      "                  ring (an AF_PACKET ring for packets over 128 bytes: faster,\n"
	      "                  before netfilter; such a packet may wait up to 1 ms)\n"
	      "         -M [ADDR:]PORT  serve GET /metrics (Prometheus) on ADDR (default\n"
	      "                  127.0.0.1; [IPV6]:PORT for IPv6), the text of `sitd metrics`\n"
	      "\n"
	      "Creates TUN device NAME and runs the tunnel in the foreground, as\n"
	      "`ip tunnel add NAME ...` would in the kernel.  SIGTERM leaves the device for the\n"
	      "next start, SIGINT (Ctrl-C) removes it.  See sitd(8), sitd.conf(5).\n",
	      f);
}

static gid_t group_id(const char *g)
{
	struct group *gr;
	char *end;
	unsigned long v;

	if (!g) {
		gr = getgrnam("sitd");
		return gr ? gr->gr_gid : (gid_t)-1;
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

static unsigned workers_of(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < 1 || v > 1024) {
		fprintf(stderr, "sitd: -w takes a number of workers from 1 to 1024, not \"%s\"\n", s);
		exit(2);
	}
	return (unsigned)v;
}

/* -T and -R: raw (the default, false) or the other path, alt (true). */
static bool path_of(char opt, const char *alt, const char *s)
{
	if (!strcmp(s, "raw") || !strcmp(s, alt))
		return !strcmp(s, alt);
	fprintf(stderr, "sitd: -%c takes raw or %s, not \"%s\"\n", opt, alt, s);
	exit(2);
}

/* -M [ADDR:]PORT: where the exporter listens (loopback when only a port). */
static const struct sitd_listen *metrics_of(const char *s)
{
	static struct sitd_listen l;
	char err[160];

	if (sitd_listen_parse(s, &l, err, sizeof(err)) < 0) {
		fprintf(stderr, "sitd: %s\n", err);
		exit(2);
	}
	return &l;
}

static int parse_options(int argc, char **argv, struct server_opts *o, const char **group)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("sitd %s\n", SITD_VERSION);
			exit(0);
		}
		if (strcmp(a, "-c") && strcmp(a, "-S") && strcmp(a, "-u") && strcmp(a, "-G") &&
		    strcmp(a, "-w") && strcmp(a, "-T") && strcmp(a, "-R") && strcmp(a, "-M")) {
			fprintf(stderr, "sitd: unknown option \"%s\"\nTry \"sitd help\".\n", a);
			exit(2);
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "sitd: \"%s\" needs a value\n", a);
			exit(2);
		}
		if (a[1] == 'c')
			o->config = argv[++i];
		else if (a[1] == 'S')
			o->ctl_path = argv[++i];
		else if (a[1] == 'u')
			o->user = argv[++i];
		else if (a[1] == 'w')
			o->workers = workers_of(argv[++i]);
		else if (a[1] == 'T')
			o->tx_packet = path_of('T', "packet", argv[++i]);
		else if (a[1] == 'R')
			o->rx_ring = path_of('R', "ring", argv[++i]);
		else if (a[1] == 'M')
			o->metrics = metrics_of(argv[++i]);
		else
			*group = argv[++i];
	}
	return i;
}

int main(int argc, char **argv)
{
	struct server_opts o = { 0 };
	struct sitd_conf c;
	const char *group = NULL;
	char err[400];
	int i = parse_options(argc, argv, &o, &group);

	if (i < argc && (!strcmp(argv[i], "help") || !strcmp(argv[i], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "import"))
		return import_main(argc - i, (const char *const *)argv + i);
	if (i < argc && client_is_command(argv[i]))
		return client_main(o.ctl_path, argc - i, (const char *const *)argv + i);
	if (o.config) {
		if (i < argc) {
			fprintf(stderr, "sitd: with -c FILE the tunnels come from the file, not \"%s\"\n",
				argv[i]);
			return 2;
		}
	} else {
		if (sitd_cli_parse(argc - i, (const char *const *)argv + i, &c, err, sizeof(err))) {
			if (!strcmp(err, "help")) {
				usage(stdout);
				return 0;
			}
			fprintf(stderr, "sitd: %s\nTry \"sitd help\".\n", err);
			return 2;
		}
		o.cli = &c;
	}
	o.gid = group_id(group);
	return server_main(&o);
}
