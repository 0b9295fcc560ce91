// Node entry: loads the .wasm from disk synchronously. Pass `gpu` to compute on WebGPU, e.g.
// from the `webgpu` package (Dawn): `await init({ gpu: create([]) })`; its WebGPU globals
// (GPUBufferUsage, ...) are installed from that package too, or from `options.globals`. Without
// `gpu`, the cpu device works alone.
import { readFileSync } from 'node:fs';
import { bind } from './core.js';
import * as wasm from '../pkg/webtensor.js';

export * from './core.js';

let ready = null;

async function provideGpu(options) {
  let globals = options.globals;
  if (!globals) {
    try {
      globals = (await import('webgpu')).globals;
    } catch {
      globals = {};
    }
  }
  Object.assign(globalThis, globals);
  // wgpu's web backend reads navigator.gpu only where a window (or worker) scope exists.
  globalThis.Window ??= class Window {};
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: options.gpu }, configurable: true, writable: true });
}

/** Loads the module, discovers adapters and opens the best device; resolves to its name. */
export async function init(options = {}) {
  if (!ready) {
    ready = (async () => {
      if (options.gpu) await provideGpu(options);
      const bytes = readFileSync(options.wasm ?? new URL('../pkg/webtensor_bg.wasm', import.meta.url));
      wasm.initSync({ module: bytes });
      bind(wasm);
      return wasm.initCore(options.logicalDevices);
    })();
  }
  return ready;
}
