/* SPDX-License-Identifier: MIT */
/*
 * core/mss: clamp-mss.  SYNs are built byte by byte here with the options each test
 * names (RFC 9293 3.2: MSS kind 2 length 4, NOP 1, EOL 0; RFC 7323 window scale and
 * timestamps; RFC 2018 SACK permitted), and every checksum is checked with pktgen.h's
 * reference (pg_sum), never the core's.  Then the transmit pipeline with clamp-mss on:
 * plain, NEEDS_CSUM and GSO frames.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/inet.h"
#include "core/mss.h"
#include "core/tx.h"
#include "pktgen.h"

static uint8_t pkt[2048], before[2048];

/* The usual Linux SYN options: MSS 1460, SACK permitted, timestamps, NOP, window scale 7. */
static const uint8_t linux_opts[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 };

struct syn {
	unsigned version;
	unsigned ext;		/* IPv6: Destination Options bytes before TCP */
	uint8_t flags;
	const uint8_t *opts;
	unsigned optlen;	/* a multiple of 4 */
	unsigned payload;
	bool partial;		/* the field holds the pseudo-header sum (CHECKSUM_PARTIAL) */
	bool mf;		/* IPv4 More Fragments */
};

static unsigned l4off;

/* The TCP pseudo-header sum of the packet in pkt for l4len bytes. */
static uint32_t psum(const struct syn *s, uint32_t l4len)
{
	if (s->version == 4)
		return pg_pseudo4(PG_IN4_SRC, PG_IN4_DST, PG_PROTO_TCP, (uint16_t)l4len);
	return pg_pseudo6(PG_IN6_SRC, PG_IN6_DST, PG_PROTO_TCP, l4len);
}

static uint32_t build(const struct syn *s)
{
	unsigned l3 = s->version == 4 ? 20 : 40 + s->ext, thl = 20 + s->optlen;
	uint32_t l4len = thl + s->payload, total = l3 + l4len;
	uint8_t *t = pkt + l3;

	memset(pkt, 0xee, sizeof(pkt));
	if (s->version == 4) {
		pg_ip4(pkt, 0, (uint16_t)total, 7, s->mf ? PG_IP4_MF : PG_IP4_DF, 64, PG_PROTO_TCP,
		       PG_IN4_SRC, PG_IN4_DST, 0);
	} else {
		pg_ip6(pkt, 0, 0, (uint16_t)(total - 40), s->ext ? PG_PROTO_DSTOPTS : PG_PROTO_TCP, 64,
		       PG_IN6_SRC, PG_IN6_DST);
		if (s->ext)
			pg_ip6_dstopts(pkt + 40, PG_PROTO_TCP, s->ext);
	}
	pg_put16(t, 40000);
	pg_put16(t + 2, 443);
	pg_put32(t + 4, 0x11223344);
	pg_put32(t + 8, s->flags & PG_ACK ? 0x55667788 : 0);
	t[12] = (uint8_t)(thl / 4 << 4);
	t[13] = s->flags;
	pg_put16(t + 14, 64240);
	pg_put16(t + 16, 0);
	pg_put16(t + 18, 0);
	memcpy(t + 20, s->opts, s->optlen);
	pg_pattern(t + thl, s->payload, 3);
	if (s->partial)
		pg_put16(t + 16, pg_fold(psum(s, l4len)));
	else
		pg_put16(t + 16, (uint16_t)~pg_fold(pg_sum(t, l4len, psum(s, l4len))));
	l4off = l3;
	memcpy(before, pkt, total);
	return total;
}

/* The reference verdict on the TCP checksum of pkt. */
static bool tcp_ok(const struct syn *s, uint32_t total)
{
	uint32_t l4len = total - l4off;

	return pg_fold(pg_sum(pkt + l4off, l4len, psum(s, l4len))) == 0xffff;
}

/* What a device does with CHECKSUM_PARTIAL: sum from the TCP header, field included. */
static void complete(uint32_t total)
{
	uint8_t *t = pkt + l4off;

	pg_put16(t + 16, (uint16_t)~pg_fold(pg_sum(t, total - l4off, 0)));
}

