#!/usr/bin/env bash
# Runs `corridor plugins check PLUGIN` on a plugin that breaks the rail contract on purpose, and
# passes only when the check exits 1 with a BREACH line matching EXPECTED (an extended regex).
#   plugins_check_breach.sh CORRIDOR PLUGIN EXPECTED [extra arguments of plugins check...]
set -u
corridor=$1 plugin=$2 expected=$3
shift 3
output=$("$corridor" plugins check "$plugin" "$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 1 ]; then
  echo "expected exit status 1 (a breach), got $status" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -E -q "^BREACH .*$expected"; then
  echo "expected a BREACH line matching: $expected" >&2
  exit 1
fi
