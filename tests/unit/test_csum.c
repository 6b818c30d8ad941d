/* SPDX-License-Identifier: MIT */
/*
 * core/csum: the Internet checksum (RFC 1071) and its incremental update (RFC 1624),
 * checked against pg_sum(), the plain reference in pktgen.h.
 *
 * The core keeps sums in native memory order; a folded sum stored with csum_st16() lands
 * in network order.  be() turns a core sum into the big-endian number the reference gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/csum.h"
#include "pktgen.h"

static uint16_t be(uint32_t core_sum)
{
	uint8_t b[2];

	csum_st16(b, csum_fold(core_sum));
	return pg_get16(b);
}

static uint8_t rnd[70000 + 8];

static void fill_random(uint32_t seed)
{
	for (size_t i = 0; i < sizeof(rnd); i++)
		rnd[i] = (uint8_t)pg_rand(&seed);
}

/* RFC 1071 3: the bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2. */
static void test_csum_rfc1071_example(void **state)
{
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	(void)state;
	assert_int_equal(be(csum_partial(b, sizeof(b), 0)), 0xddf2);
	assert_int_equal(pg_fold(pg_sum(b, sizeof(b), 0)), 0xddf2);
	assert_int_equal(csum_partial(b, 0, 0x1234), 0x1234);	/* empty adds nothing */
}

/*
 * Every length 0..300 at every alignment 0..7 (the 32-byte and 4-byte loops, the 2-byte
 * and odd tails of csum_partial), then random lengths and offsets up to 3000.
 */
static void test_csum_partial_vs_reference(void **state)
{
	uint32_t seed = 0x5eed1071;

	(void)state;
	fill_random(1);
	for (size_t len = 0; len <= 300; len++)
		for (size_t off = 0; off < 8; off++)
			assert_int_equal(be(csum_partial(rnd + off, len, 0)),
					 pg_fold(pg_sum(rnd + off, len, 0)));
	for (int i = 0; i < 5000; i++) {
		size_t len = pg_rand(&seed) % 3001, off = pg_rand(&seed) % 8;

		assert_int_equal(be(csum_partial(rnd + off, len, 0)), pg_fold(pg_sum(rnd + off, len, 0)));
	}
}

/* Carries pile up in long buffers: all-0xff words (each 0xffff), and 64 KB of random. */
static void test_csum_partial_long(void **state)
{
	static uint8_t ff[65536 + 1];
	const size_t lens[] = { 65535, 65536, 65537, 70000 };

	(void)state;
	memset(ff, 0xff, sizeof(ff));
	assert_int_equal(be(csum_partial(ff, 65536, 0)), 0xffff);
	assert_int_equal(be(csum_partial(ff, 65537, 0)), pg_fold(pg_sum(ff, 65537, 0)));
	assert_int_equal(be(csum_partial(ff + 1, 65535, 0)), pg_fold(pg_sum(ff + 1, 65535, 0)));
	fill_random(7);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t off = 0; off < 4; off++)
			assert_int_equal(be(csum_partial(rnd + off, lens[i], 0)),
					 pg_fold(pg_sum(rnd + off, lens[i], 0)));
}

/*
 * RFC 1071 2(A)/2(C): a buffer's sum equals the sums of its parts split at even offsets,
 * whether chained through the `sum` argument or added with csum_add.
 */
