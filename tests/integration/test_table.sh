#!/usr/bin/env bash
# The tunnel table at scale: 1000 tunnels in one sitd, from one file.
#
#   netns A: sitd -c (t0..t999)                       netns S: bridge br0
#     va 192.0.2.1-4/24 =======================+====== sa
#                                              +====== s1 ==== B1 vb 203.0.113.1/24  (x1 -> t0,  x3 -> t500)
#                                              +====== s2 ==== B2 vb 203.0.113.2/24  (x2 -> t1), and
#                                              |                  198.51.100.7/24, a stranger
#                                              +====== s3 ==== B3 vb 203.0.113.250/24 (x9 -> t999)
#
# A's tunnel t_i: local 192.0.2.(1 + i/250), remote 203.0.113.(1 + i%250), so every pair
# of those addresses has a tunnel, and two tunnels share each remote: the lookup must use
# the local address too.  Checked: the 1000 start in time, pings through a sample in both
# directions with each peer, a packet that matches no tunnel counted once for the process,
# memory and threads, and a reload that replaces 100 tunnels while a transfer runs through
# one that stays (same ifindex, sha256 equal).
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq

N=1000
NS_B1=$TAG-b1
NS_B2=$TAG-b2
NS_B3=$TAG-b3
setup_bridge
join_bridge "$NS_A" va sa
for a in 1 2 3 4; do ip -n "$NS_A" addr add 192.0.2.$a/24 dev va; done
ip -n "$NS_A" route add 203.0.113.0/24 dev va
ip -n "$NS_A" route add 198.51.100.0/24 dev va
join_bridge "$NS_B1" vb s1
join_bridge "$NS_B2" vb s2
join_bridge "$NS_B3" vb s3
ip -n "$NS_B1" addr add 203.0.113.1/24 dev vb
ip -n "$NS_B2" addr add 203.0.113.2/24 dev vb
ip -n "$NS_B2" addr add 198.51.100.7/24 dev vb
ip -n "$NS_B3" addr add 203.0.113.250/24 dev vb
for ns in "$NS_B1" "$NS_B2" "$NS_B3"; do ip -n "$ns" route add 192.0.2.0/24 dev vb; done

conf=$LOGDIR/a.conf
for ((i = 0; i < N; i++)); do
	echo "tunnel t$i mode sit remote 203.0.113.$((1 + i % 250)) local 192.0.2.$((1 + i / 250))"
done >"$conf"

t0=$(date +%s.%N)
start_sitd "$NS_A" sitd-a -c "$conf"
PID_A=$LAST_PID
for _ in $(seq 300); do
	grep -q "$N tunnel(s)" "$(log_of "$PID_A")" && break
	sleep 0.05
done
t1=$(date +%s.%N)
ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
expect_eq "A runs $N tunnels" "$("$SITD" -S "$(sock_of "$PID_A")" status -j | jq .tunnels)" "$N"
check "the $N tunnels came up in less than 5 s ($ms ms)" test "$ms" -lt 5000
expect_eq "every device exists" "$(ip -n "$NS_A" -o link show | grep -c ': t[0-9]*:')" "$N"

# The peers: each a sitd of its own, some with two tunnels.
printf 'tunnel x1 mode sit remote 192.0.2.1 local 203.0.113.1\ntunnel x3 mode sit remote 192.0.2.3 local 203.0.113.1\n' >"$LOGDIR/b1.conf"
start_sitd "$NS_B1" sitd-b1 -c "$LOGDIR/b1.conf"
PID_B1=$LAST_PID
start_sitd "$NS_B2" sitd-b2 x2 mode sit remote 192.0.2.1 local 203.0.113.2
start_sitd "$NS_B3" sitd-b3 x9 mode sit remote 192.0.2.4 local 203.0.113.250

