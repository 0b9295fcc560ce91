// Types of wt.nn (js/nn.js): modules, layers, loss modules and wt.nn.functional.
import type { DeviceLike, DType, Floating, Keep, Promote, SoftplusOptions, Tensor } from './index.js';

/** A learnable parameter: a floating-point tensor (its `data()` is a Float32Array, `item()` a number). */
export type Param = Tensor<'float32' | 'float16'>;

/** Keys to Tensors, as `stateDict()` returns and `loadStateDict` accepts. */
export type StateDict = Record<string, Tensor> | Map<string, Tensor>;

/**
 * PyTorch's nn.Parameter: marks a floating-point leaf as a parameter, so that assigning it to a
 * module attribute registers it (`this.scale = new wt.nn.Parameter(wt.ones([4]))`). Returns the
 * tensor itself; `requiresGrad` false registers it frozen.
 */
export declare const Parameter: {
  <T extends Tensor>(data: T, requiresGrad?: boolean): T;
  new <T extends Tensor>(data: T, requiresGrad?: boolean): T;
};

/**
 * PyTorch's nn.Module: subclass it, assign submodules and nn.Parameters as attributes (or
 * register them, and buffers, by name), define forward. Registered names become properties. A subclass that declares a field of a
 * name its base class registered hides that property (class fields are defined after `super()`):
 * write `declare weight: Tensor`, not `weight!: Tensor`; `getParameter` always reads the registry.
 */
export declare class Module {
  constructor();
  /** Registers a floating-point leaf as a learnable parameter (made requiresGrad; freeze it with `requiresGrad_(false)`); returns it. `null` registers an absent one. */
  registerParameter<T extends Tensor | null>(name: string, tensor: T): T;
  /** Registers state that moves and is saved with the module but is not learned. */
  registerBuffer<T extends Tensor | null>(name: string, tensor: T): T;
  /** Registers a submodule; its parameters appear as `name.<theirs>`. */
  registerModule<M extends Module | null>(name: string, module: M): M;
  /** The submodule at a dotted path (`'net.0'`; `''` is this module). */
  getSubmodule(target: string): Module;
  /** The parameter at a dotted path (`'fc.weight'`); null when registered as absent. */
  getParameter(target: string): Param | null;
  /** The buffer at a dotted path (`'bn.running_mean'`); null when registered as absent. */
  getBuffer(target: string): Tensor | null;
  /** The forward pass (subclasses implement it). */
  forward(...args: any[]): any;
  namedParameters(): [string, Param][];
  parameters(): Param[];
  namedBuffers(): [string, Tensor][];
  buffers(): Tensor[];
  namedChildren(): [string, Module][];
  children(): Module[];
  namedModules(prefix?: string): [string, Module][];
  modules(): Module[];
  /** Whether the module is in training mode. */
  readonly training: boolean;
  /** Training mode (or evaluation with `false`), recursively. */
  train(mode?: boolean): this;
  /** Evaluation mode, recursively. */
  eval(): this;
  /** Sets every parameter's gradient to null. */
  zeroGrad(): void;
  /** Moves parameters (with gradients) and registered buffers to `device` in place; all or nothing. */
  to(deviceOrDtype: DeviceLike | 'float32' | 'float16'): Promise<this>;
  /** Parameters and buffers by PyTorch's keys, as new detached handles (dispose them). */
  stateDict(): Record<string, Tensor>;
  /** Loads a state dict (strict by default), converting dtypes and moving to each slot's device. */
  loadStateDict(dict: StateDict, options?: { strict?: boolean | undefined }): Promise<{ missingKeys: string[]; unexpectedKeys: string[] }>;
  /** Calls `fn` on every submodule (children first), then on this one; returns this. */
  apply(fn: (module: Module) => void): this;
  /** Floating-point parameters and buffers as float16, in place. */
  half(): this;
  /** Floating-point parameters and buffers as float32, in place. */
  float(): this;
  /** Frees every parameter and buffer. */
  dispose(): void;
  [Symbol.dispose](): void;
  /** What toString shows inside the parentheses. */
  extraRepr(): string;
}

export interface LinearOptions { bias?: boolean | undefined; seed?: number | undefined; device?: DeviceLike | undefined }
/** `y = x W^T + b`; `weight` is `[outFeatures, inFeatures]`. */
export declare class Linear extends Module {
  constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
  readonly inFeatures: number;
  readonly outFeatures: number;
  weight: Tensor;
  bias: Tensor | null;
  forward(x: Tensor): Tensor;
}

