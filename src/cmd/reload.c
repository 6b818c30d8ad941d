/* SPDX-License-Identifier: MIT */
/*
 * The configuration file (sitd.conf(5), config.h): read and parsed at start, by the
 * monitor (which checks requests against it), and on a reload, whose changes it applies
 * to the running table.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/server_int.h"
#include "core/hindex.h"
#include "daemon/daemon.h"
#include "os/file.h"
#include "os/log.h"
#include "priv/privsep.h"
#include "proto/config.h"

enum { CONFIG_MAX = 16 << 20 };

/*
 * The file at path (as file_open_config() takes it: root's, written by no one else), or
 * (fd >= 0) the one open on fd, which it takes.  0 or -errno; *why for a refused file.
 */
static int read_file(const char *path, int fd, char **text, size_t *len, const char **why)
{
	FILE *f;
	size_t cap = 1 << 16;
	char *buf = NULL;

	*len = 0;
	*why = NULL;
	if (fd < 0 && (fd = file_open_config(path, why)) < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		int e = errno;

		close(fd);
		return -e;
	}
	for (;;) {
		char *nb = realloc(buf, cap);
		size_t got;

		if (!nb)
			break;
		buf = nb;
		got = fread(buf + *len, 1, cap - *len, f);
		*len += got;
		if (*len < cap || cap >= CONFIG_MAX)
			break;
		cap *= 2;
	}
	if (!buf || ferror(f) || *len >= CONFIG_MAX) {
		int e = !buf ? ENOMEM : *len >= CONFIG_MAX ? EFBIG : EIO;

		fclose(f);
		free(buf);
		return -e;
	}
	fclose(f);
	*text = buf;
	return 0;
}

/*
 * c[0..n) by name into *ix, in slots the caller frees: NULL without memory, and then ix
 * is empty (the callers scan).  10 000 stanzas compared by name each with every other
 * would be O(N^2).
 */
static struct sitd_hslot *index_names(struct sitd_hindex *ix, const struct sitd_conf *c, unsigned n)
{
	uint32_t slots = sitd_hindex_slots(n);
	struct sitd_hslot *m = slots ? malloc(slots * sizeof(*m)) : NULL;

	sitd_hindex_init(ix, m, m ? slots : 0);
	for (unsigned i = 0; c && i < n; i++)
		(void)sitd_hindex_put(ix, sitd_hash_name(c[i].name), i);
	return m;
}

struct sitd_conf *reload_load_config(const char *path, int fd, unsigned *n, char *err,
				     size_t errlen)
{
	struct sitd_hindex ix;
	struct sitd_hslot *slots;
	struct sitd_conf *out;
	char msg[300], *text = NULL;
	size_t len;
	unsigned cap;
	const char *why;
	int r = read_file(path, fd, &text, &len, &why);

	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, why ? why : strerror(-r));
		return NULL;
	}
	cap = sitd_config_count(text, len);
	out = calloc(cap ? cap : 1, sizeof(*out));
	if (!out) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	slots = index_names(&ix, NULL, cap);
	r = sitd_config_parse_ix(text, len, out, cap, slots ? &ix : NULL, msg, sizeof(msg));
	free(slots);
	free(text);
	if (r <= 0) {
		if (r < 0)
			snprintf(err, errlen, "%s:%s", path, msg);
		else
			snprintf(err, errlen, "%s: no tunnel", path);
		free(out);
		return NULL;
	}
	*n = (unsigned)r;
	return out;
}

/*
 * SIGHUP or `sitd reload`: stop the tunnels whose stanza went away or changed, start the
 * new and changed ones, leave the others running untouched (sitd_config_diff).  A bad
 * file changes nothing.
 */
int reload_run(struct server *s, char *err, size_t errlen)
{
	unsigned n, nold = daemon_count(s->d), nrem = 0, nadd = 0, failed = 0;
	struct sitd_conf *next, *old, *add;
	struct sitd_hslot *slots = NULL;
	struct sitd_hindex ix;
	const char **rem;
	bool *keep, *addf, *ok;
	int fd, r = 0;

	if (!s->o->config) {
		snprintf(err, errlen, "nothing to reload: sitd was started without -c FILE");
		return -ENOENT;
	}
	/* Read as the monitor opens it: the packet process may not read a file of mode 0600. */
	fd = ps_config_open();
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", s->o->config, strerror(-fd));
		return fd;
	}
	next = reload_load_config(s->o->config, fd, &n, err, errlen);
	if (!next)
		return -EINVAL;	/* unreadable or invalid: err says which */
	old = calloc(nold + 1, sizeof(*old));
	add = calloc(n, sizeof(*add));
	rem = calloc(nold + 1, sizeof(*rem));
	keep = calloc(nold + 1, sizeof(*keep));
	addf = calloc(n, sizeof(*addf));
	ok = calloc(n, sizeof(*ok));
	if (!old || !add || !rem || !keep || !addf || !ok) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < nold; i++)
		old[i] = *tunnel_req(daemon_tunnel(s->d, i));
	slots = index_names(&ix, next, n);
	sitd_config_diff_ix(old, nold, next, n, slots ? &ix : NULL, keep, addf);
	/* Removed: the device goes.  Changed: it stays, and the new settings take it over. */
	for (unsigned pass = 0; pass < 2; pass++) {
		unsigned k = 0;

		for (unsigned i = 0; i < nold; i++) {
			bool changed = false;
			uint32_t pos = 0, j;

			if (keep[i])
				continue;
			/* Moved to another namespace (`netns`): as removed, its device goes from the
			 * old one, and the new settings make it in the new. */
			while (slots && !changed &&
			       (j = sitd_hindex_next(&ix, sitd_hash_name(old[i].name), &pos)) != SITD_HINDEX_NONE)
				changed = !strcmp(next[j].name, old[i].name) &&
					  !strcmp(next[j].netns, old[i].netns);
			for (j = 0; !slots && j < n && !changed; j++)
				changed = !strcmp(next[j].name, old[i].name) &&
					  !strcmp(next[j].netns, old[i].netns);
			if (changed != (pass == 0))
				continue;
			rem[k++] = old[i].name;
			log_info("%s: %s", old[i].name, changed ? "changed, restarting" : "removed");
			if (!changed)
				daemon_event_tunnel(old[i].name, SITD_EVENT_REMOVED);
		}
		daemon_remove(s->d, rem, k, pass == 1);
		nrem += k;
	}
	for (unsigned j = 0; j < n; j++)
		if (addf[j])
			add[nadd++] = next[j];
	failed = daemon_add(s->d, add, nadd, ok);
	for (unsigned j = 0; j < nadd; j++) {
		bool changed = false;

		for (unsigned i = 0; i < nold && !changed; i++)
			changed = !keep[i] && !strcmp(old[i].name, add[j].name);
		if (ok[j])
			log_info("%s: running", add[j].name);
		/* A changed one that did not start again is gone. */
		if (ok[j] || changed)
			daemon_event_tunnel(add[j].name, !ok[j] ? SITD_EVENT_REMOVED :
					    changed ? SITD_EVENT_CHANGED : SITD_EVENT_ADDED);
	}
	log_info("reloaded %s: %u kept, %u started, %u stopped, %u failed", s->o->config,
		 nold - nrem, nadd - failed, nrem, failed);
	if (failed) {
		snprintf(err, errlen, "%u tunnel(s) failed to start; see the log", failed);
		r = -EIO;
	}
out:
	free(slots);
	free(next);
	free(old);
	free(add);
	free(rem);
	free(keep);
	free(addf);
	free(ok);
	return r;
}
