#!/usr/bin/env bash
# The outer IPv6 header on the wire (ip6tnl, issue 21), read by an independent decoder:
# tshark on A's veth of an IPv6-only underlay (setup_pair6 in lib.sh), as test_tshark.sh
# does for sit.
#
#  - ip6ip6 with default settings: next header 60, a Destination Options header of 8
#    bytes carrying the Tunnel Encapsulation Limit option, value 4, and a PadN (RFC 2473
#    4.1.1, init_tel_txopt), then next header 41; hop limit 64; one non-zero flow label
#    for one TCP flow (ip6_make_flowlabel); TCP segments of a TSO transfer dissected with
#    every TCP checksum good and nothing malformed;
#  - encaplimit 0 (value 0) and encaplimit none (no Destination Options: next header 41);
#  - hoplimit 37 and inherit, tclass 0x28 (DSCP, the inner ECN kept: RFC 6040) and
#    inherit, flowlabel 0x12345 and inherit, each against the inner packet's own;
#  - ipip6: next header 4 behind the option, and 4 directly with encaplimit none;
#    hop limit and traffic class inherited from the inner IPv4 TTL and TOS;
#  - a nested tunnel (RFC 2473 4.1.1, ip6_tnl_xmit): an inner IPv6 packet carrying a
#    Tunnel Encapsulation Limit of 0, written into A's TUN device through a raw socket,
#    is not sent but answered with ICMPv6 Parameter Problem, code 0, its pointer at the
#    option's value, back to its sender on A's TUN device; with limit 3 it goes out with
#    limit 2 in the outer option, and B answers it.
TUN=${TUN:-ip6tnl1}
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
require_root tshark socat ping jq $PY
make_data 4

# cap_start NAME DEV: tshark in A's namespace on DEV into $LOGDIR/NAME-DEV.pcapng; on the
# veth only A's tunnel packets (not ICMPv6: neighbour discovery).  cap_stop ends them all.
CAP_PIDS=()
cap_start() {
	local f=()
	[ "$2" = va ] && f=(-f "ip6 src host $A6U and not icmp6")
	: >"$LOGDIR/tshark-$2.log"
	# Not through na(): $! must be tshark itself, for the SIGINT below.
	ip netns exec "$NS_A" tshark -i "$2" "${f[@]}" -a duration:120 -w "$LOGDIR/$1-$2.pcapng" -q \
		2>"$LOGDIR/tshark-$2.log" &
	CAP_PIDS+=($!)
	for _ in $(seq 100); do grep -q Capturing "$LOGDIR/tshark-$2.log" && break; sleep 0.1; done
	sleep 0.5	# "Capturing" can come a moment before the capture does
}
cap_stop() {
	sleep 0.5
	kill -INT "${CAP_PIDS[@]}" 2>/dev/null
	wait "${CAP_PIDS[@]}" 2>/dev/null
	CAP_PIDS=()
}

# count FILE FILTER: packets matching a display filter.  The payload is random bytes:
# decode it as data (test_tshark.sh).
count() {
	tshark -r "$1" -d tcp.port==5001,data -o tcp.check_checksum:TRUE \
		-Y "$2" 2>/dev/null | wc -l
}

# vals FILE FILTER FIELD [OCC]: the distinct values of FIELD among the packets matching
# FILTER, in decimal, space separated; OCC f (default: the outer header's), l (the
# innermost's) or a (every occurrence, comma separated: "outer,inner").
vals() {
	local v line out=()
	while read -r line; do
		[ -n "$line" ] || continue
		local IFS=,
		out=()
		for v in $line; do out+=("$(printf '%d' "$v")"); done
		echo "${out[*]}"
	done < <(tshark -r "$1" -Y "$2" -T fields -E occurrence="${4:-f}" -e "$3" 2>/dev/null) |
		sort -un | paste -sd' '
}

