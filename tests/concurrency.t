#!/bin/bash
# concurrency.t - other processes writing while recall and list read (WAL).
#
# A writer adds memories in pairs, one transaction a pair, and deletes the
# pair added three steps before in a second transaction; a second writer
# adds single memories. So every committed state holds, of the pairs, a run
# of 3 or 4 consecutive ones, each with both halves. Readers recall and list
# in parallel and check that what they see is one committed state: both
# halves of every pair or neither, a run of consecutive pairs no longer than
# 4, each memory's content belonging to its id. A recall that mixed two
# snapshots (the text index from one moment, memories from another) would
# show half a pair, a gap, or content under the wrong id (row ids are reused
# after a delete). No command may fail: readers never wait in WAL mode and
# writers wait for each other within the busy timeout.
#
# Then the busy timeout itself: a write lock held for 1 s is waited out; one
# held for longer than 5 s gives one clear line and exit 1; readers are not
# blocked by it.
#
# Needs $MEMSCOPE, sqlite3 and perl (JSON::PP is part of perl).
set -u

. "$(dirname "$0")/tap.sh"
command -v sqlite3 >/dev/null || bail "sqlite3 is needed"
perl -MJSON::PP -e 1 2>/dev/null || bail "perl with JSON::PP is needed"

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-concurrency-t.XXXXXX") || bail "mktemp failed"
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

ROUNDS=${MEMSCOPE_CONCURRENCY_ROUNDS:-20} # recalls and lists per reader
READERS=3
DB="$T/c.db"

# Filler, so that the store is not trivial: 200 memories without "tandem".
awk 'BEGIN { for (i = 1; i <= 200; i++)
    printf("{\"id\":\"f%d\",\"content\":\"Filler %d: the harbour office moved on a Tuesday, topic %d\",\"session\":\"f%d\"}\n", i, i, i % 17, int(i / 10)) }' >filler.jsonl
"$MEMSCOPE" import --db "$DB" filler.jsonl >/dev/null 2>err || bail "cannot build the store: $(cat err)"

# ---- the checker ------------------------------------------------------------

# check.pl KIND FILE: KIND json (recall --json) or list; prints nothing when
# the view is one committed state, else what is wrong.
cat >check.pl <<'EOF'
use strict;
use warnings;
use JSON::PP;
my ($kind, $file) = @ARGV;
open my $fh, '<', $file or die "$file: $!";
local $/;
my $text = <$fh>;
my @rows; # [id, content]
if ($kind eq 'json') {
    my $r = eval { decode_json($text) } or do { print "not JSON: $@"; exit 0 };
    push @rows, [$_->{id}, $_->{content}] for @{$r->{results}};
} else {
    for (split /\n/, $text) {
        my @f = split /\t/;
        push @rows, [$f[0], $f[3]];
    }
}
my (%half, @problems);
for my $row (@rows) {
    my ($id, $content) = @$row;
    next unless $id =~ /^p([AB])-(\d+)$/;
    my ($side, $i) = ($1, $2);
    my $want = "tandem pair $i " . ($side eq 'A' ? 'alpha' : 'beta');
    push @problems, "$id holds '$content'" unless index($content, $want) == 0;
    $half{$i}{$side}++;
}
my @pairs = sort { $a <=> $b } keys %half;
for my $i (@pairs) {
    push @problems, "pair $i: only $_ half" for grep { !$half{$i}{$_ eq 'A' ? 'B' : 'A'} } keys %{$half{$i}};
    push @problems, "pair $i: seen twice" if grep { $_ > 1 } values %{$half{$i}};
}
if (@pairs) {
    my $span = $pairs[-1] - $pairs[0] + 1;
    push @problems, "pairs @pairs are not consecutive" if $span != @pairs;
    push @problems, "pairs @pairs: more than 4 at once" if @pairs > 4;
}
print join('; ', @problems), "\n" if @problems;
if ($ENV{SEEN}) { open my $out, '>>', $ENV{SEEN} or die; print $out scalar(@pairs), "\n" }
EOF

# ---- writers and readers ---------------------------------------------------

