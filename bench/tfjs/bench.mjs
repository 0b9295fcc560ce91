// TensorFlow.js peer for `webtensor bench --device webgpu:0`: the same f32 matmul sizes and
// 16M-element add on the WebGPU backend, through Dawn (the `webgpu` package) in Node, on the
// same adapter. Each figure is the median of synchronized runs after a warm-up; a run ends when
// one element of the result has been read back (which waits for the whole kernel).
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
Object.defineProperty(globalThis, 'navigator', { value: { gpu: create([]) }, configurable: true });

const tf = await import('@tensorflow/tfjs-core');
await import('@tensorflow/tfjs-backend-webgpu');
await tf.setBackend('webgpu');
await tf.ready();

const adapter = await navigator.gpu.requestAdapter();
const info = adapter.info ?? {};
console.log(`# tfjs ${tf.version_core} webgpu backend on ${info.description || info.device || info.vendor || 'adapter'} (${info.architecture ?? ''})`);

async function sync(t) {
  const one = tf.tidy(() => tf.slice(tf.reshape(t, [-1]), [0], [1]));
  await one.data();
  one.dispose();
}

async function median(runs, f) {
  const warm = f();
  await sync(warm);
  warm.dispose();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const out = f();
    await sync(out);
    times.push((performance.now() - t0) / 1e3);
    out.dispose();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const sizes = process.argv.includes('--quick') ? [256, 512] : [256, 512, 1024, 2048];
for (const n of sizes) {
  const a = tf.randomNormal([n, n], 0, 1, 'float32', 1);
  const b = tf.randomNormal([n, n], 0, 1, 'float32', 2);
  const s = await median(n >= 2048 ? 3 : 5, () => tf.matMul(a, b));
  console.log(`tfjs       matmul f32 ${String(n).padStart(5)}^3      ${(2 * n ** 3 / s / 1e9).toFixed(2).padStart(9)} GFLOP/s   (${(s * 1e3).toFixed(2)} ms)`);
  a.dispose();
  b.dispose();
}
const n = 16 << 20;
const x = tf.ones([n]);
const y = tf.ones([n]);
const s = await median(5, () => tf.add(x, y));
console.log(`tfjs       add f32 ${String(n >> 20).padStart(6)}M elements ${(12 * n / s / 1e9).toFixed(2).padStart(9)} GB/s      (${(s * 1e3).toFixed(2)} ms)`);
process.exit(0);