static bool clamp(uint32_t total, uint16_t mss, enum sitd_mss_csum cs)
{
	struct sitd_ipinfo ii;

	assert_int_equal(sitd_ip_parse(pkt, total, &ii), 0);
	return sitd_mss_clamp(pkt, total, &ii, mss, cs);
}

/* Bytes other than those listed (offsets into the packet) are as built. */
static void same_but(uint32_t total, unsigned a, unsigned b, unsigned c, unsigned d)
{
	for (unsigned i = 0; i < total; i++)
		if (i != a && i != b && i != c && i != d)
			assert_int_equal(pkt[i], before[i]);
}

static void test_fit(void **state)
{
	(void)state;
	assert_int_equal(sitd_mss_fit(1480, 4), 1440);
	assert_int_equal(sitd_mss_fit(1480, 6), 1420);
	assert_int_equal(sitd_mss_fit(1280, 6), 1220);
	assert_int_equal(sitd_mss_fit(40, 4), 0);
	assert_int_equal(sitd_mss_fit(60, 6), 0);
	assert_int_equal(sitd_mss_fit(65535, 4), 65495);
}

static void test_find(void **state)
{
	uint8_t th[60] = { 0 };

	(void)state;
	memcpy(th + 20, linux_opts, sizeof(linux_opts));
	assert_int_equal(sitd_mss_find(th, 40), 20);
	/* After NOP, SACK permitted and a timestamp: found at an odd offset. */
	memcpy(th + 20, (const uint8_t[]){ 1, 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 2, 4, 5, 0xb4, 0, 0, 0 }, 20);
	assert_int_equal(sitd_mss_find(th, 40), 33);
	/* Cut short by the header length: not found. */
	assert_int_equal(sitd_mss_find(th, 36), 0);
	/* EOL first. */
	th[20] = 0;
	assert_int_equal(sitd_mss_find(th, 40), 0);
}

static void test_v4_among_options(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };
	uint32_t n = build(&s);

	(void)state;
	assert_true(clamp(n, 1400, SITD_MSS_CSUM_FULL));
	assert_int_equal(pg_get16(pkt + 20 + 22), 1400);
	assert_true(tcp_ok(&s, n));
	same_but(n, 20 + 16, 20 + 17, 20 + 22, 20 + 23);
}

static void test_never_raises(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };
	uint32_t n = build(&s);

	(void)state;
	assert_false(clamp(n, 1460, SITD_MSS_CSUM_FULL));
	assert_false(clamp(n, 9000, SITD_MSS_CSUM_FULL));
	assert_false(clamp(n, 0, SITD_MSS_CSUM_FULL));
	assert_memory_equal(pkt, before, n);
}

static void test_synack_and_odd_offset(void **state)
{
	/* NOP, then MSS at an odd offset: the value straddles two words of the sum. */
	static const uint8_t odd[] = { 1, 2, 4, 0x23, 0x28, 1, 1, 0 };
	struct syn s = { .version = 4, .flags = PG_SYN | PG_ACK, .opts = odd, .optlen = 8, .payload = 5 };
	uint32_t n = build(&s);

	(void)state;
	assert_true(clamp(n, 1240, SITD_MSS_CSUM_FULL));
	assert_int_equal(pg_get16(pkt + 20 + 23), 1240);
	assert_true(tcp_ok(&s, n));
	same_but(n, 20 + 16, 20 + 17, 20 + 23, 20 + 24);
}

static void test_not_syn(void **state)
{
	struct syn s = { .version = 4, .flags = PG_ACK, .opts = linux_opts, .optlen = 20 };
	uint32_t n = build(&s);

	(void)state;
	assert_false(clamp(n, 1000, SITD_MSS_CSUM_FULL));
	s.flags = PG_SYN | PG_RST;
	n = build(&s);
	assert_false(clamp(n, 1000, SITD_MSS_CSUM_FULL));
	s.flags = PG_SYN;
	s.mf = true;	/* a first fragment: left to whoever reassembles */
	n = build(&s);
	assert_false(clamp(n, 1000, SITD_MSS_CSUM_FULL));
	assert_memory_equal(pkt, before, n);
}

