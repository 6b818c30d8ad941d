#!/usr/bin/env bash
# sitd monitor (as ip monitor): two clients at once, one text and one -j, see each event
# a real change makes, in order: a reload's removed, changed and added tunnels; the path
# MTU falling at R's Fragmentation Needed; the outer source of a `local any` tunnel
# following A's addresses and routes, and a configured local leaving and coming back;
# the carrier of a device set down and up.  A client that never reads is dropped and
# counted while the other keeps every event and the tunnel keeps forwarding.
#
#   A va 192.0.2.1 === R (MTU 1400 toward B) === 203.0.113.2 vb B
. "$(dirname "$0")/lib.sh"
require_root ping jq python3

conf() {
	: >"$LOGDIR/a.conf"
	for t in "$@"; do
		case $t in
		sit1) printf 'tunnel sit1 mode sit remote 203.0.113.2 local any\n' ;;
		ip1) printf 'tunnel ip1 mode ipip remote 203.0.113.2 local 192.0.2.1\n' ;;
		sit3) printf 'tunnel sit3 mode sit remote 203.0.113.3 local 192.0.2.1 ttl 64\n' ;;
		sit3b) printf 'tunnel sit3 mode sit remote 203.0.113.3 local 192.0.2.1 ttl 32\n' ;;
		sit2) printf 'tunnel sit2 mode sit remote 203.0.113.4 local 192.0.2.70\n' ;;
		esac >>"$LOGDIR/a.conf"
	done
	chmod 644 "$LOGDIR/a.conf"
}

