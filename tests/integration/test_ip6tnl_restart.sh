#!/usr/bin/env bash
# Restarts of an ip6ip6 tunnel (ip6tnl, issue 21) over an IPv6-only underlay
# (setup_pair6 in lib.sh) lose nothing, as test_restart.sh checks for sit: A's tunnel
# from a sitd.conf stanza with an address and a route, B's from the command line.
#
#  - SIGTERM of A in the middle of a 200 MB transfer and a new start: the device stays
#    with its ifindex, address and route, the new sitd takes it over, sha256 equal;
#  - the same for B, the receiver;
#  - kill -9 of A's packet process mid-transfer: the monitor exits with a failure, the
#    device stays, a new start takes it over and the transfer completes;
#  - a reload changing the hop limit keeps the device (same ifindex) and puts the new
#    value on the wire's settings (show -j).
TUN=${TUN:-ip6tnl1}
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

make_data 200
setup_pair6
conf=$LOGDIR/a.conf
write_conf() {	# write_conf EXTRA...: A's stanza, with these words after the fixed ones
	{
		echo "tunnel $TUN mode ip6ip6 remote $B6U local $A6U"
		echo "	address $A6/64"
		echo "	route 2001:db8:99::/48"
		for w in "$@"; do echo "	$w"; done
	} >"$conf"
}
write_conf
start_b() { start_sitd "$NS_B" "sitd-b$1" "$TUN" mode ip6ip6 remote $A6U local $B6U address $B6/64; PID_B=$LAST_PID; }
start_sitd "$NS_A" sitd-a -c "$conf"
PID_A=$LAST_PID
start_b ""

quiet() { "$@" >/dev/null; }

expect_eq "after start: A's address from the stanza" "$(addr_of "$NS_A")" "$A6/64"
expect_eq "after start: A's route from the stanza" "$(routes6_of "$NS_A")" "2001:db8:99::/48"
expect_eq "B's address, from the command line" "$(addr_of "$NS_B")" "$B6/64"
check "ping through, no ip command run" quiet na ping -6 -c 2 -i 0.2 -W 2 -q $B6
expect_eq "show -j: an IPv6 underlay" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq -r '.[0].outer')" ipv6
ifa=$(ifindex_of "$NS_A")
ifb=$(ifindex_of "$NS_B")

# SIGTERM of the sender mid-transfer (systemctl restart): SIGTERM leaves the device.
transfer_bg $B6
sleep 0.2
check "the transfer is under way when A is stopped" alive "$BG"
kill -TERM "$PID_A"
wait "$PID_A" 2>/dev/null
expect_eq "A exits 0 on SIGTERM" "$?" 0
expect_eq "... its device left: same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
start_sitd "$NS_A" sitd-a2 -c "$conf"
PID_A=$LAST_PID
check "SIGTERM and a new start of the sender: the 200 MB arrive, sha256 equal" wait "$BG"
expect_eq "... same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
expect_eq "... same address" "$(addr_of "$NS_A")" "$A6/64"
expect_eq "... same route" "$(routes6_of "$NS_A")" "2001:db8:99::/48"
check "... the new sitd took the device over" grep -q 'device taken over' "$(log_of "$PID_A")"

# The same for the receiver.
transfer_bg $B6
sleep 0.2
check "the transfer is under way when B is stopped" alive "$BG"
kill -TERM "$PID_B"
wait "$PID_B" 2>/dev/null
start_b 2
check "SIGTERM and a new start of the receiver: the 200 MB arrive, sha256 equal" wait "$BG"
expect_eq "... same ifindex" "$(ifindex_of "$NS_B")" "$ifb"
expect_eq "... same address" "$(addr_of "$NS_B")" "$B6/64"
check "... the new sitd took the device over" grep -q 'device taken over' "$(log_of "$PID_B")"

# kill -9 of A's packet process (a crash): the monitor exits with a failure (what makes
# the unit's Restart=on-failure start it again), the device stays.
transfer_bg $B6
sleep 0.2
check "the transfer is under way when A's packet process is killed" alive "$BG"
kill -KILL "$(packet_pid "$PID_A")"
wait "$PID_A" 2>/dev/null
rc=$?
check "the monitor then exits with a failure (status $rc)" test "$rc" -ne 0
start_sitd "$NS_A" sitd-a3 -c "$conf"
PID_A=$LAST_PID
check "kill -9 of the packet process and a new start: the 200 MB arrive, sha256 equal" wait "$BG"
expect_eq "... same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
expect_eq "... same address" "$(addr_of "$NS_A")" "$A6/64"
expect_eq "... same route" "$(routes6_of "$NS_A")" "2001:db8:99::/48"

# A reload with a changed stanza: the device stays, the new settings hold.
write_conf "hoplimit 37"
expect_eq "reload answers ok" "$("$SITD" -S "$(sock_of "$PID_A")" reload)" ok
expect_eq "after the reload: same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
expect_eq "after the reload: same address" "$(addr_of "$NS_A")" "$A6/64"
expect_eq "after the reload: hoplimit 37 in effect" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq -r '.[0].hoplimit')" 37
check "after the reload: ping through" quiet na ping -6 -c 2 -i 0.2 -W 2 -q $B6
finish
