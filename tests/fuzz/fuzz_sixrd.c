/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the automatic tunnels (src/core/sixrd.h) and their command grammars
 * (src/proto/sixrd_cmd.h, modes 1 and 2).
 *
 * Input: [0] & 3 selects
 *	0  binary: [1] prefixlen, [2] relay_prefixlen, [3..18] prefix, [19..22] relay prefix,
 *	   [23..38] an IPv6 address, [39..42] an IPv4 address, then (zero-padded) inner
 *	   source, inner destination, next hop (16 each), outer source and destination (4
 *	   each), a flag byte (bit 0 ISATAP, bit 1 remote set, bit 2 no next hop)
 *	1  `ip tunnel 6rd` arguments, split on NUL bytes
 *	2  `ip tunnel prl` arguments, split on NUL bytes
 *	3  PRL operations, 2 bytes each: op, last octet of 192.0.2.x (0 = 0.0.0.0)
 *
 * Checked: the setter accepts exactly the kernel's rule (relay_prefixlen <= 32, prefixlen
 * + 32 - relay_prefixlen <= 64, no bit set past either length: checked bit by bit here) and
 * leaves the parameters untouched when it refuses; mapping then inverse gives back the
 * address's bits, inverse then mapping the IPv4 address under the relay prefix; the
 * spoofing verdicts agree with is_spoofed_6rd; an automatic destination is never 0; the
 * parsers return 0 with values in range or -1 with one non-empty line; the PRL behaves as
 * a model set of 256 addresses.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/sixrd.h"
#include "proto/sixrd_cmd.h"
#include "core/wire.h"
#include "fuzz.h"

enum { MAX_ARGS = 32, ERR_LEN = 256, BIN_LEN = 43 + 16 * 3 + 4 * 2 + 1 };

static unsigned bit(const uint8_t *a, unsigned i)
{
	return (a[i / 8] >> (7 - i % 8)) & 1u;
}

static bool rule(const uint8_t prefix[16], unsigned pl, uint32_t relay, unsigned rl)
{
	if (rl > 32 || pl + 32 - rl > 64)
		return false;
	for (unsigned i = pl; i < 128; i++)
		if (bit(prefix, i))
			return false;
	for (unsigned i = rl; i < 32; i++)
		if ((relay >> (31 - i)) & 1)
			return false;
	return true;
}

