#!/usr/bin/env bash
# A plugin author's whole path, as the README's "Writing a rail" tells it, on this build:
#   1. install the SDK alone into a temporary prefix (cmake --install --component sdk);
#   2. copy the template (examples/rail) and build it out of tree with CMake against that prefix
#      only, -Werror, and run its tests (its unit test and `corridor plugins check`);
#   3. build it again with the one-line g++ command of the README, through pkg-config;
#   4. check that each example.so exports corridor_rail_entry and nothing else, and passes
#      `corridor plugins check`;
#   5. build a program against the SDK's Lightning formats, with CMake and with pkg-config, and run
#      it on the BOLT #11 specification's example invoice.
# The CMake build of the template stays in WORK/template-build for the API test that loads it.
#   sdk_template_test.sh BUILD_DIR SOURCE_DIR CORRIDOR_BIN WORK_DIR
set -euo pipefail
build=$1 source=$2 corridor=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

echo "== install the SDK into $prefix"
cmake --install "$build" --prefix "$prefix" --component sdk
for file in include/corridor/rail_sdk.hpp include/corridor/rail_abi.h \
  include/corridor/rail_sdk/settings.hpp include/corridor/rail_sdk/durable_files.hpp \
  include/corridor/rail_sdk/clock.hpp include/corridor/rail_sdk/test_host.hpp \
  share/pkgconfig/corridor-rail-sdk.pc share/cmake/CorridorRailSdk/CorridorRailSdkConfig.cmake \
  share/cmake/CorridorRailSdk/CorridorRailPlugin.cmake include/corridor/rail_sdk/lightning/bolt11.hpp \
  include/corridor/rail_sdk/formats/result.hpp lib/libcorridor_lightning.a share/pkgconfig/corridor-lightning.pc; do
  test -f "$prefix/$file" || { echo "missing after install: $file" >&2; exit 1; }
done
# The sdk component is the SDK only: no binary, no rails.
if [ -n "$(find "$prefix" -name '*.so')" ]; then echo "the sdk component installed a .so" >&2; exit 1; fi

echo "== copy the template and build it with CMake against the installed SDK only"
cp -r "$source/examples/rail" "$work/template"
cmake -S "$work/template" -B "$work/template-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="-Werror" -DCORRIDOR_EXECUTABLE="$corridor"
cmake --build "$work/template-build"
ctest --test-dir "$work/template-build" --output-on-failure
listed=$(ctest --test-dir "$work/template-build" -N)
case $listed in *example_plugins_check*) ;; *) echo "the template ran no plugins check" >&2; exit 1 ;; esac

echo "== build it by hand with the README's g++ line"
line=$(grep -m1 -E '^g\+\+ .*pkg-config .*corridor-rail-sdk' "$source/README.md")
test -n "$line" || { echo "no g++ line in README.md" >&2; exit 1; }
echo "$line"
mkdir -p "$work/by-hand"
(cd "$work/template" && PKG_CONFIG_PATH="$prefix/share/pkgconfig" bash -euo pipefail -c "$line -Wall -Wextra -Werror")
test -f "$work/template/example.so" || { echo "the README's g++ line made no example.so" >&2; exit 1; }
mv "$work/template/example.so" "$work/by-hand/example.so"

for plugin in "$work/template-build/example.so" "$work/by-hand/example.so"; do
  echo "== $plugin"
  exported=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort -u | tr '\n' ' ')
  if [ "$exported" != "corridor_rail_entry " ]; then
    echo "$plugin exports: $exported(expected corridor_rail_entry only)" >&2
    exit 1
  fi
  "$corridor" plugins check "$plugin" --settings "$source/examples/rail/settings.json"
done
echo "== the Lightning formats from the installed SDK"
cmake -S "$source/tests/sdk/lightning_consumer" -B "$work/lightning-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="-Werror -Wall -Wextra"
cmake --build "$work/lightning-build"
"$work/lightning-build/decode"
# The pkg-config line of the README links a plugin .so with --no-undefined: every symbol the
# Lightning code needs (libsecp256k1, libcrypto) must come with `--libs corridor-lightning`.
PKG_CONFIG_PATH="$prefix/share/pkgconfig" bash -euo pipefail -c \
  "g++ \$(pkg-config --cflags corridor-lightning) -Werror $source/tests/sdk/lightning_consumer/decode.cpp -o $work/decode.so \$(pkg-config --libs corridor-lightning)"
nm -D --defined-only "$work/decode.so" >/dev/null
echo "the template builds, installs nothing but the SDK, and passes plugins check; the Lightning formats link from the installed SDK"