# writer_pairs: pair i in one transaction, then delete pair i-3 in another,
# until the file stop appears. Failures go to writer.err.
writer_pairs() {
    local i=0
    : >writer.err
    while [ ! -e stop ]; do
        i=$((i + 1))
        printf '{"id":"pA-%d","content":"tandem pair %d alpha side","session":"p%d"}\n{"id":"pB-%d","content":"tandem pair %d beta side","session":"p%d"}\n' \
            "$i" "$i" "$i" "$i" "$i" "$i" >pair.jsonl
        "$MEMSCOPE" import --db "$DB" pair.jsonl >/dev/null 2>w.err ||
            { echo "import of pair $i: $(cat w.err)" >>writer.err; }
        if [ $i -gt 3 ]; then
            "$MEMSCOPE" delete --db "$DB" "pA-$((i - 3))" "pB-$((i - 3))" >/dev/null 2>w.err ||
                { echo "delete of pair $((i - 3)): $(cat w.err)" >>writer.err; }
        fi
    done
    echo "$i" >writer.rounds
}

# writer_singles: another writer competing for the lock.
writer_singles() {
    local i=0
    : >singles.err
    while [ ! -e stop ]; do
        i=$((i + 1))
        "$MEMSCOPE" add --db "$DB" --id "s-$i" "single memory $i from the second writer" \
            >/dev/null 2>s.err || echo "add $i: $(cat s.err)" >>singles.err
    done
    echo "$i" >singles.rounds
}

# reader K: ROUNDS recalls and lists; problems go to reader-K.bad. Readers
# 2 and up recall through the snapshot file (MEMSCOPE_SNAPSHOT=always: each
# maps the file when it is current, else reads the tables and writes a new
# one while the writers commit), reader 1 from the tables alone.
reader() {
    local k=$1 r why snap=off
    [ "$k" -ge 2 ] && snap=always
    : >"reader-$k.bad"
    : >"reader-$k.seen"
    for r in $(seq "$ROUNDS"); do
        if ! MEMSCOPE_SNAPSHOT=$snap "$MEMSCOPE" recall --db "$DB" --json --no-floor --limit 1000 --top-n 5000 \
            tandem pair >"r$k.json" 2>"r$k.err"; then
            echo "recall $r failed: $(cat "r$k.err")" >>"reader-$k.bad"
        elif [ -s "r$k.err" ]; then
            echo "recall $r said: $(cat "r$k.err")" >>"reader-$k.bad"
        else
            why=$(SEEN="reader-$k.seen" perl check.pl json "r$k.json" 2>&1) || why="check.pl failed: $why"
            [ -z "$why" ] || echo "recall $r: $why" >>"reader-$k.bad"
        fi
        if ! "$MEMSCOPE" list --db "$DB" >"l$k.txt" 2>"l$k.err"; then
            echo "list $r failed: $(cat "l$k.err")" >>"reader-$k.bad"
        else
            why=$(perl check.pl list "l$k.txt" 2>&1) || why="check.pl failed: $why"
            [ -z "$why" ] || echo "list $r: $why" >>"reader-$k.bad"
        fi
    done
}

writer_pairs &
wp=$!
writer_singles &
ws=$!
pids="$wp $ws"
# Let the first pairs land before reading.
end=$((SECONDS + 30))
while [ ! -s pair.jsonl ] && [ $SECONDS -lt $end ]; do sleep 0.02; done
readers=""
for k in $(seq $READERS); do
    reader "$k" &
    readers="$readers $!"
done
pids="$pids $readers"
for p in $readers; do wait "$p"; done
touch stop
wait $wp $ws
pids=""

rounds=$(cat writer.rounds 2>/dev/null || echo 0)
diag "the pair writer ran $rounds rounds, the single writer $(cat singles.rounds 2>/dev/null || echo 0)" \
    "while $READERS readers ran $ROUNDS recalls and lists each"
ok "$([ "$rounds" -ge 4 ]; echo $?)" "the pair writer wrote and deleted pairs while the readers read"
is "$(cat writer.err)" "" "no import or delete of the pair writer failed (busy timeout)"
is "$(cat singles.err)" "" "no add of the competing writer failed (busy timeout)"
for k in $(seq $READERS); do
    is "$(cat "reader-$k.bad")" "" "reader $k: every recall and list succeeded and saw one committed state"
