#!/usr/bin/env bash
# 200 MB over TCP through the tunnel, digests compared at both ends: sit with TSO on,
# TSO off and nopmtudisc, ipip with TSO on, mode any carrying IPv4, and sit and ipip
# packets that B's kernel merged before sitd read them (TCP, and UDP for a UDP_GRO
# socket, dropped through the raw socket and split again through -R ring).  With TSO on and
# segments that fit, the transfer must cause no Packet Too Big and no drop at all: the
# regression of the 2013 report (doc/kernel.md "The founding lesson").  Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root socat ethtool sha256sum
make_data 200

# run_case NAME MODE ADDR [sitd args...] -- [ethtool features...]
run_case() {
	local name=$1 mode=$2 addr=$3
	shift 3
	local args=() feats=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	feats=("$@")

	setup_pair
	setup_tunnel "$mode" "${args[@]}"
	[ ${#feats[@]} = 0 ] || na ethtool -K "$TUN" "${feats[@]}" >/dev/null
	# Let the devices settle (router solicitations, MLD) before taking counters.
	na ping -c 1 -W 2 -q "$addr" >/dev/null
	local d0 b0 p0 g0
	d0=$(drops_total "$PID_A")
	b0=$(drops_total "$PID_B")
	p0=$(( $(ctr "$PID_A" tx_icmp_ptb) + $(ctr "$PID_A" tx_icmp_frag_needed) ))
	g0=$(ctr "$PID_A" tx_gso_packets)
	check "$name: 200 MB, sha256 equal" transfer "$addr"
	expect_eq "$name: no drop at the sender" "$(( $(drops_total "$PID_A") - d0 ))" 0
	expect_eq "$name: no drop at the receiver" "$(( $(drops_total "$PID_B") - b0 ))" 0
	expect_eq "$name: no ICMP too-big" "$(( $(ctr "$PID_A" tx_icmp_ptb) + $(ctr "$PID_A" tx_icmp_frag_needed) - p0 ))" 0
	local g=$(( $(ctr "$PID_A" tx_gso_packets) - g0 ))
	if [[ " ${feats[*]} " == *" tso off "* ]]; then
		expect_eq "$name: no super-packet reached sitd" "$g" 0
	else
		expect_ge "$name: super-packets were split by sitd" "$g" 100
	fi
	teardown
}

# gro_case NAME MODE ADDR: the same transfer with B's kernel merging the tunnel's packets
# (merging_underlay; sit_gro_receive, ipip_gro_receive) before its raw socket gives them
# to sitd, with the TCP checksum left partial.  Before sitd knew such packets it wrote them as they were, and B's TCP found their
# checksums wrong.
gro_case() {
	local name=$1 mode=$2 addr=$3 k0 c0 b0
	setup_pair
	setup_tunnel "$mode"
	merging_underlay "$name" || { teardown; return; }
	na ping -c 1 -W 2 -q "$addr" >/dev/null
	k0=$(ctr "$PID_B" rx_gro_kernel)
	c0=$(tcp_csum_errors)
	b0=$(drops_total "$PID_B")
	check "$name: 200 MB, sha256 equal" transfer "$addr"
	expect_ge "$name: super-packets merged by B's kernel" "$(( $(ctr "$PID_B" rx_gro_kernel) - k0 ))" 100
	expect_eq "$name: no TCP checksum error at B" "$(( $(tcp_csum_errors) - c0 ))" 0
	expect_eq "$name: no drop at the receiver" "$(( $(drops_total "$PID_B") - b0 ))" 0
	teardown
}
tcp_csum_errors() { nstat_of TcpInCsumErrors; }

# The same merge for UDP, which B's kernel does for a socket with UDP_GRO (QUIC servers
# ask for it): the datagrams' sizes do not come through a raw socket, so sitd counts
# such a packet as rx_gro_udp instead of handing B's stack a datagram that is two.
# gro_udp_case ring: both ends with -R ring, whose vnet header gives the kernel's segment
# size: the merged datagrams reach B's socket as the datagrams they were.
gro_udp_case() {
	local c0 name="UDP merged by B's GRO" k0
	[ "${1:-}" = ring ] && name="$name, -R ring"
	setup_pair
	SITD_OPTS=$([ "${1:-}" = ring ] && echo "-R ring") setup_tunnel sit
	merging_underlay "$name" || { teardown; return; }
	na ping -c 1 -W 2 -q $B6 >/dev/null
	c0=$(nstat_of Udp6InCsumErrors)
	k0=$(ctr "$PID_B" rx_gro_kernel)
	# The receiver checks every datagram it is given: 1000 bytes each, or a multiple of
	# 1000 with UDP_GRO's size (cmsg type 104) when B's own stack merged them.
	nb timeout 20 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_UDP, 104, 1)
s.bind((sys.argv[1], 5202)); s.settimeout(2)
good = bad = 0
try:
    while True:
        d, anc, _, _ = s.recvmsg(65536, 64)
        seg = [int.from_bytes(x[2][:2], "little") for x in anc if x[1] == 104]
        if d == b"x" * len(d) and (len(d) == 1000 or (seg == [1000] and len(d) % 1000 == 0)):
            good += 1
        else:
            bad += 1
except socket.timeout:
    pass
print(good, bad)' $B6 >"$LOGDIR/udp.out" &
	local rx=$!
	sleep 0.5
	na timeout 20 python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
end = time.time() + 3
while time.time() < end:
    for _ in range(1000):
        s.sendto(b"x" * 1000, (sys.argv[1], 5202))' $B6
	wait "$rx"
	read -r good bad <"$LOGDIR/udp.out"
	expect_ge "$name: datagrams received whole" "${good:-0}" 1000
	expect_eq "$name: none received as two" "${bad:-x}" 0
	if [ "${1:-}" = ring ]; then
		expect_ge "$name: merged packets split again by their size" "$(( $(ctr "$PID_B" rx_gro_kernel) - k0 ))" 1
		expect_eq "$name: none dropped" "$(ctr "$PID_B" drop_rx_gro_udp)" 0
	else
		expect_ge "$name: counted as rx_gro_udp" "$(ctr "$PID_B" drop_rx_gro_udp)" 1
	fi
	expect_eq "$name: no UDP checksum error at B" "$(( $(nstat_of Udp6InCsumErrors) - c0 ))" 0
	teardown
}

# A single UDP datagram whose checksum is left to the device (CHECKSUM_PARTIAL), as a
# kernel sit behind veth sends it: written on A's veth through AF_PACKET with a vnet
# header saying NEEDS_CSUM, so veth hands B the packet unfinished.  B's socket must get
# it (B's stack dropped it for its checksum before).
partial_udp_case() {
	local mac c0 got
	setup_pair
	setup_tunnel sit
	na ping -c 1 -W 2 -q $B6 >/dev/null
	mac=$(nb cat /sys/class/net/vb/address)
	c0=$(nstat_of Udp6InCsumErrors)
	nb timeout 10 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 5203)); s.settimeout(5)
