#!/bin/sh
# tools/demo.sh - from a fresh Debian machine to the browser on the demo store:
# install the Debian packages the build and the tests need (apt-get, as root
# or through sudo), build memscope, write the bundled demo store to demo.db
# and open the browser on it. Press T in the browser for the guided tour.
set -e
cd "$(dirname "$0")/.."
pkgs="build-essential pkg-config libncurses-dev libsqlite3-dev libcjson-dev libedit-dev
      zlib1g-dev sqlite3 tmux perl python3 clang wordnet-base"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "installing:$missing"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq $missing
fi
make -s
[ -f demo.db ] || ./memscope demo --db demo.db >/dev/null
exec ./memscope --db demo.db
