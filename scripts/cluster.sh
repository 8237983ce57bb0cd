#!/usr/bin/env bash
# A cluster on this machine, from Debian's packages: PostgreSQL (the log), Redis (the
# relay between the servers), 3 `unokit serve` processes and nginx in front, routing
# /ws/CODE by the room's code (deploy/cluster-nginx.conf). Runs without root: each part
# is a process of this user in the cluster's folder (as root, PostgreSQL runs as the
# `postgres` user, which it requires). `make cluster` and `make cluster-stop` run it.
#
# Usage:
#   scripts/cluster.sh start    # start every part; prints the proxy's URL
#   scripts/cluster.sh status   # which parts run
#   scripts/cluster.sh stop     # stop every part (the servers first, with SIGTERM,
#                               # so that they hand their rooms over) and delete the folder
#
# The database and Redis are throwaway ones (scripts/pg_test_server.sh,
# scripts/redis_test_server.sh): `stop` deletes them. For a cluster of several machines
# see docs/deploy.md ("Several processes").
#
# Environment:
#   UNOKIT_CLUSTER_DIR            the cluster's folder (default: .cluster in this checkout)
#   UNOKIT_CLUSTER_PORT           the proxy's port on 127.0.0.1 (default 8080)
#   UNOKIT_CLUSTER_SERVER_PORTS   the servers' ports (default "8081 8082 8083"; their
#                                 count is the number of servers)
#   UNOKIT                        the unokit command (default: .venv/bin/unokit)
#   NGINX                         the nginx command (default: nginx, or /usr/sbin/nginx)
# Every other UNOKIT_* setting in the environment reaches the servers.
set -euo pipefail

PROG="scripts/cluster.sh"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${UNOKIT_CLUSTER_DIR:-$REPO/.cluster}"
PORT="${UNOKIT_CLUSTER_PORT:-8080}"
SERVER_PORTS="${UNOKIT_CLUSTER_SERVER_PORTS:-8081 8082 8083}"
UNOKIT="${UNOKIT:-$REPO/.venv/bin/unokit}"
PYTHON="$(dirname "$UNOKIT")/python"
[[ -x "$PYTHON" ]] || PYTHON="$(command -v python3 || echo python3)"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
READY_TIMEOUT=120
MARK=".unokit-cluster"

say() { echo "$PROG: $*" >&2; }
die() { say "$*"; exit 1; }

alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Whether URL $1 answers 200.
answers() {
    "$PYTHON" -c 'import sys, urllib.request
try:
    sys.exit(urllib.request.urlopen(sys.argv[1], timeout=5).status != 200)
except OSError:
    sys.exit(1)' "$1"
}

# Wait until URL $1 answers 200 (or the process of pid file $2 exits).
wait_ready() {
    local deadline=$((SECONDS + READY_TIMEOUT))
    until answers "$1"; do
        alive "$2" || return 1
        (( SECONDS < deadline )) || return 1
        sleep 0.1
    done
}

