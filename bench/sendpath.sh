#!/usr/bin/env bash
# The kernel's cost per outer packet for each way sitd could send it (bench/sendpath.c):
# IPv4 raw (sit), IPv6 raw with an IPV6_PKTINFO per packet, bound to the source (what
# sitd does), unbound without one, and connected without IPV6_HDRINCL.  Two namespaces
# joined by veth, the receiver holding protocol-41 sockets that never read; ROUNDS rounds
# of every mode in turn, the median of each, and its ratio to IPv4's.  A probe: as root.
#
#   bench/sendpath.sh                 (GW=1: the remote through a gateway route)
#   ROUNDS=5 PACKETS=400000 bench/sendpath.sh
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/integration/lib.sh
SENDPATH=${SENDPATH:-$PWD/build/sendpath}
[ -x "$SENDPATH" ] || make -s bench-tools >/dev/null || die "cannot build $SENDPATH"
require_root
ROUNDS=${ROUNDS:-3}
PACKETS=${PACKETS:-200000}
MODES="v4 v6-cmsg v6-bound v6-nosrc v6-conn"

setup_pair
A6U=2001:db8:ff::1 B6U=2001:db8:ff::2
for ns in "$NS_A" "$NS_B"; do ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0; done
na ip addr add $A6U/64 dev va nodad
nb ip addr add $B6U/64 dev vb nodad
underlay6_wait
na ping -c 1 -W 2 -q $B4 >/dev/null || die "the IPv4 underlay does not carry"
# A gateway route (the address itself): the HDRINCL sends take the per-CPU route, not
# an uncached clone per packet (ip6_pol_route, __mkroute_output).
if [ -n "${GW:-}" ]; then
	na ip route add "$B4/32" via "$B4" dev va
	na ip -6 route add "$B6U/128" via "$B6U" dev va
fi
nb "$SENDPATH" sink &
SINK=$!
sleep 0.3

declare -A ns
for _ in $(seq "$ROUNDS"); do
	for m in $MODES; do
		if [ $m = v4 ]; then src=$A4 dst=$B4; else src=$A6U dst=$B6U; fi
		v=$(na "$SENDPATH" $m "$PACKETS" $src $dst | cut -d' ' -f2) || die "sendpath $m failed"
		ns[$m]="${ns[$m]:-} $v"
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "sendpath: $PACKETS packets of 1500 bytes a run, median of $ROUNDS, ${GW:+gateway route, }$(uname -r)"
printf '%-10s %10s %8s   %s\n' mode "ns/packet" "vs v4" "runs"
v4=$(median <<<"${ns[v4]}")
for m in $MODES; do
	med=$(median <<<"${ns[$m]}")
	printf '%-10s %10s %8s  %s\n' $m "$med" "$(awk -v a="$med" -v b="$v4" 'BEGIN { printf "%.2f", a / b }')" "${ns[$m]}"
done
kill "$SINK" 2>/dev/null
wait "$SINK" 2>/dev/null
exit 0
