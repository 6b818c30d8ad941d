/* SPDX-License-Identifier: MIT */
/*
 * GRO into TUN: consecutive segments of one TCP flow, from one receive batch, become one
 * super-packet written with a virtio_net_hdr, so the kernel takes 64 KB per write and per
 * trip through its stack instead of one segment.
 *
 * The rules are tcp_gro_receive()'s, made stricter as wireguard-go's TUN GRO
 * (doc/kernel.md "GRO merge rules"): only ACK or ACK|PSH segments with payload; same
 * addresses, ports and ack number; same TCP header length and option bytes; IPv4
 * without options, same TOS, TTL and DF,
 * ID + 1 unless DF; IPv6 with TCP right after the header, same version/class/flow label
 * and hop limit; sequence numbers contiguous; every segment but the last exactly
 * gso_size long; PSH closes the super-packet; at most 64 segments and 65535 bytes.  Every
 * TCP checksum is verified first: a segment whose checksum is wrong is never merged, and
 * goes up alone for the kernel to drop.  Nothing is reordered within a flow, and the
 * table is flushed at the end of each batch: no timers.
 *
 * The receiving device's own GRO may have merged segments before sitd reads them (NICs
 * and virtio_net do; veth with NAPI): the raw socket then gives one packet of up to 64 KB
 * whose TCP checksum field holds only the pseudo-header sum, as tcp_gro_complete() leaves
 * it (CHECKSUM_PARTIAL).  Such a packet goes up alone as the super-packet it is, with
 * NEEDS_CSUM and, being longer than one segment, GSO at the tunnel MTU's segment size
 * (the raw socket does not tell the sender's; doc/kernel.md "Merged by the kernel").
 * A segment in that form that is no longer than one segment comes from a sender that
 * left its checksum to the device (a kernel or sitd -T packet behind veth, which hands it
 * on unfinished): it is taken as the kernel takes CHECKSUM_PARTIAL, without reading its
 * bytes, and merges as a verified one would (doc/kernel.md "Checksums left to the device").
 *
 * Zero copy: an output is [vnet header][head packet][payloads of the segments after it],
 * as iovecs into the receive buffers, which must stay untouched until it is written.
 */
#ifndef SITD_GRO_H
#define SITD_GRO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "core/stats.h"
#include "core/wire.h"

enum {
	GRO_BATCH = 64,		/* packets per batch, and so items at most */
	GRO_MAX_SEGS = 64,	/* UDP_MAX_SEGMENTS on older kernels; also a TUN-friendly cap */
	GRO_HDR_MAX = IPV6_HDR_LEN + TCP_HDR_MAX,
};

struct sitd_gro_item {
	uint8_t idx[GRO_MAX_SEGS];	/* batch indexes of its segments, head first */
	uint8_t nseg;
	bool candidate;			/* a verified TCP segment that may merge */
	bool closed;			/* PSH seen, or a short segment: no more appends */
	bool psh;
	bool kernel;			/* merged by the receiving device's GRO (see above) */
	uint8_t version;
	uint16_t l3len, hdrlen;		/* IP header, IP + TCP headers */
	uint16_t gso_size;
	uint16_t last_id;		/* IPv4 ID of the last segment */
	uint32_t next_seq;
	uint32_t total;			/* IP length of the merged packet */
	uint8_t vnet[VNET_HDR_LEN];
	uint8_t orig[GRO_HDR_MAX];	/* the head's headers as received, for sitd_gro_unmerge */
};

struct sitd_gro {
	bool enabled;
	uint16_t mtu;			/* the tunnel's: the segment size of a kernel merge */
	struct sitd_stats *stats;
	unsigned npkt, nitem;
	struct {
		uint8_t *p;
		uint32_t len;
		uint16_t csum_start;	/* a partial checksum: where it starts; 0: complete */
	} pkt[GRO_BATCH];
	struct sitd_gro_item item[GRO_BATCH];
	/* Filled by sitd_gro_finish(): item i is written as iov[iov_start[i] .. + iov_cnt[i]). */
	struct iovec iov[2 * GRO_BATCH];
	unsigned iov_start[GRO_BATCH], iov_cnt[GRO_BATCH];
};

void sitd_gro_init(struct sitd_gro *g, bool enabled, struct sitd_stats *stats);

/* Add one inner IP packet (already decapsulated and trimmed); false when the batch is full. */
bool sitd_gro_add(struct sitd_gro *g, uint8_t *pkt, uint32_t len);

/* Close the batch: fix the merged heads' headers and build the outputs; returns nitem. */
unsigned sitd_gro_finish(struct sitd_gro *g);

/*
 * Add an inner packet the receiving kernel merged, with the segment size and type its
 * vnet header gave (-R ring): written alone with NEEDS_CSUM and that GSO, so merged UDP
 * datagrams are split again where they were.  gso_type is VNET_GSO_TCPV4/TCPV6/UDP_L4
 * (| VNET_GSO_ECN).  A packet that does not match the type, or gso_size 0 (not merged),
 * goes the sitd_gro_add way.  false when the batch is full.
 */
bool sitd_gro_add_merged(struct sitd_gro *g, uint8_t *pkt, uint32_t len, uint8_t gso_type, uint16_t gso_size);

/* Empty the table for the next batch. */
static inline void sitd_gro_reset(struct sitd_gro *g)
{
	g->npkt = g->nitem = 0;
}

/*
 * When the kernel refuses a merged write (EINVAL on kernels that reject a short last
 * segment, tailscale#13041): restore item i's head as it was received.  Its segments can
 * then be written one by one: g->pkt[item->idx[k]], with the vnet header that
 * sitd_gro_seg_vnet() writes.
 */
void sitd_gro_unmerge(struct sitd_gro *g, unsigned i);

/* The vnet header for batch packet idx written alone: NEEDS_CSUM when partial, else zero. */
void sitd_gro_seg_vnet(const struct sitd_gro *g, unsigned idx, uint8_t vnet[VNET_HDR_LEN]);

/* The same for an item the kernel merged: written again without GSO (false: it had none). */
bool sitd_gro_kernel_nogso(struct sitd_gro *g, unsigned i);

#endif
