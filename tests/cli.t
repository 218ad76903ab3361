#!/bin/bash
# cli.t - the memscope binary end to end: malformed input (one error line
# with FILE:LINE:COL, the store byte-for-byte unchanged, no file left behind),
# duplicate policy, round trips, read-only and non-store refusals, exit
# codes, list/show/add/delete, demo, and where the store lives
# ($MEMSCOPE_DB, --profile, $MEMSCOPE_PROFILE, the XDG default).
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it), sqlite3
# and sha256sum. Works in a temporary directory that it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v sqlite3 >/dev/null || bail "sqlite3 is needed (apt-get install sqlite3)"
command -v sha256sum >/dev/null || bail "sha256sum is needed (coreutils)"

SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-cli-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
# Nothing of the caller's environment may choose the store.
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

# no_file_left DB: neither DB nor its -wal/-shm files exist
no_file_left() { [ ! -e "$1" ] && [ ! -e "$1-wal" ] && [ ! -e "$1-shm" ]; }

# A store with a few memories, copied for every case that must not change it.
cat >seed.jsonl <<'EOF'
{"id":"s1","content":"Leah moved to Easton in May","created_at":"2025-05-01T10:00:00Z","speaker":"Leah","session":"a"}
{"id":"s2","content":"Sam teaches chemistry","created_at":"2025-05-02T10:00:00Z","speaker":"Leah","session":"a"}
{"id":"s3","content":"Biscuit the greyhound likes the park","created_at":"2025-05-03T10:00:00Z","session":"b"}
EOF
run import --db base.db seed.jsonl
[ "$rc" -eq 0 ] || bail "cannot build the seed store: $(cat err)"
is "$(cut -c1-21 out)" "imported 3 memories (" "import reports what it imported"

# ---- malformed input ------------------------------------------------------

# bad NAME FILE WHERE [IMPORT OPTIONS...]: importing FILE must fail with exit
# 1 and exactly one stderr line "memscope: FILE:WHERE: ...", leave an existing
# store (a copy of $base, default base.db) byte-for-byte unchanged, and leave
# no file when there was no store.
bad() {
    local name=$1 file=$2 where=$3
    shift 3
    rm -f work.db work.db-wal work.db-shm
    cp "${base:-base.db}" work.db
    local before
    before=$(sha work.db)
    run import --db work.db "$@" "$file"
    is "$rc" 1 "$name: exit status 1"
    is "$(lines err)" 1 "$name: exactly one line on stderr"
    local line
    line=$(head -n 1 err)
    case "$line" in
    "memscope: $file:$where: "?*) ok 0 "$name: error at $file:$where" ;;
    *) ok 1 "$name: error at $file:$where"; diag "got: $line" ;;
    esac
    is "$(sha work.db)" "$before" "$name: the store is byte-for-byte unchanged"
    ok "$([ ! -s work.db-wal ]; echo $?)" "$name: no -wal file with content is left"
    is "$(sqlite3 work.db 'PRAGMA integrity_check')" ok "$name: integrity_check ok"
    rm -f new.db new.db-wal new.db-shm
    run import --db new.db "$@" "$file"
    is "$rc" 1 "$name: into a new store: exit status 1"
    ok "$(no_file_left new.db; echo $?)" "$name: into a new store: no file is left behind"
}

printf '{"id":"b","content":"hel' >truncated.jsonl
bad "truncated JSON" truncated.jsonl 1:25

printf '{"id":"b","content":5}\n' >content-number.jsonl
bad "content is a number" content-number.jsonl 1:21

printf '{"id":"b","content":"x","memory_confidence":2}\n' >confidence.jsonl
bad "memory_confidence 2" confidence.jsonl 1:45

printf '{"id":"b","content":"x","memory_confidence":1e999}\n' >huge-number.jsonl
bad "memory_confidence 1e999" huge-number.jsonl 1:45

{
    printf '{"id":"b","content":"x","a":'
    for _ in $(seq 40); do printf '['; done
    for _ in $(seq 40); do printf ']'; done
    printf '}\n'
} >deep.jsonl
bad "nesting deeper than 32" deep.jsonl 1:60

{
    printf '{"id":"ok","content":"fine"}\n{"id":"b","content":"'
    head -c 1048577 /dev/zero | tr '\0' a
    printf '"}\n'
} >too-long.jsonl
bad "content over 1 MiB" too-long.jsonl 2:21

printf '\xff\xfe{\x00"\x00c\x00' >utf16.jsonl
bad "UTF-16 byte-order mark" utf16.jsonl 1:1

printf '{"content":"one"}\n{"content":"two"}\n{"content":"ab\xffcd"}\n' >bad-utf8.jsonl
bad "invalid UTF-8 in the middle of line 3" bad-utf8.jsonl 3:15

printf '{"content":"one"}\n{"id":"b","speaker":"Sam"}\n' >no-content.jsonl
bad "missing content" no-content.jsonl 2:1

