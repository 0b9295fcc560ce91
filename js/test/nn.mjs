// wt.nn and wt.optim from JavaScript, shared by the Node and browser runners (through
// cases.mjs): the losses against PyTorch, 200-step training runs of an MLP (SGD with momentum,
// Nesterov with weight decay, Adam, AdamW) and of a token model (Embedding, BatchNorm1d,
// LayerNorm) whose loss must be PyTorch's at every step within 1e-4 relative
// (tests/fixtures/train.json, the fixtures the Rust suite checks too), the module semantics
// (to, buffers, stateDict, loadStateDict, subclassing, errors) and flat memory over 1000 steps.
import fixtures from '../../tests/fixtures/train.json' with { type: 'json' };
import { assert, close } from './assert.mjs';

const dtypeOf = (d) => (d === 'i32' ? 'int32' : 'float32');

/** A fixture tensor `{ shape, data, dtype }` on `device`. */
function fixtureTensor(wt, v, device, requiresGrad = false) {
  return wt.tensor(v.data, { device, shape: v.shape, dtype: dtypeOf(v.dtype ?? 'f32'), requiresGrad });
}

/** A state dict of fixture tensors on the cpu (loadStateDict moves them). */
function fixtureDict(wt, dict) {
  return Object.fromEntries(Object.entries(dict).map(([k, v]) => [k, fixtureTensor(wt, v, 'cpu')]));
}

/** Asserts each loss is PyTorch's within 1e-4 relative. */
function sameLosses(got, want, what) {
  assert.equal(got.length, want.length, `${what}: number of steps`);
  got.forEach((g, i) => {
    const w = want[i];
    assert.ok(Math.abs(g - w) <= 1e-4 * Math.max(Math.abs(w), 1e-3), `${what}: step ${i}: loss ${g}, PyTorch ${w}`);
  });
}

/** Trains `model` with `opt` for `want.length` steps, as a user would (tidy around the step); returns the losses. */
async function train(wt, model, opt, forward, y, steps) {
  const F = wt.nn.functional;
  const losses = [];
  for (let i = 0; i < steps; i++) {
    // Node's Dawn reclaims GPU memory on the event loop: a long loop must await now and then.
    if (i % 50 === 49) await wt.synchronize(losses[0].device);
    losses.push(wt.tidy(() => {
      opt.zeroGrad();
      const loss = F.crossEntropy(forward(), y);
      loss.backward();
      opt.step();
      return loss;
    }));
  }
  const all = wt.stack(losses);
  const values = Array.from(await all.data());
  [all, ...losses].forEach((t) => t.dispose());
  return values;
}

function optimizerFor(wt, run, params) {
  const h = run.hyper;
  switch (run.optimizer) {
    case 'sgd': case 'sgd_nesterov_wd':
      return new wt.optim.SGD(params, { lr: h.lr, momentum: h.momentum ?? 0, nesterov: h.nesterov ?? false, weightDecay: h.weight_decay ?? 0 });
    case 'adam': return new wt.optim.Adam(params, { lr: h.lr, weightDecay: h.weight_decay ?? 0 });
    case 'adamw': return new wt.optim.AdamW(params, { lr: h.lr, weightDecay: h.weight_decay ?? 0 });
    default: throw new Error(`train.json has an optimizer this suite does not know: ${run.optimizer}`);
  }
}

/** The fixture's token model: Embedding -> mean -> Linear(no bias) -> BatchNorm1d -> GELU -> LayerNorm -> Linear. */
function tokenNet(wt, device) {
  const nn = wt.nn;
  return new (class TokenNet extends nn.Module {
    constructor() {
      super();
      this.registerModule('emb', new nn.Embedding(20, 8, { paddingIdx: 0, device }));
      this.registerModule('fc1', new nn.Linear(8, 16, { bias: false, device }));
      this.registerModule('bn', new nn.BatchNorm1d(16, { device }));
      this.registerModule('norm', new nn.LayerNorm(16, { device }));
      this.registerModule('fc2', new nn.Linear(16, 4, { device }));
    }
    forward(tokens) {
      const h = this.bn.forward(this.fc1.forward(this.emb.forward(tokens).mean(1)));
      return this.fc2.forward(this.norm.forward(h.gelu()));
    }
  })();
}

