#!/bin/bash
# rooms.t - the walls between the rooms of docs/ARCHITECTURE.md, read from
# the #include lines of every source file:
#
#   store/        store/ only (store/base/ included)
#   engine/       store/, engine/
#   tui/present/  store/, engine/, tui/present/   (no curses)
#   tui/cli/      store/, engine/, tui/present/, tui/cli/
#   tui/shell/    store/, engine/, tui/present/, tui/cli/, tui/shell/
#   tui/browser/  store/, engine/, tui/present/, tui/cli/, tui/browser/
#
# and only tui/browser/ includes curses. The command line reaches the
# browser through tui/cli/browser_face.h alone (declared there, defined in
# tui/browser/). An include without a folder names a file beside it. Needs
# nothing but the sources.
set -u

. "$(dirname "$0")/tap.sh"
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC" || bail "cannot enter $SRC"

allowed() { # allowed ROOM: the rooms ROOM may include
    case $1 in
    store) echo "store" ;;
    engine) echo "store engine" ;;
    tui/present) echo "store engine tui/present" ;;
    tui/cli) echo "store engine tui/present tui/cli" ;;
    tui/shell) echo "store engine tui/present tui/cli tui/shell" ;;
    tui/browser) echo "store engine tui/present tui/cli tui/browser" ;;
    esac
}

# room_of PATH: the room an include path (or a source file) lies in.
room_of() {
    case $1 in
    tui/*/*) echo "${1%%/*}/$(echo "$1" | cut -d/ -f2)" ;;
    */*) echo "${1%%/*}" ;;
    esac
}

# Every file's includes as "FILE ROOM-INCLUDED".
crossings=""
checked=0
for room in store engine tui/present tui/cli tui/shell tui/browser; do
    for f in "$room"/*.[ch] "$room"/*/*.[ch]; do
        [ -f "$f" ] || continue
        checked=$((checked + 1))
        while IFS= read -r inc; do
            case $inc in */*) ;; *) continue ;; esac
            to=$(room_of "$inc")
            case " $(allowed "$room") " in
            *" $to "*) ;;
            *) crossings="$crossings$f includes $inc
" ;;
            esac
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
        if [ "$room" != tui/browser ] && grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(n?curses|ncursesw/|term\.h)' "$f"; then
            crossings="${crossings}$f includes curses
"
        fi
    done
done
ok "$([ "$checked" -gt 100 ]; echo $?)" "the sources are found ($checked files)"
is "$crossings" "" "no room includes a room above it or beside it (tui/cli and tui/shell never include tui/browser; only tui/browser includes curses)"

# The checker itself sees a crossing: a scratch copy of a command file that
# includes a browser header.
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-rooms-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tui/cli"
printf '#include "tui/browser/view.h"\n' >"$T/tui/cli/cmd_x.c"
inc=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$T/tui/cli/cmd_x.c")
case " $(allowed tui/cli) " in *" $(room_of "$inc") "*) seen=1 ;; *) seen=0 ;; esac
is "$seen" 0 "a command file including tui/browser/view.h counts as a crossing"

# The face is all the command line sees of the browser: what it declares
# is defined in tui/browser/.
for fn in browse_run browse_main browse_bench_keys; do
    ok "$(grep -q "^[a-z_ ]*\\b$fn(" tui/cli/browser_face.h && grep -lq "^[a-z_ ]*\\b$fn(" tui/browser/*.c; echo $?)" \
        "browser_face.h declares $fn and tui/browser/ defines it"
done

# The bench's corpus generator is a module of its own, not part of the command.
ok "$(! grep -qE 'zipf|made_up_word|speaker_names' tui/cli/cmd_bench.c; echo $?)" \
    "cmd_bench.c holds no corpus generator (tui/cli/bench_corpus.c does)"
tap_done
