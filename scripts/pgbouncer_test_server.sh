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
#   scripts/pgbouncer_test_server.sh run CMD...
#                               # run CMD with UNOKIT_TEST_PGBOUNCER_URL set to one of
#                               # its own (in front of UNOKIT_TEST_POSTGRES_URL), stopped
#                               # when CMD ends
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
READY_TIMEOUT=30
MARK=".unokit-pgbouncer-test-server"
SERVER="PgBouncer"
URL_VAR="UNOKIT_TEST_PGBOUNCER_URL"
DIR_VAR="UNOKIT_PGBOUNCER_DIR"
KIND="pgbouncer"
# shellcheck source=scripts/test_server_lib.sh
source "$(dirname "$0")/test_server_lib.sh"

find_pgbouncer() {
    command -v pgbouncer 2>/dev/null || { [[ -x /usr/sbin/pgbouncer ]] && echo /usr/sbin/pgbouncer; } || true
}
PGBOUNCER="$(find_pgbouncer)"

installed() { [[ -n "$PGBOUNCER" ]]; }

install_hint() {
    echo "PgBouncer is not installed; on Debian or Ubuntu:" \
         "apt-get install --no-install-recommends pgbouncer (or scripts/install_pgbouncer.sh)"
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
    local dir="$1" pg="${2:-${UNOKIT_TEST_POSTGRES_URL:-}}" host port user database listen attempt
    [[ -n "$pg" ]] || die "usage: $PROG start POSTGRES_URL (or set UNOKIT_TEST_POSTGRES_URL)"
    read -r host port user database <<<"$(parts_of "$pg")"
    fresh_dir "$dir"
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
        wait_ready "$dir" && break
        say "PgBouncer did not start on port $listen (attempt $attempt):"
        tail -n 5 "$dir/pgbouncer.log" >&2 2>/dev/null || true
        rm -f "$dir/port"
    done
    [[ -f "$dir/port" ]] || die "could not start PgBouncer (log: $dir/pgbouncer.log)"
    url_of "$dir"
    echo
}

stop_server() { stop_pid_of "$1/pgbouncer.pid"; }

serve_command "$@"
