// Compile-time checks of js/index.d.ts (`npm run test:types`): precise types compile, and the
// expect-error directives below prove that wrong uses are rejected (with `any` they would not be).
import * as wt from '../index.js';

export async function check(): Promise<void> {
  const device: string = await wt.init();
  const x = wt.tensor([[1, 2], [3, 4]], { device });
  const f32: Float32Array = await x.data();
  const i = wt.arange(0, 4, 1, { dtype: 'int32' });
  const i32: Int32Array = await i.data();
  const mask: Uint8Array = await x.gt(1).data();
  const arg: Int32Array = await x.argmax(1).data();
  const h: wt.Tensor<'float16'> = x.toDtype('float16');
  const hd: Float32Array = await h.data();
  const nested = await x.array();
  const info: wt.DeviceInfo[] = wt.devices();
  const kept = wt.tidy(() => ({ y: x.add(1).matmul(x) }));
  kept.y.dispose();
  x[Symbol.dispose]();
  const bytes: number = wt.memoryAllocated('cpu');
  void [f32, i32, mask, arg, hd, nested, info, bytes];
  // @ts-expect-error an int32 tensor does not read back as Float32Array
  const wrong: Float32Array = await i.data();
  // @ts-expect-error dtypes are a closed set
  wt.zeros([2], { dtype: 'complex64' });
  // @ts-expect-error binary ops take tensors or numbers
  x.add('1');
  void wrong;
  // Device management: logical devices through init, launch blocking.
  const split: Promise<wt.DeviceName> = wt.init({ logicalDevices: { 'webgpu:0': [{ memoryLimit: 1 << 26 }, {}] } });
  const logicalIndex: number | null = info[0].logical;
  wt.setLaunchBlocking(true);
  const blocking: boolean = wt.launchBlocking();
  wt.setFusedKernels('never');
  const fused: wt.FusedKernels = wt.fusedKernels();
  // @ts-expect-error the fused-kernel modes are a closed set
  wt.setFusedKernels('fast');
  const readInto: Promise<Float32Array> = wt.zeros([2]).data({ into: new Float32Array(2) });
  // @ts-expect-error a float32 tensor reads into a Float32Array
  void wt.zeros([2]).data({ into: new Int32Array(2) });
  void readInto;
  wt.setLazyElementwise(false);
  const lazy: boolean = wt.lazyElementwise();
  const launches: number = wt.kernelLaunches('webgpu:0');
  // @ts-expect-error the lazy tier's switch is a boolean
  wt.setLazyElementwise('on');
  void [split, logicalIndex, blocking, fused, lazy, launches];
  // @ts-expect-error a memory limit is a number of bytes
  wt.setLogicalDeviceConfiguration('webgpu:0', [{ memoryLimit: '64M' }]);
  // Binary ops and matmul keep the dtype, so data() needs no cast.
  const sum: Float32Array = await x.add(x).data();
  const prod: Float32Array = await x.matmul(x).data();
  const iadd: Int32Array = await i.add(i).data();
  const imm: Int32Array = await i.reshape([2, 2]).matmul(i.reshape([2, 2])).data();
  const mixed: Float32Array = await i.add(x.flatten()).data();
  const halfSum: Float32Array = await h.mul(h).data();
  const ratio: Float32Array = await i.div(i).data();
  const bools: Int32Array = await x.gt(1).add(x.gt(2)).data();
  // Unary ops with integer forms: bool computes in int32 (what they return, checked by running
  // them in js/test/idioms.mjs); clamp of an integer tensor may give float32 (fractional bounds).
  const negBool: wt.Tensor<'int32'> = x.gt(1).neg();
  const clampedInt: wt.Tensor<'int32' | 'float32'> = i.clamp(1.5, 2.5);
  const clampedFloat: wt.Tensor<'float32'> = x.clamp(0, 1);
  // @ts-expect-error an int32 tensor's clamp may be float32
  const clampedWrong: wt.Tensor<'int32'> = i.clamp(1.5, 2.5);
  void [negBool, clampedInt, clampedFloat, clampedWrong];
  const scaled: Float32Array = await x.mul(2).data();
  void [sum, prod, iadd, imm, mixed, halfSum, ratio, bools, scaled];
  // @ts-expect-error float32 + float32 is not int32
  const notInt: Int32Array = await x.add(x).data();
  void notInt;
  // The API PyTorch and TensorFlow.js users reach for.
  const z: wt.Tensor<'int32'> = wt.zerosLike(i);
  const o: wt.Tensor<'float16'> = wt.onesLike(x, { dtype: 'float16' });
  const r: wt.Tensor<'float32'> = wt.randLike(x, { seed: 1 });
  const n: wt.Tensor<'int32'> = i.newZeros([3]);
  const nt: wt.Tensor<'float32'> = x.newTensor([1, 2]);
  const v: number = await wt.tensor(5).item();
  const b: boolean = await wt.tensor([true]).item();
  const s3: wt.Tensor = wt.zeros(3);
  const ar: wt.Tensor<'int32'> = wt.arange(5, { dtype: 'int32' });
  const avail: boolean = wt.isAvailable('webgpu');
  const count: number = wt.deviceCount('gpu');
  const mem: number = wt.memory().numTensors;
  const stats: wt.MemoryStats = wt.memoryStats(info[0] ?? 'cpu');
  const scoped: wt.Tensor = wt.withDevice('/GPU:0', () => wt.ones([2]));
  const onAccel: Promise<wt.Tensor<'float32'>> = x.to(0);
  const cast: Promise<wt.Tensor<'int32'>> = x.to('int32');
  const like: Promise<wt.Tensor<'int32'>> = x.to(i);
  const dims: number[] = x.size();
  const d0: number = x.size(0);
  const numel: number = x.numel();
  const opt: wt.CreateOptions = { device: undefined }; // fine under exactOptionalPropertyTypes
  void [z, o, r, n, nt, v, b, s3, ar, avail, count, mem, stats, scoped, onAccel, cast, like, dims, d0, numel, opt];
  // @ts-expect-error rand makes float tensors
  wt.rand([2], { dtype: 'int32' });
  // @ts-expect-error kinds are a closed set
  wt.isAvailable('tpu');
}

