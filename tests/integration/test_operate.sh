#!/usr/bin/env bash
# Operating sitd: many tunnels from one configuration file in one process, a reload that
# adds one and removes one while a transfer runs on one that stays, `sitd show -s -j`
# checked against traffic sent, a read-only user who can show but not reload, a bad
# configuration refused whole, and least privilege (capabilities, no_new_privs, seccomp,
# an unprivileged user).  Topology: lib.sh's pair; three tunnels between A and B:
#
#   sit1  sit   2001:db8:1::/64                 (stays through the reload)
#   ip1   ipip  198.51.100.0/24                 (removed by the reload)
#   sit2  sit   2001:db8:2::/64  encap fou      (added by the reload)
. "$(dirname "$0")/lib.sh"
require_root ping socat sha256sum jq setpriv
make_data 200
chmod 755 "$LOGDIR"	# the unprivileged user reads its configuration here

# conf SIDE TUNNELS...: write SIDE's configuration with the named tunnels.
conf() {
	local side=$1 me peer
	shift
	if [ "$side" = a ]; then me=$A4 peer=$B4; else me=$B4 peer=$A4; fi
	: >"$LOGDIR/$side.conf"
	for t in "$@"; do
		case $t in
		sit1) printf 'tunnel sit1\n\tmode sit remote %s local %s\n' $peer $me ;;
		ip1) printf '# IPv4 inside\ntunnel ip1 mode ipip remote %s local %s ttl 64\n' $peer $me ;;
		sit2) printf 'tunnel sit2 mode sit remote %s local %s\n\tencap fou encap-dport 5555\n' $peer $me ;;
		esac >>"$LOGDIR/$side.conf"
	done
	chmod 644 "$LOGDIR/$side.conf"
}