# pair A_TUN PEER_NS PEER_TUN K: inner 2001:db8:K::1 (A) and ::2 (peer), ping both ways.
pair() {
	tun_up "$NS_A" "$1" "2001:db8:$4::1"
	tun_up "$2" "$3" "2001:db8:$4::2"
	check "$1: A pings its peer" na ping -6 -c 2 -i 0.2 -W 2 "2001:db8:$4::2"
	check "$1: the peer pings A" ip netns exec "$2" ping -6 -c 2 -i 0.2 -W 2 "2001:db8:$4::1"
}
pair t0 "$NS_B1" x1 10
pair t500 "$NS_B1" x3 11
pair t1 "$NS_B2" x2 12
pair t999 "$NS_B3" x9 13
expect_eq "t500 (same remote as t0, other local) got its own packets" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -s -j t500 | jq '.[0].stats.rx_packets >= 4')" true
expect_eq "no packet of the sample matched no tunnel" "$(pstat "$PID_A" rx_no_tunnel)" 0

# A stranger: a tunnel from an address A has none for.  Counted once per packet, for the process.
start_sitd "$NS_B2" sitd-stranger y1 mode sit remote 192.0.2.1 local 198.51.100.7
tun_up "$NS_B2" y1 2001:db8:99::2
PID_Y=$LAST_PID
ip netns exec "$NS_B2" ping -6 -c 5 -i 0.2 -W 1 2001:db8:99::1 >/dev/null 2>&1
sent=$(ctr "$PID_Y" tx_packets)
expect_ge "the stranger sent its pings (and what its new device sends)" "$sent" 5
expect_eq "every packet of the stranger counted once, as rx_no_tunnel" "$(pstat "$PID_A" rx_no_tunnel)" "$sent"

# Memory and threads: workers + the control thread in the packet process, no thread per
# tunnel; the monitor is one thread and stays small.
pp=$(packet_pid "$PID_A")
expect_eq "status names the packet process" "$("$SITD" -S "$(sock_of "$PID_A")" status -j | jq .pid)" "$pp"
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pp/status")
mrss=$(awk '/^VmRSS/ { print $2 }' "/proc/$PID_A/status")
threads=$(awk '/^Threads/ { print $2 }' "/proc/$pp/status")
workers=$("$SITD" -S "$(sock_of "$PID_A")" status -j | jq .workers)
expect_eq "threads: $workers workers and the control thread" "$threads" $((workers + 1))
expect_eq "the monitor: one thread" "$(awk '/^Threads/ { print $2 }' "/proc/$PID_A/status")" 1
echo "# RSS with $N tunnels: $rss kB ($((rss / N)) kB per tunnel, buffers included); monitor $mrss kB"
check "RSS below 64 kB per tunnel ($rss kB for $N)" test "$rss" -lt $((64 * N))

# Reload at scale: t100..t199 go, n0..n99 come, while 50 MB run through t0.
if0=$(ip -n "$NS_A" -o link show t0 | cut -d: -f1)
if1=$(ip -n "$NS_A" -o link show t1 | cut -d: -f1)
make_data 50
NS_B=$NS_B1
transfer_bg 2001:db8:10::2
{
	for ((i = 0; i < N; i++)); do
		[ "$i" -ge 100 ] && [ "$i" -lt 200 ] && continue
		echo "tunnel t$i mode sit remote 203.0.113.$((1 + i % 250)) local 192.0.2.$((1 + i / 250))"
	done
	for ((i = 0; i < 100; i++)); do
		echo "tunnel n$i mode sit remote 198.51.100.$((1 + i)) local 192.0.2.1"
	done
} >"$conf.new"
mv "$conf.new" "$conf"
out=$("$SITD" -S "$(sock_of "$PID_A")" reload)
expect_eq "reload answers ok" "$out" ok
check "the transfer through t0 kept its sha256 across the reload" wait "$BG"
expect_eq "t0 kept its ifindex" "$(ip -n "$NS_A" -o link show t0 | cut -d: -f1)" "$if0"
expect_eq "t1 kept its ifindex" "$(ip -n "$NS_A" -o link show t1 | cut -d: -f1)" "$if1"
check "t150 is gone" sh -c "! ip -n '$NS_A' link show t150 >/dev/null 2>&1"
check "n99 exists" ip -n "$NS_A" link show n99
expect_eq "still $N tunnels" "$("$SITD" -S "$(sock_of "$PID_A")" status -j | jq .tunnels)" "$N"
check "t999 still answers after the reload" ip netns exec "$NS_B3" ping -6 -c 2 -i 0.2 -W 2 2001:db8:13::1
grep -E 'reloaded' "$(log_of "$PID_A")" | tail -n 1
finish
