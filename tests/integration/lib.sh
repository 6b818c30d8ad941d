# shellcheck shell=bash
# Shared by the integration tests, the demo and the benchmark.
#
# Topology (every test builds its own, with names unique to its process):
#
#    netns $NS_A                                   netns $NS_B
#   +------------------------------+             +------------------------------+
#   | sitd  <->  TUN $TUN           |             |           TUN $TUN <-> sitd  |
#   |   2001:db8:1::1/64           |             |           2001:db8:1::2/64   |
#   |   198.51.100.1/24            |             |           198.51.100.2/24    |
#   | veth va 192.0.2.1/24 ========|=============|======= veth vb 192.0.2.2/24   |
#   +------------------------------+             +------------------------------+
#
# Only documentation addresses; nothing is added to the host's own namespace, and
# cleanup (on any exit) kills the daemons and deletes the namespaces, which deletes
# the veth pair and the TUN devices with them.  Logs go to $LOGDIR (a new directory in
# /tmp unless given), removed when the script succeeds; after a failure the logs stay,
# the data files do not (SITD_KEEP_LOGS=1 keeps them either way).

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SITD=${SITD:-$ROOT/build/sitd}
TAG=${TAG:-sitd$$}
NS_A=$TAG-a
NS_B=$TAG-b
NS_R=$TAG-r
TUN=${TUN:-sit1}
A4=192.0.2.1
B4=192.0.2.2
A6=2001:db8:1::1
B6=2001:db8:1::2
A4IN=198.51.100.1
B4IN=198.51.100.2
if [ -z "${LOGDIR:-}" ]; then
	LOGDIR=$(mktemp -d /tmp/sitd-test.XXXXXX) || exit 1
	LOGDIR_OURS=1
fi
SITD_PIDS=()
declare -A SITD_LOG
PASSED=0
FAILED=0

na() { ip netns exec "$NS_A" "$@"; }
nb() { ip netns exec "$NS_B" "$@"; }
nr() { ip netns exec "$NS_R" "$@"; }

die() {
	echo "FATAL: $*" >&2
	exit 1
}

require_root() {
	[ "$(id -u)" = 0 ] || die "these tests create network namespaces and TUN devices: run them as root"
	[ -c /dev/net/tun ] || die "/dev/net/tun is missing: the tests need TUN"
	[ -x "$SITD" ] || die "$SITD is not built: run make first"
	for t in "$@"; do
		command -v "$t" >/dev/null || die "$t is not installed (the test command installs it)"
	done
}

# A zombie (exited, not yet reaped) does not count as alive.
alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $st != Z* ]]
}

# Stop every sitd (SIGTERM, then SIGKILL after a second) and check its log: a sanitizer
# report in any of them fails the test, even if every check passed.
stop_daemons() {
	local pid log
	for pid in "${SITD_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${SITD_PIDS[@]}"; do
		for _ in $(seq 30); do
			alive "$pid" || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for pid in "${SITD_PIDS[@]}"; do
		log=${SITD_LOG[$pid]}
		if grep -qE 'Sanitizer|runtime error' "$log" 2>/dev/null; then
			echo "not ok - sanitizer report in $log:" >&2
			grep -A20 -E 'Sanitizer|runtime error' "$log" >&2
			SANITIZER_FAILED=$((${SANITIZER_FAILED:-0} + 1))
		fi
		# A call the seccomp filters refused is a path they missed, or worse.
		# (The sandbox self-check's probes are refused on purpose and say so.)
		if grep -q 'seccomp refused system call [0-9]* (counted' "$log" 2>/dev/null; then
			echo "not ok - a system call refused by seccomp in $log:" >&2
			grep 'seccomp refused system call [0-9]* (counted' "$log" >&2
			SANITIZER_FAILED=$((${SANITIZER_FAILED:-0} + 1))
		fi
	done
	SITD_PIDS=()
	SITD_LOG=()
}

