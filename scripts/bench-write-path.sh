#!/usr/bin/env bash
# The write-path benchmark in one command: builds what it needs, then runs
# tests/bench/write_path_bench.mjs (SQLite and a durable PostgreSQL it starts and stops itself, with
# pgbench TPC-B on that PostgreSQL as the reference). A program that prints figures, not a test.
#   scripts/bench-write-path.sh [seconds] [--plans | --plans-only]
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in wrk psql node; do
  command -v "$tool" >/dev/null || { echo "bench-write-path: $tool not found (scripts/install-deps.sh --bench)" >&2; exit 1; }
done
ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 ||
  { echo "bench-write-path: pgbench not found (it ships with the postgresql server package: scripts/install-deps.sh)" >&2; exit 1; }
scripts/build.sh corridor >/dev/null
exec node tests/bench/write_path_bench.mjs build "$@"
