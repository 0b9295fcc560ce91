// The op table of ops.mjs as users meet it (issue 44): each case in a fresh Node process, two
// warm-up rounds, then exactly --rounds timed rounds (alternating webtensor and TF.js), so
// neither library has had seconds of warm-up. Prints ops.mjs's rows, one process per case.
// With --browser, each case in a fresh headless Chromium page instead (page-chromium.mjs).
// Usage: node fresh-table.mjs [--pair wasm|webgpu] [--rounds 15] [--only <case substring>]
//        [--browser]
import { spawnSync } from 'node:child_process';
import { CASES, HEADER } from './ops-core.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const pair = arg('pair', 'wasm');
const rounds = arg('rounds', '15');
const only = arg('only', null);
const browser = process.argv.includes('--browser');
console.log(`# each case in a fresh ${browser ? 'Chromium page' : 'Node process'}: 2 warm-up rounds, then ${rounds} timed; ${pair}`);
console.log(HEADER);
for (const c of CASES.filter((x) => !only || x.name.includes(only))) {
  const query = `pair=${pair}&only=${encodeURIComponent(c.name)}&rounds=${rounds}&fresh=1`;
  const args = browser
    ? ['page-chromium.mjs', 'ops.html', query]
    : ['ops.mjs', '--pair', pair, '--only', c.name, '--rounds', rounds, '--fresh'];
  const r = spawnSync(process.execPath, args, { cwd: new URL('.', import.meta.url).pathname, encoding: 'utf8' });
  const rows = r.stdout.split('\n').filter((l) => l.startsWith(`${pair} `) && l.includes(c.name));
  // `--only` matches substrings: keep the case's own row.
  const row = rows.find((l) => l.slice(9, 53).trim() === c.name);
  console.log(row ?? `${pair} ${c.name}: failed (${r.status}) ${r.stderr.split('\n').slice(-3).join(' ')}`);
}
