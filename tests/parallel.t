#!/bin/bash
# parallel.t - the semantic channel's scan on a second thread (engine.c
# run_channels, PARALLEL_MIN): a recall gives the same answer, trace and
# notes with the thread as without it, from the tables and from a mapped
# snapshot file, for questions, bare words, stop words only and nonsense.
#
# MEMSCOPE_PARALLEL=always makes the small stores here use the thread (by
# default only stores of 500,000 memories and more do); =off never. Needs
# $MEMSCOPE and python3.
set -u

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/answers.sh" # answers
command -v python3 >/dev/null || bail "python3 is needed"

scratch parallel-t
unset MEMSCOPE_PARALLEL

ASOF=(--as-of 2025-01-01T00:00:00Z)
QUERIES=("What does Caroline paint?" "When did Melanie go camping?" "dentist"
    "What is the latest on the adoption?" "penguin chromodynamics" "the and of"
    "the e-mail about the dinner" "what did she say she would do next week with the kids")

"$MEMSCOPE" demo --db demo.db >/dev/null 2>err || bail "cannot write the demo store: $(cat err)"

for snap in off always; do
    answers demo.db one-$snap.txt MEMSCOPE_PARALLEL=off MEMSCOPE_SNAPSHOT=$snap
    answers demo.db two-$snap.txt MEMSCOPE_PARALLEL=always MEMSCOPE_SNAPSHOT=$snap
    ok "$([ "$(grep -c '"results"' one-$snap.txt)" = ${#QUERIES[@]} ] && cmp -s one-$snap.txt two-$snap.txt && [ ! -s two-$snap.txt.err ]; echo $?)" \
        "the demo store (snapshot $snap): the same answers and traces with the scan on a thread"
done
answers demo.db default.txt MEMSCOPE_SNAPSHOT=off
ok "$(cmp -s one-off.txt default.txt; echo $?)" "below 500,000 memories the default is the same answer"

# A bench store: random texts, more vectors per block than the demo's.
"$MEMSCOPE" bench --memories 3000 --queries 5 --keep bench.db >/dev/null 2>err ||
    bail "cannot write a bench store: $(cat err)"
mapfile -t QUERIES < <("$MEMSCOPE" bench --list-queries --queries 20)
answers bench.db b-one.txt MEMSCOPE_PARALLEL=off
answers bench.db b-two.txt MEMSCOPE_PARALLEL=always
ok "$([ "$(grep -c '"results"' b-one.txt)" = 20 ] && cmp -s b-one.txt b-two.txt; echo $?)" \
    "a bench store: 20 queries' answers and traces the same with the scan on a thread"
# The thread's work shows: in each answer the semantic channel was active
# and found candidates (a list the thread left empty would match an empty
# list without it).
python3 - b-two.txt >sem 2>&1 <<'PY'
import re, sys
text = open(sys.argv[1]).read()
found = re.findall(r'"semantic":\s*\{\s*"active":\s*true,\s*"candidates":\s*(\d+)', text)
print(sum(1 for n in found if int(n) > 0))
PY
is "$(cat sem)" 20 "and the semantic channel found candidates in each of them"

tap_done
