// Op benchmark side by side in one Node process (see ops-core.mjs for what is measured):
//   webgpu: webtensor `webgpu:0` against tfjs-backend-webgpu, both through Dawn (the `webgpu`
//           package) on the same adapter, plus upload + readback with the raw WebGPU API;
//   wasm:   webtensor `cpu` (its CPU device inside WebAssembly) against tfjs-backend-wasm.
// Usage: node ops.mjs [--rounds 5] [--only <case substring>] [--pair webgpu|wasm]
//        [--fresh] (two warm-up rounds, then exactly --rounds: fresh-table.mjs runs each case so)
import { create, globals } from 'webgpu';
import { HEADER, formatRow, rawRoundTrip, runCases, tfLib, wtLib } from './ops-core.mjs';

Object.assign(globalThis, globals);
const gpu = create([]);
Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const fresh = process.argv.includes('--fresh');
const opts = { rounds: Number(arg('rounds', 5)), only: arg('only', null), ...(fresh ? { warmupMs: 0, exact: true } : {}) };
const pairFilter = arg('pair', null);

const tf = await import('@tensorflow/tfjs-core');
await import('@tensorflow/tfjs-backend-webgpu');
const wasm = await import('@tensorflow/tfjs-backend-wasm');
wasm.setWasmPaths(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).pathname);
const wt = await import('../../js/node.js');
await wt.init({ gpu });
await wt.open('webgpu:0');

const info = (await gpu.requestAdapter())?.info ?? {};
console.log(`# Node ${process.version}; adapter: ${info.description || info.device || info.vendor || 'none'}; tfjs ${tf.version_core}; median of at least ${opts.rounds} interleaved rounds (cheap cases: more, up to 1.5 s or 41) after a warm-up of 1 s`);
console.log(HEADER);
const backend = (name) => async () => {
  await tf.setBackend(name);
  await tf.ready();
};
const pairs = [
  ['webgpu', wtLib(wt, 'webgpu:0'), tfLib(tf), backend('webgpu')],
  ['wasm', wtLib(wt, 'cpu'), tfLib(tf), backend('wasm')],
].filter(([p]) => !pairFilter || p === pairFilter);
const rows = await runCases(pairs, opts, (r) => console.log(formatRow(r)));
const ours = rows.find((r) => r.pair === 'webgpu' && r.case.startsWith('upload'));
if (ours) {
  await backend('webgpu')();
  const raw = await rawRoundTrip(tf.backend().device, opts);
  console.log(`# upload+readback 16MB on WebGPU: raw API ${(raw * 1e3).toFixed(2)} ms; webtensor ÷ raw speed ${(raw / ours.ours).toFixed(2)}`);
}
if (pairs.some(([p]) => p === 'wasm')) console.log(`# tfjs-wasm: SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')}`);
process.exit(0);
