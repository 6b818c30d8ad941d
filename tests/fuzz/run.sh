#!/usr/bin/env bash
# Run libFuzzer targets briefly on their committed corpora.
#
#   tests/fuzz/run.sh SECONDS BIN...
#
# Each BIN (build/fuzz/fuzz_NAME) runs for SECONDS on a scratch copy of
# tests/fuzz/corpus/fuzz_NAME/, so inputs it discovers do not dirty the tree, with
# tests/fuzz/fuzz_NAME.dict when there is one.  A crash, leak, timeout or out-of-memory
# fails the target; its reproducer is left under BIN's directory in artifacts/fuzz_NAME/
# and its log is printed.  The last line is "N passed, N failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)

if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
	echo "usage: $0 SECONDS BIN..." >&2
	exit 2
fi
seconds=$1
shift
if [ $# -eq 0 ]; then
	echo "$0: no fuzz binaries given: nothing was fuzzed (is tests/fuzz/fuzz_*.c there?)" >&2
	exit 1
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/sitd-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

passed=0
failed=0
failed_names=()
for bin in "$@"; do
	name=$(basename "$bin")
	if [ ! -x "$bin" ]; then
		echo "FAIL $name: $bin is not an executable" >&2
		failed=$((failed + 1))
		failed_names+=("$name")
		continue
	fi
	corpus="$scratch/$name"
	mkdir -p "$corpus"
	if [ -d "$here/corpus/$name" ]; then
		cp -R "$here/corpus/$name/." "$corpus/"
	else
		echo "note $name: no committed corpus in tests/fuzz/corpus/$name" >&2
	fi
	artifacts="$(cd "$(dirname "$bin")" && pwd)/artifacts/$name"
	mkdir -p "$artifacts"
	args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
	      -artifact_prefix="$artifacts/" -print_final_stats=1)
	[ -f "$here/$name.dict" ] && args+=(-dict="$here/$name.dict")
	log="$scratch/$name.log"

	"$bin" "${args[@]}" "$corpus" >"$log" 2>&1
	rc=$?
	# libFuzzer's last status line: "#RUNS DONE cov: N ft: N corp: ..."
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		printf 'ok   %-12s %s runs in %ss, %s, %s\n' "$name" "${runs:-?}" "$seconds" \
			"${cov:-cov: ?}" "${corp:-corp: ?}"
		passed=$((passed + 1))
	else
		echo "FAIL $name (exit $rc): log follows" >&2
		tail -n 60 "$log" >&2
		sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | while read -r unit; do
			echo "FAIL $name: reproducer $unit (run: $bin $unit)" >&2
		done
		failed=$((failed + 1))
		failed_names+=("$name")
	fi
done

[ $failed -gt 0 ] && echo "failed: ${failed_names[*]}" >&2
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
