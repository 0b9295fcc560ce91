// The core's op manifest (wt.__opTable().ops: each elementwise op's and reduction's result
// dtype per input dtype, from src/op/manifest.rs) against the npm package, shared by the Node
// and browser runners (through cases.mjs): every op on a tensor of every dtype on every device
// gives the declared dtype, or the declared refusal naming the op. The `.d.ts` side is
// js/test/optypes.generated.ts (made by opTypes below, compiled by `npm run test:types`).
import { assert } from './assert.mjs';
import { FUNCTION_CALLS, OTHER_CALLS } from './othercalls.mjs';

/** The manifest's dtype names as the JS API spells them. */
export const LONG = { f32: 'float32', f16: 'float16', i32: 'int32', u32: 'uint32', bool: 'bool', u8: 'uint8', i8: 'int8' };
/** `snake_case` to the JS method's `camelCase`. */
export const camel = (n) => n.replace(/_(\w)/g, (_, c) => c.toUpperCase());

/** `op` of `family` on `x` as a JS user calls it (binary ops: `x` with itself). */
function call(family, method, x) {
  return family === 'binary' ? x[method](x) : x[method]();
}

/** The cases as `{ name, fn }` for `wt` on `devices`. */
export function manifestCases(wt, devices) {
  const ops = wt.__opTable().ops;
  return devices.map((device) => ({
    name: `${device}: every op of the manifest on every dtype gives the declared dtype (${ops.length} ops)`,
    fn: () => {
      const f16 = device === 'cpu' || wt.devices().some((d) => d.name === device && d.features.includes('shader-f16'));
      const errors = [];
      let ran = 0;
      // A hand-written method (elu(alpha), prelu(weight)) has rules of its own; the Rust suite
      // checks the op itself (tests/manifest.rs).
      for (const op of ops.filter((o) => !o.custom)) {
        const method = camel(op.name);
        for (const [short, want] of Object.entries(op.results)) {
          if (short === 'f16' && !f16) continue;
          const dtype = LONG[short];
          ran += 1;
          wt.tidy(() => {
            const x = wt.ones([3], { dtype, device });
            let got;
            try {
              got = call(op.family, method, x);
            } catch (e) {
              if (want !== null) errors.push(`${method}(${dtype}) threw (${e.message}); the manifest says ${LONG[want]}`);
              else if (!String(e.message).includes(op.name)) errors.push(`${method}(${dtype}) refused without naming the op: ${e.message}`);
              return;
            }
            if (want === null) errors.push(`${method}(${dtype}) gave ${got.dtype}; the manifest says it is refused`);
            else if (got.dtype !== LONG[want]) errors.push(`${method}(${dtype}) gave ${got.dtype}; the manifest says ${LONG[want]}`);
          });
        }
      }
      assert.ok(ran >= (ops.length - 2) * 6, `only ${ran} (op, dtype) pairs ran`);
      assert.deepEqual(errors, [], `${device}: disagreements with the manifest`);
    },
  }));
}

/**
 * What each call of OTHER_CALLS returns on `device` for a [2, 3] tensor of each dtype:
 * `{ method: { float32: 'float32' | null (refused), ... } }`.
 */
export function otherResults(wt, device = 'cpu') {
  const f16 = device === 'cpu' || wt.devices().some((d) => d.name === device && d.features.includes('shader-f16'));
  const out = {};
  const calls = { ...OTHER_CALLS, ...Object.fromEntries(Object.entries(FUNCTION_CALLS).map(([k, v]) => [`wt.${k}`, v])) };
  for (const [method, { call }] of Object.entries(calls)) {
    out[method] = {};
    for (const dtype of Object.values(LONG)) {
      if (dtype === 'float16' && !f16) continue;
      // The TypeScript's non-null assertions are not JavaScript; DT is the dtype's name.
      const f = new Function('X', 'I', 'J', 'M', 'K', 'wt', 'F', `return ${call.replace(/!/g, '').replace(/DT/g, dtype)};`);
      wt.withDevice(device, () => wt.tidy(() => {
        const X = wt.ones([2, 3], { dtype, device });
        const I = wt.tensor([[0, 1, 0], [1, 0, 1]], { dtype: 'int32', device });
        const J = wt.tensor([1, 0], { dtype: 'int32', device });
        const M = wt.ones([2, 3], { dtype: 'bool', device });
        const K = wt.tensor([0, 2], { dtype: 'int32', device });
        try {
          out[method][dtype] = f(X, I, J, M, K, wt, wt.nn.functional).dtype;
        } catch {
          out[method][dtype] = null;
        }
      }));
    }
  }
  return out;
}

