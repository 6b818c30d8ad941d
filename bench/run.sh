#!/usr/bin/env bash
# The benchmark (a script, not a test): one run measures every row side by side on this
# machine and prints Gbit/s (median and range of BENCH_RUNS runs of BENCH_SECONDS), the
# tunnel's CPU seconds per GB moved (user + system time of its processes, from /proc),
# and each row's ratio to the bare veth.  One TCP stream, congestion control pinned to
# cubic (this machine defaults to bbr, which halves one flow here), veth MTU 1500.
#
#   bench/run.sh                      all rows, 3 runs of 10 s
#   BENCH_RUNS=1 BENCH_SECONDS=5 bench/run.sh
#   BENCH_ROWS="veth sit-on sit-off" bench/run.sh
#   BENCH_ROWS="sit-on sit-off ip6ip6-on ip6ip6-off ipip-on ipip6-on" bench/run.sh   (IPv6 underlay)
#   BENCH_ROWS="sit-on sit-pkt sit-off sit-pkt-off ip6ip6-on ip6ip6-pkt ip6ip6-off ip6ip6-pkt-off ipip6-on ipip6-pkt" bench/run.sh
#   BENCH_ROWS="sit-on sit-ba many-ab many-ba" bench/run.sh   (the tunnel table)
#   BENCH_ROWS="sit-on sit-ba many10k-ab many10k-ba" bench/run.sh   (... at 10 000)
#   BENCH_ROWS="veth sit-on sit-pkt sit-off sit-pkt-off ipip-on ipip-pkt" bench/run.sh   (-T packet)
#   BENCH_ROWS="veth sit-ul sit-ul-gro" bench/run.sh   (B's kernel merging, as a NIC's GRO)
#   BENCH_ROWS="blast blast-ring blast-xdp" bench/run.sh   (ring and AF_XDP receive against recvmmsg)
#   BENCH_ROWS="veth sit-on sit-ring sit-off sit-ring-off sit-pkt-ring openvpn socat" bench/run.sh   (-R ring)
#   BENCH_ROWS="veth sit-ring sit-pkt-ring sit-pkt-ring-off ipip-pkt-ring openvpn socat" bench/run.sh
#                                     (-T packet: inner checksums left to the device)
#   BENCH_CHART=/tmp/b.svg bench/run.sh   (the chart there, the table as /tmp/b.txt;
#                                     default bench/results.svg and .txt, by bench/chart.sh)
#
# Rows: veth (the limit), blast (1500-byte protocol-41 packets, raw sockets, sendmmsg and
# recvmmsg: sitd's outer side can go no faster), blast-ring and blast-xdp (the same
# receiver through a TPACKET_V3 ring, through AF_XDP), sit-on, sit-off (ethtool tso off),
# sit-nopmtu, ipip-on, fou-on and gue-on (sit inside FOU / GUE with encap-csum, so one
# UDP_SEGMENT send per super-packet), socat (TUN over UDP), openvpn (--cipher none
# --auth none); sit-ba (sit-on, data from B to A), many-ab and many-ba (the same tunnel
# beside 999 idle ones in A's sitd, from one file: each packet into A is looked up among
# 1000; also the time the 1000 take to start, A's memory and threads), many10k-ab and
# many10k-ba (the same beside 9999); sit-pkt,
# sit-pkt-off and ipip-pkt (-T packet at both ends: outer packets through AF_PACKET,
# inner checksums left to the device); sit-ring, sit-ring-off, ipip-ring (-R ring at
# both ends) and sit-pkt-ring, sit-pkt-ring-off, ipip-pkt-ring (both options);
# veth-p4 and sit-p4 (iperf3 -P 4); ip6ip6-on, ip6ip6-off (ethtool tso off) and ipip6-on
# (ip6tnl: the same tunnels over an IPv6-only veth underlay, setup_pair6 in lib.sh, with
# the default Tunnel Encapsulation Limit option, 48 bytes a packet; ip6ip6-nolim: with
# encaplimit none, 40); sit-gw, ip6ip6-gw, ipip6-gw (each remote through a gateway
# route, not on the link), each with a ratio
# to the sit row of the same run (target >= 0.9).  The last column is the machine's idle share during
# the runs (median): near 0 %, the machine, not the path, is the limit.
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench/run.sh: run as root" >&2; exit 1; }
scripts/deps.sh || exit 1
# The benchmark's own tools, COMMAND:PACKAGE: openvpn is a row, gnuplot draws the chart.
for p in openvpn:openvpn gnuplot:gnuplot-nox; do
	command -v "${p%%:*}" >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${p#*:}" >/dev/null
done
make -s -j"$(nproc)" all bench-tools || exit 1
RUNS=${BENCH_RUNS:-3}
SECS=${BENCH_SECONDS:-10}
ROWS=${BENCH_ROWS:-veth blast sit-on sit-off sit-nopmtu ipip-on ip6ip6-on ip6ip6-off ipip6-on fou-on gue-on socat openvpn}
# The table is also saved as CHART with .txt for .svg, and drawn by bench/chart.sh into CHART.
CHART=${BENCH_CHART:-$PWD/bench/results.svg}
TABLE=${CHART%.svg}.txt
BLAST=$PWD/build/blast
. tests/integration/lib.sh
require_root iperf3 ethtool socat

TICK=$(getconf CLK_TCK)
cpu_ticks() {	# cpu_ticks PID...: "user system" ticks of these processes (all threads)
	local u=0 s=0 p a b
	for p in "$@"; do
		read -r a b < <(awk '{ print $14, $15 }' "/proc/$p/stat" 2>/dev/null || echo 0 0)
		u=$((u + a))
		s=$((s + b))
	done
	echo "$u $s"
}

# both PID: a sitd's two processes, the monitor PID and its packet process.
both() { echo "$1 $(packet_pid "$1")"; }

# iperf ADDR: receiver Mbit/s of one run, STREAMS streams (default one; with several the
# total), cubic; from A to B, or from B to A when DIR=ba.  The machine's idle share
# during the run goes to $LOGDIR/idle.
DIR=ab
STREAMS=1
idle_ticks() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
iperf() {
	local srv=nb cli=na i0 t0 i1 t1
	[ "$DIR" = ba ] && srv=na cli=nb
	$srv iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	sleep 0.3
	read -r i0 t0 < <(idle_ticks)
	$cli iperf3 -c "$1" -p 5201 -t "$SECS" -P "$STREAMS" -C cubic -f m 2>/dev/null |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i+1) == "Mbits/sec") v = $i } END { print v + 0 }'
	read -r i1 t1 < <(idle_ticks)
	awk -v i=$((i1 - i0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.0f\n", (t > 0 ? 100 * i / t : 0) }' >>"$LOGDIR/idle"
}

# measure ADDR PIDS...: one run; prints "Mbit/s cpu_s_per_GB user_s_per_GB".
measure() {
	local addr=$1 u0 s0 u1 s1 mbit
	shift
	read -r u0 s0 < <(cpu_ticks "$@")
	mbit=$(iperf "$addr")
	read -r u1 s1 < <(cpu_ticks "$@")
	awk -v m="$mbit" -v u=$((u1 - u0)) -v c=$((u1 - u0 + s1 - s0)) -v tk="$TICK" -v s="$SECS" \
		'BEGIN { gb = m * s / 8000
			if (gb > 0 && c > 0) printf "%s %.2f %.2f\n", m, c / tk / gb, u / tk / gb
			else printf "%s - -\n", m }'
}

