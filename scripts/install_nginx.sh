#!/usr/bin/env bash
# Installs Debian's nginx when it is missing (as root, or with sudo), so that the local
# cluster (scripts/cluster.sh, `make cluster`) and its test have a proxy to start. Used
# by `make test` and .ci/run.
set -euo pipefail

have_nginx() { command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]]; }

have_nginx && exit 0
bash "$(dirname "$0")/apt_install.sh" "nginx (the cluster's proxy)" nginx
have_nginx || { echo "install_nginx: nginx did not install" >&2; exit 1; }
