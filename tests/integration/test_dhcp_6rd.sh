#!/usr/bin/env bash
# 6rd from DHCP option 212 (RFC 5969 7.1.1): dnsmasq on R serves it, busybox udhcpc on
# the CE (A) runs contrib/udhcpc-6rd, which starts the 6rd tunnel in a sitd of its own
# (contrib/sitd-6rd-dhcp); the CE pings H, a native host behind R, where a second sitd
# is the BR with the same 6rd prefix; a release removes the tunnel.  Malformed options
# are refused with a clear message.  (ISC dhclient's hook, contrib/dhclient-6rd, uses the
# same helper: test_dhclient_6rd.sh.)
#
#   A (CE, DHCP client) va === ra 192.0.2.254 R (dnsmasq, BR sitd) rh === hr H 2001:db8:99::2
. "$(dirname "$0")/lib.sh"
require_root busybox dnsmasq jq ping

setup_6rd_dhcp
# The lease's address and route, as udhcpc's default script would set them.
cat >"$LOGDIR/chain.sh" <<'SH'
#!/bin/sh
case $1 in
deconfig) ip addr flush dev "$interface"; ip link set "$interface" up ;;
bound|renew) ip addr replace "$ip/$mask" dev "$interface"; ip route replace default via "$router" ;;
esac
SH
chmod +x "$LOGDIR/chain.sh"
export SITD SITD_6RD_DIR=$LOGDIR/6rd SITD_6RD_HELPER=$ROOT/contrib/sitd-6rd-dhcp \
	UDHCPC_CHAIN=$LOGDIR/chain.sh SITD_6RD_NAME=sr6
na busybox udhcpc -f -i va -O 212 -s "$ROOT/contrib/udhcpc-6rd" -p "$LOGDIR/udhcpc.pid" \
	>"$LOGDIR/udhcpc.log" 2>&1 &
for _ in $(seq 100); do [ -S "$SITD_6RD_DIR/sr6.sock" ] && break; sleep 0.1; done
UDHCPC=$(cat "$LOGDIR/udhcpc.pid")	# udhcpc's own (na runs it in a subshell)
check "udhcpc bound 192.0.2.100" bash -c "ip -n $NS_A -4 addr show va | grep -q 192.0.2.100/24"
check_6rd_ce "$SITD_6RD_DIR/sr6.sock"
check "udhcpc's ip6rd, as the hook got it" grep -q 'sr6: started' "$LOGDIR/udhcpc.log"

# A renew with the same values changes nothing.
kill -USR1 $UDHCPC
for _ in $(seq 30); do grep -q 'sr6: unchanged' "$LOGDIR/udhcpc.log" && break; sleep 0.1; done
check "renew with the same option: unchanged" grep -q 'sr6: unchanged' "$LOGDIR/udhcpc.log"

# Release (SIGUSR2: udhcpc releases and deconfigures): the tunnel goes.
kill -USR2 $UDHCPC
wait_6rd_released
check "release: the tunnel's device is gone" bash -c "! ip -n $NS_A link show sr6 2>/dev/null"
check "... and its sitd stopped" bash -c "! test -e $SITD_6RD_DIR/sr6.pid"
kill $UDHCPC
kill "$(cat "$LOGDIR/dnsmasq.pid")" 2>/dev/null

# Malformed options: a clear message, exit 2, nothing started.
h=$ROOT/contrib/sitd-6rd-dhcp
for bad in "24 36 2001:db8:6000::" "40 36 2001:db8:6000:: 192.0.2.254" \
	"0 36 2001:db8:6000:: 192.0.2.254" "24 36 2001:db8:6000::1 192.0.2.254" \
	"24 36 nonsense 192.0.2.254"; do
	out=$("$h" up sr6 192.0.2.100 "$bad" 2>&1)
	rc=$?
	check "option \"$bad\" refused (exit $rc): $out" bash -c "[ $rc = 2 ] && grep -q 'option 212' <<<'$out'"
done
check "... and no tunnel made" bash -c "! ip -n $NS_A link show sr6 2>/dev/null"
finish
