// Types of the webtensor npm package (the same API from the Node and browser entries). They need
// no DOM lib: a plain `--lib es2022,esnext.disposable` (Node) compiles them, also under `strict`
// and `exactOptionalPropertyTypes`.

export type DType = 'float32' | 'float16' | 'int32' | 'uint32' | 'bool' | 'uint8' | 'int8';
/** The short dtype names the functions also accept. */
export type DTypeShort = 'f32' | 'f16' | 'i32' | 'u32' | 'u8' | 'i8';
/**
 * A device string: `cpu`, `webgpu`, `webgpu:N`, `meta`, natively `cuda:N`, ..., and
 * TensorFlow's `/CPU:0`, `/GPU:N`, `/device:GPU:N`, `gpu:N` (GPU N: the N-th accelerator).
 */
export type DeviceName = string;
/** Where a function accepts a device: its name, a `DeviceInfo` from `devices()`, or N for the N-th accelerator. */
export type DeviceLike = DeviceName | DeviceInfo | number;
/** Device kinds for `isAvailable` and `deviceCount` (`gpu`: the accelerators, cuda where present, else webgpu). */
export type DeviceKind = 'cpu' | 'webgpu' | 'cuda' | 'meta' | 'gpu';

/** The typed array `data()` resolves to for each dtype (float16 reads as Float32Array). */
export interface DataByDType {
  float32: Float32Array;
  float16: Float32Array;
  int32: Int32Array;
  uint32: Uint32Array;
  bool: Uint8Array;
  uint8: Uint8Array;
  int8: Int8Array;
}

/**
 * Options of `data()` and `dataSync()`: `into`, an array of the dtype's kind and exactly the
 * tensor's length, which the elements are copied into and which is returned (a loop that
 * reads every step reuses one array instead of allocating, and faulting in, a fresh one).
 */
export interface ReadOptions<D extends DType = DType> {
  into?: DataByDType[D];
}

/**
 * The dtype two operands compute in: float beats int, float32 beats float16, a wider integer
 * beats uint8/int8 (uint8 with int8, or uint32 with int8, is int32), anything beats bool.
 */
export type Promote<A extends DType, B extends DType> =
  DType extends A ? DType : DType extends B ? DType :
  [A] extends [B] ? A :
  'float32' extends A | B ? 'float32' :
  'float16' extends A | B ? 'float16' :
  'int32' extends A | B ? 'int32' :
  'int8' extends A | B ? ('uint32' extends A | B ? 'int32' : 'uint8' extends A | B ? 'int32' : 'int8') :
  'uint32' extends A | B ? 'uint32' :
  'uint8' extends A | B ? 'uint8' : 'bool';
/** add, sub, mul, maximum, minimum: bool operands count in int32. */
export type Arith<P extends DType> = P extends 'bool' ? 'int32' : P;
/** div, pow and the float-only unary ops: integers and bools compute in float32. */
export type Floating<P extends DType> = P extends 'float16' ? 'float16' : 'float32';
/** A number operand: a float tensor keeps its dtype; an integer one may become float32 (a fractional number). */
export type WithScalar<D extends DType> = D extends 'float32' | 'float16' ? D : D extends 'uint32' | 'uint8' | 'int8' ? D | 'int32' | 'float32' : 'int32' | 'float32';
/** Unary ops with integer forms (neg, abs, square, relu, floor, ceil, round, sign): bool computes in int32. */
export type Keep<D extends DType> = D extends 'bool' ? 'int32' : D;
/**
 * clamp: a float tensor keeps its dtype; an integer one too for whole bounds, float32 for
 * fractional ones; a bool one computes in int32 (or float32).
 */
export type Clamped<D extends DType> = D extends 'float32' | 'float16' ? D : D extends 'bool' ? 'int32' | 'float32' : D | 'float32';
/** sum and prod: bool, uint8 and int8 count in int32. */
export type Summed<D extends DType> = D extends 'bool' | 'uint8' | 'int8' ? 'int32' : D;

/**
 * What `sort` and `topk` return: `[values, indices]`, also named (PyTorch's named tuple;
 * TensorFlow.js's `{ values, indices }`).
 */
