#!/usr/bin/env bash
# `netns` over an IPv6 underlay (ip6tnl: ip6ip6 and ipip6), as test_netns.sh checks it for
# sit: namespace C has lo only; sitd runs in A, joined to B by an IPv6-only veth, and puts
# both devices into C.  Each pings B and is pinged from B, and carries 100 MB of TCP
# intact (ip6ip6 both ways).  The outer sockets stay in A; the least grant keeps
# CAP_SYS_ADMIN in the monitor only.  Then: sitd restarted takes both devices in C over
# (same ifindex); C deleted (both down, counted, sitd alive) and made again (both back by
# themselves); a reload moves them into D, and leaves x, a tunnel in A whose device has
# the ifindex t4's has in C, alone.
#
#   netns C (lo only)             netns A                              netns B
#   t6 2001:db8:1::1    <--   sitd: t6 ip6ip6 ::ff::1 -> ::ff::2  ==  sitd: t6 2001:db8:1::2
#   t4 198.51.100.1     <--         t4 ipip6  ::ff::11 -> ::ff::12 ==       t4 198.51.100.2
#                                   x  ipip6  ::ff::21 -> ::ff::22 (in A, no peer)
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

NS_C=$TAG-c
NS_D=$TAG-d
EXTRA_NS+=("$NS_C" "$NS_D")
# The ipip6 tunnel's own endpoints: two ip6tnl tunnels between one pair of addresses
# would be one tunnel to the kernel (ip6_tnl_locate compares the addresses only).
A6U2=2001:db8:ff::11
B6U2=2001:db8:ff::12
A6U3=2001:db8:ff::21

# conf NETNS: A's configuration, t6 and t4 in NETNS; x first, in A: A has lo and va
# before it, C lo, so x's ifindex in A is t4's in C (3).
conf() {
	cat >"$LOGDIR/a.conf" <<EOF
tunnel x mode ipip6 remote 2001:db8:ff::22 local $A6U3
tunnel t6 mode ip6ip6 remote $B6U local $A6U
	netns $1
	address $A6/64
tunnel t4 mode ipip6 remote $B6U2 local $A6U2
	netns $1
	address $A4IN/24
EOF
	chmod 644 "$LOGDIR/a.conf"
}

nc_() { ip netns exec "$NS_C" "$@"; }
ifindex() { ip -n "$1" -o link show "$2" 2>/dev/null | cut -d: -f1; }
status() { "$SITD" -S "$(sock_of "$PID_A")" status -j | jq ".$1"; }
show_of() { "$SITD" -S "$(sock_of "$PID_A")" show -j | jq -r ".[] | select(.ifname == \"$1\") | .$2"; }
both_ping() {	# both_ping WHAT NS: NS pings B over both tunnels, B pings NS
	check "$1: pings B through t6 (ip6ip6)" wait_ok 5 ip netns exec "$2" ping -6 -c 1 -W 1 -q $B6
	check "$1: pings B through t4 (ipip6)" wait_ok 5 ip netns exec "$2" ping -4 -c 1 -W 1 -q $B4IN
	check "$1: B pings it through t6" nb ping -6 -c 2 -i 0.2 -W 2 -q $A6
	check "$1: B pings it through t4" nb ping -4 -c 2 -i 0.2 -W 2 -q $A4IN
}

setup_pair6
ip -n "$NS_A" addr add $A6U2/64 dev va nodad
ip -n "$NS_B" addr add $B6U2/64 dev vb nodad
ip -n "$NS_A" addr add $A6U3/64 dev va nodad
ns6_add "$NS_C"
cat >"$LOGDIR/b.conf" <<EOF
tunnel t6 mode ip6ip6 remote $A6U local $B6U
	address $B6/64
tunnel t4 mode ipip6 remote $A6U2 local $B6U2
	address $B4IN/24
EOF
chmod 644 "$LOGDIR/b.conf"
conf "$NS_C"
start_sitd "$NS_A" sitd-a -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b -c "$LOGDIR/b.conf"
PID_B=$LAST_PID

