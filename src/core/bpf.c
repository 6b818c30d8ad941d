/* SPDX-License-Identifier: MIT */
#include "core/bpf.h"

#include <linux/if_packet.h>

#include "core/wire.h"

#define STMT(code, k) ((struct sock_filter){ (uint16_t)(code), 0, 0, (uint32_t)(k) })
#define JUMP(code, k, jt, jf) ((struct sock_filter){ (uint16_t)(code), (jt), (jf), (uint32_t)(k) })

enum {
	NET = SKF_NET_OFF,
	FRAG_ANY = IP4_MF | IP4_OFFMASK,
};

/*
 * What both programs ask, with their answers swapped (so one takes exactly what the
 * other leaves): a fragment, no DF or a small packet gives miss; then a destination
 * among locals gives hit, any other miss.  Every jump goes at most one instruction
 * ahead (jt and jf are 8 bits): each test that decides is followed by its own return.
 */
static unsigned split(struct sock_filter *f, unsigned k, const uint32_t *locals, unsigned n, uint32_t hit,
		      uint32_t miss)
{
	f[k++] = STMT(BPF_LD | BPF_H | BPF_ABS, NET + IP4_FRAG);
	f[k++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, FRAG_ANY, 0, 1);
	f[k++] = STMT(BPF_RET | BPF_K, miss);
	f[k++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, IP4_DF, 1, 0);
	f[k++] = STMT(BPF_RET | BPF_K, miss);
	f[k++] = STMT(BPF_LD | BPF_H | BPF_ABS, NET + IP4_TOTLEN);
	f[k++] = JUMP(BPF_JMP | BPF_JGT | BPF_K, SITD_BPF_SMALL, 1, 0);
	f[k++] = STMT(BPF_RET | BPF_K, miss);
	f[k++] = STMT(BPF_LD | BPF_W | BPF_ABS, NET + IP4_DST);
	for (unsigned i = 0; i < n; i++) {
		f[k++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, locals[i], 0, 1);
		f[k++] = STMT(BPF_RET | BPF_K, hit);
	}
	f[k++] = STMT(BPF_RET | BPF_K, miss);
	return k;
}

enum { SPLIT_LEN = 10 };	/* split()'s instructions besides two per local */

unsigned sitd_bpf_ring(struct sock_filter *f, unsigned cap, uint8_t proto, const uint32_t *locals, unsigned n)
{
	unsigned k = 0;

	if (6 + SPLIT_LEN + 2 * n > cap)
		return 0;
	/* The ring sees every IPv4 packet, ours to send included: its protocol, coming in. */
	f[k++] = STMT(BPF_LD | BPF_B | BPF_ABS, NET + IP4_PROTO);
	f[k++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, proto, 1, 0);
	f[k++] = STMT(BPF_RET | BPF_K, 0);
	f[k++] = STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE);
	f[k++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1);
	f[k++] = STMT(BPF_RET | BPF_K, 0);
	return split(f, k, locals, n, SITD_BPF_ACCEPT, 0);
}

unsigned sitd_bpf_raw(struct sock_filter *f, unsigned cap, const uint32_t *locals, unsigned n)
{
	/* The raw socket has its own protocol only, and only what came in. */
	if (SPLIT_LEN + 2 * n > cap)
		return 0;
	return split(f, 0, locals, n, 0, SITD_BPF_ACCEPT);
}
