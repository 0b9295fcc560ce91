// Runs every JavaScript block of the README and the guide (docs/guide/*.md) as its own Node
// program against the package built from this commit, one test per block, so the examples a
// user copies keep working. A block may be preceded by an HTML comment
// `<!-- setup (...): code -->` (invisible when rendered, as rustdoc's hidden `# ` lines are),
// which runs first: the tensors and models the block assumes. Blocks import `webtensor` by its
// name (the package refers to itself through its `exports`), and init() runs unless the block
// or its setup calls it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
const files = ['README.md', ...readdirSync(path.join(root, 'docs/guide')).filter((f) => f.endsWith('.md')).map((f) => `docs/guide/${f}`)];

/** The `js` blocks of a Markdown file: `{ line, code, setup }`. */
function blocks(file) {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```js') continue;
    const end = lines.indexOf('```', i + 1);
    assert.ok(end > i, `${file}:${i + 1}: a js block that does not end`);
    let setup = '';
    if (lines[i - 1]?.trim() === '-->') {
      const start = lines.lastIndexOf(lines.slice(0, i).reverse().find((l) => l.startsWith('<!-- setup')), i);
      setup = lines.slice(start + 1, i - 1).join('\n');
    }
    out.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n'), setup });
    i = end;
  }
  return out;
}

const dir = path.join(root, 'target', 'guide-js');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const all = files.flatMap((file) => blocks(file).map((b) => ({ file, ...b })));

test('the README and the guide have JavaScript examples to run', () => {
  assert.ok(all.length >= 8, `found ${all.length}`);
});

for (const b of all) {
  test(`${b.file}:${b.line} runs`, { timeout: 180_000 }, async () => {
    const parts = [];
    if (!/^import \* as wt from 'webtensor';/m.test(b.code)) parts.push("import * as wt from 'webtensor';");
    // Imports first (ES modules hoist them anyway), then the setup's statements, then the block.
    const setupImports = b.setup.split('\n').filter((l) => l.startsWith('import '));
    parts.push(...setupImports);
    const setupBody = b.setup.split('\n').filter((l) => !l.startsWith('import ')).join('\n');
    if (!/wt\.init\(/.test(b.code + b.setup)) parts.push('await wt.init();');
    parts.push(setupBody, b.code);
    const file = path.join(dir, `${b.file.replace(/[/.]/g, '_')}_${b.line}.mjs`);
    writeFileSync(file, parts.join('\n') + '\n');
    // Its own working directory: blocks that save files leave nothing in the repository.
    const cwd = mkdtempSync(path.join(tmpdir(), 'webtensor-guide-'));
    try {
      await promisify(execFile)(process.execPath, [file], { cwd, timeout: 170_000 });
    } catch (e) {
      assert.fail(`${b.file}:${b.line} failed (${file}):\n${e.stderr || e.message}`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
}