static void test_no_mss(void **state)
{
	static const uint8_t noms[] = { 1, 1, 4, 2, 1, 3, 3, 7 };
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = noms, .optlen = 8 };
	uint32_t n = build(&s);

	(void)state;
	assert_false(clamp(n, 536, SITD_MSS_CSUM_FULL));
	assert_memory_equal(pkt, before, n);
	s.optlen = 0;	/* no options at all */
	n = build(&s);
	assert_false(clamp(n, 536, SITD_MSS_CSUM_FULL));
	assert_memory_equal(pkt, before, n);
}

static void test_malformed(void **state)
{
	static const uint8_t bad[][8] = {
		{ 8, 0, 2, 4, 5, 0xb4, 0, 0 },		/* length 0 before MSS */
		{ 8, 1, 2, 4, 5, 0xb4, 0, 0 },		/* length 1 */
		{ 1, 8, 9, 2, 4, 5, 0xb4, 0 },		/* an option longer than the header */
		{ 2, 3, 5, 0xb4, 0, 0, 0, 0 },		/* MSS of length 3 */
		{ 2, 5, 5, 0xb4, 0, 0, 0, 0 },		/* MSS of length 5 */
		{ 0, 0, 2, 4, 5, 0xb4, 0, 0 },		/* EOL, then an MSS */
		{ 1, 1, 1, 1, 1, 1, 1, 2 },		/* MSS kind as the last byte */
		{ 1, 1, 1, 1, 1, 1, 2, 4 },		/* MSS cut by the header's end */
	};

	(void)state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct syn s = { .version = 4, .flags = PG_SYN, .opts = bad[k], .optlen = 8 };
		uint32_t n = build(&s);

		assert_false(clamp(n, 536, SITD_MSS_CSUM_FULL));
		assert_memory_equal(pkt, before, n);
	}
}

/* A data offset beyond the packet, or below 5: nothing read past the end, nothing done. */
static void test_bad_offset(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };
	uint32_t n = build(&s);
	struct sitd_ipinfo ii;

	(void)state;
	pkt[20 + 12] = 15 << 4;
	memcpy(before, pkt, n);
	assert_false(clamp(n, 536, SITD_MSS_CSUM_FULL));
	pkt[20 + 12] = 4 << 4;
	memcpy(before, pkt, n);
	assert_false(clamp(n, 536, SITD_MSS_CSUM_FULL));
	assert_memory_equal(pkt, before, n);
	/* A length shorter than the TCP header. */
	pkt[20 + 12] = 10 << 4;
	assert_int_equal(sitd_ip_parse(pkt, n, &ii), 0);
	assert_false(sitd_mss_clamp(pkt, 30, &ii, 536, SITD_MSS_CSUM_FULL));
}

static void test_v6(void **state)
{
	struct syn s = { .version = 6, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };
	uint32_t n = build(&s);

	(void)state;
	assert_true(clamp(n, 1220, SITD_MSS_CSUM_FULL));
	assert_int_equal(pg_get16(pkt + 40 + 22), 1220);
	assert_true(tcp_ok(&s, n));
	/* Behind a Destination Options header, a SYN-ACK. */
	s.ext = 16;
	s.flags = PG_SYN | PG_ACK;
	n = build(&s);
	assert_true(clamp(n, 1380, SITD_MSS_CSUM_CHECK));
	assert_int_equal(pg_get16(pkt + 56 + 22), 1380);
	assert_true(tcp_ok(&s, n));
	same_but(n, 56 + 16, 56 + 17, 56 + 22, 56 + 23);
}

/*
 * CHECKSUM_PARTIAL: the field holds the pseudo-header sum; the option changes, the field
 * does not, and the checksum the device then completes is right.  Updating the field too
 * would be wrong: checked by doing it.
 */
static void test_partial(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20, .partial = true };
	uint32_t n = build(&s);
	uint16_t field = pg_get16(pkt + 20 + 16);

	(void)state;
	assert_true(clamp(n, 1400, SITD_MSS_CSUM_PARTIAL));
	assert_int_equal(pg_get16(pkt + 20 + 16), field);
	complete(n);
	assert_true(tcp_ok(&s, n));

	n = build(&s);
	assert_true(clamp(n, 1400, SITD_MSS_CSUM_FULL));	/* the wrong choice */
	complete(n);
	assert_false(tcp_ok(&s, n));

	/* Received: recognised as partial by its field. */
	s.version = 6;
	n = build(&s);
	field = pg_get16(pkt + 40 + 16);
	assert_true(clamp(n, 1200, SITD_MSS_CSUM_CHECK));
	assert_int_equal(pg_get16(pkt + 40 + 16), field);
	complete(n);
	assert_true(tcp_ok(&s, n));
}