export type Sorted<D extends DType> = [Tensor<D>, Tensor<'int32'>] & { values: Tensor<D>; indices: Tensor<'int32'> };
export type NestedArray<T> = T | NestedArray<T>[];
export type ValueOf<D extends DType> = D extends 'bool' ? boolean : number;

/** PyTorch's softplus parameters. */
export interface SoftplusOptions {
  beta?: number | undefined;
  threshold?: number | undefined;
}

export interface CreateOptions<D extends DType = DType> {
  device?: DeviceLike | undefined;
  dtype?: D | undefined;
  /** Mark the new tensor as a leaf that needs a gradient (floating-point dtypes only). */
  requiresGrad?: boolean | undefined;
}

export interface TensorOptions<D extends DType = DType> extends CreateOptions<D> {
  /** Required when `values` is a typed array with more than one dimension. */
  shape?: readonly number[] | undefined;
}

export interface RandomOptions<D extends 'float32' | 'float16' = 'float32'> {
  device?: DeviceLike | undefined;
  /** float32 (the default) or float16. */
  dtype?: D | undefined;
  /** Same seed, same values on every device (`rand` bit for bit, `randn` to a few ulps): an integer in [0, 2^53). */
  seed?: number | undefined;
  /** Mark the new tensor as a leaf that needs a gradient. */
  requiresGrad?: boolean | undefined;
}

export interface BackwardOptions {
  /** Keep the graph after the pass, to go through it again (PyTorch's `retain_graph`). */
  retainGraph?: boolean | undefined;
}

export interface MomentOptions {
  /** 1 (the default) for the unbiased estimate, 0 for the population one. */
  correction?: number | undefined;
  keepdim?: boolean | undefined;
}

export interface ToOptions {
  /** Accepted for PyTorch parity; uploads are always queued without waiting on the web. */
  nonBlocking?: boolean | undefined;
}

/** A shape: an array of non-negative integers, or one integer for 1-D (`zeros(3)` is `[3]`). */
export type Shape = readonly number[] | number;
/** Reduction dims: one, several, or `null`/absent for all. */
export type Dims = number | readonly number[] | null | undefined;

export interface DeviceInfo {
  name: DeviceName;
  backend: string;
  type: string;
  /** Whether this is a software/fallback adapter (SwiftShader, lavapipe). */
  fallback: boolean;
  adapter: string;
  driver: string;
  limits: Record<string, number>;
  features: string[];
  /** For a logical device (see `logicalDevices`): its index among its adapter's logical devices. */
  logical: number | null;
}

/** One logical device carved out of an adapter. */
export interface LogicalDeviceConfig {
  /** Its memory limit in bytes (`null` or absent: none). */
  memoryLimit?: number | null | undefined;
}

export declare class Tensor<D extends DType = DType> {
  private constructor();
  readonly shape: number[];
  readonly dtype: D;
  readonly device: DeviceName;
  readonly rank: number;
  /** Whether `dispose()` was called. */
  readonly disposed: boolean;
  /** The number of elements (PyTorch's `numel()`, TensorFlow.js's `size`). */
  numel(): number;
  /** The shape, as PyTorch's `size()`. */
  size(): number[];
  /** The size of dimension `dim` (negative counts from the end). */
  size(dim: number): number;

  add<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  add(other: number | boolean): Tensor<WithScalar<D>>;
  sub<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  sub(other: number | boolean): Tensor<WithScalar<D>>;
  mul<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  mul(other: number | boolean): Tensor<WithScalar<D>>;
  div<O extends DType>(other: Tensor<O>): Tensor<Floating<Promote<D, O>>>;
  div(other: number | boolean): Tensor<Floating<D>>;
  pow<O extends DType>(other: Tensor<O>): Tensor<Floating<Promote<D, O>>>;
  pow(other: number | boolean): Tensor<Floating<D>>;
  maximum<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  maximum(other: number | boolean): Tensor<WithScalar<D>>;
  minimum<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  minimum(other: number | boolean): Tensor<WithScalar<D>>;
  eq(other: Tensor | number | boolean): Tensor<'bool'>;
  ne(other: Tensor | number | boolean): Tensor<'bool'>;
  lt(other: Tensor | number | boolean): Tensor<'bool'>;
  le(other: Tensor | number | boolean): Tensor<'bool'>;
  gt(other: Tensor | number | boolean): Tensor<'bool'>;
  ge(other: Tensor | number | boolean): Tensor<'bool'>;

