#!/usr/bin/env bash
# ip6tnl with remote any (NBMA, ip6_tnl_xmit): A's tunnel has no remote; each inner IPv6
# packet goes to the next hop of the device's route toward it (here B's underlay address,
# `via 2001:db8:ff::2 onlink`), and A receives from any remote (ip6_tnl_lookup's
# local-only class).  B's is an ordinary point-to-point tunnel.  ip6ip6, then ip6ip6 over
# fou: ping both ways, 200 MB from A with sha256 equal, the outer destination on the wire
# (tshark) B's address; an inner IPv4 packet has no next hop (tx_no_nexthop).
#
#   netns A                                            netns B
#   t6 2001:db8:1::1/64 (remote any)                   t6 2001:db8:9::2/64 (remote A)
#      2001:db8:9::/64 via 2001:db8:ff::2 onlink          2001:db8:1::/64 dev t6
#   va 2001:db8:ff::1/128, default dev va  =========  vb 2001:db8:ff::2/64
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq tshark

TUN=t6
FAR=2001:db8:9::2
make_data 200

for kind in plain fou; do
	args=()
	[ $kind = fou ] && args=(encap fou encap-sport 5555 encap-dport 5555)
	name="remote any, $kind"
	setup_pair6
	# The gateway of a route through t6 may not be on another device's subnet
	# (ip6_route_check_nh_onlink): A reaches B's underlay address by a default route.
	na ip -6 addr del $A6U/64 dev va
	na ip -6 addr add $A6U/128 dev va nodad
	na ip -6 route add default dev va
	start_sitd "$NS_A" sitd-a "$TUN" mode any remote any local $A6U dev va "${args[@]}"
	PID_A=$LAST_PID
	start_sitd "$NS_B" sitd-b "$TUN" mode ip6ip6 remote $A6U local $B6U "${args[@]}"
	PID_B=$LAST_PID
	tun_up "$NS_A" "$TUN" $A6 198.51.100.1
	tun_up "$NS_B" "$TUN" $FAR
	na ip -6 route add 2001:db8:9::/64 via $B6U dev "$TUN" onlink
	nb ip -6 route add 2001:db8:1::/64 dev "$TUN"
	expect_eq "$name: show says remote any" \
		"$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq -r '.[0].remote')" any
	sleep 0.3	# the route reaches sitd through netlink
	cap=$LOGDIR/nbma-$kind.pcapng
	ip netns exec "$NS_A" tshark -i va -f "ip6 and not icmp6" -a duration:60 -w "$cap" -q \
		2>"$LOGDIR/tshark.log" &
	tpid=$!
	for _ in $(seq 100); do grep -q Capturing "$LOGDIR/tshark.log" && break; sleep 0.1; done
	sleep 0.5
	check "$name: ping6 A -> B's far address" na ping -6 -c 3 -i 0.2 -W 2 -q $FAR
	check "$name: ping6 B -> A" nb ping -6 -c 3 -i 0.2 -W 2 -q -I $FAR $A6
	sleep 0.3
	kill -INT $tpid
	wait $tpid
	expect_eq "$name: A's outer packets all go to B's underlay address (the route's next hop)" \
		"$(tshark -r "$cap" -Y "ipv6.src == $A6U" -T fields -E occurrence=f -e ipv6.dst 2>/dev/null |
		   sort -u)" $B6U
	check "$name: 200 MB A -> B, sha256 equal" transfer $FAR
	d0=$(ctr "$PID_A" drop_tx_no_nexthop)
	na ping -4 -c 1 -W 1 -q 198.51.100.2 >/dev/null 2>&1
	expect_ge "$name: inner IPv4 has no next hop: tx_no_nexthop" \
		"$(( $(ctr "$PID_A" drop_tx_no_nexthop) - d0 ))" 1
	expect_eq "$name: B dropped nothing" "$(drops_total "$PID_B")" 0
	teardown
done

finish
