#!/usr/bin/env bash
# The one command that runs every test (README). Installs what is missing when it runs as root
# (Mesa 25 lavapipe, the wasm32 target); otherwise prints the exact command to run and stops.
# GPU tests fail rather than skip: WEBTENSOR_REQUIRE_GPU defaults to 1 here, because lavapipe
# (a software Vulkan adapter) is always installable.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
export WEBTENSOR_REQUIRE_GPU="${WEBTENSOR_REQUIRE_GPU:-1}"

step() { printf '\n==> %s\n' "$*"; }
need_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "missing: $1. Install it with:"
    echo "  sudo $2"
    exit 1
  fi
}

mesa_version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
if [ "${mesa_version%%.*}" != 25 ] && [ "$WEBTENSOR_REQUIRE_GPU" = 1 ]; then
  need_root "Mesa 25 lavapipe (software Vulkan; found '${mesa_version:-none}')" "bash scripts/install-mesa.sh"
  step "installing Mesa 25 lavapipe from bookworm-backports"
  bash scripts/install-mesa.sh
fi

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  need_root "Debian's chromium and chromium-driver (the JS suite also runs in a headless browser)" \
    "apt-get install -y chromium chromium-driver"
  step "installing chromium"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

if ! command -v mpirun >/dev/null 2>&1 || ! command -v mpicc >/dev/null 2>&1 || ! ls /usr/lib/llvm-*/lib/libclang.so* >/dev/null 2>&1; then
  need_root "Open MPI and libclang (the distributed tests run DDP across processes; rsmpi's bindings need clang)" \
    "apt-get install -y openmpi-bin libopenmpi-dev libclang-dev"
  step "installing Open MPI and libclang"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openmpi-bin libopenmpi-dev libclang-dev >/dev/null
fi

for target in wasm32-unknown-unknown x86_64-apple-darwin x86_64-pc-windows-msvc; do
  if ! rustup target list --installed 2>/dev/null | grep -q "^$target\$"; then
    step "adding the $target target"
    rustup target add "$target"
  fi
done

if ! command -v mdbook >/dev/null 2>&1; then
  # The guide (docs/guide) is an mdBook; pinned so that a clean machine builds the same book.
  step "installing mdbook (the guide's builder) from crates.io"
  cargo install mdbook --version 0.5.4 --no-default-features --locked -q
fi

step "NVRTC from its PyPI wheel, so every CUDA kernel is compiled by the suite (no GPU needed)"
nvrtc_lib=$(bash scripts/install-nvrtc.sh)
export LD_LIBRARY_PATH="$nvrtc_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export WEBTENSOR_REQUIRE_NVRTC="${WEBTENSOR_REQUIRE_NVRTC:-1}"

step "format and lints, with and without the cuda, mpi and nccl features"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -q -- -D warnings
cargo clippy --workspace --all-targets -q --features webtensor/cuda,webtensor-native/mpi,webtensor-native/nccl -- -D warnings

step "native tests with the cuda and mpi features (cpu, meta, webgpu; cuda:0 where one exists; DDP across processes under mpirun; WEBTENSOR_REQUIRE_GPU=$WEBTENSOR_REQUIRE_GPU)"
# Open MPI refuses to start ranks as root unless told (CI runs as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# `cargo test` builds the examples first: the MPI suite runs this one under mpirun.
export WEBTENSOR_DDP_WORKER="$PWD/target/debug/examples/ddp_check"
test_log="${TMPDIR:-/tmp}/webtensor-native-tests.log"
cargo test --workspace --features webtensor/cuda,webtensor-native/mpi 2>&1 | tee "$test_log"
step "what the device tests did, per device (a case whose device is absent is ignored, not ok; one test per fixture case)"
grep -E '::(cpu|webgpu|webgpu-no-f16|meta|cuda) +\.\.\. ' "$test_log" |
  sed -E 's/.*::(cpu|webgpu|webgpu-no-f16|meta|cuda) +\.\.\. ([a-zA-Z]+).*/\1 \2/' |
  sort | uniq -c | awk '{ printf "  %-13s %-8s %5d\n", $2, $3, $1 }'
step "the examples (cargo run --example ...; built by cargo test above), each checking its own result, on webgpu:0 where the suite requires a GPU"
examples="${CARGO_TARGET_DIR:-target}/debug/examples"
gpu_dev=cpu
[ "$WEBTENSOR_REQUIRE_GPU" = 1 ] && gpu_dev=webgpu:0
for ex in quickstart train mixed_devices oom_retry events; do
  echo "-- $ex $gpu_dev"
  "$examples/$ex" "$gpu_dev"
done
echo "-- data_parallel cpu,$gpu_dev"
"$examples/data_parallel" "cpu,$gpu_dev"

step "the docs build: rustdoc with warnings as errors (no missing docs, no broken links), the guide (mdbook)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -q -p webtensor
mdbook build docs

step "without the cuda and mpi features: unit tests and the clear 'not built' errors"
WEBTENSOR_REQUIRE_NVRTC=0 cargo test -q --lib --test cuda --test semantics --test distributed

step "the library builds for wasm32-unknown-unknown; the binary checks for macOS (Metal) and Windows (DX12)"
cargo build --lib --target wasm32-unknown-unknown -q
cargo check -q -p webtensor-native --target x86_64-apple-darwin
cargo check -q -p webtensor-native --target x86_64-pc-windows-msvc

step "npm package: build, types, the JS suite in Node and in headless Chromium, npm pack into Node, Vite and webpack, the demo page end to end"
if command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --silent
  npm run -s build
  npm run -s test:types
  npm run -s docs
  npm test
  for ex in quickstart train mixed_devices; do
    echo "-- examples/js/$ex.mjs $gpu_dev"
    node "examples/js/$ex.mjs" "$gpu_dev"
  done
  echo "-- examples/js/data_parallel.mjs cpu,$gpu_dev"
  node examples/js/data_parallel.mjs "cpu,$gpu_dev"
  npm run -s test:browser
  npm run -s test:package
  npm run -s test:demo
else
  echo "missing: Node.js and npm (the JS suite needs them). Install them with:"
  echo "  sudo apt-get install -y nodejs npm"
  exit 1
fi

step "the demo (the main job): k-means on every device, each must agree with the cpu"
cargo run -q -p webtensor-native -- demo --output "${TMPDIR:-/tmp}/webtensor-demo.png"
echo
echo "all tests passed"
