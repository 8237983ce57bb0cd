#!/usr/bin/env bash
# A throwaway Redis server for the test suite: no persistence, listening on 127.0.0.1 at a
# free port, its folder a temporary one.
#
# Usage:
#   scripts/redis_test_server.sh start      # start one (or find the one already started
#                                           # from this checkout); prints its URL
#   scripts/redis_test_server.sh url        # print the URL of the running one
#   scripts/redis_test_server.sh stop       # stop it and delete its folder
#   scripts/redis_test_server.sh run CMD... # run CMD with UNOKIT_TEST_REDIS_URL set to a
#                                           # server of its own, stopped when CMD ends
#
# For a session at the shell:
#   export UNOKIT_TEST_REDIS_URL="$(scripts/redis_test_server.sh start)"
#   .venv/bin/python -m pytest tests/test_cluster.py
#   scripts/redis_test_server.sh stop
#
# `run` leaves CMD alone when UNOKIT_TEST_REDIS_URL is already set, and when no Redis is
# installed it says how to install it and runs CMD anyway: the tests that need the server
# then fail (they never skip). `make test` runs pytest through `run`.
#
# Environment: UNOKIT_REDIS_DIR, the folder of the `start`/`url`/`stop` server (by
# default one under ${TMPDIR:-/tmp} named after this checkout); PYTHON, the interpreter
# that picks a free port (python3).
set -euo pipefail

PROG="scripts/redis_test_server.sh"
READY_TIMEOUT=30
MARK=".unokit-redis-test-server"
SERVER="Redis"
URL_VAR="UNOKIT_TEST_REDIS_URL"
DIR_VAR="UNOKIT_REDIS_DIR"
KIND="redis"
# shellcheck source=scripts/test_server_lib.sh
source "$(dirname "$0")/test_server_lib.sh"

installed() { command -v redis-server >/dev/null && command -v redis-cli >/dev/null; }

install_hint() {
    echo "Redis is not installed; on Debian or Ubuntu:" \
         "apt-get install --no-install-recommends redis-server"
}

url_of() { printf 'redis://127.0.0.1:%s/0' "$(cat "$1/port")"; }

ready() { [[ -f "$1/port" ]] && redis-cli -h 127.0.0.1 -p "$(cat "$1/port")" ping 2>/dev/null | grep -q PONG; }

running() { [[ -f "$1/redis.pid" ]] && kill -0 "$(cat "$1/redis.pid")" 2>/dev/null; }

# Start a fresh server in folder $1 (created, or emptied first) and print its URL.
start_in() {
    local dir="$1" port attempt
    fresh_dir "$dir"
    for attempt in 1 2 3 4 5; do
        port="$(free_port)"
        echo "$port" >"$dir/port"
        redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" \
            --appendonly no --daemonize yes --pidfile "$dir/redis.pid" \
            --logfile "$dir/redis.log" >/dev/null 2>&1 || true
        wait_ready "$dir" && break
        say "the server did not start on port $port (attempt $attempt):"
        tail -n 5 "$dir/redis.log" >&2 2>/dev/null || true
        rm -f "$dir/port"
    done
    [[ -f "$dir/port" ]] || die "could not start Redis (log: $dir/redis.log)"
    url_of "$dir"
    echo
}

stop_server() { stop_pid_of "$1/redis.pid"; }

serve_command "$@"
