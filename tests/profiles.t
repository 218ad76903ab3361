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