printf '{"id":"b","content":"a\\u0000b"}\n' >nul-escape.jsonl
bad "a \\u0000 escape" nul-escape.jsonl 1:23

printf '{"id":"b","content":"a\0b"}\n' >nul-byte.jsonl
bad "a NUL byte" nul-byte.jsonl 1:23

printf '{"id":"b","content":"x","created_at":"next Tuesday"}\n' >bad-time.jsonl
bad "created_at not a time" bad-time.jsonl 1:38

printf '{"id":"b","content":"x","trust":{"alpha":-1,"beta":1}}\n' >bad-trust.jsonl
bad "negative trust" bad-trust.jsonl 1:33

printf '{"content":"x","profile":""}\n' >empty-profile.jsonl
bad "an empty profile name" empty-profile.jsonl 1:26

# The seed store's vectors are the built-in embedder's: line 1 does not fit
# them (and in a new store, line 2 does not fit line 1).
printf '{"content":"x","embedding":[1,0]}\n{"content":"y","embedding":[1,0,0]}\n' >embedding.jsonl
bad "an embedding that does not fit the store's vectors" embedding.jsonl 1:28

printf '[{"content":"x"},\n {"content":"y", "pinned":"yes"}]\n' >bad-array.json
bad "wrong type in a JSON array" bad-array.json 2:27 --format json

printf '{"id":"dup","content":"one"}\n{"id":"dup","content":"two"}\n' >dup-in-file.jsonl
bad "a duplicate id inside the file" dup-in-file.jsonl 2:1

printf '[{"sample_id":"x","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023",' >bad-locomo.json
printf '"session_1":[{"speaker":"A","dia_id":"D1:1"}]}}]\n' >>bad-locomo.json
bad "a LoCoMo turn without text" bad-locomo.json 1:94 --format locomo # at its session

# A store whose vectors come from another embedder: a failing import still
# prints one line (a note about the vectors belongs to a successful one).
printf '{"id":"v1","content":"with a vector","embedding":[1,0]}\n' >given-vector.jsonl
rm -f gv.db
"$MEMSCOPE" import --db gv.db given-vector.jsonl >/dev/null 2>&1
base=gv.db bad "malformed input into a store of given vectors" truncated.jsonl 1:25

# A malformed line in the second of two files aborts the whole import.
printf '{"id":"f1","content":"from the first file"}\n' >first.jsonl
cp base.db work.db
before=$(sha work.db)
run import --db work.db first.jsonl no-content.jsonl
is "$rc" 1 "a bad second file: exit status 1"
grep -q "^memscope: no-content.jsonl:2:1: " err
ok $? "a bad second file: the error names it"
is "$(sha work.db)" "$before" "a bad second file: the store is unchanged"
run show --db work.db f1
is "$rc" 1 "a bad second file: the first file's memory is not there"

# Missing input file.
rm -f new.db
run import --db new.db does-not-exist.jsonl
is "$rc" 1 "a missing input file: exit status 1"
grep -q "does-not-exist.jsonl" err
ok $? "a missing input file: the error names it"
ok "$(no_file_left new.db; echo $?)" "a missing input file: no store is left behind"

# ---- valid edge cases -----------------------------------------------------

: >empty.jsonl
rm -f empty.db
run import --db empty.db empty.jsonl
is "$rc" 0 "an empty file imports"
grep -q "^imported 0 memories" out
ok $? "an empty file: 0 imported"
ok "$([ -f empty.db ]; echo $?)" "an empty file: the store is created"
schema=$(sed -n 's/^#define STORE_SCHEMA_VERSION \([0-9]*\).*/\1/p' "$SRC/store/store.h")
is "$(sqlite3 empty.db 'PRAGMA user_version')" "$schema" "the new store has the current schema"

# A schema-4 store (every vector dense) is read as it is: reading never
# writes, not even the version; the first write upgrades it.
"$MEMSCOPE" demo --db v4.db >/dev/null
sqlite3 v4.db 'PRAGMA user_version=4'
before=$(sha v4.db)
run recall --db v4.db --json dentist appointment
is "$rc" 0 "recall reads a schema-4 store"
run list --db v4.db
is "$(lines out)" 329 "list too"
run export --db v4.db
is "$(lines out)" 329 "export too"
is "$(sha v4.db)" "$before" "and the file is byte for byte as it was"
ok "$([ ! -s v4.db-wal ]; echo $?)" "with nothing in its WAL"
run add --db v4.db a memory written after schema 4
is "$rc" 0 "a write to it succeeds"
is "$(cat err)" "" "saying nothing of the upgrade when stderr is no terminal"
is "$(sqlite3 v4.db 'PRAGMA user_version')" "$schema" "and upgraded it to the current schema"

