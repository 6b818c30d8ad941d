#!/usr/bin/env bash
# remote any: 6to4 (RFC 3056) and 6rd (RFC 5969), sitd everywhere.
#
#   netns S: bridge br0, joining
#     A  va 192.0.2.1/24      6to4 host / 6rd customer edge CE1
#     B  vb 192.0.2.2/24      6to4 host / CE2 (and 192.0.2.3, a spoofer)
#     R  vr 192.0.2.254/24    6to4 relay / 6rd border relay BR,
#        rh 2001:db8:99::1/64 ==== H hr 2001:db8:99::2/64, a native IPv6 host
#
# 6to4: A and B reach each other directly (2002:c000:201::/48, 2002:c000:202::/48), and
# H through R (the hosts' route ::/0 via ::192.0.2.254, a v4-compatible next hop, which a
# TUN device does not pass on: sitd follows the kernel's routes).
# 6rd: prefix 2001:db8:6000::/36, relay prefix 192.0.2.0/24, so CE1 is 2001:db8:6010::/44,
# CE2 2001:db8:6020::/44, BR 2001:db8:6fe0::/44: CE1 reaches H through BR and CE2
# directly; spoofed inner sources and destinations are dropped and counted; the 6rd
# settings change on the running daemon.
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq python3

setup_bridge
join_bridge "$NS_A" va sa 192.0.2.1/24
join_bridge "$NS_B" vb sb 192.0.2.2/24 192.0.2.3/24
join_bridge "$NS_R" vr sr 192.0.2.254/24
setup_native_host
nh() { ip netns exec "$NS_H" "$@"; }

ping6_ok() {	# ping6_ok NS DST [ARGS]: three answers
	local ns=$1 dst=$2
	shift 2
	ip netns exec "$ns" ping -6 -c 3 -i 0.2 -W 2 -q "$@" "$dst" >/dev/null
}

# ---- 6to4 ---------------------------------------------------------------------------
# ::/96 on the link: the v4-compatible next hop ::192.0.2.254 is then on the link, as a
# kernel sit device has it.
hostconf() {	# hostconf V4 V6
	cat <<EOF
tunnel tun6to4 mode sit remote any local $1
	address $2/16
	route ::/96
	route ::/0 via ::192.0.2.254
EOF
}
hostconf 192.0.2.1 2002:c000:201::1 >"$LOGDIR/a.conf"
hostconf 192.0.2.2 2002:c000:202::1 >"$LOGDIR/b.conf"
printf 'tunnel tun6to4 mode sit remote any local 192.0.2.254\n\taddress 2002:c000:2fe::1/16\n' >"$LOGDIR/r.conf"
start_sitd "$NS_A" 6to4-a -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
start_sitd "$NS_B" 6to4-b -c "$LOGDIR/b.conf"
PID_B=$LAST_PID
start_sitd "$NS_R" 6to4-r -c "$LOGDIR/r.conf"
PID_R=$LAST_PID
expect_eq "remote any, no dev: MTU 1280 (RFC 5969 9.1: the IPv4 path MTU is not known)" \
	"$(ip -n "$NS_A" -o link show tun6to4 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" 1280
expect_eq "show: remote any with 6to4's prefix" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq -r '.[0] | .remote + " " + ."6rd".prefix')" \
	"any 2002::/16"
r0=$(ctr "$PID_R" rx_packets)
check "6to4: A pings B directly (2002:c000:202::1)" ping6_ok "$NS_A" 2002:c000:202::1
check "6to4: B pings A" ping6_ok "$NS_B" 2002:c000:201::1
expect_eq "... R saw none of it" "$(ctr "$PID_R" rx_packets)" "$r0"
check "6to4: A reaches the native host H through the relay R" ping6_ok "$NS_A" 2001:db8:99::2
check "6to4: H reaches A back through R" ping6_ok "$NS_H" 2002:c000:201::1
expect_eq "A's packets matched no tunnel nowhere" "$(pstat "$PID_A" rx_no_tunnel)" 0
stop_daemons

# ---- 6rd ----------------------------------------------------------------------------
rd="6rd-prefix 2001:db8:6000::/36 6rd-relay_prefix 192.0.2.0/24"
ceconf() {	# ceconf V4 V6
	cat <<EOF
tunnel sr6 mode sit remote any local $1 $rd
	address $2/36
	route ::/96
	route ::/0 via ::192.0.2.254
EOF
}
ceconf 192.0.2.1 2001:db8:6010::1 >"$LOGDIR/ce1.conf"
ceconf 192.0.2.2 2001:db8:6020::1 >"$LOGDIR/ce2.conf"
# CE2's sitd also runs a second tunnel from 192.0.2.3 (remote any, local differs).
echo "tunnel spoof mode sit remote any local 192.0.2.3 $rd" >>"$LOGDIR/ce2.conf"
printf 'tunnel sr6 mode sit remote any local 192.0.2.254 dev vr %s\n\taddress 2001:db8:6fe0::1/36\n' "$rd" >"$LOGDIR/br.conf"
start_sitd "$NS_A" ce1 -c "$LOGDIR/ce1.conf"
PID_A=$LAST_PID
start_sitd "$NS_B" ce2 -c "$LOGDIR/ce2.conf"
PID_B=$LAST_PID
start_sitd "$NS_R" br -c "$LOGDIR/br.conf"
PID_R=$LAST_PID
expect_eq "remote any bound to dev vr: MTU 1500 - 20" \
	"$(ip -n "$NS_R" -o link show sr6 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" 1480
