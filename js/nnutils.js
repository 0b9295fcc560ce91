// wt.nn.utils: PyTorch's gradient clipping (torch.nn.utils.clip_grad_norm_ and
// clip_grad_value_), run by the Rust core over the parameters' own gradients.
import * as check from './check.js';
import { core } from './internal.js';
import { ownRaws } from './nnargs.js';
import { Tensor } from './tensor.js';

/** The parameters given as a Tensor or an iterable of Tensors (as PyTorch accepts), as handles. */
function handles(fn, parameters) {
  const list = parameters instanceof Tensor ? [parameters] : parameters && typeof parameters[Symbol.iterator] === 'function' ? [...parameters] : null;
  if (list === null) check.fail(TypeError, fn, 'parameters', parameters, 'a Tensor or an iterable of Tensors (model.parameters())');
  return ownRaws(fn, list.map((p, i) => [`parameters[${i}]`, p ?? 0]));
}

/**
 * Scales the gradients of `parameters` so their total norm (of order `normType`, default 2) is
 * at most `maxNorm`, and returns that total norm before clipping as a 0-d float32 Tensor on the
 * first gradient's device, without waiting for the device. `errorIfNonfinite` throws (and
 * changes nothing) when the norm is NaN or infinite; it reads the norm back, so in a browser it
 * needs the gradients on the cpu.
 */
export function clipGradNorm_(parameters, maxNorm, opts) {
  check.arity('clipGradNorm_', arguments.length, 3);
  const fn = 'clipGradNorm_';
  const o = check.options(fn, opts, ['normType', 'errorIfNonfinite']);
  const p = o.normType === undefined ? 2 : o.normType === 'inf' ? Infinity : check.number(fn, 'normType', o.normType);
  const max = check.number(fn, 'maxNorm', maxNorm);
  return new Tensor(core().nnClipGradNorm(handles(fn, parameters), max, p, check.flag(fn, 'errorIfNonfinite', o.errorIfNonfinite)));
}

/** Clamps every gradient element of `parameters` into `[-clipValue, clipValue]`. */
export function clipGradValue_(parameters, clipValue) {
  check.arity('clipGradValue_', arguments.length, 2);
  const fn = 'clipGradValue_';
  core().nnClipGradValue(handles(fn, parameters), check.number(fn, 'clipValue', clipValue));
}
