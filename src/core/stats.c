/* SPDX-License-Identifier: MIT */
#include "core/stats.h"

#include <stddef.h>

const char *const sitd_drop_names[SITD_DROP_MAX] = {
#define SITD_DROP_NAME(name, desc) #name,
	SITD_DROP_REASONS(SITD_DROP_NAME)
#undef SITD_DROP_NAME
};

void sitd_stats_sum(struct sitd_stats *dst, const struct sitd_stats *src)
{
#define SITD_CTR_SUM(name, desc) dst->name += __atomic_load_n(&src->name, __ATOMIC_RELAXED);
	SITD_COUNTERS(SITD_CTR_SUM)
#undef SITD_CTR_SUM
	for (size_t i = 0; i < SITD_DROP_MAX; i++)
		dst->drop[i] += __atomic_load_n(&src->drop[i], __ATOMIC_RELAXED);
}
