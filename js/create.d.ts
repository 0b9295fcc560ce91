// Types of webtensor's creation functions (js/create.js): tensor, full, zeros, ones, arange,
// rand, randn, eye, linspace, logspace, randint, randperm, multinomial, manualSeed, the *Like
// forms, cat and stack. Re-exported by index.d.ts.
import type { CreateOptions, DType, DeviceLike, NestedArray, RandomOptions, Shape, Tensor, TensorOptions } from './index.js';

/**
 * A tensor from a number or boolean (0-d), nested arrays, or a typed array. Without `dtype`:
 * bool for booleans, int32/uint32 for Int32Array/Uint32Array (and BigInt64Array/BigUint64Array
 * or bigints, range-checked), uint8 for Uint8Array/Uint8ClampedArray (image bytes), int8 for
 * Int8Array, float32 otherwise.
 */
export function tensor(values: boolean | NestedArray<boolean>[], options?: TensorOptions<'bool'>): Tensor<'bool'>;
export function tensor(values: Int32Array, options?: TensorOptions<'int32'>): Tensor<'int32'>;
export function tensor(values: Uint32Array, options?: TensorOptions<'uint32'>): Tensor<'uint32'>;
export function tensor(values: Uint8Array | Uint8ClampedArray, options?: TensorOptions<'uint8'>): Tensor<'uint8'>;
export function tensor(values: Int8Array, options?: TensorOptions<'int8'>): Tensor<'int8'>;
/** 64-bit integers (PyTorch's and ONNX's int64 indices): int32, each value range-checked (the error names the first outside). */
export function tensor(values: BigInt64Array | bigint | NestedArray<bigint>[], options?: TensorOptions<'int32'>): Tensor<'int32'>;
export function tensor(values: BigUint64Array, options?: TensorOptions<'uint32'>): Tensor<'uint32'>;
export function tensor<D extends DType = 'float32'>(
  values: NestedArray<number | boolean> | ArrayLike<number> | BigInt64Array | BigUint64Array | NestedArray<bigint>,
  options?: TensorOptions<D>,
): Tensor<D>;
export function full<D extends DType = 'float32'>(shape: Shape, value: number | boolean, options?: CreateOptions<D>): Tensor<D>;
export function zeros<D extends DType = 'float32'>(shape: Shape, options?: CreateOptions<D>): Tensor<D>;
/** PyTorch's varargs sizes: `zeros(2, 3)`, `zeros(2, 3, { dtype: 'int32' })`. */
export function zeros<D extends DType = 'float32'>(...sizesThenOptions: [number, number, ...number[]] | [number, number, ...number[], CreateOptions<D> | undefined]): Tensor<D>;
export function ones<D extends DType = 'float32'>(shape: Shape, options?: CreateOptions<D>): Tensor<D>;
export function ones<D extends DType = 'float32'>(...sizesThenOptions: [number, number, ...number[]] | [number, number, ...number[], CreateOptions<D> | undefined]): Tensor<D>;
/** `0, 1, ...` below `end`. */
export function arange<D extends DType = 'float32'>(end: number, options?: CreateOptions<D>): Tensor<D>;
/** `start, start + step, ...` below `end`. */
export function arange<D extends DType = 'float32'>(start: number, end: number, step?: number, options?: CreateOptions<D>): Tensor<D>;
export function arange<D extends DType = 'float32'>(start: number, end: number, options?: CreateOptions<D>): Tensor<D>;
export function rand<D extends 'float32' | 'float16' = 'float32'>(shape: Shape, options?: RandomOptions<D>): Tensor<D>;
export function rand<D extends 'float32' | 'float16' = 'float32'>(...sizesThenOptions: [number, number, ...number[]] | [number, number, ...number[], RandomOptions<D> | undefined]): Tensor<D>;
export function randn<D extends 'float32' | 'float16' = 'float32'>(shape: Shape, options?: RandomOptions<D>): Tensor<D>;
export function randn<D extends 'float32' | 'float16' = 'float32'>(...sizesThenOptions: [number, number, ...number[]] | [number, number, ...number[], RandomOptions<D> | undefined]): Tensor<D>;
/** Zeros with `t`'s shape, dtype and device (options override dtype and device). */
/** The `n` x `m` identity (`m` defaults to `n`; PyTorch's `eye`). */
export function eye<D extends DType = 'float32'>(n: number, m?: number | null, options?: CreateOptions<D>): Tensor<D>;
export function eye<D extends DType = 'float32'>(n: number, options?: CreateOptions<D>): Tensor<D>;
/** `steps` evenly spaced values from `start` to `end`, both included (PyTorch's arithmetic). */
export function linspace<D extends DType = 'float32'>(start: number, end: number, steps: number, options?: CreateOptions<D>): Tensor<D>;
/** `base` (default 10) to the powers `linspace(start, end, steps)`. */
export function logspace<D extends DType = 'float32'>(start: number, end: number, steps: number, options?: CreateOptions<D> & { base?: number | undefined }): Tensor<D>;
/** Options of `randint`: an integer dtype (int32 by default), a seed, a device. */
export interface RandintOptions<D extends 'int32' | 'uint32' | 'uint8' | 'int8' = 'int32'> {
  device?: DeviceLike | undefined;
  dtype?: D | undefined;
  seed?: number | undefined;
}
/** Integers uniform in `[0, high)` of `size` (PyTorch's `randint(high, size)`). */
export function randint<D extends 'int32' | 'uint32' | 'uint8' | 'int8' = 'int32'>(high: number, size: Shape, options?: RandintOptions<D>): Tensor<D>;
/** Integers uniform in `[low, high)` of `size`. */
export function randint<D extends 'int32' | 'uint32' | 'uint8' | 'int8' = 'int32'>(low: number, high: number, size: Shape, options?: RandintOptions<D>): Tensor<D>;
/** A uniform random permutation of `0..n` (int32). */
export function randperm(n: number, options?: { seed?: number | undefined; device?: DeviceLike | undefined }): Tensor<'int32'>;
/** Category indices drawn from the rows of `probs` (PyTorch's `torch.multinomial`). */
export function multinomial(probs: Tensor, numSamples: number, options?: { replacement?: boolean | undefined; seed?: number | undefined }): Tensor<'int32'>;
/** Seeds the global generator that random constructors and loaders without a seed draw from. */
export function manualSeed(seed: number): void;
export function zerosLike<D extends DType, T extends DType = D>(t: Tensor<D>, options?: CreateOptions<T>): Tensor<T>;
export function onesLike<D extends DType, T extends DType = D>(t: Tensor<D>, options?: CreateOptions<T>): Tensor<T>;
export function fullLike<D extends DType, T extends DType = D>(t: Tensor<D>, value: number | boolean, options?: CreateOptions<T>): Tensor<T>;
export function randLike<D extends 'float32' | 'float16', T extends 'float32' | 'float16' = D>(t: Tensor<D>, options?: RandomOptions<T>): Tensor<T>;
export function randnLike<D extends 'float32' | 'float16', T extends 'float32' | 'float16' = D>(t: Tensor<D>, options?: RandomOptions<T>): Tensor<T>;
export function cat<D extends DType>(tensors: readonly Tensor<D>[], dim?: number): Tensor<D>;
export function stack<D extends DType>(tensors: readonly Tensor<D>[], dim?: number): Tensor<D>;
