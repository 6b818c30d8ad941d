#!/usr/bin/env bash
# ISATAP (RFC 5214), sitd at both ends, radvd on the router's device.
#
#   netns S: bridge br0, joining
#     A  va 192.0.2.1/24      ISATAP host: `mode isatap local 192.0.2.1 prl-default 192.0.2.254`
#     R  vr 192.0.2.254/24    ISATAP router, radvd advertising 2001:db8:5efe::/64,
#        rh 2001:db8:99::1/64 ==== H hr 2001:db8:99::2/64, a native IPv6 host
#
# A solicits the router of its PRL at fe80::5efe:c000:2fe (sitd does it, as isatapd does
# for the kernel's ISATAP device), takes the advertised prefix with its ISATAP interface
# identifier (2001:db8:5efe::5efe:c000:201) and R as its default router, and reaches H.
# The PRL changes on the running daemon (`sitd prl dev NAME ...`).
#
# Outside-in, with no help from the daemon: F, an IPv4 host on the same link
# (192.0.2.66, not in A's PRL), sends A Router Advertisements from its ISATAP link-local
# fe80::5efe:c000:242 (hop limit 255, valid checksum, a prefix 2001:db8:66::/64) straight
# after the IPv6 header, behind Destination Options, behind Hop-by-Hop, and behind both
# (issue 20): none installs a route or an address on A, each counts rx_isatap_ra_host,
# and R's default route stays.  The same packets once 192.0.2.66 is in A's PRL do make F
# a router: what sitd dropped was a host's RA, not a malformed packet.
. "$(dirname "$0")/lib.sh"
require_root ping jq radvd

setup_bridge
join_bridge "$NS_A" va sa 192.0.2.1/24
join_bridge "$NS_R" vr sr 192.0.2.254/24
setup_native_host

start_sitd "$NS_R" isatap-r isatap0 mode isatap local 192.0.2.254 address 2001:db8:5efe::5efe:c000:2fe/64
PID_R=$LAST_PID
cat >"$LOGDIR/radvd.conf" <<'EOF'
interface isatap0 {
	AdvSendAdvert on;
	UnicastOnly on;
	AdvRASolicitedUnicast on;
	prefix 2001:db8:5efe::/64 {
		AdvOnLink on;
		AdvAutonomous on;
	};
};
EOF
ip netns exec "$NS_R" radvd -n -C "$LOGDIR/radvd.conf" -p "$LOGDIR/radvd.pid" -m stderr \
	2>"$LOGDIR/radvd.log" &
sleep 0.5
start_sitd "$NS_A" isatap-a isatap0 mode isatap local 192.0.2.1 prl-default 192.0.2.254
PID_A=$LAST_PID

expect_eq "A's device: the ISATAP link-local only" \
	"$(ip -n "$NS_A" -o -6 addr show dev isatap0 scope link | awk '{ print $4 }')" "fe80::5efe:c000:201/64"
for _ in $(seq 100); do
	ip -n "$NS_A" -6 route show default | grep -q fe80::5efe:c000:2fe && break
	sleep 0.1
done
check "A configured 2001:db8:5efe::5efe:c000:201 from R's advertisement" \
	bash -c "ip -n $NS_A -o -6 addr show dev isatap0 | grep -q 2001:db8:5efe::5efe:c000:201/64"
check "... and R as its default router" \
	bash -c "ip -n $NS_A -6 route show default | grep -q 'via fe80::5efe:c000:2fe dev isatap0'"
check "A reaches H behind R" ip netns exec "$NS_A" ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:99::2
check "H reaches A" ip netns exec "$NS_H" ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:5efe::5efe:c000:201
expect_eq "show -j: isatap and the PRL" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq -c '.[0] | [.isatap, .prl]')" \
	'[true,[{"addr":"192.0.2.254","default":true}]]'
expect_eq "sitd prl dev isatap0 prl-nodefault 192.0.2.9" \
	"$("$SITD" -S "$(sock_of "$PID_A")" prl dev isatap0 prl-nodefault 192.0.2.9)" ok
expect_eq "... show lists both, newest first" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show | grep -o 'prl-[a-z]* [0-9.]*' | paste -sd,)" \
	"prl-nodefault 192.0.2.9,prl-default 192.0.2.254"
check "... the same address twice: refused (EEXIST)" \
	bash -c "'$SITD' -S '$(sock_of "$PID_A")' prl dev isatap0 prl-default 192.0.2.9 | grep -q exists"
