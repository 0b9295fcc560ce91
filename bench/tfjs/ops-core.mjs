// What the op benchmark measures, shared by Node (ops.mjs) and Chromium (ops.html): the cases of
// issue 14's table, each run by webtensor's npm package and by TensorFlow.js on the same
// adapter, rounds alternating after a warm-up (see runCases for how many). A round runs the case `reps` times and then reads
// one element of the last result back (which waits for all of them); a case's time is the median
// round divided by `reps`. The ratio is TF.js's time over webtensor's: above 1, webtensor is
// faster.

/** webtensor as the cases see it, on `device`. */
export function wtLib(wt, device) {
  return {
    name: 'webtensor',
    randn: (shape, seed) => wt.randn(shape, { seed, device }),
    fromArray: (values, shape) => wt.tensor(values, { shape, device }),
    int32: (values) => wt.tensor(Int32Array.from(values), { device }),
    matmul: (a, b) => a.matmul(b),
    add: (a, b) => a.add(b),
    mul: (a, b) => a.mul(b),
    sum: (a) => a.sum(),
    softmax: (a) => a.softmax(-1),
    async first(t) {
      // In tidy, as TF.js's first() below: the reshape's view otherwise keeps the whole result
      // alive until the garbage collector finalizes it (4 MB a round for softmax, which then
      // ran on fresh, faulting pages).
      const one = wt.tidy(() => t.reshape([-1]).narrow(0, 0, 1));
      const v = (await one.data())[0];
      one.dispose();
      return v;
    },
    read: (t) => t.data(),
    setLazy: (on) => wt.setLazyElementwise(on),
    upload: (values, shape) => wt.tensor(values, { shape, device }),
    kmeansStep: (p, pSq, c, ids) =>
      wt.tidy(() => {
        const dist = p.matmul(c.t()).mul(-2).add(pSq).add(c.square().sum(1));
        const onehot = dist.argmin(1).unsqueeze(1).eq(ids).toDtype('float32');
        const counts = onehot.sum(0);
        const mean = onehot.t().matmul(p).div(counts.clamp(1).unsqueeze(1));
        return mean.where(counts.gt(0).unsqueeze(1), c);
      }),
    kmeansInit: (p) => ({ pSq: p.square().sum(1, true), ids: wt.arange(0, 8, 1, { device, dtype: 'int32' }) }),
    indexSelect: (p, idx) => p.indexSelect(0, idx),
    dispose: (t) => t.dispose(),
  };
}

/** TensorFlow.js as the cases see it, on its current backend. */
export function tfLib(tf) {
  return {
    name: 'tfjs',
    randn: (shape, seed) => tf.randomNormal(shape, 0, 1, 'float32', seed),
    fromArray: (values, shape) => tf.tensor(values, shape, 'float32'),
    int32: (values) => tf.tensor1d(Int32Array.from(values), 'int32'),
    matmul: (a, b) => tf.matMul(a, b),
    add: (a, b) => tf.add(a, b),
    mul: (a, b) => tf.mul(a, b),
    sum: (a) => tf.sum(a),
    softmax: (a) => tf.softmax(a),
    async first(t) {
      const one = tf.tidy(() => tf.slice(tf.reshape(t, [-1]), [0], [1]));
      const v = (await one.data())[0];
      one.dispose();
      return v;
    },
    read: (t) => t.data(),
    upload(values, shape) {
      // TF.js keeps new values on the host until a kernel needs them; push them to the device
      // (as a kernel would) so that data() reads them back from it.
      const t = tf.tensor(values, shape, 'float32');
      tf.backend().uploadToGPU?.(t.dataId);
      return t;
    },
    kmeansStep: (p, pSq, c, ids) =>
      tf.tidy(() => {
        const dist = tf.add(tf.add(tf.mul(tf.matMul(p, c, false, true), -2), pSq), tf.sum(tf.square(c), 1));
        const onehot = tf.cast(tf.equal(tf.expandDims(tf.argMin(dist, 1), 1), ids), 'float32');
        const counts = tf.sum(onehot, 0);
        const mean = tf.div(tf.matMul(onehot, p, true, false), tf.expandDims(tf.maximum(counts, 1), 1));
        return tf.where(tf.expandDims(tf.greater(counts, 0), 1), mean, c);
      }),
    kmeansInit: (p) => ({ pSq: tf.sum(tf.square(p), 1, true), ids: tf.range(0, 8, 1, 'int32') }),
    indexSelect: (p, idx) => tf.gather(p, idx, 0),
    dispose: (t) => t.dispose(),
  };
}