# A schema-5 store (no metadata, no supersession columns) is read as it is
# too; the first write adds them.
"$MEMSCOPE" demo --db v5.db >/dev/null
sqlite3 v5.db 'DROP INDEX memories_superseded; ALTER TABLE memories DROP COLUMN metadata; ALTER TABLE memories DROP COLUMN superseded_by;
ALTER TABLE memories DROP COLUMN superseded_at; ALTER TABLE memories DROP COLUMN superseded_reason;
PRAGMA user_version=5'
before=$(sha v5.db)
run recall --db v5.db --json dentist appointment
is "$rc" 0 "recall reads a schema-5 store"
run export --db v5.db
is "$(lines out)" 329 "export too"
run show --db v5.db m0010
grep -q '^status  *current$' out
ok $? "show reads it: not superseded"
is "$(sha v5.db)" "$before" "and the file is byte for byte as it was"
printf '%s\n' '{"id":"n1","content":"a newer note","metadata":{"kind":"note","n":2},"superseded_by":"m0010","superseded_at":"2026-03-08T09:30:00Z","superseded_reason":"test"}' >v6.jsonl
run import --db v5.db v6.jsonl
is "$rc" 0 "an import into it succeeds"
is "$(sqlite3 v5.db 'PRAGMA user_version')" "$schema" "and upgraded it to the current schema"
run show --db v5.db n1
grep -q '^status  *superseded by m0010 (2026-03-08)$' out
ok $? "show says what superseded a memory and when"
grep -q '^metadata  *kind = note$' out
ok $? "and its metadata"
run list --db v5.db --where kind=note
is "$(cut -f1 out)" "n1" "list --where picks memories by a metadata value"
run list --db v5.db --where n=2 --where kind=note --json
is "$(lines out)" 1 "conditions combine, and --json prints the JSONL line"
grep -q '"metadata":{"kind":"note","n":2}' out
ok $? "with its metadata"
run list --db v5.db --where n=3
is "$(lines out)" 0 "a value that does not match lists nothing"
run list --db v5.db --where nokey
is "$rc" 2 "--where without = is a usage error"

printf '\xef\xbb\xbf{"id":"c1","content":"first"}\r\n{"id":"c2","content":"second"}\r\n' >crlf.jsonl
rm -f crlf.db
run import --db crlf.db crlf.jsonl
is "$rc" 0 "a BOM and CRLF line ends are accepted"
run list --db crlf.db
is "$(lines out)" 2 "both lines imported"

# Through a pipe (not seekable): nothing may be lost to format detection.
rm -f pipe.db
"$MEMSCOPE" import --db pipe.db <(cat seed.jsonl) >out 2>err
rc=$?
is "$rc" 0 "JSONL through a pipe imports"
run list --db pipe.db
is "$(lines out)" 3 "JSONL through a pipe: every line imported"
printf '[{"id":"p1","content":"one"},{"id":"p2","content":"two"}]\n' >arr.json
rm -f pipe2.db
"$MEMSCOPE" import --db pipe2.db <(cat arr.json) >out 2>err
rc=$?
is "$rc" 0 "a JSON array through a pipe imports"
run list --db pipe2.db
is "$(lines out)" 2 "a JSON array through a pipe: both memories"
rm -f stdin.db
"$MEMSCOPE" import --db stdin.db - <seed.jsonl >out 2>err
is "$?" 0 "import - reads JSONL from standard input"
run list --db stdin.db
is "$(lines out)" 3 "standard input: every line imported"

# ---- duplicate policy -----------------------------------------------------

printf '{"id":"s1","content":"Leah moved to Bristol"}\n{"id":"s9","content":"new"}\n' >dup.jsonl
cp base.db dup.db
before=$(sha dup.db)
run import --db dup.db dup.jsonl
is "$rc" 1 "--on-duplicate error (the default): exit status 1"
grep -q '"s1"' err
ok $? "the error names the id"
is "$(lines err)" 1 "one line on stderr"
is "$(sha dup.db)" "$before" "the store is unchanged"
run import --db dup.db --on-duplicate error dup.jsonl
is "$rc" 1 "--on-duplicate error: exit status 1"
run import --db dup.db --on-duplicate skip dup.jsonl
is "$rc" 0 "--on-duplicate skip: exit status 0"
grep -q "1 new, 0 replaced, 1 skipped" out
ok $? "skip: 1 new, 1 skipped"
run show --db dup.db s1
grep -q "Leah moved to Easton in May" out
ok $? "skip keeps the old content"
run import --db dup.db --on-duplicate replace dup.jsonl
is "$rc" 0 "--on-duplicate replace: exit status 0"
grep -q "0 new, 2 replaced" out
ok $? "replace: 2 replaced"
run show --db dup.db s1
grep -q "Leah moved to Bristol" out
ok $? "replace writes the new content"
run list --db dup.db
is "$(lines out)" 4 "four memories after skip and replace"
run import --db dup.db --on-duplicate sometimes dup.jsonl
is "$rc" 2 "an unknown policy is a usage error"

# ---- round trip -----------------------------------------------------------

