// The demo page is built from the package itself: `webtensor` resolves to its browser entry.
import { fileURLToPath } from 'node:url';

export default {
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: { alias: { webtensor: fileURLToPath(new URL('../js/browser.js', import.meta.url)) } },
  build: { outDir: fileURLToPath(new URL('../target/www', import.meta.url)), emptyOutDir: true, target: 'es2022' },
  // The compute worker is an ES module (it imports the package, which awaits its .wasm).
  worker: { format: 'es' },
  server: { fs: { allow: ['..'] } },
};
