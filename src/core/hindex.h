/* SPDX-License-Identifier: MIT */
/*
 * A hash index over the items of a caller's array (the running tunnels, the monitor's
 * stanzas and devices): item numbers by a 32-bit hash of their key, with linear probing
 * in caller memory.  The caller compares keys: the index hands out the items whose hash
 * matches, in the order they were put, so equal keys come out first-put first.  No
 * removal: an array that shrinks or moves is indexed anew (O(n), once per batch of
 * changes), which keeps a batch of n changes to N tunnels O(N + n), not O(N * n).
 * Pure: no allocation, the slots are the caller's.
 */
#ifndef SITD_HINDEX_H
#define SITD_HINDEX_H

#include <stddef.h>
#include <stdint.h>

struct sitd_hslot {
	uint32_t hash;
	uint32_t item;			/* SITD_HINDEX_NONE: empty */
};

struct sitd_hindex {
	struct sitd_hslot *slot;
	uint32_t mask;			/* slots - 1; 0 with no slots: every lookup misses */
	uint32_t n;
};

#define SITD_HINDEX_NONE UINT32_MAX

/* Slots for n items: a power of two at least twice n (at least 16), or 0 past 2^30. */
uint32_t sitd_hindex_slots(uint32_t n);

/* An empty index in slot[0 .. nslots), nslots a power of two (or 0: always empty). */
void sitd_hindex_init(struct sitd_hindex *x, struct sitd_hslot *slot, uint32_t nslots);

/* Put item under hash: 0, or -1 when the index is full (more than half its slots). */
int sitd_hindex_put(struct sitd_hindex *x, uint32_t hash, uint32_t item);

/*
 * The items under hash, one at a time: *pos = 0 first, then pass it back; returns
 * SITD_HINDEX_NONE after the last.
 */
uint32_t sitd_hindex_next(const struct sitd_hindex *x, uint32_t hash, uint32_t *pos);

/* Keys: a NUL-terminated name (FNV-1a), a 32-bit number (an ifindex). */
uint32_t sitd_hash_name(const char *s);
uint32_t sitd_hash_u32(uint32_t v);

#endif
