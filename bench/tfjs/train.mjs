// Training throughput side by side in one Node process (see train-core.mjs for what is measured):
//   webgpu: webtensor `webgpu:0` against tfjs-backend-webgpu, both through Dawn (the `webgpu`
//           package) on the same adapter;
//   wasm:   webtensor `cpu` (its CPU device inside WebAssembly) against tfjs-backend-wasm.
// Prints samples/s (median round) and the ratio (webtensor over TF.js; above 1 is faster).
// Usage: node train.mjs [--batch 64] [--hidden 128] [--steps 20] [--rounds 3] [--only webgpu|wasm]
import { create, globals } from 'webgpu';
import { HEADER, formatRow, runPairs } from './train-core.mjs';

Object.assign(globalThis, globals);
const gpu = create([]);
Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const opts = { batch: Number(arg('batch', 64)), hidden: Number(arg('hidden', 128)), steps: Number(arg('steps', 20)), rounds: Number(arg('rounds', 3)) };
const only = arg('only', null);

// The union package: tfjs-core plus the gradients (tfjs-core alone registers none).
const tf = await import('@tensorflow/tfjs');
await import('@tensorflow/tfjs-backend-webgpu');
const wasm = await import('@tensorflow/tfjs-backend-wasm');
wasm.setWasmPaths(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).pathname);
const wt = await import('../../js/node.js');
await wt.init({ gpu });
await wt.open('webgpu:0');

const info = (await gpu.requestAdapter())?.info ?? {};
console.log(`# Node ${process.version}; MLP 784-${opts.hidden}-${opts.hidden}-10, batch ${opts.batch}, Adam; ${opts.steps} steps per round, median of ${opts.rounds} rounds after a warm-up`);
console.log(`# adapter: ${info.description || info.device || info.vendor || 'none'}; tfjs ${tf.version.tfjs}`);
console.log(HEADER);
const pairs = [['webgpu', 'webgpu:0', 'webgpu'], ['wasm', 'cpu', 'wasm']].filter(([p]) => !only || p === only);
await runPairs(wt, tf, pairs, opts, (r) => console.log(formatRow(r)));
if (pairs.some(([, , b]) => b === 'wasm')) console.log(`# tfjs-wasm: SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')}; webtensor cpu in wasm: SIMD, one thread`);
process.exit(0);
