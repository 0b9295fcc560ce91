// Checkpoints as files in Node: a model's state dict round-trips through saveSafetensorsFile /
// loadSafetensorsFile, and a file PyTorch wrote (tests/fixtures/mlp.safetensors, from
// scripts/gen_safetensors_fixtures.py) loads into a model; bad paths are errors. And the
// generated files that are committed are what their generators make from the core now.
import { test } from 'node:test';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as wt from '../node.js';
import { assert, close } from './assert.mjs';
import { camel, opTypes } from './manifest.mjs';
import { FUNCTION_CALLS, NOT_DTYPE, NOT_TENSOR_FUNCTIONS, OTHER_CALLS } from './othercalls.mjs';

await wt.init();

test('checkpoints: a state dict round-trips through a file, and PyTorch\'s file loads', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'webtensor-files-'));
  try {
    const model = new wt.nn.Sequential(new wt.nn.Linear(4, 3, { seed: 1 }), new wt.nn.ReLU(), new wt.nn.Linear(3, 2, { seed: 2 }));
    const file = path.join(dir, 'model.safetensors');
    await wt.saveSafetensorsFile(model.stateDict(), file, { metadata: { epoch: '3' } });
    const bytes = new Uint8Array(await readFile(file));
    assert.deepEqual(wt.nn.safetensorsMetadata(bytes), { epoch: '3' });
    const back = await wt.loadSafetensorsFile(file);
    assert.deepEqual(Object.keys(back).sort(), ['0.bias', '0.weight', '2.bias', '2.weight']);
    const other = new wt.nn.Sequential(new wt.nn.Linear(4, 3, { seed: 7 }), new wt.nn.ReLU(), new wt.nn.Linear(3, 2, { seed: 8 }));
    await other.loadStateDict(back);
    for (const [k, t] of Object.entries(model.stateDict())) close(await other.stateDict()[k].data(), Array.from(await t.data()), 0, k);

    const torch = await wt.loadSafetensorsFile(new URL('../../tests/fixtures/mlp.safetensors', import.meta.url));
    assert.ok(Object.keys(torch).length > 0, "PyTorch's file has tensors");
    await assert.rejects(wt.loadSafetensorsFile(path.join(dir, 'missing.safetensors')), /ENOENT/);
    await assert.rejects(wt.saveSafetensorsFile(model.stateDict(), 42), /path must be a file path/);
    await assert.rejects(wt.loadSafetensorsFile(file, { device: 'tpu:0' }), /unknown device/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('js/test/*types.generated.ts are what the op manifest and the calls make (node scripts/gen-op-types.mjs)', async () => {
  for (const [name, want] of Object.entries(opTypes(wt))) {
    const committed = await readFile(new URL(`./${name}`, import.meta.url), 'utf8');
    const stale = want.split('\n').filter((l) => !committed.includes(l)).slice(0, 5);
    assert.ok(committed === want, `${name} is stale: regenerate with \`node scripts/gen-op-types.mjs\`; missing lines: ${stale.join(' | ')}`);
  }
});

test('every function of the package is an op of the manifest, in FUNCTION_CALLS or named as making no tensor', () => {
  const manifest = new Set(wt.__opTable().ops.map((o) => camel(o.name)));
  const known = new Set([...manifest, ...Object.keys(FUNCTION_CALLS), ...NOT_TENSOR_FUNCTIONS]);
  const functions = Object.entries(wt).filter(([k, v]) => typeof v === 'function' && !/^[A-Z]/.test(k)).map(([k]) => k);
  assert.ok(functions.length > 60, `the package's functions were found (${functions.length})`);
  assert.deepEqual(functions.filter((f) => !known.has(f)), [], 'functions whose result dtypes no test checks: add them to js/test/othercalls.mjs');
  const stale = NOT_TENSOR_FUNCTIONS.filter((f) => typeof wt[f] !== 'function');
  assert.deepEqual(stale, [], 'NOT_TENSOR_FUNCTIONS names functions the package no longer has');
});

test('every function of nn.functional is called in FUNCTION_CALLS, so its declared dtype is checked', () => {
  const called = new Set(Object.values(FUNCTION_CALLS).flatMap(({ call }) => [...call.matchAll(/F\.(\w+)\(/g)].map((m) => m[1])));
  const F = wt.nn.functional;
  const functions = Object.keys(F).filter((k) => typeof F[k] === 'function');
  assert.ok(functions.length > 30, `nn.functional's functions were found (${functions.length})`);
  assert.deepEqual(functions.filter((f) => !called.has(f)), [], 'nn.functional functions whose result dtypes no test checks: add a call to FUNCTION_CALLS');
});

test('every Tensor method is in the op manifest, in othercalls.mjs or named as having no dtype to check', () => {
  const manifest = new Set(wt.__opTable().ops.map((o) => camel(o.name)));
  const known = new Set([...manifest, ...Object.keys(OTHER_CALLS), ...NOT_DTYPE]);
  const methods = Object.getOwnPropertyNames(wt.Tensor.prototype).filter((n) => n !== 'constructor');
  assert.deepEqual(methods.filter((m) => !known.has(m)), [], 'Tensor methods whose result dtypes no test checks: add them to js/test/othercalls.mjs');
});