export interface EmbeddingOptions { paddingIdx?: number | null | undefined; seed?: number | undefined; device?: DeviceLike | undefined }
/** A table of learned vectors looked up by int32 index. */
export declare class Embedding extends Module {
  constructor(numEmbeddings: number, embeddingDim: number, options?: EmbeddingOptions);
  weight: Tensor;
  readonly paddingIdx: number | null;
  forward(input: Tensor): Tensor;
}

export interface LayerNormOptions { eps?: number | undefined; elementwiseAffine?: boolean | undefined; bias?: boolean | undefined; device?: DeviceLike | undefined }
/** Normalises over the trailing `normalizedShape` dims. */
export declare class LayerNorm extends Module {
  constructor(normalizedShape: number | readonly number[], options?: LayerNormOptions);
  weight: Tensor | null;
  bias: Tensor | null;
  forward(x: Tensor): Tensor;
}

export interface GroupNormOptions { eps?: number | undefined; affine?: boolean | undefined; device?: DeviceLike | undefined }
/** Normalises `[N, C, *]` input over groups of channels. */
export declare class GroupNorm extends Module {
  constructor(numGroups: number, numChannels: number, options?: GroupNormOptions);
  weight: Tensor | null;
  bias: Tensor | null;
  forward(x: Tensor): Tensor;
}

export interface BatchNormOptions {
  eps?: number | undefined;
  /** Weight of each batch in the running statistics (default 0.1); `null` for a cumulative average. */
  momentum?: number | null | undefined;
  affine?: boolean | undefined;
  trackRunningStats?: boolean | undefined;
  device?: DeviceLike | undefined;
}
/** What BatchNorm1d and BatchNorm2d share (not exported at run time). */
declare class BatchNormBase extends Module {
  weight: Tensor | null;
  bias: Tensor | null;
  running_mean: Tensor | null;
  running_var: Tensor | null;
  num_batches_tracked: Tensor | null;
  forward(x: Tensor): Tensor;
}
/** Batch normalisation of `[N, C]` or `[N, C, L]` input, with running statistics as buffers. */
export declare class BatchNorm1d extends BatchNormBase {
  constructor(numFeatures: number, options?: BatchNormOptions);
}
/** Batch normalisation of `[N, C, H, W]` input. */
export declare class BatchNorm2d extends BatchNormBase {
  constructor(numFeatures: number, options?: BatchNormOptions);
}

/** Zeroes elements with probability `p` while training; seeded masks are reproducible. */
export declare class Dropout extends Module {
  constructor(p?: number, options?: { seed?: number | undefined });
  readonly p: number;
  forward(x: Tensor): Tensor;
}

/** Modules applied in order, children `0`, `1`, ... */
export declare class Sequential extends Module {
  constructor(...modules: Module[]);
  append(module: Module): this;
  readonly length: number;
  at(index: number): Module | undefined;
  forward(x: Tensor): Tensor;
  [Symbol.iterator](): Iterator<Module>;
}

/** PyTorch's nn.ModuleList: modules registered as `0`, `1`, ...; no forward of its own. */
export declare class ModuleList<M extends Module = Module> extends Module {
  constructor(modules?: Iterable<M>);
  push(module: M): this;
  append(module: M): this;
  extend(modules: Iterable<M>): this;
  insert(index: number, module: M): this;
  readonly length: number;
  at(index: number): M | undefined;
  [Symbol.iterator](): Iterator<M>;
}

/** PyTorch's nn.ModuleDict: modules under names, in insertion order; no forward of its own. */
export declare class ModuleDict<M extends Module = Module> extends Module {
  constructor(modules?: Record<string, M> | Map<string, M>);
  set(name: string, module: M): this;
  get(name: string): M | undefined;
  has(name: string): boolean;
  keys(): string[];
  values(): M[];
  entries(): [string, M][];
  readonly length: number;
  [Symbol.iterator](): Iterator<[string, M]>;
}

