/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share: a check that stops the fuzzer on a broken invariant, the
 * total of the drop counters, and RFC 6040's decapsulation table written out
 * independently of src/core/ecn.h.
 */
#ifndef SITD_FUZZ_H
#define SITD_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"
#include "core/wire.h"

#define CHECK(c)                         \
	do {                             \
		if (!(c))                \
			__builtin_trap(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline uint64_t drops_total(const struct sitd_stats *st)
{
	uint64_t n = 0;

	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		n += st->drop[i];
	return n;
}

/* RFC 6040 section 4.2: the inner ECN field to forward, or -1 to drop. */
static inline int rfc6040(unsigned outer, unsigned in)
{
	static const int8_t table[4][4] = {
		/* outer:  Not-ECT  ECT(1)  ECT(0)  CE      inner: */
		{ ECN_NOT_ECT, ECN_NOT_ECT, ECN_NOT_ECT, -1 },		/* Not-ECT */
		{ ECN_ECT1, ECN_ECT1, ECN_ECT1, ECN_CE },		/* ECT(1) */
		{ ECN_ECT0, ECN_ECT1, ECN_ECT0, ECN_CE },		/* ECT(0) */
		{ ECN_CE, ECN_CE, ECN_CE, ECN_CE },			/* CE */
	};

	return table[in & 3][outer & 3];
}

#endif
