#!/usr/bin/env bash
# Installs what building, testing and the demo need, from Debian's packages.
# Run as root; does nothing when everything is already there.
set -eu
pkgs=(
	make gcc clang libclang-rt-dev	# build, and libFuzzer + sanitizers for clang
	libmnl-dev			# netlink (link MTU changes)
	libcap-dev libseccomp-dev	# least privilege
	libcmocka-dev			# unit tests
	iproute2 iputils-ping ethtool	# namespaces, veth, ping, TSO on/off
	socat iperf3 tshark		# transfers, throughput, an independent decoder
	util-linux procps coreutils	# setpriv, unshare, ps, sha256sum
	jq				# the tests read sitd show -j
	python3				# test_6rd.sh builds one raw packet
	radvd				# test_isatap.sh: the ISATAP router advertises
	dnsmasq-base busybox-static	# test_dhcp_6rd.sh: option 212 served, udhcpc (static: the
				# interop VM's initramfs needs that one, and the two conflict)
	isc-dhcp-client			# test_dhclient_6rd.sh: dhclient runs contrib/dhclient-6rd
	curl prometheus python3-prometheus-client	# test_metrics.sh: scrapes and parses -M
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "sitd: missing packages (${missing[*]}); run as root to install them" >&2
	exit 1
fi
echo "sitd: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
