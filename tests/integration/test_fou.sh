#!/usr/bin/env bash
# sit and ipip inside FOU and GUE (the kernel's encap fou|gue), sitd at both ends:
# ping, 200 MB over TCP with sha256 compared, with and without the UDP checksum (with it,
# one UDP_SEGMENT send per super-packet); tshark, told the port, dissects UDP carrying
# IPv6 / IPv4 with no malformed packet; GUE headers sitd does not accept are dropped and
# counted; a datagram from another source matches no tunnel and is counted.  Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum tshark
make_data 200
PORT=5555

# send_udp HEX: one datagram from A's 192.0.2.1:6000 to B's tunnel port.
send_udp() {
	printf "$(sed 's/\(..\)/\\x\1/g' <<<"$1")" |
		ip netns exec "$NS_A" socat -u STDIN "UDP-DATAGRAM:$B4:$PORT,bind=$A4:6000"
}

for encap in fou gue; do
	for mode in sit ipip; do
		addr=$B6
		[ $mode = ipip ] && addr=$B4IN
		for csum in noencap-csum encap-csum; do
			name="$mode over $encap, $csum"
			setup_pair
			setup_tunnel $mode encap $encap encap-dport $PORT $csum
			expect_eq "$name: default MTU" "$(na cat /sys/class/net/$TUN/mtu)" \
				"$([ $encap = fou ] && echo 1472 || echo 1468)"
			if [ $mode = sit ]; then
				check "$name: ping6" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
			else
				check "$name: ping" na ping -4 -c 2 -i 0.2 -W 2 -q $B4IN
			fi
			# ipip: B's own IPv6 (MLD, router solicitations) is tx_mode at any moment.
			d0=$(drops_but_tx_mode "$PID_B")
			check "$name: 200 MB, sha256 equal" transfer "$addr"
			expect_eq "$name: no drop at the receiver" "$(( $(drops_but_tx_mode "$PID_B") - d0 ))" 0
			expect_ge "$name: super-packets split by sitd" "$(ctr "$PID_A" tx_gso_packets)" 100
			expect_ge "$name: merged for TUN" "$(ctr "$PID_B" rx_gro_packets)" 100
			teardown
		done
	done
done

# tshark, told the port: UDP carrying IPv6 or IPv4 (fou), GUE carrying IPv6 (gue).
for kind in fou-sit fou-ipip gue-sit; do
	encap=${kind%-*} mode=${kind#*-}
	setup_pair
	setup_tunnel $mode encap $encap encap-dport $PORT encap-csum
	cap=$LOGDIR/$kind.pcapng
	tshark_start "$cap" "udp port $PORT"
	if [ $mode = sit ]; then
		na ping -6 -c 3 -i 0.2 -W 2 -q $B6 >/dev/null
		inner=ipv6 icmp=icmpv6
	else
		na ping -4 -c 3 -i 0.2 -W 2 -q $B4IN >/dev/null
		inner=ip icmp=icmp
	fi
	tshark_stop
	total=$(tshark -r "$cap" -Y "udp.port == $PORT" 2>/dev/null | wc -l)
	expect_ge "$kind: echo requests and replies captured" "$total" 6
	# The outer IPv4 ID changes from packet to packet, as on the kernel's fou packets
	# (iptunnel_xmit numbers every tunnel packet, DF or not).
	ids=$(tshark -r "$cap" -Y "ip.src == $A4 && udp.port == $PORT" -T fields -e ip.id 2>/dev/null)
	expect_eq "$kind: A's outer IDs are all different and none is 0" \
		"$(sort <<<"$ids" | uniq | grep -vc '^0x0*0$')" "$(wc -l <<<"$ids")"
	if [ $encap = fou ]; then
		n=$(tshark -r "$cap" -d "udp.port==$PORT,$inner" -Y "udp.port == $PORT && $icmp" \
			2>/dev/null | wc -l)
		bad=$(tshark -r "$cap" -d "udp.port==$PORT,$inner" \
			-Y "_ws.malformed || _ws.expert.severity == error" 2>/dev/null | wc -l)
		expect_eq "$kind: every one dissects as $icmp in $inner in UDP" "$n" "$total"
		expect_eq "$kind: no malformed packet" "$bad" 0
	else
		# Wireshark 4.0 (Debian 12) has no GUE dissector: tshark gives the UDP payload,
		# whose first 4 bytes must be the GUE header and the next nibble IPv6's 6.
		heads=$(tshark -r "$cap" -d "udp.port==$PORT,data" -T fields -e data.data 2>/dev/null |
			cut -c1-9 | sort | uniq -c | awk '{ print $2 ":" $1 }')
		expect_eq "$kind: every payload starts with GUE v0, proto 41, no flags, then IPv6" \
			"$heads" "002900006:$total"
	fi
	teardown
done

# Bad GUE headers and a wrong source, sent at B's tunnel port.
setup_pair
setup_tunnel sit encap gue encap-dport $PORT
na ping -6 -c 1 -W 2 -q $B6 >/dev/null
inner=60000000000c3b40200109b8000100000000000000000001200109b8000100000000000000000002000000000000000000000000
send_udp "2029000000$inner"	# C bit: a control message
send_udp "00290001$inner"	# a flag sitd does not know
send_udp "01290000$inner"	# Hlen 1: an option sitd does not know
send_udp "80290000$inner"	# version 2
expect_ge "GUE control message dropped and counted" "$(ctr "$PID_B" drop_rx_gue_control)" 1
expect_ge "GUE unknown flag and option dropped and counted" "$(ctr "$PID_B" drop_rx_gue_flags)" 2
expect_ge "GUE version 2 dropped and counted" "$(ctr "$PID_B" drop_rx_gue_version)" 1
na ip addr add 192.0.2.5/24 dev va
printf "$(sed 's/\(..\)/\\x\1/g' <<<"00290000$inner")" |
	ip netns exec "$NS_A" socat -u STDIN "UDP-DATAGRAM:$B4:$PORT,bind=192.0.2.5:6000"
expect_ge "a datagram from another source: no tunnel, counted for the process" "$(pstat "$PID_B" rx_no_tunnel)" 1
check "the tunnel still works" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
finish
