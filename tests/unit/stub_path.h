/* SPDX-License-Identifier: MIT */
/* What test_path.c sets and reads of stub_path.c. */
#ifndef SITD_STUB_PATH_H
#define SITD_STUB_PATH_H

#include <stdint.h>

struct stub_path {
	uint32_t mtu;		/* what pmtu_query answers */
	unsigned queries;
	uint32_t last_dst;
	unsigned queries6;	/* pmtu6_query: counted, answers mtu and src6 */
	uint8_t last_dst6[16], src6[16];
	uint64_t now;		/* what now_ns answers */
	unsigned logs;		/* log_info lines */
	unsigned events;	/* events_mtu calls, and the last one's values */
	uint32_t ev_old, ev_new;
};

extern struct stub_path stub_path;

#endif