/* Received with a wrong checksum: left for the receiver to drop. */
static void test_check_wrong(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };
	uint32_t n = build(&s);

	(void)state;
	pkt[20 + 16] ^= 0x40;
	memcpy(before, pkt, n);
	assert_false(clamp(n, 1000, SITD_MSS_CSUM_CHECK));
	assert_memory_equal(pkt, before, n);
	/* Right: updated. */
	n = build(&s);
	assert_true(clamp(n, 1000, SITD_MSS_CSUM_CHECK));
	assert_true(tcp_ok(&s, n));
}

/* Every MSS value and limit pair around the edges, at both offsets' parity. */
static void test_values(void **state)
{
	uint8_t even[8] = { 2, 4, 0, 0, 1, 1, 1, 0 }, odd[8] = { 1, 2, 4, 0, 0, 1, 1, 0 };
	static const uint16_t v[] = { 0, 1, 255, 256, 1220, 1460, 0x7fff, 0x8000, 0xfeff, 0xffff };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			for (int o = 0; o < 2; o++) {
				uint8_t *opts = o ? odd : even;
				struct syn s = { .version = 4, .flags = PG_SYN, .opts = opts, .optlen = 8,
						 .payload = (unsigned)j % 3 };
				uint32_t n;
				bool r;

				pg_put16(opts + 2 + o, v[i]);
				n = build(&s);
				r = clamp(n, v[j], SITD_MSS_CSUM_FULL);
				assert_int_equal(r, v[j] && v[i] > v[j]);
				assert_int_equal(pg_get16(pkt + 20 + 22 + o), r ? v[j] : v[i]);
				assert_true(tcp_ok(&s, n));
			}
		}
	}
}

/* The receive path's first look never says no to a SYN it would clamp. */
static void test_maybe_syn(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };
	uint32_t n;

	(void)state;
	n = build(&s);
	assert_true(sitd_mss_maybe_syn(pkt, n));
	s.flags = PG_ACK;
	n = build(&s);
	assert_false(sitd_mss_maybe_syn(pkt, n));
	pkt[9] = PG_PROTO_UDP;
	assert_false(sitd_mss_maybe_syn(pkt, n));
	assert_false(sitd_mss_maybe_syn(pkt, 39));
	s.version = 6;
	s.flags = PG_SYN | PG_ACK;
	n = build(&s);
	assert_true(sitd_mss_maybe_syn(pkt, n));
	s.flags = PG_ACK;
	n = build(&s);
	assert_false(sitd_mss_maybe_syn(pkt, n));
	s.ext = 8;	/* behind an extension header: left to the parse */
	n = build(&s);
	assert_true(sitd_mss_maybe_syn(pkt, n));
}

/* ---- through the transmit pipeline ---------------------------------------------- */

static struct sitd_tx tx;
static struct sitd_stats st;
static uint8_t frame[PG_VNET_LEN + 2048];

static void tx_setup(uint16_t n, uint32_t mtu)
{
	struct sitd_conf c;

	memset(&c, 0, sizeof(c));
	c.mode = SITD_MODE_ANY;
	c.local = PG_OUTER_LOCAL;
	c.remote = PG_OUTER_REMOTE;
	c.pmtudisc = true;
	c.mtu = mtu;
	c.clamp_mss = true;
	c.clamp_mss_n = n;
	memset(&st, 0, sizeof(st));
	sitd_tx_init(&tx, &c, &st, NULL, 1);
}

/* The inner packet of output 0 (one outer IPv4 header, then the packet), into pkt. */
static uint32_t out_inner(void)
{
	uint8_t flat[2048];
	size_t n = pg_flatten(tx.out[0].iov, tx.out[0].iovcnt, flat, sizeof(flat));

	assert_true(n > 20 && n != (size_t)-1);
	memcpy(pkt, flat + 20, n - 20);
	return (uint32_t)(n - 20);
}

