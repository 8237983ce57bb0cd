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
bash "$(dirname "$0")/apt_install.sh" "PostgreSQL's server (initdb, pg_ctl)" postgresql
have_postgres || { echo "install_postgres: PostgreSQL did not install" >&2; exit 1; }
