// Autograd from JavaScript, shared by the Node and browser runners (through cases.mjs): every
// backward rule against PyTorch's gradients in tests/fixtures/grad.json (the fixtures the Rust
// suite checks too), and the semantics a user meets: accumulation, noGrad, detach, the grad
// setter, errors, and memory that stays flat over a training-style loop.
import tolerances from '../../tests/fixtures/tolerances.json' with { type: 'json' };
import fixtures from '../../tests/fixtures/grad.json' with { type: 'json' };
import { assert, close } from './assert.mjs';

const camel = (n) => n.replace(/_(\w)/g, (_, c) => c.toUpperCase());

/** The op of a fixture case, as scripts/gen_grad_fixtures.py defines it. */
function apply(wt, op, a, x) {
  const keep = a.keepdim;
  switch (op) {
    case 'unary': return x[0][a.fn]();
    case 'binary': return x[0][a.fn](x[1]);
    case 'scalar': return x[0][a.fn](a.s);
    case 'where': return x[1].where(x[0].gt(0), x[2]);
    case 'leaky_relu': return x[0].leakyRelu(a.slope);
    case 'prelu': return x[0].prelu(x[1]);
    case 'elu': return x[0].elu(a.alpha);
    case 'softplus_with': return x[0].softplus({ beta: a.beta, threshold: a.threshold });
    case 'lerp': return x[0].lerp(x[1], x[2]);
    case 'lerp_scalar': return x[0].lerp(x[1], a.w);
    case 'cumsum': case 'cumprod': return x[0][op](a.dim);
    case 'logsumexp': return x[0].logsumexp(a.dims, keep);
    case 'norm': return x[0].norm(a.p === 'inf' ? Infinity : a.p, a.dims.length ? a.dims : undefined, keep);
    case 'masked_fill': return x[0].maskedFill(x[1].gt(0), a.value);
    case 'tril': case 'triu': return x[0][op](a.diagonal);
    case 'flip': return x[0].flip(a.dims);
    case 'roll': return x[0].roll(a.shifts, a.dims);
    case 'repeat': return x[0].repeat(a.sizes);
    case 'tile': return x[0].tile(a.dims);
    case 'split': return x[0].split(a.size, a.dim)[a.part];
    case 'chunk': return x[0].chunk(a.chunks, a.dim)[a.part];
    case 'clamp': return x[0].clamp(a.min ?? null, a.max ?? null);
    case 'sum': case 'mean': case 'max': case 'min': case 'prod': return x[0][op](a.dims, keep);
    case 'sum_all': case 'mean_all': case 'max_all': case 'min_all': case 'prod_all': return x[0][op.slice(0, -4)]();
    case 'var': case 'std': return x[0][op](a.dims, { correction: a.correction, keepdim: keep });
    case 'var_all': case 'std_all': return x[0][op.slice(0, -4)](undefined, { correction: a.correction });
    case 'softmax': return x[0].softmax(a.dim);
    case 'log_softmax': return x[0].logSoftmax(a.dim);
    case 'matmul': return x[0].matmul(x[1]);
    case 'reshape': case 'expand': return x[0][op](a.shape);
    case 'permute': return x[0].permute(a.dims);
    case 'transpose': return x[0].transpose(a.a, a.b);
    case 'narrow': return x[0].narrow(a.dim, a.start, a.len);
    case 'split_view': return x[0].split(a.size, -1)[a.part].view(a.shape);
    case 'select': return x[0].select(a.dim, a.index);
    case 'gelu_tanh': return x[0].gelu({ approximate: 'tanh' });
    case 'squeeze': case 'unsqueeze': return x[0][op](a.dim);
    case 't': case 'contiguous': case 'flatten': return x[0][op]();
    case 'cat': case 'stack': return wt[op](x, a.dim);
    case 'index_select': case 'gather': return x[0][camel(op)](a.dim, x[1]);
    case 'index_add': case 'scatter_add': return x[0][camel(op)](a.dim, x[1], x[2]);
    default: throw new Error(`grad.json has an op this suite does not know: ${op}`);
  }
}

