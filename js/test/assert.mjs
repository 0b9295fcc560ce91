// A small assert that runs in Node and in browsers (node:assert does not exist in a page).
function fail(msg) {
  throw new Error(msg);
}
/** Checks error `e` against a RegExp (its message), an Error class, or a predicate. */
function expect(e, want) {
  if (!want) return;
  if (want instanceof RegExp) {
    if (!want.test(e.message)) fail(`error ${JSON.stringify(e.message)} does not match ${want}`);
  } else if (want === Error || want.prototype instanceof Error) {
    if (!(e instanceof want)) fail(`expected a ${want.name}, got ${e.constructor.name}: ${e.message}`);
  } else if (!want(e)) {
    fail(`error ${e.constructor.name}: ${JSON.stringify(e.message)} fails the check ${want}`);
  }
}

export const assert = {
  ok: (v, msg = 'expected a truthy value') => v || fail(msg),
  equal: (a, b, msg) => Object.is(a, b) || fail(msg ?? `${a} !== ${b}`),
  deepEqual: (a, b, msg) => JSON.stringify(a) === JSON.stringify(b) || fail(msg ?? `${JSON.stringify(a)} != ${JSON.stringify(b)}`),
  notDeepEqual: (a, b, msg) => JSON.stringify(a) !== JSON.stringify(b) || fail(msg ?? `both are ${JSON.stringify(a)}`),
  match: (s, re, msg) => re.test(s) || fail(`${msg ? `${msg}: ` : ''}${JSON.stringify(s)} does not match ${re}`),
  /** Awaits `promise`, which must reject with an Error; returns that error. */
  async rejects(promise, want) {
    try {
      await promise;
    } catch (e) {
      if (!(e instanceof Error)) fail(`rejected with a non-Error: ${e}`);
      expect(e, want);
      return e;
    }
    return fail('expected a rejection');
  },
  throws(fn, re) {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof Error)) fail(`threw a non-Error: ${e}`);
      expect(e, re);
      return;
    }
    fail(`expected an error matching ${re}`);
  },
};

export function close(got, want, tol = 1e-5, what = "") {
  const g = Array.from(got);
  const at = what ? `${what}: ` : "";
  if (g.length !== want.length) fail(`${at}length ${g.length} != ${want.length}: ${g}`);
  g.forEach((x, i) => {
    if (x === want[i] || (Number.isNaN(x) && Number.isNaN(want[i]))) return;
    if (!(Math.abs(x - want[i]) <= tol * (1 + Math.abs(want[i])))) fail(`${at}element ${i}: got ${x}, want ${want[i]} (all: ${g})`);
  });
}
