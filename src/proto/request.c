/* SPDX-License-Identifier: MIT */
/* The control protocol's requests (request.h): the subcommand table, the parser, the line. */
#include "proto/request.h"
#include "proto/sixrd_cmd.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The one list of subcommands (request.h): parser, client, --help and root check read it. */
const struct sitd_request_cmd sitd_request_cmds[SITD_REQ_COUNT] = {
	[SITD_REQ_SHOW] = { .kind = SITD_REQ_SHOW, .name = "show", .usage = "[-s] [-j] [NAME]",
			    .flags = "sj", .takes_name = true },
	[SITD_REQ_STATUS] = { .kind = SITD_REQ_STATUS, .name = "status", .usage = "[-j]",
			      .flags = "j" },
	[SITD_REQ_RELOAD] = { .kind = SITD_REQ_RELOAD, .name = "reload", .usage = "",
			      .root_only = true, .flags = "" },
	[SITD_REQ_SANDBOX] = { .kind = SITD_REQ_SANDBOX, .name = "sandbox", .usage = "",
			       .root_only = true, .flags = "" },
	[SITD_REQ_6RD] = { .kind = SITD_REQ_6RD, .name = "6rd",
			   .usage = "dev NAME {6rd-prefix P/L 6rd-relay_prefix A/L | 6rd-reset}",
			   .root_only = true, .flags = "" },
	[SITD_REQ_PRL] = { .kind = SITD_REQ_PRL, .name = "prl",
			   .usage = "dev NAME {prl-default|prl-nodefault|prl-delete} A",
			   .root_only = true, .flags = "" },
	[SITD_REQ_MONITOR] = { .kind = SITD_REQ_MONITOR, .name = "monitor", .usage = "[-j]",
			       .flags = "j" },
	[SITD_REQ_METRICS] = { .kind = SITD_REQ_METRICS, .name = "metrics", .usage = "",
			       .flags = "" },
};

const struct sitd_request_cmd *sitd_request_cmd_find(const char *word, size_t len)
{
	for (size_t k = 0; k < SITD_REQ_COUNT; k++)
		if (strlen(sitd_request_cmds[k].name) == len &&
		    !memcmp(sitd_request_cmds[k].name, word, len))
			return &sitd_request_cmds[k];
	return NULL;
}

enum { WORDS_6RD = 16, WORD_6RD = 64 };

static int fail(char *err, size_t errlen, const char *what, const char *w, size_t wlen)
{
	snprintf(err, errlen, "%s \"%.*s\"", what, (int)(wlen > 32 ? 32 : wlen), w);
	return -1;
}


/* The next word of line[*i .. len), words separated by spaces: false at the end. */
static bool next_word(const char *line, size_t len, size_t *i, size_t *start)
{
	while (*i < len && line[*i] == ' ')
		(*i)++;
	if (*i == len)
		return false;
	*start = *i;
	while (*i < len && line[*i] != ' ')
		(*i)++;
	return true;
}

/* `6rd` or `prl` and its words: iproute2's do_6rd / do_prl grammar (sixrd.h). */
static int parse_words(const char *line, size_t len, struct sitd_request *r, char *err, size_t errlen)
{
	char words[WORDS_6RD][WORD_6RD];
	const char *argv[WORDS_6RD];
	int argc = 0;
	size_t i = 0;

	size_t start;

	while (next_word(line, len, &i, &start)) {
		if (argc == WORDS_6RD || i - start >= WORD_6RD || memchr(line + start, '\0', i - start))
			return fail(err, errlen, "unexpected", line + start, i - start);
		memcpy(words[argc], line + start, i - start);
		words[argc][i - start] = '\0';
		argv[argc] = words[argc];
		argc++;
	}
	if (r->kind == SITD_REQ_PRL)
		return sitd_prl_parse(argc, argv, &r->prl, err, errlen);
	return sitd_6rd_parse(argc, argv, &r->rd, err, errlen);
}