// Autograd.
{
  const w = wt.randn([4, 2], { seed: 1, requiresGrad: true });
  const x = wt.tensor([[1, 2, 3, 4]], { requiresGrad: false });
  const loss = x.matmul(w).tanh().square().mean();
  loss.backward();
  loss.backward(undefined, { retainGraph: true });
  loss.backward({ retainGraph: false });
  const p: Promise<void> = loss.backwardAsync();
  const g: wt.Tensor<'float32'> | null = w.grad;
  w.grad = null;
  const marked: wt.Tensor<'float32'> = x.requiresGrad_();
  const updated: wt.Tensor<'float32'> = wt.noGrad(() => w.sub_(0.1).mul_(x).clamp_(-1, 1).zero_().fill_(2).copy_(x).uniform_().normal_(0, 1));
  const heldOn: boolean = wt.setStepScope(true);
  const heldDict: { a: wt.Tensor<'float32'> } = wt.keep({ a: x });
  const flags: boolean[] = [w.requiresGrad, w.isLeaf];
  const fn: string | null = loss.gradFn;
  const frozen: wt.Tensor<'float32'> = wt.noGrad(() => w.mul(2));
  const on: boolean = wt.isGradEnabled();
  const added: wt.Tensor<'float32'> = w.indexAdd(0, wt.tensor([0], { dtype: 'int32' }), wt.ones([1, 2]));
  const e: wt.Tensor<'float32'> = w.erf().detach();
  void [p, g, marked, flags, fn, frozen, on, added, e];
  // @ts-expect-error backward takes a tensor or options
  loss.backward(5);
}

