// Argument checks at the JS boundary. Every public function of the package validates what it
// was given here before anything reaches the wasm module, and throws a TypeError (wrong kind of
// value) or RangeError (right kind, wrong value) that names the function, the argument, what was
// given and what is accepted. The Rust side checks again (src/wasm/args.rs) as a safety net, so
// nothing that reaches wasm can trap or wrap silently; this layer gives the clearer message.

/** The largest integer a JS number holds exactly. */
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export const DTYPES = ['float32', 'float16', 'int32', 'uint32', 'bool', 'uint8', 'int8'];
// Null-prototype tables looked up with Object.hasOwn: a plain object would answer '__proto__',
// 'constructor' or 'toString' with something that is not a dtype.
const table = (o) => Object.freeze(Object.assign(Object.create(null), o));
const SHORT = table({ float32: 'f32', float16: 'f16', int32: 'i32', uint32: 'u32', bool: 'bool', uint8: 'u8', int8: 'i8' });
export const LONG = table({ f32: 'float32', f16: 'float16', i32: 'int32', u32: 'uint32', bool: 'bool', u8: 'uint8', i8: 'int8' });
/** Whether `v` names a dtype (long or short form). */
export const isDtype = (v) => typeof v === 'string' && (Object.hasOwn(SHORT, v) || Object.hasOwn(LONG, v));

/** A short description of any value, for error messages. */
export function describe(v) {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string': return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
    case 'number': return `the number ${v}`;
    case 'bigint': return `the bigint ${v}n`;
    case 'boolean': return `${v}`;
    case 'symbol': return 'a symbol';
    case 'function': return 'a function';
    default:
      if (Array.isArray(v)) return `an array of length ${v.length}`;
      if (ArrayBuffer.isView(v)) return `a ${v.constructor?.name ?? 'typed array'}`;
      if (v?.constructor?.name === 'Tensor' && 'disposed' in v) return 'a Tensor';
      if (typeof v.then === 'function') return 'a Promise';
      return `an object (${safeName(v)})`;
  }
}

function safeName(v) {
  try {
    return v.constructor?.name ?? 'no prototype';
  } catch {
    return 'unnamed';
  }
}

/** Throws `Kind` with the standard message. */
export function fail(Kind, fn, arg, v, accepted) {
  throw new Kind(`${fn}: ${arg} must be ${accepted}, got ${describe(v)}`);
}

/** An integer in [min, max]. */
export function integer(fn, arg, v, min = -MAX_SAFE, max = MAX_SAFE) {
  if (typeof v !== 'number') fail(TypeError, fn, arg, v, `an integer in [${min}, ${max}]`);
  if (!Number.isInteger(v) || v < min || v > max) fail(RangeError, fn, arg, v, `an integer in [${min}, ${max}]`);
  return v;
}

/** A number (NaN and infinities allowed: they are values); booleans count as 0 and 1. */
export function number(fn, arg, v) {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'number') fail(TypeError, fn, arg, v, 'a number');
  return v;
}

/** `undefined` or a boolean. */
export function flag(fn, arg, v, fallback = false) {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') fail(TypeError, fn, arg, v, 'true or false');
  return v;
}

/** A dimension index (the op checks it against the rank). */
export function dim(fn, v, arg = 'dim') {
  return integer(fn, arg, v, -(2 ** 31), 2 ** 31 - 1);
}

/** `undefined`/`null` (all dims), one dim, or an array of dims. */
export function optDims(fn, v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return [dim(fn, v)];
  if (!Array.isArray(v)) fail(TypeError, fn, 'dim', v, 'an integer, an array of integers, or null for every dim');
  return v.map((d, i) => dim(fn, d, `dim[${i}]`));
}

// PyTorch reduces every dim for an empty dim list in sum, mean, amax/amin, var/std and
// vector_norm (`x.sum([])` is the total); in any and all it reduces none, as the core does.
const EVERY_DIM_WHEN_EMPTY = new Set(['sum', 'mean', 'max', 'min', 'var', 'std', 'norm']);

/** The dims of reduction `fn` as `optDims` gives them (undefined: every dim), with PyTorch's meaning of `[]`. */
export function reductionDims(fn, v) {
  const dims = optDims(fn, v);
  return dims !== undefined && dims.length === 0 && EVERY_DIM_WHEN_EMPTY.has(fn) ? undefined : dims;
}

/**
 * A shape: an array (or typed array) of integers in [0, 2^53), or one such integer for a 1-D
 * shape (`zeros(3)` is `[3]`, as in PyTorch). The element count is checked in the core.
 */
export function shape(fn, v, arg = 'shape') {
  if (typeof v === 'number') return [integer(fn, arg, v, 0)];
  if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView))) {
    fail(TypeError, fn, arg, v, 'an array of non-negative integers such as [2, 3]');
  }
  if (v.length > 64) fail(RangeError, fn, arg, v, 'at most 64 dims');
  return Array.from(v, (d, i) => integer(fn, `${arg}[${i}]`, d, 0));
}

