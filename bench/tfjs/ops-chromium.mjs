// Runs ops.html in headless Chromium (the system one, SwiftShader's WebGPU; see
// js/test/chromium.mjs) and prints its table. Usage: node ops-chromium.mjs [query, e.g. rounds=3]
import { fileURLToPath } from 'node:url';
import { withPage } from '../../js/test/chromium.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const query = process.argv[2] ? `?${process.argv[2]}` : '';
const result = await withPage(root, `/bench/tfjs/ops.html${query}`, async (page) => {
  await page.waitForFunction(() => window.__result, null, { timeout: 1_800_000 });
  return page.evaluate(() => window.__result);
});
if (result.error) {
  console.error(result.error);
  process.exit(1);
}
console.log(result.text);