# nested LIMIT IDENT: write into A's TUN device an ICMPv6 echo request from A to B whose
# Destination Options header carries the Tunnel Encapsulation Limit LIMIT (as a tunnel
# entry point before sitd would have put it there), echo identifier IDENT.  AF_PACKET
# on the TUN device: the frame goes to the reader, sitd, as the kernel's own would.
nested() {
	na "$PY" - "$TUN" "$A6" "$B6" "$1" "$2" <<'EOF'
import socket, struct, sys
dev, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
limit, ident = int(sys.argv[4]), int(sys.argv[5])
s6 = socket.inet_pton(socket.AF_INET6, src)
d6 = socket.inet_pton(socket.AF_INET6, dst)


def csum(b):
    if len(b) % 2:
        b += b'\0'
    t = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff


# ICMPv6 echo request, its checksum over the pseudo-header (RFC 8200 8.1).
echo = struct.pack('!BBHHH', 128, 0, 0, ident, 1) + b'sitd nested tunnel test'
c = csum(s6 + d6 + struct.pack('!I3xB', len(echo), 58) + echo)
echo = echo[:2] + struct.pack('!H', c) + echo[4:]
# Destination Options: next header 58, length 0 (8 bytes): the Tunnel Encapsulation
# Limit (type 4, length 1, LIMIT) and a PadN of one byte (RFC 2473 4.1.1).
dstopts = bytes([58, 0, 4, 1, limit, 1, 1, 0])
ip6 = struct.pack('!IHBB', 6 << 28, len(dstopts) + len(echo), 60, 64) + s6 + d6
s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x86dd))
s.sendto(ip6 + dstopts + echo, (dev, 0x86dd))
EOF
}

quiet() { "$@" >/dev/null; }

# wire NAME MODE [sitd args]: a fresh pair and tunnel, A's veth captured into $CAP.
wire() {
	local name=$1 mode=$2
	shift 2
	setup_pair6
	setup_tunnel6 "$mode" "$@"
	CAP=$LOGDIR/$name-va.pcapng
	cap_start "$name" va
}

# Every outer packet from A: the capture filter took only those.
ALL=frame

# --- 1. ip6ip6, default settings --------------------------------------------------
wire default ip6ip6
na ping -6 -c 3 -i 0.2 -W 2 -q $B6 >/dev/null
check "default: 4 MB transfer, TSO on" transfer $B6
cap_stop
total=$(count "$CAP" $ALL)
expect_ge "default: outer packets captured" "$total" 100
expect_eq "default: outer next header 60 (Destination Options)" "$(vals "$CAP" $ALL ipv6.nxt)" 60
expect_eq "default: ... then 41 (IPv6)" "$(vals "$CAP" $ALL ipv6.dstopts.nxt)" 41
expect_eq "default: Tunnel Encapsulation Limit 4" "$(vals "$CAP" $ALL ipv6.opt.tel)" 4
expect_eq "default: the option, then a PadN (types 4, 1)" "$(vals "$CAP" $ALL ipv6.opt.type a)" 4,1
expect_eq "default: the header byte for byte: 29 00 04 01 04 01 01 00" \
	"$(count "$CAP" "frame[54:8] == 29:00:04:01:04:01:01:00")" "$total"
expect_eq "default: every one dissects as IPv6 in IPv6" \
	"$(count "$CAP" 'frame.protocols contains "ipv6:ipv6.dstopts:ipv6"')" "$total"
expect_eq "default: hop limit 64 (ip6_tnl_parm_init)" "$(vals "$CAP" $ALL ipv6.hlim)" 64
expect_eq "default: traffic class 0" "$(vals "$CAP" $ALL ipv6.tclass)" 0
fl=$(vals "$CAP" "tcp.dstport == 5001" ipv6.flow)
check "default: one non-zero outer flow label for the TCP flow ($fl)" \
	test -n "$fl" -a "${fl// /}" = "$fl" -a "$fl" != 0
tcp=$(count "$CAP" "tcp.len > 0")
expect_ge "default: TCP segments" "$tcp" 50
expect_eq "default: every TCP checksum verified good" \
	"$(count "$CAP" "tcp.len > 0 && tcp.checksum.status == 1")" "$tcp"
expect_eq "default: no malformed packet or error" \
	"$(count "$CAP" "_ws.malformed || _ws.expert.severity == error")" 0
teardown

