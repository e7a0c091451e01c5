#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test suite (unit, API on SQLite and on
# a PostgreSQL the run starts and stops, interop, browser) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-node-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure --timeout 600 -j 2 "$@"
