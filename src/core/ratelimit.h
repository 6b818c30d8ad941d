/* SPDX-License-Identifier: MIT */
/*
 * Token bucket for ICMP errors.  The caller passes the time, so the bucket is pure.
 * The kernel's global ICMP limit (net.ipv4.icmp_msgs_per_sec 1000, burst 50) is the model.
 */
#ifndef SITD_RATELIMIT_H
#define SITD_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct sitd_ratelimit {
	uint64_t interval_ns;	/* one token per interval */
	uint64_t burst_ns;	/* most credit that accumulates */
	uint64_t credit_ns;
	uint64_t last_ns;
};

static inline void rl_init(struct sitd_ratelimit *rl, uint32_t per_sec, uint32_t burst)
{
	rl->interval_ns = 1000000000ull / (per_sec ? per_sec : 1);
	rl->burst_ns = rl->interval_ns * (burst ? burst : 1);
	rl->credit_ns = rl->burst_ns;
	rl->last_ns = 0;
}

static inline bool rl_allow(struct sitd_ratelimit *rl, uint64_t now_ns)
{
	if (now_ns > rl->last_ns) {
		uint64_t gained = now_ns - rl->last_ns;

		rl->credit_ns = gained >= rl->burst_ns - rl->credit_ns ? rl->burst_ns
								     : rl->credit_ns + gained;
		rl->last_ns = now_ns;
	}
	if (rl->credit_ns < rl->interval_ns)
		return false;
	rl->credit_ns -= rl->interval_ns;
	return true;
}

#endif
