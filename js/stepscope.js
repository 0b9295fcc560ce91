// The step scope: bounded memory for training loops written as PyTorch users write them (no
// wt.tidy, no dispose). Without it every step's intermediates would live until a garbage
// collection that may never come (it cannot see the memory tensors hold). Once an optimizer has
// stepped, each tensor made outside wt.tidy is tracked with the training step it was made or
// last used in (a training step ends when an optimizer that already stepped in it steps again,
// so GAN-style loops with several optimizers count one step per iteration); at that boundary
// the tensors that went a whole training step unused are disposed. A loss read after
// `optimizer.step()` (`await loss.item()`), a batch used across an epoch, a running hidden
// state: all are used, so they stay. What is made before an optimizer's first step (data, the
// model, a new run's setup) is never tracked, nor what wt.tidy returns (its caller manages it).
// A tensor held across steps without being used is kept with wt.keep(t); wt.setStepScope(false)
// turns the scope off.
//
// The scope holds tensors weakly (WeakRefs, and a WeakMap from tensor to training step), so an
// unreachable handle is still collected (and freed by the finalizer) when training has stopped
// and no boundary comes.

import * as check from './check.js';

let enabled = true;
let active = false; // whether an optimizer has stepped since the scope was (re)enabled
let step = 0; // the current training step's number (only grows, so old marks never match)
let current = []; // WeakRefs to the tensors made or used in this training step
let previous = []; // those of the last one
let compactAt = 1024;
const stepOf = new WeakMap(); // tensor -> the training step it was last made or used in
const steppedNow = new Set(); // optimizers that stepped in this training step
const steppedEver = new WeakSet();
const released = new WeakSet();

function enter(t) {
  stepOf.set(t, step);
  current.push(new WeakRef(t));
  if (current.length >= compactAt) {
    // Long spans without a boundary (inference after training): drop what is gone.
    current = current.filter((r) => {
      const x = r.deref();
      return x !== undefined && !x.disposed && stepOf.get(x) === step;
    });
    compactAt = Math.max(1024, 2 * current.length);
  }
}

/** @internal A new tensor made outside wt.tidy. */
export function track(t) {
  if (active) enter(t);
}

/** @internal `t` was used: it stays another training step. */
export function touch(t) {
  if (active && stepOf.get(t) === step - 1) enter(t);
}

/** @internal `t` is no longer the scope's (disposed, owned by a module, or kept). */
export function forget(t) {
  stepOf.delete(t);
}

/** @internal Called by each optimizer's step() before it updates anything. */
export function stepBoundary(optimizer) {
  if (!enabled) return;
  if (!steppedEver.has(optimizer) || !active) {
    // A new optimizer (or the scope just turned on): everything made so far is setup (data, the
    // model), never released.
    steppedEver.add(optimizer);
    active = true;
    step += 2;
    current = [];
    previous = [];
    steppedNow.clear();
  } else if (steppedNow.has(optimizer)) {
    const stale = previous;
    const gone = step - 1;
    previous = current;
    current = [];
    compactAt = 1024;
    step += 1;
    steppedNow.clear();
    for (const r of stale) {
      const t = r.deref();
      if (t !== undefined && !t.disposed && stepOf.get(t) === gone) {
        released.add(t);
        t.dispose();
      }
    }
  }
  steppedNow.add(optimizer);
}

/** @internal Whether the scope disposed `t` (for the error that says why it is gone). */
export function releasedByStepScope(t) {
  return released.has(t);
}

/**
 * Turns the step scope on or off (it is on by default); returns the previous setting. Off, the
 * tensors a training loop makes live until dispose(), the end of a wt.tidy(), or a garbage
 * collection; turning it off hands every tracked tensor to the caller.
 */
export function setStepScope(on) {
  check.arity('setStepScope', arguments.length, 1);
  if (typeof on !== 'boolean') check.fail(TypeError, 'setStepScope', 'on', on, 'true or false');
  const was = enabled;
  enabled = on;
  if (!enabled) {
    active = false;
    current = [];
    previous = [];
    steppedNow.clear();
  }
  return was;
}
