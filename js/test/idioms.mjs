// PyTorch idioms from JavaScript (issue 41), shared by the Node and browser runners (through
// cases.mjs): no call shape gives a silent wrong result. PyTorch's varargs spellings mean what
// they mean in PyTorch; extra positional arguments are TypeErrors for every method and function;
// negative starts count from the end; an index out of range is an error on every device (on a
// GPU at the next readback, as PyTorch's device-side assert); cross-entropy's -100 default,
// [N, C, d] inputs and probability targets.
import { assert, close } from './assert.mjs';
import { TENSOR_ARITY, VARARGS } from '../arity.js';
import { INPLACE_ARITY } from '../inplace.js';
import { resetLeakWatch } from '../leakwatch.js';
import creation from '../../tests/fixtures/creation.json' with { type: 'json' };
import clip from '../../tests/fixtures/clip.json' with { type: 'json' };
import schedules from '../../tests/fixtures/schedules.json' with { type: 'json' };
import optimRuns from '../../tests/fixtures/optim.json' with { type: 'json' };

/** How many parameters the function or method whose source starts `src` declares. */
function declared(src) {
  let depth = 0;
  let count = 0;
  let any = false;
  let quote = null;
  for (let i = src.indexOf('(') + 1; i < src.length; i++) {
    const c = src[i];
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) break;
      depth--;
    } else if (c === ',' && depth === 0) count++;
    if (!/\s/.test(c)) any = true;
  }
  return any ? count + 1 : 0;
}

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function idiomCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });

  add('idioms: the arity table names every Tensor method with the parameters it declares', () => {
    const methods = Object.getOwnPropertyNames(wt.Tensor.prototype).filter((k) => {
      const d = Object.getOwnPropertyDescriptor(wt.Tensor.prototype, k);
      return k !== 'constructor' && typeof d.value === 'function';
    });
    for (const m of methods) {
      assert.ok(m in TENSOR_ARITY || VARARGS.has(m) || m in INPLACE_ARITY, `Tensor.${m} is missing from js/arity.js`);
    }
    // An in-place method takes what its out-of-place method takes.
    for (const [name, max] of Object.entries(INPLACE_ARITY)) {
      const base = name.slice(0, -1);
      if (base in TENSOR_ARITY) assert.equal(max, TENSOR_ARITY[base], `Tensor.${name} takes what ${base} takes`);
    }
    // The guard wraps each method; the class body's own source is read back through the
    // class's text to compare the declared parameter counts.
    const body = Function.prototype.toString.call(wt.Tensor);
    for (const [name, max] of Object.entries(TENSOR_ARITY)) {
      const at = body.search(new RegExp(`\\n\\s+(async )?${name.replace('$', '\\$')}\\(`));
      assert.ok(at >= 0, `Tensor.${name} is not in the class body`);
      assert.equal(declared(body.slice(at)), max, `Tensor.${name}: js/arity.js says ${max}`);
    }
  });


  add('types: the result dtypes index.d.ts declares for Keep and Clamped are what the ops return', () => {
    const b = wt.tensor([true, false]);
    // Keep<'bool'> is 'int32'.
    for (const m of ['neg', 'abs', 'square', 'relu', 'floor', 'ceil', 'round', 'sign']) {
      const r = b[m]();
      assert.equal(r.dtype, 'int32', `bool.${m}()`);
      r.dispose();
    }
    // Clamped<D>: float tensors keep their dtype; integer ones too for whole bounds, else float32.
    for (const dtype of ['int32', 'uint32', 'uint8', 'int8', 'float32']) {
      const t = wt.tensor([1, 2, 3], { dtype });
      const [whole, frac] = [t.clamp(1, 2), t.clamp(1.5, 2.5)];
      assert.equal(whole.dtype, dtype, `${dtype}.clamp(1, 2)`);
      assert.equal(frac.dtype, 'float32', `${dtype}.clamp(1.5, 2.5)`);
      [t, whole, frac].forEach((x) => x.dispose());
    }
    b.dispose();
  });

  add('optim: parameter groups and lrScheduler equal PyTorch at every step', async () => {
    const { LambdaLR, StepLR, LinearLR, CosineAnnealingLR, SequentialLR } = wt.optim.lrScheduler;
    for (const c of schedules.cases) {
      const [a, b] = [wt.zeros([2]).requiresGrad_(true), wt.zeros([3]).requiresGrad_(true)];
      const opt = new wt.optim.SGD([{ params: [a], lr: 0.1 }, { params: [b], lr: 0.03 }], { lr: 0.5 });
      const x = c.args;
      const s = x.kind === 'lambda' ? new LambdaLR(opt, (e) => x.base ** e)
        : x.kind === 'step' ? new StepLR(opt, { stepSize: x.step_size, gamma: x.gamma })
          : x.kind === 'linear' ? new LinearLR(opt, { startFactor: x.start_factor, endFactor: x.end_factor, totalIters: x.total_iters })
            : x.kind === 'cosine' ? new CosineAnnealingLR(opt, { tMax: x.t_max, etaMin: x.eta_min })
              : new SequentialLR(opt, { schedulers: [new LinearLR(opt, { startFactor: 0.01, endFactor: 1, totalIters: x.warmup }), new CosineAnnealingLR(opt, { tMax: x.t_max, etaMin: x.eta_min })], milestones: [x.warmup] });
      c.lrs.forEach((want, step) => {
        if (step > 0) {
          opt.step();
          s.step();
        }
        const got = opt.paramGroups.map((g) => g.lr);
        want.forEach((w, g) => assert.ok(Math.abs(got[g] - w) <= 1e-12 * Math.max(Math.abs(w), 1e-12), `${c.name} step ${step} group ${g}: ${got[g]} vs PyTorch's ${w}`));
      });
      assert.deepEqual(s.getLastLr(), opt.paramGroups.map((g) => g.lr));
      opt.dispose();
      a.dispose();
      b.dispose();
    }
  });

  add('optim: each group has its own options; paramGroups[i].lr is settable', async () => {
    const [w, v] = [wt.ones([3]).requiresGrad_(true), wt.ones([3]).requiresGrad_(true)];
    w.grad = wt.zeros([3]);
    v.grad = wt.zeros([3]);
    const opt = new wt.optim.AdamW([{ params: [w], weightDecay: 0.5 }, { params: [v], weightDecay: 0 }], { lr: 0.1 });
    assert.equal(opt.paramGroups.length, 2);
    assert.equal(opt.paramGroups[0].weightDecay, 0.5);
    opt.step();
    close(await w.data(), [0.95, 0.95, 0.95], 1e-6, 'decayed group');
    close(await v.data(), [1, 1, 1], 0, 'group without decay');
    opt.paramGroups[1].lr = 0.2;
    assert.deepEqual(opt.paramGroups.map((g) => g.lr), [0.1, 0.2]);
    opt.lr = 0.3;
    assert.deepEqual(opt.paramGroups.map((g) => g.lr), [0.3, 0.3]);
    assert.throws(() => new wt.optim.SGD([{ params: [w] }, { params: [w] }]), /more than one parameter group/);
    assert.throws(() => new wt.optim.SGD([{ params: [w], momentun: 0.9 }]), /unknown option 'momentun'/);
    assert.throws(() => new wt.optim.SGD([{ params: [w] }, v]), /groups and tensors cannot mix/);
    opt.dispose();
    [w, v].forEach((t) => t.dispose());
  });

  add('idioms: where, mean(null, keepdim), fixed group options and null masks as PyTorch users write them', async () => {
    // Tensor.where(condition, y) is torch.where(condition, this, y).
    const x = wt.tensor([1, 2, 3, 4]);
    const y = wt.tensor([-1, -2, -3, -4]);
    close(await x.where(x.gt(2), y).data(), [-1, -2, 3, 4], 0, 'this where the condition holds, else y');
    const rowsKept = wt.tensor([[1, 2], [3, 4]]).where(wt.tensor([true, false], { dtype: 'bool' }).reshape([2, 1]), wt.zeros([1]));
    assert.deepEqual(rowsKept.shape, [2, 2]);
    close(await rowsKept.data(), [1, 2, 0, 0], 0, 'broadcast condition');
    // keepdim over every dim keeps them as 1s, as sum does.
    const m = wt.ones([2, 3]);
    assert.deepEqual(m.mean(null, true).shape, [1, 1]);
    assert.deepEqual(m.mean(undefined, true).shape, m.sum(undefined, true).shape);
    assert.deepEqual(m.mean().shape, []);
    // An empty dim list reduces every dim in sum, mean, max, var and norm, as PyTorch's.
    const r = wt.tensor([[0, 1, 2], [3, 4, 5]]);
    close(await r.sum([]).data(), [15], 0, 'sum([])');
    assert.deepEqual(r.sum([], true).shape, [1, 1]);
    close(await r.mean([]).data(), [2.5], 0, 'mean([])');
    close(await r.max([]).data(), [5], 0, 'max([])');
    close(await r.var([]).data(), [3.5], 1e-6, 'var([])');
    close(await r.norm(2, []).data(), [Math.sqrt(55)], 1e-6, 'norm(2, [])');
    assert.deepEqual(r.gt(0).any([]).shape, [2, 3], 'any([]) reduces nothing, as PyTorch');
    r.dispose();
    // Options other than lr are fixed once the optimizer is made: setting one is an error.
    const w = wt.ones([2]).requiresGrad_(true);
    const opt = new wt.optim.AdamW([w], { lr: 0.1, weightDecay: 0.5 });
    assert.throws(() => { opt.paramGroups[0].weightDecay = 0; }, /weightDecay is fixed when the optimizer is made/);
    assert.throws(() => { opt.paramGroups[0].betas[0] = 0.5; }, TypeError);
    assert.equal(opt.paramGroups[0].weightDecay, 0.5);
    opt.paramGroups[0].lr = 0.2;
    assert.equal(opt.paramGroups[0].lr, 0.2);
    opt.dispose();
    // A null mask with the causal hint is causal, as an absent one is.
    const mha = new wt.nn.MultiheadAttention(4, 2, { batchFirst: true, seed: 1 });
    const q = wt.randn([1, 3, 4], { seed: 2 });
    const [absent] = mha.forward(q, q, q, { isCausal: true, needWeights: false });
    const [nul] = mha.forward(q, q, q, { isCausal: true, attnMask: null, needWeights: false });
    const [full] = mha.forward(q, q, q, { needWeights: false });
    const nv = await nul.data();
    close(nv, await absent.data(), 0, 'null mask, causal hint');
    const differs = (await full.data()).some((v, i) => Math.abs(v - nv[i]) > 1e-6);
    assert.ok(differs, 'the causal output differs from full attention');
    // In training with dropout the weights returned are the ones the values were averaged with.
    const drop = new wt.nn.MultiheadAttention(4, 2, { batchFirst: true, seed: 1, dropout: 0.5 });
    drop.train();
    const k = wt.randn([2, 16, 4], { seed: 3 });
    const [, weights] = drop.forward(k, k, k, { averageAttnWeights: false });
    const wv = await weights.data();
    assert.ok(wv.some((v) => v === 0), 'dropped weights are zeros');
    const rows = await weights.sum(-1).data();
    assert.ok(rows.some((s) => Math.abs(s - 1) > 1e-3), 'rows after dropout no longer sum to 1');
    [x, y, rowsKept, m, w, mha, q, absent, nul, full, drop, k, weights].forEach((t) => t.dispose());
  });

  add('data: plain numbers and arrays are collated; async datasets iterate with for await', async () => {
    const ds = { length: 5, getItem: (i) => [[i, i + 0.5], i % 2, i > 2, Float32Array.of(i, -i)] };
    const [x, y, flag, typed] = [...new wt.data.DataLoader(ds, { batchSize: 5 })][0];
    assert.deepEqual([x.shape, x.dtype, y.dtype, flag.dtype, typed.shape, typed.dtype], [[5, 2], 'float32', 'int32', 'bool', [5, 2], 'float32']);
    assert.deepEqual(Array.from(await y.data()), [0, 1, 0, 1, 0]);
    [x, y, flag, typed].forEach((t) => t.dispose());
    const slow = { length: 6, getItem: async (i) => { await new Promise((r) => setTimeout(r, 1)); return [i * 2, i]; } };
    const seen = [];
    for await (const [a, b] of new wt.data.DataLoader(slow, { batchSize: 4 })) {
      seen.push(Array.from(await a.data()), Array.from(await b.data()));
      a.dispose();
      b.dispose();
    }
    assert.deepEqual(seen, [[0, 2, 4, 6], [0, 1, 2, 3], [8, 10], [4, 5]]);
    assert.throws(() => [...new wt.data.DataLoader(slow, { batchSize: 2 })], /for await/);
    assert.throws(() => [...new wt.data.DataLoader({ length: 2, getItem: () => 'x' })], /field 0 of the samples must be/);
  });

  for (const device of devices) {
    const on = { device };

    add(`${device}: idioms: PyTorch's varargs mean what they mean in PyTorch`, async () => {
      const v = wt.tensor([1, 2, 3, 4], on);
      const col = v.reshape(4, 1);
      assert.deepEqual(col.shape, [4, 1]);
      assert.deepEqual(col.sub(v).shape, [4, 4], 'reshape(4, 1) - v broadcasts to 4x4');
      assert.deepEqual(v.view(2, -1).shape, [2, 2]);
      const m = wt.arange(0, 6, on).reshape([2, 3]);
      assert.deepEqual(await m.flip(0, 1).array(), [[5, 4, 3], [2, 1, 0]]);
      assert.deepEqual(await m.flip([0, 1]).array(), [[5, 4, 3], [2, 1, 0]]);
      assert.deepEqual(await m.flip(1).array(), [[2, 1, 0], [5, 4, 3]]);
      assert.deepEqual(m.permute(1, 0).shape, [3, 2]);
      assert.deepEqual(m.permute([1, 0]).shape, [3, 2]);
      const ones = wt.zeros(1, 3, 1, on);
      assert.deepEqual(ones.shape, [1, 3, 1], 'zeros(1, 3, 1)');
      assert.deepEqual(ones.squeeze(0, 2).shape, [3], 'squeeze(0, 2) squeezes both');
      assert.deepEqual(ones.squeeze([0, -1]).shape, [3]);
      assert.deepEqual(ones.squeeze(0, 1).shape, [3, 1], 'a dim not of size 1 stays, as PyTorch');
      assert.deepEqual(ones.squeeze().shape, [3]);
      assert.deepEqual(wt.ones(2, 3, { ...on, dtype: 'int32' }).dtype, 'int32');
      assert.deepEqual(wt.rand(2, 2, { ...on, seed: 1 }).shape, [2, 2]);
      assert.deepEqual(wt.randn(3, { ...on, seed: 1 }).shape, [3]);
      assert.deepEqual(v.reshape(4, 1).expand(4, 3).shape, [4, 3]);
      assert.deepEqual(v.repeat(2, 1).shape, [2, 4]);
      assert.deepEqual(wt.zeros(2, 3, 4, on).flatten(1).shape, [2, 12]);
      assert.deepEqual(wt.zeros(2, 3, 4, on).flatten(0, 1).shape, [6, 4]);
      assert.deepEqual(wt.zeros(2, 3, 4, on).flatten().shape, [24]);
      assert.throws(() => v.reshape(4, '1'), TypeError);
    });

    add(`${device}: idioms: extra positional arguments are TypeErrors, never ignored`, async () => {
      const m = wt.zeros([2, 3], on);
      assert.throws(() => m.transpose(0, 1, 2), /transpose: takes at most 2 arguments, got 3/);
      assert.throws(() => m.unsqueeze(0, 1), /unsqueeze: takes at most 1 argument, got 2/);
      assert.throws(() => m.add(1, 2), TypeError);
      assert.throws(() => m.relu(1), TypeError);
      assert.throws(() => m.sum(0, true, 'x'), TypeError);
      assert.throws(() => wt.full([2], 1, on, 'x'), TypeError);
      assert.throws(() => wt.zeros([2], on, 'x'), TypeError);
      assert.throws(() => wt.cat([m, m], 0, 1), TypeError);
      assert.throws(() => wt.nn.functional.relu(m, 1), TypeError);
      assert.throws(() => wt.nn.functional.crossEntropy(m, m, {}, 1), TypeError);
      assert.throws(() => wt.memoryAllocated(device, 1), TypeError);
      await assert.rejects(wt.synchronize(device, 1), TypeError);
      // Missing arguments are TypeErrors too.
      assert.throws(() => m.narrow(0, 1), TypeError);
      assert.throws(() => m.transpose(0), TypeError);
      // Every method of the table with one argument too many (the guard runs first).
      for (const [name, max] of Object.entries(TENSOR_ARITY)) {
        if (name === 'backwardAsync' || name === 'data' || name === 'array' || name === 'item' || name === 'to' || name === 'cpu') {
          await assert.rejects((async () => m[name](...Array(max + 1).fill(0)))(), TypeError);
        } else {
          assert.throws(() => m[name](...Array(max + 1).fill(0)), (e) => e instanceof TypeError && e.message.startsWith(`${name}: takes at most`));
        }
      }
      for (const [name, max] of Object.entries(INPLACE_ARITY)) {
        assert.throws(() => m[name](...Array(max + 1).fill(0)), (e) => e instanceof TypeError && e.message.startsWith(`${name}: takes at most`));
      }
      // Constructors of modules, optimizers and loaders, and built-in modules' forward.
      const { nn, optim, data } = wt;
      const makes = {
        Linear: [3, 2, {}], Embedding: [4, 2, {}], LayerNorm: [3, {}], GroupNorm: [1, 2, {}], BatchNorm1d: [3, {}],
        BatchNorm2d: [3, {}], Dropout: [0.5, {}], Flatten: [1, -1], GELU: [{}], PReLU: [1, {}], ReLU: [{}], Tanh: [{}],
        MSELoss: [{}], CrossEntropyLoss: [{}], Conv1d: [1, 1, 1, {}], Conv2d: [1, 1, 1, {}], MaxPool2d: [2, {}],
        AvgPool2d: [2, {}], AdaptiveAvgPool2d: [1], MultiheadAttention: [4, 2, {}], TransformerEncoderLayer: [4, 2, {}],
        TransformerDecoderLayer: [4, 2, {}],
      };
      for (const [name, args] of Object.entries(makes)) {
        assert.throws(() => new nn[name](...args, 0), (e) => e instanceof TypeError && e.message.startsWith(`${name}: takes at most ${args.length}`), name);
        new nn[name](...args).dispose();
      }
      const p = [wt.zeros([1]).requiresGrad_(true)];
      for (const name of ['SGD', 'Adam', 'AdamW', 'RMSprop']) {
        assert.throws(() => new optim[name](p, { lr: 0.1 }, 0), (e) => e instanceof TypeError && e.message.startsWith(`${name}: takes at most 2`), name);
      }
      assert.throws(() => new data.DataLoader([1, 2], {}, 0), /DataLoader: takes at most 2/);
      assert.throws(() => new wt.models.GPT({ vocabSize: 4, blockSize: 2, nLayer: 1, nHead: 1, nEmbd: 2 }, 0), /GPT: takes at most 1/);
      const lin = new nn.Linear(3, 2);
      await lin.to(device);
      assert.throws(() => lin.forward(m, m), /Linear\.forward: takes at most 1 argument, got 2/);
      const bn = new nn.BatchNorm1d(3);
      assert.throws(() => bn.forward(m, 1), /BatchNorm1d\.forward: takes at most 1/);
      assert.throws(() => new nn.MSELoss().forward(m, m, 1), /MSELoss\.forward: takes at most 2/);
      assert.throws(() => new nn.Sequential(lin).forward(m, 1), /Sequential\.forward: takes at most 1/);
      [lin, bn].forEach((x) => x.dispose());
      p[0].dispose();
      // Nothing was lost.
      assert.deepEqual(Array.from(await m.add(1).data()), [1, 1, 1, 1, 1, 1]);
    });

    add(`${device}: idioms: negative starts count from the end`, async () => {
      const x = wt.arange(0, 6, on);
      assert.deepEqual(Array.from(await x.narrow(0, -2, 2).data()), [4, 5]);
      assert.deepEqual(Array.from(await x.slice(0, -3).data()), [3, 4, 5]);
      assert.deepEqual(Array.from(await x.slice(0, 1, -1).data()), [1, 2, 3, 4]);
      assert.deepEqual(Array.from(await x.slice(0, -5, -1, 2).data()), [1, 3]);
      assert.throws(() => x.narrow(0, -7, 1), RangeError);
    });

    add(`${device}: idioms: indices out of range are errors, on GPUs at the next readback`, async () => {
      const logits = wt.randn([4, 5], { ...on, seed: 2 });
      const check = async (make, re) => {
        let y;
        try {
          y = make();
        } catch (e) {
          assert.ok(device === 'cpu', `${device} reported at the op: ${e.message}`);
          assert.match(e.message, re);
          return;
        }
        await assert.rejects(y.data(), re);
        y.dispose();
      };
      await check(() => wt.nn.functional.crossEntropy(logits, wt.tensor([0, 7, 1, 2], { ...on, dtype: 'int32' })), /cross_entropy: index 7 is out of bounds for dimension 1 with size 5/);
      await check(() => wt.nn.functional.crossEntropy(logits, wt.tensor([0, -1, 1, 2], { ...on, dtype: 'int32' })), /cross_entropy: index -1 is out of bounds/);
      const w = wt.randn([5, 3], { ...on, seed: 3 });
      await check(() => wt.nn.functional.embedding(wt.tensor([9], { ...on, dtype: 'int32' }), w), /embedding: index 9 is out of bounds for dimension 0 with size 5/);
      const x = wt.tensor([[1, 2], [3, 4]], on);
      await check(() => x.gather(1, wt.tensor([[0, 4], [1, 0]], { ...on, dtype: 'int32' })), /gather: index 4 is out of bounds for dimension 1 with size 2/);
      if (device !== 'cpu') {
        x.indexSelect(0, wt.tensor([2], { ...on, dtype: 'int32' }));
        await assert.rejects(wt.synchronize(device), /index_select: index 2 is out of bounds.*device-side check/);
        await wt.synchronize(device); // reported once
      }
      // The device still computes, and PyTorch's default ignore_index (-100) is honoured.
      const loss = wt.nn.functional.crossEntropy(logits, wt.tensor([0, -100, 1, 2], { ...on, dtype: 'int32' }), { reduction: 'none' });
      const per = await loss.data();
      assert.ok(per[1] === 0 && per[0] > 0, `${per}`);
    });

    add(`${device}: idioms: cross-entropy over [N, C, T] and with probability targets`, async () => {
      const x = wt.randn([2, 4, 3], { ...on, seed: 5 });
      const t = wt.tensor([[0, 1, 2], [3, 0, 1]], { ...on, dtype: 'int32' });
      const seq = await wt.nn.functional.crossEntropy(x, t, { reduction: 'none' }).data();
      assert.equal(seq.length, 6);
      // The same as [N*T, C] rows.
      const rows = x.permute(0, 2, 1).reshape(-1, 4);
      close(seq, await wt.nn.functional.crossEntropy(rows, t.reshape(-1), { reduction: 'none' }).data(), 1e-5);
      // Probabilities equal to one-hot rows give the class-index loss.
      const oneHot = wt.nn.functional.oneHot(t.reshape(-1), 4).toDtype('float32');
      close(await wt.nn.functional.crossEntropy(rows, oneHot).data(), await wt.nn.functional.crossEntropy(rows, t.reshape(-1)).data(), 1e-5);
    });

    add(`${device}: idioms: modules and parameters assigned as attributes are registered`, async () => {
      class Net extends wt.nn.Module {
        constructor() {
          super();
          this.fc = new wt.nn.Linear(3, 2, { seed: 1 });
          this.scale = new wt.nn.Parameter(wt.ones([2]));
          this.frozen = new wt.nn.Parameter(wt.zeros([2]), false);
          this.plain = wt.ones([2]); // a plain tensor is not registered, as in PyTorch
          this.act = new wt.nn.ReLU();
        }
        forward(x) { return this.act.forward(this.fc.forward(x)).mul(this.scale).add(this.frozen); }
      }
      const net = new Net();
      assert.deepEqual(net.namedParameters().map(([k]) => k), ['scale', 'frozen', 'fc.weight', 'fc.bias']);
      assert.deepEqual(Object.keys(net.stateDict()), ['scale', 'frozen', 'fc.weight', 'fc.bias']);
      assert.equal(net.frozen.requiresGrad, false);
      assert.deepEqual(net.namedChildren().map(([k]) => k), ['fc', 'act']);
      await net.to(device);
      assert.ok(net.parameters().every((p) => p.device === device), 'to() moved the attribute-assigned layer');
      assert.equal(net.plain.device, 'cpu', 'a plain tensor attribute stays, as in PyTorch');
      assert.deepEqual(net.forward(wt.ones([1, 3], on)).shape, [1, 2]);
      // Reassigning a registered attribute replaces the submodule; null removes it.
      net.fc = new wt.nn.Linear(3, 2, { seed: 2 });
      assert.equal(net.getSubmodule('fc'), net.fc);
      net.act = null;
      assert.deepEqual(net.namedChildren().map(([k]) => k), ['fc']);
      net.dispose();
      net.plain.dispose();
    });

    add(`${device}: idioms: using a module before its to() or loadStateDict() resolves is an error that says to await`, async () => {
      const m = new wt.nn.Linear(2, 2, { seed: 3 });
      const x = wt.ones([1, 2], on);
      const moving = m.to(device);
      assert.throws(() => m.forward(x), /has not finished; await it/);
      await moving;
      assert.deepEqual(m.forward(x).shape, [1, 2]);
      const dict = m.stateDict();
      const loading = m.loadStateDict(dict);
      assert.throws(() => m.forward(x), /loadStateDict\(\) has not finished; await it/);
      await loading;
      assert.deepEqual(m.forward(x).shape, [1, 2]);
      Object.values(dict).forEach((t) => t.dispose());
      m.dispose();
    });

    add(`${device}: idioms: tensors show their values as PyTorch's repr`, async () => {
      const t = wt.tensor([[1, 2], [3, 4]], on);
      const text = String(t);
      if (device === 'cpu') {
        assert.equal(text, 'tensor([[1., 2.],\n        [3., 4.]])');
      } else {
        assert.match(text, /await t.print\(\)/);
        assert.match(text, new RegExp(`device='${device}'`));
      }
      assert.equal(String(wt.tensor([1, 2], { device: 'cpu', dtype: 'int32' })), 'tensor([1, 2], dtype=int32)');
      const logged = [];
      const log = console.log;
      console.log = (...a) => logged.push(a.join(' '));
      try {
        await t.mul(0.5).print();
      } finally {
        console.log = log;
      }
      assert.equal(logged[0], `tensor([[0.5000, 1.0000],\n        [1.5000, 2.0000]]${device === 'cpu' ? '' : `, device='${device}'`})`);
      const big = wt.arange(0, 2000, { device: 'cpu' }).reshape(2, 1000);
      assert.match(String(big), /\.\.\./);
      assert.ok(String(big).length < 400, 'summarised like PyTorch');
    });

    add(`${device}: idioms: a training loop that leaks warns once, with the fix`, async () => {
      resetLeakWatch();
      // The step scope (on by default) would release the kept losses: this is the loop written
      // with the scope turned off.
      const wasOn = wt.setStepScope(false);
      const m = new wt.nn.Linear(4, 2, { seed: 1 });
      await m.to(device);
      const opt = new wt.optim.SGD(m.parameters(), { lr: 0.01 });
      const x = wt.ones([3, 4], on);
      const warned = [];
      const warn = console.warn;
      console.warn = (...a) => warned.push(a.join(' '));
      const kept = [];
      try {
        for (let i = 0; i < 70; i++) {
          opt.zeroGrad();
          const loss = m.forward(x).square().mean();
          loss.backward();
          opt.step();
          kept.push(loss); // never disposed: the leak
        }
      } finally {
        console.warn = warn;
        wt.setStepScope(wasOn);
      }
      assert.equal(warned.length, 1, `warned ${warned.length} times`);
      assert.match(warned[0], /wt\.tidy/);
      kept.forEach((t) => t.dispose());
      x.dispose();
      opt.dispose();
      m.dispose();
    });

    add(`${device}: idioms: checkpoint round trips leave nothing behind`, async () => {
      const m = new wt.nn.Linear(8, 4, { seed: 1 });
      await m.to(device);
      const other = new wt.nn.Linear(8, 4, { seed: 2 });
      await other.to(device);
      const before = wt.memory().numTensors;
      for (let i = 0; i < 20; i++) {
        const bytes = await wt.nn.saveSafetensors(m.stateDict());
        await other.loadStateDict(wt.nn.loadSafetensors(bytes, { device }));
      }
      // At most: across the awaits the FinalizationRegistry may free what earlier cases left to
      // the garbage collector (a longer case before this one made it fail in CI), but a leak
      // would add tensors with every round trip.
      const after = wt.memory().numTensors;
      assert.ok(after <= before, `no tensor left by 20 saves and loads: ${after} live, ${before} before`);
      close(await other.weight.data(), await m.weight.data(), 0);
      // One stateDict() can fill several models (as DataParallel's replicas are synced).
      const shared = m.stateDict();
      const third = new wt.nn.Linear(8, 4, { seed: 3 });
      await other.loadStateDict(shared);
      await third.loadStateDict(shared);
      close(await third.weight.data(), await m.weight.data(), 0);
      Object.values(shared).forEach((t) => t.dispose());
      third.dispose();
      // A consumed dict says what happened and how to use it twice.
      const dict = m.stateDict();
      await wt.nn.saveSafetensors(dict);
      assert.throws(() => dict.weight.add(1), /freed by saveSafetensors once it had used it.*call stateDict\(\) again/);
      // A dict the user made is theirs: saving does not free it.
      const mine = { w: wt.ones([2], on) };
      await wt.nn.saveSafetensors(mine);
      assert.deepEqual(Array.from(await mine.w.data()), [1, 1]);
      mine.w.dispose();
      m.dispose();
      other.dispose();
    });

    add(`${device}: idioms: eye, linspace, logspace match PyTorch; randint, randperm, manualSeed`, async () => {
      for (const c of creation.cases) {
        const a = c.args;
        const o = { ...on, dtype: c.dtype };
        const t = c.op === 'linspace' ? wt.linspace(a.start, a.end, a.steps, o)
          : c.op === 'logspace' ? wt.logspace(a.start, a.end, a.steps, { ...o, base: a.base })
            : wt.eye(a.n, a.m, o);
        const got = Array.from(await t.data());
        const want = c.out.map((v) => (c.dtype === 'float32' ? Math.fround(v) : v));
        if (c.op === 'logspace' && c.dtype === 'float32') close(got, want, 2e-7, `${c.op} ${JSON.stringify(a)}`);
        else assert.deepEqual(got, want, `${c.op} ${JSON.stringify(a)} ${c.dtype}`);
        t.dispose();
      }
      assert.deepEqual(wt.eye(2, on).shape, [2, 2]);
      const r = await wt.randint(3, 9, [500], { ...on, seed: 4 }).data();
      assert.ok(r instanceof Int32Array && r.every((v) => v >= 3 && v < 9));
      assert.deepEqual(Array.from(r), Array.from(await wt.randint(3, 9, [500], { seed: 4 }).data()), 'the same seed on every device');
      assert.ok((await wt.randint(5, [10], on).data()).every((v) => v >= 0 && v < 5), 'randint(high, size)');
      assert.equal(wt.randint(0, 256, [4], { ...on, dtype: 'uint8' }).dtype, 'uint8');
      const p = Array.from(await wt.randperm(50, { ...on, seed: 1 }).data());
      assert.deepEqual([...p].sort((x, y) => x - y), Array.from({ length: 50 }, (_, i) => i));
      wt.manualSeed(3);
      const u = await wt.rand([4], on).data();
      wt.manualSeed(3);
      assert.deepEqual(Array.from(await wt.rand([4], on).data()), Array.from(u), 'manualSeed repeats unseeded draws');
      assert.throws(() => wt.randint(5, 5, [2]), /high \(5\) must be greater than low \(5\)/);
      assert.throws(() => wt.randint([2]), TypeError);
      assert.throws(() => wt.linspace(0, 1, 3, on, 'x'), TypeError);
    });

    add(`${device}: idioms: ModuleList, ModuleDict, an iterable Sequential, tied weights`, async () => {
      class Block extends wt.nn.Module {
        constructor(seed) {
          super();
          this.fc = new wt.nn.Linear(4, 4, { seed });
        }
        forward(x) { return this.fc.forward(x).relu(); }
      }
      class Net extends wt.nn.Module {
        constructor() {
          super();
          this.wte = new wt.nn.Embedding(6, 4, { seed: 1 });
          this.h = new wt.nn.ModuleList([new Block(2), new Block(3)]);
          this.heads = new wt.nn.ModuleDict({ out: new wt.nn.Linear(4, 6, { seed: 4, bias: false }) });
          this.heads.get('out').weight = this.wte.weight; // nanoGPT's tying
        }
        forward(idx) {
          let x = this.wte.forward(idx);
          for (const b of this.h) x = b.forward(x);
          return this.heads.get('out').forward(x);
        }
      }
      const net = new Net();
      assert.deepEqual(Object.keys(net.stateDict()), ['wte.weight', 'h.0.fc.weight', 'h.0.fc.bias', 'h.1.fc.weight', 'h.1.fc.bias', 'heads.out.weight']);
      assert.equal(net.parameters().length, 5, 'the tied weight once');
      await net.to(device);
      assert.ok(net.heads.get('out').weight === net.wte.weight && net.wte.weight.device === device);
      assert.equal(net.h.length, 2);
      assert.equal(net.h.at(-1), [...net.h][1]);
      net.h.insert(0, new Block(5));
      assert.deepEqual(net.namedChildren().map(([k]) => k), ['wte', 'h', 'heads']);
      assert.deepEqual(net.h.namedChildren().map(([k]) => k), ['0', '1', '2']);
      await net.h.at(0).to(device);
      assert.deepEqual(net.forward(wt.tensor([1, 5], { ...on, dtype: 'int32' })).shape, [2, 6]);
      assert.throws(() => net.h.forward(), /ModuleList has no forward/);
      assert.deepEqual([...new wt.nn.Sequential(new wt.nn.ReLU(), new wt.nn.GELU())].map((m) => m.constructor.name), ['ReLU', 'GELU']);
      net.dispose();
    });

    add(`${device}: idioms: nn.utils.clipGradNorm_ and clipGradValue_ match PyTorch`, async () => {
      for (const c of clip.cases) {
        const params = c.params.map((p) => {
          const t = wt.zeros(p.shape, on).requiresGrad_(true);
          if (p.grad) t.grad = wt.tensor(p.grad, { ...on, shape: p.shape });
          return t;
        });
        if (c.fn === 'clip_grad_norm_') {
          const total = wt.nn.utils.clipGradNorm_(params, c.max_norm, { normType: c.norm_type === 'inf' ? Infinity : c.norm_type });
          assert.equal(total.device, device);
          close([await total.item()], [c.total_norm], 1e-5, 'total norm');
          total.dispose();
        } else {
          wt.nn.utils.clipGradValue_(params, c.clip_value);
        }
        for (const [k, p] of params.entries()) {
          const g = p.grad;
          if (c.after[k] === null) assert.equal(g, null);
          else close(await g.data(), c.after[k], 1e-5, `${c.fn} grad ${k}`);
          g?.dispose();
          p.dispose();
        }
      }
      assert.throws(() => wt.nn.utils.clipGradNorm_(42, 1), /parameters must be a Tensor or an iterable/);
    });

    add(`${device}: idioms: gelu's tanh form and multinomial`, async () => {
      const x = wt.tensor([-3, -0.5, 0, 0.5, 3], on);
      const want = [-3, -0.5, 0, 0.5, 3].map((v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3))));
      close(await x.gelu({ approximate: 'tanh' }).data(), want, 1e-6);
      close(await wt.nn.functional.gelu(x, { approximate: 'tanh' }).data(), want, 1e-6);
      close(await new wt.nn.GELU({ approximate: 'tanh' }).forward(x).data(), want, 1e-6);
      assert.throws(() => x.gelu({ approximate: 'fast' }), RangeError);
      const probs = wt.tensor([0.1, 0, 2, 0.5, 1.4], on);
      const n = 5000;
      const draws = await wt.multinomial(probs, n, { replacement: true, seed: 3 }).data();
      assert.ok(draws instanceof Int32Array && draws.length === n && !draws.includes(1));
      const counts = [0, 0, 0, 0, 0];
      draws.forEach((i) => counts[i]++);
      const total = 4;
      const chi2 = counts.reduce((s, c, i) => (i === 1 ? s : s + (c - (n * [0.1, 0, 2, 0.5, 1.4][i]) / total) ** 2 / ((n * [0.1, 0, 2, 0.5, 1.4][i]) / total)), 0);
      assert.ok(chi2 < 23.5, `chi2 ${chi2}: ${counts}`);
      const perm = Array.from(await probs.add(0.1).multinomial(5, { seed: 1 }).data()).sort();
      assert.deepEqual(perm, [0, 1, 2, 3, 4], 'without replacement by default: each category once');
      assert.throws(() => probs.multinomial(6), /without replacement from 5 categories/);
    });

    add(`${device}: idioms: Module.apply, half(), float() and to(dtype)`, async () => {
      const net = new wt.nn.Sequential(new wt.nn.Linear(3, 4, { seed: 1 }), new wt.nn.ReLU(), new wt.nn.Linear(4, 2, { seed: 2 }));
      await net.to(device);
      const seen = [];
      assert.equal(net.apply((m) => seen.push(m.constructor.name)), net);
      assert.deepEqual(seen, ['Linear', 'ReLU', 'Linear', 'Sequential'], 'children first, then the module');
      // nn.init-style use of apply: zero every bias.
      net.apply((m) => { if (m instanceof wt.nn.Linear) m.bias = m.bias.mul(0).detach(); });
      assert.deepEqual(Array.from(await net.at(0).bias.data()), [0, 0, 0, 0]);
      const f16 = device === 'cpu' || wt.devices().some((d) => d.name === device && d.features.includes('shader-f16'));
      if (f16) {
        const w = net.at(0).weight;
        await net.to('float16');
        assert.ok(net.parameters().every((p) => p.dtype === 'float16' && p.requiresGrad), 'half and still learning');
        assert.equal(net.at(0).weight, w, 'the same Tensor objects take the new values');
        net.float();
        assert.ok(net.parameters().every((p) => p.dtype === 'float32'));
      }
      await assert.rejects(net.to('int32'), /floating-point dtype/);
      net.dispose();
    });

    add(`${device}: optim: RMSprop matches PyTorch`, async () => {
      for (const run of optimRuns.runs) {
        const o = run.options;
        const params = run.params.map((p) => wt.tensor(p.data, { ...on, shape: p.shape }).requiresGrad_(true));
        const opt = new wt.optim.RMSprop(params, { lr: o.lr, alpha: o.alpha, eps: o.eps, weightDecay: o.weight_decay, momentum: o.momentum, centered: o.centered });
        for (const [i, s] of run.steps.entries()) {
          params.forEach((p, k) => { p.grad = wt.tensor(s.grads[k], { ...on, shape: p.shape }); });
          opt.step();
          for (const [k, p] of params.entries()) close(await p.data(), s.after[k], 1e-5, `${run.name} step ${i} param ${k}`);
        }
        opt.dispose();
        params.forEach((p) => p.dispose());
      }
    });

    add(`${device}: idioms: nn.init fills in place with PyTorch's distributions and fan rules`, async () => {
      const { init } = wt.nn;
      const stats = async (t) => {
        const v = Array.from(await t.data());
        const mean = v.reduce((a, b) => a + b, 0) / v.length;
        const std = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
        return { mean, std, min: Math.min(...v), max: Math.max(...v) };
      };
      const lin = new wt.nn.Linear(200, 100, { device });
      const w = lin.weight;
      assert.equal(init.kaimingUniform_(w, { seed: 1, nonlinearity: 'relu' }), w, 'in place: the same Tensor');
      let s = await stats(w);
      const bound = Math.sqrt(3) * Math.SQRT2 / Math.sqrt(200); // fan_in 200, relu's gain
      assert.ok(s.min >= -bound && s.max < bound && Math.abs(s.std - bound / Math.sqrt(3)) < 0.02 * bound, JSON.stringify(s));
      assert.ok(w.requiresGrad, 'still learning');
      init.xavierNormal_(w, { seed: 2 });
      s = await stats(w);
      assert.ok(Math.abs(s.std - Math.sqrt(2 / 300)) < 0.03 * Math.sqrt(2 / 300) && Math.abs(s.mean) < 0.005, JSON.stringify(s));
      init.truncNormal_(w, { std: 1, a: -1, b: 1.5, seed: 3 });
      s = await stats(w);
      assert.ok(s.min >= -1 && s.max <= 1.5 && s.mean > 0.05 && s.mean < 0.25, JSON.stringify(s));
      init.normal_(lin.bias, { mean: 3, std: 0.5, seed: 4 });
      s = await stats(lin.bias);
      assert.ok(Math.abs(s.mean - 3) < 0.15 && Math.abs(s.std - 0.5) < 0.1, JSON.stringify(s));
      init.zeros_(lin.bias);
      assert.deepEqual((await stats(lin.bias)).max, 0);
      assert.equal(init.calculateGain('tanh'), 5 / 3);
      assert.throws(() => init.xavierUniform_(lin.bias), /fewer than 2 dims/);
      const before = wt.memory().numTensors;
      init.truncNormal_(w, { seed: 5 });
      assert.equal(wt.memory().numTensors, before, 'no handle left by the draw');
      lin.dispose();
    });

    add(`${device}: optim: stateDict and loadStateDict resume training exactly`, async () => {
      for (const make of [(p) => new wt.optim.Adam(p, { lr: 0.05 }), (p) => new wt.optim.SGD(p, { lr: 0.1, momentum: 0.9 }), (p) => new wt.optim.RMSprop(p, { momentum: 0.5, centered: true })]) {
        const grads = (s) => wt.tensor([0.3 + s, -0.2, 0.1 * s], on);
        const p = wt.tensor([1, 2, 3], on).requiresGrad_(true);
        const opt = make([p]);
        for (let s = 0; s < 3; s++) {
          p.grad = grads(s);
          opt.step();
        }
        const saved = opt.stateDict();
        assert.ok(Object.keys(saved.state).length === 1 && saved.paramGroups.length === 1);
        const q = p.detach().clone().requiresGrad_(true);
        const resumed = make([q]);
        await resumed.loadStateDict(saved);
        for (let s = 3; s < 6; s++) {
          p.grad = grads(s);
          opt.step();
          q.grad = grads(s);
          resumed.step();
        }
        close(await q.data(), await p.data(), 1e-6, 'resumed');
        Object.values(saved.state).forEach((e) => Object.values(e).forEach((t) => t instanceof wt.Tensor && t.dispose()));
        await assert.rejects(make([wt.zeros([3], on).requiresGrad_(true), wt.zeros([3], on).requiresGrad_(true)]).loadStateDict(make([q]).stateDict()), /this optimizer has 2/);
        [opt, resumed].forEach((o) => o.dispose());
        [p, q].forEach((t) => t.dispose());
      }
    });
  }
  return list;
}
