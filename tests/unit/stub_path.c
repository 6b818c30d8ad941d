/* SPDX-License-Identifier: MIT */
/*
 * Stubs of what path.c calls below it, for test_path.c: the path MTU the kernel reports
 * (pmtu_query and pmtu6_query, from stub_path_mtu, counted), no route or neighbour for -T packet, the
 * clock the test sets, log lines counted.
 */
#include <stdint.h>
#include <string.h>

#include "os/clock.h"
#include "os/log.h"
#include "os/nl.h"
#include "os/sock.h"
#include "os/tun.h"
#include "daemon/internal.h"
#include "stub_path.h"

struct stub_path stub_path;

void events_mtu(const struct tunnel *t, uint32_t old, uint32_t mtu)
{
	(void)t;
	stub_path.events++;
	stub_path.ev_old = old;
	stub_path.ev_new = mtu;
}

uint32_t pmtu_query(uint32_t local, uint32_t remote, const char *dev)
{
	(void)local;
	(void)dev;
	stub_path.queries++;
	stub_path.last_dst = remote;
	return stub_path.mtu;
}

uint32_t pmtu6_query(const uint8_t remote6[16], const char *dev, uint8_t src[16])
{
	(void)dev;
	stub_path.queries6++;
	memcpy(stub_path.last_dst6, remote6, 16);
	memcpy(src, stub_path.src6, 16);
	return stub_path.mtu;
}

int nl_route_get4(uint32_t dst, uint32_t src, unsigned oif, unsigned *out_oif, uint32_t *nexthop)
{
	(void)dst;
	(void)src;
	(void)oif;
	(void)out_oif;
	(void)nexthop;
	return -1;
}

int nl_neigh_get4(unsigned ifindex, uint32_t ip, uint8_t mac[6], bool *confirmed)
{
	(void)ifindex;
	(void)ip;
	(void)mac;
	(void)confirmed;
	return -1;
}

int nl_route_get6(const uint8_t dst[16], const uint8_t src[16], unsigned oif, unsigned *out_oif,
		  uint8_t nexthop[16])
{
	(void)dst;
	(void)src;
	(void)oif;
	(void)out_oif;
	(void)nexthop;
	return -1;
}

int nl_neigh_get6(unsigned ifindex, const uint8_t ip[16], uint8_t mac[6], bool *confirmed)
{
	(void)ifindex;
	(void)ip;
	(void)mac;
	(void)confirmed;
	return -1;
}

int link_get_mtu(const char *name)
{
	(void)name;
	return -1;
}

int link_get_ether(const char *name, uint8_t mac[6])
{
	(void)name;
	(void)mac;
	return -1;
}

uint64_t now_ns(void)
{
	return stub_path.now;
}

void log_info(const char *fmt, ...)
{
	(void)fmt;
	stub_path.logs++;
}
