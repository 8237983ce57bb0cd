#!/usr/bin/env bash
# A throwaway PgBouncer in transaction pooling in front of a PostgreSQL server, for the
# tests of the server behind a pooler: listening on 127.0.0.1 at a free port, trust
# authentication, every database name passed through to the PostgreSQL server.
#
# Usage:
#   scripts/pgbouncer_test_server.sh start [POSTGRES_URL]
#                               # start one in front of POSTGRES_URL (by default
#                               # UNOKIT_TEST_POSTGRES_URL); prints the SQLAlchemy URL to
#                               # reach the same database through it, which ends in
#                               # ?pool_mode=transaction (see docs/deploy.md)
#   scripts/pgbouncer_test_server.sh url    # print the URL of the running one
#   scripts/pgbouncer_test_server.sh stop   # stop it and delete its folder
#
# For a session at the shell:
#   export UNOKIT_TEST_POSTGRES_URL="$(scripts/pg_test_server.sh start)"
#   export UNOKIT_TEST_PGBOUNCER_URL="$(scripts/pgbouncer_test_server.sh start)"
#
# PgBouncer is Debian's (scripts/install_pgbouncer.sh). Run as root, it runs as the
# `postgres` user, since PgBouncer refuses to run as root.
#
# Environment: UNOKIT_PGBOUNCER_DIR, the folder of the server (by default one under
# ${TMPDIR:-/tmp} named after this checkout); PYTHON, the interpreter that picks a free
# port and reads the URL (python3).
set -euo pipefail

PROG="scripts/pgbouncer_test_server.sh"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$(command -v python3 || command -v python || echo python3)}"
READY_TIMEOUT=30
MARK=".unokit-pgbouncer-test-server"

say() { echo "$PROG: $*" >&2; }
die() { say "$*"; exit 1; }

find_pgbouncer() {
    command -v pgbouncer 2>/dev/null || { [[ -x /usr/sbin/pgbouncer ]] && echo /usr/sbin/pgbouncer; } || true
}

default_dir() {
    local key
    key="$(printf '%s' "$REPO" | cksum | cut -d' ' -f1)"
    printf '%s/unokit-pgbouncer-%s-%s' "${TMPDIR:-/tmp}" "$(id -u)" "$key"
}

as_server_user() {
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
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

# "host port user database" of a PostgreSQL URL.
parts_of() {
    "$PYTHON" -c 'import sys
from urllib.parse import urlsplit
u = urlsplit(sys.argv[1])
print(u.hostname or "127.0.0.1", u.port or 5432, u.username or "postgres",
      (u.path or "/postgres").lstrip("/") or "postgres")' "$1"
}

url_of() {
    printf 'postgresql+psycopg://%s@127.0.0.1:%s/%s?pool_mode=transaction' \
        "$(cat "$1/user")" "$(cat "$1/port")" "$(cat "$1/database")"
}

running() { [[ -f "$1/pgbouncer.pid" ]] && kill -0 "$(cat "$1/pgbouncer.pid")" 2>/dev/null; }

ready() {
    [[ -f "$1/port" ]] && "$PYTHON" -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' \
        "$(cat "$1/port")" 2>/dev/null
}

start_in() {
    local dir="$1" pg="$2" host port user database listen attempt deadline
    if [[ -d "$dir" && ! -f "$dir/$MARK" ]] && [[ -n "$(ls -A "$dir")" ]]; then
        die "$dir is not empty and is not a folder of this script: not touching it"
    fi
    read -r host port user database <<<"$(parts_of "$pg")"
    rm -rf "$dir"
    mkdir -p "$dir"
    touch "$dir/$MARK"
    echo "$user" >"$dir/user"
    echo "$database" >"$dir/database"
    printf '"%s" ""\n' "$user" >"$dir/userlist.txt"
    [[ "$(id -u)" == 0 ]] && chown -R postgres: "$dir"
    for attempt in 1 2 3 4 5; do
        listen="$(free_port)"
        echo "$listen" >"$dir/port"
        cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$host port=$port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $listen
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
ignore_startup_parameters = extra_float_digits
EOF
        [[ "$(id -u)" == 0 ]] && chown postgres: "$dir/pgbouncer.ini" "$dir/port"
        as_server_user "$PGBOUNCER" -d -q "$dir/pgbouncer.ini" >>"$dir/start.log" 2>&1 || true
        deadline=$((SECONDS + READY_TIMEOUT))
        until ready "$dir"; do
            (( SECONDS < deadline )) || break
            sleep 0.05
        done
        ready "$dir" && break
        say "PgBouncer did not start on port $listen (attempt $attempt):"
        tail -n 5 "$dir/pgbouncer.log" >&2 2>/dev/null || true
        rm -f "$dir/port"
    done
    [[ -f "$dir/port" ]] || die "could not start PgBouncer (log: $dir/pgbouncer.log)"
    url_of "$dir"
    echo
}

stop_in() {
    local dir="$1" pid
    [[ -d "$dir" ]] || return 0
    [[ -f "$dir/$MARK" ]] || { say "$dir is not a folder of this script: not touching it"; return 0; }
    if running "$dir"; then
        pid="$(cat "$dir/pgbouncer.pid")"
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -rf "$dir"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
DIR="${UNOKIT_PGBOUNCER_DIR:-$(default_dir)}"
PGBOUNCER="$(find_pgbouncer)"

case "$cmd" in
    start)
        [[ -n "$PGBOUNCER" ]] || die "PgBouncer is not installed; on Debian or Ubuntu: apt-get install --no-install-recommends pgbouncer (or scripts/install_pgbouncer.sh)"
        target="${1:-${UNOKIT_TEST_POSTGRES_URL:-}}"
        [[ -n "$target" ]] || die "usage: $PROG start POSTGRES_URL (or set UNOKIT_TEST_POSTGRES_URL)"
        if running "$DIR" && ready "$DIR"; then
            url_of "$DIR"
            echo
        else
            start_in "$DIR" "$target"
            say "started (folder $DIR); stop it with: $PROG stop"
        fi
        ;;
    url)
        running "$DIR" || die "no PgBouncer is running from this checkout; start one with: $PROG start"
        url_of "$DIR"
        echo
        ;;
    stop)
        stop_in "$DIR"
        ;;
    *)
        die "usage: $PROG start [POSTGRES_URL]|url|stop"
        ;;
esac