static void fuzz_binary(const uint8_t *in)
{
	const uint8_t *p = in + 3, *a6 = in + 23, *isrc = in + 43, *idst = in + 59, *nh = in + 75;
	unsigned pl = in[1], rl = in[2];
	uint32_t relay = rd32(in + 19), a4 = rd32(in + 39), osrc = rd32(in + 91), odst = rd32(in + 95);
	uint8_t flags = in[99], out[16];
	struct sitd_6rd r, before;
	struct sitd_if6 addrs[1];
	struct sitd_auto t;
	uint32_t got, dst;
	unsigned n;
	int rc;

	sitd_6rd_reset(&r);
	before = r;
	rc = sitd_6rd_set(&r, p, pl, relay, rl);
	CHECK((rc == SITD_6RD_OK) == rule(p, pl, relay, rl));
	if (rc != SITD_6RD_OK) {
		CHECK(rc < 0);
		CHECK(!memcmp(&r, &before, sizeof(r)));
	}
	n = 32 - r.relay_prefixlen;

	/* Inverse then mapping: the IPv4 address's low bits under the relay prefix. */
	CHECK(sitd_6rd_delegated(&r, a4, out) == r.prefixlen + n);
	for (unsigned i = r.prefixlen + n; i < 128; i++)
		CHECK(!bit(out, i));
	CHECK(sitd_6rd_v4(&r, out, &got));
	CHECK(got == (r.relay_prefix | (n == 32 ? a4 : a4 & ((1u << n) - 1))));

	/* Mapping then inverse: the address's first prefixlen + n bits come back. */
	if (sitd_6rd_v4(&r, a6, &got)) {
		CHECK(sitd_ip6_prefix_equal(a6, r.prefix, r.prefixlen));
		CHECK((got & ~(n == 32 ? 0xffffffffu : (1u << n) - 1)) == r.relay_prefix);
		sitd_6rd_delegated(&r, got, out);
		CHECK(sitd_ip6_prefix_equal(a6, out, r.prefixlen + n));
		CHECK(sitd_6rd_dst(&r, a6) == got);
	} else {
		CHECK(!sitd_ip6_prefix_equal(a6, r.prefix, r.prefixlen));
		CHECK(sitd_6rd_dst(&r, a6) == 0);
	}

	/* The receive checks and the destination. */
	memcpy(addrs[0].addr, a6, 16);
	addrs[0].plen = (uint8_t)(in[1] % 129);
	memset(&t, 0, sizeof(t));
	t.rd = &r;
	t.addrs = addrs;
	t.naddrs = 1;
	t.isatap = flags & 1;
	t.remote = flags & 2 ? a4 : 0;
	{
		enum sitd_isatap_node node;
		enum sitd_spoof v = sitd_packet_is_spoofed(&t, osrc, odst, isrc, idst, &node);

		if (t.isatap) {
			CHECK((v == SITD_SPOOF_ISATAP_SRC) == (node == SITD_ISATAP_REFUSED));
			CHECK(v == SITD_SPOOF_OK || v == SITD_SPOOF_ISATAP_SRC);
		} else if (t.remote) {
			CHECK(v == SITD_SPOOF_OK);
		} else {
			CHECK((v == SITD_SPOOF_SRC) == sitd_6rd_is_spoofed(&r, osrc, isrc));
			if (v == SITD_SPOOF_DST)
				CHECK(sitd_6rd_is_spoofed(&r, odst, idst) && !sitd_6rd_only_dnatted(&t, idst));
			if (v == SITD_SPOOF_OK)
				CHECK(!sitd_6rd_is_spoofed(&r, odst, idst) || sitd_6rd_only_dnatted(&t, idst));
		}
	}
	switch (sitd_auto_tx_dst(&t, idst, flags & 4 ? NULL : nh, &dst)) {
	case SITD_DST_OK:
		CHECK(dst != 0);
		if (!t.isatap && t.remote)
			CHECK(dst == t.remote);
		break;
	case SITD_DST_NO_NEXTHOP:
		CHECK(flags & 4);
		CHECK(dst == 0);
		break;
	case SITD_DST_NOT_ISATAP:
		CHECK(t.isatap && !(flags & 4));
		CHECK(dst == 0);
		break;
	case SITD_DST_NOT_V4COMPAT:
		CHECK(dst == 0);
		break;
	}
}