  neg(): Tensor<Keep<D>>;
  abs(): Tensor<Keep<D>>;
  exp(): Tensor<Floating<D>>;
  log(): Tensor<Floating<D>>;
  sqrt(): Tensor<Floating<D>>;
  rsqrt(): Tensor<Floating<D>>;
  reciprocal(): Tensor<Floating<D>>;
  square(): Tensor<Keep<D>>;
  sin(): Tensor<Floating<D>>;
  cos(): Tensor<Floating<D>>;
  tanh(): Tensor<Floating<D>>;
  sigmoid(): Tensor<Floating<D>>;
  relu(): Tensor<Keep<D>>;
  /** GELU, exact or (`{ approximate: 'tanh' }`) its tanh form. */
  gelu(options?: { approximate?: 'none' | 'tanh' | undefined }): Tensor<Floating<D>>;
  geluTanh(): Tensor<Floating<D>>;
  silu(): Tensor<Floating<D>>;
  floor(): Tensor<Keep<D>>;
  ceil(): Tensor<Keep<D>>;
  round(): Tensor<Keep<D>>;
  sign(): Tensor<Keep<D>>;
  erf(): Tensor<Floating<D>>;
  /** `log(1 + x)`, accurate for tiny `x`. */
  log1p(): Tensor<Floating<D>>;
  /** `e^x - 1`, accurate for tiny `x`. */
  expm1(): Tensor<Floating<D>>;
  tan(): Tensor<Floating<D>>;
  asin(): Tensor<Floating<D>>;
  acos(): Tensor<Floating<D>>;
  atan(): Tensor<Floating<D>>;
  sinh(): Tensor<Floating<D>>;
  cosh(): Tensor<Floating<D>>;
  asinh(): Tensor<Floating<D>>;
  acosh(): Tensor<Floating<D>>;
  atanh(): Tensor<Floating<D>>;
  /** `x * tanh(softplus(x))`. */
  mish(): Tensor<Floating<D>>;
  /** `x * relu6(x + 3) / 6`. */
  hardswish(): Tensor<Floating<D>>;
  /** `relu6(x + 3) / 6`. */
  hardsigmoid(): Tensor<Floating<D>>;
  /** `log(1 + e^(beta x)) / beta`, and `x` where `beta x > threshold` (PyTorch's defaults: beta 1, threshold 20). */
  softplus(options?: SoftplusOptions): Tensor<Floating<D>>;
  /** `softplus({ beta, threshold })`. */
  softplusWith(beta: number, threshold: number): Tensor<Floating<D>>;
  /** `x` where positive, `negativeSlope * x` elsewhere (default 0.01). */
  leakyRelu(negativeSlope?: number): Tensor<Floating<D>>;
  /** `x` where positive, `weight * x` elsewhere; `weight` has 1 element or one per channel (dim 1). */
  prelu(weight: Tensor): Tensor<Floating<D>>;
  /** `x` where positive, `alpha * (e^x - 1)` elsewhere (default 1). */
  elu(alpha?: number): Tensor<Floating<D>>;
  /** `this + weight * (end - this)`, broadcast over all three (PyTorch's `lerp`). */
  lerp(end: Tensor, weight: Tensor | number): Tensor<D>;

