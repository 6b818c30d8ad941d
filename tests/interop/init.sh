#!/bin/busybox sh
# shellcheck shell=dash
# /init of the interop test VM. ttyS0 is the console (kernel log); ttyS1 is the
# control channel: the host sends one line per command,
#     CMD <id> <script, base64>
# and gets back (stdout and stderr together)
#     @@BEGIN <id>, the script's output, @@END <id> <exit status>
# Commands run one at a time, as root, with /tmp as their working directory.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run
/bin/busybox --install -s
export PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o size=200m tmpfs /tmp
for m in $(cat /etc/modules.order); do
	insmod /lib/modules/$m.ko || echo "sitd-vm: insmod $m failed" >/dev/console
done
sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 2>/dev/null
ip link set lo up
for _ in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
ip link set eth0 up
ip addr add 192.0.2.2/24 dev eth0
echo "sitd-vm: up, modules: $(cat /etc/modules.order | tr '\n' ' ')" >/dev/console

for _ in $(seq 50); do [ -e /dev/ttyS1 ] && break; sleep 0.1; done
stty -F /dev/ttyS1 raw -echo -echoe -echok -echonl -icrnl -onlcr -opost 2>/dev/null
# Debian's busybox runs its own applets before anything on PATH: commands call the
# full iproute2 and iputils through these functions instead.
cat >/etc/prelude.sh <<'PRELUDE'
ip() { /usr/local/bin/ip "$@"; }
tc() { /usr/local/bin/tc "$@"; }
ping() { /usr/local/bin/ping "$@"; }
PRELUDE
cd /tmp || exit 1
exec 3<>/dev/ttyS1
while :; do
	if ! IFS= read -r line <&3; then
		sleep 0.1
		continue
	fi
	case $line in
	"CMD "*)
		set -- $line
		{ cat /etc/prelude.sh; echo "$3" | base64 -d 2>/dev/null; } >/tmp/.cmd.sh
		sh /tmp/.cmd.sh </dev/null >/tmp/.cmd.out 2>&1
		rc=$?
		echo "@@BEGIN $2" >&3
		cat /tmp/.cmd.out >&3
		echo "@@END $2 $rc" >&3
		;;
	esac
done