expect_eq "prl-delete 192.0.2.9" "$("$SITD" -S "$(sock_of "$PID_A")" prl dev isatap0 prl-delete 192.0.2.9)" ok
check "prl on a tunnel that is not ISATAP: refused" \
	bash -c "'$SITD' -S '$(sock_of "$PID_R")' prl dev nosuch prl-default 192.0.2.9 | grep -q 'no ISATAP tunnel'"

# forge_ra CHAIN...: from F, one RA per chain (plain, dst, hbh, hbh-dst) to A's 192.0.2.1.
NS_F=$TAG-f
join_bridge "$NS_F" fv sf 192.0.2.66/24	# not "vf": a word of ip link add
forge_ra() {
	ip netns exec "$NS_F" /usr/bin/python3 - "$@" <<'EOF'
import socket, struct, sys

def csum(b):
    b += b"\0" * (len(b) % 2)
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF

src4, dst4 = "192.0.2.66", "192.0.2.1"
src6 = bytes([0xFE, 0x80] + [0] * 6 + [0, 0, 0x5E, 0xFE]) + socket.inet_aton(src4)
dst6 = socket.inet_pton(socket.AF_INET6, "ff02::1")
# RFC 4861 4.2: cur hop limit 64, router lifetime 1800 s; 4.6.2: on-link, autonomous.
pio = struct.pack("!BBBBIII", 3, 4, 64, 0xC0, 86400, 14400, 0) + \
    socket.inet_pton(socket.AF_INET6, "2001:db8:66::")
ra = struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, 1800, 0, 0) + pio
pseudo = src6 + dst6 + struct.pack("!I3xB", len(ra), 58)
ra = ra[:2] + struct.pack("!H", csum(pseudo + ra)) + ra[4:]
chains = {"plain": [], "dst": [60], "hbh": [0], "hbh-dst": [0, 60]}
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 41)
s.bind((src4, 0))
for name in sys.argv[1:]:
    hdrs = chains[name]
    nxt = (hdrs + [58])[1:]   # what each extension header says comes next
    # Each extension header 8 bytes: next header, length 0, a PadN option of 4 bytes.
    body = b"".join(struct.pack("!BBBB4x", n, 0, 1, 4) for n in nxt) + ra
    ip6 = struct.pack("!IHBB", 6 << 28, len(body), (hdrs + [58])[0], 255) + src6 + dst6
    s.sendto(ip6 + body, (dst4, 0))
EOF
}
# F learns A's MAC first: each RA then leaves at once, before the checks after it.
ip netns exec "$NS_F" ping -c 1 -W 2 -q 192.0.2.1 >/dev/null
routes_from_f() { ip -n "$NS_A" -6 route show | grep -cE 'fe80::5efe:c000:242|2001:db8:66::'; }

ra0=$(ctr "$PID_A" drop_rx_isatap_ra_host)
for chain in plain dst hbh hbh-dst; do
	forge_ra "$chain"
	sleep 0.3
	expect_eq "a host's RA ($chain): no route through F or to its prefix on A" "$(routes_from_f)" 0
done
expect_eq "... no proto ra default via F" \
	"$(ip -n "$NS_A" -6 route show default proto ra | grep -c 'fe80::5efe:c000:242')" 0
expect_eq "... no address from its prefix" \
	"$(ip -n "$NS_A" -o -6 addr show dev isatap0 | grep -c '2001:db8:66:')" 0
expect_eq "... each counted: rx_isatap_ra_host" "$(( $(ctr "$PID_A" drop_rx_isatap_ra_host) - ra0 ))" 4
check "... R's default route stays" \
	bash -c "ip -n $NS_A -6 route show default proto ra | grep -q 'via fe80::5efe:c000:2fe dev isatap0'"
check "... and A still reaches H" ip netns exec "$NS_A" ping -6 -c 2 -i 0.2 -W 2 -q 2001:db8:99::2

# The control: F in A's PRL, the same packets behind both headers make it a router.
expect_eq "prl-default 192.0.2.66" \
	"$("$SITD" -S "$(sock_of "$PID_A")" prl dev isatap0 prl-default 192.0.2.66)" ok
forge_ra hbh-dst
for _ in $(seq 20); do
	[ "$(routes_from_f)" != 0 ] && break
	sleep 0.1
done
check "the same RA from a PRL router behind both headers: F becomes a default router" \
	bash -c "ip -n $NS_A -6 route show default proto ra | grep -q 'via fe80::5efe:c000:242 dev isatap0'"
kill "$(cat "$LOGDIR/radvd.pid" 2>/dev/null)" 2>/dev/null
finish
