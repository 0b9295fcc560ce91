// Writes js/test/{op,method,function}types.generated.ts from the core's op manifest and from running the calls of
// js/test/othercalls.mjs on the cpu (needs the built package:
// `npm run build` first). `npm run test:types` compiles it; js/test/files.test.mjs fails when the
// committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import * as wt from '../js/node.js';
import { opTypes } from '../js/test/manifest.mjs';

await wt.init({ gpu: false });
for (const [name, text] of Object.entries(opTypes(wt))) {
  const path = new URL(`../js/test/${name}`, import.meta.url);
  writeFileSync(path, text);
  console.log(`wrote ${path.pathname}`);
}
