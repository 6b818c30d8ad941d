/* SPDX-License-Identifier: MIT */
#include "proto/config.h"

#include "core/hindex.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/hindex.h"
#include "proto/cli.h"

/*
 * Room for the longest stanza sitd accepts with room to spare: every setting, 16 PRL
 * routers, 8 addresses and 16 routes of 8 words each (`route P via A metric N table T`)
 * come to about 200 words.
 */
enum { WORDS_MAX = 256, WORD_MAX = 64 };

struct stanza {
	int n;
	unsigned line[WORDS_MAX];
	char word[WORDS_MAX][WORD_MAX];
};

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%u: %s", line, msg);
	return -1;
}

/* The stanza named `name` among out[0..n), through ix when there is one, or -1. */
static long named(const struct sitd_conf *out, unsigned n, const struct sitd_hindex *ix,
		  const char *name)
{
	uint32_t pos = 0, k;

	if (!ix) {
		for (k = 0; k < n; k++)
			if (!strcmp(out[k].name, name))
				return k;
		return -1;
	}
	while ((k = sitd_hindex_next(ix, sitd_hash_name(name), &pos)) != SITD_HINDEX_NONE)
		if (k < n && !strcmp(out[k].name, name))
			return k;
	return -1;
}

static int finish(struct stanza *st, unsigned first_line, struct sitd_conf *out, unsigned *n,
		  unsigned cap, struct sitd_hindex *ix, char *err, size_t errlen)
{
	const char *argv[WORDS_MAX];
	char msg[256];
	int bad;

	if (*n == cap)
		return fail(err, errlen, first_line, "more than %u tunnels", cap);
	for (int i = 0; i < st->n; i++)
		argv[i] = st->word[i];
	if (sitd_cli_parse_at(st->n, argv, &out[*n], msg, sizeof(msg), &bad))
		return fail(err, errlen, bad >= 0 ? st->line[bad] : first_line, "%s", msg);
	if (named(out, *n, ix, out[*n].name) >= 0)
		return fail(err, errlen, first_line, "tunnel \"%s\" given twice", out[*n].name);
	/* Full (slots for fewer than cap): the scan answers from here on. */
	if (ix && sitd_hindex_put(ix, sitd_hash_name(out[*n].name), *n) < 0)
		return fail(err, errlen, first_line, "more tunnels than the index holds");
	(*n)++;
	return 0;
}

int sitd_config_parse(const char *text, size_t len, struct sitd_conf *out, unsigned cap, char *err,
		      size_t errlen)
{
	return sitd_config_parse_ix(text, len, out, cap, NULL, err, errlen);
}

int sitd_config_parse_ix(const char *text, size_t len, struct sitd_conf *out, unsigned cap,
			 struct sitd_hindex *ix, char *err, size_t errlen)
{
	struct stanza st;
	unsigned line = 1, first_line = 0, n = 0;
	bool in_stanza = false;
	size_t i = 0;

	st.n = 0;
	while (i < len) {
		char c = text[i];
		size_t start;

		if (c == '\n') {
			line++;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (c == '#') {
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		if (c == '\0')
			return fail(err, errlen, line, "a NUL byte");
		start = i;
		while (i < len && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' &&
		       text[i] != '\n' && text[i] != '#' && text[i] != '\0')
			i++;
		if (i - start >= WORD_MAX)
			return fail(err, errlen, line, "a word longer than %d bytes", WORD_MAX - 1);
		if (i - start == 6 && !memcmp(text + start, "tunnel", 6)) {
			if (in_stanza && finish(&st, first_line, out, &n, cap, ix, err, errlen))
				return -1;
			in_stanza = true;
			first_line = line;
			st.n = 0;
			continue;
		}
		if (!in_stanza)
			return fail(err, errlen, line, "expected \"tunnel NAME\", not \"%.*s\"",
				    (int)(i - start), text + start);
		if (st.n == WORDS_MAX)
			return fail(err, errlen, line, "more than %d words in one tunnel", WORDS_MAX);
		memcpy(st.word[st.n], text + start, i - start);
		st.word[st.n][i - start] = '\0';
		st.line[st.n++] = line;
	}
	if (in_stanza && finish(&st, first_line, out, &n, cap, ix, err, errlen))
		return -1;
	return (int)n;
}

unsigned sitd_config_count(const char *text, size_t len)
{
	unsigned n = 0;
	size_t i = 0;

	while (i < len) {
		size_t start;

		if (text[i] == '#') {
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n' ||
		    text[i] == '\0') {
			i++;
			continue;
		}
		start = i;
		while (i < len && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' &&
		       text[i] != '\n' && text[i] != '#' && text[i] != '\0')
			i++;
		n += i - start == 6 && !memcmp(text + start, "tunnel", 6);
	}
	return n;
}

/* The index of the stanza named `name` in list, or -1; `hint` is tried first. */
static long find_name(const struct sitd_conf *list, unsigned n, const struct sitd_hindex *ix,
		      const char *name, unsigned hint)
{
	if (hint < n && !strcmp(list[hint].name, name))
		return hint;
	return named(list, n, ix, name);
}

void sitd_config_diff(const struct sitd_conf *old, unsigned nold, const struct sitd_conf *next,
		      unsigned nnext, bool *old_keep, bool *new_add)
{
	sitd_config_diff_ix(old, nold, next, nnext, NULL, old_keep, new_add);
}

void sitd_config_diff_ix(const struct sitd_conf *old, unsigned nold, const struct sitd_conf *next,
			 unsigned nnext, const struct sitd_hindex *next_ix, bool *old_keep,
			 bool *new_add)
{
	for (unsigned j = 0; j < nnext; j++)
		new_add[j] = true;
	/* Both come from sitd_config_parse, which fills every byte: memcmp compares settings. */
	for (unsigned i = 0; i < nold; i++) {
		long j = find_name(next, nnext, next_ix, old[i].name, i);

		old_keep[i] = j >= 0 && !memcmp(&old[i], &next[j], sizeof(old[i]));
		if (old_keep[i])
			new_add[j] = false;
	}
}
