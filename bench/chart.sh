#!/usr/bin/env bash
# The benchmark's table as a bar chart (SVG, gnuplot): one bar per row, side by side,
# its height the median Gbit/s and its whisker the range of the runs; below, the CPU
# seconds per GB of the rows that have them.  Reads what bench/run.sh prints (the line
# that starts with "row" and the rows after it, up to a blank line or a "```"), so a table
# pasted from bench/RESULTS.md works as well.
#
#   bench/chart.sh TABLE [SVG]        SVG defaults to TABLE with .svg for its suffix
#   bench/run.sh | tee t.txt; bench/chart.sh t.txt
#   CHART_TITLE="..." bench/chart.sh - out.svg <table.txt
#
# Needs gnuplot (Debian's gnuplot-nox).
set -eu

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 TABLE [SVG]" >&2; exit 2; }
table=$1
if [ $# = 2 ]; then
	svg=$2
elif [ "$table" = - ]; then
	echo "$0: with the table on stdin, name the SVG" >&2
	exit 2
else
	svg=${table%.*}.svg
fi
command -v gnuplot >/dev/null || { echo "$0: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sitd-chart.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# One tab-separated line per row: label, median, low, high, CPU s/GB ("NaN" when none).
# The label is everything before the first "N  N - N": labels longer than their column
# push the rest right, so the columns are found by their shape, not their place.
cat -- "$table" | awk '
	/^sitd benchmark: / && !title { title = $0 }
	!inrows && /^row[ \t]+Gbit\/s/ { inrows = 1; next }
	inrows && (/^[ \t]*$/ || /^```/) { exit }
	inrows {
		if (!match($0, /[ \t]+[0-9]+(\.[0-9]+)?[ \t]+[0-9]+(\.[0-9]+)? - [0-9]+(\.[0-9]+)?/)) {
			printf "chart.sh: not a row of the table: %s\n", $0 > "/dev/stderr"
			bad = 1
			exit
		}
		label = substr($0, 1, RSTART - 1)
		n = split(substr($0, RSTART, RLENGTH), f, /[ \t]+|[ \t]*-[ \t]*/)
		k = 0
		for (i = 1; i <= n; i++) if (f[i] != "") v[++k] = f[i]
		split(substr($0, RSTART + RLENGTH), rest, /[ \t]+/)
		cpu = "NaN"
		for (i = 1; i in rest; i++) if (rest[i] != "") { if (rest[i] ~ /^[0-9]+(\.[0-9]+)?$/) cpu = rest[i]; break }
		gsub(/\t/, " ", label)
		printf "%s\t%s\t%s\t%s\t%s\n", label, v[1], v[2], v[3], cpu
		rows++
	}
	END {
		if (bad) exit 1
		if (!rows) { print "chart.sh: no table (a line starting \"row  Gbit/s\", then rows)" > "/dev/stderr"; exit 1 }
		if (title) print title > "'"$tmp/title"'"
	}' >"$tmp/rows.tsv"

title=${CHART_TITLE:-$(cat "$tmp/title" 2>/dev/null || echo "sitd benchmark")}
rows=$(wc -l <"$tmp/rows.tsv")
width=$((260 + 70 * rows))
[ "$width" -ge 700 ] || width=700

# gnuplot strings in single quotes: a quote inside one is written twice.
q() { printf "'%s'" "${1//\'/\'\'}"; }

cat >"$tmp/chart.gp" <<EOF
set terminal svg size $width,760 dynamic noenhanced font "sans,11" background "white"
set output $(q "$svg")
set datafile separator "\t"
set datafile missing "NaN"
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.7
set grid ytics lc rgb "#dddddd"
set xtics rotate by -30 left nomirror scale 0
set ytics nomirror
set key off
set border 3
set multiplot layout 2,1 title $(q "$title")
set lmargin 10
set rmargin 16
set xrange [-0.6:$rows - 0.4]
set ylabel "Gbit/s (median; whisker: range of the runs)"
set yrange [0:*]
set style histogram errorbars gap 1 lw 1
set bmargin 1
set format x ""
plot $(q "$tmp/rows.tsv") using 2:3:4 lc rgb "#3b75af", \
     '' using 0:2:(sprintf("%.2f", \$2)) with labels offset 0,0.8 font "sans,9" notitle
set style histogram clustered gap 1
set format x "%g"
set bmargin 9
set tmargin 1
set ylabel "CPU s per GB (the tunnel's processes)"
plot $(q "$tmp/rows.tsv") using 5:xtic(1) lc rgb "#ef8636", \
     '' using 0:5:(sprintf("%.2f", \$5)) with labels offset 0,0.8 font "sans,9" notitle
unset multiplot
EOF
gnuplot "$tmp/chart.gp"
# Refuse to leave a broken file behind: the SVG must be well-formed XML.
if command -v xmllint >/dev/null; then
	xmllint --noout "$svg"
else
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$svg"
fi
echo "bench/chart.sh: $rows rows to $svg"