static uint32_t tx_one(const struct syn *s, uint8_t vflags, uint8_t gso, uint16_t cstart, uint32_t path_mtu)
{
	uint32_t n = build(s);

	pg_vnet(frame, vflags, gso, 0, gso ? 1000 : 0, cstart, vflags ? 16 : 0);
	memcpy(frame + PG_VNET_LEN, pkt, n);
	assert_int_equal(sitd_tx_begin(&tx, frame, PG_VNET_LEN + n, path_mtu, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	assert_int_equal(tx.nout, 1);
	n = out_inner();
	sitd_tx_reset(&tx);
	return n;
}

static void test_tx_fit(void **state)
{
	struct syn s = { .version = 6, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };
	uint32_t n;

	(void)state;
	/* Device 1480: 1420 for IPv6. */
	tx_setup(0, 1480);
	n = tx_one(&s, 0, PG_GSO_NONE, 0, 1500);
	assert_int_equal(pg_get16(pkt + 40 + 22), 1420);
	assert_true(tcp_ok(&s, n));
	assert_int_equal(st.tx_mss_clamped, 1);
	/* A learned path MTU of 1400 (1380 inside): 1340 for IPv4. */
	s.version = 4;
	n = tx_one(&s, 0, PG_GSO_NONE, 0, 1400);
	assert_int_equal(pg_get16(pkt + 20 + 22), 1340);
	assert_true(tcp_ok(&s, n));
	assert_int_equal(st.tx_mss_clamped, 2);
}

static void test_tx_fixed_and_partial(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20, .partial = true };
	uint32_t n;

	(void)state;
	tx_setup(1200, 1480);
	/* NEEDS_CSUM: sitd completes it (no csum_defer) after the clamp: right. */
	n = tx_one(&s, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 20, 1500);
	assert_int_equal(pg_get16(pkt + 20 + 22), 1200);
	assert_true(tcp_ok(&s, n));
	assert_int_equal(st.tx_csum_completed, 1);
	/* A partial sum starting elsewhere than TCP: not clamped. */
	s.partial = false;
	n = tx_one(&s, PG_VNET_F_NEEDS_CSUM, PG_GSO_NONE, 24, 1500);
	assert_int_equal(pg_get16(pkt + 20 + 22), 1460);
	assert_int_equal(st.tx_mss_clamped, 1);
}

/* A GSO frame is skipped unread, whatever its flags say. */
static void test_tx_gso_skipped(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20, .payload = 100,
			 .partial = true };
	uint8_t flat[2048];
	uint32_t n = build(&s);

	(void)state;
	tx_setup(536, 1480);
	pg_vnet(frame, PG_VNET_F_NEEDS_CSUM, PG_GSO_TCPV4, 40, 1000, 20, 16);
	memcpy(frame + PG_VNET_LEN, pkt, n);
	assert_int_equal(sitd_tx_begin(&tx, frame, PG_VNET_LEN + n, 1500, 0), SITD_TX_SEND);
	assert_true(sitd_tx_next(&tx));
	n = (uint32_t)pg_flatten(tx.out[0].iov, tx.out[0].iovcnt, flat, sizeof(flat));
	assert_int_equal(pg_get16(flat + 20 + 20 + 22), 1460);
	assert_int_equal(st.tx_mss_clamped, 0);
	sitd_tx_reset(&tx);
}

/* Off: nothing read or changed. */
static void test_tx_off(void **state)
{
	struct syn s = { .version = 4, .flags = PG_SYN, .opts = linux_opts, .optlen = 20 };

	(void)state;
	tx_setup(536, 1480);
	tx.clamp = false;
	(void)tx_one(&s, 0, PG_GSO_NONE, 0, 1500);
	assert_int_equal(pg_get16(pkt + 20 + 22), 1460);
	assert_int_equal(st.tx_mss_clamped, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_v4_among_options),
		cmocka_unit_test(test_never_raises),
		cmocka_unit_test(test_synack_and_odd_offset),
		cmocka_unit_test(test_not_syn),
		cmocka_unit_test(test_no_mss),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_bad_offset),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_check_wrong),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_maybe_syn),
		cmocka_unit_test(test_tx_fit),
		cmocka_unit_test(test_tx_fixed_and_partial),
		cmocka_unit_test(test_tx_gso_skipped),
		cmocka_unit_test(test_tx_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
