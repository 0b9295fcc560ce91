// Types of wt.parallel (js/parallel.js).
import type { DeviceLike, Tensor } from './index.js';
import type { Module } from './nn.js';
import type { Optimizer } from './optim.js';

/** How `n` rows split over `parts` replicas: the first `n % parts` shards one row larger. */
export declare function splitSizes(n: number, parts: number): number[];

/**
 * One replica of a module per device (PyTorch's DDP, TensorFlow's MirroredStrategy, in one
 * page or process). Make it with `await DataParallel.create(devices, build)`.
 */
export declare class DataParallel<M extends Module = Module> {
  private constructor();
  /** Builds one replica per device and copies the first replica's state into the others. */
  /** `devices` in any spelling (`'webgpu:0'`, `'/GPU:0'`, an index, a DeviceInfo); `build` gets each one's canonical name. */
  static create<M extends Module>(devices: DeviceLike[], build: (device: string) => M | Promise<M>): Promise<DataParallel<M>>;
  /** The devices, one per replica. */
  readonly devices: string[];
  /** The replicas, one per device. */
  readonly replicas: M[];
  /** The first replica: evaluate and save this one. */
  readonly module: M;
  /** One optimizer per replica, stepped together. */
  optimizer<O extends Optimizer>(make: (parameters: Tensor[]) => O): Replicated<O>;
  /**
   * Splits the global batch over the replicas, runs `lossFn` (a scalar mean per shard) and
   * backward on each, all-reduces the gradients; resolves to the global mean loss on the first
   * device (dispose it).
   */
  forwardBackward(input: Tensor, target: Tensor, lossFn: (output: Tensor, target: Tensor) => Tensor): Promise<Tensor>;
  /** Sums each parameter's gradient over the replicas and gives every replica the sum. */
  allReduceGradients(): Promise<void>;
  /** Copies the first replica's buffers into the others. */
  broadcastBuffers(): Promise<void>;
  /** Copies the first replica's parameters and buffers into the others (after a failed step). */
  syncReplicas(): Promise<void>;
  /** Frees every replica. */
  dispose(): void;
}

/** The optimizers of a DataParallel's replicas, driven as one. */
export declare class Replicated<O extends Optimizer = Optimizer> {
  private constructor();
  readonly optimizers: O[];
  readonly params: Tensor[];
  lr: number;
  step(): void;
  zeroGrad(): void;
  dispose(): void;
  [Symbol.dispose](): void;
}
