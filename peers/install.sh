#!/bin/sh
# Installs the peer LCP solvers of `cargo xtask bench peers` from this
# machine's registries; run by `cargo xtask bench --install-peers`.
# Idempotent: installed packages are left alone.
#
#   apt (Debian): g++ and pkg-config to build the C++ drivers, libode-dev
#     (ODE's Dantzig solver), libbullet-dev (Bullet's MLCP solvers),
#     python3-siconos (Siconos numerics, for /usr/bin/python3).
#   PyPI: drake, into a virtual environment at $1 (default
#     target/bench-peers/drake-venv), with the python3 found on PATH.
set -eu
VENV="${1:-target/bench-peers/drake-venv}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

PACKAGES="g++ pkg-config libode-dev libbullet-dev python3-siconos"
missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "peers: apt packages installed ($PACKAGES)"
else
    echo "peers: apt-get install$missing"
    $SUDO apt-get update
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $missing
fi

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import pydrake.solvers" 2>/dev/null; then
    echo "peers: drake installed in $VENV"
elif python3 -m venv "$VENV"; then
    echo "peers: pip install drake into $VENV (a large wheel)"
    "$VENV/bin/pip" install --quiet drake
else
    echo "peers: skipped drake: python3 cannot make a virtual environment (apt-get install python3-venv)"
fi
