#!/usr/bin/env bash
# Installs Debian's PostgreSQL when its server programs are missing (as root, or with
# sudo), so that the storage and server tests, which run on SQLite and on PostgreSQL,
# have a server to start (scripts/pg_test_server.sh). Used by `make test` and .ci/run.
set -euo pipefail

have_postgres() {
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null \
        || { command -v initdb >/dev/null && command -v pg_ctl >/dev/null; }
}

have_postgres && exit 0
if ! command -v apt-get >/dev/null; then
    echo "install_postgres: PostgreSQL is missing and this is not a Debian system:" \
         "install PostgreSQL's server (initdb, pg_ctl) by hand" >&2
    exit 1
fi
echo "install_postgres: installing PostgreSQL (Debian's package)" >&2
if [[ "$(id -u)" == 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null; then
    as_root=(sudo)
else
    echo "install_postgres: PostgreSQL is missing and this user cannot install it" \
         "(not root, no sudo): apt-get install postgresql" >&2
    exit 1
fi
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends postgresql
have_postgres || { echo "install_postgres: PostgreSQL did not install" >&2; exit 1; }
