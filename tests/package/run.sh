#!/usr/bin/env bash
# Builds the Debian package of this tree and checks it: lintian, then the files of the
# .deb unpacked into a scratch root.  Run as root on Debian bookworm; installs what it
# needs (dpkg-dev, debhelper, lintian, the Build-Depends of debian/control).
#
# The tree is copied to a temporary directory and built there, so the source tree
# stays as it was and nothing is left behind.  Prints `ok N - what` / `not ok N - what`
# per check, then `N passed, N failed`; exits 1 if a check failed.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

src=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/sitd-package.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
log=$scratch/log
n=0 passed=0 failed=0

# check WHAT COMMAND...: one numbered line; the command's output goes to the log,
# and its last lines are shown (as comments) when it fails.
check() {
	local what=$1
	shift
	n=$((n + 1))
	: >"$log"
	if "$@" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok $n - $what"
	else
		failed=$((failed + 1))
		echo "not ok $n - $what"
		tail -n 15 "$log" | sed 's/^/#   /'
	fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

if [ "$(id -u)" != 0 ]; then
	echo "tests/package/run.sh: run as root (it installs the build dependencies)" >&2
	exit 2
fi
if [ ! -f "$src/debian/control" ]; then
	echo "tests/package/run.sh: no debian/control in $src" >&2
	exit 2
fi

# The Build-Depends of debian/control, each first alternative without its version
# or architecture and profile restrictions; apt resolves the virtual ones
# (debhelper-compat, dh-sequence-*) to debhelper.  dpkg-checkbuilddeps, run by
# dpkg-buildpackage, then checks the versions.
build_depends() {
	sed -n '/^Build-Depends:/,/^[^ ]/{s/^Build-Depends://;/^[^ ]/d;p}' "$src/debian/control" |
		tr ',' '\n' | sed 's/|.*//; s/([^)]*)//g; s/\[[^]]*\]//g; s/<[^>]*>//g; s/[[:space:]]//g' |
		grep -v '^$'
}

install_deps() {
	local p tools=(dpkg-dev build-essential debhelper lintian) missing=()
	# systemd-analyze and systemd-sysusers, for two of the checks below, and procps
	# (/bin/kill, the unit's ExecReload, which systemd-analyze verify looks for).
	command -v systemd-analyze >/dev/null || tools+=(systemd)
	tools+=(procps)
	for p in "${tools[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} = 0 ] && (cd "$src" && dpkg-checkbuilddeps); then
		return 0
	fi
	missing+=($(build_depends))
	echo "installing ${missing[*]}"
	apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" &&
		(cd "$src" && dpkg-checkbuilddeps)
}
check "build dependencies installed ($(build_depends | tr '\n' ' '))" install_deps

# A copy of the tree: the files git knows (tracked, and new ones not ignored), or,
# outside a git checkout, everything but build/ and .git.
copy_tree() {
	mkdir -p "$scratch/build/sitd"
	if command -v git >/dev/null && git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$src" ls-files -z --cached --others --exclude-standard |
			(cd "$src" && xargs -0 -r cp --parents -P -t "$scratch/build/sitd" --)
	else
		tar -C "$src" --exclude=./build --exclude=./.git -cf - . | tar -C "$scratch/build/sitd" -xf -
	fi
}
status_before=$(git -C "$src" status --porcelain --ignored 2>/dev/null)
check "source tree copied to a scratch directory" copy_tree

build() {
	cd "$scratch/build/sitd" &&
		DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b
}
check "dpkg-buildpackage -us -uc -b" build

deb=$(ls "$scratch"/build/sitd_*.deb 2>/dev/null | head -n 1)
changes=$(ls "$scratch"/build/sitd_*.changes 2>/dev/null | head -n 1)
check "a .deb and a .changes were written" test -f "$deb" -a -f "$changes"
if [ -z "$deb" ]; then
	finish
fi

lintian_clean() {
	# lintian leaves temporary files (mldbm-*) behind: keep them in the scratch dir.
	TMPDIR=$scratch lintian --pedantic --display-info "$changes" "$deb" >"$scratch/lintian.txt" 2>&1
	cat "$scratch/lintian.txt"
	! grep -q '^E: ' "$scratch/lintian.txt"
}
check "lintian: no error on the .changes and the .deb" lintian_clean
grep -E '^[WIPX]: ' "$scratch/lintian.txt" 2>/dev/null | sort -u | sed 's/^/#   lintian /'

root=$scratch/root
ctl=$scratch/control
check "dpkg -x and dpkg -e" sh -c "dpkg -x '$deb' '$root' && dpkg -e '$deb' '$ctl'"

check "/usr/sbin/sitd is an executable file" test -f "$root/usr/sbin/sitd" -a -x "$root/usr/sbin/sitd"
help() {
	"$root/usr/sbin/sitd" --help >"$scratch/help.txt" 2>&1 || return 1
	cat "$scratch/help.txt"
	grep -q '^Usage: sitd' "$scratch/help.txt"
}
check "sitd --help (from the unpacked package) exits 0 and prints the usage" help

manpage() {
	gzip -t "$1" && zcat "$1" | grep -q '^\.TH'
}
check "man page sitd(8) at /usr/share/man/man8/sitd.8.gz" manpage "$root/usr/share/man/man8/sitd.8.gz"
check "man page sitd.conf(5) at /usr/share/man/man5/sitd.conf.5.gz" \
	manpage "$root/usr/share/man/man5/sitd.conf.5.gz"

example=$root/usr/share/doc/sitd/examples/sitd.conf.example
check "example configuration in /usr/share/doc/sitd/examples, as in contrib/" \
	cmp "$src/contrib/sitd.conf.example" "$example"
check "no configuration that would start tunnels (/etc/sitd.conf)" test ! -e "$root/etc/sitd.conf"
check "debian/copyright is there" test -s "$root/usr/share/doc/sitd/copyright"

unit=$root/lib/systemd/system/sitd.service
check "systemd unit at /lib/systemd/system/sitd.service" test -f "$unit"
check "the unit runs /usr/sbin/sitd as the user sitd" \
	grep -qx 'ExecStart=/usr/sbin/sitd -u sitd -c /etc/sitd.conf' "$unit"
unit_hardened() {
	local d
	for d in 'Type=notify' 'Group=sitd' 'RuntimeDirectory=sitd' 'RuntimeDirectoryMode=0750' \
		'CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE CAP_KILL CAP_SETUID CAP_SETGID CAP_SETPCAP' \
		'NoNewPrivileges=yes' 'ProtectSystem=strict' 'ProtectHome=yes' 'PrivateTmp=yes' \
		'DevicePolicy=closed' 'DeviceAllow=/dev/net/tun rw' 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK' \
		'SystemCallArchitectures=native' 'MemoryDenyWriteExecute=yes'; do
		grep -qxF "$d" "$unit" || { echo "missing: $d"; return 1; }
	done
}
check "the unit carries its hardening directives" unit_hardened
# systemd-analyze is there when systemd is; the unit points at the unpacked binary.
verify_unit() {
	mkdir -p "$scratch/unit" &&
		sed "s|/usr/sbin/sitd|$root/usr/sbin/sitd|" "$unit" >"$scratch/unit/sitd.service" &&
		systemd-analyze verify --man=no "$scratch/unit/sitd.service"
}
if command -v systemd-analyze >/dev/null; then
	check "systemd-analyze verify on the unit" verify_unit
else
	# The dependencies above install it: without it, this check cannot run, and fails.
	check "systemd-analyze verify on the unit (systemd-analyze is missing)" false
fi

sysusers=$root/usr/lib/sysusers.d/sitd.conf
check "sysusers.d file declares the user sitd" grep -Eq '^u[[:space:]]+sitd[[:space:]]' "$sysusers"
check "postinst runs systemd-sysusers on it" grep -q 'systemd-sysusers .*sitd\.conf' "$ctl/postinst"
depends_sysusers() {
	dpkg-deb -f "$deb" Depends | tee /dev/stderr | grep -q 'systemd | systemd-standalone-sysusers'
}
check "Depends has a systemd-sysusers provider" depends_sysusers
# The file, applied to an empty root, gives the user and the group sitd.
sysusers_apply() {
	mkdir -p "$scratch/sysroot/etc" &&
		systemd-sysusers --root="$scratch/sysroot" "$sysusers" &&
		grep '^sitd:' "$scratch/sysroot/etc/passwd" "$scratch/sysroot/etc/group" &&
		grep -q '^sitd:[^:]*:[0-9]*:[0-9]*:[^:]*:[^:]*:/usr/sbin/nologin$' "$scratch/sysroot/etc/passwd" &&
		grep -q '^sitd:' "$scratch/sysroot/etc/group"
}
if command -v systemd-sysusers >/dev/null; then
	check "systemd-sysusers creates the system user and group sitd (nologin)" sysusers_apply
else
	check "systemd-sysusers creates the user sitd (systemd-sysusers is missing)" false
fi

# Allowed: stop (on removal), try-restart (on upgrade: restarts only a running sitd)
# and re-enabling for an admin who had enabled it (was-enabled).
no_start() {
	local f
	for f in "$ctl"/postinst "$ctl"/preinst "$ctl"/prerm "$ctl"/postrm; do
		[ -f "$f" ] || continue
		if grep -nE 'deb-systemd-invoke +(start|restart|reload)|systemctl .*(start|restart|enable)|invoke-rc\.d' "$f"; then
			echo "$f starts something"
			return 1
		fi
	done
	awk '/was-enabled/{ok=1} /deb-systemd-helper enable/ && !ok {bad=1} END{exit bad}' "$ctl/postinst" ||
		{ echo "postinst enables the unit"; return 1; }
	grep -q "deb-systemd-invoke try-restart 'sitd.service'" "$ctl/postinst" ||
		{ echo "postinst: no try-restart on upgrade"; return 1; }
	grep -q "deb-systemd-invoke stop 'sitd.service'" "$ctl/prerm" ||
		{ echo "prerm: no stop on removal"; return 1; }
}
check "the maintainer scripts neither enable nor start the unit (try-restart on upgrade, stop on removal)" no_start

if [ -n "${status_before+x}" ] && command -v git >/dev/null && git -C "$src" rev-parse >/dev/null 2>&1; then
	check "the source tree is as it was" test "$(git -C "$src" status --porcelain --ignored)" = "$status_before"
fi

finish
