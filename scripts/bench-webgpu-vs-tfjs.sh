#!/usr/bin/env bash
# Side-by-side in one run, on the same WebGPU adapter: webtensor (wgpu, Vulkan) and
# TensorFlow.js's WebGPU backend (Dawn in Node, from the `webgpu` npm package).
# Usage: scripts/bench-webgpu-vs-tfjs.sh [webtensor device, default webgpu:0] [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
device="${1:-webgpu:0}"
quick="${2:-}"
[ -d bench/tfjs/node_modules ] || (cd bench/tfjs && npm install --no-audit --no-fund --silent)
cargo build --release -q -p webtensor-native
./target/release/webtensor bench --device "$device" $quick
node bench/tfjs/bench.mjs $quick 2>&1 | grep -v '^Warning: max'
