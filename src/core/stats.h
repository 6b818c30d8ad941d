/* SPDX-License-Identifier: MIT */
/*
 * Counters.  Each struct sitd_stats has one writing thread (a tunnel's tx_stats the worker
 * that reads its device, its rx_stats the worker that owns its receive path); the control
 * thread (show, status, SIGUSR1) sums them.
 * STAT_ADD stores with a relaxed atomic: a plain add and store on x86, no lock prefix,
 * but no torn read for the reader either.
 */
#ifndef SITD_STATS_H
#define SITD_STATS_H

#include <stdint.h>

/* X(name, description): one named reason and counter per way a packet can die. */
#define SITD_DROP_REASONS(X)                                                              \
	X(tx_vnet_bad, "virtio_net_hdr from TUN malformed or inconsistent with the packet")  \
	X(tx_frame_too_long, "read from TUN longer than the largest IPv6 packet")            \
	X(tx_gso_unsupported, "GSO type other than TCPv4/TCPv6")                              \
	X(tx_malformed, "inner IP header from TUN malformed or truncated")                   \
	X(tx_mode, "inner protocol not carried by this tunnel mode")                          \
	X(tx_hdr_too_long, "inner headers longer than sitd splits")                          \
	X(tx_too_big, "larger than the tunnel MTU; ICMP error returned")                     \
	X(tx_mtu_floor, "path MTU leaves less than 68 bytes inside (kernel: collisions)")    \
	X(tx_frag_too_many, "outer fragmentation would need more fragments than fit")        \
	X(tx_oversize, "larger than 65535 bytes once encapsulated, IPv4 without DF")          \
	X(tx_send_error, "sendmmsg on the raw socket failed")                                 \
	X(tx_encap_limit, "inner IPv6 Tunnel Encapsulation Limit 0; Parameter Problem returned") \
	X(tx_src_is_remote, "inner IPv6 source is the tunnel's remote (ip6_tnl_addr_conflict)") \
	X(rx_truncated, "outer IPv4 header or length inconsistent with bytes received")      \
	X(rx_outer_csum, "outer IPv4 header checksum wrong")                                  \
	X(rx_fragment, "outer IPv4 fragment (the kernel reassembles before raw sockets)")   \
	X(rx_no_tunnel, "no tunnel has this outer source, destination and device (process)") \
	X(rx_proto, "outer protocol not carried by this tunnel mode")                         \
	X(rx_wrong_source, "outer source is not the configured remote")                       \
	X(rx_wrong_dest, "outer destination is not the configured local")                     \
	X(rx_inner_version, "inner IP version does not match the outer protocol")            \
	X(rx_inner_truncated, "inner header or length inconsistent with the bytes left")     \
	X(rx_ecn, "outer CE on a Not-ECT inner packet (RFC 6040 4.2)")                        \
	X(rx_gro_udp, "inner UDP datagrams the receiving device's GRO merged (sizes lost)")  \
	X(rx_gue_version, "GUE version other than 0 and 1")                                    \
	X(rx_gue_control, "GUE control message")                                              \
	X(rx_gue_flags, "GUE flags or options sitd does not know")                            \
	X(rx_outer_addr, "outer IPv6 source not unicast, or loopback, or link-local without dev (ip6_tnl_get_cap)") \
	X(rx_local_remote, "outer IPv6 source is this host's own address, allow-localremote not set") \
	X(rx_6rd_spoofed_src, "6rd/6to4 inner source embeds another IPv4 address than the outer source") \
	X(rx_6rd_spoofed_dst, "6rd/6to4 inner destination embeds another IPv4 address than the outer one, not our prefix") \
	X(rx_isatap_src, "ISATAP source neither a PRL router nor an on-link host matching the outer source") \
	X(rx_isatap_ra_host, "ISATAP router advertisement from a host, not a PRL router")  \
	X(rx_isatap_nd_host, "ISATAP redirect from a host, or headers that hide whether it is one") \
	X(rx_isatap_nd_nodefault, "ISATAP redirect from a PRL router without prl-default, or headers hiding one") \
	X(tx_no_nexthop, "automatic destination needed a next hop and the route has none")       \
	X(tx_isatap_nexthop, "ISATAP next hop is not a unicast ISATAP address")                \
	X(tx_not_v4compat, "no 6rd/6to4 destination and the next hop is not ::a.b.c.d")         \
	X(tun_read_error, "read from TUN failed")                                             \
	X(tun_down, "device down: TUN refuses writes (the kernel's lookup skips a down tunnel)") \
	X(tun_write_error, "write to TUN failed")                                            \
	X(ptb6_malformed, "fou6 ICMPv6 socket: not a Packet Too Big, or shorter than its header and a quoted IPv6 header") \
	X(ptb6_not_udp, "fou6 ICMPv6 socket: the quoted packet's header chain ends in no whole UDP header") \
	X(ptb6_no_tunnel, "fou6 ICMPv6 socket: no fou6 tunnel sends from the quoted source to the quoted destination") \
	X(ptb6_wrong_port, "fou6 ICMPv6 socket: the quoted UDP destination port is not the tunnel's encap-dport")

