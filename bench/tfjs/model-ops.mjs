// The npm package against TensorFlow.js 4.22 on the ops models use beyond issue 14's table
// (ops.mjs), in one Node process, on the CPU (webtensor `cpu`, its kernels inside WebAssembly,
// against tfjs-backend-wasm) or on WebGPU (webtensor `webgpu:0` against tfjs-backend-webgpu,
// both through Dawn, the `webgpu` package, on the same adapter). The cases and the timing are
// model-ops-core.mjs's; model-ops.html runs them in headless Chromium.
// Usage: node model-ops.mjs [--pair wasm|webgpu] [--rounds 9] [--only <case substring>] [--chain]
import { runModelOps } from './model-ops-core.mjs';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const pair = arg('pair', 'wasm');
const rounds = Number(arg('rounds', pair === 'wasm' ? 9 : 5));
const only = arg('only', '');
let gpu;
if (pair === 'webgpu') {
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  gpu = create([]);
  Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
}
const tf = await import('@tensorflow/tfjs-core');
if (pair === 'webgpu') {
  await import('@tensorflow/tfjs-backend-webgpu');
} else {
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).pathname);
}
await tf.setBackend(pair);
await tf.ready();
const wt = await import('../../js/node.js');
await wt.init(gpu ? { gpu } : {});
const device = pair === 'webgpu' ? 'webgpu:0' : 'cpu';
if (pair === 'webgpu') await wt.open(device);
await runModelOps({
  wt,
  tf,
  device,
  peer: pair === 'webgpu' ? 'tfjs-webgpu' : 'tfjs-wasm',
  where: `Node ${process.version}`,
  rounds,
  only,
  chain: process.argv.includes('--chain'),
  say: (s) => console.log(s),
});
process.exit(0);