done
seen=$(cat reader-*.seen | sort -u | tr '\n' ' ')
diag "pairs seen at once by the recalls: $seen"
ok "$(cat reader-*.seen | grep -qv '^0$'; echo $?)" "the recalls did see pairs (the check had something to check)"
ok "$([ -s "$DB.snap" ]; echo $?)" "the readers through the snapshot file wrote one"
singles=$(cat singles.rounds)
is "$(sqlite3 "$DB" "SELECT count(*) FROM memories WHERE id LIKE 's-%'")" "$singles" \
    "every add of the competing writer is in the store"
is "$(sqlite3 "$DB" "SELECT count(*) FROM memories WHERE id LIKE 'p_-%'")" 6 \
    "three pairs are left, as the writer's last step says"
is "$(sqlite3 "$DB" 'PRAGMA integrity_check')" ok "integrity_check is ok afterwards"

# The checker itself must fail on a torn view, or the test above proves nothing.
printf 'pA-5\tt\t-\ttandem pair 5 alpha side\npB-5\tt\t-\ttandem pair 5 beta side\npA-6\tt\t-\ttandem pair 6 alpha side\n' >torn.txt
ok "$([ -n "$(perl check.pl list torn.txt)" ]; echo $?)" "the checker sees half a pair"
printf 'pA-5\tt\t-\ttandem pair 5 alpha side\npB-5\tt\t-\ttandem pair 5 beta side\npA-7\tt\t-\ttandem pair 7 alpha side\npB-7\tt\t-\ttandem pair 7 beta side\n' >gap.txt
ok "$([ -n "$(perl check.pl list gap.txt)" ]; echo $?)" "the checker sees a gap"
printf 'pA-5\tt\t-\ttandem pair 9 alpha side\npB-5\tt\t-\ttandem pair 5 beta side\n' >wrong.txt
ok "$([ -n "$(perl check.pl list wrong.txt)" ]; echo $?)" "the checker sees content under the wrong id"

# ---- the busy timeout ------------------------------------------------------

# hold SECONDS: keep the write lock of $DB for that long (sqlite3 in the
# background); returns once the lock is taken.
hold() {
    rm -f held
    { echo "BEGIN IMMEDIATE;"; echo ".shell touch held"; sleep "$1"; echo "COMMIT;"; } |
        sqlite3 "$DB" >/dev/null 2>&1 &
    holder=$!
    local end=$((SECONDS + 10))
    while [ ! -e held ] && [ $SECONDS -lt $end ]; do sleep 0.02; done
}

hold 1
"$MEMSCOPE" add --db "$DB" --id waited "a write that waits for the lock" >out 2>err
rc=$?
wait $holder
is "$rc" 0 "a write lock held for 1 s: add waits for it and succeeds"
is "$(cat err)" "" "and prints no error"

hold 9
# The write that gives up, started at once; recall and list meanwhile.
before=$(sqlite3 "$DB" 'SELECT count(*) FROM memories')
start=$SECONDS
"$MEMSCOPE" add --db "$DB" --id too-late "a write that gives up" >add.out 2>add.err &
adder=$!
"$MEMSCOPE" recall --db "$DB" --limit 3 tandem pair >out 2>err
is "$?" 0 "while another process holds the write lock, recall answers"
is "$(cat err)" "" "without an error"
"$MEMSCOPE" list --db "$DB" --limit 3 >out 2>err
is "$?" 0 "and list answers too"
wait $adder
rc=$?
waited=$((SECONDS - start))
wait $holder
is "$rc" 1 "a write lock held for longer than the busy timeout: add exits 1"
is "$(wc -l <add.err | tr -d ' ')" 1 "with one line on stderr"
grep -q "^memscope: .*store $DB is locked by another process (waited 5000 ms)" add.err
st=$?
ok $st "saying the store is locked and how long it waited"
[ $st -eq 0 ] || diag "got: $(cat add.err)"
ok "$([ "$waited" -ge 4 ]; echo $?)" "after waiting for the timeout (${waited} s)"
is "$(sqlite3 "$DB" 'SELECT count(*) FROM memories')" "$before" "and writes nothing"

tap_done
