/* SPDX-License-Identifier: MIT */
/*
 * The monitor's requests (privmsg.h): each type accepted in its valid form, and every way
 * a request can be out of bounds refused with its reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "proto/privmsg.h"

static const uint8_t doc6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x64 };	/* 2001:db8:64:: */
static const uint8_t doc4[4] = { 192, 0, 2, 1 };

/* A valid request of each type. */
static struct priv_req valid(enum priv_type t)
{
	struct priv_req r;

	memset(&r, 0, sizeof(r));
	r.type = (uint16_t)t;
	switch (t) {
	case PRIV_TUN_OPEN:
		strcpy(r.name, "sit1");
		r.flag = 1;
		break;
	case PRIV_RAW_OPEN:
	case PRIV_RING_OPEN:
	case PRIV_RAW6_OPEN:
		r.proto = 41;
		break;
	case PRIV_ICMP6_DEV_OPEN:
		r.ifindex = 7;
		break;
	case PRIV_UDP_RX_OPEN:
	case PRIV_UDP6_RX_OPEN:
		r.port = 5555;
		break;
	case PRIV_UDP_TX_OPEN:
		r.local = 0xc0000201;
		r.port = 5556;
		r.pmtudisc = 3;
		r.flag = 1;
		strcpy(r.name, "veth0");
		break;
	case PRIV_LINK_MTU:
		strcpy(r.name, "sit1");
		r.mtu = 1480;
		break;
	case PRIV_NETNS_NL_OPEN:
	case PRIV_NETNS_CHECK:
		strcpy(r.name, "sit1");
		break;
	case PRIV_LINK_UP:
		r.ifindex = 7;
		break;
	case PRIV_ADDR:
		r.ifindex = 7;
		r.flag = 1;
		r.route.dst.family = 6;
		r.route.dst.len = 64;
		memcpy(r.route.dst.addr, doc6, 16);
		break;
	case PRIV_ROUTE:
		r.ifindex = 7;
		r.route.dst.family = 4;
		r.route.dst.len = 24;
		memcpy(r.route.dst.addr, doc4, 4);
		memcpy(r.route.via, doc4, 4);
		r.route.metric = 100;
		r.route.table = 254;
		break;
	case PRIV_TUN_DOOM:
		r.ifindex = 7;
		break;
	case PRIV_ISATAP:
		r.ifindex = 7;
		r.token[10] = 0x5e;
		r.token[11] = 0xfe;
		memcpy(r.token + 12, doc4, 4);
		break;
	case PRIV_RAW_SEND_OPEN:
	case PRIV_CONFIG_OPEN:
	case PRIV_READY:
	case PRIV_PACKET_TX_OPEN:
	case PRIV_RAW6_SEND_OPEN:
	case PRIV_METRICS_LISTEN:
	case PRIV_TUN_PURGE:
	case PRIV_ICMP6_PTB_OPEN:
		break;
	}
	return r;
}

static const char *why_of(const struct priv_req *r)
{
	struct priv_req out;
	const char *why = NULL;

	if (priv_req_parse(r, sizeof(*r), &out, &why) == 0)
		return NULL;
	return why;
}

static void test_every_type_accepted(void **state)
{
	(void)state;
	for (unsigned t = PRIV_TUN_OPEN; t <= PRIV_TYPE_MAX; t++) {
		struct priv_req r = valid((enum priv_type)t), out;
		const char *why = "unset";

		assert_int_equal(priv_req_parse(&r, sizeof(r), &out, &why), 0);
		assert_memory_equal(&r, &out, sizeof(r));
		assert_string_not_equal(priv_type_name(t), "?");
	}
	assert_string_equal(priv_type_name(0), "?");
	assert_string_equal(priv_type_name(PRIV_TYPE_MAX + 1), "?");
}

static void test_size_and_type(void **state)
{
	struct priv_req r = valid(PRIV_READY), out;
	const char *why = NULL;

	(void)state;
	assert_int_equal(priv_req_parse(&r, sizeof(r) - 1, &out, &why), -1);
	assert_string_equal(why, "wrong size");
	assert_int_equal(priv_req_parse(&r, 0, &out, &why), -1);
	r.type = 0;
	assert_string_equal(why_of(&r), "unknown type");
	r.type = PRIV_TYPE_MAX + 1;
	assert_string_equal(why_of(&r), "unknown type");
}

static void test_unused_fields(void **state)
{
	const char *set = "a field this request does not take is set";
	struct priv_req r;

	(void)state;
	r = valid(PRIV_READY);
	r.flag = 1;
	assert_string_equal(why_of(&r), set);
	r = valid(PRIV_RAW_SEND_OPEN);
	strcpy(r.name, "eth0");
	assert_string_equal(why_of(&r), set);
	r = valid(PRIV_TUN_OPEN);
	r.ifindex = 1;
	assert_string_equal(why_of(&r), set);
	r = valid(PRIV_LINK_UP);
	r.token[15] = 1;
	assert_string_equal(why_of(&r), set);
	r = valid(PRIV_ADDR);		/* a prefix takes no next hop */
	r.route.via[0] = 1;
	assert_string_equal(why_of(&r), set);
	r = valid(PRIV_CONFIG_OPEN);
	r.pad = 1;
	assert_string_equal(why_of(&r), set);
}

