#!/usr/bin/env bash
# Installs the Debian packages Corridor builds, tests and runs with, when they are missing.
# Usage: scripts/install-deps.sh [--bench]   (--bench adds the load generator wrk)
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev libboost-program-options1.81-dev
  libssl-dev openssl libsecp256k1-dev libargon2-dev
  libsoci-dev libsqlite3-dev libpq-dev libzstd-dev zstd libmimalloc-dev
  libspdlog-dev libfmt-dev catch2
  postgresql sqlite3
  universal-ctags
  nodejs npm
  chromium
)
[ "${1:-}" = "--bench" ] && packages+=(wrk)

missing=()
for package in "${packages[@]}"; do
  case "$package" in
    # A Node.js from outside Debian counts as present.
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The packaged PostgreSQL cluster is not used: tests start their own server on loopback.
