// uint8 and int8 tensors from JavaScript, shared by the Node and browser runners (through
// cases.mjs): every case of tests/fixtures/int8.json (PyTorch's casts, wrapping arithmetic,
// promotion, sums and element moves; the fixtures the Rust suite checks too), and what a JS
// user meets: Uint8Array/Uint8ClampedArray/Int8Array in and out, range errors.
import fixtures from '../../tests/fixtures/int8.json' with { type: 'json' };
import tolerances from '../../tests/fixtures/tolerances.json' with { type: 'json' };
import { assert, close } from './assert.mjs';

const decode = (xs) => xs.map((x) => (x === 'nan' ? NaN : x === 'inf' ? Infinity : x === '-inf' ? -Infinity : x));
const LONG = { u8: 'uint8', i8: 'int8', i32: 'int32', f32: 'float32', bool: 'bool' };

/** The op of a fixture case, as scripts/gen_int8_fixtures.py defines it. */
function apply(wt, op, a, x) {
  switch (op) {
    case 'cast': return x[0].toDtype(LONG[a.dtype]);
    case 'binary': return x[0][a.fn.replace(/_(\w)/g, (_, c) => c.toUpperCase())](x[1]);
    case 'scalar': return x[0][a.fn](a.s);
    case 'unary': return x[0][a.fn]();
    case 'sum': case 'max': return x[0][op]();
    case 'argmin': return x[0].argmin();
    case 'cumsum': return x[0].cumsum(0);
    case 'sort': return x[0].sort(0, true).values;
    case 'matmul': return x[0].matmul(x[1]);
    case 'flip_t': return x[0].t().flip([0]);
    case 'index_select': return x[0].indexSelect(1, x[1]);
    case 'where': return x[0].where(x[0].gt(x[1]), x[1]);
    case 'cat': return wt.cat([x[0], x[1]], 0);
    default: throw new Error(`int8.json has an op this suite does not know: ${op}`);
  }
}

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function int8Cases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  for (const device of devices) {
    const on = { device };
    // One test per case (a failure names it; the rest still run), and the count held exact.
    add(`${device}: int8.json holds 65 cases`, () => assert.equal(fixtures.cases.length, 65, 'int8.json: regenerated with another count'));
    for (const c of fixtures.cases) {
      add(`${device}: int8.json/${c.name}`, async () => {
        const y = wt.tidy(() => {
          const xs = c.inputs.map((i) => wt.tensor(decode(i.data), { ...on, shape: i.shape, dtype: LONG[i.dtype] }));
          return apply(wt, c.op, c.args, xs);
        });
        assert.equal(y.dtype, LONG[c.out_dtype], `${c.name}: dtype`);
        assert.deepEqual(y.shape, c.out_shape, `${c.name}: shape`);
        close(Array.from(await y.data(), Number), decode(c.out), tolerances['int8.json'], `${c.name} on ${device}`);
        y.dispose();
      });
    }

    add(`${device}: typed arrays of bytes in and out; values out of range are RangeErrors`, async () => {
      const img = wt.tensor(new Uint8ClampedArray([0, 128, 255, 7]), { ...on, shape: [2, 2] });
      assert.equal(img.dtype, 'uint8');
      const data = await img.data();
      assert.ok(data instanceof Uint8Array);
      assert.deepEqual(Array.from(data), [0, 128, 255, 7]);
      const s = wt.tensor(new Int8Array([-128, 5]), on);
      assert.equal(s.dtype, 'int8');
      assert.ok((await s.data()) instanceof Int8Array);
      assert.deepEqual(await s.array(), [-128, 5]);
      const f = img.toDtype('float32').div(255);
      assert.equal(f.dtype, 'float32');
      const wrapped = img.add(1);
      assert.equal(wrapped.dtype, 'uint8');
      assert.deepEqual(Array.from(await wrapped.data()), [1, 129, 0, 8], 'uint8 arithmetic wraps, as PyTorch');
      const total = img.sum();
      assert.equal(total.dtype, 'int32');
      assert.equal(await total.item(), 390, 'sums count in int32, not wrapping');
      total.dispose();
      assert.throws(() => wt.tensor([300], { ...on, dtype: 'uint8' }), (e) => e instanceof RangeError && /uint8 range \[0, 255\]/.test(e.message));
      assert.throws(() => wt.full([2], -129, { ...on, dtype: 'int8' }), RangeError);
      assert.throws(() => wt.zeros([3], on).indexSelect(0, img.flatten()), /u8/);
      for (const t of [img, s, f, wrapped]) t.dispose();
    });
  }
  return list;
}
