// The cases of model-ops.mjs (Node) and model-ops.html (headless Chromium): ops models use
// beyond issue 14's table, the npm package against TensorFlow.js 4.22 on the same adapter. Each
// library runs in its own layout (webtensor NCHW, TF.js NHWC) on inputs of the same size; rounds
// alternate after a warm-up, each round is 3 calls each read back (or, with `chain`, 10 calls
// each freeing the last and one readback: the kernels' time), and the figure is the median
// round. The ratio is TF.js's time over webtensor's (above 1: webtensor is faster).

/** The cases as [webtensor call, TF.js call] pairs over inputs made on `device`. */
export function makeCases(wt, tf, device) {
  const F = wt.nn.functional;
  const N = 1024;
  const X = wt.randn([N, N], { seed: 1, device }), Y = wt.randn([N, N], { seed: 2, device });
  const P = wt.rand([N, N], { seed: 3, device }).add(0.5);
  const x = tf.randomNormal([N, N], 0, 1, 'float32', 1), y = tf.randomNormal([N, N], 0, 1, 'float32', 2);
  const p = tf.randomUniform([N, N], 0.5, 1.5, 'float32', 3);
  // A conv layer's activations: 8 images of 32 channels, 64x64.
  const X4 = wt.randn([8, 32, 64, 64], { seed: 4, device }), x4 = tf.randomNormal([8, 64, 64, 32], 0, 1, 'float32', 4);
  const W = wt.randn([32, 32, 3, 3], { seed: 5, device }), w = tf.randomNormal([3, 3, 32, 32], 0, 1, 'float32', 5);
  // A bias along the rows and a column (as `x - max(x, 1, keepdim)`), broadcast.
  const BIAS = wt.randn([N], { seed: 6, device }), bias = tf.randomNormal([N], 0, 1, 'float32', 6);
  const COL = wt.randn([N, 1], { seed: 7, device }), col = tf.randomNormal([N, 1], 0, 1, 'float32', 7);
  const MASK = COL.gt(0), mask = tf.greater(col, 0);
  const perm = Array.from({ length: N }, (_, i) => (i * 7919) % N);
  const IDX = wt.tensor(Int32Array.from(perm), { device }), idx = tf.tensor1d(perm, 'int32');
  // Short rows, 1M elements each: a classifier's 10 scores per sample, 20 and 64 features.
  const R10 = X.reshape([-1]).narrow(0, 0, 104857 * 10).reshape([104857, 10]).contiguous();
  const r10 = tf.reshape(tf.slice(tf.reshape(x, [-1]), 0, 104857 * 10), [104857, 10]);
  const R20 = X.reshape([-1]).narrow(0, 0, 52428 * 20).reshape([52428, 20]).contiguous();
  const r20 = tf.reshape(tf.slice(tf.reshape(x, [-1]), 0, 52428 * 20), [52428, 20]);
  const R64 = X.reshape([16384, 64]), r64 = tf.reshape(x, [16384, 64]);

  return {
    'conv2d 8x32x64x64, 3x3, 32 out': [() => F.conv2d(X4, W, null, { padding: 1 }), () => tf.conv2d(x4, w, 1, 'same')],
    'max_pool2d 2x2 8x32x64x64': [() => F.maxPool2d(X4, 2), () => tf.maxPool(x4, 2, 2, 'valid')],
    'avg_pool2d 2x2 8x32x64x64': [() => F.avgPool2d(X4, 2), () => tf.avgPool(x4, 2, 2, 'valid')],
    'cumsum(1) 1024x1024': [() => X.cumsum(1), () => tf.cumsum(x, 1)],
    'cumsum(0) 1024x1024': [() => X.cumsum(0), () => tf.cumsum(x, 0)],
    'topk 8 of 1024, 1024 rows': [() => X.topk(8, -1), () => tf.topk(x, 8)],
    'gather 1024 rows': [() => X.indexSelect(0, IDX), () => tf.gather(x, idx)],
    'transpose 1024x1024': [() => X.t().contiguous(), () => tf.transpose(x)],
    'slice 512 columns': [() => X.narrow(1, 1, 512).contiguous(), () => tf.slice(x, [0, 1], [N, 512])],
    'pad 1 each side': [() => F.pad(X, [1, 1, 1, 1]), () => tf.pad(x, [[1, 1], [1, 1]])],
    'tril': [() => X.tril(), () => tf.linalg.bandPart(x, -1, 0)],
    'mean(0)': [() => X.mean(0), () => tf.mean(x, 0)],
    'min(0)': [() => X.amin(0), () => tf.min(x, 0)],
    'argmax(0)': [() => X.argmax(0), () => tf.argMax(x, 0)],
    'argmax(-1)': [() => X.argmax(-1), () => tf.argMax(x, -1)],
    'prod(1)': [() => P.prod(1), () => tf.prod(p, 1)],
    'argmax(-1), rows of 10': [() => R10.argmax(-1), () => tf.argMax(r10, -1)],
    'max(-1), rows of 20': [() => R20.amax(-1), () => tf.max(r20, -1)],
    'sum(-1), rows of 20': [() => R20.sum(-1), () => tf.sum(r20, -1)],
    'mean(-1), rows of 64': [() => R64.mean(-1), () => tf.mean(r64, -1)],
    'exp 1M': [() => X.exp(), () => tf.exp(x)],
    'sigmoid 1M': [() => X.sigmoid(), () => tf.sigmoid(x)],
    'elu 1M': [() => F.elu(X), () => tf.elu(x)],
    'softplus 1M': [() => F.softplus(X), () => tf.softplus(x)],
    'leaky_relu 1M': [() => F.leakyRelu(X, 0.1), () => tf.leakyRelu(x, 0.1)],
    'sin 1M': [() => X.sin(), () => tf.sin(x)],
    'sqrt 1M': [() => P.sqrt(), () => tf.sqrt(p)],
    'abs 1M': [() => X.abs(), () => tf.abs(x)],
    'clamp 1M': [() => X.clamp(-0.5, 0.5), () => tf.clipByValue(x, -0.5, 0.5)],
    'sub 1M': [() => X.sub(Y), () => tf.sub(x, y)],
    'div 1M': [() => X.div(P), () => tf.div(x, p)],
    'add bias [1024]': [() => X.add(BIAS), () => tf.add(x, bias)],
    'sub column [1024,1]': [() => X.sub(COL), () => tf.sub(x, col)],
    'where by a [1024,1] mask': [() => X.where(MASK, Y), () => tf.where(mask, x, y)],
    'remainder 1M': [() => X.remainder(P), () => tf.mod(x, p)],
    'pow, tensor exponent 1M': [() => P.pow(Y), () => tf.pow(p, y)],
  };
}

