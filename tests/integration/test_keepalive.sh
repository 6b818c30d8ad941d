#!/usr/bin/env bash
# keepalive (daemon/keepalive.c): a tunnel whose remote goes silent loses its carrier
# (NO-CARRIER), a backup route over a second tunnel carries the traffic meanwhile, and
# the carrier comes back with the remote.  Two tunnels between A and B on one veth:
#
#   sit1 192.0.2.1 <-> 192.0.2.2      keepalive 1,3 both ends, route metric 100
#   sit2 203.0.113.1 <-> 203.0.113.2  no keepalive, route metric 200 (the backup)
#
# A pings B's 2001:db8:bb::2 from its own 2001:db8:aa::1 (on lo).  The remote goes
# silent twice: its outer packets blackholed by a route at both ends (as a dead link:
# iptables is not in the test image, a blackhole route needs nothing more), then its
# sitd stopped.  The kernel uses a linkdown route unless ignore_routes_with_linkdown is
# set (fib6_ignore_linkdown, IN_DEV_IGNORE_ROUTES_WITH_LINKDOWN): set here, as a backup
# route needs it (doc/kernel.md).  Then ipip with ICMP, and ip6ip6.  Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root tshark jq ping

KA_S=1 KA_R=3

no_carrier() {	# NS DEV: the device shows NO-CARRIER
	ip -n "$1" link show "$2" | grep -q NO-CARRIER
}

# wait_for SECONDS CMD...: poll CMD every 0.2 s; WAITED the seconds it took.
wait_for() {
	local limit=$1 i
	shift
	for i in $(seq 0 $((limit * 5))); do
		if "$@"; then
			WAITED=$(awk -v i="$i" 'BEGIN { printf "%.1f", i / 5 }')
			return 0
		fi
		sleep 0.2
	done
	WAITED=never
	return 1
}

kstate() {	# PID FIELD: keepalive_state.FIELD of its first tunnel
	"$SITD" -S "$(sock_of "$1")" show -j | jq -r ".[0].keepalive_state.$2"
}

tx_of() {	# PID: outer packets its tunnel sent
	ctr "$1" tx_packets
}

setup_pair
for ns in "$NS_A" "$NS_B"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.ignore_routes_with_linkdown=1
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.ignore_routes_with_linkdown=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.ignore_routes_with_linkdown=1
done
ip -n "$NS_A" addr add 203.0.113.1/24 dev va
ip -n "$NS_B" addr add 203.0.113.2/24 dev vb
ip -n "$NS_A" addr add 2001:db8:aa::1/64 dev lo nodad
ip -n "$NS_B" addr add 2001:db8:bb::2/64 dev lo nodad

start_sitd "$NS_A" sitd-a sit1 mode sit remote $B4 local $A4 keepalive $KA_S,$KA_R keepalive-peer $B6
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b sit1 mode sit remote $A4 local $B4 keepalive $KA_S,$KA_R keepalive-peer $A6
PID_B=$LAST_PID
start_sitd "$NS_A" sitd-a2 sit2 mode sit remote 203.0.113.2 local 203.0.113.1
PID_A2=$LAST_PID
start_sitd "$NS_B" sitd-b2 sit2 mode sit remote 203.0.113.1 local 203.0.113.2
tun_up "$NS_A" sit1 $A6
tun_up "$NS_B" sit1 $B6
tun_up "$NS_A" sit2 2001:db8:2::1
tun_up "$NS_B" sit2 2001:db8:2::2
ip -n "$NS_A" -6 route add 2001:db8:bb::/64 dev sit1 metric 100
ip -n "$NS_A" -6 route add 2001:db8:bb::/64 dev sit2 metric 200
ip -n "$NS_B" -6 route add 2001:db8:aa::/64 dev sit1 metric 100
ip -n "$NS_B" -6 route add 2001:db8:aa::/64 dev sit2 metric 200

