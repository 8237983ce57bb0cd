#!/usr/bin/env bash
# Installs Debian's Redis server when redis-server is missing (as root, or with sudo), so
# that the tests of several server processes sharing one Redis have a server to start
# (scripts/redis_test_server.sh). Used by `make test` and .ci/run.
set -euo pipefail

have_redis() { command -v redis-server >/dev/null && command -v redis-cli >/dev/null; }

have_redis && exit 0
bash "$(dirname "$0")/apt_install.sh" "Redis's server (redis-server, redis-cli)" redis-server
have_redis || { echo "install_redis: Redis did not install" >&2; exit 1; }