check "t6's device is in C" wait_ok 1 ip -n "$NS_C" link show t6
check "t4's device is in C" wait_ok 1 ip -n "$NS_C" link show t4
check "... neither in A, where sitd runs" bash -c "! ip -n $NS_A link show t6 >/dev/null 2>&1 && ! ip -n $NS_A link show t4 >/dev/null 2>&1"
idxx=$(ifindex "$NS_A" x)
expect_eq "x's ifindex in A is t4's in C" "$idxx" "$(ifindex "$NS_C" t4)"
expect_eq "C has no underlay: lo, t4 and t6 only" "$(ip -n "$NS_C" -o link show | awk -F': ' '{ print $2 }' | sort | paste -sd,)" "lo,t4,t6"
check "... t6's address from the stanza" bash -c "ip -n $NS_C -6 addr show dev t6 | grep -q $A6/64"
check "... t4's address from the stanza" bash -c "ip -n $NS_C -4 addr show dev t4 | grep -q $A4IN/24"
both_ping "C" "$NS_C"
expect_eq "show -j says where t6 lives" "$(show_of t6 netns)" "$NS_C"
expect_eq "... and t4" "$(show_of t4 netns)" "$NS_C"
expect_eq "the outer sockets stay in A: none in C" "$(ip netns exec "$NS_C" ss -Hwua | wc -l)" 0
check "... A's are raw IPv6 ones (next header 41 and 4)" bash -c "[ \"\$(ip netns exec $NS_A ss -Hwa -f inet6 | wc -l)\" -ge 2 ]"
capeff() { printf '%d' $((0x$(awk '/^CapEff/ { print $2 }' /proc/"$1"/status) >> 21 & 1)); }
expect_eq "A's monitor keeps CAP_SYS_ADMIN (netns)" "$(capeff "$PID_A")" 1
expect_eq "B's monitor does not (no netns)" "$(capeff "$PID_B")" 0
expect_eq "A's packet process has none" "$(awk '/^CapEff/ { print $2 }' /proc/"$(packet_pid "$PID_A")"/status)" 0000000000000000

make_data 100
# transfer sends from $NS_A and receives there with "ba": here C.
NS_A=$NS_C check "100 MB over TCP from C to B through t6 (ip6ip6): sha256 intact" transfer $B6
NS_A=$NS_C check "100 MB over TCP from B to C through t6 (ip6ip6): sha256 intact" transfer $A6 5002 ba
NS_A=$NS_C check "100 MB over TCP from C to B through t4 (ipip6): sha256 intact" transfer $B4IN 5003

# Restart: SIGTERM keeps the devices, in C; the next sitd takes them over, ifindex and all.
idx6=$(ifindex "$NS_C" t6)
idx4=$(ifindex "$NS_C" t4)
kill -TERM "$PID_A"
wait_ok 5 bash -c "! kill -0 $PID_A 2>/dev/null"
check "after SIGTERM both devices stay in C" bash -c "ip -n $NS_C link show t6 && ip -n $NS_C link show t4"
start_sitd "$NS_A" sitd-a2 -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
expect_eq "restarted, sitd took t6 in C over: same ifindex" "$(ifindex "$NS_C" t6)" "$idx6"
expect_eq "... and t4" "$(ifindex "$NS_C" t4)" "$idx4"
check "... and said so" bash -c "grep -q 't6.*device taken over' '$(log_of "$PID_A")' && grep -q 't4.*device taken over' '$(log_of "$PID_A")'"
both_ping "C after the restart" "$NS_C"
NS_A=$NS_C check "... and 100 MB through t6 again" transfer $B6 5004

# C deleted: both down, counted; sitd alive.  C again: both back in it, by themselves.
ip netns del "$NS_C"
check "C gone: both counted" wait_ok 5 bash -c "[ \"\$('$SITD' -S '$(sock_of "$PID_A")' status -j | jq .netns_lost)\" = 2 ]"
expect_eq "... t6 shown as gone" "$(show_of t6 netns_gone)" true
expect_eq "... t4 too" "$(show_of t4 netns_gone)" true
check "... sitd alive" kill -0 "$PID_A"
ns6_add "$NS_C"
check "C back: t6 made in it by itself" wait_ok 5 ip -n "$NS_C" link show t6
check "... and t4" wait_ok 5 ip -n "$NS_C" link show t4
expect_eq "... counted back" "$(status netns_back)" 2
both_ping "C back" "$NS_C"

# A reload moves both into D.
ns6_add "$NS_D"
conf "$NS_D"
out=$(na "$SITD" -S "$(sock_of "$PID_A")" reload 2>&1)
expect_eq "reload with both in netns D" "$out" ok
check "moved: t6 and t4 in D" wait_ok 2 bash -c "ip -n $NS_D link show t6 && ip -n $NS_D link show t4"
check "... gone from C" bash -c "! ip -n $NS_C link show t6 >/dev/null 2>&1 && ! ip -n $NS_C link show t4 >/dev/null 2>&1"
# Two devices removed at once go in one link group (daemon/tunnel.c devices_purge), by
# ifindex in sitd's namespace: never a netns device's, which would be x's number here.
expect_eq "... x still in A, the same device" "$(ifindex "$NS_A" x)" "$idxx"
both_ping "D" "$NS_D"
expect_eq "nothing refused by the monitor" "$(grep -c 'monitor: .*refused' "$(log_of "$PID_A")")" 0

finish