# Namespaces a test makes beyond A, B and R (setup_bridge, its own): removed with them.
EXTRA_NS=()

cleanup() {
	stop_daemons
	# iperf3 servers, tshark, and anything else left in our namespaces.
	for ns in "$NS_A" "$NS_B" "$NS_R" "${EXTRA_NS[@]}"; do
		if ip netns list | grep -qw "$ns"; then
			ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
			ip netns del "$ns" 2>/dev/null
		fi
	done
}

# At exit (first in the trap, so $? is the script's status): cleanup, then the logs.
on_exit() {
	local rc=$?

	cleanup
	[ -n "${SITD_KEEP_LOGS:-}" ] && return
	rm -f "$LOGDIR/data.bin"	# up to 200 MB a script
	if [ "$rc" = 0 ] && [ -n "${LOGDIR_OURS:-}" ]; then
		rm -rf "$LOGDIR"
	elif [ "$rc" != 0 ]; then
		echo "# logs kept in $LOGDIR" >&2
	fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# Two namespaces joined by a veth pair with MTU $1 (default 1500).
setup_pair() {
	local mtu=${1:-1500}
	ip netns add "$NS_A" && ip netns add "$NS_B" || die "cannot create network namespaces"
	ip -n "$NS_A" link add va mtu "$mtu" type veth peer name vb mtu "$mtu" netns "$NS_B" ||
		die "cannot create the veth pair"
	ip -n "$NS_A" addr add $A4/24 dev va
	ip -n "$NS_B" addr add $B4/24 dev vb
	for ns in "$NS_A" "$NS_B"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set "$([ "$ns" = "$NS_A" ] && echo va || echo vb)" up
	done
}

# packet_pid PID: the packet process of the sitd whose monitor is PID (privsep.h).
packet_pid() {
	pgrep -P "$1" -x sitd | head -n 1
}

# start_sitd NS LOGNAME ARGS...: run sitd in NS, wait for its device to exist (up to
# START_WAIT tenths of a second, 50 unless given: thousands of tunnels take longer).
start_sitd() {
	local ns=$1 log=$LOGDIR/$2.log
	shift 2
	# Its own control socket: several sitd with one device name run at once here.
	# Empty the log before the start: a reused log still holds the last run's "running",
	# and the child truncating it itself could come after the wait below has read it.
	: >"$log"
	# SITD_WRAP: a command to run sitd through (a private mount namespace, say).
	# shellcheck disable=SC2086
	ip netns exec "$ns" ${SITD_WRAP:-} "$SITD" -S "$LOGDIR/$(basename "$log" .log).sock" "$@" 2>>"$log" &
	local pid=$!
	SITD_PIDS+=("$pid")
	SITD_LOG[$pid]=$log
	for _ in $(seq "${START_WAIT:-50}"); do
		if grep -q ': running' "$log" 2>/dev/null; then
			LAST_PID=$pid
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log" >&2
	die "sitd did not start in $ns: $*"
}

# Bring the tunnel device up in NS with inner addresses (IPv6 without DAD).
tun_up() {
	local ns=$1 dev=$2 a6=$3 a4=${4:-}
	ip -n "$ns" link set "$dev" up
	ip -n "$ns" addr add "$a6/64" dev "$dev" nodad
	[ -z "$a4" ] || ip -n "$ns" addr add "$a4/24" dev "$dev"
}

# addr_of NS: $TUN's addresses in NS, link-locals left out, sorted, comma-separated.
addr_of() { ip -n "$1" -o addr show dev "$TUN" | awk '{ print $4 }' | grep -v '^fe80' | sort | paste -sd,; }
# routes_of NS: the IPv4 routes sitd put on $TUN in NS (proto static), as addr_of.
routes_of() { ip -n "$1" -o route show dev "$TUN" proto static | awk '{ print $1 }' | sort | paste -sd,; }
# routes6_of NS: the same for IPv6.
routes6_of() { ip -n "$1" -o -6 route show dev "$TUN" proto static | awk '{ print $1 }' | sort | paste -sd,; }
# ifindex_of NS: $TUN's ifindex in NS.
ifindex_of() { ip -n "$1" -o link show "$TUN" | cut -d: -f1; }

# Three namespaces, A - R - B, R a router whose link toward B has MTU $1:
#
#   A va 192.0.2.1/24 === ra 192.0.2.254/24  R  rb 203.0.113.254/24 === vb 203.0.113.2/24 B
#                                                <------ MTU $1 ------>
#
# R forwards and sends ICMP errors as any router; the tunnel runs between A and B.
setup_routed() {
	local mtu=${1:-1400}
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		ip netns add "$ns" || die "cannot create network namespaces"
		ip -n "$ns" link set lo up
	done
	ip -n "$NS_A" link add va type veth peer name ra netns "$NS_R" || die "cannot create veth"
	ip -n "$NS_R" link add rb mtu "$mtu" type veth peer name vb mtu "$mtu" netns "$NS_B" ||
		die "cannot create veth"
	ip -n "$NS_A" addr add 192.0.2.1/24 dev va
	ip -n "$NS_R" addr add 192.0.2.254/24 dev ra
	ip -n "$NS_R" addr add 203.0.113.254/24 dev rb
	ip -n "$NS_B" addr add 203.0.113.2/24 dev vb
	ip -n "$NS_A" link set va up
	ip -n "$NS_R" link set ra up
	ip -n "$NS_R" link set rb up
	ip -n "$NS_B" link set vb up
	ip -n "$NS_A" route add default via 192.0.2.254
	ip -n "$NS_B" route add default via 203.0.113.254
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
	B4=203.0.113.2
}

# A shared link: bridge br0 in a namespace of its own ($NS_S), for tests with more than
# two hosts; join_bridge NS IFNAME PORT [ADDR...] puts a veth from NS on it (NS made when
# new), with those addresses.
NS_S=$TAG-s
setup_bridge() {
	EXTRA_NS+=("$NS_S")
	ip netns add "$NS_S" || die "cannot create network namespaces"
	ip -n "$NS_S" link add br0 type bridge
	ip -n "$NS_S" link set br0 up
}
join_bridge() {
	local ns=$1 ifn=$2 port=$3 a
	shift 3
	if ! ip netns list | grep -qw "$ns"; then
		ip netns add "$ns" || die "cannot create network namespace $ns"
		[[ " $NS_A $NS_B $NS_R " == *" $ns "* ]] || EXTRA_NS+=("$ns")
	fi
	ip -n "$ns" link set lo up
	ip -n "$ns" link add "$ifn" type veth peer name "$port" netns "$NS_S" || die "cannot create veth"
	ip -n "$NS_S" link set "$port" master br0 up
	for a in "$@"; do ip -n "$ns" addr add "$a" dev "$ifn"; done
	ip -n "$ns" link set "$ifn" up
}

# H, a native IPv6 host behind R (2001:db8:99::2/64, R 2001:db8:99::1 forwarding).
NS_H=$TAG-h
setup_native_host() {
	EXTRA_NS+=("$NS_H")
	ip netns add "$NS_H" || die "cannot create network namespace $NS_H"
	ip -n "$NS_H" link set lo up
	ip -n "$NS_R" link add rh type veth peer name hr netns "$NS_H" || die "cannot create veth"
	ip -n "$NS_R" addr add 2001:db8:99::1/64 dev rh nodad
	ip -n "$NS_H" addr add 2001:db8:99::2/64 dev hr nodad
	ip -n "$NS_R" link set rh up
	ip -n "$NS_H" link set hr up
	ip -n "$NS_H" route add ::/0 via 2001:db8:99::1
	ip netns exec "$NS_R" sysctl -qw net.ipv6.conf.all.forwarding=1
}

# 6rd by DHCP: setup_routed, H, A without address, R a BR sitd and dnsmasq serving option 212.
setup_6rd_dhcp() {
	setup_routed 1400
	setup_native_host
	na ip addr flush dev va
	na ip route flush table main 2>/dev/null
	printf 'tunnel br6 mode sit remote any local 192.0.2.254 dev ra 6rd-prefix 2001:db8:6000::/36 6rd-relay_prefix 192.0.2.0/24\n\taddress 2001:db8:6fe0::1/36\n' \
		>"$LOGDIR/br.conf"
	start_sitd "$NS_R" br -c "$LOGDIR/br.conf"
	# Option 212: IPv4MaskLen 24, 6rdPrefixLen 36, 2001:db8:6000::, BR 192.0.2.254.
	OPT212=18:24:20:01:0d:b8:60:00:00:00:00:00:00:00:00:00:00:00:c0:00:02:fe
	nr dnsmasq --no-daemon --port=0 --interface=ra --bind-interfaces \
		--dhcp-range=192.0.2.100,192.0.2.100,255.255.255.0,1h --dhcp-option=3,192.0.2.254 \
		--dhcp-option-force=212,$OPT212 --dhcp-leasefile="$LOGDIR/leases" \
		--pid-file="$LOGDIR/dnsmasq.pid" >"$LOGDIR/dnsmasq.log" 2>&1 &
	mkdir -p "$LOGDIR/6rd" && chmod 755 "$LOGDIR/6rd"
}

# check_6rd_ce SOCK: the CE's tunnel sr6 (its sitd at SOCK) as option 212 gives it, pings with H.
check_6rd_ce() {
	local json
	json=$("$SITD" -S "$1" show -j sr6)
	expect_eq "the CE's tunnel: local, 6rd prefix and relay prefix from option 212" \
		"$(jq -c '.[0] | [.local, ."6rd".prefix, ."6rd".relay_prefix]' <<<"$json")" \
		'["192.0.2.100","2001:db8:6000::/36","192.0.2.0/24"]'
	check "its address in the delegated 2001:db8:6640::/44 (192.0.2.100 = 0x64 after /36)" \
		bash -c "ip -n $NS_A -6 addr show sr6 | grep -q 2001:db8:6640::1/36"
	check "the default route through the BR ::192.0.2.254" \
		bash -c "ip -n $NS_A -6 route show default | grep -q 'via ::192.0.2.254 dev sr6'"
	check "the CE pings H behind the BR" na ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:99::2
	check "H pings the CE back" ip netns exec "$NS_H" ping -6 -c 2 -i 0.2 -W 2 -q 2001:db8:6640::1
}

# wait_6rd_released: until the CE's sr6 or its sitd's pid file is gone (5 s at most).
wait_6rd_released() {
	for _ in $(seq 50); do
		ip -n "$NS_A" link show sr6 >/dev/null 2>&1 || [ -e "$LOGDIR/6rd/sr6.pid" ] || break
		sleep 0.1
	done
}

# The standard tunnel: sitd at both ends, mode $1, extra sitd arguments after
# (SITD_OPTS: options for both ends, SITD_OPTS_A: for A's only; setup_tunnel6 too).
setup_tunnel() {
	local mode=$1
	shift
	# shellcheck disable=SC2086
	start_sitd "$NS_A" "sitd-a" ${SITD_OPTS:-} ${SITD_OPTS_A:-} "$TUN" mode "$mode" remote $B4 local $A4 "$@"
	PID_A=$LAST_PID
	# shellcheck disable=SC2086
	start_sitd "$NS_B" "sitd-b" ${SITD_OPTS:-} "$TUN" mode "$mode" remote $A4 local $B4 "$@"
	PID_B=$LAST_PID
	tun_up "$NS_A" "$TUN" $A6 "$([ "$mode" = sit ] || echo $A4IN)"
	tun_up "$NS_B" "$TUN" $B6 "$([ "$mode" = sit ] || echo $B4IN)"
}

# sock_of PID: the control socket start_sitd gave it.
sock_of() {
	local log=${SITD_LOG[$1]}
	echo "${log%.log}.sock"
}

# ctr PID NAME: one counter (drop_X for a drop reason, or path_mtu), summed over the
# daemon's tunnels, as `sitd show -s -j` gives it.
ctr() {
	local pid=$1 name=$2 json
	json=$("$SITD" -S "$(sock_of "$pid")" show -s -j) || return 1
	case $name in
	drop_*) jq "[.[].stats.drops.\"${name#drop_}\"] | add" <<<"$json" ;;
	*) jq "[.[].stats.\"$name\"] | add" <<<"$json" ;;
	esac
}