enum sitd_drop {
#define SITD_DROP_ENUM(name, desc) SITD_DROP_##name,
	SITD_DROP_REASONS(SITD_DROP_ENUM)
#undef SITD_DROP_ENUM
	SITD_DROP_MAX
};

/* Non-drop counters, printed before the drops. */
#define SITD_COUNTERS(X)                                                                  \
	X(tx_packets, "outer packets sent")                                                   \
	X(tx_bytes, "outer bytes sent")                                                       \
	X(tx_gso_packets, "GSO super-packets read from TUN")                                  \
	X(tx_gso_segments, "segments made from them")                                        \
	X(tx_csum_completed, "checksums completed for NEEDS_CSUM packets")                    \
	X(tx_csum_offloaded, "inner checksums left to the device (-T packet, NEEDS_CSUM)")    \
	X(tx_fragments, "outer IPv4 fragments sent")                                          \
	X(tx_packet_socket, "of tx_packets, sent through AF_PACKET (-T packet)")             \
	X(tx_icmp_ptb, "ICMPv6 Packet Too Big written to TUN")                               \
	X(tx_icmp_frag_needed, "ICMPv4 Fragmentation Needed written to TUN")                 \
	X(tx_icmp_ratelimited, "ICMP errors suppressed by the rate limit")                   \
	X(tx_icmp_declined, "ICMP errors not sent (RFC 4443 2.4(e), RFC 1812 4.3.2.7)")      \
	X(tx_icmp_link_failure, "unreachable errors sent by the damper (kernel err_count)")    \
	X(err_received, "ICMPv4 errors received about our outer packets")                     \
	X(err_frag_needed, "... of which Fragmentation Needed (path MTU)")                    \
	X(err_relayed, "... relayed to the inner sender")                                     \
	X(err_damped, "... not relayable, counted for the damper")                            \
	X(rx_packets, "inner packets written to TUN")                                         \
	X(rx_bytes, "inner bytes written to TUN")                                             \
	X(rx_ecn_marked, "inner packets whose ECN field was changed on decapsulation")       \
	X(rx_gro_packets, "super-packets written to TUN (GRO)")                               \
	X(rx_gro_merged, "segments merged into them")                                        \
	X(rx_gro_fallback, "merged writes the kernel refused, rewritten one by one")        \
	X(rx_gro_kernel, "super-packets the receiving device's GRO had merged")              \
	X(rx_ring, "outer packets read from the AF_PACKET ring (-R ring)")                  \
	X(rx_csum_bad, "inner TCP segments with a wrong checksum (not merged)")              \
	X(rx_csum_partial, "inner TCP segments whose checksum a local sender left to finish") \
	/* clamp-mss (mss.h): SYNs whose MSS option was lowered, each way */                \
	X(tx_mss_clamped, "TCP SYNs from TUN whose MSS was lowered (clamp-mss)")             \
	X(rx_mss_clamped, "TCP SYNs for TUN whose MSS was lowered (clamp-mss)")

struct sitd_stats {
#define SITD_CTR_FIELD(name, desc) uint64_t name;
	SITD_COUNTERS(SITD_CTR_FIELD)
#undef SITD_CTR_FIELD
	uint64_t drop[SITD_DROP_MAX];
};

#define STAT_ADD(lv, n) \
	__atomic_store_n(&(lv), __atomic_load_n(&(lv), __ATOMIC_RELAXED) + (n), __ATOMIC_RELAXED)
#define STAT_INC(lv) STAT_ADD(lv, 1)
#define STAT_DROP(st, reason) STAT_INC((st)->drop[SITD_DROP_##reason])

extern const char *const sitd_drop_names[SITD_DROP_MAX];

/* Add src into dst, reading src with relaxed atomic loads. */
void sitd_stats_sum(struct sitd_stats *dst, const struct sitd_stats *src);

#endif
