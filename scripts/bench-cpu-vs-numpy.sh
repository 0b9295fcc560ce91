#!/usr/bin/env bash
# Side-by-side in one run: webtensor's CPU backend and NumPy on the same machine.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
cargo build --release -q -p webtensor-native
echo "# $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
./target/release/webtensor bench --device cpu
python3 scripts/bench_numpy.py
