#!/usr/bin/env bash
# Least grant, from outside (issue 20): the packet process holds exactly the sockets its
# configuration needs, read from /proc/PID/fd against the kernel's tables
# (/proc/PID/net/{packet,raw,raw6,udp,udp6}, by inode), with no cooperation from sitd; and
# 500 forged Fragmentation Needed, each for a new destination of a remote-any tunnel, give
# a bounded number of log lines, and the daemon carries traffic after; refused requests'
# log lines are bounded as well, and those left out counted.
#
# Every sitd here runs with -w 2: two workers, so two raw send sockets (protocol 255).
. "$(dirname "$0")/lib.sh"
require_root ping python3

# sockets PID: one line per socket of the packet process, "TABLE PROTO-OR-PORT", sorted;
# for packet its protocol (hex ethertype), raw and raw6 their protocol, udp and tcp
# their port.
sockets() {
	local pp inode
	pp=$(packet_pid "$1")
	for inode in $(find /proc/"$pp"/fd -lname 'socket:*' -printf '%l\n' | tr -dc '0-9\n'); do
		awk -v i="$inode" '$9 == i { print "packet " $4 }' /proc/"$pp"/net/packet
		for t in raw raw6 udp udp6 tcp tcp6; do
			awk -v i="$inode" -v t=$t 'NR > 1 && $10 == i { split($2, a, ":"); print t " " a[2] }' \
				/proc/"$pp"/net/$t | while read -r tab hex; do echo "$tab $((16#$hex))"; done
		done
	done | sort | uniq -c | awk '{ print $2 " " $3 " x" $1 }' | paste -sd,
}

# A plain sit tunnel: protocol 41 received, two raw send sockets; no AF_PACKET, no ICMPv6,
# no UDP.
setup_pair
SITD_OPTS="-w 2" setup_tunnel sit
expect_eq "sit: raw 41 to receive, raw 255 per worker to send, nothing else" \
	"$(sockets "$PID_A")" "raw 255 x2,raw 41 x1"
# CAP_SYS_ADMIN (bit 21) is the monitor's only with a netns stanza (test_netns.sh).
expect_eq "... and its monitor holds no CAP_SYS_ADMIN" \
	"$(( 0x$(awk '/^CapEff/ { print $2 }' /proc/"$PID_A"/status) >> 21 & 1 ))" 0
teardown

# FOU: the port's socket (5555) and encap-sport auto's eight send sockets; no raw 41.
setup_pair
SITD_OPTS="-w 2" setup_tunnel sit encap fou encap-dport 5555
got=$(sockets "$PID_A")
expect_eq "fou: raw 255 per worker, no raw 41, no AF_PACKET" "$(tr , '\n' <<<"$got" | grep -v '^udp ' | paste -sd,)" "raw 255 x2"
expect_eq "... UDP on port 5555, once" "$(tr , '\n' <<<"$got" | grep '^udp 5555 ')" "udp 5555 x1"
expect_eq "... and eight send sockets on ports of the kernel's" \
	"$(tr , '\n' <<<"$got" | grep '^udp ' | grep -v '^udp 5555 ' | awk '{ n += substr($3, 2) } END { print n }')" 8
teardown

# fou6 (FOU over IPv6): the port's UDPv6 socket and the IPv6 raw send socket per worker,
# which the core's whole packets go through; no raw6 41 receive socket, no UDP send socket.
# With encap-sport auto (the default) one ICMPv6 socket (raw6 58) for the Packet Too Big
# no UDP socket is given; with encap-sport = encap-dport the port's socket hears them.
setup_pair6
start_sitd "$NS_A" fou6-a -w 2 t6 mode ip6ip6 remote $B6U local $A6U encap fou encap-dport 5555
PID_A=$LAST_PID
expect_eq "fou6: udp6 on port 5555, raw6 255 per worker, raw6 58 (Packet Too Big), no raw6 41" \
	"$(sockets "$PID_A")" "raw 255 x2,raw6 255 x2,raw6 58 x1,udp6 5555 x1"
teardown
setup_pair6
start_sitd "$NS_A" fou6-a -w 2 t6 mode ip6ip6 remote $B6U local $A6U encap fou encap-sport 5555 \
	encap-dport 5555
PID_A=$LAST_PID
expect_eq "fou6, encap-sport = encap-dport: no ICMPv6 socket" \
	"$(sockets "$PID_A")" "raw 255 x2,raw6 255 x2,udp6 5555 x1"
teardown

# -T packet -R ring: an AF_PACKET send socket per worker (protocol 0: it takes nothing),
# one ring bound to IPv4 (0800) for protocol 41.
setup_pair
SITD_OPTS="-w 2 -T packet -R ring" setup_tunnel sit
expect_eq "-T packet -R ring: AF_PACKET for sending per worker and one ring" \
	"$(sockets "$PID_A")" "packet 0000 x2,packet 0800 x1,raw 255 x2,raw 41 x1"
check "... and it carries traffic" na ping -6 -c 2 -i 0.2 -W 2 -q -s 1000 $B6
teardown

# -M: one TCP socket, listening on its port; without -M (above) none.
setup_pair
SITD_OPTS="-w 2 -M 9724" setup_tunnel sit
expect_eq "-M 9724: + one TCP socket, on port 9724" "$(sockets "$PID_A")" "raw 255 x2,raw 41 x1,tcp 9724 x1"
check "... listening" bash -c "ip netns exec $NS_A ss -Hltn 'sport = :9724' | grep -q LISTEN"
# 9724 is 25FC: the socket's inode, which the monitor, having handed it over, holds not.
inode=$(awk 'NR > 1 && $2 ~ /:25FC$/ && $4 == "0A" { print $10 }' /proc/"$(packet_pid "$PID_A")"/net/tcp)
check "... which the monitor handed over and holds no more" \
	bash -c "[ -n '$inode' ] && ! find /proc/$PID_A/fd -lname 'socket:\[$inode\]' | grep -q ."
