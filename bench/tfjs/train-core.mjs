// What the training benchmark measures, shared by Node (train.mjs) and Chromium (train.html):
// the same MLP (784-H-H-10, ReLU, softmax cross-entropy, Adam lr 1e-3) and batch, one step after
// another on random data, in webtensor's npm package and in TensorFlow.js, rounds alternating
// after a warm-up; a round is N steps ended by reading the loss back (which waits for them all).

/** webtensor's step on `device`, as a function returning the loss tensor. */
function webtensorStep(wt, device, B, H, labels) {
  const on = (seed) => ({ seed, device });
  const model = new wt.nn.Sequential(new wt.nn.Linear(784, H, on(1)), new wt.nn.ReLU(), new wt.nn.Linear(H, H, on(2)),
    new wt.nn.ReLU(), new wt.nn.Linear(H, 10, on(3)));
  const opt = new wt.optim.Adam(model.parameters(), { lr: 1e-3 });
  const x = wt.randn([B, 784], { seed: 4, device });
  const y = wt.tensor(labels, { device });
  return () => wt.tidy(() => {
    opt.zeroGrad();
    const loss = wt.nn.functional.crossEntropy(model.forward(x), y);
    loss.backward();
    opt.step();
    return loss;
  });
}

/** TF.js's step on its current backend: variables, `optimizer.minimize`, the loss returned. */
function tfjsStep(tf, B, H, labels) {
  const v = (shape, seed) => tf.variable(tf.randomNormal(shape, 0, Math.sqrt(2 / shape[0]), 'float32', seed));
  const [w1, w2, w3] = [v([784, H], 1), v([H, H], 2), v([H, 10], 3)];
  const [b1, b2, b3] = [tf.variable(tf.zeros([H])), tf.variable(tf.zeros([H])), tf.variable(tf.zeros([10]))];
  const x = tf.randomNormal([B, 784], 0, 1, 'float32', 4);
  const y = tf.oneHot(tf.tensor1d(labels, 'int32'), 10);
  const opt = tf.train.adam(1e-3);
  const f = () => {
    const h1 = tf.relu(tf.add(tf.matMul(x, w1), b1));
    const h2 = tf.relu(tf.add(tf.matMul(h1, w2), b2));
    return tf.losses.softmaxCrossEntropy(y, tf.add(tf.matMul(h2, w3), b3));
  };
  return () => opt.minimize(f, true);
}

/** Seconds for `n` steps, ended by reading the last loss (gpt-core.mjs times its steps so too). */
export async function round(step, n) {
  const t0 = performance.now();
  let loss = null;
  for (let i = 0; i < n; i++) {
    loss?.dispose();
    loss = step();
  }
  const v = (await loss.data())[0];
  loss.dispose();
  if (!Number.isFinite(v)) throw new Error(`the loss is ${v}`);
  return (performance.now() - t0) / 1e3;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs each `[pair, webtensor device, tfjs backend]` of `pairs` and returns rows of
 * `{ pair, device, backend, webtensor, tfjs, ratio }` (samples/s; ratio above 1: webtensor is
 * faster). `log(row)` is called as each pair finishes.
 */
export async function runPairs(wt, tf, pairs, { batch = 64, hidden = 128, steps = 20, rounds = 3 } = {}, log = () => {}) {
  const labels = Int32Array.from({ length: batch }, (_, i) => (i * 7) % 10);
  const rows = [];
  for (const [pair, device, backend] of pairs) {
    await tf.setBackend(backend);
    await tf.ready();
    const ours = webtensorStep(wt, device, batch, hidden, labels);
    const theirs = tfjsStep(tf, batch, hidden, labels);
    await round(ours, 5);
    await round(theirs, 5);
    const [a, b] = [[], []];
    for (let r = 0; r < rounds; r++) {
      a.push(await round(ours, steps));
      b.push(await round(theirs, steps));
    }
    const row = { pair, device, backend, webtensor: (batch * steps) / median(a), tfjs: (batch * steps) / median(b) };
    row.ratio = row.webtensor / row.tfjs;
    rows.push(row);
    log(row);
  }
  return rows;
}

/** One row as the table prints it. */
export const formatRow = (r) =>
  `${r.pair.padEnd(7)} ${r.device.padEnd(17)} ${r.webtensor.toFixed(0).padStart(9)}   ${r.backend.padEnd(13)} ${r.tfjs.toFixed(0).padStart(9)}   ${r.ratio.toFixed(2)}`;
export const HEADER = 'pair    webtensor device  samples/s   tfjs backend  samples/s   ratio';