/** A committed binary fixture, in Node and in the browser. */
async function fixtureBytes(name) {
  const url = new URL(`../../tests/fixtures/${name}`, import.meta.url);
  if (globalThis.process?.versions?.node) {
    const { readFile } = await import('node:fs/promises');
    return new Uint8Array(await readFile(url));
  }
  return new Uint8Array(await (await fetch(url)).arrayBuffer());
}

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function nnCases(wt, devices) {
  const list = [];
  const add = (name, fn) => list.push({ name, fn });
  const F = () => wt.nn.functional;
  for (const device of devices) {
    add(`${device}: nn: every loss matches PyTorch with its gradient (${fixtures.losses.length} cases)`, async () => {
      for (const c of fixtures.losses) {
        const a = c.args;
        const { y, grads } = wt.tidy(() => {
          const ins = c.inputs.map((i) => fixtureTensor(wt, i, device, (i.dtype ?? 'f32') !== 'i32'));
          const opts = { reduction: a.reduction };
          const cls = { ...opts, ...(a.ignore_index === undefined ? {} : { ignoreIndex: a.ignore_index }) };
          let out;
          switch (a.loss) {
            case 'cross_entropy': out = F().crossEntropy(ins[0], ins[1], { ...cls, ...(a.label_smoothing ? { labelSmoothing: a.label_smoothing } : {}) }); break;
            case 'nll_loss_of_log_softmax': out = F().nllLoss(F().logSoftmax(ins[0], 1), ins[1], cls); break;
            case 'mse_loss': out = F().mseLoss(ins[0], ins[1], opts); break;
            case 'l1_loss': out = new wt.nn.L1Loss(opts).forward(ins[0], ins[1]); break;
            case 'binary_cross_entropy_with_logits': out = F().binaryCrossEntropyWithLogits(ins[0], ins[1], opts); break;
            default: throw new Error(`unknown loss ${a.loss}`);
          }
          out.backward(wt.tensor(c.out_grad, { device, shape: out.shape }));
          return { y: out, grads: ins.map((t) => (t.requiresGrad ? t.grad : null)) };
        });
        assert.deepEqual(y.shape, c.out_shape, `${c.name}: shape`);
        close(await y.data(), c.out, 1e-4, `${c.name} on ${device}`);
        for (let k = 0; k < c.grads.length; k++) {
          if (Array.isArray(c.grads[k])) close(await grads[k].data(), c.grads[k], 1e-4, `${c.name} on ${device}: grad ${k}`);
        }
        [y, ...grads].forEach((t) => t?.dispose());
      }
    });

    add(`${device}: nn: a 200-step MLP run matches PyTorch's loss at every step (SGD, Nesterov, Adam, AdamW)`, async () => {
      for (const run of fixtures.mlp) {
        const nn = wt.nn;
        const model = new nn.Sequential(new nn.Linear(8, 16, { device }), new nn.ReLU(), new nn.Linear(16, 4, { device }));
        assert.deepEqual(Object.keys(model.stateDict()).sort(), ['0.bias', '0.weight', '2.bias', '2.weight']);
        const dict = fixtureDict(wt, run.state_dict);
        await model.loadStateDict(dict);
        Object.values(dict).forEach((t) => t.dispose());
        assert.equal(model.parameters()[0].device, device, 'loading keeps the module on its device');
        const x = fixtureTensor(wt, run.x, device);
        const y = wt.tensor(run.y, { device, dtype: 'int32' });
        const opt = optimizerFor(wt, run, model.parameters());
        const losses = await train(wt, model, opt, () => model.forward(x), y, run.losses.length);
        sameLosses(losses, run.losses, `${run.optimizer} on ${device}`);
        const final = model.stateDict();
        for (const [k, v] of Object.entries(final)) close(await v.data(), run.final_state_dict[k], 1e-3, `${run.optimizer} on ${device}: final ${k}`);
        [x, y, ...Object.values(final)].forEach((t) => t.dispose());
        opt.dispose();
        model.dispose();
      }
    });

    add(`${device}: nn: the token model (Embedding, BatchNorm1d, LayerNorm) matches PyTorch for 200 Adam steps`, async () => {
      const run = fixtures.token_net;
      const model = tokenNet(wt, device);
      assert.deepEqual(Object.keys(model.stateDict()), Object.keys(run.state_dict), "PyTorch's state_dict keys, in order");
      const dict = fixtureDict(wt, run.state_dict);
      await model.loadStateDict(dict);
      Object.values(dict).forEach((t) => t.dispose());
      assert.equal(model.bn.num_batches_tracked.dtype, 'int32');
      const tokens = fixtureTensor(wt, run.tokens, device);
      const y = wt.tensor(run.y, { device, dtype: 'int32' });
      const opt = new wt.optim.Adam(model.parameters(), { lr: run.hyper.lr });
      const losses = await train(wt, model, opt, () => model.forward(tokens), y, run.losses.length);
      sameLosses(losses, run.losses, `token model on ${device}`);
      const final = model.stateDict();
      for (const [k, v] of Object.entries(final)) close(await v.data(), run.final_state_dict[k], 2e-3, `token model on ${device}: final ${k}`);
      assert.equal(await model.bn.num_batches_tracked.item(), run.losses.length, 'BatchNorm counted every training batch');
      model.eval();
      assert.equal(model.bn.training, false, 'eval() reaches submodules');
      const out = wt.noGrad(() => model.forward(tokens));
      close(await out.data(), run.eval_out, 2e-3, `eval on ${device}`);
      const pad = await model.emb.weight.data();
      assert.deepEqual(Array.from(pad.slice(0, 8)), Array(8).fill(0), 'the padding row stays zero through training');
      [tokens, y, out, ...Object.values(final)].forEach((t) => t.dispose());
      opt.dispose();
      model.dispose();
    });

    add(`${device}: nn: 1000 training steps keep memory flat (handles and bytes)`, async () => {
      const nn = wt.nn;
      const model = new nn.Sequential(new nn.Linear(16, 32, { seed: 1, device }), new nn.GELU(), new nn.LayerNorm(32, { device }),
        new nn.Dropout(0.1, { seed: 2 }), new nn.Linear(32, 4, { seed: 3, device }));
      const x = wt.randn([64, 16], { device, seed: 4 });
      const y = wt.tensor(Array.from({ length: 64 }, (_, i) => i % 4), { device, dtype: 'int32' });
      const opt = new wt.optim.AdamW(model.parameters(), { lr: 1e-3 });
      let m0;
      let first;
      for (let i = 0; i < 1000; i++) {
        const loss = wt.tidy(() => {
          opt.zeroGrad();
          const l = F().crossEntropy(model.forward(x), y);
          l.backward();
          opt.step();
          return l;
        });
        // Reading the loss now and then, as a training loop does to log it, also yields to
        // the event loop, which Node's Dawn needs to reclaim GPU memory.
        if (i % 50 === 0) {
          const v = await loss.item();
          first ??= v;
        }
        loss.dispose();
        if (i === 9) m0 = { handles: wt.memory().numTensors, bytes: wt.memoryAllocated(device) };
      }
      const last = wt.tidy(() => F().crossEntropy(model.forward(x), y));
      assert.ok((await last.item()) < first, 'the loss went down');
      last.dispose();
      // <=, not ==: the finalizer may meanwhile free tensors other cases left to the GC.
      assert.ok(wt.memory().numTensors <= m0.handles, `no handle leaked (${wt.memory().numTensors} > ${m0.handles})`);
      assert.ok(wt.memoryAllocated(device) <= m0.bytes, `no storage leaked (${wt.memoryAllocated(device)} > ${m0.bytes} bytes)`);
      [x, y].forEach((t) => t.dispose());
      opt.dispose();
      model.dispose();
    });

    add(`${device}: nn: .safetensors from PyTorch load into a model, and saving gives PyTorch's bytes`, async () => {
      const nn = wt.nn;
      const file = await fixtureBytes('token_net.safetensors');
      const dict = nn.loadSafetensors(file, { device });
      const run = fixtures.token_net;
      assert.deepEqual(Object.keys(dict).sort(), Object.keys(run.state_dict).sort());
      assert.equal(dict['bn.num_batches_tracked'].dtype, 'int32', "PyTorch's int64 counter arrives as int32");
      assert.equal(dict['fc2.weight'].device, device);
      const model = tokenNet(wt, device);
      await model.loadStateDict(dict);
      const w = await model.fc1.weight.data();
      assert.deepEqual(Array.from(w), run.state_dict['fc1.weight'].data.map(Math.fround), 'the weights, exactly');
      const mlpFile = await fixtureBytes('mlp.safetensors');
      const meta = nn.safetensorsMetadata(mlpFile);
      assert.deepEqual(meta, { format: 'pt' });
      const mlp = nn.loadSafetensors(mlpFile.buffer.slice(mlpFile.byteOffset, mlpFile.byteOffset + mlpFile.byteLength), { device });
      const saved = await nn.saveSafetensors(mlp, { metadata: meta });
      assert.ok(saved instanceof Uint8Array);
      assert.ok(saved.length === mlpFile.length && saved.every((b, i) => b === mlpFile[i]), "webtensor's bytes are PyTorch's");
      const big = await fixtureBytes('big_int64.safetensors');
      assert.throws(() => nn.loadSafetensors(big), /'count'.*int32/);
      assert.throws(() => nn.loadSafetensors(new Uint8Array([1, 2, 3])), /not a valid \.safetensors file/);
      assert.throws(() => nn.loadSafetensors('file.safetensors'), TypeError);
      await assert.rejects(nn.saveSafetensors({ a: dict['fc2.bias'] }, { metadata: { n: 1 } }), TypeError);
      [...Object.values(dict), ...Object.values(mlp)].forEach((t) => t.dispose());
      model.dispose();
    });

    add(`${device}: nn: PReLU learns a slope per channel (PyTorch's names, shapes and rules)`, async () => {
      const nn = wt.nn;
      const m = new nn.PReLU(2, { device });
      assert.deepEqual(Object.keys(m.stateDict()), ['weight']);
      assert.deepEqual([...await m.getParameter('weight').data()], [0.25, 0.25]);
      const x = wt.tensor([-4, 2, -1, 1, -2, 0, -4, 2, -1, 1, -2, 0], { shape: [2, 2, 3], device, requiresGrad: true });
      const y = m.forward(x);
      assert.deepEqual([...await y.data()], [-1, 2, -0.25, 1, -0.5, 0, -1, 2, -0.25, 1, -0.5, 0]);
      y.sum().backward();
      assert.deepEqual([...await m.getParameter('weight').grad.data()], [-10, -4], 'the weight gradient sums x <= 0 per channel');
      assert.throws(() => m.forward(wt.zeros([2, 3, 4], { device })), /2 elements.*3 channel/);
      assert.throws(() => nn.functional.prelu(x, wt.zeros([2, 1], { device })), /1-D/);
      assert.throws(() => new nn.PReLU(0), RangeError);
      assert.deepEqual([...await nn.functional.prelu(wt.tensor([-2, 3], { device }), wt.tensor([0.5], { device })).data()], [-1, 3]);
      [m, x, y].forEach((t) => t.dispose());
    });

    if (device !== 'cpu') add(`${device}: nn: model.to moves parameters, gradients and buffers; optimizers follow PyTorch's rules`, () => moveCase(wt, device));
  }
  add('nn: modules: registration, stateDict, loadStateDict, errors', () => moduleCase(wt));
  return list;
}

