#!/usr/bin/env bash
# The device MTU raised to 1500 over a 1500 link (the kernel allows this for its sit too):
# sitd, not the local kernel, must then judge packets against the 1480 bytes the path
# leaves.  Packets that do not fit get Packet Too Big / Fragmentation Needed with 1480;
# a bulk TCP transfer with TSO on completes after one such error lowers its MSS, and keeps
# sending super-packets: segments are judged, not super-packets.  Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum ss
make_data 200

# tcp_case NAME MODE ADDR: bulk TCP with the device MTU at 1500.
tcp_case() {
	local name=$1 mode=$2 addr=$3
	setup_pair
	setup_tunnel "$mode"
	na ip link set "$TUN" mtu 1500
	nb ip link set "$TUN" mtu 1500
	check "$name: 200 MB with device MTU 1500, sha256 equal" transfer "$addr"
	local errs=$(( $(ctr "$PID_A" tx_icmp_ptb) + $(ctr "$PID_A" tx_icmp_frag_needed) ))
	expect_ge "$name: sitd answered the oversized segments" "$errs" 1
	check "$name: ... a handful of times, not per packet ($errs)" test "$errs" -le 20
	expect_ge "$name: super-packets still split by sitd" "$(ctr "$PID_A" tx_gso_packets)" 100
	# The kernel now holds the path MTU that sitd announced.
	check "$name: route to $addr learned mtu 1480" \
		bash -c "ip netns exec $NS_A ip route get $addr | grep -q 'mtu 1480'"
	teardown
}

tcp_case "sit" sit $B6
tcp_case "ipip" ipip $B4IN

setup_pair
setup_tunnel any
na ip link set "$TUN" mtu 1500
out=$(na ping -6 -M do -s 1452 -c 2 -i 0.3 -W 1 $B6 2>&1)
echo "$out"
check "ping6 -M do -s 1452: Packet Too Big mtu=1480 from sitd" grep -q 'mtu=1480' <<<"$out"
# From the device's own address, as the kernel's icmp6_send() picks it, not from B.
check "... from A's own address on the tunnel ($A6), not from B" grep -q "^From $A6 .*mtu=1480" <<<"$out"
expect_ge "tx_icmp_ptb counted" "$(ctr "$PID_A" tx_icmp_ptb)" 1
out=$(na ping -4 -M do -s 1472 -c 2 -i 0.3 -W 1 $B4IN 2>&1)
echo "$out"
check "ping -M do -s 1472: Frag needed mtu = 1480 from sitd" grep -q 'mtu = 1480' <<<"$out"
expect_ge "tx_icmp_frag_needed counted" "$(ctr "$PID_A" tx_icmp_frag_needed)" 1
check "ping6 -s 1432 (1480 bytes) still passes" na ping -6 -M do -s 1432 -c 1 -W 2 -q $B6
check "ping -s 1452 (1480 bytes) still passes" na ping -4 -M do -s 1452 -c 1 -W 2 -q $B4IN
# Without DF an IPv4 packet that does not fit is fragmented outside, not refused.  The
# route cache first forgets the 1480 it learned, or the local kernel fragments inside.
na ip -4 route flush cache
check "ping -M dont -s 1472 (1500 bytes) passes, fragmented outside" \
	na ping -4 -M dont -s 1472 -c 1 -W 2 -q $B4IN
expect_ge "outer fragments counted" "$(ctr "$PID_A" tx_fragments)" 2
finish
