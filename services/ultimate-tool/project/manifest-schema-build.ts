// Regenerates manifest.schema.json from the zod schema:
//   node --import tsx services/ultimate-tool/project/manifest-schema-build.ts
// test/services/ultimate-tool/manifest.test.ts checks the committed file is current.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { manifestJsonSchema } from './manifest.js';

const out = fileURLToPath(new URL('../manifest.schema.json', import.meta.url));
writeFileSync(out, `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
process.stderr.write(`wrote ${out}\n`);
