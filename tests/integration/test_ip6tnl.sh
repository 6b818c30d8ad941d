#!/usr/bin/env bash
# ip6tnl in the daemon: tunnels over an IPv6-only underlay (the veth has no IPv4 address),
# both ends started together and used at once, with no warm-up.  ip6ip6: ping both ways
# and 200 MB over TCP each way, sha256 equal, with TSO on and off (ethtool on the TUN
# device); A's local given, B's local any (the route's source, sitd_tx_local6).  ipip6:
# ping both ways and 200 MB one way.  any: both inner versions.  An ip6ip6 and a sit
# tunnel in one sitd (-c file), side by side in its one table and workers.  No drop is
# counted anywhere.
#
#   netns A                                            netns B
#   t6 2001:db8:1::1/64 198.51.100.1/24                t6 2001:db8:1::2/64 198.51.100.2/24
#   va 2001:db8:ff::1/64  ===========================  vb 2001:db8:ff::2/64
. "$(dirname "$0")/lib.sh"
require_root ping socat ethtool sha256sum jq

TUN=t6
make_data 200

# tunnel6 MODE [sitd args...]: both ends at once; A with local, B with local any.
tunnel6() {
	setup_tunnel6_any_b "$@"
	drops_base
}

# drops_named PID: the drop counters of sitd PID that are not 0, by name.
drops_named() {
	local s
	s=$("$SITD" -S "$(sock_of "$1")" show -s -j |
		jq -r '[.[] | .ifname as $t | .stats.drops | to_entries[] | select(.value > 0) |
			"\($t):\(.key)=\(.value)"] | join(" ")')
	echo "$s $("$SITD" -S "$(sock_of "$1")" status -j |
		jq -r '[.drops | to_entries[] | select(.value > 0) | "\(.key)=\(.value)"] | join(" ")')"
}

# What each end dropped once both devices are up: before, one end's first packets (MLD,
# router solicitations) may reach the other while its device is still down, which
# matches no tunnel (IFF_UP, as the kernel's lookup) and is counted as rx_no_tunnel.
# No traffic has been sent yet: this is no warm-up.
drops_base() {
	D0_A=$(drops_total "$PID_A")
	D0_B=$(drops_total "$PID_B")
	O0_B=$(drops_but_tx_mode "$PID_B")
}

no_drops() {	# no_drops NAME: nothing dropped at either end since drops_base
	expect_eq "$1: no drop at A [$(drops_named "$PID_A")]" "$(( $(drops_total "$PID_A") - D0_A ))" 0
	expect_eq "$1: no drop at B [$(drops_named "$PID_B")]" "$(( $(drops_total "$PID_B") - D0_B ))" 0
}

# ---- ip6ip6, TSO on, then off ------------------------------------------------------
for tso in on off; do
	name="ip6ip6 tso $tso"
	setup_pair6
	tunnel6 ip6ip6
	na ethtool -K "$TUN" tso "$tso" >/dev/null
	nb ethtool -K "$TUN" tso "$tso" >/dev/null
	ping_both ip6ip6 "$name"
	check "$name: 200 MB A -> B, sha256 equal" transfer $B6
	check "$name: 200 MB B -> A, sha256 equal" transfer $A6 5002 ba
	if [ "$tso" = on ]; then
		expect_ge "$name: super-packets were split by sitd" "$(ctr "$PID_A" tx_gso_packets)" 100
	else
		expect_eq "$name: no super-packet reached sitd" "$(ctr "$PID_A" tx_gso_packets)" 0
	fi
	expect_eq "$name: no ICMPv6 too-big" "$(ctr "$PID_A" tx_icmp_ptb)" 0
	# The send socket names the source by its bound address, not an IPV6_PKTINFO a packet.
	expect_eq "$name: A's IPv6 send socket is bound to local" \
		"$(na ss -w -n -a -6 | awk -v a="[$A6U]:255" '$4 == a { n++ } END { print n + 0 }')" 1
	expect_ge "$name: B wrote what it received" "$(ctr "$PID_B" rx_packets)" 100000
	expect_eq "$name: the table's path is IPv6 protocol 41" \
		"$("$SITD" -S "$(sock_of "$PID_A")" status -j | jq -r '[.paths[]?.path] | join(",")' 2>/dev/null ||
		   echo '?')" "ipv6 protocol 41"
	no_drops "$name"
	teardown
done

# ---- ipip6 -------------------------------------------------------------------------
setup_pair6
tunnel6 ipip6
ping_both ipip6 ipip6
check "ipip6: 200 MB A -> B, sha256 equal" transfer $B4IN
check "ipip6: IPv6 is not carried" bash -c "! ip netns exec $NS_A ping -6 -c 1 -W 1 -q $B6 >/dev/null"
expect_ge "ipip6: IPv6 counted as tx_mode" "$(ctr "$PID_A" drop_tx_mode)" 1
# B's own IPv6 (MLD, router solicitations) is not carried either: tx_mode, nothing else.
expect_eq "ipip6: no other drop at B [$(drops_named "$PID_B")]" \
	"$(( $(drops_but_tx_mode "$PID_B") - O0_B ))" 0
teardown

# ---- any: both inner versions ------------------------------------------------------
setup_pair6
tunnel6 any
ping_both ip6ip6 any
ping_both ipip6 any
no_drops "any"
teardown

# ---- ip6ip6 and sit in one sitd, from a file -----------------------------------------
# The veth also gets IPv4 for the sit tunnel; each sitd runs both from its -c file.
setup_pair6
ip -n "$NS_A" addr add $A4/24 dev va
ip -n "$NS_B" addr add $B4/24 dev vb
for side in a b; do
	if [ $side = a ]; then r6=$B6U l6=$A6U r4=$B4 l4=$A4; else r6=$A6U l6=$B6U r4=$A4 l4=$B4; fi
	{
		echo "tunnel t6 mode ip6ip6 remote $r6 local $l6"
		echo "tunnel s4 mode sit remote $r4 local $l4"
	} >"$LOGDIR/$side.conf"
done
start_sitd "$NS_A" sitd-a -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b -c "$LOGDIR/b.conf"
PID_B=$LAST_PID
tun_up "$NS_A" t6 $A6
tun_up "$NS_B" t6 $B6
tun_up "$NS_A" s4 2001:db8:2::1
tun_up "$NS_B" s4 2001:db8:2::2
drops_base
check "both: ip6ip6 ping6 A -> B" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
check "both: sit ping6 A -> B" na ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:2::2
check "both: ip6ip6 ping6 B -> A" nb ping -6 -c 3 -i 0.2 -W 2 -q $A6
check "both: sit ping6 B -> A" nb ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:2::1
t6rx=$("$SITD" -S "$(sock_of "$PID_B")" show -s -j | jq '[.[] | select(.ifname == "t6") | .stats.rx_packets] | add')
s4rx=$("$SITD" -S "$(sock_of "$PID_B")" show -s -j | jq '[.[] | select(.ifname == "s4") | .stats.rx_packets] | add')
expect_ge "both: B's ip6ip6 tunnel received" "$t6rx" 3
expect_ge "both: B's sit tunnel received" "$s4rx" 3
no_drops "both"
teardown

finish
