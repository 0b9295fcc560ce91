// Reads' host side: the `into` option of `data()` and `dataSync()`, the caller's typed array
// that a read fills instead of a new one (a loop that reads every step keeps one array; a
// fresh 16 MB array costs the engine its page faults each time, see BENCHMARKS.md), and
// `array()`'s nesting.
import * as check from './check.js';

/** The typed array each dtype reads into. */
const INTO_KINDS = {
  float32: Float32Array, float16: Float32Array, int32: Int32Array, uint32: Uint32Array,
  bool: Uint8Array, uint8: Uint8Array, int8: Int8Array,
};

/**
 * The `into` array of `fn`'s options for a tensor of `dtype` and `numel` elements, checked (the
 * dtype's kind, exactly `numel` long), or null where there is none.
 */
export function readTarget(fn, dtype, numel, opts) {
  const { into } = check.options(fn, opts, ['into']);
  if (into === undefined) return null;
  const want = INTO_KINDS[dtype];
  if (!(into instanceof want)) check.fail(TypeError, fn, 'into', into, `a ${want.name} (the array a ${dtype} tensor reads into)`);
  if (into.length !== numel) throw new RangeError(`${fn}: \`into\` holds ${into.length} elements; the tensor has ${numel}`);
  return into;
}

/** Flat `values` as nested arrays of `shape` (booleans where `isBool`): what `array()` gives. */
export function nested(values, shape, isBool) {
  const flat = Array.from(values, (x) => (isBool ? x !== 0 : x));
  const nest = (dims, off) => (dims.length === 0 ? flat[off]
    : Array.from({ length: dims[0] }, (_, i) => nest(dims.slice(1), off + i * dims.slice(1).reduce((a, b) => a * b, 1))));
  return nest(shape, 0);
}
