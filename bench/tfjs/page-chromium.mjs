// Runs one of this folder's benchmark pages in headless Chromium (the system one, SwiftShader's
// WebGPU; see js/test/chromium.mjs) and prints its table.
// Usage: node page-chromium.mjs <page, e.g. ops.html> [query, e.g. rounds=3]
import { fileURLToPath } from 'node:url';
import { withPage } from '../../js/test/chromium.mjs';

const [page, q] = process.argv.slice(2);
if (!page) {
  console.error('usage: node page-chromium.mjs <ops.html|train.html|gpt.html|model-ops.html|readback-parts.html> [query]');
  process.exit(2);
}
const root = fileURLToPath(new URL('../..', import.meta.url));
const result = await withPage(root, `/bench/tfjs/${page}${q ? `?${q}` : ''}`, async (p) => {
  await p.waitForFunction(() => window.__result, null, { timeout: 1_800_000 });
  return p.evaluate(() => window.__result);
});
if (result.error) {
  if (result.text) console.log(result.text);
  console.error(result.error);
  process.exit(1);
}
console.log(result.text);