# Each row function prints one line per run: "Mbit/s cpu_s_per_GB".
row_veth() { setup_pair; for _ in $(seq "$RUNS"); do echo "$(iperf $B4) -"; done; teardown; }

row_blast() {
	setup_pair
	na ping -c 1 -W 1 -q $B4 >/dev/null	# B's neighbour entry: XDP takes B's ARP too
	for _ in $(seq "$RUNS"); do
		# shellcheck disable=SC2086
		nb ${BLAST_RX:-$BLAST recv} "$SECS" >"$LOGDIR/blast.out" &
		local r=$!
		sleep 0.3
		read -r i0 t0 < <(idle_ticks)
		na "$BLAST" send $A4 $B4 $((SECS + 2))
		read -r i1 t1 < <(idle_ticks)
		awk -v i=$((i1 - i0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.0f\n", (t > 0 ? 100 * i / t : 0) }' >>"$LOGDIR/idle"
		wait $r
		echo "$(cut -d' ' -f1 "$LOGDIR/blast.out") -"
	done
	teardown
}

# The same receiver through an AF_PACKET TPACKET_V3 ring on vb (blast.c "ring").
row_blast-ring() { BLAST_RX="$BLAST ring vb" row_blast; }
# ... and through an AF_XDP socket on vb, in copy mode (bench/xskblast.c, a probe).
row_blast-xdp() {
	local p
	for p in libxdp-dev libbpf-dev; do
		dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q 'install ok installed' ||
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $p >/dev/null
	done
	make -s build/xskblast >&2 || return
	BLAST_RX="$PWD/build/xskblast vb" row_blast 2>/dev/null
}

sitd_row() {	# sitd_row MODE ADDR [sitd args] [-- ethtool features]
	local mode=$1 addr=$2 args=() feats=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	feats=("$@")
	# The underlay: IPv4 (lib.sh's setup_pair), or IPv6 only with UNDERLAY6 set.
	if [ -n "${UNDERLAY6:-}" ]; then
		setup_pair6
		setup_tunnel6 "$mode" "${args[@]}"
	else
		setup_pair
		setup_tunnel "$mode" "${args[@]}"
	fi
	[ ${#feats[@]} = 0 ] || na ethtool -K "$TUN" "${feats[@]}" >/dev/null
	eval "${UNDERLAY:-:}"
	for _ in $(seq "$RUNS"); do measure "$addr" $(both "$PID_A") $(both "$PID_B"); done
	awk '/VmHWM/ { print $2 }' /proc/"$(packet_pid "$PID_A")"/status >"$LOGDIR/rss"
	teardown
}
row_sit-on() { sitd_row sit $B6; }
row_sit-off() { sitd_row sit $B6 -- tso off; }
row_sit-nopmtu() { sitd_row sit $B6 nopmtudisc; }
row_ipip-on() { sitd_row ipip $B4IN; }
row_sit-ba() { DIR=ba sitd_row sit $A6; }
# ip6tnl over an IPv6-only veth: the same inner traffic as sit-on, sit-off and ipip-on.
row_ip6ip6-on() { UNDERLAY6=1 sitd_row ip6ip6 $B6; }
row_ip6ip6-off() { UNDERLAY6=1 sitd_row ip6ip6 $B6 -- tso off; }
row_ipip6-on() { UNDERLAY6=1 sitd_row ipip6 $B4IN; }
# ... without the Tunnel Encapsulation Limit option (40 bytes a packet, not 48).
row_ip6ip6-nolim() { UNDERLAY6=1 sitd_row ip6ip6 $B6 encaplimit none; }
# ... and with -T packet at both ends (next hops from the IPv6 route and the NDP cache).
row_ip6ip6-pkt() { UNDERLAY6=1 SITD_OPTS="-T packet" sitd_row ip6ip6 $B6; }
row_ip6ip6-pkt-off() { UNDERLAY6=1 SITD_OPTS="-T packet" sitd_row ip6ip6 $B6 -- tso off; }
row_ipip6-pkt() { UNDERLAY6=1 SITD_OPTS="-T packet" sitd_row ipip6 $B4IN; }
# Each end's remote through a gateway route (the address itself), as most remotes are
# reached: the HDRINCL sends take the per-CPU route, not a clone per packet
# (ip6_pol_route, __mkroute_output; bench/sendpath.sh GW=1).
row_sit-gw() { UNDERLAY='na ip route add $B4/32 via $B4 dev va; nb ip route add $A4/32 via $A4 dev vb' sitd_row sit $B6; }
row_ip6ip6-gw() {
	UNDERLAY6=1 UNDERLAY='na ip -6 route add $B6U/128 via $B6U dev va; nb ip -6 route add $A6U/128 via $A6U dev vb' \
		sitd_row ip6ip6 $B6
}
row_ipip6-gw() {
	UNDERLAY6=1 UNDERLAY='na ip -6 route add $B6U/128 via $B6U dev va; nb ip -6 route add $A6U/128 via $A6U dev vb' \
		sitd_row ipip6 $B4IN
}
# -T packet at both ends: outer packets as Ethernet frames through AF_PACKET.
row_sit-pkt() { SITD_OPTS="-T packet" sitd_row sit $B6; }
row_sit-pkt-off() { SITD_OPTS="-T packet" sitd_row sit $B6 -- tso off; }
row_ipip-pkt() { SITD_OPTS="-T packet" sitd_row ipip $B4IN; }
# -R ring at both ends: protocol 41 and 4 read from an AF_PACKET ring; with -T packet too.
row_sit-ring() { SITD_OPTS="-R ring" sitd_row sit $B6; }
row_sit-ring-off() { SITD_OPTS="-R ring" sitd_row sit $B6 -- tso off; }
row_ipip-ring() { SITD_OPTS="-R ring" sitd_row ipip $B4IN; }
row_sit-pkt-ring() { SITD_OPTS="-T packet -R ring" sitd_row sit $B6; }
row_sit-pkt-ring-off() { SITD_OPTS="-T packet -R ring" sitd_row sit $B6 -- tso off; }
row_ipip-pkt-ring() { SITD_OPTS="-T packet -R ring" sitd_row ipip $B4IN; }
# Four streams through one tunnel (one TUN queue, one worker per direction's device):
# with the idle share, whether a second queue would have a core to run on.
# B's kernel merging the tunnel's packets before sitd reads them, as a NIC's GRO does
# (doc/kernel.md "Merged by the kernel"): veth merges with TSO off on A's side and a NAPI
# thread on B's.  sit-ul is the same underlay without the merging, to compare with.
# veth's NAPI thread reorders some packets, so compare CPU per GB more than Gbit/s.
row_sit-ul() { UNDERLAY="na ethtool -K va tso off" sitd_row sit $B6; }
row_sit-ul-gro() {
	UNDERLAY="merging_underlay sit-ul-gro" sitd_row sit $B6
}
row_veth-p4() { STREAMS=4 row_veth; }
row_sit-p4() { STREAMS=4 sitd_row sit $B6; }

# The same tunnel as sit-on, first of 1000 in A's sitd (the 999 others idle, to remotes
# that do not answer, half with local any so every class of the lookup is filled).
# MANY=10000 (the many10k rows): 9999 idle, to 203.0.113.(1 + i % 250) from local
# 192.0.2.(10 + i / 250), addresses not on A (routing picks the source), as
# tests/integration/test_scale.sh.
many_row() {
	local addr=$1 conf=$LOGDIR/many.conf i n=0 t0 t1 many=${MANY:-1000}
	{
		echo "tunnel $TUN mode sit remote $B4 local $A4"
		if [ "$many" -gt 1000 ]; then
			for ((i = 1; i < many; i++)); do
				echo "tunnel m$i mode sit remote 203.0.113.$((1 + i % 250)) local 192.0.2.$((10 + i / 250))"
			done
		else
			for net in 198.51.100 203.0.113 192.0.2; do
				for ((i = 10; i < 250; i++)); do
					echo "tunnel m$n mode sit remote $net.$i local $A4"
					n=$((n + 1))
					echo "tunnel m$n mode sit remote $net.$i local any"
					n=$((n + 1))
					[ $n -ge 999 ] && break 2
				done
			done
		fi
	} >"$conf"
	setup_pair
	[ "$many" -gt 1000 ] && na ip route add 203.0.113.0/24 dev va
	t0=$(date +%s%N)
	START_WAIT=600 start_sitd "$NS_A" "sitd-a" -c "$conf"
	PID_A=$LAST_PID
	for _ in $(seq 3000); do grep -q "$many tunnel(s)" "$(log_of "$PID_A")" && break; sleep 0.02; done
	t1=$(date +%s%N)
	local pp
	pp=$(packet_pid "$PID_A")
	# start ms, the packet process's RSS kB and threads, the monitor's RSS kB
	echo "$(((t1 - t0) / 1000000)) $(awk '/^VmRSS/ { print $2 }' /proc/"$pp"/status) $(awk '/^Threads/ { print $2 }' /proc/"$pp"/status) $(awk '/^VmRSS/ { print $2 }' /proc/"$PID_A"/status)" >"$LOGDIR/many.$many"
	start_sitd "$NS_B" "sitd-b" "$TUN" mode sit remote $A4 local $B4
	PID_B=$LAST_PID
	tun_up "$NS_A" "$TUN" $A6
	tun_up "$NS_B" "$TUN" $B6
	for _ in $(seq "$RUNS"); do measure "$addr" $(both "$PID_A") $(both "$PID_B"); done
	teardown
}
row_many-ab() { many_row $B6; }
row_many-ba() { DIR=ba many_row $A6; }
row_many10k-ab() { MANY=10000 many_row $B6; }
row_many10k-ba() { DIR=ba MANY=10000 many_row $A6; }
row_fou-on() { sitd_row sit $B6 encap fou encap-dport 5555 encap-csum; }
row_gue-on() { sitd_row sit $B6 encap gue encap-dport 5555 encap-csum; }

row_socat() {
	setup_pair
	na socat TUN:$A4IN/24,tun-name=st0,iff-up,iff-no-pi UDP-DATAGRAM:$B4:7000,bind=$A4:7000 2>/dev/null &
	nb socat TUN:$B4IN/24,tun-name=st0,iff-up,iff-no-pi UDP-DATAGRAM:$A4:7000,bind=$B4:7000 2>/dev/null &
	sleep 0.5
	na ip link set st0 mtu 1472
	nb ip link set st0 mtu 1472
	local pids
	pids=$( (ip netns pids "$NS_A"; ip netns pids "$NS_B") | xargs -r ps -o pid= -o comm= -p | awk '$2 == "socat" { print $1 }')
	# shellcheck disable=SC2086
	for _ in $(seq "$RUNS"); do measure $B4IN $pids; done
	teardown
}

row_openvpn() {
	setup_pair
	local common=(--dev ovpn0 --dev-type tun --proto udp --cipher none --auth none
		--data-ciphers none --verb 0 --tun-mtu 1472)
	na openvpn "${common[@]}" --local $A4 --remote $B4 --ifconfig $A4IN $B4IN --daemon --log "$LOGDIR/ovpn-a.log"
	nb openvpn "${common[@]}" --local $B4 --remote $A4 --ifconfig $B4IN $A4IN --daemon --log "$LOGDIR/ovpn-b.log"
	for _ in $(seq 50); do na ping -c 1 -W 1 -q $B4IN >/dev/null 2>&1 && break; sleep 0.2; done
	local pids
	pids=$( (ip netns pids "$NS_A"; ip netns pids "$NS_B") | xargs -r ps -o pid= -o comm= -p | awk '$2 == "openvpn" { print $1 }')
	# shellcheck disable=SC2086
	for _ in $(seq "$RUNS"); do measure $B4IN $pids; done
	teardown
}

# median: of sorted numbers on stdin, or "-" when there are none.
median() {
	awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A LABEL=(
	[veth]="bare veth (the limit)" [blast]="raw-socket ceiling (proto 41)"
	[blast-ring]="... received by a TPACKET_V3 ring" [blast-xdp]="... received by AF_XDP (copy mode)"
	[sit-on]="sitd sit, TSO on" [sit-off]="sitd sit, TSO off" [sit-nopmtu]="sitd sit, nopmtudisc"
	[ipip-on]="sitd ipip, TSO on" [fou-on]="sitd sit in fou, encap-csum"
	[gue-on]="sitd sit in gue, encap-csum" [socat]="socat TUN over UDP"
	[openvpn]="OpenVPN, no cipher, no auth" [sit-ba]="sitd sit, TSO on, B to A"
	[many-ab]="... beside 999 idle, A to B" [many-ba]="... beside 999 idle, B to A"
	[many10k-ab]="... beside 9999 idle, A to B" [many10k-ba]="... beside 9999 idle, B to A"
	[sit-pkt]="sitd sit, TSO on, -T packet" [sit-pkt-off]="sitd sit, TSO off, -T packet"
	[ipip-pkt]="sitd ipip, TSO on, -T packet"
	[veth-p4]="bare veth, 4 streams" [sit-p4]="sitd sit, TSO on, 4 streams"
	[sit-ring]="sitd sit, TSO on, -R ring" [sit-ring-off]="sitd sit, TSO off, -R ring"
	[ipip-ring]="sitd ipip, TSO on, -R ring" [sit-pkt-ring]="sitd sit, TSO on, -T packet -R ring"
	[sit-pkt-ring-off]="sitd sit, TSO off, -T packet -R ring" [ipip-pkt-ring]="sitd ipip, TSO on, -T packet -R ring"
	[sit-ul]="sitd sit, A's veth TSO off" [sit-ul-gro]="... and B's veth merging (GRO)"
	[ip6ip6-on]="sitd ip6ip6, TSO on" [ip6ip6-off]="sitd ip6ip6, TSO off"
	[ipip6-on]="sitd ipip6, TSO on" [ip6ip6-nolim]="sitd ip6ip6, TSO on, encaplimit none"
	[ip6ip6-pkt]="sitd ip6ip6, TSO on, -T packet" [ip6ip6-pkt-off]="sitd ip6ip6, TSO off, -T packet"
	[ipip6-pkt]="sitd ipip6, TSO on, -T packet"
	[sit-gw]="sitd sit, TSO on, gateway" [ip6ip6-gw]="sitd ip6ip6, TSO on, gateway"
	[ipip6-gw]="sitd ipip6, TSO on, gateway"
)
declare -A MED CPU
{
	echo "sitd benchmark: $(date -u +%F), $(nproc) cores, kernel $(uname -r), iperf3 -t $SECS x $RUNS, one stream, cubic"
	echo
	printf '%-32s %9s %17s %10s %9s %9s %6s\n' "row" "Gbit/s" "range" "CPU s/GB" "of it usr" "vs veth" "idle"
} | tee "$TABLE"
for r in $ROWS; do
	: >"$LOGDIR/idle"
	out=$(row_$r)
	# A row that died half way (its sitd refused to start, say) leaves nothing behind for
	# the next: its subshell's exit runs no trap.
	cleanup >/dev/null 2>&1
	idle=$(sort -n "$LOGDIR/idle" | median)
	# median and range of the runs; CPU: median of the runs that have one
	med=$(echo "$out" | awk '{ printf "%.2f\n", $1 / 1000 }' | sort -n | median)
	lo=$(echo "$out" | awk '{ printf "%.2f\n", $1 / 1000 }' | sort -n | head -n 1)
	hi=$(echo "$out" | awk '{ printf "%.2f\n", $1 / 1000 }' | sort -n | tail -n 1)
	cpu=$(echo "$out" | awk '$2 != "-" { print $2 }' | sort -n | median)
	usr=$(echo "$out" | awk '$3 != "-" && $3 != "" { print $3 }' | sort -n | median)
	MED[$r]=$med
	CPU[$r]=$cpu
	base=${MED[veth]:-}
	printf '%-32s %9s %17s %10s %9s %9s %5s%%\n' "${LABEL[$r]}" "$med" "$lo - $hi" "$cpu" "$usr" \
		"$([ -n "$base" ] && awk -v a="$med" -v b="$base" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')" "$idle" |
		tee -a "$TABLE"
done
echo | tee -a "$TABLE"
ratio() { awk -v a="${MED[$1]:-0}" -v b="${MED[$2]:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# both ROW...: every row was measured in this run.
both_rows() { for r in "$@"; do [ -n "${MED[$r]:-}" ] || return 1; done; }
both_rows sit-on blast && echo "sit TSO on / raw-socket ceiling: $(ratio sit-on blast)   (target >= 0.90)"
both_rows sit-on openvpn && echo "sit TSO on / OpenVPN no cipher:  $(ratio sit-on openvpn)   (target >= 5)"
both_rows sit-on sit-off && echo "sit TSO on / sit TSO off:        $(ratio sit-on sit-off)   (target >= 1.5)"
both_rows ip6ip6-on sit-on && echo "ip6ip6 TSO on / sit TSO on:      $(ratio ip6ip6-on sit-on)   (target >= 0.90)"
both_rows ip6ip6-nolim sit-on && echo "ip6ip6 encaplimit none / sit:    $(ratio ip6ip6-nolim sit-on)"
both_rows ip6ip6-off sit-off && echo "ip6ip6 TSO off / sit TSO off:    $(ratio ip6ip6-off sit-off)   (target >= 0.90)"
both_rows ipip6-on sit-on && echo "ipip6 TSO on / sit TSO on:       $(ratio ipip6-on sit-on)   (target >= 0.90)"
both_rows ip6ip6-gw sit-gw && echo "ip6ip6 / sit, via a gateway:     $(ratio ip6ip6-gw sit-gw)   (target >= 0.90)"
both_rows ipip6-gw sit-gw && echo "ipip6 / sit, via a gateway:      $(ratio ipip6-gw sit-gw)   (target >= 0.90)"
both_rows ipip6-on ipip-on && echo "ipip6 TSO on / ipip TSO on:      $(ratio ipip6-on ipip-on)   (target >= 0.90)"
both_rows ip6ip6-pkt sit-pkt && echo "ip6ip6 -T packet / sit -T packet: $(ratio ip6ip6-pkt sit-pkt)   (target >= 0.90)"
both_rows ip6ip6-pkt sit-on && echo "ip6ip6 -T packet / sit (raw):    $(ratio ip6ip6-pkt sit-on)"
both_rows ip6ip6-pkt-off sit-pkt-off && echo "ip6ip6 -T packet, TSO off / sit: $(ratio ip6ip6-pkt-off sit-pkt-off)   (target >= 0.90)"
both_rows ipip6-pkt sit-pkt && echo "ipip6 -T packet / sit -T packet: $(ratio ipip6-pkt sit-pkt)   (target >= 0.90)"
both_rows ip6ip6-on ip6ip6-off && echo "ip6ip6 TSO on / ip6ip6 TSO off:  $(ratio ip6ip6-on ip6ip6-off)   (target >= 1.5)"
both_rows fou-on veth && echo "sit in fou, TSO on / bare veth:  $(ratio fou-on veth)   (target >= 0.60)"
both_rows fou-on openvpn && echo "sit in fou / OpenVPN no cipher:  $(ratio fou-on openvpn)   (target >= 5; both over UDP)"
[ -n "${MED[sit-pkt]:-}" ] && {
	echo "sit -T packet / sit (raw):        $(ratio sit-pkt sit-on)"
	echo "sit -T packet / bare veth:        $(ratio sit-pkt veth)   (target >= 0.33)"
}
[ -n "${MED[sit-ring]:-}" ] && {
	echo "sit -R ring / sit (raw):          $(ratio sit-ring sit-on)"
	echo "sit -R ring / bare veth:          $(ratio sit-ring veth)   (target >= 0.33)"
	echo "sit -R ring / OpenVPN no cipher:  $(ratio sit-ring openvpn)   (target >= 5)"
}
[ -n "${MED[sit-ring-off]:-}" ] &&
	echo "sit -R ring, TSO on / off:        $(ratio sit-ring sit-ring-off)   (target >= 1.5)"
[ -n "${MED[sit-pkt-ring]:-}" ] && {
	echo "sit -T packet -R ring / bare veth: $(ratio sit-pkt-ring veth)   (target >= 0.33)"
	echo "sit -T packet -R ring / -R ring:   $(ratio sit-pkt-ring sit-ring)"
	echo "sit -T packet -R ring / OpenVPN:   $(ratio sit-pkt-ring openvpn)   (target >= 5)"
}
[ -n "${MED[sit-pkt-ring-off]:-}" ] &&
	echo "sit -T packet -R ring, TSO on / off: $(ratio sit-pkt-ring sit-pkt-ring-off)   (target >= 1.5)"
[ -n "${CPU[socat]:-}" ] && [ -n "${CPU[sit-pkt-ring]:-}" ] &&
	echo "sitd -T packet -R ring CPU per GB / socat's: $(awk -v a="${CPU[sit-pkt-ring]}" -v b="${CPU[socat]}" 'BEGIN { if (b > 0) printf "%.2f", a / b }')   (target <= 0.20)"
[ -n "${CPU[socat]:-}" ] && [ -n "${CPU[sit-ring]:-}" ] &&
	echo "sitd -R ring CPU per GB / socat's: $(awk -v a="${CPU[sit-ring]}" -v b="${CPU[socat]}" 'BEGIN { if (b > 0) printf "%.2f", a / b }')   (target <= 0.20)"
[ -n "${MED[blast-ring]:-}" ] && [ -n "${MED[blast]:-}" ] &&
	echo "receive through a TPACKET_V3 ring / raw socket: $(ratio blast-ring blast)"
[ -n "${MED[blast-xdp]:-}" ] && [ -n "${MED[blast]:-}" ] &&
	echo "receive through AF_XDP / raw socket: $(ratio blast-xdp blast)"
[ -n "${CPU[sit-ul-gro]:-}" ] && [ -n "${CPU[sit-ul]:-}" ] &&
	echo "CPU per GB, B's kernel merging / not: $(awk -v a="${CPU[sit-ul-gro]}" -v b="${CPU[sit-ul]}" 'BEGIN { if (b > 0) printf "%.2f", a / b }')"
[ -n "${MED[sit-pkt-off]:-}" ] &&
	echo "sit -T packet, TSO on / off:      $(ratio sit-pkt sit-pkt-off)   (target >= 1.5)"
[ -n "${CPU[socat]:-}" ] && [ -n "${CPU[sit-on]:-}" ] && [ "${CPU[sit-on]}" != "-" ] &&
	echo "sitd CPU per GB / socat's:       $(awk -v a="${CPU[sit-on]}" -v b="${CPU[socat]}" 'BEGIN { if (b > 0) printf "%.2f", a / b }')   (target <= 0.20)"
[ -n "${MED[many-ab]:-}" ] && [ -n "${MED[sit-on]:-}" ] &&
	echo "t0 beside 999 idle / alone, A to B: $(ratio many-ab sit-on)   (target >= 0.9)"
[ -n "${MED[many-ba]:-}" ] && [ -n "${MED[sit-ba]:-}" ] &&
	echo "t0 beside 999 idle / alone, B to A: $(ratio many-ba sit-ba)   (target >= 0.9)"
[ -n "${MED[many10k-ab]:-}" ] && [ -n "${MED[sit-on]:-}" ] &&
	echo "t0 beside 9999 idle / alone, A to B: $(ratio many10k-ab sit-on)   (target >= 0.9)"
[ -n "${MED[many10k-ba]:-}" ] && [ -n "${MED[sit-ba]:-}" ] &&
	echo "t0 beside 9999 idle / alone, B to A: $(ratio many10k-ba sit-ba)   (target >= 0.9)"
for many in 1000 10000; do
	[ -f "$LOGDIR/many.$many" ] || continue
	# the last many row's start (each many row starts its own)
	read -r ms rss threads mrss <"$LOGDIR/many.$many"
	echo "$many tunnels from one file: up in $ms ms (target < 5000), RSS $rss kB + monitor $mrss kB ($(((rss + mrss) * 1024 / many)) bytes per tunnel, buffers included; target < 16384), $threads threads"
done
RSS_KB=$(cat "$LOGDIR/rss" 2>/dev/null)
[ -n "${RSS_KB:-}" ] && echo "sitd peak resident memory (VmHWM, last sitd row): ${RSS_KB} kB   (target < 16384)"
bench/chart.sh "$TABLE" "$CHART"