# wait_for FILE PATTERN: until a line of FILE matches (5 s).
wait_for() {
	for _ in $(seq 50); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# monitors N: until A's status counts N monitor clients (5 s).
monitors() {
	for _ in $(seq 50); do
		[ "$(na "$SITD" -S "$SOCK" status -j | jq .monitor_clients)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

setup_routed 1400
conf sit1 ip1 sit3
# A small queue and send buffer for each client, so that one that never reads fills them
# after some tens of events (SITD_MONITOR_QUEUE, a test knob: cmd/watch.c).
SITD_MONITOR_QUEUE=4096 start_sitd "$NS_A" sitd-a -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
SOCK=$LOGDIR/sitd-a.sock
start_sitd "$NS_B" sitd-b sit1 mode sit remote 192.0.2.1 local 203.0.113.2
PID_B=$LAST_PID
tun_up "$NS_A" sit1 $A6
tun_up "$NS_B" sit1 $B6
nb ip link set sit1 mtu 1480
check "sit1 (local any) carries IPv6" na ping -6 -c 2 -i 0.2 -W 2 -q $B6

na "$SITD" -S "$SOCK" monitor >"$LOGDIR/m1.txt" 2>"$LOGDIR/m1.err" &
M1=$!
na "$SITD" -S "$SOCK" monitor -j >"$LOGDIR/m2.jsonl" 2>"$LOGDIR/m2.err" &
M2=$!
check "two monitor clients at once (sitd status -j .monitor_clients)" monitors 2

# --- a reload: ip1 removed, sit3 changed (ttl), sit2 added ---------------------------------
na ip addr add 192.0.2.70/24 dev va	# sit2's local, on the host from the start
conf sit1 sit3b sit2
expect_eq "reload" "$(na "$SITD" -S "$SOCK" reload 2>&1)" ok
want=$'ip1 removed\nsit3 changed\nsit2 added'
wait_for "$LOGDIR/m2.jsonl" '"sit2".*"added"'
got1=$(grep -E ' (added|removed|changed)$' "$LOGDIR/m1.txt" | awk '{print $2, $3}')
got2=$(jq -r 'select(.event == "added" or .event == "removed" or .event == "changed") |
	"\(.tunnel) \(.event)"' "$LOGDIR/m2.jsonl")
expect_eq "text client: the reload's events in order" "$got1" "$want"
expect_eq "JSON client: the same, in the same order" "$got2" "$want"
check "text lines carry an ISO 8601 UTC time" \
	grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z sit2 added$' "$LOGDIR/m1.txt"

# --- path MTU: R's Fragmentation Needed ---------------------------------------------------
na ping -6 -c 1 -s 1400 -W 2 -q $B6 >/dev/null 2>&1	# too big for R: A learns 1400
check "path MTU: 'sit1 mtu 1500 -> 1400' (text)" wait_for "$LOGDIR/m1.txt" ' sit1 mtu 1500 -> 1400$'
check "path MTU: {old:1500,new:1400} (JSON)" wait_for "$LOGDIR/m2.jsonl" \
	'"tunnel":"sit1","event":"mtu","old":1500,"new":1400'

# --- the outer source of local any: addresses and routes ---------------------------------
na ip addr add 192.0.2.50/24 dev va
na ip route replace default via 192.0.2.254 src 192.0.2.50
check "route with src 192.0.2.50: sit1 source 192.0.2.1 -> 192.0.2.50" \
	wait_for "$LOGDIR/m1.txt" ' sit1 source 192.0.2.1 -> 192.0.2.50$'
na ip addr del 192.0.2.50/24 dev va	# the route that used it goes with it
check "its address removed: no route, sit1 source 192.0.2.50 -> none" \
	wait_for "$LOGDIR/m1.txt" ' sit1 source 192.0.2.50 -> none$'
na ip route add default via 192.0.2.254
check "default route back: sit1 source none -> 192.0.2.1" \
	wait_for "$LOGDIR/m1.txt" ' sit1 source none -> 192.0.2.1$'
check "the JSON client: {old:null,new:\"192.0.2.1\"}" wait_for "$LOGDIR/m2.jsonl" \
	'"tunnel":"sit1","event":"source","old":null,"new":"192.0.2.1"'
check "sit1 forwards again from 192.0.2.1" na ping -6 -c 2 -i 0.2 -W 2 -q $B6

# --- a configured local leaving the host and coming back ------------------------------
na ip addr del 192.0.2.70/24 dev va
check "sit2's local removed: sit2 source 192.0.2.70 -> none" \
	wait_for "$LOGDIR/m1.txt" ' sit2 source 192.0.2.70 -> none$'
na ip addr add 192.0.2.70/24 dev va
check "... and back: sit2 source none -> 192.0.2.70" \
	wait_for "$LOGDIR/m1.txt" ' sit2 source none -> 192.0.2.70$'

# --- carrier: the device set down and up ---------------------------------------------
na ip link set sit2 up
check "sit2 set up: carrier up" wait_for "$LOGDIR/m1.txt" ' sit2 carrier up$'
na ip link set sit2 down
check "sit2 set down: carrier down (JSON old up, new down)" wait_for "$LOGDIR/m2.jsonl" \
	'"tunnel":"sit2","event":"carrier","old":"up","new":"down"'

# --- a client that never reads --------------------------------------------------------
na python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"monitor -j\n")
time.sleep(120)' "$SOCK" &
SLOW=$!
check "three clients" monitors 3
before=$(grep -c ' sit2 carrier ' "$LOGDIR/m1.txt")
na ping -6 -c 40 -i 0.05 -W 2 -q $B6 >"$LOGDIR/ping.out" 2>&1 &
PING=$!
for _ in $(seq 100); do
	na ip link set sit2 up
	na ip link set sit2 down
done
wait $PING
check "sit1 forwarded all 40 pings while sit2 flapped 100 times" grep -q ' 0% packet loss' "$LOGDIR/ping.out"
for _ in $(seq 50); do
	[ $(($(grep -c ' sit2 carrier ' "$LOGDIR/m1.txt") - before)) -ge 200 ] && break
	sleep 0.1
done
expect_eq "the reading client saw all 200 carrier events" \
	"$(($(grep -c ' sit2 carrier ' "$LOGDIR/m1.txt") - before))" 200
expect_eq "the one that never reads was dropped, counted in status" \
	"$(na "$SITD" -S "$SOCK" status -j | jq .monitor_dropped)" 1
check "... and the two others stay" monitors 2
check "sitd status says so in text" bash -c "ip netns exec $NS_A $SITD -S $SOCK status |
	grep -q 'monitor clients 2, dropped 1, events lost 0'"
kill $SLOW 2>/dev/null
wait $SLOW 2>/dev/null

# --- every -j line is one JSON object with the documented keys ------------------------
check "every line of monitor -j parses with jq, each with time, timestamp, tunnel, event" \
	jq -e -s 'length > 200 and all(has("time") and has("timestamp") and has("tunnel") and has("event"))' \
	"$LOGDIR/m2.jsonl"
expect_eq "both clients saw the same events" "$(wc -l <"$LOGDIR/m1.txt")" "$(wc -l <"$LOGDIR/m2.jsonl")"

# --- the daemon stopping ends the clients ----------------------------------------------
stop_daemons
wait $M1
rc1=$?
wait $M2
expect_eq "monitor exits 1 when the daemon goes" "$rc1" 1
check "... saying so on stderr" grep -q 'closed the connection' "$LOGDIR/m1.err"
finish
