// Packaging test: `npm pack`, install the tarball into a scratch project, then use it the ways
// users will: imported from Node, and from Vite and webpack production builds served to headless
// Chromium. Each runs one computation and checks the result.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withPage } from './chromium.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const scratch = await mkdtemp(path.join(tmpdir(), 'webtensor-package-'));
let failed = 0;
/** Opens a built page in headless Chromium and returns its window.__result. */
const inChromium = (dist) =>
  withPage(dist, '/', async (page, errors) => {
    const out = await (await page.waitForFunction(() => window.__result, null, { timeout: 120_000 })).jsonValue();
    return { ...out, errors };
  });

const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
  failed += ok ? 0 : 1;
};

try {
  const tarball = path.join(scratch, run('npm', ['pack', '--silent', '--pack-destination', scratch], repo).trim().split('\n').pop());
  const files = run('tar', ['-tzf', tarball], scratch).split('\n').filter(Boolean);
  check(files.includes('package/pkg/webtensor_bg.wasm') && files.includes('package/js/index.d.ts'), `the tarball holds the .wasm and the types (${files.length} files)`);
  const sources = (await readdir(path.join(repo, 'js'))).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'));
  const missing = sources.filter((f) => !files.includes(`package/js/${f}`));
  check(missing.length === 0, `the tarball holds every module of js/ (missing: ${missing.join(', ') || 'none'}; add them to package.json's files)`);
  const vite = JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')).devDependencies.vite;
  await writeFile(path.join(scratch, 'package.json'), JSON.stringify({
    name: 'scratch', private: true, type: 'module',
    dependencies: { webtensor: `file:${tarball}`, vite, webpack: '^5.100.0', 'webpack-cli': '^6.0.0' },
  }));
  run('npm', ['install', '--no-audit', '--no-fund', '--silent'], scratch);

  // Node, through the package's "node" export.
  await writeFile(path.join(scratch, 'node-use.mjs'), `
    import * as wt from 'webtensor';
    await wt.init({ wasm: new URL('./node_modules/webtensor/pkg/webtensor_bg.wasm', import.meta.url) });
    const x = wt.tensor([[1, 2], [3, 4]]);
    console.log(JSON.stringify(await x.matmul(x).array()));
  `);
  const nodeOut = run('node', ['node-use.mjs'], scratch).trim();
  check(nodeOut === '[[7,10],[15,22]]', `Node import computes [[7,10],[15,22]] (got ${nodeOut})`);

  // Vite and webpack production builds of the same page, served to headless Chromium.
  await mkdir(path.join(scratch, 'src'));
  await writeFile(path.join(scratch, 'index.html'), '<!doctype html><link rel="icon" href="data:,"><script type="module" src="/src/main.js"></script>');
  await writeFile(path.join(scratch, 'src', 'main.js'), `
    import * as wt from 'webtensor';
    const best = await wt.init();
    const x = wt.tensor([1, 2, 3], { device: best });
    window.__result = { best, sum: Array.from(await x.mul(x).sum().data()) };
  `);
  run(path.join(scratch, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], scratch);
  await writeFile(path.join(scratch, 'webpack.config.js'), `export default {
    mode: 'production', entry: './src/main.js', experiments: { topLevelAwait: true },
    output: { filename: 'main.js', path: new URL('./dist-webpack', import.meta.url).pathname },
  };`);
  run(path.join(scratch, 'node_modules', '.bin', 'webpack'), ['--no-stats'], scratch);
  await writeFile(path.join(scratch, 'dist-webpack', 'index.html'), '<!doctype html><link rel="icon" href="data:,"><script src="/main.js"></script>');
  for (const [name, dir] of [['Vite', 'dist'], ['webpack', 'dist-webpack']]) {
    const out = await inChromium(path.join(scratch, dir));
    check(out.sum?.[0] === 14 && out.errors.length === 0, `${name} build in Chromium computes 14 on ${out.best} (errors: ${out.errors.join('; ') || 'none'})`);
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
console.log(`${4 - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
