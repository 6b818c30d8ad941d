/* SPDX-License-Identifier: MIT */
/*
 * The -R ring filters (sitd_bpf_ring / sitd_bpf_raw), run by a small classic-BPF
 * interpreter written here from filter(7) for the instructions they may use, against
 * outer IPv4 headers: the ring takes protocol P with DF, not a fragment, not outgoing,
 * to one of the locals; the raw socket takes every other packet of P; never both.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <linux/if_packet.h>
#include <string.h>

#include "pktgen.h"
#include "core/bpf.h"

static struct sock_filter prog[SITD_BPF_MAX];

/* Run f on the IPv4 header at ip (len bytes) with this pkttype; returns what it returns. */
static uint32_t run(const struct sock_filter *f, unsigned n, const uint8_t *ip, size_t len, uint32_t pkttype)
{
	uint32_t a = 0;

	for (unsigned pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t off;

		switch (i->code) {
		case BPF_LD | BPF_B | BPF_ABS:
		case BPF_LD | BPF_H | BPF_ABS:
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k == (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE)) {
				assert_int_equal(BPF_SIZE(i->code), BPF_W);
				a = pkttype;
				break;
			}
			/* Only network-relative loads: the programs must not depend on the link. */
			assert_true(i->k >= (uint32_t)SKF_NET_OFF && i->k < (uint32_t)SKF_NET_OFF + 60);
			off = i->k - (uint32_t)SKF_NET_OFF;
			if (BPF_SIZE(i->code) == BPF_B) {
				if (off + 1 > len)
					return 0;
				a = ip[off];
			} else if (BPF_SIZE(i->code) == BPF_H) {
				if (off + 2 > len)
					return 0;
				a = pg_get16(ip + off);
			} else {
				if (off + 4 > len)
					return 0;
				a = pg_get32(ip + off);
			}
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & i->k) ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			fail_msg("instruction %u: code 0x%x not expected", pc, i->code);
		}
	}
	fail_msg("ran off the end of the program");
	return 0;
}

static const uint32_t locals[] = { 0xc6336401u, 0xc0000202u, 0xcb007101u };	/* doc addresses */

static size_t hdr_len(uint8_t *p, uint8_t proto, uint16_t frag, uint32_t dst, uint16_t len)
{
	pg_ip4(p, 0, len, 1, frag, 64, proto, 0xcb007102u, dst, 0);
	return 20;
}

static size_t hdr(uint8_t *p, uint8_t proto, uint16_t frag, uint32_t dst)
{
	return hdr_len(p, proto, frag, dst, 1500);
}

struct split_case {
	const char *name;
	uint8_t proto;
	uint16_t frag;
	uint32_t dst;
	uint32_t pkttype;
	bool ring, raw;		/* expected: taken by the ring, by the raw socket */
	uint16_t len;		/* outer total length; 0: 1500 */
};

static const struct split_case split_cases[] = {
	{ "DF to a local: the ring", 41, PG_IP4_DF, 0xc0000202u, PACKET_HOST, true, false, 0 },
	{ "DF to the last local: the ring", 41, PG_IP4_DF, 0xcb007101u, PACKET_HOST, true, false, 0 },
	{ "no DF: the raw socket", 41, 0, 0xc0000202u, PACKET_HOST, false, true, 0 },
	{ "first fragment (MF): the raw socket, reassembled", 41, PG_IP4_MF, 0xc0000202u, PACKET_HOST, false, true, 0 },
	{ "later fragment with DF set: the raw socket", 41, PG_IP4_DF | 185, 0xc0000202u, PACKET_HOST, false, true, 0 },
	{ "DF to another address (local any): the raw socket", 41, PG_IP4_DF, 0xc0000263u, PACKET_HOST, false, true, 0 },
	{ "the ring of protocol 41 takes no protocol 4", 4, PG_IP4_DF, 0xc0000202u, PACKET_HOST, false, true, 0 },
	{ "outgoing (loopback, a local sender): not the ring", 41, PG_IP4_DF, 0xc0000202u, PACKET_OUTGOING, false,
	  false, 0 },
	{ "128 bytes (a pure ACK, a ping): the raw socket, at once", 41, PG_IP4_DF, 0xc0000202u, PACKET_HOST,
	  false, true, 128 },
	{ "129 bytes: the ring", 41, PG_IP4_DF, 0xc0000202u, PACKET_HOST, true, false, 129 },
};