/**
 * The cases. `make(lib)` prepares inputs and returns `{ run, done }`: `run()` does the work once
 * and returns a tensor (or a promise of one when the case itself reads back), `done()` frees
 * the inputs. `reps` runs make one round.
 */
export const CASES = [
  ...[256, 512, 1024].map((n) => ({
    name: `matmul ${n}`,
    reps: n >= 1024 ? 2 : 8,
    make(lib) {
      const a = lib.randn([n, n], 1);
      const b = lib.randn([n, n], 2);
      return { run: () => lib.matmul(a, b), done: () => [a, b].forEach(lib.dispose) };
    },
  })),
  ...[1, 4].map((m) => ({
    name: `add ${m}M`,
    reps: 10,
    make(lib) {
      const a = lib.randn([m << 20], 1);
      const b = lib.randn([m << 20], 2);
      return { run: () => lib.add(a, b), done: () => [a, b].forEach(lib.dispose) };
    },
  })),
  {
    name: 'add scalar 4M',
    reps: 10,
    make(lib) {
      const a = lib.randn([4 << 20], 1);
      return { run: () => lib.add(a, 0.5), done: () => lib.dispose(a) };
    },
  },
  {
    name: 'sum 4M',
    reps: 10,
    make(lib) {
      const a = lib.randn([4 << 20], 1);
      return { run: () => lib.sum(a), done: () => lib.dispose(a) };
    },
  },
  {
    name: 'softmax 1024x1024',
    reps: 5,
    make(lib) {
      const a = lib.randn([1024, 1024], 1);
      return { run: () => lib.softmax(a), done: () => lib.dispose(a) };
    },
  },
  {
    name: 'upload+readback 16MB',
    reps: 1,
    readsBack: true,
    make(lib) {
      const values = new Float32Array(4 << 20).map((_, i) => i % 251);
      return {
        async run() {
          const t = lib.upload(values, [4 << 20]);
          const got = await lib.read(t);
          if (got[250] !== 250) throw new Error(`${lib.name}: upload+readback read ${got[250]} at 250`);
          return t;
        },
        done() {},
      };
    },
  },
  ...[
    ['chain 200, tensor operand', false],
    ['chain 200, scalar operand', true],
  ].map(([name, scalar]) => ({
    name: `${name} (per op)`,
    reps: 200,
    chain: true,
    make(lib) {
      const x = lib.randn([1024], 1);
      const y = lib.randn([1024], 2);
      let cur = null;
      return {
        run() {
          // Each op consumes the previous result, as a model's elementwise tail does.
          const next = scalar ? lib.mul(cur ?? x, 0.999) : lib.add(cur ?? x, y);
          if (cur) lib.dispose(cur);
          cur = next;
          return next;
        },
        take() {
          const t = cur;
          cur = null;
          return t;
        },
        done: () => [x, y].forEach(lib.dispose),
      };
    },
  })),
  {
    name: 'k-means 480x320, 8 colours (per iteration)',
    reps: 3,
    chain: true,
    make(lib) {
      const n = 480 * 320;
      const pixels = new Float32Array(n * 3).map((_, i) => ((i * 2654435761) % 1000) / 1000);
      const p = lib.fromArray(pixels, [n, 3]);
      const picks = lib.int32(Array.from({ length: 8 }, (_, j) => Math.floor((j * n) / 8 + n / 16)));
      const c0 = lib.indexSelect(p, picks);
      lib.dispose(picks);
      const { pSq, ids } = lib.kmeansInit(p);
      let cur = null;
      return {
        run() {
          const next = lib.kmeansStep(p, pSq, cur ?? c0, ids);
          if (cur) lib.dispose(cur);
          cur = next;
          return next;
        },
        take() {
          const t = cur;
          cur = null;
          return t;
        },
        done: () => [p, c0, pSq, ids].forEach(lib.dispose),
      };
    },
  },
];

/**
 * Seconds per run of `c` (prepared as `inst`) over one round. A round runs a case `reps` times
 * and keeps only the last result: webtensor's lazy tier (on WebGPU) would never run the
 * results dropped unread, so single-op cases run with it off, each op dispatched as TF.js's
 * are; the chains (each op consuming the last, as a model's elementwise tail) keep it on,
 * which is how users meet them.
 */