async function moveCase(wt, device) {
  const nn = wt.nn;
  class Scaled extends nn.Module {
    constructor() {
      super();
      this.registerModule('fc', new nn.Linear(4, 2, { seed: 1 }));
      this.registerBuffer('scale', wt.ones([2]));
      this.plain = wt.zeros([3]);
    }
    forward(x) { return this.fc.forward(x).mul(this.scale); }
  }
  const m = new Scaled();
  const held = m.parameters()[0];
  const xg = wt.ones([5, 4], { device });
  assert.throws(() => m.forward(xg), (e) => /cpu/.test(e.message) && e.message.includes(device) && /matmul/.test(e.message), 'the mismatch names both devices and the op');
  // An optimizer with state on the cpu (one momentum step there).
  const opt = new wt.optim.SGD(m.parameters(), { lr: 0.1, momentum: 0.9 });
  const xc = wt.ones([5, 4]);
  wt.tidy(() => m.forward(xc).sum().backward());
  opt.step();
  assert.equal(await m.to(device), m, 'to resolves to the module');
  assert.equal(m.parameters()[0].device, device);
  assert.equal(held.device, device, 'a parameter held elsewhere is the same Tensor, now moved');
  assert.equal(m.scale.device, device, 'registered buffers move');
  assert.equal(m.plain.device, 'cpu', 'a plain field stays');
  const g = held.grad;
  assert.equal(g.device, device, 'gradients move with their parameters');
  g.dispose();
  wt.tidy(() => m.forward(xg).sum().backward());
  assert.throws(() => opt.step(), /after model\.to/, 'state made on the cpu refuses a moved parameter');
  opt.dispose();
  // An optimizer made before the move but with no state yet works, as in PyTorch.
  const m2 = new nn.Linear(4, 2, { seed: 2 });
  const opt2 = new wt.optim.SGD(m2.parameters(), { lr: 0.1, momentum: 0.9 });
  await m2.to(device);
  const before = await m2.weight.data();
  wt.tidy(() => m2.forward(xg).sum().backward());
  opt2.step();
  assert.equal(m2.weight.device, device);
  const after = await m2.weight.data();
  assert.ok(after.some((v, i) => v !== before[i]), 'the step updated the moved weight');
  [xg, xc, m.plain].forEach((t) => t.dispose());
  [m, m2].forEach((x) => x.dispose());
  opt2.dispose();
}

