#!/usr/bin/env bash
# Runs the web console's browser tests against an llmux binary (headless system Chromium).
#   tests/console/run.sh [path/to/llmux]     (or LLMUX_BIN=path/to/llmux tests/console/run.sh)
# LLMUX_CONSOLE_DIR, when set, is passed on: the gateway serves the console from that directory
# instead of its built-in files. Screenshots go to $LLMUX_CONSOLE_ARTIFACTS (default artifacts/).
# Installs the pinned packages (npm ci) when node_modules is missing or older than the lock file.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ $# -ge 1 && -n "$1" ]]; then
  LLMUX_BIN="$1"
fi
if [[ -n "${LLMUX_BIN:-}" ]]; then
  LLMUX_BIN="$(cd "$(dirname "$LLMUX_BIN")" && pwd)/$(basename "$LLMUX_BIN")"
  export LLMUX_BIN
fi
if [[ -n "${LLMUX_CONSOLE_DIR:-}" ]]; then
  LLMUX_CONSOLE_DIR="$(cd "$LLMUX_CONSOLE_DIR" && pwd)"
  export LLMUX_CONSOLE_DIR
fi
if [[ -n "${LLMUX_CONSOLE_ARTIFACTS:-}" ]]; then
  mkdir -p "$LLMUX_CONSOLE_ARTIFACTS"
  LLMUX_CONSOLE_ARTIFACTS="$(cd "$LLMUX_CONSOLE_ARTIFACTS" && pwd)"
  export LLMUX_CONSOLE_ARTIFACTS
fi
cd "$here"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "run.sh: node and npm are required (Node.js 20 or later)" >&2
  exit 1
fi
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$chromium" ]]; then
  echo "run.sh: no Chromium at $chromium (apt-get install chromium, or set CHROMIUM)" >&2
  exit 1
fi

stamp="node_modules/.package-lock.json"
if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" || package.json -nt "$stamp" ]]; then
  echo "run.sh: installing the pinned packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

exec node --test-reporter=spec run.mjs
