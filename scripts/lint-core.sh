#!/usr/bin/env bash
# The pure core (doc/architecture.md "The rule: pure") may not do I/O, print, exit or
# allocate: no call to those functions in src/core and src/proto/{cli,config,show,request}.c.
# Comments are stripped first (the preprocessor's -fpreprocessed), so prose may name them.
set -u
cd "$(dirname "$0")/.."
bad=0
for f in src/core/*.c src/core/*.h src/proto/cli.c src/proto/config.c src/proto/show.c src/proto/request.c; do
	hits=$(${CC:-cc} -fpreprocessed -dD -E -P "$f" 2>/dev/null |
		grep -nE '\b(printf|fprintf|puts|perror|exit|abort|malloc|calloc|realloc|free|read|write|send|sendmsg|sendmmsg|recv|recvmsg|recvmmsg|socket|ioctl|open|close)\s*\(')
	if [ -n "$hits" ]; then
		echo "$f (comments stripped):"
		echo "$hits"
		bad=1
	fi
done
[ $bad = 0 ] || { echo "core must stay pure: see the calls above"; exit 1; }
echo "lint-core: the core calls no I/O, printing, exit or allocation function"
