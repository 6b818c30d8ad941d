#!/usr/bin/env bash
# FOU and GUE over an IPv6-only underlay (the kernel's fou6: ip6tnl with encap fou|gue),
# sitd at both ends.  ip6ip6 and ipip6 over fou and gue: the default MTU (1500 - 40 - 8
# for the encapsulation limit option - 8 or 12), ping both ways, 200 MB over TCP each way
# with sha256 compared, TSO on and off, no drop anywhere.  tshark on the underlay: every
# packet [IPv6][Destination Options, limit 4][UDP 5555 -> 5555][GUE][inner] in that order
# (ip6_tnl_xmit), the UDP checksum good (tshark checks it) with encap-udp6-csum, the
# default, and 0 with noencap-udp6-csum, which still carries (UDP_NO_CHECK6_RX, as fou's
# socket); encaplimit none: UDP right after the IPv6 header.  sitd gets a UDPv6 receive
# socket from the monitor, no raw receive socket.
#
#   netns A                                            netns B
#   t6 2001:db8:1::1/64 198.51.100.1/24                t6 2001:db8:1::2/64 198.51.100.2/24
#   va 2001:db8:ff::1/64  ===========================  vb 2001:db8:ff::2/64
. "$(dirname "$0")/lib.sh"
require_root ping socat ethtool sha256sum jq tshark

TUN=t6
PORT=5555
make_data 200

# tunnel6 MODE [sitd args...]: both ends at once; A with local, B with local any.
tunnel6() {
	setup_tunnel6_any_b "$@"
	# Before both devices were up, one end's MLD may have met the other's down device.
	D0_A=$(drops_but_tx_mode "$PID_A")
	D0_B=$(drops_but_tx_mode "$PID_B")
}

no_drops() {	# no_drops NAME: nothing else dropped at either end since tunnel6
	expect_eq "$1: no drop at A" "$(( $(drops_but_tx_mode "$PID_A") - D0_A ))" 0
	expect_eq "$1: no drop at B" "$(( $(drops_but_tx_mode "$PID_B") - D0_B ))" 0
}

for encap in fou gue; do
	for mode in ip6ip6 ipip6; do
		a=$B6 b=$A6
		[ $mode = ipip6 ] && a=$B4IN b=$A4IN
		for tso in on off; do
			name="$mode over $encap, tso $tso"
			setup_pair6
			tunnel6 $mode encap $encap encap-sport $PORT encap-dport $PORT
			expect_eq "$name: default MTU" "$(na cat /sys/class/net/$TUN/mtu)" \
				"$([ $encap = fou ] && echo 1444 || echo 1440)"
			expect_eq "$name: show -j" "$("$SITD" -S "$(sock_of "$PID_A")" show -j |
				jq -r '.[0] | "\(.encap) \(.encap_sport) \(.encap_dport) \(.encap_udp6_csum)"')" \
				"$encap $PORT $PORT true"
			na ethtool -K "$TUN" tso "$tso" >/dev/null
			nb ethtool -K "$TUN" tso "$tso" >/dev/null
			ping_both $mode "$name"
			check "$name: 200 MB A -> B, sha256 equal" transfer "$a"
			check "$name: 200 MB B -> A, sha256 equal" transfer "$b" 5002 ba
			if [ "$tso" = on ]; then
				expect_ge "$name: super-packets split by sitd" "$(ctr "$PID_A" tx_gso_packets)" 100
			else
				expect_eq "$name: no super-packet reached sitd" "$(ctr "$PID_A" tx_gso_packets)" 0
			fi
			expect_eq "$name: no Packet Too Big / Frag Needed to the inner sender" \
				"$(( $(ctr "$PID_A" tx_icmp_ptb) + $(ctr "$PID_A" tx_icmp_frag_needed) ))" 0
			expect_ge "$name: B received" "$(ctr "$PID_B" rx_packets)" 100000
			no_drops "$name"
			teardown
		done
	done
done