/** Flattens dims `startDim` to `endDim` into one. */
export declare class Flatten extends Module {
  constructor(startDim?: number, endDim?: number);
  forward(x: Tensor): Tensor;
}
/** Returns its input. */
export declare class Identity extends Module { forward(x: Tensor): Tensor }
/** `inplace` is accepted for PyTorch's signature (`nn.ReLU(inplace=True)`); results are the same. */
export interface ActivationOptions { inplace?: boolean | undefined }
export declare class ReLU extends Module { constructor(opts?: ActivationOptions); forward(x: Tensor): Tensor }
export declare class GELU extends Module {
  constructor(options?: { approximate?: 'none' | 'tanh' | undefined });
  forward(x: Tensor): Tensor;
}
export declare class SiLU extends Module { constructor(opts?: ActivationOptions); forward(x: Tensor): Tensor }
export declare class Tanh extends Module { constructor(opts?: ActivationOptions); forward(x: Tensor): Tensor }
export declare class Sigmoid extends Module { constructor(opts?: ActivationOptions); forward(x: Tensor): Tensor }
/** `x` where positive, `weight * x` elsewhere, with `numParameters` learned slopes (1, or one per channel), each starting at `init` (PyTorch's `nn.PReLU`; defaults 1 and 0.25). */
export declare class PReLU extends Module {
  constructor(numParameters?: number, opts?: { init?: number | undefined; device?: DeviceLike | undefined });
  readonly numParameters: number;
  forward(x: Tensor): Tensor;
}

/** One size for every spatial dim, or one per dim (PyTorch's "int or tuple"). */
export type Size = number | readonly number[];
export interface ConvOptions { stride?: Size | undefined; padding?: Size | 'same' | 'valid' | undefined; dilation?: Size | undefined; groups?: number | undefined }
export interface ConvTransposeOptions { stride?: Size | undefined; padding?: Size | undefined; outputPadding?: Size | undefined; groups?: number | undefined; dilation?: Size | undefined }
export interface MaxPoolOptions { stride?: Size | undefined; padding?: Size | undefined; dilation?: Size | undefined; ceilMode?: boolean | undefined }
export interface AvgPoolOptions { stride?: Size | undefined; padding?: Size | undefined; ceilMode?: boolean | undefined; countIncludePad?: boolean | undefined; divisorOverride?: number | null | undefined }
export interface InterpolateOptions { size?: Size | undefined; scaleFactor?: number | readonly number[] | undefined; mode?: 'nearest' | 'linear' | 'bilinear' | undefined; alignCorners?: boolean | undefined }
export interface AttentionOptions { attnMask?: Tensor | null | undefined; dropoutP?: number | undefined; isCausal?: boolean | undefined; scale?: number | null | undefined; seed?: number | null | undefined }
export interface ConvLayerOptions extends ConvOptions { bias?: boolean | undefined; seed?: number | undefined; device?: DeviceLike | undefined }

/** 1-D convolution layer (PyTorch's `nn.Conv1d`): `weight` `[out, in / groups, k]`, `bias` `[out]`. */
export declare class Conv1d extends Module {
  constructor(inChannels: number, outChannels: number, kernelSize: Size, options?: ConvLayerOptions);
  forward(x: Tensor): Tensor;
}
/** 2-D convolution layer (PyTorch's `nn.Conv2d`): `weight` `[out, in / groups, kh, kw]`, `bias` `[out]`. */
export declare class Conv2d extends Module {
  constructor(inChannels: number, outChannels: number, kernelSize: Size, options?: ConvLayerOptions);
  forward(x: Tensor): Tensor;
}
export declare class MaxPool2d extends Module {
  constructor(kernelSize: Size, options?: MaxPoolOptions);
  forward(x: Tensor): Tensor;
}
export declare class AvgPool2d extends Module {
  constructor(kernelSize: Size, options?: AvgPoolOptions);
  forward(x: Tensor): Tensor;
}
export declare class AdaptiveAvgPool2d extends Module {
  constructor(outputSize: Size);
  forward(x: Tensor): Tensor;
}

export type Reduction = 'mean' | 'sum' | 'none';
export interface LossOptions { reduction?: Reduction | undefined }
export interface ClassLossOptions extends LossOptions {
  /** Targets equal to it count for nothing (no default, unlike PyTorch's -100). */
  ignoreIndex?: number | null | undefined;
}
export interface CrossEntropyOptions extends ClassLossOptions { labelSmoothing?: number | undefined }

/** What the loss modules share (not exported at run time): options at construction, `forward(input, target)`. */
declare class LossModule<O> extends Module {
  constructor(options?: O);
  forward(input: Tensor, target: Tensor): Tensor;
}
export declare class CrossEntropyLoss extends LossModule<CrossEntropyOptions> {}
export declare class NLLLoss extends LossModule<ClassLossOptions> {}
export declare class MSELoss extends LossModule<LossOptions> {}
export declare class L1Loss extends LossModule<LossOptions> {}
export declare class BCEWithLogitsLoss extends LossModule<LossOptions> {}