static void test_csum_partial_chain(void **state)
{
	uint32_t seed = 0xc4a1;

	(void)state;
	fill_random(3);
	for (int i = 0; i < 2000; i++) {
		size_t len = pg_rand(&seed) % 4000, off = pg_rand(&seed) % 8;
		size_t k1 = (pg_rand(&seed) % (len + 1)) & ~(size_t)1;
		size_t k2 = k1 + ((pg_rand(&seed) % (len - k1 + 1)) & ~(size_t)1);
		const uint8_t *p = rnd + off;
		uint32_t whole = csum_partial(p, len, 0);
		uint32_t s = csum_partial(p, k1, 0);

		s = csum_partial(p + k1, k2 - k1, s);
		s = csum_partial(p + k2, len - k2, s);
		assert_int_equal(be(s), be(whole));
		s = csum_add(csum_partial(p, k1, 0), csum_partial(p + k1, len - k1, 0));
		assert_int_equal(be(s), be(whole));
		assert_int_equal(be(whole), pg_fold(pg_sum(p, len, 0)));
	}
	/* csum_add carries out of bit 31 (end-around carry). */
	assert_int_equal(csum_add(0xffffffffu, 2), 2);
	assert_int_equal(csum_add(0x80000000u, 0x80000000u), 1);
}

/* The classic IPv4 header whose checksum is b861 (worked example, RFC 1071 style). */
static void test_ip4_hdr_csum_known(void **state)
{
	uint8_t h[] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			0xaa, 0x55, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	(void)state;
	ip4_hdr_csum_set(h, 20);	/* the old value in the field must be ignored */
	assert_int_equal(pg_get16(h + 10), 0xb861);
}

/* ip4_hdr_csum_set on random headers with 0..40 bytes of options (IHL 5..15). */
static void test_ip4_hdr_csum_random(void **state)
{
	uint32_t seed = 791;

	(void)state;
	for (int i = 0; i < 2000; i++) {
		uint8_t h[60];
		unsigned hl = 20 + (pg_rand(&seed) % 11) * 4;

		for (unsigned k = 0; k < hl; k++)
			h[k] = (uint8_t)pg_rand(&seed);
		h[0] = (uint8_t)(0x40 | hl / 4);
		ip4_hdr_csum_set(h, hl);
		assert_true(pg_ip4_csum_ok(h));
		h[10] = h[11] = 0;
		{
			uint16_t want = pg_csum(h, hl);

			ip4_hdr_csum_set(h, hl);
			assert_int_equal(pg_get16(h + 10), want);
		}
	}
}

/* RFC 1624 3: HC 0xdd2f, m 0x5555 -> m' 0x3285 gives HC' 0x0000 (eqn. 2 would give 0xffff). */
static void test_csum_replace16_rfc1624(void **state)
{
	uint8_t check[2] = { 0xdd, 0x2f };
	const uint8_t m[2] = { 0x55, 0x55 }, m2[2] = { 0x32, 0x85 };

	(void)state;
	csum_replace16(check, csum_ld16(m), csum_ld16(m2));
	assert_int_equal(check[0], 0x00);
	assert_int_equal(check[1], 0x00);
}

/* RFC 1624: one word of a header changed, the updated checksum equals a full recompute. */
static void test_csum_replace16_vs_recompute(void **state)
{
	uint32_t seed = 1624;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint8_t h[20];
		unsigned w;
		uint16_t old, new_;

		for (unsigned k = 0; k < sizeof(h); k++)
			h[k] = (uint8_t)pg_rand(&seed);
		h[0] = 0x45;
		pg_put16(h + 10, 0);
		pg_put16(h + 10, pg_csum(h, 20));
		do
			w = (pg_rand(&seed) % 10) * 2;
		while (w == 10);
		old = csum_ld16(h + w);
		/* Some updates set the word to 0 or 0xffff, the one's-complement edge values. */
		switch (i % 4) {
		case 0:
			pg_put16(h + w, 0);
			break;
		case 1:
			pg_put16(h + w, 0xffff);
			break;
		default:
			pg_put16(h + w, (uint16_t)pg_rand(&seed));
			break;
		}
		new_ = csum_ld16(h + w);
		csum_replace16(h + 10, old, new_);
		{
			uint16_t got = pg_get16(h + 10);

			pg_put16(h + 10, 0);
			assert_int_equal(got, pg_csum(h, 20));
		}
	}
}

