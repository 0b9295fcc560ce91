// A GPT training step side by side in one Node process (see gpt-core.mjs for what is measured):
//   webgpu: webtensor `webgpu:0` against tfjs-backend-webgpu, both through Dawn (the `webgpu`
//           package) on the same adapter;
//   wasm:   webtensor `cpu` (its CPU device inside WebAssembly) against tfjs-backend-wasm.
// Prints ms per step (median round) and the ratio (TF.js's time over webtensor's; above 1:
// webtensor is faster). Usage: node gpt.mjs [--steps 10] [--rounds 3] [--only webgpu|wasm]
import { create, globals } from 'webgpu';
import { CONFIG, HEADER, formatRow, runPairs } from './gpt-core.mjs';

Object.assign(globalThis, globals);
const gpu = create([]);
Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const opts = { steps: Number(arg('steps', 10)), rounds: Number(arg('rounds', 3)) };
const only = arg('only', null);

const tf = await import('@tensorflow/tfjs');
await import('@tensorflow/tfjs-backend-webgpu');
const wasm = await import('@tensorflow/tfjs-backend-wasm');
wasm.setWasmPaths(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).pathname);
const wt = await import('../../js/node.js');
await wt.init({ gpu });
await wt.open('webgpu:0');

const c = CONFIG;
const info = (await gpu.requestAdapter())?.info ?? {};
console.log(`# Node ${process.version}; GPT ${c.nLayer} layers, ${c.nHead} heads, ${c.nEmbd} wide, context ${c.blockSize}, batch ${c.batch}; ${opts.steps} steps per round, median of ${opts.rounds} rounds after a warm-up`);
console.log(`# adapter: ${info.description || info.device || info.vendor || 'none'}; tfjs ${tf.version.tfjs}`);
console.log(HEADER);
const pairs = [['webgpu', 'webgpu:0', 'webgpu'], ['wasm', 'cpu', 'wasm']].filter(([p]) => !only || p === only);
await runPairs(wt, tf, pairs, opts, (r) => console.log(formatRow(r)));
process.exit(0);
