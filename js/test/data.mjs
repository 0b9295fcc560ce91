// wt.data from JavaScript, shared by the Node and browser runners (through cases.mjs): batches
// cover every sample once per epoch, the seeded order is the Rust loader's, dropLast and length
// agree with PyTorch's, custom datasets are stacked without leaks, options are checked, and a
// model trains from the batches.
import { assert } from './assert.mjs';

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function dataCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });

  add('data: the seeded order is the Rust loader\'s; options are checked', () => {
    const x = wt.arange(10);
    const loader = new wt.data.DataLoader([x], { batchSize: 4, shuffle: true, seed: 0 });
    assert.deepEqual(Array.from(loader.order(0)), [6, 3, 2, 9, 8, 1, 4, 7, 0, 5], 'permutation(10, 0, 0) of tests/data.rs');
    assert.equal(loader.length, 3);
    assert.equal(new wt.data.DataLoader([x], { batchSize: 4, dropLast: true }).length, 2);
    assert.throws(() => new wt.data.DataLoader([x], { batchSize: 0 }), RangeError);
    assert.throws(() => new wt.data.DataLoader([x], { batchsize: 4 }), /unknown option 'batchsize'/);
    assert.throws(() => new wt.data.DataLoader([x], { pinMemory: true }), /unknown option 'pinMemory'/);
    assert.throws(() => new wt.data.DataLoader(42), TypeError);
    assert.throws(() => new wt.data.TensorDataset(x, wt.zeros([3])), /tensor 1 has shape \[3\]/);
    x.dispose();
  });

  for (const device of devices) {
    const on = { device };
    add(`${device}: data: every sample once per epoch, fields paired, a new order each epoch, no leaks`, async () => {
      const before = wt.memory().numTensors;
      const n = 10;
      const x = wt.tensor(Array.from({ length: n }, (_, i) => [i, 10 * i]), on);
      const y = wt.arange(n, { ...on, dtype: 'int32' });
      const loader = new wt.data.DataLoader(new wt.data.TensorDataset(x, y), { batchSize: 4, shuffle: true, seed: 7 });
      const epochs = [];
      for (let e = 0; e < 2; e++) {
        const seen = [];
        const sizes = [];
        for (const [xb, yb] of loader) {
          assert.equal(xb.device, device);
          const xs = await xb.data();
          const ys = await yb.data();
          sizes.push(ys.length);
          ys.forEach((i, k) => {
            assert.deepEqual([xs[2 * k], xs[2 * k + 1]], [i, 10 * i], 'fields stay paired');
            seen.push(i);
          });
          xb.dispose();
          yb.dispose();
        }
        assert.deepEqual(sizes, [4, 4, 2]);
        assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i));
        epochs.push(seen.join());
      }
      assert.ok(epochs[0] !== epochs[1], 'a new order each epoch');
      assert.equal(loader.epoch, 2);
      // A dataset of samples computed by getItem: stacked, and what getItem made is freed.
      const squares = { length: 5, getItem: (i) => [wt.tensor([i, i * i], on), wt.tensor(i % 2, { ...on, dtype: 'int32' })] };
      const batches = [...new wt.data.DataLoader(squares, { batchSize: 2 })];
      assert.deepEqual(batches.map((b) => b[0].shape), [[2, 2], [2, 2], [1, 2]]);
      assert.deepEqual(Array.from(await batches[1][0].data()), [2, 4, 3, 9]);
      assert.deepEqual(Array.from(await batches[2][1].data()), [0]);
      batches.flat().forEach((t) => t.dispose());
      x.dispose();
      y.dispose();
      // At most: across these awaits the FinalizationRegistry may free what earlier cases left
      // to the garbage collector (seen once in Chromium), but a leak adds tensors every batch.
      assert.ok(wt.memory().numTensors <= before, `every tensor the loader made was disposed: ${wt.memory().numTensors} live, ${before} before`);
    });

    add(`${device}: data: a classifier trains from shuffled CPU batches moved to the device`, async () => {
      const n = 64;
      const x = wt.tensor(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? [1 + 0.01 * i, 1] : [-1, -1 - 0.01 * i])));
      const y = wt.tensor(Int32Array.from({ length: n }, (_, i) => i % 2));
      const model = new wt.nn.Linear(2, 2, { seed: 3, device });
      const opt = new wt.optim.SGD(model.parameters(), { lr: 0.5 });
      const loader = new wt.data.DataLoader([x, y], { batchSize: 16, shuffle: true, seed: 1 });
      const losses = [];
      for (let epoch = 0; epoch < 5; epoch++) {
        let total = 0;
        for (const [xc, yc] of loader) {
          const xb = await xc.to(device);
          const yb = await yc.to(device);
          const loss = wt.tidy(() => {
            opt.zeroGrad();
            const l = wt.nn.functional.crossEntropy(model.forward(xb), yb);
            l.backward();
            opt.step();
            return l;
          });
          total += await loss.item();
          for (const t of [xc, yc, xb, yb, loss]) t.dispose();
        }
        losses.push(total / loader.length);
      }
      assert.ok(losses[4] < 0.5 * losses[0], `the loss fell from ${losses[0]} to ${losses[4]}`);
      opt.dispose();
      model.dispose();
      x.dispose();
      y.dispose();
    });
  }
  return list;
}
