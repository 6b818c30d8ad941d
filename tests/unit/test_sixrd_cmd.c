/* SPDX-License-Identifier: MIT */
/*
 * The `ip tunnel 6rd` / `ip tunnel prl` grammars (proto/sixrd_cmd.h): what they accept and
 * refuse, and a parsed command applied by core/sixrd.h's setters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "core/sixrd.h"
#include "core/wire.h"
#include "proto/sixrd_cmd.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define A(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static void v6(const char *s, uint8_t out[16])
{
	if (inet_pton(AF_INET6, s, out) != 1)
		fail_msg("bad test address %s", s);
}

static uint32_t v4(const char *s)
{
	uint8_t b[4];

	if (inet_pton(AF_INET, s, b) != 1)
		fail_msg("bad test address %s", s);
	return rd32(b);
}

/* ---- The grammars ---- */

#define ARGS(...) ((const char *const[]){ __VA_ARGS__ })
#define NARGS(...) ((int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)))
#define LINE(...) NARGS(__VA_ARGS__), ARGS(__VA_ARGS__)

struct rd_good {
	int argc;
	const char *const *argv;
	enum sitd_6rd_op op;
	const char *prefix;
	unsigned pl;
	const char *relay;
	unsigned rl;
};

static const struct rd_good rd_good[] = {
	{ LINE("dev", "sit1", "6rd-prefix", "2001:db8::/32"), SITD_6RD_OP_SET, "2001:db8::", 32,
	  "0.0.0.0", 0 },
	{ LINE("6rd-prefix", "2001:db8::/32", "6rd-relay_prefix", "198.0.0.0/8", "dev", "sit1"),
	  SITD_6RD_OP_SET, "2001:db8::", 32, "198.0.0.0", 8 },
	/* Only the relay: the prefix becomes ::/0 (iproute2 zeroes the whole struct). */
	{ LINE("dev", "t", "6rd-relay_prefix", "198.0.0.0/255.0.0.0"), SITD_6RD_OP_SET, "::", 0,
	  "198.0.0.0", 8 },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::"), SITD_6RD_OP_SET, "2001:db8::", 128, "0.0.0.0", 0 },
	{ LINE("dev", "t", "6rd-prefix", "any"), SITD_6RD_OP_SET, "::", 0, "0.0.0.0", 0 },
	{ LINE("dev", "t", "6rd-prefix", "default"), SITD_6RD_OP_SET, "::", 0, "0.0.0.0", 0 },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::/0x20"), SITD_6RD_OP_SET, "2001:db8::", 32,
	  "0.0.0.0", 0 },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::/040"), SITD_6RD_OP_SET, "2001:db8::", 32,
	  "0.0.0.0", 0 },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::1/32"), SITD_6RD_OP_SET, "2001:db8::1", 32,
	  "0.0.0.0", 0 },	/* kept as written: the setter refuses it */
	{ LINE("dev", "t", "6rd-relay_prefix", "198/8"), SITD_6RD_OP_SET, "::", 0, "198.0.0.0", 8 },
	{ LINE("dev", "t", "6rd-relay_prefix", "0xc6.1.2.3"), SITD_6RD_OP_SET, "::", 0, "198.1.2.3", 32 },
	{ LINE("dev", "t", "6rd-relay_prefix", "any"), SITD_6RD_OP_SET, "::", 0, "0.0.0.0", 0 },
	{ LINE("dev", "t", "6rd-reset"), SITD_6RD_OP_RESET, "::", 0, "0.0.0.0", 0 },
	/* The last word decides the command, as iproute2's cmd variable. */
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::/32", "6rd-reset"), SITD_6RD_OP_RESET,
	  "2001:db8::", 32, "0.0.0.0", 0 },
	{ LINE("6rd-reset", "6rd-prefix", "2002::/16", "dev", "t"), SITD_6RD_OP_SET, "2002::", 16,
	  "0.0.0.0", 0 },
	{ LINE("dev", "a", "dev", "t", "6rd-prefix", "2001:db8::/32", "6rd-prefix", "2002::/16"),
	  SITD_6RD_OP_SET, "2002::", 16, "0.0.0.0", 0 },
};

struct bad {
	int argc;
	const char *const *argv;
	const char *names;	/* the error must contain this */
};

