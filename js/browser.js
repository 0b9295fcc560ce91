// Browser and bundler entry: fetches the .wasm next to this file (or from `options.wasm`).
import { bind } from './core.js';
import initWasm, * as wasm from '../pkg/webtensor.js';

export * from './core.js';

let ready = null;

export async function init(options = {}) {
  if (!ready) {
    ready = (async () => {
      await initWasm({ module_or_path: options.wasm ?? new URL('../pkg/webtensor_bg.wasm', import.meta.url) });
      bind(wasm);
      return wasm.initCore(options.logicalDevices);
    })();
  }
  return ready;
}
