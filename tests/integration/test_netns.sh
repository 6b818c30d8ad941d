#!/usr/bin/env bash
# `netns` (issue 23): a tunnel's device in another network namespace than sitd's, as the
# kernel's link-netns.  Namespace C has no underlay at all, only lo; sitd runs in A (the
# "host", joined to B by veth) and puts sit1's device into C, where it pings B and carries
# 200 MB of TCP intact.  Then: sitd restarted takes the device in C over (same ifindex); C
# deleted (sit1 down, counted, sitd still forwards ipip1) and made again (sit1 back by
# itself); a reload moves sit1 into D, named by a process id; a path that is no network
# namespace is refused, and one not there is named as not found.
#
#   netns C (lo only)        netns A                          netns B
#   sit1 2001:db8:1::1  <--  sitd: sit1 -> C, ipip1  == veth ==  sitd: sit1, ipip1
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

NS_C=$TAG-c
NS_D=$TAG-d
EXTRA_NS+=("$NS_C" "$NS_D")

# conf NETNS: A's configuration, sit1's device in NETNS, ipip1 in A itself.
conf() {
	cat >"$LOGDIR/a.conf" <<EOF
tunnel sit1 mode sit remote $B4 local $A4
	netns $1
	address $A6/64
tunnel ipip1 mode ipip remote $B4 local $A4
	address $A4IN/24
EOF
	chmod 644 "$LOGDIR/a.conf"
}

nc_() { ip netns exec "$NS_C" "$@"; }
ifindex() { ip -n "$1" -o link show "$2" 2>/dev/null | cut -d: -f1; }
status() { "$SITD" -S "$(sock_of "$PID_A")" status -j | jq ".$1"; }
show_of() { "$SITD" -S "$(sock_of "$PID_A")" show -j | jq -r ".[] | select(.ifname == \"sit1\") | .$1"; }
new_c() {
	ip netns add "$NS_C" || die "cannot create network namespace $NS_C"
	ip -n "$NS_C" link set lo up
}

setup_pair
new_c
printf 'tunnel sit1 mode sit remote %s local %s\n\taddress %s/64\ntunnel ipip1 mode ipip remote %s local %s\n\taddress %s/24\n' \
	$A4 $B4 $B6 $A4 $B4 $B4IN >"$LOGDIR/b.conf"
chmod 644 "$LOGDIR/b.conf"
conf "$NS_C"
start_sitd "$NS_A" sitd-a -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b -c "$LOGDIR/b.conf"

check "sit1's device is in C" wait_ok 1 ip -n "$NS_C" link show sit1
check "... not in A, where sitd runs" bash -c "! ip -n $NS_A link show sit1 >/dev/null 2>&1"
expect_eq "C has no underlay: lo and sit1 only" "$(ip -n "$NS_C" -o link show | awk -F': ' '{ print $2 }' | sort | paste -sd,)" "lo,sit1"
check "... and its address from the stanza" bash -c "ip -n $NS_C -6 addr show dev sit1 | grep -q $A6/64"
check "C pings B through sit1" wait_ok 5 nc_ ping -6 -c 1 -W 1 -q $B6
check "A's ipip1 pings B" na ping -c 2 -i 0.2 -W 2 -q $B4IN
expect_eq "show -j says where the device lives" "$(show_of netns)" "$NS_C"
check "show's text too" bash -c "'$SITD' -S '$(sock_of "$PID_A")' show | grep -q '^sit1:.* netns $NS_C'"
expect_eq "the outer sockets stay in A: none in C" "$(ip netns exec "$NS_C" ss -Hwua | wc -l)" 0
# Least grant (issue 20): the monitor keeps CAP_SYS_ADMIN (bit 21, for setns) only when a
# stanza has netns: A's does, B's (no netns) does not; the packet process has none.
capeff() { printf '%d' $((0x$(awk '/^CapEff/ { print $2 }' /proc/"$1"/status) >> 21 & 1)); }
expect_eq "A's monitor keeps CAP_SYS_ADMIN (netns)" "$(capeff "$PID_A")" 1
expect_eq "B's monitor does not (no netns)" "$(capeff "$LAST_PID")" 0
expect_eq "A's packet process has none" "$(awk '/^CapEff/ { print $2 }' /proc/"$(packet_pid "$PID_A")"/status)" 0000000000000000

make_data 200
# transfer sends from $NS_A: here from C.
NS_A=$NS_C check "200 MB over TCP from C to B through sit1: sha256 intact" transfer $B6