# --- 2. encaplimit 0, encaplimit none ------------------------------------------------
wire limit0 ip6ip6 encaplimit 0
check "encaplimit 0: ping" quiet na ping -6 -c 3 -i 0.2 -W 2 -q $B6
cap_stop
expect_eq "encaplimit 0: Tunnel Encapsulation Limit 0" "$(vals "$CAP" $ALL ipv6.opt.tel)" 0
expect_eq "encaplimit 0: the header: 29 00 04 01 00 01 01 00" \
	"$(count "$CAP" "frame[54:8] == 29:00:04:01:00:01:01:00")" "$(count "$CAP" $ALL)"
teardown

wire nolimit ip6ip6 encaplimit none
check "encaplimit none: ping" quiet na ping -6 -c 3 -i 0.2 -W 2 -q $B6
cap_stop
expect_ge "encaplimit none: outer packets" "$(count "$CAP" $ALL)" 3
expect_eq "encaplimit none: outer next header 41 directly" "$(vals "$CAP" $ALL ipv6.nxt)" 41
expect_eq "encaplimit none: no Destination Options header" "$(count "$CAP" ipv6.dstopts)" 0
expect_eq "encaplimit none: A's device MTU 1500 - 40" \
	"$(ip -n "$NS_A" -o link show "$TUN" | grep -o 'mtu [0-9]*' | cut -d' ' -f2)" 1460
teardown

# --- 3. hop limit, traffic class, flow label: fixed and inherited --------------------
# Each ping sets the inner field to a value none of the defaults has.
wire hop37 ip6ip6 hoplimit 37
check "hoplimit 37: ping with inner hop limit 5" quiet na ping -6 -c 3 -i 0.2 -t 5 -W 2 -q $B6
cap_stop
expect_eq "hoplimit 37: outer 37, inner 5" "$(vals "$CAP" $ALL ipv6.hlim a)" 37,5
teardown

wire hopinh ip6ip6 hoplimit inherit
check "hoplimit inherit: ping with inner hop limit 33" quiet na ping -6 -c 3 -i 0.2 -t 33 -W 2 -q $B6
cap_stop
expect_eq "hoplimit inherit: outer equal to the inner, 33" "$(vals "$CAP" $ALL ipv6.hlim a)" 33,33
teardown

wire tc28 ip6ip6 tclass 0x28
check "tclass 0x28: ping with inner traffic class 0x02 (ECT(0))" \
	quiet na ping -6 -c 3 -i 0.2 -Q 0x02 -W 2 -q $B6
cap_stop
expect_eq "tclass 0x28: outer DSCP 10 (0x28), inner DSCP 0" "$(vals "$CAP" $ALL ipv6.tclass.dscp a)" 10,0
expect_eq "tclass 0x28: the inner ECT(0) in the outer ECN field (RFC 6040)" \
	"$(vals "$CAP" $ALL ipv6.tclass.ecn a)" 2,2
teardown

wire tcinh ip6ip6 tclass inherit
check "tclass inherit: ping with inner traffic class 0x48" quiet na ping -6 -c 3 -i 0.2 -Q 0x48 -W 2 -q $B6
cap_stop
expect_eq "tclass inherit: outer equal to the inner, 0x48" "$(vals "$CAP" $ALL ipv6.tclass a)" 72,72
teardown

wire fl12345 ip6ip6 flowlabel 0x12345
check "flowlabel 0x12345: ping with inner flow label 0xabcde" quiet na ping -6 -c 3 -i 0.2 -F 0xabcde -W 2 -q $B6
cap_stop
expect_eq "flowlabel 0x12345: outer 0x12345, inner 0xabcde" \
	"$(vals "$CAP" $ALL ipv6.flow a)" "$((0x12345)),$((0xabcde))"
teardown

wire flinh ip6ip6 flowlabel inherit
check "flowlabel inherit: ping with inner flow label 0xabcde" quiet na ping -6 -c 3 -i 0.2 -F 0xabcde -W 2 -q $B6
cap_stop
expect_eq "flowlabel inherit: outer equal to the inner, 0xabcde" \
	"$(vals "$CAP" $ALL ipv6.flow a)" "$((0xabcde)),$((0xabcde))"
teardown

