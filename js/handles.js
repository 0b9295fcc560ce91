// What a Tensor handle goes through besides ops: the checks every argument passes (`rawOf`:
// live, not disposed, not a parameter whose module is still moving or loading), new values
// swapped into parameters and buffers (`assignRaw`), leaving tidy scopes (`untrack`), and the
// dicts made to be handed on once (stateDict(), loadSafetensors()), which the checkpoint helpers
// and loadStateDict free after use.
import * as check from './check.js';
import { finalizer, scopes } from './internal.js';
import { forget, releasedByStepScope, touch } from './stepscope.js';
import { Tensor } from './tensor.js';

// Parameters and buffers whose new value an async module call (to, loadStateDict) is still
// making, with that call's name: using one before it resolves is an error, never the old value.
const pending = new WeakMap();

/** @internal Marks `t` as waiting for `call` (a description), or clears the mark (`null`). */
export function setPending(t, call) {
  if (call) pending.set(t, call);
  else pending.delete(t);
}

export function refusePending(fn, what, t) {
  const call = pending.get(t);
  if (call !== undefined) {
    throw new Error(`${fn}: ${what} belongs to a module whose ${call} has not finished; await it before using the module (until then the old value is all there is)`);
  }
}

// Tensors of dicts made to be handed on: 'state' (stateDict()) and 'loaded'
// (loadSafetensors*()). Saving frees either kind once written, and loadStateDict frees a loaded
// dict once loaded, so that `saveSafetensorsFile(model.stateDict(), path)` and
// `model.loadStateDict(await loadSafetensorsFile(path))` leave no copy of the model behind. A
// stateDict() handed to loadStateDict stays (one dict often syncs several models).
const handOff = new WeakMap();
const consumedBy = new WeakMap();

/** @internal Marks `t` as part of a dict of `kind` ('state' or 'loaded'); returns it. */
export function markHandOff(t, kind) {
  handOff.set(t, kind);
  return t;
}

/** @internal Frees `t` if it is part of a dict of one of `kinds` that `fn` has now used. */
export function consumeHandOff(fn, t, kinds) {
  if (t instanceof Tensor && kinds.includes(handOff.get(t)) && !t.disposed) {
    consumedBy.set(t, fn);
    t.dispose();
  }
}

/** Why a disposed tensor is gone, for the error that says it can no longer be used. */
export function gone(t) {
  const by = consumedBy.get(t);
  if (releasedByStepScope(t)) {
    return 'was released by the step scope: it was made during training (after an optimizer\'s first step(), outside wt.tidy) '
      + 'and then not used for a whole training step; call wt.keep(t) on a tensor held across steps without use (and dispose it '
      + 'yourself), or turn the scope off with wt.setStepScope(false)';
  }
  if (by === undefined) return 'was disposed';
  return `was freed by ${by} once it had used it (saving frees the tensors of a stateDict() or loadSafetensors() dict, loadStateDict those of a loadSafetensors() dict); make a new dict (call stateDict() again, or load the file again) to use it twice`;
}

/** `t` as a live raw tensor, or a clear error naming the function and argument. */
export function rawOf(fn, arg, t) {
  if (!(t instanceof Tensor)) check.fail(TypeError, fn, arg, t, 'a Tensor');
  if (t.disposed) throw new Error(`${fn}: ${arg} ${gone(t)}; it can no longer be used`);
  refusePending(fn, arg, t);
  touch(t);
  return t.raw;
}

/**
 * @internal Points `t` at `raw`, freeing its old handle: how a parameter or buffer takes its new
 * value after an optimizer step, `model.to` or `loadStateDict`, so every holder of the Tensor
 * object sees it (PyTorch's in-place update of `param.data`).
 */
export function assignRaw(t, raw) {
  if (t.disposed) {
    raw.free();
    throw new Error('a disposed parameter or buffer cannot take a new value; the module was disposed');
  }
  const old = t.raw;
  finalizer.unregister(t);
  t.raw = raw;
  finalizer.register(t, raw, t);
  old.free();
}

// Gradients read through `p.grad`, with the tensor they were read from: an in-place op on one
// writes it back (PyTorch's `p.grad.zero_()` changes `p`'s gradient).
const gradOwners = new WeakMap();

/** @internal Records that `g` is the gradient read from `owner`; returns `g`. */
export function gradOf(g, owner) {
  gradOwners.set(g, owner);
  return g;
}

/** @internal The tensor whose gradient `g` was read from, if it was one. */
export function gradOwner(g) {
  return gradOwners.get(g);
}

/** @internal Takes `t` out of every wt.tidy() scope: modules own their parameters and buffers. */
export function untrack(t) {
  for (const s of scopes) s.delete(t);
  forget(t);
}

/**
 * `[values, indices]` from a pair of raw tensors, also named `.values` and `.indices`: PyTorch's
 * named tuple (`const [v, i] = x.topk(3)`), and TensorFlow.js's `{ values, indices }`.
 */
export function pair(raws) {
  const values = new Tensor(raws[0]);
  const indices = new Tensor(raws[1]);
  return Object.assign([values, indices], { values, indices });
}
