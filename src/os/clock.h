/* SPDX-License-Identifier: MIT */
/* The one clock of the daemon: monotonic, in nanoseconds (rate limits, dampers, timers). */
#ifndef SITD_CLOCK_H
#define SITD_CLOCK_H

#include <stdint.h>

uint64_t now_ns(void);

#endif