/**
 * Runs PyTorch fixture cases (the format of scripts/gen_grad_fixtures.py) on `device`: the
 * output, and for cases with an output gradient, each input's gradient after `backward`.
 */
/** Fixture values: numbers, with NaN and infinities spelled "nan", "inf", "-inf". */
const decode = (xs) => xs.map((x) => (x === 'nan' ? NaN : x === 'inf' ? Infinity : x === '-inf' ? -Infinity : x));

export async function runFixtures(wt, device, cases, applyCase, tol) {
  const on = { device };
  const before = wt.memory().numTensors;
  for (const c of cases) {
    const { y, grads } = wt.tidy(() => {
      const leaves = c.inputs.map((i) => wt.tensor(decode(i.data), {
        ...on, shape: i.shape, dtype: i.dtype === 'i32' ? 'int32' : 'float32', requiresGrad: i.grad,
      }));
      const xs = leaves.map((l, k) => {
        const v = c.inputs[k].view;
        if (v === 't') return l.transpose(-2, -1);
        if (v === 'narrow') return l.narrow(-1, 1, l.shape[l.rank - 1] - 1);
        return l;
      });
      const out = applyCase(wt, c.op, c.args, xs);
      if (c.out_grad !== null) out.backward(wt.tensor(c.out_grad, { ...on, shape: out.shape }));
      return { y: out, grads: c.out_grad === null ? [] : leaves.map((l) => l.grad) };
    });
    assert.deepEqual(y.shape, c.out_shape, `${c.name}: output shape`);
    assert.equal(y.device, device, `${c.name}: the output lives on the inputs' device`);
    close(await y.data(), decode(c.out), tol, `${c.name}: output`);
    for (let k = 0; k < grads.length; k++) {
      if (c.grads[k] === null) {
        assert.equal(grads[k], null, `${c.name}: input ${k} needs no grad`);
      } else {
        assert.ok(grads[k], `${c.name}: input ${k} has a grad`);
        assert.equal(grads[k].device, device);
        close(await grads[k].data(), decode(c.grads[k]), tol, `${c.name}: grad of input ${k}`);
      }
    }
    y.dispose();
    grads.forEach((g) => g?.dispose());
    // <=, not ==: the finalizer may meanwhile free tensors other cases left to the GC.
    assert.ok(wt.memory().numTensors <= before, `${c.name}: every handle was disposed`);
  }
}

/**
 * One test per case of a fixture file on `device` (`${device}: ${file}/${case}`), so a failure
 * names its case and the rest still run, and one that the file holds exactly `count` cases.
 */
