#!/usr/bin/env bash
# How users start things, with no warm-up step:
#  - both ends started together (A, then B 0.3 s later, as two hosts booting), a
#    connection half a second later, no warm-up ping (three times): the far kernel's
#    "protocol unreachable" for A's first packets, sent before B's sitd was up, must not
#    turn the first connection into "No route to host";
#  - the same tunnel name in two network namespaces, default control paths: each
#    `sitd show` run inside a namespace answers for that namespace's tunnel;
#  - two sitd in one namespace, default paths: `sitd show` asks both; a third for a
#    device the first runs is refused with a clear line and disturbs nothing;
#  - a control client that dribbles a byte every 0.9 s, one that never reads, and more
#    silent ones than the daemon serves at once: `show` and SIGTERM still answer in time.
# Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

# run_sitd NS LOG ARGS: start sitd without waiting for it, default control path.
run_sitd() {
	local ns=$1 log=$LOGDIR/$2.log
	shift 2
	: >"$log"
	ip netns exec "$ns" "$SITD" "$@" 2>>"$log" &
	SITD_PIDS+=("$!")
	SITD_LOG[$!]=$log
	LAST_PID=$!
}

wait_dev() {	# wait_dev NS DEV
	for _ in $(seq 50); do
		ip -n "$1" link show "$2" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# Every control socket these tests make with default paths lives in the namespace's
# directory; remove what a failure might leave.
ns_dir() { echo "/run/sitd/ns-$(ip netns exec "$1" stat -L -c %i /proc/self/ns/net)"; }
cleanup_dirs() {
	for d in "${DIRS[@]}"; do rm -rf "$d"; done
}
DIRS=()
trap 'on_exit; cleanup_dirs' EXIT

make_data 4
for round in 1 2 3; do
	setup_pair
	# A first, its device up at once (its router solicitations and MLD reports go out
	# while B is not up yet, and B's kernel answers them "protocol unreachable"), then B.
	run_sitd "$NS_A" "cold-a$round" -S "$LOGDIR/cold-a.sock" sit1 mode sit remote $B4 local $A4
	wait_dev "$NS_A" sit1 || die "the device did not appear"
	tun_up "$NS_A" sit1 $A6
	sleep 0.3
	run_sitd "$NS_B" "cold-b$round" -S "$LOGDIR/cold-b.sock" sit1 mode sit remote $A4 local $B4
	wait_dev "$NS_B" sit1 || die "the device did not appear"
	tun_up "$NS_B" sit1 $B6
	sleep 0.5
	check "cold start $round: the first connection, 0.5 s after both ends started, carries 4 MB" \
		transfer $B6
	teardown
done

# The same name in two namespaces, default paths.
setup_pair
run_sitd "$NS_A" same-a sit1 mode sit remote $B4 local $A4
run_sitd "$NS_B" same-b sit1 mode sit remote $A4 local $B4
wait_dev "$NS_A" sit1 && wait_dev "$NS_B" sit1 || die "the devices did not appear"
DIRS+=("$(ns_dir "$NS_A")" "$(ns_dir "$NS_B")")
for _ in $(seq 50); do
	[ -S "${DIRS[0]}/sit1.sock" ] && [ -S "${DIRS[1]}/sit1.sock" ] && break
	sleep 0.1
done
expect_eq "A's sitd show, default path: its own sit1" \
	"$(na "$SITD" show -j | jq -r '.[] | .ifname + " " + .remote')" "sit1 $B4"
expect_eq "B's sitd show, default path: its own sit1" \
	"$(nb "$SITD" show -j | jq -r '.[] | .ifname + " " + .remote')" "sit1 $A4"
expect_eq "the socket is 0660, never wider" "$(command stat -c %a "${DIRS[0]}/sit1.sock")" 660

# A second sitd in A, also default paths: show asks both.
nb ip addr add 192.0.2.3/24 dev vb
run_sitd "$NS_A" second-a sit2 mode sit remote 192.0.2.3 local $A4
wait_dev "$NS_A" sit2 || die "sit2 did not appear"
for _ in $(seq 50); do [ -S "${DIRS[0]}/sit2.sock" ] && break; sleep 0.1; done
expect_eq "two sitd in A: show lists both tunnels" "$(na "$SITD" show -j | jq -rs '[.[][].ifname] | sort | join(",")')" \
	"sit1,sit2"

# A third sitd in A for a device the first one runs (its own control socket): refused,
# saying so, and the first one's tunnel is untouched.
tun_up "$NS_A" sit1 $A6
tun_up "$NS_B" sit1 $B6
ifa=$(ip -n "$NS_A" -o link show sit1 | cut -d: -f1)
run_sitd "$NS_A" dup-a -S "$LOGDIR/dup.sock" sit1 mode sit remote $B4 local $A4
wait "$LAST_PID"
expect_eq "the same device twice: the second sitd exits 1" "$?" 1
check "... saying another process holds it" grep -q 'cannot take TUN device "sit1" over: another process holds it' "$LOGDIR/dup-a.log"
expect_eq "... and sit1 is still the first one's (same ifindex)" "$(ip -n "$NS_A" -o link show sit1 | cut -d: -f1)" "$ifa"
check "... carrying traffic" na ping -6 -c 2 -i 0.2 -W 2 -q $B6

# A file where the socket would go is not ours: left alone, and a clear error.
touch "${DIRS[1]}/sit9.sock"
run_sitd "$NS_B" notsock sit9 mode sit remote 192.0.2.9 local $B4
wait "$LAST_PID"
expect_eq "a file in the socket's place: sitd refuses to start" "$?" 1
check "... says why" grep -q 'exists and is not a socket' "$LOGDIR/notsock.log"
check "... and leaves the file" test -f "${DIRS[1]}/sit9.sock"

# Misbehaving clients of A's first sitd.
PID_A=${SITD_PIDS[0]}
SOCK=${DIRS[0]}/sit1.sock
# One byte every 0.9 s, forever.
(
	while :; do
		printf s
		sleep 0.9
	done
) | socat -u STDIN "UNIX-CONNECT:$SOCK" 2>/dev/null &
DRIBBLE=$!
# One that asks for the counters and never reads them.
socat -u SYSTEM:'echo show -s -j; sleep 30' "UNIX-CONNECT:$SOCK" 2>/dev/null &
NOREAD=$!
sleep 0.3
t0=$(date +%s%N)
out=$(timeout 5 "$SITD" -S "$SOCK" show)
ms=$((($(date +%s%N) - t0) / 1000000))
check "with a dribbling and a non-reading client, show answers in under 1 s ($ms ms)" \
	test "$ms" -lt 1000 -a -n "$out"
# More silent clients than it serves at once: the deadline frees their places.
for i in $(seq 20); do
	socat -u SYSTEM:'sleep 30' "UNIX-CONNECT:$SOCK" 2>/dev/null &
	SILENT+=("$!")
done
sleep 0.2
t0=$(date +%s%N)
out=$(timeout 8 "$SITD" -S "$SOCK" show)
ms=$((($(date +%s%N) - t0) / 1000000))
check "with 20 silent clients, show answers within the 2 s deadline and a bit ($ms ms)" \
	test "$ms" -lt 3500 -a -n "$out"
t0=$(date +%s%N)
kill -TERM "$PID_A"
for _ in $(seq 50); do alive "$PID_A" || break; sleep 0.02; done
ms=$((($(date +%s%N) - t0) / 1000000))
check "SIGTERM with a dribbling client: sitd gone in under 1 s ($ms ms)" test "$ms" -lt 1000
check "... and its socket removed" test ! -e "$SOCK"
kill "$DRIBBLE" "$NOREAD" "${SILENT[@]}" 2>/dev/null
wait "$DRIBBLE" "$NOREAD" "${SILENT[@]}" 2>/dev/null
finish
