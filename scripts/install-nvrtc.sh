#!/usr/bin/env bash
# Puts NVIDIA's run-time CUDA compiler (NVRTC, from its PyPI wheel) under target/nvrtc and prints
# its lib folder, so the suite can compile every CUDA kernel on machines without a GPU or a CUDA
# toolkit. NVRTC compiles without a driver; nothing here runs a kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
version=12.9.86
dest=target/nvrtc
lib="$dest/nvidia/cuda_nvrtc/lib"
if ! ls "$lib"/libnvrtc.so.* >/dev/null 2>&1; then
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target "$dest" "nvidia-cuda-nvrtc-cu12==$version" >&2
fi
# cudarc looks for libnvrtc.so as well as libnvrtc.so.12.
[ -e "$lib/libnvrtc.so" ] || ln -s "$(cd "$lib" && ls libnvrtc.so.12* | head -n1)" "$lib/libnvrtc.so"
cd "$lib" && pwd
