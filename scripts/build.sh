#!/usr/bin/env bash
# Configures and builds into build/ with Ninja (and ccache when present). Extra arguments are targets.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build "$@"