  /** The angle of the point `(other, this)`, as `Math.atan2(this, other)`. */
  atan2<O extends DType>(other: Tensor<O>): Tensor<Floating<Promote<D, O>>>;
  atan2(other: number | boolean): Tensor<Floating<D>>;
  /** Python's `%`: the result has the divisor's sign (integer division by zero gives 0). */
  remainder<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  remainder(other: number | boolean): Tensor<WithScalar<D>>;
  /** C's `fmod`: the result has the dividend's sign (integer division by zero gives 0). */
  fmod<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  fmod(other: number | boolean): Tensor<WithScalar<D>>;
  /** `floor(this / other)` in the operands' dtype (integer division by zero gives 0). */
  floorDivide<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  floorDivide(other: number | boolean): Tensor<WithScalar<D>>;
  /** `&` of integer or bool tensors (floats are an error). */
  bitwiseAnd<O extends DType>(other: Tensor<O>): Tensor<Promote<D, O>>;
  bitwiseAnd(other: number | boolean): Tensor<WithScalar<D>>;
  bitwiseOr<O extends DType>(other: Tensor<O>): Tensor<Promote<D, O>>;
  bitwiseOr(other: number | boolean): Tensor<WithScalar<D>>;
  bitwiseXor<O extends DType>(other: Tensor<O>): Tensor<Promote<D, O>>;
  bitwiseXor(other: number | boolean): Tensor<WithScalar<D>>;
  /** `<<` of integers (shifts outside [0, 32) give 0). */
  bitwiseLeftShift<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  bitwiseLeftShift(other: number | boolean): Tensor<WithScalar<D>>;
  /** `>>` of integers, arithmetic for int32 (shifts outside [0, 32) shift an int32 by 31, give 0 for uint32). */
  bitwiseRightShift<O extends DType>(other: Tensor<O>): Tensor<Arith<Promote<D, O>>>;
  bitwiseRightShift(other: number | boolean): Tensor<WithScalar<D>>;
  /** `~`: every bit flipped for integers, not for bool. */
  bitwiseNot(): Tensor<D>;
  /** Nonzero and nonzero (bool). */
  logicalAnd(other: Tensor | number | boolean): Tensor<'bool'>;
  logicalOr(other: Tensor | number | boolean): Tensor<'bool'>;
  logicalXor(other: Tensor | number | boolean): Tensor<'bool'>;
  /** True where zero. */
  logicalNot(): Tensor<'bool'>;
  /** Running sums along `dim` (bool sums in int32). */
  cumsum(dim: number): Tensor<Summed<D>>;
  /** Running products along `dim` (bool in int32). */
  cumprod(dim: number): Tensor<Summed<D>>;
  /** True where every element over `dim` (default: all) is nonzero. */
  all(dim?: Dims, keepdim?: boolean): Tensor<'bool'>;
  /** True where some element over `dim` (default: all) is nonzero. */
  any(dim?: Dims, keepdim?: boolean): Tensor<'bool'>;
  /** `log(sum(exp(x)))` over `dim` (default: all), computed stably. */
  logsumexp(dim?: Dims, keepdim?: boolean): Tensor<Floating<D>>;
  /** PyTorch's `amax`: `max` over `dim`. */
  amax(dim?: Dims, keepdim?: boolean): Tensor<D>;
  /** PyTorch's `amin`: `min` over `dim`. */
  amin(dim?: Dims, keepdim?: boolean): Tensor<D>;
  /** The vector p-norm (default 2; 1, Infinity, -Infinity, 0 or any p > 0) over `dim` (default: all). */
  norm(p?: number, dim?: Dims, keepdim?: boolean): Tensor<Floating<D>>;
  /** `value` where `mask` (bool, broadcast to this shape) is true. */
  maskedFill(mask: Tensor<'bool'>, value: number | boolean): Tensor<D>;
  /** The lower triangle of the last two dims (`col - row <= diagonal`). */
  tril(diagonal?: number): Tensor<D>;
  /** The upper triangle of the last two dims (`col - row >= diagonal`). */
  triu(diagonal?: number): Tensor<D>;
  /** Reversed along `dims` (a copy). */
  /** Reversed along `dims`: one dim, an array, or PyTorch's varargs (`flip(0, 1)`). */
  flip(dims: number | readonly number[]): Tensor<D>;
  flip(...dims: number[]): Tensor<D>;
  /** Shifted along `dims`, wrapping around; with no dims, over the flattened tensor. */
  roll(shifts: number | readonly number[], dims?: number | readonly number[]): Tensor<D>;
  /** Tiled `sizes[i]` times along each dim (PyTorch's `repeat`). */
  repeat(...sizes: number[]): Tensor<D>;
  repeat(sizes: readonly number[]): Tensor<D>;
  /** Tiled `dims[i]` times along each dim; fewer dims than the tensor's are padded with leading 1s (PyTorch's `tile`). */
  tile(...dims: number[]): Tensor<D>;
  tile(dims: readonly number[]): Tensor<D>;
  /** Views along `dim` (default 0) of `size` entries each, or of each size in an array. */
  split(size: number | readonly number[], dim?: number): Tensor<D>[];
  /** At most `chunks` equal views along `dim` (default 0). */
  chunk(chunks: number, dim?: number): Tensor<D>[];