pingb() { na ping -6 -c 3 -i 0.2 -W 1 -q -I 2001:db8:aa::1 2001:db8:bb::2 >/dev/null; }

# Up: keepalives answered, traffic over sit1, nothing of them on the device.
cap=$LOGDIR/a-sit1.pcapng
ip netns exec "$NS_A" tshark -i sit1 -f icmp6 -a duration:60 -w "$cap" -q 2>"$cap.log" &
tpid=$!
for _ in $(seq 100); do grep -q Capturing "$cap.log" && break; sleep 0.1; done
sleep $((KA_S * 4))
check "up: ping over the primary" pingb
kill -INT "$tpid"
wait "$tpid" 2>/dev/null
check "up: sit1 has its carrier" bash -c "! ip -n $NS_A link show sit1 | grep -q NO-CARRIER"
expect_eq "up: state" "$(kstate "$PID_A" state)" up
expect_ge "up: keepalives sent" "$(kstate "$PID_A" sent)" 3
expect_ge "up: keepalives answered" "$(kstate "$PID_A" answered)" 2
expect_eq "up: seconds since the last packet from the remote" "$(kstate "$PID_A" since_rx)" 0
# B's keepalives reach A's device (and A's kernel answers them): the capture works.
expect_ge "capture: B's echo requests seen on A's sit1" \
	"$(tshark -r "$cap" -Y "icmpv6.type == 128 && ipv6.src == $B6" 2>/dev/null | wc -l)" 2
expect_eq "capture: no reply to A's keepalives on A's sit1" \
	"$(tshark -r "$cap" -Y "icmpv6.type == 129 && ipv6.src == $B6" 2>/dev/null | wc -l)" 0
expect_eq "up: off on the backup tunnel" "$(kstate "$PID_A2" state)" off

# The underlay of sit1 dead both ways (sit2's addresses still routed).
ip -n "$NS_A" route add blackhole $B4/32
ip -n "$NS_B" route add blackhole $A4/32
limit=$((KA_S * (KA_R + 1) + 2))
wait_for $limit no_carrier "$NS_A" sit1
check "blackholed: NO-CARRIER on A's sit1 within $limit s ($WAITED s)" no_carrier "$NS_A" sit1
check "blackholed: NO-CARRIER on B's sit1" wait_for 3 no_carrier "$NS_B" sit1
expect_eq "blackholed: state" "$(kstate "$PID_A" state)" down
expect_ge "blackholed: seconds since the last packet" "$(kstate "$PID_A" since_rx)" $KA_R
before=$(tx_of "$PID_A2")
check "blackholed: ping over the backup" pingb
expect_ge "blackholed: the backup carried it" "$(($(tx_of "$PID_A2") - before))" 3

ip -n "$NS_A" route del blackhole $B4/32
ip -n "$NS_B" route del blackhole $A4/32
wait_for $((KA_S + 3)) bash -c "! ip -n $NS_A link show sit1 | grep -q NO-CARRIER"
check "restored: carrier back on A's sit1 within $((KA_S + 3)) s ($WAITED s)" \
	bash -c "! ip -n $NS_A link show sit1 | grep -q NO-CARRIER"
wait_for 3 bash -c "! ip -n $NS_B link show sit1 | grep -q NO-CARRIER"
before=$(tx_of "$PID_A")
check "restored: ping" pingb
expect_ge "restored: over the primary again" "$(($(tx_of "$PID_A") - before))" 3
expect_eq "restored: transitions" "$(kstate "$PID_A" transitions)" 2

# The remote's sitd stopped, then started again (its device kept).
kill -TERM "$PID_B"
wait_for 5 bash -c "! kill -0 $PID_B 2>/dev/null"
wait_for $limit no_carrier "$NS_A" sit1
check "peer stopped: NO-CARRIER on A's sit1 within $limit s ($WAITED s)" no_carrier "$NS_A" sit1
check "peer stopped: ping over the backup" pingb
start_sitd "$NS_B" sitd-b sit1 mode sit remote $A4 local $B4 keepalive $KA_S,$KA_R keepalive-peer $A6
PID_B=$LAST_PID
wait_for $((KA_S + 3)) bash -c "! ip -n $NS_A link show sit1 | grep -q NO-CARRIER"
check "peer back: carrier on A's sit1 within $((KA_S + 3)) s ($WAITED s)" \
	bash -c "! ip -n $NS_A link show sit1 | grep -q NO-CARRIER"