rm -f demo.db rt.db
run demo --db demo.db
"$MEMSCOPE" import --db demo.db --profile work seed.jsonl >/dev/null 2>&1
"$MEMSCOPE" export --db demo.db >e1.jsonl
"$MEMSCOPE" export --db demo.db | "$MEMSCOPE" import --db rt.db - >/dev/null 2>err
is "$?" 0 "export | import succeeds"
"$MEMSCOPE" export --db rt.db >e2.jsonl
is "$(lines e1.jsonl)" 332 "the export holds every profile (329 + 3)"
cmp -s e1.jsonl e2.jsonl
ok $? "export | import | export is identical"
graph() { sqlite3 "$1" "SELECT group_concat(x, ' ') FROM (SELECT src || '-' || dst || ':' || type || ':' || weight AS x FROM edges ORDER BY src, dst, type); SELECT count(*) FROM memory_entities; SELECT count(*) FROM entities"; }
g1=$(graph rt.db)
run import --db rt.db --on-duplicate replace e1.jsonl
is "$rc" 0 "importing the same export again with --on-duplicate replace"
grep -q "0 new, 332 replaced" out
ok $? "replaces every memory"
is "$(graph rt.db)" "$g1" "and leaves entities, links and edges as they were"
"$MEMSCOPE" export --db rt.db >e4.jsonl
cmp -s e1.jsonl e4.jsonl
ok $? "and the export is still identical"
run export --db rt.db -o e3.jsonl
is "$rc" 0 "export -o FILE"
cmp -s e1.jsonl e3.jsonl
ok $? "export -o writes the same"
run export --db rt.db --profile work
is "$(lines out)" 3 "export --profile writes one profile"

# Contradicts relations travel with the memory that contradicts: the other
# memory may come later in the file, and one the store does not hold is left
# out and counted.
cat >rel.jsonl <<'EOF'
{"id":"r1","content":"The meeting is on Tuesday","contradicts":[{"id":"r2","reason":"the day differs"},{"id":"zz"}]}
{"id":"r2","content":"The meeting is on Thursday"}
{"id":"r3","content":"The room is 4B","contradicts":[{"id":"r2"}]}
EOF
rm -f rel.db rel2.db
run import --db rel.db rel.jsonl
is "$rc" 0 "an import whose records give contradicts relations"
grep -q "^contradictions: 2 the source recorded between memories$" out
ok $? "reports the relations it recorded"
grep -q "^contradictions: 1 left out: the memory they name is in neither the file nor the profile$" out
ok $? "and the one whose other memory is missing"
is "$(sqlite3 rel.db "SELECT group_concat(a.id || '>' || b.id || ':' || coalesce(r.reason, '-'), ' ') FROM relations r JOIN memories a ON a.rid = r.src JOIN memories b ON b.rid = r.dst WHERE r.kind = 2")" \
    "r1>r2:the day differs r3>r2:-" "the relations are in the store, with their reasons"
"$MEMSCOPE" export --db rel.db >rel-e1.jsonl
grep -q '"id":"r1".*"contradicts":\[{"id":"r2","reason":"the day differs"}\]' rel-e1.jsonl
ok $? "export writes them on the memory that contradicts"
"$MEMSCOPE" import --db rel2.db rel-e1.jsonl >/dev/null 2>&1
"$MEMSCOPE" export --db rel2.db >rel-e2.jsonl
cmp -s rel-e1.jsonl rel-e2.jsonl
ok $? "export | import | export keeps them"
"$MEMSCOPE" list --db rel.db --json --limit 1 >rel-l.jsonl
grep -q '"contradicts":\[{"id":"r2"' rel-l.jsonl
ok $? "list --json writes them too"
base=rel.db
printf '%s\n' '{"id":"r9","content":"x","contradicts":"r2"}' >rel-bad1.jsonl
bad "contradicts not an array" rel-bad1.jsonl 1:40
printf '%s\n' '{"id":"r9","content":"x","contradicts":[{"id":"r9"}]}' >rel-bad2.jsonl
bad "a memory contradicting itself" rel-bad2.jsonl 1:40
unset base

# ---- read-only ------------------------------------------------------------

cp base.db ro.db
before=$(sha ro.db)
for cmd in "import seed.jsonl" "add some text" "delete s1"; do
    # shellcheck disable=SC2086
    run --db ro.db --read-only $cmd
    is "$rc" 1 "--read-only ${cmd%% *}: exit status 1"
    is "$(lines err)" 1 "--read-only ${cmd%% *}: one line on stderr"
    grep -q "read-only" err
    ok $? "--read-only ${cmd%% *}: the message says read-only"
done
run list --db ro.db --read-only
is "$rc" 0 "--read-only list works"
is "$(lines out)" 3 "and lists the memories"
is "$(sha ro.db)" "$before" "the read-only store is unchanged"
ok "$([ ! -s ro.db-wal ]; echo $?)" "no -wal file with content"