  /** PyTorch's `Tensor.where(condition, y)`: this where `condition` (nonzero is true) holds, else `y`, with broadcasting (`torch.where(condition, this, y)`). */
  where<B extends DType>(condition: Tensor, y: Tensor<B>): Tensor<Promote<D, B>>;
  clamp(min?: number | null, max?: number | null): Tensor<Clamped<D>>;

  sum(dim?: Dims, keepdim?: boolean): Tensor<Summed<D>>;
  mean(dim?: Dims, keepdim?: boolean): Tensor<Floating<D>>;
  max(dim?: Dims, keepdim?: boolean): Tensor<D>;
  min(dim?: Dims, keepdim?: boolean): Tensor<D>;
  prod(dim?: Dims, keepdim?: boolean): Tensor<Summed<D>>;
  argmax(dim?: number | null, keepdim?: boolean): Tensor<'int32'>;
  argmin(dim?: number | null, keepdim?: boolean): Tensor<'int32'>;
  var(dim?: Dims, options?: MomentOptions): Tensor<Floating<D>>;
  std(dim?: Dims, options?: MomentOptions): Tensor<Floating<D>>;
  softmax(dim?: number): Tensor<Floating<D>>;
  logSoftmax(dim?: number): Tensor<Floating<D>>;
  matmul<O extends DType>(other: Tensor<O>): Tensor<Promote<D, O>>;

  /** The same data in `shape`: an array, or PyTorch's varargs (`reshape(4, 1)`, `reshape(2, -1)`). */
  reshape(shape: Shape): Tensor<D>;
  reshape(...shape: number[]): Tensor<D>;
  /** Like `reshape`, but never copies: any shape PyTorch's view rule allows (splitting a dim, merging contiguous dims), else an error that advises reshape. */
  view(shape: Shape): Tensor<D>;
  view(...shape: number[]): Tensor<D>;
  /** Dims `startDim` to `endDim` (default: all) merged into one, as PyTorch's `flatten`. */
  flatten(startDim?: number, endDim?: number): Tensor<D>;
  /** The dims reordered: an array, or PyTorch's varargs (`permute(1, 0)`). */
  permute(dims: readonly number[]): Tensor<D>;
  permute(...dims: number[]): Tensor<D>;
  transpose(dim0: number, dim1: number): Tensor<D>;
  /** The transpose of a tensor of at most 2 dims (more is an error: use `transpose`). */
  t(): Tensor<D>;
  /** `length` entries of `dim` from `start` (negative: counted from the end). */
  narrow(dim: number, start: number, length: number): Tensor<D>;
  /** Category indices drawn from the rows of these weights (PyTorch's `multinomial`), without replacement unless asked. */
  multinomial(numSamples: number, options?: { replacement?: boolean | undefined; seed?: number | undefined }): Tensor<'int32'>;
  /** The slice at `index` of `dim`, that dim removed (PyTorch's `select`; negative counts from the end). */
  select(dim: number, index: number): Tensor<D>;
  /** Entries `start` (inclusive) to `end` (exclusive; default the end) of `dim`, every `step`-th (Python's `x[start:end:step]`). */
  slice(dim: number, start: number, end?: number | null, step?: number): Tensor<D>;
  /** Dims of size 1 removed: every one, one dim, or several (an array or PyTorch's varargs). */
  squeeze(dim?: number | readonly number[] | null): Tensor<D>;
  squeeze(...dims: number[]): Tensor<D>;
  unsqueeze(dim: number): Tensor<D>;
  expand(shape: Shape): Tensor<D>;
  expand(...shape: number[]): Tensor<D>;
  broadcastTo(shape: Shape): Tensor<D>;
  contiguous(): Tensor<D>;
  /** True where NaN. */
  isnan(): Tensor<'bool'>;
  /** True where +Infinity or -Infinity. */
  isinf(): Tensor<'bool'>;
  /** True where neither NaN nor infinite. */
  isfinite(): Tensor<'bool'>;
  /** A copy with its own data, recorded for autograd (PyTorch's `clone()`: gradients flow back to this tensor; a clone of a leaf is not a leaf). */
  clone(): Tensor<D>;
  toDtype<T extends DType>(dtype: T): Tensor<T>;
  indexSelect(dim: number, index: Tensor<'int32' | 'uint32'>): Tensor<D>;
  gather(dim: number, index: Tensor<'int32' | 'uint32'>): Tensor<D>;
  /** `this` plus `source` added at the slices `index` names along `dim` (PyTorch's `index_add`). */
  indexAdd(dim: number, index: Tensor<'int32' | 'uint32'>, source: Tensor): Tensor<D>;
  /** `this` plus `src` added at the positions `index` names along `dim` (PyTorch's `scatter_add`). */
  scatterAdd(dim: number, index: Tensor<'int32' | 'uint32'>, src: Tensor): Tensor<D>;
  /**
   * `this` with `src` (a Tensor or a number) written at the positions `index` names along `dim`
   * (PyTorch's `scatter`); where positions repeat, the last in index order wins.
   */
  scatter(dim: number, index: Tensor<'int32' | 'uint32'>, src: Tensor | number | boolean): Tensor<D>;
  /** Positions that sort along `dim` (default -1), stably; NaN sorts above everything. */
  argsort(dim?: number, descending?: boolean): Tensor<'int32'>;
  /** Sorted along `dim` (default -1), stably, and the position each value came from. */
  sort(dim?: number, descending?: boolean): Sorted<D>;
  /**
   * The `k` largest (`largest`, the default) or smallest entries along `dim` (default -1) and
   * their positions, always in sorted order (`sorted` is accepted for PyTorch's signature).
   */
  topk(k: number, dim?: number, largest?: boolean, sorted?: boolean): Sorted<D>;