static int split(const uint8_t *data, size_t size, char *buf, const char **argv)
{
	int argc = 0;
	size_t start = 0;

	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size && argc < MAX_ARGS; i++) {
		if (i == size || buf[i] == '\0') {
			if (i == size && i == start)
				break;	/* a trailing NUL ends the last argument */
			buf[i] = '\0';
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	return argc;
}

static void check_err(int rc, const char *err)
{
	CHECK(rc == -1);
	CHECK(err[0] != '\0');
	CHECK(strlen(err) < ERR_LEN);
	CHECK(!strchr(err, '\n'));
}

static void fuzz_6rd_parse(const uint8_t *data, size_t size)
{
	static char buf[4097];
	const char *argv[MAX_ARGS];
	char err[ERR_LEN];
	struct sitd_6rd_cmd cmd;
	struct sitd_6rd r;
	int argc, rc;

	if (size > 4096)
		return;
	argc = split(data, size, buf, argv);
	rc = sitd_6rd_parse(argc, argv, &cmd, err, sizeof(err));
	if (rc) {
		check_err(rc, err);
		return;
	}
	CHECK(cmd.dev[0] && strlen(cmd.dev) < SITD_IFNAMSIZ);
	CHECK(cmd.op == SITD_6RD_OP_SET || cmd.op == SITD_6RD_OP_RESET);
	CHECK(cmd.prefixlen <= 128 && cmd.relay_prefixlen <= 32);
	sitd_6rd_reset(&r);
	rc = sitd_6rd_apply(&r, &cmd);
	if (cmd.op == SITD_6RD_OP_SET)
		CHECK((rc == SITD_6RD_OK) ==
		      rule(cmd.prefix, cmd.prefixlen, cmd.relay_prefix, cmd.relay_prefixlen));
	else
		CHECK(rc == SITD_6RD_OK && r.prefixlen == 16);
}

static void fuzz_prl_parse(const uint8_t *data, size_t size)
{
	static char buf[4097];
	const char *argv[MAX_ARGS];
	char err[ERR_LEN];
	struct sitd_prl_cmd cmd;
	int argc, rc;

	if (size > 4096)
		return;
	argc = split(data, size, buf, argv);
	rc = sitd_prl_parse(argc, argv, &cmd, err, sizeof(err));
	if (rc) {
		check_err(rc, err);
		return;
	}
	CHECK(cmd.dev[0] && strlen(cmd.dev) < SITD_IFNAMSIZ);
	CHECK(cmd.op == SITD_PRL_OP_ADD || cmd.op == SITD_PRL_OP_DEL);
	CHECK(cmd.flags == 0 || (cmd.flags == SITD_PRL_DEFAULT && cmd.op == SITD_PRL_OP_ADD));
}

static void fuzz_prl_ops(const uint8_t *data, size_t size)
{
	enum { CAP = 8 };
	struct sitd_prl_entry st[CAP], out[CAP + 1];
	struct sitd_prl p;
	int model[256];		/* -1 absent, else the flags */
	unsigned count = 0;

	sitd_prl_init(&p, st, CAP);
	for (int i = 0; i < 256; i++)
		model[i] = -1;
	for (size_t i = 0; i + 1 < size; i += 2) {
		unsigned op = data[i] % 4, x = data[i + 1];
		uint32_t addr = x ? 0xc0000200u | x : 0;
		uint16_t fl = data[i] & 0x10 ? SITD_PRL_DEFAULT : 0;
		int want, rc;

		if (op == 3) {
			want = !x ? 0 : model[x] < 0 ? -ENXIO : 0;
			rc = sitd_prl_del(&p, addr);
			if (!x) {
				for (int k = 0; k < 256; k++)
					model[k] = -1;
				count = 0;
			} else if (model[x] >= 0) {
				model[x] = -1;
				count--;
			}
		} else {
			bool chg = op == 2;

			want = !x ? -EINVAL : model[x] >= 0 ? (chg ? 0 : -EEXIST) :
			       chg ? -ENXIO : count >= CAP ? -ENOBUFS : 0;
			rc = sitd_prl_add(&p, addr, fl, chg);
			if (!want) {
				if (model[x] < 0)
					count++;
				model[x] = fl;
			}
		}
		CHECK(rc == want);
		CHECK(p.n == count);
	}
	for (unsigned x = 1; x < 256; x++) {
		const struct sitd_prl_entry *e = sitd_prl_find(&p, 0xc0000200u | x);

		CHECK((e != NULL) == (model[x] >= 0));
		if (e)
			CHECK(e->flags == model[x]);
	}
	CHECK(sitd_prl_get(&p, 0, out, CAP + 1) == count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t bin[BIN_LEN];

	if (size < 1)
		return -1;
	switch (data[0] & 3) {
	case 0:
		memset(bin, 0, sizeof(bin));
		memcpy(bin, data, size < sizeof(bin) ? size : sizeof(bin));
		fuzz_binary(bin);
		break;
	case 1:
		fuzz_6rd_parse(data + 1, size - 1);
		break;
	case 2:
		fuzz_prl_parse(data + 1, size - 1);
		break;
	default:
		fuzz_prl_ops(data + 1, size - 1);
		break;
	}
	return 0;
}
