#!/usr/bin/env bash
# The include check itself: it must pass on this tree, and must fail, naming the file and line, on a
# copy of the product folders with one forbidden include planted per rule.
set -euo pipefail
source_dir=$1
check="$source_dir/scripts/check-includes.sh"
"$check" "$source_dir"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for folder in ledger server uma rails plugins; do cp -r "$source_dir/$folder" "$scratch/"; done
expect_refused() {  # FILE LINE_TEXT: plant the line, expect the check to name FILE:1, then remove it
  local file=$1 text=$2
  printf '%s\n' "$text" >"$scratch/$file"
  if output=$("$check" "$scratch" 2>&1); then
    echo "not refused: $text in $file" >&2
    exit 1
  fi
  grep -qF "$file:1: forbidden include" <<<"$output" || { echo "unexpected report: $output" >&2; exit 1; }
  rm "$scratch/$file"
}
expect_refused ledger/planted.cpp '#include "server/process/config.hpp"'
expect_refused ledger/planted.hpp '#include <boost/asio/io_context.hpp>'
expect_refused uma/planted.cpp '#include "server/process/config.hpp"'
expect_refused rails/planted.cpp '#include "uma/hex.hpp"'
expect_refused server/planted.cpp '#include "plugins/spark/spark_address.hpp"'
expect_refused server/api/planted.cpp '#include <boost/beast/http.hpp>'
expect_refused plugins/ach/planted.cpp '#include "ledger/book/money.hpp"'
expect_refused plugins/pix/planted.cpp '#include "rails/loader.hpp"'
expect_refused ledger/base/planted.cpp '#include "ledger/store/database.hpp"'
expect_refused ledger/store/planted.cpp '#include "ledger/book/money.hpp"'
expect_refused ledger/book/planted.cpp '#include "ledger/platforms/platform_store.hpp"'
expect_refused ledger/customers/planted.cpp '#include "ledger/payments/payments.hpp"'
expect_refused ledger/webhooks/planted.hpp '#include "ledger/customers/customer_store.hpp"'
expect_refused server/process/planted.cpp '#include "server/api/app.hpp"'
expect_refused server/api/planted.hpp '#include "server/cli/cli.hpp"'
expect_refused ledger/planted.cpp '#include <string>'
expect_refused rails/rail_sdk/planted.hpp '#include "rails/rail_sdk/error.hpp"'
"$check" "$scratch" >/dev/null
echo "include check: refuses each planted include"
