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
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$(command -v python3 || command -v python || echo python3)}"
READY_TIMEOUT=30
MARK=".unokit-redis-test-server"

say() { echo "$PROG: $*" >&2; }
die() { say "$*"; exit 1; }

install_hint() {
    echo "Redis is not installed; on Debian or Ubuntu:" \
         "apt-get install --no-install-recommends redis-server"
}

default_dir() {
    local key
    key="$(printf '%s' "$REPO" | cksum | cut -d' ' -f1)"
    printf '%s/unokit-redis-%s-%s' "${TMPDIR:-/tmp}" "$(id -u)" "$key"
}

free_port() {
    "$PYTHON" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

url_of() { printf 'redis://127.0.0.1:%s/0' "$(cat "$1/port")"; }

ready() { [[ -f "$1/port" ]] && redis-cli -h 127.0.0.1 -p "$(cat "$1/port")" ping 2>/dev/null | grep -q PONG; }

running() { [[ -f "$1/redis.pid" ]] && kill -0 "$(cat "$1/redis.pid")" 2>/dev/null; }

# Start a fresh server in folder $1 (created, or emptied first) and print its URL.
start_in() {
    local dir="$1" port attempt deadline
    if [[ -d "$dir" && ! -f "$dir/$MARK" ]] && [[ -n "$(ls -A "$dir")" ]]; then
        die "$dir is not empty and is not a folder of this script: not touching it"
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    touch "$dir/$MARK"
    for attempt in 1 2 3 4 5; do
        port="$(free_port)"
        echo "$port" >"$dir/port"
        redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" \
            --appendonly no --daemonize yes --pidfile "$dir/redis.pid" \
            --logfile "$dir/redis.log" >/dev/null 2>&1 || true
        deadline=$((SECONDS + READY_TIMEOUT))
        until ready "$dir"; do
            (( SECONDS < deadline )) || break
            sleep 0.05
        done
        ready "$dir" && break
        say "the server did not start on port $port (attempt $attempt):"
        tail -n 5 "$dir/redis.log" >&2 2>/dev/null || true
        rm -f "$dir/port"
    done
    [[ -f "$dir/port" ]] || die "could not start Redis (log: $dir/redis.log)"
    url_of "$dir"
    echo
}

stop_in() {
    local dir="$1" pid
    [[ -d "$dir" ]] || return 0
    [[ -f "$dir/$MARK" ]] || { say "$dir is not a folder of this script: not touching it"; return 0; }
    if running "$dir"; then
        pid="$(cat "$dir/redis.pid")"
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -rf "$dir"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
DIR="${UNOKIT_REDIS_DIR:-$(default_dir)}"
HAVE=""
command -v redis-server >/dev/null && command -v redis-cli >/dev/null && HAVE=1

case "$cmd" in
    start)
        [[ -n "$HAVE" ]] || die "$(install_hint)"
        if running "$DIR" && ready "$DIR"; then
            url_of "$DIR"
            echo
        else
            start_in "$DIR"
            say "started (folder $DIR); stop it with: $PROG stop"
        fi
        ;;
    url)
        running "$DIR" || die "no server is running from this checkout; start one with: $PROG start"
        url_of "$DIR"
        echo
        ;;
    stop)
        stop_in "$DIR"
        ;;
    run)
        [[ $# -gt 0 ]] || die "usage: $PROG run COMMAND [ARG...]"
        if [[ -n "${UNOKIT_TEST_REDIS_URL:-}" ]]; then
            exec "$@"
        fi
        if [[ -z "$HAVE" ]]; then
            say "$(install_hint)."
            say "UNOKIT_TEST_REDIS_URL is unset: the Redis tests will fail."
            exec "$@"
        fi
        RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/unokit-redis-run.XXXXXX")"
        trap 'stop_in "$RUN_DIR"' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        UNOKIT_TEST_REDIS_URL="$(start_in "$RUN_DIR")"
        export UNOKIT_TEST_REDIS_URL
        say "Redis for the tests: $UNOKIT_TEST_REDIS_URL"
        status=0
        "$@" || status=$?
        exit "$status"
        ;;
    *)
        die "usage: $PROG start|url|stop|run COMMAND [ARG...]"
        ;;
esac
