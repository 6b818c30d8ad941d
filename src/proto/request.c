/* SPDX-License-Identifier: MIT */
#include "proto/request.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *word;
	enum sitd_req kind;
	const char *flags;	/* the flag letters it takes */
	bool name;		/* may name a tunnel */
} reqs[] = {
	{ "show", SITD_REQ_SHOW, "sj", true },
	{ "status", SITD_REQ_STATUS, "j", false },
	{ "reload", SITD_REQ_RELOAD, "", false },
	{ "sandbox", SITD_REQ_SANDBOX, "", false },
	{ "6rd", SITD_REQ_6RD, "", false },
	{ "prl", SITD_REQ_PRL, "", false },
};

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
	size_t i = 0, k;
	int which = -1;

	memset(r, 0, sizeof(*r));
	size_t start;

	for (int word = 0; next_word(line, len, &i, &start); word++) {
		k = i - start;
		if (word == 0) {
			for (size_t q = 0; q < sizeof(reqs) / sizeof(reqs[0]); q++)
				if (strlen(reqs[q].word) == k && !memcmp(reqs[q].word, line + start, k))
					which = (int)q;
			if (which < 0)
				return fail(err, errlen, "unknown request", line + start, k);
			r->kind = reqs[which].kind;
			if (r->kind == SITD_REQ_6RD || r->kind == SITD_REQ_PRL)
				return parse_words(line + i, len - i, r, err, errlen);
			continue;
		}
		if (k == 2 && line[start] == '-' && line[start + 1] &&
		    strchr(reqs[which].flags, line[start + 1])) {
			if (line[start + 1] == 's')
				r->stats = true;
			else
				r->json = true;
			continue;
		}
		if (!reqs[which].name || r->name[0] || line[start] == '-' || !valid_name(line + start, k))
			return fail(err, errlen, "unexpected", line + start, k);
		memcpy(r->name, line + start, k);
		r->name[k] = '\0';
	}
	if (which < 0) {
		snprintf(err, errlen, "empty request");
		return -1;
	}
	return 0;
}

size_t sitd_request_format(const struct sitd_request *r, char *buf, size_t cap)
{
	const char *word = "show";
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

	for (size_t q = 0; q < sizeof(reqs) / sizeof(reqs[0]); q++)
		if (reqs[q].kind == r->kind)
			word = reqs[q].word;
	n = snprintf(buf, cap, "%s%s%s%s%s", word, r->stats ? " -s" : "", r->json ? " -j" : "",
		     r->name[0] ? " " : "", r->name);
	if (n < 0 || !cap)
		return 0;
	return (size_t)n < cap ? (size_t)n : cap - 1;
}
