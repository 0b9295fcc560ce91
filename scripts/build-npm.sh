#!/usr/bin/env bash
# Builds the npm package from source: the core for wasm32 (release), wasm-bindgen's JS glue into
# pkg/ (wasm-bindgen-cli pinned to the crate's version), then wasm-opt from the binaryen npm
# package. Prints the .wasm size raw and gzipped.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "installing wasm-bindgen-cli $want (found '${have:-none}')"
  cargo install wasm-bindgen-cli --version "$want"
fi
cargo build --lib --profile wasm --target wasm32-unknown-unknown -q
rm -rf pkg
wasm="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm/webtensor.wasm"
if [ -x node_modules/.bin/wasm-opt ]; then
  # Function names stay through wasm-opt so that --no-inline can name the kernels' outlined
  # loops (`elementwise::outlined`): binaryen inlines any function with one caller, which put
  # every op's loop back into one huge function that V8 compiles with its cheaper register
  # allocator (add over 1M: 0.63 -> 0.47 ms, relu 0.72 -> 0.41). --strip-debug then drops the
  # names, as wasm-bindgen does by default. -O2, not -O3: V8 12+ (Chrome, Node 22+) compiles
  # wasm in the order it arrives, and -O3's reordering made the CPU kernels 3-16% slower there
  # (tanh 0.84x, sum over rows 0.91x, row broadcasts 0.93x, log 0.95x the time at -O2 in two
  # runs of bench/ab-builds.mjs in Node 24; Node 20 the same within its noise), for 62 bytes.
  wasm-bindgen --keep-debug --target web --out-dir pkg --out-name webtensor "$wasm"
  node_modules/.bin/wasm-opt --no-inline='*outlined*' -O2 --strip-debug --enable-bulk-memory \
    --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-simd \
    pkg/webtensor_bg.wasm -o pkg/webtensor_bg.wasm
else
  wasm-bindgen --target web --out-dir pkg --out-name webtensor "$wasm"
  echo "note: wasm-opt not found (npm install adds binaryen); the .wasm is not optimised"
fi
raw=$(stat -c %s pkg/webtensor_bg.wasm)
gz=$(gzip -9 -c pkg/webtensor_bg.wasm | wc -c)
printf 'pkg/webtensor_bg.wasm: %s bytes (%.2f MiB), gzip -9: %s bytes (%.2f MiB)\n' "$raw" "$(echo "$raw/1048576" | bc -l)" "$gz" "$(echo "$gz/1048576" | bc -l)"