/* A device name as the kernel's dev_valid_name() takes it: 1..15 bytes, no '/', ':' or space. */
static bool valid_name(const char *w, size_t len)
{
	if (!len || len >= SITD_IFNAMSIZ || (len == 1 && w[0] == '.') ||
	    (len == 2 && w[0] == '.' && w[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)w[i];

		if (c == '/' || c == ':' || c <= ' ' || c == 0x7f)
			return false;
	}
	return true;
}

int sitd_request_parse(const char *line, size_t len, struct sitd_request *r, char *err, size_t errlen)
{
	const struct sitd_request_cmd *cmd = NULL;
	size_t i = 0, k, start;

	memset(r, 0, sizeof(*r));
	for (int word = 0; next_word(line, len, &i, &start); word++) {
		k = i - start;
		if (word == 0) {
			cmd = sitd_request_cmd_find(line + start, k);
			if (!cmd)
				return fail(err, errlen, "unknown request", line + start, k);
			r->kind = cmd->kind;
			if (r->kind == SITD_REQ_6RD || r->kind == SITD_REQ_PRL)
				return parse_words(line + i, len - i, r, err, errlen);
			continue;
		}
		if (k == 2 && line[start] == '-' && line[start + 1] &&
		    strchr(cmd->flags, line[start + 1])) {
			if (line[start + 1] == 's')
				r->stats = true;
			else
				r->json = true;
			continue;
		}
		if (!cmd->takes_name || r->name[0] || line[start] == '-' || !valid_name(line + start, k))
			return fail(err, errlen, "unexpected", line + start, k);
		memcpy(r->name, line + start, k);
		r->name[k] = '\0';
	}
	if (!cmd) {
		snprintf(err, errlen, "empty request");
		return -1;
	}
	return 0;
}

size_t sitd_request_format(const struct sitd_request *r, char *buf, size_t cap)
{
	int n;

	if (r->kind == SITD_REQ_PRL) {
		uint8_t b[4] = { (uint8_t)(r->prl.addr >> 24), (uint8_t)(r->prl.addr >> 16),
				 (uint8_t)(r->prl.addr >> 8), (uint8_t)r->prl.addr };
		char a[16];

		inet_ntop(AF_INET, b, a, sizeof(a));
		n = snprintf(buf, cap, "prl dev %s %s %s", r->prl.dev,
			     r->prl.op == SITD_PRL_OP_DEL ? "prl-delete" :
			     r->prl.flags & SITD_PRL_DEFAULT ? "prl-default" : "prl-nodefault", a);
		if (n < 0 || !cap)
			return 0;
		return (size_t)n < cap ? (size_t)n : cap - 1;
	}
	if (r->kind == SITD_REQ_6RD) {
		char p[48], a[16];
		uint8_t b[4] = { (uint8_t)(r->rd.relay_prefix >> 24), (uint8_t)(r->rd.relay_prefix >> 16),
				 (uint8_t)(r->rd.relay_prefix >> 8), (uint8_t)r->rd.relay_prefix };

		if (r->rd.op == SITD_6RD_OP_RESET) {
			n = snprintf(buf, cap, "6rd dev %s 6rd-reset", r->rd.dev);
		} else {
			inet_ntop(AF_INET6, r->rd.prefix, p, sizeof(p));
			inet_ntop(AF_INET, b, a, sizeof(a));
			n = snprintf(buf, cap, "6rd dev %s 6rd-prefix %s/%u 6rd-relay_prefix %s/%u",
				     r->rd.dev, p, r->rd.prefixlen, a, r->rd.relay_prefixlen);
		}
		if (n < 0 || !cap)
			return 0;
		return (size_t)n < cap ? (size_t)n : cap - 1;
	}

	n = snprintf(buf, cap, "%s%s%s%s%s",
		     r->kind < SITD_REQ_COUNT ? sitd_request_cmds[r->kind].name : "show", r->stats ? " -s" : "", r->json ? " -j" : "",
		     r->name[0] ? " " : "", r->name);
	if (n < 0 || !cap)
		return 0;
	return (size_t)n < cap ? (size_t)n : cap - 1;
}