async function round(lib, c, inst) {
  lib.setLazy?.(Boolean(c.chain));
  const t0 = performance.now();
  let out = null;
  for (let i = 0; i < c.reps; i++) {
    if (!c.chain && out) lib.dispose(out);
    out = await inst.run();
  }
  if (c.chain) out = inst.take();
  if (!c.readsBack) {
    const v = await lib.first(out);
    if (Number.isNaN(v)) throw new Error(`${lib.name} ${c.name}: NaN`);
  }
  const s = (performance.now() - t0) / 1e3 / c.reps;
  lib.dispose(out);
  return s;
}

/** Cheap cases keep alternating rounds until this much time has passed (both sides together)... */
const ROUND_BUDGET_MS = 1500;
/** ...or this many rounds each. */
const MAX_ROUNDS = 41;
/** Warm-up rounds continue (both sides together) for this long. */
const WARMUP_MS = 1000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs every case (or those whose name contains `only`) for each `[pair, ours, theirs, setup]`
 * of `pairs` (`setup()` switches TF.js's backend); returns rows `{ pair, case, ours, theirs,
 * ratio }` in seconds per run. `log(row)` is called as each row finishes. `warmupMs` and
 * `exact` give the fresh-process measurement (fresh-table.mjs): two warm-up rounds, then
 * exactly `rounds` rounds.
 */
export async function runCases(pairs, { rounds = 5, only = null, warmupMs = WARMUP_MS, exact = false } = {}, log = () => {}) {
  const more = (r, t0, budget) => !exact && r < MAX_ROUNDS && performance.now() - t0 < budget;
  const rows = [];
  for (const [pair, ours, theirs, setup] of pairs) {
    await setup();
    for (const c of CASES.filter((x) => !only || x.name.includes(only))) {
      const a = c.make(ours);
      const b = c.make(theirs);
      try {
        // Warm-up: V8 runs wasm first as baseline (Liftoff) code and swaps in optimised code
        // per function as it gets hot, in the background; a single warm-up round left cases
        // measured half in baseline code (add scalar ran at 2 ms for 12 rounds, then 1 ms).
        const w0 = performance.now();
        for (let r = 0; r < 2 || more(r, w0, warmupMs); r++) {
          await round(ours, c, a);
          await round(theirs, c, b);
        }
        const [ta, tb] = [[], []];
        // At least `rounds` rounds, more while the case is cheap: a single round of a
        // millisecond case swings 2-5x with when the JS heap faults in fresh pages or collects
        // (16 MB readbacks land at 2 or 11 ms), so 3-5 samples gave medians that were luck.
        const t0 = performance.now();
        for (let r = 0; r < rounds || more(r, t0, ROUND_BUDGET_MS); r++) {
          ta.push(await round(ours, c, a));
          tb.push(await round(theirs, c, b));
        }
        const row = { pair, case: c.name, ours: median(ta), theirs: median(tb), rounds: ta.length };
        row.ratio = row.theirs / row.ours;
        rows.push(row);
        log(row);
      } finally {
        a.done();
        b.done();
      }
    }
  }
  return rows;
}

const ms = (s) => (s * 1e3 < 1 ? (s * 1e3).toFixed(3) : (s * 1e3).toFixed(2));

/** One row as the table prints it. */
export const formatRow = (r) =>
  `${r.pair.padEnd(8)} ${r.case.padEnd(44)} ${ms(r.ours).padStart(10)} ${ms(r.theirs).padStart(10)}   ${r.ratio.toFixed(2).padStart(5)} ${String(r.rounds).padStart(7)}`;
export const HEADER = `${'pair'.padEnd(8)} ${'case'.padEnd(44)} ${'webtensor'.padStart(10)} ${'tfjs'.padStart(10)}   ratio  rounds\n${' '.repeat(54)}ms/run     ms/run   (tfjs time / webtensor time)`;

/**
 * Seconds for the upload + readback case done with the raw WebGPU API on `device` (a
 * GPUDevice): writeBuffer into a storage buffer, a copy into a mappable buffer, mapAsync, and a
 * copy out of the mapping; new buffers every time, as a plain program would. Median of `rounds`.
 */
export async function rawRoundTrip(device, { rounds = 5 } = {}) {
  const values = new Float32Array(4 << 20).map((_, i) => i % 251);
  const once = async () => {
    const t0 = performance.now();
    const size = values.byteLength;
    const buf = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    device.queue.writeBuffer(buf, 0, values);
    const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(buf, 0, staging, 0, size);
    device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const got = new Float32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    buf.destroy();
    staging.destroy();
    if (got[250] !== 250) throw new Error(`raw WebGPU read ${got[250]} at 250`);
    return (performance.now() - t0) / 1e3;
  };
  await once();
  const times = [];
  for (let r = 0; r < rounds; r++) times.push(await once());
  return median(times);
}