async function moduleCase(wt) {
  const nn = wt.nn;
  const seq = new nn.Sequential(new nn.Linear(3, 4, { seed: 5 }), new nn.Tanh(), new nn.Linear(4, 2, { bias: false, seed: 6 }));
  assert.deepEqual(seq.namedParameters().map(([k, p]) => [k, p.shape]), [['0.weight', [4, 3]], ['0.bias', [4]], ['2.weight', [2, 4]]]);
  assert.equal(seq.at(-1).bias, null, 'bias: false registers no bias');
  assert.ok(String(seq).includes('(2): Linear(inFeatures=4, outFeatures=2, bias=false)'));
  const again = new nn.Linear(3, 4, { seed: 5 });
  assert.deepEqual(Array.from(await again.weight.data()), Array.from(await seq.at(0).weight.data()), 'a seed gives the same weights');
  // Strict loading: missing, unexpected and mis-shaped keys fail and change nothing.
  const before = Array.from(await seq.at(0).weight.data());
  const dict = seq.stateDict();
  await assert.rejects(seq.loadStateDict({ '0.weight': dict['0.weight'] }), /missing keys \["0.bias", "2.weight"\]/);
  const bad = { ...dict, '0.weight': wt.zeros([3, 4]) };
  await assert.rejects(seq.loadStateDict(bad), /'0.weight' has shape \[4, 3\] in the module but \[3, 4\]/);
  await assert.rejects(seq.loadStateDict({ ...dict, extra: wt.zeros([1]) }), /unexpected keys \["extra"\]/);
  assert.deepEqual(Array.from(await seq.at(0).weight.data()), before, 'a failed load changed nothing');
  const partial = await seq.loadStateDict({ '0.bias': wt.zeros([4]), extra: wt.zeros([1]) }, { strict: false });
  assert.deepEqual(partial, { missingKeys: ['0.weight', '2.weight'], unexpectedKeys: ['extra'] });
  assert.deepEqual(Array.from(await seq.at(0).bias.data()), [0, 0, 0, 0]);
  assert.ok(seq.at(0).bias.isLeaf && seq.at(0).bias.requiresGrad, 'a loaded parameter is a leaf that requires grad');
  // A submodule under two names (PyTorch's `self.a = self.b = bn`): each slot once, both
  // prefixes saved, one prefix loads both (the core's nn::registry rules, as in Rust).
  const twice = new nn.Module();
  const bn = new nn.BatchNorm1d(3);
  twice.registerModule('a', bn);
  twice.registerModule('b', bn);
  assert.deepEqual(twice.namedParameters().map(([k]) => k), ['a.weight', 'a.bias']);
  assert.deepEqual(twice.namedBuffers().map(([k]) => k), ['a.running_mean', 'a.running_var', 'a.num_batches_tracked']);
  const shared = twice.stateDict();
  assert.equal(Object.keys(shared).filter((k) => k.startsWith('b.')).length, 3 + 2);
  const onlyA = Object.fromEntries(Object.entries(shared).filter(([k]) => k.startsWith('a.')).map(([k, t]) => [k, k === 'a.running_mean' ? t.add(1) : t]));
  assert.deepEqual(await twice.loadStateDict(onlyA), { missingKeys: [], unexpectedKeys: [] });
  assert.deepEqual(Array.from(await twice.getBuffer('b.running_mean').data()), [1, 1, 1]);
  // Registration rules.
  const m = new nn.Module();
  const w = wt.randn([2, 2], { seed: 1 });
  assert.equal(m.registerParameter('w', w), w);
  assert.ok(w.requiresGrad && m.w === w);
  assert.throws(() => m.registerBuffer('w', wt.zeros([1])), /already registered/);
  assert.throws(() => m.registerParameter('a.b', wt.zeros([1])), /without '\.'/);
  assert.throws(() => m.registerParameter('forward', wt.zeros([1])), /already an attribute/);
  assert.throws(() => m.registerParameter('y', w.mul(2)), /leaf/);
  assert.throws(() => m.registerParameter('i', wt.zeros([1], { dtype: 'int32' })), /floating point/);
  assert.throws(() => m.registerModule('c', {}), TypeError);
  assert.throws(() => m.forward(), /forward is not implemented/);
  assert.throws(() => new nn.Linear(2, 2, { sed: 1 }), /unknown option 'sed'/);
  assert.throws(() => new nn.BatchNorm1d(3).forward(wt.zeros([2, 3, 4, 5])), /BatchNorm1d.*2-d or 3-d/);
  assert.throws(() => new wt.optim.Adam([w], { betas: [0.9, 1] }), RangeError);
  assert.throws(() => new wt.optim.SGD([w, w]), /more than once/);
  assert.throws(() => new wt.optim.SGD([w.mul(2)]), /leaf/);
  assert.throws(() => new wt.optim.SGD(5), TypeError);
  // A refused value leaves the name free; replacing a Sequential child changes what runs.
  assert.throws(() => m.registerParameter('z', wt.zeros([1], { dtype: 'int32' })), /floating point/);
  const z = wt.zeros([1]);
  m.registerParameter('z', z);
  assert.equal(m.z, z);
  const swap = new nn.Sequential(new nn.Linear(2, 2, { seed: 1 }));
  swap[0] = new nn.Linear(2, 3, { seed: 2 });
  const two = wt.ones([1, 2]);
  const swapped = swap.forward(two);
  assert.deepEqual(swapped.shape, [1, 3], 'the replaced child runs');
  assert.equal(swap.length, 1);
  [two, swapped, z].forEach((t) => t.dispose());
  swap.dispose();
  await assert.rejects(nn.saveSafetensors(new Map([[1, wt.zeros([1])]])), TypeError);
  // Declared class fields (TypeScript's `fc: Linear;`) and fields initialised by the
  // registration both work.
  class Declared extends nn.Module {
    fc;
    head = this.registerModule('head', new nn.Linear(2, 1, { seed: 2 }));
    constructor() {
      super();
      this.fc = this.registerModule('fc', new nn.Linear(2, 2, { seed: 1 }));
    }
  }
  const dm = new Declared();
  assert.deepEqual(dm.namedParameters().map(([k]) => k), ['head.weight', 'head.bias', 'fc.weight', 'fc.bias']);
  assert.ok(dm.fc instanceof nn.Linear && dm.head instanceof nn.Linear);
  dm.dispose();
  assert.throws(() => dm.stateDict(), /disposed/, 'a disposed module says so');
  // A tidy scope does not take a module's tensors.
  const kept = wt.tidy(() => new nn.Linear(2, 2, { seed: 1 }));
  assert.ok(!kept.weight.disposed && !kept.bias.disposed, 'parameters made inside tidy belong to the module');
  // train/eval and zeroGrad.
  const drop = new nn.Sequential(new nn.Dropout(0.5, { seed: 3 }));
  drop.eval();
  assert.ok(!drop.training && !drop.at(0).training);
  const ones = wt.ones([4, 4]);
  assert.deepEqual(Array.from(await drop.forward(ones).data()), Array(16).fill(1), 'eval dropout is the identity');
  wt.tidy(() => kept.forward(ones.narrow(1, 0, 2)).sum().backward());
  assert.ok(kept.weight.grad !== null);
  kept.zeroGrad();
  assert.equal(kept.weight.grad, null, 'zeroGrad sets gradients to null');
  [ones, w].forEach((t) => t.dispose());
  Object.values(dict).forEach((t) => t.dispose());
  [seq, again, kept].forEach((x) => x.dispose());
  assert.throws(() => seq.forward(wt.ones([1, 3])), /disposed/);
}
