// Property-based fuzz test of the whole JS API (fast-check), shared by Node (fuzz.test.mjs) and
// headless Chromium (browser.html?suite=fuzz). Each run makes a few tensors, then makes random
// calls of every public function and Tensor method with random and hostile arguments (wrong
// types, NaN, 2^32, 2^53, negative and fractional sizes, disposed tensors, symbols, bigints,
// proxies, objects that throw). The property:
//   - nothing traps inside wasm (no WebAssembly.RuntimeError, no panic, no "null pointer");
//   - every failure is a JS Error (TypeError/RangeError from the boundary, or the core's Error)
//     with a message;
//   - after every error the module still computes correct results;
//   - at the end of the run, with its tensors disposed, memory is back at its baseline.
// Global switches a call may flip (default device, soft placement, limits, ...) are restored
// after each call, so runs stay independent and a failing run shrinks to a minimal sequence.

import { TENSOR_ARITY as BASE_ARITY } from '../arity.js';
import { INPLACE_ARITY } from '../inplace.js';

const TENSOR_ARITY = { ...BASE_ARITY, ...INPLACE_ARITY };

const BROKEN = /unreachable|memory access out of bounds|null pointer passed|recursive use of an object|panicked|RuntimeError|is not a function|Cannot read properties of (undefined|null)/;

/** A printable form of any argument (symbols, proxies that throw, null-prototype objects). */
function show(a) {
  try {
    return typeof a === 'symbol' ? a.toString() : a instanceof Object && !Array.isArray(a) ? Object.prototype.toString.call(a) : String(a);
  } catch {
    return '[unprintable]';
  }
}

/** A wt.nn / wt.optim call of the fuzz on tensor `self`; modules and optimizers it makes are disposed. */
async function callNn(wt, c, self, args) {
  if (c.kind === 'F') return wt.nn.functional[c.name](self, ...args);
  if (c.kind === 'new') {
    const m = new wt.nn[c.name](...args);
    try {
      return m.forward(self);
    } finally {
      m.dispose();
    }
  }
  if (c.kind === 'data') {
    // An epoch of a loader over the tensor(s) at hand; every batch is returned for disposal.
    return [...new wt.data.DataLoader(...args)].flat();
  }
  if (c.kind === 'optim') {
    const o = new wt.optim[c.name]([self], ...args);
    try {
      o.step();
      return o.lr;
    } finally {
      o.dispose();
    }
  }
  const bytes = await wt.nn.saveSafetensors({ a: self }, args[0]);
  return wt.nn.loadSafetensors(args[1] === 'BYTES' ? bytes : args[1], args[2]);
}

/** Calls whose effects outlive the call: restored after each use. */
const GLOBAL = new Set(['setDefaultDevice', 'setSoftDevicePlacement', 'setLogDevicePlacement', 'setMemoryLimit', 'setLaunchBlocking', 'resetPeakMemoryStats']);

/**
 * Runs the fuzz: `numRuns` runs of `perRun` to `perRun + 20` calls each (at least
 * numRuns * perRun calls in all). Resolves to `{ calls, errors, kinds }`; rejects with fast-check's report (the
 * shrunk failing sequence) when the property fails.
 */
