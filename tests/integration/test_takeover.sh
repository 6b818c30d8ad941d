#!/usr/bin/env bash
# A TUN device of the tunnel's name that sitd did not make (issue 20): one another user
# or group may attach to is not taken over without `takeover`, nor one made otherwise.
#
#  - made by `ip tuntap add ... user 65534`: sitd refuses it with one line naming the
#    device and its owner and exits; the device is as it was (owner 65534, ifindex, no
#    vnet headers, no address), and uid 65534 can still attach to it;
#  - group 65534, and no owner but no vnet headers: refused, each saying why; no owner
#    and vnet headers, as sitd made them before it set one: taken over, owner root now;
#  - with `takeover` in the stanza: sitd runs, the device has no owner or group any more
#    (it was made anew: owner root, no group), ping goes through;
#  - that sitd stopped (SIGTERM: the device stays): uid 65534 cannot attach (EPERM); and
#    started again without `takeover`: the device is sitd's now and taken over as any
#    restart does.
# uid 65534's attempts run in a private mount namespace with a /dev/net/tun of mode 0666
# bound over the real one, so they test the device's owner, not the node's mode.
# Topology: lib.sh.
. "$(dirname "$0")/lib.sh"
require_root ping jq setpriv unshare /usr/bin/python3

# A's sitd without waiting for "running": it may refuse and exit.
run_a() {	# run_a LOGNAME ARGS...
	local log=$LOGDIR/$1.log
	shift
	: >"$log"
	ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/refused.sock" "$@" 2>>"$log" &
	LAST_PID=$!
	SITD_PIDS+=("$LAST_PID")
	SITD_LOG[$LAST_PID]=$log
}

# ends PID: wait up to 10 s for it to exit; rc its status, or "running".
ends() {
	rc=running
	for _ in $(seq 100); do
		if ! alive "$1"; then
			wait "$1" 2>/dev/null
			rc=$?
			return
		fi
		sleep 0.1
	done
}

tun_attr() { na cat "/sys/class/net/$TUN/$1"; }	# ip netns exec mounts A's own /sys
ifindex_a() { ip -n "$NS_A" -o link show "$TUN" | cut -d: -f1; }

# attach_as_65534: can uid 65534 attach to A's device now?  "attached", or the errno's name.
mkdir -p "$LOGDIR/dev"
attach_as_65534() {
	local py='
import errno, fcntl, os, struct, sys
try:
    fd = os.open("/dev/net/tun", os.O_RDWR)
    # TUNSETIFF, IFF_TUN | IFF_NO_PI: attach to the device of that name
    fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH22x", sys.argv[1].encode(), 0x0001 | 0x1000))
    print("attached")
except OSError as e:
    print(errno.errorcode[e.errno])
'
	na unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=0755 none "$1" && mknod -m 0666 "$1/tun" c 10 200 &&
		mount --bind "$1/tun" /dev/net/tun &&
		exec setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -c "$2" "$3"
	' sh "$LOGDIR/dev" "$py" "$TUN"
}

setup_pair

# Another's device: refused, untouched.
ip -n "$NS_A" tuntap add dev "$TUN" mode tun user 65534 || die "cannot make a TUN device"
ifa=$(ifindex_a)
run_a refused-owner "$TUN" mode sit remote $B4 local $A4 address $A6/64
pid=$LAST_PID
ends "$pid"
check "a device of owner 65534: sitd refuses it and exits with a failure (status $rc)" \
	bash -c "[ '$rc' != running ] && [ '$rc' != 0 ]"
check "... one line naming the device and its owner" \
	grep -q "monitor: TUN device \"$TUN\" of owner 65534, group none not taken over: its owner or group may attach to it" \
	"$(log_of "$pid")"
expect_eq "... the device untouched: owner" "$(tun_attr owner)" 65534
expect_eq "... group" "$(tun_attr group)" -1
expect_eq "... ifindex" "$(ifindex_a)" "$ifa"
check "... no vnet headers, still persistent" \
	bash -c "ip -n $NS_A -d link show $TUN | grep -q 'vnet_hdr off persist on user'"
expect_eq "... no address given to it" \
	"$(ip -n "$NS_A" -o addr show dev "$TUN" | wc -l)" 0
expect_eq "... and uid 65534 can still attach to it (the check below is real)" "$(attach_as_65534)" attached