grep -q 'sit1: carrier off' "$(log_of "$PID_A")"
check "the log says carrier off and on" grep -q 'sit1: carrier on' "$(log_of "$PID_A")"

# No keepalives when off: nothing from sitd on sit2's wire in 3 intervals.
ip netns exec "$NS_B" tshark -i sit2 -f icmp6 -a duration:$((KA_S * 3 + 1)) -w "$LOGDIR/b-sit2.pcapng" -q \
	2>/dev/null
expect_eq "off: no echo request on the backup's far device" \
	"$(tshark -r "$LOGDIR/b-sit2.pcapng" -Y "icmpv6.type == 128" 2>/dev/null | wc -l)" 0
teardown

# ipip: ICMP echo, the carrier lost when the remote's sitd stops, back when it returns.
setup_pair
start_sitd "$NS_A" sitd-a ipip1 mode ipip remote $B4 local $A4 keepalive $KA_S,$KA_R keepalive-peer $B4IN
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b ipip1 mode ipip remote $A4 local $B4
PID_B=$LAST_PID
ip -n "$NS_A" link set ipip1 up
ip -n "$NS_B" link set ipip1 up
# No IPv4 address on the device yet: nothing to send from, counted and said once.
no_source_ge() { [ "$(kstate "$PID_A" no_source)" -ge "$1" ]; }
wait_for $((KA_S * 4)) no_source_ge 2
expect_ge "ipip, no address yet: requests not sent (no_source)" "$(kstate "$PID_A" no_source)" 2
expect_eq "... and the log says so once" \
	"$(grep -c 'keepalive: the device has no IPv4 address' "$(log_of "$PID_A")")" 1
ip -n "$NS_A" addr add $A4IN/24 dev ipip1
ip -n "$NS_B" addr add $B4IN/24 dev ipip1
answered_ge() { [ "$(kstate "$PID_A" answered)" -ge "$1" ]; }
wait_for $((KA_S * 5)) answered_ge 2
expect_ge "ipip: keepalives answered" "$(kstate "$PID_A" answered)" 2
expect_eq "ipip: state" "$(kstate "$PID_A" state)" up
kill -TERM "$PID_B"
wait_for $limit no_carrier "$NS_A" ipip1
check "ipip: NO-CARRIER within $limit s of the peer stopping ($WAITED s)" no_carrier "$NS_A" ipip1
start_sitd "$NS_B" sitd-b ipip1 mode ipip remote $A4 local $B4
wait_for $((KA_S + 3)) bash -c "! ip -n $NS_A link show ipip1 | grep -q NO-CARRIER"
check "ipip: carrier back within $((KA_S + 3)) s ($WAITED s)" \
	bash -c "! ip -n $NS_A link show ipip1 | grep -q NO-CARRIER"
check "ipip: ping through" na ping -c 2 -i 0.2 -W 1 -q $B4IN
teardown

# ip6ip6 over an IPv6 underlay: the request sent by the raw IPv6 path, the reply taken.
setup_pair6
TUN=sit1 setup_tunnel6 ip6ip6 keepalive $KA_S,$KA_R keepalive-peer $B6
wait_for $((KA_S * 5)) answered_ge 2
expect_ge "ip6ip6: keepalives answered" "$(kstate "$PID_A" answered)" 2
kill -TERM "$PID_B"
wait_for $limit no_carrier "$NS_A" sit1
check "ip6ip6: NO-CARRIER within $limit s of the peer stopping ($WAITED s)" no_carrier "$NS_A" sit1
teardown
finish
