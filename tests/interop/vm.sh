# shellcheck shell=bash
# The test VM: Debian's cloud kernel under qemu (TCG), its virtio NIC on a tap device
# in the namespace $VM_NS, driven through its second serial port (see init.sh).
#
#   vm_boot DIR NS TAP     boot DIR/vmlinuz + DIR/initramfs.cpio.gz, wait for the shell
#   vm CMD...              run CMD (a shell script, one argument) in the VM; its output
#                          on stdout, its exit status as ours. VM_TIMEOUT (s) bounds it.
#   vm_stop                power off and reap qemu
#
# The NIC computes no checksums for the VM nor takes partial ones from the host
# (csum=off,guest_csum=off): a capture on the tap then shows every checksum as it is
# on a real wire. VM_NIC_OPTS overrides.
#
# Logs: $VM_LOGDIR/console.log (the kernel's console), $VM_LOGDIR/qemu.log.

VM_PID=
VM_SEQ=0
VM_TIMEOUT=${VM_TIMEOUT:-60}

vm_boot() {
	local dir=$1 ns=$2 tap=$3 accel=${VM_ACCEL:-tcg}
	VM_SOCK=$VM_LOGDIR/ctl.sock
	rm -f "$VM_SOCK"
	command -v qemu-system-x86_64 >/dev/null || { echo "FATAL: qemu-system-x86_64 is missing" >&2; return 1; }
	ip netns exec "$ns" qemu-system-x86_64 -accel "$accel" -m "${VM_MEM:-384}" -smp 1 \
		-nographic -no-reboot -nodefaults -display none \
		-kernel "$dir/vmlinuz" -initrd "$dir/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init" \
		-serial "file:$VM_LOGDIR/console.log" \
		-chardev "socket,id=ctl,path=$VM_SOCK,server=on,wait=off" -serial chardev:ctl \
		-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:02${VM_NIC_OPTS-,csum=off,guest_csum=off}" \
		</dev/null >"$VM_LOGDIR/qemu.log" 2>&1 &
	VM_PID=$!

	for _ in $(seq 100); do
		[ -S "$VM_SOCK" ] && break
		kill -0 "$VM_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -S "$VM_SOCK" ] || { cat "$VM_LOGDIR/qemu.log" >&2; echo "FATAL: qemu did not start" >&2; return 1; }
	# One connection for the whole run, through two fifos opened on fixed descriptors
	# (a coproc's would not reach the subshells of $(vm ...)).
	rm -f "$VM_LOGDIR/to_vm" "$VM_LOGDIR/from_vm"
	mkfifo "$VM_LOGDIR/to_vm" "$VM_LOGDIR/from_vm"
	socat "UNIX-CONNECT:$VM_SOCK" - <"$VM_LOGDIR/to_vm" >"$VM_LOGDIR/from_vm" 2>"$VM_LOGDIR/socat.log" &
	VM_SOCAT_PID=$!
	exec {VM_IN}>"$VM_LOGDIR/to_vm" {VM_OUT}<"$VM_LOGDIR/from_vm"
	# The shell is there once a trivial command answers; commands sent before it reads
	# are lost, so ask again every second until one answer comes (old ids are skipped).
	local deadline=$((SECONDS + ${VM_BOOT_TIMEOUT:-120}))
	while [ $SECONDS -lt $deadline ]; do
		if ! kill -0 "$VM_PID" 2>/dev/null; then
			echo "FATAL: qemu exited during boot; console:" >&2
			tail -30 "$VM_LOGDIR/console.log" >&2
			return 1
		fi
		if VM_TIMEOUT=1 vm 'echo alive' 2>/dev/null | grep -q alive; then
			return 0
		fi
	done
	echo "FATAL: the VM did not answer within ${VM_BOOT_TIMEOUT:-120} s; console:" >&2
	tail -30 "$VM_LOGDIR/console.log" >&2
	return 1
}

# vm SCRIPT: run it in the VM, print its output, return its status (124: no answer).
vm() {
	local script=$1 id line rc=124 deadline mine=0
	VM_SEQ=$((VM_SEQ + 1))
	id=$$.$VM_SEQ
	printf 'CMD %s %s\n' "$id" "$(printf '%s\n' "$script" | base64 -w0)" >&"$VM_IN" || return 124
	deadline=$((SECONDS + VM_TIMEOUT))
	while [ $SECONDS -le $deadline ]; do
		IFS= read -r -t 1 line <&"$VM_OUT" || continue
		# Only what lies between our own markers: an earlier command abandoned on a
		# timeout or by a closed pipe may have left its answer in the channel.
		case $line in
		"@@BEGIN $id") mine=1 ;;
		"@@END $id "*) rc=${line##* }; break ;;
		"@@BEGIN "*|"@@END "*) mine=0 ;;
		*) [ $mine = 0 ] || printf '%s\n' "$line" ;;
		esac
	done
	return "$rc"
}

vm_stop() {
	[ -n "$VM_PID" ] || return 0
	kill -TERM "$VM_PID" 2>/dev/null
	for _ in $(seq 20); do
		kill -0 "$VM_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$VM_PID" 2>/dev/null
	wait "$VM_PID" 2>/dev/null
	[ -z "${VM_SOCAT_PID:-}" ] || kill "$VM_SOCAT_PID" 2>/dev/null
	wait "${VM_SOCAT_PID:-}" 2>/dev/null
	[ -z "${VM_IN:-}" ] || exec {VM_IN}>&- {VM_OUT}<&-
	VM_IN='' VM_OUT='' VM_SOCAT_PID=''
	VM_PID=
}
