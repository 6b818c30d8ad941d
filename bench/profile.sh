#!/usr/bin/env bash
# Profile one tunnel as bench/run.sh sets it up (lib.sh's namespaces, sitd at both ends,
# one iperf3 stream A to B, cubic): `perf record -g` on the four sitd processes (both
# monitors and packet processes, so the softirq work done in their context counts, as
# bench/run.sh's CPU s/GB counts it), then perf samples per GB moved, inclusive, of the
# symbols that differ most between the rows.  A probe, not a test: run as root.
#
#   bench/profile.sh sit ip6ip6            (GW=1: the remote through a gateway route)
#   PROFILE_SECONDS=8 PROFILE_DIR=/tmp/p bench/profile.sh sit ip6ip6 ipip6
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "bench/profile.sh: run as root" >&2; exit 1; }
SITD=${SITD:-$PWD/build/sitd}
SECS=${PROFILE_SECONDS:-8}
OUT=${PROFILE_DIR:-/tmp/sitd-profile}
mkdir -p "$OUT"
. tests/integration/lib.sh
require_root iperf3 perf jq

# With GW set, each end reaches the other's underlay address through a route with a
# gateway (the address itself), as most remotes are: the HDRINCL sends then take the
# per-CPU route, not a fresh uncached clone (ip6_pol_route, __mkroute_output).
profile() {	# profile ROW: one run; prints "ROW GB sitd_cpu_s_per_GB"
	local row=$1 addr pids t0 t1 gb
	case $row in
	sit)
		setup_pair
		[ -n "${GW:-}" ] && { na ip route add "$B4/32" via "$B4" dev va; nb ip route add "$A4/32" via "$A4" dev vb; }
		setup_tunnel sit; addr=$B6 ;;
	ip6ip6 | ipip6)
		setup_pair6
		[ -n "${GW:-}" ] && { na ip -6 route add "$B6U/128" via "$B6U" dev va; nb ip -6 route add "$A6U/128" via "$A6U" dev vb; }
		setup_tunnel6 "$row"
		addr=$([ "$row" = ip6ip6 ] && echo $B6 || echo $B4IN) ;;
	*) die "bench/profile.sh: no row $row (sit, ip6ip6, ipip6)" ;;
	esac
	pids="$PID_A $(packet_pid "$PID_A") $PID_B $(packet_pid "$PID_B")"
	nb iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	sleep 0.3
	t0=$(for p in $pids; do awk '{ print $14 + $15 }' "/proc/$p/stat"; done | paste -sd+ | bc)
	na iperf3 -c "$addr" -p 5201 -t "$SECS" -C cubic -f m >"$OUT/$row.iperf" 2>&1 &
	local ip=$!
	sleep 1
	perf record -F 999 -g -p "${pids// /,}" -o "$OUT/$row.data" -- sleep $((SECS - 2)) >/dev/null 2>&1
	wait $ip
	t1=$(for p in $pids; do awk '{ print $14 + $15 }' "/proc/$p/stat"; done | paste -sd+ | bc)
	for p in $PID_A $PID_B; do "$SITD" -S "$(sock_of "$p")" show -s -j >"$OUT/$row.stats.$p"; done
	teardown
	gb=$(awk '/receiver/ { for (i = 1; i < NF; i++) {
			if ($(i + 1) == "GBytes") print $i
			if ($(i + 1) == "MBytes") print $i / 1024 } }' "$OUT/$row.iperf")
	[ -n "$gb" ] || die "bench/profile.sh: no iperf3 result for $row (see $OUT/$row.iperf)"
	# perf samples (of the recorded window) per GB (of the whole run): the window is
	# SECS - 2 of SECS seconds in every row alike, so rows compare.
	perf report -i "$OUT/$row.data" --children --sort symbol --stdio -n -g none 2>/dev/null |
		grep -v '^#' | grep -v '^$' >"$OUT/$row.children"
	awk -v gb="$gb" 'NR == FNR { t += $3; next }
		{ p = $1; sub("%", "", p); if (!seen[$5]++) printf "%s %.0f\n", $5, p * t / 100 / gb }' \
		"$OUT/$row.children" "$OUT/$row.children" | sort >"$OUT/$row.pergb"
	echo "$row $gb $(awk -v t=$((t1 - t0)) -v tk="$(getconf CLK_TCK)" -v gb="$gb" 'BEGIN { printf "%.2f", t / tk / gb }')"
}

ROWS=("$@")
[ ${#ROWS[@]} -gt 0 ] || ROWS=(sit ip6ip6)
echo "uptime: $(uptime)"
for r in "${ROWS[@]}"; do
	read -r row gb cpu < <(profile "$r")
	echo "$row: $gb GB in ${SECS} s, sitd CPU $cpu s/GB, $(awk '$1 == "do_syscall_64" { print $2 }' "$OUT/$row.pergb") samples/GB in syscalls"
done
# The two first rows side by side: the 40 symbols whose samples per GB differ most.
if [ ${#ROWS[@]} -ge 2 ]; then
	a=${ROWS[0]} b=${ROWS[1]}
	echo
	printf '%-36s %8s %8s %8s\n' "symbol (inclusive, samples/GB)" "$a" "$b" "diff"
	join -a1 -a2 -e0 -o 0,1.2,2.2 "$OUT/$a.pergb" "$OUT/$b.pergb" |
		awk '{ d = $3 - $2; printf "%-36s %8d %8d %8d %d\n", $1, $2, $3, d, (d < 0 ? -d : d) }' |
		sort -k5 -n -r | head -n 40 | cut -c1-64
fi