static void test_names(void **state)
{
	static const char *const bad[] = { "", ".", "..", "a/b", "a:0", "a b", "a\tb",
					   "abcdefghijklmnop" };
	struct priv_req r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = valid(PRIV_TUN_OPEN);
		memset(r.name, 0, sizeof(r.name));
		memcpy(r.name, bad[i], strlen(bad[i]) < 16 ? strlen(bad[i]) : 16);
		assert_string_equal(why_of(&r), "invalid device name");
	}
	r = valid(PRIV_LINK_MTU);
	r.name[6] = 'x';		/* bytes after the terminator */
	assert_string_equal(why_of(&r), "invalid device name");
	r = valid(PRIV_UDP_TX_OPEN);	/* no device: the whole field zero */
	memset(r.name, 0, sizeof(r.name));
	assert_null(why_of(&r));
	r.name[3] = 'h';
	assert_string_equal(why_of(&r), "invalid device name");
	r = valid(PRIV_TUN_OPEN);
	strcpy(r.name, "123456789012345");
	assert_null(why_of(&r));
}

static void test_bounds(void **state)
{
	struct priv_req r;

	(void)state;
	r = valid(PRIV_TUN_OPEN);
	r.flag = 2;
	assert_string_equal(why_of(&r), "flag not 0 or 1");
	r = valid(PRIV_RAW_OPEN);
	r.proto = 6;
	assert_string_equal(why_of(&r), "protocol not 4 or 41");
	r.proto = 4;
	assert_null(why_of(&r));
	r = valid(PRIV_UDP_RX_OPEN);
	r.port = 0;
	assert_string_equal(why_of(&r), "port 0");
	r = valid(PRIV_UDP6_RX_OPEN);
	r.port = 0;
	assert_string_equal(why_of(&r), "port 0");
	r = valid(PRIV_UDP_TX_OPEN);
	r.port = 0;			/* any source port */
	assert_null(why_of(&r));
	r.pmtudisc = 2;			/* IP_PMTUDISC_DO: sitd never asks for it */
	assert_string_equal(why_of(&r), "pmtudisc mode not DONT or PROBE");
	r = valid(PRIV_LINK_MTU);
	r.mtu = 67;
	assert_string_equal(why_of(&r), "mtu outside 68..65535");
	r.mtu = 65536;
	assert_string_equal(why_of(&r), "mtu outside 68..65535");
	r.mtu = 68;
	assert_null(why_of(&r));
	r = valid(PRIV_LINK_UP);
	r.ifindex = 0;
	assert_string_equal(why_of(&r), "ifindex 0");
}

/* The locked sockets (SO_LOCK_FILTER): a ring for protocol 41 or 4, ICMPv6 on a device. */
static void test_locked(void **state)
{
	struct priv_req r;

	(void)state;
	r = valid(PRIV_RING_OPEN);
	r.proto = 17;
	assert_string_equal(why_of(&r), "protocol not 4 or 41");
	r.proto = 4;
	assert_null(why_of(&r));
	r.port = 53;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	r = valid(PRIV_ICMP6_DEV_OPEN);
	r.ifindex = 0;
	assert_string_equal(why_of(&r), "ifindex 0");
	r = valid(PRIV_PACKET_TX_OPEN);
	r.proto = 41;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	assert_string_equal(priv_type_name(PRIV_RING_OPEN), "ring-open");
}

