#!/usr/bin/env bash
# Ping both ways through sitd at both ends, for mode sit (IPv6 inside), ipip (IPv4
# inside) and any (both).  SIGTERM leaves the device (ifindex, addresses) for the next
# start, which takes it over and pings again; SIGINT (Ctrl-C) removes it.  Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root ping

for mode in sit ipip any; do
	setup_pair
	setup_tunnel "$mode"
	if [ "$mode" != ipip ]; then
		check "$mode: ping6 A -> B" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
		check "$mode: ping6 B -> A" nb ping -6 -c 3 -i 0.2 -W 2 -q $A6
	fi
	if [ "$mode" != sit ]; then
		check "$mode: ping A -> B" na ping -4 -c 3 -i 0.2 -W 2 -q $B4IN
		check "$mode: ping B -> A" nb ping -4 -c 3 -i 0.2 -W 2 -q $A4IN
	fi
	# A tunnel that does not carry a protocol must not pass it.
	if [ "$mode" = sit ]; then
		na ip addr add $A4IN/24 dev "$TUN"
		check "sit: IPv4 is not carried" bash -c "! ip netns exec $NS_A ping -4 -c 1 -W 1 -q $B4IN >/dev/null"
		expect_ge "sit: IPv4 counted as tx_mode" "$(ctr "$PID_A" drop_tx_mode)" 1
	fi
	expect_ge "$mode: B wrote packets to its TUN" "$(ctr "$PID_B" rx_packets)" 6
	ifindex=$(ip -n "$NS_A" -o link show "$TUN" | cut -d: -f1)
	kill -TERM "$PID_A"
	wait "$PID_A"
	check "$mode: sitd exits 0 on SIGTERM" test $? = 0
	expect_eq "$mode: SIGTERM left the device, same ifindex" \
		"$(ip -n "$NS_A" -o link show "$TUN" 2>/dev/null | cut -d: -f1)" "$ifindex"
	check "$mode: ... with its address" bash -c "ip -n $NS_A addr show $TUN | grep -q '$A6/64'"
	start_sitd "$NS_A" "sitd-a2" "$TUN" mode "$mode" remote $B4 local $A4
	PID_A=$LAST_PID
	check "$mode: the next sitd took it over" grep -q 'device taken over' "$(log_of "$PID_A")"
	if [ "$mode" != ipip ]; then
		check "$mode: ping6 A -> B again, no address set again" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
	else
		check "$mode: ping A -> B again, no address set again" na ping -4 -c 2 -i 0.2 -W 2 -q $B4IN
	fi
	expect_eq "$mode: still the same ifindex" "$(ip -n "$NS_A" -o link show "$TUN" | cut -d: -f1)" "$ifindex"
	kill -INT "$PID_A"
	wait "$PID_A"
	check "$mode: sitd exits 0 on SIGINT" test $? = 0
	check "$mode: SIGINT (Ctrl-C) removed the device" bash -c "! ip -n $NS_A link show $TUN >/dev/null 2>&1"
	teardown
done

# Bound to a device (dev): sent through it (IP_PKTINFO), received only from it.
setup_pair
start_sitd "$NS_A" sitd-a "$TUN" mode sit remote $B4 local $A4 dev va
start_sitd "$NS_B" sitd-b "$TUN" mode sit remote $A4 local $B4 dev vb
tun_up "$NS_A" "$TUN" $A6
tun_up "$NS_B" "$TUN" $B6
check "sit bound to dev: ping6 A -> B" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
check "sit bound to dev: ping6 B -> A" nb ping -6 -c 3 -i 0.2 -W 2 -q $A6
teardown

# A tunnel whose device is down matches no packet (the kernel's lookup checks IFF_UP):
# with sit1 down in B, A's packets to it find no tunnel there, counted rx_no_tunnel for
# the process, not written to a device that refuses them (a less specific tunnel would
# take them: test_table.c).
setup_pair
setup_tunnel sit
check "before: ping6 A -> B" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
nb ip link set "$TUN" down
sleep 0.3
n0=$(pstat "$PID_B" rx_no_tunnel)
d0=$(ctr "$PID_B" drop_tun_down)
na ping -6 -c 3 -i 0.2 -W 1 -q $B6 >/dev/null 2>&1
expect_ge "B's sit1 down: A's packets find no tunnel in B (rx_no_tunnel)" "$(($(pstat "$PID_B" rx_no_tunnel) - n0))" 3
expect_eq "... none counted as written to a down device (tun_down)" "$(($(ctr "$PID_B" drop_tun_down) - d0))" 0
nb ip link set "$TUN" up
nb ip addr replace $B6/64 dev "$TUN" nodad
check "up again: ping6 A -> B" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
teardown
finish
