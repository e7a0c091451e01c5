#!/usr/bin/env bash
# Checks that the product code stays readable (README, "Architecture"): no file of ledger/,
# server/, uma/, rails/ or plugins/ over 600 lines and no function over 80, unless a comment
# "Long on purpose: WHY" says why, in the file's first 15 lines for a file, or in the 3 lines above
# a function's first line for a function. Prints file:line for each breach and exits 1 when there
# is any. Tests are not checked. Functions are found by Universal Ctags.
#   scripts/check-sizes.sh [SOURCE_DIR]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
max_file_lines=600
max_function_lines=80
marker='Long on purpose:'

command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q 'Universal Ctags' ||
  { echo "check-sizes: Universal Ctags is needed (scripts/install-deps.sh installs it)" >&2; exit 2; }

mapfile -t files < <(find ledger server uma rails plugins -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) \
  ! -path '*/tests/*' | sort)
breaches=0

for file in "${files[@]}"; do
  lines=$(wc -l <"$file")
  if ((lines > max_file_lines)) && ! head -n 15 "$file" | grep -qF "$marker"; then
    echo "$file:1: $lines lines, over $max_file_lines (split it by what it decides, or say why: \"// $marker ...\")"
    breaches=$((breaches + 1))
  fi
done

# One row per function definition: file, first line, last line, name.
while IFS=$'\t' read -r file first last name; do
  ((last - first + 1 > max_function_lines)) || continue
  from=$((first > 3 ? first - 3 : 1))
  if sed -n "${from},${first}p" "$file" | grep -qF "$marker"; then continue; fi
  echo "$file:$first: function $name is $((last - first + 1)) lines, over $max_function_lines (say why above it: \"// $marker ...\")"
  breaches=$((breaches + 1))
done < <(ctags --languages=C,C++ --kinds-C++=f --kinds-C=f --fields=+ne -o - "${files[@]}" |
  awk -F'\t' '{ first = ""; last = ""
    for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) first = substr($i, 6); if ($i ~ /^end:/) last = substr($i, 5) }
    if (first != "" && last != "") print $2 "\t" first "\t" last "\t" $1 }')

if ((breaches > 0)); then
  echo "$breaches file(s) or function(s) over the size limits" >&2
  exit 1
fi
echo "size limits: ok (${#files[@]} files)"