// Modules and optimizers.
{
  const { nn, optim } = wt;
  const F = nn.functional;
  class Net extends nn.Module {
    fc: wt.nn.Linear;
    constructor() {
      super();
      this.fc = this.registerModule('fc', new nn.Linear(4, 2, { seed: 1 }));
      this.registerBuffer('scale', wt.ones([2]));
    }
    forward(x: wt.Tensor): wt.Tensor { return this.fc.forward(x); }
  }
  const model = new nn.Sequential(new Net(), new nn.GELU(), new nn.LayerNorm(2), new nn.Dropout(0.1, { seed: 2 }));
  const moved: Promise<wt.nn.Sequential> = model.to('cpu');
  const opt = new optim.AdamW(model.parameters(), { lr: 1e-3, betas: [0.9, 0.99] });
  const sgd = new optim.SGD(model.parameters(), { lr: 0.1, momentum: 0.9, nesterov: true });
  const x = wt.randn([3, 4]);
  const y = wt.tensor([0, 1, 1], { dtype: 'int32' });
  const loss = wt.tidy(() => {
    opt.zeroGrad();
    const l = F.crossEntropy(model.forward(x), y, { labelSmoothing: 0.1, reduction: 'mean' });
    l.backward();
    opt.step();
    return l;
  });
  const dict: Record<string, wt.Tensor> = model.stateDict();
  const loaded: Promise<{ missingKeys: string[]; unexpectedKeys: string[] }> = model.loadStateDict(dict, { strict: false });
  const params: [string, wt.Tensor][] = model.namedParameters();
  const bn = new nn.BatchNorm1d(2, { momentum: null });
  const stats: wt.Tensor | null = bn.running_mean;
  const lr: number = sgd.lr;
  sgd.lr = 0.01;
  const mse: wt.Tensor = new nn.MSELoss({ reduction: 'sum' }).forward(x, x);
  class Scaled extends nn.Linear {
    declare weight: wt.Tensor;
  }
  const w: wt.Tensor | null = new Scaled(2, 2).getParameter('weight');
  const sub: wt.nn.Module = model.getSubmodule('0.fc');
  const rm: wt.Tensor | null = model.getBuffer('0.scale');
  void [moved, loss, loaded, params, stats, lr, mse, model.eval().training, w, sub, rm];
  // @ts-expect-error reductions are a closed set
  F.mseLoss(x, x, { reduction: 'avg' });
  // @ts-expect-error betas are a pair
  new optim.Adam(model.parameters(), { betas: [0.9] });
  // Convolution, pooling and the other model ops.
  const img = wt.randn([1, 3, 8, 8]);
  const cnn = new nn.Sequential(new nn.Conv2d(3, 4, [3, 3], { padding: 'same', seed: 1 }), new nn.MaxPool2d(2), new nn.AdaptiveAvgPool2d(1));
  const conv: wt.Tensor = F.conv2d(img, wt.randn([4, 3, 3, 3]), null, { stride: [2, 1], padding: 1 });
  const [pooled, idx]: [wt.Tensor, wt.Tensor<'int32'>] = F.maxPool2d(img, 2, { returnIndices: true });
  const resized: wt.Tensor = F.interpolate(img, { scaleFactor: 2, mode: 'bilinear', alignCorners: false });
  const hot: wt.Tensor<'int32'> = F.oneHot(wt.tensor(new Int32Array([0, 2])), 3);
  const att: wt.Tensor = F.scaledDotProductAttention(x, x, x, { isCausal: true });
  const stepped: wt.Tensor = img.slice(2, 0, 8, 2);
  void [cnn, conv, pooled, idx, resized, hot, att, stepped, F.pad(img, [1, 1], 'reflect'), F.avgPool2d(img, 2)];
  // Sorting keeps the dtype of the values; indices are int32; both spellings of the pair.
  const ints = wt.tensor(new Int32Array([3, 1, 2]));
  const [sortedInts, order]: [wt.Tensor<'int32'>, wt.Tensor<'int32'>] = ints.sort(0, true);
  const { values: best, indices: at } = x.topk(2);
  const bestF: wt.Tensor<'float32'> = best;
  const rank: wt.Tensor<'int32'> = x.argsort(-1);
  const written: wt.Tensor<'float32'> = x.scatter(1, wt.tensor(new Int32Array([0]), { shape: [1, 1] }), 5);
  void [sortedInts, order, bestF, at, rank, written];
  // Bytes: Uint8Array/Uint8ClampedArray are uint8, Int8Array int8; data() gives them back.
  const bytes: wt.Tensor<'uint8'> = wt.tensor(new Uint8ClampedArray([1, 2]));
  const signed: wt.Tensor<'int8'> = wt.tensor(new Int8Array([-1]));
  const back: Promise<Uint8Array> = bytes.data();
  const asF: wt.Tensor<'float32'> = bytes.toDtype('float32');
  const both: wt.Tensor<'int32'> = bytes.add(signed);
  const count: wt.Tensor<'int32'> = bytes.sum();
  const still: wt.Tensor<'uint8'> = bytes.add(bytes);
  void [back, asF, both, count, still, signed.data() as Promise<Int8Array>];
  // wt.data: loaders over tensors or any dataset; batches are arrays of tensors.
  const loader = new wt.data.DataLoader([x, x], { batchSize: 2, shuffle: true, seed: 0, dropLast: false });
  for (const [xb, yb] of loader) void [xb.shape, yb.dispose()];
  const custom = new wt.data.DataLoader({ length: 3, getItem: (i: number) => [wt.tensor([i])] }, { batchSize: 2 });
  const firstOrder: Uint32Array = loader.order(0);
  void [custom.length, firstOrder, new wt.data.TensorDataset(x).getBatch([0])];
  // wt.parallel: replicas keep their module type; the loss is a Tensor on the first device.
  const dp: Promise<wt.parallel.DataParallel<wt.nn.Linear>> = wt.parallel.DataParallel.create(
    ['cpu', 'webgpu:0'],
    (device: string) => new wt.nn.Linear(4, 2, { device }),
  );
  void dp.then(async (p) => {
    const replicated = p.optimizer((params) => new wt.optim.SGD(params, { lr: 0.1 }));
    const loss: wt.Tensor = await p.forwardBackward(x, x, (o, t) => o.sub(t).square().mean());
    const first: wt.nn.Linear = p.module;
    replicated.step();
    void [loss, first, wt.parallel.splitSizes(10, 3) as number[]];
  });
  // Device management (devices.d.ts, re-exported by index.d.ts).
  const ev: Promise<wt.Event> = wt.Event.record('cpu');
  const log: wt.Placement[] = wt.placementLog();
  const counted: wt.TransferStats = wt.transferStats('cpu');
  void [ev, log, counted, wt.memoryLimit('cpu') as number | null];
  // Checkpoint files (Node): the dict in, a promise of name -> Tensor out.
  const saved: Promise<void> = wt.saveSafetensorsFile({ w: x }, '/tmp/w.safetensors', { metadata: { step: '1' } });
  const loadedFile: Promise<Record<string, wt.Tensor>> = wt.loadSafetensorsFile('/tmp/w.safetensors', { device: 'cpu' });
  void [saved, loadedFile];
  // @ts-expect-error pinMemory is not an option (yet)
  new wt.data.DataLoader([x], { pinMemory: true });
  // @ts-expect-error padding modes are a closed set
  F.pad(img, [1, 1], 'mirror');
  // @ts-expect-error interpolation modes are a closed set
  F.interpolate(img, { size: 4, mode: 'bicubic' });
  // PyTorch idioms (issue 41): varargs sizes and dims, flatten's range, the repr, nn.Parameter.
  const col: wt.Tensor<'float32'> = wt.zeros(4).reshape(4, 1);
  const grid: wt.Tensor<'int32'> = wt.zeros(2, 3, { dtype: 'int32' });
  const noise: wt.Tensor<'float32'> = wt.randn(2, 3, { seed: 1 });
  void [col.view(2, 2), col.permute(1, 0), col.flip(0, 1), col.squeeze(0, 1), col.expand(4, 3), grid.flatten(0, 1), noise, wt.ones(2, 2)];
  const printed: Promise<void> = col.print();
  const tied: wt.Tensor<'float32'> = new wt.nn.Parameter(wt.ones([2]));
  const frozen: wt.Tensor<'float32'> = wt.nn.Parameter(wt.ones([2]), false);
  void [printed, tied, frozen, String(col)];
  // @ts-expect-error sizes given as several arguments are numbers
  wt.zeros(2, '3');
  // Issue 41's types: a loss's item() is a number, parameters are floating point (their data a
  // Float32Array), options accept an explicit undefined, loader batches are typed tuples.
  {
    const net = new wt.nn.Linear(2, 2, { bias: undefined, seed: undefined });
    const logits = net.forward(wt.ones([1, 2]));
    const ce = F.crossEntropy(logits, wt.tensor([1], { dtype: 'int32' }), { reduction: undefined });
    const fixed: string = (await ce.item()).toFixed(4);
    const grads: (Float32Array | undefined)[] = await Promise.all(net.parameters().map((p) => p.grad?.data()));
    const opt = new wt.optim.Adam(net.parameters(), { lr: undefined, weightDecay: undefined });
    const labels = wt.tensor([0, 1], { dtype: 'int32' });
    const feats = wt.ones([2, 2]);
    for (const [xb, yb] of new wt.data.DataLoader([feats, labels], { batchSize: 1, shuffle: undefined })) {
      const xs: wt.Tensor<'float32'> = xb;
      const ys: wt.Tensor<'int32'> = yb;
      void [xs, ys];
    }
    const dp = wt.parallel.DataParallel.create(['/GPU:0', 0, 'cpu'], (d: string) => new wt.nn.Linear(2, 2, { device: d }));
    void [fixed, grads, opt, dp];
  }
  // Creation from issue 41.
  {
    const id: wt.Tensor<'float32'> = wt.eye(3);
    const ids: wt.Tensor<'int32'> = wt.eye(2, 4, { dtype: 'int32' });
    const ls: wt.Tensor<'float32'> = wt.linspace(0, 1, 5);
    const lg: wt.Tensor<'float32'> = wt.logspace(0, 3, 4, { base: 2 });
    const ri: wt.Tensor<'int32'> = wt.randint(10, [3]);
    const rb: wt.Tensor<'uint8'> = wt.randint(0, 256, [2, 2], { dtype: 'uint8', seed: 1 });
    const rp: wt.Tensor<'int32'> = wt.randperm(5, { seed: 2 });
    wt.manualSeed(0);
    void [id, ids, ls, lg, ri, rb, rp];
  }
  // Containers (issue 45).
  {
    const blocks = new wt.nn.ModuleList([new wt.nn.Linear(2, 2), new wt.nn.Linear(2, 2)]);
    const first: wt.nn.Linear | undefined = blocks.at(0);
    for (const b of blocks) void b.weight;
    const heads = new wt.nn.ModuleDict({ a: new wt.nn.Linear(2, 2) });
    const a: wt.nn.Linear | undefined = heads.get('a');
    const layers: wt.nn.Module[] = [...new wt.nn.Sequential(new wt.nn.ReLU())];
    const relu: wt.nn.ReLU = new wt.nn.ReLU({ inplace: true });
    void [first, a, layers];
  }
  // Parameter groups, clipping and schedules (issue 45).
  {
    const net = new wt.nn.Linear(2, 2);
    const [w, b] = net.parameters();
    const opt = new wt.optim.AdamW([{ params: [w!], weightDecay: 0.1 }, { params: [b!], weightDecay: 0 }], { lr: 1e-3, betas: [0.9, 0.95] });
    opt.paramGroups[0]!.lr = 5e-4;
    const { LinearLR, CosineAnnealingLR, SequentialLR, LambdaLR, StepLR } = wt.optim.lrScheduler;
    const warm = new LinearLR(opt, { startFactor: 0.01, totalIters: 100 });
    const cos = new CosineAnnealingLR(opt, { tMax: 4900, etaMin: 1e-4 });
    const sched = new SequentialLR(opt, { schedulers: [warm, cos], milestones: [100] });
    sched.step();
    const lrs: number[] = sched.getLastLr();
    const norm: wt.Tensor<'float32'> = wt.nn.utils.clipGradNorm_(net.parameters(), 1.0, { normType: 2, errorIfNonfinite: false });
    wt.nn.utils.clipGradValue_(net.parameters(), 0.5);
    void [lrs, norm, new LambdaLR(new wt.optim.SGD([w!]), (e) => 0.9 ** e), new StepLR(new wt.optim.SGD([b!]), { stepSize: 3 })];
  }
  // The GPT (issue 45).
  {
    const gpt = new wt.models.GPT({ vocabSize: 65, blockSize: 256, nLayer: 6, nHead: 6, nEmbd: 384, dropout: 0.2, bias: true });
    const ids = wt.tensor(new Int32Array(4), { shape: [1, 4] });
    const { logits, loss } = gpt.forward(ids, ids);
    const l: number = (await loss!.item());
    const out: wt.Tensor<'int32'> = await gpt.generate(ids, 200, { temperature: 0.8, topK: 200, seed: 1 });
    void [logits, l, out, gpt.numParameters()];
  }
  // Attention modules (issue 41).
  {
    const mha = new wt.nn.MultiheadAttention(8, 2, { batchFirst: true });
    const q = wt.randn([2, 3, 8]);
    const [o, w] = mha.forward(q, q, q, { needWeights: true });
    const enc = new wt.nn.TransformerEncoderLayer(8, 2, { dimFeedforward: 16, normFirst: true });
    const dec = new wt.nn.TransformerDecoderLayer(8, 2);
    void [o, w, enc.forward(q), dec.forward(q, q)];
  }
}
