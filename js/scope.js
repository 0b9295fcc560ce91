// Scopes: wt.tidy (dispose what a function created) and wt.withDevice (default placement).
import * as check from './check.js';
import { core, scopes } from './internal.js';
import { Tensor } from './tensor.js';

/**
 * Runs `fn` (optionally named first, as in TensorFlow.js), then disposes every tensor it created
 * except those in its result. If `fn` throws, every tensor it created is disposed and the error
 * is rethrown. `fn` must be synchronous: an async function, or a returned Promise, is a TypeError.
 */
export function tidy(nameOrFn, maybeFn) {
  check.arity('tidy', arguments.length, 2);
  const fn = check.syncFunction('tidy', typeof nameOrFn === 'string' ? maybeFn : nameOrFn);
  const scope = new Set();
  scopes.push(scope);
  let result;
  try {
    result = check.notPromise('tidy', fn());
  } catch (e) {
    scopes.pop();
    for (const t of scope) t.dispose();
    throw e;
  }
  scopes.pop();
  const keep = new Set();
  const seen = new Set();
  const visit = (v) => {
    if (v instanceof Tensor) keep.add(v);
    else if (v && typeof v === 'object' && !seen.has(v) && !ArrayBuffer.isView(v)) {
      seen.add(v);
      (v instanceof Map ? [...v.values()] : Object.values(v)).forEach(visit);
    }
  };
  visit(result);
  for (const t of scope) {
    if (!keep.has(t)) t.dispose();
    else if (scopes.length) scopes[scopes.length - 1].add(t);
  }
  return result;
}

/**
 * Runs `fn` with `device` as the placement of tensors created without one (TensorFlow's
 * `with tf.device(...)`); scopes nest. Ops still need their inputs on one device. `fn` must be
 * synchronous.
 */
export function withDevice(device, fn) {
  check.arity('withDevice', arguments.length, 2);
  const d = check.device('withDevice', device);
  const f = check.syncFunction('withDevice', fn);
  const depth = core().enterDeviceScope(d);
  try {
    return check.notPromise('withDevice', f());
  } finally {
    core().exitDeviceScope(depth);
  }
}
