/* SPDX-License-Identifier: MIT */
/*
 * fou6 with encap-sport auto: a router's Packet Too Big as the ICMPv6 raw socket hands
 * it over (sitd_ptb6_parse), and sitd_icmp6_err judging a quoted FOU or GUE packet over
 * IPv6: the UDP destination port, the GUE header, the MTU left inside (1400 - 48 - 8 =
 * 1344 for fou, 1340 for gue) and the relayed error quoting the inner packet.
 * Messages are copied into buffers of exactly their length (ASan under unit-asan).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/icmperr.h"
#include "core/stats.h"
#include "pktgen.h"

static const uint8_t LOCAL6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 1 };
static const uint8_t REMOTE6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, [15] = 2 };
enum { PORT = 5555, SPORT = 40001 };

static struct sitd_conf conf;
static uint8_t msg[4096], out[2000];
static size_t inner_len;

static void cfg(enum sitd_mode mode, enum sitd_encap encap)
{
	memset(&conf, 0, sizeof(conf));
	conf.outer = SITD_OUTER_IPV6;
	conf.mode = mode;
	conf.encap = encap;
	conf.encap_dport = PORT;
	memcpy(conf.remote6, REMOTE6, 16);
	memcpy(conf.local6, LOCAL6, 16);
	conf.encap_limit = 4;
}

/*
 * msg = a Packet Too Big of `mtu` from its ICMPv6 header, quoting our outer packet: IPv6
 * from local to remote, the Encapsulation Limit option (limit >= 0), UDP from SPORT to
 * dport, for gue its 4-byte header (version 0, proto), then an inner UDP packet of ilen
 * bytes of IP `version`.  Returns the message's length.
 */
static size_t mk_ptb(uint32_t mtu, unsigned version, size_t ilen, int limit, uint16_t dport,
		     bool gue)
{
	uint8_t *q = msg + 8;
	size_t hl = 40 + (limit >= 0 ? 8 : 0), ul = 8 + (gue ? 4 : 0);
	size_t n = pg_udp_packet(q + hl + ul, version, (uint32_t)(ilen - (version == 4 ? 28 : 48)), 7,
				 false);

	inner_len = n;
	msg[0] = 2;
	msg[1] = 0;
	pg_put16(msg + 2, 0);
	pg_put32(msg + 4, mtu);
	pg_ip6(q, 0, 0, (uint16_t)(hl - 40 + ul + n), limit >= 0 ? PG_PROTO_DSTOPTS : 17, 64, LOCAL6,
	       REMOTE6);
	if (limit >= 0)
		pg_ip6_enc_lim(q + 40, 17, (uint8_t)limit);
	pg_put16(q + hl, SPORT);
	pg_put16(q + hl + 2, dport);
	pg_put16(q + hl + 4, (uint16_t)(ul + n));
	pg_put16(q + hl + 6, 0);
	if (gue) {
		q[hl + 8] = 0;
		q[hl + 9] = version == 6 ? 41 : 4;
		q[hl + 10] = 0;
		q[hl + 11] = 0;
	}
	return 8 + hl + ul + n;
}

/* Parse a copy of msg[0..len) of exactly that length. */
static int parse(size_t len, struct sitd_ptb6 *p, uint8_t **copy)
{
	int r;

	*copy = malloc(len ? len : 1);
	assert_non_null(*copy);
	memcpy(*copy, msg, len);
	r = sitd_ptb6_parse(*copy, len, p);
	return r;
}

static enum sitd_err_action judge(const struct sitd_ptb6 *p, size_t *n, uint32_t *pmtu)
{
	struct sitd_err6 e = { .type = 2, .code = 0, .info = p->mtu, .quoted = p->quoted,
			       .len = p->len, .tnl_mtu = 1444 };

	return sitd_icmp6_err(&conf, &e, out, sizeof(out), n, pmtu);
}

/* fou, ip6ip6: the router's 1400 parsed, then 1400 - 40 - 8 - 8 = 1344 relayed. */
static void fou_ip6ip6(void **state)
{
	struct sitd_ptb6 p;
	uint8_t *c;
	size_t len = mk_ptb(1400, 6, 1444, 4, PORT, false), n;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_SIT, SITD_ENCAP_FOU);
	assert_int_equal(parse(len, &p, &c), 0);
	assert_int_equal(p.mtu, 1400);
	assert_int_equal(p.dport, PORT);
	assert_ptr_equal(p.quoted, c + 8);
	assert_int_equal(p.len, len - 8);
	assert_int_equal(judge(&p, &n, &pmtu), ERR_PMTU);
	assert_int_equal(pmtu, 1400);
	assert_int_equal(n, 48 + 1280 - 48);	/* the inner packet, as much as 1280 holds */
	assert_int_equal(out[40], 2);
	assert_int_equal(pg_get32(out + 44), 1344);
	assert_memory_equal(out + 48, c + 8 + 56, 1280 - 48);
	assert_memory_equal(out + 24, PG_IN6_SRC, 16);
	/* ip6_tnl_err relays when the quoted outer packet (1500) exceeds the MTU less the
	 * headers before the inner one: with 1556 it does not. */
	p.mtu = 1556;
	assert_int_equal(judge(&p, &n, &pmtu), ERR_PMTU);
	assert_int_equal(n, 0);
	free(c);
}

