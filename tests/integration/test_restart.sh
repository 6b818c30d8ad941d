#!/usr/bin/env bash
# Restarts that lose nothing, and addresses and routes that come with the tunnel.
#
#  - a stanza's `address` and `route` words: on the device after start, changed by a
#    reload (what the new stanza no longer has taken off, the device kept), gone with the
#    device when the stanza goes;
#  - kill -9 of A's packet process, then of A's monitor, each in the middle of a 200 MB
#    transfer, and a new start: same ifindex, addresses and routes, sha256 equal;
#  - SIGTERM and a new start of B's sitd (what `systemctl restart` does) in the middle of
#    another: the same;
#  - A through the unit's own ExecStart and ExecReload lines, and a `systemctl restart`
#    (SIGTERM to the main pid, ExecStart again) mid-transfer: the same.
# Topology: lib.sh; A's tunnel from a file, B's from the command line with an address.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

make_data 200
setup_pair
conf=$LOGDIR/a.conf
write_conf() {	# write_conf EXTRA...: A's stanza, with these words after the fixed ones
	{
		echo "tunnel $TUN mode sit remote $B4 local $A4"
		echo "	address $A6/64"
		for w in "$@"; do echo "	$w"; done
	} >"$conf"
}
write_conf "route 2001:db8:99::/48" "route 203.0.113.0/24 metric 7"
start_sitd "$NS_A" sitd-a -c "$conf"
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b "$TUN" mode sit remote $A4 local $B4 address $B6/64
PID_B=$LAST_PID

