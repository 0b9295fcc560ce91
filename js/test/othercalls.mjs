// The Tensor methods outside the core's op manifest whose result dtype depends on the input's,
// as calls on a [2, 3] tensor `X` of each dtype (with `I` [2, 3] int32 indices below 2, `J` a
// 1-D int32 index, `M` a bool mask). opTypes (manifest.mjs) runs each call on every dtype and
// writes what it returned into js/test/optypes.generated.ts, which `npm run test:types`
// compiles against js/index.d.ts; `wide` marks a declaration that is a union by design (the
// check is then that the union holds what the op returned). NOT_DTYPE lists the methods whose
// result has no dtype to check, so that files.test.mjs can name any Tensor method in neither.

/** method -> { call: TypeScript/JS expression over X, I, J, M; wide?: true } */
export const OTHER_CALLS = {
  softplusWith: { call: 'X.softplusWith(1, 20)' },
  leakyRelu: { call: 'X.leakyRelu(0.1)' },
  elu: { call: 'X.elu()' },
  lerp: { call: 'X.lerp(X, 0.5)' },
  bitwiseNot: { call: 'X.bitwiseNot()' },
  logicalAnd: { call: 'X.logicalAnd(X)' },
  logicalOr: { call: 'X.logicalOr(X)' },
  logicalXor: { call: 'X.logicalXor(X)' },
  logicalNot: { call: 'X.logicalNot()' },
  cumsum: { call: 'X.cumsum(1)' },
  cumprod: { call: 'X.cumprod(1)' },
  all: { call: 'X.all()' },
  any: { call: 'X.any()' },
  logsumexp: { call: 'X.logsumexp(1)' },
  amax: { call: 'X.amax(1)' },
  amin: { call: 'X.amin(1)' },
  norm: { call: 'X.norm()' },
  maskedFill: { call: 'X.maskedFill(M, 1)' },
  tril: { call: 'X.tril()' },
  triu: { call: 'X.triu()' },
  flip: { call: 'X.flip([0])' },
  roll: { call: 'X.roll(1, 1)' },
  repeat: { call: 'X.repeat(2, 1)' },
  tile: { call: 'X.tile(2, 1)' },
  split: { call: 'X.split(1, 0)[0]!' },
  chunk: { call: 'X.chunk(2, 0)[0]!' },
  where: { call: 'X.where(M, X)' },
  // `wide`: integer and bool tensors stay integer with integral bounds and become float32
  // with fractional ones, which TypeScript's `number` cannot tell apart.
  clamp: { call: 'X.clamp(0, 1)', wide: true },
  mean: { call: 'X.mean()' },
  var: { call: 'X.var()' },
  std: { call: 'X.std()' },
  softmax: { call: 'X.softmax(1)' },
  logSoftmax: { call: 'X.logSoftmax(1)' },
  matmul: { call: 'X.matmul(X.t())' },
  reshape: { call: 'X.reshape([3, 2])' },
  view: { call: 'X.view([6])' },
  flatten: { call: 'X.flatten()' },
  permute: { call: 'X.permute([1, 0])' },
  transpose: { call: 'X.transpose(0, 1)' },
  t: { call: 'X.t()' },
  multinomial: { call: 'X.multinomial(2, { seed: 1 })' },
  select: { call: 'X.select(0, 1)' },
  narrow: { call: 'X.narrow(1, 0, 2)' },
  slice: { call: 'X.slice(1, 0, 2)' },
  squeeze: { call: 'X.unsqueeze(0).squeeze(0)' },
  unsqueeze: { call: 'X.unsqueeze(0)' },
  expand: { call: 'X.unsqueeze(0).expand([2, 2, 3])' },
  broadcastTo: { call: 'X.broadcastTo([2, 2, 3])' },
  contiguous: { call: 'X.t().contiguous()' },
  isnan: { call: 'X.isnan()' },
  isinf: { call: 'X.isinf()' },
  isfinite: { call: 'X.isfinite()' },
  clone: { call: 'X.clone()' },
  toDtype: { call: "X.toDtype('int32')" },
  indexSelect: { call: 'X.indexSelect(0, J)' },
  gather: { call: 'X.gather(1, I)' },
  indexAdd: { call: 'X.indexAdd(0, J, X)' },
  scatterAdd: { call: 'X.scatterAdd(1, I, X)' },
  scatter: { call: 'X.scatter(1, I, X)' },
  argsort: { call: 'X.argsort(1)' },
  // `values` of the [values, indices] pair also names the array's own values() method, which
  // the declared type intersects: the check is that it holds the dtype.
  // `wide`: the result is an array with `values` and `indices` properties, and TypeScript
  // intersects `values` with Array's own `values()` method, so `.values` cannot be exactly
  // Tensor<D>; holding the dtype is what can be checked.
  sort: { call: 'X.sort(1).values', wide: true },
  topk: { call: 'X.topk(2, 1).values', wide: true },
  detach: { call: 'X.detach()' },
  newZeros: { call: 'X.newZeros([2])' },
  newOnes: { call: 'X.newOnes([2])' },
  newFull: { call: 'X.newFull([2], 1)' },
  newTensor: { call: 'X.newTensor([1, 0])' },
  neg_: { call: 'X.clone().neg_()' },
  abs_: { call: 'X.clone().abs_()' },
  exp_: { call: 'X.clone().exp_()' },
  relu_: { call: 'X.clone().relu_()' },
  floor_: { call: 'X.clone().floor_()' },
  add_: { call: 'X.clone().add_(X)' },
  mul_: { call: 'X.clone().mul_(X)' },
  div_: { call: 'X.clone().div_(X)' },
  zero_: { call: 'X.clone().zero_()' },
  fill_: { call: 'X.clone().fill_(1)' },
  copy_: { call: 'X.clone().copy_(X)' },
  clamp_: { call: 'X.clone().clamp_(0, 1)' },
  maskedFill_: { call: 'X.clone().maskedFill_(M, 1)' },
};

