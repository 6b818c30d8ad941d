#!/usr/bin/env bash
# Ping both ways through sitd at both ends, for mode sit (IPv6 inside), ipip (IPv4
# inside) and any (both); then SIGTERM removes the device.  Topology: lib.sh.
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
	kill -TERM "$PID_A"
	wait "$PID_A"
	check "$mode: sitd exits 0 on SIGTERM" test $? = 0
	check "$mode: SIGTERM removed the device" bash -c "! ip -n $NS_A link show $TUN >/dev/null 2>&1"
	teardown
done
finish
