#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite: a fresh cluster in a temporary folder,
# listening on 127.0.0.1 at a free port, with trust authentication for the `postgres` role.
#
# Usage:
#   scripts/pg_test_server.sh start      # start one (or find the one already started from
#                                        # this checkout); prints its SQLAlchemy URL
#   scripts/pg_test_server.sh url        # print the URL of the running one
#   scripts/pg_test_server.sh stop       # stop it and delete its folder
#   scripts/pg_test_server.sh run CMD... # run CMD with UNOKIT_TEST_POSTGRES_URL set to a
#                                        # server of its own, stopped when CMD ends
#
# For a session at the shell:
#   export UNOKIT_TEST_POSTGRES_URL="$(scripts/pg_test_server.sh start)"
#   .venv/bin/python -m pytest tests/test_dbs.py
#   scripts/pg_test_server.sh stop
#
# `run` leaves CMD alone when UNOKIT_TEST_POSTGRES_URL is already set, and when no
# PostgreSQL is installed it says how to install it and runs CMD anyway: the tests that
# need the server then fail (they never skip). `make test` runs pytest through `run`.
#
# The server binaries are Debian's (`apt-get install postgresql`), found under
# /usr/lib/postgresql/<version>/bin (the newest version), or else on PATH. Run as root,
# the server runs as the `postgres` user, since PostgreSQL refuses to run as root.
#
# Environment: UNOKIT_PG_DIR, the folder of the `start`/`url`/`stop` server (by default
# one under ${TMPDIR:-/tmp} named after this checkout, so each checkout has its own);
# PYTHON, the interpreter that picks a free port (python3).
set -euo pipefail

PROG="scripts/pg_test_server.sh"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$(command -v python3 || command -v python || echo python3)}"
# How long to wait for the server to accept connections, in seconds.
READY_TIMEOUT=60
# The file that marks a folder as one of this script's (the only ones it deletes).
MARK=".unokit-pg-test-server"

say() { echo "$PROG: $*" >&2; }
die() { say "$*"; exit 1; }

