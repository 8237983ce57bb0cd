#!/usr/bin/env bash
# Installs Debian's ESLint and Node.js when they are missing (as root, or with sudo),
# for the web client's lint and unit tests (tests/test_web_modules.py: ESLint with the
# repository's .eslintrc.json, `node --test tests/web/*.test.mjs`). Nothing comes from a
# package registry; the client itself has no build step and needs no Node at run time.
# Used by `make test` and .ci/run.
set -euo pipefail

have_tools() { command -v eslint >/dev/null && command -v node >/dev/null; }

have_tools && exit 0
bash "$(dirname "$0")/apt_install.sh" "ESLint and Node.js" eslint nodejs
have_tools || { echo "install_web_tools: ESLint or Node.js did not install" >&2; exit 1; }