static void test_split(void **state)
{
	const struct split_case *c = *state;
	uint8_t p[20];
	unsigned n;

	hdr_len(p, c->proto, c->frag, c->dst, c->len ? c->len : 1500);
	n = sitd_bpf_ring(prog, SITD_BPF_MAX, 41, locals, 3);
	assert_int_equal(n, 15 + 2 * 3 + 1);
	assert_int_equal(run(prog, n, p, sizeof(p), c->pkttype), c->ring ? SITD_BPF_ACCEPT : 0);
	/* The raw socket has only its own protocol and incoming packets. */
	if (c->proto == 41 && c->pkttype != PACKET_OUTGOING) {
		n = sitd_bpf_raw(prog, SITD_BPF_MAX, locals, 3);
		assert_int_equal(n, 9 + 2 * 3 + 1);
		assert_int_equal(run(prog, n, p, sizeof(p), c->pkttype), c->raw ? SITD_BPF_ACCEPT : 0);
	}
}

/* Random headers, many locals (jumps stay short): exactly one of the two takes each. */
static void test_complement(void **state)
{
	static uint32_t many[1500];
	static struct sock_filter ring[SITD_BPF_MAX], raw[SITD_BPF_MAX];
	uint32_t seed = 7;
	unsigned nr, nw, taken_ring = 0;

	(void)state;
	for (unsigned i = 0; i < 1500; i++)
		many[i] = 0xc0000000u + i * 3;
	nr = sitd_bpf_ring(ring, SITD_BPF_MAX, 4, many, 1500);
	nw = sitd_bpf_raw(raw, SITD_BPF_MAX, many, 1500);
	assert_true(nr > 0 && nw > 0);
	for (unsigned k = 0; k < 20000; k++) {
		uint8_t p[20];
		uint32_t r = pg_rand(&seed);
		uint16_t frag = (uint16_t)((r & 1 ? PG_IP4_DF : 0) | (r & 2 ? PG_IP4_MF : 0) | (r & 4 ? (r >> 8) & 0x1fff : 0));
		uint32_t dst = 0xc0000000u + (pg_rand(&seed) % 5000);
		bool a, b;

		hdr_len(p, 4, frag, dst, (uint16_t)(r & 8 ? 20 + (r >> 20) % 200 : 1500));
		a = run(ring, nr, p, sizeof(p), PACKET_HOST) != 0;
		b = run(raw, nw, p, sizeof(p), PACKET_HOST) != 0;
		assert_true(a != b);
		taken_ring += a;
	}
	assert_true(taken_ring > 200 && taken_ring < 19800);	/* both sides were exercised (about 4 % to the ring) */
}

/* Too many locals for BPF_MAXINSNS: 0, and nothing written past cap. */
static void test_too_big(void **state)
{
	static uint32_t many[2100];
	static struct sock_filter small[20];

	(void)state;
	assert_int_equal(sitd_bpf_ring(prog, SITD_BPF_MAX, 41, many, 2100), 0);
	assert_int_equal(sitd_bpf_raw(prog, SITD_BPF_MAX, many, 2100), 0);
	assert_int_equal(sitd_bpf_ring(small, 20, 41, many, 3), 0);	/* needs 22 */
	assert_int_equal(sitd_bpf_ring(small, 20, 41, many, 2), 20);
	assert_int_equal(sitd_bpf_raw(small, 20, many, 6), 0);	/* needs 22 */
	assert_int_equal(sitd_bpf_raw(small, 20, many, 5), 20);
	/* No locals: the ring takes nothing, the raw socket everything. */
	{
		uint8_t p[20];
		unsigned n;

		hdr(p, 41, PG_IP4_DF, locals[0]);
		n = sitd_bpf_ring(prog, SITD_BPF_MAX, 41, NULL, 0);
		assert_int_equal(run(prog, n, p, sizeof(p), PACKET_HOST), 0);
		n = sitd_bpf_raw(prog, SITD_BPF_MAX, NULL, 0);
		assert_int_equal(run(prog, n, p, sizeof(p), PACKET_HOST), SITD_BPF_ACCEPT);
	}
}

int main(void)
{
	struct CMUnitTest tests[sizeof(split_cases) / sizeof(split_cases[0]) + 2];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++)
		tests[n++] = (struct CMUnitTest){ .name = split_cases[i].name, .test_func = test_split,
						  .initial_state = (void *)(uintptr_t)&split_cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_complement);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_too_big);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
