#!/usr/bin/env bash
# An independent decoder agrees on the wire format: tshark dissects what sitd puts on the
# veth as IPv6-in-IPv4 (protocol 41) and IPv4-in-IPv4 (protocol 4), with every IPv4
# header checksum and every TCP checksum verified good and no malformed packet.
# TCP with TSO on, so these are segments sitd split itself.  Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root tshark socat
make_data 4

# tshark_count FILE FILTER
tshark_count() {
	# The payload is random bytes: decode it as data, or heuristic dissectors (thrift, ...)
	# find "errors" in it that say nothing about sitd.
	tshark -r "$1" -d tcp.port==5001,data -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		-Y "$2" 2>/dev/null | wc -l
}

for mode in sit ipip; do
	setup_pair
	setup_tunnel "$mode"
	cap=$LOGDIR/$mode.pcapng
	# Not through na(): $! must be tshark itself, for the SIGINT below.
	ip netns exec "$NS_A" tshark -i va -f "ip proto 41 or ip proto 4" -a duration:120 \
		-w "$cap" -q 2>"$LOGDIR/tshark.log" &
	tpid=$!
	for _ in $(seq 100); do grep -q Capturing "$LOGDIR/tshark.log" && break; sleep 0.1; done
	sleep 0.5	# "Capturing" can come a moment before the capture does
	if [ "$mode" = sit ]; then
		addr=$B6 inner=ipv6 proto=41 layers=ip:ipv6:
		na ping -6 -c 2 -i 0.2 -W 2 -q $B6 >/dev/null
	else
		addr=$B4IN inner=ipv4 proto=4 layers=ip:ip:
		na ping -4 -c 2 -i 0.2 -W 2 -q $B4IN >/dev/null
	fi
	check "$mode: 4 MB transfer" transfer "$addr"
	sleep 0.5
	kill -INT "$tpid"
	wait "$tpid"

	total=$(tshark_count "$cap" "ip.proto == $proto")
	tcp=$(tshark_count "$cap" "ip.proto == $proto && tcp")
	good=$(tshark_count "$cap" "ip.proto == $proto && tcp.checksum.status == 1")
	expect_ge "$mode: packets captured" "$total" 100
	expect_eq "$mode: every one dissects as $inner inside IPv4" \
		"$(tshark_count "$cap" "frame.protocols contains \"$layers\"")" "$total"
	expect_eq "$mode: every TCP checksum verified good" "$good" "$tcp"
	expect_eq "$mode: no bad IPv4 header checksum" "$(tshark_count "$cap" "ip.checksum.status == 0")" 0
	expect_eq "$mode: no malformed packet or error" \
		"$(tshark_count "$cap" "_ws.malformed || _ws.expert.severity == error")" 0
	teardown
done
finish
