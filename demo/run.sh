#!/usr/bin/env bash
# The demo: the experiment of the 2013 report (doc/kernel.md "The founding lesson"),
# run through sitd.  Two network namespaces joined by a veth pair (MTU 1500), sitd at
# both ends of a sit tunnel, and iperf3 (one TCP stream, cubic) with TSO on, TSO off and
# nopmtudisc, beside the bare veth.  Installs what it needs, builds, runs as root.
#
#   DEMO_SECONDS=10 demo/run.sh
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "demo/run.sh: run as root (namespaces, TUN, apt-get)" >&2; exit 1; }
scripts/deps.sh
make -s -j"$(nproc)" all
SECS=${DEMO_SECONDS:-10}
set +e
. tests/integration/lib.sh
require_root iperf3 ethtool

# iperf THROUGH-ADDR: receiver Mbit/s of one 1-stream run.  The machine's default is bbr;
# cubic is pinned per socket (-C), as in the report's era.
iperf() {
	nb iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	sleep 0.3
	na iperf3 -c "$1" -p 5201 -t "$SECS" -C cubic -f m 2>&1 |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i+1) == "Mbits/sec") v = $i } END { print v + 0 }'
}

row() {	# row LABEL MBITS PID
	local ptb=- drops=-
	if [ -n "${3:-}" ]; then
		ptb=$(ctr "$3" tx_icmp_ptb)
		drops=$(drops_total "$3")
	fi
	printf '  %-28s %8.0f %10.2f %10s %8s\n' "$1" "$2" "$(awk -v a="$2" -v b="$BARE" 'BEGIN { print b ? a / b : 0 }')" "$ptb" "$drops"
}

echo "sitd demo: iperf3 -t $SECS, one TCP stream, cubic, IPv6 in sit over a 1500-byte veth"
echo
setup_pair
setup_tunnel sit
BARE=$(iperf $B4)
ON=$(iperf $B6)
PID_ON=$PID_A
na ethtool -K "$TUN" tso off >/dev/null
OFF=$(iperf $B6)
printf '  %-28s %8s %10s %10s %8s\n' "path" "Mbit/s" "vs veth" "PTB sent" "drops"
row "bare veth (the limit)" "$BARE"
row "sitd sit, TSO on" "$ON" "$PID_ON"
row "sitd sit, TSO off" "$OFF" "$PID_A"
teardown
setup_pair
setup_tunnel sit nopmtudisc
NOPMTU=$(iperf $B6)
row "sitd sit nopmtudisc, TSO on" "$NOPMTU" "$PID_A"
teardown
echo
echo "  The 2013 kernel in the report, 1 Gbit/s NICs: TSO on 36, TSO off 707, nopmtudisc 717 Mbit/s."
awk -v on="$ON" -v off="$OFF" 'BEGIN { printf "  sitd: TSO on / TSO off = %.2f (must be >= 1), and nopmtudisc is not needed.\n", off ? on / off : 0 }'
