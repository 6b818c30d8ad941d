/* SPDX-License-Identifier: MIT */
#include "core/hindex.h"

uint32_t sitd_hindex_slots(uint32_t n)
{
	uint32_t s = 16;

	if (n > (1u << 29))
		return 0;
	while (s < 2 * n)
		s *= 2;
	return s;
}

void sitd_hindex_init(struct sitd_hindex *x, struct sitd_hslot *slot, uint32_t nslots)
{
	x->slot = nslots ? slot : NULL;
	x->mask = nslots ? nslots - 1 : 0;
	x->n = 0;
	for (uint32_t i = 0; i < nslots; i++)
		slot[i] = (struct sitd_hslot){ .hash = 0, .item = SITD_HINDEX_NONE };
}

int sitd_hindex_put(struct sitd_hindex *x, uint32_t hash, uint32_t item)
{
	uint32_t i;

	/* At most half full: probes stay short and a free slot always ends a search. */
	if (!x->slot || item == SITD_HINDEX_NONE || x->n >= (x->mask + 1) / 2)
		return -1;
	for (i = hash & x->mask; x->slot[i].item != SITD_HINDEX_NONE; i = (i + 1) & x->mask)
		;
	x->slot[i] = (struct sitd_hslot){ .hash = hash, .item = item };
	x->n++;
	return 0;
}

uint32_t sitd_hindex_next(const struct sitd_hindex *x, uint32_t hash, uint32_t *pos)
{
	if (!x->slot)
		return SITD_HINDEX_NONE;
	/* *pos: probes done so far; the slot probed next is (hash + *pos) & mask. */
	while (*pos <= x->mask) {
		const struct sitd_hslot *s = &x->slot[(hash + *pos) & x->mask];

		(*pos)++;
		if (s->item == SITD_HINDEX_NONE)
			break;
		if (s->hash == hash)
			return s->item;
	}
	*pos = x->mask + 1;
	return SITD_HINDEX_NONE;
}

uint32_t sitd_hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

uint32_t sitd_hash_u32(uint32_t v)
{
	/* A murmur3 finalizer: ifindexes are consecutive, and the low bits pick the slot. */
	v ^= v >> 16;
	v *= 0x85ebca6bu;
	v ^= v >> 13;
	v *= 0xc2b2ae35u;
	v ^= v >> 16;
	return v;
}
