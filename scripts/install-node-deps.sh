#!/usr/bin/env bash
# Installs the Node packages of the interop tests from the committed lockfile, once per lockfile.
set -euo pipefail
cd "$(dirname "$0")/../tests/interop"
stamp=node_modules/.corridor-lockfile
if [[ -f $stamp ]] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