# pstat PID NAME: a drop counted for the process, not a tunnel (sitd status -j).
pstat() {
	"$SITD" -S "$(sock_of "$1")" status -j | jq ".drops.\"$2\""
}

log_of() {
	echo "${SITD_LOG[$1]}"
}

ok() {
	PASSED=$((PASSED + 1))
	echo "ok - $*"
}

not_ok() {
	FAILED=$((FAILED + 1))
	echo "not ok - $*"
	debug_daemons
}

# What every sitd is doing, for a failure's report: its threads' wait channels and
# system calls, and the last lines of its log.
debug_daemons() {
	local pid t
	for pid in "${SITD_PIDS[@]}"; do
		echo "  # sitd $pid (${SITD_LOG[$pid]}):"
		for t in /proc/"$pid"/task/* /proc/"$(packet_pid "$pid")"/task/*; do
			[ -d "$t" ] && echo "  #   thread ${t##*/}: $(cat "$t/wchan" 2>/dev/null) syscall $(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
		done
		grep -v ' 0$' "${SITD_LOG[$pid]}" 2>/dev/null | tail -n 12 | sed 's/^/  #   /'
	done
}

# check DESC CMD...: passes when CMD succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# expect_eq DESC GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1: got '$2', want '$3'"; fi
}

# expect_ge DESC GOT MIN
expect_ge() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ]; then ok "$1 ($2 >= $3)"; else not_ok "$1: got '$2', want >= $3"; fi
}

