/* SPDX-License-Identifier: MIT */
/*
 * The control protocol's requests (request.h): what each kind accepts, what is refused
 * and with which message, the line the client sends for it, and the subcommand table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "proto/request.h"

struct ok_case {
	const char *line;
	enum sitd_req kind;
	bool stats, json;
	const char *name;
	const char *formatted;
};

static const struct ok_case oks[] = {
	{ "show", SITD_REQ_SHOW, false, false, "", "show" },
	{ "show -s", SITD_REQ_SHOW, true, false, "", "show -s" },
	{ "show -j -s sit1", SITD_REQ_SHOW, true, true, "sit1", "show -s -j sit1" },
	{ "show he-ipv6 -j", SITD_REQ_SHOW, false, true, "he-ipv6", "show -j he-ipv6" },
	{ "  show   -s  ", SITD_REQ_SHOW, true, false, "", "show -s" },
	{ "show 123456789012345", SITD_REQ_SHOW, false, false, "123456789012345", "show 123456789012345" },
	{ "status", SITD_REQ_STATUS, false, false, "", "status" },
	{ "status -j", SITD_REQ_STATUS, false, true, "", "status -j" },
	{ "reload", SITD_REQ_RELOAD, false, false, "", "reload" },
	{ "sandbox", SITD_REQ_SANDBOX, false, false, "", "sandbox" },
	{ "monitor", SITD_REQ_MONITOR, false, false, "", "monitor" },
	{ "monitor -j", SITD_REQ_MONITOR, false, true, "", "monitor -j" },
	{ "6rd dev sit1 6rd-relay_prefix 198/8", SITD_REQ_6RD, false, false, "",
	  "6rd dev sit1 6rd-prefix ::/0 6rd-relay_prefix 198.0.0.0/8" },
	{ "6rd dev sit1 6rd-reset", SITD_REQ_6RD, false, false, "", "6rd dev sit1 6rd-reset" },
	{ "prl dev isatap0 prl-default 192.0.2.254", SITD_REQ_PRL, false, false, "",
	  "prl dev isatap0 prl-default 192.0.2.254" },
	{ "prl dev isatap0 prl-delete any", SITD_REQ_PRL, false, false, "",
	  "prl dev isatap0 prl-delete 0.0.0.0" },
	{ "metrics", SITD_REQ_METRICS, false, false, "", "metrics" },
};

static void accepted(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(oks) / sizeof(oks[0]); i++) {
		struct sitd_request r;
		char err[128], line[96];

		assert_int_equal(sitd_request_parse(oks[i].line, strlen(oks[i].line), &r, err, sizeof(err)), 0);
		assert_int_equal(r.kind, oks[i].kind);
		assert_int_equal(r.stats, oks[i].stats);
		assert_int_equal(r.json, oks[i].json);
		assert_string_equal(r.name, oks[i].name);
		assert_int_equal(sitd_request_format(&r, line, sizeof(line)), strlen(oks[i].formatted));
		assert_string_equal(line, oks[i].formatted);
	}
}

static const struct {
	const char *line;
	size_t len;		/* 0: strlen */
	const char *err;
} bads[] = {
	{ "", 0, "empty request" },
	{ "   ", 0, "empty request" },
	{ "shw", 0, "unknown request \"shw\"" },
	{ "SHOW", 0, "unknown request \"SHOW\"" },
	{ "show -x", 0, "unexpected \"-x\"" },
	{ "show -sj", 0, "unexpected \"-sj\"" },
	{ "show a b", 0, "unexpected \"b\"" },
	{ "show 1234567890123456", 0, "unexpected \"1234567890123456\"" },	/* 16 bytes */
	{ "show a/b", 0, "unexpected \"a/b\"" },
	{ "show a:b", 0, "unexpected \"a:b\"" },
	{ "show ..", 0, "unexpected \"..\"" },
	{ "show a\tb", 0, "unexpected \"a\tb\"" },
	{ "status -s", 0, "unexpected \"-s\"" },
	{ "status sit1", 0, "unexpected \"sit1\"" },
	{ "reload now", 0, "unexpected \"now\"" },
	{ "sandbox -j", 0, "unexpected \"-j\"" },
	{ "monitor -s", 0, "unexpected \"-s\"" },
	{ "monitor sit1", 0, "unexpected \"sit1\"" },
	{ "metrics -j", 0, "unexpected \"-j\"" },	/* one format: Prometheus' text */
	{ "metrics sit1", 0, "unexpected \"sit1\"" },
	{ "show\0sit1", 9, "unknown request \"show\"" },
	{ "6rd 6rd-reset", 0, NULL },
	{ "prl dev isatap0", 0, NULL },
};

static void refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct sitd_request r;
		char err[128];
		size_t len = bads[i].len ? bads[i].len : strlen(bads[i].line);

		assert_int_equal(sitd_request_parse(bads[i].line, len, &r, err, sizeof(err)), -1);
		if (bads[i].err)	/* NULL: sixrd.c's message, tested there */
			assert_string_equal(err, bads[i].err);
		else
			assert_true(err[0] != '\0');
	}
}

/* A cut error buffer stays a string; a cut line too. */
static void small_buffers(void **state)
{
	struct sitd_request r;
	char err[8], line[6];

	(void)state;
	assert_int_equal(sitd_request_parse("nonsense", 8, &r, err, sizeof(err)), -1);
	assert_int_equal(strlen(err), 7);
	assert_int_equal(sitd_request_parse("show -s", 7, &r, err, sizeof(err)), 0);
	assert_int_equal(sitd_request_format(&r, line, sizeof(line)), 5);
	assert_string_equal(line, "show ");
}

/*
 * The subcommand table: every kind has its entry at its own index, a name the parser
 * takes and the finder gives back, and a usage for --help; the ones that change
 * something are root only, the others not.
 */
static void table(void **state)
{
	static const bool root[SITD_REQ_COUNT] = { [SITD_REQ_RELOAD] = true, [SITD_REQ_SANDBOX] = true,
						   [SITD_REQ_6RD] = true,
						   [SITD_REQ_PRL] = true };

	(void)state;
	for (size_t k = 0; k < SITD_REQ_COUNT; k++) {
		const struct sitd_request_cmd *cmd = &sitd_request_cmds[k];
		struct sitd_request r;
		char err[128];

		assert_non_null(cmd->name);
		assert_non_null(cmd->usage);
		assert_non_null(cmd->flags);
		assert_int_equal(cmd->kind, k);
		assert_int_equal(cmd->root_only, root[k]);
		assert_ptr_equal(sitd_request_cmd_find(cmd->name, strlen(cmd->name)), cmd);
		/* 6rd and prl need their words: the name alone is refused, as that kind. */
		if (k == SITD_REQ_6RD || k == SITD_REQ_PRL) {
			assert_int_equal(sitd_request_parse(cmd->name, strlen(cmd->name), &r, err,
							    sizeof(err)), -1);
			assert_int_equal(r.kind, k);
		} else {
			assert_int_equal(sitd_request_parse(cmd->name, strlen(cmd->name), &r, err,
							    sizeof(err)), 0);
			assert_int_equal(r.kind, k);
		}
	}
	assert_null(sitd_request_cmd_find("sho", 3));
	assert_null(sitd_request_cmd_find("shows", 5));
	assert_null(sitd_request_cmd_find("", 0));
	assert_ptr_equal(sitd_request_cmd_find("status -j", 6), &sitd_request_cmds[SITD_REQ_STATUS]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepted),
		cmocka_unit_test(refused),
		cmocka_unit_test(small_buffers),
		cmocka_unit_test(table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