/**
 * Functions of the package whose result dtype depends on an input's (`X`, as above; `K` [2]
 * int32 class indices below 3) or on a dtype option (`DT`, each dtype's name), checked the same
 * way: creation, the *Like functions, cat and stack, and nn.functional's losses, oneHot,
 * activations, softmax, dropout, pad, the norms, linear, embedding, the convolutions and
 * pools, interpolate and attention.
 */
export const FUNCTION_CALLS = {
  tensor: { call: "wt.tensor([1, 0], { dtype: 'DT' })" },
  zeros: { call: "wt.zeros([2], { dtype: 'DT' })" },
  ones: { call: "wt.ones([2], { dtype: 'DT' })" },
  full: { call: "wt.full([2], 1, { dtype: 'DT' })" },
  arange: { call: "wt.arange(3, { dtype: 'DT' })" },
  eye: { call: "wt.eye(2, { dtype: 'DT' })" },
  linspace: { call: "wt.linspace(0, 1, 3, { dtype: 'DT' })" },
  logspace: { call: "wt.logspace(0, 1, 3, { dtype: 'DT' })" },
  rand: { call: "wt.rand([2], { dtype: 'DT' })" },
  randn: { call: "wt.randn([2], { dtype: 'DT' })" },
  randint: { call: "wt.randint(3, [2], { dtype: 'DT' })" },
  randperm: { call: 'wt.randperm(3)' },
  multinomial: { call: 'wt.multinomial(X, 2, { seed: 1 })' },
  zerosLike: { call: 'wt.zerosLike(X)' },
  onesLike: { call: 'wt.onesLike(X)' },
  fullLike: { call: 'wt.fullLike(X, 1)' },
  randLike: { call: 'wt.randLike(X)' },
  randnLike: { call: 'wt.randnLike(X)' },
  cat: { call: 'wt.cat([X, X])' },
  stack: { call: 'wt.stack([X, X])' },
  crossEntropy: { call: 'F.crossEntropy(X, K)' },
  nllLoss: { call: 'F.nllLoss(X, K)' },
  mseLoss: { call: 'F.mseLoss(X, X)' },
  l1Loss: { call: 'F.l1Loss(X, X)' },
  binaryCrossEntropyWithLogits: { call: 'F.binaryCrossEntropyWithLogits(X, X)' },
  oneHot: { call: 'F.oneHot(X, 3)' },
  relu: { call: 'F.relu(X)' },
  gelu: { call: 'F.gelu(X)' },
  silu: { call: 'F.silu(X)' },
  tanh: { call: 'F.tanh(X)' },
  sigmoid: { call: 'F.sigmoid(X)' },
  mish: { call: 'F.mish(X)' },
  hardswish: { call: 'F.hardswish(X)' },
  hardsigmoid: { call: 'F.hardsigmoid(X)' },
  softplus: { call: 'F.softplus(X)' },
  leakyRelu: { call: 'F.leakyRelu(X)' },
  functionalElu: { call: 'F.elu(X)' },
  softmax: { call: 'F.softmax(X, 1)' },
  logSoftmax: { call: 'F.logSoftmax(X, 1)' },
  dropout: { call: 'F.dropout(X, { p: 0.5, seed: 1 })' },
  pad: { call: 'F.pad(X, [1, 1])' },
  layerNorm: { call: 'F.layerNorm(X, [3])' },
  linear: { call: 'F.linear(X, X)' },
  embedding: { call: 'F.embedding(J, X)' },
  groupNorm: { call: 'F.groupNorm(X, 1)' },
  batchNorm: { call: 'F.batchNorm(X, null, null, { training: true })' },
  prelu: { call: 'F.prelu(X, X.reshape([6]).narrow(0, 0, 3))' },
  conv1d: { call: 'F.conv1d(X.reshape([1, 2, 3]), X.reshape([1, 2, 3]))' },
  conv2d: { call: 'F.conv2d(X.reshape([1, 1, 2, 3]), X.reshape([1, 1, 2, 3]))' },
  convTranspose1d: { call: 'F.convTranspose1d(X.reshape([1, 2, 3]), X.reshape([2, 1, 3]))' },
  convTranspose2d: { call: 'F.convTranspose2d(X.reshape([1, 1, 2, 3]), X.reshape([1, 1, 2, 3]))' },
  maxPool1d: { call: 'F.maxPool1d(X.reshape([1, 2, 3]), 2)' },
  maxPool2d: { call: 'F.maxPool2d(X.reshape([1, 1, 2, 3]), 2)' },
  maxPool2dIndices: { call: 'F.maxPool2d(X.reshape([1, 1, 2, 3]), 2, { returnIndices: true })[0]' },
  avgPool1d: { call: 'F.avgPool1d(X.reshape([1, 2, 3]), 2)' },
  avgPool2d: { call: 'F.avgPool2d(X.reshape([1, 1, 2, 3]), 2)' },
  adaptiveAvgPool1d: { call: 'F.adaptiveAvgPool1d(X.reshape([1, 2, 3]), 2)' },
  adaptiveAvgPool2d: { call: 'F.adaptiveAvgPool2d(X.reshape([1, 1, 2, 3]), 1)' },
  interpolate: { call: 'F.interpolate(X.reshape([1, 2, 3]), { size: 6 })' },
  scaledDotProductAttention: { call: 'F.scaledDotProductAttention(X, X, X)' },
};

