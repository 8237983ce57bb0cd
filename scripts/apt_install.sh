#!/usr/bin/env bash
# apt_install.sh WHAT PACKAGE...: installs Debian's PACKAGEs (as root, or with sudo) for
# the tests that need WHAT, or says how to when it cannot. Used by install_postgres.sh
# and install_browser.sh.
set -euo pipefail
what="$1"
shift
if ! command -v apt-get >/dev/null; then
    echo "apt_install: $what is missing and this is not a Debian system:" \
         "install it by hand ($*)" >&2
    exit 1
fi
echo "apt_install: installing $what (Debian's packages: $*)" >&2
if [[ "$(id -u)" == 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null; then
    as_root=(sudo)
else
    echo "apt_install: $what is missing and this user cannot install it" \
         "(not root, no sudo): apt-get install $*" >&2
    exit 1
fi
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