/** PyTorch's torch.nn.functional. */
export declare namespace functional {
  /** The input's dtype promoted with the weight's (bool refused). */
  function linear<D extends DType, W extends DType>(input: Tensor<D>, weight: Tensor<W>, bias?: Tensor | null): Tensor<Promote<D, W>>;
  /** Rows of `weight` (its dtype) at the integer indices `input`. */
  function embedding<W extends DType>(input: Tensor, weight: Tensor<W>, options?: { paddingIdx?: number | null | undefined }): Tensor<W>;
  function layerNorm<D extends DType>(input: Tensor<D>, normalizedShape: number | readonly number[], options?: { weight?: Tensor | null | undefined; bias?: Tensor | null | undefined; eps?: number | undefined }): Tensor<Floating<D>>;
  function groupNorm<D extends DType>(input: Tensor<D>, numGroups: number, options?: { weight?: Tensor | null | undefined; bias?: Tensor | null | undefined; eps?: number | undefined }): Tensor<Floating<D>>;
  /** With `training`, normalises by batch statistics and updates `runningMean`/`runningVar` in place. */
  function batchNorm<D extends DType>(
    input: Tensor<D>,
    runningMean?: Tensor | null,
    runningVar?: Tensor | null,
    options?: { weight?: Tensor | null | undefined; bias?: Tensor | null | undefined; training?: boolean | undefined; momentum?: number | undefined; eps?: number | undefined },
  ): Tensor<Floating<D>>;
  function dropout<D extends DType>(input: Tensor<D>, options?: { p?: number | undefined; training?: boolean | undefined; seed?: number | null | undefined }): Tensor<Floating<D>>;
  function crossEntropy(input: Tensor<'float16'>, target: Tensor, options?: CrossEntropyOptions): Tensor<'float16'>;
  /** A floating-point loss (float32 unless the input is float16), so `await loss.item()` is a number. */
  function crossEntropy(input: Tensor, target: Tensor, options?: CrossEntropyOptions): Tensor<'float32'>;
  function nllLoss(input: Tensor<'float16'>, target: Tensor, options?: ClassLossOptions): Tensor<'float16'>;
  /** A floating-point loss (float32 unless the input is float16), so `await loss.item()` is a number. */
  function nllLoss(input: Tensor, target: Tensor, options?: ClassLossOptions): Tensor<'float32'>;
  function mseLoss(input: Tensor<'float16'>, target: Tensor, options?: LossOptions): Tensor<'float16'>;
  /** A floating-point loss (float32 unless the input is float16), so `await loss.item()` is a number. */
  function mseLoss(input: Tensor, target: Tensor, options?: LossOptions): Tensor<'float32'>;
  function l1Loss(input: Tensor<'float16'>, target: Tensor, options?: LossOptions): Tensor<'float16'>;
  /** A floating-point loss (float32 unless the input is float16), so `await loss.item()` is a number. */
  function l1Loss(input: Tensor, target: Tensor, options?: LossOptions): Tensor<'float32'>;
  function binaryCrossEntropyWithLogits(input: Tensor<'float16'>, target: Tensor, options?: LossOptions): Tensor<'float16'>;
  /** A floating-point loss (float32 unless the input is float16), so `await loss.item()` is a number. */
  function binaryCrossEntropyWithLogits(input: Tensor, target: Tensor, options?: LossOptions): Tensor<'float32'>;
  function relu<D extends DType>(input: Tensor<D>): Tensor<Keep<D>>;
  function gelu<D extends DType>(input: Tensor<D>, options?: { approximate?: 'none' | 'tanh' | undefined }): Tensor<Floating<D>>;
  function silu<D extends DType>(input: Tensor<D>): Tensor<Floating<D>>;
  function tanh<D extends DType>(input: Tensor<D>): Tensor<Floating<D>>;
  function sigmoid<D extends DType>(input: Tensor<D>): Tensor<Floating<D>>;
  function mish<D extends DType>(input: Tensor<D>): Tensor<Floating<D>>;
  function hardswish<D extends DType>(input: Tensor<D>): Tensor<Floating<D>>;
  function hardsigmoid<D extends DType>(input: Tensor<D>): Tensor<Floating<D>>;
  function softplus<D extends DType>(input: Tensor<D>, options?: SoftplusOptions): Tensor<Floating<D>>;
  function leakyRelu<D extends DType>(input: Tensor<D>, negativeSlope?: number): Tensor<Floating<D>>;
  /** Floating-point input only. */
  function prelu<D extends DType>(input: Tensor<D>, weight: Tensor): Tensor<Floating<D>>;
  function elu<D extends DType>(input: Tensor<D>, alpha?: number): Tensor<Floating<D>>;
  function softmax<D extends DType>(input: Tensor<D>, dim?: number): Tensor<Floating<D>>;
  function logSoftmax<D extends DType>(input: Tensor<D>, dim?: number): Tensor<Floating<D>>;
  /** Floating-point input only (as the convolutions, average pools and prelu below). */
  function conv1d<D extends DType>(input: Tensor<D>, weight: Tensor, bias?: Tensor | null, options?: ConvOptions): Tensor<Floating<D>>;
  function conv2d<D extends DType>(input: Tensor<D>, weight: Tensor, bias?: Tensor | null, options?: ConvOptions): Tensor<Floating<D>>;
  function convTranspose1d<D extends DType>(input: Tensor<D>, weight: Tensor, bias?: Tensor | null, options?: ConvTransposeOptions): Tensor<Floating<D>>;
  function convTranspose2d<D extends DType>(input: Tensor<D>, weight: Tensor, bias?: Tensor | null, options?: ConvTransposeOptions): Tensor<Floating<D>>;
  function maxPool1d<D extends DType>(input: Tensor<D>, kernelSize: Size, options?: MaxPoolOptions & { returnIndices?: false | undefined }): Tensor<D>;
  function maxPool1d<D extends DType>(input: Tensor<D>, kernelSize: Size, options: MaxPoolOptions & { returnIndices: true }): [Tensor<D>, Tensor<'int32'>];
  /** With `returnIndices`, `[values, indices]`: int32 flat indices `h * W + w` in each input plane. */
  function maxPool2d<D extends DType>(input: Tensor<D>, kernelSize: Size, options?: MaxPoolOptions & { returnIndices?: false | undefined }): Tensor<D>;
  function maxPool2d<D extends DType>(input: Tensor<D>, kernelSize: Size, options: MaxPoolOptions & { returnIndices: true }): [Tensor<D>, Tensor<'int32'>];
  function avgPool1d<D extends DType>(input: Tensor<D>, kernelSize: Size, options?: AvgPoolOptions): Tensor<Floating<D>>;
  function avgPool2d<D extends DType>(input: Tensor<D>, kernelSize: Size, options?: AvgPoolOptions): Tensor<Floating<D>>;
  function adaptiveAvgPool1d<D extends DType>(input: Tensor<D>, outputSize: Size): Tensor<Floating<D>>;
  function adaptiveAvgPool2d<D extends DType>(input: Tensor<D>, outputSize: Size): Tensor<Floating<D>>;
  /** (before, after) pairs from the last dim; negative constant pads crop. */
  function pad<D extends DType>(input: Tensor<D>, pad: readonly number[], mode?: 'constant' | 'reflect' | 'replicate' | 'circular', value?: number): Tensor<D>;
  function interpolate<D extends DType>(input: Tensor<D>, options: InterpolateOptions): Tensor<D>;
  /** Floating-point: float16 for float16 queries, else float32 (bool refused). */
  function scaledDotProductAttention<D extends DType>(query: Tensor<D>, key: Tensor, value: Tensor, options?: AttentionOptions): Tensor<Floating<D>>;
  /** int32 (PyTorch's is int64); an index out of range gives a row of zeros. */
  function oneHot(input: Tensor, numClasses: number): Tensor<'int32'>;
}

