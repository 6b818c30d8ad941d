#!/usr/bin/env bash
# Two rules of the tree's shape, both from src/LAYERS (doc/architecture.md):
#  1. an #include names its layer ("core/tx.h") and points at its own layer or one
#     below it in the list, never up;
#  2. the pure layers call no I/O, printing, exit or allocation function.  Comments are
#     stripped first (the preprocessor's -fpreprocessed), so prose may name them.
set -u
cd "$(dirname "$0")/.."
mapfile -t layers < <(awk '!/^#/ && NF { print $1 }' src/LAYERS)
mapfile -t pure < <(awk '!/^#/ && $2 == "pure" { print $1 }' src/LAYERS)
rank() {
	local i
	for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done
	echo -1
}
bad=0
for f in src/*/*.[ch]; do
	own=$(rank "$(basename "$(dirname "$f")")")
	if [ "$own" -lt 0 ]; then
		echo "$f: its directory is not a layer of src/LAYERS"
		bad=1
		continue
	fi
	while IFS=: read -r line inc; do
		to=${inc%%/*}
		r=$(rank "$to")
		if [ "$inc" = "$to" ] || [ "$r" -lt 0 ]; then
			echo "$f:$line: #include \"$inc\" names no layer (write \"LAYER/$inc\")"
			bad=1
		elif [ "$r" -gt "$own" ]; then
			echo "$f:$line: #include \"$inc\" points up, from ${layers[$own]} to $to"
			bad=1
		fi
	done < <(grep -nE '^#[[:space:]]*include[[:space:]]*"' "$f" |
		 sed 's/^\([0-9]*\):#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1:\2/')
done
for l in "${pure[@]}"; do
	for f in src/"$l"/*.[ch]; do
		hits=$(${CC:-cc} -fpreprocessed -dD -E -P "$f" 2>/dev/null |
			grep -nE '\b(printf|fprintf|puts|perror|exit|abort|malloc|calloc|realloc|free|read|write|send|sendmsg|sendmmsg|recv|recvmsg|recvmmsg|socket|ioctl|open|close)\s*\(')
		if [ -n "$hits" ]; then
			echo "$f (comments stripped):"
			echo "$hits"
			bad=1
		fi
	done
done
[ $bad = 0 ] || { echo "lint: see above (src/LAYERS, doc/architecture.md)"; exit 1; }
echo "lint: includes run down the layers; ${pure[*]} call no I/O, printing, exit or allocation function"
