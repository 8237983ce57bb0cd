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
# How long to wait for the server to accept connections, in seconds.
READY_TIMEOUT=60
# The file that marks a folder as one of this script's (the only ones it deletes).
MARK=".unokit-pg-test-server"
SERVER="PostgreSQL"
URL_VAR="UNOKIT_TEST_POSTGRES_URL"
DIR_VAR="UNOKIT_PG_DIR"
KIND="pg"
# shellcheck source=scripts/test_server_lib.sh
source "$(dirname "$0")/test_server_lib.sh"

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

BINDIR="$(find_bindir)"

installed() { [[ -n "$BINDIR" ]]; }

install_hint() {
    echo "PostgreSQL is not installed; on Debian or Ubuntu:" \
         "apt-get install --no-install-recommends postgresql"
}

url_of() { printf 'postgresql+psycopg://postgres@127.0.0.1:%s/postgres' "$(cat "$1/port")"; }

running() { [[ -f "$1/port" ]] && as_server_user "$BINDIR/pg_ctl" status -D "$1/data" >/dev/null 2>&1; }

ready() {
    "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$(cat "$1/port")" -U postgres -d postgres
}

# Start a fresh cluster in folder $1 (created, or emptied first) and print its URL.
start_in() {
    local dir="$1" port attempt
    fresh_dir "$dir"
    mkdir -p "$dir/data" "$dir/socket"
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

stop_server() {
    if [[ -f "$1/data/postmaster.pid" ]]; then
        as_server_user "$BINDIR/pg_ctl" stop -D "$1/data" -m fast -w >/dev/null 2>&1 \
            || say "pg_ctl stop failed (log: $1/server.log)"
    fi
}

serve_command "$@"
