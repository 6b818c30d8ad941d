#!/usr/bin/env bash
# `sitd import`: what a tunnel broker hands out, imported and run.
#  - an ifupdown `iface he-ipv6 inet6 v4tunnel` stanza, imported by an unprivileged user
#    (no daemon, no root), run by sitd -c in A; B's end made by hand (sitd on the
#    command line, ip addr): A pings B's tunnel address, and an address behind B through
#    the imported gateway's default route; show -j has the imported settings;
#  - a systemd-networkd pair (ipip .netdev, its .network with [Address] and [Route]) and
#    an underlay .network whose Tunnel= binds it to va: the same, over IPv4 in IPv4;
#  - files sitd cannot express (GRE, a peer address, a command): exit 1, nothing on
#    stdout, FILE:LINE for each refused line.
# Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root ping jq setpriv
chmod 755 "$LOGDIR"	# the unprivileged importer reads the files here

IMPORT_OUT=$LOGDIR/import.out
IMPORT_ERR=$LOGDIR/import.err

# import ARGS...: `sitd import ARGS` as nobody; stdout, stderr and status kept.
import() {
	local rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SITD" import "$@" \
		>"$IMPORT_OUT" 2>"$IMPORT_ERR" || rc=$?
	IMPORT_RC=$rc
}

# ---- ifupdown: a 6in4 tunnel as brokers publish it
setup_pair
cat >"$LOGDIR/interfaces" <<EOF
# /etc/network/interfaces
auto lo
iface lo inet loopback

auto he-ipv6
iface he-ipv6 inet6 v4tunnel
	address $A6
	netmask 64
	endpoint $B4
	local $A4
	ttl 255
	gateway $B6
	mtu 1472
EOF
chmod 644 "$LOGDIR/interfaces"
import ifupdown "$LOGDIR/interfaces"
expect_eq "ifupdown: imported without root, exit 0" "$IMPORT_RC" 0
expect_eq "... nothing on stderr" "$(cat "$IMPORT_ERR")" ""
install -m 644 "$IMPORT_OUT" "$LOGDIR/ifupdown.conf"
sed 's/^/  # /' "$LOGDIR/ifupdown.conf"
start_sitd "$NS_A" ifup-a -c "$LOGDIR/ifupdown.conf"
# B's end by hand, and an address behind it that only A's imported default route reaches.
start_sitd "$NS_B" ifup-b he-ipv6 mode sit remote $A4 local $B4 ttl 255
tun_up "$NS_B" he-ipv6 $B6
nb ip addr add 2001:db8:99::1/128 dev lo
for _ in $(seq 30); do na ping -6 -c 1 -W 1 -q $B6 >/dev/null 2>&1 && break; sleep 0.2; done
check "ifupdown: the imported tunnel carries IPv6 to B's end" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
check "... and, through its gateway's default route, to an address behind B" \
	na ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:99::1
expect_eq "... its routes: the gateway's host route and ::/0 via it" \
	"$(na ip -6 route show dev he-ipv6 | grep -E '^(default|2001:db8:1::2 )' | awk '{print $1, $2, $3}' | sort | tr '\n' ';')" \
	"2001:db8:1::2 proto static;default via 2001:db8:1::2;"
expect_eq "... show -j: its settings as the stanza said" \
	"$(na "$SITD" -S "$LOGDIR/ifup-a.sock" show -j | jq -c '.[] | [.ifname, .mode, .remote, .local, .ttl, .mtu]')" \
	"[\"he-ipv6\",\"ipv6/ip\",\"$B4\",\"$A4\",255,1472]"
teardown

# ---- systemd-networkd: an ipip .netdev, its .network, and the underlay's Tunnel=
setup_pair
cat >"$LOGDIR/ip4.netdev" <<EOF
[NetDev]
Name=ip4
Kind=ipip
MTUBytes=1400