teardown

# ISATAP: one ICMPv6 socket (protocol 58) for its solicitations, bound to its device.
setup_pair
start_sitd "$NS_A" isatap-a -w 2 isatap0 mode isatap local $A4 prl-default $B4
PID_A=$LAST_PID
expect_eq "isatap: + one raw6 ICMPv6" "$(sockets "$PID_A")" "raw 255 x2,raw 41 x1,raw6 58 x1"
if ss -A raw -w >/dev/null 2>&1 && [ -n "$(na ss -Hw -A raw -p 2>/dev/null | grep ipv6-icmp)" ]; then
	check "... bound to isatap0" bash -c "ip netns exec $NS_A ss -Hw -A raw -p | grep ipv6-icmp | grep -q '%isatap0'"
fi
teardown

# 500 forged Fragmentation Needed, from B to A, each about an outer packet from A's local to
# another destination of A's remote-any tunnel (203.0.113.0/24, 198.51.100.0/24, routed
# through B so that the kernel learns each path MTU and sitd reads it back).
setup_pair
start_sitd "$NS_A" sitd-a -w 2 -c <(printf 'tunnel sit1 mode sit remote %s local %s\ntunnel any0 mode sit remote any local %s\n' $B4 $A4 $A4)
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b -w 2 sit1 mode sit remote $A4 local $B4
PID_B=$LAST_PID
tun_up "$NS_A" sit1 $A6
tun_up "$NS_B" sit1 $B6
na ip link set any0 up	# a tunnel that is down takes nothing, errors neither
na ip route add 203.0.113.0/24 via $B4
na ip route add 198.51.100.0/24 via $B4
check "before: sit1 carries traffic" na ping -6 -c 1 -W 2 -q $B6
nb python3 - $B4 $A4 <<'EOF'
import socket, struct, sys

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

src, local = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
dsts = ["203.0.113.%d" % i for i in range(1, 255)] + ["198.51.100.%d" % i for i in range(3, 249)]
for d in dsts[:500]:
    # The quoted outer header (local -> d, protocol 41, DF) and its inner IPv6 header.
    q = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 1500, 0, 0x4000, 64, 41, 0,
                    socket.inet_aton(local), socket.inet_aton(d))
    q = q[:10] + struct.pack("!H", csum(q)) + q[12:]
    q += struct.pack("!IHBB", 6 << 28, 1440, 58, 64) + socket.inet_pton(socket.AF_INET6, "2001:db8:1::1") \
        + socket.inet_pton(socket.AF_INET6, "2001:db8:77::1")
    icmp = struct.pack("!BBHHH", 3, 4, 0, 0, 1400) + q
    icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    s.sendto(icmp, (local, 0))
EOF
sleep 2
n=$(grep -c 'path MTU to ' "$(log_of "$PID_A")")
echo "# 500 forged errors: $n path MTU lines"
check "500 forged Fragmentation Needed: at most 20 path MTU lines ($n)" test "$n" -le 20
check "... which sitd received: err_frag_needed 500" test "$(ctr "$PID_A" err_frag_needed)" -ge 400
check "... and the first ones logged" test "$n" -ge 1
check "... and sitd carries traffic after" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
teardown

# The monitor's refusals are bounded too (ratelimit.h sitd_loglimit): 40 reloads of a
# group-writable file, each a config-open refused with a line, give 20 lines (the burst)
# and one more for every 500 ms they took, the others said by count; every one of the 40
# is either logged or counted.
setup_pair
printf 'tunnel sit1 mode sit remote %s local %s\n' $B4 $A4 >"$LOGDIR/r.conf"
chmod 644 "$LOGDIR/r.conf"
start_sitd "$NS_A" sitd-r -c "$LOGDIR/r.conf"
PID_A=$LAST_PID
chmod 664 "$LOGDIR/r.conf"
t0=$(date +%s%N)
for _ in $(seq 40); do
	na "$SITD" -S "$(sock_of "$PID_A")" reload >/dev/null 2>&1
done
# The burst, and a token for every 500 ms the reloads took (a slow or busy host's more).
most=$((20 + ($(date +%s%N) - t0) / 500000000 + 1))
sleep 1.5
log=$(log_of "$PID_A")
n=$(grep -c 'monitor: .*r.conf: writable by group or others' "$log")
# "N refusal line(s) suppressed (M in all)": before a line let through, and after the last.
said=$(sed -n 's/.*monitor: \([0-9]*\) refusal line(s) suppressed (\([0-9]*\) in all).*/\1 \2/p' "$log")
echo "# 40 refused reloads: $n lines; suppressed, in all: $(paste -sd, <<<"$said")"
check "40 refused reloads: 20 to $most lines ($n)" test "$n" -ge 20 -a "$n" -le "$most"
expect_eq "... the rest said suppressed, by count" "$(awk '{ s += $1 } END { print s + 0 }' <<<"$said")" $((40 - n))
expect_eq "... and in all, last" "$(tail -n 1 <<<"$said" | cut -d' ' -f2)" $((40 - n))
chmod 644 "$LOGDIR/r.conf"
out=$(na "$SITD" -S "$(sock_of "$PID_A")" reload 2>&1)
expect_eq "... and a reload of the file made right again passes" "$out" ok
teardown
finish
