// wt.nn.init: PyTorch's torch.nn.init in JavaScript spelling. Each fills a tensor in place (the
// same Tensor object takes the new values, as a module's parameters do after an optimizer step)
// and returns it, with PyTorch's distributions, fan rules and gains; `{ seed }` makes the draw
// repeatable (the global generator, `wt.manualSeed`, otherwise).
import * as check from './check.js';
import { full, rand, randn } from './create.js';
import { assignRaw, rawOf } from './handles.js';
import { tidy } from './scope.js';

/** Puts `make()`'s values (a new tensor of `t`'s shape) into `t`, keeping its dtype, device and requiresGrad. */
function fill(fn, t, make) {
  rawOf(fn, 'tensor', t);
  // The draw's intermediates are freed; only the values' handle survives.
  const raw = tidy(() => {
    const made = make({ device: t.device });
    return made.dtype === t.dtype ? made : made.toDtype(t.dtype);
  });
  const detached = raw.raw.detach();
  raw.dispose();
  if (t.requiresGrad) detached.requiresGrad_(true);
  assignRaw(t, detached);
  return t;
}

const seedOf = (fn, o) => (o.seed === undefined || o.seed === null ? {} : { seed: check.integer(fn, 'seed', o.seed, 0) });

/** PyTorch's `calculate_gain`. */
export function calculateGain(nonlinearity, param) {
  check.arity('calculateGain', arguments.length, 2);
  switch (nonlinearity) {
    case 'linear': case 'conv1d': case 'conv2d': case 'conv3d': case 'sigmoid':
    case 'conv_transpose1d': case 'conv_transpose2d': case 'conv_transpose3d': return 1;
    case 'tanh': return 5 / 3;
    case 'relu': return Math.SQRT2;
    case 'leaky_relu': {
      const slope = param === undefined || param === null ? 0.01 : check.number('calculateGain', 'param', param);
      return Math.sqrt(2 / (1 + slope * slope));
    }
    case 'selu': return 3 / 4;
    default: return check.fail(RangeError, 'calculateGain', 'nonlinearity', nonlinearity, "one of 'linear', 'conv1d', 'conv2d', 'sigmoid', 'tanh', 'relu', 'leaky_relu', 'selu'");
  }
}

/** PyTorch's fan-in and fan-out: dim 1 and dim 0 times the receptive field (the dims after 1). */
function fans(fn, t) {
  const s = t.shape;
  if (s.length < 2) throw new RangeError(`${fn}: fan in and fan out cannot be computed for a tensor with fewer than 2 dims (shape [${s}])`);
  const receptive = s.slice(2).reduce((a, b) => a * b, 1);
  return [s[1] * receptive, s[0] * receptive];
}

/** Uniform in `[a, b)` (default [0, 1)). */
export function uniform_(tensor, opts) {
  check.arity('uniform_', arguments.length, 2);
  const o = check.options('uniform_', opts, ['a', 'b', 'seed']);
  const a = o.a === undefined ? 0 : check.number('uniform_', 'a', o.a);
  const b = o.b === undefined ? 1 : check.number('uniform_', 'b', o.b);
  return fill('uniform_', tensor, (d) => rand(tensor.shape, { ...d, ...seedOf('uniform_', o) }).mul(b - a).add(a));
}

/** Normal with `mean` (0) and `std` (1). */
export function normal_(tensor, opts) {
  check.arity('normal_', arguments.length, 2);
  const o = check.options('normal_', opts, ['mean', 'std', 'seed']);
  const mean = o.mean === undefined ? 0 : check.number('normal_', 'mean', o.mean);
  const std = o.std === undefined ? 1 : check.number('normal_', 'std', o.std);
  return fill('normal_', tensor, (d) => randn(tensor.shape, { ...d, ...seedOf('normal_', o) }).mul(std).add(mean));
}

/** Normal with `mean` and `std`, redrawn (by inverse transform, as PyTorch) into `[a, b]` (default [-2, 2]). */
export function truncNormal_(tensor, opts) {
  check.arity('truncNormal_', arguments.length, 2);
  const o = check.options('truncNormal_', opts, ['mean', 'std', 'a', 'b', 'seed']);
  const mean = o.mean === undefined ? 0 : check.number('truncNormal_', 'mean', o.mean);
  const std = o.std === undefined ? 1 : check.number('truncNormal_', 'std', o.std);
  const a = o.a === undefined ? -2 : check.number('truncNormal_', 'a', o.a);
  const b = o.b === undefined ? 2 : check.number('truncNormal_', 'b', o.b);
  // PyTorch's method: uniform between the normal CDF at the bounds, then the inverse CDF.
  const cdf = (x) => (1 + erf(x / Math.SQRT2)) / 2;
  const [l, u] = [cdf((a - mean) / std), cdf((b - mean) / std)];
  return fill('truncNormal_', tensor, (d) => {
    const p = rand(tensor.shape, { ...d, ...seedOf('truncNormal_', o) }).mul(2 * u - 2 * l).add(2 * l - 1);
    return erfinv(p).mul(std * Math.SQRT2).add(mean).clamp(a, b);
  });
}

