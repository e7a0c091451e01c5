#!/usr/bin/env bash
# Installs what is missing, builds, and runs Corridor on 127.0.0.1:8080 with an embedded SQLite
# database (var/corridor.db) and a sandbox platform, printing a credential and a curl line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh corridor
mkdir -p var
bin=build/corridor
config=conf/corridor.json
state=var/quickstart-platform-id

"$bin" migrate --config "$config" >/dev/null
if [ -s "$state" ]; then
  platform_id=$(cat "$state")
  credential=$("$bin" token create --config "$config" --platform "$platform_id" --environment sandbox \
    --name "quickstart $(date -u +%Y-%m-%dT%H:%M:%SZ)" --permissions VIEW,TRANSACT,MANAGE --json)
else
  created=$("$bin" platform create --config "$config" --name "Sandbox Platform" \
    --uma-domain 127.0.0.1:8080 --json)
  platform_id=$(node -e 'console.log(JSON.parse(process.argv[1]).platformId)' "$created")
  echo "$platform_id" >"$state"
  credential=$(node -e 'console.log(JSON.stringify(JSON.parse(process.argv[1]).sandbox))' "$created")
fi
client_id=$(node -e 'console.log(JSON.parse(process.argv[1]).clientId)' "$credential")
client_secret=$(node -e 'console.log(JSON.parse(process.argv[1]).clientSecret)' "$credential")

cat <<INFO

Corridor sandbox platform $platform_id
  clientId     $client_id
  clientSecret $client_secret   (shown once; a new token is made at every start)

Try it:
  curl -u '$client_id:$client_secret' http://127.0.0.1:8080/2025-10-13/config
  curl -u '$client_id:$client_secret' -H 'Content-Type: application/json' \\
       -d '{"customerType":"INDIVIDUAL","fullName":"Ada Lovelace"}' http://127.0.0.1:8080/2025-10-13/customers

INFO
# serve refuses to run as root; a throwaway container often is root, so the quickstart (only) says
# so and passes --allow-root then. Run Corridor as its own user in production.
serve_flags=()
if [ "$(id -u)" -eq 0 ]; then
  echo "note: running as root, so the quickstart passes --allow-root to serve (do not do this in production)"
  serve_flags+=(--allow-root)
fi
exec "$bin" serve --config "$config" "${serve_flags[@]}"