# ---- not a store ----------------------------------------------------------

printf 'this is a text file, not a database\n' >notes.txt
cp notes.txt notes.orig
for cmd in "list" "show s1" "export" "import seed.jsonl" "add text" "delete s1"; do
    # shellcheck disable=SC2086
    run $cmd --db notes.txt
    is "$rc" 1 "a text file as --db: ${cmd%% *} exits 1"
    is "$(lines err)" 1 "a text file as --db: ${cmd%% *}: one line on stderr"
done
grep -q "not a memscope store" err
ok $? "the message says it is not a memscope store"
cmp -s notes.txt notes.orig
ok $? "the text file is unchanged"
ok "$([ ! -e notes.txt-wal ] && [ ! -e notes.txt-shm ]; echo $?)" "no side files next to it"

sqlite3 other.db "CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices(total) VALUES (9.5);"
before=$(sha other.db)
run import --db other.db seed.jsonl
is "$rc" 1 "another application's SQLite database is refused"
is "$(sha other.db)" "$before" "and left unchanged"

cp base.db newer.db
sqlite3 newer.db "PRAGMA user_version=99"
before=$(sha newer.db)
run list --db newer.db
is "$rc" 1 "a store of a newer schema is refused"
grep -q "upgrade memscope" err
ok $? "saying to upgrade"
is "$(sha newer.db)" "$before" "and left unchanged"

# ---- exit codes and help --------------------------------------------------

run frobnicate
is "$rc" 2 "an unknown command exits 2"
is "$(cat err)" "memscope: unknown command 'frobnicate' (see 'memscope --help')" \
    "an unknown command: one line naming it, not the whole usage"
# Every usage error is one line and exits 2: an unknown option of each
# command, a missing argument, a bad value.
bad=""
for c in import export add list show delete demo recall health eval reembed bench feedback \
    shell browse calibrate; do
    run "$c" --db usage.db --no-such-option
    [ "$rc" = 2 ] && [ "$(lines err)" = 1 ] && grep -q -- "--no-such-option" err || bad="$bad $c"
done
for args in "import" "show" "delete" "add" "recall" "add --at yesterday x" "list --limit -1" \
    "recall --limit 0 x" "add --confidence 2 x"; do
    # shellcheck disable=SC2086
    run $args --db usage.db
    [ "$rc" = 2 ] && [ "$(lines err)" = 1 ] || bad="$bad [$args]"
done
is "$bad" "" "every usage error is one line on stderr and exit status 2"
run add --db usage.db --at yesterday x
is "$rc:$(grep -c -- "--at" err)" "2:1" "add --at yesterday: exit 2, naming --at"
run add --db lim.db one
run add --db lim.db two
run list --db lim.db --json --limit 1
is "$rc:$(lines out)" "0:1" "list --json honours --limit"
run list --db lim.db --json --limit 0
is "$rc:$(lines out)" "0:0" "list --json --limit 0 prints nothing"
run --help
is "$rc" 0 "--help exits 0"
# Every subcommand the help lists, and at least the foundation's.
commands=$(sed -n '/^Commands:/,/^$/s/^  *\([a-z][a-z-]*\) .*/\1/p' out)
for cmd in import export add list show delete demo; do
    printf '%s\n' "$commands" | grep -qx "$cmd"
    ok $? "--help lists $cmd"
done
for cmd in $commands; do
    run "$cmd" --no-such-option
    is "$rc" 2 "$cmd --no-such-option exits 2"
    run "$cmd" --help
    is "$rc" 0 "$cmd --help exits 0"
    grep -q "^usage: memscope $cmd" out
    ok $? "$cmd --help prints its usage on stdout"
done
run --version
is "$rc" 0 "--version exits 0"
grep -Eq '^memscope [0-9]+\.[0-9]+\.[0-9]+' out
ok $? "--version prints the version"
# The manual page renders without a troff warning: a wrong escape is
# printed as text (docs/memscope.1 once showed "026" after a lost ellipsis).
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww "$SRC/docs/memscope.1" >/dev/null 2>man.err
    is "$(cat man.err)" "" "docs/memscope.1 renders without a warning"
else
    diag "groff is not installed: the manual page is not rendered"
fi
run list --db
is "$rc" 2 "an option without its argument exits 2"
run import --db base.db
is "$rc" 2 "import without FILE exits 2"
run show --db base.db
is "$rc" 2 "show without ID exits 2"
run import --db base.db --format xml seed.jsonl
is "$rc" 2 "an unknown --format exits 2"
run add --db base.db --confidence 1.5 text
is "$rc" 2 "add --confidence 1.5 exits 2"
run list --db base.db extra-argument
is "$rc" 2 "an unexpected argument exits 2"
run list --db missing.db
is "$rc" 1 "list on a missing store exits 1"
ok "$(no_file_left missing.db; echo $?)" "and creates nothing"

