#!/usr/bin/env bash
# Path MTU over an IPv6 underlay (ip6tnl, issue 21), a router in the middle: A - R - B
# (setup_routed6 in lib.sh), R forwarding IPv6 with MTU 1400 toward B.  For ip6ip6 and
# ipip6: a 200 MB TCP transfer from A to B completes (sha256 equal); A's sitd learned the
# path MTU 1400 from R's ICMPv6 Packet Too Big about its own outer packets (ip6_tnl_err);
# and the next inner packet too big for the path is answered to its sender with the MTU
# left inside, 1400 - 40 - 8 = 1352 (the IPv6 header and the Tunnel Encapsulation Limit
# option, ip6_tnl_xmit): ICMPv6 Packet Too Big for IPv6 inside, Fragmentation Needed for
# IPv4 inside (ipxip6_tnl_xmit), seen by ping -M do and on A's TUN device.
# Then fou6 with `encap-sport auto` (ip6ip6 over fou, ipip6 over gue): R's Packet Too Big
# quotes a UDP packet from a port no socket owns, so only sitd's ICMPv6 socket hears it
# (PRIV_ICMP6_PTB_OPEN): the very first oversized DF ping is answered with the MTU left
# inside, 1400 - 48 - 8 = 1344 (fou) or 1340 (gue), A's path MTU is 1400 while its
# kernel's route learned nothing, and a DF ping that fits and 200 MB of TCP pass after.
TUN=${TUN:-ip6tnl1}
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum ss jq tshark
make_data 200

INNER_MTU=$((1400 - 40 - 8))
# Inner destinations in the tunnel's prefixes that no transfer used: the kernel has no
# path MTU cached for them, so their packets reach sitd and its answer is what ping sees.
FRESH6=2001:db8:1::99
FRESH4=198.51.100.99

# B's own link is the small one, so B's tunnel would default to 1352 and its SYN would
# announce an MSS that fits before A learns anything: B at 1452, the MTU over a 1500
# link, leaves the learning to A (as test_pmtu.sh's big_b).
big_b() { nb ip link set "$TUN" mtu 1452; }

# capture_tun NAME: tshark on A's TUN device into $LOGDIR/NAME.pcapng (TPID its pid).
capture_tun() {
	CAP=$LOGDIR/$1.pcapng
	: >"$LOGDIR/tshark.log"
	ip netns exec "$NS_A" tshark -i "$TUN" -a duration:60 -w "$CAP" -q 2>"$LOGDIR/tshark.log" &
	TPID=$!
	for _ in $(seq 100); do grep -q Capturing "$LOGDIR/tshark.log" && break; sleep 0.1; done
	sleep 0.5	# "Capturing" can come a moment before the capture does
}
capture_stop() {
	sleep 0.3
	kill -INT "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
}
quiet() { "$@" >/dev/null; }
# cap_count FILTER: packets in $CAP matching a display filter.
cap_count() { tshark -r "$CAP" -Y "$1" 2>/dev/null | wc -l; }

for mode in ip6ip6 ipip6; do
	setup_routed6 1400
	setup_tunnel6 "$mode"
	big_b
	if [ "$mode" = ip6ip6 ]; then addr=$B6; else addr=$B4IN; fi
	expect_eq "$mode: A's device MTU over a 1500 link (1500 - 48)" \
		"$(ip -n "$NS_A" -o link show "$TUN" | grep -o 'mtu [0-9]*' | cut -d' ' -f2)" 1452
	check "$mode: 200 MB from A to B through R at 1400, sha256 equal" transfer "$addr"
	expect_eq "$mode: A learned the path MTU 1400 from R's Packet Too Big" "$(ctr "$PID_A" path_mtu)" 1400
	expect_ge "$mode: ... counted as an ICMPv6 error about A's outer packets" "$(ctr "$PID_A" err_received)" 1
	expect_ge "$mode: ... and as a path MTU one" "$(ctr "$PID_A" err_frag_needed)" 1
	# The inner sender learns it from R's error relayed (ip6ip6_err / ip4ip6_err turn the
	# quoted packet's Packet Too Big into one for the inner packet) or from sitd's own
	# answer to a segment that no longer fits; either way it was told.
	if [ "$mode" = ip6ip6 ]; then told=tx_icmp_ptb; else told=tx_icmp_frag_needed; fi
	expect_ge "$mode: the inner sender was told (err_relayed + $told)" \
		$(($(ctr "$PID_A" err_relayed) + $(ctr "$PID_A" $told))) 1

	# The next large packet into the tunnel: 1400 bytes of payload, DF, to a destination
	# with nothing cached; it fits the device (1452) but not the path.
	capture_tun "$mode-ping"
	if [ "$mode" = ip6ip6 ]; then
		before=$(ctr "$PID_A" tx_icmp_ptb)
		out=$(na ping -6 -c 1 -M do -s 1400 -W 2 $FRESH6 2>&1)
		capture_stop
		echo "$out" | grep -i 'too big' | sed 's/^/  # /'
		check "$mode: ping -M do -s 1400 gets Packet too big with mtu=$INNER_MTU" \
			grep -q "Packet too big: mtu=$INNER_MTU\b" <<<"$out"
		expect_eq "$mode: one more Packet Too Big counted" "$(ctr "$PID_A" tx_icmp_ptb)" $((before + 1))
		expect_eq "$mode: on A's TUN device: Packet Too Big, mtu $INNER_MTU, to A's inner address" \
			"$(cap_count "icmpv6.type == 2 && icmpv6.mtu == $INNER_MTU && ipv6.dst == $A6")" 1
		expect_eq "$mode: ... quoting the ping" \
			"$(cap_count "icmpv6.type == 2 && icmpv6.echo.identifier && ipv6.dst == $FRESH6")" 1
	else
		before=$(ctr "$PID_A" tx_icmp_frag_needed)
		out=$(na ping -4 -c 1 -M do -s 1400 -W 2 $FRESH4 2>&1)
		capture_stop
		echo "$out" | grep -i 'frag' | sed 's/^/  # /'
		check "$mode: ping -4 -M do -s 1400 gets Frag needed with mtu = $INNER_MTU" \
			grep -q "Frag needed and DF set (mtu = $INNER_MTU)" <<<"$out"
		expect_eq "$mode: one more Fragmentation Needed counted" \
			"$(ctr "$PID_A" tx_icmp_frag_needed)" $((before + 1))
		expect_eq "$mode: on A's TUN device: Fragmentation Needed, mtu $INNER_MTU, to A's inner address" \
			"$(cap_count "icmp.type == 3 && icmp.code == 4 && icmp.mtu == $INNER_MTU && ip.dst == $A4IN")" 1
	fi
	expect_ge "$mode: ... and the packet not sent (tx_too_big)" "$(ctr "$PID_A" drop_tx_too_big)" 1
	# A packet that fits the learned path still passes: 1352 inside.
	if [ "$mode" = ip6ip6 ]; then
		check "$mode: a $INNER_MTU-byte ping with DF passes" \
			quiet na ping -6 -c 2 -i 0.3 -M do -s $((INNER_MTU - 48)) -W 2 -q $B6
	else
		check "$mode: a $INNER_MTU-byte ping with DF passes" \
			quiet na ping -4 -c 2 -i 0.3 -M do -s $((INNER_MTU - 28)) -W 2 -q $B4IN
	fi
	teardown
