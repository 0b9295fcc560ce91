// Grad mode from JavaScript: wt.noGrad(fn), wt.enableGrad(fn), wt.isGradEnabled(). The rest of
// autograd is on Tensor (requiresGrad_, grad, backward, detach); the graph lives in the core.
import * as check from './check.js';
import { core } from './internal.js';

function withGradMode(fn, on, f) {
  const g = check.syncFunction(fn, f);
  const previous = core().setGradEnabled(on);
  try {
    return check.notPromise(fn, g());
  } finally {
    core().setGradEnabled(previous);
  }
}

/**
 * Runs `fn` without recording the autograd graph (PyTorch's `with torch.no_grad():`): results
 * do not require grad. For evaluation and for updates that must not be differentiated. `fn`
 * must be synchronous.
 */
export function noGrad(fn) { check.arity('noGrad', arguments.length, 1); return withGradMode('noGrad', false, fn); }
/** Runs `fn` with recording on, inside a `noGrad` block. */
export function enableGrad(fn) { check.arity('enableGrad', arguments.length, 1); return withGradMode('enableGrad', true, fn); }
/** Whether ops record the autograd graph. */
export function isGradEnabled() { check.arity('isGradEnabled', arguments.length, 0); return core().isGradEnabled(); }
