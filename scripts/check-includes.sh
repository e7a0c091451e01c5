#!/usr/bin/env bash
# Checks the dependency rules of the code (README, "Architecture"): every #include of the product
# folders against the folders it may reach. Prints file:line and the rule for each forbidden include
# and exits 1 when there is any. Tests are not checked: a plugin's tests may include the plugin.
#   scripts/check-includes.sh [SOURCE_DIR]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

violations=0

# forbid FOLDER PATTERN RULE [ALLOWED]: in FOLDER's sources, an include whose target matches the
# extended regex PATTERN breaks RULE, unless it also matches ALLOWED.
forbid() {
  local folder=$1 pattern=$2 rule=$3 allowed=${4:-}
  local hits
  hits=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' \
    "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($pattern)" "$folder" || true)
  if [[ -n $allowed && -n $hits ]]; then
    hits=$(grep -vE "#[[:space:]]*include[[:space:]]*[\"<]($allowed)" <<<"$hits" || true)
  fi
  if [[ -n $hits ]]; then
    while IFS= read -r hit; do
      local file=${hit%%:*} rest=${hit#*:}
      local line=${rest%%:*} text=${rest#*:}
      echo "$file:$line: forbidden include ${text#"${text%%[![:space:]]*}"} (${rule})"
      violations=$((violations + 1))
    done <<<"$hits"
  fi
}

forbid ledger 'server/|rails/|uma/|plugins/' 'ledger/ includes nothing of server/, rails/, uma/, plugins/'
forbid ledger 'boost/asio|boost/beast' 'ledger/ uses no Asio or Beast'
# Inside ledger/, each folder stands on those below it:
#   base <- store <- book <- platforms <- customers <- payments, and webhooks <- platforms.
forbid ledger/base 'ledger/(store|book|platforms|customers|webhooks|payments)/' \
  'ledger/base/ includes no other folder of ledger/'
forbid ledger/store 'ledger/(book|platforms|customers|webhooks|payments)/' \
  'ledger/store/ includes only ledger/base/'
forbid ledger/book 'ledger/(platforms|customers|webhooks|payments)/' \
  'ledger/book/ includes only ledger/store/ and ledger/base/'
forbid ledger/platforms 'ledger/(customers|webhooks|payments)/' \
  'ledger/platforms/ includes only ledger/book/ and below'
forbid ledger/customers 'ledger/(webhooks|payments)/' 'ledger/customers/ includes only ledger/platforms/ and below'
forbid ledger/webhooks 'ledger/(customers|payments)/' 'ledger/webhooks/ includes only ledger/platforms/ and below'
forbid ledger/payments 'ledger/webhooks/' 'ledger/payments/ includes only ledger/customers/ and below'
# Every file of ledger/ and of server/ (but main.cpp) sits in a folder that names what it holds.
while IFS= read -r loose; do
  [[ -z $loose ]] && continue
  echo "$loose:1: forbidden include: a file directly under its top-level folder (put it in the folder that names what it holds)"
  violations=$((violations + 1))
done < <(find ledger server -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.hpp' \) ! -path server/main.cpp | sort)
# In server/, process/ is the ground the other folders stand on, and only cli/ and main.cpp wire
# commands together.
forbid server/process 'server/' 'server/process/ includes nothing else of server/' 'server/process/'
for folder in server/*/; do
  [[ $folder == server/cli/ || $folder == server/process/ ]] && continue
  forbid "$folder" 'server/cli/' 'only main.cpp includes server/cli/'
done
forbid uma 'server/|plugins/' 'uma/ includes nothing of server/ or plugins/'
forbid rails 'server/|uma/|plugins/' 'rails/ includes nothing of server/, uma/ or plugins/'
# The SDK is what plugins build against: it includes only itself (by relative paths, so that it
# works once installed) and the system.
forbid rails/rail_sdk 'ledger/|rails/' 'the rail SDK includes only its own headers, by relative path' \
  'rails/rail_sdk/'
# Installed, the SDK's headers sit under include/corridor/: an include from the source root would
# not resolve there.
while IFS= read -r hit; do
  [[ -z $hit ]] && continue
  echo "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): forbidden include in an SDK header (the SDK's headers include each other by relative path)"
  violations=$((violations + 1))
done < <(grep -rnE --include='*.hpp' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(rails|ledger|server|uma|plugins)/' rails/rail_sdk rails/plugin_sdk.hpp rails/rail_abi.h || true)
forbid server 'plugins/' 'nothing outside plugins/ includes plugins/'
# A plugin builds against the rail ABI and the SDK, and its own and the shipped plugins' shared
# code; never host internals.
forbid plugins 'ledger/|server/|uma/|rails/' 'a plugin includes only rails/rail_abi.h and the rail SDK' \
  'rails/rail_abi\.h|rails/plugin_sdk\.hpp|rails/rail_sdk/'
# Beast and Asio stay in the files that do network I/O.
forbid uma 'boost/asio|boost/beast' 'Asio and Beast only under server/http/'
forbid rails 'boost/asio|boost/beast' 'Asio and Beast only under server/http/'
forbid plugins 'boost/asio|boost/beast' 'Asio and Beast only under server/http/'
for folder in server/*/ server/*.?pp; do
  [[ $folder == server/http/ ]] && continue
  [[ -e $folder ]] || continue
  forbid "$folder" 'boost/asio|boost/beast' 'Asio and Beast only under server/http/'
done

if ((violations > 0)); then
  echo "$violations forbidden include(s)" >&2
  exit 1
fi
echo "include rules: ok"
