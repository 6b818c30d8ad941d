/* SPDX-License-Identifier: MIT */
#include "core/table.h"

#include <stdbool.h>
#include <string.h>

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

/* ---- IPv6 outer addresses (ip6tnl) ---- */

static const uint8_t any6[16];

static bool is_any6(const uint8_t *a)
{
	return memcmp(a, any6, 16) == 0;
}

/* The kernel's ipv6_addr_hash (the four words xor-ed), then the same Fibonacci step. */
static uint32_t hash128(const uint8_t *a)
{
	uint32_t w[4];

	memcpy(w, a, 16);
	return hash32(w[0] ^ w[1] ^ w[2] ^ w[3]);
}

static enum sitd_tclass6 class6_of(const struct sitd_tent6 *e)
{
	bool r = !is_any6(e->remote), l = !is_any6(e->local);

	if (r && l)
		return SITD_T6_RL;
	if (l)
		return SITD_T6_L;
	if (r)
		return SITD_T6_R;
	return SITD_T6_HASHED;	/* the wildcard: not hashed */
}

static uint32_t bucket6(const struct sitd_table6 *t, enum sitd_tclass6 c, const uint8_t *remote,
			const uint8_t *local)
{
	switch (c) {
	case SITD_T6_RL:
		return (hash128(remote) ^ hash128(local)) & t->mask;
	case SITD_T6_L:
		return hash128(local) & t->mask;
	case SITD_T6_R:
		return hash128(remote) & t->mask;
	case SITD_T6_HASHED:
		break;
	}
	return 0;
}

size_t sitd_table6_mem(uint32_t n)
{
	return (size_t)SITD_T6_HASHED * buckets_for(n) * sizeof(uint32_t) +
	       (size_t)n * sizeof(struct sitd_tent6);
}

static bool same6(const struct sitd_tent6 *a, const struct sitd_tent6 *b)
{
	return !memcmp(a->remote, b->remote, 16) && !memcmp(a->local, b->local, 16) &&
	       a->link == b->link;
}

int sitd_table6_build(struct sitd_table6 *t, void *mem, size_t memlen, const struct sitd_tent6 *in,
		      uint32_t n, uint32_t *dup_a, uint32_t *dup_b)
{
	uint32_t nb = buckets_for(n), wc_next = SITD_TABLE_NONE;
	struct sitd_tent6 *ent;
	uint32_t *p;

	if (memlen < sitd_table6_mem(n))
		return -1;
	ent = mem;
	p = (uint32_t *)(ent + n);
	t->mask = nb - 1;
	t->n = n;
	t->ent = ent;
	t->wc = SITD_TABLE_NONE;
	for (int c = 0; c < SITD_T6_HASHED; c++) {
		t->head[c] = p + (size_t)c * nb;
		for (uint32_t b = 0; b < nb; b++)
			t->head[c][b] = SITD_TABLE_NONE;
	}
	/* In reverse, each at its chain's head, so chains keep the order of `in`. */
	for (uint32_t i = n; i-- > 0;) {
		enum sitd_tclass6 c = class6_of(&in[i]);
		uint32_t *head = c == SITD_T6_HASHED ? &wc_next
						     : &t->head[c][bucket6(t, c, in[i].remote, in[i].local)];

		ent[i] = in[i];
		for (uint32_t k = *head; k != SITD_TABLE_NONE; k = ent[k].next) {
			if (same6(&ent[k], &in[i])) {
				*dup_a = i;
				*dup_b = k;
				return -1;
			}
		}
		ent[i].next = *head;
		*head = i;
	}
	t->wc = wc_next;
	return 0;
}

static bool up6(const struct sitd_tent6 *e)
{
	return !e->up || __atomic_load_n(e->up, __ATOMIC_RELAXED);
}

void *sitd_table6_lookup(const struct sitd_table6 *t, const uint8_t *remote, const uint8_t *local,
			 uint32_t link)
{
	const struct sitd_tent6 *cand = NULL;

	if (!t || !t->n)
		return NULL;
	for (int c = 0; c < SITD_T6_HASHED; c++) {
		for (uint32_t k = t->head[c][bucket6(t, (enum sitd_tclass6)c, remote, local)];
		     k != SITD_TABLE_NONE; k = t->ent[k].next) {
			const struct sitd_tent6 *e = &t->ent[k];

			if ((c != SITD_T6_L && memcmp(e->remote, remote, 16)) ||
			    (c != SITD_T6_R && memcmp(e->local, local, 16)) || !up6(e))
				continue;
			if (e->link == link)
				return e->tunnel;
			/* ip6_tnl_lookup: `cand = t` in the first class, `if (!cand)` after. */
			if (c == SITD_T6_RL || !cand)
				cand = e;
		}
	}
	if (cand)
		return cand->tunnel;
	if (t->wc != SITD_TABLE_NONE && up6(&t->ent[t->wc]))
		return t->ent[t->wc].tunnel;
	return NULL;
}
