// How many positional arguments each public Tensor method takes. Every method is wrapped so that
// a call with more refuses them with a TypeError instead of ignoring them: PyTorch code such as
// `transpose(0, 1, 2)` or `unsqueeze(0, 1)` must not run with its extra arguments dropped. The
// methods that take PyTorch's varargs (`reshape(2, 3)`, `permute(1, 0)`, ...) check their
// arguments themselves. The JS suite checks that this table names every method and matches the
// parameters each one declares.
import { arity } from './check.js';

const BY_COUNT = {
  0: `numel neg abs exp log sqrt rsqrt reciprocal square sin cos tanh sigmoid relu geluTanh silu floor ceil round sign erf log1p expm1 tan
    asin acos atan sinh cosh asinh acosh atanh mish hardswish hardsigmoid bitwiseNot logicalNot t contiguous isnan isinf isfinite
    clone detach array item cpu dispose toString print`,
  1: `gelu size data dataSync add sub mul div pow maximum minimum eq ne lt le gt ge softplus leakyRelu prelu elu atan2 remainder fmod floorDivide
    bitwiseAnd bitwiseOr bitwiseXor bitwiseLeftShift bitwiseRightShift logicalAnd logicalOr logicalXor cumsum cumprod tril triu
    softmax logSoftmax matmul unsqueeze broadcastTo toDtype requiresGrad_`,
  2: `softplusWith lerp all any logsumexp amax amin maskedFill roll split chunk where clamp sum mean max min prod argmax argmin var std
    transpose select multinomial indexSelect gather argsort sort backward backwardAsync newZeros newOnes newTensor to flatten`,
  3: 'norm narrow indexAdd scatterAdd scatter newFull',
  4: 'slice topk',
};

/** Methods that take PyTorch's varargs spelling and check their own arguments. */
export const VARARGS = new Set(['reshape', 'view', 'permute', 'flip', 'expand', 'repeat', 'tile', 'squeeze']);

/** Method name -> the most positional arguments it takes. */
export const TENSOR_ARITY = Object.freeze(Object.fromEntries(
  Object.entries(BY_COUNT).flatMap(([n, names]) => names.trim().split(/\s+/).map((name) => [name, Number(n)])),
));

/** Wraps each method of `proto` named in `table` with the arity check. */
export function guardMethods(proto, table) {
  for (const [name, max] of Object.entries(table)) {
    const method = proto[name];
    if (typeof method !== 'function') throw new Error(`internal: arity table names ${name}, which is not a method`);
    const guarded = function (...args) {
      arity(name, args.length, max);
      return method.apply(this, args);
    };
    Object.defineProperty(guarded, 'name', { value: name });
    Object.defineProperty(proto, name, { value: guarded, writable: true, configurable: true, enumerable: false });
  }
}

/**
 * Wraps the `forward` of each built-in module class in `classes` (and of the base classes it
 * inherits one from, below `stop`) so that extra positional arguments are refused, naming the
 * class: `lin.forward(x, y)` is "Linear.forward: takes at most 1 argument, got 2".
 */
export function guardForward(classes, stop) {
  for (const C of classes) {
    if (typeof C !== 'function' || !C.prototype) continue;
    for (let p = C.prototype; p && p !== stop.prototype; p = Object.getPrototypeOf(p)) {
      const own = Object.getOwnPropertyDescriptor(p, 'forward');
      if (!own || typeof own.value !== 'function' || own.value.guarded) continue;
      const method = own.value;
      const max = method.length;
      const base = p.constructor.name;
      const guarded = function (...args) {
        if (args.length > max) arity(`${this?.constructor?.name ?? base}.forward`, args.length, max);
        return method.apply(this, args);
      };
      Object.defineProperties(guarded, { name: { value: 'forward' }, guarded: { value: true } });
      Object.defineProperty(p, 'forward', { value: guarded, writable: true, configurable: true, enumerable: false });
    }
  }
}