# capture NAME: run tshark on A's underlay while pinging B through the tunnel (mode as set).
capture() {
	CAP=$LOGDIR/$1.pcapng
	tshark_start "$CAP" "ip6 and not icmp6"
	if [ "$2" = ip6ip6 ]; then
		na ping -6 -c 3 -i 0.2 -W 2 -q $B6 >/dev/null
	else
		na ping -4 -c 3 -i 0.2 -W 2 -q $B4IN >/dev/null
	fi
	tshark_stop
}

# fields FILTER FIELD...: one line per packet of the capture, tshark checking UDP sums.
fields() {
	local f=$1 args=()
	shift
	for x in "$@"; do args+=(-e "$x"); done
	tshark -r "$CAP" -o udp.check_checksum:TRUE -d "udp.port==$PORT,data" -Y "$f" -T fields -E occurrence=f \
		-E separator=' ' "${args[@]}" 2>/dev/null
}

# ---- On the wire: header order, ports, the option, GUE, the checksum both ways --------
for kind in fou-ip6ip6-csum gue-ipip6-csum fou-ipip6-nocsum gue-ip6ip6-none; do
	IFS=- read -r encap mode what <<<"$kind"
	args=(encap $encap encap-sport $PORT encap-dport $PORT)
	[ $what = nocsum ] && args+=(noencap-udp6-csum)
	[ $what = none ] && args+=(encaplimit none)
	setup_pair6
	tunnel6 $mode "${args[@]}"
	capture "$kind" $mode
	total=$(fields "ipv6.src == $A6U && udp" frame.number | wc -l)
	expect_ge "$kind: A's tunnel packets captured" "$total" 3
	# The first next header: the option (60) unless encaplimit none, then UDP (17).
	if [ $what = none ]; then
		chain=$(fields "ipv6.src == $A6U && udp" ipv6.nxt | sort -u)
		expect_eq "$kind: UDP right after the IPv6 header" "$chain" 17
	else
		chain=$(fields "ipv6.src == $A6U && udp" ipv6.nxt ipv6.dstopts.nxt ipv6.opt.tel | sort -u)
		expect_eq "$kind: [IPv6][dest options, limit 4][UDP]" "$chain" "60 17 4"
	fi
	expect_eq "$kind: UDP ports $PORT -> $PORT" \
		"$(fields "ipv6.src == $A6U && udp" udp.srcport udp.dstport | sort -u)" "$PORT $PORT"
	if [ $what = nocsum ]; then
		expect_eq "$kind: every UDP checksum 0 (noencap-udp6-csum)" \
			"$(fields "ipv6.src == $A6U && udp" udp.checksum | sort -u)" 0x0000
	else
		# udp.checksum.status: 1 good (tshark computed it over the IPv6 pseudo-header).
		expect_eq "$kind: every UDP checksum good" \
			"$(fields "ipv6.src == $A6U && udp" udp.checksum.status | sort -u)" 1
	fi
	# The payload: GUE v0 [0, proto, 0, 0] then the inner header; fou: the inner header.
	inner=6 proto=29
	[ $mode = ipip6 ] && inner=4 proto=04
	want=$inner
	[ $encap = gue ] && want=00${proto}0000$inner
	expect_eq "$kind: the UDP payload starts as $want" \
		"$(fields "ipv6.src == $A6U && udp" data.data | cut -c1-${#want} | sort -u)" "$want"
	# B answered the pings through its tunnel: its packets arrived and were taken.
	expect_ge "$kind: B's replies captured too" "$(fields "ipv6.src == $B6U && udp" frame.number | wc -l)" 3
	no_drops "$kind"
	teardown
done

# ---- noencap-udp6-csum carries TCP too (RFC 6935/6936 zero checksums accepted) ---------
setup_pair6
tunnel6 ipip6 encap fou encap-dport $PORT noencap-udp6-csum
expect_eq "noencap-udp6-csum: show prints it" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show | grep -o 'noencap-udp6-csum')" noencap-udp6-csum
ping_both ipip6 "noencap-udp6-csum, encap-sport auto"
check "noencap-udp6-csum: 200 MB A -> B, sha256 equal" transfer $B4IN
no_drops "noencap-udp6-csum"
teardown

finish
