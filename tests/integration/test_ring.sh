#!/usr/bin/env bash
# -R ring: protocol 41 and 4 received through an AF_PACKET TPACKET_V3 ring, split with the
# raw socket by complementary filters (src/core/bpf.h; doc/architecture.md "-R ring"):
#
#  - no warm-up: both ends started together, the first ping works (a small packet: the
#    raw socket's, not held for a block), and a 1000-byte one through the ring;
#  - 200 MB over TCP, sha256 equal, nearly every outer packet read from B's ring, none
#    twice (B wrote no more inner packets than A sent), nothing dropped;
#  - what the ring does not take still arrives through the raw socket: packets without
#    DF (nopmtudisc), fragments (reassembled by the stack), a `local any` tunnel;
#  - a reload that adds a tunnel with another local address widens the ring's filter;
#  - packets that B's veth merged (GRO) are read from the ring whole;
#  - an IPv6 underlay (ip6ip6) keeps its raw socket with -R ring, with a warning (IPv6
#    has no DF to split by: doc/kernel.md "-R ring does not apply over IPv6"), and works;
#  - -R takes raw or ring only.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq ethtool

make_data 200
setup_pair
SITD_OPTS="-R ring" setup_tunnel sit
check "the first ping, no warm-up" na ping -6 -c 1 -W 2 -q $B6
expect_eq "... small: through the raw socket, not held for a ring block" "$(ctr "$PID_B" rx_ring)" 0
check "a 1000-byte ping" na ping -6 -c 1 -W 2 -q -s 1000 $B6
expect_ge "... read from B's ring" "$(ctr "$PID_B" rx_ring)" 1
expect_eq "sitd status names the ring" \
	"$("$SITD" -S "$(sock_of "$PID_B")" status -j | jq -c '[.paths[] | select(.ring) | .path]')" '["protocol 41"]'
rtt=$(na ping -6 -c 20 -i 0.05 -W 2 -q $B6 | awk -F/ '/^rtt/ { print $5 }')
big=$(na ping -6 -c 20 -i 0.05 -W 2 -q -s 1000 $B6 | awk -F/ '/^rtt/ { print $5 }')
echo "# ping RTT with rings at both ends: $rtt ms, with 1000 bytes $big ms (a block waits up to 1 ms)"
sent0=$(ctr "$PID_A" tx_packets)
ring0=$(ctr "$PID_B" rx_ring)
rx0=$(ctr "$PID_B" rx_packets)
drops0=$(($(drops_total "$PID_A") + $(drops_total "$PID_B")))
check "200 MB over TCP read from the ring, sha256 equal" transfer $B6
sent=$(($(ctr "$PID_A" tx_packets) - sent0))
ring=$(($(ctr "$PID_B" rx_ring) - ring0))
rx=$(($(ctr "$PID_B" rx_packets) - rx0))
echo "# A sent $sent outer packets; B read $ring from its ring and wrote $rx inner ones"
expect_ge "... 100000 outer packets or more" "$sent" 100000
expect_ge "... 99 % of them read from the ring" "$((ring * 100))" $((sent * 99))
expect_ge "... none twice: B wrote no more than A sent" "$sent" "$rx"
expect_eq "... and nothing dropped on either side" "$(($(drops_total "$PID_A") + $(drops_total "$PID_B") - drops0))" 0
teardown

# Without DF (nopmtudisc) and in fragments: the raw socket's, through the stack.
setup_pair
SITD_OPTS="-R ring" setup_tunnel ipip nopmtudisc ttl 0 mtu 1600
# (-M dont: the inner DF, which ipip copies outside as the kernel's ip_tunnel_xmit does.)
check "nopmtudisc: pings arrive" na ping -4 -c 3 -i 0.2 -W 2 -q -M dont $B4IN
check "... fragmented ones too (1560 bytes over a 1500-byte veth)" \
	na ping -4 -c 3 -i 0.2 -W 2 -q -s 1540 -M dont $B4IN
expect_eq "... none of them from the ring (no DF)" "$(ctr "$PID_B" rx_ring)" 0
expect_ge "... all through the raw socket" "$(ctr "$PID_B" rx_packets)" 6
teardown

