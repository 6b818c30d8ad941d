/* SPDX-License-Identifier: MIT */
/*
 * Device configuration: a stanza's addresses and routes put on its TUN device, and those
 * a changed stanza no longer has taken off.
 */
#include <arpa/inet.h>
#include <string.h>

#include "daemon/internal.h"
#include "os/log.h"
#include "priv/privsep.h"

static bool has_addr(const struct sitd_conf *c, const struct sitd_prefix *p)
{
	for (unsigned i = 0; i < c->naddrs; i++)
		if (!memcmp(&c->addrs[i], p, sizeof(*p)))
			return true;
	return false;
}

static bool has_route(const struct sitd_conf *c, const struct sitd_route *r)
{
	for (unsigned i = 0; i < c->nroutes; i++)
		if (!memcmp(&c->routes[i], r, sizeof(*r)))
			return true;
	return false;
}

/*
 * The stanza's `address` and `route` words, as wg-quick applies Address= and OpenVPN its
 * routes: the device up, then the addresses, then the routes.  Applied again after a
 * restart (replacing, so no error), taken off when a changed stanza no longer has them,
 * and gone with the device when the tunnel is removed.  A failure is logged; the tunnel
 * runs.
 */
void devconf_apply(struct sitd_daemon *d, struct tunnel *t)
{
	const struct sitd_conf *c = &t->conf, *old = NULL;
	/* A netns tunnel's device is named, for the monitor to act in its namespace. */
	const char *dev = c->netns[0] ? c->name : NULL;
	char what[64];
	int r;

	for (unsigned i = 0; i < d->nprev; i++)
		if (!strcmp(d->prev[i].name, c->name))
			old = &d->prev[i];
	for (unsigned i = 0; old && i < old->nroutes; i++)
		if (!has_route(c, &old->routes[i]))
			(void)ps_route_on(dev, false, t->ifindex, &old->routes[i]);
	for (unsigned i = 0; old && i < old->naddrs; i++)
		if (!has_addr(c, &old->addrs[i]))
			(void)ps_addr_on(dev, false, t->ifindex, &old->addrs[i]);
	if (c->isatap)
		isatap_setup(t);
	if (!c->naddrs && !c->nroutes && !c->isatap)
		return;
	r = ps_link_up_on(dev, t->ifindex);
	if (r < 0)
		log_warnx("%s: cannot set the device up: %s", c->name, strerror(-r));
	if (c->isatap) {
		/* The link-local fe80::0[2]00:5efe:a.b.c.d (RFC 5214 6.2): routers answer it. */
		struct sitd_prefix ll = { .family = 6, .len = 64 };
		static const uint8_t fe80[8] = { 0xfe, 0x80 };

		sitd_isatap_addr(fe80, c->local, isatap_global(c->local), ll.addr);
		r = ps_addr(true, t->ifindex, &ll);
		if (r < 0)
			log_warnx("%s: cannot add the ISATAP link-local address: %s", c->name, strerror(-r));
	}
	for (unsigned i = 0; i < c->naddrs; i++) {
		r = ps_addr_on(dev, true, t->ifindex, &c->addrs[i]);
		if (r < 0) {
			inet_ntop(c->addrs[i].family == 6 ? AF_INET6 : AF_INET, c->addrs[i].addr, what,
				  sizeof(what));
			log_warnx("%s: cannot add address %s/%u: %s", c->name, what, c->addrs[i].len,
				  strerror(-r));
		}
	}
	for (unsigned i = 0; i < c->nroutes; i++) {
		r = ps_route_on(dev, true, t->ifindex, &c->routes[i]);
		if (r < 0) {
			inet_ntop(c->routes[i].dst.family == 6 ? AF_INET6 : AF_INET, c->routes[i].dst.addr,
				  what, sizeof(what));
			log_warnx("%s: cannot add route %s/%u: %s", c->name, what, c->routes[i].dst.len,
				  strerror(-r));
		}
	}
}
