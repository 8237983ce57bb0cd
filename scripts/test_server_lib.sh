# The parts the throwaway test servers share (pg_test_server.sh, redis_test_server.sh,
# pgbouncer_test_server.sh): sourced by them, never run alone.
#
# A script sets PROG, MARK (the file that marks a folder as one of its own: the only
# folders it deletes), READY_TIMEOUT, SERVER (the server's name in messages), URL_VAR
# (the variable `run` sets), DIR_VAR (the variable naming the folder of the
# `start`/`url`/`stop` server) and KIND (a word for folder names), and defines:
#   installed            whether the server's programs are here
#   install_hint         how to install them, in a sentence
#   url_of DIR           the URL of the server of DIR
#   running DIR          whether the server of DIR runs
#   ready DIR            whether it accepts connections
#   start_in DIR [ARG]   start a fresh server in DIR (see fresh_dir) and print its URL
#   stop_server DIR      stop the server of DIR (its folder is then deleted)
# and then calls `serve_command "$@"`.

REPO="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$(command -v python3 || command -v python || echo python3)}"

say() { echo "$PROG: $*" >&2; }
die() { say "$*"; exit 1; }

# A free TCP port of 127.0.0.1 (it can be taken before the server binds it: try again).
free_port() {
    "$PYTHON" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# The folder of this checkout's server: one under ${TMPDIR:-/tmp} named after the
# checkout, so that each checkout has its own.
default_dir() {
    local key
    key="$(printf '%s' "$REPO" | cksum | cut -d' ' -f1)"
    printf '%s/unokit-%s-%s-%s' "${TMPDIR:-/tmp}" "$KIND" "$(id -u)" "$key"
}

# Run a program as the user PostgreSQL's servers run as (they refuse to run as root).
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

# Make DIR an empty folder of this script's (refusing a folder of something else).
fresh_dir() {
    local dir="$1"
    if [[ -d "$dir" && ! -f "$dir/$MARK" ]] && [[ -n "$(ls -A "$dir")" ]]; then
        die "$dir is not empty and is not a folder of this script: not touching it"
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    touch "$dir/$MARK"
}

# Wait until the server of DIR is ready, for READY_TIMEOUT seconds; whether it is.
wait_ready() {
    local dir="$1" deadline=$((SECONDS + READY_TIMEOUT))
    until ready "$dir"; do
        (( SECONDS < deadline )) || return 1
        sleep 0.05
    done
}

# Stop the process whose id the file PIDFILE holds, waiting up to 5 s for it to go.
stop_pid_of() {
    local pid
    [[ -f "$1" ]] || return 0
    pid="$(cat "$1")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
}

# Stop the server of DIR and delete DIR (only a folder of this script's).
stop_in() {
    local dir="$1"
    [[ -d "$dir" ]] || return 0
    [[ -f "$dir/$MARK" ]] || { say "$dir is not a folder of this script: not touching it"; return 0; }
    if installed; then
        stop_server "$dir"
    fi
    rm -rf "$dir"
}

# start | url | stop | run COMMAND...: see the scripts' own usage.
serve_command() {
    local cmd="${1:-}" dir status url
    [[ $# -gt 0 ]] && shift
    dir="${!DIR_VAR:-$(default_dir)}"
    case "$cmd" in
        start)
            installed || die "$(install_hint)"
            if running "$dir" && ready "$dir"; then
                url_of "$dir"
                echo
            else
                start_in "$dir" "$@"
                if [[ -n "${!DIR_VAR:-}" ]]; then
                    say "started (folder $dir); stop it with: $DIR_VAR=$dir $PROG stop"
                else
                    say "started (folder $dir); stop it with: $PROG stop"
                fi
            fi
            ;;
        url)
            running "$dir" || die "no $SERVER is running from this checkout; start one with: $PROG start"
            url_of "$dir"
            echo
            ;;
        stop)
            stop_in "$dir"
            ;;
        run)
            [[ $# -gt 0 ]] || die "usage: $PROG run COMMAND [ARG...]"
            if [[ -n "${!URL_VAR:-}" ]]; then
                exec "$@"
            fi
            if ! installed; then
                say "$(install_hint)."
                say "$URL_VAR is unset: the $SERVER tests will fail."
                exec "$@"
            fi
            RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/unokit-$KIND-run.XXXXXX")"
            trap 'stop_in "$RUN_DIR"' EXIT
            trap 'exit 130' INT
            trap 'exit 143' TERM
            url="$(start_in "$RUN_DIR")"
            printf -v "$URL_VAR" '%s' "$url"
            export "${URL_VAR?}"
            say "$SERVER for the tests: ${!URL_VAR}"
            status=0
            "$@" || status=$?
            exit "$status"
            ;;
        *)
            die "usage: $PROG start|url|stop|run COMMAND [ARG...]"
            ;;
    esac
}