done

# fou6 / gue6 with encap-sport auto (the default).
for encap in fou gue; do
	if [ $encap = fou ]; then mode=ip6ip6 eh=8; else mode=ipip6 eh=12; fi
	inner=$((1400 - 48 - eh)) dev_mtu=$((1500 - 48 - eh))
	name="$mode over $encap, encap-sport auto"
	setup_routed6 1400
	setup_tunnel6 "$mode" encap $encap encap-dport 5555
	nb ip link set "$TUN" mtu $dev_mtu
	expect_eq "$name: A's device MTU over a 1500 link (1500 - 48 - $eh)" \
		"$(ip -n "$NS_A" -o link show "$TUN" | grep -o 'mtu [0-9]*' | cut -d' ' -f2)" $dev_mtu
	# The first packet into the tunnel: it fits the device, not the path; R's error is
	# the first sitd hears of the path.
	if [ $mode = ip6ip6 ]; then
		out=$(na ping -6 -c 1 -M do -s $((dev_mtu - 48)) -W 2 $FRESH6 2>&1)
		echo "$out" | grep -i 'too big' | sed 's/^/  # /'
		check "$name: the first DF ping of $dev_mtu gets Packet too big with mtu=$inner" \
			grep -q "Packet too big: mtu=$inner\b" <<<"$out"
	else
		out=$(na ping -4 -c 1 -M do -s $((dev_mtu - 28)) -W 2 $FRESH4 2>&1)
		echo "$out" | grep -i 'frag' | sed 's/^/  # /'
		check "$name: the first DF ping of $dev_mtu gets Frag needed with mtu = $inner" \
			grep -q "Frag needed and DF set (mtu = $inner)" <<<"$out"
	fi
	expect_eq "$name: R's error relayed by sitd (err_relayed)" "$(ctr "$PID_A" err_relayed)" 1
	expect_ge "$name: ... counted as a path MTU error" "$(ctr "$PID_A" err_frag_needed)" 1
	sleep 0.5	# the control thread reads the path again (path_drain)
	expect_eq "$name: A's path MTU is 1400, learned by sitd" "$(ctr "$PID_A" path_mtu)" 1400
	check "$name: ... which A's kernel route never learned (no socket owns the source port)" \
		bash -c "! ip -n $NS_A -6 route get $B6U | grep -q 'mtu 1400'"
	if [ $mode = ip6ip6 ]; then
		check "$name: a $inner-byte ping with DF passes" \
			quiet na ping -6 -c 2 -i 0.3 -M do -s $((inner - 48)) -W 2 -q $B6
		addr=$B6
	else
		check "$name: a $inner-byte ping with DF passes" \
			quiet na ping -4 -c 2 -i 0.3 -M do -s $((inner - 28)) -W 2 -q $B4IN
		addr=$B4IN
	fi
	check "$name: 200 MB from A to B through R at 1400, sha256 equal" transfer "$addr"
	expect_eq "$name: the path MTU still 1400 after it" "$(ctr "$PID_A" path_mtu)" 1400
	teardown
done
finish
