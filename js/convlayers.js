// The convolution and pooling layers of wt.nn: Conv1d, Conv2d (PyTorch's names, parameter
// shapes and initialisation, made by the Rust constructors through nnConvInit, so a seed gives
// the same weights as in Rust), MaxPool2d, AvgPool2d and AdaptiveAvgPool2d. Forward passes call
// the functional forms (js/modelops.js).
import * as check from './check.js';
import * as F from './modelops.js';
import { core } from './internal.js';
import { Module } from './module.js';
import { ints } from './nnargs.js';
import { Tensor } from './tensor.js';

class Conv extends Module {
  #kind;
  constructor(kind, inChannels, outChannels, kernelSize, opts) {
    super();
    const o = check.options(kind, opts, ['stride', 'padding', 'dilation', 'groups', 'bias', 'seed', 'device']);
    this.#kind = kind;
    this.inChannels = check.integer(kind, 'inChannels', inChannels, 0, 2 ** 31 - 1);
    this.outChannels = check.integer(kind, 'outChannels', outChannels, 0, 2 ** 31 - 1);
    this.kernelSize = ints(kind, 'kernelSize', kernelSize);
    this.stride = o.stride ?? 1;
    this.padding = o.padding ?? 0;
    this.dilation = o.dilation ?? 1;
    this.groups = o.groups === undefined ? 1 : check.integer(kind, 'groups', o.groups, 1, 2 ** 31 - 1);
    const bias = check.flag(kind, 'bias', o.bias, true);
    const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(kind, 'seed', o.seed, 0);
    const entries = core().nnConvInit(kind, this.inChannels, this.outChannels, Float64Array.from(this.kernelSize), {
      groups: this.groups, bias, seed, device: check.optDevice(kind, o.device),
    });
    for (const [name, raw] of entries) this.registerParameter(name, new Tensor(raw));
    if (!bias) this.registerParameter('bias', null);
  }
  forward(x) {
    const f = this.#kind === 'Conv1d' ? F.conv1d : F.conv2d;
    return f(x, this.getParameter('weight'), this.getParameter('bias'), { stride: this.stride, padding: this.padding, dilation: this.dilation, groups: this.groups });
  }
  extraRepr() {
    return `${this.inChannels}, ${this.outChannels}, kernelSize=[${this.kernelSize}], stride=${this.stride}, padding=${this.padding}`;
  }
}

/** 1-D convolution layer of `[N, C, L]` input (PyTorch's `nn.Conv1d`); options `stride`, `padding`, `dilation`, `groups`, `bias`, `seed`, `device`. */
export class Conv1d extends Conv {
  constructor(inChannels, outChannels, kernelSize, opts) { check.arity('Conv1d', arguments.length, 4); super('Conv1d', inChannels, outChannels, kernelSize, opts); }
}
/** 2-D convolution layer of `[N, C, H, W]` input (PyTorch's `nn.Conv2d`). */
export class Conv2d extends Conv {
  constructor(inChannels, outChannels, kernelSize, opts) { check.arity('Conv2d', arguments.length, 4); super('Conv2d', inChannels, outChannels, kernelSize, opts); }
}

/** 2-D max pooling (PyTorch's `nn.MaxPool2d`); options as `F.maxPool2d`'s. */
export class MaxPool2d extends Module {
  constructor(kernelSize, opts) {
    check.arity('MaxPool2d', arguments.length, 2);
    super();
    this.kernelSize = ints('MaxPool2d', 'kernelSize', kernelSize);
    this.options = check.options('MaxPool2d', opts, ['stride', 'padding', 'dilation', 'ceilMode']);
  }
  forward(x) { return F.maxPool2d(x, this.kernelSize, this.options); }
  extraRepr() { return `kernelSize=[${this.kernelSize}]`; }
}

/** 2-D average pooling (PyTorch's `nn.AvgPool2d`); options as `F.avgPool2d`'s. */
export class AvgPool2d extends Module {
  constructor(kernelSize, opts) {
    check.arity('AvgPool2d', arguments.length, 2);
    super();
    this.kernelSize = ints('AvgPool2d', 'kernelSize', kernelSize);
    this.options = check.options('AvgPool2d', opts, ['stride', 'padding', 'ceilMode', 'countIncludePad', 'divisorOverride']);
  }
  forward(x) { return F.avgPool2d(x, this.kernelSize, this.options); }
  extraRepr() { return `kernelSize=[${this.kernelSize}]`; }
}

/** 2-D adaptive average pooling to `outputSize` (PyTorch's `nn.AdaptiveAvgPool2d`). */
export class AdaptiveAvgPool2d extends Module {
  constructor(outputSize) {
    check.arity('AdaptiveAvgPool2d', arguments.length, 1);
    super();
    this.outputSize = ints('AdaptiveAvgPool2d', 'outputSize', outputSize);
  }
  forward(x) { return F.adaptiveAvgPool2d(x, this.outputSize); }
  extraRepr() { return `outputSize=[${this.outputSize}]`; }
}