/**
 * The other in-place unary and binary methods: the same declaration shape (`this`) as the
 * ones above, whose dtypes their out-of-place forms check; listed so that completeness holds.
 */
const IN_PLACE_ALIKE = ['rsqrt_', 'reciprocal_', 'square_', 'sqrt_', 'log_', 'sin_', 'cos_', 'tan_', 'tanh_', 'sigmoid_',
  'ceil_', 'round_', 'sign_', 'erf_', 'log1p_', 'expm1_', 'asin_', 'acos_', 'atan_', 'sinh_', 'cosh_', 'asinh_', 'acosh_',
  'atanh_', 'sub_', 'pow_', 'remainder_', 'fmod_', 'lerp_', 'uniform_', 'normal_'];

/** Methods whose result has no dtype to check: metadata, readback, autograd, disposal. */
export const NOT_DTYPE = ['shape', 'dtype', 'device', 'rank', 'numel', 'size', 'requiresGrad', 'requiresGrad_', 'isLeaf',
  'gradFn', 'grad', 'backward', 'backwardAsync', 'data', 'array', 'item', 'dataSync', 'to', 'cpu', 'dispose', 'toString',
  'print', ...IN_PLACE_ALIKE];

/**
 * The package's functions that make no tensor whose dtype to check: devices, placement,
 * memory, modes, seeds, scopes (`tidy`, `keep` and `withDevice` return what they are given)
 * and files (the loaded tensors keep the file's dtypes). With the manifest's ops and
 * FUNCTION_CALLS they name every function of the package (files.test.mjs).
 */
export const NOT_TENSOR_FUNCTIONS = ['__destroyDevice', '__injectDispatchError', '__opTable', 'bestDevice',
  'clearPlacementLog', 'defaultDevice', 'deviceCount', 'devices', 'emptyCache', 'enableGrad', 'fusedKernels', 'init',
  'isAvailable', 'isGradEnabled', 'keep', 'kernelLaunches', 'launchBlocking', 'lazyElementwise', 'loadSafetensorsFile', 'manualSeed', 'maxMemoryAllocated',
  'memory', 'memoryAllocated', 'memoryLimit', 'memoryReserved', 'memoryStats', 'memorySummary', 'noGrad', 'open',
  'placementLog', 'recover', 'resetPeakMemoryStats', 'resetTransferStats', 'saveSafetensorsFile', 'setDefaultDevice',
  'setFusedKernels', 'setLaunchBlocking', 'setLazyElementwise', 'setLogDevicePlacement', 'setLogicalDeviceConfiguration', 'setMemoryLimit',
  'setSoftDevicePlacement', 'setStepScope', 'softDevicePlacement', 'synchronize', 'tidy', 'transferStats', 'withDevice'];
