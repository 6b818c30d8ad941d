#!/usr/bin/env bash
# 6rd from DHCP option 212 with ISC dhclient (contrib/dhclient-6rd): the setup of
# test_dhcp_6rd.sh (dnsmasq on R serving option 212, a second sitd on R as the BR, H
# behind it), with dhclient on the CE (A) instead of udhcpc.  Everything dhclient reads
# and writes is in $LOGDIR (-cf, -lf, -pf, -sf), never /etc or /var/lib/dhcp; its
# script is a small stand-in for Debian's dhclient-script (which sources its hooks from
# /etc/dhcp only) that sets the lease and then sources the hook, as that one does.
#
#   A (CE, dhclient) va === ra 192.0.2.254 R (dnsmasq, BR sitd) rh === hr H 2001:db8:99::2
. "$(dirname "$0")/lib.sh"
require_root dhclient dnsmasq jq ping

setup_6rd_dhcp

# The definition and request contrib/dhclient-6rd and contrib/README.md give.
cat >"$LOGDIR/dhclient.conf" <<'CONF'
option option-6rd code 212 = { integer 8, integer 8, ip6-address, array of ip-address };
request subnet-mask, routers;
also request option-6rd;
CONF
# The lease's address and route as dhclient-script sets them, then the exit hook,
# sourced as dhclient-script's exit_with_hooks does.  It logs what the hook gets.
cat >"$LOGDIR/script.sh" <<SH
#!/bin/sh
echo "reason=\$reason ip=\$new_ip_address option_6rd=\$new_option_6rd" >>"$LOGDIR/script.log"
case \$reason in
PREINIT) ip link set dev "\$interface" up ;;
BOUND|RENEW|REBIND|REBOOT)
	ip -4 addr replace "\$new_ip_address/\$new_subnet_mask" dev "\$interface"
	for r in \$new_routers; do ip -4 route replace default via "\$r" dev "\$interface"; done ;;
EXPIRE|FAIL|RELEASE|STOP)
	[ -n "\$old_ip_address" ] && ip -4 addr flush dev "\$interface" ;;
esac
. "$ROOT/contrib/dhclient-6rd" >>"$LOGDIR/script.log" 2>&1
exit 0
SH
chmod +x "$LOGDIR/script.sh"
# dhclient gives its script only its own variables, PATH and the -e ones.
DHCLIENT=(dhclient -4 -v -cf "$LOGDIR/dhclient.conf" -lf "$LOGDIR/dhclient.leases"
	-pf "$LOGDIR/dhclient.pid" -sf "$LOGDIR/script.sh"
	-e "SITD=$SITD" -e "SITD_6RD_DIR=$LOGDIR/6rd"
	-e "SITD_6RD_HELPER=$ROOT/contrib/sitd-6rd-dhcp" -e SITD_6RD_NAME=sr6)
stop_dhclient() {
	local pid
	pid=$(cat "$LOGDIR/dhclient.pid" 2>/dev/null) && kill "$pid" 2>/dev/null
	[ -n "${DHC_BG:-}" ] && kill "$DHC_BG" 2>/dev/null
}
trap 'rc=$?; stop_dhclient; (exit $rc); on_exit' EXIT	# $? kept for on_exit
na "${DHCLIENT[@]}" -d va >"$LOGDIR/dhclient.log" 2>&1 &
DHC_BG=$!
for _ in $(seq 150); do [ -S "$LOGDIR/6rd/sr6.sock" ] && break; sleep 0.1; done
check "dhclient bound 192.0.2.100" bash -c "ip -n $NS_A -4 addr show va | grep -q 192.0.2.100/24"
check "the hook got option 212 as \$new_option_6rd" \
	grep -q 'reason=BOUND ip=192.0.2.100 option_6rd=24 36 2001:db8:6000:: 192.0.2.254$' "$LOGDIR/script.log"
check_6rd_ce "$LOGDIR/6rd/sr6.sock"
check "the helper started it" grep -q 'sr6: started' "$LOGDIR/script.log"

# Release: dhclient -r (same files) stops the running one and releases its lease.
na "${DHCLIENT[@]}" -r va >>"$LOGDIR/dhclient.log" 2>&1
wait_6rd_released
check "release ran the hook" grep -q '^reason=RELEASE' "$LOGDIR/script.log"
check "release: the tunnel's device is gone" bash -c "! ip -n $NS_A link show sr6 2>/dev/null"
check "... and its sitd stopped" bash -c "! test -e $LOGDIR/6rd/sr6.pid"
check "... and the lease's address" bash -c "! ip -n $NS_A -4 addr show va | grep -q 192.0.2.100"
stop_dhclient
kill "$(cat "$LOGDIR/dnsmasq.pid")" 2>/dev/null

# dhclient's PATH has no /usr/local/sbin, where `make install` puts sitd: the hook adds
# it for the helper (a stub here, printing its PATH), and leaves the script's own alone.
printf '#!/bin/sh\necho "helper $1 PATH=$PATH"\n' >"$LOGDIR/stub.sh" && chmod +x "$LOGDIR/stub.sh"
out=$(env -i PATH=/usr/sbin:/sbin:/bin:/usr/sbin:/usr/bin reason=BOUND new_ip_address=192.0.2.100 \
	new_option_6rd='24 36 2001:db8:6000:: 192.0.2.254' SITD_6RD_HELPER="$LOGDIR/stub.sh" \
	sh -c '. "$1"; echo "script PATH=$PATH"' sh "$ROOT/contrib/dhclient-6rd")
expect_eq "the helper finds an installed sitd; the script's PATH unchanged" "$out" \
	"helper up PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/bin:/usr/sbin:/usr/bin
script PATH=/usr/sbin:/sbin:/bin:/usr/sbin:/usr/bin"
finish
