#!/usr/bin/env bash
# Side by side in one run on an NVIDIA machine: webtensor on cuda:0 (cuBLAS) and on webgpu:0
# (wgpu on NVIDIA's Vulkan driver) against PyTorch's cuBLAS, for f32 matmul at 1024/2048/4096,
# and elementwise add against each one's device-to-device copy. Prints one table with ratios.
# Needs torch with CUDA (which also brings libnvrtc and libcublas; their folders are put on
# LD_LIBRARY_PATH for webtensor).
set -euo pipefail
cd "$(dirname "$0")/.."
site=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null || true)
if [ -n "$site" ]; then
  for d in "$site"/nvidia/*/lib; do LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
  export LD_LIBRARY_PATH
fi
cargo build --release -q -p webtensor-native --features cuda
bin=./target/release/webtensor
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
out=$(mktemp -d)
"$bin" bench --device cuda:0 --matmul-sizes 1024,2048,4096 --runs 10 --json >"$out/cuda.json"
"$bin" bench --device webgpu:0 --matmul-sizes 1024,2048,4096 --runs 10 --json >"$out/webgpu.json"
python3 scripts/bench_torch_cuda.py "$out/cuda.json" "$out/webgpu.json"
