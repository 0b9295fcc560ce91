#!/usr/bin/env bash
# `npm run bench`: the npm package against TensorFlow.js 4.22 op by op (bench/tfjs/ops-core.mjs),
# side by side in one run on the same adapter:
#   1. Node: webtensor `webgpu:0` vs tfjs-backend-webgpu (both through Dawn, the `webgpu`
#      package), and webtensor `cpu` (WebAssembly) vs tfjs-backend-wasm (bench/tfjs/ops.mjs);
#   2. headless Chromium (the system one; SwiftShader's WebGPU): the same pairs
#      (bench/tfjs/ops.html through page-chromium.mjs).
# Ratios are TF.js's time over webtensor's (above 1: webtensor is faster).
# Usage: npm run bench [-- --rounds 5 --only <case> --pair webgpu|wasm]; NODE_ONLY=1 skips Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d bench/tfjs/node_modules/@tensorflow/tfjs ] || (cd bench/tfjs && npm install --no-audit --no-fund --silent)
[ -f pkg/webtensor_bg.wasm ] || npm run -s build
echo "== Node, Dawn"
node bench/tfjs/ops.mjs "$@" 2>&1 | grep -v '^Warning: max'
if [ -z "${NODE_ONLY:-}" ]; then
  echo
  echo "== headless Chromium"
  query=$(node -e 'const a=process.argv.slice(1);const q=[];for(let i=0;i<a.length;i+=2)q.push(a[i].replace(/^--/,"")+"="+encodeURIComponent(a[i+1]));console.log(q.join("&"))' -- "$@")
  node bench/tfjs/page-chromium.mjs ops.html "$query"
fi
