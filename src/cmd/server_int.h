/* SPDX-License-Identifier: MIT */
/*
 * Inside the control thread (server.h): the state its files share and what each
 * offers the others.  server.c runs the loop, control.c the clients, requests.c the
 * answers, reload.c the configuration file, sandbox.c the self-check.
 */
#ifndef SITD_SERVER_INT_H
#define SITD_SERVER_INT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cmd/server.h"
#include "os/ctl.h"
#include "proto/request.h"

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

/* control.c */
int64_t ms_now(void);
void client_close(struct server *s, unsigned i);
void client_accept(struct server *s);
void client_poll(struct server *s, struct pollfd *p);

/* requests.c */
int reply(struct client *c, const char *text);
void answer(struct server *s, struct client *c);

/* reload.c */
int reload(struct server *s, char *err, size_t errlen);

/* sandbox.c */
int req_sandbox(struct server *s, struct client *c, const struct sitd_request *req);

#endif