finish() {
	stop_daemons
	FAILED=$((FAILED + ${SANITIZER_FAILED:-0}))
	SANITIZER_FAILED=0
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]
}

# Reset between sub-tests in one script: stop daemons, delete namespaces.
teardown() {
	cleanup
	FAILED=$((FAILED + ${SANITIZER_FAILED:-0}))
	SANITIZER_FAILED=0
}

# A file of random bytes, made once per run, and its digest.
make_data() {
	local mb=${1:-200}
	DATA=$LOGDIR/data.bin
	[ -f "$DATA" ] || head -c "${mb}M" /dev/urandom >"$DATA"
	DATA_SUM=$(sha256sum "$DATA" | cut -d' ' -f1)
}

# transfer ADDR [PORT [ba]]: send $DATA from A to B (ba: from B to A) over TCP through
# the tunnel, compare digests.  Fails on a digest mismatch or when 120 s pass.
transfer() {
	local addr=$1 port=${2:-5001} sum rx=nb tx=$NS_A
	local target=$addr
	[ "${3:-}" = ba ] && rx=na tx=$NS_B
	[[ $addr == *:* ]] && target="[$addr]"
	rm -f "$LOGDIR/recv.sum"
	$rx sh -c "timeout 120 socat -u TCP-LISTEN:$port,reuseaddr,pf=$([[ $addr == *:* ]] && echo ip6 || echo ip4) STDOUT | sha256sum >'$LOGDIR/recv.sum'" &
	local rpid=$!
	for _ in $(seq 50); do
		$rx ss -ltn | grep -q ":$port " && break
		sleep 0.1
	done
	timeout 120 ip netns exec "$tx" socat -u "FILE:$DATA" "TCP:$target:$port" || {
		kill "$rpid" 2>/dev/null
		return 1
	}
	wait "$rpid"
	sum=$(cut -d' ' -f1 "$LOGDIR/recv.sum")
	[ "$sum" = "$DATA_SUM" ] || {
		echo "digest mismatch: sent $DATA_SUM, received $sum" >&2
		return 1
	}
}

