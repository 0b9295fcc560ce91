// Types of wt.optim (js/optim.js).
import type { Tensor } from './index.js';

/** What every optimizer does. */
export declare class Optimizer {
  protected constructor();
  /** The parameters being optimised. */
  readonly params: Tensor[];
  /** The learning rate (set it for schedules). */
  lr: number;
  /** Sets every parameter's gradient to null. */
  zeroGrad(): void;
  /** One update of every parameter that has a gradient. */
  step(): void;
  /** Frees the optimizer's state. */
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface SGDOptions { lr?: number | undefined; momentum?: number | undefined; dampening?: number | undefined; weightDecay?: number | undefined; nesterov?: boolean | undefined; fused?: boolean | undefined }
/** SGD with momentum, dampening, Nesterov and L2 weight decay. */
export declare class SGD extends Optimizer {
  constructor(params: Iterable<Tensor>, options?: SGDOptions);
}

export interface AdamOptions { lr?: number | undefined; betas?: readonly [number, number]; eps?: number | undefined; weightDecay?: number | undefined; fused?: boolean | undefined }
/** Adam with PyTorch's defaults. */
export declare class Adam extends Optimizer {
  constructor(params: Iterable<Tensor>, options?: AdamOptions);
}
/** AdamW: decoupled weight decay (default 0.01). */
export declare class AdamW extends Optimizer {
  constructor(params: Iterable<Tensor>, options?: AdamOptions);
}
