#!/usr/bin/env bash
# sitd accepts only outer source == remote and outer destination == local: a packet whose
# addresses no tunnel has is dropped and counted once, for the process (rx_no_tunnel), as
# the kernel's lookup finds no tunnel for it.  A second sitd in B, sending from another
# address of B (192.0.2.3), stands in for a spoofer: A must drop and count its packets and
# write none of them to its TUN.  Topology: lib.sh, plus 192.0.2.3 on vb and a second
# tunnel "spoof" in B (2001:db8:2::/64).
. "$(dirname "$0")/lib.sh"
require_root ping

setup_pair
setup_tunnel sit
nb ip addr add 192.0.2.3/24 dev vb
start_sitd "$NS_B" spoof spoof mode sit remote $A4 local 192.0.2.3
PID_S=$LAST_PID
tun_up "$NS_B" spoof 2001:db8:2::2
na ping -6 -c 1 -W 2 -q $B6 >/dev/null	# settle
rx0=$(ctr "$PID_A" rx_packets)
nb ping -6 -c 5 -i 0.2 -W 1 -q -I spoof 2001:db8:2::1 >/dev/null
expect_ge "the spoofing tunnel sent its packets" "$(ctr "$PID_S" tx_packets)" 5
expect_ge "A counted them as rx_no_tunnel" "$(pstat "$PID_A" rx_no_tunnel)" 5
expect_eq "A wrote none of them to its TUN" "$(ctr "$PID_A" rx_packets)" "$rx0"

# Outer destination: a second sitd in A (several on one host), its tunnel bound to another
# local address, sees B's packets for 192.0.2.1 (every raw socket of the protocol gets a
# copy) and must refuse them.
na ip addr add 192.0.2.4/24 dev va
start_sitd "$NS_A" other other mode sit remote $B4 local 192.0.2.4
PID_O=$LAST_PID
na ip link set other up
nb ping -6 -c 3 -i 0.2 -W 1 -q $A6 >/dev/null
expect_ge "a sitd whose tunnel has another local counts rx_no_tunnel" "$(pstat "$PID_O" rx_no_tunnel)" 3
expect_eq "... and writes nothing to its TUN" "$(ctr "$PID_O" rx_packets)" 0
check "the real tunnel still works" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
finish