  /** Whether this tensor takes part in autograd (a marked leaf, or the output of a recorded op). */
  readonly requiresGrad: boolean;
  /** Marks this leaf as needing a gradient (or not), in place; returns this tensor. */
  requiresGrad_(on?: boolean): this;

  // In-place ops (PyTorch's names): this Tensor takes the result and is returned. The shape and
  // dtype stay (a float result into an integer tensor is refused, as PyTorch); a leaf that
  // requires grad is refused unless grad mode is off (wt.noGrad), where it stays a leaf with its
  // gradient. An in-place op on `p.grad` writes the gradient back.
  add_(other: Tensor | number | boolean): this;
  sub_(other: Tensor | number | boolean): this;
  mul_(other: Tensor | number | boolean): this;
  div_(other: Tensor | number | boolean): this;
  pow_(other: Tensor | number | boolean): this;
  remainder_(other: Tensor | number | boolean): this;
  fmod_(other: Tensor | number | boolean): this;
  neg_(): this; abs_(): this; exp_(): this; log_(): this; sqrt_(): this; rsqrt_(): this; reciprocal_(): this;
  square_(): this; sin_(): this; cos_(): this; tan_(): this; tanh_(): this; sigmoid_(): this; relu_(): this;
  floor_(): this; ceil_(): this; round_(): this; sign_(): this; erf_(): this; log1p_(): this; expm1_(): this;
  asin_(): this; acos_(): this; atan_(): this; sinh_(): this; cosh_(): this; asinh_(): this; acosh_(): this; atanh_(): this;
  /** Limits the values to [min, max] in place. */
  clamp_(min?: number | null, max?: number | null): this;
  /** `this + weight * (end - this)` in place (an EMA update: `ema.lerp_(p, 1 - decay)`). */
  lerp_(end: Tensor, weight: Tensor | number): this;
  maskedFill_(mask: Tensor<'bool'>, value: number | boolean): this;
  /** Every element set to `value`. */
  fill_(value: number | boolean): this;
  /** Every element set to zero. */
  zero_(): this;
  /** `src`'s values (broadcast, cast to this dtype; on this tensor's device); gradients flow to `src`. */
  copy_(src: Tensor): this;
  /** Values drawn uniformly from [from, to) (defaults 0, 1), from the global generator. */
  uniform_(from?: number, to?: number): this;
  /** Values drawn from N(mean, std^2) (defaults 0, 1), from the global generator. */
  normal_(mean?: number, std?: number): this;
  /** Whether this is a leaf of the graph (made by you, not recorded from an op). */
  readonly isLeaf: boolean;
  /** The name of the op that made this tensor when it was recorded, else null. */
  readonly gradFn: string | null;
  /**
   * The gradient accumulated by backward() since it was last cleared (a new handle: dispose it
   * or read it in wt.tidy), or null. Assign null to clear it, or a tensor of this one's shape,
   * dtype and device to replace it.
   */
  get grad(): Tensor<D> | null;
  set grad(value: Tensor<D> | null);
  /** A leaf over the same data with no autograd history. */
  detach(): Tensor<D>;
  /**
   * Adds the gradient of this one-element tensor (a loss) to every leaf that requires grad
   * (PyTorch's `loss.backward()`), then frees the graph. Pass `grad` for a non-scalar output.
   * A graph whose gradient must leave a GPU through `to()` needs `await backwardAsync()`.
   */
  backward(grad?: Tensor | null, options?: BackwardOptions): void;
  backward(options: BackwardOptions): void;
  /** backward() that awaits transfers: works for every graph. */
  backwardAsync(grad?: Tensor | null, options?: BackwardOptions): Promise<void>;
  backwardAsync(options: BackwardOptions): Promise<void>;

