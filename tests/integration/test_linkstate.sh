#!/usr/bin/env bash
# Link state that converges: a burst of netlink events that overflows sitd's notification
# socket still leaves every tunnel's up state and MTU as `ip link` shows them (issue 24).
#
#   netns A: sitd -c (t0..t199)                 netns B: sitd -c (x0..x4)
#     va 192.0.2.1/24 ========================== vb 192.0.2.2/24, 192.0.2.10-14/24
#
# A's sample tunnels t0 t50 t100 t150 t199 each have a peer x0..x4 on B (remote
# 192.0.2.(10 + j)); the others have idle remotes 203.0.113.i.  One `ip -batch` sets every
# device of A up, down, a new MTU on the odd ones, and up again, all but t150, which stays
# down.  With SITD_NL_RCVBUF (a test knob: a tiny netlink receive buffer) the socket
# overflows: sitd counts an overrun and a resync (status -j), and afterwards its MTU of
# each tunnel is the device's, the sample pings both ways, and what B sends to t150 matches
# no tunnel (the lookup skips a down device).  Then the same without the knob.
. "$(dirname "$0")/lib.sh"
require_root ping jq

N=200
SAMPLE=(0 50 100 150 199)

# run KNOB: one round; KNOB is the SITD_NL_RCVBUF value, empty for none.
run() {
	local knob=$1 what=${1:+"tiny buffer"} conf=$LOGDIR/a.conf batch=$LOGDIR/burst.batch
	local i j k ov0 rs0 ov rs pid_a ctl_a
	what=${what:-"default buffer"}

	setup_pair 1500
	for j in "${!SAMPLE[@]}"; do ip -n "$NS_B" addr add 192.0.2.$((10 + j))/24 dev vb; done
	ip -n "$NS_A" route add 203.0.113.0/24 dev va
	for ((i = 0; i < N; i++)); do
		k=-1
		for j in "${!SAMPLE[@]}"; do [ "${SAMPLE[$j]}" = "$i" ] && k=$j; done
		if [ "$k" -ge 0 ]; then
			echo "tunnel t$i mode sit remote 192.0.2.$((10 + k)) local 192.0.2.1"
		else
			echo "tunnel t$i mode sit remote 203.0.113.$i local 192.0.2.1"
		fi
	done >"$conf"
	for j in "${!SAMPLE[@]}"; do
		echo "tunnel x$j mode sit remote 192.0.2.1 local 192.0.2.$((10 + j))"
	done >"$LOGDIR/b.conf"

	if [ -n "$knob" ]; then
		SITD_NL_RCVBUF=$knob start_sitd "$NS_A" sitd-a -c "$conf"
	else
		start_sitd "$NS_A" sitd-a -c "$conf"
	fi
	pid_a=$LAST_PID
	ctl_a=$(sock_of "$pid_a")
	start_sitd "$NS_B" sitd-b -c "$LOGDIR/b.conf"
	expect_eq "$what: A runs $N tunnels" "$("$SITD" -S "$ctl_a" status -j | jq .tunnels)" "$N"
	expect_eq "$what: status -j has the netlink counters" \
		"$("$SITD" -S "$ctl_a" status -j | jq '(.netlink_overruns | type) + (.netlink_resyncs | type)')" \
		'"numbernumber"'
	check "$what: status says them" sh -c "'$SITD' -S '$ctl_a' status | grep -q 'netlink overruns [0-9]*, resyncs [0-9]*'"
	for j in "${!SAMPLE[@]}"; do
		tun_up "$NS_B" "x$j" "2001:db8:$((10 + j))::2"
		tun_up "$NS_A" "t${SAMPLE[$j]}" "2001:db8:$((10 + j))::1"
	done
	check "$what: t0 pings before the burst" na ping -6 -c 1 -W 2 2001:db8:10::2
	ov0=$("$SITD" -S "$ctl_a" status -j | jq .netlink_overruns)
	rs0=$("$SITD" -S "$ctl_a" status -j | jq .netlink_resyncs)

	# The burst: a few thousand notifications as fast as the kernel makes them.
	{
		for ((i = 0; i < N; i++)); do echo "link set t$i up"; done
		for ((i = 0; i < N; i++)); do echo "link set t$i down"; done
		for ((i = 1; i < N; i += 2)); do echo "link set t$i mtu 1400"; done
		for ((i = 0; i < N; i++)); do [ "$i" = 150 ] || echo "link set t$i up"; done
	} >"$batch"
	ip -n "$NS_A" -batch "$batch" || die "ip -batch failed"
	# Down took the inner IPv6 addresses off (addrconf_ifdown): the sample's again.
	for j in "${!SAMPLE[@]}"; do
		[ "${SAMPLE[$j]}" = 150 ] ||
			ip -n "$NS_A" addr replace "2001:db8:$((10 + j))::1/64" dev "t${SAMPLE[$j]}" nodad
	done

	# sitd's MTU of every tunnel, against the device's; converged within a few seconds.
	local want got
	want=$(ip -n "$NS_A" -o link show | sed -n 's/^[0-9]*: \(t[0-9]*\): .* mtu \([0-9]*\) .*/\1 \2/p' | sort)
	for _ in $(seq 50); do
		got=$("$SITD" -S "$ctl_a" show -j | jq -r '.[] | "\(.ifname) \(.mtu)"' | sort)
		[ "$got" = "$want" ] && break
		sleep 0.2
	done
	expect_eq "$what: every tunnel's MTU is the device's" "$(diff <(echo "$want") <(echo "$got") | wc -l)" 0
	expect_eq "$what: the odd tunnels have the new MTU" "$(grep -c ' 1400$' <<<"$got")" $((N / 2))
	ov=$("$SITD" -S "$ctl_a" status -j | jq .netlink_overruns)
	rs=$("$SITD" -S "$ctl_a" status -j | jq .netlink_resyncs)
	if [ -n "$knob" ]; then
		check "$what: the burst overran the socket ($ov0 -> $ov)" test "$ov" -gt "$ov0"
		check "$what: and sitd read the state again ($rs0 -> $rs)" test "$rs" -gt "$rs0"
	else
		echo "# $what: overruns $ov0 -> $ov, resyncs $rs0 -> $rs"
	fi

	# Up again after down in the burst: traffic through each, both ways.
	for j in "${!SAMPLE[@]}"; do
		[ "${SAMPLE[$j]}" = 150 ] && continue
		check "$what: t${SAMPLE[$j]} (down, up) pings its peer" \
			na ping -6 -c 2 -i 0.2 -W 2 "2001:db8:$((10 + j))::2"
		check "$what: its peer pings t${SAMPLE[$j]}" \
			ip netns exec "$NS_B" ping -6 -c 2 -i 0.2 -W 2 "2001:db8:$((10 + j))::1"
	done
	# t150 stayed down: what its peer sends matches no tunnel at A.
	local nt0 nt1
	nt0=$(pstat "$pid_a" rx_no_tunnel)
	ip netns exec "$NS_B" ping -6 -c 3 -i 0.2 -W 1 2001:db8:13::1 >/dev/null 2>&1
	nt1=$(pstat "$pid_a" rx_no_tunnel)
	check "$what: t150, left down, takes nothing ($nt0 -> $nt1 rx_no_tunnel)" test "$nt1" -ge $((nt0 + 3))
	expect_eq "$what: no system call refused" \
		"$("$SITD" -S "$ctl_a" status -j | jq '.refused_syscalls | length')" 0
	check "$what: A still runs" alive "$pid_a"
	teardown
}

run 4096
run ""
finish
