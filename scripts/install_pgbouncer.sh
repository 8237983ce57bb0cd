#!/usr/bin/env bash
# Installs Debian's PgBouncer when the pgbouncer program is missing (as root, or with
# sudo), so that the tests of the server behind a connection pooler in transaction
# pooling have one to start (scripts/pgbouncer_test_server.sh, tests/pgbouncer_kit.py).
# Used by `make test` and .ci/run, beside scripts/install_redis.sh.
set -euo pipefail

have_pgbouncer() { command -v pgbouncer >/dev/null || [[ -x /usr/sbin/pgbouncer ]]; }

have_pgbouncer && exit 0
bash "$(dirname "$0")/apt_install.sh" "PgBouncer (pgbouncer)" pgbouncer
have_pgbouncer || { echo "install_pgbouncer: PgBouncer did not install" >&2; exit 1; }
