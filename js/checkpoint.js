// .safetensors checkpoints (wt.nn.saveSafetensors, loadSafetensors, safetensorsMetadata): the
// format Hugging Face and PyTorch's `safetensors` package use, so weights move between
// webtensor and PyTorch in both directions. The format and its dtype conversions are the Rust
// core's (src/nn/safetensors.rs).
import * as check from './check.js';
import { core } from './internal.js';
import { ownRaws } from './nnargs.js';
import { consumeHandOff, markHandOff, Tensor } from './tensor.js';

function bytesOf(fn, v) {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return check.fail(TypeError, fn, 'bytes', v, 'a Uint8Array or ArrayBuffer (the contents of a .safetensors file)');
}

function entriesOf(fn, dict) {
  let entries;
  if (dict instanceof Map) entries = [...dict];
  else if (dict && typeof dict === 'object' && !Array.isArray(dict) && !ArrayBuffer.isView(dict)) entries = Object.entries(dict);
  else check.fail(TypeError, fn, 'dict', dict, 'an object or Map of name to Tensor (a stateDict())');
  for (const [k] of entries) {
    if (typeof k !== 'string' || k === '' || k === '__metadata__') {
      check.fail(TypeError, fn, 'a name in dict', k, "a non-empty string other than '__metadata__'");
    }
  }
  return entries;
}

/**
 * The bytes of a `.safetensors` file holding `dict` (a stateDict(), or any object or Map of
 * name to Tensor, on any devices), with optional string `metadata`. A dict with at most one
 * metadata key always gives the same bytes, the ones PyTorch's `safetensors.torch.save_file`
 * writes for it (the format's library orders several metadata keys by a hash). The tensors of
 * a dict made by `stateDict()` are freed once saved (`saveSafetensors(model.stateDict())`
 * leaves no copy behind); other tensors are untouched.
 */
export async function saveSafetensors(dict, opts) {
  check.arity('saveSafetensors', arguments.length, 2);
  const bytes = await encodeSafetensors('saveSafetensors', dict, opts);
  consumeDict('saveSafetensors', dict);
  return bytes;
}

/** @internal Frees the one-hand-off tensors of `dict` (see markHandOff) that `fn` has used. */
export function consumeDict(fn, dict) {
  for (const [, t] of dict instanceof Map ? dict : Object.entries(dict)) consumeHandOff(fn, t, ['state', 'loaded']);
}

/** @internal saveSafetensors' bytes without freeing anything (the file form frees after writing). */
export async function encodeSafetensors(fn, dict, opts) {
  const o = check.options(fn, opts, ['metadata']);
  const entries = entriesOf(fn, dict);
  const meta = o.metadata === undefined ? [] : Object.entries(o.metadata);
  meta.forEach(([k, v]) => {
    if (typeof v !== 'string') check.fail(TypeError, fn, `metadata['${k}']`, v, 'a string');
  });
  const raws = ownRaws(fn, entries.map(([k, t]) => [`dict['${k}']`, t ?? 0]));
  return core().nnSaveSafetensors(entries.map(([k]) => k), raws, meta.map(([k]) => k), meta.map(([, v]) => v));
}

/**
 * The tensors of a `.safetensors` file as an object of name to Tensor, created on `device` (the
 * default device otherwise). Dtypes webtensor does not store convert: bf16 and f64 to float32,
 * int64 and the narrower integers to int32 (an int64 outside int32's range is an error).
 * Pass the result to `model.loadStateDict`, which frees these tensors once it has loaded them.
 */
export function loadSafetensors(bytes, opts) {
  check.arity('loadSafetensors', arguments.length, 2);
  const fn = 'loadSafetensors';
  const o = check.options(fn, opts, ['device']);
  const pairs = core().nnLoadSafetensors(bytesOf(fn, bytes), check.optDevice(fn, o.device));
  return Object.fromEntries(pairs.map(([k, raw]) => [k, markHandOff(new Tensor(raw), 'loaded')]));
}

/** The `__metadata__` strings of a `.safetensors` file (an empty object when it has none). */
export function safetensorsMetadata(bytes) {
  check.arity('safetensorsMetadata', arguments.length, 1);
  return Object.fromEntries(core().nnSafetensorsMetadata(bytesOf('safetensorsMetadata', bytes)));
}
