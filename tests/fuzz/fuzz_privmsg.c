/* SPDX-License-Identifier: MIT */
/*
 * The monitor's request parser (privmsg.h), fed any bytes, as a packet process taken over
 * by an attacker could send them.  Invariants: no crash; a refusal says why; an accepted
 * request is exactly the bytes sent, of a known type, and holds only what that type
 * takes, each field within its bounds (checked here independently of privmsg.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "proto/privmsg.h"

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static bool name_ok(const char *s)
{
	size_t n = 0;

	while (n < 16 && s[n])
		n++;
	if (n == 0 || n == 16 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return all_zero(s + n, 16 - n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct priv_req r;
	const char *why = NULL;

	if (priv_req_parse(data, size, &r, &why) < 0) {
		CHECK(why && why[0]);
		return 0;
	}
	CHECK(size == sizeof(r) && !memcmp(&r, data, size));
	CHECK(r.type >= PRIV_TUN_OPEN && r.type <= PRIV_TYPE_MAX);
	CHECK(strcmp(priv_type_name(r.type), "?") != 0);
	CHECK(r.flag <= 1 && r.pad == 0);
	switch ((enum priv_type)r.type) {
	case PRIV_TUN_OPEN:
	case PRIV_LINK_MTU:
		CHECK(name_ok(r.name));
		CHECK(r.type == PRIV_TUN_OPEN || (r.mtu >= 68 && r.mtu <= 65535));
		CHECK(!r.ifindex && !r.port && !r.proto && all_zero(&r.route, sizeof(r.route)));
		break;
	case PRIV_RAW_OPEN:
	case PRIV_RING_OPEN:
	case PRIV_RAW6_OPEN:
		CHECK(r.proto == 4 || r.proto == 41);
		CHECK(all_zero(r.name, sizeof(r.name)) && !r.ifindex && !r.flag);
		break;
	case PRIV_UDP_RX_OPEN:
	case PRIV_UDP6_RX_OPEN:
		CHECK(r.port != 0 && !r.flag && all_zero(r.name, sizeof(r.name)));
		break;
	case PRIV_UDP_TX_OPEN:
		CHECK(!r.name[0] ? all_zero(r.name, sizeof(r.name)) : name_ok(r.name));
		CHECK(r.pmtudisc == 0 || r.pmtudisc == 3);
		CHECK(!r.ifindex && all_zero(&r.route, sizeof(r.route)));
		break;
	case PRIV_ADDR:
	case PRIV_ROUTE:
		CHECK(r.ifindex != 0);
		CHECK((r.route.dst.family == 4 && r.route.dst.len <= 32 &&
		       all_zero(r.route.dst.addr + 4, 12)) ||
		      (r.route.dst.family == 6 && r.route.dst.len <= 128));
		CHECK(r.type == PRIV_ROUTE || (all_zero(r.route.via, 16) && !r.route.metric &&
					       !r.route.table));
		/* The device's name (a netns tunnel's), or none: sitd's own namespace. */
		CHECK(!r.name[0] ? all_zero(r.name, sizeof(r.name)) : name_ok(r.name));
		CHECK(all_zero(r.token, sizeof(r.token)));
		break;
	case PRIV_NETNS_NL_OPEN:
	case PRIV_NETNS_CHECK:
		CHECK(name_ok(r.name));
		CHECK(!r.ifindex && !r.flag && !r.mtu && all_zero(&r.route, sizeof(r.route)));
		break;
	case PRIV_LINK_UP:
	case PRIV_ICMP6_DEV_OPEN:
	case PRIV_ISATAP:
	case PRIV_TUN_DOOM:
		CHECK(r.ifindex != 0 && all_zero(&r.route, sizeof(r.route)));
		CHECK(r.type != PRIV_ISATAP ? all_zero(r.token, 16) :
		      (all_zero(r.token, 8) && !all_zero(r.token + 8, 8)));
		CHECK(r.type == PRIV_LINK_UP ? (!r.name[0] ? all_zero(r.name, sizeof(r.name)) :
						name_ok(r.name)) : all_zero(r.name, sizeof(r.name)));
		break;
	case PRIV_RAW_SEND_OPEN:
	case PRIV_CONFIG_OPEN:
	case PRIV_READY:
	case PRIV_PACKET_TX_OPEN:
	case PRIV_RAW6_SEND_OPEN:
	case PRIV_METRICS_LISTEN:
	case PRIV_TUN_PURGE:
	case PRIV_ICMP6_PTB_OPEN:
		/* Nothing but the type: every other byte zero. */
		CHECK(all_zero((const uint8_t *)data + 2, size - 2));
		break;
	}
	return 0;
}