/** The bytes of a `.safetensors` file holding `dict` (PyTorch's `safetensors.torch.save_file` bytes for it). */
export declare function saveSafetensors(dict: StateDict, options?: { metadata?: Record<string, string> }): Promise<Uint8Array>;
/** The tensors of a `.safetensors` file (bf16/f64 become float32, int64/uint64/int16/uint16 int32, range-checked; uint8 and int8 stay). */
export declare function loadSafetensors(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, options?: { device?: DeviceLike | undefined }): Record<string, Tensor>;
/** The `__metadata__` strings of a `.safetensors` file. */
export declare function safetensorsMetadata(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): Record<string, string>;

/** PyTorch's torch.nn.utils: gradient clipping. */
export declare namespace utils {
  /** Scales the gradients to a total norm of at most `maxNorm`; the norm before clipping, on the device. */
  function clipGradNorm_(parameters: Tensor | Iterable<Tensor>, maxNorm: number, options?: { normType?: number | 'inf' | undefined; errorIfNonfinite?: boolean | undefined }): Tensor<'float32'>;
  /** Clamps every gradient element into `[-clipValue, clipValue]`. */
  function clipGradValue_(parameters: Tensor | Iterable<Tensor>, clipValue: number): void;
}

/** PyTorch's torch.nn.init: each fills `tensor` in place and returns it. */
export declare namespace init {
  function calculateGain(nonlinearity: 'linear' | 'conv1d' | 'conv2d' | 'conv3d' | 'sigmoid' | 'tanh' | 'relu' | 'leaky_relu' | 'selu' | 'conv_transpose1d' | 'conv_transpose2d' | 'conv_transpose3d', param?: number): number;
  function uniform_<T extends Tensor>(tensor: T, options?: { a?: number | undefined; b?: number | undefined; seed?: number | undefined }): T;
  function normal_<T extends Tensor>(tensor: T, options?: { mean?: number | undefined; std?: number | undefined; seed?: number | undefined }): T;
  function truncNormal_<T extends Tensor>(tensor: T, options?: { mean?: number | undefined; std?: number | undefined; a?: number | undefined; b?: number | undefined; seed?: number | undefined }): T;
  function constant_<T extends Tensor>(tensor: T, value: number): T;
  function zeros_<T extends Tensor>(tensor: T): T;
  function ones_<T extends Tensor>(tensor: T): T;
  function xavierUniform_<T extends Tensor>(tensor: T, options?: { gain?: number | undefined; seed?: number | undefined }): T;
  function xavierNormal_<T extends Tensor>(tensor: T, options?: { gain?: number | undefined; seed?: number | undefined }): T;
  function kaimingUniform_<T extends Tensor>(tensor: T, options?: { a?: number | undefined; mode?: 'fan_in' | 'fan_out' | undefined; nonlinearity?: string | undefined; seed?: number | undefined }): T;
  function kaimingNormal_<T extends Tensor>(tensor: T, options?: { a?: number | undefined; mode?: 'fan_in' | 'fan_out' | undefined; nonlinearity?: string | undefined; seed?: number | undefined }): T;
}