expect_eq "show -j: the 6rd settings" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -j sr6 | jq -c '.[0]."6rd"')" \
	'{"prefix":"2001:db8:6000::/36","relay_prefix":"192.0.2.0/24"}'
r0=$(ctr "$PID_R" rx_packets)
check "6rd: CE1 pings CE2 directly (2001:db8:6020::1)" ping6_ok "$NS_A" 2001:db8:6020::1
expect_eq "... the BR saw none of it" "$(ctr "$PID_R" rx_packets)" "$r0"
check "6rd: CE1 reaches H behind the BR" ping6_ok "$NS_A" 2001:db8:99::2
check "6rd: H reaches CE1 through the BR" ping6_ok "$NS_H" 2001:db8:6010::1
make_data 20
NS_B=$NS_H transfer 2001:db8:99::2 >/dev/null 2>&1 &&
	ok "6rd: 20 MB from CE1 to H through the BR, sha256 equal" ||
	not_ok "6rd: 20 MB from CE1 to H through the BR, sha256 equal"

# A spoofed inner source: CE2 sends from 192.0.2.3 with a source that embeds 192.0.2.2.
ip -n "$NS_B" link set spoof up
ip -n "$NS_B" addr add 2001:db8:6020::99/128 dev spoof nodad
ip -n "$NS_B" route add 2001:db8:6010::/44 dev spoof
ip netns exec "$NS_B" ping -6 -c 3 -i 0.2 -W 1 -q -I 2001:db8:6020::99 2001:db8:6010::1 >/dev/null 2>&1
expect_ge "6rd: an inner source that embeds another IPv4 address: rx_6rd_spoofed_src" \
	"$(ctr "$PID_A" drop_rx_6rd_spoofed_src)" 3
ip -n "$NS_B" route del 2001:db8:6010::/44 dev spoof

# A spoofed inner destination: to CE1's IPv4 address, for 2001:db8:6030::1 (192.0.2.3's).
ip netns exec "$NS_B" python3 - <<'EOF'
import socket, struct
src = socket.inet_pton(socket.AF_INET6, "2001:db8:6020::1")
dst = socket.inet_pton(socket.AF_INET6, "2001:db8:6030::1")
body = struct.pack("!BBHHH", 128, 0, 0, 1, 1) + b"sitd"       # an echo request
hdr = struct.pack("!IHBB", 6 << 28, len(body), 58, 64) + src + dst
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 41)
for _ in range(3):
    s.sendto(hdr + body, ("192.0.2.1", 0))
EOF
expect_ge "6rd: an inner destination that embeds another IPv4 address: rx_6rd_spoofed_dst" \
	"$(ctr "$PID_A" drop_rx_6rd_spoofed_dst)" 3

# The 6rd settings of the running daemon, as `ip tunnel 6rd dev NAME ...`: a relay prefix
# of 192.0.0.0/16 moves CE2 to 2001:db8:6000:200::/52 from CE1's view.
out=$("$SITD" -S "$(sock_of "$PID_A")" 6rd dev sr6 6rd-prefix 2001:db8:6000::/36 6rd-relay_prefix 192.0.0.0/16)
expect_eq "6rd on the running daemon answers ok" "$out" ok
expect_eq "... show has it" "$("$SITD" -S "$(sock_of "$PID_A")" show -j sr6 | jq -r '.[0]."6rd".relay_prefix')" \
	192.0.0.0/16
out=$("$SITD" -S "$(sock_of "$PID_A")" 6rd dev sr6 6rd-prefix 2001:db8:6000::/36 6rd-relay_prefix 0.0.0.0/0 2>&1)
check "... 36 + 32 bits is more than 64: refused, said why" grep -q '64' <<<"$out"
out=$("$SITD" -S "$(sock_of "$PID_A")" 6rd dev sr6 6rd-reset)
expect_eq "6rd-reset answers ok" "$out" ok
expect_eq "... back to 6to4's 2002::/16" "$("$SITD" -S "$(sock_of "$PID_A")" show -j sr6 | jq -r '.[0]."6rd".prefix')" \
	2002::/16
finish
