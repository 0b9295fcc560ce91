// wt.nn: modules (js/module.js), the built-in layers and loss modules (js/layers.js), the
// convolution and pooling layers (js/convlayers.js) and
// wt.nn.functional (js/functional.js), and .safetensors checkpoints (js/checkpoint.js).
export { Module, Parameter } from './module.js';
export * from './layers.js';
export * from './convlayers.js';
export * as functional from './functional.js';
export { loadSafetensors, safetensorsMetadata, saveSafetensors } from './checkpoint.js';