/* An IPv6 underlay's sockets: a receive socket for 41 or 4, the send socket (type alone). */
static void test_raw6(void **state)
{
	struct priv_req r;

	(void)state;
	r = valid(PRIV_RAW6_OPEN);
	assert_null(why_of(&r));
	r.proto = 4;
	assert_null(why_of(&r));
	r.proto = 0;
	assert_string_equal(why_of(&r), "protocol not 4 or 41");
	r.proto = 6;
	assert_string_equal(why_of(&r), "protocol not 4 or 41");
	r = valid(PRIV_RAW6_OPEN);
	r.ifindex = 3;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	r = valid(PRIV_RAW6_SEND_OPEN);
	assert_null(why_of(&r));
	r.proto = 41;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	r = valid(PRIV_RAW6_SEND_OPEN);
	r.name[0] = 'x';
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	assert_string_equal(priv_type_name(PRIV_RAW6_OPEN), "raw6-open");
	assert_string_equal(priv_type_name(PRIV_RAW6_SEND_OPEN), "raw6-send-open");
	/* -M's socket: the monitor listens where -M said; the request carries nothing. */
	r = valid(PRIV_METRICS_LISTEN);
	assert_null(why_of(&r));
	r.port = 80;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	r = valid(PRIV_METRICS_LISTEN);
	r.local = 0x7f000001;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	assert_string_equal(priv_type_name(PRIV_METRICS_LISTEN), "metrics-listen");
	/* Batched removal: an ifindex, and nothing. */
	r = valid(PRIV_TUN_DOOM);
	r.ifindex = 0;
	assert_string_equal(why_of(&r), "ifindex 0");
	r = valid(PRIV_TUN_DOOM);
	strcpy(r.name, "t1");
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	r = valid(PRIV_TUN_PURGE);
	r.ifindex = 7;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	r = valid(PRIV_TUN_PURGE);
	r.flag = 1;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	assert_string_equal(priv_type_name(PRIV_TUN_DOOM), "tun-doom");
	assert_string_equal(priv_type_name(PRIV_TUN_PURGE), "tun-purge");
	assert_string_equal(priv_type_name(PRIV_UDP6_RX_OPEN), "udp6-rx-open");
	assert_string_equal(priv_type_name(PRIV_ICMP6_PTB_OPEN), "icmp6-ptb-open");
}

/*
 * The unlocked AF_PACKET socket and the unbound ICMPv6 socket are no requests any more:
 * the daemon asks for the locked ones only, so nothing else may be granted.
 */
static void test_unlocked_gone(void **state)
{
	(void)state;
	for (unsigned t = PRIV_TUN_OPEN; t <= PRIV_TYPE_MAX; t++) {
		assert_string_not_equal(priv_type_name(t), "packet-open");
		assert_string_not_equal(priv_type_name(t), "icmp6-open");
	}
	assert_int_equal(PRIV_TYPE_MAX, 24);
}

static void test_prefixes_and_routes(void **state)
{
	struct priv_req r;

	(void)state;
	r = valid(PRIV_ADDR);
	r.route.dst.len = 129;
	assert_string_equal(why_of(&r), "invalid prefix");
	r.route.dst.family = 5;
	r.route.dst.len = 64;
	assert_string_equal(why_of(&r), "invalid prefix");
	r.route.dst.family = 4;
	r.route.dst.len = 33;
	memset(r.route.dst.addr, 0, 16);
	assert_string_equal(why_of(&r), "invalid prefix");
	r.route.dst.len = 32;
	assert_null(why_of(&r));
	r.route.dst.addr[4] = 1;	/* an IPv4 prefix with bits past its 4 bytes */
	assert_string_equal(why_of(&r), "invalid prefix");
	r = valid(PRIV_ROUTE);
	r.route.via[4] = 1;		/* an IPv4 next hop likewise */
	assert_string_equal(why_of(&r), "invalid route");
	r = valid(PRIV_ROUTE);
	r.route.dst.family = 0;
	assert_string_equal(why_of(&r), "invalid route");
}

/* netns: the two requests name the tunnel; the device requests may name theirs. */
static void test_netns(void **state)
{
	struct priv_req r;

	(void)state;
	r = valid(PRIV_NETNS_CHECK);
	assert_null(why_of(&r));
	memset(r.name, 0, sizeof(r.name));
	assert_string_equal(why_of(&r), "invalid device name");
	r = valid(PRIV_NETNS_NL_OPEN);
	r.ifindex = 3;
	assert_string_equal(why_of(&r), "a field this request does not take is set");
	r = valid(PRIV_NETNS_NL_OPEN);
	strcpy(r.name, "a/b");
	assert_string_equal(why_of(&r), "invalid device name");
	r = valid(PRIV_LINK_UP);
	assert_null(why_of(&r));	/* "": sitd's own namespace */
	strcpy(r.name, "sit1");
	assert_null(why_of(&r));
	strcpy(r.name, "..");
	assert_string_equal(why_of(&r), "invalid device name");
	r = valid(PRIV_ADDR);
	strcpy(r.name, "sit1");
	assert_null(why_of(&r));
	assert_string_equal(priv_type_name(PRIV_NETNS_CHECK), "netns-check");
	assert_string_equal(priv_type_name(PRIV_NETNS_NL_OPEN), "netns-nl-open");
}

static void test_token(void **state)
{
	struct priv_req r = valid(PRIV_ISATAP);

	(void)state;
	r.token[0] = 0xfe;		/* a whole address, not an interface identifier */
	assert_string_equal(why_of(&r), "invalid token");
	memset(r.token, 0, sizeof(r.token));
	assert_string_equal(why_of(&r), "invalid token");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type_accepted),
		cmocka_unit_test(test_size_and_type),
		cmocka_unit_test(test_unused_fields),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_netns),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_raw6),
		cmocka_unit_test(test_unlocked_gone),
		cmocka_unit_test(test_prefixes_and_routes),
		cmocka_unit_test(test_token),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
