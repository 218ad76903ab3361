#!/bin/bash
# profiles.t - profiles on the command line: `memscope profiles [--json]`
# with counts, an import that reports what each profile got, `list` on an
# empty or unknown profile saying so (exit 1, naming the profiles that have
# memories), and `memscope demo` printing the one command that opens the
# store it wrote (also when it exists).
set -u

. "$(dirname "$0")/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-profiles-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/data" XDG_STATE_HOME="$T/state"
mkdir -p "$HOME"
cd "$T" || bail "cd"
DB="$T/p.db"

cat >two.jsonl <<'EOF'
{"id":"a1","content":"alpha one","profile":"alpha"}
{"id":"a2","content":"alpha two","profile":"alpha"}
{"id":"b1","content":"beta one","profile":"beta"}
{"id":"d1","content":"default one"}
EOF
run import --db "$DB" two.jsonl
is "$rc" 0 "import into three profiles"
grep -qF "imported 4 memories (4 new, 0 replaced, 0 skipped)" out
ok $? "the total line"
is "$(grep '^  profile' out)" "  profile alpha: 2 new, 2 in all
  profile beta: 1 new, 1 in all
  profile default: 1 new, 1 in all" "one line per profile the import added to"
printf '{"id":"a3","content":"alpha three","profile":"alpha"}\n' >one.jsonl
run import --db "$DB" one.jsonl
is "$(grep '^  profile' out)" "  profile alpha: 1 new, 3 in all" "only the profiles that changed"

printf '{"id":"d2","content":"default two"}\n' >def.jsonl
run import --db "$DB" def.jsonl
grep -q '^  profile' out
ok $((!$?)) "an import into the current profile alone adds no profile line"
printf '{"id":"b2","content":"beta two"}\n' >beta.jsonl
run import --db "$DB" --profile beta beta.jsonl
grep -q '^  profile' out
ok $((!$?)) "nor one into the profile --profile names"
run profiles --db "$DB"
is "$rc" 0 "profiles exits 0"
is "$(cat out)" "  MEMORIES  PROFILE
          3  alpha
          2  beta
*         2  default" "profiles: counts by name, the current one marked"
run profiles --db "$DB" --profile gamma --json
is "$(cat out)" '[{"profile":"alpha","memories":3,"current":false},{"profile":"beta","memories":2,"current":false},{"profile":"default","memories":2,"current":false},{"profile":"gamma","memories":0,"current":true}]' \
    "profiles --json, with the empty current profile at 0"
run profiles --db "$DB" --bogus
is "$rc" 2 "an unknown option is a usage error"

# The counts, exact whatever the sizes: the profiles are found by a seek
# each, every one counted but the widest, which gets the rest of the total.
Q="$T/q.db"
: >empty.jsonl
run import --db "$Q" empty.jsonl
run profiles --db "$Q"
is "$(cat out)" "  MEMORIES  PROFILE
*         0  default" "an empty store: the current profile with 0"
printf '{"id":"s%d","content":"solo %d","profile":"solo"}\n' 1 1 2 2 3 3 >solo.jsonl
run import --db "$Q" solo.jsonl
run profiles --db "$Q" --profile solo
is "$(cat out)" "  MEMORIES  PROFILE
*         3  solo" "one profile: all the store's memories"
run profiles --db "$Q"
is "$(cat out)" "  MEMORIES  PROFILE
          3  solo
*         0  default" "one profile, the current one absent: listed after it with 0"
# "Aa" sorts first (bytes: upper case before lower), "zz" after the other
# ASCII names and "žluť" (c5 be ...) last; every size different
{
    printf '{"id":"x%d","content":"first %d","profile":"Aa"}\n' 1 1 2 2
    printf '{"id":"m%d","content":"middle %d","profile":"mid"}\n' 1 1
    printf '{"id":"z%d","content":"zed %d","profile":"zz"}\n' 1 1 2 2 3 3 4 4 5 5
    printf '{"id":"u%d","content":"last %d","profile":"\u017elu\u0165"}\n' 1 1 2 2 3 3 4 4
    printf '{"id":"d%d","content":"default %d"}\n' 1 1 2 2 3 3 4 4 5 5 6 6
} >sizes.jsonl
run import --db "$Q" sizes.jsonl
run profiles --db "$Q"
is "$(cat out)" "  MEMORIES  PROFILE
          2  Aa
*         6  default
          1  mid
          3  solo
          5  zz
          4  žluť" "six profiles of different sizes, each its own count, by name"
run profiles --db "$Q" --profile žluť --json
is "$(cat out)" '[{"profile":"Aa","memories":2,"current":false},{"profile":"default","memories":6,"current":false},{"profile":"mid","memories":1,"current":false},{"profile":"solo","memories":3,"current":false},{"profile":"zz","memories":5,"current":false},{"profile":"žluť","memories":4,"current":true}]' \
    "the same in --json, the last (unicode) profile current"
run delete --db "$Q" --profile žluť u1 u3
run delete --db "$Q" --profile Aa x2
run delete --db "$Q" --profile mid m1
run delete --db "$Q" d6
run profiles --db "$Q" --profile 0none
is "$(cat out)" "  MEMORIES  PROFILE
          1  Aa
          5  default
          3  solo
          5  zz
          2  žluť
*         0  0none" "after deletes (mid emptied), with an absent current profile that sorts first: listed last with 0"

run list --db "$DB" --profile nosuch
is "$rc" 1 "list on an unknown profile exits 1"
is "$(cat err)" "memscope: profile \"nosuch\" holds no memories (store $DB); profiles with memories: alpha (3), beta (2), default (2)" \
    "and says so, naming the profiles with memories"
run list --db "$DB" --profile nosuch --json
is "$rc" 1 "list --json too"
[ ! -s out ]
ok $? "with nothing on stdout"
run list --db "$DB" --profile beta
is "$(cut -f1 out | tr '\n' ' ')" "b1 b2 " "list on a profile with memories lists them"

run demo
is "$rc" 0 "demo writes the default demo store"
cmd=$(sed -n 's/^open it with: memscope //p' out)
[ -n "$cmd" ]
ok $? "and prints the command that opens it"
eval "set -- $cmd"
"$MEMSCOPE" profiles "$@" >prof.out 2>&1
grep -qE '^\* +329  default$' prof.out
ok $? "that command opens the demo store ($cmd)"
run demo
is "$rc" 1 "demo again: the store exists"
grep -qF "exists; open it with: memscope $cmd (or use --force to replace it)" err
ok $? "the error names the same command"
mkdir "$T/it's"
run demo --db "$T/it's/d.db"
cmd=$(sed -n 's/^open it with: memscope //p' out)
eval "set -- $cmd"
"$MEMSCOPE" profiles "$@" >prof.out 2>&1
grep -qE '^\* +329  default$' prof.out
ok $? "a path with a quote is quoted for the shell"

tap_done