/* gue, ipip6: 1400 - 40 - 8 - 12 = 1340, as Fragmentation Needed to the IPv4 sender. */
static void gue_ipip6(void **state)
{
	struct sitd_ptb6 p;
	uint8_t *c;
	size_t len = mk_ptb(1400, 4, 1440, 4, PORT, true), n;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_IPIP, SITD_ENCAP_GUE);
	assert_int_equal(parse(len, &p, &c), 0);
	assert_int_equal(judge(&p, &n, &pmtu), ERR_PMTU);
	assert_int_equal(pmtu, 1400);
	assert_int_equal(n, 576);	/* RFC 1812 4.3.2.3 */
	assert_int_equal(out[20], 3);
	assert_int_equal(out[21], 4);
	assert_int_equal(pg_get16(out + 26), 1340);
	assert_memory_equal(out + 28, c + 8 + 60, 20);
	/* Below 1280 the floors (RFC 8201 4, __ip6_rt_update_pmtu; ip6_tnl_err raises
	 * what is left inside to 1280 too). */
	p.mtu = 1000;
	assert_int_equal(judge(&p, &n, &pmtu), ERR_PMTU);
	assert_int_equal(pmtu, 1280);
	assert_int_equal(pg_get16(out + 26), 1280);
	/* A GUE control message, and the wrong inner protocol: not ours. */
	c[8 + 56] = 0x20;
	assert_int_equal(judge(&p, &n, &pmtu), ERR_NOT_OURS);
	c[8 + 56] = 0;
	c[8 + 57] = 41;
	assert_int_equal(judge(&p, &n, &pmtu), ERR_NOT_OURS);
	free(c);
}

/* Without the option (encaplimit none): UDP right after the IPv6 header, 1352. */
static void fou_no_option(void **state)
{
	struct sitd_ptb6 p;
	uint8_t *c;
	size_t len = mk_ptb(1400, 6, 1452, -1, PORT, false), n;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_ANY, SITD_ENCAP_FOU);
	assert_int_equal(parse(len, &p, &c), 0);
	assert_int_equal(judge(&p, &n, &pmtu), ERR_PMTU);
	assert_int_equal(pg_get32(out + 44), 1352);
	free(c);
}

/* Another port: the parse gives it, the judge refuses it. */
static void wrong_port(void **state)
{
	struct sitd_ptb6 p;
	uint8_t *c;
	size_t len = mk_ptb(1400, 6, 1444, 4, PORT + 1, false), n;
	uint32_t pmtu;

	(void)state;
	cfg(SITD_MODE_SIT, SITD_ENCAP_FOU);
	assert_int_equal(parse(len, &p, &c), 0);
	assert_int_equal(p.dport, PORT + 1);
	assert_int_equal(judge(&p, &n, &pmtu), ERR_NOT_OURS);
	assert_int_equal(n, 0);
	free(c);
}

/* What the parse drops, each by its reason. */
static void drops(void **state)
{
	struct sitd_ptb6 p;
	uint8_t *c;
	size_t len = mk_ptb(1400, 6, 1444, 4, PORT, false);

	(void)state;
	for (size_t cut = 0; cut < 48; cut++) {
		assert_int_equal(parse(cut, &p, &c), SITD_DROP_ptb6_malformed);
		free(c);
	}
	/* The option and no whole UDP header: 48 + 8 + 7. */
	for (size_t cut = 48; cut < 8 + 40 + 8 + 8; cut++) {
		assert_int_equal(parse(cut, &p, &c), SITD_DROP_ptb6_not_udp);
		free(c);
	}
	assert_int_equal(parse(8 + 40 + 8 + 8, &p, &c), 0);
	free(c);
	msg[0] = 1;	/* Destination Unreachable (ICMP6_FILTER lets none through) */
	assert_int_equal(parse(len, &p, &c), SITD_DROP_ptb6_malformed);
	free(c);
	msg[0] = 2;
	msg[1] = 1;	/* Packet Too Big has code 0 only (RFC 4443 3.2) */
	assert_int_equal(parse(len, &p, &c), SITD_DROP_ptb6_malformed);
	free(c);
	msg[1] = 0;
	msg[8] = 0x45;	/* an IPv4 header quoted */
	assert_int_equal(parse(len, &p, &c), SITD_DROP_ptb6_malformed);
	free(c);
	msg[8] = 0x60;
	msg[8 + 40] = 6;	/* the option's next header: TCP, a host's own connection */
	assert_int_equal(parse(len, &p, &c), SITD_DROP_ptb6_not_udp);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fou_ip6ip6),
		cmocka_unit_test(gue_ipip6),
		cmocka_unit_test(fou_no_option),
		cmocka_unit_test(wrong_port),
		cmocka_unit_test(drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