/** The manifest's ops and OTHER_CALLS give the same dtypes on `device` as on the cpu. */
export function otherCallCases(wt, devices) {
  return devices.filter((d) => d !== 'cpu').map((device) => ({
    name: `${device}: the methods outside the manifest give the cpu's result dtypes (${Object.keys(OTHER_CALLS).length} methods)`,
    fn: () => {
      const [want, got] = [otherResults(wt, 'cpu'), otherResults(wt, device)];
      const errors = [];
      for (const [m, byDtype] of Object.entries(got)) {
        for (const [dtype, r] of Object.entries(byDtype)) if (r !== want[m][dtype]) errors.push(`${m}(${dtype}): ${r}, cpu ${want[m][dtype]}`);
      }
      assert.deepEqual(errors, [], `${device}: result dtypes that differ from the cpu's`);
    },
  }));
}

/**
 * The TypeScript that holds js/index.d.ts to what the ops return, as three files (each under
 * the project's 600 lines): `optypes.generated.ts` for every op of the manifest and every dtype
 * it accepts (exactly the manifest's dtype), `methodtypes.generated.ts` for the Tensor methods of
 * OTHER_CALLS and `functiontypes.generated.ts` for FUNCTION_CALLS (exactly what each returned on
 * the cpu, or, `wide`, a union that holds it). scripts/gen-op-types.mjs writes them to js/test/;
 * files.test.mjs fails when a committed file differs. Resolves to `{ fileName: text }`.
 */
export function opTypes(wt) {
  const header = (what) => [
    `// Generated by \`node scripts/gen-op-types.mjs\` ${what}; do not edit.`,
    '// `npm run test:types` compiles it: js/index.d.ts must declare exactly the result dtype each',
    '// call returns (js/test/manifest.mjs runs them on every device).',
    "import type { Tensor } from '../index.js';",
    "import * as wt from '../index.js';",
    "import { exact, holds, F, I, J, K, M, bool, float16, float32, int8, int32, uint8, uint32 } from './typecheck.js';",
    'void [wt, exact, holds, F, I, J, K, M, bool, float16, float32, int8, int32, uint8, uint32];',
    '',
    'export function declaredResultDtypes(): void {',
  ];
  const table = wt.__opTable();
  const manifest = header("from the core's op manifest (src/op/manifest.rs, wt.__opTable().ops)");
  for (const op of table.ops.filter((o) => !o.custom)) {
    const method = camel(op.name);
    for (const [short, want] of Object.entries(op.results)) {
      if (want === null) continue;
      const x = LONG[short];
      const expr = op.family === 'binary' ? `${x}.${method}(${x})` : `${x}.${method}()`;
      manifest.push(`  { const r = ${expr}; exact<typeof r, Tensor<'${LONG[want]}'>>(true); }`);
    }
  }
  const ran = otherResults(wt);
  const checks = (lines, calls, key) => {
    for (const [name, { call, wide }] of Object.entries(calls)) {
      for (const [dtype, got] of Object.entries(ran[key(name)])) {
        if (got === null) continue;
        const expr = call.replace(/\bX\b/g, dtype).replace(/DT/g, dtype);
        const check = wide ? `holds<typeof r, '${got}'>(true)` : `exact<typeof r, Tensor<'${got}'>>(true)`;
        lines.push(`  { const r = ${expr}; ${check}; }`);
      }
    }
    lines.push('}', '');
    return lines.join('\n');
  };
  manifest.push('}', '');
  return {
    'optypes.generated.ts': manifest.join('\n'),
    'methodtypes.generated.ts': checks(header('from running the Tensor methods of js/test/othercalls.mjs on the cpu'), OTHER_CALLS, (n) => n),
    'functiontypes.generated.ts': checks(header('from running the functions of js/test/othercalls.mjs on the cpu'), FUNCTION_CALLS, (n) => `wt.${n}`),
  };
}
