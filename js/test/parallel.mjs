// wt.parallel from JavaScript: data parallel training reaches the weights of one device on the
// same global batches (SGD with momentum, whose update scales with the gradient, and Adam), with
// uneven splits and an idle replica; errors; no leaks. The shared suite runs it over the cpu
// beside each GPU; logical.mjs over two logical devices on one adapter.
import { assert, close } from './assert.mjs';

const build = (wt) => (device) =>
  new wt.nn.Sequential(new wt.nn.Linear(6, 16, { seed: 5, device }), new wt.nn.ReLU(), new wt.nn.Linear(16, 3, { seed: 6, device }));

/**
 * Trains `steps` steps of `batch` rows with `kind` ('sgd' or 'adam') data parallel over
 * `devices` and on `devices[0]` alone; asserts equal losses and weights (and equal replicas).
 */
export async function trainBoth(wt, devices, batch, steps, kind) {
  const x = wt.randn([60, 6], { seed: 11 });
  const y = wt.tensor(Int32Array.from({ length: 60 }, (_, i) => (i * 7) % 3));
  const make = (p) => (kind === 'sgd' ? new wt.optim.SGD(p, { lr: 0.2, momentum: 0.9 }) : new wt.optim.Adam(p, { lr: 0.05 }));
  const lossFn = (out, t) => wt.nn.functional.crossEntropy(out, t);
  const dp = await wt.parallel.DataParallel.create(devices, build(wt));
  const opt = dp.optimizer(make);
  const single = build(wt)(devices[0]);
  const singleOpt = make(single.parameters());
  const [dpLosses, oneLosses] = [[], []];
  for (let s = 0; s < steps; s++) {
    const start = (s * batch) % (60 - batch + 1);
    const xb = x.narrow(0, start, batch);
    const yb = y.narrow(0, start, batch);
    opt.zeroGrad();
    const loss = await dp.forwardBackward(xb, yb, lossFn);
    assert.equal(loss.device, dp.devices[0]);
    dpLosses.push(await loss.item());
    loss.dispose();
    opt.step();

    singleOpt.zeroGrad();
    const xd = await xb.to(devices[0]);
    const yd = await yb.to(devices[0]);
    const out = single.forward(xd);
    const l = lossFn(out, yd);
    await l.backwardAsync();
    singleOpt.step();
    oneLosses.push(await l.item());
    for (const t of [xb, yb, xd, yd, out, l]) t.dispose();
  }
  close(dpLosses, oneLosses, 1e-4, `${devices}: losses per step`);
  const params = (m) => Promise.all(m.parameters().map((p) => p.data()));
  const want = await params(single);
  for (const [i, r] of dp.replicas.entries()) {
    const got = await params(r);
    got.forEach((g, k) => close(g, Array.from(want[k]), 2e-4, `${kind} on ${devices}: replica ${i}, parameter ${k}`));
  }
  opt.dispose();
  singleOpt.dispose();
  dp.dispose();
  single.dispose();
  x.dispose();
  y.dispose();
  return dpLosses;
}

