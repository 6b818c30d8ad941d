/* SPDX-License-Identifier: MIT */
/*
 * The tunnel table: which tunnel an outer packet belongs to, looked up once per packet
 * by (outer source, outer destination, arrival device), in the order of the kernel's
 * ipip6_tunnel_lookup() (net/ipv6/sit.c):
 *
 *	1. remote and local both match		(tunnels with both set)
 *	2. remote matches			(tunnels with local any)
 *	3. local matches			(tunnels with remote any: 6to4, 6rd, ISATAP)
 *	4. the wildcard				(remote any, local any)
 *
 * Within a class, a tunnel bound to a device (`dev`) matches only packets that arrived
 * on it; an unbound one matches any; a tunnel whose device is down matches nothing (the
 * kernel's `t->dev->flags & IFF_UP`), so the next class may answer.  Two tunnels with
 * the same remote, local and device cannot both exist (the kernel answers EEXIST).
 *
 * A table is built whole from a list of entries into memory the caller provides, and is
 * never changed afterwards: the daemon builds a new one on every change and publishes it,
 * so a lookup takes no lock.  Hash chains are indexes into the entry array; the bucket
 * count is a power of two at least twice the entries, so a lookup is O(1).  Pure.
 */
#ifndef SITD_TABLE_H
#define SITD_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct sitd_tent {
	uint32_t remote, local;		/* 0 = any */
	uint32_t link;			/* ifindex of `dev`, 0 = any */
	void *tunnel;			/* what the lookup returns */
	const int *up;			/* read atomically: 0 = its device is down; NULL = up */
	uint32_t next;			/* chain, filled by sitd_table_build */
};

enum sitd_tclass { SITD_T_RL, SITD_T_R, SITD_T_L, SITD_T_WC, SITD_T_CLASSES };

struct sitd_table {
	uint32_t mask;			/* buckets - 1 */
	uint32_t n;
	uint32_t *head[SITD_T_CLASSES];	/* per class: first entry of each bucket, or NONE */
	struct sitd_tent *ent;
};

#define SITD_TABLE_NONE UINT32_MAX

/* Bytes of memory sitd_table_build needs for n entries. */
size_t sitd_table_mem(uint32_t n);

/*
 * Build a table of the n entries `in` (copied) in `mem` (sitd_table_mem(n) bytes,
 * aligned for pointers).  Returns 0, or -1 when two entries have the same remote, local
 * and link: then *dup_a < *dup_b are their indexes in `in`.
 */
int sitd_table_build(struct sitd_table *t, void *mem, size_t memlen, const struct sitd_tent *in,
		     uint32_t n, uint32_t *dup_a, uint32_t *dup_b);

/*
 * The tunnel for a packet from `remote` to `local` that arrived on ifindex `link`
 * (0: not known, as for ICMP errors, where the kernel does not check it either), or NULL.
 */
void *sitd_table_lookup(const struct sitd_table *t, uint32_t remote, uint32_t local, uint32_t link);

/*
 * The table of IPv6-outer tunnels (ip6tnl: ip6ip6, ipip6, any), a separate one: its
 * keys are 16 bytes and its order is the kernel's ip6_tnl_lookup()
 * (net/ipv6/ip6_tunnel.c), which differs from sit's in three ways:
 *
 *	1. remote and local both match
 *	2. local matches			(tunnels with remote any)
 *	3. remote matches			(tunnels with local any)
 *	4. the wildcard (remote any, local any): only the first one listed, the head of
 *	   the kernel's tnls_wc[0], whatever its device; if it is down, nothing
 *
 * and a bound device is a preference, not a filter: in classes 1-3 a tunnel whose `dev`
 * is the arrival device (link == its link; an unbound tunnel's link is 0, so a lookup
 * with link 0 prefers unbound ones) is returned at once; otherwise the first tunnel that
 * matched on addresses alone is kept as the candidate (in class 1 the last one in its
 * chain, as the kernel's `else cand = t`) and returned when no class has an exact one.
 * Down tunnels are skipped (IFF_UP).  Duplicates: the same remote, local and link
 * (ip6_tnl_locate's EEXIST), in every class.  Entries listed first are found first,
 * as the kernel finds the newest first: the daemon lists them in the order it wants.
 * Built whole into caller memory as sitd_table, O(1) lookups, pure.
 */
struct sitd_tent6 {
	uint8_t remote[16], local[16];	/* all zero = any */
	uint32_t link;			/* ifindex of `dev`, 0 = any */
	void *tunnel;
	const int *up;			/* as sitd_tent's */
	uint32_t next;			/* chain, filled by sitd_table6_build */
};

enum sitd_tclass6 { SITD_T6_RL, SITD_T6_L, SITD_T6_R, SITD_T6_HASHED };

struct sitd_table6 {
	uint32_t mask;			/* buckets - 1 */
	uint32_t n;
	uint32_t wc;			/* first wildcard entry, or SITD_TABLE_NONE */
	uint32_t *head[SITD_T6_HASHED];
	struct sitd_tent6 *ent;
};

size_t sitd_table6_mem(uint32_t n);

/* As sitd_table_build: 0, or -1 with *dup_a < *dup_b the duplicates' indexes in `in`. */
int sitd_table6_build(struct sitd_table6 *t, void *mem, size_t memlen, const struct sitd_tent6 *in,
		      uint32_t n, uint32_t *dup_a, uint32_t *dup_b);

/*
 * The tunnel for a packet from `remote` to `local` (16 bytes each) that arrived on
 * ifindex `link`, or NULL.  For an ICMPv6 error about our own packet: remote = the
 * quoted destination, local = the quoted source, link = the error's arrival device
 * (ip6_tnl_err passes skb->dev's), 0 when not known.
 */
void *sitd_table6_lookup(const struct sitd_table6 *t, const uint8_t *remote, const uint8_t *local,
			 uint32_t link);

#endif
