/* SPDX-License-Identifier: MIT */
/*
 * Token bucket for ICMP errors (and log lines, below).  The caller passes the time, so the
 * bucket is pure.  The kernel's global ICMP limit (net.ipv4.icmp_msgs_per_sec 1000, burst
 * 50) is the model.
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

/*
 * Log lines another process can trigger at will (the monitor's refusals of the packet
 * process's requests): a burst, then one per interval; those left out are counted and
 * said in a line of their own, as the kernel's ___ratelimit (lib/ratelimit.c) says "N
 * callbacks suppressed": before the next line let through, or, when none comes, once the
 * lines have stopped for quiet_ns (ll_flush, ll_wait_ns).
 */
struct sitd_loglimit {
	struct sitd_ratelimit rl;
	uint64_t quiet_ns;
	uint64_t suppressed;	/* left out and not said yet */
	uint64_t total;		/* left out in all */
	uint64_t last_ns;	/* when the last one was left out */
};

static inline void ll_init(struct sitd_loglimit *ll, uint64_t interval_ns, uint32_t burst,
			   uint64_t quiet_ns)
{
	ll->rl.interval_ns = interval_ns ? interval_ns : 1;
	ll->rl.burst_ns = ll->rl.interval_ns * (burst ? burst : 1);
	ll->rl.credit_ns = ll->rl.burst_ns;
	ll->rl.last_ns = 0;
	ll->quiet_ns = quiet_ns;
	ll->suppressed = ll->total = ll->last_ns = 0;
}

/* May a line be logged now?  If so, *left says how many were left out before it, to say
 * first (0: none); if not, it is counted. */
static inline bool ll_allow(struct sitd_loglimit *ll, uint64_t now_ns, uint64_t *left)
{
	*left = 0;
	if (!rl_allow(&ll->rl, now_ns)) {
		ll->suppressed++;
		ll->total++;
		ll->last_ns = now_ns;
		return false;
	}
	*left = ll->suppressed;
	ll->suppressed = 0;
	return true;
}

/* How long until ll_flush has something to say: UINT64_MAX when nothing is left out. */
static inline uint64_t ll_wait_ns(const struct sitd_loglimit *ll, uint64_t now_ns)
{
	if (!ll->suppressed)
		return UINT64_MAX;
	return now_ns - ll->last_ns >= ll->quiet_ns ? 0 : ll->last_ns + ll->quiet_ns - now_ns;
}

/* The lines stopped quiet_ns ago: how many were left out, to say now (a line of the
 * budget); 0: nothing to say yet. */
static inline uint64_t ll_flush(struct sitd_loglimit *ll, uint64_t now_ns)
{
	uint64_t n = ll->suppressed;

	if (ll_wait_ns(ll, now_ns) || !rl_allow(&ll->rl, now_ns))
		return 0;
	ll->suppressed = 0;
	return n;
}

#endif