# transfer_bg ADDR: transfer in the background (BG its pid, its complaints in bg.out),
# for changes made while it runs; returns once the connection is up.
transfer_bg() {
	transfer "$1" >"$LOGDIR/bg.out" 2>&1 &
	BG=$!
	for _ in $(seq 50); do
		na ss -tn state established | grep -q ":5001" && return 0
		sleep 0.1
	done
}

# wait_ok SECONDS CMD...: until CMD succeeds, tried every 0.1 s; 1 if it never did.
wait_ok() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# drops_but_tx_mode PID: every drop of sitd PID but tx_mode, its tunnels' from one
# snapshot.  A device carrying one inner family drops its own host's packets of the other
# (MLD, router solicitations through ipip or ipip6) as tx_mode at any moment.
drops_but_tx_mode() {
	local t p
	t=$("$SITD" -S "$(sock_of "$1")" show -s -j |
		jq '[.[].stats.drops | to_entries[] | select(.key != "tx_mode") | .value] | add // 0') ||
		return 1
	p=$("$SITD" -S "$(sock_of "$1")" status -j | jq '[.drops[]] | add') || return 1
	echo $((t + p))
}

# Sum of every drop counter of sitd PID: its tunnels' and the process's.
drops_total() {
	local pid=$1 t p
	t=$("$SITD" -S "$(sock_of "$pid")" show -s -j | jq '[.[].stats.drops[]] | add // 0') || return 1
	p=$("$SITD" -S "$(sock_of "$pid")" status -j | jq '[.drops[]] | add') || return 1
	echo $((t + p))
}

