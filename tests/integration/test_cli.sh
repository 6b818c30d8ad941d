#!/usr/bin/env bash
# Bad command lines, missing privileges and a missing /dev/net/tun: one clear line on
# stderr that names the problem, a non-zero exit, and no device left behind.  Each run
# happens inside a namespace of the test's own.
. "$(dirname "$0")/lib.sh"
require_root setpriv unshare

setup_pair

# refuses DESC PATTERN ARGS...: sitd exits non-zero and its first stderr line matches.
refuses() {
	local desc=$1 pat=$2 err rc
	shift 2
	err=$(ip netns exec "$NS_A" timeout 10 "$SITD" -S "$LOGDIR/refused.sock" "$@" 2>&1 >/dev/null)
	rc=$?
	# The first line, past the warnings of a machine without a sitd user and of the
	# sanitizer build.
	err=$(grep -v -e '^sitd: no user "sitd"' -e '^sitd: built with sanitizers' <<<"$err")
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && head -n 1 <<<"$err" | grep -q -- "$pat"; then
		ok "$desc: $(head -n 1 <<<"$err")"
	else
		not_ok "$desc: exit $rc, stderr: $err"
	fi
}

refuses "unknown mode" '"gre"' t0 mode gre remote $B4
refuses "prefix of a keyword" '"rem"' t0 mode sit rem $B4
refuses "missing value" '"remote" needs a value' t0 mode sit remote
refuses "bad address" '"192.0.2.300"' t0 mode sit remote 192.0.2.300
refuses "remote any for ipip" 'remote any' t0 mode ipip remote any
refuses "ttl out of range" '"256"' t0 mode sit remote $B4 ttl 256
refuses "tos out of range" '"0x100"' t0 mode sit remote $B4 tos 0x100
refuses "ttl with nopmtudisc" 'ttl != 0 and nopmtudisc are incompatible' t0 mode sit remote $B4 ttl 64 nopmtudisc
refuses "mtu below the sit minimum" '1279' t0 mode sit remote $B4 mtu 1279
refuses "name too long" '"abcdefghijklmnop"' abcdefghijklmnop mode sit remote $B4
refuses "missing remote" 'missing "remote ADDR"' t0 mode sit
refuses "no mode and a name that does not say" 'cannot determine tunnel mode' t0 remote $B4
refuses "unknown underlay device" 'cannot find device "nosuch0"' t0 mode sit remote $B4 dev nosuch0
# An IPv6 underlay (ip -6 tunnel's words): refused before anything is created, so no
# IPv6 data path is needed.  Documentation addresses (RFC 3849) only.
R6=2001:db8::2
refuses "ip6ip6 with an IPv4 remote" "\"$B4\": mode ip6ip6 takes IPv6 addresses" t0 mode ip6ip6 remote $B4
refuses "ipip6 with an IPv4 local" 'both ends are of one family' t0 mode ipip6 remote $R6 local $B4
refuses "an IPv6 word on sit" '"encaplimit" is for an IPv6 underlay' t0 mode sit remote $B4 encaplimit 4
refuses "a sit word on ip6ip6" '"nopmtudisc" is for an IPv4 underlay' t0 mode ip6ip6 remote $R6 nopmtudisc
refuses "remote any over IPv6 without local" '"remote any" over an IPv6 underlay needs "local ADDR"' t0 mode ip6ip6 remote any
refuses "GUE remote checksum over IPv6" '"encap-remcsum" is not supported' t0 mode ipip6 remote $R6 encap gue encap-dport 5555 encap-remcsum
refuses "keepalive with remote any over IPv6" '"keepalive" needs a fixed remote' t0 mode ip6ip6 remote any local 2001:db8::1 keepalive 5 keepalive-peer 2001:db8:1::1
refuses "encaplimit out of range" '"encaplimit" value "256"' t0 mode ip6ip6 remote $R6 encaplimit 256
refuses "flowlabel over 20 bits" '"flowlabel" value "0x100000"' t0 mode ip6ip6 remote $R6 flowlabel 0x100000
refuses "dscp other than inherit" '"dscp" value "10"' t0 mode ipip6 remote $R6 dscp 10
refuses "mtu below the ip6ip6 minimum" 'mode ip6ip6 takes 1280..65527' t0 mode ip6ip6 remote $R6 mtu 1279
refuses "a link-local remote without dev" 'needs "dev IFACE"' t0 mode ip6ip6 remote fe80::1
refuses "a loopback remote" '"::1": expected a unicast IPv6 address' t0 mode ip6ip6 remote ::1
err=$(ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/refused.sock" t0 mode ip6ip6 remote $R6 tclass inherit/20 2>&1)
expect_eq "a bad IPv6 line: exit 2, one line naming the word" \
	"$? $(grep -v -e '^sitd: no user' -e '^sitd: built with' <<<"$err" | grep -c '"inherit/20"')" "2 1"
check "help exits 0" ip netns exec "$NS_A" "$SITD" help

# Without CAP_NET_ADMIN (an unprivileged user, no capabilities), with a /dev/net/tun it
# may open (Debian's mode 0666; a node of our own in a private mount namespace, since
# this machine's is 0600): the kernel refuses TUNSETIFF.
printf '#!/bin/sh\nmount -t tmpfs none /dev/net && mknod -m 666 /dev/net/tun c 10 200 && exec "$@"\n' \
	>"$LOGDIR/tun666.sh"
chmod 755 "$LOGDIR/tun666.sh" "$LOGDIR"
unpriv=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
# Its control socket where that user may create one: the device is what fails.
mkdir -m 1777 "$LOGDIR/u"
err=$(ip netns exec "$NS_A" unshare -m --propagation private "$LOGDIR/tun666.sh" "${unpriv[@]}" \
	"$SITD" -S "$LOGDIR/u/t1.sock" t1 mode sit remote $B4 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q 'needs CAP_NET_ADMIN' <<<"$err"; then
	ok "unprivileged: $err"
else
	not_ok "unprivileged: exit $rc, stderr: $err"
fi
# With a /dev/net/tun it may not open: that, said as such.
err=$(ip netns exec "$NS_A" unshare -m --propagation private sh -c \
	"mount -t tmpfs none /dev/net && mknod -m 600 /dev/net/tun c 10 200 && exec \"\$@\"" sh \
	"${unpriv[@]}" "$SITD" -S "$LOGDIR/u/t1.sock" t1 mode sit remote $B4 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q 'cannot open /dev/net/tun for "t1" as uid 65534' <<<"$err"; then
	ok "unprivileged, /dev/net/tun 0600: $err"
else
	not_ok "unprivileged, /dev/net/tun 0600: exit $rc, stderr: $err"
fi

# Unprivileged with the default control socket: /run/sitd is root's, and the error says
# what sitd needs.
err=$(ip netns exec "$NS_A" "${unpriv[@]}" "$SITD" t1 mode sit remote $B4 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q 'cannot open the control socket /run/sitd/ns-[0-9]*/t1.sock (sitd runs as root' <<<"$err"; then
	ok "unprivileged, default control socket: $err"
else
	not_ok "unprivileged, default control socket: exit $rc, stderr: $err"
fi

# Without /dev/net/tun (a private mount namespace hides it).
err=$(ip netns exec "$NS_A" unshare -m sh -c "mount -t tmpfs none /dev/net && exec $SITD -S $LOGDIR/t2.sock t2 mode sit remote $B4" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q '/dev/net/tun' <<<"$err"; then
	ok "no /dev/net/tun: $err"
else
	not_ok "no /dev/net/tun: exit $rc, stderr: $err"
fi
check "no device was left behind" bash -c "! ip -n $NS_A link show | grep -qE ' t[012]:'"

# --version and -V: the package's version (debian/changelog), exit 0; --help, -h: usage.
want="sitd $(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$ROOT/debian/changelog")"
expect_eq "--version" "$("$SITD" --version)" "$want"
expect_eq "-V" "$("$SITD" -V)" "$want"
check "--help prints the usage and exits 0" sh -c "'$SITD' --help | grep -q '^Usage: sitd'"
check "-h too" sh -c "'$SITD' -h | grep -q '^Usage: sitd'"
err=$("$SITD" --frobnicate 2>&1)
rc=$?
expect_eq "an unknown option: exit 2, named" "$rc $(grep -c -- '--frobnicate' <<<"$err")" "2 1"
err=$("$SITD" -w 0 sit1 remote $B4 2>&1)
expect_eq "-w 0 refused" "$? $(grep -c 'workers from 1' <<<"$err")" "2 1"
finish
