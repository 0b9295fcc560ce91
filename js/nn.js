// wt.nn: modules (js/module.js), the built-in layers, containers and loss modules
// (js/layers.js), the convolution and pooling layers (js/convlayers.js), the attention modules
// (js/transformer.js), wt.nn.functional
// (js/functional.js), wt.nn.utils (js/nnutils.js: gradient clipping), wt.nn.init (js/nninit.js)
// and .safetensors checkpoints (js/checkpoint.js).
import { guardForward } from './arity.js';
import { Module } from './module.js';
import * as layers from './layers.js';
import * as convlayers from './convlayers.js';

export { Module, Parameter } from './module.js';
export * from './layers.js';
export * from './convlayers.js';
export { MultiheadAttention, TransformerDecoderLayer, TransformerEncoderLayer } from './transformer.js';
export * as functional from './functional.js';
export * as utils from './nnutils.js';
export * as init from './nninit.js';
export { loadSafetensors, safetensorsMetadata, saveSafetensors } from './checkpoint.js';

// The built-in layers' forward refuses extra positional arguments, as their constructors do.
guardForward([...Object.values(layers), ...Object.values(convlayers)], Module);