# packet_frames_wait -4|-6 ADDR: A pings ADDR until its sitd has sent a frame through AF_PACKET.
packet_frames_wait() {
	for _ in $(seq 30); do
		[ "$(ctr "$PID_A" tx_packet_socket)" -gt 0 ] 2>/dev/null && break
		na ping "$1" -c 1 -W 1 -q "$2" >/dev/null
		sleep 0.1
	done
}

# check_mac_change NEXTHOP: B's MAC changes, A's entry for NEXTHOP too; A's frames to $B6 follow.
check_mac_change() {
	local mac=02:00:5e:10:00:0b pkt0 ok=0
	nb ip link set vb address $mac
	na ip neigh replace "$1" lladdr $mac dev va nud reachable
	pkt0=$(ctr "$PID_A" tx_packet_socket)
	for _ in $(seq 30); do na ping -6 -c 1 -W 1 -q $B6 >/dev/null 2>&1 && { ok=1; break; }; done
	expect_eq "B's MAC changed: pings go through again" "$ok" 1
	for _ in $(seq 20); do na ping -6 -c 1 -W 1 -q $B6 >/dev/null 2>&1; sleep 0.1; done
	expect_ge "... through AF_PACKET, to the new address" "$(($(ctr "$PID_A" tx_packet_socket) - pkt0))" 10
	check "... and all of them arrive" na ping -6 -c 5 -i 0.2 -W 2 -q $B6
}

# B's count of one nstat counter (absolute).
nstat_of() {
	nb nstat -az "$1" | awk -v n="$1" '$1 == n { print $2 + 0; f = 1 } END { if (!f) print 0 }'
}

# merging_underlay NAME: make B's veth merge the tunnel's packets before sitd reads them,
# as a NIC's GRO does (doc/kernel.md "Merged by the kernel"): veth merges only what
# reaches its NAPI in bursts, so TSO off on A's side, GRO and a NAPI thread on B's.
# Fails NAME's check (and returns 1) when the kernel cannot do that.
merging_underlay() {
	na ethtool -K va tso off >/dev/null
	nb ethtool -K vb gro on >/dev/null
	nb sh -c 'echo 1 >/sys/class/net/vb/threaded' 2>/dev/null && return 0
	not_ok "$1: cannot make vb's NAPI threaded (/sys/class/net/vb/threaded)"
	return 1
}