static const struct bad rd_bad[] = {
	{ 0, NULL, "dev NAME" },
	{ LINE("dev", "t"), "nothing to do" },
	{ LINE("6rd-prefix"), "\"6rd-prefix\" needs a value" },
	{ LINE("dev"), "\"dev\" needs a value" },
	{ LINE("dev", "t", "6rd-relay_prefix"), "\"6rd-relay_prefix\" needs a value" },
	{ LINE("dev", "t", "6rd-prefix", "198.0.0.0/8"), "\"198.0.0.0/8\"" },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::/129"), "\"2001:db8::/129\"" },
	{ LINE("dev", "t", "6rd-prefix", "any/16"), "\"any/16\"" },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::/x"), "\"2001:db8::/x\"" },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8::/255.0.255.0"), "\"2001:db8::/255.0.255.0\"" },
	{ LINE("dev", "t", "6rd-prefix", "2001:db8:::/32"), "\"2001:db8:::/32\"" },
	{ LINE("dev", "t", "6rd-prefix", ""), "6rd-prefix" },
	{ LINE("dev", "t", "6rd-relay_prefix", "198.0.0.0/33"), "\"198.0.0.0/33\"" },
	{ LINE("dev", "t", "6rd-relay_prefix", "2001:db8::/32"), "\"2001:db8::/32\"" },
	{ LINE("dev", "t", "6rd-relay_prefix", "256.0.0.0"), "\"256.0.0.0\"" },
	{ LINE("dev", "t", "6rd-relay_prefix", "1.2.3.4.5"), "\"1.2.3.4.5\"" },
	{ LINE("dev", "t", "6rd-relay_prefix", "1..2"), "\"1..2\"" },
	{ LINE("dev", "t", "6rd-relay-prefix", "198.0.0.0/8"), "\"6rd-relay-prefix\"" },
	{ LINE("dev", "t", "6rd-pre", "2002::/16"), "\"6rd-pre\"" },	/* no prefix matching */
	{ LINE("dev", "a/b", "6rd-reset"), "\"a/b\"" },
	{ LINE("dev", "", "6rd-reset"), "\"dev\"" },
	{ LINE("dev", "0123456789abcdef", "6rd-reset"), "\"0123456789abcdef\"" },
	{ LINE("dev", "..", "6rd-reset"), "\"..\"" },
};

static void check_err(const char *err, const char *names)
{
	if (!strstr(err, names))
		fail_msg("error \"%s\" does not name %s", err, names);
	assert_null(strchr(err, '\n'));
	assert_true(strlen(err) > 0);
}

static void test_6rd_parse(void **state)
{
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rd_good); i++) {
		const struct rd_good *g = &rd_good[i];
		struct sitd_6rd_cmd cmd;
		uint8_t p[16];

		if (sitd_6rd_parse(g->argc, g->argv, &cmd, err, sizeof(err)) != 0)
			fail_msg("good %zu refused: %s", i, err);
		v6(g->prefix, p);
		assert_int_equal(cmd.op, g->op);
		assert_memory_equal(cmd.prefix, p, 16);
		assert_int_equal(cmd.prefixlen, g->pl);
		assert_int_equal(cmd.relay_prefix, v4(g->relay));
		assert_int_equal(cmd.relay_prefixlen, g->rl);
		assert_true(cmd.dev[0] != '\0');
	}
	for (size_t i = 0; i < ARRAY_SIZE(rd_bad); i++) {
		struct sitd_6rd_cmd cmd;

		err[0] = '\0';
		if (sitd_6rd_parse(rd_bad[i].argc, rd_bad[i].argv, &cmd, err, sizeof(err)) != -1)
			fail_msg("bad %zu accepted", i);
		check_err(err, rd_bad[i].names);
	}
}

static void test_6rd_apply(void **state)
{
	struct sitd_6rd_cmd cmd;
	struct sitd_6rd r;
	char err[256];
	uint8_t a[16];

	(void)state;
	sitd_6rd_reset(&r);
	assert_int_equal(sitd_6rd_parse(LINE("dev", "t", "6rd-prefix", "2001:db8::/32",
					     "6rd-relay_prefix", "198.0.0.0/8"), &cmd, err, sizeof(err)), 0);
	assert_int_equal(sitd_6rd_apply(&r, &cmd), SITD_6RD_OK);
	v6("2001:db8:6464:100::1", a);
	assert_int_equal(sitd_6rd_dst(&r, a), A(198, 100, 100, 1));
	/* Accepted by the grammar, refused by the kernel's rules. */
	assert_int_equal(sitd_6rd_parse(LINE("dev", "t", "6rd-prefix", "2001:db8::1/32"), &cmd, err,
					sizeof(err)), 0);
	assert_int_equal(sitd_6rd_apply(&r, &cmd), SITD_6RD_EPREFIX);
	assert_int_equal(sitd_6rd_parse(LINE("dev", "t", "6rd-prefix", "2001:db8::"), &cmd, err,
					sizeof(err)), 0);
	assert_int_equal(sitd_6rd_apply(&r, &cmd), SITD_6RD_ELEN);
	assert_int_equal(sitd_6rd_dst(&r, a), A(198, 100, 100, 1));	/* unchanged */
	assert_int_equal(sitd_6rd_parse(LINE("dev", "t", "6rd-reset"), &cmd, err, sizeof(err)), 0);
	assert_int_equal(sitd_6rd_apply(&r, &cmd), SITD_6RD_OK);
	assert_int_equal(r.prefixlen, 16);
	assert_int_equal(sitd_6rd_dst(&r, a), 0);
}

struct prl_good {
	int argc;
	const char *const *argv;
	enum sitd_prl_op op;
	const char *addr;
	uint16_t flags;
};