# The folder holding PostgreSQL's server programs, or nothing.
find_bindir() {
    local dir best=""
    for dir in /usr/lib/postgresql/*/bin; do
        [[ -x "$dir/initdb" && -x "$dir/pg_ctl" && -x "$dir/pg_isready" ]] || continue
        # Keep the highest version number (the glob sorts 10 before 9).
        if [[ -z "$best" ]] || (( $(basename "$(dirname "$dir")" | tr -cd 0-9) >
                                  $(basename "$(dirname "$best")" | tr -cd 0-9) )); then
            best="$dir"
        fi
    done
    if [[ -z "$best" ]] && command -v initdb >/dev/null && command -v pg_ctl >/dev/null \
            && command -v pg_isready >/dev/null; then
        best="$(dirname "$(command -v initdb)")"
    fi
    printf '%s' "$best"
}

install_hint() {
    echo "PostgreSQL is not installed; on Debian or Ubuntu:" \
         "apt-get install --no-install-recommends postgresql"
}

default_dir() {
    local key
    key="$(printf '%s' "$REPO" | cksum | cut -d' ' -f1)"
    printf '%s/unokit-pg-%s-%s' "${TMPDIR:-/tmp}" "$(id -u)" "$key"
}

# Run a PostgreSQL program as the user the server runs as.
as_server_user() {
    if [[ "$(id -u)" == 0 ]]; then
        if command -v runuser >/dev/null; then
            runuser -u postgres -- "$@"
        else
            su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
        fi
    else
        "$@"
    fi
}

free_port() {
    "$PYTHON" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

url_of() { printf 'postgresql+psycopg://postgres@127.0.0.1:%s/postgres' "$(cat "$1/port")"; }

running() { [[ -f "$1/port" ]] && as_server_user "$BINDIR/pg_ctl" status -D "$1/data" >/dev/null 2>&1; }

ready() {
    "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$(cat "$1/port")" -U postgres -d postgres
}

# Start a fresh cluster in folder $1 (created, or emptied first) and print its URL.
start_in() {
    local dir="$1" port attempt
    if [[ -d "$dir" && ! -f "$dir/$MARK" ]] && [[ -n "$(ls -A "$dir")" ]]; then
        die "$dir is not empty and is not a folder of this script: not touching it"
    fi
    rm -rf "$dir"
    mkdir -p "$dir/data" "$dir/socket"
    touch "$dir/$MARK"
    if [[ "$(id -u)" == 0 ]]; then
        getent passwd postgres >/dev/null || die "no 'postgres' user to run the server as"
        chown -R postgres: "$dir"
    fi
    chmod 700 "$dir/data"
    as_server_user test -w "$dir/data" \
        || die "the server's user cannot write $dir/data (set TMPDIR or UNOKIT_PG_DIR elsewhere)"
    as_server_user "$BINDIR/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale \
        --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    # A throwaway cluster: nothing in it needs to survive a crash.
    cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/socket'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
    # A free port can be taken between choosing it and the server binding it: try again.
    for attempt in 1 2 3 4 5; do
        port="$(free_port)"
        echo "$port" >"$dir/port"
        if as_server_user "$BINDIR/pg_ctl" start -w -t "$READY_TIMEOUT" -D "$dir/data" \
                -l "$dir/server.log" -o "-p $port" >/dev/null 2>&1; then
            break
        fi
        say "the server did not start on port $port (attempt $attempt):"
        tail -n 5 "$dir/server.log" >&2 || true
        rm -f "$dir/port"
    done
    [[ -f "$dir/port" ]] || die "could not start PostgreSQL (log: $dir/server.log)"
    local deadline=$((SECONDS + READY_TIMEOUT))
    until ready "$dir"; do
        (( SECONDS < deadline )) || die "no connection after ${READY_TIMEOUT}s (log: $dir/server.log)"
        running "$dir" || die "the server stopped (log: $dir/server.log)"
        sleep 0.1
    done
    url_of "$dir"
    echo
}

stop_in() {
    local dir="$1"
    [[ -d "$dir" ]] || return 0
    [[ -f "$dir/$MARK" ]] || { say "$dir is not a folder of this script: not touching it"; return 0; }
    if [[ -f "$dir/data/postmaster.pid" ]]; then
        as_server_user "$BINDIR/pg_ctl" stop -D "$dir/data" -m fast -w >/dev/null 2>&1 \
            || say "pg_ctl stop failed (log: $dir/server.log)"
    fi
    rm -rf "$dir"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
BINDIR="$(find_bindir)"
DIR="${UNOKIT_PG_DIR:-$(default_dir)}"

case "$cmd" in
    start)
        [[ -n "$BINDIR" ]] || die "$(install_hint)"
        if running "$DIR" && ready "$DIR"; then
            url_of "$DIR"
            echo
        else
            start_in "$DIR"
            if [[ -n "${UNOKIT_PG_DIR:-}" ]]; then
                say "started (folder $DIR); stop it with: UNOKIT_PG_DIR=$DIR $PROG stop"
            else
                say "started (folder $DIR); stop it with: $PROG stop"
            fi
        fi
        ;;
    url)
        running "$DIR" || die "no server is running from this checkout; start one with: $PROG start"
        url_of "$DIR"
        echo
        ;;
    stop)
        if [[ -z "$BINDIR" ]]; then
            [[ -f "$DIR/$MARK" ]] && rm -rf "$DIR"
            exit 0
        fi
        stop_in "$DIR"
        ;;
    run)
        [[ $# -gt 0 ]] || die "usage: $PROG run COMMAND [ARG...]"
        if [[ -n "${UNOKIT_TEST_POSTGRES_URL:-}" ]]; then
            exec "$@"
        fi
        if [[ -z "$BINDIR" ]]; then
            say "$(install_hint)."
            say "UNOKIT_TEST_POSTGRES_URL is unset: the PostgreSQL tests will fail."
            exec "$@"
        fi
        RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/unokit-pg-run.XXXXXX")"
        trap 'stop_in "$RUN_DIR"' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        UNOKIT_TEST_POSTGRES_URL="$(start_in "$RUN_DIR")"
        export UNOKIT_TEST_POSTGRES_URL
        say "PostgreSQL for the tests: $UNOKIT_TEST_POSTGRES_URL"
        status=0
        "$@" || status=$?
        exit "$status"
        ;;
    *)
        die "usage: $PROG start|url|stop|run COMMAND [ARG...]"
        ;;
esac
