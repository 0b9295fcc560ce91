// Types of wt.optim (js/optim.js) and wt.optim.lrScheduler (js/lrscheduler.js).
import type { Tensor } from './index.js';

/** One parameter group as the optimizer holds it: its parameters, its options, a settable `lr`. */
export interface ParamGroup {
  readonly params: Tensor[];
  /** The group's learning rate (what schedulers change). */
  lr: number;
  readonly [option: string]: unknown;
}

/** An optimizer's state: each parameter's buffers and step, each group's learning rates. */
export interface OptimizerStateDict {
  state: Record<number, { step?: number | undefined; [buffer: string]: Tensor | number | undefined }>;
  paramGroups: { lr: number; initialLr: number | null; params: number[] }[];
}

/** What every optimizer does. */
export declare class Optimizer {
  protected constructor();
  /** The parameters being optimised, in group order. */
  readonly params: Tensor[];
  /** PyTorch's `param_groups`: `opt.paramGroups[0].lr` is settable; the other options are fixed when the optimizer is made (setting one throws a TypeError). */
  readonly paramGroups: ParamGroup[];
  /** The first group's learning rate; setting it sets every group's. */
  lr: number;
  /** Sets every parameter's gradient to null. */
  zeroGrad(): void;
  /** The state to resume from (PyTorch's `state_dict()`), by parameter index. */
  stateDict(): OptimizerStateDict;
  /** Resumes from a `stateDict()` of the same optimizer over the same parameters. */
  loadStateDict(dict: OptimizerStateDict): Promise<void>;
  /** One update of every parameter that has a gradient. */
  step(): void;
  /** Frees the optimizer's state. */
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface SGDGroupOptions { lr?: number | undefined; momentum?: number | undefined; dampening?: number | undefined; weightDecay?: number | undefined; nesterov?: boolean | undefined }
export interface SGDOptions extends SGDGroupOptions { fused?: boolean | undefined }
/** SGD with momentum, dampening, Nesterov and L2 weight decay, over parameters or groups. */
export declare class SGD extends Optimizer {
  constructor(params: Iterable<Tensor> | Iterable<SGDGroupOptions & { params: Iterable<Tensor> }>, options?: SGDOptions);
}

export interface AdamGroupOptions { lr?: number | undefined; betas?: readonly [number, number] | undefined; eps?: number | undefined; weightDecay?: number | undefined }
export interface AdamOptions extends AdamGroupOptions { fused?: boolean | undefined }
/** Adam with PyTorch's defaults, over parameters or groups. */
export declare class Adam extends Optimizer {
  constructor(params: Iterable<Tensor> | Iterable<AdamGroupOptions & { params: Iterable<Tensor> }>, options?: AdamOptions);
}
/** AdamW: decoupled weight decay (default 0.01), over parameters or groups. */
export declare class AdamW extends Optimizer {
  constructor(params: Iterable<Tensor> | Iterable<AdamGroupOptions & { params: Iterable<Tensor> }>, options?: AdamOptions);
}

export interface RMSpropGroupOptions { lr?: number | undefined; alpha?: number | undefined; eps?: number | undefined; weightDecay?: number | undefined; momentum?: number | undefined; centered?: boolean | undefined }
/** RMSprop with PyTorch's defaults, over parameters or groups. */
export declare class RMSprop extends Optimizer {
  constructor(params: Iterable<Tensor> | Iterable<RMSpropGroupOptions & { params: Iterable<Tensor> }>, options?: RMSpropGroupOptions);
}

/** PyTorch's torch.optim.lr_scheduler. */
export declare namespace lrScheduler {
  /** What every schedule does. */
  class LRScheduler {
    protected constructor();
    readonly optimizer: Optimizer;
    /** The epoch it is at. */
    readonly lastEpoch: number;
    /** One step of the schedule; call it after `optimizer.step()`. */
    step(): void;
    /** The learning rates it last set, one per group. */
    getLastLr(): number[];
  }
  class LambdaLR extends LRScheduler {
    constructor(optimizer: Optimizer, lrLambda: ((epoch: number) => number) | { lrLambda: (epoch: number) => number });
  }
  class StepLR extends LRScheduler {
    constructor(optimizer: Optimizer, options: { stepSize: number; gamma?: number | undefined });
  }
  class LinearLR extends LRScheduler {
    constructor(optimizer: Optimizer, options?: { startFactor?: number | undefined; endFactor?: number | undefined; totalIters?: number | undefined });
  }
  class CosineAnnealingLR extends LRScheduler {
    constructor(optimizer: Optimizer, options: { tMax: number; etaMin?: number | undefined });
  }
  class SequentialLR extends LRScheduler {
    constructor(optimizer: Optimizer, options: { schedulers: LRScheduler[]; milestones: number[] });
  }
}