/* csum_store: the complement of the folded sum; a computed 0 goes out as 0xffff (RFC 768). */
static void test_csum_store(void **state)
{
	uint8_t f[2];
	const uint8_t w[2] = { 0x12, 0x34 };

	(void)state;
	csum_store(f, csum_partial(w, 2, 0));
	assert_int_equal(pg_get16(f), 0xedcb);
	/* A sum of 0xffff checksums to 0: TCP and ICMP send 0, UDP 0xffff (RFC 768). */
	csum_store(f, csum_partial((const uint8_t[]){ 0xff, 0xff }, 2, 0));
	assert_int_equal(pg_get16(f), 0x0000);
	csum_store_udp(f, csum_partial((const uint8_t[]){ 0xff, 0xff }, 2, 0));
	assert_int_equal(pg_get16(f), 0xffff);
	csum_store(f, csum_partial((const uint8_t[]){ 0xf0, 0x00, 0x0f, 0xff }, 4, 0));
	assert_int_equal(pg_get16(f), 0x0000);
	csum_store_udp(f, csum_partial((const uint8_t[]){ 0xf0, 0x00, 0x0f, 0xff }, 4, 0));
	assert_int_equal(pg_get16(f), 0xffff);
	csum_store_udp(f, csum_partial(w, 2, 0));
	assert_int_equal(pg_get16(f), 0xedcb);
}

/* Pseudo-headers, RFC 9293 3.1 (IPv4) and RFC 8200 8.1 (IPv6, 32-bit length). */
static void test_csum_pseudo(void **state)
{
	uint32_t seed = 9293;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		uint8_t a[16], b[16];
		uint8_t proto = (uint8_t)pg_rand(&seed);
		uint32_t len4 = pg_rand(&seed) & 0xffff;
		uint32_t len6 = i % 2 ? pg_rand(&seed) : pg_rand(&seed) & 0xffff;

		for (int k = 0; k < 16; k++) {
			a[k] = (uint8_t)pg_rand(&seed);
			b[k] = (uint8_t)pg_rand(&seed);
		}
		assert_int_equal(be(csum_pseudo4(a, b, proto, len4)),
				 pg_fold(pg_pseudo4(pg_get32(a), pg_get32(b), proto, (uint16_t)len4)));
		assert_int_equal(be(csum_pseudo6(a, b, proto, len6)),
				 pg_fold(pg_pseudo6(a, b, proto, len6)));
	}
}

/* csum_pseudo_ip picks the pseudo-header by the version of the header it is given. */
static void test_csum_pseudo_ip(void **state)
{
	uint8_t h4[20] = { 0x45 }, h6[40] = { 0x60 };

	(void)state;
	for (int k = 0; k < 8; k++)
		h4[12 + k] = (uint8_t)(0x11 * (k + 1));
	for (int k = 0; k < 32; k++)
		h6[8 + k] = (uint8_t)(0x07 * (k + 3));
	assert_int_equal(be(csum_pseudo_ip(h4, 6, 1480)),
			 pg_fold(pg_pseudo4(pg_get32(h4 + 12), pg_get32(h4 + 16), 6, 1480)));
	assert_int_equal(be(csum_pseudo_ip(h6, 17, 70000)), pg_fold(pg_pseudo6(h6 + 8, h6 + 24, 17, 70000)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_rfc1071_example),
		cmocka_unit_test(test_csum_partial_vs_reference),
		cmocka_unit_test(test_csum_partial_long),
		cmocka_unit_test(test_csum_partial_chain),
		cmocka_unit_test(test_ip4_hdr_csum_known),
		cmocka_unit_test(test_ip4_hdr_csum_random),
		cmocka_unit_test(test_csum_replace16_rfc1624),
		cmocka_unit_test(test_csum_replace16_vs_recompute),
		cmocka_unit_test(test_csum_store),
		cmocka_unit_test(test_csum_pseudo),
		cmocka_unit_test(test_csum_pseudo_ip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
