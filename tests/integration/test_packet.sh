#!/usr/bin/env bash
# -T packet: outer packets as whole Ethernet frames through AF_PACKET (doc/architecture.md,
# "-T packet").  A sends that way, B through its raw socket, as the kernel does:
#
#  - no warm-up: the first ping works (the neighbour is not known yet: the raw socket
#    carries it, and the kernel resolves the neighbour);
#  - 200 MB over TCP, sha256 equal, nearly every outer packet through AF_PACKET, no drop;
#    each with its inner checksum left to the device (NEEDS_CSUM), which veth hands on
#    unfinished: B takes them so and merges them unread, and B's TCP sees no bad sum;
#  - ipip through it too;
#  - the next hop's address changes (B's MAC, and A's neighbour entry replaced): the
#    frames follow within the second's lookup;
#  - nopmtudisc with a tunnel MTU above the veth's: sitd fragments, and frames the
#    fragments; over TCP, it finishes the inner checksums of fragmented segments itself;
#  - without -T packet nothing goes through AF_PACKET.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

make_data 200
setup_pair
SITD_OPTS_A="-T packet" setup_tunnel sit
check "the first ping, no warm-up" na ping -6 -c 1 -W 2 -q $B6
packet_frames_wait -6 $B6
expect_ge "once the neighbour is known, pings leave through AF_PACKET" "$(ctr "$PID_A" tx_packet_socket)" 1
sent0=$(ctr "$PID_A" tx_packets)
pkt0=$(ctr "$PID_A" tx_packet_socket)
off0=$(ctr "$PID_A" tx_csum_offloaded)
part0=$(ctr "$PID_B" rx_csum_partial)
merged0=$(ctr "$PID_B" rx_gro_merged)
bad0=$(nstat_of TcpInCsumErrors)
# (Before B's device was up, what A's came-up device sent was counted tun_down there.)
drops0=$(($(drops_total "$PID_A") + $(drops_total "$PID_B")))
check "200 MB over TCP through AF_PACKET frames, sha256 equal" transfer $B6
sent=$(($(ctr "$PID_A" tx_packets) - sent0))
pkt=$(($(ctr "$PID_A" tx_packet_socket) - pkt0))
echo "# $pkt of $sent outer packets through AF_PACKET"
expect_ge "... 100000 outer packets or more" "$sent" 100000
expect_ge "... 99 % of them through AF_PACKET (one a second may go the raw way)" "$((pkt * 100))" $((sent * 99))
off=$(($(ctr "$PID_A" tx_csum_offloaded) - off0))
part=$(($(ctr "$PID_B" rx_csum_partial) - part0))
echo "# A left $off inner checksums to the device; B took $part segments so"
expect_ge "... 99 % of them with the inner checksum left to the device" "$((off * 100))" $((sent * 99))
expect_ge "... B took 99 % of those unfinished (rx_csum_partial)" "$((part * 100))" $((off * 99))
expect_ge "... and merged them (rx_gro_merged)" "$(($(ctr "$PID_B" rx_gro_merged) - merged0))" $((part / 4))
expect_eq "... B's TCP counted no checksum error" "$(($(nstat_of TcpInCsumErrors) - bad0))" 0
for p in "$PID_A" "$PID_B"; do
	"$SITD" -S "$(sock_of "$p")" show -s -j | jq -c '[.[].stats.drops | to_entries[] | select(.value > 0)]' | sed 's/^/# drops: /'
	"$SITD" -S "$(sock_of "$p")" status -j | jq -c '[.drops | to_entries[] | select(.value > 0)]' | sed 's/^/# process drops: /'
done
expect_eq "... and nothing dropped on either side" "$(($(drops_total "$PID_A") + $(drops_total "$PID_B") - drops0))" 0

# The next hop's address changes: B's MAC, and A's neighbour entry with it (as a
# gratuitous ARP or an administrator would have it).
check_mac_change $B4
teardown

# ipip, and nopmtudisc with a tunnel MTU above the veth's: sitd fragments the long ones
# (as the kernel's ip_tunnel_xmit lets ip_fragment do), each fragment a frame.
setup_pair
SITD_OPTS_A="-T packet" setup_tunnel ipip nopmtudisc ttl 0 mtu 1600
check "ipip: the first ping" na ping -4 -c 1 -W 2 -q $B4IN
packet_frames_wait -4 $B4IN
expect_ge "ipip: pings through AF_PACKET" "$(ctr "$PID_A" tx_packet_socket)" 1
pkt0=$(ctr "$PID_A" tx_packet_socket)
frag0=$(ctr "$PID_A" tx_fragments)
check "1560-byte outer packets over a 1500-byte veth: fragmented, they arrive" \
	na ping -4 -c 3 -i 0.2 -W 2 -q -s 1540 -M dont $B4IN
expect_ge "... sitd fragmented them (RFC 4213 3.2.2: no DF inside, none outside)" "$(($(ctr "$PID_A" tx_fragments) - frag0))" 6
expect_ge "... and framed the fragments, each within the MTU" "$(($(ctr "$PID_A" tx_packet_socket) - pkt0))" 6
teardown

# sit with nopmtudisc and MTU 1600: TCP segments of 1600 bytes leave as two outer
# fragments each, whose inner checksum a device could not finish (it spans both): sitd
# finishes it before the split, and leaves none to the device.
setup_pair
SITD_OPTS_A="-T packet" setup_tunnel sit nopmtudisc ttl 0 mtu 1600
check "sit, MTU 1600 over a 1500-byte veth: the first ping" na ping -6 -c 1 -W 2 -q $B6
frag0=$(ctr "$PID_A" tx_fragments)
off0=$(ctr "$PID_A" tx_csum_offloaded)
bad0=$(nstat_of TcpInCsumErrors)
check "200 MB over TCP in outer fragments, sha256 equal" transfer $B6
frag=$(($(ctr "$PID_A" tx_fragments) - frag0))
echo "# $frag fragments, $(($(ctr "$PID_A" tx_csum_offloaded) - off0)) checksums left to the device"
expect_ge "... 200000 fragments or more" "$frag" 200000
expect_ge "... checksums left to the device only for whole packets (under 1 % of fragments)" \
	"$((frag / 100))" "$(($(ctr "$PID_A" tx_csum_offloaded) - off0))"
expect_eq "... B's TCP counted no checksum error" "$(($(nstat_of TcpInCsumErrors) - bad0))" 0
teardown

# Without -T packet: the raw socket only.
setup_pair
setup_tunnel sit
check "without -T packet: pings" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
expect_eq "... none through AF_PACKET" "$(ctr "$PID_A" tx_packet_socket)" 0
expect_eq "-T something-else is refused" "$("$SITD" -T fast t0 mode sit remote $B4 2>&1; echo "rc=$?")" \
	"$(printf 'sitd: -T takes raw or packet, not "fast"\nrc=2')"
finish