/** Every tensor a result holds (topk gives two), read back and freed. */
const results = (r) => (Array.isArray(r) ? r : r.values ? [r.values, r.indices] : [r]);

async function time(f, chain) {
  const t0 = performance.now();
  if (chain) {
    let last = [];
    for (let i = 0; i < 10; i++) {
      for (const t of last) t.dispose();
      last = results(f());
    }
    for (const t of last) { await t.data(); t.dispose(); }
    return (performance.now() - t0) / 10;
  }
  for (let i = 0; i < 3; i++) {
    for (const t of results(f())) {
      await t.data();
      t.dispose();
    }
  }
  return (performance.now() - t0) / 3;
}

/**
 * Runs the cases (those whose name contains `only`, if given) and reports each line through
 * `say`: a header naming `where` and the peer, then one row per case.
 */
export async function runModelOps({ wt, tf, device, peer, where, rounds, only, chain, say }) {
  const cases = makeCases(wt, tf, device);
  say(`# ${where}, webtensor ${device} vs ${peer} ${tf.version_core ?? tf.version.tfjs}; ms per call${chain ? ' (10 chained, one readback)' : ''}, median of ${rounds} rounds`);
  say(`${'case'.padEnd(34)} ${'webtensor'.padStart(10)} ${peer.padStart(12)}   peer/webtensor`);
  for (const [name, [a, b]] of Object.entries(cases)) {
    if (only && !name.includes(only)) continue;
    for (let i = 0; i < 2; i++) { await time(a, chain); await time(b, chain); }
    const ta = [], tb = [];
    for (let r = 0; r < rounds; r++) { ta.push(await time(a, chain)); tb.push(await time(b, chain)); }
    const med = (v) => v.sort((u, z) => u - z)[v.length >> 1];
    const [ma, mb] = [med(ta), med(tb)];
    say(`${name.padEnd(34)} ${ma.toFixed(2).padStart(10)} ${mb.toFixed(2).padStart(12)} ${`${(mb / ma).toFixed(2)}x`.padStart(16)}`);
  }
}