# ---- list, show, add, delete ----------------------------------------------

cp base.db cmd.db
printf '{"id":"nl","content":"line one\\nline two\\twith a tab"}\n' >nl.jsonl
"$MEMSCOPE" import --db cmd.db nl.jsonl >/dev/null
run list --db cmd.db
is "$rc" 0 "list exits 0"
is "$(lines out)" 4 "list prints one line per memory (a newline in content included)"
is "$(head -n 1 out | cut -f1)" s1 "list starts with the oldest memory's id"
grep -q 'line one\\nline two' out
ok $? "a newline in content is shown as \\n"
run list --db cmd.db --limit 2
is "$(lines out)" 2 "list --limit 2"

run show --db cmd.db s1
is "$rc" 0 "show exits 0"
for field in "id  *s1" "content  *Leah moved to Easton in May" "created_at  *2025-05-01T10:00:00Z" \
    "speaker  *Leah" "session  *a" "memory_confidence  *0.700" "trust  *0.500" "importance  *0.500"; do
    grep -Eq "^$field" out
    ok $? "show prints ${field%% *}"
done
grep -Eq "^edges +session 1.00 -> s2" out
ok $? "show prints the session edge to the next turn"
run show --db cmd.db --json s1
is "$rc" 0 "show --json exits 0"
grep -q '"id":[[:space:]]*"s1"' out
ok $? "show --json prints the id"

run add --db cmd.db --id a1 --at "2023-05-08 13:56:00+02:00" --event-time 2023-05-07 --speaker Sam \
    --session s --source cli --confidence 0.4 --importance 0.9 --trust 3,1 --entity "Blue Heron Cafe" --pin \
    Sam ordered from Blue Heron Cafe
is "$rc" 0 "add exits 0"
is "$(cat out)" a1 "add prints the id"
run show --db cmd.db a1
grep -Eq "^content +Sam ordered from Blue Heron Cafe$" out
ok $? "add then show: content"
grep -Eq "^created_at +2023-05-08T11:56:00Z$" out
ok $? "add then show: created_at normalised to UTC"
grep -Eq "^event_time +2023-05-07T00:00:00Z$" out
ok $? "add then show: event_time"
grep -Eq "^speaker +Sam$" out
ok $? "add then show: speaker"
grep -Eq "^source +cli$" out
ok $? "add then show: source"
grep -Eq "^memory_confidence +0.400$" out
ok $? "add then show: memory_confidence"
grep -Eq "^trust +0.750 +\(alpha 3, beta 1\)$" out
ok $? "add then show: trust"
grep -Eq "^importance +0.900$" out
ok $? "add then show: importance"
grep -Eq "^pinned +yes$" out
ok $? "add then show: pinned"
grep -q "Blue Heron Cafe" <(grep -A3 '^entities' out)
ok $? "add then show: the given entity"
run add --db cmd.db another memory without an id
is "$rc" 0 "add without --id"
gen=$(cat out)
run show --db cmd.db "$gen"
is "$rc" 0 "the generated id ($gen) shows"
run add --db cmd.db --id a1 duplicate
is "$rc" 1 "add of an existing id exits 1"
run add --db cmd.db --at "not a time" text
is "$rc" 2 "add --at with a bad time is a usage error (exit 2)"
is "$(cat err)" "memscope: add: --at takes an ISO 8601 time like 2023-05-08T13:56:00Z, not 'not a time' (see 'memscope add --help')" \
    "add --at with a bad time names --at, not \"created_at\""

before=$(sha cmd.db)
run delete --db cmd.db s1 no-such-id
is "$rc" 1 "delete of an unknown id exits 1"
grep -q "no-such-id" err
ok $? "naming the id"
is "$(sha cmd.db)" "$before" "and deletes nothing (not even the known one)"
run show --db cmd.db s1
is "$rc" 0 "s1 is still there"
run delete --db cmd.db s1 s2
is "$rc" 0 "delete exits 0"
run show --db cmd.db s1
is "$rc" 1 "a deleted memory is gone"
run list --db cmd.db
is "$(lines out)" 4 "two fewer memories"
is "$(sqlite3 cmd.db 'SELECT count(*) FROM edges WHERE src NOT IN (SELECT rid FROM memories) OR dst NOT IN (SELECT rid FROM memories)')" 0 \
    "delete leaves no dangling edges"

# ---- demo -----------------------------------------------------------------

rm -f d.db
run demo --db d.db
is "$rc" 0 "demo exits 0"
run list --db d.db
is "$(lines out)" 329 "the demo store holds 329 memories"
is "$(stat -c %a d.db)" 600 "the demo store is mode 0600"
before=$(sha d.db)
run demo --db d.db
is "$rc" 1 "demo refuses to overwrite an existing store"
is "$(lines err)" 1 "with one line on stderr"
grep -q -- "--force" err
ok $? "that mentions --force"
is "$(sha d.db)" "$before" "and leaves it unchanged"
run demo --db d.db --force --read-only
is "$rc" 1 "demo --force --read-only refuses"
is "$(sha d.db)" "$before" "and leaves the store in place"
"$MEMSCOPE" add --db d.db extra memory >/dev/null
run demo --db d.db --force
is "$rc" 0 "demo --force replaces it"
run list --db d.db
is "$(lines out)" 329 "with the 329 demo memories again"

