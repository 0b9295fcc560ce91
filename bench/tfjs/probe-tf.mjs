const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);
const gpu = create([]);
Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
const tf = await import('@tensorflow/tfjs-core');
await import('@tensorflow/tfjs-backend-webgpu');
await tf.setBackend('webgpu'); await tf.ready();
const N = 1024;
const x = tf.randomNormal([N, N], 0, 1, 'float32', 1), y = tf.randomNormal([N, N], 0, 1, 'float32', 2);
const p = tf.randomUniform([N, N], 0.5, 1.5, 'float32', 3);
const cases = { sub: () => tf.sub(x, y), remainder: () => tf.mod(x, p), pow: () => tf.pow(p, y), elu: () => tf.elu(x), sigmoid: () => tf.sigmoid(x), floor_divide: () => tf.floorDiv(x, p) };
for (const [name, f] of Object.entries(cases)) {
  const t = [];
  for (let r = 0; r < 12; r++) {
    const t0 = performance.now();
    let o; for (let k = 0; k < 10; k++) { o?.dispose(); o = f(); } await o.data(); o.dispose();
    if (r >= 2) t.push((performance.now() - t0) / 10);
  }
  console.log(name.padEnd(14), 'tfjs', t.sort((a, b) => a - b)[t.length >> 1].toFixed(2));
}
process.exit(0);
