#!/usr/bin/env bash
# tools/bench-grow.sh - the first recall after a small import: the one that
# grows the snapshot file by the memories appended (engine/snapgrow.c).
#
#   tools/bench-grow.sh [-n MEMORIES] [-r ROUNDS] STORE BIN...
#
# Works on a copy of STORE (and of its snapshot file) in a temporary folder;
# STORE itself is not touched. Each round, for each BIN in turn: import
# MEMORIES (default 10) new memories of one session with that BIN, wait
# until the snapshot file can be sealed (2 s), then time one `BIN recall
# --json` with /usr/bin/time (wall, user, system, peak RSS): that process
# grows the file (from 100,000 memories a child it leaves writes the file:
# the time is the command's, and the next round waits for the child).
# Builds must share the snapshot file format. Prints one line per recall.
set -euo pipefail
n=10 rounds=3
while getopts n:r: o; do
    case $o in
    n) n=$OPTARG ;;
    r) rounds=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    echo "usage: $0 [-n MEMORIES] [-r ROUNDS] STORE BIN..." >&2
    exit 2
fi
store=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$store" "$tmp/s.db"
[ -f "$store.snap" ] && cp "$store.snap" "$tmp/s.db.snap"
sleep 2.5
"$1" recall --db "$tmp/s.db" --json "warm" >/dev/null # checks and seals the copied file
k=0
for r in $(seq "$rounds"); do
    for bin in "$@"; do
        k=$((k + 1))
        python3 - "$n" "$k" >"$tmp/add.jsonl" <<'EOF'
import json, sys
n, k = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    print(json.dumps({"id": f"grow-{k}-{i}", "content": f"Carla: Oslo again, visit {i} of round {k}.",
                      "created_at": "2025-02-01T10:%02d:00Z" % (i % 60), "speaker": "Carla",
                      "session": f"grow-{k}"}))
EOF
        "$bin" import --db "$tmp/s.db" "$tmp/add.jsonl" >/dev/null
        sleep 2.5
        /usr/bin/time -f "$bin: %e s wall, %U s user, %S s system, %M KB" \
            "$bin" recall --db "$tmp/s.db" --json "What is the latest on the pebrin?" 2>&1 >/dev/null |
            tail -n 1
        # the child that writes the file (tui/cli/closing.c), if any, ends first
        python3 - "$tmp/s.db" <<'EOF'
import os, sys, time
want = sys.argv[1].encode()
def busy():
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
        except OSError:
            continue
        if int(p) != os.getpid() and want in cmd and b"recall" in cmd:
            return True
    return False
while busy():
    time.sleep(0.2)
EOF
        sleep 2.5
        "$bin" recall --db "$tmp/s.db" --json "seal" >/dev/null
    done
done
