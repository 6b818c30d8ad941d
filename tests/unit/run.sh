#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run cmocka unit test binaries: tests/unit/run.sh BIN...
#
# Prints each binary's output, then one line "N passed, N failed" counting test cases,
# taken from cmocka's summary: "[==========] N test(s) run." and "[  PASSED  ] N
# test(s).".  Every case that ran and did not pass counts as failed, whatever cmocka
# called it: a unit test here must pass, nothing else.
# A binary that exits non-zero without reporting a failed case (crash, sanitizer abort,
# missing file) counts as one failed case more, and so does one that runs no test.
# Exits 1 when anything failed or when no binary was given.

set -u

if [ "$#" -eq 0 ]; then
	echo "run.sh: no unit test binaries given: nothing was tested" >&2
	echo "0 passed, 0 failed"
	exit 1
fi

# cmocka's plain format is the one parsed below; TAP, subunit or XML would not match.
export CMOCKA_MESSAGE_OUTPUT=STDOUT

passed=0
failed=0

# The number in the last cmocka summary line "[$2] N test(s)$3" of $1, or empty.
count() {
	sed -n "s/^\[$2\] \([0-9][0-9]*\) test(s)$3\$/\1/p" <<<"$1" | tail -n 1
}

for bin in "$@"; do
	echo "=== $bin"
	out=$("$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out"

	r=$(count "$out" '==========' ' run\.')
	p=$(count "$out" '  PASSED  ' '\.')
	r=${r:-0}
	p=${p:-0}
	f=$((r - p))

	if ! grep -q '^\[==========\] [0-9][0-9]* test(s) run\.$' <<<"$out"; then
		echo "run.sh: $bin ended (status $rc) without a cmocka summary"
		[ "$f" -eq 0 ] && f=1
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "run.sh: $bin exited with status $rc but reported no failed test"
		f=1
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "run.sh: $bin ran no test"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