static const struct prl_good prl_good[] = {
	{ LINE("prl-default", "192.0.2.1", "dev", "isa0"), SITD_PRL_OP_ADD, "192.0.2.1", SITD_PRL_DEFAULT },
	{ LINE("dev", "isa0", "prl-nodefault", "192.0.2.2"), SITD_PRL_OP_ADD, "192.0.2.2", 0 },
	{ LINE("dev", "isa0", "prl-delete", "192.0.2.1"), SITD_PRL_OP_DEL, "192.0.2.1", 0 },
	{ LINE("dev", "isa0", "prl-delete", "any"), SITD_PRL_OP_DEL, "0.0.0.0", 0 },
	{ LINE("dev", "isa0", "prl-default", "0"), SITD_PRL_OP_ADD, "0.0.0.0", SITD_PRL_DEFAULT },
	{ LINE("dev", "isa0", "prl-nodefault", "192.0x0.2.012"), SITD_PRL_OP_ADD, "192.0.2.10", 0 },
};

static const struct bad prl_bad[] = {
	{ 0, NULL, "dev NAME" },
	{ LINE("dev", "isa0"), "nothing to do" },
	{ LINE("prl-default", "192.0.2.1"), "dev NAME" },
	{ LINE("dev", "isa0", "prl-default", "192.0.2.1", "prl-delete", "192.0.2.2"), "\"prl-delete\"" },
	{ LINE("dev", "isa0", "prl-default", "192.0.2.1", "prl-default", "192.0.2.1"), "one PRL entry" },
	{ LINE("dev", "isa0", "prl-default", "2001:db8::1"), "\"2001:db8::1\"" },
	{ LINE("dev", "isa0", "prl-default", "192.0.2.1/32"), "\"192.0.2.1/32\"" },
	{ LINE("dev", "isa0", "prl-nodefault", "300.1.1.1"), "\"300.1.1.1\"" },
	{ LINE("dev", "isa0", "prl-add", "192.0.2.1"), "\"prl-add\"" },
	{ LINE("dev", "isa0", "prl-delete"), "\"prl-delete\" needs a value" },
	{ LINE("dev", "a b", "prl-delete", "any"), "\"a b\"" },
	{ LINE("dev", "isa0", "prl-delete", "1.2.3.4\n5"), "\"1.2.3.4?5\"" },	/* still one line */
};

static void test_prl_parse(void **state)
{
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(prl_good); i++) {
		struct sitd_prl_cmd cmd;

		if (sitd_prl_parse(prl_good[i].argc, prl_good[i].argv, &cmd, err, sizeof(err)) != 0)
			fail_msg("good %zu refused: %s", i, err);
		assert_int_equal(cmd.op, prl_good[i].op);
		assert_int_equal(cmd.addr, v4(prl_good[i].addr));
		assert_int_equal(cmd.flags, prl_good[i].flags);
		assert_string_equal(cmd.dev, "isa0");
	}
	for (size_t i = 0; i < ARRAY_SIZE(prl_bad); i++) {
		struct sitd_prl_cmd cmd;

		err[0] = '\0';
		if (sitd_prl_parse(prl_bad[i].argc, prl_bad[i].argv, &cmd, err, sizeof(err)) != -1)
			fail_msg("bad %zu accepted", i);
		check_err(err, prl_bad[i].names);
	}
}

static void test_prl_apply(void **state)
{
	struct sitd_prl_entry st[2];
	struct sitd_prl p;
	struct sitd_prl_cmd cmd;
	char err[256];

	(void)state;
	sitd_prl_init(&p, st, 2);
	assert_int_equal(sitd_prl_parse(LINE("dev", "i", "prl-default", "192.0.2.1"), &cmd, err, sizeof(err)), 0);
	assert_int_equal(sitd_prl_apply(&p, &cmd), 0);
	/* iproute2 sends SIOCADDPRL for both: changing the flag of an entry is EEXIST. */
	assert_int_equal(sitd_prl_parse(LINE("dev", "i", "prl-nodefault", "192.0.2.1"), &cmd, err, sizeof(err)), 0);
	assert_int_equal(sitd_prl_apply(&p, &cmd), -EEXIST);
	assert_int_equal(sitd_prl_find(&p, A(192, 0, 2, 1))->flags, SITD_PRL_DEFAULT);
	assert_int_equal(sitd_prl_parse(LINE("dev", "i", "prl-default", "any"), &cmd, err, sizeof(err)), 0);
	assert_int_equal(sitd_prl_apply(&p, &cmd), -EINVAL);
	assert_int_equal(sitd_prl_parse(LINE("dev", "i", "prl-delete", "192.0.2.9"), &cmd, err, sizeof(err)), 0);
	assert_int_equal(sitd_prl_apply(&p, &cmd), -ENXIO);
	assert_int_equal(sitd_prl_parse(LINE("dev", "i", "prl-delete", "all"), &cmd, err, sizeof(err)), 0);
	assert_int_equal(sitd_prl_apply(&p, &cmd), 0);
	assert_int_equal(p.n, 0);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_6rd_parse),
		cmocka_unit_test(test_6rd_apply),
		cmocka_unit_test(test_prl_parse),
		cmocka_unit_test(test_prl_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
