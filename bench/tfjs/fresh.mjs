// Elementwise ops as users meet them: a fresh Node process, a short warm-up, then each run
// timed one by one with its result read back (issue 44's measurement of `add` in the npm
// package's `cpu`, which came out bimodal against tfjs-backend-wasm). Prints every run's
// milliseconds, so a bimodal spread shows, and the median.
// With `--into`, webtensor reads into one array kept across runs (`data({ into })`).
// Usage: node fresh.mjs [--lib webtensor|tfjs] [--op add|mul|add-scalar] [--m 4] [--runs 15]
//        [--warmup 2] [--into]
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const libName = arg('lib', 'webtensor');
const op = arg('op', 'add');
const n = Number(arg('m', 4)) << 20;
const runs = Number(arg('runs', 15));
const warmup = Number(arg('warmup', 2));
const into = process.argv.includes('--into');

let make, run, read, dispose;
if (libName === 'tfjs') {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url).pathname);
  await tf.setBackend('wasm');
  await tf.ready();
  make = (seed) => tf.randomNormal([n], 0, 1, 'float32', seed);
  run = (a, b) => (op === 'add' ? tf.add(a, b) : op === 'mul' ? tf.mul(a, b) : tf.add(a, 0.5));
  read = (t) => t.data();
  dispose = (t) => t.dispose();
} else {
  const wt = await import('../../js/node.js');
  await wt.init();
  make = (seed) => wt.randn([n], { seed, device: 'cpu' });
  run = (a, b) => (op === 'add' ? a.add(b) : op === 'mul' ? a.mul(b) : a.add(0.5));
  const out = new Float32Array(n);
  read = (t) => (into ? t.data({ into: out }) : t.data());
  dispose = (t) => t.dispose();
}
const a = make(1);
const b = make(2);
const times = [];
for (let i = 0; i < warmup + runs; i++) {
  const t0 = performance.now();
  const y = run(a, b);
  const values = await read(y);
  const ms = performance.now() - t0;
  if (values.length !== n) throw new Error(`read ${values.length} values`);
  dispose(y);
  if (i >= warmup) times.push(ms);
}
const sorted = [...times].sort((x, y) => x - y);
console.log(
  `${libName}${into ? ' into' : ''} ${op} ${n >> 20}M: median ${sorted[sorted.length >> 1].toFixed(2)} ms, runs ${times.map((t) => t.toFixed(1)).join(' ')}`,
);