setup_pair
conf a sit1 ip1
conf b sit1 ip1
# Readiness as systemd's Type=notify reads it: a datagram to $NOTIFY_SOCKET.
ip netns exec "$NS_A" socat -u "UNIX-RECV:$LOGDIR/notify" "OPEN:$LOGDIR/notify.out,creat" &
for _ in $(seq 50); do [ -S "$LOGDIR/notify" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$LOGDIR/notify start_sitd "$NS_A" sitd-a -G 4242 -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
for _ in $(seq 50); do [ -s "$LOGDIR/notify.out" ] && break; sleep 0.1; done
expect_eq "systemd readiness: READY=1 sent" "$(cat "$LOGDIR/notify.out")" READY=1
check "... once both devices exist" bash -c "ip -n $NS_A link show sit1 >/dev/null && ip -n $NS_A link show ip1 >/dev/null"
start_sitd "$NS_B" sitd-b -c "$LOGDIR/b.conf"
PID_B=$LAST_PID
SOCK_A=$LOGDIR/sitd-a.sock
tun_up "$NS_A" sit1 $A6
tun_up "$NS_B" sit1 $B6
tun_up "$NS_A" ip1 2001:db8:9::1 $A4IN
tun_up "$NS_B" ip1 2001:db8:9::2 $B4IN
check "two tunnels in one process: sit1 carries IPv6" na ping -6 -c 3 -i 0.2 -W 2 -q $B6
check "... and ip1 carries IPv4" na ping -4 -c 3 -i 0.2 -W 2 -q $B4IN

# show -s -j against what was sent: 3 + 3 pings at least, and their replies.
json=$(na "$SITD" -S "$SOCK_A" show -s -j)
echo "$json" | jq -c '.[] | {ifname, mode, remote, local, ttl, mtu}'
expect_eq "show -j lists both tunnels" "$(jq -r '[.[].ifname] | sort | join(",")' <<<"$json")" "ip1,sit1"
expect_eq "show -j: ip1's settings" "$(jq -c '.[] | select(.ifname == "ip1") | [.mode, .remote, .local, .ttl, .pmtudisc]' <<<"$json")" \
	'["ip/ip","192.0.2.2","192.0.2.1",64,true]'
expect_ge "show -s -j: sit1 sent what ping sent" "$(jq '.[] | select(.ifname == "sit1") | .stats.tx_packets' <<<"$json")" 3
expect_ge "show -s -j: ip1 received the replies" "$(jq '.[] | select(.ifname == "ip1") | .stats.rx_packets' <<<"$json")" 3
expect_eq "show -s -j: every drop reason is a key, in both tunnels" \
	"$(jq '[.[].stats.drops | keys | length] | unique | .[]' <<<"$json")" \
	"$(sed -n '/define SITD_DROP_REASONS/,/^$/p' "$ROOT/src/core/stats.h" | grep -c '^	X(')"
out=$(na "$SITD" -S "$SOCK_A" show sit1)
check "show NAME in ip tunnel style: $out" grep -q '^sit1: ipv6/ip remote 192.0.2.2 local 192.0.2.1 ttl inherit mtu 1480' <<<"$out"

# A user in the control group may show, not reload; one outside it may not even connect.
ro() { ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 "$@"; }
check "a member of the control group can show" \
	bash -c "ip netns exec $NS_A setpriv --reuid=65534 --regid=65534 --groups 4242 $SITD -S $SOCK_A show | grep -q '^sit1:'"
out=$(ro --groups 4242 "$SITD" -S "$SOCK_A" reload 2>&1)
check "... but not reload: $out" grep -q 'reload needs root' <<<"$out"
out=$(ro --clear-groups "$SITD" -S "$SOCK_A" show 2>&1)
check "a user outside the group cannot connect: $out" grep -q 'Permission denied' <<<"$out"

# Reload while a transfer runs on sit1: ip1 goes, sit2 comes, sit1 is not touched.
idx=$(na cat /sys/class/net/sit1/ifindex)
transfer_bg $B6
conf a sit1 sit2
conf b sit1 sit2
out=$(na "$SITD" -S "$SOCK_A" reload 2>&1)
expect_eq "root may reload" "$out" ok
kill -HUP "$PID_B"
for _ in $(seq 50); do nb ip link show sit2 >/dev/null 2>&1 && break; sleep 0.1; done
tun_up "$NS_A" sit2 2001:db8:2::1
tun_up "$NS_B" sit2 2001:db8:2::2
wait "$BG"
check "the transfer on sit1 went on through the reload: sha256 equal" test "$(cat "$LOGDIR/bg.out")" = ""
expect_eq "sit1 was left alone (same device)" "$(na cat /sys/class/net/sit1/ifindex)" "$idx"
check "ip1 is gone" bash -c "! ip -n $NS_A link show ip1 >/dev/null 2>&1"
check "sit2 (fou) carries traffic" na ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:2::2
expect_eq "show lists sit1 and sit2" "$(na "$SITD" -S "$SOCK_A" show -j | jq -r '[.[].ifname] | sort | join(",")')" "sit1,sit2"

# A bad configuration is refused whole, with file, line and keyword, and changes nothing.
printf 'tunnel sit1 mode sit remote %s\ntunnel sit3 mode sit\n\tremote %s ttl 300\n' $B4 $B4 >"$LOGDIR/a.conf"
out=$(na "$SITD" -S "$SOCK_A" reload 2>&1)
check "bad reload refused, naming file:line and keyword: $out" grep -q "a.conf:3: invalid \"ttl\" value \"300\"" <<<"$out"
expect_eq "... and nothing changed" "$(na "$SITD" -S "$SOCK_A" show -j | jq -r '[.[].ifname] | sort | join(",")')" "sit1,sit2"
out=$(ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/never.sock" -c "$LOGDIR/a.conf" 2>&1)
check "a bad file at start: no tunnel starts, clear error: $out" grep -q "a.conf:3: invalid \"ttl\"" <<<"$out"
check "... and sit3 was never created" bash -c "! ip -n $NS_A link show sit3 >/dev/null 2>&1"

# Least privilege of the running daemon: two processes (src/priv/privsep.h).
pp=$(packet_pid "$PID_A")
check "two processes: the monitor ($PID_A) and the packet process ($pp)" test -n "$pp"
st=/proc/$pp/status
if id -u sitd >/dev/null 2>&1; then
	want_uid=$(id -u sitd)
	expect_eq "the packet process runs as the sitd user" "$(awk '/^Uid/ { print $2 }' $st)" "$want_uid"
else
	# As systemd's DynamicUser=: a uid and gid of no user, group or other process.
	want_uid=$(awk '/^Uid/ { print $2 }' $st)
	check "no user sitd: the packet process runs as an unused uid in 61184..65519 ($want_uid)" \
		test "$want_uid" -ge 61184 -a "$want_uid" -le 65519
	expect_eq "... its gid the same number" "$(awk '/^Gid/ { print $2 }' $st)" "$want_uid"
	check "... of no user" bash -c "! getent passwd $want_uid >/dev/null"
	check "... and no other process" bash -c "! grep -l '^Uid:.*\\b$want_uid\\b' /proc/[0-9]*/status 2>/dev/null | grep -v '^/proc/$pp/'"
	check "... logged" grep -q "the packet process runs as uid and gid $want_uid" "$(log_of "$PID_A")"
fi
check "the packet process does not run as nobody (65534)" test "$want_uid" != 65534
expect_eq "... with no capability effective" "$(awk '/^CapEff/ { print $2 }' $st)" 0000000000000000
expect_eq "... permitted" "$(awk '/^CapPrm/ { print $2 }' $st)" 0000000000000000
expect_eq "... or in the bounding set" "$(awk '/^CapBnd/ { print $2 }' $st)" 0000000000000000
expect_eq "... no_new_privs set" "$(awk '/^NoNewPrivs/ { print $2 }' $st)" 1
expect_eq "status answers from the packet process, and its uid" \
	"$(na "$SITD" -S "$SOCK_A" status -j | jq -c '[.pid, .uid]')" "[$pp,$want_uid]"
mst=/proc/$PID_A/status
expect_eq "the monitor: uid 0" "$(awk '/^Uid/ { print $2 }' $mst)" 0
# CAP_KILL (5) forwards signals to the other uid; NET_BIND_SERVICE (10), NET_ADMIN (12),
# NET_RAW (13) open devices and sockets.
expect_eq "... with CAP_KILL, NET_BIND_SERVICE, NET_ADMIN and NET_RAW only" "$(awk '/^CapEff/ { print $2 }' $mst)" 0000000000003420
expect_eq "... in the bounding set too" "$(awk '/^CapBnd/ { print $2 }' $mst)" 0000000000003420
expect_eq "... no_new_privs set" "$(awk '/^NoNewPrivs/ { print $2 }' $mst)" 1
out=$(na "$SITD" -S "$SOCK_A" sandbox)
echo "$out" | sed 's/^/# /'
check "sandbox: the packet process reports its uid and no capabilities" \
	grep -q "^packet process: pid $pp, uid $want_uid, capabilities 0000000000000000" <<<"$out"
for what in "a raw socket" "become root again"; do
	# Refused by the kernel (no capability, no root) whatever the build.
	check "sandbox: $what: refused" grep -q "^  $what.* refused (Operation not permitted)" <<<"$out"
done
check "sandbox: the monitor refuses a TUN device for a name not in the file" grep -q '^  monitor: a TUN device no tunnel is named.* refused (Operation not permitted)' <<<"$out"
check "... and creates none" bash -c "! ip -n $NS_A link show sitdprobe0 >/dev/null 2>&1"
check "sandbox: the monitor refuses a route its stanza does not list, on sitd's own device" \
	grep -q '^  monitor: a default route into the tunnel.* refused (Operation not permitted)' <<<"$out"
check "... and adds none" bash -c "! ip -n $NS_A -6 route show default | grep -q dev"
check "sandbox: the monitor refuses another device's MTU" grep -q '^  monitor: the MTU of lo.* refused (Operation not permitted)' <<<"$out"
check "sandbox: ... an address on lo" grep -q '^  monitor: an address on ifindex 1.* refused (Operation not permitted)' <<<"$out"
check "sandbox: ... a malformed request" grep -q '^  monitor: a malformed request.* refused (Invalid argument)' <<<"$out"
check "... and logs it" grep -q 'monitor: a malformed request refused (wrong size)' "$(log_of "$PID_A")"
# Sockets the configuration does not ask for (src/priv/monitor.c, grant).
check "sandbox: the monitor refuses an AF_PACKET socket without -T packet" \
	grep -q '^  monitor: an AF_PACKET socket.* refused (Operation not permitted)' <<<"$out"
check "... and says why" grep -q 'monitor: packet-tx-open refused: sitd runs without -T packet' "$(log_of "$PID_A")"
check "sandbox: ... a UDP socket on port 53, no stanza's encap-dport" \
	grep -q '^  monitor: a UDP socket on port 53.* refused (Operation not permitted)' <<<"$out"
check "... which stays free" bash -c "! ip netns exec $NS_A ss -Hlun | grep -q ':53 '"
check "sandbox: ... an ICMPv6 socket with no ISATAP stanza" \
	grep -q '^  monitor: an ICMPv6 socket.* refused (Operation not permitted)' <<<"$out"
check "... on sitd's own device, which is not ISATAP" \
	grep -q 'monitor: icmp6-dev-open refused: not an ISATAP device sitd opened' "$(log_of "$PID_A")"
check "sandbox: ... raw send sockets past the cap" \
	grep -q '^  monitor: raw send sockets past the cap.* refused (Operation not permitted, after [0-9]' <<<"$out"
check "... logged once" test "$(grep -c 'raw-send-open refused: .* granted, as many as the configuration needs' "$(log_of "$PID_A")")" = 1
check "sandbox is for root only" bash -c "ip netns exec $NS_A setpriv --reuid=65534 --regid=65534 --groups 4242 $SITD -S $SOCK_A sandbox 2>&1 | grep -q 'sandbox needs root'"
# Outside in: its sockets (/proc/PID/fd) against the kernel's tables.
socks=$(find /proc/$pp/fd -lname 'socket:*' -printf '%l\n' | tr -dc '0-9\n')
for table in packet raw6; do
	check "the packet process holds no $table socket (a plain sit tunnel)" \
		bash -c "! grep -qwF -f <(echo \"$socks\") /proc/$pp/net/$table"
done

# Signals that stop or reload sitd count from the monitor or root only.  The same uid as
# the packet process gets past the kernel's check; sitd ignores it, and says so.
ip netns exec "$NS_A" setpriv --reuid "$want_uid" --regid "$want_uid" --clear-groups kill -INT "$pp"
ip netns exec "$NS_A" setpriv --reuid "$want_uid" --regid "$want_uid" --clear-groups kill -TERM "$pp"
sleep 0.5
check "SIGINT and SIGTERM from a process of the packet process's uid are ignored" kill -0 "$pp"
check "... the devices stay" na ip link show sit1
check "... and it is logged" grep -q "signal 2 from pid [0-9]* (uid $want_uid) ignored" "$(log_of "$PID_A")"
kout=$(ip netns exec "$NS_A" setpriv --reuid 65534 --regid 65534 --clear-groups kill -INT "$pp" 2>&1)
check "nobody (65534) cannot even signal it: $kout" test -n "$kout"
check "... still running" kill -0 "$pp"
if grep -q 'no seccomp filter' "$(log_of "$PID_A")"; then
	# The sanitizer build leaves the filter out (LeakSanitizer needs ptrace) and says so.
	expect_eq "sanitizer build: no filter, as it logs" "$(awk '/^Seccomp:/ { print $2 }' $st)" 0
else
	expect_eq "a seccomp filter on the packet process" "$(awk '/^Seccomp:/ { print $2 }' $st)" 2
	expect_eq "... and on the monitor" "$(awk '/^Seccomp:/ { print $2 }' $mst)" 2
	check "a forbidden syscall is refused inside sitd: $out" grep -q '^seccomp: on (a forbidden call, uname: Operation not permitted)' <<<"$out"
	for what in "create a file" "open a file to write" "open a file read-write" \
		"open /dev/net/tun" "an AF_PACKET socket" \
		"clone into new user and net namespaces" "signal another process (tgkill)" \
		"signal another process (kill)" "setsockopt IPV6_HDRINCL" "setsockopt IP_HDRINCL" \
		"setsockopt PACKET_ADD_MEMBERSHIP" "setsockopt SO_DETACH_FILTER" \
		"ioctl TUNSETOWNER" "ioctl TUNSETGROUP" "bind an AF_PACKET address" \
		"a new process (clone(SIGCHLD))"; do
		check "sandbox: $what: refused" grep -q "^  $what.* refused (Operation not permitted)" <<<"$out"
	done
	# Refused calls are counted (status) and logged once each.
	status=$(na "$SITD" -S "$SOCK_A" status -j)
	expect_eq "status counts the refused calls: uname once" "$(jq '.refused_syscalls.uname' <<<"$status")" 1
	expect_eq "... kill once" "$(jq '.refused_syscalls.kill' <<<"$status")" 1
	na "$SITD" -S "$SOCK_A" sandbox >/dev/null
	expect_eq "... twice after a second sandbox" "$(na "$SITD" -S "$SOCK_A" status -j | jq '.refused_syscalls.uname')" 2
	n=$(grep -c "seccomp refused system call $(printf '%d' 63) (a sandbox probe)" "$(log_of "$PID_A")")
	expect_eq "... and logged once (uname, 63 on x86_64)" "$n" 1
fi
check "after all that, sit1 still carries traffic" na ping -6 -c 2 -i 0.2 -W 2 -q $B6

# The configuration is root's and written by no one else, or sitd refuses it by name.
conf a sit1
cp "$LOGDIR/a.conf" "$LOGDIR/g.conf"
chmod 664 "$LOGDIR/g.conf"
out=$(ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/g.sock" -c "$LOGDIR/g.conf" 2>&1)
check "a group-writable configuration is refused: $out" grep -q 'g.conf: writable by group or others' <<<"$out"
chmod 644 "$LOGDIR/g.conf"
chown 65534 "$LOGDIR/g.conf"
out=$(ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/g.sock" -c "$LOGDIR/g.conf" 2>&1)
check "... and one not root's: $out" grep -q 'g.conf: not owned by root' <<<"$out"
ln -s "$LOGDIR/a.conf" "$LOGDIR/l.conf"
chown -h 65534 "$LOGDIR/l.conf"
out=$(ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/g.sock" -c "$LOGDIR/l.conf" 2>&1)
check "... and a symbolic link not root's: $out" grep -q 'l.conf: a symbolic link not owned by root' <<<"$out"
chmod 666 "$LOGDIR/a.conf"
out=$(na "$SITD" -S "$SOCK_A" reload 2>&1)
check "a reload of a file made group-writable is refused: $out" grep -q 'a.conf' <<<"$out"
check "... and the monitor says why" grep -q 'monitor: .*a.conf: writable by group or others' "$(log_of "$PID_A")"
chmod 644 "$LOGDIR/a.conf"

# The control socket's directories: 0755 whatever the umask (the unit's is 0077), so
# that the socket's group reaches it.
(umask 077; exec ip netns exec "$NS_A" "$SITD" -S "$LOGDIR/run/ns/d.sock" -G 4242 \
	dtest0 mode sit remote 192.0.2.99 local $A4 2>>"$LOGDIR/d.log") &
DPID=$!
for _ in $(seq 50); do [ -S "$LOGDIR/run/ns/d.sock" ] && break; sleep 0.1; done
expect_eq "the socket's directory is 0755 under umask 077" "$(stat -c %a "$LOGDIR/run/ns")" 755
expect_eq "... and its parent" "$(stat -c %a "$LOGDIR/run")" 755
expect_eq "the socket: 0660, root and the group, set at bind" "$(stat -c '%a %u %g' "$LOGDIR/run/ns/d.sock")" "660 0 4242"
check "a member of the group reaches it" \
	bash -c "ip netns exec $NS_A setpriv --reuid=65534 --regid=65534 --groups 4242 $SITD -S $LOGDIR/run/ns/d.sock show | grep -q '^dtest0:'"
kill -INT "$DPID"
wait "$DPID" || true
teardown

# -u nobody with /dev/net/tun at mode 0600 (a node of our own in a private mount
# namespace, whatever the host's): the packet process cannot open it, the monitor does,
# at start and for a reload that adds a FOU tunnel and removes one, PMTU included.
setup_pair
conf a sit1 ip1
conf b sit1 ip1
chmod 600 "$LOGDIR/a.conf"	# root's alone: the monitor reads it for the reload
printf '#!/bin/sh\nmount -t tmpfs none /dev/net && mknod -m 600 /dev/net/tun c 10 200 && exec "$@"\n' \
	>"$LOGDIR/tun600.sh"
chmod 755 "$LOGDIR/tun600.sh"
SITD_WRAP="unshare -m --propagation private $LOGDIR/tun600.sh" start_sitd "$NS_A" sitd-a -u nobody -c "$LOGDIR/a.conf"
PID_A=$LAST_PID
start_sitd "$NS_B" sitd-b -c "$LOGDIR/b.conf"
PID_B=$LAST_PID
pp=$(packet_pid "$PID_A")
tun_up "$NS_A" sit1 $A6
tun_up "$NS_B" sit1 $B6
expect_eq "-u nobody: the packet process runs as uid 65534" "$(awk '/^Uid/ { print $2 }' /proc/$pp/status)" 65534
check "-u nobody: the tunnel works" na ping -6 -c 2 -i 0.2 -W 2 -q $B6
conf a sit1 sit2
conf b sit1 sit2
chmod 600 "$LOGDIR/a.conf"
kill -HUP "$PID_A"
kill -HUP "$PID_B"
for _ in $(seq 50); do na ip link show sit2 >/dev/null 2>&1 && ! na ip link show ip1 >/dev/null 2>&1 && break; sleep 0.1; done
check "-u nobody, /dev/net/tun 0600: a reload creates a FOU tunnel (sit2)" na ip link show sit2
check "... and removes one (ip1)" bash -c "! ip -n $NS_A link show ip1 >/dev/null 2>&1"
check "... with the same packet process" test "$(packet_pid "$PID_A")" = "$pp"
tun_up "$NS_A" sit2 2001:db8:2::1
tun_up "$NS_B" sit2 2001:db8:2::2
check "... which carries traffic" na ping -6 -c 2 -i 0.2 -W 2 -q 2001:db8:2::2
finish
