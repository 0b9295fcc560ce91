#!/usr/bin/env bash
# Training throughput of the same MLP (784-H-H-10, ReLU, cross-entropy, Adam; default H=128,
# batch 64) against its peers, each pair side by side in one run on the same hardware:
#   1. Node: webtensor `webgpu:0` vs TF.js 4.22 WebGPU (Dawn, the same adapter), and webtensor
#      `cpu` (WebAssembly) vs tfjs-backend-wasm (bench/tfjs/train.mjs); the same pairs training
#      a GPT at nanoGPT's CPU size (bench/tfjs/gpt.mjs);
#   2. headless Chromium: the same pairs on the browser's adapter (bench/tfjs/train.html, gpt.html);
#   3. native: webtensor `cpu` (and every other device) vs PyTorch on the CPU
#      (scripts/bench-train-vs-torch.sh), when `python3 -c 'import torch'` works.
# Usage: BATCH=64 HIDDEN=128 scripts/bench-train-vs-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
batch="${BATCH:-64}"
hidden="${HIDDEN:-128}"
[ -d bench/tfjs/node_modules/@tensorflow/tfjs ] || (cd bench/tfjs && npm install --no-audit --no-fund --silent)
[ -f pkg/webtensor_bg.wasm ] || npm run -s build
echo "== Node, Dawn: samples/s (ratio = webtensor / TF.js)"
node bench/tfjs/train.mjs --batch "$batch" --hidden "$hidden" 2>&1 | grep -v '^Warning: max'
echo
echo "== Node, Dawn: a GPT training step (nanoGPT's CPU size; ratio = TF.js time / webtensor time)"
node bench/tfjs/gpt.mjs 2>&1 | grep -v '^Warning: max'
echo
echo "== headless Chromium"
node bench/tfjs/page-chromium.mjs train.html "batch=$batch&hidden=$hidden"
node bench/tfjs/page-chromium.mjs gpt.html "steps=5"
echo
echo "== native: ms per step (samples/s = batch / ms * 1000)"
if python3 -c 'import torch' 2>/dev/null; then
  bash scripts/bench-train-vs-torch.sh --batch "$batch" --hidden "$hidden" --steps 100
else
  echo "PyTorch is not importable by python3; install it (python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch) and put /tmp/torchenv/bin first on PATH"
fi