/** PyTorch's nn.MultiheadAttention (`in_proj_weight`, `in_proj_bias`, `out_proj`); `[L, N, E]` unless batchFirst. */
export declare class MultiheadAttention extends Module {
  constructor(embedDim: number, numHeads: number, options?: { dropout?: number | undefined; bias?: boolean | undefined; batchFirst?: boolean | undefined; seed?: number | undefined; device?: DeviceLike | undefined });
  /** `[output, weights]` (weights averaged over heads unless asked; null with needWeights false). Bool masks are true where attention is not allowed. */
  forward(query: Tensor, key: Tensor, value: Tensor, options?: { keyPaddingMask?: Tensor | null | undefined; needWeights?: boolean | undefined; attnMask?: Tensor | null | undefined; averageAttnWeights?: boolean | undefined; isCausal?: boolean | undefined }): [Tensor, Tensor | null];
}

/** Options of the Transformer layers (PyTorch's, in camelCase). */
export interface TransformerLayerOptions {
  dimFeedforward?: number | undefined;
  dropout?: number | undefined;
  activation?: 'relu' | 'gelu' | ((x: Tensor) => Tensor) | undefined;
  layerNormEps?: number | undefined;
  batchFirst?: boolean | undefined;
  normFirst?: boolean | undefined;
  bias?: boolean | undefined;
  seed?: number | undefined;
  device?: DeviceLike | undefined;
}

/** PyTorch's nn.TransformerEncoderLayer (`self_attn`, `linear1`, `linear2`, `norm1`, `norm2`). */
export declare class TransformerEncoderLayer extends Module {
  constructor(dModel: number, nhead: number, options?: TransformerLayerOptions);
  forward(src: Tensor, options?: { srcMask?: Tensor | null | undefined; srcKeyPaddingMask?: Tensor | null | undefined; isCausal?: boolean | undefined }): Tensor;
}

/** PyTorch's nn.TransformerDecoderLayer (`self_attn`, `multihead_attn`, `linear1`, `linear2`, `norm1..3`). */
export declare class TransformerDecoderLayer extends Module {
  constructor(dModel: number, nhead: number, options?: TransformerLayerOptions);
  forward(tgt: Tensor, memory: Tensor, options?: { tgtMask?: Tensor | null | undefined; memoryMask?: Tensor | null | undefined; tgtKeyPaddingMask?: Tensor | null | undefined; memoryKeyPaddingMask?: Tensor | null | undefined; tgtIsCausal?: boolean | undefined }): Tensor;
}