[Tunnel]
Local=$A4
Remote=$B4
TTL=64
EOF
cat >"$LOGDIR/ip4.network" <<EOF
[Match]
Name=ip4

[Address]
Address=$A4IN/24

[Route]
Destination=203.0.113.0/24
Gateway=$B4IN
EOF
cat >"$LOGDIR/va.network" <<EOF
[Match]
Name=va

[Network]
Address=$A4/24
Tunnel=ip4
EOF
chmod 644 "$LOGDIR"/*.netdev "$LOGDIR"/*.network
import networkd "$LOGDIR/ip4.netdev" "$LOGDIR/ip4.network" "$LOGDIR/va.network"
expect_eq "networkd: imported without root, exit 0" "$IMPORT_RC" 0
expect_eq "... nothing on stderr" "$(cat "$IMPORT_ERR")" ""
check "... the underlay's Tunnel= binds it: dev va" grep -qx $'\tdev va' "$IMPORT_OUT"
install -m 644 "$IMPORT_OUT" "$LOGDIR/networkd.conf"
sed 's/^/  # /' "$LOGDIR/networkd.conf"
start_sitd "$NS_A" nd-a -c "$LOGDIR/networkd.conf"
start_sitd "$NS_B" nd-b ip4 mode ipip remote $A4 local $B4 ttl 64
nb ip link set ip4 up
nb ip addr add $B4IN/24 dev ip4
nb ip addr add 203.0.113.1/32 dev lo
for _ in $(seq 30); do na ping -4 -c 1 -W 1 -q $B4IN >/dev/null 2>&1 && break; sleep 0.2; done
check "networkd: the imported tunnel carries IPv4 to B's end" na ping -4 -c 3 -i 0.2 -W 2 -q $B4IN
check "... and, through its [Route], to an address behind B" na ping -4 -c 3 -i 0.2 -W 2 -q 203.0.113.1
expect_eq "... show -j: its settings as the .netdev said" \
	"$(na "$SITD" -S "$LOGDIR/nd-a.sock" show -j | jq -c '.[] | [.ifname, .mode, .remote, .local, .ttl, .mtu, .dev]')" \
	"[\"ip4\",\"ip/ip\",\"$B4\",\"$A4\",64,1400,\"va\"]"
teardown

# ---- refused: FILE:LINE for each line, exit 1, nothing printed
cat >"$LOGDIR/bad-interfaces" <<EOF
iface gre1 inet tunnel
	mode gre
	address 198.51.100.1
	netmask 30
	endpoint $B4
	dstaddr 198.51.100.2
iface he-ipv6 inet6 v4tunnel
	address $A6/64
	endpoint $B4
	up ip -6 route add default dev he-ipv6
EOF
chmod 644 "$LOGDIR/bad-interfaces"
import ifupdown "$LOGDIR/bad-interfaces"
expect_eq "a bad interfaces file: exit 1" "$IMPORT_RC" 1
expect_eq "... nothing on stdout" "$(cat "$IMPORT_OUT")" ""
expect_eq "... FILE:LINE of each refused line, in order" \
	"$(cut -d: -f1,2 "$IMPORT_ERR" | sed "s|^$LOGDIR/||" | tr '\n' ' ')" \
	"bad-interfaces:2 bad-interfaces:6 bad-interfaces:10 "
sed 's/^/  # /' "$IMPORT_ERR"
cat >"$LOGDIR/bad.netdev" <<EOF
[NetDev]
Name=gre1
Kind=gre
EOF
chmod 644 "$LOGDIR/bad.netdev"
import networkd "$LOGDIR/bad.netdev"
expect_eq "a bad .netdev: exit 1, FILE:LINE" "$IMPORT_RC $(cat "$IMPORT_OUT")$(cut -d: -f1,2 "$IMPORT_ERR")" \
	"1 $LOGDIR/bad.netdev:3"
import networkd "$LOGDIR/missing.netdev"
expect_eq "a file that cannot be read: exit 2" "$IMPORT_RC" 2

finish