# A group that may attach; no owner but not made as sitd makes them.
ip -n "$NS_A" link del "$TUN"
ip -n "$NS_A" tuntap add dev "$TUN" mode tun group 65534
run_a refused-group "$TUN" mode sit remote $B4 local $A4
pid=$LAST_PID
ends "$pid"
check "a device of group 65534: refused (status $rc)" \
	grep -q "monitor: TUN device \"$TUN\" of owner none, group 65534 not taken over" "$(log_of "$pid")"
expect_eq "... its group kept" "$(tun_attr group)" 65534
ip -n "$NS_A" link del "$TUN"
ip -n "$NS_A" tuntap add dev "$TUN" mode tun
run_a refused-made "$TUN" mode sit remote $B4 local $A4
pid=$LAST_PID
ends "$pid"
check "no owner, but no vnet headers (ip tuntap's default): refused (status $rc)" \
	grep -q "monitor: TUN device \"$TUN\" of owner none, group none not taken over: not made as sitd makes them" \
	"$(log_of "$pid")"
check "... still without vnet headers" bash -c "ip -n $NS_A -d link show $TUN | grep -q 'vnet_hdr off'"

# As sitd made them before it set an owner (none, vnet headers): taken over, now root's.
ip -n "$NS_A" link del "$TUN"
ip -n "$NS_A" tuntap add dev "$TUN" mode tun vnet_hdr
ifa=$(ifindex_a)
start_sitd "$NS_A" upgrade-a "$TUN" mode sit remote $B4 local $A4
check "no owner, vnet headers (an older sitd's): taken over as before" \
	grep -q 'device taken over' "$(log_of "$LAST_PID")"
expect_eq "... same ifindex" "$(ifindex_a)" "$ifa"
expect_eq "... owner now root" "$(tun_attr owner)" 0
kill -TERM "$LAST_PID"
ends "$LAST_PID"

# takeover, from the stanza: made anew, owner and group gone.
ip -n "$NS_A" link del "$TUN"
ip -n "$NS_A" tuntap add dev "$TUN" mode tun user 65534 group 65534
conf=$LOGDIR/a.conf
printf 'tunnel %s mode sit remote %s local %s\n\ttakeover\n' "$TUN" $B4 $A4 >"$conf"
start_sitd "$NS_A" takeover-a -c "$conf"
PID_A=$LAST_PID
start_sitd "$NS_B" takeover-b "$TUN" mode sit remote $A4 local $B4
PID_B=$LAST_PID
tun_up "$NS_A" "$TUN" $A6
tun_up "$NS_B" "$TUN" $B6
check "takeover: sitd runs, saying it made the device anew" \
	grep -q "monitor: TUN device \"$TUN\" of owner 65534, group 65534 taken over and made anew" "$(log_of "$PID_A")"
expect_eq "... owner now root, who alone may attach" "$(tun_attr owner)" 0
expect_eq "... group now none" "$(tun_attr group)" -1
check "... ping through" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
expect_eq "... show -j says takeover" \
	"$("$SITD" -S "$(sock_of "$PID_A")" show -j | jq -c '.[0].takeover')" true
check "... and show's line ends in it" \
	bash -c "'$SITD' -S '$(sock_of "$PID_A")' show | grep -q ' takeover$'"
expect_eq "B's line has no takeover key" \
	"$("$SITD" -S "$(sock_of "$PID_B")" show -j | jq -c '.[0] | has("takeover")')" false

# Stopped and started again without takeover: the device is sitd's now.
ifa=$(ifindex_a)
kill -TERM "$PID_A"
ends "$PID_A"
expect_eq "SIGTERM: sitd ends" "$rc" 0
# While sitd held it the kernel said EBUSY first; now only the owner check is left.
expect_eq "... the device stays, and uid 65534 cannot attach to it (tun_not_capable)" \
	"$(attach_as_65534)" EPERM
start_sitd "$NS_A" restart-a "$TUN" mode sit remote $B4 local $A4
PID_A=$LAST_PID
check "started again without takeover: the device taken over as any restart" \
	grep -q 'device taken over' "$(log_of "$PID_A")"
expect_eq "... same ifindex" "$(ifindex_a)" "$ifa"
check "... ping through" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
finish
