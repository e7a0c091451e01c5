#!/usr/bin/env bash
# The quick start builds the `corridor` target alone and then serves conf/corridor.json: every rail
# that configuration loads must be built by that target, or the service stops at start-up on a
# fresh clone ("rail plugin ...: no such file").
#   quickstart_target_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build_dir=$2
rails=$(node -e 'const c = require(process.argv[1]); console.log(c.plugins.rails.join(" "))' \
  "$source_dir/conf/corridor.json")
commands=$(ninja -C "$build_dir" -t commands corridor)
for rail in $rails; do
  grep -q "plugins/$rail\.so" <<<"$commands" || {
    echo "building the corridor target does not build the $rail rail that conf/corridor.json loads" >&2
    exit 1
  }
done
echo "the corridor target builds every rail conf/corridor.json loads: $rails"