export async function fuzz(wt, fc, devices, { numRuns = 1000, perRun = 100, seed = 42 } = {}) {
  const stats = { calls: 0, errors: 0, kinds: {} };
  const restoreGlobals = () => {
    wt.setDefaultDevice('cpu');
    wt.setSoftDevicePlacement(false);
    wt.setLogDevicePlacement(false);
    wt.clearPlacementLog();
    wt.setLaunchBlocking(false);
    for (const d of devices) wt.setMemoryLimit(d, null);
  };

  // --- arbitraries ---------------------------------------------------------------------------
  const hostileNumber = fc.oneof(
    fc.constantFrom(NaN, Infinity, -Infinity, -0, -1, 0.5, -2.5, 2 ** 31, 2 ** 32, 2 ** 32 + 3, 2 ** 53, 2 ** 64, 1e300, Number.MIN_VALUE),
    fc.double(),
    fc.integer({ min: -5, max: 70 }),
  );
  const throwing = new Proxy({}, { get() { throw new Error('a getter that throws'); }, ownKeys() { throw new Error('ownKeys that throws'); } });
  const hostile = fc.oneof(
    hostileNumber,
    fc.string({ maxLength: 8 }),
    fc.constantFrom('0', 'x', '', 'cpu', 'webgpu:0', 'webgpu:99', 'cuda:0', '/GPU:0', '/CPU:1', 'meta', 'float32', 'int32', 'bool', 'complex64', 'add', '__proto__'),
    fc.boolean(),
    fc.constantFrom(undefined, null, Symbol('s'), 10n, () => 1, async () => 1, 'THROWING_PROXY', new Float64Array(2), new DataView(new ArrayBuffer(4)), Promise.resolve(1)),
    fc.array(hostileNumber, { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('device', 'dtype', 'seed', 'shape', 'keepdim', 'correction', 'nonBlocking', 'bogus'), hostileNumber, { maxKeys: 3 }),
  );
  const shape = fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 });
  const dim = fc.integer({ min: -3, max: 3 });
  const small = fc.integer({ min: 0, max: 4 });
  const dtypeName = fc.constantFrom('float32', 'int32', 'uint32', 'bool', 'uint8', 'int8', ...(devices.length ? ['float16'] : []));
  const device = fc.constantFrom(...devices);
  const opts = fc.record({ device, dtype: dtypeName }, { requiredKeys: [] });
  // An argument: mostly plausible values of the right kind, often hostile ones.
  const pick = (good) => fc.oneof({ arbitrary: good, weight: 5 }, { arbitrary: hostile, weight: 2 }, { arbitrary: fc.constantFrom('TENSOR', 'DISPOSED'), weight: 1 });

  // The elementwise ops and reductions come from the core's op manifest (wt.__opTable().ops),
  // so a new op is fuzzed without an edit here.
  const camel = (n) => n.replace(/_(\w)/g, (_, c) => c.toUpperCase());
  const manifest = (family) => wt.__opTable().ops.filter((o) => o.family === family).map((o) => camel(o.name));
  const unary = [...manifest('unary'), 'contiguous', 'clone', 'flatten', 't', 'numel', 'toString', 'dataSync'];
  const binary = [...manifest('binary'), 'matmul'];
  const reduce = [...manifest('reduce'), 'mean'];
  const method = fc.oneof(
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom(...unary), args: fc.constant([]) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom(...binary), args: fc.tuple(pick(fc.oneof(fc.constant('TENSOR'), fc.double({ noNaN: true, min: -4, max: 4 })))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom(...reduce), args: fc.tuple(pick(fc.oneof(dim, fc.array(dim, { maxLength: 2 }))), pick(fc.boolean())) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('var', 'std'), args: fc.tuple(pick(dim), pick(fc.record({ correction: fc.integer({ min: 0, max: 2 }), keepdim: fc.boolean() }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('softmax', 'logSoftmax', 'unsqueeze', 'squeeze', 'size'), args: fc.tuple(pick(dim)) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('reshape', 'view', 'expand', 'broadcastTo', 'permute'), args: fc.tuple(pick(fc.array(fc.integer({ min: -1, max: 4 }), { maxLength: 3 }))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('transpose'), args: fc.tuple(pick(dim), pick(dim)) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('narrow', 'slice'), args: fc.tuple(pick(dim), pick(fc.integer({ min: 0, max: 4 })), pick(fc.integer({ min: 0, max: 4 })), pick(fc.integer({ min: -1, max: 3 }))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('neg_', 'abs_', 'exp_', 'sqrt_', 'relu_', 'sigmoid_', 'zero_', 'floor_'), args: fc.constant([]) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('add_', 'sub_', 'mul_', 'div_', 'pow_', 'copy_', 'fill_'), args: fc.tuple(pick(fc.oneof(fc.constant('TENSOR'), fc.double({ noNaN: true, min: -4, max: 4 })))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('clamp_', 'uniform_', 'normal_'), args: fc.tuple(pick(fc.double({ noNaN: true, min: -2, max: 2 })), pick(fc.double({ noNaN: true, min: -2, max: 2 }))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('clamp'), args: fc.tuple(pick(fc.double({ noNaN: true, min: -2, max: 2 })), pick(fc.double({ noNaN: true, min: -2, max: 2 }))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('toDtype'), args: fc.tuple(pick(dtypeName)) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('where'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(fc.constant('TENSOR'))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('indexSelect', 'gather'), args: fc.tuple(pick(dim), pick(fc.constant('INDEX'))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('sort', 'argsort'), args: fc.tuple(pick(dim), pick(fc.boolean())) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('topk'), args: fc.tuple(pick(small), pick(dim), pick(fc.boolean()), pick(fc.boolean())) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('scatter', 'scatterAdd'), args: fc.tuple(pick(dim), pick(fc.constant('INDEX')), pick(fc.oneof(fc.constant('TENSOR'), fc.double({ noNaN: true, min: -3, max: 3 })))) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('newZeros', 'newOnes'), args: fc.tuple(pick(shape), pick(opts)) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('newFull'), args: fc.tuple(pick(shape), pick(fc.double({ min: -3, max: 3, noNaN: true })), pick(opts)) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('newTensor'), args: fc.tuple(pick(fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 4 })), pick(opts)) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('data', 'array', 'item', 'cpu', 'dispose'), args: fc.constant([]) }),
    fc.record({ kind: fc.constant('method'), name: fc.constantFrom('to'), args: fc.tuple(pick(fc.oneof(device, dtypeName, fc.constant('TENSOR'), fc.constant(0)))) }),
  );
  const fn = fc.oneof(
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('zeros', 'ones', 'rand', 'randn'), args: fc.tuple(pick(shape), pick(fc.oneof(opts, fc.record({ device, seed: fc.nat(1000) }, { requiredKeys: [] })))) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('full'), args: fc.tuple(pick(shape), pick(fc.integer({ min: -3, max: 3 })), pick(opts)) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('tensor'), args: fc.tuple(pick(fc.oneof(fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 5 }), fc.array(fc.array(fc.double({ noNaN: true }), { minLength: 2, maxLength: 2 }), { maxLength: 3 }), fc.array(fc.array(fc.boolean(), { maxLength: 3 }), { maxLength: 3 }))), pick(opts)) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('arange'), args: fc.tuple(pick(fc.integer({ min: -3, max: 6 })), pick(fc.integer({ min: -3, max: 6 })), pick(fc.constantFrom(1, 2, -1, 0.5)), pick(opts)) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('zerosLike', 'onesLike', 'randLike', 'randnLike'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(opts)) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('fullLike'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(fc.integer({ min: -2, max: 2 })), pick(opts)) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('cat', 'stack'), args: fc.tuple(pick(fc.constantFrom('TENSORS', 'TENSORS_WITH_DISPOSED')), pick(dim)) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('memoryAllocated', 'memoryReserved', 'maxMemoryAllocated', 'memorySummary', 'memoryStats', 'emptyCache', 'transferStats', 'resetTransferStats', 'memoryLimit', 'setDefaultDevice', 'synchronize', 'open', 'recover', 'resetPeakMemoryStats'), args: fc.tuple(pick(fc.oneof(device, fc.constant('INFO'), fc.constantFrom('/CPU:0', '/device:CPU:0', '/job:localhost/replica:0/task:0/device:CPU:0', 0)))) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('setMemoryLimit'), args: fc.tuple(pick(device), pick(fc.oneof(fc.constant(null), fc.nat(1 << 30)))) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('isAvailable', 'deviceCount'), args: fc.tuple(pick(fc.constantFrom('cpu', 'webgpu', 'cuda', 'meta', 'gpu'))) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('setSoftDevicePlacement', 'setLogDevicePlacement', 'setLaunchBlocking'), args: fc.tuple(pick(fc.boolean())) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('devices', 'bestDevice', 'defaultDevice', 'memory', 'placementLog', 'softDevicePlacement', 'launchBlocking'), args: fc.constant([]) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('tidy', 'withDevice'), args: fc.tuple(pick(device), pick(fc.constantFrom('MAKES', 'THROWS', 'ASYNC', 'RETURNS_PROMISE'))) }),
    fc.record({ kind: fc.constant('fn'), name: fc.constantFrom('setLogicalDeviceConfiguration', 'init'), args: fc.tuple(pick(device), hostile) }),
  );
  // wt.nn and wt.optim: functional forms on the tensor at hand, layers built and applied to it,
  // an optimizer stepped on it, a checkpoint of it saved and loaded (bytes possibly hostile).
  const reduction = fc.constantFrom('mean', 'sum', 'none', 'avg');
  const lossOpts = fc.record({ reduction, ignoreIndex: fc.integer({ min: -2, max: 3 }), labelSmoothing: fc.double({ min: -0.5, max: 1.5, noNaN: true }) }, { requiredKeys: [] });
  const size = fc.oneof(fc.integer({ min: -1, max: 4 }), fc.array(fc.integer({ min: -1, max: 4 }), { maxLength: 4 }));
  const nnCall = fc.oneof(
    fc.record({ kind: fc.constant('data'), name: fc.constant('DataLoader'), args: fc.tuple(pick(fc.constantFrom('TENSOR', 'TENSORS')), pick(fc.record({ batchSize: fc.integer({ min: -1, max: 5 }), shuffle: fc.boolean(), seed: fc.oneof(fc.nat(100), hostileNumber), dropLast: fc.boolean() }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('linear'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(fc.constant('TENSOR'))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('crossEntropy', 'nllLoss'), args: fc.tuple(pick(fc.constant('INDEX')), pick(lossOpts)) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('mseLoss', 'l1Loss', 'binaryCrossEntropyWithLogits'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(fc.record({ reduction }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('layerNorm', 'groupNorm'), args: fc.tuple(pick(fc.oneof(small, fc.array(small, { maxLength: 2 }))), pick(fc.record({ eps: fc.double({ min: -1, max: 1 }), weight: fc.constant('TENSOR') }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('batchNorm'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(fc.constant('TENSOR')), pick(fc.record({ training: fc.boolean(), momentum: fc.double({ min: -1, max: 2 }) }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('dropout'), args: fc.tuple(pick(fc.record({ p: fc.double({ min: -0.5, max: 1.5 }), training: fc.boolean(), seed: fc.nat(9) }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('new'), name: fc.constantFrom('Linear', 'Embedding', 'GroupNorm'), args: fc.tuple(pick(small), pick(small), pick(fc.record({ seed: fc.nat(9), device }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('new'), name: fc.constantFrom('LayerNorm', 'BatchNorm1d', 'BatchNorm2d', 'Dropout', 'Flatten'), args: fc.tuple(pick(fc.oneof(small, fc.double({ min: 0, max: 1 }))), pick(fc.record({ device, momentum: fc.constantFrom(null, 0.1, 2) }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('conv1d', 'conv2d', 'convTranspose1d', 'convTranspose2d'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(fc.constantFrom('TENSOR', null)), pick(fc.record({ stride: size, padding: fc.oneof(size, fc.constantFrom('same', 'valid', 'full')), dilation: size, groups: fc.integer({ min: -1, max: 3 }), outputPadding: size }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('maxPool1d', 'maxPool2d', 'avgPool1d', 'avgPool2d'), args: fc.tuple(pick(size), pick(fc.record({ stride: size, padding: size, dilation: size, ceilMode: fc.boolean(), returnIndices: fc.boolean(), countIncludePad: fc.boolean(), divisorOverride: fc.integer({ min: -1, max: 3 }) }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('adaptiveAvgPool1d', 'adaptiveAvgPool2d', 'oneHot'), args: fc.tuple(pick(size)) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('pad'), args: fc.tuple(pick(fc.array(fc.integer({ min: -4, max: 4 }), { maxLength: 5 })), pick(fc.constantFrom('constant', 'reflect', 'replicate', 'circular', 'mirror')), pick(fc.double())) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('interpolate'), args: fc.tuple(pick(fc.record({ size, scaleFactor: fc.oneof(fc.double({ min: -1, max: 3 }), fc.array(fc.double({ min: 0, max: 3 }), { maxLength: 3 })), mode: fc.constantFrom('nearest', 'linear', 'bilinear', 'area'), alignCorners: fc.boolean() }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('F'), name: fc.constantFrom('scaledDotProductAttention'), args: fc.tuple(pick(fc.constant('TENSOR')), pick(fc.constant('TENSOR')), pick(fc.record({ isCausal: fc.boolean(), scale: fc.double(), dropoutP: fc.double({ min: -1, max: 2 }), seed: fc.nat(9) }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('new'), name: fc.constantFrom('Conv1d', 'Conv2d'), args: fc.tuple(pick(small), pick(small), pick(size), pick(fc.record({ seed: fc.nat(9), device, groups: fc.integer({ min: 0, max: 3 }), padding: fc.oneof(size, fc.constant('same')), bias: fc.boolean() }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('new'), name: fc.constantFrom('MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d'), args: fc.tuple(pick(size), pick(fc.record({ stride: size, padding: size, ceilMode: fc.boolean() }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('optim'), name: fc.constantFrom('SGD', 'Adam', 'AdamW'), args: fc.tuple(pick(fc.record({ lr: fc.double({ min: -1, max: 1 }), momentum: fc.double({ min: 0, max: 1 }), betas: fc.array(fc.double({ min: 0, max: 1 }), { maxLength: 3 }) }, { requiredKeys: [] }))) }),
    fc.record({ kind: fc.constant('ckpt'), name: fc.constant('saveSafetensors'), args: fc.tuple(pick(fc.record({ metadata: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }) }, { requiredKeys: [] })), pick(fc.constant('BYTES')), pick(fc.record({ device }, { requiredKeys: [] }))) }),
  );
  const plain = fc.oneof({ arbitrary: method, weight: 3 }, { arbitrary: fn, weight: 2 }, { arbitrary: nnCall, weight: 1 });
  // The argument shapes a port from PyTorch produces: one argument too many (PyTorch's varargs,
  // a forgotten options object), one too few, the positional arguments in the wrong order.
  const shaped = fc.oneof(
    { arbitrary: plain, weight: 6 },
    { arbitrary: fc.tuple(plain, pick(fc.oneof(dim, fc.boolean(), fc.constant({})))).map(([c, x]) => ({ ...c, args: [...c.args, x], extra: true })), weight: 1 },
    { arbitrary: plain.map((c) => ({ ...c, args: c.args.slice(0, -1) })), weight: 1 },
    { arbitrary: plain.map((c) => ({ ...c, args: [...c.args].reverse() })), weight: 1 },
  );
  const call = fc.tuple(fc.nat(7), shaped);

  // --- one run -------------------------------------------------------------------------------
  const callbacks = (wt, mode, made) => ({
    MAKES: () => { const t = wt.ones([2]); made.push(t); return t.add(1); },
    THROWS: () => { made.push(wt.ones([3])); throw new Error('thrown inside'); },
    ASYNC: async () => wt.ones([1]),
    RETURNS_PROMISE: () => Promise.resolve(1),
  })[mode];

  async function run(calls) {
    const baseline = {};
    for (const d of devices) {
      await wt.synchronize(d).catch((e) => {
        if (!/device-side check/.test(e?.message)) throw e;
      });
      baseline[d] = wt.memoryAllocated(d);
    }
    const baseTensors = wt.memory().numTensors;
    const made = [];
    const pool = devices.flatMap((d) => [wt.randn([2, 3], { device: d, seed: 1 }), wt.arange(0, 4, 1, { device: d, dtype: 'int32' }), wt.ones([3], { device: d })]);
    made.push(...pool);
    const disposed = wt.ones([1]);
    disposed.dispose();
    const info = wt.devices()[0];
    const collect = (v, depth = 0) => {
      if (v === throwing) return;
      if (v instanceof wt.Tensor) {
        made.push(v);
        if (!v.disposed && pool.length < 24) pool.push(v);
      } else if (Array.isArray(v) && depth < 2) v.forEach((x) => collect(x, depth + 1));
      else if (v && typeof v === 'object' && depth < 2 && !ArrayBuffer.isView(v) && Object.getPrototypeOf(v) === Object.prototype) Object.values(v).forEach((x) => collect(x, depth + 1));
    };
    for (const [k, c] of calls) {
      const live = pool.filter((t) => !t.disposed);
      const self = live.length ? live[k % live.length] : disposed;
      const resolve = (a) => {
        if (a === 'TENSOR') return live.length ? live[(k + 1) % live.length] : disposed;
        if (a === 'DISPOSED') return disposed;
        if (a === 'INDEX') return wt.tensor([0], { device: self.disposed ? 'cpu' : self.device, dtype: 'int32' });
        if (a === 'INFO') return info;
        if (a === 'BYTES') return 'BYTES';
        if (a === 'THROWING_PROXY') return throwing;
        if (a === 'TENSORS') return live.slice(0, 2);
        if (a === 'TENSORS_WITH_DISPOSED') return [...live.slice(0, 1), disposed];
        if (['MAKES', 'THROWS', 'ASYNC', 'RETURNS_PROMISE'].includes(a)) return callbacks(wt, a, made);
        return a;
      };
      const args = c.args.map(resolve);
      args.forEach((a) => collect(a));
      stats.calls++;
      try {
        let r = c.kind === 'method' ? self[c.name](...args) : c.kind === 'fn' ? wt[c.name](...args) : await callNn(wt, c, self, args);
        if (r && typeof r.then === 'function') r = await r;
        collect(r);
        // A method given more arguments than it takes must have refused them.
        if (c.extra && c.kind === 'method' && TENSOR_ARITY[c.name] < args.length) {
          throw new Error(`BROKEN: t.${c.name}(${args.map(show).join(', ')}) took ${args.length} arguments; it takes at most ${TENSOR_ARITY[c.name]}`);
        }
      } catch (e) {
        stats.errors++;
        const kind = e?.constructor?.name ?? typeof e;
        stats.kinds[kind] = (stats.kinds[kind] ?? 0) + 1;
        const where = `${c.kind === 'method' ? `t.${c.name}` : `wt.${c.name}`}(${args.map(show).join(', ')})`;
        if (e?.message?.startsWith('BROKEN: ')) throw e;
        if (c.extra && c.kind === 'method' && TENSOR_ARITY[c.name] < args.length && !(e instanceof TypeError && /takes at most/.test(e.message))) {
          throw new Error(`t.${c.name} with ${args.length} arguments failed with ${e.constructor.name}: ${e.message}, not the arity TypeError`);
        }
        if (e?.message === 'thrown inside' || e?.message === 'a getter that throws' || e?.message === 'ownKeys that throws') continue; // the test's own callbacks/proxies
        if (!(e instanceof Error)) throw new Error(`${where} threw a non-Error: ${String(e)}`);
        if (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) throw new Error(`${where} trapped inside wasm: ${e.message}`);
        if (!e.message || BROKEN.test(e.message)) throw new Error(`${where} failed without a proper error: ${e.constructor.name}: ${e.message}`);
        // After an error the module still computes, and correctly.
        const input = wt.tensor([1, 2, 3]);
        const check = input.add(1);
        const got = Array.from(check.dataSync());
        input.dispose();
        check.dispose();
        if (got.join() !== '2,3,4') throw new Error(`after ${where} failed, [1,2,3] + 1 gave [${got}]`);
      } finally {
        if (GLOBAL.has(c.name)) restoreGlobals();
      }
    }
    for (const t of made) t.dispose();
    for (const d of devices) {
      // An index out of range on a GPU is reported at the next synchronize or readback (a
      // device-side check): a proper error, reported once.
      await wt.synchronize(d).catch((e) => {
        if (!/device-side check/.test(e?.message)) throw e;
      });
      await wt.synchronize(d);
      const now = wt.memoryAllocated(d);
      if (now !== baseline[d]) throw new Error(`memory on ${d} did not return to its baseline: ${now} bytes allocated, ${baseline[d]} before the run`);
    }
    const tensorsNow = wt.memory().numTensors;
    if (tensorsNow !== baseTensors) throw new Error(`${tensorsNow} live tensors after the run, ${baseTensors} before`);
  }

  await fc.assert(fc.asyncProperty(fc.array(call, { minLength: perRun, maxLength: perRun + 20, size: 'max' }), run), { numRuns, seed, endOnFailure: false, includeErrorInReport: true });
  return stats;
}
