// Types of wt.data (js/data.js).
import type { Tensor } from './index.js';

/** Tensors sharing their first dimension; sample i is row i of each (PyTorch's TensorDataset). */
export declare class TensorDataset {
  constructor(...tensors: Tensor[]);
  constructor(tensors: Tensor[]);
  /** The number of samples. */
  readonly length: number;
  /** The tensors, in order. */
  readonly tensors: Tensor[];
  /** Sample `i`: one view per tensor. */
  getItem(i: number): Tensor[];
  /** The samples at `indices`, batched along a new first dimension. */
  getBatch(indices: number[]): Tensor[];
}

/** One field of a sample: a Tensor, or a value the loader collates (PyTorch's default_collate). */
export type SampleField = Tensor | number | boolean | readonly number[] | Float32Array | Int32Array | Uint32Array | Uint8Array | Int8Array;

/**
 * A dataset the loader can read: `length`, and `getBatch(indices)` or `getItem(i)` (whose
 * samples' fields are collated: tensors stacked, numbers and arrays made tensors; tensors a
 * synchronous getItem makes for the sample are disposed after stacking). Either may return a
 * Promise: iterate with `for await`.
 */
export interface Dataset {
  readonly length: number;
  getItem?(i: number): SampleField | SampleField[] | Promise<SampleField | SampleField[]>;
  getBatch?(indices: number[]): Tensor | Tensor[] | Promise<Tensor | Tensor[]>;
}

export interface DataLoaderOptions {
  /** Samples per batch (default 1). */
  batchSize?: number | undefined;
  /** A new shuffled order each epoch (default false). */
  shuffle?: boolean | undefined;
  /** The shuffle's seed: the same seed gives the same batches, in JS and in Rust. */
  seed?: number | undefined;
  /** Drop the last batch when it is short (default false). */
  dropLast?: boolean | undefined;
}

/** Batches of a dataset, one epoch per iteration (PyTorch's DataLoader). */
/**
 * Batches of a dataset. Given an array of tensors (`[X, Y]`), each batch is a tuple of the same
 * tensor types (`for (const [xb, yb] of loader)`).
 */
export declare class DataLoader<const B extends readonly Tensor[] = Tensor[]> implements Iterable<B> {
  constructor(dataset: B | Tensor | TensorDataset | Dataset, options?: DataLoaderOptions);
  readonly dataset: Dataset;
  readonly batchSize: number;
  /** Batches per epoch. */
  readonly length: number;
  /** Epochs begun so far. */
  readonly epoch: number;
  /** The sample order of epoch `epoch` (default: the next one). */
  order(epoch?: number): Uint32Array;
  [Symbol.iterator](): Iterator<B>;
  /** One epoch from a dataset whose items or batches come asynchronously: `for await (const b of loader)`. */
  [Symbol.asyncIterator](): AsyncIterator<B>;
}