/** The cases as `{ name, fn }` for `wt` on `devices` (the first is the cpu). */
export function parallelCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });

  add('parallel: splitSizes follows tensor_split; DataParallel refuses bad arguments by name', async () => {
    assert.deepEqual(wt.parallel.splitSizes(10, 3), [4, 3, 3]);
    assert.deepEqual(wt.parallel.splitSizes(2, 3), [1, 1, 0]);
    assert.throws(() => wt.parallel.splitSizes(-1, 2), RangeError);
    const { DataParallel } = wt.parallel;
    await assert.rejects(DataParallel.create([], build(wt)), /non-empty array of devices/);
    await assert.rejects(DataParallel.create(['cpu', 'cpu'], build(wt)), /listed twice/);
    await assert.rejects(DataParallel.create(['cpu'], () => 42), /must be a wt.nn.Module/);
    // Every device spelling names the same device (TensorFlow's, an index, a DeviceInfo).
    await assert.rejects(DataParallel.create(['cpu', '/CPU:0'], build(wt)), /devices\[1\] \("\/CPU:0"\) is cpu, which is listed twice/);
    for (const spelling of ['/CPU:0', '/device:CPU:0', wt.devices().find((d) => d.name === 'cpu')]) {
      const one = await DataParallel.create([spelling], build(wt));
      assert.deepEqual(one.devices, ['cpu']);
      one.dispose();
    }
    if (devices.length > 1) {
      const two = await DataParallel.create(['/GPU:0', '/CPU:0'], build(wt));
      assert.deepEqual(two.devices, ['webgpu:0', 'cpu']);
      two.dispose();
    }
    const before = wt.memory().numTensors;
    const dp = await DataParallel.create(['cpu'], build(wt));
    const x = wt.randn([8, 6], { seed: 1 });
    const y = wt.zeros([8], { dtype: 'int32' });
    const lossFn = (o, t) => wt.nn.functional.crossEntropy(o, t);
    const short = y.narrow(0, 0, 4);
    await assert.rejects(dp.forwardBackward(x, short, lossFn), /input has 8 rows but target has 4/);
    short.dispose();
    await assert.rejects(dp.forwardBackward(x, y, (o) => o.sum(1)), /must return one floating-point value/);
    await assert.rejects(dp.forwardBackward(x, y, 'mse'), TypeError);
    // A sum over the batch would be weighted as a mean: refused, by name.
    await assert.rejects(dp.forwardBackward(x, y, (o, t) => wt.nn.functional.crossEntropy(o, t, { reduction: 'sum' })), /lossFn is not a mean over the batch.*reduction 'mean'/);
    const loss = await dp.forwardBackward(x, y, lossFn);
    assert.ok(Number.isFinite(await loss.item()), 'the model still trains after the refusals');
    for (const t of [loss, x, y]) t.dispose();
    dp.module.zeroGrad();
    dp.dispose();
    // At most: across awaits the FinalizationRegistry may free what earlier cases left to the
    // garbage collector, but a leak would add tensors every step.
    assert.ok(wt.memory().numTensors <= before, `no tensor leaked: ${wt.memory().numTensors} live, ${before} before`);
  });

  add('parallel: micro-batches accumulated without zeroing give one device\'s gradients', async () => {
    const devs = devices.length > 1 ? [devices[1], 'cpu'] : ['cpu'];
    const x = wt.randn([19, 6], { seed: 3 });
    const y = wt.tensor(Int32Array.from({ length: 19 }, (_, i) => i % 3));
    const lossFn = (o, t) => wt.nn.functional.crossEntropy(o, t);
    const dp = await wt.parallel.DataParallel.create(devs, build(wt));
    const single = build(wt)('cpu');
    for (const [start, rows] of [[0, 10], [10, 7], [17, 2]]) {
      const [xb, yb] = [x.narrow(0, start, rows), y.narrow(0, start, rows)];
      (await dp.forwardBackward(xb, yb, lossFn)).dispose();
      const l = lossFn(single.forward(xb), yb);
      l.backward();
      for (const t of [xb, yb, l]) t.dispose();
    }
    const grads = (m) => Promise.all(m.parameters().map(async (p) => {
      const g = p.grad;
      const v = Array.from(await g.data());
      g.dispose();
      return v;
    }));
    const want = await grads(single);
    for (const r of dp.replicas) (await grads(r)).forEach((g, k) => close(g, want[k], 1e-5, `replica gradient ${k}`));
    await dp.syncReplicas();
    for (const t of [x, y]) t.dispose();
    dp.dispose();
    single.dispose();
  });

  add('parallel: one cpu replica is plain training', async () => {
    await trainBoth(wt, ['cpu'], 12, 4, 'sgd');
  });

  for (const device of devices.filter((d) => d !== 'cpu')) {
    add(`${device}: parallel: the cpu beside ${device} (uneven 6/5 split) reaches the weights of the cpu alone`, async () => {
      const before = wt.memory().numTensors;
      // Minibatch losses with momentum wander step to step: compare the first five with the last.
      const losses = await trainBoth(wt, ['cpu', device], 11, 20, 'sgd');
      const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
      assert.ok(mean(losses.slice(15)) < mean(losses.slice(0, 5)) - 0.1, `the model learns: ${losses}`);
      await trainBoth(wt, [device, 'cpu'], 10, 6, 'adam');
      await trainBoth(wt, ['cpu', device], 1, 3, 'sgd'); // the second replica sits every step out
      // At most: across awaits the FinalizationRegistry may free what earlier cases left to the
        // garbage collector, but a leak would add tensors every step.
        assert.ok(wt.memory().numTensors <= before, `no tensor leaked: ${wt.memory().numTensors} live, ${before} before`);
    });
  }
  for (const device of devices.filter((d) => d !== 'cpu')) {
    add(`${device}: parallel: a step that fails on the second replica leaves the next one whole`, async () => {
      const dp = await wt.parallel.DataParallel.create(['cpu', device], build(wt));
      const x = wt.randn([8, 6], { seed: 2 });
      const y = wt.tensor(Int32Array.from({ length: 8 }, (_, i) => i % 3));
      const good = (o, t) => wt.nn.functional.crossEntropy(o, t);
      // Fails on the second replica, after the first one's backward has joined the averaging.
      const bad = (o, t) => {
        if (o.device !== 'cpu') throw new Error('refused on the second replica');
        return good(o, t);
      };
      await assert.rejects(dp.forwardBackward(x, y, bad), /refused on the second replica/);
      for (const r of dp.replicas) r.zeroGrad();
      (await dp.forwardBackward(x, y, good)).dispose();
      const grads = (m) => Promise.all(m.parameters().map(async (p) => {
        const g = p.grad;
        const v = Array.from(await g.data());
        g.dispose();
        return v;
      }));
      const [a, b] = [await grads(dp.replicas[0]), await grads(dp.replicas[1])];
      a.forEach((g, k) => close(b[k], g, 1e-5, `the replicas' averaged gradient ${k}`));
      for (const t of [x, y]) t.dispose();
      dp.dispose();
    });
  }
  return list;
}