# --- 4. ipip6 ----------------------------------------------------------------------------
wire ipip6 ipip6
na ping -4 -c 3 -i 0.2 -W 2 -q $B4IN >/dev/null
check "ipip6: 4 MB transfer, TSO on" transfer $B4IN
cap_stop
total=$(count "$CAP" $ALL)
expect_ge "ipip6: outer packets captured" "$total" 100
expect_eq "ipip6: outer next header 60" "$(vals "$CAP" $ALL ipv6.nxt)" 60
expect_eq "ipip6: ... then 4 (IPv4)" "$(vals "$CAP" $ALL ipv6.dstopts.nxt)" 4
expect_eq "ipip6: the header: 04 00 04 01 04 01 01 00" \
	"$(count "$CAP" "frame[54:8] == 04:00:04:01:04:01:01:00")" "$total"
expect_eq "ipip6: every one dissects as IPv4 in IPv6" \
	"$(count "$CAP" 'frame.protocols contains "ipv6:ipv6.dstopts:ip:"')" "$total"
tcp=$(count "$CAP" "tcp.len > 0")
expect_ge "ipip6: TCP segments" "$tcp" 50
expect_eq "ipip6: every TCP checksum verified good" \
	"$(count "$CAP" "tcp.len > 0 && tcp.checksum.status == 1")" "$tcp"
expect_eq "ipip6: no bad inner IPv4 header checksum" \
	"$(tshark -r "$CAP" -o ip.check_checksum:TRUE -Y "ip.checksum.status == 0" 2>/dev/null | wc -l)" 0
expect_eq "ipip6: no malformed packet or error" \
	"$(count "$CAP" "_ws.malformed || _ws.expert.severity == error")" 0
teardown

wire ipip6none ipip6 encaplimit none hoplimit inherit tclass inherit
check "ipip6 encaplimit none: ping with inner TTL 33, TOS 0x48" \
	quiet na ping -4 -c 3 -i 0.2 -t 33 -Q 0x48 -W 2 -q $B4IN
cap_stop
expect_eq "ipip6 encaplimit none: outer next header 4 directly" "$(vals "$CAP" $ALL ipv6.nxt)" 4
expect_eq "ipip6 hoplimit inherit: outer hop limit 33, the inner TTL" "$(vals "$CAP" $ALL ipv6.hlim)" 33
expect_eq "ipip6 tclass inherit: outer traffic class 0x48, the inner TOS" "$(vals "$CAP" $ALL ipv6.tclass)" 72
teardown

# --- 5. a nested tunnel's packet -------------------------------------------------------
wire nested ip6ip6
cap_start nested "$TUN"
TCAP=$LOGDIR/nested-$TUN.pcapng
nested 0 $((0x5a00))
sleep 0.5
nested 3 $((0x5a03))
sleep 1
cap_stop
expect_eq "limit 0: not sent" "$(count "$CAP" "icmpv6.echo.identifier == 0x5a00")" 0
expect_eq "limit 0: answered on A's TUN device with Parameter Problem, code 0, to A" \
	"$(count "$TCAP" "icmpv6.type == 4 && icmpv6.code == 0 && ipv6.src == $A6 && ipv6.dst == $A6")" 1
expect_eq "limit 0: ... its pointer at the option's value (40 + 2 + 2)" \
	"$(vals "$TCAP" "icmpv6.type == 4" icmpv6.pointer)" 44
expect_eq "limit 0: ... quoting the packet, checksum good" \
	"$(count "$TCAP" "icmpv6.type == 4 && icmpv6.checksum.status == 1 && icmpv6.echo.identifier == 0x5a00")" 1
expect_eq "limit 0: counted as tx_encap_limit" "$(ctr "$PID_A" drop_tx_encap_limit)" 1
expect_eq "limit 3: sent once" "$(count "$CAP" "icmpv6.echo.identifier == 0x5a03")" 1
expect_eq "limit 3: the outer option says 2, the inner one still 3" \
	"$(vals "$CAP" "icmpv6.echo.identifier == 0x5a03" ipv6.opt.tel a)" 2,3
expect_eq "limit 3: B's echo reply came back through the tunnel" \
	"$(count "$TCAP" "icmpv6.type == 129 && icmpv6.echo.identifier == 0x5a03")" 1
teardown
finish
