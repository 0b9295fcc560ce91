// Browser and bundler entry: fetches the .wasm next to this file (or from `options.wasm`).
import { requireWasmSimd } from './simd.js';
import { bind, bound } from './internal.js';
import { initOptions, once } from './init.js';
import initWasm, * as wasm from '../pkg/webtensor.js';

export * from './core.js';

const noFiles = (fn) => () => Promise.reject(new Error(`${fn}: a browser has no file system to write to; use nn.saveSafetensors(dict) (a Uint8Array) and download or store the bytes, and nn.loadSafetensors(bytes) to read them`));
/** Node only: in a browser it rejects, pointing at `nn.saveSafetensors`. */
export const saveSafetensorsFile = noFiles('saveSafetensorsFile');
/** Node only: in a browser it rejects, pointing at `nn.loadSafetensors`. */
export const loadSafetensorsFile = noFiles('loadSafetensorsFile');

/**
 * Loads the module, discovers adapters and opens the best device; resolves to its name. A
 * failed init (say, the .wasm could not be fetched) can be retried.
 */
export function init(options) {
  let o;
  try {
    o = initOptions(options, ['wasm', 'logicalDevices']);
  } catch (e) {
    return Promise.reject(e); // init is async: bad options reject like any other failure
  }
  return once(o, async () => {
    if (!bound()) {
      requireWasmSimd();
      await initWasm({ module_or_path: o.wasm ?? new URL('../pkg/webtensor_bg.wasm', import.meta.url) });
      bind(wasm);
    }
    return wasm.initCore(o.logicalDevices);
  });
}