/** `value` everywhere. */
export function constant_(tensor, value) {
  check.arity('constant_', arguments.length, 2);
  const v = check.number('constant_', 'value', value);
  return fill('constant_', tensor, (d) => full(tensor.shape, v, d));
}
/** Zeros. */
export function zeros_(tensor) { check.arity('zeros_', arguments.length, 1); return constant_(tensor, 0); }
/** Ones. */
export function ones_(tensor) { check.arity('ones_', arguments.length, 1); return constant_(tensor, 1); }

/** Xavier/Glorot uniform: `gain * sqrt(6 / (fanIn + fanOut))` bounds. */
export function xavierUniform_(tensor, opts) {
  check.arity('xavierUniform_', arguments.length, 2);
  const o = check.options('xavierUniform_', opts, ['gain', 'seed']);
  const gain = o.gain === undefined ? 1 : check.number('xavierUniform_', 'gain', o.gain);
  const [fi, fo] = fans('xavierUniform_', tensor);
  const bound = gain * Math.sqrt(6 / (fi + fo));
  return uniform_(tensor, { a: -bound, b: bound, seed: o.seed });
}

/** Xavier/Glorot normal: std `gain * sqrt(2 / (fanIn + fanOut))`. */
export function xavierNormal_(tensor, opts) {
  check.arity('xavierNormal_', arguments.length, 2);
  const o = check.options('xavierNormal_', opts, ['gain', 'seed']);
  const gain = o.gain === undefined ? 1 : check.number('xavierNormal_', 'gain', o.gain);
  const [fi, fo] = fans('xavierNormal_', tensor);
  return normal_(tensor, { std: gain * Math.sqrt(2 / (fi + fo)), seed: o.seed });
}

function kaimingStd(fn, tensor, o) {
  const a = o.a === undefined ? 0 : check.number(fn, 'a', o.a);
  const mode = o.mode ?? 'fan_in';
  if (mode !== 'fan_in' && mode !== 'fan_out') check.fail(RangeError, fn, 'mode', mode, "'fan_in' or 'fan_out'");
  const [fi, fo] = fans(fn, tensor);
  return calculateGain(o.nonlinearity ?? 'leaky_relu', a) / Math.sqrt(mode === 'fan_in' ? fi : fo);
}

/** Kaiming/He uniform (PyTorch's defaults: a 0, fan_in, leaky_relu): bounds `sqrt(3) * gain / sqrt(fan)`. */
export function kaimingUniform_(tensor, opts) {
  check.arity('kaimingUniform_', arguments.length, 2);
  const o = check.options('kaimingUniform_', opts, ['a', 'mode', 'nonlinearity', 'seed']);
  const bound = Math.sqrt(3) * kaimingStd('kaimingUniform_', tensor, o);
  return uniform_(tensor, { a: -bound, b: bound, seed: o.seed });
}

/** Kaiming/He normal: std `gain / sqrt(fan)`. */
export function kaimingNormal_(tensor, opts) {
  check.arity('kaimingNormal_', arguments.length, 2);
  const o = check.options('kaimingNormal_', opts, ['a', 'mode', 'nonlinearity', 'seed']);
  return normal_(tensor, { std: kaimingStd('kaimingNormal_', tensor, o), seed: o.seed });
}

// erf on numbers (Abramowitz-Stegun 7.1.26 is too coarse for the CDF's tails; this is the
// series / continued-fraction pair to 1e-12) and erfinv on tensors (Giles's approximation).
function erf(x) {
  const t = Math.abs(x);
  if (t < 2) {
    let sum = t;
    let term = t;
    for (let n = 1; n < 60; n++) {
      term *= (-t * t) / n;
      sum += term / (2 * n + 1);
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  let f = 0;
  for (let n = 60; n >= 1; n--) f = (n / 2) / (t + f);
  return Math.sign(x) * (1 - Math.exp(-t * t) / (Math.sqrt(Math.PI) * (t + f)));
}

function erfinv(p) {
  // w = -log((1 - p)(1 + p)); two polynomial branches, as in Giles (2010).
  const w = p.mul(p).neg().add(1).log().neg();
  const central = poly(w.sub(2.5), [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]);
  const tail = poly(w.sqrt().sub(3), [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]);
  return central.where(w.lt(5), tail).mul(p);
}

function poly(x, coefficients) {
  let acc = full(x.shape, coefficients[0], { device: x.device });
  for (const c of coefficients.slice(1)) acc = acc.mul(x).add(c);
  return acc;
}
