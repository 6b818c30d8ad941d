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
kill "$(cat "$LOGDIR/radvd.pid" 2>/dev/null)" 2>/dev/null
finish
