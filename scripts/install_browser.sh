#!/usr/bin/env bash
# Installs Debian's Chromium and the Noto fonts (Georgian and Cyrillic glyphs among
# them) when Chromium is missing (as root, or with sudo), for the browser tests.
# Playwright's own browser download cannot be reached here: the tests drive
# /usr/bin/chromium (UNOKIT_CHROMIUM overrides it). Used by `make test` and .ci/run.
set -euo pipefail

browser="${UNOKIT_CHROMIUM:-/usr/bin/chromium}"
have_browser() { [[ -x "$browser" ]] && [[ "$(fc-list 2>/dev/null)" == *NotoSansGeorgian* ]]; }

have_browser && exit 0
bash "$(dirname "$0")/apt_install.sh" "Chromium and the Noto fonts" \
    chromium fonts-noto-core fontconfig
have_browser || { echo "install_browser: Chromium did not install" >&2; exit 1; }
