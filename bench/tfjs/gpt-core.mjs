// The GPT training benchmark, shared by Node (gpt.mjs): nanoGPT's model at its CPU recipe's
// size (4 layers, 4 heads, 128 wide, context 64, batch 12, no dropout, no biases, vocabulary
// 65) trained one step after another on fixed random ids, in webtensor's npm package
// (`wt.models.GPT`, AdamW) and in TensorFlow.js (the same model written with tf ops: fused
// qkv projection, causal softmax attention, LayerNorm by tf.moments, exact GELU by tf.erf, tied
// embedding (looked up as a one-hot product), softmax cross-entropy; Adam, as TF.js has no
// AdamW), rounds alternating after a warm-up; a round is N steps ended by reading the loss
// back (which waits for them all). Both start at ln(65) and fall alike on the fixed batch
// (4.22 / 4.20 at step 0, 1.59 / 1.62 at step 25, tfjs-wasm / webtensor cpu).

import { median, round } from './train-core.mjs';

export const CONFIG = { vocabSize: 65, blockSize: 64, nLayer: 4, nHead: 4, nEmbd: 128, batch: 12 };

/** Fixed pseudo-random ids, [batch * blockSize] (inputs, or targets with another seed). */
export function ids(seed, c = CONFIG) {
  let s = seed >>> 0;
  return Int32Array.from({ length: c.batch * c.blockSize }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % c.vocabSize;
  });
}

/** webtensor's step on `device`, as a function returning the loss tensor. */
export function webtensorStep(wt, device, c = CONFIG) {
  const { batch, ...config } = c;
  const gpt = new wt.models.GPT({ ...config, dropout: 0, bias: false, seed: 1, device });
  const decay = gpt.parameters().filter((p) => p.rank >= 2);
  const rest = gpt.parameters().filter((p) => p.rank < 2);
  const opt = new wt.optim.AdamW([{ params: decay, weightDecay: 0.1 }, { params: rest, weightDecay: 0 }], { lr: 1e-3 });
  const shape = [batch, c.blockSize];
  const x = wt.tensor(ids(1, c), { device, shape });
  const y = wt.tensor(ids(2, c), { device, shape });
  return () => wt.tidy(() => {
    opt.zeroGrad();
    const { loss } = gpt.forward(x, y);
    loss.backward();
    opt.step();
    return loss;
  });
}

/** TF.js's step on its current backend: the same model as variables, `optimizer.minimize`. */
export function tfjsStep(tf, c = CONFIG) {
  const { vocabSize: V, blockSize: T, nLayer: L, nHead: H, nEmbd: C, batch: B } = c;
  const hd = C / H;
  let seed = 1;
  const normal = (shape, std) => tf.variable(tf.randomNormal(shape, 0, std, 'float32', seed++));
  const ones = (n) => tf.variable(tf.ones([n]));
  const zeros = (n) => tf.variable(tf.zeros([n]));
  const projStd = 0.02 / Math.sqrt(2 * L);
  const wte = normal([V, C], 0.02);
  const wpe = normal([T, C], 0.02);
  const blocks = Array.from({ length: L }, () => ({
    ln1: [ones(C), zeros(C)],
    attn: normal([C, 3 * C], 0.02),
    proj: normal([C, C], projStd),
    ln2: [ones(C), zeros(C)],
    fc: normal([C, 4 * C], 0.02),
    fcProj: normal([4 * C, C], projStd),
  }));
  const lnf = [ones(C), zeros(C)];
  const layerNorm = (x, [g, b]) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return x.sub(mean).mul(tf.rsqrt(variance.add(1e-5))).mul(g).add(b);
  };
  const gelu = (x) => x.mul(0.5).mul(tf.erf(x.mul(Math.SQRT1_2)).add(1));
  // Added to the scores: 0 on and below the diagonal, -1e9 above it.
  const causal = tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)).mul(-1e9);
  // The token embedding as a one-hot product: tfjs-backend-wasm has no kernel for gather's
  // gradient (UnsortedSegmentSum); the positions are all of wpe's rows, in order.
  const x = tf.oneHot(tf.tensor1d(ids(1, c), 'int32'), V);
  const y = tf.oneHot(tf.tensor1d(ids(2, c), 'int32'), V);
  const loss = () => {
    let h = x.matMul(wte).reshape([B, T, C]).add(wpe);
    for (const b of blocks) {
      const qkv = layerNorm(h, b.ln1).reshape([B * T, C]).matMul(b.attn).reshape([B, T, 3, H, hd]).transpose([2, 0, 3, 1, 4]);
      const [q, k, v] = tf.unstack(qkv);
      const att = tf.softmax(tf.matMul(q, k, false, true).mul(1 / Math.sqrt(hd)).add(causal));
      const o = tf.matMul(att, v).transpose([0, 2, 1, 3]).reshape([B * T, C]).matMul(b.proj);
      h = h.add(o.reshape([B, T, C]));
      const m = gelu(layerNorm(h, b.ln2).reshape([B * T, C]).matMul(b.fc)).matMul(b.fcProj);
      h = h.add(m.reshape([B, T, C]));
    }
    const logits = layerNorm(h, lnf).reshape([B * T, C]).matMul(wte, false, true);
    return tf.losses.softmaxCrossEntropy(y, logits);
  };
  const opt = tf.train.adam(1e-3);
  return () => opt.minimize(loss, true);
}

/**
 * Runs each `[pair, webtensor device, tfjs backend]` of `pairs` and returns rows of `{ pair,
 * device, backend, webtensor, tfjs, ratio }` (ms per step, medians; ratio = TF.js's time over
 * webtensor's, above 1: webtensor is faster). `log(row)` is called as each pair finishes.
 */
export async function runPairs(wt, tf, pairs, { steps = 10, rounds = 3 } = {}, log = () => {}) {
  const rows = [];
  for (const [pair, device, backend] of pairs) {
    await tf.setBackend(backend);
    await tf.ready();
    const ours = webtensorStep(wt, device);
    const theirs = tfjsStep(tf);
    await round(ours, 3);
    await round(theirs, 3);
    const [a, b] = [[], []];
    for (let r = 0; r < rounds; r++) {
      a.push(await round(ours, steps));
      b.push(await round(theirs, steps));
    }
    const row = { pair, device, backend, webtensor: (median(a) * 1e3) / steps, tfjs: (median(b) * 1e3) / steps };
    row.ratio = row.tfjs / row.webtensor;
    rows.push(row);
    log(row);
  }
  return rows;
}

export const HEADER = '| pair | webtensor | TF.js | webtensor ms/step | TF.js ms/step | ratio |\n|---|---|---|---|---|---|';

export const formatRow = (r) =>
  `| ${r.pair} | \`${r.device}\` | ${r.backend} | ${r.webtensor.toFixed(1)} | ${r.tfjs.toFixed(1)} | **${r.ratio.toFixed(2)}x** |`;
