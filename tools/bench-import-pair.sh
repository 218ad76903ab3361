#!/usr/bin/env bash
# tools/bench-import-pair.sh - two builds' imports of one JSONL file, side
# by side: both start at once, each into a fresh store of its own, and each
# is timed with /usr/bin/time (wall, user, system, peak RSS).
#
#   tools/bench-import-pair.sh [-r ROUNDS] FILE.jsonl BIN_A BIN_B
#
# The machine's pace moves by more than 10 % between runs one after the
# other (docs/PERFORMANCE.md, "Tried again"); two imports at once share
# it, so their difference is the builds'. On two cores each gets about one,
# so the rates are not what one import alone reaches. Each round swaps
# which build starts first. The stores go in a temporary folder beside
# FILE's (an import of 1M memories needs about 2.5 GB for each).
set -euo pipefail
rounds=2
while getopts r: o; do
    case $o in
    r) rounds=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ]; then
    echo "usage: $0 [-r ROUNDS] FILE.jsonl BIN_A BIN_B" >&2
    exit 2
fi
file=$1 a=$2 b=$3
tmp=$(mktemp -d "$(dirname "$file")/import-pair-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
one() { # BIN NAME
    /usr/bin/time -f "$1: %e s wall, %U s user, %S s system, %M KB" \
        "$1" import --db "$tmp/$2.db" "$file" >/dev/null 2>"$tmp/$2.err" ||
        { echo "$1 failed:" >&2; cat "$tmp/$2.err" >&2; exit 1; }
    tail -1 "$tmp/$2.err"
}
for r in $(seq "$rounds"); do
    rm -f "$tmp"/*.db*
    if [ $((r % 2)) -eq 1 ]; then first=$a second=$b; else first=$b second=$a; fi
    one "$first" x >"$tmp/x.out" &
    one "$second" y >"$tmp/y.out" &
    wait
    echo "round $r"
    cat "$tmp/x.out" "$tmp/y.out"
done
