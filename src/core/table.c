/* SPDX-License-Identifier: MIT */
#include "core/table.h"

#include <stdbool.h>

/* Fibonacci hashing: the high bits of addr * 2^32/phi, folded by the mask. */
static uint32_t hash32(uint32_t a)
{
	return (a * 0x9e3779b1u) >> 7;
}

static enum sitd_tclass class_of(const struct sitd_tent *e)
{
	if (e->remote && e->local)
		return SITD_T_RL;
	if (e->remote)
		return SITD_T_R;
	if (e->local)
		return SITD_T_L;
	return SITD_T_WC;
}

/* The bucket as ipip6_tunnel_lookup() forms it: HASH(remote) ^ HASH(local). */
static uint32_t bucket(const struct sitd_table *t, enum sitd_tclass c, uint32_t remote, uint32_t local)
{
	switch (c) {
	case SITD_T_RL:
		return (hash32(remote) ^ hash32(local)) & t->mask;
	case SITD_T_R:
		return hash32(remote) & t->mask;
	case SITD_T_L:
		return hash32(local) & t->mask;
	case SITD_T_WC:
	case SITD_T_CLASSES:
		break;
	}
	return 0;
}

static uint32_t buckets_for(uint32_t n)
{
	uint32_t b = 16;

	while (b < 2 * n && b < (1u << 30))
		b <<= 1;
	return b;
}

size_t sitd_table_mem(uint32_t n)
{
	return (size_t)SITD_T_CLASSES * buckets_for(n) * sizeof(uint32_t) +
	       (size_t)n * sizeof(struct sitd_tent);
}

int sitd_table_build(struct sitd_table *t, void *mem, size_t memlen, const struct sitd_tent *in,
		     uint32_t n, uint32_t *dup_a, uint32_t *dup_b)
{
	uint32_t nb = buckets_for(n);
	struct sitd_tent *ent;
	uint32_t *p = mem;

	if (memlen < sitd_table_mem(n))
		return -1;
	/* Entries first: their pointers need the stricter alignment. */
	ent = mem;
	p = (uint32_t *)(ent + n);
	t->mask = nb - 1;
	t->n = n;
	t->ent = ent;
	for (int c = 0; c < SITD_T_CLASSES; c++) {
		t->head[c] = p + (size_t)c * nb;
		for (uint32_t b = 0; b < nb; b++)
			t->head[c][b] = SITD_TABLE_NONE;
	}
	/* Insert in reverse, each at its chain's head, so chains keep the order of `in`. */
	for (uint32_t i = n; i-- > 0;) {
		enum sitd_tclass c = class_of(&in[i]);
		uint32_t b = bucket(t, c, in[i].remote, in[i].local);

		ent[i] = in[i];
		for (uint32_t k = t->head[c][b]; k != SITD_TABLE_NONE; k = ent[k].next) {
			if (ent[k].remote == in[i].remote && ent[k].local == in[i].local &&
			    ent[k].link == in[i].link) {
				*dup_a = i;
				*dup_b = k;
				return -1;
			}
		}
		ent[i].next = t->head[c][b];
		t->head[c][b] = i;
	}
	return 0;
}

static void *find(const struct sitd_table *t, enum sitd_tclass c, uint32_t remote, uint32_t local,
		  uint32_t link)
{
	for (uint32_t k = t->head[c][bucket(t, c, remote, local)]; k != SITD_TABLE_NONE;
	     k = t->ent[k].next) {
		const struct sitd_tent *e = &t->ent[k];
		bool addr_ok = (c == SITD_T_RL || c == SITD_T_R ? e->remote == remote : true) &&
			       (c == SITD_T_RL || c == SITD_T_L ? e->local == local : true);

		if (addr_ok && (!link || !e->link || e->link == link) &&
		    (!e->up || __atomic_load_n(e->up, __ATOMIC_RELAXED)))
			return e->tunnel;
	}
	return NULL;
}

void *sitd_table_lookup(const struct sitd_table *t, uint32_t remote, uint32_t local, uint32_t link)
{
	void *r;

	if (!t || !t->n)
		return NULL;
	for (int c = 0; c < SITD_T_CLASSES; c++) {
		r = find(t, (enum sitd_tclass)c, remote, local, link);
		if (r)
			return r;
	}
	return NULL;
}
