#!/usr/bin/env bash
# One prepared run on a lent NVIDIA machine that has PyTorch with CUDA but no Rust toolchain:
# release binaries built here (same x86-64, glibc no newer than the machine's) travel packed,
# and this script runs, within a deadline, what only that GPU can show:
#   1. matmul on cuda:0 (cuBLAS) and webgpu:0 (NVIDIA's Vulkan), the wgpu programs forced each
#      way (64x64 tiles vs register-tiled 128x128, the latter with vec4 loads and double-buffered
#      tiles as by default and without, WEBTENSOR_MATMUL_VEC4=0), beside PyTorch fp32 (TF32 off);
#   2. a GPT training step at nanoGPT's shakespeare-char size on cuda:0, webgpu:0 (default routing,
#      every op composed with WEBTENSOR_FUSED_KERNELS=0, the register matmul without vec4s, and
#      the weight gradients' split-K in 64x64 tiles, WEBTENSOR_MATMUL_REGISTER_SPLIT=0) and PyTorch;
#   3. the test suites on cpu, webgpu:0 and cuda:0 (WEBTENSOR_REQUIRE_GPU/CUDA=1).
# Prepare here:
#   cargo build --release -p webtensor-native --features cuda
#   cargo test --release --features cuda --no-run --test <suite>...
#     (the device suites decide at start which devices exist: ::cuda cases run there and are
#     ignored here; then pack them, see below)
#   mkdir -p .dev && tar -C <dir with webtensor and one binary per suite> -cJf .dev/bins.tar.xz .
# and the Vulkan/EGL loaders as .deb files in .gl/ (see the device tool's README). On the machine:
#   bash scripts/nvidia-check.sh .dev/bins.tar.xz "$OUT"   (its whole output: $OUT/nvidia-check.log)
set -uo pipefail
cd "$(dirname "$0")/.."
pack=$1
log=${2:-/tmp}/nvidia-check.log
deadline=${DEADLINE_S:-500}
out=/tmp/nvidia-check
mkdir -p "$out" /tmp/wt-bin
exec > >(tee -a "$log") 2>&1
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
tar -C /tmp/wt-bin -xJf "$pack"
# The test binaries find their fixtures under the path they were built in.
built=$(cat /tmp/wt-bin/BUILT_IN 2>/dev/null || echo /work/main)
if [ ! -e "$built" ]; then mkdir -p "$(dirname "$built")" && ln -s "$PWD" "$built"; fi
site=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null || true)
if [ -n "$site" ]; then
  for d in "$site"/nvidia/*/lib "$site"/nvidia/cu13/lib; do [ -d "$d" ] && LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
  export LD_LIBRARY_PATH
fi
if ! ldconfig -p | grep -q libvulkan; then echo "no Vulkan loader"; fi
[ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
bin=/tmp/wt-bin/webtensor
left() { echo $((deadline - SECONDS)); }
run() { # run <seconds> <log name> <command...>: within the deadline, output kept
  local t=$1 name=$2; shift 2
  local l; l=$(left)
  if [ "$l" -le 5 ]; then echo "SKIPPED (deadline): $name"; return; fi
  [ "$t" -gt "$l" ] && t=$l
  echo "== $name (limit ${t}s, $(left)s left)"
  timeout "$t" "$@" >"$out/$name.txt" 2>"$out/$name.err"
  local rc=$?
  cat "$out/$name.txt"
  tail -n 40 "$out/$name.err"
  echo "== $name: rc $rc"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
run 30 devices "$bin" devices
# 1. Matmul: each program on webgpu:0, cuBLAS on cuda:0, PyTorch beside them.
sizes=512,1024,2048,4096
if [ -z "${SKIP_MM:-}" ]; then
run 60 mm-cuda "$bin" bench --device cuda:0 --matmul-sizes $sizes --runs 10 --json
WEBTENSOR_MATMUL_REGISTER_TILES=18446744073709551615 run 60 mm-webgpu-tiled \
  "$bin" bench --device webgpu:0 --matmul-sizes $sizes --runs 10 --json
WEBTENSOR_MATMUL_REGISTER_TILES=0 run 60 mm-webgpu-register \
  "$bin" bench --device webgpu:0 --matmul-sizes $sizes --runs 10 --json
WEBTENSOR_MATMUL_REGISTER_TILES=0 WEBTENSOR_MATMUL_VEC4=0 run 60 mm-webgpu-register-scalar \
  "$bin" bench --device webgpu:0 --matmul-sizes $sizes --runs 10 --json
run 90 mm-torch python3 scripts/bench_torch_cuda.py "$out/mm-cuda.txt" "$out/mm-webgpu-tiled.txt" \
  "$out/mm-webgpu-register.txt" "$out/mm-webgpu-register-scalar.txt"
fi
# 2. A GPT training step at nanoGPT's shakespeare-char size (10.7M parameters, batch 64 x 256),
# with the fused kernels (attention, LayerNorm) and without them (WEBTENSOR_FUSED_KERNELS=0).
gpt=(bench-train --model gpt --config shakespeare-char --steps 10 --json --device)
if [ -z "${SKIP_GPT:-}" ]; then
  run 90 gpt-cuda "$bin" "${gpt[@]}" cuda:0
  WEBTENSOR_FUSED_KERNELS=0 run 90 gpt-cuda-composed "$bin" "${gpt[@]}" cuda:0
  run 120 gpt-webgpu "$bin" "${gpt[@]}" webgpu:0
  WEBTENSOR_MATMUL_VEC4=0 run 120 gpt-webgpu-scalar-loads "$bin" "${gpt[@]}" webgpu:0
  WEBTENSOR_MATMUL_REGISTER_SPLIT=0 run 120 gpt-webgpu-tiled-split "$bin" "${gpt[@]}" webgpu:0
  WEBTENSOR_FUSED_KERNELS=0 run 120 gpt-webgpu-composed "$bin" "${gpt[@]}" webgpu:0
fi
[ -z "${SKIP_GPT:-}" ] && run 90 gpt-torch python3 scripts/train_gpt_torch.py --config shakespeare-char \
  --device cuda --iters 30 --eval-iters 1 --eval-interval 1000 --json
# 3. The suites, most telling first (the matmul programs against the CPU, the GPT, sampling,
# CUDA's own; clip, index_checks and dropout run the kernels of 2026-11-28's twelfth session,
# foreach.cu, index_range.cu and the 64-bit generator counters, never yet on a GPU), then 500
# iterations of the full recipe against PyTorch, then the rest.
export WEBTENSOR_REQUIRE_GPU=1 WEBTENSOR_REQUIRE_CUDA=1 WEBTENSOR_REQUIRE_NVRTC=1
done_suites=""
suites() {
  for s in "$@"; do
    case " $done_suites " in *" $s "*) continue ;; esac
    done_suites="$done_suites $s"
    [ -x "/tmp/wt-bin/test-$s" ] && run 90 "test-$s" "/tmp/wt-bin/test-$s" --test-threads 4
  done
}
[ -z "${SKIP_SUITES:-}" ] && suites attention fused_norm cuda gpt vs_cpu sample clip index_checks dropout linear_bias optim_multi lazy
# TRAIN_ITERS (500) and SEEDS ("1337"; one run of each per seed): the full recipe's quality
# against PyTorch wants 2,000 iterations and two or more seeds (seeds spread 0.01-0.02 at the
# CPU recipe's size), about 2 minutes a run: a call of its own, e.g.
#   SKIP_MM=1 SKIP_GPT=1 SKIP_SUITES=1 TRAIN_ITERS=2000 SEEDS="1337 1" DEADLINE_S=580
if [ -z "${SKIP_TRAIN:-}" ]; then
  iters=${TRAIN_ITERS:-500}
  for seed in ${SEEDS:-1337}; do
    run 300 "train-cuda-$seed" "$bin" train --model gpt --config shakespeare-char --iters "$iters" \
      --eval-interval $((iters / 4)) --eval-iters 20 --devices cuda:0 --seed "$seed" --out /tmp/gpt-cuda --json
    run 300 "train-torch-$seed" python3 scripts/train_gpt_torch.py --config shakespeare-char --device cuda \
      --iters "$iters" --eval-interval $((iters / 4)) --eval-iters 20 --seed "$seed" --json
  done
fi
[ -n "${SKIP_SUITES:-}" ] && { echo "done in ${SECONDS}s"; exit 0; }
suites special_values fixtures grad_fixtures nn_fixtures $(ls /tmp/wt-bin | sed -n 's/^test-//p')
echo "done in ${SECONDS}s"