# ---- where the store lives ------------------------------------------------

cp base.db env.db
MEMSCOPE_DB="$T/env.db" "$MEMSCOPE" list >out 2>err
is "$?" 0 "\$MEMSCOPE_DB is honoured"
is "$(lines out)" 3 "\$MEMSCOPE_DB: lists its memories"
MEMSCOPE_DB="$T/env.db" "$MEMSCOPE" list --db "$T/empty.db" >out 2>err
is "$(lines out)" 0 "--db overrides \$MEMSCOPE_DB"

"$MEMSCOPE" import --db env.db --profile work nl.jsonl >/dev/null 2>&1
run list --db env.db
is "$(lines out)" 3 "the default profile does not see another profile's memories"
run list --db env.db --profile work
is "$(lines out)" 1 "--profile work sees its own"
MEMSCOPE_PROFILE=work "$MEMSCOPE" list --db env.db >out 2>err
is "$(lines out)" 1 "\$MEMSCOPE_PROFILE is honoured"
MEMSCOPE_PROFILE=work "$MEMSCOPE" list --db env.db --profile default >out 2>err
is "$(lines out)" 3 "--profile overrides \$MEMSCOPE_PROFILE"
MEMSCOPE_PROFILE=work "$MEMSCOPE" show --db env.db nl >out 2>err
is "$?" 0 "show honours \$MEMSCOPE_PROFILE"
run show --db env.db nl
is "$rc" 1 "and the default profile has no such id"

rm -rf "$XDG_DATA_HOME"
run add from the default path
is "$rc" 0 "add with neither --db nor \$MEMSCOPE_DB"
ok "$([ -f "$XDG_DATA_HOME/memscope/memory.db" ]; echo $?)" \
    "uses \$XDG_DATA_HOME/memscope/memory.db"
run list
is "$(cut -f4 out)" "from the default path" "list reads the same default store"
run demo
is "$rc" 0 "demo with no --db"
ok "$([ -f "$XDG_DATA_HOME/memscope/demo.db" ]; echo $?)" \
    "writes \$XDG_DATA_HOME/memscope/demo.db, not the user's store"
run list
is "$(lines out)" 1 "the user's store is untouched by demo"
rm -rf "$XDG_DATA_HOME"
XDG_DATA_HOME='' "$MEMSCOPE" add from home >/dev/null 2>&1
ok "$([ -f "$HOME/.local/share/memscope/memory.db" ]; echo $?)" \
    "without \$XDG_DATA_HOME the store is ~/.local/share/memscope/memory.db"

# ---- bench's memory figures ------------------------------------------------
# rss_mb counts the mapped pages of the store and the snapshot file the
# recalls read; import_rss_mb is the peak before any recall, rss_anon_mb the
# process's own memory at the end (no file's pages).
mkdir -p "$T/benchtmp"
TMPDIR="$T/benchtmp" run bench --json --memories 1000 --queries 5
is "$rc" 0 "bench --json at 1,000 memories exits 0"
is "$(ls -A "$T/benchtmp")" "" "and leaves nothing in TMPDIR: its stores, logs, seals and snapshots are gone"
is "$(python3 -c 'import json; r = json.load(open("out")); print(0 < r["import_rss_mb"] <= r["rss_mb"], 0 < r["rss_anon_mb"] <= r["rss_mb"])' 2>&1)" \
    "True True" "its import_rss_mb and rss_anon_mb are above 0 and at most its peak rss_mb"
# the pace of tenths 4-6 and 8-10 (the drop-off past 300k of a 1M import,
# issue 17) lies between the slowest and the fastest of those tenths
TMPDIR="$T/benchtmp" run bench --json --memories 10000 --queries 1
is "$(python3 -c '
import json
r = json.load(open("out"))
t = r["import_by_tenth_per_s"]
print([min(t[a:b]) <= r["import_tenths_%d_%d_per_s" % (a + 1, b)] <= max(t[a:b]) and min(t[a:b]) > 0
       for a, b in ((3, 6), (7, 10))])' 2>&1)" \
    "[True, True]" "bench --json gives the pace of tenths 4-6 and 8-10, each within its tenths'"