expect_eq "after start: A's address, and the device up" "$(addr_of "$NS_A")" "$A6/64"
check "... up" bash -c "ip -n $NS_A link show $TUN | grep -q ',UP'"
expect_eq "after start: A's IPv4 route" "$(routes_of "$NS_A")" "203.0.113.0/24"
expect_eq "after start: A's IPv6 route" "$(routes6_of "$NS_A")" "2001:db8:99::/48"
expect_eq "B's address, from the command line" "$(addr_of "$NS_B")" "$B6/64"
check "ping through, no ip command run" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
expect_eq "show -j lists them" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq -c '.[0] | [.addresses, [.routes[].dst]]')" \
	"[[\"$A6/64\"],[\"2001:db8:99::/48\",\"203.0.113.0/24\"]]"

# Reload: ttl changed, one route gone, an address more: the device stays.
ifa=$(ifindex_of "$NS_A")
write_conf "ttl 64" "address 2001:db8:65::1/64" "route 2001:db8:99::/48"
expect_eq "reload answers ok" "$("$SITD" -S "$(sock_of "$PID_A")" reload)" ok
expect_eq "after the reload: same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
expect_eq "after the reload: both addresses" "$(addr_of "$NS_A")" "$A6/64,2001:db8:65::1/64"
expect_eq "after the reload: the IPv4 route taken off" "$(routes_of "$NS_A")" ""
expect_eq "after the reload: the IPv6 route kept" "$(routes6_of "$NS_A")" "2001:db8:99::/48"
check "... and ttl 64 in effect" bash -c "'$SITD' -S '$(sock_of "$PID_A")' show | grep -q 'ttl 64'"

# kill -9 of the packet process (a crash) in the middle of a transfer: the monitor exits
# with a failure, which is what makes the unit's Restart=on-failure start sitd again; the
# new start here is that restart.
transfer_bg $B6
sleep 0.1
check "the transfer is under way when the packet process is killed" alive "$BG"
kill -KILL "$(packet_pid "$PID_A")"
wait "$PID_A" 2>/dev/null
rc=$?
check "the monitor then exits with a failure (status $rc)" test "$rc" -ne 0
check "... saying why, and that the devices stay" grep -q 'the packet process died of signal 9; the devices stay' "$(log_of "$PID_A")"
start_sitd "$NS_A" sitd-a2 -c "$conf"
PID_A=$LAST_PID
check "kill -9 of the packet process and a new start: the 200 MB arrive, sha256 equal" wait "$BG"
expect_eq "... same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
expect_eq "... same addresses" "$(addr_of "$NS_A")" "$A6/64,2001:db8:65::1/64"
expect_eq "... same route" "$(routes6_of "$NS_A")" "2001:db8:99::/48"
check "... the new sitd took the device over" grep -q 'device taken over' "$(log_of "$PID_A")"

# kill -9 of the monitor: the packet process stops by itself (its parent-death signal,
# SIGTERM: the devices stay), and a new start takes over; again mid-transfer.
transfer_bg $B6
sleep 0.1
check "the transfer is under way when the monitor is killed" alive "$BG"
old_pp=$(packet_pid "$PID_A")
kill -KILL "$PID_A"
wait "$PID_A" 2>/dev/null
start_sitd "$NS_A" sitd-a3 -c "$conf"
PID_A=$LAST_PID
check "the orphaned packet process is gone (or a zombie)" bash -c "! ps -o stat= -p $old_pp | grep -qv ^Z"
check "kill -9 of the monitor and a new start: the 200 MB arrive, sha256 equal" wait "$BG"
expect_eq "... same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
expect_eq "... same addresses" "$(addr_of "$NS_A")" "$A6/64,2001:db8:65::1/64"
expect_eq "... same route" "$(routes6_of "$NS_A")" "2001:db8:99::/48"

# SIGTERM and a new start of B (the receiver) in the middle of another: what
# `systemctl restart sitd` does (SIGTERM to the main pid, the monitor, then ExecStart).
ifb=$(ifindex_of "$NS_B")
transfer_bg $B6
sleep 0.1
check "the transfer is under way when sitd is stopped" alive "$BG"
kill -TERM "$PID_B"
wait "$PID_B" 2>/dev/null
start_sitd "$NS_B" sitd-b2 "$TUN" mode sit remote $A4 local $B4 address $B6/64
PID_B=$LAST_PID
check "SIGTERM and a new start of the receiver: the 200 MB arrive, sha256 equal" wait "$BG"
expect_eq "... same ifindex" "$(ifindex_of "$NS_B")" "$ifb"
expect_eq "... same address" "$(addr_of "$NS_B")" "$B6/64"

# Through the unit's own command lines, as systemd runs them (there is no systemd here):
# ExecStart with this test's binary, file and user; ExecReload (SIGHUP to the main pid,
# the monitor, which forwards it); `systemctl restart` (SIGTERM to the main pid, then
# ExecStart) in the middle of a transfer.
unit=$(dirname "$0")/../../contrib/sitd.service
start_line=$(sed -n 's/^ExecStart=//p' "$unit")
reload_line=$(sed -n 's/^ExecReload=//p' "$unit")
args=${start_line#* }
args=${args/-u sitd/-u nobody}
args=${args/\/etc\/sitd.conf/$conf}
expect_eq "the unit's ExecStart, for this test" "$args" "-u nobody -c $conf"
kill -TERM "$PID_A"
wait "$PID_A" 2>/dev/null
# shellcheck disable=SC2086
start_sitd "$NS_A" sitd-unit $args
PID_A=$LAST_PID
write_conf "ttl 64" "address 2001:db8:65::1/64" "address 2001:db8:66::1/64" "route 2001:db8:99::/48"
MAINPID=$PID_A bash -c "$reload_line"
for _ in $(seq 30); do addr_of "$NS_A" | grep -q 2001:db8:66::1 && break; sleep 0.1; done
expect_eq "ExecReload (SIGHUP to the monitor): the new address is on the device" "$(addr_of "$NS_A")" \
	"$A6/64,2001:db8:65::1/64,2001:db8:66::1/64"
transfer_bg $B6
sleep 0.1
check "the transfer is under way at systemctl restart" alive "$BG"
kill -TERM "$PID_A"
wait "$PID_A" 2>/dev/null
expect_eq "... the main pid exits 0 on SIGTERM" "$?" 0
# shellcheck disable=SC2086
start_sitd "$NS_A" sitd-unit2 $args
PID_A=$LAST_PID
check "systemctl restart mid-transfer: the 200 MB arrive, sha256 equal" wait "$BG"
expect_eq "... same ifindex" "$(ifindex_of "$NS_A")" "$ifa"
expect_eq "... same addresses" "$(addr_of "$NS_A")" "$A6/64,2001:db8:65::1/64,2001:db8:66::1/64"
expect_eq "... same route" "$(routes6_of "$NS_A")" "2001:db8:99::/48"

# The stanza goes: the device goes, and its addresses and routes with it.
echo "tunnel other mode sit remote 192.0.2.9 local $A4" >"$conf"
expect_eq "reload without the stanza answers ok" "$("$SITD" -S "$(sock_of "$PID_A")" reload)" ok
check "the device is gone" bash -c "! ip -n $NS_A link show $TUN >/dev/null 2>&1"
check "... and its route with it" bash -c "! ip -n $NS_A -6 route show | grep -q 2001:db8:99::"
finish