  /** Zeros of `shape` with this tensor's dtype and device (options override them). */
  newZeros<T extends DType = D>(shape: Shape, options?: CreateOptions<T>): Tensor<T>;
  newOnes<T extends DType = D>(shape: Shape, options?: CreateOptions<T>): Tensor<T>;
  newFull<T extends DType = D>(shape: Shape, value: number | boolean, options?: CreateOptions<T>): Tensor<T>;
  newTensor<T extends DType = D>(values: NestedArray<number | boolean> | ArrayLike<number> | BigInt64Array | BigUint64Array | NestedArray<bigint>, options?: TensorOptions<T>): Tensor<T>;

  /** The elements as a typed array, read back from any device. */
  data(options?: ReadOptions<D>): Promise<DataByDType[D]>;
  /** The elements as nested arrays. */
  array(): Promise<NestedArray<ValueOf<D>>>;
  /** The value of a one-element tensor (PyTorch's `item()`); more elements is an error. */
  item(): Promise<ValueOf<D>>;
  /** Synchronous read, only for tensors on the cpu (elsewhere it throws: use `await data()`). */
  dataSync(options?: ReadOptions<D>): DataByDType[D];
  /** A copy converted to `dtype` (as `toDtype`). */
  to<T extends DType>(dtype: T): Promise<Tensor<T>>;
  /** A copy with `other`'s device and dtype, as PyTorch's `x.to(other)`. */
  to<T extends DType>(other: Tensor<T>, options?: ToOptions): Promise<Tensor<T>>;
  /** A copy on `device`; this tensor is untouched. */
  to(device: DeviceLike, options?: ToOptions): Promise<Tensor<D>>;
  cpu(): Promise<Tensor<D>>;
  /** Frees the tensor's memory now (idempotent). */
  dispose(): void;
  [Symbol.dispose](): void;
  /** PyTorch's repr (`tensor([[1., 2.]], device='webgpu:0')`); values only for cpu tensors (elsewhere, await `print()`). */
  toString(): string;
  /** Reads the values from any device and prints the repr with console.log (TensorFlow.js's `print()`). */
  print(): Promise<void>;
}

/** Something with an `href`, as a URL: typed structurally so that no DOM lib is needed. */
export interface URLLike {
  readonly href: string;
}