/** Sizes for reshape/view/expand: integers >= -1 (-1 infers or keeps one dim). */
export function sizes(fn, v, arg = 'shape') {
  if (typeof v === 'number') return [integer(fn, arg, v, -1)];
  if (!Array.isArray(v)) fail(TypeError, fn, arg, v, 'an array of integers such as [2, -1]');
  if (v.length > 64) fail(RangeError, fn, arg, v, 'at most 64 dims');
  return v.map((d, i) => integer(fn, `${arg}[${i}]`, d, -1));
}

/** A dtype name (long or short form) in its short form; `undefined` gives `fallback`. */
export function dtype(fn, v, fallback = 'f32') {
  if (v === undefined) return fallback;
  if (typeof v === 'string' && Object.hasOwn(SHORT, v)) return SHORT[v];
  if (typeof v === 'string' && Object.hasOwn(LONG, v)) return v;
  const Kind = typeof v === 'string' ? RangeError : TypeError;
  throw new Kind(`${fn}: unknown dtype ${describe(v)}; expected one of ${DTYPES.join(', ')}`);
}

/**
 * A device as its string: a device string (any accepted form, TensorFlow's included), a
 * `DeviceInfo` from `devices()` (its `name`), or an integer N for the N-th accelerator (`/GPU:N`).
 * The string itself is parsed by the core, whose error lists the accepted forms.
 */
export function device(fn, v, arg = 'device') {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return `gpu:${integer(fn, arg, v, 0, 2 ** 31 - 1)}`;
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof v.name === 'string' && 'backend' in v) return v.name;
  return fail(TypeError, fn, arg, v, "a device string such as 'cpu' or 'webgpu:0', a device from devices(), or an accelerator index");
}

/** `undefined`/`null` (the default device), or a device. */
export function optDevice(fn, v) {
  return v === undefined || v === null ? undefined : device(fn, v);
}

/** An options object (or `undefined`) whose keys are all in `allowed`. */
export function options(fn, v, allowed) {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) {
    fail(TypeError, fn, 'options', v, `an object with keys among ${allowed.join(', ')}`);
  }
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) throw new TypeError(`${fn}: unknown option '${k}'; accepted options: ${allowed.join(', ')}`);
  }
  return v;
}

/** A function that is not async (tidy and withDevice cannot follow work across an await). */
export function syncFunction(fn, v) {
  if (typeof v !== 'function') fail(TypeError, fn, 'fn', v, 'a function');
  if (v.constructor?.name === 'AsyncFunction' || v.constructor?.name === 'AsyncGeneratorFunction') {
    throw new TypeError(`${fn}: fn must be synchronous; an async function's work continues after ${fn} returns, out of its reach. Await outside ${fn} and pass it the synchronous part`);
  }
  return v;
}

/** Throws when a synchronous callback returned a promise anyway. */
export function notPromise(fn, result) {
  if (result !== null && (typeof result === 'object' || typeof result === 'function') && typeof result.then === 'function') {
    throw new TypeError(`${fn}: fn returned a Promise; ${fn} cannot follow asynchronous work. Await outside ${fn} and pass it the synchronous part`);
  }
  return result;
}

/** The values of an integer dtype must fit it (PyTorch refuses overflow rather than wrapping). */
export function fitsDtype(fn, arg, v, dt) {
  if (dt === 'i32' && !(v >= -(2 ** 31) && v < 2 ** 31)) fail(RangeError, fn, arg, v, 'a finite value in the int32 range [-2147483648, 2147483647]');
  if (dt === 'u32' && !(v >= 0 && v < 2 ** 32)) fail(RangeError, fn, arg, v, 'a finite value in the uint32 range [0, 4294967295]');
  if (dt === 'u8' && !(v >= 0 && v < 256)) fail(RangeError, fn, arg, v, 'a finite value in the uint8 range [0, 255]');
  if (dt === 'i8' && !(v >= -128 && v < 128)) fail(RangeError, fn, arg, v, 'a finite value in the int8 range [-128, 127]');
  return v;
}

/** Refuses positional arguments past the `max` a function declares (none is ever ignored). */
export function arity(fn, given, max) {
  if (given > max) {
    throw new TypeError(`${fn}: takes at most ${max} argument${max === 1 ? '' : 's'}, got ${given}; extra arguments are refused rather than ignored${max > 0 ? ' (options go in one object as the last argument)' : ''}`);
  }
}

/**
 * PyTorch's varargs spelling of a list of sizes or dims: `f(2, 3)` means `f([2, 3])`; a single
 * argument is returned as it is (an array, or one number), none as `undefined`. Several
 * arguments must all be numbers.
 */
export function spread(fn, args, arg) {
  if (args.length <= 1) return args[0];
  args.forEach((v, i) => {
    if (typeof v !== 'number') fail(TypeError, fn, `${arg}[${i}]`, v, `an integer (${arg} given as several arguments, as in PyTorch's ${fn}(2, 3))`);
  });
  return Array.from(args);
}
