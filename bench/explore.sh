#!/usr/bin/env bash
# Side-by-side measurements of the knobs issue 4 asked about, each pair in one run:
#   - TUN txqueuelen 500 (the default) against 5000;
#   - GRO on the underlay veth off (the default) against on, for sit and for fou;
#   - GRO in sitd on (the default) against nogro.
# One TCP stream, cubic, BENCH_SECONDS per run (default 5), BENCH_RUNS runs (default 3),
# median printed.  A script, not a test; run as root.
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench/explore.sh: run as root" >&2; exit 1; }
scripts/deps.sh || exit 1
make -s -j"$(nproc)" all || exit 1
RUNS=${BENCH_RUNS:-3}
SECS=${BENCH_SECONDS:-5}
. tests/integration/lib.sh
require_root iperf3 ethtool

iperf() {
	nb iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	sleep 0.3
	na iperf3 -c "$1" -p 5201 -t "$SECS" -C cubic -f m 2>/dev/null |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i+1) == "Mbits/sec") v = $i } END { print v + 0 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# case LABEL SETUP-COMMAND SITD-ARGS...: median Gbit/s of sit traffic A -> B.
run_case() {
	local label=$1 setup=$2
	shift 2
	setup_pair
	setup_tunnel sit "$@"
	eval "$setup"
	local med
	med=$(for _ in $(seq "$RUNS"); do iperf $B6; done | median)
	printf '  %-44s %6.2f Gbit/s\n' "$label" "$(awk -v m="$med" 'BEGIN { print m / 1000 }')"
	teardown
}

echo "sitd knobs: iperf3 -t $SECS x $RUNS (median), one stream, cubic, IPv6 in sit"
run_case "sit, TUN txqueuelen 500 (default)" ":"
run_case "sit, TUN txqueuelen 5000" "na ip link set $TUN txqueuelen 5000; nb ip link set $TUN txqueuelen 5000"
run_case "sit, underlay veth GRO off (default)" ":"
run_case "sit, underlay veth GRO on" "na ethtool -K va gro on; nb ethtool -K vb gro on"
run_case "sit, sitd GRO on (default)" ":"
run_case "sit, sitd nogro" ":" nogro
run_case "fou encap-csum, underlay veth GRO off" ":" encap fou encap-dport 5555 encap-csum
run_case "fou encap-csum, underlay veth GRO on" "na ethtool -K va gro on; nb ethtool -K vb gro on" \
	encap fou encap-dport 5555 encap-csum
run_case "fou, no UDP checksum (segment by segment)" ":" encap fou encap-dport 5555
