// The npm package's .wasm is built with WebAssembly SIMD (.cargo/config.toml), which every
// current engine has (Chrome and Edge 91+, Firefox 89+, Safari 16.4+, Node 16.4+). An engine
// without it would fail to compile the module with a message about an unknown type; init checks
// first and says what to do instead.

// A module whose one function returns a v128: valid only where SIMD is (wasm-feature-detect's test).
const PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/** Whether this engine runs WebAssembly SIMD. */
export function hasWasmSimd() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(PROBE);
}

/** Throws a clear error where the engine lacks WebAssembly SIMD. */
export function requireWasmSimd() {
  if (!hasWasmSimd()) {
    throw new Error('init: this JavaScript engine lacks WebAssembly SIMD, which webtensor\'s CPU kernels are built with; '
      + 'use Chrome or Edge 91+, Firefox 89+, Safari 16.4+ or Node 16.4+');
  }
}
