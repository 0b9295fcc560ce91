// The user-facing API over the wasm exports: PyTorch concepts in JavaScript spelling. This file
// is the barrel the entry points (node.js, browser.js) re-export; each part lives in its own
// module: tensor.js (the Tensor class), create.js, scope.js (tidy, withDevice), devices.js,
// autograd.js, nn.js (wt.nn: module.js, layers.js, functional.js), optim.js, data.js
// (wt.data: datasets and the DataLoader), parallel.js (wt.parallel: data parallel training) and
// models.js (wt.models: nanoGPT's GPT). Internal state (the bound wasm module, tidy scopes) is in internal.js.
export { Tensor } from './tensor.js';
import './inplace.js'; // adds the in-place methods (add_, zero_, ...) to Tensor
export * from './create.js';
export { keep, setStepScope, tidy, withDevice } from './scope.js';
export * from './devices.js';
export * from './autograd.js';
export * as nn from './nn.js';
export * as optim from './optim.js';
export * as data from './data.js';
export * as parallel from './parallel.js';
export * as models from './models.js';