# --- An IPv6-only underlay (ip6tnl: ip6ip6, ipip6, any over IPv6) --------------------
#
#    netns $NS_A                                   netns $NS_B
#   | TUN $TUN 2001:db8:1::1/64, 198.51.100.1/24 |  | 2001:db8:1::2/64, 198.51.100.2/24 |
#   | veth va 2001:db8:ff::1/64 =================|==|============ veth vb 2001:db8:ff::2/64 |
#
# No IPv4 address on the veths; DAD off in the namespaces (no tentative addresses, the
# link-locals included), so the first packet goes at once.  $A6U and $B6U are the outer
# (underlay) addresses the tunnel runs between.
A6U=2001:db8:ff::1
B6U=2001:db8:ff::2

# ns6_add NS: a namespace whose new devices do no DAD, lo up.
ns6_add() {
	ip netns add "$1" || die "cannot create network namespace $1"
	ip netns exec "$1" sysctl -qw net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0
	ip -n "$1" link set lo up
}

# underlay6_wait: until A reaches $B6U (5 s at most).  A veth's carrier comes through
# the kernel's linkwatch, up to a second after `link set up`, and IPv6 installs the prefix
# routes only then: a tunnel started before would lose its first packets.
underlay6_wait() {
	for _ in $(seq 25); do
		na ping -6 -c 1 -W 0.2 -q $B6U >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	die "the IPv6 underlay does not carry: $A6U cannot reach $B6U"
}

# Two namespaces joined by a veth pair with MTU $1 (default 1500), IPv6 only.
setup_pair6() {
	local mtu=${1:-1500}
	A6U=2001:db8:ff::1
	B6U=2001:db8:ff::2
	ns6_add "$NS_A"
	ns6_add "$NS_B"
	ip -n "$NS_A" link add va mtu "$mtu" type veth peer name vb mtu "$mtu" netns "$NS_B" ||
		die "cannot create the veth pair"
	ip -n "$NS_A" addr add $A6U/64 dev va nodad
	ip -n "$NS_B" addr add $B6U/64 dev vb nodad
	ip -n "$NS_A" link set va up
	ip -n "$NS_B" link set vb up
	underlay6_wait
}

# Three namespaces, A - R - B over IPv6 only, R forwarding with its link toward B at MTU
# $1 (default 1400; the kernel's IPv6 minimum is 1280):
#
#   A va 2001:db8:a::1/64 === ra 2001:db8:a::fe  R  rb 2001:db8:b::fe === vb 2001:db8:b::2/64 B
#                                                    <------- MTU $1 ------->
#
# R answers what does not fit with ICMPv6 Packet Too Big, as any router (RFC 8200 5);
# A6U and B6U become A's and B's addresses.
setup_routed6() {
	local mtu=${1:-1400}
	ns6_add "$NS_A"
	ns6_add "$NS_R"
	ns6_add "$NS_B"
	ip -n "$NS_A" link add va type veth peer name ra netns "$NS_R" || die "cannot create veth"
	ip -n "$NS_R" link add rb mtu "$mtu" type veth peer name vb mtu "$mtu" netns "$NS_B" ||
		die "cannot create veth (MTU $mtu)"
	ip netns exec "$NS_R" sysctl -qw net.ipv6.conf.all.forwarding=1
	ip -n "$NS_A" addr add 2001:db8:a::1/64 dev va nodad
	ip -n "$NS_R" addr add 2001:db8:a::fe/64 dev ra nodad
	ip -n "$NS_R" addr add 2001:db8:b::fe/64 dev rb nodad
	ip -n "$NS_B" addr add 2001:db8:b::2/64 dev vb nodad
	ip -n "$NS_A" link set va up
	ip -n "$NS_R" link set ra up
	ip -n "$NS_R" link set rb up
	ip -n "$NS_B" link set vb up
	ip -n "$NS_A" -6 route add 2001:db8:b::/64 via 2001:db8:a::fe
	ip -n "$NS_B" -6 route add 2001:db8:a::/64 via 2001:db8:b::fe
	A6U=2001:db8:a::1
	B6U=2001:db8:b::2
	underlay6_wait
}

