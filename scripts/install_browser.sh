#!/usr/bin/env bash
# Installs Debian's Chromium and the Noto fonts (Georgian and Cyrillic glyphs among
# them) when Chromium is missing (as root, or with sudo), for the browser tests.
# Playwright's own browser download cannot be reached here: the tests drive
# /usr/bin/chromium (UNOKIT_CHROMIUM overrides it). Used by `make test` and .ci/run.
set -euo pipefail

browser="${UNOKIT_CHROMIUM:-/usr/bin/chromium}"
have_browser() { [[ -x "$browser" ]] && [[ "$(fc-list 2>/dev/null)" == *NotoSansGeorgian* ]]; }

have_browser && exit 0
if ! command -v apt-get >/dev/null; then
    echo "install_browser: Chromium is missing and this is not a Debian system:" \
         "install Chromium and set UNOKIT_CHROMIUM to its path" >&2
    exit 1
fi
echo "install_browser: installing Chromium and fonts-noto-core (Debian's packages)" >&2
if [[ "$(id -u)" == 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null; then
    as_root=(sudo)
else
    echo "install_browser: Chromium is missing and this user cannot install it" \
         "(not root, no sudo): apt-get install chromium fonts-noto-core" >&2
    exit 1
fi
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends chromium fonts-noto-core fontconfig
have_browser || { echo "install_browser: Chromium did not install" >&2; exit 1; }