start() {
    [[ -x "$UNOKIT" ]] || die "$UNOKIT is missing: run \`make venv\` first"
    [[ -x "$NGINX" ]] || die "nginx is missing: run scripts/install_nginx.sh"
    if [[ -f "$DIR/$MARK" ]]; then
        die "a cluster runs from $DIR already (stop it with: $PROG stop)"
    fi
    [[ ! -e "$DIR" || -z "$(ls -A "$DIR")" ]] || die "$DIR is not empty: not touching it"
    mkdir -p "$DIR/tmp"
    chmod 755 "$DIR"  # as root, PostgreSQL runs as `postgres`, which must go in
    touch "$DIR/$MARK"
    trap 'say "start failed: stopping what started"; stop; exit 1' ERR
    # from here on a failure stops what started
    die() { say "$*"; trap - ERR; stop; exit 1; }

    local database redis port n=0 servers=""
    database="$(UNOKIT_PG_DIR="$DIR/postgres" bash "$REPO/scripts/pg_test_server.sh" start)"
    redis="$(UNOKIT_REDIS_DIR="$DIR/redis" bash "$REPO/scripts/redis_test_server.sh" start)"
    {
        echo "UNOKIT_DATABASE_URL=$database"
        echo "UNOKIT_REDIS_URL=$redis"
        echo "UNOKIT_CLUSTER_PORT=$PORT"
        echo "UNOKIT_CLUSTER_SERVER_PORTS=\"$SERVER_PORTS\""
    } >"$DIR/cluster.env"

    # the first server migrates the empty database; the others start once it answers
    for port in $SERVER_PORTS; do
        n=$((n + 1))
        mkdir -p "$DIR/server$n"
        UNOKIT_DATABASE_URL="$database" UNOKIT_REDIS_URL="$redis" UNOKIT_HOST=127.0.0.1 \
            UNOKIT_PORT="$port" UNOKIT_DATA_DIR="$DIR/server$n" \
            UNOKIT_PUBLIC_URL="${UNOKIT_PUBLIC_URL:-http://127.0.0.1:$PORT}" \
            setsid "$UNOKIT" serve >"$DIR/server$n/server.log" 2>&1 </dev/null &
        echo $! >"$DIR/server$n/pid"
        servers+="        server 127.0.0.1:$port max_fails=0;"$'\n'
        if (( n == 1 )); then
            wait_ready "http://127.0.0.1:$port/readyz" "$DIR/server1/pid" \
                || die "server 1 did not start: see $DIR/server1/server.log"
        fi
    done
    n=0
    for port in $SERVER_PORTS; do
        n=$((n + 1))
        wait_ready "http://127.0.0.1:$port/readyz" "$DIR/server$n/pid" \
            || die "server $n did not start: see $DIR/server$n/server.log"
    done

    local conf
    conf="$(<"$REPO/deploy/cluster-nginx.conf")"
    conf="${conf//@DIR@/$DIR}"
    conf="${conf//@PORT@/$PORT}"
    conf="${conf//@SERVERS@/${servers%$'\n'}}"
    printf '%s\n' "$conf" >"$DIR/nginx.conf"
    "$NGINX" -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/error.log" \
        || die "nginx did not start: see $DIR/error.log"
    wait_ready "http://127.0.0.1:$PORT/readyz" "$DIR/nginx.pid" \
        || die "nginx does not answer on port $PORT: see $DIR/error.log"
    trap - ERR
    say "started: $n servers on ports $SERVER_PORTS behind nginx (folder $DIR); stop it" \
        "with: $PROG stop"
    echo "http://127.0.0.1:$PORT"
}

# Stop the process of pid file $1 with SIGTERM and wait for it (SIGKILL after 60 s).
stop_pid() {
    local pid
    alive "$1" || return 0
    pid="$(cat "$1")"
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    say "pid $pid did not stop within 60 s: killing it"
    kill -KILL "$pid" 2>/dev/null || true
}

stop() {
    [[ -d "$DIR" ]] || return 0
    [[ -f "$DIR/$MARK" ]] || { say "$DIR is not a cluster's folder: not touching it"; return 0; }
    stop_pid "$DIR/nginx.pid"
    local file
    for file in "$DIR"/server*/pid; do
        [[ -f "$file" ]] && stop_pid "$file" &
    done
    wait
    UNOKIT_REDIS_DIR="$DIR/redis" bash "$REPO/scripts/redis_test_server.sh" stop
    UNOKIT_PG_DIR="$DIR/postgres" bash "$REPO/scripts/pg_test_server.sh" stop
    rm -rf "$DIR"
}

status() {
    [[ -f "$DIR/$MARK" ]] || { echo "no cluster runs from $DIR"; return 1; }
    local file down=0
    for file in "$DIR"/server*/pid "$DIR/nginx.pid"; do
        if alive "$file"; then echo "running: $(dirname "$file")/$(basename "$file" .pid) (pid $(cat "$file"))"
        else echo "stopped: $file"; down=1; fi
    done
    cat "$DIR/cluster.env"
    return "$down"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) die "usage: $PROG start|status|stop" ;;
esac
