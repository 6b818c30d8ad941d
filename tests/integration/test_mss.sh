#!/usr/bin/env bash
# clamp-mss (core/mss.h): the SYN and SYN-ACK that come out of the tunnel carry the
# clamped MSS, both ways, with checksums tshark verifies good.  Only A's sitd clamps: the
# SYN A sends is clamped on A's transmit path (seen on B's device), the SYN-ACK B sends on
# A's receive path (seen on A's device).  Each end's route advertises an MSS of 8000
# (advmss), as a host behind it on a 9000-byte link would.  Off by default: 8000 both
# ways.  Then the path MTU case: a 1400-byte underlay under a device MTU of 1480 clamps
# to the learned path (1400 - 20 - 60), and 200 MB go through intact.  Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root tshark socat jq
make_data 200

# capture NS FILE: tshark on the tunnel device in NS (CAP_PID).
capture() {
	ip netns exec "$1" tshark -i "$TUN" -f tcp -a duration:60 -w "$2" -q 2>"$2.log" &
	CAP_PID=$!
	for _ in $(seq 100); do grep -q Capturing "$2.log" && break; sleep 0.1; done
	sleep 0.5
}

# syn_field FILE ACK FIELD: FIELD of the SYN (ACK 0) or SYN-ACK (ACK 1) in FILE.
syn_field() {
	tshark -r "$1" -o tcp.check_checksum:TRUE -Y "tcp.flags.syn == 1 && tcp.flags.ack == $2" \
		-T fields -e "$3" 2>/dev/null | head -n 1
}

# One connection from A to B (port 5002), captured on both devices.
connect_once() {
	local addr=$1 target=$1
	[[ $addr == *:* ]] && target="[$addr]"
	capture "$NS_A" "$LOGDIR/a.pcapng"
	local ca=$CAP_PID
	capture "$NS_B" "$LOGDIR/b.pcapng"
	local cb=$CAP_PID
	nb timeout 10 socat -u TCP-LISTEN:5002,reuseaddr,pf=$([[ $addr == *:* ]] && echo ip6 || echo ip4) \
		/dev/null &
	local lp=$!
	for _ in $(seq 50); do nb ss -ltn | grep -q ":5002 " && break; sleep 0.1; done
	echo hello | na timeout 5 socat -u STDIN "TCP:$target:5002"
	wait "$lp"
	sleep 0.5
	kill -INT "$ca" "$cb"
	wait "$ca" "$cb" 2>/dev/null
}

# run_case MODE DESC WANT_SYN WANT_SYNACK A-ARGS...
run_case() {
	local mode=$1 desc=$2 want_syn=$3 want_synack=$4 peer inner6
	shift 4
	setup_pair
	start_sitd "$NS_A" sitd-a "$TUN" mode "$mode" remote $B4 local $A4 "$@"
	PID_A=$LAST_PID
	start_sitd "$NS_B" sitd-b "$TUN" mode "$mode" remote $A4 local $B4
	if [ "$mode" = sit ]; then
		tun_up "$NS_A" "$TUN" $A6
		tun_up "$NS_B" "$TUN" $B6
		ip -n "$NS_A" -6 route replace 2001:db8:1::/64 dev "$TUN" metric 256 advmss 8000
		ip -n "$NS_B" -6 route replace 2001:db8:1::/64 dev "$TUN" metric 256 advmss 8000
		peer=$B6
	else
		ip -n "$NS_A" link set "$TUN" up
		ip -n "$NS_B" link set "$TUN" up
		ip -n "$NS_A" addr add $A4IN/24 dev "$TUN"
		ip -n "$NS_B" addr add $B4IN/24 dev "$TUN"
		ip -n "$NS_A" route replace 198.51.100.0/24 dev "$TUN" src $A4IN advmss 8000
		ip -n "$NS_B" route replace 198.51.100.0/24 dev "$TUN" src $B4IN advmss 8000
		peer=$B4IN
	fi
	connect_once "$peer"
	expect_eq "$mode $desc: SYN on B's device (A's transmit)" \
		"$(syn_field "$LOGDIR/b.pcapng" 0 tcp.options.mss_val)" "$want_syn"
	expect_eq "$mode $desc: SYN-ACK on A's device (A's receive)" \
		"$(syn_field "$LOGDIR/a.pcapng" 1 tcp.options.mss_val)" "$want_synack"
	expect_eq "$mode $desc: the SYN's checksum good" \
		"$(syn_field "$LOGDIR/b.pcapng" 0 tcp.checksum.status)" 1
	expect_eq "$mode $desc: the SYN-ACK's checksum good" \
		"$(syn_field "$LOGDIR/a.pcapng" 1 tcp.checksum.status)" 1
	if [ "$want_syn" = 8000 ]; then
		expect_eq "$mode $desc: tx_mss_clamped" "$(ctr "$PID_A" tx_mss_clamped)" 0
		expect_eq "$mode $desc: rx_mss_clamped" "$(ctr "$PID_A" rx_mss_clamped)" 0
	else
		expect_eq "$mode $desc: tx_mss_clamped" "$(ctr "$PID_A" tx_mss_clamped)" 1
		expect_eq "$mode $desc: rx_mss_clamped" "$(ctr "$PID_A" rx_mss_clamped)" 1
	fi
}