export interface InitOptions {
  /** Node: a WebGPU implementation, e.g. `create([])` from the `webgpu` package. */
  gpu?: unknown | undefined;
  /** Node: WebGPU globals to install where missing (defaults to the `webgpu` package's). */
  globals?: Record<string, unknown> | undefined;
  /** Where the .wasm lives (a URL, a path, or its bytes), when not next to the package. */
  wasm?: URLLike | string | ArrayBuffer | ArrayBufferView | undefined;
  /**
   * Splits adapters into logical devices before any opens (TensorFlow's
   * `setLogicalDeviceConfiguration`), e.g. `{ 'webgpu:0': [{ memoryLimit: 1 << 26 }, {}] }`:
   * `webgpu:0` and `webgpu:1` become the two halves, each its own device.
   */
  logicalDevices?: Record<DeviceName, LogicalDeviceConfig[]> | undefined;
}

/**
 * Loads the module, discovers adapters and opens the best device; resolves to its name. A failed
 * init can be retried; in Node, `init({ gpu })` after a CPU-only init adds WebGPU.
 */
export function init(options?: InitOptions): Promise<DeviceName>;
export function devices(): DeviceInfo[];
export function bestDevice(): DeviceName;
export function open(device: DeviceLike): Promise<void>;
export function synchronize(device: DeviceLike): Promise<void>;
export function setDefaultDevice(device: DeviceLike): void;
export function defaultDevice(): DeviceName;
/** Whether a device of `kind` is usable (`isAvailable('cuda')` is `torch.cuda.is_available()`). */
export function isAvailable(kind: DeviceKind): boolean;
/** How many devices of `kind` are usable. */
export function deviceCount(kind: DeviceKind): number;

export * from './create.js';
/**
 * Runs `fn`, then disposes every tensor it created except those in its result; if `fn` throws,
 * disposes them all and rethrows. `fn` must be synchronous (a Promise result is a TypeError).
 */
export function tidy<T>(fn: () => T): T;
export function tidy<T>(name: string, fn: () => T): T;
/**
 * Runs `fn` with `device` as the placement of tensors created without one (TensorFlow's
 * `with tf.device(...)`); scopes nest. `fn` must be synchronous.
 */
export function withDevice<T>(device: DeviceLike, fn: () => T): T;
/**
 * Exempts a Tensor (or the Tensors in an array, object or Map) from wt.tidy() scopes and from
 * the step scope, as TensorFlow.js's `tf.keep`: it lives until disposed. Returns its argument.
 */
export function keep<T>(value: T): T;
/**
 * Turns the step scope on or off (on by default); returns the previous setting. The step scope
 * disposes, at each training step, the tensors made during training outside wt.tidy that went a
 * whole training step unused, so a loop written without tidy stays bounded.
 */
export function setStepScope(on: boolean): boolean;
/**
 * Runs `fn` without recording the autograd graph (PyTorch's `torch.no_grad()`): results do not
 * require grad. `fn` must be synchronous.
 */
export function noGrad<T>(fn: () => T): T;
/** Runs `fn` with recording on, inside a noGrad block. */
export function enableGrad<T>(fn: () => T): T;
/** Whether ops record the autograd graph. */
export function isGradEnabled(): boolean;

/** Device management: memory, placement, transfers, limits, recovery, launch blocking, events. */
export * from './devices.js';

/** Modules, layers, losses and functional forms (PyTorch's torch.nn). */
export * as nn from './nn.js';
/** Optimizers (PyTorch's torch.optim). */
export * as optim from './optim.js';
/** Datasets and the DataLoader (PyTorch's torch.utils.data). */
export * as data from './data.js';
/**
 * Writes a state dict to a `.safetensors` file (Node only; in a browser it rejects: save the
 * bytes of `nn.saveSafetensors` instead).
 */
export declare function saveSafetensorsFile(
  dict: import('./nn.js').StateDict,
  path: string,
  options?: { metadata?: Record<string, string> },
): Promise<void>;
/** Reads a `.safetensors` file into name -> Tensor (Node only; in a browser it rejects). */
export declare function loadSafetensorsFile(path: string, options?: { device?: DeviceLike | undefined }): Promise<Record<string, Tensor>>;
/** Data parallel training across devices (PyTorch's DDP, TensorFlow's MirroredStrategy, in one process). */
export * as parallel from './parallel.js';
/** Complete models written with the API: nanoGPT's GPT. */
export * as models from './models.js';
