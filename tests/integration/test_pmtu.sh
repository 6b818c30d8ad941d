#!/usr/bin/env bash
# Path MTU with a router in the middle (topology: setup_routed in lib.sh).  sitd learns
# the outer path MTU from R's Fragmentation Needed, answers the inner sender with Packet
# Too Big so its MSS drops, follows a path MTU that shrinks mid-transfer and one that
# grows back when the learned value expires, carries IPv6 up to 1280 without DF when the
# path leaves less (RFC 4213 3.2.2), delivers with nopmtudisc through fragmentation, and
# relays R's time exceeded to the inner sender from R's v4-mapped address.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum ss
make_data 200

# B's own link is the small one, so B's tunnel would default to 1380 and its SYN would
# announce an MSS that fits before A has to learn anything.  B set to 1480, as a tunnel
# broker's end would be, leaves the learning to A.
big_b() { nb ip link set "$TUN" mtu 1480; }

# --- 1. learning the path MTU, and the inner MSS following it ------------------------
setup_routed 1400
setup_tunnel sit
big_b
# Learned values expire after 5 s here instead of the kernel's 600, to see one expire.
na sysctl -qw net.ipv4.route.mtu_expires=5
transfer_bg $B6
# Sample the connection while it runs; keep the last sample that shows an MSS.
ss_line=
for _ in $(seq 40); do
	line=$(na ss -tin dst "[$B6]" | grep -o 'advmss:[0-9]* .*\| mss:[0-9]*' | head -n 2 | tr '\n' ' ')
	[[ $line == *" mss:"* ]] && ss_line=$line
	kill -0 "$BG" 2>/dev/null || break
	sleep 0.1
done
wait "$BG"
check "R at 1400: 200 MB through the tunnel, sha256 equal" test "$(cat "$LOGDIR/bg.out")" = ""
mtu=$(ctr "$PID_A" path_mtu)
expect_eq "A learned the path MTU from R" "$mtu" 1400
expect_ge "A received Fragmentation Needed" "$(ctr "$PID_A" err_frag_needed)" 1
expect_ge "A answered the inner sender with Packet Too Big" "$(ctr "$PID_A" tx_icmp_ptb)" 1
mss=$(grep -o ' mss:[0-9]*' <<<" $ss_line" | head -n 1 | cut -d: -f2)
echo "  ss -ti during the transfer: $ss_line"
check "inner MSS dropped to fit 1400 - 20 - 60 (mss $mss <= 1320)" test "${mss:-99999}" -le 1320
check "inner route learned mtu 1380" bash -c "ip netns exec $NS_A ip -6 route get $B6 | grep -q 'mtu 1380'"

# --- 2. the path grows back: the learned value expires --------------------------------
nr ip link set rb mtu 1500
nb ip link set vb mtu 1500
for _ in $(seq 30); do
	[ "$(ctr "$PID_A" path_mtu)" = 1500 ] && break
	sleep 0.5
done
expect_eq "after expiry, the path MTU is 1500 again" "$(ctr "$PID_A" path_mtu)" 1500

# --- 3. the path shrinks during a transfer ----------------------------------------------
transfer_bg $B6
sleep 0.5
nr ip link set rb mtu 1300
nb ip link set vb mtu 1300
wait "$BG"
check "R lowered to 1300 mid-transfer: sha256 equal" test "$(cat "$LOGDIR/bg.out")" = ""
expect_eq "A followed to 1300" "$(ctr "$PID_A" path_mtu)" 1300

# --- 4. time exceeded relayed (ttl inherit: the inner hop limit becomes the outer TTL) --
out=$(na ping -6 -c 1 -t 1 -W 2 $B6 2>&1)
echo "$out" | grep From
check "hop limit 1: Time exceeded from R's v4-mapped address" grep -q 'From ::ffff:192.0.2.254.*Time exceeded' <<<"$out"
expect_ge "counted as relayed" "$(ctr "$PID_A" err_relayed)" 1
teardown

setup_routed 1400
setup_tunnel ipip
big_b
out=$(na ping -4 -c 1 -t 1 -W 2 $B4IN 2>&1)
echo "$out" | grep From
check "ipip, TTL 1: Time to live exceeded from R" grep -q 'From 192.0.2.254.*Time to live exceeded' <<<"$out"
check "ipip: 200 MB through R at 1400, sha256 equal" transfer $B4IN
expect_eq "ipip: A learned 1400" "$(ctr "$PID_A" path_mtu)" 1400
teardown

# --- 5. path MTU - 20 below 1280: IPv6 up to 1280 still passes, without DF -----------
setup_routed 1200
setup_tunnel sit
big_b
na ping -6 -c 1 -s 1232 -W 2 -q $B6 >/dev/null	# the first one teaches A the path MTU
check "R at 1200: ping6 of 1280 bytes passes" na ping -6 -c 2 -i 0.3 -s 1232 -M do -W 2 -q $B6
check "R at 1200: 200 MB, sha256 equal" transfer $B6
expect_eq "A learned 1200" "$(ctr "$PID_A" path_mtu)" 1200
expect_ge "A fragmented the 1300-byte outer packets itself" "$(ctr "$PID_A" tx_fragments)" 2
rmtu=$(na ip -6 route get $B6 | grep -oE 'mtu [0-9]+' | cut -d' ' -f2)
check "the inner path MTU never goes below 1280 (route: ${rmtu:-device mtu})" test "${rmtu:-1480}" -ge 1280
teardown

# --- 6. nopmtudisc: no DF, R fragments, B reassembles ---------------------------------
setup_routed 1400
setup_tunnel sit nopmtudisc
big_b
check "nopmtudisc through R at 1400: 200 MB, sha256 equal" transfer $B6
expect_eq "no Packet Too Big with nopmtudisc" "$(ctr "$PID_A" tx_icmp_ptb)" 0
teardown

# --- 7. ip link set NAME mtu: taken at once, within the kernel's bounds ---------------
setup_pair
setup_tunnel sit
na ip link set "$TUN" mtu 1400
sleep 0.3
check "mtu 1400 is taken" bash -c "ip -n $NS_A link show $TUN | grep -q 'mtu 1400 '"
na ip link set "$TUN" mtu 1000
for _ in $(seq 20); do
	ip -n "$NS_A" link show "$TUN" | grep -q 'mtu 1280 ' && break
	sleep 0.1
done
check "mtu 1000 on sit is put back to 1280, the kernel's minimum" \
	bash -c "ip -n $NS_A link show $TUN | grep -q 'mtu 1280 '"
finish
