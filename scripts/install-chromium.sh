#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium (and the fonts it draws with)
# when it is missing: `cargo xtask viewer-check` renders the viewer page in it.
# Needs root or sudo and the Debian package mirrors; does nothing when
# `chromium` is already on the PATH.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
sudo_if_needed=()
if [ "$(id -u)" -ne 0 ]; then
    sudo_if_needed=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_if_needed[@]}" apt-get update -qq
"${sudo_if_needed[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
