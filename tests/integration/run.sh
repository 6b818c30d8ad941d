#!/usr/bin/env bash
# Runs every integration test against one sitd binary (SITD, default build/sitd) and
# prints the total as "N passed, N failed".  Needs root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SITD=${SITD:-$here/../../build/sitd}
[ "$(id -u)" = 0 ] || { echo "integration tests need root (network namespaces, TUN)" >&2; exit 1; }
passed=0 failed=0 broken=()
[ $# -gt 0 ] || set -- "$here"/test_*.sh
for t in "$@"; do
	[ -f "$t" ] || continue
	echo "=== $(basename "$t") ($SITD)"
	out=$(bash "$t" 2>&1)
	rc=$?
	echo "$out" | grep -E '^(ok|not ok|FATAL)' || true
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	echo "$(basename "$t"): ${line:-no result}"
	if [ -z "$line" ]; then
		echo "$out" | tail -n 30
		failed=$((failed + 1))
		broken+=("$(basename "$t") (no result line)")
		continue
	fi
	p=${line%% passed*}
	f=${line#*, }
	f=${f%% failed}
	passed=$((passed + p))
	failed=$((failed + f))
	if [ $rc -ne 0 ] || [ "$f" != 0 ]; then
		broken+=("$(basename "$t")")
		echo "$out" | grep -B2 -A20 '^not ok' | head -n 60
	fi
done
[ ${#broken[@]} = 0 ] || echo "failing: ${broken[*]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
