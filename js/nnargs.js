// Helpers the functional forms and the layers of wt.nn share (not exported by the package):
// argument checks and the handling of nnBatchNorm's running statistics.
import * as check from './check.js';
import { assignRaw, rawOf, Tensor } from './tensor.js';

/**
 * @internal Raw handles the callee owns (wasm `Option<RawTensor>` and `Vec<RawTensor>` arguments
 * consume theirs), or undefined for absent ones, from `[argName, tensor]` pairs. Every tensor is
 * checked before any handle is made, so a bad argument leaks nothing.
 */
export function ownRaws(fn, pairs) {
  const raws = pairs.map(([arg, t]) => (t === undefined || t === null ? undefined : rawOf(fn, arg, t)));
  return raws.map((r) => r?.cloneHandle());
}

/**
 * @internal The paddingIdx option for a table of `num` rows: null/undefined for none, else an
 * integer in [-num, num); a negative one counts from the end, as PyTorch's does.
 */
export function paddingIndex(fn, v, num) {
  if (v === undefined || v === null) return null;
  const p = check.integer(fn, 'paddingIdx', v, -num, num - 1);
  return p < 0 ? p + num : p;
}

/** @internal The momentum option: a number in [0, 1], or null for a cumulative average where allowed. */
export function momentum(fn, v, allowNull) {
  if (v === undefined) return 0.1;
  if (v === null && allowNull) return null;
  const m = check.number(fn, 'momentum', v);
  if (!(m >= 0 && m <= 1)) check.fail(RangeError, fn, 'momentum', v, allowNull ? 'a number in [0, 1] or null' : 'a number in [0, 1]');
  return m;
}

/** @internal The output of nnBatchNorm: the result, with updated running statistics swapped into `running`. */
export function takeBatchNorm(out, running) {
  const y = new Tensor(out[0]);
  if (out.length > 1) running.forEach((t, i) => (t ? assignRaw(t, out[i + 1]) : out[i + 1]?.free()));
  for (let i = running.length + 1; i < out.length; i++) out[i].free();
  return y;
}

/** @internal A dropout probability in [0, 1] (default 0.5). */
export function probability(fn, v) {
  if (v === undefined) return 0.5;
  const p = check.number(fn, 'p', v);
  if (!(p >= 0 && p <= 1)) check.fail(RangeError, fn, 'p', v, 'a probability in [0, 1]');
  return p;
}


/** @internal A norm's `eps`: a number >= 0 (default 1e-5). */
export function eps(fn, v) {
  if (v === undefined) return 1e-5;
  const e = check.number(fn, 'eps', v);
  if (!(e >= 0)) check.fail(RangeError, fn, 'eps', v, 'a number >= 0');
  return e;
}

/** @internal PyTorch's "an int or a tuple": one non-negative integer or an array of them, as an array. */
export function ints(fn, arg, v, fallback) {
  if (v === undefined || v === null) {
    if (fallback === undefined) check.fail(TypeError, fn, arg, v, 'an integer or an array of integers');
    return fallback;
  }
  if (typeof v === 'number') return [check.integer(fn, arg, v, 0, 2 ** 31 - 1)];
  if (!Array.isArray(v) || v.length === 0 || v.length > 3) check.fail(TypeError, fn, arg, v, 'an integer or an array of 1 to 3 integers');
  return v.map((x, i) => check.integer(fn, `${arg}[${i}]`, x, 0, 2 ** 31 - 1));
}
