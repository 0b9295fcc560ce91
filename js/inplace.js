// In-place ops with PyTorch's names (`add_`, `mul_`, `clamp_`, `zero_`, `fill_`, `copy_`,
// `uniform_`, `normal_`, `relu_`, ...). Each computes its out-of-place op and points this
// Tensor at the result, after the core's checks (src/ops/inplace.rs): PyTorch's error for a leaf
// that requires grad while grad mode is on (under wt.noGrad it is how parameters are updated by
// hand, and they stay leaves with their gradients), the shape kept, the dtype cast back where
// PyTorch casts. Everything holding this Tensor object (a module, an optimizer) sees the new
// value; views taken before keep the old one (PyTorch's would change). A gradient read from
// `p.grad` writes itself back, so `p.grad.zero_()` clears `p`'s gradient as in PyTorch.
import * as check from './check.js';
import { full, rand, randn } from './create.js';
import { guardMethods } from './arity.js';
import { assignRaw, gradOwner, rawOf } from './handles.js';
import { tidy } from './scope.js';
import { Tensor } from './tensor.js';

const UNARY = `neg abs exp log sqrt rsqrt reciprocal square sin cos tan tanh sigmoid relu floor ceil round sign erf log1p
  expm1 asin acos atan sinh cosh asinh acosh atanh`.trim().split(/\s+/);
const BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'remainder', 'fmod'];

/** How many positional arguments each in-place method takes (as js/arity.js's table). */
export const INPLACE_ARITY = Object.freeze({
  ...Object.fromEntries(UNARY.map((n) => [`${n}_`, 0])),
  ...Object.fromEntries(BINARY.map((n) => [`${n}_`, 1])),
  zero_: 0, fill_: 1, copy_: 1, clamp_: 2, lerp_: 2, maskedFill_: 2, uniform_: 2, normal_: 2,
});

const like = (t) => ({ dtype: t.dtype, device: t.device });

// The out-of-place value of each in-place method (made inside a tidy, so intermediates go).
const COMPUTE = {
  ...Object.fromEntries(UNARY.map((n) => [`${n}_`, (t) => t[n]()])),
  ...Object.fromEntries(BINARY.map((n) => [`${n}_`, (t, o) => t[n](o)])),
  zero_: (t) => full(t.shape, 0, like(t)),
  fill_: (t, value) => full(t.shape, check.number('fill_', 'value', value), like(t)),
  copy_: (t, src) => {
    rawOf('copy_', 'src', src);
    if (src.device !== t.device) {
      throw new Error(`copy_: src is on ${src.device} but this tensor is on ${t.device}; move it first with \`await src.to('${t.device}')\``);
    }
    return src.toDtype(t.dtype).expand(t.shape);
  },
  clamp_: (t, min, max) => t.clamp(min, max),
  lerp_: (t, end, weight) => t.lerp(end, weight),
  maskedFill_: (t, mask, value) => t.maskedFill(mask, value),
  uniform_: (t, from = 0, to = 1) => {
    const [a, b] = [check.number('uniform_', 'from', from), check.number('uniform_', 'to', to)];
    if (!(a <= b)) throw new RangeError(`uniform_: from (${a}) must be at most to (${b})`);
    return rand(t.shape, { device: t.device }).mul(b - a).add(a);
  },
  normal_: (t, mean = 0, std = 1) => {
    const [m, s] = [check.number('normal_', 'mean', mean), check.number('normal_', 'std', std)];
    if (!(s >= 0)) throw new RangeError(`normal_: std must be >= 0, got ${s}`);
    return randn(t.shape, { device: t.device }).mul(s).add(m);
  },
};

function inplace(name, compute) {
  return function (...args) {
    const raw = rawOf(name, 'this tensor', this);
    raw.checkInplace(name);
    const out = tidy(() => compute(this, ...args));
    let next;
    try {
      next = raw.inplaceResult(name, out.raw, name === 'copy_');
    } finally {
      out.dispose();
    }
    assignRaw(this, next);
    const owner = gradOwner(this);
    if (owner && !owner.disposed) owner.grad = this;
    return this;
  };
}

for (const name of Object.keys(INPLACE_ARITY)) {
  const fn = inplace(name, COMPUTE[name]);
  Object.defineProperty(fn, 'name', { value: name });
  Object.defineProperty(Tensor.prototype, name, { value: fn, writable: true, configurable: true, enumerable: false });
}
guardMethods(Tensor.prototype, INPLACE_ARITY);