export function perCase(wt, device, file, fixtures, count, applyCase) {
  return [
    {
      name: `${device}: ${file} holds ${count} cases`,
      fn: () => {
        assert.equal(fixtures.cases.length, count, `${file}: regenerated with another count`);
        assert.equal(typeof tolerances[file], 'number', `tests/fixtures/tolerances.json has no entry for ${file}`);
      },
    },
    ...fixtures.cases.map((c) => ({ name: `${device}: ${file}/${c.name}`, fn: () => runFixtures(wt, device, [c], applyCase, tolerances[file]) })),
  ];
}

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function gradCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  for (const device of devices) {
    const on = { device };

    list.push(...perCase(wt, device, 'grad.json', fixtures, 163, apply));

    add(`${device}: autograd: accumulation, noGrad, detach, the grad setter, errors`, async () => {
      const x = wt.tensor([1, 2, 3], { ...on, requiresGrad: true });
      assert.ok(x.requiresGrad && x.isLeaf && x.grad === null && x.gradFn === null);
      wt.tidy(() => x.square().sum().backward());
      wt.tidy(() => x.mul(3).sum().backward());
      close(await x.grad.data(), [5, 7, 9], 1e-6, 'gradients accumulate');
      x.grad = null;
      assert.equal(x.grad, null);
      const y = wt.noGrad(() => x.mul(2));
      assert.ok(!y.requiresGrad && y.isLeaf);
      assert.equal(wt.isGradEnabled(), true);
      const z = x.exp();
      assert.equal(z.gradFn, 'exp');
      assert.ok(!z.detach().requiresGrad);
      assert.throws(() => z.backward(), /one-element/);
      assert.throws(() => wt.tensor([1], on).sum().backward(), /requiresGrad_|requires_grad_/);
      assert.throws(() => x.gt(0).toDtype('float32').sum().backward(), /`gt`/);
      assert.throws(() => wt.tensor([1, 2], { ...on, dtype: 'int32', requiresGrad: true }), /floating-point/);
      assert.throws(() => z.requiresGrad_(false), /not a leaf/);
      assert.throws(() => x.backward(5), TypeError);
      assert.throws(() => wt.noGrad(async () => 1), TypeError);
      z.backward(wt.onesLike(z), { retainGraph: true });
      await z.backwardAsync(wt.onesLike(z));
      close(await x.grad.data(), [2, 4, 6].map((_, i) => 2 * Math.exp(i + 1)), 1e-5, 'two passes, one retained');
      assert.throws(() => z.backward(wt.onesLike(z)), /already freed/);
      x.grad = wt.zeros([3], on);
      close(await x.grad.data(), [0, 0, 0]);
      assert.throws(() => { x.grad = wt.zeros([2], on); }, /must match/);
      [x, y, z].forEach((t) => t.dispose());
    });

    add(`${device}: autograd: clone() is PyTorch's (a copy in the graph, not a second handle)`, async () => {
      const w = wt.tensor([1, 2], { ...on, requiresGrad: true });
      const c = w.clone();
      assert.ok(c.requiresGrad && !c.isLeaf, 'a clone of a leaf that requires grad is recorded, not a leaf');
      wt.tidy(() => c.mul(3).sum().backward());
      close(await w.grad.data(), [3, 3], 1e-6, 'the gradient flows back through the clone');
      const plain = wt.tensor([4, 5], on);
      const copy = plain.clone();
      assert.ok(copy.isLeaf && !copy.requiresGrad);
      copy.requiresGrad_(true);
      assert.ok(!plain.requiresGrad, "requiresGrad_ on the clone leaves the original's flag alone");
      plain.add_(1);
      assert.deepEqual(Array.from(await copy.data()), [4, 5], 'the clone keeps its own data');
      [w, c, plain, copy].forEach((t) => t.dispose());
    });

    add(`${device}: autograd: a training-style loop keeps memory flat`, async () => {
      const w = wt.randn([8, 4], { ...on, seed: 1, requiresGrad: true });
      const data = wt.randn([16, 8], { ...on, seed: 2 });
      let param = w;
      const step = () => wt.tidy(() => {
        const loss = data.matmul(param).tanh().square().mean();
        loss.backward();
        const next = wt.noGrad(() => param.sub(param.grad.mul(0.1)));
        return { loss, next: next.requiresGrad_(true) };
      });
      let first;
      let m0;
      for (let i = 0; i < 60; i++) {
        const { loss, next } = step();
        if (i === 0) first = await loss.item();
        loss.dispose();
        param.dispose();
        param = next;
        if (i === 9) m0 = { ...wt.memory(), bytes: wt.memoryAllocated(device) };
      }
      const lastLoss = wt.tidy(() => data.matmul(param).tanh().square().mean());
      const last = await lastLoss.item();
      lastLoss.dispose();
      assert.ok(last < first, `the loss went down (${first} -> ${last})`);
      // <=, not ==: the finalizer may meanwhile free tensors other cases left to the GC.
      assert.ok(wt.memory().numTensors <= m0.numTensors, `no handle leaked (${wt.memory().numTensors} > ${m0.numTensors})`);
      assert.ok(wt.memoryAllocated(device) <= m0.bytes, `no storage leaked (${wt.memoryAllocated(device)} > ${m0.bytes})`);
      [param, data].forEach((t) => t.dispose());
    });
  }
  return list;
}