d = s.recv(65536)
print(len(d), d == bytes(range(200)))' $B6 >"$LOGDIR/partial.out" &
	local rx=$!
	sleep 0.5
	na python3 -c '
import socket, struct, sys
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return s
src, dst = socket.inet_pton(socket.AF_INET6, "2001:db8:1::1"), socket.inet_pton(socket.AF_INET6, sys.argv[2])
data = bytes(range(200)); ulen = 8 + len(data)
partial = csum(src + dst + struct.pack("!IxxxB", ulen, 17))
udp = struct.pack("!HHHH", 40000, 5203, ulen, partial) + data
ip6 = struct.pack("!IHBB", 0x60000000, ulen, 17, 64) + src + dst
ip4 = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 40 + ulen, 1, 0x4000, 64, 41, 0,
                  socket.inet_aton("192.0.2.1"), socket.inet_aton("192.0.2.2"))
ip4 = ip4[:10] + struct.pack("!H", 0xffff - csum(ip4)) + ip4[12:]
eth = bytes.fromhex(sys.argv[1].replace(":", "")) + bytes(6) + b"\x08\x00"
vnet = struct.pack("=BBHHHH", 1, 0, 0, 0, 14 + 20 + 40, 6)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.setsockopt(263, 15, 1)   # SOL_PACKET, PACKET_VNET_HDR
s.bind(("va", 0))
s.send(vnet + eth + ip4 + ip6 + udp)' "$mac" $B6
	wait "$rx"
	got=$(cat "$LOGDIR/partial.out")
	expect_eq "UDP with its checksum left to the device: B's socket got it whole" "$got" "200 True"
	expect_eq "... no UDP checksum error at B" "$(( $(nstat_of Udp6InCsumErrors) - c0 ))" 0
	teardown
}

run_case "sit, TSO on" sit $B6
run_case "sit, TSO off" sit $B6 -- tso off
run_case "sit, nopmtudisc" sit $B6 nopmtudisc
run_case "ipip, TSO on" ipip $B4IN
run_case "any, IPv4 inside" any $B4IN
gro_case "sit, merged by B's GRO" sit $B6
gro_case "ipip, merged by B's GRO" ipip $B4IN
gro_udp_case
gro_udp_case ring
partial_udp_case
finish
