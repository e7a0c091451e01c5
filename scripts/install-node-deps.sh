#!/usr/bin/env bash
# Installs the Node packages of the test suites that use any (interop, browser, api) from their committed
# lockfiles, once per lockfile.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for suite in interop browser api; do
  cd "$root/tests/$suite"
  stamp=node_modules/.corridor-lockfile
  if [[ -f $stamp ]] && cmp -s package-lock.json "$stamp"; then
    continue
  fi
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
done
