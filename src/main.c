/* SPDX-License-Identifier: MIT */
/*
 * sitd: the Linux kernel's SIT and IPIP tunnels in userspace.
 *
 * The main thread parses the command line, opens everything, starts one thread per
 * direction and then only waits for signals: SIGUSR1 prints the counters, SIGINT and
 * SIGTERM print them and exit, which closes the TUN device and so removes it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "daemon.h"
#include "log.h"

static void usage(FILE *f)
{
	fputs("Usage: sitd [name] NAME [mode {sit|ipip|any}] remote ADDR [local {ADDR|any}]\n"
	      "            [ttl {1..255|inherit}] [tos {00..ff|inherit|inherit/00..ff}]\n"
	      "            [pmtudisc|nopmtudisc] [dev PHYS_DEV] [mtu N] [nogso] [nogro]\n"
	      "\n"
	      "Creates TUN device NAME and runs the tunnel in the foreground, as\n"
	      "`ip tunnel add NAME ...` would in the kernel.  Aliases: hoplimit, hlim (ttl);\n"
	      "tclass, dsfield (tos); ipv6/ip, ip6ip (sit); ip/ip (ipip).\n"
	      "SIGUSR1 prints the counters; SIGINT or SIGTERM stops and removes NAME.\n",
	      f);
}

int main(int argc, char **argv)
{
	static struct sitd_tunnel t;
	char err[256];
	sigset_t set;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "help"))) {
		usage(stdout);
		return 0;
	}
	if (sitd_cli_parse(argc - 1, (const char *const *)argv + 1, &t.conf, err, sizeof(err))) {
		if (!strcmp(err, "help")) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "sitd: %s\n", err);
		fprintf(stderr, "Try \"sitd help\".\n");
		return 2;
	}

	/* Threads inherit this mask, so only sigwait() below sees these signals. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	tunnel_open(&t);
	tunnel_start(&t);
	log_info("%s: running", t.conf.name);

	for (;;) {
		int sig;

		if (sigwait(&set, &sig))
			continue;
		if (sig == SIGUSR1 || sig == SIGHUP) {
			tunnel_print_stats(&t);
			continue;
		}
		log_info("%s: %s, stopping", t.conf.name, sig == SIGINT ? "SIGINT" : "SIGTERM");
		tunnel_print_stats(&t);
		return 0;
	}
}
