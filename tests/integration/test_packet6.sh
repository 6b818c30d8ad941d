#!/usr/bin/env bash
# -T packet over an IPv6 underlay (ip6tnl, issue 21): A's outer IPv6 packets as whole
# Ethernet frames through AF_PACKET, the next hop from the IPv6 route and its link-layer
# address from the NDP cache (path.c, nl_route_get6 / nl_neigh_get6); B sends through its
# raw socket, as the kernel does.
#
#  - ip6ip6 on one link: the first ping works; 200 MB over TCP, sha256 equal, nearly
#    every outer packet a frame, each with its inner checksum left to the device
#    (NEEDS_CSUM), nothing dropped; B's MAC changes and the frames follow;
#  - ipip6 with local any through a router (setup_routed6, MTU 1400 toward B): the next
#    hop is the router's gateway address, the source the route's; 200 MB over TCP, the
#    path MTU learned from the router's Packet Too Big although the kernel never saw the
#    frames it was about (the receive socket's error queue has it, rawv6_err);
#  - without -T packet nothing goes through AF_PACKET.
TUN=t6
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

make_data 200

setup_pair6
SITD_OPTS_A="-T packet" setup_tunnel6 ip6ip6
check "ip6ip6 -T packet: the first ping, no warm-up" na ping -6 -c 1 -W 2 -q $B6
packet_frames_wait -6 $B6
expect_ge "ip6ip6: pings leave through AF_PACKET (the NDP entry of $B6U)" "$(ctr "$PID_A" tx_packet_socket)" 1
sent0=$(ctr "$PID_A" tx_packets)
pkt0=$(ctr "$PID_A" tx_packet_socket)
off0=$(ctr "$PID_A" tx_csum_offloaded)
part0=$(ctr "$PID_B" rx_csum_partial)
bad0=$(nstat_of TcpInCsumErrors)
drops0=$(($(drops_total "$PID_A") + $(drops_total "$PID_B")))
check "ip6ip6: 200 MB over TCP through AF_PACKET frames, sha256 equal" transfer $B6
sent=$(($(ctr "$PID_A" tx_packets) - sent0))
pkt=$(($(ctr "$PID_A" tx_packet_socket) - pkt0))
off=$(($(ctr "$PID_A" tx_csum_offloaded) - off0))
echo "# $pkt of $sent outer packets through AF_PACKET, $off inner checksums left to the device"
expect_ge "... 100000 outer packets or more" "$sent" 100000
expect_ge "... 99 % of them through AF_PACKET (one a second may go the raw way)" "$((pkt * 100))" $((sent * 99))
expect_ge "... 99 % with the inner checksum left to the device" "$((off * 100))" $((sent * 99))
expect_ge "... B took 99 % of those unfinished (rx_csum_partial)" \
	"$(( ($(ctr "$PID_B" rx_csum_partial) - part0) * 100 ))" $((off * 99))
expect_eq "... B's TCP counted no checksum error" "$(($(nstat_of TcpInCsumErrors) - bad0))" 0
expect_eq "... and nothing dropped on either side" "$(($(drops_total "$PID_A") + $(drops_total "$PID_B") - drops0))" 0
check "... B -> A as well (B through its raw socket)" transfer $A6 5002 ba

check_mac_change $B6U
teardown

# ipip6, A's local any, through R (MTU 1400 toward B): the next hop is R's 2001:db8:a::fe.
setup_routed6 1400
start_sitd "$NS_A" sitd-a -T packet "$TUN" mode ipip6 remote $B6U
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b "$TUN" mode ipip6 remote $A6U local $B6U
PID_B=$LAST_PID
tun_up "$NS_A" "$TUN" $A6 $A4IN
tun_up "$NS_B" "$TUN" $B6 $B4IN
nb ip link set "$TUN" mtu 1452	# B leaves the learning to A (test_ip6tnl_pmtu.sh's big_b)
check "ipip6 -T packet, local any, via a router: the first ping" na ping -4 -c 1 -W 2 -q $B4IN
packet_frames_wait -4 $B4IN
expect_ge "ipip6: pings through AF_PACKET, to the router's address" "$(ctr "$PID_A" tx_packet_socket)" 1
expect_eq "... the next hop's entry is the router's" \
	"$(na ip -6 neigh show 2001:db8:a::fe dev va | grep -c lladdr)" 1
pkt0=$(ctr "$PID_A" tx_packet_socket)
check "ipip6: 200 MB over TCP through R at 1400, sha256 equal" transfer $B4IN
expect_eq "... A learned the path MTU 1400 from R's Packet Too Big about its frames" "$(ctr "$PID_A" path_mtu)" 1400
expect_ge "... 100000 frames" "$(($(ctr "$PID_A" tx_packet_socket) - pkt0))" 100000
teardown

# Without -T packet: the raw socket only.
setup_pair6
setup_tunnel6 ip6ip6
check "without -T packet: pings" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
expect_eq "... none through AF_PACKET" "$(ctr "$PID_A" tx_packet_socket)" 0
finish
