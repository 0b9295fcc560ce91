// Internal state shared by the JS modules (never re-exported): the bound wasm exports, the
// finalizer that frees collected tensors, and the stack of wt.tidy() scopes.
let wasm = null;

/** @internal Called by the entry points once the .wasm module is instantiated. */
export function bind(exports) {
  wasm = exports;
}

/** @internal Whether the module is bound (the entry points use it for init's retries). */
export function bound() {
  return wasm !== null;
}

export function core() {
  if (!wasm) throw new Error('webtensor is not initialised: await init() first');
  return wasm;
}

// Safety net, never the contract: a Tensor collected without dispose() frees its wasm side.
export const finalizer = new FinalizationRegistry((raw) => raw.free());
// Scopes of wt.tidy(), innermost last: tensors created inside are disposed on exit.
export const scopes = [];

/** The bound exports, or null before init (for `instanceof` checks that must not throw). */
export function wasmExports() {
  return wasm;
}
