/* SPDX-License-Identifier: MIT */
/* The one clock of the daemon: CLOCK_MONOTONIC, which no `date` or NTP step moves. */
#include <time.h>

#include "os/clock.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
