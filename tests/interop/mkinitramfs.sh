#!/usr/bin/env bash
# Fetches Debian's cloud kernel (it carries sit, ipip, fou and ip6tnl as modules) into
# a cache outside the repository and builds the test VM's initramfs from it:
# busybox-static, the host's iproute2 `ip`/`tc` and iputils `ping` with their shared
# libraries, the kernel modules the tests need (decompressed, in dependency order) and
# init.sh.
#
#   mkinitramfs.sh OUTDIR    writes OUTDIR/vmlinuz and OUTDIR/initramfs.cpio.gz
#
# The cache is $SITD_INTEROP_CACHE, else $XDG_CACHE_HOME/sitd-interop, else
# /var/cache/sitd-interop. Every failure is fatal and says why.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?usage: mkinitramfs.sh OUTDIR}
CACHE=${SITD_INTEROP_CACHE:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/sitd-interop}}
CACHE=${CACHE:-/var/cache/sitd-interop}
# The modules the VM loads, each after its dependencies (resolved below with modinfo).
WANT=(virtio_pci virtio_net veth sit ipip fou tunnel6 ip6_tunnel fou6 act_pedit act_csum act_gact cls_matchall cls_u32 sch_ingress)

die() { echo "mkinitramfs: FATAL: $*" >&2; exit 1; }

for t in busybox cpio gzip modinfo dpkg-deb apt-get ldd; do
	command -v "$t" >/dev/null || die "$t is missing"
done
[ -x /bin/busybox ] && file_is_static=$(ldd /bin/busybox 2>&1 || true)
case ${file_is_static:-} in *"not a dynamic"*|*"statically linked"*) ;; *) die "/bin/busybox is not static (install busybox-static)";; esac

mkdir -p "$CACHE" "$OUT"

# 1. The kernel package: the versioned image linux-image-cloud-amd64 depends on.
deb=$(ls "$CACHE"/linux-image-*-cloud-amd64_*.deb 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$deb" ]; then
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	if [ -z "$pkg" ]; then
		apt-get update -qq || true
		pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
			awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	fi
	[ -n "$pkg" ] || die "apt knows no linux-image-cloud-amd64 (is this Debian with main enabled?)"
	echo "mkinitramfs: downloading $pkg into $CACHE" >&2
	(cd "$CACHE" && apt-get download "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) ||
		die "apt-get download $pkg failed"
	deb=$(ls "$CACHE"/"$pkg"_*.deb 2>/dev/null | tail -1 || true)
	[ -n "$deb" ] || die "apt-get download $pkg left no .deb in $CACHE"
fi
kx=$CACHE/$(basename "$deb" .deb)
if [ ! -e "$kx/.done" ]; then
	rm -rf "$kx"
	mkdir -p "$kx"
	dpkg-deb -x "$deb" "$kx" || die "cannot unpack $deb"
	touch "$kx/.done"
fi
vmlinuz=$(ls "$kx"/boot/vmlinuz-* 2>/dev/null | head -1)
config=$(ls "$kx"/boot/config-* 2>/dev/null | head -1)
[ -n "$vmlinuz" ] && [ -n "$config" ] || die "$deb has no /boot/vmlinuz-* or config-*"
kver=${vmlinuz##*/vmlinuz-}
moddir=$kx/lib/modules/$kver
[ -d "$moddir" ] || die "$deb has no $moddir"

# 2. A root tree.
root=$(mktemp -d /tmp/sitd-initramfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,lib/modules,lib64,proc,sys,dev,tmp,run,etc}
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$HERE/init.sh" "$root/init"

# The host's iproute2 (busybox ip knows no fou, encap or tc actions) and iputils ping
# (-M do), with every shared library they load.
for b in /sbin/ip /sbin/tc /bin/ping; do
	[ -x "$b" ] || die "$b is missing (iproute2, iputils-ping)"
	cp -L "$b" "$root/usr/local/bin/"
	ldd "$b" | awk '/=>/ {print $3} /^\t\/lib/ {print $1}' | while read -r lib; do
		[ -e "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu"
[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"

# 3. Modules: each one built in (=y) needs nothing; each =m is copied with its
# dependencies, decompressed, and listed in load order.
order=()
declare -A seen
modpath() {
	local f
	f=$(find "$moddir/kernel" \( -name "$1.ko" -o -name "$1.ko.xz" -o -name "$1.ko.zst" -o -name "$1.ko.gz" \) | head -1)
	[ -n "$f" ] || f=$(find "$moddir/kernel" \( -name "${1//_/-}.ko" -o -name "${1//_/-}.ko.xz" \) | head -1)
	echo "$f"
}
add_mod() {
	local m=$1 f d
	[ -z "${seen[$m]:-}" ] || return 0
	seen[$m]=1
	f=$(modpath "$m")
	if [ -z "$f" ]; then
		grep -q "^$m\$" "$moddir/modules.builtin" 2>/dev/null ||
			grep -q "/$m.ko\$" "$moddir/modules.builtin" 2>/dev/null ||
			die "module $m is neither a module nor built into $kver"
		return 0
	fi
	for d in $(modinfo -F depends "$f" | tr ',' ' '); do
		add_mod "$d"
	done
	case $f in
	*.xz) xz -dc "$f" >"$root/lib/modules/$m.ko" ;;
	*.zst) zstd -dcq "$f" >"$root/lib/modules/$m.ko" ;;
	*.gz) gzip -dc "$f" >"$root/lib/modules/$m.ko" ;;
	*) cp "$f" "$root/lib/modules/$m.ko" ;;
	esac
	order+=("$m")
}
for m in "${WANT[@]}"; do
	add_mod "$m"
done
printf '%s\n' "${order[@]}" >"$root/etc/modules.order"
for opt in CONFIG_IPV6 CONFIG_SERIAL_8250 CONFIG_SERIAL_8250_CONSOLE; do
	grep -q "^$opt=[ym]" "$config" || die "$kver lacks $opt"
done

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT/initramfs.cpio.gz.new"
mv "$OUT/initramfs.cpio.gz.new" "$OUT/initramfs.cpio.gz"
cp "$vmlinuz" "$OUT/vmlinuz"
echo "$kver" >"$OUT/kernel-version"
echo "mkinitramfs: $kver, modules: ${order[*]}" >&2
