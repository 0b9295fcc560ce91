// The growth check behind optimizers' step(): PyTorch code ported as written (no wt.tidy, no
// dispose) keeps every intermediate of every step alive until the garbage collector happens to
// run, which it may never do, since it cannot see the memory the tensors hold. Every 10 steps
// this counts the live tensors; when the count has grown at each of the last five checks by at
// least one tensor per step, it warns once, with the fix.

const EVERY = 10;
const WINDOW = 5;
let counts = [];
let steps = 0;
let warned = false;

/** @internal Forgets what was seen (for tests). */
export function resetLeakWatch() {
  counts = [];
  steps = 0;
  warned = false;
}

/** @internal Called after each optimizer step with the live tensor count's source. */
export function watchStep(liveTensors) {
  if (warned || ++steps % EVERY !== 0) return;
  const live = Object.values(liveTensors()).reduce((a, b) => a + b, 0);
  counts.push(live);
  if (counts.length > WINDOW + 1) counts.shift();
  if (counts.length <= WINDOW || !counts.every((c, i) => i === 0 || c - counts[i - 1] >= EVERY)) return;
  warned = true;
  console.warn(`webtensor: ${live} tensors are alive and their number grew by ${live - counts[0]} over the last ${EVERY * WINDOW} optimizer steps. `
    + 'Tensors made in a step live until dispose(), the end of a wt.tidy() scope, or a garbage collection that may never come '
    + '(it cannot see the memory they hold). Wrap each step in wt.tidy(() => { ...; return loss; }) and dispose what it returns '
    + 'once read, or dispose() the intermediates yourself. This warning is shown once.');
}
