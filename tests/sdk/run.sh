#!/usr/bin/env bash
# Runs the official-SDK conformance tests against an llmux binary.
#   tests/sdk/run.sh [path/to/llmux]      (or LLMUX_BIN=path/to/llmux tests/sdk/run.sh)
# Installs the pinned SDKs (npm ci) when node_modules is missing or older than the lock file.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The binary: the argument, else $LLMUX_BIN; made absolute before leaving the caller's directory.
if [[ $# -ge 1 && -n "$1" ]]; then
  LLMUX_BIN="$1"
fi
if [[ -n "${LLMUX_BIN:-}" ]]; then
  LLMUX_BIN="$(cd "$(dirname "$LLMUX_BIN")" && pwd)/$(basename "$LLMUX_BIN")"
  export LLMUX_BIN
fi
cd "$here"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "run.sh: node and npm are required (Node.js 20 or later)" >&2
  exit 1
fi

# npm writes node_modules/.package-lock.json on every install: it is the stamp of what is there.
stamp="node_modules/.package-lock.json"
if [[ -f package-lock.json ]]; then
  if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" || package.json -nt "$stamp" ]]; then
    echo "run.sh: installing the pinned SDKs (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
elif [[ ! -d node_modules || package.json -nt "$stamp" ]]; then
  echo "run.sh: no package-lock.json, resolving the SDKs (npm install)"
  npm install --no-audit --no-fund --loglevel=error
fi

exec node --test-reporter=spec run.mjs
