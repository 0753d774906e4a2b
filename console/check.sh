#!/usr/bin/env bash
# Lints the console's modules and runs their unit tests (Node, no browser).
# Installs the pinned packages (npm ci) when node_modules is missing or older than the lock file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

stamp="node_modules/.package-lock.json"
if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" || package.json -nt "$stamp" ]]; then
  echo "check.sh: installing the pinned packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
npm run --silent lint
npm test
