#!/usr/bin/env bash
# The size check itself: it must pass on this tree, and must fail, naming the file and line, on a
# copy of the product folders with an over-long file and an over-long function planted, and pass
# again once each says why.
set -euo pipefail
source_dir=$1
check="$source_dir/scripts/check-sizes.sh"
"$check" "$source_dir"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for folder in ledger server uma rails plugins; do cp -r "$source_dir/$folder" "$scratch/"; done
expect_refused() {  # FILE EXPECTED_TEXT
  local output
  if output=$("$check" "$scratch" 2>&1); then echo "not refused: $1" >&2; exit 1; fi
  grep -qF "$2" <<<"$output" || { echo "unexpected report: $output" >&2; exit 1; }
}
planted=ledger/base/planted.cpp
# 20 lines of comment, then an 88-line function (lines 21 to 108).
{ for i in $(seq 1 20); do echo "// filler $i"; done
  echo 'int planted_long() {'; for i in $(seq 1 85); do echo "    int v$i = $i;"; done; echo '    return 0;'; echo '}'
} >"$scratch/$planted"
expect_refused "$planted" "$planted:21: function planted_long is 88 lines"
sed -i '20s/.*/\/\/ Long on purpose: a planted case of the size check./' "$scratch/$planted"
"$check" "$scratch" >/dev/null
for i in $(seq 1 600); do echo "// line $i" >>"$scratch/$planted"; done
expect_refused "$planted" "$planted:1: 708 lines, over 600"
sed -i '1s/.*/\/\/ Long on purpose: a planted case of the size check./' "$scratch/$planted"
"$check" "$scratch" >/dev/null
echo "size check: refuses an over-long file and function, accepts them with a reason"
