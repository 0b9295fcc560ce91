#!/usr/bin/env bash
# One training step of an MLP, side by side in one run: webtensor on every device (cpu, webgpu,
# cuda with the feature) against PyTorch on the cpu and, where present, CUDA. Needs torch
# (python3 -c 'import torch'); on an NVIDIA machine its CUDA wheels also bring libnvrtc and
# libcublas, whose folders are put on LD_LIBRARY_PATH for webtensor. Extra arguments go to
# `webtensor bench-train` (e.g. --batch 64 --hidden 256 --steps 100).
set -euo pipefail
cd "$(dirname "$0")/.."
features=()
if command -v nvidia-smi >/dev/null 2>&1; then
  features=(--features cuda)
  site=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null || true)
  for d in "${site:-/nonexistent}"/nvidia/*/lib; do [ -d "$d" ] && LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
fi
cargo build --release -q -p webtensor-native "${features[@]}"
out=$(mktemp)
./target/release/webtensor bench-train --json "$@" >"$out"
python3 scripts/bench_train_torch.py "$out"