# local any: the ring cannot tell local from transit, so the raw socket has it.
setup_pair
start_sitd "$NS_A" sitd-a "$TUN" mode sit remote $B4 local $A4
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b -R ring "$TUN" mode sit remote $A4
PID_B=$LAST_PID
tun_up "$NS_A" "$TUN" $A6
tun_up "$NS_B" "$TUN" $B6
check "local any: pings arrive" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
expect_eq "... through the raw socket" "$(ctr "$PID_B" rx_ring)" 0
teardown

# A reload adds a tunnel to another local address of B's: the ring's filter takes it too.
setup_pair
B4B=192.0.2.3
nb ip addr add $B4B/24 dev vb
conf=$LOGDIR/b.conf
echo "tunnel sit1 mode sit remote $A4 local $B4" >"$conf"
start_sitd "$NS_B" sitd-b -R ring -c "$conf"
PID_B=$LAST_PID
start_sitd "$NS_A" sitd-a -c <(printf 'tunnel sit1 mode sit remote %s local %s\ntunnel sit2 mode sit remote %s local %s\n' \
	$B4 $A4 $B4B $A4)
PID_A=$LAST_PID
tun_up "$NS_A" sit1 $A6
tun_up "$NS_B" sit1 $B6
na ip addr add 2001:db8:2::1/64 dev sit2 nodad
na ip link set sit2 up
check "sit1 through the ring" na ping -6 -c 2 -i 0.2 -W 2 -q -s 1000 $B6
printf 'tunnel sit1 mode sit remote %s local %s\ntunnel sit2 mode sit remote %s local %s address 2001:db8:2::2/64\n' \
	$A4 $B4 $A4 $B4B >"$conf"
expect_eq "reload adds sit2 (local $B4B)" "$("$SITD" -S "$(sock_of "$PID_B")" reload)" ok
nb ip link set sit2 up
ring0=$(ctr "$PID_B" rx_ring)
ok=0
for _ in $(seq 30); do nb ip -6 addr show dev sit2 | grep -q 2001:db8:2::2 && na ping -6 -c 1 -W 1 -q -s 1000 2001:db8:2::2 >/dev/null 2>&1 && { ok=1; break; }; sleep 0.1; done
expect_eq "sit2 answers" "$ok" 1
check "... again and again" na ping -6 -c 3 -i 0.2 -W 2 -q -s 1000 2001:db8:2::2
expect_ge "... from the ring: the filter took its address" "$(($(ctr "$PID_B" rx_ring) - ring0))" 4
teardown

# B's veth merges (GRO, a NAPI thread, TSO off on A's side): the ring gets the merged
# packets whole (a block holds 64 KB).
setup_pair
SITD_OPTS="-R ring" setup_tunnel sit
if merging_underlay "merged by B's GRO, read from the ring"; then
	na ping -6 -c 1 -W 2 -q $B6 >/dev/null
	k0=$(ctr "$PID_B" rx_gro_kernel)
	d0=$(drops_total "$PID_B")
	check "merged by B's GRO, read from the ring: 200 MB, sha256 equal" transfer $B6
	expect_ge "... merged super-packets came whole" "$(($(ctr "$PID_B" rx_gro_kernel) - k0))" 100
	expect_eq "... nothing dropped" "$(($(drops_total "$PID_B") - d0))" 0
fi
teardown

# ip6ip6 with -R ring (and -T packet) at both ends: the raw sockets carry it all.
setup_pair6
SITD_OPTS="-R ring -T packet" setup_tunnel6 ip6ip6
check "ip6ip6 with -R ring: 1000-byte pings" na ping -6 -c 3 -i 0.2 -W 2 -q -s 1000 $B6
d0=$(drops_total "$PID_B")
check "ip6ip6 with -R ring: 200 MB, sha256 equal" transfer $B6
expect_eq "... none of it read from a ring" "$(ctr "$PID_B" rx_ring)" 0
expect_eq "... nothing dropped" "$(($(drops_total "$PID_B") - d0))" 0
expect_eq "... sitd status names no ring" \
	"$("$SITD" -S "$(sock_of "$PID_B")" status -j | jq -c '[.paths[] | select(.ring) | .path]')" '[]'
check "... and its log says why not" grep -q -- "-R ring is for IPv4 outer packets; ipv6 protocol 41" "$(log_of "$PID_B")"
teardown

expect_eq "-R something-else is refused" "$("$SITD" -R fast t0 mode sit remote $B4 2>&1; echo "rc=$?")" \
	"$(printf 'sitd: -R takes raw or ring, not "fast"\nrc=2')"
finish
