#!/usr/bin/env bash
# The test command (README, .ci/run): installs what it needs, builds with gcc and clang,
# then runs `make check`: unit tests plain and under ASan+UBSan, every fuzzer on its
# corpus, and the integration tests against the -O2 and the sanitized daemon; then the
# Debian package is built and checked (tests/package/run.sh), and sitd is run against
# the real kernel's tunnels in a VM (tests/interop/run.sh).  The last
# line sums every stage's "N passed, N failed".  Needs root (namespaces, TUN, apt-get).
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || {
	echo "tests/run.sh: run as root (it installs packages and creates network namespaces)" >&2
	exit 1
}
scripts/deps.sh
jobs=$(nproc)
make -j"$jobs" CC=clang O=build-clang all	# the tree builds with clang too
make -j"$jobs" all build/asan/sitd fuzz-build
log=$(mktemp /tmp/sitd-check.XXXXXX)
trap 'rm -f "$log"' EXIT
set +e
make -k check FUZZ_SECONDS="${FUZZ_SECONDS:-20}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
# The Debian package: built, checked by lintian, its files where they belong.
tests/package/run.sh 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
# sitd against the real kernel's sit, ipip and fou, in a VM (tests/interop/README.md).
tests/interop/run.sh 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
set -e
awk '/^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3; n++ }
     END { print "total: " p + 0 " passed, " f + 0 " failed" }' "$log"
exit "$rc"
