// Sorting and scatter from JavaScript, shared by the Node and browser runners (through
// cases.mjs): every case of tests/fixtures/sort.json (PyTorch's outputs and gradients, the
// fixtures the Rust suite checks too), the pair `sort`/`topk` return, and argument errors.
import fixtures from '../../tests/fixtures/sort.json' with { type: 'json' };
import { assert } from './assert.mjs';
import { perCase } from './grad.mjs';

/** The op of a fixture case, as scripts/gen_sort_fixtures.py defines it. */
function apply(wt, op, a, x) {
  switch (op) {
    case 'sort_values': return x[0].sort(a.dim, a.descending).values;
    case 'sort_indices': return x[0].sort(a.dim, a.descending).indices;
    case 'argsort': return x[0].argsort(a.dim, a.descending);
    case 'topk_values': return x[0].topk(a.k, a.dim, a.largest)[0];
    case 'topk_indices': return x[0].topk(a.k, a.dim, a.largest)[1];
    case 'scatter': return x[0].scatter(a.dim, x[1], x[2]);
    case 'scatter_value': return x[0].scatter(a.dim, x[1], a.value);
    default: throw new Error(`sort.json has an op this suite does not know: ${op}`);
  }
}

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function sortCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  for (const device of devices) {
    const on = { device };
    list.push(...perCase(wt, device, 'sort.json', fixtures, 43, apply));

    add(`${device}: sort and topk return [values, indices], also named; tidy frees both`, async () => {
      const before = wt.memory().numTensors;
      const x = wt.tensor([3, 1, 2, 1], on);
      const pair = x.sort();
      const [v, i] = pair;
      assert.equal(pair.values, v);
      assert.equal(pair.indices, i);
      assert.deepEqual(Array.from(await v.data()), [1, 1, 2, 3]);
      assert.deepEqual(Array.from(await i.data()), [1, 3, 2, 0], 'stable: equal values keep their order');
      assert.equal(i.dtype, 'int32');
      const { values, indices } = x.topk(2, 0, false);
      assert.deepEqual(Array.from(await values.data()), [1, 1]);
      assert.deepEqual(Array.from(await indices.data()), [1, 3]);
      const order = x.argsort(0, true);
      assert.deepEqual(Array.from(await order.data()), [0, 2, 1, 3]);
      // tidy disposes both halves of a pair made inside it, and keeps both of a returned one.
      const kept = wt.tidy(() => {
        x.topk(1);
        return x.topk(2);
      });
      assert.equal(wt.memory().numTensors, before + 8);
      for (const t of [x, v, i, values, indices, order, ...kept]) t.dispose();
      assert.equal(wt.memory().numTensors, before, 'every handle was disposed');
    });

    add(`${device}: scatter takes a tensor or a number; bad arguments are clear errors`, async () => {
      const base = wt.zeros([2, 3], on);
      const idx = wt.tensor(new Int32Array([2, 0]), { ...on, shape: [2, 1] });
      const out = base.scatter(1, idx, 7);
      assert.deepEqual(Array.from(await out.data()), [0, 0, 7, 7, 0, 0]);
      assert.throws(() => base.scatter(1, idx, 'x'), (e) => e instanceof TypeError && /scatter: src must be a Tensor or a number/.test(e.message));
      assert.throws(() => base.topk(4, 1), /k = 4 is out of range/);
      assert.throws(() => base.topk(-1), (e) => e instanceof RangeError && /topk: k/.test(e.message));
      assert.throws(() => base.sort(0, 'yes'), (e) => e instanceof TypeError && /descending/.test(e.message));
      assert.throws(() => base.argsort(2), /dim/);
      // Nothing was lost: the tensors still compute.
      assert.deepEqual(Array.from(await base.topk(1, 1)[0].data()), [0, 0]);
      for (const t of [base, idx, out]) t.dispose();
    });
  }
  return list;
}