# --paired: a probe store beside the import, begun again at each tenth,
# gone at the end like the rest
TMPDIR="$T/benchtmp" run bench --json --memories 10000 --queries 1 --paired
is "$rc:$(ls -A "$T/benchtmp")" "0:" "bench --paired exits 0 and leaves nothing in TMPDIR"
is "$(python3 -c '
import json
r = json.load(open("out"))
p, q = r["import_probe_by_tenth_per_s"], r["import_paired_by_tenth"]
print(len(p), len(q), all(x > 0 for x in p + q), r["import_paired_past_300k"] > 0,
      r["import_paired_last_70_first_30"] > 0)' 2>&1)" \
    "10 10 True True True" "and gives the probe's pace and the paired ratios by tenth, and both drop-offs"
# the JSONL import's probe takes every turn the file holds: each of its
# tenths has a pace (the import's own marks come every 0.2 s, so at 10,000
# memories some of its tenths have none)
is "$(python3 -c '
import json
r = json.load(open("out"))
p, q = r["import_jsonl_probe_by_tenth_per_s"], r["import_jsonl_paired_by_tenth"]
print(len(p), len(q), all(x > 0 for x in p),
      "import_jsonl_paired_past_300k" in r, "import_jsonl_paired_last_70_first_30" in r)' 2>&1)" \
    "10 10 True True True" "and the same for the JSONL import, whose probe takes all its turns"
run bench --json --memories 10000 --queries 1
is "$(python3 -c 'import json; print("import_paired_by_tenth" in json.load(open("out")))' 2>&1)" \
    "False" "without --paired there is no probe and no paired figure"
TMPDIR="$T/benchtmp" run bench --memories 1 --queries 1 --paired
grep -q "^  paired with a probe    - past 300k" out
ok $? "with too few memories for ten tenths the table gives no paired ratio, not x 0"
TMPDIR="$T/benchtmp" run bench --memories 20000 --queries 1 --paired
grep -qE "^  paired with a probe    x [0-9]+\.[0-9]{3} past 300k.*\(store_put\)$" out
ok $? "at 20,000 it gives one: $(grep -m1 'paired with' out)"
is "$(grep -c '^  paired with a probe .*(JSONL)$' out)" "1" "and a line for the JSONL import's probe"
run bench --db base.db --paired
is "$rc:$(grep -c -- '--paired' err)" "2:1" "--paired with --db is a usage error naming --paired"
run bench --json --db base.db --queries 5
is "$(python3 -c 'import json; r = json.load(open("out")); print(r["import_rss_mb"], r["rss_anon_mb"] > 0)' 2>&1)" \
    "None True" "with --db there is no import: import_rss_mb is null"
is "$(python3 -c 'import json; print(json.load(open("out"))["memories"])' 2>&1)" \
    "$(sqlite3 base.db "SELECT count(*) FROM memories WHERE profile = 'default'")" \
    "with --db, memories is the profile's count (from the snapshot, as the status bar's)"

# ---- a locale whose decimal mark is a comma --------------------------------
# Numbers on the command line and in the output are C's in every locale:
# under de_DE, "2.5" was not a number to strtod. The locale is compiled into
# $T from Debian's `locales` definitions (localedef, LOCPATH).
if command -v localedef >/dev/null && [ -f /usr/share/i18n/locales/de_DE ] && mkdir -p "$T/loc" &&
    localedef -i de_DE -f UTF-8 "$T/loc/de_DE.UTF-8" >/dev/null 2>&1; then
    de() { LOCPATH="$T/loc" LC_ALL=de_DE.UTF-8 "$MEMSCOPE" "$@" >out 2>err </dev/null; rc=$?; }
    ok "$(env LOCPATH="$T/loc" LC_ALL=de_DE.UTF-8 /usr/bin/printf '%.1f' 2.5 2>/dev/null | grep -q ,; echo $?)" \
        "de_DE.UTF-8 writes 2.5 with a comma (the case is real)"
    cp base.db de.db
    de add --db de.db --confidence 0.75 --trust 2.5,1.5 --importance 0.4 the comma test
    is "$rc:$(cat err)" "0:" "under de_DE, add takes --confidence 0.75 and --trust 2.5,1.5"
    is "$(sqlite3 de.db "SELECT memory_confidence, importance FROM memories WHERE content = 'the comma test'")" \
        "0.75|0.4" "and stores those numbers"
    de recall --db de.db --weights temporal=2.5,bm25=0.5 --limit 2 Leah Easton
    is "$rc:$(cat err)" "0:" "under de_DE, recall takes --weights temporal=2.5,bm25=0.5"
    grep -qE "^ +1 s1 +[01]\.[0-9]{3} " out
    ok $? "and prints its relevance with a point: $(grep -m1 -E '^ +1 ' out | cut -c1-40)"
    grep -E '^ +[0-9]+ ' out | grep -q '[0-9],[0-9]'
    ok $((!$?)) "no number in its rows has a comma"
    de recall --db de.db --json --limit 1 Leah Easton
    ok "$(python3 -c 'import json, sys; json.load(open("out"))' 2>/dev/null; echo $?)" \
        "its JSON is JSON"
else
    skip "no de_DE.UTF-8 to compile (needs localedef and Debian's locales)" 7
fi

tap_done