# Restart: SIGTERM keeps the device, in C; the next sitd takes it over, ifindex and all.
idx=$(ifindex "$NS_C" sit1)
kill -TERM "$PID_A"
wait_ok 5 bash -c "! kill -0 $PID_A 2>/dev/null"
check "after SIGTERM the device stays in C" wait_ok 1 ip -n "$NS_C" link show sit1
start_sitd "$NS_A" sitd-a2 -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
expect_eq "restarted, sitd took the device in C over: same ifindex" "$(ifindex "$NS_C" sit1)" "$idx"
check "... and said so" grep -q 'sit1.*device taken over' "$(log_of "$PID_A")"
check "... and C pings B again" wait_ok 5 nc_ ping -6 -c 1 -W 1 -q $B6
expect_eq "no namespace lost yet" "$(status netns_lost)" 0

# The container stops: C deleted.  sit1 down, counted, logged; ipip1 goes on.
ip netns del "$NS_C"
check "C gone: counted" wait_ok 5 bash -c "[ \"\$('$SITD' -S '$(sock_of "$PID_A")' status -j | jq .netns_lost)\" = 1 ]"
expect_eq "... sit1 shown as gone" "$(show_of netns_gone)" true
check "... and logged" grep -q 'netns .* is gone' "$(log_of "$PID_A")"
check "... sitd alive" kill -0 "$PID_A"
check "... and ipip1 still carries traffic" na ping -c 2 -i 0.2 -W 2 -q $B4IN
check "... while B's sit1 packets find no tunnel up in A" bash -c "! ip netns exec $NS_B ping -6 -c 1 -W 1 -q $A6 >/dev/null"

# It comes back (a new namespace of the same name): sit1 is made in it, by itself.
new_c
check "C back: sit1's device made in it by itself" wait_ok 5 ip -n "$NS_C" link show sit1
check "... pinging B" wait_ok 5 nc_ ping -6 -c 1 -W 1 -q $B6
expect_eq "... counted back" "$(status netns_back)" 1
expect_eq "... no longer shown gone" "$(show_of netns_gone)" null

# A reload moves sit1 into D, named by a process id there (/proc/PID/ns/net).
ip netns add "$NS_D" || die "cannot create network namespace $NS_D"
ip -n "$NS_D" link set lo up
ip netns exec "$NS_D" sleep 600 &
DPID=$!
conf "$DPID"
out=$(na "$SITD" -S "$(sock_of "$PID_A")" reload 2>&1)
expect_eq "reload with sit1 in netns PID (D)" "$out" ok
check "sit1 moved: in D" wait_ok 1 ip -n "$NS_D" link show sit1
check "... gone from C" bash -c "! ip -n $NS_C link show sit1 >/dev/null 2>&1"
check "... D pings B" wait_ok 5 ip netns exec "$NS_D" ping -6 -c 1 -W 1 -q $B6
expect_eq "... show says so" "$(show_of netns)" "$DPID"
kill "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null

# Not a network namespace: refused, clearly, before any device is made.
for bad in /etc/hostname /proc/self/ns/uts; do
	printf 'tunnel sit9 mode sit remote %s local %s netns %s\n' $B4 $A4 "$bad" >"$LOGDIR/bad.conf"
	chmod 644 "$LOGDIR/bad.conf"
	out=$(timeout 10 ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/bad.sock" -c "$LOGDIR/bad.conf" 2>&1)
	rc=$?
	check "netns $bad refused (exit $rc)" test "$rc" != 0 -a "$rc" != 124
	case $bad in
	/etc/*) want="not a namespace" ;;
	*) want="not a network namespace" ;;
	esac
	check "... saying \"$want\": $(grep -m1 "netns $bad" <<<"$out")" grep -q "netns $bad .*refused: .*$want" <<<"$out"
done
check "... and no sit9 anywhere" bash -c "! ip -n $NS_A link show sit9 >/dev/null 2>&1"

# A namespace that is not there: the error names it, not found (not /dev/net/tun).
for missing in "$TAG-none" 4194304; do
	printf 'tunnel sit9 mode sit remote %s local %s netns %s\n' $B4 $A4 "$missing" >"$LOGDIR/bad.conf"
	out=$(timeout 10 ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/bad.sock" -c "$LOGDIR/bad.conf" 2>&1)
	rc=$?
	check "netns $missing (none there) refused (exit $rc)" test "$rc" != 0 -a "$rc" != 124
	check "... saying so: $(grep -m1 "^sitd: sit9: netns" <<<"$out")" \
		grep -q "^sitd: sit9: netns $missing not found: no /.*$missing" <<<"$out"
	check "... and nothing of /dev/net/tun" bash -c '! grep -q /dev/net/tun' <<<"$out"
done

finish
