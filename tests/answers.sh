# answers.sh - recall's answers to a list of queries, to compare stores and
# snapshot files (tests/snapfile.t, tests/snapgrow.t). Sourced after tap.sh;
# the including test sets QUERIES (the queries) and ASOF (recall's --as-of
# arguments) before it calls answers.

# answers DB OUT [ENV...]: recall --json --trace of every query into OUT,
# timings removed, each followed by its exit status; stderr into OUT.err.
# ENV (NAME=VALUE words) is the environment of each recall.
answers() {
    local db=$1 out=$2 q
    shift 2
    : >"$out"
    : >"$out.err"
    for q in "${QUERIES[@]}"; do
        env "$@" "$MEMSCOPE" recall --db "$db" --json --trace "${ASOF[@]}" -- "$q" 2>>"$out.err" |
            grep -v '"ms":\|"timing_ms"' >>"$out"
        echo "exit ${PIPESTATUS[0]}" >>"$out"
    done
}
