/* SPDX-License-Identifier: MIT */
/* ECN through the tunnel: RFC 6040 (normal mode, which RFC 3168 9.1.1 full mode matches). */
#ifndef SITD_ECN_H
#define SITD_ECN_H

#include <stdint.h>

#include "core/wire.h"

/*
 * Outer TOS on encapsulation (RFC 6040 4.1): DSCP from `outer_tos`, ECN copied from the
 * inner header, except that CE is sent as ECT(0) so a CE mark never crosses into the
 * outer network's view.  Same result as the kernel's INET_ECN_encapsulate().
 */
static inline uint8_t ecn_encapsulate(uint8_t outer_tos, uint8_t inner_dsfield)
{
	uint8_t ecn = inner_dsfield & ECN_MASK;

	return (uint8_t)((outer_tos & ~ECN_MASK) | (ecn == ECN_CE ? ECN_ECT0 : ecn));
}

/*
 * RFC 6040 4.2 decapsulation table: the inner ECN field to forward, or -1 to drop.
 *
 *   inner \ outer   Not-ECT  ECT(0)  ECT(1)  CE
 *   Not-ECT         Not-ECT  Not-ECT Not-ECT drop
 *   ECT(0)          ECT(0)   ECT(0)  ECT(1)  CE
 *   ECT(1)          ECT(1)   ECT(1)  ECT(1)  CE
 *   CE              CE       CE      CE      CE
 */
static inline int ecn_decapsulate(uint8_t outer_ecn, uint8_t inner_ecn)
{
	outer_ecn &= ECN_MASK;
	inner_ecn &= ECN_MASK;
	if (inner_ecn == ECN_NOT_ECT)
		return outer_ecn == ECN_CE ? -1 : ECN_NOT_ECT;
	if (outer_ecn == ECN_CE)
		return ECN_CE;
	if (outer_ecn == ECN_ECT1 && inner_ecn == ECN_ECT0)
		return ECN_ECT1;
	return inner_ecn;
}

#endif
