// Node entry: loads the .wasm from disk synchronously. Pass `gpu` to compute on WebGPU, e.g.
// from the `webgpu` package (Dawn): `await init({ gpu: create([]) })`; its WebGPU globals
// (GPUBufferUsage, ...) are installed from that package too, or from `options.globals`. Without
// `gpu`, the cpu device works alone; a later `init({ gpu })` adds the GPU.
import { requireWasmSimd } from './simd.js';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { bind, bound } from './internal.js';
import { initOptions, once } from './init.js';
import { consumeDict, encodeSafetensors, loadSafetensors } from './checkpoint.js';
import * as check from './check.js';
import * as wasm from '../pkg/webtensor.js';

export * from './core.js';

/**
 * Writes a state dict to a `.safetensors` file (safetensors' `save_file`): the bytes of
 * `nn.saveSafetensors(dict, opts)`, which PyTorch's `safetensors.torch.load_file` reads; the
 * tensors of a `stateDict()` are freed once written. Node
 * only; in a browser, save the bytes of `nn.saveSafetensors` (a download, IndexedDB).
 */
export async function saveSafetensorsFile(dict, path, opts) {
  check.arity('saveSafetensorsFile', arguments.length, 3);
  if (typeof path !== 'string' && !(path instanceof URL)) check.fail(TypeError, 'saveSafetensorsFile', 'path', path, 'a file path (string or URL)');
  await writeFile(path, await encodeSafetensors('saveSafetensorsFile', dict, opts));
  // Only once written: a failed write leaves the dict as it was.
  consumeDict('saveSafetensorsFile', dict);
}

/**
 * Reads a `.safetensors` file, from PyTorch or webtensor, into an object of name to Tensor
 * (`nn.loadSafetensors` of its bytes; `{ device }` as there). Node only.
 */
export async function loadSafetensorsFile(path, opts) {
  check.arity('loadSafetensorsFile', arguments.length, 2);
  if (typeof path !== 'string' && !(path instanceof URL)) check.fail(TypeError, 'loadSafetensorsFile', 'path', path, 'a file path (string or URL)');
  return loadSafetensors(await readFile(path), opts);
}

let gpuGiven = false;

async function provideGpu(options) {
  let globals = options.globals;
  if (!globals) {
    try {
      globals = (await import('webgpu')).globals;
    } catch {
      globals = {};
    }
  }
  for (const [k, v] of Object.entries(globals)) if (!(k in globalThis)) globalThis[k] = v;
  // wgpu's web backend reads navigator.gpu only where a window (or worker) scope exists.
  globalThis.Window ??= class Window {};
  // Node 21+ has a navigator of its own (hardwareConcurrency, userAgent, language): add `gpu` to
  // it rather than replacing it.
  const nav = globalThis.navigator;
  if (nav && typeof nav === 'object') {
    Object.defineProperty(nav, 'gpu', { value: options.gpu, configurable: true, writable: true });
  } else {
    Object.defineProperty(globalThis, 'navigator', { value: { gpu: options.gpu }, configurable: true, writable: true });
  }
}

/**
 * Loads the module, discovers adapters and opens the best device; resolves to its name. A
 * failed init can be retried; after a CPU-only init, `init({ gpu })` adds WebGPU.
 */
export function init(options) {
  let o;
  try {
    o = initOptions(options, ['gpu', 'globals', 'wasm', 'logicalDevices']);
  } catch (e) {
    return Promise.reject(e); // init is async: bad options reject like any other failure
  }
  return once(o, async (first) => {
    if (o.gpu && !gpuGiven) {
      await provideGpu(o);
      gpuGiven = true;
    } else if (o.gpu && !first) {
      return wasm.bestDevice(); // the same GPU again: nothing to add
    }
    if (!bound()) {
      const bytes = o.wasm instanceof Uint8Array || o.wasm instanceof ArrayBuffer
        ? o.wasm
        : readFileSync(o.wasm ?? new URL('../pkg/webtensor_bg.wasm', import.meta.url));
      requireWasmSimd();
      wasm.initSync({ module: bytes });
      bind(wasm);
    }
    return first ? wasm.initCore(o.logicalDevices) : wasm.rediscover();
  });
}
