// Writes the JSON Schema of ultimate-tool.json, generated from its one source (the zod
// ManifestSchema, services/ultimate-tool/project/manifest.ts), to the two places it ships:
//   services/ultimate-tool/manifest.schema.json   exported as mcp-engines/services/ultimate-tool/manifest.schema.json
//   examples/c64-project/ultimate-tool.schema.json  the example's own copy, named by its "$schema", so the
//                                                   example validates in an editor wherever it is copied
// Run after changing the manifest schema:  node --import tsx scripts/write-manifest-schemas.ts
// test/services/ultimate-tool/manifest.test.ts and test/package/example-schema.test.ts fail while a copy is stale.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestJsonSchema } from '../services/ultimate-tool/project/manifest.js';

export const MANIFEST_SCHEMA_COPIES = [
  'services/ultimate-tool/manifest.schema.json',
  'examples/c64-project/ultimate-tool.schema.json',
] as const;

const root = join(import.meta.dirname, '..');
const text = `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;
for (const copy of MANIFEST_SCHEMA_COPIES) {
  writeFileSync(join(root, copy), text);
  process.stderr.write(`wrote ${copy}\n`);
}