# setup_tunnel6 MODE [sitd args]: sitd at both ends over $A6U <-> $B6U, mode ip6ip6,
# ipip6 or any, the inner addresses of lib.sh's topology on each device (IPv4 too unless
# ip6ip6).  A daemon that cannot run an IPv6 underlay yet fails here, its log printed.
setup_tunnel6() {
	local mode=$1
	shift
	# shellcheck disable=SC2086
	start_sitd "$NS_A" "sitd-a" ${SITD_OPTS:-} ${SITD_OPTS_A:-} "$TUN" mode "$mode" remote $B6U local $A6U "$@"
	PID_A=$LAST_PID
	# shellcheck disable=SC2086
	start_sitd "$NS_B" "sitd-b" ${SITD_OPTS:-} "$TUN" mode "$mode" remote $A6U local $B6U "$@"
	PID_B=$LAST_PID
	tun_up "$NS_A" "$TUN" $A6 "$([ "$mode" = ip6ip6 ] || echo $A4IN)"
	tun_up "$NS_B" "$TUN" $B6 "$([ "$mode" = ip6ip6 ] || echo $B4IN)"
}

# setup_tunnel6_any_b MODE [sitd args]: as setup_tunnel6, but B's local any and IPv4 inside too.
setup_tunnel6_any_b() {
	local mode=$1
	shift
	start_sitd "$NS_A" sitd-a "$TUN" mode "$mode" remote $B6U local $A6U "$@"
	PID_A=$LAST_PID
	start_sitd "$NS_B" sitd-b "$TUN" mode "$mode" remote $A6U "$@"
	PID_B=$LAST_PID
	tun_up "$NS_A" "$TUN" $A6 $A4IN
	tun_up "$NS_B" "$TUN" $B6 $B4IN
}

# ping_both MODE NAME: A and B ping each other through the tunnel, IPv6 inside ip6ip6, else IPv4.
ping_both() {
	if [ "$1" = ip6ip6 ]; then
		check "$2: ping6 A -> B" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
		check "$2: ping6 B -> A" nb ping -6 -c 3 -i 0.2 -W 2 -q $A6
	else
		check "$2: ping A -> B" na ping -4 -c 3 -i 0.2 -W 2 -q $B4IN
		check "$2: ping B -> A" nb ping -4 -c 3 -i 0.2 -W 2 -q $A4IN
	fi
}

# tshark_start CAP FILTER: tshark on A's va (capture FILTER) into CAP, once it captures.
tshark_start() {
	# The last capture's "Capturing" must not be read before this tshark's shell
	# truncates the log (test_ip6tnl_pmtu.sh's capture_tun empties it first too).
	: >"$LOGDIR/tshark.log"
	# Not through na(): $! must be tshark itself, for tshark_stop's SIGINT.
	ip netns exec "$NS_A" tshark -i va -f "$2" -a duration:60 -w "$1" -q \
		2>"$LOGDIR/tshark.log" &
	TSHARK_PID=$!
	for _ in $(seq 100); do grep -q Capturing "$LOGDIR/tshark.log" && break; sleep 0.1; done
	sleep 0.5	# "Capturing" can come a moment before the capture does
}

# tshark_stop: half a second for the last packets, then tshark_start's tshark ends.
tshark_stop() {
	sleep 0.5
	kill -INT "$TSHARK_PID"
	wait "$TSHARK_PID"
}