run_case sit "off (the default)" 8000 8000
teardown
run_case sit "clamp-mss (device 1480 - 60)" 1420 1420 clamp-mss
teardown
run_case sit "clamp-mss 1200" 1200 1200 clamp-mss 1200
teardown
run_case ipip "off (the default)" 8000 8000
teardown
run_case ipip "clamp-mss (device 1480 - 40)" 1440 1440 clamp-mss
teardown
run_case ipip "clamp-mss 1200" 1200 1200 clamp-mss 1200
check "show -j gives clamp_mss 1200" \
	test "$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq '.[0].clamp_mss')" = 1200
teardown

# Through sitd.conf and a reload: off, then clamp-mss 1200, then off again.
conf=$LOGDIR/sitd.conf
write_conf() {
	{
		echo "tunnel $TUN mode sit remote $B4 local $A4"
		echo "	address $A6/64"
		for w in "$@"; do echo "	$w"; done
	} >"$conf"
}
syn_after_reload() {	# DESC WANT WORDS...: reload with WORDS, one connection, A's SYN on B
	local desc=$1 want=$2
	shift 2
	write_conf "$@"
	expect_eq "reload ($desc) answers ok" "$("$SITD" -S "$(sock_of "$PID_A")" reload)" ok
	for _ in $(seq 50); do ip -n "$NS_A" link show "$TUN" 2>/dev/null | grep -q ',UP' && break; sleep 0.1; done
	ip -n "$NS_A" -6 route replace 2001:db8:1::/64 dev "$TUN" metric 256 advmss 8000
	connect_once $B6
	expect_eq "reload ($desc): SYN on B's device" "$(syn_field "$LOGDIR/b.pcapng" 0 tcp.options.mss_val)" "$want"
}
setup_pair
write_conf
start_sitd "$NS_A" sitd-a -c "$conf"
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b "$TUN" mode sit remote $A4 local $B4
tun_up "$NS_B" "$TUN" $B6
ip -n "$NS_B" -6 route replace 2001:db8:1::/64 dev "$TUN" metric 256 advmss 8000
for _ in $(seq 50); do ip -n "$NS_A" -6 addr show dev "$TUN" | grep -q "$A6" && break; sleep 0.1; done
ip -n "$NS_A" -6 route replace 2001:db8:1::/64 dev "$TUN" metric 256 advmss 8000
connect_once $B6
expect_eq "sitd.conf without clamp-mss: SYN on B's device" "$(syn_field "$LOGDIR/b.pcapng" 0 tcp.options.mss_val)" 8000
syn_after_reload "clamp-mss 1200 added" 1200 "clamp-mss 1200"
syn_after_reload "clamp-mss taken off" 8000
teardown

# The path smaller than the device: the learned path MTU (the route's, 1400) decides.
setup_pair 1400
start_sitd "$NS_A" sitd-a "$TUN" mode sit remote $B4 local $A4 mtu 1480 clamp-mss
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b "$TUN" mode sit remote $A4 local $B4 mtu 1480
tun_up "$NS_A" "$TUN" $A6
tun_up "$NS_B" "$TUN" $B6
connect_once $B6
expect_eq "path 1400: SYN clamped to 1400 - 20 - 60" \
	"$(syn_field "$LOGDIR/b.pcapng" 0 tcp.options.mss_val)" 1320
expect_eq "path 1400: SYN-ACK clamped to 1320" \
	"$(syn_field "$LOGDIR/a.pcapng" 1 tcp.options.mss_val)" 1320
check "path 1400, clamp-mss: 200 MB A to B intact (sha256)" transfer $B6
check "path 1400, clamp-mss: 200 MB B to A intact (sha256)" transfer $A6 5003 ba
expect_eq "path 1400: no Packet Too Big was needed" "$(ctr "$PID_A" tx_icmp_ptb)" 0
teardown
finish
